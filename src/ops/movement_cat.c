/* Cat (hicann/ops-math conversion/concat_d) and Roll (conversion/roll):
 * several copies between views of the inputs and of the output. */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_roll.h"
#include "ops/ew.h"
#include "ops/movement.h"

/* ---------------------------------------------------------------- Cat */

/* The inputs with elements take the executor's slots (all but the last,
 * the output's): at most this many. */
enum { CAT_MAX_INPUTS = EMU_MAX_OP_TENSORS - 1 };

typedef struct {
    int32_t dim;
    int32_t count;
    int64_t offset[CAT_MAX_INPUTS]; /* where input k starts along dim in out */
    char labels[EMU_MAX_OP_TENSORS][24];
    const char *names[EMU_MAX_OP_TENSORS]; /* into labels, for phase-2 messages */
} cat_plan;
_Static_assert(sizeof(cat_plan) <= EMU_PLAN_BYTES, "the plan fits the executor");

static const char *run_cat(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const cat_plan *plan = (const cat_plan *)executor->plan;
    const char *name = "";
    for (int32_t k = 0; k < plan->count; ++k) {
        emu_view dst = executor->tensors[plan->count];
        emu_mv_narrow(&dst, plan->dim, plan->offset[k], executor->tensors[k].shape[plan->dim]);
        name = emu_mv_copy(&executor->tensors[k], &dst);
    }
    return name;
}

/* A2/A3; the training series without BF16; Ascend950 adds the unsigned types. */
#define CAT_COMMON (EMU_F | EMU_I32 | EMU_I64 | EMU_H | EMU_I16 | EMU_I8 | EMU_U8 | EMU_D | EMU_BOOL)
static const emu_dtype_table CAT_TYPES = {CAT_COMMON | EMU_B, CAT_COMMON,
                                          CAT_COMMON | EMU_B | EMU_U16 | EMU_U32 | EMU_U64};

static const char *input_name(uint64_t index, char *buf, size_t size)
{
    snprintf(buf, size, "tensors[%llu]", (unsigned long long)index);
    return buf;
}

/* CANN's checks after dropping the 1-D tensors of shape [0] (as PyTorch's
 * legacy cat does): dtypes, their promotion, ranks and shapes. */
static aclnnStatus check_cat(const char *api, const aclTensor *const *list, const uint64_t *index, uint64_t count,
                             int64_t dim, const aclTensor *out, int32_t *real_dim)
{
    char name[32];
    for (uint64_t i = 0; i < count; ++i) {
        EMU_TRY(emu_check_dtype_table(api, input_name(index[i], name, sizeof name), list[i]->view.dtype, &CAT_TYPES));
    }
    EMU_TRY(emu_check_dtype_table(api, "out", out->view.dtype, &CAT_TYPES));
    aclDataType promoted = list[0]->view.dtype;
    for (uint64_t i = 1; i < count; ++i) {
        const aclDataType next = emu_promote_types(list[i]->view.dtype, promoted);
        if (next == ACL_DT_UNDEFINED) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s, which has no common dtype with %s; expected "
                                                     "dtypes that promote together.", api,
                            input_name(index[i], name, sizeof name), emu_dtype_name(list[i]->view.dtype),
                            emu_dtype_name(promoted));
        }
        promoted = next;
    }
    if (!emu_can_cast(promoted, out->view.dtype)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has dtype %s, to which the inputs' common dtype %s cannot "
                                                 "be cast; expected a dtype it casts to.", api,
                        emu_dtype_name(out->view.dtype), emu_dtype_name(promoted));
    }
    EMU_TRY(emu_check_max_rank(api, input_name(index[0], name, sizeof name), list[0], EMU_EW_MAX_RANK));
    const int32_t rank = list[0]->view.rank;
    if (dim < -rank || dim >= rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of %s in [%d, %d].", api,
                        (long long)dim, input_name(index[0], name, sizeof name), (int)-rank, (int)(rank - 1));
    }
    *real_dim = (int32_t)(dim < 0 ? dim + rank : dim);
    char have[256], want[256], first[32];
    for (uint64_t i = 1; i < count; ++i) {
        const emu_view *view = &list[i]->view;
        bool same = view->rank == rank;
        for (int32_t d = 0; d < rank && same; ++d) {
            same = d == *real_dim || view->shape[d] == list[0]->view.shape[d];
        }
        if (!same) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s; expected the shape %s of %s except along "
                                                     "dim %d.", api, input_name(index[i], name, sizeof name),
                            emu_shape_string(view, have, sizeof have),
                            emu_shape_string(&list[0]->view, want, sizeof want),
                            input_name(index[0], first, sizeof first), (int)*real_dim);
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnCatGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "tensors", tensors));
    uint64_t size = 0;
    const aclTensor *const *all = emu_tensor_list_items(tensors, &size);
    char name[32];
    /* The tensors left once the 1-D empty ones are dropped, with their indices. */
    enum { CAT_LIST_MAX = 1024 };
    const aclTensor *list[CAT_LIST_MAX];
    uint64_t index[CAT_LIST_MAX];
    uint64_t count = 0;
    for (uint64_t i = 0; i < size; ++i) {
        EMU_TRY(emu_check_not_null(API, input_name(i, name, sizeof name), all[i]));
        if (all[i]->view.rank == 1 && all[i]->view.shape[0] == 0) {
            continue;
        }
        if (count == CAT_LIST_MAX) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensors has %llu tensors; expected at most %d.", API,
                            (unsigned long long)size, CAT_LIST_MAX);
        }
        list[count] = all[i];
        index[count++] = i;
    }
    if (count == 0) { /* CANN returns at once: nothing to concatenate */
        return emu_mv_publish(API, "aclnnCat", NULL, NULL, 0, NULL, 0, NULL, 0, true, false, workspaceSize,
                              executor);
    }
    EMU_TRY(emu_check_not_null(API, "out", out));
    cat_plan plan = {.count = 0};
    EMU_TRY(check_cat(API, list, index, count, dim, out, &plan.dim));
    /* Only the inputs with elements are copied (and bound). */
    const aclTensor *bound[EMU_MAX_OP_TENSORS];
    emu_view want = list[0]->view;
    want.shape[plan.dim] = 0;
    for (uint64_t i = 0; i < count; ++i) {
        const int64_t along = list[i]->view.shape[plan.dim];
        if (!emu_view_is_empty(&list[i]->view)) {
            if (plan.count == CAT_MAX_INPUTS) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensors has more than %d tensors with elements; "
                                                         "aclnn_emu's executor holds at most %d inputs.", API,
                                CAT_MAX_INPUTS, CAT_MAX_INPUTS);
            }
            plan.offset[plan.count] = want.shape[plan.dim];
            input_name(index[i], plan.labels[plan.count], sizeof plan.labels[0]);
            bound[plan.count++] = list[i];
        }
        if (__builtin_add_overflow(want.shape[plan.dim], along, &want.shape[plan.dim])) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the tensors' sizes along dim %d add up past 2^63; expected "
                                                     "a result that can exist.", API, (int)plan.dim);
        }
    }
    snprintf(plan.labels[plan.count], sizeof plan.labels[0], "out");
    bound[plan.count] = out;
    for (int32_t k = 0; k <= plan.count; ++k) {
        plan.names[k] = plan.labels[k];
    }
    if (plan.count > 0) {
        char have[256], expected[256];
        if (!emu_view_same_shape(&out->view, &want)) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected %s, the tensors concatenated "
                                                     "along dim %d.", API,
                            emu_shape_string(&out->view, have, sizeof have),
                            emu_shape_string(&want, expected, sizeof expected), (int)plan.dim);
        }
        EMU_TRY(emu_mv_check_memory(API, plan.names, bound, plan.count + 1, false));
    }
    EMU_TRY(emu_mv_publish(API, "aclnnCat", NULL, bound, plan.count + 1, &plan, sizeof plan, run_cat, 0,
                           plan.count == 0 || emu_view_is_empty(&out->view), false, workspaceSize, executor));
    cat_plan *stored = (cat_plan *)(*executor)->plan;
    for (int32_t k = 0; k <= stored->count; ++k) {
        stored->names[k] = stored->labels[k];
    }
    emu_executor_name_tensors(*executor, stored->names);
    return ACLNN_SUCCESS;
}
EMU_MV_PHASE2(Cat)

/* ---------------------------------------------------------------- Roll */

/* out[i] = x[i - shift] along each rolled dimension (indices modulo its
 * size): for k rolled dimensions, 2^k copies of boxes. With no dims the
 * flattened tensor rolls: two copies of flat ranges, through the workspace
 * where x or out is not contiguous. */
typedef struct {
    int32_t count;                   /* rolled dimensions (flat: 0) */
    int32_t dims[EMU_EW_MAX_RANK];
    int64_t shifts[EMU_EW_MAX_RANK]; /* in [1, size) */
    bool flat;
    int64_t flat_shift;              /* in [0, numel) */
    int64_t staged_bytes;            /* workspace offset of the staged output */
} roll_plan;
_Static_assert(sizeof(roll_plan) <= EMU_PLAN_BYTES, "the plan fits the executor");

static emu_view flat_view(const emu_view *like, void *data, int64_t numel)
{
    emu_view view = *like;
    view.rank = 1;
    view.shape[0] = numel;
    view.strides[0] = 1;
    view.offset = 0;
    view.data = data;
    return view;
}

static emu_view dense_view(const emu_view *like, void *data)
{
    emu_view view = *like;
    view.offset = 0;
    view.data = data;
    int64_t stride = 1;
    for (int32_t d = view.rank; d-- > 0;) {
        view.strides[d] = stride;
        stride *= view.shape[d];
    }
    return view;
}

static const char *roll_flat(const emu_view *x, const emu_view *out, const roll_plan *plan, char *workspace)
{
    const int64_t numel = emu_view_numel(x);
    emu_view src = flat_view(x, emu_view_origin(x), numel);
    if (!emu_view_is_contiguous(x)) {
        const emu_view dense = dense_view(x, workspace);
        emu_mv_copy(x, &dense);
        src.data = workspace;
    }
    emu_view dst = flat_view(out, emu_view_origin(out), numel);
    if (!emu_view_is_contiguous(out)) {
        dst.data = workspace + plan->staged_bytes;
    }
    const int64_t s = plan->flat_shift;
    emu_view from = src, to = dst;
    emu_mv_narrow(&from, 0, 0, numel - s);
    emu_mv_narrow(&to, 0, s, numel - s);
    const char *name = emu_mv_copy(&from, &to);
    from = src;
    to = dst;
    emu_mv_narrow(&from, 0, numel - s, s);
    emu_mv_narrow(&to, 0, 0, s);
    emu_mv_copy(&from, &to);
    if (!emu_view_is_contiguous(out)) {
        const emu_view staged = dense_view(out, dst.data);
        name = emu_mv_copy(&staged, out);
    }
    return name;
}

static const char *run_roll(aclOpExecutor *executor, void *workspace)
{
    const roll_plan *plan = (const roll_plan *)executor->plan;
    const emu_view *x = &executor->tensors[0], *out = &executor->tensors[1];
    if (plan->flat) {
        return roll_flat(x, out, plan, workspace);
    }
    const char *name = "";
    for (uint32_t mask = 0; mask < (1u << plan->count); ++mask) {
        emu_view src = *x, dst = *out;
        for (int32_t k = 0; k < plan->count; ++k) {
            const int32_t d = plan->dims[k];
            const int64_t n = x->shape[d], s = plan->shifts[k];
            if (mask & (1u << k)) { /* out[0, s) = x[n - s, n) */
                emu_mv_narrow(&src, d, n - s, s);
                emu_mv_narrow(&dst, d, 0, s);
            } else { /* out[s, n) = x[0, n - s) */
                emu_mv_narrow(&src, d, 0, n - s);
                emu_mv_narrow(&dst, d, s, n - s);
            }
        }
        name = emu_mv_copy(&src, &dst);
    }
    return name;
}

#define ROLL_COMMON (EMU_F | EMU_H | EMU_I8 | EMU_U8 | EMU_I32 | EMU_U32 | EMU_BOOL | EMU_I64)
static const emu_dtype_table ROLL_TYPES = {ROLL_COMMON | EMU_B | EMU_I16, ROLL_COMMON, ROLL_COMMON | EMU_B | EMU_I16};
static const char *const X_OUT[] = {"x", "out"};

static int64_t wrap_shift(int64_t shift, int64_t size)
{
    const int64_t s = shift % size;
    return s < 0 ? s + size : s;
}

aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnRollGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "x", x));
    EMU_TRY(emu_check_not_null(API, "shifts", shifts));
    EMU_TRY(emu_check_not_null(API, "dims", dims));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_dtype_table(API, "x", x->view.dtype, &ROLL_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &ROLL_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "x", x));
    EMU_TRY(emu_check_same_shape(API, "out", out, "x", x, ACLNN_ERR_PARAM_INVALID));
    uint64_t shift_count = 0, dim_count = 0;
    const int64_t *shift_values = emu_int_array_values(shifts, &shift_count);
    const int64_t *dim_values = emu_int_array_values(dims, &dim_count);
    if (dim_count != 0 && shift_count != dim_count) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: shifts has %llu values and dims %llu; expected as many shifts "
                                                 "as dims.", API, (unsigned long long)shift_count,
                        (unsigned long long)dim_count);
    }
    if (dim_count == 0 && shift_count != 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: shifts has %llu values and dims none; expected one shift for "
                                                 "the flattened tensor.", API, (unsigned long long)shift_count);
    }
    EMU_TRY(emu_check_max_rank(API, "x", x, EMU_EW_MAX_RANK));
    const aclTensor *tensors[] = {x, out};
    roll_plan plan = {.count = 0};
    const int32_t rank = x->view.rank;
    const bool empty = emu_view_is_empty(&x->view);
    uint64_t workspace = 0;
    if (!empty) {
        /* A 0-d x has no dims (checked above: dims is empty then): a copy. */
        int64_t total[EMU_EW_MAX_RANK] = {0};
        bool rolled[EMU_EW_MAX_RANK] = {false};
        for (uint64_t i = 0; i < dim_count; ++i) {
            if (dim_values[i] < -rank || dim_values[i] >= rank) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dims[%llu] is %lld; expected a dimension of x in "
                                                         "[%d, %d].", API, (unsigned long long)i,
                                (long long)dim_values[i], (int)-rank, (int)(rank - 1));
            }
            const int32_t d = (int32_t)(dim_values[i] < 0 ? dim_values[i] + rank : dim_values[i]);
            /* Repeated dims roll again: their shifts add (modulo the size). */
            total[d] = wrap_shift(total[d] + wrap_shift(shift_values[i], x->view.shape[d]), x->view.shape[d]);
            rolled[d] = true;
        }
        for (int32_t d = 0; d < rank; ++d) {
            if (rolled[d] && total[d] != 0) {
                plan.dims[plan.count] = d;
                plan.shifts[plan.count++] = total[d];
            }
        }
        if (dim_count == 0 && rank > 0) {
            const int64_t numel = emu_view_numel(&x->view);
            plan.flat = true;
            plan.flat_shift = wrap_shift(shift_values[0], numel);
            const uint64_t bytes = (uint64_t)numel * emu_dtype_size(x->view.dtype);
            const uint64_t staged = emu_view_is_contiguous(&x->view) ? 0 : (bytes + 63) / 64 * 64;
            plan.staged_bytes = (int64_t)staged;
            workspace = staged + (emu_view_is_contiguous(&out->view) ? 0 : bytes);
        }
        EMU_TRY(emu_mv_check_memory(API, X_OUT, tensors, 2, false));
    }
    return emu_mv_publish(API, "aclnnRoll", X_OUT, tensors, 2, &plan, sizeof plan, run_roll, workspace, empty, false,
                          workspaceSize, executor);
}
EMU_MV_PHASE2(Roll)
