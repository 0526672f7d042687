/* Declarations as in hicann/ops-nn activation/softmax_cross_entropy_with_logits/op_api/aclnn_softmax_cross_entropy_with_logits.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_softmax_cross_entropy_with_logits.h
 * @brief aclnnSoftmaxCrossEntropyWithLogits: loss = the cross entropy of softmax(features) against labels, backprop
 *        = its gradient.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_H_
#define ACLNNOP_ACLNN_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSoftmaxCrossEntropyWithLogits: checks the arguments and plans loss = the cross entropy of
 * softmax(features) against labels, backprop = its gradient.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSoftmaxCrossEntropyWithLogits.
 */
ACLNN_API aclnnStatus aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor *features, aclTensor *labels, aclTensor *loss, aclTensor *backprop, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnSoftmaxCrossEntropyWithLogits: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSoftmaxCrossEntropyWithLogits(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_H_ */
