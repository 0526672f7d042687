/* Declarations as in hicann/ops-nn matmul/mat_mul_v3/op_host/op_api/aclnn_matmul.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_matmul.h
 * @brief aclnnMatmul, aclnnMatmulWeightNz: out = the matrix product self @ mat2 (1-D to N-D, batch dimensions
 *        broadcast).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_MATMUL_H_
#define ACLNNOP_ACLNN_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMatmul: checks the arguments and plans out = the matrix product self @ mat2 (1-D to N-D, batch
 * dimensions broadcast).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMatmul.
 */
ACLNN_API aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                  int8_t cubeMathType, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

/** Phase 2 of aclnnMatmul: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnMatmulWeightNz: checks the arguments and plans out = the matrix product self @ mat2, mat2 in
 * FRACTAL_NZ format.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMatmulWeightNz.
 */
ACLNN_API aclnnStatus aclnnMatmulWeightNzGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                          int8_t cubeMathType, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

/** Phase 2 of aclnnMatmulWeightNz: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMatmulWeightNz(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MATMUL_H_ */
