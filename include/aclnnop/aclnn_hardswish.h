/* Declarations as in hicann/ops-nn activation/hard_swish/op_host/op_api/aclnn_hardswish.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_hardswish.h
 * @brief aclnnHardswish, aclnnInplaceHardswish: out = self * clamp(self / 6 + 0.5, 0, 1).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_HARDSWISH_H_
#define ACLNNOP_ACLNN_HARDSWISH_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnHardswish: checks the arguments and plans out = self * clamp(self / 6 + 0.5, 0, 1).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnHardswish.
 */
ACLNN_API aclnnStatus aclnnHardswishGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnHardswish: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnHardswish(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceHardswish: checks the arguments and plans aclnnHardswish with the result written into @p
 * self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceHardswish.
 */
ACLNN_API aclnnStatus aclnnInplaceHardswishGetWorkspaceSize(const aclTensor *self, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceHardswish: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceHardswish(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_HARDSWISH_H_ */
