/**
 * @file aclnnop/aclnn_fused_floyd_attention.h
 * @brief aclnnFusedFloydAttention: Floyd attention forward.
 *
 * For each batch b and head h (Q [N,M,D], K1/V1 [N,K,D], K2/V2 [K,M,D]):
 *
 *   S[n,m,k] = scaleValueOptional * (sum_d Q[n,m,d]*K1[n,k,d] + sum_d Q[n,m,d]*K2[k,m,d]),
 *              replaced by -3.4028235e38 (float lowest, not -inf) where the
 *              mask is non-zero, so a fully masked row gets a uniform softmax;
 *   max[n,m] = max_k S,  sum[n,m] = sum_k exp(S - max),  P = exp(S - max) / sum;
 *   attentionOut[n,m,:] = sum_k P[n,m,k] * (V1[n,k,:] + V2[k,m,:]);
 *   softmaxMaxOut[..,n,m,0..7] = max and softmaxSumOut[..,n,m,0..7] = sum,
 *   each written 8 times (CANN pads the statistics to one 32-byte block).
 *
 * The outputs feed aclnnFusedFloydAttentionGrad. Computed in fp32 in tiles
 * with an online softmax over blocks of K; outputs stored with
 * round-to-nearest-even; deterministic for every thread count and SIMD level.
 */
#ifndef ACLNNOP_ACLNN_FUSED_FLOYD_ATTENTION_H_
#define ACLNNOP_ACLNN_FUSED_FLOYD_ATTENTION_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnFusedFloydAttention.
 *
 * Checks, in this order:
 *  1. @p workspaceSize, @p executor, or a required tensor (every one but
 *     @p attenMaskOptional) NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  2. the emulated product is Ascend910 (training series) or Ascend950,
 *     which do not offer this operator -> ACLNN_ERR_PARAM_INVALID (161002);
 *  3. dtypes -> 161002: query FLOAT16, BFLOAT16 or FLOAT; key1, value1,
 *     key2, value2 and attentionOutOut the dtype of query; softmaxMaxOut and
 *     softmaxSumOut FLOAT; attenMaskOptional BOOL or UINT8;
 *  4. a private storage format (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, NDC1HWC0, ...)
 *     on any tensor -> 161002;
 *  5. shapes -> ACLNN_ERR_INNER_TILING_ERROR (561002), the constraints CANN
 *     documents: every tensor of rank 5; no dimension 0; query [B,H,N,M,D],
 *     key1 [B,H,N,K,D], key2 [B,H,K,M,D] with N % 16 == 0, M % 128 == 0,
 *     K % 128 == 0, D in {32, 64, 128}; value1 = key1 and value2 = key2 in
 *     shape; attenMaskOptional [B,1,N,1,K] (one mask row per (b, n), shared
 *     by heads and m) or [B,H,N,M,K] (a full mask, as CANN's forward sample
 *     uses); softmaxMaxOut and softmaxSumOut [B,H,N,M,8]; attentionOutOut
 *     the shape of query;
 *  6. a tensor whose data is NULL -> 161002; a view outside device memory
 *     from aclrtMalloc -> 161002 (aclnn_emu only); an output overlapping
 *     (first to last byte) an input or another output -> 161002 (aclnn_emu
 *     only: CANN leaves the result undefined).
 * Every tensor may have any strides and offset. An output whose elements
 * overlap each other (a stride of 0, say) is written row by row in order,
 * so the last row wins.
 *
 * @param query Q [B,H,N,M,D].
 * @param key1 K1 [B,H,N,K,D].
 * @param value1 V1 [B,H,N,K,D].
 * @param key2 K2 [B,H,K,M,D].
 * @param value2 V2 [B,H,K,M,D].
 * @param attenMaskOptional NULL, [B,1,N,1,K] or [B,H,N,M,K]; non-zero masks.
 * @param scaleValueOptional the scale applied to the scores (CANN's default is 1.0).
 * @param softmaxMaxOut out: row maxima [B,H,N,M,8], FLOAT.
 * @param softmaxSumOut out: row sums [B,H,N,M,8], FLOAT.
 * @param attentionOutOut out: the attention output [B,H,N,M,D].
 * @param workspaceSize out: bytes of workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnFusedFloydAttention unless
 *        made repeatable with aclSetAclOpExecutorRepeatable.
 * @return ACLNN_SUCCESS or a code listed above.
 */
ACLNN_API aclnnStatus aclnnFusedFloydAttentionGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key1, const aclTensor *value1, const aclTensor *key2,
    const aclTensor *value2, const aclTensor *attenMaskOptional, double scaleValueOptional,
    const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *attentionOutOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 2 of aclnnFusedFloydAttention: runs the plan on @p stream (NULL: the
 * default stream).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnFusedFloydAttention(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FUSED_FLOYD_ATTENTION_H_ */
