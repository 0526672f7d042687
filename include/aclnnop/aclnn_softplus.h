/* Declarations as in hicann/ops-nn activation/softplus_v2/op_api/aclnn_softplus.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_softplus.h
 * @brief aclnnSoftplus: out = log(1 + exp(beta * self)) / beta, self where beta * self > threshold.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SOFTPLUS_H_
#define ACLNNOP_ACLNN_SOFTPLUS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSoftplus: checks the arguments and plans out = log(1 + exp(beta * self)) / beta, self where beta
 * * self > threshold.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSoftplus.
 */
ACLNN_API aclnnStatus aclnnSoftplusGetWorkspaceSize(const aclTensor *self, const aclScalar *beta,
                                                    const aclScalar *threshold, aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor);

/** Phase 2 of aclnnSoftplus: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSoftplus(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SOFTPLUS_H_ */
