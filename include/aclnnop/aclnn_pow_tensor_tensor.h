/* Declarations as in hicann/ops-math math/pow/op_api/aclnn_pow_tensor_tensor.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_pow_tensor_tensor.h
 * @brief aclnnPowTensorTensor, aclnnInplacePowTensorTensor: out = self ^ exponent, broadcast.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_POW_TENSOR_TENSOR_H_
#define ACLNNOP_ACLNN_POW_TENSOR_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnPowTensorTensor: checks the arguments and plans out = self ^ exponent, broadcast.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnPowTensorTensor.
 */
ACLNN_API aclnnStatus aclnnPowTensorTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *exponent,
                                                           aclTensor *out, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplacePowTensorTensor: checks the arguments and plans aclnnPowTensorTensor with the result
 * written into @p self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplacePowTensorTensor.
 */
ACLNN_API aclnnStatus aclnnInplacePowTensorTensorGetWorkspaceSize(
    const aclTensor *self, const aclTensor *exponent, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnPowTensorTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnPowTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

/** Phase 2 of aclnnInplacePowTensorTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplacePowTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_POW_TENSOR_TENSOR_H_ */
