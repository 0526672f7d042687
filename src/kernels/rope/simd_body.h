/* The SIMD RoPE kernels, written once over a small vector vocabulary that
 * avx2.c and avx512.c define before including this file:
 *   VEC, VW (lanes), V_LOAD, V_STORE, V_ADD, V_SUB, V_MUL, V_XOR,
 *   V_SWAP_PAIRS (swap lanes 2j and 2j+1), V_SIGN_ODD / V_SIGN_EVEN
 *   (vectors of -0.0f in the odd / even lanes), and ISA_SUFFIX(name).
 * Each body mirrors algo.h's pair helpers operation by operation (a product
 * negated by a sign flip, then added, rounds exactly like a subtraction), so
 * results equal the scalar kernels bit for bit. Tails use those helpers. */
#include "kernels/rope/algo.h"

/* Half-style pairs (base + j, base + off + j) for j in [0, n). */
static inline void block_fwd(size_t base, size_t off, size_t n, const float* x, const float* cos, const float* sin,
                             float* y) {
    size_t j = 0;
    for (; j + VW <= n; j += VW) {
        const size_t a = base + j, b = a + off;
        const VEC x1 = V_LOAD(x + a), x2 = V_LOAD(x + b);
        V_STORE(y + a, V_SUB(V_MUL(x1, V_LOAD(cos + a)), V_MUL(x2, V_LOAD(sin + a))));
        V_STORE(y + b, V_ADD(V_MUL(x2, V_LOAD(cos + b)), V_MUL(x1, V_LOAD(sin + b))));
    }
    for (; j < n; ++j) emu_rope_pair_fwd(x, cos, sin, y, base + j, base + off + j);
}

static inline void block_grad(size_t base, size_t off, size_t n, const float* dy, const float* x, const float* cos,
                              const float* sin, float* dx, float* acc_cos, float* acc_sin) {
    size_t j = 0;
    for (; j + VW <= n; j += VW) {
        const size_t a = base + j, b = a + off;
        const VEC d1 = V_LOAD(dy + a), d2 = V_LOAD(dy + b);
        V_STORE(dx + a, V_ADD(V_MUL(V_LOAD(cos + a), d1), V_MUL(V_LOAD(sin + b), d2)));
        V_STORE(dx + b, V_SUB(V_MUL(V_LOAD(cos + b), d2), V_MUL(V_LOAD(sin + a), d1)));
        if (x != NULL) {
            const VEC x1 = V_LOAD(x + a), x2 = V_LOAD(x + b);
            V_STORE(acc_cos + a, V_ADD(V_LOAD(acc_cos + a), V_MUL(d1, x1)));
            V_STORE(acc_cos + b, V_ADD(V_LOAD(acc_cos + b), V_MUL(d2, x2)));
            V_STORE(acc_sin + a, V_SUB(V_LOAD(acc_sin + a), V_MUL(d1, x2)));
            V_STORE(acc_sin + b, V_ADD(V_LOAD(acc_sin + b), V_MUL(d2, x1)));
        }
    }
    for (; j < n; ++j) emu_rope_pair_grad(dy, x, cos, sin, dx, acc_cos, acc_sin, base + j, base + off + j);
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
            V_STORE(y + e, V_ADD(V_MUL(xv, V_LOAD(cos + e)), V_MUL(rot, V_LOAD(sin + e))));
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
    for (size_t r = 0; r < rows; ++r) {
        block_grad(0, d / 2, d / 2, dy + r * d, x != NULL ? x + r * d : NULL, cos, sin, dx + r * d, acc_cos,
                   acc_sin);
    }
}

void ISA_SUFFIX(emu_f32_rope_quarter_grad)(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                           const float* sin, float* dx, float* acc_cos, float* acc_sin) {
    const size_t q = d / 4;
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x != NULL ? x + r * d : NULL;
        block_grad(0, q, q, dy + r * d, xr, cos, sin, dx + r * d, acc_cos, acc_sin);
        block_grad(2 * q, q, q, dy + r * d, xr, cos, sin, dx + r * d, acc_cos, acc_sin);
    }
}

void ISA_SUFFIX(emu_f32_rope_interleave_grad)(size_t rows, size_t d, const float* dy, const float* x,
                                              const float* cos, const float* sin, float* dx, float* acc_cos,
                                              float* acc_sin) {
    for (size_t r = 0; r < rows; ++r, dy += d, dx += d, x = x != NULL ? x + d : NULL) {
        size_t e = 0;
        for (; e + VW <= d; e += VW) {
            const VEC dv = V_LOAD(dy + e);
            /* (sin[2j+1]dy[2j+1], -(sin[2j]dy[2j])) */
            const VEC cross = V_XOR(V_SWAP_PAIRS(V_MUL(V_LOAD(sin + e), dv)), V_SIGN_ODD);
            V_STORE(dx + e, V_ADD(V_MUL(V_LOAD(cos + e), dv), cross));
            if (x != NULL) {
                const VEC xv = V_LOAD(x + e);
                const VEC rot = V_XOR(V_SWAP_PAIRS(xv), V_SIGN_EVEN);
                V_STORE(acc_cos + e, V_ADD(V_LOAD(acc_cos + e), V_MUL(dv, xv)));
                V_STORE(acc_sin + e, V_ADD(V_LOAD(acc_sin + e), V_MUL(dv, rot)));
            }
        }
        for (; e < d; e += 2) emu_rope_pair_grad(dy, x, cos, sin, dx, acc_cos, acc_sin, e, e + 1);
    }
}

void ISA_SUFFIX(emu_f32_rope_interleave_half_grad)(size_t rows, size_t d, const float* dy, const float* x,
                                                   const float* cos, const float* sin, float* dx, float* acc_cos,
                                                   float* acc_sin) {
    emu_rope_ih_grad(rows, d, dy, x, cos, sin, dx, acc_cos, acc_sin, ISA_SUFFIX(emu_f32_rope_half_grad));
}
