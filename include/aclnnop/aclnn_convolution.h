/* Declarations as in hicann/ops-nn conv/convolution_forward/op_host/op_api/aclnn_convolution.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_convolution.h
 * @brief aclnnConvolution, aclnnConvTbc, aclnnConvDepthwise2d: convolutions.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_CONVOLUTION_H_
#define ACLNNOP_ACLNN_CONVOLUTION_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnConvolution: checks the arguments and plans output = the convolution (or transposed convolution)
 * of input with weight, plus bias.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnConvolution.
 */
ACLNN_API aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                       const aclTensor *bias, const aclIntArray *stride,
                                                       const aclIntArray *padding, const aclIntArray *dilation,
                                                       bool transposed, const aclIntArray *outputPadding,
                                                       const int64_t groups, aclTensor *output, int8_t cubeMathType,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnConvTbc: checks the arguments and plans output = the 1-D convolution of a (time, batch, channel)
 * self with weight, plus bias.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnConvTbc.
 */
ACLNN_API aclnnStatus aclnnConvTbcGetWorkspaceSize(const aclTensor *self, const aclTensor *weight,
                                                   const aclTensor *bias, const int64_t pad, aclTensor *output,
                                                   int8_t cubeMathType, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

/**
 * Phase 1 of aclnnConvDepthwise2d: checks the arguments and plans out = the depthwise 2-D convolution of self with
 * weight, plus bias.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnConvDepthwise2d.
 */
ACLNN_API aclnnStatus aclnnConvDepthwise2dGetWorkspaceSize(const aclTensor *self, const aclTensor *weight,
                                                           const aclIntArray *kernelSize, const aclTensor *bias,
                                                           const aclIntArray *stride, const aclIntArray *padding,
                                                           const aclIntArray *dilation, aclTensor *out,
                                                           int8_t cubeMathType, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

/** Phase 2 of aclnnConvolution: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnConvolution(void *workspace, const uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

/** Phase 2 of aclnnConvTbc: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnConvTbc(void *workspace, const uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

/** Phase 2 of aclnnConvDepthwise2d: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnConvDepthwise2d(void *workspace, const uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CONVOLUTION_H_ */
