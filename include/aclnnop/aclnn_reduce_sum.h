/* Declarations as in hicann/ops-math math/reduce_sum/op_api/aclnn_reduce_sum.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_reduce_sum.h
 * @brief aclnnReduceSum: out = the sum of self over dims, in dtype.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_REDUCE_SUM_H_
#define ACLNNOP_ACLNN_REDUCE_SUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnReduceSum: checks the arguments and plans out = the sum of self over dims, in dtype.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnReduceSum.
 */
ACLNN_API aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keepDims,
                                                     aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/** Phase 2 of aclnnReduceSum: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REDUCE_SUM_H_ */
