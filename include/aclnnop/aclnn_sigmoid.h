/* Declarations as in hicann/ops-nn activation/sigmoid/op_api/aclnn_sigmoid.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_sigmoid.h
 * @brief aclnnSigmoid, aclnnInplaceSigmoid: out = 1 / (1 + exp(-self)).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SIGMOID_H_
#define ACLNNOP_ACLNN_SIGMOID_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSigmoid: checks the arguments and plans out = 1 / (1 + exp(-self)).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSigmoid.
 */
ACLNN_API aclnnStatus aclnnSigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

/** Phase 2 of aclnnSigmoid: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceSigmoid: checks the arguments and plans aclnnSigmoid with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceSigmoid.
 */
ACLNN_API aclnnStatus aclnnInplaceSigmoidGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceSigmoid: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceSigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SIGMOID_H_ */
