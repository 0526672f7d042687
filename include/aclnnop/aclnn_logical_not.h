/* Declarations as in hicann/ops-math math/logical_not/op_api/aclnn_logical_not.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_logical_not.h
 * @brief aclnnLogicalNot, aclnnInplaceLogicalNot: out = !self.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_LOGICAL_NOT_H_
#define ACLNNOP_ACLNN_LOGICAL_NOT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnLogicalNot: checks the arguments and plans out = !self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnLogicalNot.
 */
ACLNN_API aclnnStatus aclnnLogicalNotGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/** Phase 2 of aclnnLogicalNot: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnLogicalNot(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceLogicalNot: checks the arguments and plans aclnnLogicalNot with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceLogicalNot.
 */
ACLNN_API aclnnStatus aclnnInplaceLogicalNotGetWorkspaceSize(
    aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceLogicalNot: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceLogicalNot(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOGICAL_NOT_H_ */
