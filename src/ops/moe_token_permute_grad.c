/* aclnnMoeTokenPermuteGrad: out[t] = sum of the kept rows
 * permutedOutputGrad[sortedIndices[t*k + j]], j < k. Validation as the
 * header lists it; phase 2 runs one fixed-order fp32 gather-sum per output
 * row, parallel over tokens (each row is written by exactly one chunk). */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_moe_token_permute_grad.h"
#include "common/parallel.h"
#include "kernels/moe/moe.h"
#include "ops/check.h"
#include "meta/executor.h"
#include "ops/moe_rows.h"

enum { GRAD = 0, INDICES = 1, OUT = 2, CHUNK_BYTES = 1 << 18, PREFETCH_ROWS = 16 };

static const aclDataType FLOATS[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType INT32_ONLY[] = {ACL_INT32};

typedef struct {
    int64_t tokens, width, topk, rows;
    bool staged[3];
    uint64_t stage_offset[3];
} grad_plan;

static_assert(sizeof(grad_plan) <= EMU_PLAN_BYTES, "grad_plan must fit in the executor");

typedef struct {
    emu_moe_gather_sum_fn kernel;
    const int32_t *indices;
    const char *grad;
    char *out;
    int64_t topk, rows, width;
    int64_t grad_row_bytes, out_row_bytes;
    bool stream;
} grad_ctx;

static void run_tokens(void *opaque, size_t begin, size_t end)
{
    const grad_ctx *c = opaque;
    for (size_t t = begin; t < end; ++t) {
        const int32_t *idx = c->indices + (int64_t)t * c->topk;
        if (t + 1 < end) {
            /* The next token's rows are random: start fetching their heads now. */
            const int32_t *next = idx + c->topk;
            int64_t ahead = c->topk < PREFETCH_ROWS ? c->topk : PREFETCH_ROWS;
            for (int64_t j = 0; j < ahead; ++j) {
                if (next[j] >= 0 && next[j] < c->rows) {
                    __builtin_prefetch(c->grad + (int64_t)next[j] * c->grad_row_bytes);
                }
            }
        }
        c->kernel((size_t)c->width, idx, (size_t)c->topk, c->rows, c->grad, c->grad_row_bytes,
                  c->out + (int64_t)t * c->out_row_bytes, c->stream);
    }
}

static const char *kernel_name(aclDataType dtype, const emu_moe_kernels *k)
{
    static _Thread_local char name[64];
    snprintf(name, sizeof name, "moe_gather_sum_%s__%s",
             dtype == ACL_FLOAT ? "f32" : dtype == ACL_FLOAT16 ? "f16" : "bf16", k->isa_name);
    return name;
}

/* The kernel skips indices outside [0, rows): CANN's kernel skips those
 * >= rows and reads out of bounds for negative ones (device-side undefined
 * behaviour). The result stays as computed; the verbose log says how many
 * were skipped, and the first. */
static void report_skipped(const int32_t *indices, int64_t count, int64_t rows)
{
    int64_t skipped = 0, first = -1;
    for (int64_t i = 0; i < count; ++i) {
        if (indices[i] < 0 || indices[i] >= rows) {
            first = skipped++ == 0 ? i : first;
        }
    }
    if (skipped > 0) {
        fprintf(stderr, "[aclnn_emu] aclnnMoeTokenPermuteGrad: %lld of %lld sortedIndices lie outside [0, %lld) "
                        "and were skipped (the first: sortedIndices[%lld] = %d); CANN's kernel skips indices >= "
                        "%lld and reads out of bounds for negative ones.\n", (long long)skipped, (long long)count,
                (long long)rows, (long long)first, (int)indices[first], (long long)rows);
    }
}

static const char *run_grad(aclOpExecutor *executor, void *workspace)
{
    const grad_plan *plan = (const grad_plan *)executor->plan;
    if (plan->tokens == 0 || plan->width == 0) {
        return "";
    }
    void *dense[3];
    for (int i = 0; i < 3; ++i) {
        const emu_view *view = &executor->tensors[i];
        dense[i] = plan->staged[i] ? (char *)workspace + plan->stage_offset[i] : emu_view_origin(view);
        if (plan->staged[i] && i != OUT) {
            emu_view_gather(view, dense[i]);
        }
    }
    const emu_view *grad = &executor->tensors[GRAD], *out = &executor->tensors[OUT];
    size_t item = emu_dtype_size(out->dtype);
    const emu_moe_kernels *k = emu_moe_select(emu_isa_active());
    grad_ctx ctx = {
        .kernel = out->dtype == ACL_FLOAT ? k->gather_sum_f32
                  : out->dtype == ACL_FLOAT16 ? k->gather_sum_f16 : k->gather_sum_bf16,
        .indices = dense[INDICES],
        .grad = dense[GRAD],
        .out = dense[OUT],
        .topk = plan->topk,
        .rows = plan->rows,
        .width = plan->width,
        .grad_row_bytes = (plan->staged[GRAD] ? plan->width : grad->strides[0]) * (int64_t)item,
        .out_row_bytes = (plan->staged[OUT] ? plan->width : out->strides[0]) * (int64_t)item,
        .stream = (uint64_t)plan->tokens * (uint64_t)plan->width * item >= EMU_MOE_STREAM_BYTES,
    };
    if (plan->rows == 1) {
        ctx.grad_row_bytes = 0; /* a single row's stride is meaningless */
    }
    if (plan->tokens == 1) {
        ctx.out_row_bytes = 0;
    }
    uint64_t token_bytes = (uint64_t)plan->width * item * (uint64_t)(plan->topk + 1);
    size_t grain = token_bytes >= CHUNK_BYTES ? 1 : (size_t)(CHUNK_BYTES / token_bytes);
    emu_parallel_for((size_t)plan->tokens, grain, run_tokens, &ctx);
    if (emu_verbose()) {
        report_skipped(ctx.indices, plan->tokens * plan->topk, plan->rows);
    }
    if (plan->staged[OUT]) {
        emu_view_scatter(dense[OUT], out);
    }
    return kernel_name(out->dtype, k);
}

/* CANN's A2/A3 tiling checks none of these shapes (the kernel reads dim 1
 * as the hidden size whatever the rank); we take the shapes the forward
 * makes, rows being all dimensions after the first as MoeTokenPermute's
 * tokens are, so a 3-D forward has a 3-D gradient, and refuse the rest
 * with 561002 instead of reading past a row. */
static aclnnStatus check_shapes(const char *api, const aclTensor *grad, const aclTensor *indices, int64_t numTopk,
                                const aclTensor *out)
{
    char have[256], want[256];
    const int64_t row_elems = emu_moe_row_elems(&grad->view);
    if (grad->view.rank < 2 || row_elems < 0 ||
        row_elems > INT64_MAX / (int64_t)emu_dtype_size(grad->view.dtype)) {
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: permutedOutputGrad has shape %s; expected at least 2 "
                                                      "dimensions [tokens_num * numTopk, hidden...] with rows of "
                                                      "at most 2^63 - 1 bytes.", api,
                        emu_shape_string(&grad->view, have, sizeof have));
    }
    if (indices->view.rank != 1) {
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: sortedIndices has shape %s; expected a 1-D tensor "
                                                      "[tokens_num * numTopk].", api,
                        emu_shape_string(&indices->view, have, sizeof have));
    }
    emu_view expected = grad->view;
    expected.shape[0] = indices->view.shape[0] / numTopk;
    if (!emu_view_same_shape(&out->view, &expected) &&
        (out->view.rank != 2 || out->view.shape[0] != expected.shape[0] || out->view.shape[1] != row_elems)) {
        emu_view flat = expected;
        flat.rank = 2;
        flat.shape[1] = row_elems;
        char flat_text[256];
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: out has shape %s; expected %s (len(sortedIndices) / "
                                                      "numTopk rows shaped as permutedOutputGrad's) or %s.", api,
                        emu_shape_string(&out->view, have, sizeof have),
                        emu_shape_string(&expected, want, sizeof want),
                        emu_shape_string(&flat, flat_text, sizeof flat_text));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnMoeTokenPermuteGradGetWorkspaceSize(const aclTensor *permutedOutputGrad,
                                                     const aclTensor *sortedIndices, int64_t numTopk,
                                                     bool paddedMode, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    static const char API[] = "aclnnMoeTokenPermuteGradGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "permutedOutputGrad", permutedOutputGrad));
    EMU_TRY(emu_check_not_null(API, "sortedIndices", sortedIndices));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_dtype_in(API, "permutedOutputGrad", permutedOutputGrad, FLOATS, 3));
    EMU_TRY(emu_check_dtype_in(API, "sortedIndices", sortedIndices, INT32_ONLY, 1));
    EMU_TRY(emu_check_dtype_in(API, "out", out, FLOATS, 3));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "permutedOutputGrad", permutedOutputGrad));
    if (paddedMode) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: paddedMode is true; expected false (padded mode is not "
                                                 "supported).", API);
    }
    if (numTopk < 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: numTopk is %lld; expected at least 1.", API,
                        (long long)numTopk);
    }
    int64_t slots = emu_view_numel(&sortedIndices->view);
    if (slots % numTopk != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: numTopk is %lld, which does not divide the %lld elements of "
                                                 "sortedIndices; expected a divisor.", API, (long long)numTopk,
                        (long long)slots);
    }
    EMU_TRY(check_shapes(API, permutedOutputGrad, sortedIndices, numTopk, out));
    EMU_TRY(emu_check_has_data(API, "permutedOutputGrad", permutedOutputGrad));
    EMU_TRY(emu_check_has_data(API, "sortedIndices", sortedIndices));
    EMU_TRY(emu_check_has_data(API, "out", out));
    EMU_TRY(emu_check_device_memory(API, "permutedOutputGrad", permutedOutputGrad));
    EMU_TRY(emu_check_device_memory(API, "sortedIndices", sortedIndices));
    EMU_TRY(emu_check_device_memory(API, "out", out));
    static const char *const NAMES[] = {"permutedOutputGrad", "sortedIndices", "out"};
    const aclTensor *const all[] = {permutedOutputGrad, sortedIndices, out};
    EMU_TRY(emu_check_outputs_separate(API, NAMES, all, 2, 3));

    aclOpExecutor *planned = emu_executor_create(API, "aclnnMoeTokenPermuteGrad", 2, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    emu_executor_bind(planned, GRAD, permutedOutputGrad);
    emu_executor_bind(planned, INDICES, sortedIndices);
    emu_executor_bind(planned, OUT, out);
    grad_plan *plan = (grad_plan *)planned->plan;
    memset(plan, 0, sizeof *plan);
    plan->tokens = out->view.shape[0];
    plan->width = emu_moe_row_elems(&permutedOutputGrad->view);
    plan->topk = numTopk;
    plan->rows = permutedOutputGrad->view.shape[0];
    uint64_t total = 0;
    if (plan->tokens > 0 && plan->width > 0) {
        for (int i = 0; i < 3; ++i) {
            const emu_view *view = &planned->tensors[i];
            bool in_place = i == INDICES ? (view->shape[0] <= 1 || view->strides[0] == 1)
                                         : emu_moe_rows_in_place(view, i == OUT);
            int64_t numel = emu_view_numel(view);
            if (!in_place && numel > 0) {
                plan->staged[i] = true;
                plan->stage_offset[i] = emu_moe_reserve(&total, (uint64_t)numel * emu_dtype_size(view->dtype));
            }
        }
    }
    return emu_executor_publish(planned, run_grad, total, workspaceSize, executor);
}

aclnnStatus aclnnMoeTokenPermuteGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream)
{
    return emu_executor_run("aclnnMoeTokenPermuteGrad", workspace, workspaceSize, executor, stream);
}
