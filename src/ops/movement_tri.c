/* Triangles and ranges, from CANN's op_api sources in hicann/ops-math:
 *   Tril, InplaceTril (conversion/tril), Triu, InplaceTriu (conversion/triu):
 *       the last two dimensions are matrices; tril keeps (i, j) with
 *       j - i <= diagonal, triu those with j - i >= diagonal, the others
 *       become 0 (all bits clear, as CANN's kernels write it). Each row is
 *       a kept run and zeros: a loop of its own over rows.
 *   Arange (math/range): out[k] = start + k * step over out's elements in
 *       row-major order, computed as CANN's Range kernel does: in fp32 for
 *       FLOAT, FLOAT16 and BF16 results (then rounded to nearest even), in
 *       double for DOUBLE, in int64 for the integer results. */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_tril.h"
#include "aclnnop/aclnn_triu.h"
#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "ops/ew.h"
#include "ops/movement.h"

enum { ROW_GRAIN_ELEMENTS = 32768 };

/* Where row `row` (of the flattened leading dimensions and the row index)
 * of a view starts, in elements from its origin. */
static int64_t row_offset(const emu_view *view, int32_t row_dims, int64_t row)
{
    int64_t at = 0;
    for (int32_t d = row_dims - 1; d >= 0; --d) {
        at += (row % view->shape[d]) * view->strides[d];
        row /= view->shape[d];
    }
    return at;
}

/* ---------------------------------------------------------------- Tril, Triu */

typedef struct {
    bool upper;
    int64_t diagonal;
} tri_plan;

typedef struct {
    const tri_plan *plan;
    const emu_view *self, *out;
    int64_t rows, cols;
} tri_ctx;

/* Copies cols [keep_begin, keep_end) of a row, zeroes the others. */
#define TRI_ROW(T)                                                                                           \
    do {                                                                                                     \
        const T *s = (const T *)src;                                                                         \
        T *o = (T *)dst;                                                                                     \
        for (int64_t j = 0; j < ctx->cols; ++j) {                                                            \
            o[j * out_step] = j >= keep_begin && j < keep_end ? s[j * src_step] : (T)0;                      \
        }                                                                                                    \
    } while (0)

static void tri_rows(void *opaque, size_t begin, size_t end)
{
    const tri_ctx *ctx = opaque;
    const int32_t rank = ctx->out->rank;
    const size_t elem = emu_dtype_size(ctx->out->dtype);
    const int64_t src_step = ctx->self->strides[rank - 1], out_step = ctx->out->strides[rank - 1];
    /* The diagonal clamped so that i + diagonal cannot overflow. */
    int64_t diag = ctx->plan->diagonal;
    diag = diag > ctx->cols ? ctx->cols + 1 : diag < -ctx->rows - 1 ? -ctx->rows - 1 : diag;
    for (size_t r = begin; r < end; ++r) {
        const int64_t i = (int64_t)r % ctx->rows;
        const char *src = (const char *)emu_view_origin(ctx->self) +
                          row_offset(ctx->self, rank - 1, (int64_t)r) * (int64_t)elem;
        char *dst = (char *)emu_view_origin(ctx->out) + row_offset(ctx->out, rank - 1, (int64_t)r) * (int64_t)elem;
        int64_t keep_begin = 0, keep_end = ctx->cols;
        if (ctx->plan->upper) {
            keep_begin = i + diag; /* j - i >= diagonal */
        } else {
            keep_end = i + diag + 1; /* j - i <= diagonal */
        }
        switch (elem) {
        case 1: TRI_ROW(uint8_t); break;
        case 2: TRI_ROW(uint16_t); break;
        case 4: TRI_ROW(uint32_t); break;
        default: TRI_ROW(uint64_t); break;
        }
    }
}

static const char *run_tri(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const tri_plan *plan = (const tri_plan *)executor->plan;
    const emu_view *out = &executor->tensors[1];
    tri_ctx ctx = {.plan = plan, .self = &executor->tensors[0], .out = out, .rows = out->shape[out->rank - 2],
                   .cols = out->shape[out->rank - 1]};
    const int64_t rows = emu_view_numel(out) / ctx.cols;
    const size_t grain = (size_t)(ROW_GRAIN_ELEMENTS / ctx.cols > 0 ? ROW_GRAIN_ELEMENTS / ctx.cols : 1);
    emu_parallel_for((size_t)rows, grain, tri_rows, &ctx);
    return plan->upper ? "movement_triu_rows" : "movement_tril_rows";
}

#define TRI_COMMON (EMU_U8 | EMU_I8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_H | EMU_F | EMU_D | EMU_BOOL | EMU_U16 | \
                    EMU_U32 | EMU_U64)
static const emu_dtype_table TRI_TYPES = EMU_DTYPES(TRI_COMMON | EMU_B);

/* Tril checks out's dtype against the list and a rank of at least 2
 * always; Triu only self's dtype and the rank of a non-empty self. */
static aclnnStatus tri(const char *api, const char *phase2, bool upper, const char *self_name,
                       const char *out_name, const aclTensor *self, int64_t diagonal, const aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    EMU_TRY(emu_check_not_null(api, self_name, self));
    EMU_TRY(emu_check_not_null(api, out_name, out));
    EMU_TRY(emu_check_dtype_table(api, self_name, self->view.dtype, &TRI_TYPES));
    if (!upper) {
        EMU_TRY(emu_check_dtype_table(api, out_name, out->view.dtype, &TRI_TYPES));
    }
    EMU_TRY(emu_check_same_dtype(api, out_name, out, self_name, self));
    const bool empty = emu_view_is_empty(&self->view);
    if (!upper && self->view.rank < 2) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has rank %d; expected at least 2 dimensions (matrices in "
                                                 "the last two).", api, self_name, (int)self->view.rank);
    }
    EMU_TRY(emu_check_max_rank(api, self_name, self, EMU_EW_MAX_RANK));
    if (!upper) {
        EMU_TRY(emu_check_max_rank(api, out_name, out, EMU_EW_MAX_RANK));
    } else if (!empty && self->view.rank < 2) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has rank %d; expected at least 2 dimensions (matrices in "
                                                 "the last two).", api, self_name, (int)self->view.rank);
    }
    EMU_TRY(emu_check_same_shape(api, out_name, out, self_name, self, ACLNN_ERR_PARAM_INVALID));
    const char *names[] = {self_name, out_name};
    const aclTensor *tensors[] = {self, out};
    if (!empty) {
        EMU_TRY(emu_mv_check_memory(api, names, tensors, 2, true));
    }
    const tri_plan plan = {.upper = upper, .diagonal = diagonal};
    static const char *const SELF_OUT[] = {"self", "out"}, *const SELF_REF[] = {"selfRef", "selfRef"};
    return emu_mv_publish(api, phase2, self == out ? SELF_REF : SELF_OUT, tensors, 2, &plan, sizeof plan, run_tri,
                          0, empty, true, workspaceSize, executor);
}

aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tri("aclnnTrilGetWorkspaceSize", "aclnnTril", false, "self", "out", self, diagonal, out, workspaceSize,
               executor);
}

aclnnStatus aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    return tri("aclnnInplaceTrilGetWorkspaceSize", "aclnnInplaceTril", false, "selfRef", "selfRef", selfRef,
               diagonal, selfRef, workspaceSize, executor);
}

aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tri("aclnnTriuGetWorkspaceSize", "aclnnTriu", true, "self", "out", self, diagonal, out, workspaceSize,
               executor);
}

aclnnStatus aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    return tri("aclnnInplaceTriuGetWorkspaceSize", "aclnnInplaceTriu", true, "selfRef", "selfRef", selfRef, diagonal,
               selfRef, workspaceSize, executor);
}
EMU_MV_PHASE2(Tril)
EMU_MV_PHASE2(InplaceTril)
EMU_MV_PHASE2(Triu)
EMU_MV_PHASE2(InplaceTriu)

/* ---------------------------------------------------------------- Arange */

typedef struct {
    double start, step; /* DOUBLE */
    float fstart, fstep; /* FLOAT, FLOAT16, BF16 */
    int64_t istart, istep; /* INT32, INT64 */
} arange_plan;

typedef struct {
    const arange_plan *plan;
    const emu_view *out;
    int64_t cols;
} arange_ctx;

static void arange_rows(void *opaque, size_t begin, size_t end)
{
    const arange_ctx *ctx = opaque;
    const arange_plan *plan = ctx->plan;
    const emu_view *out = ctx->out;
    const int32_t rank = out->rank > 0 ? out->rank : 1;
    const int64_t step = out->rank > 0 ? out->strides[rank - 1] : 1;
    for (size_t r = begin; r < end; ++r) {
        char *row = (char *)emu_view_origin(out) +
                    row_offset(out, rank - 1, (int64_t)r) * (int64_t)emu_dtype_size(out->dtype);
        const int64_t first = (int64_t)r * ctx->cols;
        for (int64_t j = 0; j < ctx->cols; ++j) {
            const int64_t k = first + j;
            const float f = plan->fstart + (float)k * plan->fstep; /* Range's Axpy: two roundings */
            switch (out->dtype) {
            case ACL_FLOAT: ((float *)row)[j * step] = f; break;
            case ACL_FLOAT16: ((uint16_t *)row)[j * step] = emu_f32_to_f16(f); break;
            case ACL_BF16: ((uint16_t *)row)[j * step] = emu_f32_to_bf16(f); break;
            case ACL_DOUBLE: ((double *)row)[j * step] = plan->start + (double)k * plan->step; break;
            case ACL_INT32:
                ((int32_t *)row)[j * step] = (int32_t)(uint32_t)((uint64_t)plan->istart +
                                                                 (uint64_t)k * (uint64_t)plan->istep);
                break;
            default:
                ((int64_t *)row)[j * step] = (int64_t)((uint64_t)plan->istart + (uint64_t)k * (uint64_t)plan->istep);
                break;
            }
        }
    }
}

static const char *run_arange(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const emu_view *out = &executor->tensors[0];
    arange_ctx ctx = {.plan = (const arange_plan *)executor->plan, .out = out,
                      .cols = out->rank > 0 ? out->shape[out->rank - 1] : 1};
    const int64_t rows = emu_view_numel(out) / ctx.cols;
    const size_t grain = (size_t)(ROW_GRAIN_ELEMENTS / ctx.cols > 0 ? ROW_GRAIN_ELEMENTS / ctx.cols : 1);
    emu_parallel_for((size_t)rows, grain, arange_rows, &ctx);
    return "movement_arange_rows";
}

#define ARANGE_IN (EMU_F | EMU_I32 | EMU_I64 | EMU_H | EMU_I16 | EMU_I8 | EMU_U8 | EMU_D | EMU_BOOL)
#define ARANGE_OUT (EMU_H | EMU_F | EMU_D | EMU_I64 | EMU_I32)
static const emu_dtype_table ARANGE_IN_TYPES = EMU_DTYPES(ARANGE_IN | EMU_B);
static const emu_dtype_table ARANGE_OUT_TYPES = EMU_DTYPES(ARANGE_OUT | EMU_B);

/* CANN compares the bounds in the result's kind: float, double or int64. */
static bool steps_toward_end(double start, double end, double step)
{
    if (!(step > 0 || step < 0)) {
        return false;
    }
    return !((step > 0 && start > end) || (step < 0 && start < end));
}

aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnArangeGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "start", start));
    EMU_TRY(emu_check_not_null(API, "end", end));
    EMU_TRY(emu_check_not_null(API, "step", step));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "start", emu_scalar_dtype(start), &ARANGE_IN_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "end", emu_scalar_dtype(end), &ARANGE_IN_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "step", emu_scalar_dtype(step), &ARANGE_IN_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &ARANGE_OUT_TYPES));
    arange_plan plan = {.start = emu_scalar_to_double(start), .step = emu_scalar_to_double(step),
                        .istart = emu_scalar_to_int64(start), .istep = emu_scalar_to_int64(step)};
    plan.fstart = (float)plan.start;
    plan.fstep = (float)plan.step;
    const aclDataType dtype = out->view.dtype;
    bool ok = false;
    if (dtype == ACL_DOUBLE) {
        ok = steps_toward_end(plan.start, emu_scalar_to_double(end), plan.step);
    } else if (dtype == ACL_INT32 || dtype == ACL_INT64) {
        const int64_t e = emu_scalar_to_int64(end);
        ok = plan.istep != 0 && !((plan.istep > 0 && plan.istart > e) || (plan.istep < 0 && plan.istart < e));
    } else {
        ok = steps_toward_end(plan.fstart, (float)emu_scalar_to_double(end), plan.fstep);
    }
    if (!ok) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: start %g, end %g and step %g; expected a non-zero step whose "
                                                 "sign leads from start to end.", API, plan.start,
                        emu_scalar_to_double(end), plan.step);
    }
    const aclTensor *tensors[] = {out};
    static const char *const NAMES[] = {"out"};
    const bool empty = emu_view_is_empty(&out->view);
    if (!empty) {
        EMU_TRY(emu_mv_check_memory(API, NAMES, tensors, 1, false));
    }
    return emu_mv_publish(API, "aclnnArange", NAMES, tensors, 1, &plan, sizeof plan, run_arange, 0, empty, false,
                          workspaceSize, executor);
}
EMU_MV_PHASE2(Arange)
