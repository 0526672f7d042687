/* Declarations as in hicann/ops-math conversion/mirror_pad/op_api/aclnn_reflection_pad1d.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_reflection_pad1d.h
 * @brief aclnnReflectionPad1d: out = self padded by reflection along its last dimension.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_REFLECTION_PAD1D_H_
#define ACLNNOP_ACLNN_REFLECTION_PAD1D_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnReflectionPad1d: checks the arguments and plans out = self padded by reflection along its last
 * dimension.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnReflectionPad1d.
 */
ACLNN_API aclnnStatus aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                                           aclTensor *out, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

/** Phase 2 of aclnnReflectionPad1d: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnReflectionPad1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REFLECTION_PAD1D_H_ */
