/* The SIMD RoPE kernels of modes 0-2 for one element type, written once:
 * simd_body.h includes this file for fp32 rows, avx2.c and avx512.c once
 * more for fp16 and for bf16 rows, with the conversions fused into the
 * loads of dy/x and the stores of dx/y so that a row passes through the
 * core once. Besides simd_body.h's vector vocabulary, the includer defines:
 *   H_T            the element type of dy, x, dx and y (the accumulators
 *                  are always fp32; cos and sin too, unless H_COS16),
 *   H_LOAD(p)      VW elements at p as fp32 (exact),
 *   H_STORE(p, v)  v stored as VW elements at p (round to nearest even),
 *   H_STREAM(p, v) the same with a non-temporal store (p aligned to its size),
 *   H_TO_F32 / H_FROM_F32  the same conversions for one value,
 *   H_NAME(name)   the kernel's name for this type and ISA,
 *   H_STORE2(p, v0, v1)  optional: v0 then v1 stored as 2*VW elements at p
 *                  (default: two H_STOREs; bf16 packs both into one store),
 *   H_STREAM2(p, v0, v1)  optional: the same, non-temporal,
 *   H_COS16        optional: cos and sin are H_T rows too, converted as
 *                  they are loaded, and only the gradients are emitted
 *                  (see half_instances.h for when each form is used),
 *   H_KEEP_PARAMS  optional: keep the parameters above (all but H_NAME and
 *                  H_COS16) defined for the next inclusion.
 * This file #undefs them at its end (see H_KEEP_PARAMS).
 * The conversions are kernels/convert's, bit for bit, and every operation
 * mirrors algo.h's pair helpers (fmaf there), so results equal the scalar
 * kernels' widen / compute / narrow bit for bit. A negated operand is a
 * sign flip (V_NEG), as C's unary minus is, not fmsub/fnmadd: those give
 * the same numbers but keep a NaN operand's sign, where -x flips it.
 * Tails use those helpers. */

#include <stdbool.h>

#ifdef H_COS16
#define C_T H_T
#define C_LOAD H_LOAD
#define C_TO_F32 H_TO_F32
#else
#define C_T float
#define C_LOAD V_LOAD
#define C_TO_F32(v) (v)
#endif

#ifndef H_STORE2
#define H_STORE2(p, v0, v1) (H_STORE((p), (v0)), H_STORE((p) + VW, (v1)))
#define H_STORE2_DEFAULTED
#endif
#ifndef H_STREAM2
#define H_STREAM2(p, v0, v1) (H_STREAM((p), (v0)), H_STREAM((p) + VW, (v1)))
#define H_STREAM2_DEFAULTED
#endif
/* dx stores: non-temporal where `nt`, a constant at every call site. */
#define H_PUT(nt, p, v) ((nt) ? H_STREAM((p), (v)) : H_STORE((p), (v)))
#define H_PUT2(nt, p, v0, v1) ((nt) ? H_STREAM2((p), (v0), (v1)) : H_STORE2((p), (v0), (v1)))

/* A pair's tail in fp32 through the scalar helper: gather, compute, scatter. */
static inline void H_NAME(pair_grad_tail)(const H_T* dy, const H_T* x, const C_T* cos, const C_T* sin,
                                          H_T* dx, float* acc_cos, float* acc_sin, size_t a, size_t b) {
    float g[2] = {H_TO_F32(dy[a]), H_TO_F32(dy[b])}, xv[2] = {0.0f, 0.0f};
    const float c[2] = {C_TO_F32(cos[a]), C_TO_F32(cos[b])}, s[2] = {C_TO_F32(sin[a]), C_TO_F32(sin[b])};
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

#ifndef H_COS16
static inline void H_NAME(pair_fwd_tail)(const H_T* x, const C_T* cos, const C_T* sin, H_T* y, size_t a,
                                         size_t b) {
    const float xv[2] = {H_TO_F32(x[a]), H_TO_F32(x[b])}, c[2] = {C_TO_F32(cos[a]), C_TO_F32(cos[b])},
                s[2] = {C_TO_F32(sin[a]), C_TO_F32(sin[b])};
    float out[2];
    emu_rope_pair_fwd(xv, c, s, out, 0, 1);
    y[a] = H_FROM_F32(out[0]);
    y[b] = H_FROM_F32(out[1]);
}

static inline void H_NAME(block_fwd)(size_t rows, size_t d, size_t base, size_t off, size_t n, const H_T* x,
                                     const C_T* cos, const C_T* sin, H_T* y) {
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        size_t j = 0;
        for (; j + VW <= n; j += VW) {
            const size_t a = base + j, b = a + off;
            const VEC x1 = H_LOAD(x + a), x2 = H_LOAD(x + b);
            H_STORE(y + a, V_FMA(x1, C_LOAD(cos + a), V_NEG(V_MUL(x2, C_LOAD(sin + a)))));
            H_STORE(y + b, V_FMA(x2, C_LOAD(cos + b), V_MUL(x1, C_LOAD(sin + b))));
        }
        for (; j < n; ++j) H_NAME(pair_fwd_tail)(x, cos, sin, y, base + j, base + off + j);
    }
}

#endif

/* dx of the VW pairs (a + i, b + i) of one row into *lo / *hi and, with x,
 * their accumulator updates (accumulators in L1, see row_grad). */
static inline __attribute__((always_inline)) void H_NAME(grad_vec)(size_t a, size_t b, const H_T* g, const H_T* xr,
                                                                   const C_T* cos, const C_T* sin, VEC* lo,
                                                                   VEC* hi, float* acc_cos, float* acc_sin,
                                                                   const bool with_x) {
    const VEC d1 = H_LOAD(g + a), d2 = H_LOAD(g + b);
    *lo = V_FMA(C_LOAD(cos + a), d1, V_MUL(C_LOAD(sin + b), d2));
    *hi = V_FMA(C_LOAD(cos + b), d2, V_NEG(V_MUL(C_LOAD(sin + a), d1)));
    if (with_x) {
        const VEC x1 = H_LOAD(xr + a), x2 = H_LOAD(xr + b);
        V_STORE(acc_cos + a, V_FMA(d1, x1, V_LOAD(acc_cos + a)));
        V_STORE(acc_cos + b, V_FMA(d2, x2, V_LOAD(acc_cos + b)));
        V_STORE(acc_sin + a, V_FMA(V_NEG(d1), x2, V_LOAD(acc_sin + a)));
        V_STORE(acc_sin + b, V_FMA(d2, x1, V_LOAD(acc_sin + b)));
    }
}

/* One row of the gradient over the pairs (base + j, base + off + j), j < n,
 * two vectors of pairs per step so that H_STORE2 can narrow 2*VW values at
 * once. */
static inline __attribute__((always_inline)) void H_NAME(row_grad)(size_t base, size_t off, size_t n, const H_T* g,
                                                                   const H_T* xr, const C_T* cos,
                                                                   const C_T* sin, H_T* o, float* acc_cos,
                                                                   float* acc_sin, const bool with_x,
                                                                   const bool nt) {
    size_t j = 0;
    for (; j + 2 * VW <= n; j += 2 * VW) {
        const size_t a = base + j, b = a + off;
        VEC lo1, hi1, lo2, hi2;
        H_NAME(grad_vec)(a, b, g, xr, cos, sin, &lo1, &hi1, acc_cos, acc_sin, with_x);
        H_NAME(grad_vec)(a + VW, b + VW, g, xr, cos, sin, &lo2, &hi2, acc_cos, acc_sin, with_x);
        H_PUT2(nt, o + a, lo1, lo2);
        H_PUT2(nt, o + b, hi1, hi2);
    }
    for (; j + VW <= n; j += VW) {
        const size_t a = base + j, b = a + off;
        VEC lo, hi;
        H_NAME(grad_vec)(a, b, g, xr, cos, sin, &lo, &hi, acc_cos, acc_sin, with_x);
        H_PUT(nt, o + a, lo);
        H_PUT(nt, o + b, hi);
    }
    for (; j < n; ++j) {
        H_NAME(pair_grad_tail)(g, with_x ? xr : NULL, cos, sin, o, acc_cos, acc_sin, base + j, base + off + j);
    }
}

/* Half mode (quarter = false) or quarter mode over `rows` rows. Rows are
 * walked one after another in memory order (a column-major walk over
 * several rows, with the accumulators in registers, measured up to 1.6x
 * slower once the rows come from DRAM: the interleaved lines defeat the
 * hardware prefetchers). The accumulators live in L1 and take each row's
 * contribution in turn, so every accumulator still sums its rows in order. */
static inline __attribute__((always_inline)) void H_NAME(rows_grad)(size_t rows, size_t d, const H_T* dy,
                                                                    const H_T* x, const C_T* cos,
                                                                    const C_T* sin, H_T* dx, float* acc_cos,
                                                                    float* acc_sin, const bool with_x,
                                                                    const bool quarter, const bool nt) {
    const size_t n = quarter ? d / 4 : d / 2;
    for (size_t r = 0; r < rows; ++r) {
        const H_T* xr = with_x ? x + r * d : NULL;
        H_NAME(row_grad)(0, n, n, dy + r * d, xr, cos, sin, dx + r * d, acc_cos, acc_sin, with_x, nt);
        if (quarter) {
            H_NAME(row_grad)(d / 2, n, n, dy + r * d, xr, cos, sin, dx + r * d, acc_cos, acc_sin, with_x, nt);
        }
    }
}

#ifndef H_COS16
void H_NAME(rope_half)(size_t rows, size_t d, const H_T* x, const C_T* cos, const C_T* sin, H_T* y) {
    H_NAME(block_fwd)(rows, d, 0, d / 2, d / 2, x, cos, sin, y);
}

void H_NAME(rope_quarter)(size_t rows, size_t d, const H_T* x, const C_T* cos, const C_T* sin,
                          H_T* y) {
    H_NAME(block_fwd)(rows, d, 0, d / 4, d / 4, x, cos, sin, y);
    H_NAME(block_fwd)(rows, d, d / 2, d / 4, d / 4, x, cos, sin, y);
}

void H_NAME(rope_interleave)(size_t rows, size_t d, const H_T* x, const C_T* cos, const C_T* sin,
                             H_T* y) {
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        size_t e = 0;
        for (; e + VW <= d; e += VW) {
            const VEC xv = H_LOAD(x + e);
            const VEC rot = V_XOR(V_SWAP_PAIRS(xv), V_SIGN_EVEN);
            H_STORE(y + e, V_FMA(xv, C_LOAD(cos + e), V_MUL(rot, C_LOAD(sin + e))));
        }
        for (; e < d; e += 2) H_NAME(pair_fwd_tail)(x, cos, sin, y, e, e + 1);
    }
}

#endif

/* The exported gradients: dx with plain stores, or with non-temporal ones
 * ("_nt": dx and the first element of every half, quarter or row must sit
 * on a 64-byte boundary, and every run be whole vectors; the op layer
 * checks). The x == NULL split lets the compiler drop the accumulators. */
#define H_ROWS_GRAD_ENTRY(name, quarter, nt)                                                                   \
    void H_NAME(name)(size_t rows, size_t d, const H_T* dy, const H_T* x, const C_T* cos, const C_T* sin,      \
                      H_T* dx, float* acc_cos, float* acc_sin) {                                               \
        if (x == NULL) {                                                                                       \
            H_NAME(rows_grad)(rows, d, dy, NULL, cos, sin, dx, NULL, NULL, false, quarter, nt);                \
        } else {                                                                                               \
            H_NAME(rows_grad)(rows, d, dy, x, cos, sin, dx, acc_cos, acc_sin, true, quarter, nt);              \
        }                                                                                                      \
    }
H_ROWS_GRAD_ENTRY(rope_half_grad, false, false)
H_ROWS_GRAD_ENTRY(rope_quarter_grad, true, false)
H_ROWS_GRAD_ENTRY(rope_half_grad_nt, false, true)
H_ROWS_GRAD_ENTRY(rope_quarter_grad_nt, true, true)
#undef H_ROWS_GRAD_ENTRY

/* Interleave-mode dx of the VW elements at e of one row and, with x, their
 * accumulator updates. */
static inline __attribute__((always_inline)) VEC H_NAME(interleave_vec)(size_t e, const H_T* g, const H_T* xr,
                                                                        const C_T* cos, const C_T* sin,
                                                                        float* acc_cos, float* acc_sin,
                                                                        const bool with_x) {
    const VEC dv = H_LOAD(g + e);
    const VEC cross = V_XOR(V_SWAP_PAIRS(V_MUL(C_LOAD(sin + e), dv)), V_SIGN_ODD);
    if (with_x) {
        const VEC xv = H_LOAD(xr + e);
        V_STORE(acc_cos + e, V_FMA(dv, xv, V_LOAD(acc_cos + e)));
        V_STORE(acc_sin + e, V_FMA(V_XOR(dv, V_SIGN_EVEN), V_SWAP_PAIRS(xv), V_LOAD(acc_sin + e)));
    }
    return V_FMA(C_LOAD(cos + e), dv, cross);
}

static inline __attribute__((always_inline)) void H_NAME(rows_interleave_grad)(size_t rows, size_t d,
                                                                               const H_T* dy, const H_T* x,
                                                                               const C_T* cos, const C_T* sin,
                                                                               H_T* dx, float* acc_cos,
                                                                               float* acc_sin, const bool with_x,
                                                                               const bool nt) {
    for (size_t r = 0; r < rows; ++r) {
        const H_T *g = dy + r * d, *xr = with_x ? x + r * d : NULL;
        H_T* o = dx + r * d;
        size_t e = 0;
        for (; e + 2 * VW <= d; e += 2 * VW) {
            const VEC lo = H_NAME(interleave_vec)(e, g, xr, cos, sin, acc_cos, acc_sin, with_x);
            const VEC hi = H_NAME(interleave_vec)(e + VW, g, xr, cos, sin, acc_cos, acc_sin, with_x);
            H_PUT2(nt, o + e, lo, hi);
        }
        for (; e + VW <= d; e += VW) {
            H_PUT(nt, o + e, H_NAME(interleave_vec)(e, g, xr, cos, sin, acc_cos, acc_sin, with_x));
        }
        for (; e < d; e += 2) H_NAME(pair_grad_tail)(g, xr, cos, sin, o, acc_cos, acc_sin, e, e + 1);
    }
}

#define H_INTERLEAVE_GRAD_ENTRY(name, nt)                                                                       \
    void H_NAME(name)(size_t rows, size_t d, const H_T* dy, const H_T* x, const C_T* cos, const C_T* sin,      \
                      H_T* dx, float* acc_cos, float* acc_sin) {                                               \
        if (x == NULL) {                                                                                       \
            H_NAME(rows_interleave_grad)(rows, d, dy, NULL, cos, sin, dx, NULL, NULL, false, nt);              \
        } else {                                                                                               \
            H_NAME(rows_interleave_grad)(rows, d, dy, x, cos, sin, dx, acc_cos, acc_sin, true, nt);            \
        }                                                                                                      \
    }
H_INTERLEAVE_GRAD_ENTRY(rope_interleave_grad, false)
H_INTERLEAVE_GRAD_ENTRY(rope_interleave_grad_nt, true)
#undef H_INTERLEAVE_GRAD_ENTRY

/* This file's own helpers go; the includer's parameters are consumed too,
 * so the next type can define its own, unless H_KEEP_PARAMS asks to keep
 * them for another form of the same type (H_NAME is always the includer's
 * to redefine). */
#undef C_T
#undef C_LOAD
#undef C_TO_F32
#undef H_COS16
#undef H_PUT
#undef H_PUT2
#undef H_NAME
#ifdef H_KEEP_PARAMS
#undef H_KEEP_PARAMS
#else
#undef H_STORE2
#undef H_STORE2_DEFAULTED
#undef H_STREAM
#undef H_STREAM2
#undef H_STREAM2_DEFAULTED
#undef H_T
#undef H_LOAD
#undef H_STORE
#undef H_TO_F32
#undef H_FROM_F32
#endif
