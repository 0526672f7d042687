/* Declarations as in hicann/ops-math math/arg_max_v2/op_api/aclnn_argmax.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_argmax.h
 * @brief aclnnArgMax: out = the index of the largest element of self along dim.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ARGMAX_H_
#define ACLNNOP_ACLNN_ARGMAX_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnArgMax: checks the arguments and plans out = the index of the largest element of self along dim.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnArgMax.
 */
ACLNN_API aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnArgMax: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnArgMax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ARGMAX_H_ */
