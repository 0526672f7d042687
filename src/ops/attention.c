/* aclnnFusedInferAttentionScoreV2 (cannmirror/ops-transformer,
 * attention/fused_infer_attention_score): attentionOut = softmax(scaleValue *
 * query . key^T + pseShift) . value, with grouped key/value heads, in the
 * forms llama.cpp's CANN backend uses: FLOAT16 or BFLOAT16 query, key and
 * value in the layouts BSH, BSND, BNSD (and BNSD_BSND), an optional
 * pseShift of the query's dtype, sparseMode 0 without attenMask, any
 * innerPrecise. Quantization (INT8/INT4 inputs, INT8 output, the
 * (de)quant and antiquant tensors and modes), attenMask, actual sequence
 * lengths, left padding, paged attention, shared prefixes, tensor-list K/V
 * of several tensors and softmaxLse are refused with 161002 naming the
 * argument. Phase 2 is in attention_run.c. */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "ops/attention.h"
#include "ops/check.h"
#include "ops/floyd_common.h"
#include "ops/opdef.h"

static const char API[] = "aclnnFusedInferAttentionScoreV2GetWorkspaceSize";
static const char *const NAMES[FIA_TENSORS] = {"query", "key", "value", "pseShiftOptional", "attentionOut"};

typedef enum { LAYOUT_BSH, LAYOUT_BSND, LAYOUT_BNSD, LAYOUT_BNSD_BSND } fia_layout;

/* CANN's dtype lists (fused_infer_attention_score_tiling_check_single_para.cpp). */
static const aclDataType QUERY_TYPES[] = {ACL_FLOAT16, ACL_BF16, ACL_INT8};
static const aclDataType KV_TYPES[] = {ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_INT4};
static const aclDataType PSE_TYPES[] = {ACL_FLOAT16, ACL_BF16};

static aclnnStatus unsupported(const char *what, const char *feature)
{
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) is not supported by aclnn_emu.", API, what, feature);
}

static aclnnStatus tiling(const char *fmt_what, long long value, const char *expected)
{
    return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s is %lld; expected %s.", API, fmt_what, value, expected);
}

static aclnnStatus check_dtypes(const aclTensor *const *t)
{
    EMU_TRY(emu_check_dtype_in(API, "query", t[FIA_QUERY], QUERY_TYPES, 3));
    const aclDataType q = t[FIA_QUERY]->view.dtype;
    if (q == ACL_INT8) {
        return unsupported("query of dtype ACL_INT8", "full quantization");
    }
    for (int i = FIA_KEY; i <= FIA_VALUE; ++i) {
        EMU_TRY(emu_check_dtype_in(API, NAMES[i], t[i], KV_TYPES, 4));
        if (t[i]->view.dtype != q) {
            char what[96];
            snprintf(what, sizeof what, "%s of dtype %s with a query of %s", NAMES[i],
                     emu_dtype_name(t[i]->view.dtype), emu_dtype_name(q));
            return unsupported(what, "key/value antiquantization");
        }
    }
    if (t[FIA_PSE] != NULL) {
        EMU_TRY(emu_check_dtype_in(API, NAMES[FIA_PSE], t[FIA_PSE], PSE_TYPES, 2));
        EMU_TRY(emu_check_same_dtype(API, NAMES[FIA_PSE], t[FIA_PSE], "query", t[FIA_QUERY]));
    }
    EMU_TRY(emu_check_dtype_in(API, "attentionOut", t[FIA_OUT], QUERY_TYPES, 3));
    if (t[FIA_OUT]->view.dtype != q) {
        return t[FIA_OUT]->view.dtype == ACL_INT8 ? unsupported("attentionOut of dtype ACL_INT8", "post quantization")
                                                   : emu_check_same_dtype(API, "attentionOut", t[FIA_OUT], "query",
                                                                          t[FIA_QUERY]);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus parse_layout(const char *layout, fia_layout *out)
{
    static const char *const KNOWN[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    for (int i = 0; i < 4; ++i) {
        if (strcmp(layout, KNOWN[i]) == 0) {
            *out = (fia_layout)i;
            return ACLNN_SUCCESS;
        }
    }
    return emu_fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: inputLayout \"%.32s\" is not supported by aclnn_emu; expected BSH, BSND, BNSD or BNSD_BSND.",
                    API, layout);
}

/* (b, n, s, d) strides of a BSH/BSND/BNSD view whose head size is D. */
static void layout_strides(const emu_view *v, fia_layout layout, int64_t D, int64_t *str)
{
    const int64_t *st = v->strides;
    if (layout == LAYOUT_BSH) {
        const int64_t s[4] = {st[0], D * st[2], st[1], st[2]};
        memcpy(str, s, sizeof s);
    } else if (layout == LAYOUT_BSND) {
        const int64_t s[4] = {st[0], st[2], st[1], st[3]};
        memcpy(str, s, sizeof s);
    } else {
        const int64_t s[4] = {st[0], st[1], st[2], st[3]};
        memcpy(str, s, sizeof s);
    }
}

static aclnnStatus check_shape(const char *name, const aclTensor *t, const int64_t *want, int rank,
                               const char *what)
{
    bool same = t->view.rank == rank;
    for (int i = 0; same && i < rank; ++i) {
        same = t->view.shape[i] == want[i];
    }
    if (!same) {
        char have[256];
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s has shape %s; expected %s.", API, name,
                        emu_shape_string(&t->view, have, sizeof have), what);
    }
    return ACLNN_SUCCESS;
}

/* The shape rules of the doc's constraints; dims and strides into plan. */
static aclnnStatus check_shapes(const aclTensor *const *t, fia_layout layout, int64_t num_heads, int64_t kv_heads,
                                fia_plan *p)
{
    const emu_view *q = &t[FIA_QUERY]->view, *k = &t[FIA_KEY]->view;
    const int rank = layout == LAYOUT_BSH ? 3 : 4;
    if (q->rank != rank) {
        return tiling("the rank of query", q->rank, layout == LAYOUT_BSH ? "3 for layout BSH" : "4 for its layout");
    }
    if (num_heads <= 0 || num_heads > 256) {
        return tiling("numHeads", num_heads, "1 to 256");
    }
    const int64_t KVN = kv_heads == 0 ? num_heads : kv_heads;
    if (KVN <= 0 || num_heads % KVN != 0 || num_heads / KVN > 64) {
        return tiling("numKeyValueHeads", kv_heads, "0 or a divisor of numHeads at least numHeads / 64");
    }
    p->B = q->shape[0];
    p->N = num_heads;
    p->KVN = KVN;
    p->G = num_heads / KVN;
    if (layout == LAYOUT_BSH) {
        if (q->shape[2] % num_heads != 0) {
            return tiling("H (query dimension 2)", q->shape[2], "a multiple of numHeads");
        }
        p->S = q->shape[1];
        p->D = q->shape[2] / num_heads;
    } else {
        const int n_dim = layout == LAYOUT_BSND ? 2 : 1;
        if (q->shape[n_dim] != num_heads) {
            return tiling("N of query", q->shape[n_dim], "numHeads");
        }
        p->S = q->shape[3 - n_dim];
        p->D = q->shape[3];
    }
    if (p->D > 512) {
        return tiling("D (the head size)", p->D, "at most 512");
    }
    if (p->B > 65536) {
        return tiling("B (query dimension 0)", p->B, "at most 65536");
    }
    if (p->S > 1 && p->D % 16 != 0 && emu_soc_get() != EMU_SOC_ASCEND950) {
        return tiling("D (the head size) with more than one query row", p->D, "a multiple of 16 for FLOAT16/BFLOAT16");
    }
    /* key: [B, S2, KVN*D], [B, S2, KVN, D] or [B, KVN, S2, D]; value the same. */
    if (k->rank != rank) {
        return tiling("the rank of key", k->rank, "the rank of query");
    }
    p->S2 = layout == LAYOUT_BSH || layout == LAYOUT_BSND ? k->shape[1] : k->shape[2];
    int64_t want[4] = {p->B, p->S2, KVN * p->D, 0};
    if (layout == LAYOUT_BSND) {
        want[2] = KVN;
        want[3] = p->D;
    } else if (layout != LAYOUT_BSH) {
        want[1] = KVN;
        want[2] = p->S2;
        want[3] = p->D;
    }
    EMU_TRY(check_shape("key", t[FIA_KEY], want, rank, "B and D of query, numKeyValueHeads heads"));
    EMU_TRY(check_shape("value", t[FIA_VALUE], k->shape, rank, "the shape of key"));
    if (t[FIA_PSE] != NULL) {
        const emu_view *pse = &t[FIA_PSE]->view;
        if (pse->rank != 4 || (pse->shape[0] != p->B && pse->shape[0] != 1) || pse->shape[1] != p->N ||
            pse->shape[2] < p->S || pse->shape[3] < p->S2) {
            char have[256];
            return emu_fail(ACLNN_ERR_INNER_TILING_ERROR,
                            "%s: pseShiftOptional has shape %s; expected (B or 1, N, at least Q_S, at least KV_S) "
                            "= (%lld or 1, %lld, >= %lld, >= %lld).",
                            API, emu_shape_string(pse, have, sizeof have), (long long)p->B, (long long)p->N,
                            (long long)p->S, (long long)p->S2);
        }
    }
    if (layout == LAYOUT_BNSD_BSND && p->S == 1) {
        return tiling("Q_S with inputLayout BNSD_BSND", p->S, "more than 1");
    }
    const fia_layout out_layout = layout == LAYOUT_BNSD_BSND ? LAYOUT_BSND : layout;
    int64_t out[4] = {p->B, p->S, p->N * p->D, 0};
    if (out_layout == LAYOUT_BSND) {
        out[2] = p->N;
        out[3] = p->D;
    } else if (out_layout == LAYOUT_BNSD) {
        out[1] = p->N;
        out[2] = p->S;
        out[3] = p->D;
    }
    EMU_TRY(check_shape("attentionOut", t[FIA_OUT], out, rank, "the query's shape in the output layout"));
    layout_strides(q, layout == LAYOUT_BNSD_BSND ? LAYOUT_BNSD : layout, p->D, p->q_str);
    layout_strides(k, layout == LAYOUT_BNSD_BSND ? LAYOUT_BNSD : layout, p->D, p->k_str);
    layout_strides(&t[FIA_VALUE]->view, layout == LAYOUT_BNSD_BSND ? LAYOUT_BNSD : layout, p->D, p->v_str);
    layout_strides(&t[FIA_OUT]->view, out_layout, p->D, p->o_str);
    if (t[FIA_PSE] != NULL) {
        const emu_view *pse = &t[FIA_PSE]->view;
        const int64_t s[4] = {pse->shape[0] == 1 ? 0 : pse->strides[0], pse->strides[1], pse->strides[2],
                              pse->strides[3]};
        memcpy(p->pse_str, s, sizeof s);
        p->has_pse = true;
    }
    return ACLNN_SUCCESS;
}

typedef struct {
    const char *name;
    const void *given;
    const char *feature;
} optional_arg;

static aclnnStatus key_value_tensor(const char *name, const aclTensorList *list, const aclTensor **tensor)
{
    uint64_t count = 0;
    const aclTensor *const *items = emu_tensor_list_items(list, &count);
    if (count != 1) {
        char what[64];
        snprintf(what, sizeof what, "%s as a list of %llu tensors", name, (unsigned long long)count);
        return unsupported(what, "one tensor per batch; aclnn_emu takes a list of one tensor");
    }
    EMU_TRY(emu_check_not_null(API, name, items[0]));
    *tensor = items[0];
    return ACLNN_SUCCESS;
}

static void plan_tasks(fia_plan *p)
{
    p->ld = (p->S2 + FIA_LANES - 1) / FIA_LANES * FIA_LANES;
    const int64_t total = p->G * p->S;
    int64_t rows = ((int64_t)1 << 20) / (p->ld > 0 ? p->ld : 1); /* at most 4 MiB of scores per slot */
    rows = rows < 16 ? 16 : rows > 128 ? 128 : rows;
    p->rows = total < rows ? total : rows;
    p->chunks = (total + p->rows - 1) / p->rows;
    const uint64_t tasks = (uint64_t)(p->B * p->KVN * p->chunks);
    uint64_t slots = (uint64_t)emu_num_threads();
    slots = slots < tasks ? slots : tasks;
    slots = slots < FIA_MAX_SLOTS ? slots : FIA_MAX_SLOTS;
    p->slots = slots > 0 ? (int)slots : 1;
    const uint64_t gemm = (emu_sgemm_scratch_bytes() + FIA_ALIGN - 1) / FIA_ALIGN * FIA_ALIGN;
    p->slot_bytes = fia_slot_floats(p) * sizeof(float) + gemm;
    p->workspace = p->slot_bytes * (uint64_t)p->slots + FIA_ALIGN;
}

aclnnStatus aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
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
    const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)preTokens, (void)nextTokens; /* sparseMode 0 without attenMask ignores them */
    (void)softmaxLse;                  /* softmaxLseFlag false: left as it is */
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "query", query));
    EMU_TRY(emu_check_not_null(API, "key", key));
    EMU_TRY(emu_check_not_null(API, "value", value));
    EMU_TRY(emu_check_not_null(API, "attentionOut", attentionOut));
    EMU_TRY(emu_check_not_null(API, "inputLayout", inputLayout));
    if (emu_soc_get() == EMU_SOC_ASCEND910) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the emulated product %s does not offer this operator; expected "
                        "Ascend910B, Ascend910_93 or Ascend950.", API, aclrtGetSocName());
    }
    const aclTensor *t[FIA_TENSORS] = {query, NULL, NULL, pseShiftOptional, attentionOut};
    EMU_TRY(key_value_tensor("key", key, &t[FIA_KEY]));
    EMU_TRY(key_value_tensor("value", value, &t[FIA_VALUE]));
    EMU_TRY(check_dtypes(t));
    for (int i = 0; i < FIA_TENSORS; ++i) {
        if (t[i] != NULL) {
            EMU_TRY(floyd_check_format(API, NAMES[i], t[i]));
        }
    }
    const optional_arg refused[] = {
        {"attenMaskOptional", attenMaskOptional, "attention masks; pass the mask as pseShiftOptional"},
        {"actualSeqLengthsOptional", actualSeqLengthsOptional, "actual sequence lengths"},
        {"actualSeqLengthsKvOptional", actualSeqLengthsKvOptional, "actual sequence lengths"},
        {"deqScale1Optional", deqScale1Optional, "quantization"},
        {"quantScale1Optional", quantScale1Optional, "quantization"},
        {"deqScale2Optional", deqScale2Optional, "quantization"},
        {"quantScale2Optional", quantScale2Optional, "quantization"},
        {"quantOffset2Optional", quantOffset2Optional, "quantization"},
        {"antiquantScaleOptional", antiquantScaleOptional, "antiquantization"},
        {"antiquantOffsetOptional", antiquantOffsetOptional, "antiquantization"},
        {"blockTableOptional", blockTableOptional, "paged attention"},
        {"queryPaddingSizeOptional", queryPaddingSizeOptional, "left padding"},
        {"kvPaddingSizeOptional", kvPaddingSizeOptional, "left padding"},
        {"keyAntiquantScaleOptional", keyAntiquantScaleOptional, "antiquantization"},
        {"keyAntiquantOffsetOptional", keyAntiquantOffsetOptional, "antiquantization"},
        {"valueAntiquantScaleOptional", valueAntiquantScaleOptional, "antiquantization"},
        {"valueAntiquantOffsetOptional", valueAntiquantOffsetOptional, "antiquantization"},
        {"keySharedPrefixOptional", keySharedPrefixOptional, "shared prefixes"},
        {"valueSharedPrefixOptional", valueSharedPrefixOptional, "shared prefixes"},
        {"actualSharedPrefixLenOptional", actualSharedPrefixLenOptional, "shared prefixes"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        if (refused[i].given != NULL) {
            return unsupported(refused[i].name, refused[i].feature);
        }
    }
    const struct {
        const char *name;
        int64_t value;
        const char *feature;
    } attrs[] = {{"blockSize", blockSize, "paged attention"},
                 {"antiquantMode", antiquantMode, "antiquantization"},
                 {"keyAntiquantMode", keyAntiquantMode, "antiquantization"},
                 {"valueAntiquantMode", valueAntiquantMode, "antiquantization"},
                 {"softmaxLseFlag", softmaxLseFlag, "the softmaxLse output"}};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        if (attrs[i].value != 0) {
            char what[64];
            snprintf(what, sizeof what, "%s %lld", attrs[i].name, (long long)attrs[i].value);
            return unsupported(what, attrs[i].feature);
        }
    }
    if (sparseMode < 0 || sparseMode > 4) {
        return tiling("sparseMode", sparseMode, "0, 1, 2, 3 or 4");
    }
    if (sparseMode != 0) {
        return unsupported("sparseMode other than 0", "it needs attenMaskOptional");
    }
    if (innerPrecise < 0 || innerPrecise > 3) {
        return tiling("innerPrecise", innerPrecise, "0, 1, 2 or 3");
    }
    fia_layout layout = LAYOUT_BSND;
    EMU_TRY(parse_layout(inputLayout, &layout));
    fia_plan plan;
    memset(&plan, 0, sizeof plan);
    EMU_TRY(check_shapes(t, layout, numHeads, numKeyValueHeads, &plan));
    for (int i = 0; i < FIA_TENSORS; ++i) {
        if (t[i] != NULL) {
            EMU_TRY(emu_check_has_data(API, NAMES[i], t[i]));
            EMU_TRY(emu_check_device_memory(API, NAMES[i], t[i]));
        }
    }
    EMU_TRY(emu_check_outputs_separate(API, NAMES, t, FIA_OUT, FIA_TENSORS));
    plan.scale = (float)scaleValue;
    plan.row_invalid_zero = (innerPrecise & 2) != 0;
    const bool empty = emu_view_is_empty(&query->view);
    if (!empty && plan.S2 > 0) {
        plan_tasks(&plan);
    }
    aclOpExecutor *planned = emu_executor_create(API, "aclnnFusedInferAttentionScoreV2", FIA_OUT, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    for (int i = 0; i < FIA_TENSORS; ++i) {
        emu_executor_bind(planned, i, t[i]);
        if (empty && t[i] != NULL) {
            emu_executor_mark_unused(planned, i);
        }
    }
    memcpy(planned->plan, &plan, sizeof plan);
    return emu_executor_publish(planned, fia_run, plan.workspace, workspaceSize, executor);
}

aclnnStatus aclnnFusedInferAttentionScoreV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            const aclrtStream stream)
{
    return emu_executor_run("aclnnFusedInferAttentionScoreV2", workspace, workspaceSize, executor, stream);
}
