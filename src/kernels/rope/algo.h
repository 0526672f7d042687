/* Scalar building blocks shared by every ISA's RoPE kernels: one pair of
 * elements at a time (used for whole rows by scalar.c and for the tails of
 * the SIMD files), and the interleave-half wrappers, which run an ISA's
 * half-mode kernel row by row on a de-interleaved copy. Operation order
 * matches the SIMD bodies exactly (see rope.h). */
#ifndef ACLNN_EMU_KERNELS_ROPE_ALGO_H
#define ACLNN_EMU_KERNELS_ROPE_ALGO_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/rope/rope.h"

/* -v by flipping the sign bit, NaNs included. Written as -v inside fmaf,
 * GCC with -mfma folds the negation into vfmsub/vfnmadd, which keep a NaN
 * operand's sign: the SIMD files' tails would then differ from scalar.c
 * (a libm fmaf call on the negated value) in the sign of NaN results. */
static inline float emu_rope_neg(float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits ^= 0x80000000u;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* y over the pair (a, b): y[a] = x[a]cos[a] - x[b]sin[a], y[b] = x[b]cos[b] + x[a]sin[b],
 * the second product rounded, the first fused with the sum. */
static inline void emu_rope_pair_fwd(const float* x, const float* cos, const float* sin, float* y, size_t a,
                                     size_t b) {
    const float xa = x[a], xb = x[b];
    y[a] = fmaf(xa, cos[a], emu_rope_neg(xb * sin[a]));
    y[b] = fmaf(xb, cos[b], xa * sin[b]);
}

/* dx over the pair (a, b) and, when x is given, the cos/sin accumulators. */
static inline void emu_rope_pair_grad(const float* dy, const float* x, const float* cos, const float* sin, float* dx,
                                      float* acc_cos, float* acc_sin, size_t a, size_t b) {
    const float da = dy[a], db = dy[b];
    dx[a] = fmaf(cos[a], da, sin[b] * db);
    dx[b] = fmaf(cos[b], db, emu_rope_neg(sin[a] * da));
    if (x != NULL) {
        const float xa = x[a], xb = x[b];
        acc_cos[a] = fmaf(da, xa, acc_cos[a]);
        acc_cos[b] = fmaf(db, xb, acc_cos[b]);
        acc_sin[a] = fmaf(emu_rope_neg(da), xb, acc_sin[a]);
        acc_sin[b] = fmaf(db, xa, acc_sin[b]);
    }
}

static inline void emu_rope_deinterleave(size_t d, const float* x, float* xd) {
    const size_t h = d / 2;
    for (size_t j = 0; j < h; ++j) {
        xd[j] = x[2 * j];
        xd[h + j] = x[2 * j + 1];
    }
}

static inline void emu_rope_ih_fwd(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                   float* y, emu_rope_fwd_fn half) {
    float xd[EMU_ROPE_MAX_D];
    for (size_t r = 0; r < rows; ++r) {
        emu_rope_deinterleave(d, x + r * d, xd);
        half(1, d, xd, cos, sin, y + r * d);
    }
}

static inline void emu_rope_ih_grad(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                    const float* sin, float* dx, float* acc_cos, float* acc_sin,
                                    emu_rope_grad_fn half) {
    float xd[EMU_ROPE_MAX_D], t[EMU_ROPE_MAX_D];
    const size_t h = d / 2;
    for (size_t r = 0; r < rows; ++r) {
        if (x != NULL) {
            emu_rope_deinterleave(d, x + r * d, xd);
        }
        half(1, d, dy + r * d, x != NULL ? xd : NULL, cos, sin, t, acc_cos, acc_sin);
        float* out = dx + r * d;
        for (size_t j = 0; j < h; ++j) {
            out[2 * j] = t[j];
            out[2 * j + 1] = t[h + j];
        }
    }
}

#endif
