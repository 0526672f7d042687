/* Gathers along one dimension, from hicann/ops-nn index/gather_v2:
 *   GatherV2    (op_api/aclnn_gather_v2.cpp): out = self with dimension dim
 *               replaced by index's dimensions (a 0-d index counts as [1]).
 *               CANN runs the GatherV2 kernel with negative indices allowed:
 *               an index in [-n, 0) counts from the end.
 *   IndexSelect (op_api/aclnn_index_select.cpp): index is 0-d or 1-d and
 *               replaces the length of dim; negative indices are not
 *               allowed (the kernel is run without negative support).
 * An index outside the allowed range gives a slice of zeros, as CANN's
 * GatherV2 kernel writes it (op_kernel/arch35/gather_v2.h); nothing outside
 * self is read. */
#include <string.h>

#include "aclnnop/aclnn_gather_v2.h"
#include "aclnnop/aclnn_index_select.h"
#include "common/parallel.h"
#include "ops/index_common.h"

/* ---------------------------------------------------------------- gather */

enum { G_SELF, G_INDEX, G_OUT, G_ROW_RANK = 2 * EMU_IDX_MAX_RANK };

typedef struct {
    /* Rows: self's dimensions before dim, then index's; each row is one block. */
    int32_t rank;
    int64_t shape[G_ROW_RANK];
    int64_t self_stride[G_ROW_RANK]; /* bytes; 0 along index dimensions */
    int64_t out_stride[G_ROW_RANK];  /* bytes */
    int64_t idx_stride[G_ROW_RANK];  /* position in the flat index; 0 along self's dimensions */
    int64_t rows, count;             /* rows; index elements */
    int64_t n, dim_stride;           /* self.shape[dim]; its stride in bytes */
    bool negative;                   /* index + n for an index in [-n, 0) */
    size_t elem;
    emu_idx_block block; /* self's dimensions after dim: dst = out, src = self */
    int64_t block_elems;
} gather_plan;

_Static_assert(sizeof(gather_plan) <= EMU_PLAN_BYTES, "gather_plan must fit in the executor");

static void row_push(gather_plan *p, int64_t size, int64_t self_stride, int64_t out_stride, int64_t idx_stride)
{
    if (size == 1) {
        return;
    }
    const int32_t last = p->rank - 1;
    if (last >= 0 && p->self_stride[last] == self_stride * size && p->out_stride[last] == out_stride * size &&
        p->idx_stride[last] == idx_stride * size) {
        p->shape[last] *= size;
        p->self_stride[last] = self_stride;
        p->out_stride[last] = out_stride;
        p->idx_stride[last] = idx_stride;
        return;
    }
    p->shape[p->rank] = size;
    p->self_stride[p->rank] = self_stride;
    p->out_stride[p->rank] = out_stride;
    p->idx_stride[p->rank] = idx_stride;
    ++p->rank;
}

typedef struct {
    const gather_plan *plan;
    const char *self;
    char *out;
    const int64_t *index; /* normalized: -1 where out of range */
} gather_ctx;

static void gather_rows(void *opaque, size_t begin, size_t end)
{
    const gather_ctx *ctx = opaque;
    const gather_plan *p = ctx->plan;
    int64_t counter[G_ROW_RANK];
    int64_t self_at = 0, out_at = 0, j = 0;
    int64_t rest = (int64_t)begin;
    for (int32_t d = p->rank - 1; d >= 0; --d) {
        counter[d] = rest % p->shape[d];
        rest /= p->shape[d];
        self_at += counter[d] * p->self_stride[d];
        out_at += counter[d] * p->out_stride[d];
        j += counter[d] * p->idx_stride[d];
    }
    for (size_t r = begin; r < end; ++r) {
        const int64_t row = ctx->index[j];
        if (row < 0) {
            emu_idx_block_zero(&p->block, ctx->out + out_at, p->elem);
        } else {
            emu_idx_block_copy(&p->block, ctx->out + out_at, ctx->self + self_at + row * p->dim_stride, p->elem);
        }
        for (int32_t d = p->rank - 1; d >= 0; --d) {
            self_at += p->self_stride[d];
            out_at += p->out_stride[d];
            j += p->idx_stride[d];
            if (++counter[d] < p->shape[d]) {
                break;
            }
            counter[d] = 0;
            self_at -= p->self_stride[d] * p->shape[d];
            out_at -= p->out_stride[d] * p->shape[d];
            j -= p->idx_stride[d] * p->shape[d];
        }
    }
}

static const char *run_gather(aclOpExecutor *executor, void *workspace)
{
    const gather_plan *p = (const gather_plan *)executor->plan;
    int64_t *index = workspace;
    emu_idx_read_indices(&executor->tensors[G_INDEX], index);
    for (int64_t k = 0; k < p->count; ++k) {
        int64_t v = index[k];
        if (v < 0 && p->negative) {
            v += p->n;
        }
        index[k] = v >= 0 && v < p->n ? v : -1; /* out of range: a slice of zeros, nothing read */
    }
    gather_ctx ctx = {.plan = p, .self = emu_view_origin(&executor->tensors[G_SELF]),
                      .out = emu_view_origin(&executor->tensors[G_OUT]), .index = index};
    const int64_t per_row = p->block_elems > 0 ? p->block_elems : 1;
    const size_t grain = (size_t)(EMU_IDX_GRAIN_ELEMENTS / per_row > 0 ? EMU_IDX_GRAIN_ELEMENTS / per_row : 1);
    emu_parallel_for((size_t)p->rows, grain, gather_rows, &ctx);
    return "index_gather";
}

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

/* The plan and executor of a gather after the operator's own checks. out's
 * dimensions are self's before d, then `k` index dimensions (shapes
 * idx_shape), then self's after d; a 0-d self gathers one element. */
static aclnnStatus gather_phase1(const char *api, const char *phase2, const aclTensor *self, int32_t d,
                                 const aclTensor *index, int32_t k, const int64_t *idx_shape, const aclTensor *out,
                                 bool negative, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char *const NAMES[] = {"self", "index", "out"};
    const bool empty = emu_view_is_empty(&self->view) || emu_view_is_empty(&index->view);
    EMU_TRY(emu_idx_check_memory(api, "self", self));
    EMU_TRY(emu_idx_check_memory(api, "index", index));
    EMU_TRY(emu_idx_check_memory(api, "out", out));
    if (!empty) {
        EMU_TRY(emu_check_output_not_self_overlapping(api, "out", out));
        EMU_TRY(emu_idx_check_separate(api, "out", out, "self", self));
        EMU_TRY(emu_idx_check_separate(api, "out", out, "index", index));
    }
    gather_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.elem = emu_dtype_size(self->view.dtype);
    plan.negative = negative;
    plan.count = emu_view_numel(&index->view);
    const int64_t e = (int64_t)plan.elem;
    const emu_view *s = &self->view, *o = &out->view;
    if (s->rank == 0) {
        plan.n = 1; /* one element: the first index picks it or zero */
    } else {
        plan.n = s->shape[d];
        plan.dim_stride = s->strides[d] * e;
        for (int32_t i = 0; i < d; ++i) {
            row_push(&plan, s->shape[i], s->strides[i] * e, o->strides[i] * e, 0);
        }
        int64_t flat = 1;
        int64_t idx_strides[EMU_IDX_MAX_RANK];
        for (int32_t i = k - 1; i >= 0; --i) {
            idx_strides[i] = flat;
            flat *= idx_shape[i];
        }
        for (int32_t i = 0; i < k; ++i) {
            row_push(&plan, idx_shape[i], 0, o->strides[d + i] * e, idx_strides[i]);
        }
        for (int32_t i = d + 1; i < s->rank; ++i) {
            emu_idx_block_push(&plan.block, s->shape[i], o->strides[i - 1 + k] * e, s->strides[i] * e);
        }
    }
    plan.rows = 1;
    for (int32_t i = 0; i < plan.rank; ++i) {
        plan.rows *= plan.shape[i];
    }
    plan.block_elems = emu_idx_block_numel(&plan.block);

    aclOpExecutor *planned = emu_executor_create(api, phase2, 2, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    emu_executor_bind(planned, G_SELF, self);
    emu_executor_bind(planned, G_INDEX, index);
    emu_executor_bind(planned, G_OUT, out);
    memcpy(planned->plan, &plan, sizeof plan);
    uint64_t workspace = 0;
    if (empty) {
        for (int i = 0; i < 3; ++i) {
            emu_executor_mark_unused(planned, i);
        }
        return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
    }
    emu_idx_reserve(&workspace, (uint64_t)plan.count * sizeof(int64_t));
    return emu_executor_publish(planned, run_gather, workspace, workspaceSize, executor);
}

static aclnnStatus check_dim(const char *api, int64_t dim, int64_t rank)
{
    if (dim < -rank || dim >= rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of self in [%lld, %lld].",
                        api, (long long)dim, (long long)-rank, (long long)(rank - 1));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_out_shape(const char *api, const aclTensor *out, const int64_t *shape, int32_t rank,
                                   const char *what)
{
    emu_view want = {.rank = rank};
    memcpy(want.shape, shape, (size_t)rank * sizeof shape[0]);
    if (!emu_view_same_shape(&out->view, &want)) {
        char have[256], expected[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected %s, %s.", api,
                        emu_shape_string(&out->view, have, sizeof have), emu_shape_string(&want, expected,
                                                                                          sizeof expected), what);
    }
    return ACLNN_SUCCESS;
}

static const aclDataType INDEX_TYPES[] = {ACL_INT32, ACL_INT64};

/* ---- GatherV2 ---- */

#define GATHER_COMMON (EMU_F | EMU_I32 | EMU_I64 | EMU_H | EMU_I16 | EMU_I8 | EMU_U8 | EMU_BOOL | EMU_D |       \
                       EMU_DT(ACL_COMPLEX64) | EMU_DT(ACL_COMPLEX128))
static const emu_dtype_table GATHER_V2_TYPES = {GATHER_COMMON | EMU_B, GATHER_COMMON, GATHER_COMMON | EMU_B | EMU_U16};

aclnnStatus aclnnGatherV2GetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnGatherV2GetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "index", index));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &GATHER_V2_TYPES));
    EMU_TRY(emu_check_dtype_in(API, "index", index, INDEX_TYPES, 2));
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_IDX_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "index", index, EMU_IDX_MAX_RANK));
    const int32_t rank = self->view.rank;
    EMU_TRY(check_dim(API, dim, rank > 0 ? rank : 1));
    const int32_t d = (int32_t)(dim < 0 ? dim + (rank > 0 ? rank : 1) : dim);
    /* A 0-d index counts as [1]; out is self's shape for a 0-d self. */
    static const int64_t ONE[] = {1};
    const int32_t k = index->view.rank > 0 ? index->view.rank : 1;
    const int64_t *idx_shape = index->view.rank > 0 ? index->view.shape : ONE;
    int64_t want[EMU_MAX_DIMS];
    int32_t want_rank = 0;
    if (rank > 0) {
        for (int32_t i = 0; i < d; ++i) {
            want[want_rank++] = self->view.shape[i];
        }
        for (int32_t i = 0; i < k; ++i) {
            want[want_rank++] = idx_shape[i];
        }
        for (int32_t i = d + 1; i < rank; ++i) {
            want[want_rank++] = self->view.shape[i];
        }
    }
    EMU_TRY(check_out_shape(API, out, want, want_rank,
                            "self's shape with dimension dim replaced by index's shape"));
    return gather_phase1(API, "aclnnGatherV2", self, d, index, rank > 0 ? k : 0, idx_shape, out, true,
                         workspaceSize, executor);
}

aclnnStatus aclnnGatherV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnGatherV2", workspace, workspaceSize, executor, stream);
}

/* ---- IndexSelect ---- */

#define SELECT_COMMON (GATHER_COMMON | EMU_U64 | EMU_U32 | EMU_U16)
static const emu_dtype_table INDEX_SELECT_TYPES = {SELECT_COMMON | EMU_B, SELECT_COMMON, SELECT_COMMON | EMU_B};

/* CANN refuses the private (device-internal) formats. */
static aclnnStatus check_plain_format(const char *api, const char *name, const aclTensor *tensor)
{
    switch (tensor->format) {
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0:
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has the private format %d; expected ND, NCHW, NHWC, HWCN, "
                                                 "NDHWC or NCDHW.", api, name, (int)tensor->format);
    default:
        return ACLNN_SUCCESS;
    }
}

aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnIndexSelectGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "index", index));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &INDEX_SELECT_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    EMU_TRY(emu_check_dtype_in(API, "index", index, INDEX_TYPES, 2));
    EMU_TRY(check_plain_format(API, "self", self));
    EMU_TRY(check_plain_format(API, "index", index));
    EMU_TRY(check_plain_format(API, "out", out));
    const int32_t rank = self->view.rank;
    if (rank == 0 && out->view.rank != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self is 0-d but out has rank %d; expected a 0-d out.", API,
                        (int)out->view.rank);
    }
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_IDX_MAX_RANK));
    EMU_TRY(check_dim(API, dim, rank > 0 ? rank : 1));
    const int32_t d = (int32_t)(dim < 0 ? dim + (rank > 0 ? rank : 1) : dim);
    if (index->view.rank > 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: index has rank %d; expected a 0-d or 1-d index.", API,
                        (int)index->view.rank);
    }
    const int64_t m = emu_view_numel(&index->view);
    const bool empty = emu_view_is_empty(&self->view) || m == 0;
    if (!empty && rank > 0) {
        int64_t want[EMU_MAX_DIMS];
        memcpy(want, self->view.shape, (size_t)rank * sizeof want[0]);
        want[d] = m;
        EMU_TRY(check_out_shape(API, out, want, rank, "self's shape with dimension dim as long as index"));
    }
    /* CANN's result for a 0-d self has as many elements as index, copied into
     * the 0-d out: only one index fits. */
    if (!empty && rank == 0 && m != 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self and out are 0-d but index has %lld elements; expected "
                                                 "one index.", API, (long long)m);
    }
    const int64_t len[] = {m};
    return gather_phase1(API, "aclnnIndexSelect", self, d, index, rank > 0 ? 1 : 0, len, out, false, workspaceSize,
                         executor);
}

aclnnStatus aclnnIndexSelect(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             const aclrtStream stream)
{
    return emu_executor_run("aclnnIndexSelect", workspace, workspaceSize, executor, stream);
}
