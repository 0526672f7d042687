/* Declarations as in hicann/ops-nn index/repeat_interleave/op_api/aclnn_repeat_interleave.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_repeat_interleave.h
 * @brief aclnnRepeatInterleave and its variants: elements or slices repeated.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_REPEAT_INTERLEAVE_H_
#define ACLNNOP_ACLNN_REPEAT_INTERLEAVE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRepeatInterleave: checks the arguments and plans out = each element of flattened self repeated
 * repeats times.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRepeatInterleave.
 */
ACLNN_API aclnnStatus aclnnRepeatInterleaveGetWorkspaceSize(const aclTensor *self, const aclTensor *repeats,
                                                            int64_t outputSize, aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

/** Phase 2 of aclnnRepeatInterleave: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRepeatInterleave(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

/**
 * Phase 1 of aclnnRepeatInterleaveWithDim: checks the arguments and plans out = each slice of self along dim
 * repeated repeats times.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRepeatInterleaveWithDim.
 */
ACLNN_API aclnnStatus aclnnRepeatInterleaveWithDimGetWorkspaceSize(
    const aclTensor *self, const aclTensor *repeats, int64_t dim, int64_t outputSize, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnRepeatInterleaveWithDim: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRepeatInterleaveWithDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

/**
 * Phase 1 of aclnnRepeatInterleaveInt: checks the arguments and plans out = each element of flattened self repeated
 * repeats times, repeats an integer.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRepeatInterleaveInt.
 */
ACLNN_API aclnnStatus aclnnRepeatInterleaveIntGetWorkspaceSize(
    const aclTensor *self, int64_t repeats, int64_t outputSize, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnRepeatInterleaveInt: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRepeatInterleaveInt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

/**
 * Phase 1 of aclnnRepeatInterleaveIntWithDim: checks the arguments and plans out = each slice of self along dim
 * repeated repeats times, repeats an integer.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRepeatInterleaveIntWithDim.
 */
ACLNN_API aclnnStatus aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(
    const aclTensor *self, int64_t repeats, int64_t dim, int64_t outputSize, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnRepeatInterleaveIntWithDim: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRepeatInterleaveIntWithDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                      aclrtStream stream);

/**
 * Phase 1 of aclnnRepeatInterleaveTensor: checks the arguments and plans out = each index i repeated repeats[i]
 * times.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRepeatInterleaveTensor.
 */
ACLNN_API aclnnStatus aclnnRepeatInterleaveTensorGetWorkspaceSize(
    const aclTensor *repeats, int64_t outputSize, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnRepeatInterleaveTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRepeatInterleaveTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REPEAT_INTERLEAVE_H_ */
