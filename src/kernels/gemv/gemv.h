/*
 * Products of a few rows by a weight read in place: C = A·B for m <= 4,
 * B (k×n) given in fp32, fp16 or bf16, or as int8/int4 values dequantized
 * on the fly, never copied or converted as a whole.
 *
 * Same contract as gemm.h, so a caller may use either for any product and
 * get the same bits: each C element is one chain
 *     acc = +0;  for p = 0..k-1: acc = fma(A[i,p], B[p,j], acc)
 * in increasing p, rounded to fp32 at every step, where B[p,j] is the
 * weight element widened to fp32 (exact for fp16 and bf16) or dequantized
 * as aclnnWeightQuantBatchMatmulV2 does (see emu_gemv_dequant).
 *
 * A's element (i, p) is a[i*a_row_stride + p*a_col_stride] (fp32).
 * B's element (p, j) for j in [n0, n0 + n), in elements of its kind (INT4:
 * nibbles from the first byte's low nibble), is at
 *     k_inner: j*stride + (p / blk)*blk_stride + p % blk
 *     else:    p*stride + j                      (rows of B contiguous)
 * so k_inner covers a [n, k] weight (ggml's, ND with blk = k) and the
 * FRACTAL_NZ storage of one (blk = C0, blk_stride = rows16*C0).
 * C's element (i, j) is c[i*c_row_stride + j - n0].
 *
 * Cost: the SIMD kernels widen (and dequantize) V values of each of V
 * consecutive weight rows and transpose them in registers, V = 8 (AVX2)
 * or 16 (AVX-512), so every weight byte is read once per call whatever m
 * is. They need an INT4 weight's runs to start on whole bytes: callers
 * check emu_gemv_supported().
 */
#ifndef ACLNN_EMU_KERNELS_GEMV_H
#define ACLNN_EMU_KERNELS_GEMV_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EMU_GEMV_MAX_M = 4 };

typedef enum { EMU_GEMV_F32, EMU_GEMV_F16, EMU_GEMV_BF16, EMU_GEMV_I8, EMU_GEMV_I4 } emu_gemv_kind;

typedef struct {
    int64_t m, n0, n, k;
    const float* a;
    int64_t a_row_stride, a_col_stride;
    emu_gemv_kind kind;
    const void* b;
    bool k_inner;
    int64_t stride, blk, blk_stride;
    /* I8 and I4: the antiquant scale and optional offset (fp16 when
     * dq_f16, else bf16) of group p / group and column j at
     * scale[(p / group)*sc_g + j*sc_n] (offset likewise). */
    const uint16_t *scale, *offset;
    int64_t group, sc_g, sc_n, of_g, of_n;
    bool dq_f16;
    float* c;
    int64_t c_row_stride;
} emu_gemv_args;

typedef void (*emu_gemv_fn)(const emu_gemv_args* args);

typedef struct {
    emu_gemv_fn gemv;
    const char* name;
} emu_gemv_kernels;

/* Best implementation whose level is <= isa (pass emu_isa_active()). Never NULL. */
const emu_gemv_kernels* emu_gemv_select(emu_isa isa);

/* Whether the kernels take this layout (the INT4 alignment rule above;
 * blk >= 1 where k_inner). Same answer for every ISA level. */
bool emu_gemv_supported(const emu_gemv_args* args);

/* The scalar implementation, always available (reference for the others). */
void emu_gemv__scalar(const emu_gemv_args* args);
void emu_gemv__avx2(const emu_gemv_args* args);
void emu_gemv__avx512(const emu_gemv_args* args);

/* The dequantized value of quantized q with scale s and offset o (has_o),
 * as aclnnWeightQuantBatchMatmulV2 feeds it to the cube: in fp16, q + o is
 * rounded to fp16, times s rounded again; in bf16, (q + o) * s is computed
 * in fp32 and rounded once. Returned widened to fp32. */
float emu_gemv_dequant(float q, float s, float o, bool has_o, bool f16);

#ifdef __cplusplus
}
#endif

#endif
