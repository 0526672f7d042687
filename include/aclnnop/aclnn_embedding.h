/* Declarations as in hicann/ops-nn index/embedding/op_api/aclnn_embedding.h @ e5c3fa9327ea. */
/**
 * @file aclnnop/aclnn_embedding.h
 * @brief aclnnEmbedding: out = the rows of weight picked by indices.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_EMBEDDING_H_
#define ACLNNOP_ACLNN_EMBEDDING_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnEmbedding: checks the arguments and plans out = the rows of weight picked by indices.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnEmbedding.
 */
ACLNN_API aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices,
                                                     const aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/** Phase 2 of aclnnEmbedding: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EMBEDDING_H_ */
