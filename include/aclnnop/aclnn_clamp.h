/* Declarations as in hicann/ops-math conversion/clip_by_value_v2/op_api/aclnn_clamp.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_clamp.h
 * @brief aclnnClamp and its variants: self clamped to scalar or tensor bounds.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_CLAMP_H_
#define ACLNNOP_ACLNN_CLAMP_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnClamp: checks the arguments and plans out = min(max(self, clipValueMin), clipValueMax), scalar
 * bounds.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnClamp.
 */
ACLNN_API aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                 const aclScalar *clipValueMax, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

/** Phase 2 of aclnnClamp: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnClamp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 const aclrtStream stream);

/**
 * Phase 1 of aclnnClampMin: checks the arguments and plans out = max(self, clipValueMin), a scalar bound.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnClampMin.
 */
ACLNN_API aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnClampMin: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnClampMin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    const aclrtStream stream);

/**
 * Phase 1 of aclnnClampTensor: checks the arguments and plans out = min(max(self, clipValueMin), clipValueMax),
 * tensor bounds.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnClampTensor.
 */
ACLNN_API aclnnStatus aclnnClampTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *clipValueMin,
                                                       const aclTensor *clipValueMax, aclTensor *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnClampMinTensor: checks the arguments and plans out = max(self, clipValueMin), a tensor bound.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnClampMinTensor.
 */
ACLNN_API aclnnStatus aclnnClampMinTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *clipValueMin,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

/** Phase 2 of aclnnClampMinTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnClampMinTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceClampMinTensor: checks the arguments and plans aclnnClampMinTensor with the result written
 * into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceClampMinTensor.
 */
ACLNN_API aclnnStatus aclnnInplaceClampMinTensorGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *clipValueMin, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceClampMinTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceClampMinTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 const aclrtStream stream);

/** Phase 2 of aclnnClampTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnClampTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

/**
 * Phase 1 of aclnnClampMax: checks the arguments and plans out = min(self, clipValueMax), a scalar bound.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnClampMax.
 */
ACLNN_API aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMax,
                                                    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnClampMax: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnClampMax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceClampMax: checks the arguments and plans aclnnClampMax with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceClampMax.
 */
ACLNN_API aclnnStatus aclnnInplaceClampMaxGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *clipValueMax,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceClampMax: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceClampMax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

/**
 * Phase 1 of aclnnClampMaxTensor: checks the arguments and plans out = min(self, max), a tensor bound.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnClampMaxTensor.
 */
ACLNN_API aclnnStatus aclnnClampMaxTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *max, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceClampMaxTensor: checks the arguments and plans aclnnClampMaxTensor with the result written
 * into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceClampMaxTensor.
 */
ACLNN_API aclnnStatus aclnnInplaceClampMaxTensorGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *max, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnClampMaxTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnClampMaxTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

/** Phase 2 of aclnnInplaceClampMaxTensor: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceClampMaxTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CLAMP_H_ */
