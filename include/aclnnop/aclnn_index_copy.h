/* Declarations as in hicann/ops-nn index/scatter_update/op_api/aclnn_index_copy.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_index_copy.h
 * @brief aclnnIndexCopy, aclnnInplaceIndexCopy: outRef = selfRef with its slices at index along dim replaced by
 *        source.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_INDEX_COPY_H_
#define ACLNNOP_ACLNN_INDEX_COPY_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnIndexCopy: checks the arguments and plans outRef = selfRef with its slices at index along dim
 * replaced by source.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnIndexCopy.
 */
ACLNN_API aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                     const aclTensor *source, aclTensor *outRef,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnIndexCopy: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceIndexCopy: checks the arguments and plans aclnnIndexCopy with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceIndexCopy.
 */
ACLNN_API aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                            const aclTensor *source, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceIndexCopy: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_COPY_H_ */
