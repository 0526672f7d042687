/* Declarations as in hicann/ops-nn activation/ge_glu_v2/op_host/op_api/aclnn_geglu.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_geglu.h
 * @brief aclnnGeGlu, aclnnGeGluV3: self split in halves a, b along dim: out = a * gelu(b), outGelu = gelu(b).
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_GEGLU_H_
#define ACLNNOP_ACLNN_GEGLU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGeGlu: checks the arguments and plans self split in halves a, b along dim: out = a * gelu(b),
 * outGelu = gelu(b).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGeGlu.
 */
ACLNN_API aclnnStatus aclnnGeGluGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t approximate,
                                                 aclTensor *out, aclTensor *outGelu, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

/**
 * Phase 1 of aclnnGeGluV3: checks the arguments and plans as aclnnGeGlu, activateLeft choosing the half that goes
 * through gelu.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnGeGluV3.
 */
ACLNN_API aclnnStatus aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t approximate,
                                                   bool activateLeft, aclTensor *out, aclTensor *outGelu,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnGeGlu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGeGlu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/** Phase 2 of aclnnGeGluV3: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnGeGluV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GEGLU_H_ */
