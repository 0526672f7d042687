/* Declarations as in hicann/ops-nn index/gather_v2/op_api/aclnn_index_select.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_index_select.h
 * @brief aclnnIndexSelect: out = the slices of self at index along dim.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_INDEX_SELECT_H_
#define ACLNNOP_ACLNN_INDEX_SELECT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnIndexSelect: checks the arguments and plans out = the slices of self at index along dim.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnIndexSelect.
 */
ACLNN_API aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                       aclTensor *out, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

/** Phase 2 of aclnnIndexSelect: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnIndexSelect(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_SELECT_H_ */
