/* Declarations as in hicann/ops-nn pooling/avg_pool3_d/op_api/aclnn_avgpool2d.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_avgpool2d.h
 * @brief aclnnAvgPool2d: out = the 2-D average pooling of self.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_AVGPOOL2D_H_
#define ACLNNOP_ACLNN_AVGPOOL2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAvgPool2d: checks the arguments and plans out = the 2-D average pooling of self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnAvgPool2d.
 */
ACLNN_API aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                     const aclIntArray *strides, const aclIntArray *paddings,
                                                     const bool ceilMode, const bool countIncludePad,
                                                     const int64_t divisorOverride, const int8_t cubeMathType,
                                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnAvgPool2d: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnAvgPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_AVGPOOL2D_H_ */
