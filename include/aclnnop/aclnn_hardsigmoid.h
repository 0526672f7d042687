/* Declarations as in hicann/ops-nn activation/hard_sigmoid/op_api/aclnn_hardsigmoid.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_hardsigmoid.h
 * @brief aclnnHardsigmoid, aclnnInplaceHardsigmoid: out = clamp(self / 6 + 0.5, 0, 1).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_HARDSIGMOID_H_
#define ACLNNOP_ACLNN_HARDSIGMOID_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnHardsigmoid: checks the arguments and plans out = clamp(self / 6 + 0.5, 0, 1).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnHardsigmoid.
 */
ACLNN_API aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

/** Phase 2 of aclnnHardsigmoid: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnHardsigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceHardsigmoid: checks the arguments and plans aclnnHardsigmoid with the result written into
 * @p self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceHardsigmoid.
 */
ACLNN_API aclnnStatus aclnnInplaceHardsigmoidGetWorkspaceSize(
    const aclTensor *self, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceHardsigmoid: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceHardsigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_HARDSIGMOID_H_ */
