/* Declarations as in hicann/ops-nn matmul/mat_mul_v3/op_host/op_api/aclnn_mm.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_mm.h
 * @brief aclnnMm: out = the 2-D matrix product self @ mat2.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_MM_H_
#define ACLNNOP_ACLNN_MM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMm: checks the arguments and plans out = the 2-D matrix product self @ mat2.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMm.
 */
ACLNN_API aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                              int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnMm: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MM_H_ */
