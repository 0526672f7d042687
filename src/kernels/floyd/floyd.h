/*
 * Element-wise steps of Floyd attention on contiguous fp32 rows of scores.
 * The matrix products around them go through kernels/gemm.
 *
 *   scores_max:    s = mask && mask[i] ? -FLT_MAX : scale*s  (in place); returns max_i s
 *   exp_sum:       s = exp(s - max) (in place); returns sum_i s
 *   softmax:       s = exp((mask && mask[i] ? -FLT_MAX : scale*s) - max) / sum (in place)
 *   softmax_grad:  ds = scale * (p * (dp - dsum))  (dp overwritten by ds)
 *   dot:           returns sum_i x[i]*y[i] (one fma chain per lane)
 *
 * exp is our own polynomial (Cephes expf reduction and coefficients, the
 * same operations in every ISA): within 2 ULP of exp for normal results,
 * +inf above 88.72, correctly rounded into the subnormal range below
 * -87.3, 0 below -103.97 and for -inf.
 * Reductions (max, sum, dot) use 16 partial lanes (lane j takes elements
 * i = j mod 16) combined by a fixed tree, the same in every ISA, so all
 * implementations are bit-identical. n must be a multiple of 16; the
 * kernels never read or write past n. A mask byte is "masked" when non-zero.
 */
#ifndef ACLNN_EMU_KERNELS_FLOYD_H
#define ACLNN_EMU_KERNELS_FLOYD_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EMU_FLOYD_LANES = 16 };

typedef float (*emu_floyd_scores_max_fn)(size_t n, float* s, const uint8_t* mask, float scale);
typedef float (*emu_floyd_exp_sum_fn)(size_t n, float* s, float max);
typedef void (*emu_floyd_softmax_fn)(size_t n, float* s, const uint8_t* mask, float scale, float max, float sum);
typedef void (*emu_floyd_softmax_grad_fn)(size_t n, const float* p, float* dp, float dsum, float scale);
typedef float (*emu_floyd_dot_fn)(size_t n, const float* x, const float* y);

typedef struct {
    emu_floyd_scores_max_fn scores_max;
    emu_floyd_exp_sum_fn exp_sum;
    emu_floyd_softmax_fn softmax;
    emu_floyd_softmax_grad_fn softmax_grad;
    emu_floyd_dot_fn dot;
    const char* name; /* e.g. "f32_floyd__avx2_u16" */
} emu_floyd_kernels;

/* Best implementation whose level is <= isa (pass emu_isa_active()). Never NULL. */
const emu_floyd_kernels* emu_floyd_select(emu_isa isa);

/* exp(x) exactly as every kernel here computes it (scalar reference). */
float emu_floyd_exp(float x);

#ifdef __cplusplus
}
#endif

#endif
