/* Declarations as in hicann/ops-nn norm/lp_norm_v2/op_api/aclnn_norm.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_norm.h
 * @brief aclnnNorm: out = the p-norm of self over dim, p given by pScalar.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_NORM_H_
#define ACLNNOP_ACLNN_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnNorm: checks the arguments and plans out = the p-norm of self over dim, p given by pScalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnNorm.
 */
ACLNN_API aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar, const aclIntArray *dim,
                                                bool keepdim, aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

/** Phase 2 of aclnnNorm: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NORM_H_ */
