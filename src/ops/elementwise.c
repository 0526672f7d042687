#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "kernels/isa.h"
#include "kernels/silu/silu.h"
#include "ops/elementwise.h"

enum {
    EMU_EW_MAX_INPUTS = 2,
    /* Elements per parallel chunk: large enough to amortise the hand-off,
     * small enough to split mid-sized tensors across cores. */
    EMU_EW_GRAIN = 32768,
    /* fp16/bf16 elements widened per step: three fp32 blocks stay in L1. */
    EMU_EW_BLOCK = 1024,
    EMU_WORKSPACE_ALIGN = 64,
};

typedef struct {
    emu_ew_op op;
    int input_count;
    int64_t numel;
    bool staged[EMU_EW_MAX_INPUTS + 1];
    uint64_t stage_offset[EMU_EW_MAX_INPUTS + 1];
} ew_plan;

static_assert(sizeof(ew_plan) <= EMU_PLAN_BYTES, "ew_plan must fit in the executor");

typedef struct {
    emu_ew_op op;
    aclDataType dtype;
    const void *in[EMU_EW_MAX_INPUTS];
    void *out;
    const emu_silu_kernels *silu;
    const emu_convert_kernels *convert;
} ew_run_ctx;

static void compute_f32(const ew_run_ctx *ctx, size_t n, const float *const *in, float *out)
{
    if (ctx->op == EMU_EW_SILU) {
        ctx->silu->silu(n, in[0], out);
    } else {
        ctx->silu->silu_grad(n, in[0], in[1], out);
    }
}

static void run_range(void *opaque, size_t begin, size_t end)
{
    const ew_run_ctx *ctx = opaque;
    int input_count = ctx->op == EMU_EW_SILU ? 1 : 2;
    if (ctx->dtype == ACL_FLOAT) {
        const float *in[EMU_EW_MAX_INPUTS] = {NULL, NULL};
        for (int i = 0; i < input_count; ++i) {
            in[i] = (const float *)ctx->in[i] + begin;
        }
        compute_f32(ctx, end - begin, in, (float *)ctx->out + begin);
        return;
    }
    bool bf16 = ctx->dtype == ACL_BF16;
    emu_cvt_to_f32_fn widen = bf16 ? ctx->convert->bf16_to_f32 : ctx->convert->f16_to_f32;
    emu_cvt_from_f32_fn narrow = bf16 ? ctx->convert->f32_to_bf16 : ctx->convert->f32_to_f16;
    _Alignas(64) float wide_in[EMU_EW_MAX_INPUTS][EMU_EW_BLOCK];
    _Alignas(64) float wide_out[EMU_EW_BLOCK];
    const float *in[EMU_EW_MAX_INPUTS] = {wide_in[0], wide_in[1]};
    for (size_t at = begin; at < end; at += EMU_EW_BLOCK) {
        size_t n = end - at < EMU_EW_BLOCK ? end - at : EMU_EW_BLOCK;
        for (int i = 0; i < input_count; ++i) {
            widen(n, (const uint16_t *)ctx->in[i] + at, wide_in[i]);
        }
        compute_f32(ctx, n, in, wide_out);
        narrow(n, wide_out, (uint16_t *)ctx->out + at);
    }
}

static const char *kernel_name(const ew_run_ctx *ctx)
{
    static _Thread_local char name[128];
    const char *f32_name = ctx->op == EMU_EW_SILU ? ctx->silu->silu_name : ctx->silu->silu_grad_name;
    if (ctx->dtype == ACL_FLOAT) {
        return f32_name;
    }
    snprintf(name, sizeof name, "%s+%s_convert__%s", f32_name, ctx->dtype == ACL_BF16 ? "bf16" : "f16",
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
        .dtype = executor->tensors[0].dtype,
        .silu = emu_silu_select(isa),
        .convert = emu_convert_select(isa),
    };
    for (int i = 0; i <= plan->input_count; ++i) {
        const emu_view *view = &executor->tensors[i];
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
    emu_parallel_for((size_t)plan->numel, EMU_EW_GRAIN, run_range, &ctx);
    int out = plan->input_count;
    if (plan->staged[out]) {
        emu_view_scatter(ctx.out, &executor->tensors[out]);
    }
    return kernel_name(&ctx);
}

aclnnStatus emu_elementwise_publish(aclOpExecutor *executor, emu_ew_op op, uint64_t *workspace_size,
                                    aclOpExecutor **executor_out)
{
    ew_plan *plan = (ew_plan *)executor->plan;
    memset(plan, 0, sizeof *plan);
    plan->op = op;
    plan->input_count = op == EMU_EW_SILU ? 1 : 2;
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
