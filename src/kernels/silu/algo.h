/*
 * Internal: the one definition of the SiLU math. emu_silu_sigmoid_() is the
 * reference algorithm; avx2.c and avx512.c repeat it step by step with the
 * same constants, the same fma placement and the same operand order, which
 * is what makes all ISAs bit-identical. Change all three together.
 */
#ifndef ACLNN_EMU_KERNELS_SILU_ALGO_H
#define ACLNN_EMU_KERNELS_SILU_ALGO_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/exp_core.h"
#include "kernels/silu/silu.h"

/* -|x| is clamped here so that n = round(a*log2(e)) stays within [-150, 0];
 * exp(-104) is below half the smallest subnormal, so the clamp itself
 * rounds to 0 and changes no result. */
#define EMU_SILU_CLAMP (-104.0f)
/* 2^n is applied as 2^(n+64) * 2^-64: the first factor is always a normal
 * number whose exponent bits can be built directly, and the second lets
 * results below FLT_MIN round into the subnormal range, so sigmoid(x) stays
 * non-zero down to x = -103.9 as the formula asks (an infinite gradient
 * there stays infinite instead of becoming inf * 0). */
#define EMU_SILU_SCALE_BIAS_BITS 0x5F800000u /* (127 + 64) << 23 */
#define EMU_SILU_UNBIAS 0x1p-64f

/* exp(a) for a = -|x|, with a NaN kept NaN. */
static inline float emu_silu_exp_neg_(float a) {
    /* Written so that NaN fails the test and passes through, like
     * SIMD max(CLAMP, a) which returns its second operand on NaN. */
    a = (a < EMU_SILU_CLAMP) ? EMU_SILU_CLAMP : a;
    float z;
    const float p = emu_exp_core_(a, &z);
    uint32_t zb;
    memcpy(&zb, &z, sizeof zb);
    /* (MAGIC_BITS + n) << 23 == n << 23 because MAGIC_BITS's low 9 bits are 0;
     * no float->int conversion, so a NaN z is harmless (its garbage scale
     * is multiplied by a NaN polynomial). scale = 2^(n+64). */
    const uint32_t sb = (zb << 23) + EMU_SILU_SCALE_BIAS_BITS;
    float scale;
    memcpy(&scale, &sb, sizeof scale);
    return (p * scale) * EMU_SILU_UNBIAS;
}

/* s = sigmoid(x) and oms = 1 - s, each computed without cancellation. */
static inline float emu_silu_sigmoid_(float x, float* oms) {
    const float t = emu_silu_exp_neg_(-fabsf(x));
    const float q = 1.0f / (1.0f + t);
    const float tq = t * q;
    const int pos = x >= 0.0f;
    *oms = pos ? tq : q;
    return pos ? q : tq;
}

/* Tables of the half-type kernels (table.c), indexed by the 16-bit pattern
 * of x: silu(x) already rounded to the type, and the fp32 gradient factor
 * s * (1 + x * (1 - s)), so that dx = narrow(dy * factor[x]). */
const uint16_t* emu_silu_f16_table_(void);
const float* emu_silu_grad_f16_table_(void);
const uint16_t* emu_silu_bf16_table_(void);
const float* emu_silu_grad_bf16_table_(void);

#define EMU_SILU_DECLARE(isa, u)                                                                     \
    void emu_f32_silu__##isa##_##u(size_t n, const float* x, float* y);                              \
    void emu_f32_silu_grad__##isa##_##u(size_t n, const float* dy, const float* x, float* dx);       \
    void emu_f16_silu__##isa##_##u(size_t n, const uint16_t* x, uint16_t* y);                        \
    void emu_f16_silu_grad__##isa##_##u(size_t n, const uint16_t* dy, const uint16_t* x, uint16_t* dx); \
    void emu_bf16_silu__##isa##_##u(size_t n, const uint16_t* x, uint16_t* y);                       \
    void emu_bf16_silu_grad__##isa##_##u(size_t n, const uint16_t* dy, const uint16_t* x, uint16_t* dx);

EMU_SILU_DECLARE(scalar, u1)
#if defined(EMU_HAVE_X86_KERNELS)
EMU_SILU_DECLARE(avx2, u16)
void emu_f32_silu_grad_streaming__avx2_u16(size_t n, const float* dy, const float* x, float* dx);
void emu_f16_silu_grad_streaming__avx2_u16(size_t n, const uint16_t* dy, const uint16_t* x, uint16_t* dx);
void emu_bf16_silu_grad_streaming__avx2_u16(size_t n, const uint16_t* dy, const uint16_t* x, uint16_t* dx);
EMU_SILU_DECLARE(avx512, u32)
void emu_f32_silu_grad_streaming__avx512_u32(size_t n, const float* dy, const float* x, float* dx);
void emu_f16_silu_grad_streaming__avx512_u32(size_t n, const uint16_t* dy, const uint16_t* x, uint16_t* dx);
void emu_bf16_silu_grad_streaming__avx512_u32(size_t n, const uint16_t* dy, const uint16_t* x, uint16_t* dx);
#endif

#undef EMU_SILU_DECLARE

#endif
