/* Declarations as in hicann/ops-math math/log/op_api/aclnn_log.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_log.h
 * @brief aclnnLog, aclnnInplaceLog: out = ln(self).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_LOG_H_
#define ACLNNOP_ACLNN_LOG_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnLog: checks the arguments and plans out = ln(self).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnLog.
 */
ACLNN_API aclnnStatus aclnnLogGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

/** Phase 2 of aclnnLog: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnLog(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceLog: checks the arguments and plans aclnnLog with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceLog.
 */
ACLNN_API aclnnStatus aclnnInplaceLogGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceLog: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceLog(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOG_H_ */
