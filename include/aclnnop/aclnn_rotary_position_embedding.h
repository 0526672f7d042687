/**
 * @file aclnnop/aclnn_rotary_position_embedding.h
 * @brief aclnnRotaryPositionEmbedding: rotary position embedding.
 *
 * out = x * cos + rotate(x) * sin, where rotate depends on @p mode:
 *  - 0 half:            rotate(x) = cat(-x2, x1) with x1, x2 the halves of the last axis;
 *  - 1 interleave:      rotate(x)[2j] = -x[2j+1], rotate(x)[2j+1] = x[2j];
 *  - 2 quarter:         rotate(x) = cat(-x2, x1, -x4, x3) over quarters;
 *  - 3 interleave-half: with x1 = x[..., 0::2], x2 = x[..., 1::2],
 *                       out = cat(x1, x2) * cos + cat(-x2, x1) * sin.
 * Computed in fp32 (one rounded product added to the other by a fused
 * multiply-add), stored in the tensors' dtype with round-to-nearest-even.
 * Deterministic; the same bits for any thread count and SIMD level.
 * aclnnRotaryPositionEmbeddingGrad is its gradient.
 */
#ifndef ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H_
#define ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRotaryPositionEmbedding.
 *
 * Checks, in this order:
 *  1. @p workspaceSize, @p executor or @p out NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  2. an empty @p out: success with workspace 0 and nothing to run, before
 *     any other check (as CANN's implementation does);
 *  3. @p x, @p cos or @p sin NULL -> 161001;
 *  4. the emulated product is Ascend910 (Atlas training series), which has
 *     no kernel for this operator -> ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003);
 *  5. a dtype not FLOAT, FLOAT16 or BFLOAT16, a dtype differing from x's,
 *     or a format other than ACL_FORMAT_ND -> ACLNN_ERR_PARAM_INVALID (161002);
 *  6. the mode, rank, D and broadcast rules of
 *     aclnnRotaryPositionEmbeddingGradGetWorkspaceSize (step 4 there, with
 *     x for dy and out for dxOut) -> ACLNN_ERR_INNER_TILING_ERROR (561002);
 *  7. a non-contiguous @p out, a non-empty tensor with NULL data, or data
 *     outside device memory -> 161002; @p out overlapping (first to last
 *     byte) an input -> 161002 (aclnn_emu only: CANN leaves it undefined).
 *
 * @param x input, BNSD/BSND/SBND (rank 4) or TND (rank 3); any strides.
 * @param cos rank of x, each axis but the last 1 or equal to x's; any strides.
 * @param sin shaped like cos; any strides.
 * @param mode 0 half, 1 interleave, 2 quarter, 3 interleave-half (2, 3: Ascend950).
 * @param out result, shape of x, contiguous.
 * @param workspaceSize out: bytes of workspace phase 2 needs (staging of
 *        non-contiguous inputs; 0 when all are contiguous).
 * @param executor out: the plan, consumed by aclnnRotaryPositionEmbedding.
 */
ACLNN_API aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x, const aclTensor *cos,
                                                                   const aclTensor *sin, int64_t mode,
                                                                   aclTensor *out, uint64_t *workspaceSize,
                                                                   aclOpExecutor **executor);

/**
 * Phase 2 of aclnnRotaryPositionEmbedding: runs the plan on @p stream (NULL: default).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize,
                                                   aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H_ */
