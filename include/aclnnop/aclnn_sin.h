/* Declarations as in hicann/ops-math math/sin/op_api/aclnn_sin.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_sin.h
 * @brief aclnnSin, aclnnInplaceSin: out = sin(self).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SIN_H_
#define ACLNNOP_ACLNN_SIN_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSin: checks the arguments and plans out = sin(self).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSin.
 */
ACLNN_API aclnnStatus aclnnSinGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

/** Phase 2 of aclnnSin: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceSin: checks the arguments and plans aclnnSin with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceSin.
 */
ACLNN_API aclnnStatus aclnnInplaceSinGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceSin: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceSin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SIN_H_ */
