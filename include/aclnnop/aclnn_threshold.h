/* Declarations as in hicann/ops-nn activation/threshold/op_host/op_api/aclnn_threshold.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_threshold.h
 * @brief aclnnThreshold, aclnnInplaceThreshold: out = self > threshold ? self : value.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_THRESHOLD_H_
#define ACLNNOP_ACLNN_THRESHOLD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnThreshold: checks the arguments and plans out = self > threshold ? self : value.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnThreshold.
 */
ACLNN_API aclnnStatus aclnnThresholdGetWorkspaceSize(const aclTensor *self, const aclScalar *threshold,
                                                     const aclScalar *value, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/** Phase 2 of aclnnThreshold: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnThreshold(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceThreshold: checks the arguments and plans aclnnThreshold with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceThreshold.
 */
ACLNN_API aclnnStatus aclnnInplaceThresholdGetWorkspaceSize(aclTensor *selfRef, const aclScalar *threshold,
                                                            const aclScalar *value, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceThreshold: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceThreshold(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_THRESHOLD_H_ */
