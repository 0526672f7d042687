/* aclnnSiluBackward (hicann/ops-nn activation/silu_grad, aclnn_silu_backward.cpp):
 * declared on the element-wise layer, whose driver runs its checks, the
 * memory and aliasing checks, and names its tensors; its op_api checks
 * dtypes and shapes in an order of its own (null, dtype list, mixed dtypes,
 * BF16 on the training series, the inputs' ranks, shapes), kept here as the
 * definition's validate rule, with the product rules: Atlas A2/A3 need
 * equal dtypes and shapes; Ascend950 also broadcasts gradOutput with self
 * and accepts mixed input dtypes when gradInput is FLOAT. Run by SiLU's
 * tuned kernels (src/ops/silu_plan.c). */
#include "aclnnop/aclnn_silu_backward.h"
#include "ops/ew.h"
#include "ops/silu_plan.h"

static const aclDataType SUPPORTED[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
enum { SILU_BACKWARD_MAX_RANK = 8 };

static aclnnStatus check_dtypes(const char *api, const aclTensor *gradOutput, const aclTensor *self,
                                const aclTensor *gradInput)
{
    EMU_TRY(emu_check_dtype_in(api, "gradOutput", gradOutput, SUPPORTED, 3));
    EMU_TRY(emu_check_dtype_in(api, "self", self, SUPPORTED, 3));
    EMU_TRY(emu_check_dtype_in(api, "gradInput", gradInput, SUPPORTED, 3));
    if (emu_soc_get() == EMU_SOC_ASCEND950 && gradOutput->view.dtype != self->view.dtype) {
        if (gradInput->view.dtype != ACL_FLOAT) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: gradInput has dtype %s; expected ACL_FLOAT, as gradOutput "
                                                     "(%s) and self (%s) differ.", api,
                            emu_dtype_name(gradInput->view.dtype), emu_dtype_name(gradOutput->view.dtype),
                            emu_dtype_name(self->view.dtype));
        }
    } else {
        EMU_TRY(emu_check_same_dtype(api, "gradOutput", gradOutput, "gradInput", gradInput));
        EMU_TRY(emu_check_same_dtype(api, "self", self, "gradInput", gradInput));
    }
    EMU_TRY(emu_check_bf16_supported(api, "self", self));
    EMU_TRY(emu_check_bf16_supported(api, "gradOutput", gradOutput));
    return ACLNN_SUCCESS;
}

static aclnnStatus check_shapes(const char *api, const aclTensor *gradOutput, const aclTensor *self,
                                const aclTensor *gradInput)
{
    EMU_TRY(emu_check_max_rank(api, "gradOutput", gradOutput, SILU_BACKWARD_MAX_RANK));
    EMU_TRY(emu_check_max_rank(api, "self", self, SILU_BACKWARD_MAX_RANK));
    if (emu_soc_get() != EMU_SOC_ASCEND950) {
        EMU_TRY(emu_check_same_shape(api, "gradOutput", gradOutput, "gradInput", gradInput,
                                     ACLNN_ERR_PARAM_INVALID));
        EMU_TRY(emu_check_same_shape(api, "self", self, "gradInput", gradInput, ACLNN_ERR_PARAM_INVALID));
        return ACLNN_SUCCESS;
    }
    emu_view broadcast = gradInput->view;
    char first[256], second[256];
    if (!emu_broadcast_shape(&gradOutput->view, &self->view, broadcast.shape, &broadcast.rank)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput has shape %s and self has shape %s; expected shapes "
                                                 "that broadcast together.", api,
                        emu_shape_string(&gradOutput->view, first, sizeof first),
                        emu_shape_string(&self->view, second, sizeof second));
    }
    if (!emu_view_same_shape(&gradInput->view, &broadcast)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: gradInput has shape %s; expected %s, the broadcast of "
                                                 "gradOutput and self.", api,
                        emu_shape_string(&gradInput->view, first, sizeof first),
                        emu_shape_string(&broadcast, second, sizeof second));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus validate(const char *api, const emu_ew_def *def, const emu_ew_call *call)
{
    (void)def;
    EMU_TRY(check_dtypes(api, call->inputs[0], call->inputs[1], call->out));
    return check_shapes(api, call->inputs[0], call->inputs[1], call->out);
}

/* The dtype tables are the union the op_api checks first; BF16 on the
 * training series is refused later, in validate's order. */
static const emu_dtype_table SILU_BACKWARD_TYPES = {EMU_F | EMU_H | EMU_B, EMU_F | EMU_H | EMU_B,
                                                    EMU_F | EMU_H | EMU_B};
static const emu_ew_def SILU_BACKWARD = {
    .api = "aclnnSiluBackward", .kernel = EMU_EW_OWN_KERNELS, .input_count = 2,
    .names = {"gradOutput", "self", "gradInput"}, .in_dtypes = &SILU_BACKWARD_TYPES,
    .out_dtypes = &SILU_BACKWARD_TYPES, .result = EMU_EW_RESULT_OUT, .out_rule = EMU_EW_OUT_SAME,
    .broadcast = true, .validate = validate};

aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                              aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    static const char API[] = "aclnnSiluBackwardGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "gradOutput", gradOutput));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "gradInput", gradInput));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {gradOutput, self}, .out = gradInput);
    EMU_TRY(emu_ew_check(API, &SILU_BACKWARD, &call));

    aclOpExecutor *planned = emu_executor_create(API, SILU_BACKWARD.api, 2, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_allow_aliasing(planned); /* exact aliasing only: emu_ew_check refused partial overlap */
    emu_executor_name_tensors(planned, SILU_BACKWARD.names);
    emu_executor_bind(planned, 0, gradOutput);
    emu_executor_bind(planned, 1, self);
    emu_executor_bind(planned, 2, gradInput);
    /* Inputs become views of gradInput's shape (a no-op unless broadcasting). */
    emu_view_broadcast_to(&planned->tensors[0], gradInput->view.shape, gradInput->view.rank);
    emu_view_broadcast_to(&planned->tensors[1], gradInput->view.shape, gradInput->view.rank);
    return emu_silu_publish(planned, EMU_SILU_GRAD, workspaceSize, executor);
}

aclnnStatus aclnnSiluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              const aclrtStream stream)
{
    return emu_executor_run("aclnnSiluBackward", workspace, workspaceSize, executor, stream);
}
