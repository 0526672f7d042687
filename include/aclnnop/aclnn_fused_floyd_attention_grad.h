/**
 * @file aclnnop/aclnn_fused_floyd_attention_grad.h
 * @brief aclnnFusedFloydAttentionGrad: backward of Floyd attention.
 *
 * Floyd attention treats the sequence axis N as a batch axis as well. For
 * each batch b and head h (Q [N,M,D], K1/V1 [N,K,D], K2/V2 [K,M,D]):
 *
 *   S[n,m,k]  = scaleValue * (sum_d Q[n,m,d]*K1[n,k,d] + sum_d Q[n,m,d]*K2[k,m,d]),
 *               replaced by -3.4028235e38 (float lowest, not -inf) where
 *               attenMaskOptional[b,0,n,0,k] != 0;
 *   P         = exp(S - softmaxMax[...,0]) / softmaxSum[...,0]  (recomputed
 *               from the saved forward statistics, never stored);
 *   Dsum[n,m] = sum_d dy*attentionIn;
 *   dP[n,m,k] = sum_d dy[n,m,d]*(V1[n,k,d] + V2[k,m,d]);
 *   dS        = P * (dP - Dsum);
 *   dq        = scaleValue * sum_k dS*(K1[n,k,:] + K2[k,m,:]);
 *   dk1[n,k]  = scaleValue * sum_m dS*Q[n,m,:];   dv1[n,k] = sum_m P*dy[n,m,:];
 *   dk2[k,m]  = scaleValue * sum_n dS*Q[n,m,:];   dv2[k,m] = sum_n P*dy[n,m,:].
 *
 * As in CANN's kernel, the factor is scaleValue (CANN's documentation writes
 * 1/sqrt(d)), and dS is not masked again: a fully masked row, whose forward
 * softmax is uniform over K, passes (dP - Dsum)/K on to dq, dk1 and dk2.
 *
 * Computed in fp32 (fp16/bf16 inputs are widened exactly; outputs are stored
 * with round-to-nearest-even), in tiles, with P recomputed tile by tile.
 * Unlike CANN (atomic accumulation), results are deterministic: bit-identical
 * for every thread count and every SIMD level.
 */
#ifndef ACLNNOP_ACLNN_FUSED_FLOYD_ATTENTION_GRAD_H_
#define ACLNNOP_ACLNN_FUSED_FLOYD_ATTENTION_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnFusedFloydAttentionGrad.
 *
 * Checks, in this order:
 *  1. @p workspaceSize, @p executor, or a required tensor (every one but
 *     @p attenMaskOptional) NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  2. the emulated product is Ascend910 (training series) or Ascend950,
 *     which do not offer this operator -> ACLNN_ERR_PARAM_INVALID (161002);
 *  3. dtypes -> 161002: query FLOAT16, BFLOAT16 or FLOAT; key1, value1,
 *     key2, value2, dy, attentionIn and the five outputs the dtype of query;
 *     softmaxMax and softmaxSum FLOAT; attenMaskOptional BOOL or UINT8
 *     (BOOL only when query is FLOAT: CANN registers no FLOAT + UINT8 kernel);
 *  4. a private storage format (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, NDC1HWC0, ...)
 *     on any tensor -> 161002;
 *  5. shapes -> ACLNN_ERR_INNER_TILING_ERROR (561002): every tensor of rank 5;
 *     no dimension 0; query [B,H,N,M,D], key1 [B,H,N,K,D], key2 [B,H,K,M,D]
 *     with N % 16 == 0, M % 128 == 0, K % 128 == 0, D in {32, 64, 128};
 *     softmaxMax and softmaxSum [B,H,N,M,8]; attenMaskOptional [B,1,N,1,K];
 *     value1 = key1, value2 = key2, dy = attentionIn = query in shape; dqOut
 *     the shape of query, dk1Out/dv1Out of key1, dk2Out/dv2Out of key2;
 *  6. a tensor whose data is NULL -> 161002; a view outside device memory
 *     from aclrtMalloc -> 161002 (aclnn_emu only: the device would fault);
 *     an output overlapping (first to last byte) an input or another
 *     output -> 161002 (aclnn_emu only: CANN leaves the result undefined).
 * Every tensor may have any strides and offset. An output whose elements
 * overlap each other (a stride of 0, say) is written row by row in order,
 * so the last row wins.
 *
 * @param query Q [B,H,N,M,D].
 * @param key1 K1 [B,H,N,K,D].
 * @param value1 V1 [B,H,N,K,D].
 * @param key2 K2 [B,H,K,M,D].
 * @param value2 V2 [B,H,K,M,D].
 * @param dy gradient of the attention output [B,H,N,M,D].
 * @param attenMaskOptional NULL, or [B,1,N,1,K]; a non-zero element masks
 *        that key for every head and every m.
 * @param softmaxMax forward row maxima [B,H,N,M,8] (element 0 of the last
 *        axis is read; the forward writes the value 8 times).
 * @param softmaxSum forward row sums of exp(S - max) [B,H,N,M,8] (element 0 read).
 * @param attentionIn forward output [B,H,N,M,D].
 * @param scaleValue the scale applied to the scores.
 * @param dqOut gradient of query.
 * @param dk1Out gradient of key1.
 * @param dv1Out gradient of value1.
 * @param dk2Out gradient of key2.
 * @param dv2Out gradient of value2.
 * @param workspaceSize out: bytes of workspace phase 2 needs (per-thread tiles
 *        and, for FLOAT16/BFLOAT16 or non-contiguous tensors, fp32 copies).
 * @param executor out: the plan, consumed by aclnnFusedFloydAttentionGrad
 *        unless made repeatable with aclSetAclOpExecutorRepeatable.
 * @return ACLNN_SUCCESS or a code listed above.
 */
ACLNN_API aclnnStatus aclnnFusedFloydAttentionGradGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key1, const aclTensor *value1, const aclTensor *key2,
    const aclTensor *value2, const aclTensor *dy, const aclTensor *attenMaskOptional, const aclTensor *softmaxMax,
    const aclTensor *softmaxSum, const aclTensor *attentionIn, double scaleValue, const aclTensor *dqOut,
    const aclTensor *dk1Out, const aclTensor *dv1Out, const aclTensor *dk2Out, const aclTensor *dv2Out,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Phase 2 of aclnnFusedFloydAttentionGrad: runs the plan on @p stream
 * (NULL: the default stream).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnFusedFloydAttentionGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FUSED_FLOYD_ATTENTION_GRAD_H_ */
