/* Phase 2 of aclnnFusedInferAttentionScoreV2.
 *
 * One task is a block of `rows` query rows (g, s) that share one key/value
 * head (b, kv head): it converts that head's K and V to fp32, computes the
 * scores Q.K^T (kernels/gemm: one fma chain per score over d in order),
 * s = s * scale + pse (fp32, pse converted from its half type), the row
 * max, p = exp(s - max) and its sum (kernels/floyd: 16 lanes and a fixed
 * tree), O = P.V (kernels/gemm, over keys in order) and out = O / sum,
 * rounded to the output's half type. Every output row comes from one task,
 * so the result does not depend on the thread count or the ISA level.
 *
 * CANN's kernels run an online softmax over blocks of keys and feed P to the
 * second product in fp16; here the softmax sees the whole row at once and P
 * stays fp32, so results differ from the device's in the last bits of fp16
 * (within CANN's precision standard). A row whose every score is -inf (all
 * masked by pseShift) gives 0 with innerPrecise 2 or 3 (the row-invalid
 * correction) and NaN with 0 or 1, as exp(-inf - -inf) does. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "kernels/floyd/floyd.h"
#include "kernels/gemm/gemm.h"
#include "ops/attention.h"

typedef struct {
    const fia_plan *plan;
    const aclOpExecutor *executor;
    unsigned char *workspace; /* aligned to FIA_ALIGN */
    const emu_gemm_kernels *gemm;
    const emu_floyd_kernels *ew;
    const emu_convert_kernels *convert;
    size_t tasks;
} fia_ctx;

static uint64_t round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

uint64_t fia_slot_floats(const fia_plan *p)
{
    const uint64_t D = (uint64_t)p->D, R = (uint64_t)p->rows;
    return round_up(2u * (uint64_t)p->S2 * D + 2u * R * D + R * (uint64_t)p->ld + R + (uint64_t)p->ld,
                    FIA_ALIGN / sizeof(float));
}

static bool is_bf16(const emu_view *view)
{
    return view->dtype == ACL_BF16;
}

/* n half values at `src` (step in elements) to fp32. */
static void load_row(const fia_ctx *ctx, bool bf16, const uint16_t *src, int64_t step, int64_t n, float *dst)
{
    if (step == 1) {
        (bf16 ? ctx->convert->bf16_to_f32 : ctx->convert->f16_to_f32)((size_t)n, src, dst);
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        dst[i] = bf16 ? emu_bf16_to_f32(src[i * step]) : emu_f16_to_f32(src[i * step]);
    }
}

static void store_row(const fia_ctx *ctx, bool bf16, const float *src, int64_t n, uint16_t *dst, int64_t step)
{
    if (step == 1) {
        (bf16 ? ctx->convert->f32_to_bf16 : ctx->convert->f32_to_f16)((size_t)n, src, dst);
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        dst[i * step] = bf16 ? emu_f32_to_bf16(src[i]) : emu_f32_to_f16(src[i]);
    }
}

static const uint16_t *tensor_at(const fia_ctx *ctx, int index, const int64_t *str, int64_t b, int64_t n,
                                 int64_t s)
{
    const uint16_t *origin = emu_view_origin(&ctx->executor->tensors[index]);
    return origin + b * str[0] + n * str[1] + s * str[2];
}

static void gemm(const fia_ctx *ctx, void *scratch, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                 const float *b, int64_t b_row, int64_t b_col, float *c, int64_t ldc)
{
    const emu_sgemm_args args = {m, n, k, a, lda, 1, b, b_row, b_col, c, ldc, 0};
    ctx->gemm->sgemm(&args, scratch);
}

/* s = s * scale + pse over the row's keys, -inf over the padding; returns the max. */
static float bias_row(const fia_ctx *ctx, float *s, const uint16_t *pse, float *pse_f32)
{
    const fia_plan *p = ctx->plan;
    if (pse != NULL) {
        load_row(ctx, is_bf16(&ctx->executor->tensors[FIA_PSE]), pse, p->pse_str[3], p->S2, pse_f32);
    }
    float max = -INFINITY;
    for (int64_t j = 0; j < p->S2; ++j) {
        float v = s[j] * p->scale;
        if (pse != NULL) {
            v += pse_f32[j];
        }
        s[j] = v;
        max = v > max ? v : max;
    }
    for (int64_t j = p->S2; j < p->ld; ++j) {
        s[j] = -INFINITY;
    }
    return max;
}

static void run_task(const fia_ctx *ctx, int slot, size_t task)
{
    const fia_plan *p = ctx->plan;
    const emu_view *tensors = ctx->executor->tensors;
    const int64_t D = p->D, S2 = p->S2, LD = p->ld;
    const int64_t chunk = (int64_t)task % p->chunks, head = (int64_t)task / p->chunks;
    const int64_t b = head / p->KVN, kvh = head % p->KVN;
    const int64_t first = chunk * p->rows, total = p->G * p->S;
    const int64_t R = total - first < p->rows ? total - first : p->rows;

    float *k = (float *)(ctx->workspace + (uint64_t)slot * p->slot_bytes);
    float *v = k + S2 * D, *q = v + S2 * D, *scores = q + p->rows * D, *o = scores + p->rows * LD;
    float *sums = o + p->rows * D, *pse_f32 = sums + p->rows;
    void *scratch = (unsigned char *)k + fia_slot_floats(p) * sizeof(float);
    const bool bf16 = is_bf16(&tensors[FIA_QUERY]);

    for (int64_t j = 0; j < S2; ++j) {
        load_row(ctx, bf16, tensor_at(ctx, FIA_KEY, p->k_str, b, kvh, j), p->k_str[3], D, k + j * D);
        load_row(ctx, bf16, tensor_at(ctx, FIA_VALUE, p->v_str, b, kvh, j), p->v_str[3], D, v + j * D);
    }
    for (int64_t r = 0; r < R; ++r) {
        const int64_t g = (first + r) / p->S, s = (first + r) % p->S;
        load_row(ctx, bf16, tensor_at(ctx, FIA_QUERY, p->q_str, b, kvh * p->G + g, s), p->q_str[3], D, q + r * D);
    }
    /* scores = Q . K^T: K^T(d, j) is k[j * D + d]. */
    gemm(ctx, scratch, R, S2, D, q, D, k, 1, D, scores, LD);
    for (int64_t r = 0; r < R; ++r) {
        const int64_t g = (first + r) / p->S, s = (first + r) % p->S;
        float *row = scores + r * LD;
        const uint16_t *pse = p->has_pse ? tensor_at(ctx, FIA_PSE, p->pse_str, b, kvh * p->G + g, s) : NULL;
        const float max = bias_row(ctx, row, pse, pse_f32);
        if (max == -INFINITY) {
            sums[r] = 0.0f; /* an invalid row: every key masked */
            memset(row, 0, sizeof(float) * (size_t)LD);
            continue;
        }
        sums[r] = ctx->ew->exp_sum((size_t)LD, row, max);
    }
    /* O = P . V */
    gemm(ctx, scratch, R, D, S2, scores, LD, v, D, 1, o, D);
    for (int64_t r = 0; r < R; ++r) {
        const int64_t g = (first + r) / p->S, s = (first + r) % p->S;
        float *row = o + r * D;
        const float sum = sums[r];
        for (int64_t i = 0; i < D; ++i) {
            row[i] = sum == 0.0f ? (p->row_invalid_zero ? 0.0f : NAN) : row[i] / sum;
        }
        uint16_t *out = (uint16_t *)tensor_at(ctx, FIA_OUT, p->o_str, b, kvh * p->G + g, s);
        store_row(ctx, is_bf16(&tensors[FIA_OUT]), row, D, out, p->o_str[3]);
    }
}

static void slots_range(void *opaque, size_t begin, size_t end)
{
    const fia_ctx *ctx = opaque;
    const size_t slots = (size_t)ctx->plan->slots;
    for (size_t slot = begin; slot < end; ++slot) {
        for (size_t task = slot; task < ctx->tasks; task += slots) {
            run_task(ctx, (int)slot, task);
        }
    }
}

/* Key/value sequences of length 0: attentionOut is all zeros. */
static void zero_output(const fia_ctx *ctx)
{
    const fia_plan *p = ctx->plan;
    for (int64_t b = 0; b < p->B; ++b) {
        for (int64_t n = 0; n < p->N; ++n) {
            for (int64_t s = 0; s < p->S; ++s) {
                uint16_t *out = (uint16_t *)tensor_at(ctx, FIA_OUT, p->o_str, b, n, s);
                for (int64_t d = 0; d < p->D; ++d) {
                    out[d * p->o_str[3]] = 0;
                }
            }
        }
    }
}

const char *fia_run(aclOpExecutor *executor, void *workspace)
{
    const fia_plan *plan = (const fia_plan *)executor->plan;
    const emu_isa isa = emu_isa_active();
    uintptr_t base = (uintptr_t)workspace;
    fia_ctx ctx = {plan, executor, (unsigned char *)((base + FIA_ALIGN - 1) / FIA_ALIGN * FIA_ALIGN),
                   emu_gemm_select(isa), emu_floyd_select(isa), emu_convert_select(isa), 0};
    if (plan->B == 0 || plan->S == 0 || plan->D == 0) {
        return ""; /* an empty query: nothing to do */
    }
    if (plan->S2 == 0) {
        zero_output(&ctx);
        return "fia_zero";
    }
    ctx.tasks = (size_t)(plan->B * plan->KVN * plan->chunks);
    emu_parallel_for((size_t)plan->slots, 1, slots_range, &ctx);
    static _Thread_local char name[160];
    snprintf(name, sizeof name, "fused_infer_attention(%s+%s)", ctx.gemm->name, ctx.ew->name);
    return name;
}
