/* The SIMD RoPE kernels, written once over a small vector vocabulary that
 * avx2.c and avx512.c define before including this file:
 *   VEC, VW (lanes), V_LOAD, V_STORE, V_MUL, V_XOR, V_FMA (a*b + c),
 *   V_FMSUB (a*b - c), V_FNMA (c - a*b), each fused with one rounding,
 *   V_SWAP_PAIRS (swap lanes 2j and 2j+1), V_SIGN_ODD / V_SIGN_EVEN
 *   (vectors of -0.0f in the odd / even lanes), and ISA_SUFFIX(name).
 * Each body mirrors algo.h's pair helpers operation by operation (fmaf there;
 * a sign flip is exact, so fma(a, b, -c) equals fmsub(a, b, c)), so results
 * equal the scalar kernels bit for bit. Tails use those helpers. */
#include "kernels/rope/algo.h"

/* Half-style pairs (base + j, base + off + j) for j in [0, n). */
static inline void block_fwd(size_t base, size_t off, size_t n, const float* x, const float* cos, const float* sin,
                             float* y) {
    size_t j = 0;
    for (; j + VW <= n; j += VW) {
        const size_t a = base + j, b = a + off;
        const VEC x1 = V_LOAD(x + a), x2 = V_LOAD(x + b);
        V_STORE(y + a, V_FMSUB(x1, V_LOAD(cos + a), V_MUL(x2, V_LOAD(sin + a))));
        V_STORE(y + b, V_FMA(x2, V_LOAD(cos + b), V_MUL(x1, V_LOAD(sin + b))));
    }
    for (; j < n; ++j) emu_rope_pair_fwd(x, cos, sin, y, base + j, base + off + j);
}

/* Columns outermost, rows innermost: cos/sin and the accumulators stay in
 * registers across the rows; each accumulator still takes rows 0..rows-1 in order. */
static inline void block_grad(size_t rows, size_t d, size_t base, size_t off, size_t n, const float* dy,
                              const float* x, const float* cos, const float* sin, float* dx, float* acc_cos,
                              float* acc_sin) {
    size_t j = 0;
    for (; j + VW <= n; j += VW) {
        const size_t a = base + j, b = a + off;
        const VEC c1 = V_LOAD(cos + a), c2 = V_LOAD(cos + b), s1 = V_LOAD(sin + a), s2 = V_LOAD(sin + b);
        if (x == NULL) {
            for (size_t r = 0; r < rows; ++r) {
                const float* g = dy + r * d;
                const VEC d1 = V_LOAD(g + a), d2 = V_LOAD(g + b);
                V_STORE(dx + r * d + a, V_FMA(c1, d1, V_MUL(s2, d2)));
                V_STORE(dx + r * d + b, V_FMSUB(c2, d2, V_MUL(s1, d1)));
            }
            continue;
        }
        VEC ac1 = V_LOAD(acc_cos + a), ac2 = V_LOAD(acc_cos + b);
        VEC as1 = V_LOAD(acc_sin + a), as2 = V_LOAD(acc_sin + b);
        for (size_t r = 0; r < rows; ++r) {
            const float *g = dy + r * d, *xr = x + r * d;
            const VEC d1 = V_LOAD(g + a), d2 = V_LOAD(g + b);
            const VEC x1 = V_LOAD(xr + a), x2 = V_LOAD(xr + b);
            V_STORE(dx + r * d + a, V_FMA(c1, d1, V_MUL(s2, d2)));
            V_STORE(dx + r * d + b, V_FMSUB(c2, d2, V_MUL(s1, d1)));
            ac1 = V_FMA(d1, x1, ac1);
            ac2 = V_FMA(d2, x2, ac2);
            as1 = V_FNMA(d1, x2, as1);
            as2 = V_FMA(d2, x1, as2);
        }
        V_STORE(acc_cos + a, ac1);
        V_STORE(acc_cos + b, ac2);
        V_STORE(acc_sin + a, as1);
        V_STORE(acc_sin + b, as2);
    }
    for (; j < n; ++j) {
        for (size_t r = 0; r < rows; ++r) {
            emu_rope_pair_grad(dy + r * d, x != NULL ? x + r * d : NULL, cos, sin, dx + r * d, acc_cos, acc_sin,
                               base + j, base + off + j);
        }
    }
}

void ISA_SUFFIX(emu_f32_rope_half)(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                   float* y) {
    for (size_t r = 0; r < rows; ++r) block_fwd(0, d / 2, d / 2, x + r * d, cos, sin, y + r * d);
}

void ISA_SUFFIX(emu_f32_rope_quarter)(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                      float* y) {
    const size_t q = d / 4;
    for (size_t r = 0; r < rows; ++r) {
        block_fwd(0, q, q, x + r * d, cos, sin, y + r * d);
        block_fwd(2 * q, q, q, x + r * d, cos, sin, y + r * d);
    }
}

void ISA_SUFFIX(emu_f32_rope_interleave)(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                         float* y) {
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        size_t e = 0;
        for (; e + VW <= d; e += VW) {
            const VEC xv = V_LOAD(x + e);
            const VEC rot = V_XOR(V_SWAP_PAIRS(xv), V_SIGN_EVEN); /* (-x[2j+1], x[2j]) */
            V_STORE(y + e, V_FMA(xv, V_LOAD(cos + e), V_MUL(rot, V_LOAD(sin + e))));
        }
        for (; e < d; e += 2) emu_rope_pair_fwd(x, cos, sin, y, e, e + 1);
    }
}

void ISA_SUFFIX(emu_f32_rope_interleave_half)(size_t rows, size_t d, const float* x, const float* cos,
                                              const float* sin, float* y) {
    emu_rope_ih_fwd(rows, d, x, cos, sin, y, ISA_SUFFIX(emu_f32_rope_half));
}

void ISA_SUFFIX(emu_f32_rope_half_grad)(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                        const float* sin, float* dx, float* acc_cos, float* acc_sin) {
    block_grad(rows, d, 0, d / 2, d / 2, dy, x, cos, sin, dx, acc_cos, acc_sin);
}

void ISA_SUFFIX(emu_f32_rope_quarter_grad)(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                           const float* sin, float* dx, float* acc_cos, float* acc_sin) {
    const size_t q = d / 4;
    block_grad(rows, d, 0, q, q, dy, x, cos, sin, dx, acc_cos, acc_sin);
    block_grad(rows, d, 2 * q, q, q, dy, x, cos, sin, dx, acc_cos, acc_sin);
}

void ISA_SUFFIX(emu_f32_rope_interleave_grad)(size_t rows, size_t d, const float* dy, const float* x,
                                              const float* cos, const float* sin, float* dx, float* acc_cos,
                                              float* acc_sin) {
    size_t e = 0;
    for (; e + VW <= d; e += VW) {
        const VEC cv = V_LOAD(cos + e), sv = V_LOAD(sin + e);
        VEC ac = x != NULL ? V_LOAD(acc_cos + e) : cv, as = x != NULL ? V_LOAD(acc_sin + e) : sv;
        for (size_t r = 0; r < rows; ++r) {
            const VEC dv = V_LOAD(dy + r * d + e);
            /* (sin[2j+1]dy[2j+1], -(sin[2j]dy[2j])) */
            const VEC cross = V_XOR(V_SWAP_PAIRS(V_MUL(sv, dv)), V_SIGN_ODD);
            V_STORE(dx + r * d + e, V_FMA(cv, dv, cross));
            if (x != NULL) {
                const VEC xv = V_LOAD(x + r * d + e);
                const VEC rot = V_XOR(V_SWAP_PAIRS(xv), V_SIGN_EVEN);
                ac = V_FMA(dv, xv, ac);
                as = V_FMA(dv, rot, as);
            }
        }
        if (x != NULL) {
            V_STORE(acc_cos + e, ac);
            V_STORE(acc_sin + e, as);
        }
    }
    for (; e < d; e += 2) {
        for (size_t r = 0; r < rows; ++r) {
            emu_rope_pair_grad(dy + r * d, x != NULL ? x + r * d : NULL, cos, sin, dx + r * d, acc_cos, acc_sin, e,
                               e + 1);
        }
    }
}

void ISA_SUFFIX(emu_f32_rope_interleave_half_grad)(size_t rows, size_t d, const float* dy, const float* x,
                                                   const float* cos, const float* sin, float* dx, float* acc_cos,
                                                   float* acc_sin) {
    emu_rope_ih_grad(rows, d, dy, x, cos, sin, dx, acc_cos, acc_sin, ISA_SUFFIX(emu_f32_rope_half_grad));
}
