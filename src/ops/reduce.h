/* The reduction family (reduce.c, reduce_sum_run.c, reduce_dim.c,
 * reduce_common.c): what the operators share.
 *
 * A reduction's input is split, in phase 1, into the "outer" dimensions
 * that index its outputs (or its rows, for the operators along one
 * dimension) and the "inner" ones that are reduced or scanned. Phase 2
 * runs over outer indices in parallel; every output (row) is computed by
 * one chunk alone, its inner elements read in row-major order, so results
 * never depend on the thread count. Elements are loaded through CANN's
 * Cast to the dtype the kernel runs in (`via`) and computed in fp32 (fp16,
 * bf16, fp32), fp64 (double) or int64 (integers and bool, wrapping). The
 * fp32 sums run in the per-ISA kernels of kernels/reduce, which add in the
 * same fixed order at every level; the rest is plain C that compiles to one
 * path whatever the ISA cap. So results are the same bit for bit at every
 * ISA level (but for the sign and payload of a NaN sum where NaNs of
 * different bits meet, such as an input NaN and the NaN of inf - inf). */
#ifndef EMU_OPS_REDUCE_H_
#define EMU_OPS_REDUCE_H_

#include "kernels/reduce/reduce.h"
#include "meta/executor.h"
#include "ops/check.h"
#include "ops/ew.h"

enum {
    EMU_RED_MAX_RANK = 8,
    /* Inner elements are loaded and reduced in blocks of this many (a
     * fixed number: the summation order must not depend on anything else). */
    EMU_RED_BLOCK = 4096,
    /* Items per parallel chunk are chosen to cover about this many elements. */
    EMU_RED_GRAIN_ELEMENTS = 1 << 16,
    /* The lanes of the fixed-order sums: element i of a block goes to lane
     * i % lanes (EMU_RED_BLOCK is a multiple of both). */
    EMU_RED_LANES_F32 = 32,
    EMU_RED_LANES_F64 = 16
};

typedef enum { EMU_RED_F32, EMU_RED_F64, EMU_RED_I64 } emu_red_compute;

typedef struct {
    int32_t outer_rank;
    int64_t outer_shape[EMU_RED_MAX_RANK];
    int64_t outer_in[EMU_RED_MAX_RANK];  /* strides in self, elements */
    int64_t outer_out[EMU_RED_MAX_RANK]; /* strides in out */
    int32_t inner_rank;
    int64_t inner_shape[EMU_RED_MAX_RANK];
    int64_t inner_in[EMU_RED_MAX_RANK];
    int64_t inner_out[EMU_RED_MAX_RANK]; /* operators whose out has self's shape */
    int64_t outer_count, inner_count;
} emu_red_geom;

/* ---- ReduceSum, Mean, MeanV2, Norm: one plan, run by emu_red_run_sum ---- */
typedef enum { EMU_RED_SUM, EMU_RED_MEAN, EMU_RED_NORM } emu_red_kind;
/* LpNormV2's kernels: sum(x != 0), sum|x|, sqrt(sum x^2), (sum|x|^3)^(1/3),
 * max|x|, min|x|, (sum|x|^p)^(1/p). */
typedef enum {
    EMU_RED_P0,
    EMU_RED_P1,
    EMU_RED_P2,
    EMU_RED_P3,
    EMU_RED_PINF,
    EMU_RED_PNINF,
    EMU_RED_POTHER
} emu_red_norm;

typedef struct {
    bool fill; /* empty self: fill_plan writes out */
    emu_ew_plan fill_plan;
    emu_red_kind kind;
    emu_red_norm norm;
    float p;
    aclDataType via;
    emu_red_compute compute;
    int64_t blocks; /* per output; block results go to the workspace when > 1 */
    emu_red_geom geom;
} emu_red_sum_plan;

/* The workspace emu_red_run_sum needs for a plan (geometry and blocks set). */
uint64_t emu_red_sum_workspace(const emu_red_sum_plan *plan);
/* Phase 2 of the sum-like reductions: executor slot 0 self, slot 1 out. */
const char *emu_red_run_sum(aclOpExecutor *executor, void *workspace);

/* The compute type of a kernel dtype. */
emu_red_compute emu_red_compute_for(aclDataType via);
size_t emu_red_compute_size(emu_red_compute compute);

/* Splits `self` into outer and inner dimensions. Bit d of inner_mask marks
 * self's dimension d as inner. When out_same_shape, out has self's shape
 * and every dimension maps to the same one of out; otherwise out holds
 * only the outer dimensions, at their own positions when keepdim (out has
 * self's rank) or packed in order. Size-1 dimensions are dropped and
 * inner dimensions that are dense together merged. */
void emu_red_split(const emu_view *self, uint64_t inner_mask, const emu_view *out, bool keepdim,
                   bool out_same_shape, emu_red_geom *geom);
/* Offsets (elements) in self and out of outer index `index`. */
void emu_red_outer_offsets(const emu_red_geom *geom, int64_t index, int64_t *in_offset, int64_t *out_offset);

/* Loads inner elements [start, start + n) from `base` (the first element
 * of an outer index) into `dst` as `compute`, each converted to `via` as
 * CANN's Cast does first. Returns dst, or a pointer into self when the
 * elements are already dense in the compute type and `may_alias`. */
const void *emu_red_load(const emu_red_geom *geom, const char *base, aclDataType dtype, aclDataType via,
                         emu_red_compute compute, int64_t start, int64_t n, void *dst, bool may_alias);
/* Loads n elements at element stride `stride` (no inner geometry). */
void emu_red_load_run(const char *src, aclDataType dtype, int64_t stride, int64_t n, aclDataType via,
                      emu_red_compute compute, void *dst);
/* Stores n values of `compute` to dst (dtype, element stride) as CANN's
 * Cast would: round to nearest even into floating types, truncation toward
 * zero (saturating, NaN to 0) from floating into integers, wrapping between
 * integers, non-zero to true. */
void emu_red_store_run(emu_red_compute compute, const void *values, int64_t n, aclDataType dtype, char *dst,
                       int64_t stride);
/* An int64 result wrapped into an integer dtype (0/1 for BOOL). */
int64_t emu_red_wrap(int64_t value, aclDataType dtype);

/* Fixed-order sums: 32 (fp32) or 16 (fp64) interleaved lanes, combined by
 * halving. int64 sums wrap. */
float emu_red_sum_f32(const float *x, int64_t n);
/* Whether loading dtype as `via` into fp32 is only the exact widening of
 * kernels/convert (fp32, or fp16 / bf16 loaded as themselves or as fp32):
 * the sum kernels then read such elements in place, in one pass. */
bool emu_red_widens_exactly(aclDataType dtype, aclDataType via);
/* emu_red_sum_f32 of n dense elements of dtype (FLOAT, FLOAT16 or BF16,
 * widened exactly) with the kernels k, without a buffer in between. */
float emu_red_sum_dense(const emu_reduce_kernels *k, const void *x, aclDataType dtype, int64_t n);
/* acc[j] += x[j] for j < n, x as in emu_red_sum_dense. */
void emu_red_add_dense(const emu_reduce_kernels *k, float *acc, const void *x, aclDataType dtype, int64_t n);
double emu_red_sum_f64(const double *x, int64_t n);
int64_t emu_red_sum_i64(const int64_t *x, int64_t n);

/* The dims of a reduction: each in [-rank, rank - 1] (a 0-d tensor counts
 * as 1-d), none twice; an empty list means every dimension. */
aclnnStatus emu_red_dims_mask(const char *api, const char *dims_name, const aclTensor *self, const aclIntArray *dims,
                              uint64_t *mask);
/* One dimension in [-rank, rank - 1] (a 0-d tensor counts as 1-d); *out
 * gets it in [0, rank) (0 for a 0-d tensor). */
aclnnStatus emu_red_dim(const char *api, const char *dim_name, const aclTensor *self, int64_t dim, int32_t *out);
/* out's shape must be self's with the mask's dimensions 1 (keepdim) or removed. */
aclnnStatus emu_red_check_out_shape(const char *api, const aclTensor *self, uint64_t mask, bool keepdim,
                                    const aclTensor *out);
/* The extras every reduction checks last: data, device memory, out not
 * sharing memory with self nor overlapping itself. */
aclnnStatus emu_red_check_memory(const char *api, const char *self_name, const aclTensor *self,
                                 const char *out_name, const aclTensor *out);
/* A plan that fills out with `value` (CANN's result for an empty self). */
aclnnStatus emu_red_fill_plan(const char *api, const aclTensor *out, double value, emu_ew_plan *plan);
/* Publishes a one-input one-output executor: slot 0 self, slot 1 out;
 * bit i of unused_mask marks slot i as never touched. */
aclnnStatus emu_red_publish(const char *api, const char *phase2, const char *const *names, const aclTensor *self,
                            const aclTensor *out, const void *plan, size_t plan_size, unsigned unused_mask,
                            emu_run_fn run, uint64_t workspace, uint64_t *workspace_size, aclOpExecutor **executor);

#endif /* EMU_OPS_REDUCE_H_ */
