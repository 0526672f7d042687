/* Declarations as in cannmirror/ops-transformer attention/recurrent_gated_delta_rule/op_host/op_api/aclnn_recurrent_gated_delta_rule.h @ 05c401f9ddeb. */
/**
 * @file aclnnop/aclnn_recurrent_gated_delta_rule.h
 * @brief aclnnRecurrentGatedDeltaRule: out = gated delta rule linear attention over query, key and value, updating
 *        stateRef.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H_
#define ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRecurrentGatedDeltaRule: checks the arguments and plans out = gated delta rule linear attention
 * over query, key and value, updating stateRef.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnRecurrentGatedDeltaRule.
 */
ACLNN_API aclnnStatus aclnnRecurrentGatedDeltaRuleGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *beta, aclTensor *stateRef,
    const aclTensor *actualSeqLengths, const aclTensor *ssmStateIndices, const aclTensor *g, const aclTensor *gk,
    const aclTensor *numAcceptedTokens, float scaleValue, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of aclnnRecurrentGatedDeltaRule: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnRecurrentGatedDeltaRule(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H_ */
