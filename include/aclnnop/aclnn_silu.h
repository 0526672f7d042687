/* Declarations as in hicann/ops-nn activation/swish/op_api/aclnn_silu.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_silu.h
 * @brief aclnnSilu: out = self * sigmoid(self).
 */
#ifndef ACLNNOP_ACLNN_SILU_H_
#define ACLNNOP_ACLNN_SILU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSilu: validates and plans out = self * sigmoid(self).
 *
 * @param self input, FLOAT, FLOAT16 or BFLOAT16 (BFLOAT16 not on Ascend910),
 *        rank <= 8, any strides and offset.
 * @param out output, same dtype and shape as @p self, any strides and offset.
 * @param workspaceSize out: bytes of device workspace phase 2 needs (the
 *        staging of non-contiguous tensors; 0 when all are contiguous).
 * @param executor out: the plan, consumed by aclnnSilu.
 * @return ACLNN_SUCCESS;
 *         ACLNN_ERR_PARAM_NULLPTR (161001) for a NULL argument;
 *         ACLNN_ERR_PARAM_INVALID (161002) for an unsupported dtype, dtypes
 *         that differ, rank > 8, shapes that differ, or a non-empty tensor
 *         whose data address is NULL.
 *         Empty tensors succeed with workspace 0 and nothing is computed.
 */
ACLNN_API aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

/**
 * Phase 2 of aclnnSilu: runs the plan on @p stream (NULL: default stream).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnSilu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SILU_H_ */
