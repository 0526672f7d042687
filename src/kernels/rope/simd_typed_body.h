/* The SIMD RoPE kernels of modes 0-2 for one element type, written once:
 * simd_body.h includes this file for fp32 rows, avx2.c and avx512.c once
 * more for fp16 and for bf16 rows, with the conversions fused into the
 * loads of dy/x and the stores of dx/y so that a row passes through the
 * core once. Besides simd_body.h's vector vocabulary, the includer defines:
 *   H_T            the element type of dy, x, dx and y (cos, sin and the
 *                  accumulators are always fp32),
 *   H_LOAD(p)      VW elements at p as fp32 (exact),
 *   H_STORE(p, v)  v stored as VW elements at p (round to nearest even),
 *   H_TO_F32 / H_FROM_F32  the same conversions for one value,
 *   H_NAME(name)   the kernel's name for this type and ISA.
 * The conversions are kernels/convert's, bit for bit, and every operation
 * mirrors algo.h's pair helpers (fmaf there; a sign flip is exact, so
 * fma(a, b, -c) equals fmsub(a, b, c)), so results equal the scalar
 * kernels' widen / compute / narrow bit for bit. Tails use those helpers. */

/* A pair's tail in fp32 through the scalar helper: gather, compute, scatter. */
static inline void H_NAME(pair_grad_tail)(const H_T* dy, const H_T* x, const float* cos, const float* sin,
                                          H_T* dx, float* acc_cos, float* acc_sin, size_t a, size_t b) {
    float g[2] = {H_TO_F32(dy[a]), H_TO_F32(dy[b])}, xv[2] = {0.0f, 0.0f};
    const float c[2] = {cos[a], cos[b]}, s[2] = {sin[a], sin[b]};
    float out[2], ac[2] = {0.0f, 0.0f}, as[2] = {0.0f, 0.0f};
    if (x != NULL) {
        xv[0] = H_TO_F32(x[a]);
        xv[1] = H_TO_F32(x[b]);
        ac[0] = acc_cos[a], ac[1] = acc_cos[b], as[0] = acc_sin[a], as[1] = acc_sin[b];
    }
    emu_rope_pair_grad(g, x != NULL ? xv : NULL, c, s, out, ac, as, 0, 1);
    dx[a] = H_FROM_F32(out[0]);
    dx[b] = H_FROM_F32(out[1]);
    if (x != NULL) {
        acc_cos[a] = ac[0], acc_cos[b] = ac[1], acc_sin[a] = as[0], acc_sin[b] = as[1];
    }
}

static inline void H_NAME(pair_fwd_tail)(const H_T* x, const float* cos, const float* sin, H_T* y, size_t a,
                                         size_t b) {
    const float xv[2] = {H_TO_F32(x[a]), H_TO_F32(x[b])}, c[2] = {cos[a], cos[b]}, s[2] = {sin[a], sin[b]};
    float out[2];
    emu_rope_pair_fwd(xv, c, s, out, 0, 1);
    y[a] = H_FROM_F32(out[0]);
    y[b] = H_FROM_F32(out[1]);
}

static inline void H_NAME(block_fwd)(size_t rows, size_t d, size_t base, size_t off, size_t n, const H_T* x,
                                     const float* cos, const float* sin, H_T* y) {
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        size_t j = 0;
        for (; j + VW <= n; j += VW) {
            const size_t a = base + j, b = a + off;
            const VEC x1 = H_LOAD(x + a), x2 = H_LOAD(x + b);
            H_STORE(y + a, V_FMSUB(x1, V_LOAD(cos + a), V_MUL(x2, V_LOAD(sin + a))));
            H_STORE(y + b, V_FMA(x2, V_LOAD(cos + b), V_MUL(x1, V_LOAD(sin + b))));
        }
        for (; j < n; ++j) H_NAME(pair_fwd_tail)(x, cos, sin, y, base + j, base + off + j);
    }
}

/* One row of the gradient over the pairs (base + j, base + off + j), j < n.
 * Rows are walked one after another in memory order (a column-major walk
 * over several rows, with the accumulators in registers, measured up to
 * 1.6x slower once the rows come from DRAM: the interleaved lines defeat
 * the hardware prefetchers). The accumulators live in L1 and take this
 * row's contribution; the caller passes rows in order, so every
 * accumulator still sums its rows in order. */
static inline void H_NAME(row_grad)(size_t base, size_t off, size_t n, const H_T* g, const H_T* xr,
                                    const float* cos, const float* sin, H_T* o, float* acc_cos, float* acc_sin) {
    size_t j = 0;
    if (xr == NULL) {
        for (; j + VW <= n; j += VW) {
            const size_t a = base + j, b = a + off;
            const VEC d1 = H_LOAD(g + a), d2 = H_LOAD(g + b);
            H_STORE(o + a, V_FMA(V_LOAD(cos + a), d1, V_MUL(V_LOAD(sin + b), d2)));
            H_STORE(o + b, V_FMSUB(V_LOAD(cos + b), d2, V_MUL(V_LOAD(sin + a), d1)));
        }
    } else {
        for (; j + VW <= n; j += VW) {
            const size_t a = base + j, b = a + off;
            const VEC d1 = H_LOAD(g + a), d2 = H_LOAD(g + b);
            const VEC x1 = H_LOAD(xr + a), x2 = H_LOAD(xr + b);
            H_STORE(o + a, V_FMA(V_LOAD(cos + a), d1, V_MUL(V_LOAD(sin + b), d2)));
            H_STORE(o + b, V_FMSUB(V_LOAD(cos + b), d2, V_MUL(V_LOAD(sin + a), d1)));
            V_STORE(acc_cos + a, V_FMA(d1, x1, V_LOAD(acc_cos + a)));
            V_STORE(acc_cos + b, V_FMA(d2, x2, V_LOAD(acc_cos + b)));
            V_STORE(acc_sin + a, V_FNMA(d1, x2, V_LOAD(acc_sin + a)));
            V_STORE(acc_sin + b, V_FMA(d2, x1, V_LOAD(acc_sin + b)));
        }
    }
    for (; j < n; ++j) H_NAME(pair_grad_tail)(g, xr, cos, sin, o, acc_cos, acc_sin, base + j, base + off + j);
}

void H_NAME(rope_half)(size_t rows, size_t d, const H_T* x, const float* cos, const float* sin, H_T* y) {
    H_NAME(block_fwd)(rows, d, 0, d / 2, d / 2, x, cos, sin, y);
}

void H_NAME(rope_quarter)(size_t rows, size_t d, const H_T* x, const float* cos, const float* sin,
                          H_T* y) {
    H_NAME(block_fwd)(rows, d, 0, d / 4, d / 4, x, cos, sin, y);
    H_NAME(block_fwd)(rows, d, d / 2, d / 4, d / 4, x, cos, sin, y);
}

void H_NAME(rope_interleave)(size_t rows, size_t d, const H_T* x, const float* cos, const float* sin,
                             H_T* y) {
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        size_t e = 0;
        for (; e + VW <= d; e += VW) {
            const VEC xv = H_LOAD(x + e);
            const VEC rot = V_XOR(V_SWAP_PAIRS(xv), V_SIGN_EVEN);
            H_STORE(y + e, V_FMA(xv, V_LOAD(cos + e), V_MUL(rot, V_LOAD(sin + e))));
        }
        for (; e < d; e += 2) H_NAME(pair_fwd_tail)(x, cos, sin, y, e, e + 1);
    }
}

void H_NAME(rope_half_grad)(size_t rows, size_t d, const H_T* dy, const H_T* x, const float* cos,
                            const float* sin, H_T* dx, float* acc_cos, float* acc_sin) {
    for (size_t r = 0; r < rows; ++r) {
        H_NAME(row_grad)(0, d / 2, d / 2, dy + r * d, x != NULL ? x + r * d : NULL, cos, sin, dx + r * d, acc_cos,
                         acc_sin);
    }
}

void H_NAME(rope_quarter_grad)(size_t rows, size_t d, const H_T* dy, const H_T* x, const float* cos,
                               const float* sin, H_T* dx, float* acc_cos, float* acc_sin) {
    for (size_t r = 0; r < rows; ++r) {
        const H_T* xr = x != NULL ? x + r * d : NULL;
        H_NAME(row_grad)(0, d / 4, d / 4, dy + r * d, xr, cos, sin, dx + r * d, acc_cos, acc_sin);
        H_NAME(row_grad)(d / 2, d / 4, d / 4, dy + r * d, xr, cos, sin, dx + r * d, acc_cos, acc_sin);
    }
}

void H_NAME(rope_interleave_grad)(size_t rows, size_t d, const H_T* dy, const H_T* x, const float* cos,
                                  const float* sin, H_T* dx, float* acc_cos, float* acc_sin) {
    for (size_t r = 0; r < rows; ++r) {
        const H_T *g = dy + r * d, *xr = x != NULL ? x + r * d : NULL;
        H_T* o = dx + r * d;
        size_t e = 0;
        for (; e + VW <= d; e += VW) {
            const VEC dv = H_LOAD(g + e);
            const VEC cross = V_XOR(V_SWAP_PAIRS(V_MUL(V_LOAD(sin + e), dv)), V_SIGN_ODD);
            H_STORE(o + e, V_FMA(V_LOAD(cos + e), dv, cross));
            if (xr != NULL) {
                const VEC xv = H_LOAD(xr + e);
                V_STORE(acc_cos + e, V_FMA(dv, xv, V_LOAD(acc_cos + e)));
                V_STORE(acc_sin + e, V_FMA(dv, V_XOR(V_SWAP_PAIRS(xv), V_SIGN_EVEN), V_LOAD(acc_sin + e)));
            }
        }
        for (; e < d; e += 2) H_NAME(pair_grad_tail)(g, xr, cos, sin, o, acc_cos, acc_sin, e, e + 1);
    }
}
