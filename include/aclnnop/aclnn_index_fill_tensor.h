/* Declarations as in hicann/ops-nn index/index_fill_d/op_api/aclnn_index_fill_tensor.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_index_fill_tensor.h
 * @brief aclnnIndexFillTensor, aclnnInplaceIndexFillTensor: out = self with its slices at index along dim set to
 *        value.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_INDEX_FILL_TENSOR_H_
#define ACLNNOP_ACLNN_INDEX_FILL_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnIndexFillTensor: checks the arguments and plans out = self with its slices at index along dim set
 * to value.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnIndexFillTensor.
 */
ACLNN_API aclnnStatus aclnnIndexFillTensorGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclIntArray *index,
                                                           const aclScalar *value, aclTensor *out,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnIndexFillTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnIndexFillTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceIndexFillTensor: checks the arguments and plans aclnnIndexFillTensor with the result
 * written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceIndexFillTensor.
 */
ACLNN_API aclnnStatus aclnnInplaceIndexFillTensorGetWorkspaceSize(
    aclTensor *selfRef, int64_t dim, const aclIntArray *index, const aclScalar *value, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceIndexFillTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceIndexFillTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_FILL_TENSOR_H_ */
