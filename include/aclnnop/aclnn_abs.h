/* Declarations as in hicann/ops-math math/abs/op_api/aclnn_abs.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_abs.h
 * @brief aclnnAbs: out = |self|.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ABS_H_
#define ACLNNOP_ACLNN_ABS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAbs: checks the arguments and plans out = |self|.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnAbs.
 */
ACLNN_API aclnnStatus aclnnAbsGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

/** Phase 2 of aclnnAbs: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnAbs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ABS_H_ */
