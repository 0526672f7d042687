/* Declarations as in hicann/ops-math math/mul/op_api/aclnn_mul.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_mul.h
 * @brief aclnnMul, aclnnMuls and in-place forms: element-wise product.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_MUL_H_
#define ACLNNOP_ACLNN_MUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMuls: checks the arguments and plans out = self * other, with other a scalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMuls.
 */
ACLNN_API aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnMul: checks the arguments and plans out = self * other, broadcast.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnMul.
 */
ACLNN_API aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceMuls: checks the arguments and plans aclnnMuls with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceMuls.
 */
ACLNN_API aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceMul: checks the arguments and plans aclnnMul with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceMul.
 */
ACLNN_API aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnMuls: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMuls(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/** Phase 2 of aclnnMul: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/** Phase 2 of aclnnInplaceMuls: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceMuls(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

/** Phase 2 of aclnnInplaceMul: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MUL_H_ */
