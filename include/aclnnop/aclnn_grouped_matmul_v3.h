/* Declarations as in cannmirror/ops-transformer gmm/grouped_matmul/op_host/op_api/aclnn_grouped_matmul_v3.h @ 05c401f9ddeb. */
/**
 * @file aclnnop/aclnn_grouped_matmul_v3.h
 * @brief aclnnGroupedMatmulV3: y[i] = x[i] @ weight[i] (+ bias[i]) for every group.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H_
#define ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGroupedMatmulV3: checks the arguments and plans y[i] = x[i] @ weight[i] (+ bias[i]) for every
 * group.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGroupedMatmulV3.
 */
ACLNN_API aclnnStatus aclnnGroupedMatmulV3GetWorkspaceSize(const aclTensorList *x, const aclTensorList *weight,
                                                           const aclTensorList *biasOptional,
                                                           const aclTensorList *scaleOptional,
                                                           const aclTensorList *offsetOptional,
                                                           const aclTensorList *antiquantScaleOptional,
                                                           const aclTensorList *antiquantOffsetOptional,
                                                           const aclTensor *groupListOptional, int64_t splitItem,
                                                           int64_t groupType, const aclTensorList *y,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnGroupedMatmulV3: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGroupedMatmulV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H_ */
