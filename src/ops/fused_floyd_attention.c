/* aclnnFusedFloydAttention: the forward, tile by tile with an online
 * softmax over blocks of keys (see the public header for the formulas).
 * Tiles of NB x MB (n, m) rows are independent, so any thread
 * may take any tile: the result does not depend on the thread count. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_fused_floyd_attention.h"
#include "common/parallel.h"
#include "ops/floyd_common.h"

enum { IN_QUERY, IN_KEY1, IN_VALUE1, IN_KEY2, IN_VALUE2, IN_MASK, OUT_MAX, OUT_SUM, OUT_ATTENTION, TENSORS };
enum { STATS_WIDTH = 8 };

static const char *const NAMES[TENSORS] = {"query", "key1", "value1", "key2", "value2", "attenMaskOptional",
                                           "softmaxMaxOut", "softmaxSumOut", "attentionOutOut"};

typedef struct {
    floyd_run run;
    const aclOpExecutor *executor;
    const float *q, *k1, *v1, *k2, *v2;
    float *out;
    size_t tiles, tiles_per_slice;
    int64_t tiles_n, tiles_m;
} forward_ctx;

/* Slot scratch: scores (ROWS x KB), output accumulator (ROWS x D), row max, row sum. */
static uint64_t slot_floats(const floyd_plan *plan)
{
    const floyd_dims *d = &plan->dims;
    const uint64_t ROWS = (uint64_t)(plan->nb * plan->mb);
    return (uint64_t)plan->nb * (uint64_t)floyd_tile_ldn(plan) + ROWS * (uint64_t)d->D + 2u * ROWS;
}

static void write_stats(const emu_view *view, int64_t b, int64_t h, int64_t n, int64_t m, float value)
{
    float *row = (float *)emu_view_origin(view) + b * view->strides[0] + h * view->strides[1] +
                 n * view->strides[2] + m * view->strides[3];
    for (int i = 0; i < STATS_WIDTH; ++i) {
        row[i * view->strides[4]] = value;
    }
}

static void forward_tile(const forward_ctx *ctx, int slot, size_t tile)
{
    const floyd_run *run = &ctx->run;
    const floyd_dims *d = &run->plan->dims;
    const int64_t N = d->N, M = d->M, K = d->K, D = d->D;
    const int64_t NB = run->plan->nb, MB = run->plan->mb, KB = run->plan->kb, ROWS = NB * MB;
    const int64_t LDN = floyd_tile_ldn(run->plan);
    const int64_t slice = (int64_t)(tile / ctx->tiles_per_slice), in_slice = (int64_t)(tile % ctx->tiles_per_slice);
    const int64_t b = slice / d->H, h = slice % d->H;
    const int64_t n0 = in_slice / ctx->tiles_m * NB, m0 = in_slice % ctx->tiles_m * MB;
    const float *q = ctx->q + slice * N * M * D, *k1 = ctx->k1 + slice * N * K * D, *v1 = ctx->v1 + slice * N * K * D;
    const float *k2 = ctx->k2 + slice * K * M * D, *v2 = ctx->v2 + slice * K * M * D;
    float *scores = floyd_slot(run, slot);
    float *acc = scores + NB * LDN;
    float *row_max = acc + ROWS * D, *row_sum = row_max + ROWS;
    void *scratch = floyd_slot_gemm_scratch(run, slot);
    const float scale = run->plan->scale;

    for (int64_t r = 0; r < ROWS; ++r) {
        row_max[r] = -INFINITY;
        row_sum[r] = 0.0f;
    }
    memset(acc, 0, sizeof(float) * ROWS * (size_t)D);
    for (int64_t k0 = 0; k0 < K; k0 += KB) {
        floyd_tile_products(run, scratch, q, k1, k2, n0, m0, k0, scores);
        for (int64_t r = 0; r < ROWS; ++r) {
            const int64_t n = n0 + r / MB, m = m0 + r % MB;
            float *s = scores + r / MB * LDN + r % MB * KB;
            const float block_max = run->ew->scores_max(KB, s, floyd_mask_row(run, b, h, n, m, k0), scale);
            const float old_max = row_max[r];
            const float new_max = block_max > old_max ? block_max : old_max;
            const float rescale = emu_floyd_exp(old_max - new_max); /* 0 for the first block */
            const float block_sum = run->ew->exp_sum(KB, s, new_max);
            row_sum[r] = row_sum[r] * rescale + block_sum;
            row_max[r] = new_max;
            if (k0 > 0) {
                float *o = acc + (int64_t)r * D;
                for (int64_t i = 0; i < D; ++i) {
                    o[i] *= rescale;
                }
            }
        }
        /* acc += P . V1 (batched over n) and P . V2 (batched over m). */
        for (int64_t nl = 0; nl < NB; ++nl) {
            const int64_t n = n0 + nl;
            floyd_gemm(run, scratch, MB, D, KB, scores + nl * LDN, KB, 1,
                       v1 + (n * K + k0) * D, D, 1, acc + nl * MB * D, D, 1);
        }
        for (int64_t ml = 0; ml < MB; ++ml) {
            const int64_t m = m0 + ml;
            floyd_gemm(run, scratch, NB, D, KB, scores + ml * KB, LDN, 1,
                       v2 + (k0 * M + m) * D, M * D, 1, acc + ml * D, MB * D, 1);
        }
    }
    const emu_view *max_view = &ctx->executor->tensors[OUT_MAX], *sum_view = &ctx->executor->tensors[OUT_SUM];
    for (int64_t r = 0; r < ROWS; ++r) {
        const int64_t n = n0 + r / MB, m = m0 + r % MB;
        const float *o = acc + (int64_t)r * D;
        float *out = ctx->out + ((slice * N + n) * M + m) * D;
        for (int64_t i = 0; i < D; ++i) {
            out[i] = o[i] / row_sum[r];
        }
        write_stats(max_view, b, h, n, m, row_max[r]);
        write_stats(sum_view, b, h, n, m, row_sum[r]);
    }
}

static void forward_range(void *opaque, size_t begin, size_t end)
{
    const forward_ctx *ctx = opaque;
    const size_t slots = (size_t)ctx->run.plan->slots;
    for (size_t slot = begin; slot < end; ++slot) {
        for (size_t tile = slot; tile < ctx->tiles; tile += slots) {
            forward_tile(ctx, (int)slot, tile);
        }
    }
}

static const char *run_forward(aclOpExecutor *executor, void *workspace)
{
    const floyd_plan *plan = (const floyd_plan *)executor->plan;
    forward_ctx ctx = {.executor = executor};
    floyd_run_init(&ctx.run, plan, workspace, executor);
    ctx.q = floyd_input(&ctx.run, executor, IN_QUERY);
    ctx.k1 = floyd_input(&ctx.run, executor, IN_KEY1);
    ctx.v1 = floyd_input(&ctx.run, executor, IN_VALUE1);
    ctx.k2 = floyd_input(&ctx.run, executor, IN_KEY2);
    ctx.v2 = floyd_input(&ctx.run, executor, IN_VALUE2);
    ctx.out = floyd_output(&ctx.run, executor, OUT_ATTENTION);
    const floyd_dims *d = &plan->dims;
    ctx.tiles_n = d->N / plan->nb;
    ctx.tiles_m = d->M / plan->mb;
    ctx.tiles_per_slice = (size_t)(ctx.tiles_n * ctx.tiles_m);
    ctx.tiles = ctx.tiles_per_slice * (size_t)(d->B * d->H);
    emu_parallel_for((size_t)plan->slots, 1, forward_range, &ctx);
    floyd_finish_output(&ctx.run, executor, OUT_ATTENTION);
    static _Thread_local char name[160];
    snprintf(name, sizeof name, "floyd_attention(%s+%s)", ctx.run.gemm->name, ctx.run.ew->name);
    return name;
}

static aclnnStatus check_shapes(const char *api, const aclTensor *const *t, floyd_dims *dims)
{
    EMU_TRY(floyd_check_core_shapes(api, t[IN_QUERY], t[IN_KEY1], t[IN_KEY2], dims));
    const floyd_dims d = *dims;
    EMU_TRY(emu_check_same_shape(api, "value1", t[IN_VALUE1], "key1", t[IN_KEY1], ACLNN_ERR_INNER_TILING_ERROR));
    EMU_TRY(emu_check_same_shape(api, "value2", t[IN_VALUE2], "key2", t[IN_KEY2], ACLNN_ERR_INNER_TILING_ERROR));
    if (t[IN_MASK] != NULL) {
        const int64_t shared[FLOYD_RANK] = {d.B, 1, d.N, 1, d.K};
        const int64_t full[FLOYD_RANK] = {d.B, d.H, d.N, d.M, d.K};
        if (!floyd_shape_is(t[IN_MASK], shared)) {
            EMU_TRY(floyd_check_shape_is(api, "attenMaskOptional", t[IN_MASK], full,
                                         "[B, H, N, M, K], or [B, 1, N, 1, K] to share one row per (b, n)"));
        }
    }
    const int64_t stats[FLOYD_RANK] = {d.B, d.H, d.N, d.M, STATS_WIDTH};
    EMU_TRY(floyd_check_shape_is(api, "softmaxMaxOut", t[OUT_MAX], stats, "[B, H, N, M, 8]"));
    EMU_TRY(floyd_check_shape_is(api, "softmaxSumOut", t[OUT_SUM], stats, "[B, H, N, M, 8]"));
    return emu_check_same_shape(api, "attentionOutOut", t[OUT_ATTENTION], "query", t[IN_QUERY],
                                ACLNN_ERR_INNER_TILING_ERROR);
}

aclnnStatus aclnnFusedFloydAttentionGetWorkspaceSize(const aclTensor *query, const aclTensor *key1,
                                                     const aclTensor *value1, const aclTensor *key2,
                                                     const aclTensor *value2, const aclTensor *attenMaskOptional,
                                                     double scaleValueOptional, const aclTensor *softmaxMaxOut,
                                                     const aclTensor *softmaxSumOut, const aclTensor *attentionOutOut,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const aclTensor *const t[TENSORS] = {query, key1, value1, key2, value2, attenMaskOptional,
                                         softmaxMaxOut, softmaxSumOut, attentionOutOut};
    const floyd_call call = {"aclnnFusedFloydAttentionGetWorkspaceSize", "aclnnFusedFloydAttention", t, NAMES,
                             TENSORS, OUT_MAX, IN_MASK, {OUT_MAX, OUT_SUM}, false, scaleValueOptional, 64,
                             NULL};
    floyd_dims dims;
    EMU_TRY(floyd_validate(&call, workspaceSize, executor, check_shapes, &dims));
    aclOpExecutor *planned = floyd_executor(&call, &dims);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    floyd_plan *plan = (floyd_plan *)planned->plan;
    for (int i = IN_QUERY; i <= IN_VALUE2; ++i) {
        floyd_plan_stage(plan, planned, i);
    }
    floyd_plan_stage(plan, planned, OUT_ATTENTION);
    uint64_t tiles = (uint64_t)(dims.B * dims.H) * (uint64_t)(dims.N / plan->nb) * (uint64_t)(dims.M / plan->mb);
    floyd_plan_slots(plan, tiles, slot_floats(plan));
    return emu_executor_publish(planned, run_forward, plan->workspace, workspaceSize, executor);
}

aclnnStatus aclnnFusedFloydAttention(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     const aclrtStream stream)
{
    return emu_executor_run("aclnnFusedFloydAttention", workspace, workspaceSize, executor, stream);
}
