/* aclnnRotaryPositionEmbeddingGrad: the checks of CANN's generated API and
 * tiling (null, product, dtype/format, then mode and shapes), then the
 * shared RoPE plan (ops/rope_layout.h). */
#include "aclnnop/aclnn_rotary_position_embedding_grad.h"
#include "ops/check.h"
#include "ops/rope_layout.h"

aclnnStatus aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *cos,
                                                             const aclTensor *sin, const aclTensor *xOptional,
                                                             int64_t mode, const aclTensor *dxOut,
                                                             const aclTensor *dcosOut, const aclTensor *dsinOut,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnRotaryPositionEmbeddingGradGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "dy", dy));
    EMU_TRY(emu_check_not_null(API, "cos", cos));
    EMU_TRY(emu_check_not_null(API, "sin", sin));
    EMU_TRY(emu_check_not_null(API, "dxOut", dxOut));
    EMU_TRY(emu_check_not_null(API, "dcosOut", dcosOut));
    EMU_TRY(emu_check_not_null(API, "dsinOut", dsinOut));
    EMU_TRY(emu_rope_check_product(API));
    const emu_rope_args args = {
        .api = API, .main_name = "dy", .out_name = "dxOut",
        .main = dy, .cos = cos, .sin = sin, .out = dxOut,
        .x = xOptional, .dcos = dcosOut, .dsin = dsinOut,
    };
    EMU_TRY(emu_rope_check_dtypes(&args));
    EMU_TRY(emu_rope_check_shapes(&args, mode));
    EMU_TRY(emu_rope_check_memory(&args));

    aclOpExecutor *planned = emu_executor_create(API, "aclnnRotaryPositionEmbeddingGrad", 4, 3);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    static const char *const NAMES[] = {"dy", "cos", "sin", "xOptional", "dxOut", "dcosOut", "dsinOut"};
    emu_executor_name_tensors(planned, NAMES);
    emu_executor_bind(planned, EMU_ROPE_SLOT_MAIN, dy);
    emu_executor_bind(planned, EMU_ROPE_SLOT_COS, cos);
    emu_executor_bind(planned, EMU_ROPE_SLOT_SIN, sin);
    emu_executor_bind(planned, EMU_ROPE_SLOT_X, xOptional);
    emu_executor_bind(planned, EMU_ROPE_GRAD_SLOT_DX, dxOut);
    emu_executor_bind(planned, EMU_ROPE_GRAD_SLOT_DCOS, dcosOut);
    emu_executor_bind(planned, EMU_ROPE_GRAD_SLOT_DSIN, dsinOut);
    if (xOptional == NULL) { /* dx only: dcosOut and dsinOut are never written */
        emu_executor_mark_unused(planned, EMU_ROPE_GRAD_SLOT_DCOS);
        emu_executor_mark_unused(planned, EMU_ROPE_GRAD_SLOT_DSIN);
    }
    return emu_rope_publish(planned, false, mode, xOptional != NULL, workspaceSize, executor);
}

aclnnStatus aclnnRotaryPositionEmbeddingGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream)
{
    return emu_executor_run("aclnnRotaryPositionEmbeddingGrad", workspace, workspaceSize, executor, stream);
}
