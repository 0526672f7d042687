/* Declarations as in hicann/ops-nn norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_layer_norm.h
 * @brief aclnnLayerNorm and its variants: layer normalization.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_LAYER_NORM_H_
#define ACLNNOP_ACLNN_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnLayerNorm: checks the arguments and plans out = the layer normalization of input over
 * normalizedShape, with optional weight, bias, mean and rstd.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnLayerNorm.
 */
ACLNN_API aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                     const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                     double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                     aclTensor *rstdOutOptional, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/**
 * Phase 1 of aclnnLayerNormWithImplMode: checks the arguments and plans as aclnnLayerNorm, implMode choosing
 * between precision and speed.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnLayerNormWithImplMode.
 */
ACLNN_API aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(
    const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional,
    const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
    int32_t implMode, uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnFastLayerNorm: checks the arguments and plans as aclnnLayerNorm, the faster kernel.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnFastLayerNorm.
 */
ACLNN_API aclnnStatus aclnnFastLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                         const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                         double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                         aclTensor *rstdOutOptional, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

/** Phase 2 of aclnnLayerNorm: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

/** Phase 2 of aclnnLayerNormWithImplMode: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnLayerNormWithImplMode(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

/** Phase 2 of aclnnFastLayerNorm: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnFastLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LAYER_NORM_H_ */
