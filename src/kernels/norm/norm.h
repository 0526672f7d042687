/*
 * Row kernels of the norm and softmax operators (src/ops/norm_rows.c,
 * norm.c, layer_norm.c, softmax.c): the passes over one row of fp32 values
 * held in a buffer, compiled once per ISA level from the same C bodies
 * (algo.h) so that each level gets the vector width it has.
 *
 * Bit-identity: every reduction uses the fixed lane order of ops/norm.h
 * (element i of a row goes to lane i % EMU_NORM_LANES, each lane adds in
 * row order; lanes are combined by the caller's fixed tree), the bodies use
 * only IEEE operations written out (the files are built with
 * -ffp-contract=off, so no fma appears that the source does not name), and
 * the exp is the element-wise kernels' (kernels/ew/exp.h). So every level
 * gives the same bits for any row, whatever the vector width. (Except a
 * NaN's payload where two NaNs of different payloads meet in one lane's
 * sum: C leaves the operand order of a + b to the compiler, so which
 * payload survives may differ between levels, as in the element-wise
 * kernels; NaN stays NaN.)
 */
#ifndef ACLNN_EMU_KERNELS_NORM_NORM_H
#define ACLNN_EMU_KERNELS_NORM_NORM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EMU_NORM_LANES = 16 };

typedef struct {
    /* acc[i % 16] += x[i] (or x[i]^2, or (x[i] - mean)^2) for i < n, in order. */
    void (*lanes_add)(float *acc, const float *x, size_t n);
    void (*lanes_add_sq)(float *acc, const float *x, size_t n);
    void (*lanes_add_dev_sq)(float *acc, const float *x, size_t n, float mean);
    /* acc[i % 16] = x[i] > acc[i % 16] ? x[i] : acc[i % 16]: a NaN element
     * is skipped, as in ops/norm.h's emu_norm_max. */
    void (*lanes_max)(float *acc, const float *x, size_t n);
    /* dst[i] = exp(src[i] - shift) (the element-wise kernels' expf), and
     * acc[i % 16] += dst[i]. dst may be src. */
    void (*exp_lanes_add)(float *acc, const float *src, float *dst, size_t n, float shift);
    /* dst[i] = src[i] / d: a true division, not a reciprocal product. dst may be src. */
    void (*div)(const float *src, float *dst, size_t n, float d);
    /* fp16 (bf16 nonzero: bf16) rows of a softmax, the conversions of
     * kernels/convert fused into the first and last passes:
     * load_max: dst[i] = src[i] widened, and lanes_max over dst;
     * div_narrow: dst[i] = src[i] / d, rounded to nearest even. */
    void (*load_max)(float *acc, const uint16_t *src, float *dst, size_t n, int bf16);
    void (*div_narrow)(const float *src, uint16_t *dst, size_t n, float d, int bf16);
    /* fp16 / bf16 rows of a LayerNorm, likewise: load_add widens src into
     * dst and adds dst to the lanes (lanes_add); affine_narrow is affine
     * (below) with its result rounded to fp16 / bf16 into dst. */
    void (*load_add)(float *acc, const uint16_t *src, float *dst, size_t n, int bf16);
    void (*affine_narrow)(const float *src, uint16_t *dst, size_t n, float mean, float rstd, const float *w,
                          const float *b, int bf16);
    /* dst[i] = (src[i] * s) * g[i], rounded after each product. dst may be src. */
    void (*scale_mul)(const float *src, float *dst, size_t n, float s, const float *g);
    /* x[i] = x[i] * s */
    void (*scale)(float *x, size_t n, float s);
    /* y = (src[i] - mean) * rstd; dst[i] = (w ? y * w[i] : y) + (b ? b[i] : 0.0f).
     * The + 0.0f without a bias is kept: it turns -0 into +0, as before.
     * dst may be src. */
    void (*affine)(const float *src, float *dst, size_t n, float mean, float rstd, const float *w, const float *b);
    const char *isa_name;
} emu_norm_kernels;

/* Best implementation whose level is <= isa. Never NULL. */
const emu_norm_kernels *emu_norm_select(emu_isa isa);

#ifdef __cplusplus
}
#endif

#endif
