/* Declarations as in hicann/ops-math math/pow/op_api/aclnn_pow.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_pow.h
 * @brief aclnnPowTensorScalar, aclnnPowScalarTensor and in-place form: element-wise power.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_POW_H_
#define ACLNNOP_ACLNN_POW_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnPowTensorScalar: checks the arguments and plans out = self ^ exponent, with exponent a scalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnPowTensorScalar.
 */
ACLNN_API aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *exponent,
                                                           const aclTensor *out, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

/** Phase 2 of aclnnPowTensorScalar: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnPowTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           const aclrtStream stream);

/**
 * Phase 1 of aclnnInplacePowTensorScalar: checks the arguments and plans aclnnPowTensorScalar with the result
 * written into @p self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplacePowTensorScalar.
 */
ACLNN_API aclnnStatus aclnnInplacePowTensorScalarGetWorkspaceSize(
    const aclTensor *self, const aclScalar *exponent, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplacePowTensorScalar: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplacePowTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

/**
 * Phase 1 of aclnnPowScalarTensor: checks the arguments and plans out = self ^ exponent, with self a scalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnPowScalarTensor.
 */
ACLNN_API aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *exponent,
                                                           const aclTensor *out, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

/** Phase 2 of aclnnPowScalarTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnPowScalarTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_POW_H_ */
