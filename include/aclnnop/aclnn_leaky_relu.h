/* Declarations as in hicann/ops-nn activation/leaky_relu/op_api/aclnn_leaky_relu.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_leaky_relu.h
 * @brief aclnnLeakyRelu, aclnnInplaceLeakyRelu: out = self > 0 ? self : negativeSlope * self.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_LEAKY_RELU_H_
#define ACLNNOP_ACLNN_LEAKY_RELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnLeakyRelu: checks the arguments and plans out = self > 0 ? self : negativeSlope * self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnLeakyRelu.
 */
ACLNN_API aclnnStatus aclnnLeakyReluGetWorkspaceSize(const aclTensor *self, const aclScalar *negativeSlope,
                                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnLeakyRelu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnLeakyRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceLeakyRelu: checks the arguments and plans aclnnLeakyRelu with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceLeakyRelu.
 */
ACLNN_API aclnnStatus aclnnInplaceLeakyReluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *negativeSlope,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceLeakyRelu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceLeakyRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LEAKY_RELU_H_ */
