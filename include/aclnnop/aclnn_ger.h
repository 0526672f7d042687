/* Declarations as in hicann/ops-math math/ger/op_api/aclnn_ger.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_ger.h
 * @brief aclnnGer: out = the outer product of vectors self and vec2.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_GER_H_
#define ACLNNOP_ACLNN_GER_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGer: checks the arguments and plans out = the outer product of vectors self and vec2.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGer.
 */
ACLNN_API aclnnStatus aclnnGerGetWorkspaceSize(const aclTensor *self, const aclTensor *vec2, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnGer: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGer(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GER_H_ */
