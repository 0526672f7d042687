/* Declarations as in hicann/ops-nn activation/gelu/op_api/aclnn_gelu.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_gelu.h
 * @brief aclnnGelu: out = gelu(self).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_GELU_H_
#define ACLNNOP_ACLNN_GELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGelu: checks the arguments and plans out = gelu(self).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGelu.
 */
ACLNN_API aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

/** Phase 2 of aclnnGelu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GELU_H_ */
