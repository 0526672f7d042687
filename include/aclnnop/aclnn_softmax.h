/* Declarations as in hicann/ops-nn activation/softmax_v2/op_api/aclnn_softmax.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_softmax.h
 * @brief aclnnSoftmax: out = softmax(self) along dim.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SOFTMAX_H_
#define ACLNNOP_ACLNN_SOFTMAX_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSoftmax: checks the arguments and plans out = softmax(self) along dim.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSoftmax.
 */
ACLNN_API aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnSoftmax: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SOFTMAX_H_ */
