/* Declarations as in hicann/ops-math math/range/op_api/aclnn_arange.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_arange.h
 * @brief aclnnArange: out = start, start + step, ... while below end.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ARANGE_H_
#define ACLNNOP_ACLNN_ARANGE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnArange: checks the arguments and plans out = start, start + step, ... while below end.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnArange.
 */
ACLNN_API aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                                                  aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnArange: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnArange(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ARANGE_H_ */
