/* Operators along one dimension, from CANN's op_api sources:
 *   ArgMax           (hicann/ops-math math/arg_max_v2/op_api/aclnn_argmax.cpp)
 *   Argsort          (math/sort/op_api/aclnn_argsort.cpp)
 *   Cumsum, CumsumV2 (math/cumsum/op_api/aclnn_cumsum.cpp)
 * Each row (the elements along dim for one index of the other dimensions)
 * is handled by one chunk of the parallel loop.
 *
 * ArgMax returns the first index of the maximum; NaN counts as the maximum
 * (its first occurrence wins), as in PyTorch. Argsort is stable: equal
 * elements keep their order, in both directions; NaN sorts above +inf and
 * -0 equals +0. CANN's Sort runs with stable = false, which leaves the
 * order of ties to the kernel; a stable order is one it may give, and the
 * only one that does not depend on the tiling. Cumsum adds sequentially
 * along the dimension (fp32 for fp16/bf16/fp32, fp64, wrapping int64);
 * CANN's vector and cube kernels scan in blocks, so their low bits may
 * differ from this order. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_cumsum.h"
#include "common/parallel.h"
#include "ops/reduce.h"

#define INTS (EMU_I8 | EMU_U8 | EMU_I16 | EMU_I32 | EMU_I64)
#define REALS (EMU_F | EMU_H | EMU_B | EMU_D | INTS | EMU_U16 | EMU_U32 | EMU_U64 | EMU_BOOL)

static const char *const NAMES[] = {"self", "out"};

typedef struct {
    emu_red_geom geom;
    emu_red_compute compute;
    aclDataType via;
    bool descending, exclusive, reverse;
    bool unsigned64; /* Argsort of UINT64 */
    int64_t grain;   /* rows per chunk (Argsort: one workspace area per chunk) */
    uint64_t area;   /* Argsort: workspace bytes per chunk */
} dim_plan;

_Static_assert(sizeof(dim_plan) <= EMU_PLAN_BYTES, "dim_plan must fit in the executor");

typedef struct {
    const dim_plan *plan;
    const char *self;
    char *out;
    aclDataType self_dtype, out_dtype;
    size_t self_item, out_item;
    char *workspace;
} dim_ctx;

static dim_ctx make_ctx(const aclOpExecutor *executor, void *workspace)
{
    const emu_view *self = &executor->tensors[0], *out = &executor->tensors[1];
    return (dim_ctx){.plan = (const dim_plan *)executor->plan, .self = emu_view_origin(self),
                     .out = emu_view_origin(out), .self_dtype = self->dtype, .out_dtype = out->dtype,
                     .self_item = emu_dtype_size(self->dtype), .out_item = emu_dtype_size(out->dtype),
                     .workspace = workspace};
}

static size_t row_grain(int64_t count)
{
    return (size_t)(EMU_RED_GRAIN_ELEMENTS / count > 0 ? EMU_RED_GRAIN_ELEMENTS / count : 1);
}

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

/* Shared phase-1 tail: memory checks, the plan, the executor. */
static aclnnStatus publish(const char *api, const char *phase2, const aclTensor *self, const aclTensor *out,
                           const dim_plan *plan, bool empty, emu_run_fn run, uint64_t workspace,
                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_red_check_memory(api, "self", self, "out", out));
    return emu_red_publish(api, phase2, NAMES, self, out, plan, sizeof *plan, empty ? 3u : 0u,
                           empty ? run_nothing : run, workspace, workspaceSize, executor);
}

/* ---- ArgMax ---- */

/* Scans n values for a new maximum; true once a NaN (the maximum) is found. */
#define SCAN_MAX(T, x, n, base, best, at)                                                                      \
    do {                                                                                                       \
        const T *v_ = (const T *)(x);                                                                         \
        for (int64_t i_ = 0; i_ < (n); ++i_) {                                                                \
            if (v_[i_] > *(best) || v_[i_] != v_[i_]) {                                                       \
                *(best) = v_[i_];                                                                             \
                *(at) = (base) + i_;                                                                          \
                if (v_[i_] != v_[i_]) {                                                                       \
                    return true;                                                                              \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        return false;                                                                                         \
    } while (0)

static bool scan_f32(const void *x, int64_t n, int64_t base, float *best, int64_t *at)
{
    SCAN_MAX(float, x, n, base, best, at);
}

static bool scan_f64(const void *x, int64_t n, int64_t base, double *best, int64_t *at)
{
    SCAN_MAX(double, x, n, base, best, at);
}

static bool scan_i64(const void *x, int64_t n, int64_t base, int64_t *best, int64_t *at)
{
    SCAN_MAX(int64_t, x, n, base, best, at);
}

static void run_argmax_rows(void *opaque, size_t begin, size_t end)
{
    const dim_ctx *c = opaque;
    const dim_plan *plan = c->plan;
    _Alignas(64) unsigned char buf[EMU_RED_BLOCK * 8];
    for (size_t row = begin; row < end; ++row) {
        int64_t in_off, out_off;
        emu_red_outer_offsets(&plan->geom, (int64_t)row, &in_off, &out_off);
        int64_t at = 0;
        float best_f = 0.0f;
        double best_d = 0.0;
        int64_t best_i = 0;
        bool nan = false;
        for (int64_t start = 0; start < plan->geom.inner_count && !nan; start += EMU_RED_BLOCK) {
            const int64_t left = plan->geom.inner_count - start;
            const int64_t n = left < EMU_RED_BLOCK ? left : EMU_RED_BLOCK;
            const void *x = emu_red_load(&plan->geom, c->self + in_off * (int64_t)c->self_item, c->self_dtype,
                                         plan->via, plan->compute, start, n, buf, true);
            if (start == 0) { /* the first element is the maximum so far */
                best_f = plan->compute == EMU_RED_F32 ? ((const float *)x)[0] : 0.0f;
                best_d = plan->compute == EMU_RED_F64 ? ((const double *)x)[0] : 0.0;
                best_i = plan->compute == EMU_RED_I64 ? ((const int64_t *)x)[0] : 0;
            }
            nan = plan->compute == EMU_RED_F32   ? scan_f32(x, n, start, &best_f, &at)
                  : plan->compute == EMU_RED_F64 ? scan_f64(x, n, start, &best_d, &at)
                                                 : scan_i64(x, n, start, &best_i, &at);
        }
        emu_red_store_run(EMU_RED_I64, &at, 1, c->out_dtype, c->out + out_off * (int64_t)c->out_item, 1);
    }
}

static const char *run_argmax(aclOpExecutor *executor, void *workspace)
{
    dim_ctx c = make_ctx(executor, workspace);
    emu_parallel_for((size_t)c.plan->geom.outer_count, row_grain(c.plan->geom.inner_count), run_argmax_rows, &c);
    return "argmax";
}

static const emu_dtype_table ARGMAX_TYPES = {EMU_F | EMU_H | EMU_D | INTS | EMU_B, EMU_F | EMU_H | EMU_D | INTS,
                                             EMU_F | EMU_H | EMU_D | INTS | EMU_U16 | EMU_B};
static const emu_dtype_table INDEX_TYPES = EMU_DTYPES(EMU_I32 | EMU_I64);

aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnArgMaxGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &ARGMAX_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &INDEX_TYPES));
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_RED_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "out", out, EMU_RED_MAX_RANK));
    int32_t d = 0;
    EMU_TRY(emu_red_dim(API, "dim", self, dim, &d));
    dim_plan plan = {.via = self->view.dtype, .compute = emu_red_compute_for(self->view.dtype)};
    const bool empty = emu_view_is_empty(&self->view) || emu_view_is_empty(&out->view);
    if (!empty) {
        /* A 0-d self is reduced as a tensor of shape [1]. */
        aclTensor self_1d = *self;
        if (self->view.rank == 0) {
            self_1d.view.rank = 1;
            self_1d.view.shape[0] = 1;
            self_1d.view.strides[0] = 1;
        }
        EMU_TRY(emu_red_check_out_shape(API, &self_1d, (uint64_t)1 << d, keepdim, out));
        emu_red_split(&self_1d.view, (uint64_t)1 << d, &out->view, keepdim, false, &plan.geom);
    }
    return publish(API, "aclnnArgMax", self, out, &plan, empty, run_argmax, 0, workspaceSize, executor);
}

aclnnStatus aclnnArgMax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnArgMax", workspace, workspaceSize, executor, stream);
}

/* ---- Argsort ---- */

typedef struct {
    uint64_t key;
    uint32_t index;
    uint32_t pad;
} sort_item;

/* Keys whose unsigned order is the ascending order of the values. */
static uint64_t float_key(float f)
{
    uint32_t bits;
    if (f != f) {
        bits = 0x7FC00000u; /* every NaN above +inf */
    } else {
        f = f == 0.0f ? 0.0f : f; /* -0 == +0 */
        memcpy(&bits, &f, sizeof bits);
    }
    return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

/* Stable LSD radix sort of n items by key, bytes that never vary skipped. */
static void sort_items(sort_item *items, sort_item *tmp, int64_t n)
{
    if (n <= 32) {
        for (int64_t i = 1; i < n; ++i) {
            const sort_item v = items[i];
            int64_t j = i;
            for (; j > 0 && items[j - 1].key > v.key; --j) {
                items[j] = items[j - 1];
            }
            items[j] = v;
        }
        return;
    }
    for (int shift = 0; shift < 64; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; ++i) {
            ++count[((items[i].key >> shift) & 0xFF) + 1];
        }
        if (count[((items[0].key >> shift) & 0xFF) + 1] == n) {
            continue;
        }
        for (int b = 0; b < 256; ++b) {
            count[b + 1] += count[b];
        }
        for (int64_t i = 0; i < n; ++i) {
            tmp[count[(items[i].key >> shift) & 0xFF]++] = items[i];
        }
        memcpy(items, tmp, (size_t)n * sizeof *items);
    }
}

static void run_argsort_rows(void *opaque, size_t begin, size_t end)
{
    const dim_ctx *c = opaque;
    const dim_plan *plan = c->plan;
    const int64_t n_row = plan->geom.inner_count;
    sort_item *items = (sort_item *)(c->workspace + (begin / (size_t)plan->grain) * plan->area);
    sort_item *tmp = items + n_row;
    _Alignas(64) unsigned char buf[EMU_RED_BLOCK * 8];
    const int64_t out_stride = plan->geom.inner_rank == 1 ? plan->geom.inner_out[0] : 1;
    for (size_t row = begin; row < end; ++row) {
        int64_t in_off, out_off;
        emu_red_outer_offsets(&plan->geom, (int64_t)row, &in_off, &out_off);
        for (int64_t start = 0; start < n_row; start += EMU_RED_BLOCK) {
            const int64_t n = n_row - start < EMU_RED_BLOCK ? n_row - start : EMU_RED_BLOCK;
            const void *x = emu_red_load(&plan->geom, c->self + in_off * (int64_t)c->self_item, c->self_dtype,
                                         plan->via, plan->compute, start, n, buf, true);
            for (int64_t i = 0; i < n; ++i) {
                uint64_t key;
                if (plan->compute == EMU_RED_F32) {
                    key = float_key(((const float *)x)[i]);
                } else {
                    key = (uint64_t)((const int64_t *)x)[i] ^ (plan->unsigned64 ? 0 : (uint64_t)1 << 63);
                }
                items[start + i] = (sort_item){.key = plan->descending ? ~key : key, .index = (uint32_t)(start + i)};
            }
        }
        sort_items(items, tmp, n_row);
        int64_t *index = (int64_t *)tmp;
        for (int64_t i = 0; i < n_row; ++i) {
            index[i] = items[i].index;
        }
        emu_red_store_run(EMU_RED_I64, index, n_row, c->out_dtype, c->out + out_off * (int64_t)c->out_item,
                          out_stride);
    }
}

static const char *run_argsort(aclOpExecutor *executor, void *workspace)
{
    dim_ctx c = make_ctx(executor, workspace);
    emu_parallel_for((size_t)c.plan->geom.outer_count, (size_t)c.plan->grain, run_argsort_rows, &c);
    return "argsort_stable_radix";
}

static const emu_dtype_table SORT_TYPES = {EMU_F | EMU_H | INTS | EMU_B, EMU_F | EMU_H | INTS,
                                           EMU_F | EMU_H | EMU_B | INTS | EMU_U16 | EMU_U32 | EMU_U64};
static const emu_dtype_table INT64_ONLY = EMU_DTYPES(EMU_I64);

aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim, bool descending, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnArgsortGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    int32_t d = 0;
    EMU_TRY(emu_red_dim(API, "dim", self, dim, &d));
    const int64_t length = self->view.rank > 0 ? self->view.shape[d] : 1;
    if (self->view.rank > 0 && length > INT_MAX) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has %lld elements along dim %d; expected at most "
                                                 "INT_MAX.", API, (long long)length, (int)d);
    }
    if (self->view.rank > 0 && length == 1 && self->view.dtype == ACL_BF16 && emu_soc_get() != EMU_SOC_ASCEND950) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self is BF16 with 1 element along dim %d; expected a sort "
                                                 "axis longer than 1 for BF16 on %s.", API, (int)d,
                        aclrtGetSocName());
    }
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &SORT_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &INT64_ONLY));
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_RED_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "out", out, EMU_RED_MAX_RANK));
    EMU_TRY(emu_check_same_shape(API, "out", out, "self", self, ACLNN_ERR_PARAM_INVALID));
    dim_plan plan = {.via = self->view.dtype, .compute = emu_red_compute_for(self->view.dtype),
                     .descending = descending, .unsigned64 = self->view.dtype == ACL_UINT64};
    const bool empty = emu_view_is_empty(&self->view);
    uint64_t workspace = 0;
    if (!empty) {
        emu_red_split(&self->view, self->view.rank > 0 ? (uint64_t)1 << d : 0, &out->view, true, true, &plan.geom);
        plan.grain = (int64_t)row_grain(plan.geom.inner_count);
        plan.area = 2 * (uint64_t)plan.geom.inner_count * sizeof(sort_item);
        workspace = (uint64_t)((plan.geom.outer_count + plan.grain - 1) / plan.grain) * plan.area;
    }
    return publish(API, "aclnnArgsort", self, out, &plan, empty, run_argsort, workspace, workspaceSize, executor);
}

aclnnStatus aclnnArgsort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnArgsort", workspace, workspaceSize, executor, stream);
}

/* ---- Cumsum ---- */

static void scan_block(const dim_plan *plan, void *values, int64_t n, void *acc)
{
    for (int64_t k = 0; k < n; ++k) {
        const int64_t i = plan->reverse ? n - 1 - k : k;
        if (plan->compute == EMU_RED_F32) {
            float *x = values, *a = acc;
            const float v = x[i];
            x[i] = plan->exclusive ? *a : *a + v;
            *a += v;
        } else if (plan->compute == EMU_RED_F64) {
            double *x = values, *a = acc;
            const double v = x[i];
            x[i] = plan->exclusive ? *a : *a + v;
            *a += v;
        } else {
            int64_t *x = values;
            uint64_t *a = acc;
            const uint64_t v = (uint64_t)x[i];
            x[i] = (int64_t)(plan->exclusive ? *a : *a + v);
            *a += v;
        }
    }
}

static void run_cumsum_rows(void *opaque, size_t begin, size_t end)
{
    const dim_ctx *c = opaque;
    const dim_plan *plan = c->plan;
    const int64_t n_row = plan->geom.inner_count;
    const int64_t out_stride = plan->geom.inner_rank == 1 ? plan->geom.inner_out[0] : 1;
    _Alignas(64) unsigned char buf[EMU_RED_BLOCK * 8];
    for (size_t row = begin; row < end; ++row) {
        int64_t in_off, out_off;
        emu_red_outer_offsets(&plan->geom, (int64_t)row, &in_off, &out_off);
        _Alignas(8) unsigned char acc[8] = {0};
        for (int64_t b = 0; b * EMU_RED_BLOCK < n_row; ++b) {
            const int64_t n = n_row - b * EMU_RED_BLOCK < EMU_RED_BLOCK ? n_row - b * EMU_RED_BLOCK : EMU_RED_BLOCK;
            const int64_t start = plan->reverse ? n_row - b * EMU_RED_BLOCK - n : b * EMU_RED_BLOCK;
            emu_red_load(&plan->geom, c->self + in_off * (int64_t)c->self_item, c->self_dtype, plan->via,
                         plan->compute, start, n, buf, false);
            scan_block(plan, buf, n, acc);
            emu_red_store_run(plan->compute, buf, n, c->out_dtype,
                              c->out + (out_off + start * out_stride) * (int64_t)c->out_item, out_stride);
        }
    }
}

static const char *run_cumsum(aclOpExecutor *executor, void *workspace)
{
    dim_ctx c = make_ctx(executor, workspace);
    emu_parallel_for((size_t)c.plan->geom.outer_count, row_grain(c.plan->geom.inner_count), run_cumsum_rows, &c);
    static const char *const COMPUTE[] = {"cumsum_f32", "cumsum_f64", "cumsum_i64"};
    return COMPUTE[c.plan->compute];
}

/* CANN's lists less COMPLEX64/COMPLEX128. */
static const emu_dtype_table CUMSUM_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_D | INTS);
static const emu_dtype_table READABLE = {REALS, REALS, REALS};

static aclnnStatus cumsum(const char *api, const char *phase2, const aclTensor *self, int64_t dim, bool exclusive,
                          bool reverse, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_same_shape(api, "out", out, "self", self, ACLNN_ERR_PARAM_INVALID));
    EMU_TRY(emu_check_max_rank(api, "self", self, EMU_RED_MAX_RANK));
    int32_t d = 0;
    EMU_TRY(emu_red_dim(api, "dim", self, dim, &d));
    /* self is cast to out's dtype first. */
    dim_plan plan = {.via = out->view.dtype, .compute = emu_red_compute_for(out->view.dtype),
                     .exclusive = exclusive, .reverse = reverse};
    const bool empty = emu_view_is_empty(&self->view);
    if (!empty) {
        emu_red_split(&self->view, self->view.rank > 0 ? (uint64_t)1 << d : 0, &out->view, true, true, &plan.geom);
    }
    return publish(api, phase2, self, out, &plan, empty, run_cumsum, 0, workspaceSize, executor);
}

aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnCumsumGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &CUMSUM_TYPES));
    if (out->view.dtype != dtype) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has dtype %s; expected %s, the dtype argument.", API,
                        emu_dtype_name(out->view.dtype), emu_dtype_name(dtype));
    }
    /* CANN does not check self: any dtype Cast converts. */
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &READABLE));
    return cumsum(API, "aclnnCumsum", self, dim, false, false, out, workspaceSize, executor);
}

aclnnStatus aclnnCumsum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnCumsum", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnCumsumV2GetWorkspaceSize(const aclTensor *self, int64_t dim, bool exclusive, bool reverse,
                                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnCumsumV2GetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &CUMSUM_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &CUMSUM_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    return cumsum(API, "aclnnCumsumV2", self, dim, exclusive, reverse, out, workspaceSize, executor);
}

aclnnStatus aclnnCumsumV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnCumsumV2", workspace, workspaceSize, executor, stream);
}
