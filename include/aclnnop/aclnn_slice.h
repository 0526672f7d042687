/* Declarations as in hicann/ops-math conversion/slice/op_api/aclnn_slice.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_slice.h
 * @brief aclnnSlice: out = self[start:end:step] along dim.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SLICE_H_
#define ACLNNOP_ACLNN_SLICE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSlice: checks the arguments and plans out = self[start:end:step] along dim.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSlice.
 */
ACLNN_API aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start, int64_t end,
                                                 int64_t step, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

/** Phase 2 of aclnnSlice: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSlice(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SLICE_H_ */
