/*
 * fp32 matrix products on strided operands: C = A·B or C += A·B.
 *
 * A is m×k with element (i,p) at a[i*a_row_stride + p*a_col_stride];
 * B is k×n with element (p,j) at b[p*b_row_stride + j*b_col_stride];
 * C is m×n with element (i,j) at c[i*c_row_stride + j] (rows contiguous).
 * Any stride may be negative or zero; transposed operands are just swapped
 * strides, so Aᵀ·B and A·Bᵀ need no copies by the caller.
 *
 * Determinism contract (every implementation, every ISA, every blocking):
 * each C element is one fused-multiply-add chain
 *     acc = accumulate ? C[i,j] : 0;  for p = 0..k-1: acc = fma(A[i,p], B[p,j], acc)
 * in increasing p, rounded to fp32 at every step and never reassociated.
 * So all implementations give bit-identical results, and a caller that
 * splits a product into several calls along k gets the same bits as one call.
 *
 * One call is single-threaded; callers run independent products (batches,
 * row blocks of C) on different threads. `scratch` must point to at least
 * emu_sgemm_scratch_bytes() bytes, 64-byte aligned, private to the calling
 * thread (used for packing panels). k == 0 gives C = accumulate ? C : 0.
 *
 * Cost (blocked.h): each call copies B (k×n) into the scratch once per 256
 * columns, through 8×8 transposes when B is given transposed; A is read in
 * place when a_col_stride or a_row_stride is 1, else copied too. So prefer a
 * few tall products (large m) over many short ones against the same B, and
 * keep n a multiple of the tile width (16 on AVX2, 32 on AVX-512): a partial
 * column tile runs through a copy of C.
 */
#ifndef ACLNN_EMU_KERNELS_GEMM_H
#define ACLNN_EMU_KERNELS_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t m, n, k;
    const float* a;
    int64_t a_row_stride, a_col_stride;
    const float* b;
    int64_t b_row_stride, b_col_stride;
    float* c;
    int64_t c_row_stride;
    int accumulate; /* 0: C = A·B; 1: C += A·B (the chain starts from C) */
} emu_sgemm_args;

typedef void (*emu_sgemm_fn)(const emu_sgemm_args* args, void* scratch);

typedef struct {
    emu_sgemm_fn sgemm;
    const char* name; /* e.g. "f32_gemm__avx2_6x16" */
} emu_gemm_kernels;

/* Bytes of per-thread scratch every implementation needs, for any shape. */
size_t emu_sgemm_scratch_bytes(void);

/* Best implementation whose level is <= isa (pass emu_isa_active()). Never NULL. */
const emu_gemm_kernels* emu_gemm_select(emu_isa isa);

/* The scalar implementation, always available (reference for the others). */
void emu_f32_gemm__scalar(const emu_sgemm_args* args, void* scratch);

#ifdef __cplusplus
}
#endif

#endif
