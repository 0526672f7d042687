/* Declarations as in hicann/ops-nn matmul/weight_quant_batch_matmul_v2/op_host/op_api/aclnn_weight_quant_batch_matmul_v2.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_weight_quant_batch_matmul_v2.h
 * @brief aclnnWeightQuantBatchMatmulV2: y = x @ dequantized weight (+ bias), weight INT8/INT4 with antiquantScale
 *        and offset.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H_
#define ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnWeightQuantBatchMatmulV2: checks the arguments and plans y = x @ dequantized weight (+ bias),
 * weight INT8/INT4 with antiquantScale and offset.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnWeightQuantBatchMatmulV2.
 */
ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale,
    const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional,
    const aclTensor *biasOptional, int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnWeightQuantBatchMatmulV2: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H_ */
