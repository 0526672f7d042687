/* Declarations as in hicann/ops-math math/cos/op_api/aclnn_cos.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_cos.h
 * @brief aclnnCos, aclnnInplaceCos: out = cos(input).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_COS_H_
#define ACLNNOP_ACLNN_COS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnCos: checks the arguments and plans out = cos(input).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnCos.
 */
ACLNN_API aclnnStatus aclnnCosGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

/** Phase 2 of aclnnCos: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnCos(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceCos: checks the arguments and plans aclnnCos with the result written into @p inputRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceCos.
 */
ACLNN_API aclnnStatus aclnnInplaceCosGetWorkspaceSize(aclTensor *inputRef, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceCos: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceCos(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_COS_H_ */
