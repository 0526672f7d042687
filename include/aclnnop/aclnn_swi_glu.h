/* Declarations as in hicann/ops-nn activation/swi_glu/docs/aclnnSwiGlu.md @ e5c3fa9327ea (CANN generates this header at build time). */
/**
 * @file aclnnop/aclnn_swi_glu.h
 * @brief aclnnSwiGlu: x split in halves a, b along dim: out = silu(a) * b.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SWI_GLU_H_
#define ACLNNOP_ACLNN_SWI_GLU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSwiGlu: checks the arguments and plans x split in halves a, b along dim: out = silu(a) * b.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnSwiGlu.
 */
ACLNN_API aclnnStatus aclnnSwiGluGetWorkspaceSize(const aclTensor *x, int64_t dim, const aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnSwiGlu: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnSwiGlu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SWI_GLU_H_ */
