#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "kernels/isa.h"
#include "kernels/silu/silu.h"
#include "ops/silu_plan.h"

enum {
    SILU_MAX_INPUTS = 2,
    /* Elements per parallel chunk: large enough to amortise the hand-off,
     * small enough to split mid-sized tensors across cores. */
    SILU_GRAIN = 32768,
    /* fp16/bf16 elements widened per step: three fp32 blocks stay in L1. */
    SILU_BLOCK = 1024,
    EMU_WORKSPACE_ALIGN = 64,
};

typedef struct {
    emu_silu_op op;
    int input_count;
    int64_t numel;
    bool staged[SILU_MAX_INPUTS + 1];
    uint64_t stage_offset[SILU_MAX_INPUTS + 1];
} ew_plan;

static_assert(sizeof(ew_plan) <= EMU_PLAN_BYTES, "ew_plan must fit in the executor");

typedef struct {
    emu_silu_op op;
    int input_count;
    aclDataType in_dtype[SILU_MAX_INPUTS];
    aclDataType out_dtype;
    bool all_f32;
    /* Fused fp16/bf16 kernels when every tensor has that one dtype. */
    const emu_silu_half_kernels *half;
    /* The non-temporal form of the gradient writes `out` (see EMU_STREAM_OUTPUT_MIN_BYTES). */
    bool streaming;
    const void *in[SILU_MAX_INPUTS];
    void *out;
    const emu_silu_kernels *silu;
    const emu_convert_kernels *convert;
} ew_run_ctx;

static void compute_f32(const ew_run_ctx *ctx, size_t n, const float *const *in, float *out)
{
    if (ctx->op == EMU_SILU_FORWARD) {
        ctx->silu->silu(n, in[0], out);
    } else if (ctx->streaming) {
        ctx->silu->silu_grad_streaming(n, in[0], in[1], out);
    } else {
        ctx->silu->silu_grad(n, in[0], in[1], out);
    }
}

/* fp16/bf16 blocks are widened into `wide`; fp32 data is used in place. */
static const float *widen(const ew_run_ctx *ctx, aclDataType dtype, const void *data, size_t at, size_t n,
                          float *wide)
{
    if (dtype == ACL_FLOAT) {
        return (const float *)data + at;
    }
    emu_cvt_to_f32_fn convert = dtype == ACL_BF16 ? ctx->convert->bf16_to_f32 : ctx->convert->f16_to_f32;
    convert(n, (const uint16_t *)data + at, wide);
    return wide;
}

static void run_range(void *opaque, size_t begin, size_t end)
{
    const ew_run_ctx *ctx = opaque;
    if (ctx->half != NULL) {
        const uint16_t *in0 = (const uint16_t *)ctx->in[0] + begin;
        uint16_t *out = (uint16_t *)ctx->out + begin;
        if (ctx->op == EMU_SILU_FORWARD) {
            ctx->half->silu(end - begin, in0, out);
        } else {
            emu_silu_grad_half_fn grad = ctx->streaming ? ctx->half->silu_grad_streaming : ctx->half->silu_grad;
            grad(end - begin, in0, (const uint16_t *)ctx->in[1] + begin, out);
        }
        return;
    }
    if (ctx->all_f32) {
        const float *in[SILU_MAX_INPUTS] = {NULL, NULL};
        for (int i = 0; i < ctx->input_count; ++i) {
            in[i] = (const float *)ctx->in[i] + begin;
        }
        compute_f32(ctx, end - begin, in, (float *)ctx->out + begin);
        return;
    }
    _Alignas(64) float wide_in[SILU_MAX_INPUTS][SILU_BLOCK];
    _Alignas(64) float wide_out[SILU_BLOCK];
    for (size_t at = begin; at < end; at += SILU_BLOCK) {
        size_t n = end - at < SILU_BLOCK ? end - at : SILU_BLOCK;
        const float *in[SILU_MAX_INPUTS] = {NULL, NULL};
        for (int i = 0; i < ctx->input_count; ++i) {
            in[i] = widen(ctx, ctx->in_dtype[i], ctx->in[i], at, n, wide_in[i]);
        }
        if (ctx->out_dtype == ACL_FLOAT) {
            compute_f32(ctx, n, in, (float *)ctx->out + at);
            continue;
        }
        compute_f32(ctx, n, in, wide_out);
        emu_cvt_from_f32_fn narrow = ctx->out_dtype == ACL_BF16 ? ctx->convert->f32_to_bf16
                                                                : ctx->convert->f32_to_f16;
        narrow(n, wide_out, (uint16_t *)ctx->out + at);
    }
}

static const emu_silu_half_kernels *uniform_half_kernels(const ew_run_ctx *ctx)
{
    if (ctx->out_dtype != ACL_FLOAT16 && ctx->out_dtype != ACL_BF16) {
        return NULL;
    }
    for (int i = 0; i < ctx->input_count; ++i) {
        if (ctx->in_dtype[i] != ctx->out_dtype) {
            return NULL;
        }
    }
    return ctx->out_dtype == ACL_BF16 ? &ctx->silu->bf16 : &ctx->silu->f16;
}

static const char *kernel_name(const ew_run_ctx *ctx)
{
    static _Thread_local char name[128];
    if (ctx->half != NULL) {
        if (ctx->op == EMU_SILU_FORWARD) {
            return ctx->half->silu_name;
        }
        return ctx->streaming ? ctx->half->silu_grad_streaming_name : ctx->half->silu_grad_name;
    }
    const char *f32_name = ctx->op == EMU_SILU_FORWARD ? ctx->silu->silu_name : ctx->silu->silu_grad_name;
    if (ctx->all_f32) {
        return ctx->streaming ? ctx->silu->silu_grad_streaming_name : f32_name;
    }
    bool f16 = ctx->out_dtype == ACL_FLOAT16, bf16 = ctx->out_dtype == ACL_BF16;
    for (int i = 0; i < ctx->input_count; ++i) {
        f16 = f16 || ctx->in_dtype[i] == ACL_FLOAT16;
        bf16 = bf16 || ctx->in_dtype[i] == ACL_BF16;
    }
    snprintf(name, sizeof name, "%s+%s_convert__%s", f32_name, f16 && bf16 ? "f16_bf16" : f16 ? "f16" : "bf16",
             ctx->convert->isa_name);
    return name;
}

static const char *run_elementwise(aclOpExecutor *executor, void *workspace)
{
    const ew_plan *plan = (const ew_plan *)executor->plan;
    if (plan->numel == 0) {
        return "";
    }
    emu_isa isa = emu_isa_active();
    ew_run_ctx ctx = {
        .op = plan->op,
        .input_count = plan->input_count,
        .out_dtype = executor->tensors[plan->input_count].dtype,
        .all_f32 = true,
        .silu = emu_silu_select(isa),
        .convert = emu_convert_select(isa),
    };
    for (int i = 0; i <= plan->input_count; ++i) {
        const emu_view *view = &executor->tensors[i];
        ctx.all_f32 = ctx.all_f32 && view->dtype == ACL_FLOAT;
        if (i < plan->input_count) {
            ctx.in_dtype[i] = view->dtype;
        }
        void *dense = plan->staged[i] ? (char *)workspace + plan->stage_offset[i] : emu_view_origin(view);
        if (plan->staged[i] && i < plan->input_count) {
            emu_view_gather(view, dense);
        }
        if (i < plan->input_count) {
            ctx.in[i] = dense;
        } else {
            ctx.out = dense;
        }
    }
    ctx.half = uniform_half_kernels(&ctx);
    /* What the call streams through the cache: dy, x and dx, all of one
     * element size on the fused routes. A staged dx is read back by the
     * scatter at once: keep it in cache. */
    const size_t stream_bytes = (size_t)plan->numel * (ctx.all_f32 ? sizeof(float) : sizeof(uint16_t)) *
                                (size_t)(plan->input_count + 1);
    ctx.streaming = (ctx.half != NULL || ctx.all_f32) && plan->op == EMU_SILU_GRAD &&
                    !plan->staged[plan->input_count] && stream_bytes >= EMU_STREAM_OUTPUT_MIN_BYTES;
    emu_parallel_for((size_t)plan->numel, SILU_GRAIN, run_range, &ctx);
    int out = plan->input_count;
    if (plan->staged[out]) {
        emu_view_scatter(ctx.out, &executor->tensors[out]);
    }
    return kernel_name(&ctx);
}

aclnnStatus emu_silu_publish(aclOpExecutor *executor, emu_silu_op op, uint64_t *workspace_size,
                                    aclOpExecutor **executor_out)
{
    ew_plan *plan = (ew_plan *)executor->plan;
    memset(plan, 0, sizeof *plan);
    plan->op = op;
    plan->input_count = op == EMU_SILU_FORWARD ? 1 : 2;
    plan->numel = emu_view_numel(&executor->tensors[plan->input_count]);
    uint64_t total = 0;
    for (int i = 0; i <= plan->input_count && plan->numel > 0; ++i) {
        const emu_view *view = &executor->tensors[i];
        if (emu_view_is_contiguous(view)) {
            continue;
        }
        total = (total + EMU_WORKSPACE_ALIGN - 1) / EMU_WORKSPACE_ALIGN * EMU_WORKSPACE_ALIGN;
        plan->staged[i] = true;
        plan->stage_offset[i] = total;
        total += (uint64_t)plan->numel * emu_dtype_size(view->dtype);
    }
    return emu_executor_publish(executor, run_elementwise, total, workspace_size, executor_out);
}
