/* Declarations as in hicann/ops-math math/sqrt/op_api/aclnn_sqrt.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_sqrt.h
 * @brief aclnnSqrt, aclnnInplaceSqrt: out = sqrt(self).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SQRT_H_
#define ACLNNOP_ACLNN_SQRT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSqrt: checks the arguments and plans out = sqrt(self).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param opExecutor out: the plan, consumed by aclnnSqrt.
 */
ACLNN_API aclnnStatus aclnnSqrtGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **opExecutor);

/** Phase 2 of aclnnSqrt: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *opExecutor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceSqrt: checks the arguments and plans aclnnSqrt with the result written into @p self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceSqrt.
 */
ACLNN_API aclnnStatus aclnnInplaceSqrtGetWorkspaceSize(aclTensor *self, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceSqrt: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceSqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SQRT_H_ */
