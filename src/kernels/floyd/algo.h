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

#include "kernels/exp_core.h"
#include "kernels/floyd/floyd.h"

/* Inputs are clamped to [LO, HI]: exp(-104) rounds to 0 and exp(88.8)
 * overflows to +inf, so the clamp changes no result and keeps
 * n = round(x*log2(e)) within [-150, 129]. */
#define EMU_FLOYD_EXP_LO (-104.0f)
#define EMU_FLOYD_EXP_HI 88.8f

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
    float z;
    const float p = emu_exp_core_(x, &z);
    int32_t zb;
    memcpy(&zb, &z, sizeof zb);
    const int32_t n = zb - EMU_EXP_MAGIC_BITS; /* garbage for NaN: the NaN polynomial wins */
    const int32_t n1 = n >> 1;                  /* arithmetic shift (floor) */
    const int32_t n2 = n - n1;
    const float scale1 = emu_floyd_bits_to_f32_((int32_t)((uint32_t)(n1 + 127) << 23));
    const float scale2 = emu_floyd_bits_to_f32_((int32_t)((uint32_t)(n2 + 127) << 23));
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
