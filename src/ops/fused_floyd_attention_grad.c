/* aclnnFusedFloydAttentionGrad: the backward, tile by tile, recomputing P
 * from the saved softmax statistics (see the public header for formulas).
 *
 * A tile is NB values of n x MB values of m of one (b, h); it
 * walks all keys in blocks of KB. dq of a tile is complete inside it.
 * dk1/dv1 of its n's sum over every m-tile, and dk2/dv2 of its m's over
 * every n-tile. To keep one fixed summation order without atomics, tiles
 * run by anti-diagonals: tile (i, j) runs in step i + j, after (i, j - 1)
 * added its part of dk1/dv1 and (i - 1, j) its part of dk2/dv2, so each
 * sum is one fma chain in increasing m (or n) order, whatever thread runs
 * which tile. Tiles of one diagonal (and of every (b, h)) run in parallel.
 *
 * The keys are also cut into FLOYD_KEY_CHUNKS fixed chunks (a constant, not
 * the thread count, so the bits do not depend on it): dk1/dv1/dk2/dv2 of
 * different chunks are disjoint, so a tile of every chunk runs in each step,
 * which keeps both cores busy on the short first and last diagonals. dq sums
 * over all keys: chunk 0 accumulates into dq, chunk c > 0 into a dense
 * [NB, MB, D] partial tile of its own; after each step the partial tiles
 * of that step are added to dq in chunk order.
 *
 * Within a tile and key block, the P and dS tiles (8 MiB each at the
 * default 64 x 128 x 128) live in L3, so the work is ordered to sweep them
 * three times: the K1/V1 terms of S and dP (batched over n); one loop over
 * m that adds the K2/V2 terms, forms that m's rows of P and dS and runs every
 * product batched over m on them while they are in L2; one loop over n for
 * the products batched over n. */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_fused_floyd_attention_grad.h"
#include "common/parallel.h"
#include "ops/floyd_common.h"

enum {
    IN_QUERY,
    IN_KEY1,
    IN_VALUE1,
    IN_KEY2,
    IN_VALUE2,
    IN_DY,
    IN_MASK,
    IN_MAX,
    IN_SUM,
    IN_ATTENTION,
    OUT_DQ,
    OUT_DK1,
    OUT_DV1,
    OUT_DK2,
    OUT_DV2,
    TENSORS
};
enum { STATS_WIDTH = 8, FLOYD_KEY_CHUNKS = 2, FLOYD_KEY_CHUNK_ALIGN = 128 };

static const char *const NAMES[TENSORS] = {"query",      "key1",       "value1",           "key2",
                                           "value2",     "dy",         "attenMaskOptional", "softmaxMax",
                                           "softmaxSum", "attentionIn", "dqOut",            "dk1Out",
                                           "dv1Out",     "dk2Out",     "dv2Out"};

typedef struct {
    floyd_run run;
    const float *q, *k1, *v1, *k2, *v2, *dy, *o;
    const float *max, *sum; /* [B,H,N,M] */
    float *dsum;            /* [B,H,N,M]: sum_d dy*attentionIn */
    float *dq, *dk1, *dv1, *dk2, *dv2;
    float *dq_partial;      /* [chunks - 1][slices][longest diagonal] tiles of [NB, MB, D] */
    int64_t chunks, longest_diagonal, diagonal, i_first, length, tiles, used_slots;
} grad_ctx;

/* Number of key chunks: FLOYD_KEY_CHUNKS when K has enough 128-key blocks
 * and the key block kb divides 128, else 1. Chunk c starts at
 * chunk_start(K, chunks, c), a multiple of 128. */
static int64_t key_chunks(const floyd_plan *plan)
{
    const bool fits = plan->dims.K / FLOYD_KEY_CHUNK_ALIGN >= FLOYD_KEY_CHUNKS && FLOYD_KEY_CHUNK_ALIGN % plan->kb == 0;
    return fits ? FLOYD_KEY_CHUNKS : 1;
}

/* Tiles of nb x mb that run at once: those of the longest anti-diagonal,
 * one per key chunk and (b, h). Tiles only reorder the work: every sum over
 * m, n or keys is the same chain whatever nb and mb are (the key block kb
 * and the chunks, which do fix the order of dq's sum, are not chosen here),
 * so the thread count may pick them. */
static int64_t parallel_tasks(const floyd_plan *plan, int64_t nb, int64_t mb)
{
    const floyd_dims *d = &plan->dims;
    const int64_t tiles_n = d->N / nb, tiles_m = d->M / mb;
    return d->B * d->H * key_chunks(plan) * (tiles_n < tiles_m ? tiles_n : tiles_m);
}

static int64_t chunk_start(int64_t K, int64_t chunks, int64_t c)
{
    const int64_t blocks = K / FLOYD_KEY_CHUNK_ALIGN;
    return c * blocks / chunks * FLOYD_KEY_CHUNK_ALIGN;
}

/* Rows of D floats in each of the two dense staging buffers of a slot. */
static int64_t stage_rows(const floyd_plan *plan)
{
    return plan->nb > plan->kb ? plan->nb : plan->kb;
}

/* Slot scratch: P and dS (NB x MB x KB each, n rows LDN apart), then two
 * staging buffers of stage_rows x D floats. */
static uint64_t slot_floats(const floyd_plan *plan)
{
    return 2u * (uint64_t)plan->nb * (uint64_t)floyd_tile_ldn(plan) +
           2u * (uint64_t)stage_rows(plan) * (uint64_t)plan->dims.D;
}

/* dst (rows of n floats, dense) = rows of src, src_stride floats apart. */
static void gather_rows(float *dst, const float *src, int64_t rows, int64_t src_stride, int64_t n)
{
    for (int64_t r = 0; r < rows; ++r) {
        memcpy(dst + r * n, src + r * src_stride, (size_t)n * sizeof(float));
    }
}

static void scatter_rows(float *dst, int64_t dst_stride, const float *src, int64_t rows, int64_t n)
{
    for (int64_t r = 0; r < rows; ++r) {
        memcpy(dst + r * dst_stride, src + r * n, (size_t)n * sizeof(float));
    }
}

static void grad_tile(const grad_ctx *ctx, int slot, int64_t slice, int64_t chunk, int64_t ti, int64_t tj)
{
    const floyd_run *run = &ctx->run;
    const floyd_dims *d = &run->plan->dims;
    const int64_t N = d->N, M = d->M, K = d->K, D = d->D;
    const int64_t NB = run->plan->nb, MB = run->plan->mb, KB = run->plan->kb;
    const int64_t LDN = floyd_tile_ldn(run->plan);
    const int64_t b = slice / d->H, h = slice % d->H;
    const int64_t n0 = ti * NB, m0 = tj * MB;
    const int64_t nmd = slice * N * M * D, nkd = slice * N * K * D, kmd = slice * K * M * D;
    const float *q = ctx->q + nmd, *dy = ctx->dy + nmd;
    const float *k1 = ctx->k1 + nkd, *v1 = ctx->v1 + nkd, *k2 = ctx->k2 + kmd, *v2 = ctx->v2 + kmd;
    /* dq element (n0 + nl, m0 + ml, :) at dq[nl * dq_ldn + ml * D]. */
    float *dq = ctx->dq + nmd + (n0 * M + m0) * D;
    int64_t dq_ldn = M * D;
    if (chunk > 0) {
        const int64_t tile = ((chunk - 1) * d->B * d->H + slice) * ctx->longest_diagonal + ti - ctx->i_first;
        dq = ctx->dq_partial + tile * NB * MB * D;
        dq_ldn = MB * D;
    }
    float *dk1 = ctx->dk1 + nkd, *dv1 = ctx->dv1 + nkd;
    float *dk2 = ctx->dk2 + kmd, *dv2 = ctx->dv2 + kmd;
    const float *row_max = ctx->max + slice * N * M, *row_sum = ctx->sum + slice * N * M;
    float *p = floyd_slot(run, slot);
    float *ds = p + NB * LDN;
    /* The products batched over m update rows M*D floats apart (a new page
     * per row, all in the same cache sets); they run on dense copies. */
    float *stage_a = ds + NB * LDN, *stage_b = stage_a + stage_rows(run->plan) * D;
    const float *dsum = ctx->dsum + slice * N * M;
    void *scratch = floyd_slot_gemm_scratch(run, slot);
    const float scale = run->plan->scale;

    const int64_t k_begin = chunk_start(K, ctx->chunks, chunk), k_end = chunk_start(K, ctx->chunks, chunk + 1);
    for (int64_t k0 = k_begin; k0 < k_end; k0 += KB) {
        floyd_tile_products_y1(run, scratch, q, k1, n0, m0, k0, p);
        floyd_tile_products_y1(run, scratch, dy, v1, n0, m0, k0, ds);
        /* Batched over m, one pass over the tile: S and dP of this m get
         * their K2/V2 terms, its NB rows of P and dS are formed, then
         * dq += dS[:, m] . K2[:, m], dk2[k, m] += dS[:, m]^T . Q[n-tile, m] and
         * dv2[k, m] += P[:, m]^T . dy[n-tile, m], while dS[:, m] is in L2.
         * dq takes its K2 terms before its K1 terms (next loop). */
        for (int64_t ml = 0; ml < MB; ++ml) {
            const int64_t m = m0 + ml;
            const int64_t rows = ml * KB, x = (n0 * M + m) * D, c = (k0 * M + m) * D;
            if (ml + 1 < MB) {
                floyd_prefetch_rows(k2 + c + D, KB, M * D, D);
                floyd_prefetch_rows(v2 + c + D, KB, M * D, D);
                floyd_prefetch_rows(q + x + D, NB, M * D, D);
                floyd_prefetch_rows(dy + x + D, NB, M * D, D);
                floyd_prefetch_rows(dk2 + c + D, KB, M * D, D);
                floyd_prefetch_rows(dv2 + c + D, KB, M * D, D);
            }
            floyd_tile_products_y2(run, scratch, q, k2, n0, m0, k0, ml, p);
            floyd_tile_products_y2(run, scratch, dy, v2, n0, m0, k0, ml, ds);
            for (int64_t nl = 0; nl < NB; ++nl) {
                const int64_t n = n0 + nl, at = nl * LDN + rows;
                run->ew->softmax(KB, p + at, floyd_mask_row(run, b, h, n, m, k0), scale, row_max[n * M + m],
                                 row_sum[n * M + m]);
                run->ew->softmax_grad(KB, p + at, ds + at, dsum[n * M + m], scale); /* ds = scale*P*(dP - Dsum) */
            }
            const int dq_started = k0 > k_begin;
            if (dq_started) {
                gather_rows(stage_a, dq + ml * D, NB, dq_ldn, D);
            }
            floyd_gemm(run, scratch, NB, D, KB, ds + rows, LDN, 1, k2 + c, M * D, 1, stage_a, D, dq_started);
            scatter_rows(dq + ml * D, dq_ldn, stage_a, NB, D);
            if (ti > 0) {
                gather_rows(stage_a, dk2 + c, KB, M * D, D);
                gather_rows(stage_b, dv2 + c, KB, M * D, D);
            }
            floyd_gemm(run, scratch, KB, D, NB, ds + rows, 1, LDN, q + x, M * D, 1, stage_a, D, ti > 0);
            floyd_gemm(run, scratch, KB, D, NB, p + rows, 1, LDN, dy + x, M * D, 1, stage_b, D, ti > 0);
            scatter_rows(dk2 + c, M * D, stage_a, KB, D);
            scatter_rows(dv2 + c, M * D, stage_b, KB, D);
        }
        /* Batched over n, one pass over the tile: dq += dS[n] . K1[n],
         * dk1[n, k] += dS[n]^T . Q[n, m-tile], dv1[n, k] += P[n]^T . dy[n, m-tile]. */
        for (int64_t nl = 0; nl < NB; ++nl) {
            const int64_t n = n0 + nl;
            const int64_t rows = nl * LDN, x = (n * M + m0) * D, c = (n * K + k0) * D;
            if (nl + 1 < NB) {
                floyd_prefetch_range(k1 + c + K * D, KB * D);
                floyd_prefetch_range(q + x + M * D, MB * D);
                floyd_prefetch_range(dy + x + M * D, MB * D);
                floyd_prefetch_range(dk1 + c + K * D, KB * D);
                floyd_prefetch_range(dv1 + c + K * D, KB * D);
            }
            floyd_gemm(run, scratch, MB, D, KB, ds + rows, KB, 1, k1 + c, D, 1, dq + nl * dq_ldn, D, 1);
            floyd_gemm(run, scratch, KB, D, MB, ds + rows, 1, KB, q + x, D, 1, dk1 + c, D, tj > 0);
            floyd_gemm(run, scratch, KB, D, MB, p + rows, 1, KB, dy + x, D, 1, dv1 + c, D, tj > 0);
        }
    }
}

static void grad_range(void *opaque, size_t begin, size_t end)
{
    const grad_ctx *ctx = opaque;
    for (size_t slot = begin; slot < end; ++slot) {
        for (int64_t tile = (int64_t)slot; tile < ctx->tiles; tile += ctx->used_slots) {
            const int64_t task = tile / ctx->length, ti = ctx->i_first + tile % ctx->length;
            grad_tile(ctx, (int)slot, task / ctx->chunks, task % ctx->chunks, ti, ctx->diagonal - ti);
        }
    }
}

/* dsum[r] = sum_d dy[r, d] * attentionIn[r, d] (D is a multiple of 16). */
static void dsum_range(void *opaque, size_t begin, size_t end)
{
    const grad_ctx *ctx = opaque;
    const int64_t D = ctx->run.plan->dims.D;
    for (size_t r = begin; r < end; ++r) {
        ctx->dsum[r] = ctx->run.ew->dot((size_t)D, ctx->dy + (int64_t)r * D, ctx->o + (int64_t)r * D);
    }
}

/* dq += the partial tiles of chunks 1.. of the current step, in chunk
 * order; one unit is one n-row (MB x D floats) of one tile. */
static void dq_reduce_range(void *opaque, size_t begin, size_t end)
{
    const grad_ctx *ctx = opaque;
    const floyd_plan *plan = ctx->run.plan;
    const floyd_dims *d = &plan->dims;
    const int64_t NB = plan->nb, MB = plan->mb, D = d->D, rows = MB * D;
    for (size_t unit = begin; unit < end; ++unit) {
        const int64_t nl = (int64_t)unit % NB, tile = (int64_t)unit / NB;
        const int64_t slice = tile / ctx->length, at = tile % ctx->length, ti = ctx->i_first + at;
        const int64_t tj = ctx->diagonal - ti, n = ti * NB + nl;
        float *dq = ctx->dq + ((slice * d->N + n) * d->M + tj * MB) * D;
        for (int64_t c = 1; c < ctx->chunks; ++c) {
            const float *part = ctx->dq_partial +
                                (((c - 1) * d->B * d->H + slice) * ctx->longest_diagonal + at) * NB * rows + nl * rows;
            for (int64_t i = 0; i < rows; ++i) {
                dq[i] += part[i];
            }
        }
    }
}

/* Element 0 of the statistics' last axis, as a dense [B,H,N,M] array. */
static const float *first_column(const floyd_run *run, const emu_view *view, uint64_t offset)
{
    const floyd_dims *d = &run->plan->dims;
    float *dense = (float *)(run->workspace + offset);
    const float *base = emu_view_origin(view);
    int64_t at = 0;
    for (int64_t b = 0; b < d->B; ++b)
        for (int64_t h = 0; h < d->H; ++h)
            for (int64_t n = 0; n < d->N; ++n)
                for (int64_t m = 0; m < d->M; ++m) {
                    dense[at++] = base[b * view->strides[0] + h * view->strides[1] + n * view->strides[2] +
                                       m * view->strides[3]];
                }
    return dense;
}

static const char *run_grad(aclOpExecutor *executor, void *workspace)
{
    const floyd_plan *plan = (const floyd_plan *)executor->plan;
    const floyd_dims *d = &plan->dims;
    grad_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    floyd_run_init(&ctx.run, plan, workspace, executor);
    ctx.q = floyd_input(&ctx.run, executor, IN_QUERY);
    ctx.k1 = floyd_input(&ctx.run, executor, IN_KEY1);
    ctx.v1 = floyd_input(&ctx.run, executor, IN_VALUE1);
    ctx.k2 = floyd_input(&ctx.run, executor, IN_KEY2);
    ctx.v2 = floyd_input(&ctx.run, executor, IN_VALUE2);
    ctx.dy = floyd_input(&ctx.run, executor, IN_DY);
    ctx.o = floyd_input(&ctx.run, executor, IN_ATTENTION);
    const uint64_t rows = (uint64_t)(d->B * d->H * d->N * d->M);
    ctx.max = first_column(&ctx.run, &executor->tensors[IN_MAX], plan->stats_offset);
    ctx.sum = first_column(&ctx.run, &executor->tensors[IN_SUM], plan->stats_offset + rows * sizeof(float));
    ctx.dq = floyd_output(&ctx.run, executor, OUT_DQ);
    ctx.dk1 = floyd_output(&ctx.run, executor, OUT_DK1);
    ctx.dv1 = floyd_output(&ctx.run, executor, OUT_DV1);
    ctx.dk2 = floyd_output(&ctx.run, executor, OUT_DK2);
    ctx.dv2 = floyd_output(&ctx.run, executor, OUT_DV2);
    ctx.dsum = (float *)(ctx.run.workspace + plan->stats_offset + 2u * rows * sizeof(float));
    ctx.chunks = key_chunks(plan);
    ctx.dq_partial = (float *)(ctx.run.workspace + plan->dq_partial_offset);
    emu_parallel_for((size_t)rows, 256, dsum_range, &ctx);

    const int64_t tiles_n = d->N / plan->nb, tiles_m = d->M / plan->mb, slices = d->B * d->H;
    ctx.longest_diagonal = tiles_n < tiles_m ? tiles_n : tiles_m;
    for (int64_t t = 0; t < tiles_n + tiles_m - 1; ++t) {
        ctx.diagonal = t;
        ctx.i_first = t - tiles_m + 1 > 0 ? t - tiles_m + 1 : 0;
        const int64_t i_last = t < tiles_n - 1 ? t : tiles_n - 1;
        ctx.length = i_last - ctx.i_first + 1;
        ctx.tiles = slices * ctx.chunks * ctx.length;
        ctx.used_slots = ctx.tiles < plan->slots ? ctx.tiles : plan->slots;
        emu_parallel_for((size_t)ctx.used_slots, 1, grad_range, &ctx);
        if (ctx.chunks > 1) {
            emu_parallel_for((size_t)(slices * ctx.length * plan->nb), 8, dq_reduce_range, &ctx);
        }
    }
    for (int i = OUT_DQ; i <= OUT_DV2; ++i) {
        floyd_finish_output(&ctx.run, executor, i);
    }
    static _Thread_local char name[160];
    snprintf(name, sizeof name, "floyd_attention_grad(%s+%s, tile %lldx%lldx%lld)", ctx.run.gemm->name,
             ctx.run.ew->name, (long long)plan->nb, (long long)plan->mb, (long long)plan->kb);
    return name;
}

static aclnnStatus check_shapes(const char *api, const aclTensor *const *t, floyd_dims *dims)
{
    EMU_TRY(floyd_check_core_shapes(api, t[IN_QUERY], t[IN_KEY1], t[IN_KEY2], dims));
    const floyd_dims d = *dims;
    const int64_t stats[FLOYD_RANK] = {d.B, d.H, d.N, d.M, STATS_WIDTH};
    EMU_TRY(floyd_check_shape_is(api, "softmaxMax", t[IN_MAX], stats, "[B, H, N, M, 8]"));
    EMU_TRY(floyd_check_shape_is(api, "softmaxSum", t[IN_SUM], stats, "[B, H, N, M, 8]"));
    if (t[IN_MASK] != NULL) {
        const int64_t mask[FLOYD_RANK] = {d.B, 1, d.N, 1, d.K};
        EMU_TRY(floyd_check_shape_is(api, "attenMaskOptional", t[IN_MASK], mask, "[B, 1, N, 1, K]"));
    }
    static const int SAME_AS[][2] = {{IN_VALUE1, IN_KEY1}, {IN_VALUE2, IN_KEY2},  {IN_DY, IN_QUERY},
                                     {IN_ATTENTION, IN_QUERY}, {OUT_DQ, IN_QUERY}, {OUT_DK1, IN_KEY1},
                                     {OUT_DV1, IN_KEY1},    {OUT_DK2, IN_KEY2},   {OUT_DV2, IN_KEY2}};
    for (size_t i = 0; i < sizeof SAME_AS / sizeof SAME_AS[0]; ++i) {
        int x = SAME_AS[i][0], ref = SAME_AS[i][1];
        EMU_TRY(emu_check_same_shape(api, NAMES[x], t[x], NAMES[ref], t[ref], ACLNN_ERR_INNER_TILING_ERROR));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnFusedFloydAttentionGradGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key1, const aclTensor *value1, const aclTensor *key2,
    const aclTensor *value2, const aclTensor *dy, const aclTensor *attenMaskOptional, const aclTensor *softmaxMax,
    const aclTensor *softmaxSum, const aclTensor *attentionIn, double scaleValue, const aclTensor *dqOut,
    const aclTensor *dk1Out, const aclTensor *dv1Out, const aclTensor *dk2Out, const aclTensor *dv2Out,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const aclTensor *const t[TENSORS] = {query, key1, value1, key2, value2, dy, attenMaskOptional, softmaxMax,
                                         softmaxSum, attentionIn, dqOut, dk1Out, dv1Out, dk2Out, dv2Out};
    /* CANN registers the FLOAT kernel with a BOOL mask only. */
    const bool bool_mask_only = query != NULL && query->view.dtype == ACL_FLOAT;
    const floyd_call call = {"aclnnFusedFloydAttentionGradGetWorkspaceSize", "aclnnFusedFloydAttentionGrad", t,
                             NAMES, TENSORS, OUT_DQ, IN_MASK, {IN_MAX, IN_SUM}, bool_mask_only, scaleValue, 128,
                             parallel_tasks};
    floyd_dims dims;
    EMU_TRY(floyd_validate(&call, workspaceSize, executor, check_shapes, &dims));
    aclOpExecutor *planned = floyd_executor(&call, &dims);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    floyd_plan *plan = (floyd_plan *)planned->plan;
    for (int i = 0; i < TENSORS; ++i) {
        if (i != IN_MASK && i != IN_MAX && i != IN_SUM) {
            floyd_plan_stage(plan, planned, i);
        }
    }
    const uint64_t rows = (uint64_t)(dims.B * dims.H * dims.N * dims.M);
    plan->stats_offset = floyd_reserve(plan, 3u * rows * sizeof(float)); /* max, sum, dsum */
    const uint64_t chunks = (uint64_t)key_chunks(plan);
    const uint64_t tiles_n = (uint64_t)(dims.N / plan->nb), tiles_m = (uint64_t)(dims.M / plan->mb);
    const uint64_t longest_diagonal = tiles_n < tiles_m ? tiles_n : tiles_m;
    const uint64_t tile_floats = (uint64_t)(plan->nb * plan->mb * dims.D);
    plan->dq_partial_offset = floyd_reserve(plan, (chunks - 1u) * (uint64_t)(dims.B * dims.H) * longest_diagonal *
                                                      tile_floats * sizeof(float));
    floyd_plan_slots(plan, (uint64_t)(dims.B * dims.H) * chunks * longest_diagonal, slot_floats(plan));
    return emu_executor_publish(planned, run_grad, plan->workspace, workspaceSize, executor);
}

aclnnStatus aclnnFusedFloydAttentionGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream)
{
    return emu_executor_run("aclnnFusedFloydAttentionGrad", workspace, workspaceSize, executor, stream);
}
