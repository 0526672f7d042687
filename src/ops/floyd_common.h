/* Shared by aclnnFusedFloydAttention and aclnnFusedFloydAttentionGrad:
 * phase-1 checks, the plan, fp32 staging of inputs and outputs, and the
 * tiled score products. Private to the two op files. */
#ifndef EMU_OPS_FLOYD_COMMON_H_
#define EMU_OPS_FLOYD_COMMON_H_

#include "kernels/convert/convert.h"
#include "kernels/floyd/floyd.h"
#include "kernels/gemm/gemm.h"
#include "meta/executor.h"
#include "ops/check.h"

enum {
    FLOYD_RANK = 5,
    FLOYD_MAX_SLOTS = 64,
    FLOYD_ALIGN = 64,
};

typedef struct {
    int64_t B, H, N, M, K, D;
} floyd_dims;

/* Where a tensor's fp32 data lives in phase 2: the tensor itself (FLOAT and
 * contiguous) or an fp32 copy at `offset` in the workspace. */
typedef struct {
    bool staged;
    uint64_t offset;
} floyd_stage;

typedef struct {
    floyd_dims dims;
    /* Tile: nb values of n x mb values of m x kb keys, dividing N, M and K. */
    int64_t nb, mb, kb;
    float scale;
    int slots;               /* tiles processed at once, each with its own scratch */
    bool has_mask;
    int mask_index;          /* executor slot of attenMaskOptional */
    bool mask_staged;        /* gathered to a dense copy at mask_offset */
    uint64_t mask_offset;
    int64_t mask_stride[4];  /* elements per step of b, h, n, m (0: broadcast); k is dense */
    floyd_stage stage[EMU_MAX_OP_TENSORS];
    uint64_t stats_offset;   /* grad: element 0 of softmaxMax and softmaxSum, and dsum, [B,H,N,M] each */
    uint64_t dq_partial_offset; /* grad: dq of key chunks 1.. (see fused_floyd_attention_grad.c) */
    uint64_t slot_offset;
    uint64_t slot_bytes;
    uint64_t workspace;      /* total, including FLOYD_ALIGN bytes to align the base */
} floyd_plan;

_Static_assert(sizeof(floyd_plan) <= EMU_PLAN_BYTES, "floyd_plan must fit in the executor");

/* ---- phase 1 ---- */
/* Tiles of nb x mb (dims and kb of `plan` set) that can run at the same time. */
typedef int64_t (*floyd_tasks_fn)(const floyd_plan *plan, int64_t nb, int64_t mb);

/* The tensors of one phase-1 call in executor slot order (inputs first). */
typedef struct {
    const char *api;    /* phase-1 name */
    const char *phase2; /* phase-2 name */
    const aclTensor *const *tensors;
    const char *const *names;
    int count, inputs;
    int mask;           /* slot of attenMaskOptional (may be NULL) */
    int stats[2];       /* slots of the FLOAT softmax statistics */
    bool mask_bool_only;
    double scale;
    int64_t tile_keys;  /* keys per tile (kb) unless ACLNN_EMU_FLOYD_TILE says; 0: 64 */
    /* NULL: the fixed tile rule. Otherwise the largest tile that keeps the
     * most threads busy, by this count (see floyd_plan_tiles). */
    floyd_tasks_fn parallel_tasks;
} floyd_call;

typedef aclnnStatus (*floyd_shapes_fn)(const char *api, const aclTensor *const *tensors, floyd_dims *dims);

/* The whole phase-1 validation in order: NULL (out-pointers, then every
 * tensor but the mask) -> 161001; product, dtypes, formats -> 161002;
 * `shapes` (561002); data and device memory -> 161002. */
aclnnStatus floyd_validate(const floyd_call *call, const uint64_t *workspace_size, aclOpExecutor *const *executor,
                           floyd_shapes_fn shapes, floyd_dims *dims);
/* A new executor with every tensor bound and the plan's dims, scale, mask
 * and tiles set; NULL (message set) when out of memory. */
aclOpExecutor *floyd_executor(const floyd_call *call, const floyd_dims *dims);

aclnnStatus floyd_check_product(const char *api);
/* 161002 for private storage formats (NC1HWC0, FRACTAL_Z/NZ, ...). */
aclnnStatus floyd_check_format(const char *api, const char *name, const aclTensor *tensor);
aclnnStatus floyd_check_mask_dtype(const char *api, const aclTensor *mask, bool bool_only);
/* Rank, zero sizes and the rules on query/key1/key2 (561002); fills *dims. */
aclnnStatus floyd_check_core_shapes(const char *api, const aclTensor *query, const aclTensor *key1,
                                    const aclTensor *key2, floyd_dims *dims);
bool floyd_shape_is(const aclTensor *tensor, const int64_t *want);
/* 561002 unless `tensor` has exactly the shape `want` (rank 5). */
aclnnStatus floyd_check_shape_is(const char *api, const char *name, const aclTensor *tensor, const int64_t *want,
                                 const char *what);
aclnnStatus floyd_check_memory(const char *api, const char *name, const aclTensor *tensor);

/* Reserves `bytes` (aligned) in the workspace layout; returns the offset. */
uint64_t floyd_reserve(floyd_plan *plan, uint64_t bytes);
/* Chooses the tile sizes for `dims`, with `keys` keys per tile (a divisor
 * of 128) unless ACLNN_EMU_FLOYD_TILE overrides them. With `tasks`, nb x mb
 * is the first of a list of sizes, largest first, that keeps the most of
 * emu_num_threads() busy; callers may only pass `tasks` where nb and mb do
 * not change the results (they change the order of the work, not of any
 * sum), so that the results stay the same for every thread count. */
void floyd_plan_tiles(floyd_plan *plan, int64_t keys, floyd_tasks_fn tasks);
/* Plans the fp32 copy of slot `index` if it is not FLOAT and contiguous. */
void floyd_plan_stage(floyd_plan *plan, const aclOpExecutor *executor, int index);
/* Plans mask access: strides, or a dense copy when k is not contiguous. */
void floyd_plan_mask(floyd_plan *plan, const emu_view *mask);
/* Per-slot scratch of `floats_per_slot` floats plus gemm scratch. */
void floyd_plan_slots(floyd_plan *plan, uint64_t tiles_at_once, uint64_t floats_per_slot);

/* ---- phase 2 ---- */
typedef struct {
    const floyd_plan *plan;
    const emu_gemm_kernels *gemm;
    const emu_floyd_kernels *ew;
    const emu_convert_kernels *convert;
    unsigned char *workspace; /* aligned base */
    const uint8_t *mask;      /* NULL when absent */
} floyd_run;

void floyd_run_init(floyd_run *run, const floyd_plan *plan, void *workspace, const aclOpExecutor *executor);
/* fp32 data of input slot `index` (loading the staged copy now). */
const float *floyd_input(const floyd_run *run, const aclOpExecutor *executor, int index);
/* fp32 buffer for output slot `index`; floyd_finish_output stores a staged one. */
float *floyd_output(const floyd_run *run, const aclOpExecutor *executor, int index);
void floyd_finish_output(const floyd_run *run, const aclOpExecutor *executor, int index);
/* The scratch of slot `slot`, 64-byte aligned. */
static inline float *floyd_slot(const floyd_run *run, int slot)
{
    return (float *)(run->workspace + run->plan->slot_offset + (uint64_t)slot * run->plan->slot_bytes);
}
/* Gemm scratch of slot `slot` (after its floats). */
void *floyd_slot_gemm_scratch(const floyd_run *run, int slot);
/* The mask row of (b, h, n, m), from key k0 on; NULL without a mask. */
static inline const uint8_t *floyd_mask_row(const floyd_run *run, int64_t b, int64_t h, int64_t n, int64_t m,
                                            int64_t k0)
{
    if (run->mask == NULL) {
        return NULL;
    }
    const int64_t *st = run->plan->mask_stride;
    return run->mask + b * st[0] + h * st[1] + n * st[2] + m * st[3] + k0;
}

/* C (rows of n floats, c_row_stride apart) = or += A (m x k) . B (k x n). */
static inline void floyd_gemm(const floyd_run *run, void *scratch, int64_t m, int64_t n, int64_t k, const float *a,
                              int64_t a_row_stride, int64_t a_col_stride, const float *b, int64_t b_row_stride,
                              int64_t b_col_stride, float *c, int64_t c_row_stride, int accumulate)
{
    const emu_sgemm_args args = {m, n, k, a, a_row_stride, a_col_stride, b, b_row_stride, b_col_stride,
                                 c, c_row_stride, accumulate};
    run->gemm->sgemm(&args, scratch);
}

/* Asks for `rows` rows of `row_floats` floats, `stride` floats apart, to be
 * brought into the cache. The products batched over m read rows M*D floats
 * apart: every row starts on another page, where the hardware prefetchers
 * do not follow, so without this each row start waits for memory. */
static inline void floyd_prefetch_rows(const float *base, int64_t rows, int64_t stride, int64_t row_floats)
{
    for (int64_t r = 0; r < rows; ++r) {
        const float *row = base + r * stride;
        for (int64_t i = 0; i < row_floats; i += 16) {
            __builtin_prefetch(row + i, 0, 3);
        }
    }
}

/* The same for one contiguous range of `floats` floats. The products
 * batched over n read blocks of 64 KiB and more that the previous products
 * evicted; asking for the next n's blocks while the current one runs hides
 * the first-touch misses of the micro-kernel and of the packing. */
static inline void floyd_prefetch_range(const float *base, int64_t floats)
{
    floyd_prefetch_rows(base, 1, 0, floats);
}

/* The same for a range that is about to be overwritten: the stores of the
 * micro-kernel then find their lines owned instead of each waiting for one. */
static inline void floyd_prefetch_for_write(float *base, int64_t floats)
{
    for (int64_t i = 0; i < floats; i += 16) {
        __builtin_prefetch(base + i, 1, 3);
    }
}

/* Floats between the rows of consecutive n in a [nb][mb][kb] tile: mb*kb
 * plus one cache line, so that the batched-over-m products, which step
 * through the tile by n, do not hit one L1 set at a power-of-two stride. */
static inline int64_t floyd_tile_ldn(const floyd_plan *plan)
{
    return plan->mb * plan->kb + 16;
}

/* One tile of Floyd products over keys [k0, k0 + kb) of one (b, h):
 * out[nl*ldn + ml*kb + kk] = sum_d x[n,m,d]*y1[n,k,d] + sum_d x[n,m,d]*y2[k,m,d]
 * (one fma chain per element: the y1 term, then the y2 term), with
 * n = n0 + nl, m = m0 + ml, k = k0 + kk; x [N,M,D], y1 [N,K,D], y2 [K,M,D]
 * of one slice. S uses (Q, K1, K2); dP uses (dy, V1, V2). */
void floyd_tile_products(const floyd_run *run, void *scratch, const float *x, const float *y1, const float *y2,
                         int64_t n0, int64_t m0, int64_t k0, float *out);
/* Its two halves: the y1 terms of the whole tile (out = ...), and the y2
 * terms of the one m = m0 + ml (out += ...), which must follow the first. */
void floyd_tile_products_y1(const floyd_run *run, void *scratch, const float *x, const float *y1, int64_t n0,
                            int64_t m0, int64_t k0, float *out);
void floyd_tile_products_y2(const floyd_run *run, void *scratch, const float *x, const float *y2, int64_t n0,
                            int64_t m0, int64_t k0, int64_t ml, float *out);

#endif /* EMU_OPS_FLOYD_COMMON_H_ */
