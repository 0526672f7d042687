/* Declarations as in hicann/ops-nn activation/elu/op_api/aclnn_elu.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_elu.h
 * @brief aclnnElu, aclnnInplaceElu: out = scale * (self > 0 ? self : alpha * (exp(self * inputScale) - 1)).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ELU_H_
#define ACLNNOP_ACLNN_ELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnElu: checks the arguments and plans out = scale * (self > 0 ? self : alpha * (exp(self *
 * inputScale) - 1)).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnElu.
 */
ACLNN_API aclnnStatus aclnnEluGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha, const aclScalar *scale,
                                               const aclScalar *inputScale, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

/** Phase 2 of aclnnElu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnElu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceElu: checks the arguments and plans aclnnElu with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceElu.
 */
ACLNN_API aclnnStatus aclnnInplaceEluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *alpha,
                                                      const aclScalar *scale, const aclScalar *inputScale,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceElu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceElu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ELU_H_ */
