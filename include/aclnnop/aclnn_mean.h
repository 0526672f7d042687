/* Declarations as in hicann/ops-math math/reduce_mean/op_api/aclnn_mean.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_mean.h
 * @brief aclnnMean, aclnnMeanV2: out = the mean of self over dim, in dtype.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_MEAN_H_
#define ACLNNOP_ACLNN_MEAN_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMean: checks the arguments and plans out = the mean of self over dim, in dtype.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMean.
 */
ACLNN_API aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

/** Phase 2 of aclnnMean: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMean(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnMeanV2: checks the arguments and plans out = the mean of self over dim, noopWithEmptyAxes saying
 * what an empty dim means.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMeanV2.
 */
ACLNN_API aclnnStatus aclnnMeanV2GetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                  bool noopWithEmptyAxes, aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

/** Phase 2 of aclnnMeanV2: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMeanV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MEAN_H_ */
