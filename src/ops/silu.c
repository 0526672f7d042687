/* aclnnSilu: out = self * sigmoid(self) (hicann/ops-nn activation/swish,
 * aclnn_silu.cpp): declared on the element-wise layer, which validates it;
 * run by SiLU's tuned kernels (src/ops/silu_plan.c). */
#include "aclnnop/aclnn_silu.h"
#include "ops/silu_plan.h"
#include "ops/ew.h"

static const emu_dtype_table SILU_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);
static const emu_ew_def SILU = {.api = "aclnnSilu", .kernel = EMU_EW_OWN_KERNELS, .input_count = 1,
                                .names = {"self", "out"}, .in_dtypes = &SILU_TYPES, .out_dtypes = &SILU_TYPES,
                                .result = EMU_EW_RESULT_PROMOTE, .out_rule = EMU_EW_OUT_SAME};

aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    static const char API[] = "aclnnSiluGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {self}, .out = out);
    EMU_TRY(emu_ew_check(API, &SILU, &call));

    aclOpExecutor *planned = emu_executor_create(API, "aclnnSilu", 1, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_allow_aliasing(planned); /* exact aliasing only: emu_ew_check refused partial overlap */
    emu_executor_name_tensors(planned, SILU.names);
    emu_executor_bind(planned, 0, self);
    emu_executor_bind(planned, 1, out);
    return emu_silu_publish(planned, EMU_SILU_FORWARD, workspaceSize, executor);
}

aclnnStatus aclnnSilu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnSilu", workspace, workspaceSize, executor, stream);
}
