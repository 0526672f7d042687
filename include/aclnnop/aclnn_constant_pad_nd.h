/* Declarations as in hicann/ops-math conversion/pad_v3/op_api/aclnn_constant_pad_nd.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_constant_pad_nd.h
 * @brief aclnnConstantPadNd: out = self padded with value, pad holding (before, after) pairs from the last
 *        dimension.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_CONSTANT_PAD_ND_H_
#define ACLNNOP_ACLNN_CONSTANT_PAD_ND_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnConstantPadNd: checks the arguments and plans out = self padded with value, pad holding (before,
 * after) pairs from the last dimension.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnConstantPadNd.
 */
ACLNN_API aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad,
                                                         const aclScalar *value, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnConstantPadNd: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnConstantPadNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CONSTANT_PAD_ND_H_ */
