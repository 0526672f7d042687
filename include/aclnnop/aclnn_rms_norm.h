/* Declarations as in hicann/ops-nn norm/rms_norm/docs/aclnnRmsNorm.md @ e5c3fa9327ea (CANN generates this header at build time). */
/**
 * @file aclnnop/aclnn_rms_norm.h
 * @brief aclnnRmsNorm: yOut = x / sqrt(mean(x^2) + epsilon) * gamma, rstdOut = the reciprocal RMS.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_RMS_NORM_H_
#define ACLNNOP_ACLNN_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRmsNorm: checks the arguments and plans yOut = x / sqrt(mean(x^2) + epsilon) * gamma, rstdOut =
 * the reciprocal RMS.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRmsNorm.
 */
ACLNN_API aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
                                                   const aclTensor *yOut, const aclTensor *rstdOut,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnRmsNorm: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_RMS_NORM_H_ */
