/* Declarations as in hicann/ops-math math/sub/op_api/aclnn_sub.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_sub.h
 * @brief aclnnSub, aclnnSubs and in-place forms: out = self - alpha * other.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SUB_H_
#define ACLNNOP_ACLNN_SUB_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSub: checks the arguments and plans out = self - alpha * other, broadcast.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSub.
 */
ACLNN_API aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnSub: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSub(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnSubs: checks the arguments and plans out = self - alpha * other, with other a scalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSubs.
 */
ACLNN_API aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnSubs: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSubs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceSub: checks the arguments and plans aclnnSub with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceSub.
 */
ACLNN_API aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                      const aclScalar *alpha, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceSub: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceSub(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceSubs: checks the arguments and plans aclnnSubs with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceSubs.
 */
ACLNN_API aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                       const aclScalar *alpha, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceSubs: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceSubs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SUB_H_ */
