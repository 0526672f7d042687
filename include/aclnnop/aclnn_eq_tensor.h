/* Declarations as in hicann/ops-math math/equal/op_api/aclnn_eq_tensor.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_eq_tensor.h
 * @brief aclnnEqTensor, aclnnInplaceEqTensor: out = (self == other), broadcast.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_EQ_TENSOR_H_
#define ACLNNOP_ACLNN_EQ_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnEqTensor: checks the arguments and plans out = (self == other), broadcast.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnEqTensor.
 */
ACLNN_API aclnnStatus aclnnEqTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnEqTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnEqTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceEqTensor: checks the arguments and plans aclnnEqTensor with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceEqTensor.
 */
ACLNN_API aclnnStatus aclnnInplaceEqTensorGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceEqTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceEqTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EQ_TENSOR_H_ */
