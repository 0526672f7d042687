/* aclnnMoeTokenPermute: a stable sort of the flattened expert ids (LSD
 * radix sort on their offsets from the smallest id, so negative and huge
 * ids order by value), its inverse as sortedIndicesOut, then one row copy
 * per kept output row, parallel over output rows. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_moe_token_permute.h"
#include "common/parallel.h"
#include "kernels/moe/moe.h"
#include "ops/check.h"
#include "meta/executor.h"
#include "ops/moe_rows.h"

enum {
    TOKENS = 0, INDICES = 1, PERMUTED = 2, SORTED = 3,
    MAX_TOPK = 512,
    MAX_SLOTS = 16777215, /* the device sorts ids as fp32: n must stay below 2^24 - 1 */
    DIGIT_BITS = 11,
    CHUNK_BYTES = 1 << 18,
};

static const aclDataType FLOATS[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType ID_TYPES[] = {ACL_INT32, ACL_INT64};
static const aclDataType INT32_ONLY[] = {ACL_INT32};

typedef struct {
    int64_t tokens, topk, slots, kept, row_elems;
    bool staged_tokens, staged_out;
    uint64_t tokens_offset, out_offset, keys_offset, perm_offset;
} permute_plan;

static_assert(sizeof(permute_plan) <= EMU_PLAN_BYTES, "permute_plan must fit in the executor");

static int64_t kept_rows(int64_t numOutTokens, int64_t slots)
{
    int64_t kept = numOutTokens > 0 ? numOutTokens : numOutTokens + slots;
    if (numOutTokens < -slots) {
        kept = 0; /* also keeps the sum above from mattering for huge negatives */
    }
    return kept < 0 ? 0 : kept > slots ? slots : kept;
}

static int64_t read_id(const emu_view *indices, int64_t slot, int64_t topk)
{
    int64_t at = indices->rank == 1 ? slot * indices->strides[0]
                                    : (slot / topk) * indices->strides[0] + (slot % topk) * indices->strides[1];
    const void *origin = emu_view_origin(indices);
    return indices->dtype == ACL_INT64 ? ((const int64_t *)origin)[at] : ((const int32_t *)origin)[at];
}

/* Stable ascending order of the ids: perm[j] = slot of the j-th smallest. */
static void sort_slots(const emu_view *indices, const permute_plan *plan, uint64_t *keys, int32_t *perm)
{
    int64_t n = plan->slots;
    uint64_t *keys_tmp = keys + n;
    int32_t *perm_tmp = perm + n;
    int64_t lo = read_id(indices, 0, plan->topk), hi = lo;
    for (int64_t i = 0; i < n; ++i) {
        int64_t id = read_id(indices, i, plan->topk);
        keys[i] = (uint64_t)id; /* offset from lo below, in unsigned arithmetic (no overflow) */
        perm[i] = (int32_t)i;
        lo = id < lo ? id : lo;
        hi = id > hi ? id : hi;
    }
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    for (int64_t i = 0; i < n; ++i) {
        keys[i] -= (uint64_t)lo;
    }
    for (unsigned shift = 0; shift < 64 && (range >> shift) != 0; shift += DIGIT_BITS) {
        size_t count[(1u << DIGIT_BITS) + 1];
        memset(count, 0, sizeof count);
        for (int64_t i = 0; i < n; ++i) {
            ++count[((keys[i] >> shift) & ((1u << DIGIT_BITS) - 1)) + 1];
        }
        for (unsigned d = 1; d <= (1u << DIGIT_BITS); ++d) {
            count[d] += count[d - 1];
        }
        for (int64_t i = 0; i < n; ++i) {
            size_t to = count[(keys[i] >> shift) & ((1u << DIGIT_BITS) - 1)]++;
            keys_tmp[to] = keys[i];
            perm_tmp[to] = perm[i];
        }
        memcpy(keys, keys_tmp, (size_t)n * sizeof *keys);
        memcpy(perm, perm_tmp, (size_t)n * sizeof *perm);
    }
}

typedef struct {
    emu_moe_copy_row_fn copy;
    const int32_t *order;
    const char *tokens;
    char *out;
    int64_t topk, row_bytes, tokens_row_bytes, out_row_bytes;
    bool stream;
} copy_ctx;

static void copy_rows(void *opaque, size_t begin, size_t end)
{
    const copy_ctx *c = opaque;
    for (size_t j = begin; j < end; ++j) {
        int64_t token = c->order[j] / c->topk;
        if (j + 1 < end) {
            __builtin_prefetch(c->tokens + (c->order[j + 1] / c->topk) * c->tokens_row_bytes);
        }
        c->copy((size_t)c->row_bytes, c->tokens + token * c->tokens_row_bytes, c->out + (int64_t)j * c->out_row_bytes,
                c->stream);
    }
}

static const char *run_permute(aclOpExecutor *executor, void *workspace)
{
    const permute_plan *plan = (const permute_plan *)executor->plan;
    if (plan->slots == 0) {
        return "";
    }
    uint64_t *keys = (uint64_t *)((char *)workspace + plan->keys_offset);
    int32_t *order = (int32_t *)((char *)workspace + plan->perm_offset);
    sort_slots(&executor->tensors[INDICES], plan, keys, order);
    const emu_view *sorted = &executor->tensors[SORTED];
    int32_t *sorted_out = emu_view_origin(sorted);
    for (int64_t j = 0; j < plan->slots; ++j) {
        sorted_out[(int64_t)order[j] * sorted->strides[0]] = (int32_t)j;
    }
    const emu_moe_kernels *k = emu_moe_select(emu_isa_active());
    if (plan->kept == 0 || plan->row_elems == 0) {
        return "moe_sort";
    }
    const emu_view *tokens = &executor->tensors[TOKENS], *out = &executor->tensors[PERMUTED];
    int64_t item = (int64_t)emu_dtype_size(tokens->dtype);
    const char *tokens_data = emu_view_origin(tokens);
    if (plan->staged_tokens) {
        tokens_data = (char *)workspace + plan->tokens_offset;
        emu_view_gather(tokens, (void *)tokens_data);
    }
    char *out_data = plan->staged_out ? (char *)workspace + plan->out_offset : emu_view_origin(out);
    copy_ctx ctx = {
        .copy = k->copy_row,
        .order = order,
        .tokens = tokens_data,
        .out = out_data,
        .topk = plan->topk,
        .row_bytes = plan->row_elems * item,
        .tokens_row_bytes = (plan->staged_tokens || plan->tokens == 1 ? plan->row_elems : tokens->strides[0]) * item,
        .out_row_bytes = (plan->staged_out || plan->kept == 1 ? plan->row_elems : out->strides[0]) * item,
        .stream = (uint64_t)plan->kept * (uint64_t)(plan->row_elems * item) >= EMU_MOE_STREAM_BYTES,
    };
    size_t grain = ctx.row_bytes >= CHUNK_BYTES ? 1 : (size_t)(CHUNK_BYTES / ctx.row_bytes);
    emu_parallel_for((size_t)plan->kept, grain, copy_rows, &ctx);
    if (plan->staged_out) {
        emu_view_scatter(out_data, out);
    }
    static _Thread_local char name[64];
    snprintf(name, sizeof name, "moe_sort+moe_copy_row__%s", k->isa_name);
    return name;
}

static aclnnStatus tiling_error(const char *api, const char *name, const aclTensor *tensor, const char *expected)
{
    char have[256];
    return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s has shape %s; expected %s.", api, name,
                    emu_shape_string(&tensor->view, have, sizeof have), expected);
}

static aclnnStatus check_shapes(const char *api, const aclTensor *tokens, const aclTensor *indices,
                                int64_t numOutTokens, const aclTensor *permuted, const aclTensor *sorted)
{
    char expected[160];
    if (tokens->view.rank < 2) {
        return tiling_error(api, "tokens", tokens, "at least 2 dimensions [num_tokens, ...]");
    }
    const int64_t row_elems = emu_moe_row_elems(&tokens->view);
    if (row_elems < 0 || row_elems > INT64_MAX / (int64_t)emu_dtype_size(tokens->view.dtype)) {
        return tiling_error(api, "tokens", tokens, "rows (all dimensions after the first) of at most 2^63 - 1 bytes");
    }
    if (indices->view.rank != 1 && indices->view.rank != 2) {
        return tiling_error(api, "indices", indices, "a 1-D [num_tokens] or 2-D [num_tokens, topK] tensor");
    }
    if (indices->view.shape[0] != tokens->view.shape[0]) {
        snprintf(expected, sizeof expected, "%lld rows, the first dimension of tokens",
                 (long long)tokens->view.shape[0]);
        return tiling_error(api, "indices", indices, expected);
    }
    int64_t topk = indices->view.rank == 2 ? indices->view.shape[1] : 1;
    if (topk > MAX_TOPK) {
        snprintf(expected, sizeof expected, "topK (its last dimension) at most %d", MAX_TOPK);
        return tiling_error(api, "indices", indices, expected);
    }
    int64_t slots = indices->view.shape[0] * topk;
    if (slots >= MAX_SLOTS) {
        snprintf(expected, sizeof expected, "fewer than %d elements", MAX_SLOTS);
        return tiling_error(api, "indices", indices, expected);
    }
    int64_t kept = kept_rows(numOutTokens, slots);
    if (permuted->view.rank < 2 || permuted->view.shape[0] != kept ||
        emu_moe_row_elems(&permuted->view) != row_elems) {
        snprintf(expected, sizeof expected, "at least 2 dimensions, %lld rows (numOutTokens %lld of %lld) of %lld "
                 "elements each, as tokens' rows", (long long)kept, (long long)numOutTokens, (long long)slots,
                 (long long)row_elems);
        return tiling_error(api, "permuteTokensOut", permuted, expected);
    }
    if (sorted->view.rank != 1 || sorted->view.shape[0] != slots) {
        snprintf(expected, sizeof expected, "[%lld], one element per (token, expert) slot", (long long)slots);
        return tiling_error(api, "sortedIndicesOut", sorted, expected);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnMoeTokenPermuteGetWorkspaceSize(const aclTensor *tokens, const aclTensor *indices,
                                                 int64_t numOutTokens, bool paddedMode,
                                                 const aclTensor *permuteTokensOut,
                                                 const aclTensor *sortedIndicesOut, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    static const char API[] = "aclnnMoeTokenPermuteGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "tokens", tokens));
    EMU_TRY(emu_check_not_null(API, "indices", indices));
    EMU_TRY(emu_check_not_null(API, "permuteTokensOut", permuteTokensOut));
    EMU_TRY(emu_check_not_null(API, "sortedIndicesOut", sortedIndicesOut));
    EMU_TRY(emu_check_dtype_in(API, "tokens", tokens, FLOATS, 3));
    EMU_TRY(emu_check_dtype_in(API, "indices", indices, ID_TYPES, 2));
    EMU_TRY(emu_check_dtype_in(API, "permuteTokensOut", permuteTokensOut, FLOATS, 3));
    EMU_TRY(emu_check_same_dtype(API, "permuteTokensOut", permuteTokensOut, "tokens", tokens));
    EMU_TRY(emu_check_dtype_in(API, "sortedIndicesOut", sortedIndicesOut, INT32_ONLY, 1));
    if (paddedMode) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: paddedMode is true; expected false (padded mode is not "
                                                 "supported).", API);
    }
    EMU_TRY(check_shapes(API, tokens, indices, numOutTokens, permuteTokensOut, sortedIndicesOut));
    static const char *const NAMES[] = {"tokens", "indices", "permuteTokensOut", "sortedIndicesOut"};
    const aclTensor *const all[] = {tokens, indices, permuteTokensOut, sortedIndicesOut};
    for (int i = 0; i < 4; ++i) {
        EMU_TRY(emu_check_has_data(API, NAMES[i], all[i]));
    }
    for (int i = 0; i < 4; ++i) {
        EMU_TRY(emu_check_device_memory(API, NAMES[i], all[i]));
    }
    EMU_TRY(emu_check_outputs_separate(API, NAMES, all, 2, 4));

    aclOpExecutor *planned = emu_executor_create(API, "aclnnMoeTokenPermute", 2, 2);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    for (int i = 0; i < 4; ++i) {
        emu_executor_bind(planned, i, all[i]);
    }
    permute_plan *plan = (permute_plan *)planned->plan;
    memset(plan, 0, sizeof *plan);
    plan->tokens = tokens->view.shape[0];
    plan->topk = indices->view.rank == 2 ? indices->view.shape[1] : 1;
    plan->slots = plan->tokens * plan->topk;
    plan->kept = kept_rows(numOutTokens, plan->slots);
    plan->row_elems = emu_moe_row_elems(&tokens->view);
    uint64_t total = 0;
    if (plan->slots > 0) {
        plan->keys_offset = emu_moe_reserve(&total, 2 * (uint64_t)plan->slots * sizeof(uint64_t));
        plan->perm_offset = emu_moe_reserve(&total, 2 * (uint64_t)plan->slots * sizeof(int32_t));
    }
    if (plan->kept > 0 && plan->row_elems > 0) {
        size_t item = emu_dtype_size(tokens->view.dtype);
        if (!emu_moe_rows_in_place(&planned->tensors[TOKENS], false)) {
            plan->staged_tokens = true;
            plan->tokens_offset = emu_moe_reserve(&total, (uint64_t)emu_view_numel(&tokens->view) * item);
        }
        if (!emu_moe_rows_in_place(&planned->tensors[PERMUTED], true)) {
            plan->staged_out = true;
            plan->out_offset = emu_moe_reserve(&total, (uint64_t)emu_view_numel(&permuteTokensOut->view) * item);
        }
    }
    return emu_executor_publish(planned, run_permute, total, workspaceSize, executor);
}

aclnnStatus aclnnMoeTokenPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream)
{
    return emu_executor_run("aclnnMoeTokenPermute", workspace, workspaceSize, executor, stream);
}
