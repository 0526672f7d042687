/* Declarations as in hicann/ops-math conversion/view_copy/op_api/aclnn_copy.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_copy.h
 * @brief aclnnInplaceCopy: selfRef = src, broadcast and converted to selfRef's dtype.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_COPY_H_
#define ACLNNOP_ACLNN_COPY_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceCopy: checks the arguments and plans selfRef = src, broadcast and converted to selfRef's
 * dtype.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceCopy.
 */
ACLNN_API aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceCopy: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_COPY_H_ */
