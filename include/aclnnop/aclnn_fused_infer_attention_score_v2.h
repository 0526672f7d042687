/* Declarations as in cannmirror/ops-transformer attention/fused_infer_attention_score/op_host/op_api/aclnn_fused_infer_attention_score_v2.h @ 05c401f9ddeb. */
/**
 * @file aclnnop/aclnn_fused_infer_attention_score_v2.h
 * @brief aclnnFusedInferAttentionScoreV2: attentionOut = softmax(scaleValue * query @ key^T + mask) @ value, for
 *        inference.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_FUSED_INFER_ATTENTION_SCORE_V2_H_
#define ACLNNOP_ACLNN_FUSED_INFER_ATTENTION_SCORE_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnFusedInferAttentionScoreV2: checks the arguments and plans attentionOut = softmax(scaleValue *
 * query @ key^T + mask) @ value, for inference.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnFusedInferAttentionScoreV2.
 */
ACLNN_API aclnnStatus aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
    const aclTensor *query, const aclTensorList *key, const aclTensorList *value, const aclTensor *pseShiftOptional,
    const aclTensor *attenMaskOptional, const aclIntArray *actualSeqLengthsOptional,
    const aclIntArray *actualSeqLengthsKvOptional, const aclTensor *deqScale1Optional,
    const aclTensor *quantScale1Optional, const aclTensor *deqScale2Optional, const aclTensor *quantScale2Optional,
    const aclTensor *quantOffset2Optional, const aclTensor *antiquantScaleOptional,
    const aclTensor *antiquantOffsetOptional, const aclTensor *blockTableOptional,
    const aclTensor *queryPaddingSizeOptional, const aclTensor *kvPaddingSizeOptional,
    const aclTensor *keyAntiquantScaleOptional, const aclTensor *keyAntiquantOffsetOptional,
    const aclTensor *valueAntiquantScaleOptional, const aclTensor *valueAntiquantOffsetOptional,
    const aclTensor *keySharedPrefixOptional, const aclTensor *valueSharedPrefixOptional,
    const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue, int64_t preTokens,
    int64_t nextTokens, char *inputLayout, int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise,
    int64_t blockSize, int64_t antiquantMode, bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
    const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnFusedInferAttentionScoreV2: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnFusedInferAttentionScoreV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                      const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FUSED_INFER_ATTENTION_SCORE_V2_H_ */
