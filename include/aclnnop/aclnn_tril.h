/* Declarations as in hicann/ops-math conversion/tril/op_api/aclnn_tril.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_tril.h
 * @brief aclnnTril, aclnnInplaceTril: out = self with the elements above diagonal set to zero.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_TRIL_H_
#define ACLNNOP_ACLNN_TRIL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnTril: checks the arguments and plans out = self with the elements above diagonal set to zero.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnTril.
 */
ACLNN_API aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnTril: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnTril(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceTril: checks the arguments and plans aclnnTril with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceTril.
 */
ACLNN_API aclnnStatus aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef, int64_t diagonal,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceTril: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceTril(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TRIL_H_ */
