/* aclnnSilu: the forward of SiluBackward, so users and tests can run both. */
#include "aclnnop/aclnn_silu.h"
#include "ops/check.h"
#include "ops/elementwise.h"

static const aclDataType SUPPORTED[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
enum { SILU_MAX_RANK = 8 };

aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    static const char API[] = "aclnnSiluGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_dtype_in(API, "self", self, SUPPORTED, 3));
    EMU_TRY(emu_check_dtype_in(API, "out", out, SUPPORTED, 3));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    EMU_TRY(emu_check_bf16_supported(API, "self", self));
    EMU_TRY(emu_check_max_rank(API, "self", self, SILU_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "out", out, SILU_MAX_RANK));
    EMU_TRY(emu_check_same_shape(API, "out", out, "self", self, ACLNN_ERR_PARAM_INVALID));
    EMU_TRY(emu_check_has_data(API, "self", self));
    EMU_TRY(emu_check_has_data(API, "out", out));
    EMU_TRY(emu_check_device_memory(API, "self", self));
    EMU_TRY(emu_check_device_memory(API, "out", out));

    aclOpExecutor *planned = emu_executor_create(API, "aclnnSilu", 1, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_allow_aliasing(planned); /* element-wise: in-place calls are fine */
    static const char *const NAMES[] = {"self", "out"};
    emu_executor_name_tensors(planned, NAMES);
    emu_executor_bind(planned, 0, self);
    emu_executor_bind(planned, 1, out);
    return emu_elementwise_publish(planned, EMU_EW_SILU, workspaceSize, executor);
}

aclnnStatus aclnnSilu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnSilu", workspace, workspaceSize, executor, stream);
}
