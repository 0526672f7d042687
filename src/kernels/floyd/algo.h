/*
 * Internal: the one definition of the Floyd element-wise math. The scalar
 * functions here are the reference; avx2.c and avx512.c repeat them step by
 * step (same constants, same fma placement, same reduction lanes), which
 * is what makes all ISAs bit-identical. Change all together.
 */
#ifndef ACLNN_EMU_KERNELS_FLOYD_ALGO_H
#define ACLNN_EMU_KERNELS_FLOYD_ALGO_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/floyd/floyd.h"

/* Inputs are clamped to [LO, HI]: exp(-104) rounds to 0 and exp(88.8)
 * overflows to +inf, so the clamp changes no result and keeps
 * n = round(x*log2(e)) within [-150, 129]. */
#define EMU_FLOYD_EXP_LO (-104.0f)
#define EMU_FLOYD_EXP_HI 88.8f
#define EMU_FLOYD_LOG2E 1.44269504088896341f
/* 1.5 * 2^23: z = x*log2e + MAGIC rounds x*log2e to an integer n (RNE), and
 * z's bits are MAGIC_BITS + n. */
#define EMU_FLOYD_MAGIC 12582912.0f
#define EMU_FLOYD_MAGIC_BITS 0x4B400000
/* ln 2 = LN2_HI + LN2_LO; LN2_HI has 9 significant bits so n*LN2_HI is exact. */
#define EMU_FLOYD_LN2_HI 0.693359375f
#define EMU_FLOYD_LN2_LO (-2.12194440e-4f)
/* exp(r) ~= 1 + r + r^2 * (P5 + r*(P4 + ... + r*P0)) on |r| <= ln2/2 (Cephes expf). */
#define EMU_FLOYD_P0 1.9875691500e-4f
#define EMU_FLOYD_P1 1.3981999507e-3f
#define EMU_FLOYD_P2 8.3334519073e-3f
#define EMU_FLOYD_P3 4.1665795894e-2f
#define EMU_FLOYD_P4 1.6666665459e-1f
#define EMU_FLOYD_P5 5.0000001201e-1f

static inline float emu_floyd_bits_to_f32_(int32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* exp(x). 2^n is applied as 2^(n>>1) * 2^(n - (n>>1)): both factors are
 * normal numbers and only the last product rounds, so results overflow to
 * inf and fall into the subnormal range correctly. A NaN x gives NaN. */
static inline float emu_floyd_exp_(float x) {
    /* Written so that NaN fails both tests and passes through, like the
     * SIMD max/min with the clamp constant as first operand. */
    x = (x < EMU_FLOYD_EXP_LO) ? EMU_FLOYD_EXP_LO : x;
    x = (x > EMU_FLOYD_EXP_HI) ? EMU_FLOYD_EXP_HI : x;
    const float z = fmaf(x, EMU_FLOYD_LOG2E, EMU_FLOYD_MAGIC);
    const float nf = z - EMU_FLOYD_MAGIC;
    int32_t zb;
    memcpy(&zb, &z, sizeof zb);
    const int32_t n = zb - EMU_FLOYD_MAGIC_BITS; /* garbage for NaN: the NaN polynomial wins */
    const int32_t n1 = n >> 1;                    /* arithmetic shift (floor) */
    const int32_t n2 = n - n1;
    const float scale1 = emu_floyd_bits_to_f32_((int32_t)((uint32_t)(n1 + 127) << 23));
    const float scale2 = emu_floyd_bits_to_f32_((int32_t)((uint32_t)(n2 + 127) << 23));
    float r = fmaf(nf, -EMU_FLOYD_LN2_HI, x);
    r = fmaf(nf, -EMU_FLOYD_LN2_LO, r);
    float p = EMU_FLOYD_P0;
    p = fmaf(p, r, EMU_FLOYD_P1);
    p = fmaf(p, r, EMU_FLOYD_P2);
    p = fmaf(p, r, EMU_FLOYD_P3);
    p = fmaf(p, r, EMU_FLOYD_P4);
    p = fmaf(p, r, EMU_FLOYD_P5);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    return (p * scale1) * scale2;
}

/* The masked or scaled score. */
static inline float emu_floyd_score_(float s, const uint8_t* mask, size_t i, float scale) {
    return (mask != NULL && mask[i] != 0) ? -FLT_MAX : scale * s;
}

/* max as x86 maxps(a, b) computes it: a > b ? a : b (b when either is NaN). */
static inline float emu_floyd_max_(float a, float b) { return a > b ? a : b; }

/* The fixed combine of 16 lanes: pairwise halving, lanes j and j+w. */
static inline float emu_floyd_combine_max_(float* lane) {
    for (int w = EMU_FLOYD_LANES / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) lane[j] = emu_floyd_max_(lane[j], lane[j + w]);
    return lane[0];
}

static inline float emu_floyd_combine_sum_(float* lane) {
    for (int w = EMU_FLOYD_LANES / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) lane[j] = lane[j] + lane[j + w];
    return lane[0];
}

#define EMU_FLOYD_DECLARE(isa)                                                                     \
    float emu_f32_floyd_scores_max__##isa(size_t n, float* s, const uint8_t* mask, float scale);   \
    float emu_f32_floyd_exp_sum__##isa(size_t n, float* s, float max);                             \
    void emu_f32_floyd_softmax__##isa(size_t n, float* s, const uint8_t* mask, float scale, float max, \
                                      float sum);                                                  \
    void emu_f32_floyd_softmax_grad__##isa(size_t n, const float* p, float* dp, float dsum, float scale); \
    float emu_f32_floyd_dot__##isa(size_t n, const float* x, const float* y);

EMU_FLOYD_DECLARE(scalar)
#if defined(EMU_HAVE_X86_KERNELS)
EMU_FLOYD_DECLARE(avx2)
EMU_FLOYD_DECLARE(avx512)
#endif

#undef EMU_FLOYD_DECLARE

#endif
