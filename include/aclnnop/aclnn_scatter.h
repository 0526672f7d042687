/* Declarations as in hicann/ops-nn index/scatter_elements_v2/op_api/aclnn_scatter.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_scatter.h
 * @brief aclnnScatter and its variants: values written at indices along a dimension.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_SCATTER_H_
#define ACLNNOP_ACLNN_SCATTER_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnScatter: checks the arguments and plans out = self with src written at index along dim (reduce 0
 * none, 1 add, 2 multiply).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnScatter.
 */
ACLNN_API aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                   const aclTensor *src, int64_t reduce, aclTensor *out,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnScatter: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   const aclrtStream stream);

/**
 * Phase 1 of aclnnScatterValue: checks the arguments and plans out = self with value written at index along dim
 * (reduce 0 none, 1 add, 2 multiply).
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnScatterValue.
 */
ACLNN_API aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                        const aclScalar *value, int64_t reduce, aclTensor *out,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnScatterValue: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnScatterValue(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        const aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceScatter: checks the arguments and plans aclnnScatter with the result written into @p
 * selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceScatter.
 */
ACLNN_API aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                          const aclTensor *src, int64_t reduce, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceScatter: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceScatterValue: checks the arguments and plans aclnnScatterValue with the result written
 * into @p selfRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnInplaceScatterValue.
 */
ACLNN_API aclnnStatus aclnnInplaceScatterValueGetWorkspaceSize(
    aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclScalar *value, int64_t reduce,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnInplaceScatterValue: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnInplaceScatterValue(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SCATTER_H_ */
