/* Declarations as in hicann/ops-nn norm/add_rms_norm/op_host/op_api/aclnn_add_rms_norm.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_add_rms_norm.h
 * @brief aclnnAddRmsNorm: xOut = x1 + x2, yOut = xOut / sqrt(mean(xOut^2) + epsilon) * gamma, rstdOut = the
 *        reciprocal RMS.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ADD_RMS_NORM_H_
#define ACLNNOP_ACLNN_ADD_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAddRmsNorm: checks the arguments and plans xOut = x1 + x2, yOut = xOut / sqrt(mean(xOut^2) +
 * epsilon) * gamma, rstdOut = the reciprocal RMS.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnAddRmsNorm.
 */
ACLNN_API aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                                      double epsilon, aclTensor *yOut, aclTensor *rstdOut,
                                                      aclTensor *xOut, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/** Phase 2 of aclnnAddRmsNorm: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnAddRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_RMS_NORM_H_ */
