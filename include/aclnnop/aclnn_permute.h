/* Declarations as in hicann/ops-math conversion/transpose/op_api/aclnn_permute.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_permute.h
 * @brief aclnnPermute: out = self with its dimensions reordered by dims.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_PERMUTE_H_
#define ACLNNOP_ACLNN_PERMUTE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnPermute: checks the arguments and plans out = self with its dimensions reordered by dims.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnPermute.
 */
ACLNN_API aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnPermute: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_PERMUTE_H_ */
