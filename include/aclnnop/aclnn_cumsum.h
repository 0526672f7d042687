/* Declarations as in hicann/ops-math math/cumsum/op_api/aclnn_cumsum.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_cumsum.h
 * @brief aclnnCumsum, aclnnCumsumV2: out = the cumulative sum of self along dim, in dtype.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_CUMSUM_H_
#define ACLNNOP_ACLNN_CUMSUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnCumsum: checks the arguments and plans out = the cumulative sum of self along dim, in dtype.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnCumsum.
 */
ACLNN_API aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnCumsum: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnCumsum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnCumsumV2: checks the arguments and plans out = the cumulative sum of self along dim, exclusive
 * and/or reversed on request.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnCumsumV2.
 */
ACLNN_API aclnnStatus aclnnCumsumV2GetWorkspaceSize(const aclTensor *self, int64_t dim, bool exclusive, bool reverse,
                                                    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnCumsumV2: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnCumsumV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CUMSUM_H_ */
