/* Declarations as in hicann/ops-math conversion/concat_d/op_api/aclnn_cat.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_cat.h
 * @brief aclnnCat: out = tensors concatenated along dim.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_CAT_H_
#define ACLNNOP_ACLNN_CAT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnCat: checks the arguments and plans out = tensors concatenated along dim.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnCat.
 */
ACLNN_API aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnCat: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnCat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CAT_H_ */
