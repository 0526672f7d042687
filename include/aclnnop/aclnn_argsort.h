/* Declarations as in hicann/ops-math math/sort/op_api/aclnn_argsort.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_argsort.h
 * @brief aclnnArgsort: out = the indices that sort self along dim.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ARGSORT_H_
#define ACLNNOP_ACLNN_ARGSORT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnArgsort: checks the arguments and plans out = the indices that sort self along dim.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnArgsort.
 */
ACLNN_API aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim, bool descending, aclTensor *out,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnArgsort: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnArgsort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ARGSORT_H_ */
