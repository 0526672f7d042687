/* Declarations as in hicann/ops-cv image/resize_nearest_neighbor_v2/op_api/aclnn_upsample_nearest_2d.h @ 6ae87653464d. */
/**
 * @file aclnnop/aclnn_upsample_nearest_2d.h
 * @brief aclnnUpsampleNearest2d: out = self resized to outputSize by nearest neighbour.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnUpsampleNearest2d: checks the arguments and plans out = self resized to outputSize by nearest
 * neighbour.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnUpsampleNearest2d.
 */
ACLNN_API aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnUpsampleNearest2d: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnUpsampleNearest2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H_ */
