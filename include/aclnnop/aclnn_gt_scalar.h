/* Declarations as in hicann/ops-math math/greater/op_api/aclnn_gt_scalar.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_gt_scalar.h
 * @brief aclnnGtScalar, aclnnInplaceGtScalar: out = (self > other), with other a scalar.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_GT_SCALAR_H_
#define ACLNNOP_ACLNN_GT_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGtScalar: checks the arguments and plans out = (self > other), with other a scalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGtScalar.
 */
ACLNN_API aclnnStatus aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnGtScalar: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGtScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceGtScalar: checks the arguments and plans aclnnGtScalar with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceGtScalar.
 */
ACLNN_API aclnnStatus aclnnInplaceGtScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceGtScalar: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceGtScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GT_SCALAR_H_ */
