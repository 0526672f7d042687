/* Declarations as in hicann/ops-nn norm/group_norm/op_host/op_api/aclnn_group_norm.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_group_norm.h
 * @brief aclnnGroupNorm: out = the group normalization of self scaled by gamma plus beta, with meanOut and rstdOut.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_GROUP_NORM_H_
#define ACLNNOP_ACLNN_GROUP_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGroupNorm: checks the arguments and plans out = the group normalization of self scaled by gamma
 * plus beta, with meanOut and rstdOut.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGroupNorm.
 */
ACLNN_API aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
                                                     const aclTensor *beta, int64_t N, int64_t C, int64_t HxW,
                                                     int64_t group, double eps, aclTensor *out, aclTensor *meanOut,
                                                     aclTensor *rstdOut, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/** Phase 2 of aclnnGroupNorm: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGroupNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUP_NORM_H_ */
