/* Declarations as in hicann/ops-math conversion/fill/op_api/aclnn_fill_scalar.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_fill_scalar.h
 * @brief aclnnInplaceFillScalar: selfRef = value in every element.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_FILL_SCALAR_H_
#define ACLNNOP_ACLNN_FILL_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceFillScalar: checks the arguments and plans selfRef = value in every element.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceFillScalar.
 */
ACLNN_API aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(
    aclTensor *selfRef, const aclScalar *value, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceFillScalar: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceFillScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FILL_SCALAR_H_ */
