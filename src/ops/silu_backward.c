/* aclnnSiluBackward: validation in the order of CANN's A2/A3 op_api, then
 * the shared element-wise plan. */
#include "aclnnop/aclnn_silu_backward.h"
#include "ops/check.h"
#include "ops/elementwise.h"

static const aclDataType SUPPORTED[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
enum { SILU_BACKWARD_MAX_RANK = 8 };

static aclnnStatus check_params(const char *api, const aclTensor *gradOutput, const aclTensor *self,
                                const aclTensor *gradInput)
{
    EMU_TRY(emu_check_not_null(api, "gradOutput", gradOutput));
    EMU_TRY(emu_check_not_null(api, "self", self));
    EMU_TRY(emu_check_not_null(api, "gradInput", gradInput));
    EMU_TRY(emu_check_dtype_in(api, "gradOutput", gradOutput, SUPPORTED, 3));
    EMU_TRY(emu_check_dtype_in(api, "self", self, SUPPORTED, 3));
    EMU_TRY(emu_check_dtype_in(api, "gradInput", gradInput, SUPPORTED, 3));
    EMU_TRY(emu_check_same_dtype(api, "self", self, "gradOutput", gradOutput));
    EMU_TRY(emu_check_same_dtype(api, "gradInput", gradInput, "gradOutput", gradOutput));
    EMU_TRY(emu_check_bf16_supported(api, "gradOutput", gradOutput));
    EMU_TRY(emu_check_max_rank(api, "gradOutput", gradOutput, SILU_BACKWARD_MAX_RANK));
    EMU_TRY(emu_check_max_rank(api, "self", self, SILU_BACKWARD_MAX_RANK));
    EMU_TRY(emu_check_max_rank(api, "gradInput", gradInput, SILU_BACKWARD_MAX_RANK));
    EMU_TRY(emu_check_same_shape(api, "gradOutput", gradOutput, "gradInput", gradInput, ACLNN_ERR_PARAM_INVALID));
    EMU_TRY(emu_check_same_shape(api, "self", self, "gradInput", gradInput, ACLNN_ERR_PARAM_INVALID));
    EMU_TRY(emu_check_has_data(api, "gradOutput", gradOutput));
    EMU_TRY(emu_check_has_data(api, "self", self));
    EMU_TRY(emu_check_has_data(api, "gradInput", gradInput));
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                              aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    static const char API[] = "aclnnSiluBackwardGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(check_params(API, gradOutput, self, gradInput));

    aclOpExecutor *planned = emu_executor_create(API, "aclnnSiluBackward", 2, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_bind(planned, 0, gradOutput);
    emu_executor_bind(planned, 1, self);
    emu_executor_bind(planned, 2, gradInput);
    return emu_elementwise_publish(planned, EMU_EW_SILU_GRAD, workspaceSize, executor);
}

aclnnStatus aclnnSiluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              const aclrtStream stream)
{
    return emu_executor_run("aclnnSiluBackward", workspace, workspaceSize, executor, stream);
}
