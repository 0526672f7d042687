/* Padding, from CANN's op_api sources in hicann/ops-math:
 *   ConstantPadNd   (conversion/pad_v3): pad pairs from the last dimension
 *                   backwards; negative pads crop. out = self's (cropped)
 *                   elements in the interior, value around them: one copy
 *                   and up to two fills per dimension, of boxes that do not
 *                   overlap.
 *   ReflectionPad1d (conversion/mirror_pad): the last dimension mirrored
 *                   without repeating its edge: one copy and two copies of
 *                   reversed views (negative strides). */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_constant_pad_nd.h"
#include "aclnnop/aclnn_reflection_pad1d.h"
#include "ops/ew.h"
#include "ops/movement.h"

/* ---------------------------------------------------------------- ConstantPadNd */

typedef struct {
    int32_t rank;
    int64_t before[EMU_EW_MAX_RANK], after[EMU_EW_MAX_RANK]; /* per dimension, in order */
    double value;
    int64_t ivalue;
} pad_plan;
_Static_assert(sizeof(pad_plan) <= EMU_PLAN_BYTES, "the plan fits the executor");

static int64_t positive(int64_t v)
{
    return v > 0 ? v : 0;
}

static const char *run_pad(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const pad_plan *plan = (const pad_plan *)executor->plan;
    const emu_view *self = &executor->tensors[0], *out = &executor->tensors[1];
    /* The interior: self without its cropped edges, where out has no padding. */
    emu_view src = *self, dst = *out;
    for (int32_t d = 0; d < plan->rank; ++d) {
        const int64_t size = self->shape[d] - positive(-plan->before[d]) - positive(-plan->after[d]);
        emu_mv_narrow(&src, d, positive(-plan->before[d]), size);
        emu_mv_narrow(&dst, d, positive(plan->before[d]), size);
    }
    const char *name = emu_mv_copy(&src, &dst);
    /* Padding along d: the interior range in the dimensions before d, all of
     * those after it. */
    emu_view box = *out;
    for (int32_t d = 0; d < plan->rank; ++d) {
        const int64_t first = positive(plan->before[d]), last = out->shape[d] - positive(plan->after[d]);
        emu_view part = box;
        emu_mv_narrow(&part, d, 0, first);
        emu_mv_fill(&part, plan->value, plan->ivalue);
        part = box;
        emu_mv_narrow(&part, d, last, out->shape[d] - last);
        emu_mv_fill(&part, plan->value, plan->ivalue);
        emu_mv_narrow(&box, d, first, last - first);
    }
    return name;
}

#define PAD_COMMON (EMU_F | EMU_I32 | EMU_H | EMU_I8 | EMU_D | EMU_I16 | EMU_I64 | EMU_U64 | EMU_U32 | EMU_U16 | \
                    EMU_U8 | EMU_BOOL)
static const emu_dtype_table PAD_TYPES = {PAD_COMMON | EMU_B, PAD_COMMON, PAD_COMMON | EMU_B};

aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad, const aclScalar *value,
                                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnConstantPadNdGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "pad", pad));
    EMU_TRY(emu_check_not_null(API, "value", value));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &PAD_TYPES));
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_EW_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "out", out, EMU_EW_MAX_RANK));
    const int32_t rank = self->view.rank;
    if (out->view.rank != rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has rank %d; expected %d, the rank of self.", API,
                        (int)out->view.rank, (int)rank);
    }
    uint64_t count = 0;
    const int64_t *values = emu_int_array_values(pad, &count);
    char list[256];
    if (count % 2 != 0 || count / 2 > (uint64_t)rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: pad is %s with %llu values; expected an even number, at most "
                                                 "%d (two per dimension of self).", API,
                        emu_mv_ints_string(values, count, list, sizeof list), (unsigned long long)count,
                        (int)(2 * rank));
    }
    pad_plan plan = {.rank = rank};
    bool grows = false, zero = false;
    for (int32_t i = 0; i < rank; ++i) {
        /* pad[2i], pad[2i + 1] pad dimension rank - 1 - i. */
        const int32_t d = rank - 1 - i;
        const int64_t before = 2 * (uint64_t)i < count ? values[2 * i] : 0;
        const int64_t after = 2 * (uint64_t)i + 1 < count ? values[2 * i + 1] : 0;
        const int64_t size = self->view.shape[d];
        int64_t least = before < after ? before : after, grown = 0;
        if (__builtin_add_overflow(before, after, &grown) || __builtin_add_overflow(size, grown, &grown) ||
            size + (least < before + after ? least : before + after) < 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: pad gives dimension %d of self (size %lld) the pads %lld "
                                                     "and %lld, a negative size; expected pads that leave a size of "
                                                     "0 or more.", API, (int)d, (long long)size, (long long)before,
                            (long long)after);
        }
        if (grown != out->view.shape[d]) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has size %lld along dimension %d; expected %lld, the "
                                                     "size of self plus the pads %lld and %lld.", API,
                            (long long)out->view.shape[d], (int)d, (long long)grown, (long long)before,
                            (long long)after);
        }
        grows = grows || before > 0 || after > 0;
        zero = zero || (2 * (uint64_t)i < count && grown == 0);
        plan.before[d] = before;
        plan.after[d] = after;
    }
    if (zero && grows) {
        char shape[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s, with no elements along a padded dimension "
                                                 "while pad adds elements; expected a non-empty padded result.", API,
                        emu_shape_string(&out->view, shape, sizeof shape));
    }
    /* The value as CANN converts it into self's dtype. */
    const aclDataType dtype = self->view.dtype;
    plan.value = emu_round_to_dtype(emu_scalar_to_double(value), dtype);
    plan.ivalue = dtype == ACL_BOOL ? emu_scalar_to_double(value) != 0 : emu_scalar_to_int64(value);
    const aclTensor *tensors[] = {self, out};
    const bool empty = emu_view_is_empty(&out->view);
    if (!empty) {
        EMU_TRY(emu_mv_check_memory(API, EMU_MV_SELF_OUT, tensors, 2, false));
    }
    return emu_mv_publish(API, "aclnnConstantPadNd", EMU_MV_SELF_OUT, tensors, 2, &plan, sizeof plan, run_pad, 0, empty,
                          false, workspaceSize, executor);
}
EMU_MV_PHASE2(ConstantPadNd)

/* ---------------------------------------------------------------- ReflectionPad1d */

typedef struct {
    int64_t left, right;
} reflect_plan;

static const char *run_reflect(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const reflect_plan *plan = (const reflect_plan *)executor->plan;
    const emu_view *self = &executor->tensors[0], *out = &executor->tensors[1];
    const int32_t last = self->rank - 1;
    const int64_t width = self->shape[last], stride = self->strides[last];
    emu_view dst = *out;
    emu_mv_narrow(&dst, last, plan->left, width);
    const char *name = emu_mv_copy(self, &dst);
    /* out[left - 1 - k] = self[1 + k] and out[left + width + k] = self[width - 2 - k]. */
    emu_view src = *self;
    src.offset += plan->left * stride;
    src.shape[last] = plan->left;
    src.strides[last] = -stride;
    dst = *out;
    emu_mv_narrow(&dst, last, 0, plan->left);
    emu_mv_copy(&src, &dst);
    src = *self;
    src.offset += (width - 2) * stride;
    src.shape[last] = plan->right;
    src.strides[last] = -stride;
    dst = *out;
    emu_mv_narrow(&dst, last, plan->left + width, plan->right);
    emu_mv_copy(&src, &dst);
    return name;
}

#define REFLECT_COMMON (EMU_F | EMU_I32 | EMU_I64 | EMU_H | EMU_I16 | EMU_D | EMU_I8 | EMU_U8 | EMU_BOOL)
static const emu_dtype_table REFLECT_TYPES = {REFLECT_COMMON | EMU_B, REFLECT_COMMON,
                                              REFLECT_COMMON | EMU_B | EMU_U16 | EMU_U32 | EMU_U64};

aclnnStatus aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnReflectionPad1dGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "padding", padding));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &REFLECT_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &REFLECT_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    const int32_t rank = self->view.rank;
    if (rank < 2 || rank > 3) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has rank %d; expected 2 or 3 dimensions.", API,
                        (int)rank);
    }
    if (out->view.rank != rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has rank %d; expected %d, the rank of self.", API,
                        (int)out->view.rank, (int)rank);
    }
    uint64_t count = 0;
    const int64_t *values = emu_int_array_values(padding, &count);
    char list[256];
    if (count != 2) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: padding is %s; expected 2 values (left, right).", API,
                        emu_mv_ints_string(values, count, list, sizeof list));
    }
    const int64_t width = self->view.shape[rank - 1];
    if (values[0] >= width || values[1] >= width) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: padding is %s; expected values below %lld, the size of the "
                                                 "last dimension of self.", API,
                        emu_mv_ints_string(values, count, list, sizeof list), (long long)width);
    }
    /* CANN's MirrorPad kernel takes no negative padding; nor does aclnn_emu. */
    if (values[0] < 0 || values[1] < 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: padding is %s; expected values of 0 or more.", API,
                        emu_mv_ints_string(values, count, list, sizeof list));
    }
    if (out->view.shape[rank - 1] != width + values[0] + values[1]) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has size %lld in its last dimension; expected %lld, self's "
                                                 "%lld plus the padding.", API, (long long)out->view.shape[rank - 1],
                        (long long)(width + values[0] + values[1]), (long long)width);
    }
    const aclTensor *tensors[] = {self, out};
    const reflect_plan plan = {.left = values[0], .right = values[1]};
    const bool empty = emu_view_is_empty(&self->view) || emu_view_is_empty(&out->view);
    if (empty) {
        /* Only the batch dimension of a 3-D self may be 0. */
        if (rank == 2 || self->view.shape[1] == 0 || self->view.shape[2] == 0) {
            char shape[256];
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has shape %s; expected a 2-D or 3-D tensor whose "
                                                     "dimensions other than a 3-D batch are not 0.", API,
                            emu_shape_string(&self->view, shape, sizeof shape));
        }
    } else {
        emu_view want = self->view;
        want.shape[rank - 1] = out->view.shape[rank - 1];
        if (!emu_view_same_shape(&out->view, &want)) {
            char have[256], expected[256];
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected %s, self padded in its last "
                                                     "dimension.", API, emu_shape_string(&out->view, have, sizeof have),
                            emu_shape_string(&want, expected, sizeof expected));
        }
        EMU_TRY(emu_mv_check_memory(API, EMU_MV_SELF_OUT, tensors, 2, false));
    }
    return emu_mv_publish(API, "aclnnReflectionPad1d", EMU_MV_SELF_OUT, tensors, 2, &plan, sizeof plan, run_reflect, 0,
                          empty, false, workspaceSize, executor);
}
EMU_MV_PHASE2(ReflectionPad1d)
