/* Declarations as in hicann/ops-math math/neg/op_api/aclnn_neg.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_neg.h
 * @brief aclnnNeg, aclnnInplaceNeg: out = -self.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_NEG_H_
#define ACLNNOP_ACLNN_NEG_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnNeg: checks the arguments and plans out = -self.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnNeg.
 */
ACLNN_API aclnnStatus aclnnNegGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceNeg: checks the arguments and plans aclnnNeg with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceNeg.
 */
ACLNN_API aclnnStatus aclnnInplaceNegGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/** Phase 2 of aclnnNeg: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnNeg(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               const aclrtStream stream);

/** Phase 2 of aclnnInplaceNeg: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceNeg(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NEG_H_ */
