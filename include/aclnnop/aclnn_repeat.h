/* Declarations as in hicann/ops-math math/tile/op_api/aclnn_repeat.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_repeat.h
 * @brief aclnnRepeat: out = self tiled repeats times along each dimension.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_REPEAT_H_
#define ACLNNOP_ACLNN_REPEAT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRepeat: checks the arguments and plans out = self tiled repeats times along each dimension.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRepeat.
 */
ACLNN_API aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self, const aclIntArray *repeats, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnRepeat: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRepeat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REPEAT_H_ */
