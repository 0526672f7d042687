/* Declarations as in hicann/ops-nn matmul/mv/op_host/op_api/aclnn_mv.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_mv.h
 * @brief aclnnMv: out = the matrix-vector product self @ vec.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_MV_H_
#define ACLNNOP_ACLNN_MV_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMv: checks the arguments and plans out = the matrix-vector product self @ vec.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMv.
 */
ACLNN_API aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec, aclTensor *out,
                                              int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnMv: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MV_H_ */
