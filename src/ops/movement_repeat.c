/* Repeat (hicann/ops-math math/tile) and RepeatInterleaveIntWithDim
 * (hicann/ops-nn index/repeat_interleave): one copy from self, read with
 * stride 0 along the repeats, into out split dimension by dimension. */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_repeat.h"
#include "aclnnop/aclnn_repeat_interleave.h"
#include "ops/ew.h"
#include "ops/movement.h"

/* ---------------------------------------------------------------- Repeat */

/* Repeat: each dimension k of the output (self's shape aligned right with
 * the repeats, missing dimensions of size 1) splits into (repeats[k],
 * size[k]); self is read with stride 0 along the repeat halves. The same
 * split along one dimension with the halves swapped is RepeatInterleave. */
typedef struct {
    int32_t count;     /* dimensions of the output */
    bool interleave;   /* RepeatInterleave: (size, repeats) instead of (repeats, size) */
    int32_t dim;       /* RepeatInterleave's dimension */
    int64_t repeats[EMU_EW_MAX_RANK];
} repeat_plan;

/* The views of self and out with each repeated dimension split in two. */
static void repeat_views(const emu_view *self, const emu_view *out, const repeat_plan *plan, emu_view *src,
                         emu_view *dst)
{
    *src = *self;
    *dst = *out;
    const int32_t lead = plan->count - self->rank;
    int32_t rank = 0;
    for (int32_t k = 0; k < plan->count; ++k) {
        const bool own = k >= lead;
        const int64_t size = own ? self->shape[k - lead] : 1, stride = own ? self->strides[k - lead] : 0;
        const int64_t repeats = plan->interleave ? (k == plan->dim ? plan->repeats[0] : 1) : plan->repeats[k];
        const int64_t out_stride = out->strides[k];
        const int first = plan->interleave ? 1 : 0; /* which of the pair is the repeat */
        src->shape[rank + first] = repeats;
        src->strides[rank + first] = 0;
        dst->shape[rank + first] = repeats;
        src->shape[rank + 1 - first] = size;
        src->strides[rank + 1 - first] = stride;
        dst->shape[rank + 1 - first] = size;
        dst->strides[rank] = dst->shape[rank + 1] * out_stride;
        dst->strides[rank + 1] = out_stride;
        rank += 2;
    }
    src->rank = rank;
    dst->rank = rank;
}

static const char *run_repeat(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    emu_view src, dst;
    repeat_views(&executor->tensors[0], &executor->tensors[1], (const repeat_plan *)executor->plan, &src, &dst);
    return emu_mv_copy(&src, &dst);
}

static const emu_dtype_table REPEAT_TYPES = {
    EMU_F | EMU_H | EMU_D | EMU_U8 | EMU_I8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_BOOL | EMU_B | EMU_U32 | EMU_U64 |
        EMU_U16,
    EMU_F | EMU_H | EMU_D | EMU_U8 | EMU_I8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_BOOL | EMU_B | EMU_U32 | EMU_U64,
    EMU_F | EMU_H | EMU_D | EMU_U8 | EMU_I8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_BOOL | EMU_B | EMU_U32 | EMU_U64 |
        EMU_U16};

aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self, const aclIntArray *repeats, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnRepeatGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "repeats", repeats));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_mv_check_phase1_outputs(API, workspaceSize, executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &REPEAT_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    uint64_t count = 0;
    const int64_t *values = emu_int_array_values(repeats, &count);
    char list[256];
    if (count < (uint64_t)self->view.rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: repeats is %s with %llu values; expected at least %d, the rank "
                                                 "of self.", API, emu_mv_ints_string(values, count, list, sizeof list),
                        (unsigned long long)count, (int)self->view.rank);
    }
    bool zero = false;
    for (uint64_t i = 0; i < count; ++i) {
        if (values[i] < 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: repeats[%llu] is %lld; expected repeats of 0 or more.", API,
                            (unsigned long long)i, (long long)values[i]);
        }
        zero = zero || values[i] == 0;
    }
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_EW_MAX_RANK));
    if (count > EMU_EW_MAX_RANK) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: repeats has %llu values; expected at most %d.", API,
                        (unsigned long long)count, EMU_EW_MAX_RANK);
    }
    const aclTensor *tensors[] = {self, out};
    repeat_plan plan = {.count = (int32_t)count};
    const bool empty = emu_view_is_empty(&self->view) || emu_view_is_empty(&out->view) || zero;
    if (!empty) {
        emu_view want = self->view;
        want.rank = plan.count;
        const int32_t lead = plan.count - self->view.rank;
        for (int32_t k = 0; k < plan.count; ++k) {
            plan.repeats[k] = values[k];
            const int64_t size = k >= lead ? self->view.shape[k - lead] : 1;
            if (__builtin_mul_overflow(size, values[k], &want.shape[k])) {
                want.shape[k] = -1; /* never a tensor's size: reported below */
            }
        }
        EMU_TRY(emu_mv_check_out_shape(API, out, &want, "self's shape times repeats"));
        EMU_TRY(emu_mv_check_memory(API, EMU_MV_SELF_OUT, tensors, 2, false));
    }
    return emu_mv_publish(API, "aclnnRepeat", EMU_MV_SELF_OUT, tensors, 2, &plan, sizeof plan, run_repeat, 0, empty, false,
                          workspaceSize, executor);
}
EMU_MV_PHASE2(Repeat)

/* ---------------------------------------------------------------- RepeatInterleaveIntWithDim */

static const emu_dtype_table INTERLEAVE_TYPES = {
    EMU_U8 | EMU_I8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_BOOL | EMU_H | EMU_F | EMU_B,
    EMU_U8 | EMU_I8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_BOOL | EMU_H | EMU_F,
    EMU_U8 | EMU_I8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_BOOL | EMU_H | EMU_F | EMU_B | EMU_U16 | EMU_U32 | EMU_U64};

aclnnStatus aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(const aclTensor *self, int64_t repeats, int64_t dim,
                                                            int64_t outputSize, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnRepeatInterleaveIntWithDimGetWorkspaceSize";
    EMU_TRY(emu_mv_check_phase1_outputs(API, workspaceSize, executor));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &INTERLEAVE_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    if (repeats < 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: repeats is %lld; expected 0 or more.", API, (long long)repeats);
    }
    const int32_t rank = self->view.rank;
    if (rank == 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has rank 0; expected a tensor with dimension dim.", API);
    }
    if (dim < -rank || dim >= rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of self in [%d, %d].", API,
                        (long long)dim, (int)-rank, (int)(rank - 1));
    }
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_EW_MAX_RANK));
    const aclTensor *tensors[] = {self, out};
    repeat_plan plan = {.count = rank, .interleave = true, .dim = (int32_t)(dim < 0 ? dim + rank : dim),
                        .repeats = {repeats}};
    /* CANN returns before anything else for an empty self or outputSize 0. */
    const bool empty = emu_view_is_empty(&self->view) || outputSize == 0;
    if (!empty) {
        int64_t total = 0;
        if (__builtin_mul_overflow(self->view.shape[plan.dim], repeats, &total) || outputSize != total) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize is %lld; expected %lld, the size of self along "
                                                     "dim times repeats.", API, (long long)outputSize,
                            (long long)total);
        }
        emu_view want = self->view;
        want.shape[plan.dim] = outputSize;
        EMU_TRY(emu_mv_check_out_shape(API, out, &want, "self's shape with outputSize along dim"));
        EMU_TRY(emu_mv_check_memory(API, EMU_MV_SELF_OUT, tensors, 2, false));
    }
    return emu_mv_publish(API, "aclnnRepeatInterleaveIntWithDim", EMU_MV_SELF_OUT, tensors, 2, &plan, sizeof plan,
                          run_repeat, 0, empty || emu_view_is_empty(&out->view), false, workspaceSize, executor);
}
EMU_MV_PHASE2(RepeatInterleaveIntWithDim)
