/* Declarations as in hicann/ops-nn pooling/max_pool_v3/op_api/aclnn_max_pool.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_max_pool.h
 * @brief aclnnMaxPool: out = the max pooling of self.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_MAX_POOL_H_
#define ACLNNOP_ACLNN_MAX_POOL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMaxPool: checks the arguments and plans out = the max pooling of self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMaxPool.
 */
ACLNN_API aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape,
                                                   const aclIntArray *strides, const int64_t autoPad,
                                                   const aclIntArray *pads, const aclIntArray *dilations,
                                                   const int64_t ceilMode, aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

/** Phase 2 of aclnnMaxPool: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MAX_POOL_H_ */
