/**
 * @file aclnnop/aclnn_moe_token_permute_grad.h
 * @brief aclnnMoeTokenPermuteGrad: gradient of aclnnMoeTokenPermute.
 *
 * With T = len(sortedIndices) / numTopk tokens and R = rows of
 * permutedOutputGrad:
 *
 *     out[t, :] = sum over k < numTopk of permutedOutputGrad[sortedIndices[t * numTopk + k], :]
 *
 * a gather (sortedIndices is the forward's sortedIndicesOut: slot -> row),
 * not a scatter. Indices outside [0, R) are skipped and never read (rows
 * that the forward dropped with numOutTokens are >= R; negative values, which
 * the device would read out of bounds, are skipped too). The sum runs in
 * fp32 in increasing k, starting from the first kept row, and is rounded
 * once to out's dtype (round to nearest even); a token with no kept row
 * gets +0. Deterministic and bit-identical for any thread count and SIMD
 * level.
 */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_GRAD_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMoeTokenPermuteGrad.
 *
 * Checks, in this order:
 *  1. @p workspaceSize or @p executor NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  2. @p permutedOutputGrad, @p sortedIndices or @p out NULL -> 161001;
 *  3. permutedOutputGrad not FLOAT, FLOAT16 or BFLOAT16, out not the same
 *     dtype, or sortedIndices not INT32 -> ACLNN_ERR_PARAM_INVALID (161002);
 *  4. @p paddedMode true -> 161002 (no product implements padded mode);
 *  5. @p numTopk < 1, or not dividing the length of sortedIndices -> 161002
 *     (numTopk > 512, beyond the documented limit, is accepted);
 *  6. shapes -> ACLNN_ERR_INNER_TILING_ERROR (561002): permutedOutputGrad
 *     or out not 2-D, sortedIndices not 1-D, out not
 *     [len(sortedIndices) / numTopk, permutedOutputGrad.shape[1]]
 *     (the A2/A3 device does not check these; aclnn_emu reports them as
 *     the tiling errors they would be);
 *  7. a non-empty tensor whose data is NULL or outside aclrtMalloc memory
 *     -> 161002 (aclnn_emu only);
 *  8. @p out overlapping (first to last byte) an input -> 161002 (aclnn_emu
 *     only: CANN leaves the result undefined).
 * Formats are not checked. Any strides and offsets are accepted; empty
 * tensors succeed (an empty permutedOutputGrad with tokens left gives
 * zeros). Index values are read in phase 2 only.
 *
 * @param permutedOutputGrad [R, H] gradient of permuteTokensOut.
 * @param sortedIndices [T * numTopk] INT32, the forward's sortedIndicesOut.
 * @param numTopk experts per token.
 * @param paddedMode must be false.
 * @param out [T, H] result, same dtype as permutedOutputGrad.
 * @param workspaceSize out: bytes phase 2 needs (staging for layouts that
 *        are not row-contiguous; 0 otherwise).
 * @param executor out: the plan, consumed by aclnnMoeTokenPermuteGrad.
 */
ACLNN_API aclnnStatus aclnnMoeTokenPermuteGradGetWorkspaceSize(const aclTensor *permutedOutputGrad,
                                                               const aclTensor *sortedIndices, int64_t numTopk,
                                                               bool paddedMode, aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 2 of aclnnMoeTokenPermuteGrad: runs the plan on @p stream (NULL: default).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnMoeTokenPermuteGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_GRAD_H_ */
