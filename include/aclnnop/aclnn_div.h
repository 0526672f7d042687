/* Declarations as in hicann/ops-math math/div/op_api/aclnn_div.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_div.h
 * @brief aclnnDiv and its variants: element-wise division, with optional rounding.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_DIV_H_
#define ACLNNOP_ACLNN_DIV_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnDiv: checks the arguments and plans out = self / other, broadcast.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnDiv.
 */
ACLNN_API aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnDivs: checks the arguments and plans out = self / other, with other a scalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnDivs.
 */
ACLNN_API aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnDivMod: checks the arguments and plans out = self / other rounded as mode says (0 none, 1 toward
 * zero, 2 down).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnDivMod.
 */
ACLNN_API aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor *self, const aclTensor *other, int mode,
                                                  aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnDivMods: checks the arguments and plans out = self / other rounded as mode says, with other a
 * scalar.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnDivMods.
 */
ACLNN_API aclnnStatus aclnnDivModsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, int mode,
                                                   aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceDiv: checks the arguments and plans aclnnDiv with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceDiv.
 */
ACLNN_API aclnnStatus aclnnInplaceDivGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceDivs: checks the arguments and plans aclnnDivs with the result written into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceDivs.
 */
ACLNN_API aclnnStatus aclnnInplaceDivsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceDivMod: checks the arguments and plans aclnnDivMod with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceDivMod.
 */
ACLNN_API aclnnStatus aclnnInplaceDivModGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, int mode,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 1 of aclnnInplaceDivMods: checks the arguments and plans aclnnDivMods with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceDivMods.
 */
ACLNN_API aclnnStatus aclnnInplaceDivModsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other, int mode,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnDiv: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/** Phase 2 of aclnnDivs: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnDivs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/** Phase 2 of aclnnDivMod: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnDivMod(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/** Phase 2 of aclnnDivMods: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnDivMods(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

/** Phase 2 of aclnnInplaceDiv: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

/** Phase 2 of aclnnInplaceDivs: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceDivs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

/** Phase 2 of aclnnInplaceDivMod: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceDivMod(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

/** Phase 2 of aclnnInplaceDivMods: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceDivMods(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DIV_H_ */
