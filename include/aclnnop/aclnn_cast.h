/* Declarations as in hicann/ops-math math/cast/op_api/aclnn_cast.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_cast.h
 * @brief aclnnCast: out = self converted to dtype.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_CAST_H_
#define ACLNNOP_ACLNN_CAST_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnCast: checks the arguments and plans out = self converted to dtype.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnCast.
 */
ACLNN_API aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnCast: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CAST_H_ */
