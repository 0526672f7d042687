/* Declarations as in hicann/ops-nn matmul/batch_mat_mul_v3/op_host/op_api/aclnn_batch_matmul.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_batch_matmul.h
 * @brief aclnnBatchMatMul, aclnnBatchMatMulWeightNz: out = the batched matrix product self @ mat2.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_BATCH_MATMUL_H_
#define ACLNNOP_ACLNN_BATCH_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnBatchMatMul: checks the arguments and plans out = the batched matrix product self @ mat2.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnBatchMatMul.
 */
ACLNN_API aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                       int8_t cubeMathType, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

/** Phase 2 of aclnnBatchMatMul: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnBatchMatMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

/**
 * Phase 1 of aclnnBatchMatMulWeightNz: checks the arguments and plans out = the batched matrix product self @ mat2,
 * mat2 in FRACTAL_NZ format.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnBatchMatMulWeightNz.
 */
ACLNN_API aclnnStatus aclnnBatchMatMulWeightNzGetWorkspaceSize(
    const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnBatchMatMulWeightNz: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnBatchMatMulWeightNz(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_MATMUL_H_ */
