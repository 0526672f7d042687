/* IndexFillTensor, InplaceIndexFillTensor (hicann/ops-nn index/index_fill_d/
 * op_api/aclnn_index_fill_tensor.cpp): out = self with its slices at the
 * positions of the aclIntArray index along dim set to value. Indices in
 * [-n, 0) count from the end; any other index outside [0, n) is refused in
 * phase 1, as CANN does. */
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_index_fill_tensor.h"
#include "common/parallel.h"
#include "ops/index_common.h"

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

/* ---------------------------------------------------------------- IndexFillTensor */

#define FILL_A2 (EMU_I32 | EMU_H | EMU_F | EMU_I64 | EMU_BOOL)
static const emu_dtype_table INDEX_FILL_TYPES = {FILL_A2 | EMU_B, FILL_A2,
                                                 FILL_A2 | EMU_B | EMU_I8 | EMU_U8 | EMU_I16 | EMU_D};

enum { FILL_SELF, FILL_OUT_SEPARATE };

typedef struct {
    int32_t rank, d;
    int64_t shape[EMU_IDX_MAX_RANK];
    int64_t out_stride[EMU_IDX_MAX_RANK];  /* bytes */
    int64_t self_stride[EMU_IDX_MAX_RANK]; /* bytes */
    bool copy;                             /* out is not self: the other slices are copied */
    int slot_out;
    size_t elem;
    _Alignas(16) unsigned char value[16];
    /* The positions along dim to fill: a bitmap of n bits when it fits, else
     * sorted, disjoint runs [begin, end). */
    bool bitmap;
    int64_t runs;
    _Alignas(8) unsigned char set[];
} fill_plan;

enum {
    FILL_SET_BYTES = EMU_PLAN_BYTES - (int)sizeof(fill_plan),
    FILL_BITMAP_BITS = FILL_SET_BYTES * 8,
    FILL_MAX_RUNS = FILL_SET_BYTES / (2 * (int)sizeof(int64_t)),
};

static bool fill_selected(const fill_plan *p, int64_t position)
{
    if (p->bitmap) {
        return (p->set[position >> 3] >> (position & 7)) & 1;
    }
    const int64_t *runs = (const int64_t *)p->set;
    int64_t lo = 0, hi = p->runs; /* first run whose end is above position */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (runs[2 * mid + 1] <= position) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < p->runs && runs[2 * lo] <= position;
}

typedef struct {
    const fill_plan *plan;
    const char *self;
    char *out;
    emu_idx_block block; /* dimensions after dim: dst = out, src = self */
    int64_t n, outer_rank;
} fill_ctx;

static void fill_rows(void *opaque, size_t begin, size_t end)
{
    const fill_ctx *ctx = opaque;
    const fill_plan *p = ctx->plan;
    for (size_t r = begin; r < end; ++r) {
        const int64_t position = (int64_t)r % ctx->n;
        int64_t rest = (int64_t)r / ctx->n;
        int64_t out_at = position * p->out_stride[p->d], self_at = position * p->self_stride[p->d];
        for (int32_t d = p->d - 1; d >= 0; --d) {
            const int64_t at = rest % p->shape[d];
            rest /= p->shape[d];
            out_at += at * p->out_stride[d];
            self_at += at * p->self_stride[d];
        }
        if (fill_selected(p, position)) {
            emu_idx_block_fill(&ctx->block, ctx->out + out_at, p->value, p->elem);
        } else if (p->copy) {
            emu_idx_block_copy(&ctx->block, ctx->out + out_at, ctx->self + self_at, p->elem);
        }
    }
}

static const char *run_index_fill(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const fill_plan *p = (const fill_plan *)executor->plan;
    fill_ctx ctx = {.plan = p, .out = emu_view_origin(&executor->tensors[p->slot_out]),
                    .self = emu_view_origin(&executor->tensors[FILL_SELF]), .n = p->shape[p->d]};
    int64_t rows = 1;
    for (int32_t i = 0; i <= p->d; ++i) {
        rows *= p->shape[i];
    }
    for (int32_t i = p->d + 1; i < p->rank; ++i) {
        emu_idx_block_push(&ctx.block, p->shape[i], p->out_stride[i], p->self_stride[i]);
    }
    const int64_t per_row = emu_idx_block_numel(&ctx.block);
    const size_t grain = (size_t)(EMU_IDX_GRAIN_ELEMENTS / per_row > 0 ? EMU_IDX_GRAIN_ELEMENTS / per_row : 1);
    emu_parallel_for((size_t)rows, grain, fill_rows, &ctx);
    return "index_fill";
}

static int compare_int64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The positions into the plan's set; false when they do not fit. */
static bool fill_positions(fill_plan *p, const int64_t *values, uint64_t count, int64_t n)
{
    if (n <= FILL_BITMAP_BITS) {
        p->bitmap = true;
        for (uint64_t i = 0; i < count; ++i) {
            const int64_t at = values[i] < 0 ? values[i] + n : values[i];
            p->set[at >> 3] |= (unsigned char)(1u << (at & 7));
        }
        return true;
    }
    int64_t *sorted = malloc((count > 0 ? count : 1) * sizeof *sorted);
    if (sorted == NULL) {
        return false;
    }
    for (uint64_t i = 0; i < count; ++i) {
        sorted[i] = values[i] < 0 ? values[i] + n : values[i];
    }
    qsort(sorted, count, sizeof *sorted, compare_int64);
    int64_t *runs = (int64_t *)p->set;
    p->runs = 0;
    bool fits = true;
    for (uint64_t i = 0; i < count && fits; ++i) {
        if (p->runs > 0 && sorted[i] <= runs[2 * p->runs - 1]) {
            runs[2 * p->runs - 1] = sorted[i] + 1 > runs[2 * p->runs - 1] ? sorted[i] + 1 : runs[2 * p->runs - 1];
        } else if (p->runs < FILL_MAX_RUNS) {
            runs[2 * p->runs] = sorted[i];
            runs[2 * p->runs + 1] = sorted[i] + 1;
            ++p->runs;
        } else {
            fits = false;
        }
    }
    free(sorted);
    return fits;
}

static aclnnStatus index_fill(const char *api, const char *phase2, bool inplace, const aclTensor *self, int64_t dim,
                              const aclIntArray *index, const aclScalar *value, const aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *self_name = inplace ? "selfRef" : "self";
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    EMU_TRY(emu_check_not_null(api, self_name, self));
    EMU_TRY(emu_check_not_null(api, "index", index));
    EMU_TRY(emu_check_not_null(api, "value", value));
    EMU_TRY(emu_check_not_null(api, "out", out));
    EMU_TRY(emu_check_dtype_table(api, self_name, self->view.dtype, &INDEX_FILL_TYPES));
    EMU_TRY(emu_check_same_dtype(api, "out", out, self_name, self));
    uint64_t count = 0;
    const int64_t *values = emu_int_array_values(index, &count);
    const bool empty = emu_view_is_empty(&self->view);
    const int32_t rank = self->view.rank;
    int32_t d = 0;
    if (!empty) {
        EMU_TRY(emu_check_same_shape(api, "out", out, self_name, self, ACLNN_ERR_PARAM_INVALID));
        EMU_TRY(emu_check_max_rank(api, self_name, self, EMU_IDX_MAX_RANK));
        const int64_t r = rank > 0 ? rank : 1;
        if (dim < -r || dim >= r) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of %s in [%lld, %lld].",
                            api, (long long)dim, self_name, (long long)-r, (long long)(r - 1));
        }
        d = (int32_t)(dim < 0 ? dim + r : dim);
        const int64_t n = rank > 0 ? self->view.shape[d] : 1;
        for (uint64_t i = 0; i < count; ++i) {
            if (values[i] >= n || values[i] < -n) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: index[%llu] is %lld; expected a position along dim in "
                                                         "[%lld, %lld].", api, (unsigned long long)i,
                                (long long)values[i], (long long)-n, (long long)(n - 1));
            }
        }
    }
    const aclDataType value_dtype = emu_scalar_dtype(value);
    if (value_dtype == ACL_COMPLEX32 || value_dtype == ACL_COMPLEX64 || value_dtype == ACL_COMPLEX128) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: value has dtype %s; expected a real value.", api,
                        emu_dtype_name(value_dtype));
    }
    EMU_TRY(emu_idx_check_memory(api, self_name, self));
    EMU_TRY(emu_idx_check_memory(api, "out", out));
    const bool separate = !emu_views_identical(&self->view, &out->view);
    if (!empty) {
        EMU_TRY(emu_check_output_not_self_overlapping(api, "out", out));
        EMU_TRY(emu_check_exact_alias(api, "out", out, self_name, self));
    }

    _Alignas(64) unsigned char area[EMU_PLAN_BYTES];
    memset(area, 0, sizeof area);
    fill_plan *plan = (fill_plan *)area;
    plan->elem = emu_dtype_size(self->view.dtype);
    plan->copy = separate;
    plan->slot_out = separate ? 1 : 0;
    plan->d = d;
    plan->rank = rank > 0 ? rank : 1;
    const int64_t e = (int64_t)plan->elem;
    for (int32_t i = 0; i < plan->rank; ++i) {
        plan->shape[i] = rank > 0 ? self->view.shape[i] : 1;
        plan->out_stride[i] = rank > 0 ? out->view.strides[i] * e : 0;
        plan->self_stride[i] = rank > 0 ? self->view.strides[i] * e : 0;
    }
    /* CANN's A2/A3 path reads the value as a float and casts it to self's
     * dtype (an int64 above 2^24 rounds); Ascend950 converts it directly. */
    double v = emu_scalar_to_double(value);
    int64_t v_int = emu_scalar_to_int64(value);
    bool exact_int = emu_dtype_is_integral(value_dtype) && value_dtype != ACL_UINT64;
    if (emu_soc_get() != EMU_SOC_ASCEND950) {
        v = (float)v;
        exact_int = false;
    }
    emu_idx_store_value(plan->value, self->view.dtype, v, v_int, exact_int);
    if (!empty && !fill_positions(plan, values, count, plan->shape[d])) {
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: index holds more than %d separate runs of positions "
                                                      "along a dimension longer than %d; aclnn_emu plans at most "
                                                      "that many.", api, (int)FILL_MAX_RUNS, (int)FILL_BITMAP_BITS);
    }

    aclOpExecutor *planned = emu_executor_create(api, phase2, separate ? 1 : 0, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    static const char *const NAMES_SEPARATE[] = {"self", "out"};
    static const char *const NAMES_INPLACE[] = {"selfRef"};
    emu_executor_name_tensors(planned, separate ? NAMES_SEPARATE : NAMES_INPLACE);
    if (separate) {
        emu_executor_bind(planned, FILL_SELF, self);
    }
    emu_executor_bind(planned, plan->slot_out, out);
    memcpy(planned->plan, area, sizeof area);
    /* Nothing to do: an empty self, or an in-place call without an index. */
    if (empty || (!separate && count == 0)) {
        for (int i = 0; i <= plan->slot_out; ++i) {
            emu_executor_mark_unused(planned, i);
        }
        return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
    }
    return emu_executor_publish(planned, run_index_fill, 0, workspaceSize, executor);
}

aclnnStatus aclnnIndexFillTensorGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclIntArray *index,
                                                 const aclScalar *value, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    return index_fill("aclnnIndexFillTensorGetWorkspaceSize", "aclnnIndexFillTensor", false, self, dim, index, value,
                      out, workspaceSize, executor);
}

aclnnStatus aclnnIndexFillTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream)
{
    return emu_executor_run("aclnnIndexFillTensor", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceIndexFillTensorGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclIntArray *index,
                                                        const aclScalar *value, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    return index_fill("aclnnInplaceIndexFillTensorGetWorkspaceSize", "aclnnInplaceIndexFillTensor", true, selfRef, dim,
                      index, value, selfRef, workspaceSize, executor);
}

aclnnStatus aclnnInplaceIndexFillTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream)
{
    return emu_executor_run("aclnnInplaceIndexFillTensor", workspace, workspaceSize, executor, stream);
}
