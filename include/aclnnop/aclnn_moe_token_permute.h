/**
 * @file aclnnop/aclnn_moe_token_permute.h
 * @brief aclnnMoeTokenPermute: copies each token once per chosen expert,
 *        grouped by expert.
 *
 * With indices [T, topK] (or [T], topK = 1) and n = T * topK:
 *
 *     first            = stable argsort(flatten(indices))
 *     sortedIndicesOut = stable argsort(first)      (slot -> permuted row)
 *     permuteTokensOut[sortedIndicesOut[i]] = tokens[i / topK]   for rows < kept
 *
 * kept = numOutTokens > 0 ? min(numOutTokens, n)
 *                         : max(n + numOutTokens, 0)   (0 keeps all; < 0
 * drops that many rows from the end, like a negative slice). Rows
 * >= kept are dropped; sortedIndicesOut still numbers every slot, so the
 * dropped slots hold values >= kept, which aclnnMoeTokenPermuteGrad skips.
 * Expert ids are compared as signed integers: ids outside [0, 16777215),
 * which the documentation excludes, still sort by value. Rows are copied
 * bit for bit. Deterministic.
 */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMoeTokenPermute.
 *
 * Checks, in this order:
 *  1. @p workspaceSize or @p executor NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  2. @p tokens, @p indices, @p permuteTokensOut or @p sortedIndicesOut
 *     NULL -> 161001;
 *  3. tokens not FLOAT, FLOAT16 or BFLOAT16, permuteTokensOut not the same
 *     dtype, indices not INT32 or INT64, or sortedIndicesOut not INT32
 *     -> ACLNN_ERR_PARAM_INVALID (161002);
 *  4. @p paddedMode true -> 161002 (the documentation lists 561002 for
 *     A2/A3 and the Ascend950 code returns 161002; aclnn_emu uses 161002
 *     everywhere, padded mode being implemented by no product);
 *  5. shapes -> ACLNN_ERR_INNER_TILING_ERROR (561002), as the device's
 *     tiling: tokens of rank < 2; indices not 1-D or 2-D; indices.shape[0]
 *     != tokens.shape[0]; topK > 512; T * topK >= 16777215;
 *     permuteTokensOut of rank < 2, or its shape[0] != kept, or the product
 *     of its other dimensions != that of tokens; sortedIndicesOut not 1-D
 *     of length T * topK;
 *  6. a non-empty tensor whose data is NULL or outside aclrtMalloc memory
 *     -> 161002 (aclnn_emu only);
 *  7. an output whose bytes (first to last element) overlap those of an
 *     input or of the other output -> 161002 (aclnn_emu only: CANN leaves
 *     the result undefined).
 * Formats are not checked. Every tensor may have any strides and offset
 * (the documentation requires contiguous outputs; aclnn_emu accepts any).
 * Empty tensors succeed.
 *
 * @param tokens [T, ...] rows to permute.
 * @param indices [T, topK] or [T], INT32 or INT64 expert ids.
 * @param numOutTokens rows to keep (see above).
 * @param paddedMode must be false.
 * @param permuteTokensOut [kept, ...] output rows, tokens' dtype.
 * @param sortedIndicesOut [T * topK] INT32 output.
 * @param workspaceSize out: bytes phase 2 needs (the sort's arrays, and
 *        staging for layouts that are not row-contiguous).
 * @param executor out: the plan, consumed by aclnnMoeTokenPermute.
 */
ACLNN_API aclnnStatus aclnnMoeTokenPermuteGetWorkspaceSize(const aclTensor *tokens, const aclTensor *indices,
                                                           int64_t numOutTokens, bool paddedMode,
                                                           const aclTensor *permuteTokensOut,
                                                           const aclTensor *sortedIndicesOut, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

/**
 * Phase 2 of aclnnMoeTokenPermute: runs the plan on @p stream (NULL: default).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnMoeTokenPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_H_ */
