/**
 * @file aclnnop/aclnn_silu_backward.h
 * @brief aclnnSiluBackward: gradient of SiLU.
 *
 * gradInput = gradOutput * s * (1 + self * (1 - s)), s = sigmoid(self),
 * computed in fp32 and stored in the output dtype with round-to-nearest-even.
 * NaN and ±inf follow the formula (self = ±inf gives NaN). Deterministic.
 */
#ifndef ACLNNOP_ACLNN_SILU_BACKWARD_H_
#define ACLNNOP_ACLNN_SILU_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSiluBackward.
 *
 * Checks, in the order of CANN's implementation:
 *  1. @p workspaceSize or @p executor NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  2. @p gradOutput, @p self or @p gradInput NULL -> 161001;
 *  3. a dtype not FLOAT, FLOAT16 or BFLOAT16 -> ACLNN_ERR_PARAM_INVALID (161002);
 *  4. dtypes that are not all equal -> 161002 (Ascend950: gradOutput and
 *     self may differ when gradInput is FLOAT);
 *  5. BFLOAT16 on the Ascend910 (training series) product -> 161002;
 *  6. gradOutput or self of rank > 8 -> 161002;
 *  7. shapes that are not all equal -> 161002 (Ascend950: gradInput must be
 *     the broadcast of gradOutput and self);
 *  8. a non-empty tensor whose data address is NULL -> 161002 (aclnn_emu
 *     only: on the device the kernel would fault).
 * Formats are not checked. Empty tensors succeed with workspace 0.
 *
 * @param gradOutput incoming gradient, any strides and offset.
 * @param self the forward input x, any strides and offset.
 * @param gradInput output, any strides and offset.
 * @param workspaceSize out: bytes of workspace phase 2 needs (staging for
 *        non-contiguous tensors; 0 when all are contiguous).
 * @param executor out: the plan, consumed by aclnnSiluBackward.
 */
ACLNN_API aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                        aclTensor *gradInput, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

/**
 * Phase 2 of aclnnSiluBackward: runs the plan on @p stream (NULL: default).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnSiluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SILU_BACKWARD_H_ */
