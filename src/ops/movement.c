/* Data movement: the shared pieces (views, copy and fill loops, executor)
 * and the operators that are one copy over a view, from CANN's op_api
 * sources in hicann/ops-math: Permute (conversion/transpose) and Slice
 * (conversion/slice). */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_slice.h"
#include "ops/ew.h"
#include "ops/movement.h"

/* ---------------------------------------------------------------- shared */

const char *emu_mv_ints_string(const int64_t *values, uint64_t count, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (uint64_t i = 0; i < count && used < size; ++i) {
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)values[i]);
    }
    if (used < size) {
        snprintf(buf + used, size - used, "]");
    }
    return buf;
}

void emu_mv_narrow(emu_view *view, int32_t dim, int64_t begin, int64_t size)
{
    view->offset += begin * view->strides[dim];
    view->shape[dim] = size;
}

static emu_ew_compute compute_of(aclDataType dtype)
{
    if (dtype == ACL_DOUBLE) {
        return EMU_EW_COMPUTE_F64;
    }
    return emu_dtype_is_float(dtype) ? EMU_EW_COMPUTE_F32 : EMU_EW_COMPUTE_I64;
}

/* Runs `plan` (operands: views[0..operands), the output last) over the
 * dimensions of `shape`/`strides` after dropping size-1 dimensions and
 * merging those dense together in every operand. More than
 * EMU_EW_MAX_RANK dimensions left: the outer ones are looped here. */
static const char *run_views(emu_ew_plan *plan, const emu_view *views, int operands)
{
    const emu_view *out = &views[operands - 1];
    int32_t rank = 0;
    int64_t shape[EMU_MAX_DIMS], strides[2][EMU_MAX_DIMS];
    for (int32_t d = 0; d < out->rank; ++d) {
        if (out->shape[d] == 0) {
            return "";
        }
        if (out->shape[d] == 1) {
            continue;
        }
        bool merge = rank > 0;
        for (int k = 0; k < operands && merge; ++k) {
            merge = strides[k][rank - 1] == views[k].strides[d] * out->shape[d];
        }
        if (merge) {
            shape[rank - 1] *= out->shape[d];
            for (int k = 0; k < operands; ++k) {
                strides[k][rank - 1] = views[k].strides[d];
            }
            continue;
        }
        shape[rank] = out->shape[d];
        for (int k = 0; k < operands; ++k) {
            strides[k][rank] = views[k].strides[d];
        }
        ++rank;
    }
    const int32_t outer = rank > EMU_EW_MAX_RANK ? rank - EMU_EW_MAX_RANK : 0;
    plan->rank = rank - outer;
    for (int32_t d = 0; d < plan->rank; ++d) {
        plan->shape[d] = shape[outer + d];
        for (int k = 0; k < operands; ++k) {
            plan->strides[k][d] = strides[k][outer + d];
        }
    }
    for (int k = 0; k < operands; ++k) {
        plan->slot[k] = k;
    }
    if (outer == 0) {
        return emu_ew_execute(plan, views);
    }
    int64_t count = 1;
    for (int32_t d = 0; d < outer; ++d) {
        count *= shape[d];
    }
    emu_view moved[2] = {views[0], views[operands - 1]};
    const char *name = "";
    for (int64_t index = 0; index < count; ++index) {
        int64_t rest = index;
        for (int k = 0; k < operands; ++k) {
            moved[k].offset = views[k].offset;
        }
        for (int32_t d = outer - 1; d >= 0; --d) {
            const int64_t i = rest % shape[d];
            rest /= shape[d];
            for (int k = 0; k < operands; ++k) {
                moved[k].offset += i * strides[k][d];
            }
        }
        name = emu_ew_execute(plan, moved);
    }
    return name;
}

const char *emu_mv_copy(const emu_view *src, const emu_view *dst)
{
    emu_ew_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.kernel = EMU_EWK_identity;
    plan.input_count = 1;
    if (src->dtype == dst->dtype) {
        plan.compute = EMU_EW_COMPUTE_RAW;
    } else {
        const aclDataType common = emu_promote_types(src->dtype, dst->dtype);
        plan.compute = common == ACL_DT_UNDEFINED ? EMU_EW_COMPUTE_F64 : compute_of(common);
    }
    const emu_view views[2] = {*src, *dst};
    return run_views(&plan, views, 2);
}

const char *emu_mv_fill(const emu_view *dst, double value, int64_t ivalue)
{
    emu_ew_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.kernel = EMU_EWK_fill;
    plan.input_count = 0;
    plan.compute = compute_of(dst->dtype);
    plan.params.d[0] = value;
    plan.params.f[0] = (float)value;
    plan.params.i[0] = ivalue;
    return run_views(&plan, dst, 1);
}

aclnnStatus emu_mv_check_memory(const char *api, const char *const *names, const aclTensor *const *tensors,
                                int count, bool in_place)
{
    for (int i = 0; i < count; ++i) {
        EMU_TRY(emu_check_has_data(api, names[i], tensors[i]));
        EMU_TRY(emu_check_device_memory(api, names[i], tensors[i]));
    }
    const int out = count - 1;
    EMU_TRY(emu_check_output_not_self_overlapping(api, names[out], tensors[out]));
    if (!in_place) {
        return emu_check_outputs_separate(api, names, tensors, out, count);
    }
    for (int i = 0; i < out; ++i) {
        EMU_TRY(emu_check_exact_alias(api, names[out], tensors[out], names[i], tensors[i]));
    }
    return ACLNN_SUCCESS;
}

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

aclnnStatus emu_mv_publish(const char *api, const char *phase2, const char *const *names,
                           const aclTensor *const *tensors, int count, const void *plan, size_t plan_size,
                           emu_run_fn run, uint64_t workspace, bool empty, bool in_place, uint64_t *workspaceSize,
                           aclOpExecutor **executor)
{
    aclOpExecutor *planned = emu_executor_create(api, phase2, count > 0 ? count - 1 : 0, count > 0 ? 1 : 0);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    if (in_place) {
        emu_executor_allow_aliasing(planned);
    }
    if (names != NULL) {
        emu_executor_name_tensors(planned, names);
    }
    for (int i = 0; i < count; ++i) {
        emu_executor_bind(planned, i, tensors[i]);
        if (empty) {
            emu_executor_mark_unused(planned, i);
        }
    }
    if (plan_size > 0) {
        memcpy(planned->plan, plan, plan_size);
    }
    return emu_executor_publish(planned, empty ? run_nothing : run, empty ? 0 : workspace, workspaceSize, executor);
}

aclnnStatus emu_mv_check_phase1_outputs(const char *api, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspaceSize));
    return emu_check_not_null(api, "executor", executor);
}

aclnnStatus emu_mv_check_out_shape(const char *api, const aclTensor *out, const emu_view *want, const char *what)
{
    if (!emu_view_same_shape(&out->view, want)) {
        char have[256], expected[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected %s, %s.", api,
                        emu_shape_string(&out->view, have, sizeof have),
                        emu_shape_string(want, expected, sizeof expected), what);
    }
    return ACLNN_SUCCESS;
}

#define ALL_INTS (EMU_I8 | EMU_U8 | EMU_I16 | EMU_U16 | EMU_I32 | EMU_U32 | EMU_I64 | EMU_U64)

/* ---------------------------------------------------------------- Permute */

typedef struct {
    int32_t rank;
    int32_t perm[EMU_EW_MAX_RANK];
} permute_plan;

static emu_view permuted(const emu_view *self, const permute_plan *plan)
{
    emu_view view = *self;
    for (int32_t i = 0; i < plan->rank; ++i) {
        view.shape[i] = self->shape[plan->perm[i]];
        view.strides[i] = self->strides[plan->perm[i]];
    }
    return view;
}

static const char *run_permute(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const emu_view view = permuted(&executor->tensors[0], (const permute_plan *)executor->plan);
    return emu_mv_copy(&view, &executor->tensors[1]);
}

static const emu_dtype_table PERMUTE_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_D | ALL_INTS | EMU_BOOL);
const char *const EMU_MV_SELF_OUT[] = {"self", "out"};

aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnPermuteGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "dims", dims));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_mv_check_phase1_outputs(API, workspaceSize, executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &PERMUTE_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &PERMUTE_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    const int32_t rank = self->view.rank;
    if (out->view.rank != rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has rank %d; expected %d, the rank of self.", API,
                        (int)out->view.rank, (int)rank);
    }
    uint64_t count = 0;
    const int64_t *values = emu_int_array_values(dims, &count);
    char list[256];
    if (count != (uint64_t)rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dims is %s with %llu values; expected %d, one per dimension of "
                                                 "self.", API, emu_mv_ints_string(values, count, list, sizeof list),
                        (unsigned long long)count, (int)rank);
    }
    for (uint64_t i = 0; i < count; ++i) {
        for (uint64_t j = 0; j < i; ++j) {
            if (values[i] == values[j]) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dims is %s, which repeats %lld; expected each "
                                                         "dimension once.", API,
                                emu_mv_ints_string(values, count, list, sizeof list), (long long)values[i]);
            }
        }
    }
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_EW_MAX_RANK));
    permute_plan plan = {.rank = rank};
    bool seen[EMU_EW_MAX_RANK] = {false};
    for (int32_t i = 0; i < rank; ++i) {
        if (values[i] < -rank || values[i] >= rank) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dims[%d] is %lld; expected a dimension of self in [%d, %d].",
                            API, (int)i, (long long)values[i], (int)-rank, (int)(rank - 1));
        }
        plan.perm[i] = (int32_t)(values[i] < 0 ? values[i] + rank : values[i]);
        if (seen[plan.perm[i]]) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dims is %s, which names dimension %d twice; expected "
                                                     "each dimension once.", API,
                            emu_mv_ints_string(values, count, list, sizeof list), (int)plan.perm[i]);
        }
        seen[plan.perm[i]] = true;
    }
    const emu_view want = permuted(&self->view, &plan);
    EMU_TRY(emu_mv_check_out_shape(API, out, &want, "self's shape permuted by dims"));
    const aclTensor *tensors[] = {self, out};
    EMU_TRY(emu_mv_check_memory(API, EMU_MV_SELF_OUT, tensors, 2, false));
    return emu_mv_publish(API, "aclnnPermute", EMU_MV_SELF_OUT, tensors, 2, &plan, sizeof plan, run_permute, 0,
                          emu_view_is_empty(&self->view), false, workspaceSize, executor);
}
EMU_MV_PHASE2(Permute)

/* ---------------------------------------------------------------- Slice */

typedef struct {
    int32_t dim;
    int64_t start, count, step;
} slice_plan;

static emu_view sliced(const emu_view *self, const slice_plan *plan)
{
    emu_view view = *self;
    emu_mv_narrow(&view, plan->dim, plan->start, plan->count);
    view.strides[plan->dim] *= plan->step;
    return view;
}

static const char *run_slice(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const emu_view view = sliced(&executor->tensors[0], (const slice_plan *)executor->plan);
    return emu_mv_copy(&view, &executor->tensors[1]);
}

static const emu_dtype_table SLICE_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_I64 | EMU_I8 | EMU_I32 | EMU_U8 |
                                                      EMU_BOOL);

aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start, int64_t end, int64_t step,
                                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnSliceGetWorkspaceSize";
    EMU_TRY(emu_mv_check_phase1_outputs(API, workspaceSize, executor));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &SLICE_TYPES));
    const int32_t rank = self->view.rank;
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_EW_MAX_RANK));
    if (rank < 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has rank 0; expected at least 1 dimension.", API);
    }
    if (dim < -rank || dim >= rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of self in [%d, %d].", API,
                        (long long)dim, (int)-rank, (int)(rank - 1));
    }
    if (step <= 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: step is %lld; expected a positive step.", API, (long long)step);
    }
    /* Negative bounds count from the end; both are clamped into [0, size]. */
    slice_plan plan = {.dim = (int32_t)(dim < 0 ? dim + rank : dim), .step = step};
    const int64_t size = self->view.shape[plan.dim];
    start = start < 0 ? start + size : start;
    end = end < 0 ? end + size : end;
    start = start < 0 ? 0 : start > size ? size : start;
    end = end < start ? start : end > size ? size : end;
    plan.start = start;
    plan.count = end > start ? (end - start - 1) / step + 1 : 0;
    const emu_view want = sliced(&self->view, &plan);
    EMU_TRY(emu_mv_check_out_shape(API, out, &want, "self sliced along dim"));
    const aclTensor *tensors[] = {self, out};
    EMU_TRY(emu_mv_check_memory(API, EMU_MV_SELF_OUT, tensors, 2, false));
    return emu_mv_publish(API, "aclnnSlice", EMU_MV_SELF_OUT, tensors, 2, &plan, sizeof plan, run_slice, 0,
                          emu_view_is_empty(&self->view) || emu_view_is_empty(&out->view), false, workspaceSize,
                          executor);
}
EMU_MV_PHASE2(Slice)
