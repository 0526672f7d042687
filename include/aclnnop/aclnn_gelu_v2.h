/* Declarations as in hicann/ops-nn activation/gelu_v2/op_api/aclnn_gelu_v2.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_gelu_v2.h
 * @brief aclnnGeluV2: y = gelu(x), exact (approximate 0) or tanh-approximated (1).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_GELU_V2_H_
#define ACLNNOP_ACLNN_GELU_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGeluV2: checks the arguments and plans y = gelu(x), exact (approximate 0) or tanh-approximated
 * (1).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGeluV2.
 */
ACLNN_API aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnGeluV2: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGeluV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GELU_V2_H_ */
