/*
 * Element-wise kernels: one math body per operator, written once in
 * bodies.h and compiled for every ISA level (instances.h), so that the
 * compiler vectorizes each loop for that level (AVX2, AVX-512, and NEON on
 * aarch64, where the portable build is already vectorized).
 *
 * A kernel is a leaf over dense arrays of its compute type:
 *   out[i] = body(in[0][i], in[1][i], in[2][i], params)   for i < n,
 * with out allowed to be exactly one of the inputs (in-place). Strides,
 * broadcasting and storage dtypes are resolved one level up
 * (src/ops/ew_iter.c), which gathers and converts blocks into these arrays.
 *
 * Compute types: fp32 for fp32/fp16/bf16 storage, fp64 for double, int64
 * for integer and bool storage. Every body has fp32 and fp64 forms; the
 * int64 form exists where the operator is defined on integers.
 * Bit-identity: the files are built with -ffp-contract=off, the bodies use
 * only IEEE operations and libm calls (the same function on every level),
 * so all levels give the same bits.
 *
 * Two more leaves per level move data without computing: the transposed copy
 * (transpose.h) of the tiles of inputs read across their dense dimension
 * (src/ops/ew.c's tiled walk), by element size, and the streaming copy of
 * computed blocks into outputs larger than the last-level cache.
 */
#ifndef ACLNN_EMU_KERNELS_EW_EW_H
#define ACLNN_EMU_KERNELS_EW_EW_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/ew/list.h"
#include "kernels/isa.h"

/* Operator attributes, converted once per plan: f32 bodies read `f`, fp64
 * bodies `d` and int64 bodies `i` (the same values in each type). */
enum { EMU_EW_MAX_PARAMS = 4, EMU_EW_MAX_INPUTS = 3 };
typedef struct {
    float f[EMU_EW_MAX_PARAMS];
    double d[EMU_EW_MAX_PARAMS];
    int64_t i[EMU_EW_MAX_PARAMS];
} emu_ew_params;

typedef void (*emu_ew_f32_fn)(size_t n, const float *const *in, float *out, const emu_ew_params *params);
typedef void (*emu_ew_f64_fn)(size_t n, const double *const *in, double *out, const emu_ew_params *params);
typedef void (*emu_ew_i64_fn)(size_t n, const int64_t *const *in, int64_t *out, const emu_ew_params *params);
/* A transposed copy, the leaf of the tiled walk over transposed inputs:
 *   out[i * out_stride + j] = in[j * in_stride + i]   for i < rows, j < cols
 * (strides in elements; out and in do not overlap). The
 * caller reads in[j * in_stride + i] for rows <= i < rows + rows_next next
 * (the next tile), which the copy may fetch ahead. */
typedef void (*emu_ew_transpose_fn)(size_t rows, size_t cols, const void *in, ptrdiff_t in_stride, void *out,
                                    ptrdiff_t out_stride, size_t rows_next);
/* A byte copy into an output too large to stay cached, with non-temporal
 * stores where the level has them (plain stores at dst's partial lines):
 * the output's lines are not read first. The caller issues stream_fence
 * before another thread may read what it wrote. */
typedef void (*emu_ew_stream_copy_fn)(size_t bytes, const void *src, void *dst);

#define EMU_EW_ENUM_ENTRY(name, arity, expr) EMU_EWK_##name,
typedef enum { EMU_EW_FLOAT_KERNELS(EMU_EW_ENUM_ENTRY) EMU_EWK_COUNT } emu_ew_kernel;
#undef EMU_EW_ENUM_ENTRY

typedef struct {
    emu_ew_f32_fn f32[EMU_EWK_COUNT];
    emu_ew_f64_fn f64[EMU_EWK_COUNT];
    emu_ew_i64_fn i64[EMU_EWK_COUNT]; /* NULL: no integer form */
    emu_ew_transpose_fn transpose[4];  /* elements of 1, 2, 4 and 8 bytes */
    emu_ew_stream_copy_fn stream_copy; /* NULL: the level has no non-temporal stores */
    void (*stream_fence)(void);
    const char *isa_name;
} emu_ew_kernels;

/* Best implementation whose level is <= isa. Never NULL. */
const emu_ew_kernels *emu_ew_select(emu_isa isa);
/* "abs", "add", ... for logs and kernel names. */
const char *emu_ew_kernel_name(emu_ew_kernel kernel);
/* Number of tensor inputs the body reads. */
int emu_ew_kernel_arity(emu_ew_kernel kernel);

#endif
