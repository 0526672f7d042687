/* IndexCopy, InplaceIndexCopy (hicann/ops-nn index/scatter_update/op_api/
 * aclnn_index_copy.cpp): outRef = selfRef with its slices index[j] along dim
 * replaced by source's slice j. CANN's ScatterUpdate kernel skips an index
 * outside [0, selfRef.shape[dim]) (negative ones included): such a slice of
 * source is not written anywhere. Where index repeats a value CANN leaves
 * the order undefined; here the last occurrence wins. */
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_index_copy.h"
#include "common/parallel.h"
#include "ops/index_common.h"

static const emu_dtype_table ANY_TYPES = {EMU_ANY, EMU_ANY, EMU_ANY};
static const aclDataType INDEX_TYPES[] = {ACL_INT32, ACL_INT64};

/* ---------------------------------------------------------------- IndexCopy */

#define COPY_A2 (EMU_D | EMU_I16 | EMU_I8 | EMU_U8 | EMU_DT(ACL_COMPLEX64) | EMU_DT(ACL_COMPLEX128) | EMU_BOOL |    \
                 EMU_F | EMU_H | EMU_I32 | EMU_I64)
static const emu_dtype_table INDEX_COPY_TYPES = {COPY_A2 | EMU_B, COPY_A2, COPY_A2 | EMU_B | EMU_U32 | EMU_U64};

enum { COPY_ROW_RANK = EMU_IDX_MAX_RANK };

typedef struct {
    emu_ew_plan self_copy; /* outRef = selfRef first, when they are different tensors */
    bool copy_self;
    int slot_index, slot_source, slot_out;
    /* Rows: selfRef's dimensions before dim, then the index position. */
    int32_t rank;
    int64_t shape[COPY_ROW_RANK + 1];
    int64_t src_stride[COPY_ROW_RANK + 1]; /* bytes in source */
    int64_t out_stride[COPY_ROW_RANK + 1]; /* bytes in outRef; 0 along the index position */
    int64_t rows, count, n, dim_stride;    /* dim_stride: outRef's along dim, in bytes */
    size_t elem;
    emu_idx_block block; /* dimensions after dim: dst = outRef, src = source */
    int64_t block_elems;
    uint64_t pairs_offset;
} copy_plan;

_Static_assert(sizeof(copy_plan) <= EMU_PLAN_BYTES, "copy_plan must fit in the executor");

typedef struct {
    int64_t value, position;
} index_pair;

static int compare_pairs(const void *a, const void *b)
{
    const index_pair *x = a, *y = b;
    if (x->value != y->value) {
        return x->value < y->value ? -1 : 1;
    }
    return x->position < y->position ? -1 : x->position > y->position;
}

typedef struct {
    const copy_plan *plan;
    const char *source;
    char *out;
    const int64_t *index; /* -1: not written (out of range, or a later position has the same index) */
} copy_ctx;

static void copy_rows(void *opaque, size_t begin, size_t end)
{
    const copy_ctx *ctx = opaque;
    const copy_plan *p = ctx->plan;
    for (size_t r = begin; r < end; ++r) {
        int64_t rest = (int64_t)r, src_at = 0, out_at = 0;
        const int64_t j = rest % p->count; /* the innermost row dimension is the index position */
        for (int32_t d = p->rank - 1; d >= 0; --d) {
            const int64_t at = rest % p->shape[d];
            rest /= p->shape[d];
            src_at += at * p->src_stride[d];
            out_at += at * p->out_stride[d];
        }
        if (ctx->index[j] >= 0) {
            emu_idx_block_copy(&p->block, ctx->out + out_at + ctx->index[j] * p->dim_stride, ctx->source + src_at,
                               p->elem);
        }
    }
}

static const char *run_index_copy(aclOpExecutor *executor, void *workspace)
{
    const copy_plan *p = (const copy_plan *)executor->plan;
    if (p->copy_self) {
        emu_ew_execute(&p->self_copy, executor->tensors);
    }
    int64_t *index = workspace;
    index_pair *pairs = (index_pair *)((char *)workspace + p->pairs_offset);
    emu_idx_read_indices(&executor->tensors[p->slot_index], index);
    int64_t kept = 0;
    for (int64_t k = 0; k < p->count; ++k) {
        if (index[k] >= 0 && index[k] < p->n) { /* out of range: skipped, nothing written */
            pairs[kept++] = (index_pair){index[k], k};
        } else {
            index[k] = -1;
        }
    }
    qsort(pairs, (size_t)kept, sizeof *pairs, compare_pairs);
    for (int64_t k = 0; k + 1 < kept; ++k) {
        if (pairs[k].value == pairs[k + 1].value) {
            index[pairs[k].position] = -1; /* a later position writes this slice */
        }
    }
    copy_ctx ctx = {.plan = p, .source = emu_view_origin(&executor->tensors[p->slot_source]),
                    .out = emu_view_origin(&executor->tensors[p->slot_out]), .index = index};
    const int64_t per_row = p->block_elems > 0 ? p->block_elems : 1;
    const size_t grain = (size_t)(EMU_IDX_GRAIN_ELEMENTS / per_row > 0 ? EMU_IDX_GRAIN_ELEMENTS / per_row : 1);
    emu_parallel_for((size_t)p->rows, grain, copy_rows, &ctx);
    return "index_copy";
}

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

static void copy_push(copy_plan *p, int64_t size, int64_t src_stride, int64_t out_stride)
{
    const int32_t last = p->rank - 1;
    if (size == 1) {
        return;
    }
    if (last >= 0 && p->src_stride[last] == src_stride * size && p->out_stride[last] == out_stride * size) {
        p->shape[last] *= size;
        p->src_stride[last] = src_stride;
        p->out_stride[last] = out_stride;
        return;
    }
    p->shape[p->rank] = size;
    p->src_stride[p->rank] = src_stride;
    p->out_stride[p->rank] = out_stride;
    ++p->rank;
}

/* selfRef and source as CANN reshapes them: a 0-d tensor is [1]. */
static emu_view as_1d(const emu_view *view)
{
    emu_view v = *view;
    if (v.rank == 0) {
        v.rank = 1;
        v.shape[0] = 1;
        v.strides[0] = 1;
    }
    return v;
}

static aclnnStatus index_copy_shapes(const char *api, const aclTensor *self, int64_t dim, const aclTensor *index,
                                     const aclTensor *source, const aclTensor *out, int32_t *d_out)
{
    char have[256], want[256];
    EMU_TRY(emu_check_max_rank(api, "selfRef", self, EMU_IDX_MAX_RANK));
    EMU_TRY(emu_check_max_rank(api, "source", source, EMU_IDX_MAX_RANK));
    EMU_TRY(emu_check_max_rank(api, "index", index, 1));
    EMU_TRY(emu_check_same_shape(api, "outRef", out, "selfRef", self, ACLNN_ERR_PARAM_INVALID));
    const int64_t m = emu_view_numel(&index->view);
    if (source->view.rank == 0 && m != 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: source is 0-d but index has %lld elements; expected one index.",
                        api, (long long)m);
    }
    const int32_t rank = self->view.rank;
    if (rank != source->view.rank && rank != 0 && source->view.rank != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: selfRef has rank %d and source rank %d; expected the same "
                                                 "rank.", api, (int)rank, (int)source->view.rank);
    }
    const int64_t r = rank > 0 ? rank : 1;
    if (dim < -r || dim >= r) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of selfRef in [%lld, %lld].",
                        api, (long long)dim, (long long)-r, (long long)(r - 1));
    }
    const int32_t d = (int32_t)(dim < 0 ? dim + r : dim);
    /* CANN compares the slices (every dimension but dim) and then index's
     * length with source's dim; a 0-d tensor counts as [1] here, so a 0-d
     * source fits a 1-d selfRef and a 0-d selfRef one element of source. */
    const emu_view s = as_1d(&self->view), u = as_1d(&source->view);
    bool same = s.rank == u.rank;
    for (int32_t i = 0; same && i < s.rank; ++i) {
        same = i == d || s.shape[i] == u.shape[i];
    }
    if (!same) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: source has shape %s and selfRef %s; expected the same shape "
                                                 "but along dim %d.", api, emu_shape_string(&source->view, have,
                                                                                            sizeof have),
                        emu_shape_string(&self->view, want, sizeof want), (int)d);
    }
    if (source->view.rank > 0 && u.shape[d] != m) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: index has %lld elements; expected %lld, source's length along "
                                                 "dim %d.", api, (long long)m, (long long)u.shape[d], (int)d);
    }
    if (self->format != out->format) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: outRef has format %d and selfRef %d; expected the same format.",
                        api, (int)out->format, (int)self->format);
    }
    *d_out = d;
    return ACLNN_SUCCESS;
}

static aclnnStatus index_copy(const char *api, const char *phase2, const aclTensor *self, int64_t dim,
                              const aclTensor *index, const aclTensor *source, const aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const bool inplace = out == self;
    const char *out_name = inplace ? "selfRef" : "outRef";
    EMU_TRY(emu_check_not_null(api, "selfRef", self));
    EMU_TRY(emu_check_not_null(api, "index", index));
    EMU_TRY(emu_check_not_null(api, "source", source));
    EMU_TRY(emu_check_not_null(api, "outRef", out));
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    EMU_TRY(emu_check_dtype_table(api, "selfRef", self->view.dtype, &INDEX_COPY_TYPES));
    EMU_TRY(emu_check_dtype_in(api, "index", index, INDEX_TYPES, 2));
    EMU_TRY(emu_check_same_dtype(api, "source", source, "selfRef", self));
    EMU_TRY(emu_check_same_dtype(api, out_name, out, "selfRef", self));
    int32_t d = 0;
    EMU_TRY(index_copy_shapes(api, self, dim, index, source, out, &d));
    const bool empty = emu_view_is_empty(&self->view) || emu_view_is_empty(&index->view);
    EMU_TRY(emu_idx_check_memory(api, "selfRef", self));
    EMU_TRY(emu_idx_check_memory(api, "index", index));
    EMU_TRY(emu_idx_check_memory(api, "source", source));
    EMU_TRY(emu_idx_check_memory(api, out_name, out));
    if (!empty) {
        EMU_TRY(emu_check_output_not_self_overlapping(api, out_name, out));
        EMU_TRY(emu_check_exact_alias(api, out_name, out, "selfRef", self));
        EMU_TRY(emu_idx_check_separate(api, out_name, out, "source", source));
        EMU_TRY(emu_idx_check_separate(api, out_name, out, "index", index));
    }

    copy_plan plan;
    memset(&plan, 0, sizeof plan);
    /* Slots: index, source, selfRef when it is not outRef, then outRef. */
    const bool separate = !emu_views_identical(&self->view, &out->view);
    const int inputs = separate ? 3 : 2;
    plan.slot_index = 0;
    plan.slot_source = 1;
    plan.slot_out = inputs;
    static const char *const NAMES_SEPARATE[] = {"index", "source", "selfRef", "outRef"};
    static const char *const NAMES_INPLACE[] = {"index", "source", "selfRef"};
    if (separate && !empty) {
        static const emu_ew_def SELF_COPY = {.api = "aclnnIndexCopy", .kernel = EMU_EWK_identity, .input_count = 1,
                                             .names = {"selfRef", "outRef"}, .in_dtypes = &ANY_TYPES,
                                             .out_dtypes = &ANY_TYPES, .result = EMU_EW_RESULT_OUT,
                                             .out_rule = EMU_EW_OUT_SAME};
        const emu_ew_call call = EMU_EW_CALL(.inputs = {self}, .out = out);
        const int slots[] = {2, 3};
        EMU_TRY(emu_ew_prepare(api, &SELF_COPY, &call, slots, &plan.self_copy));
        plan.copy_self = true;
    }
    const emu_view s = as_1d(&self->view), u = as_1d(&source->view), o = as_1d(&out->view);
    plan.elem = emu_dtype_size(self->view.dtype);
    const int64_t e = (int64_t)plan.elem;
    plan.count = emu_view_numel(&index->view);
    plan.n = s.shape[d];
    plan.dim_stride = o.strides[d] * e;
    for (int32_t i = 0; i < d; ++i) {
        copy_push(&plan, s.shape[i], u.strides[i] * e, o.strides[i] * e);
    }
    plan.shape[plan.rank] = plan.count; /* the index position, kept even when 1: copy_rows reads it last */
    plan.src_stride[plan.rank] = u.strides[d] * e;
    plan.out_stride[plan.rank] = 0;
    ++plan.rank;
    for (int32_t i = d + 1; i < s.rank; ++i) {
        emu_idx_block_push(&plan.block, s.shape[i], o.strides[i] * e, u.strides[i] * e);
    }
    plan.rows = 1;
    for (int32_t i = 0; i < plan.rank; ++i) {
        plan.rows *= plan.shape[i];
    }
    plan.block_elems = emu_idx_block_numel(&plan.block);

    aclOpExecutor *planned = emu_executor_create(api, phase2, inputs, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, separate ? NAMES_SEPARATE : NAMES_INPLACE);
    emu_executor_bind(planned, plan.slot_index, index);
    emu_executor_bind(planned, plan.slot_source, source);
    if (separate) {
        emu_executor_bind(planned, 2, self);
    }
    emu_executor_bind(planned, plan.slot_out, out);
    uint64_t workspace = 0;
    emu_idx_reserve(&workspace, (uint64_t)plan.count * sizeof(int64_t));
    plan.pairs_offset = emu_idx_reserve(&workspace, (uint64_t)plan.count * sizeof(index_pair));
    memcpy(planned->plan, &plan, sizeof plan);
    if (empty) {
        for (int i = 0; i <= inputs; ++i) {
            emu_executor_mark_unused(planned, i);
        }
        return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
    }
    return emu_executor_publish(planned, run_index_copy, workspace, workspaceSize, executor);
}

aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                           const aclTensor *source, aclTensor *outRef, uint64_t *workspaceSize,
                                           aclOpExecutor **executor)
{
    return index_copy("aclnnIndexCopyGetWorkspaceSize", "aclnnIndexCopy", selfRef, dim, index, source, outRef,
                      workspaceSize, executor);
}

aclnnStatus aclnnIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnIndexCopy", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                  const aclTensor *source, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    return index_copy("aclnnInplaceIndexCopyGetWorkspaceSize", "aclnnInplaceIndexCopy", selfRef, dim, index, source,
                      selfRef, workspaceSize, executor);
}

aclnnStatus aclnnInplaceIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream)
{
    return emu_executor_run("aclnnInplaceIndexCopy", workspace, workspaceSize, executor, stream);
}
