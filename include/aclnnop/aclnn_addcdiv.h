/* Declarations as in hicann/ops-math math/addcdiv/op_api/aclnn_addcdiv.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_addcdiv.h
 * @brief aclnnAddcdiv, aclnnInplaceAddcdiv: out = self + value * tensor1 / tensor2, broadcast.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_ADDCDIV_H_
#define ACLNNOP_ACLNN_ADDCDIV_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAddcdiv: checks the arguments and plans out = self + value * tensor1 / tensor2, broadcast.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnAddcdiv.
 */
ACLNN_API aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1,
                                                   const aclTensor *tensor2, const aclScalar *value,
                                                   const aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

/** Phase 2 of aclnnAddcdiv: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnAddcdiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceAddcdiv: checks the arguments and plans aclnnAddcdiv with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceAddcdiv.
 */
ACLNN_API aclnnStatus aclnnInplaceAddcdivGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *tensor1,
                                                          const aclTensor *tensor2, const aclScalar *value,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceAddcdiv: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceAddcdiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADDCDIV_H_ */
