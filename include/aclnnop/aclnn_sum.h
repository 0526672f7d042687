/* Declarations as in hicann/ops-math math/accumulate_nv2/op_api/aclnn_sum.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_sum.h
 * @brief aclnnSum: out = the element-wise sum of the tensors in the list.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SUM_H_
#define ACLNNOP_ACLNN_SUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSum: checks the arguments and plans out = the element-wise sum of the tensors in the list.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSum.
 */
ACLNN_API aclnnStatus aclnnSumGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

/** Phase 2 of aclnnSum: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SUM_H_ */
