/* Declarations as in hicann/ops-math conversion/masked_fill/op_api/aclnn_masked_fill_scalar.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_masked_fill_scalar.h
 * @brief aclnnInplaceMaskedFillScalar: selfRef = value where mask is true.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_MASKED_FILL_SCALAR_H_
#define ACLNNOP_ACLNN_MASKED_FILL_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceMaskedFillScalar: checks the arguments and plans selfRef = value where mask is true.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceMaskedFillScalar.
 */
ACLNN_API aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *mask, const aclScalar *value, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceMaskedFillScalar: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceMaskedFillScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MASKED_FILL_SCALAR_H_ */
