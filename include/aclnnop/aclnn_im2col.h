/* Declarations as in hicann/ops-math conversion/im2col/op_api/aclnn_im2col.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_im2col.h
 * @brief aclnnIm2col: out = the sliding blocks of self unfolded into columns.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_IM2COL_H_
#define ACLNNOP_ACLNN_IM2COL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnIm2col: checks the arguments and plans out = the sliding blocks of self unfolded into columns.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnIm2col.
 */
ACLNN_API aclnnStatus aclnnIm2colGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                  const aclIntArray *dilation, const aclIntArray *padding,
                                                  const aclIntArray *stride, const aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnIm2col: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnIm2col(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_IM2COL_H_ */
