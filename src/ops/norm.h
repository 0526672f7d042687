/* Rows of a tensor, for the norm and softmax operators (norm.c, layer_norm.c,
 * softmax.c).
 *
 * Each of these operators reduces groups of elements ("rows") and writes a
 * result per element and per row. A row is any set of elements that a
 * strided view can address: the trailing dimensions of RmsNorm and
 * LayerNorm, one dimension of Softmax, a channel group of GroupNorm. Phase 2
 * loads a row into an fp32 (or fp64) buffer, computes it there and stores it
 * back with round to nearest even, one row per call, rows spread over the
 * threads in chunks whose scratch lies in the workspace. Every reduction of
 * a row runs in one fixed order (emu_norm_sum and friends), so results are
 * bit-identical for any thread count and ISA level. */
#ifndef EMU_OPS_NORM_H_
#define EMU_OPS_NORM_H_

#include "kernels/convert/convert.h"
#include "kernels/norm/norm.h"
#include "meta/executor.h"
#include "ops/check.h"
#include "ops/opdef.h"

enum { EMU_ROWS_DIMS = 10 };

/* A view as rows: `lead` dimensions count the rows (row-major), `inner`
 * ones the elements of a row (row-major). Size-1 dimensions are dropped and
 * dimensions that are dense together merged. */
typedef struct {
    char *origin;
    aclDataType dtype;
    size_t elem;
    int32_t lead_rank, inner_rank;
    int64_t lead_shape[EMU_ROWS_DIMS], lead_stride[EMU_ROWS_DIMS];
    int64_t inner_shape[EMU_ROWS_DIMS], inner_stride[EMU_ROWS_DIMS];
} emu_rows;

/* Rows over dimensions [0, k), elements over [k, rank). */
void emu_rows_split(emu_rows *rows, const emu_view *view, int32_t k);
/* Rows over every dimension but `dim`, elements along `dim`. */
void emu_rows_axis(emu_rows *rows, const emu_view *view, int32_t dim);
/* [N, C, spatial...] as N x groups rows of C / groups x spatial elements. */
void emu_rows_groups(emu_rows *rows, const emu_view *view, int64_t groups);

/* A row as fp32 values (fp16 and bf16 widened exactly), and back, rounded
 * to nearest even into the view's dtype; the _range forms move elements
 * [start, start + count) of the row (row-major), for rows processed in
 * blocks. */
void emu_rows_load(const emu_rows *rows, int64_t row, float *dst, const emu_convert_kernels *cv);
void emu_rows_store(const emu_rows *rows, int64_t row, const float *src, const emu_convert_kernels *cv);
void emu_rows_load_range(const emu_rows *rows, int64_t row, int64_t start, int64_t count, float *dst,
                         const emu_convert_kernels *cv);
void emu_rows_store_range(const emu_rows *rows, int64_t row, int64_t start, int64_t count, const float *src,
                          const emu_convert_kernels *cv);
/* Row `row` of an fp32 view whose rows are one dense run each: its first
 * element, for kernels that read or write the tensor in place of a load or
 * store (a copy); NULL for any other view. */
float *emu_rows_dense_f32(const emu_rows *rows, int64_t row);
/* The same for rows of `dtype` (NULL where the view has another dtype). */
void *emu_rows_dense(const emu_rows *rows, int64_t row, aclDataType dtype);
/* Rows first..first+count-1 (count <= 64) of fp32/fp16/bf16 views whose
 * rows are single strided runs (emu_rows_axis), as blocks of the row
 * length at dst + k * length, read and written across the rows element by
 * element: rows that lie side by side in memory move a cache line at a
 * time. */
void emu_rows_load_lines(const emu_rows *rows, int64_t first, int64_t count, float *dst);
void emu_rows_store_lines(const emu_rows *rows, int64_t first, int64_t count, const float *src);
/* The same in fp64, for DOUBLE tensors (any real float dtype is accepted). */
void emu_rows_load_f64(const emu_rows *rows, int64_t row, double *dst);
void emu_rows_store_f64(const emu_rows *rows, int64_t row, const double *src);

/* The element at row-major position `index` of a view: read, and written
 * rounded to the view's dtype (per-row statistics: rstd, mean, loss). */
double emu_view_load_at(const emu_view *view, int64_t index);
void emu_view_store_at(const emu_view *view, int64_t index, double value);
/* Rounds n fp32 values in place to fp16 or bf16 precision (other dtypes:
 * unchanged), as a kernel that stores an intermediate in that dtype does. */
void emu_norm_round(aclDataType dtype, float *x, int64_t n, const emu_convert_kernels *cv);

/* Fixed-order sums: 16 lane accumulators, element i of a row going to lane
 * i % 16, then the lanes added pairwise (8 + 8, 4 + 4, 2 + 2, 1 + 1).
 * A row may be added in blocks whose lengths are multiples of 16 (the last
 * block excepted): the result is the same. Bit-identical on every ISA and
 * thread count. */
enum { EMU_LANES = 16 };
typedef struct {
    float acc[EMU_LANES];
} emu_lanes;
void emu_lanes_add(emu_lanes *lanes, const float *x, int64_t n);
void emu_lanes_add_sq(emu_lanes *lanes, const float *x, int64_t n);
void emu_lanes_add_dev_sq(emu_lanes *lanes, const float *x, int64_t n, float mean); /* (x - mean)^2 */
float emu_lanes_total(const emu_lanes *lanes);
float emu_norm_sum(const float *x, int64_t n);
float emu_norm_sum_sq(const float *x, int64_t n);
float emu_norm_max(const float *x, int64_t n); /* -inf for n == 0; NaN is skipped */
/* The same max with the row kernels k; the lanes' max in a fixed order
 * (lane 0, then 1, ...: the sign of a zero result does not depend on the ISA). */
float emu_norm_max_with(const emu_norm_kernels *k, const float *x, int64_t n);
float emu_lanes_max_total(const emu_lanes *lanes);
/* The row kernels (kernels/norm) of the active ISA level: the one place the
 * norm and softmax operators choose it. Callers that run many rows take it
 * once per launch. */
const emu_norm_kernels *emu_norm_kernels_active(void);

/* The parallel row loop. fn(ctx, row, scratch) computes one row; scratch is
 * scratch_bytes of workspace owned by the calling chunk. */
typedef void (*emu_rows_fn)(const void *ctx, int64_t row, void *scratch);
typedef struct {
    int64_t rows;
    int64_t grain;         /* rows per chunk: fixed in phase 1, whatever the thread count */
    uint64_t prefix_bytes; /* workspace before the chunks' scratch (shared, read-only data) */
    uint64_t scratch_bytes;
} emu_rows_plan;
/* Plans `rows` rows of `work` elements each, with `scratch_bytes` per chunk
 * after `prefix_bytes`; returns the workspace size. */
uint64_t emu_rows_plan_init(emu_rows_plan *plan, int64_t rows, int64_t work, uint64_t prefix_bytes,
                            uint64_t scratch_bytes);
void emu_rows_run(const emu_rows_plan *plan, void *workspace, emu_rows_fn fn, const void *ctx);

/* The product's dtype rules in one place. */
bool emu_norm_is_training(void); /* Ascend910, the Atlas training series */


/* Our checks after CANN's: data addresses and device memory of every
 * tensor given (NULL entries are absent optional ones), each element of an
 * output distinct (rows are written by several threads), and outputs
 * tensors[first_output..count) in memory of their own, except the pairs of
 * `allowed` ({output, other, kind} triples, ended by output -1):
 *   EMU_ALIAS_EXACT  the output may be exactly the input (every row is read
 *                    whole before it is written, as on the device);
 *   EMU_ALIAS_ANY    two outputs that CANN's op_api copies out one after
 *                    the other may overlap: the later one wins, as there.
 * *aliased tells whether such a pair shares memory (the executor must then
 * allow aliasing). */
enum { EMU_ALIAS_EXACT = 1, EMU_ALIAS_ANY = 2 };
aclnnStatus emu_norm_check_memory(const char *api, const char *const *names, const aclTensor *const *tensors,
                                  int first_output, int count, const int (*allowed)[3], bool *aliased);

/* 161002 or `code` naming `name` with its shape and the expected one. */
aclnnStatus emu_norm_shape_error(aclnnStatus code, const char *api, const char *name, const emu_view *have,
                                 const char *expected);

#endif /* EMU_OPS_NORM_H_ */
