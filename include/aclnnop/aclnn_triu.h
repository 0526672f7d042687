/* Declarations as in hicann/ops-math conversion/triu/op_api/aclnn_triu.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_triu.h
 * @brief aclnnTriu, aclnnInplaceTriu: out = self with the elements below diagonal set to zero.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_TRIU_H_
#define ACLNNOP_ACLNN_TRIU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnTriu: checks the arguments and plans out = self with the elements below diagonal set to zero.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnTriu.
 */
ACLNN_API aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnTriu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnTriu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceTriu: checks the arguments and plans aclnnTriu with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceTriu.
 */
ACLNN_API aclnnStatus aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceTriu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceTriu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TRIU_H_ */
