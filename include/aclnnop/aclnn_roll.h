/* Declarations as in hicann/ops-math conversion/roll/op_api/aclnn_roll.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_roll.h
 * @brief aclnnRoll: out = x rotated by shifts along dims.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ROLL_H_
#define ACLNNOP_ACLNN_ROLL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRoll: checks the arguments and plans out = x rotated by shifts along dims.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRoll.
 */
ACLNN_API aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims,
                                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnRoll: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRoll(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ROLL_H_ */
