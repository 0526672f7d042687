#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "ops/floyd_common.h"

/* ------------------------------------------------------------ phase 1 */

aclnnStatus floyd_check_product(const char *api)
{
    emu_soc soc = emu_soc_get();
    if (soc == EMU_SOC_ASCEND910 || soc == EMU_SOC_ASCEND950) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the emulated product %s does not offer this operator; "
                                                 "expected Ascend910B or Ascend910_93 (Atlas A2/A3).", api,
                        aclrtGetSocName());
    }
    return ACLNN_SUCCESS;
}

aclnnStatus floyd_check_format(const char *api, const char *name, const aclTensor *tensor)
{
    switch (tensor->format) {
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0:
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has the private storage format %d; expected ACL_FORMAT_ND.",
                        api, name, (int)tensor->format);
    default:
        return ACLNN_SUCCESS;
    }
}

aclnnStatus floyd_check_mask_dtype(const char *api, const aclTensor *mask, bool bool_only)
{
    aclDataType dt = mask->view.dtype;
    if (dt == ACL_BOOL || (dt == ACL_UINT8 && !bool_only)) {
        return ACLNN_SUCCESS;
    }
    if (dt == ACL_UINT8) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: attenMaskOptional has dtype ACL_UINT8; expected ACL_BOOL when "
                                                 "query is ACL_FLOAT (CANN has no FLOAT kernel with a UINT8 mask).",
                        api);
    }
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: attenMaskOptional has dtype %s; expected ACL_BOOL or ACL_UINT8.",
                    api, emu_dtype_name(dt));
}

static aclnnStatus check_rank5(const char *api, const char *name, const aclTensor *tensor)
{
    if (tensor->view.rank != FLOYD_RANK) {
        char shape[256];
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s has shape %s (rank %d); expected rank 5.", api, name,
                        emu_shape_string(&tensor->view, shape, sizeof shape), (int)tensor->view.rank);
    }
    return ACLNN_SUCCESS;
}

static const char *dims_string(const int64_t *d, char *buf, size_t size)
{
    snprintf(buf, size, "[%lld, %lld, %lld, %lld, %lld]", (long long)d[0], (long long)d[1], (long long)d[2],
             (long long)d[3], (long long)d[4]);
    return buf;
}

bool floyd_shape_is(const aclTensor *tensor, const int64_t *want)
{
    bool same = tensor->view.rank == FLOYD_RANK;
    for (int i = 0; same && i < FLOYD_RANK; ++i) {
        same = tensor->view.shape[i] == want[i];
    }
    return same;
}

aclnnStatus floyd_check_shape_is(const char *api, const char *name, const aclTensor *tensor, const int64_t *want,
                                 const char *what)
{
    if (!floyd_shape_is(tensor, want)) {
        char have[256], expected[128];
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s has shape %s; expected %s (%s).", api, name,
                        emu_shape_string(&tensor->view, have, sizeof have), dims_string(want, expected, sizeof expected),
                        what);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_no_zero(const char *api, const char *name, const aclTensor *tensor)
{
    for (int i = 0; i < FLOYD_RANK; ++i) {
        if (tensor->view.shape[i] == 0) {
            char shape[256];
            return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s has shape %s; expected no dimension of size 0.", api,
                            name, emu_shape_string(&tensor->view, shape, sizeof shape));
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_multiple(const char *api, const char *what, int64_t value, int64_t of)
{
    if (value % of != 0) {
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s is %lld; expected a multiple of %lld.", api, what,
                        (long long)value, (long long)of);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus floyd_check_core_shapes(const char *api, const aclTensor *query, const aclTensor *key1,
                                    const aclTensor *key2, floyd_dims *dims)
{
    EMU_TRY(check_rank5(api, "query", query));
    EMU_TRY(check_rank5(api, "key1", key1));
    EMU_TRY(check_rank5(api, "key2", key2));
    EMU_TRY(check_no_zero(api, "query", query));
    EMU_TRY(check_no_zero(api, "key1", key1));
    EMU_TRY(check_no_zero(api, "key2", key2));
    const int64_t *q = query->view.shape;
    floyd_dims d = {q[0], q[1], q[2], q[3], key1->view.shape[3], q[4]};
    const int64_t want_key1[FLOYD_RANK] = {d.B, d.H, d.N, d.K, d.D};
    EMU_TRY(floyd_check_shape_is(api, "key1", key1, want_key1, "[B, H, N, K, D] with B, H, N, D of query"));
    const int64_t want_key2[FLOYD_RANK] = {d.B, d.H, d.K, d.M, d.D};
    EMU_TRY(floyd_check_shape_is(api, "key2", key2, want_key2,
                                 "[B, H, K, M, D] with B, H, M, D of query and K of key1"));
    EMU_TRY(check_multiple(api, "N (query dimension 2)", d.N, 16));
    EMU_TRY(check_multiple(api, "M (query dimension 3)", d.M, 128));
    EMU_TRY(check_multiple(api, "K (key1 dimension 3)", d.K, 128));
    if (d.D != 32 && d.D != 64 && d.D != 128) {
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: D (query dimension 4) is %lld; expected 32, 64 or 128.",
                        api, (long long)d.D);
    }
    *dims = d;
    return ACLNN_SUCCESS;
}

aclnnStatus floyd_check_memory(const char *api, const char *name, const aclTensor *tensor)
{
    EMU_TRY(emu_check_has_data(api, name, tensor));
    return emu_check_device_memory(api, name, tensor);
}

static const aclDataType FLOAT_TYPES[] = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT};
static const aclDataType STATS_TYPE[] = {ACL_FLOAT};

static aclnnStatus check_dtypes(const floyd_call *c)
{
    const aclTensor *query = c->tensors[0];
    EMU_TRY(emu_check_dtype_in(c->api, c->names[0], query, FLOAT_TYPES, 3));
    for (int i = 1; i < c->count; ++i) {
        const aclTensor *t = c->tensors[i];
        if (i == c->mask) {
            if (t != NULL) {
                EMU_TRY(floyd_check_mask_dtype(c->api, t, c->mask_bool_only));
            }
        } else if (i == c->stats[0] || i == c->stats[1]) {
            EMU_TRY(emu_check_dtype_in(c->api, c->names[i], t, STATS_TYPE, 1));
        } else {
            EMU_TRY(emu_check_same_dtype(c->api, c->names[i], t, c->names[0], query));
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus floyd_validate(const floyd_call *c, const uint64_t *workspace_size, aclOpExecutor *const *executor,
                           floyd_shapes_fn shapes, floyd_dims *dims)
{
    EMU_TRY(emu_check_not_null(c->api, "workspaceSize", workspace_size));
    EMU_TRY(emu_check_not_null(c->api, "executor", executor));
    for (int i = 0; i < c->count; ++i) {
        if (i != c->mask) {
            EMU_TRY(emu_check_not_null(c->api, c->names[i], c->tensors[i]));
        }
    }
    EMU_TRY(floyd_check_product(c->api));
    EMU_TRY(check_dtypes(c));
    for (int i = 0; i < c->count; ++i) {
        if (c->tensors[i] != NULL) {
            EMU_TRY(floyd_check_format(c->api, c->names[i], c->tensors[i]));
        }
    }
    EMU_TRY(shapes(c->api, c->tensors, dims));
    for (int i = 0; i < c->count; ++i) {
        if (c->tensors[i] != NULL) {
            EMU_TRY(floyd_check_memory(c->api, c->names[i], c->tensors[i]));
        }
    }
    return emu_check_outputs_separate(c->api, c->names, c->tensors, c->inputs, c->count);
}

aclOpExecutor *floyd_executor(const floyd_call *c, const floyd_dims *dims)
{
    aclOpExecutor *planned = emu_executor_create(c->api, c->phase2, c->inputs, c->count - c->inputs);
    if (planned == NULL) {
        return NULL;
    }
    emu_executor_name_tensors(planned, c->names); /* static arrays of the op files */
    for (int i = 0; i < c->count; ++i) {
        emu_executor_bind(planned, i, c->tensors[i]);
    }
    floyd_plan *plan = (floyd_plan *)planned->plan;
    memset(plan, 0, sizeof *plan);
    plan->dims = *dims;
    plan->scale = (float)c->scale;
    if (!isfinite(plan->scale) && emu_verbose()) {
        /* CANN's tiling reads scale_value as a float attribute and checks
         * nothing (cannmirror/ops-transformer attention/fused_floyd_attention*
         * /op_host, AnalyzeAttrs): accepted, as there. */
        fprintf(stderr, "[aclnn_emu] %s: scaleValue %g is %s as a float; accepted as CANN accepts it, and the "
                        "outputs will be NaN or inf.\n", c->api, c->scale,
                isnan(plan->scale) ? "NaN" : "infinite");
    }
    plan->mask_index = c->mask;
    plan->has_mask = c->tensors[c->mask] != NULL;
    if (plan->has_mask) {
        floyd_plan_mask(plan, &planned->tensors[c->mask]);
    }
    floyd_plan_tiles(plan, c->tile_keys > 0 ? c->tile_keys : 64, c->parallel_tasks);
    return planned;
}

uint64_t floyd_reserve(floyd_plan *plan, uint64_t bytes)
{
    uint64_t at = (plan->workspace + FLOYD_ALIGN - 1) / FLOYD_ALIGN * FLOYD_ALIGN;
    plan->workspace = at + bytes;
    return at;
}

/* (nb, mb) for a caller that counts its parallel tasks, largest first.
 * Measured on Zen3, 2 threads, seed shape (docs/benchmarks.md): 128 x 256
 * ran 8-11% faster than 64 x 128 (half the passes over K2/V2/dk2/dv2 and
 * over K1/V1/dk1/dv1, and deeper dk2/dv2 products). The last entry
 * divides every legal N (a multiple of 16) and M (a multiple of 128). */
static const int64_t FLOYD_TILE_CANDIDATES[][2] = {{128, 256}, {128, 128}, {64, 128}, {32, 128}, {16, 128}};
/* At most this many bytes of score tiles (P and dS, nb x mb x kb floats
 * each, per busy thread): 128 x 256 x 128 takes 32 MiB per thread, so
 * machines with more threads fall back to smaller tiles instead of growing
 * the workspace past what 64 x 128 x 128 took on 16 threads. */
#define FLOYD_TILE_BUDGET ((int64_t)128 << 20)

void floyd_plan_tiles(floyd_plan *plan, int64_t keys, floyd_tasks_fn tasks)
{
    const floyd_dims *d = &plan->dims;
    int64_t nb = 0, mb = 0, kb = 0; /* aclnnEmuSetFloydTile / ACLNN_EMU_FLOYD_TILE, for tuning */
    if (emu_floyd_tile(&nb, &mb, &kb) && d->N % nb == 0 && d->M % mb == 0 && d->K % kb == 0 &&
        kb % EMU_FLOYD_LANES == 0) {
        plan->nb = nb;
        plan->mb = mb;
        plan->kb = kb;
        return;
    }
    plan->kb = keys;
    if (tasks == NULL) {
        /* The forward: wide m tiles keep the products batched over n long. */
        plan->nb = d->N % 64 == 0 ? 64 : d->N % 32 == 0 ? 32 : 16;
        plan->mb = 128;
        return;
    }
    const int64_t threads = (int64_t)emu_num_threads();
    const size_t count = sizeof FLOYD_TILE_CANDIDATES / sizeof FLOYD_TILE_CANDIDATES[0];
    int64_t best_busy = 0;
    for (size_t i = 0; i < count; ++i) {
        const int64_t cand_nb = FLOYD_TILE_CANDIDATES[i][0], cand_mb = FLOYD_TILE_CANDIDATES[i][1];
        if (d->N % cand_nb != 0 || d->M % cand_mb != 0) {
            continue;
        }
        int64_t busy = tasks(plan, cand_nb, cand_mb);
        busy = busy < threads ? busy : threads;
        const int64_t slots = busy < FLOYD_MAX_SLOTS ? busy : FLOYD_MAX_SLOTS;
        const int64_t tile_bytes = 2 * cand_nb * cand_mb * plan->kb * (int64_t)sizeof(float);
        if (slots * tile_bytes > FLOYD_TILE_BUDGET && i + 1 < count) {
            continue;
        }
        if (busy > best_busy) {
            best_busy = busy;
            plan->nb = cand_nb;
            plan->mb = cand_mb;
        }
    }
}

void floyd_plan_stage(floyd_plan *plan, const aclOpExecutor *executor, int index)
{
    const emu_view *view = &executor->tensors[index];
    if (view->dtype == ACL_FLOAT && emu_view_is_contiguous(view)) {
        plan->stage[index].staged = false;
        return;
    }
    plan->stage[index].staged = true;
    plan->stage[index].offset = floyd_reserve(plan, (uint64_t)emu_view_numel(view) * sizeof(float));
}

void floyd_plan_mask(floyd_plan *plan, const emu_view *mask)
{
    plan->mask_staged = mask->strides[4] != 1 && mask->shape[4] > 1;
    int64_t dense = mask->shape[4];
    for (int i = 3; i >= 0; --i) {
        int64_t stride = plan->mask_staged ? dense : mask->strides[i];
        plan->mask_stride[i] = mask->shape[i] == 1 ? 0 : stride;
        dense *= mask->shape[i];
    }
    if (plan->mask_staged) {
        plan->mask_offset = floyd_reserve(plan, (uint64_t)emu_view_numel(mask));
    }
}

void floyd_plan_slots(floyd_plan *plan, uint64_t tiles_at_once, uint64_t floats_per_slot)
{
    uint64_t slots = (uint64_t)emu_num_threads();
    slots = slots < tiles_at_once ? slots : tiles_at_once;
    slots = slots < FLOYD_MAX_SLOTS ? slots : FLOYD_MAX_SLOTS;
    plan->slots = slots > 0 ? (int)slots : 1;
    uint64_t floats = (floats_per_slot * sizeof(float) + FLOYD_ALIGN - 1) / FLOYD_ALIGN * FLOYD_ALIGN;
    uint64_t gemm = (emu_sgemm_scratch_bytes() + FLOYD_ALIGN - 1) / FLOYD_ALIGN * FLOYD_ALIGN;
    plan->slot_bytes = floats + gemm;
    plan->slot_offset = floyd_reserve(plan, plan->slot_bytes * (uint64_t)plan->slots);
    plan->workspace += FLOYD_ALIGN; /* room to align the caller's base address */
}

/* ------------------------------------------------------------ phase 2 */

void floyd_run_init(floyd_run *run, const floyd_plan *plan, void *workspace, const aclOpExecutor *executor)
{
    emu_isa isa = emu_isa_active();
    run->plan = plan;
    run->gemm = emu_gemm_select(isa);
    run->ew = emu_floyd_select(isa);
    run->convert = emu_convert_select(isa);
    uintptr_t base = (uintptr_t)workspace;
    run->workspace = (unsigned char *)((base + FLOYD_ALIGN - 1) / FLOYD_ALIGN * FLOYD_ALIGN);
    run->mask = NULL;
    if (plan->has_mask) {
        const emu_view *mask = &executor->tensors[plan->mask_index];
        if (plan->mask_staged) {
            emu_view_gather(mask, run->workspace + plan->mask_offset);
            run->mask = run->workspace + plan->mask_offset;
        } else {
            run->mask = emu_view_origin(mask);
        }
    }
}

void *floyd_slot_gemm_scratch(const floyd_run *run, int slot)
{
    uint64_t floats = run->plan->slot_bytes - (emu_sgemm_scratch_bytes() + FLOYD_ALIGN - 1) / FLOYD_ALIGN *
                                                  FLOYD_ALIGN;
    return (unsigned char *)floyd_slot(run, slot) + floats;
}

/* Rows of the innermost dimension of a rank-5 view, converted in parallel. */
typedef struct {
    const floyd_run *run;
    const emu_view *view;
    float *dense;
    bool store; /* dense -> view instead of view -> dense */
} rows_ctx;

static void row_pointer_offsets(const emu_view *v, size_t row, int64_t *offset)
{
    int64_t off = v->offset;
    for (int i = FLOYD_RANK - 2; i >= 0; --i) {
        off += (int64_t)(row % (size_t)v->shape[i]) * v->strides[i];
        row /= (size_t)v->shape[i];
    }
    *offset = off;
}

static void rows_range(void *opaque, size_t begin, size_t end)
{
    const rows_ctx *ctx = opaque;
    const emu_view *v = ctx->view;
    const int64_t len = v->shape[FLOYD_RANK - 1], step = v->strides[FLOYD_RANK - 1];
    const emu_convert_kernels *cv = ctx->run->convert;
    for (size_t row = begin; row < end; ++row) {
        int64_t off;
        row_pointer_offsets(v, row, &off);
        float *dense = ctx->dense + (int64_t)row * len;
        if (v->dtype == ACL_FLOAT) {
            float *data = (float *)v->data + off;
            for (int64_t i = 0; i < len; ++i) {
                if (ctx->store) {
                    data[i * step] = dense[i];
                } else {
                    dense[i] = data[i * step];
                }
            }
            continue;
        }
        uint16_t *data = (uint16_t *)v->data + off;
        bool bf16 = v->dtype == ACL_BF16;
        if (step == 1) {
            if (ctx->store) {
                (bf16 ? cv->f32_to_bf16 : cv->f32_to_f16)((size_t)len, dense, data);
            } else {
                (bf16 ? cv->bf16_to_f32 : cv->f16_to_f32)((size_t)len, data, dense);
            }
            continue;
        }
        for (int64_t i = 0; i < len; ++i) {
            if (ctx->store) {
                data[i * step] = bf16 ? emu_f32_to_bf16(dense[i]) : emu_f32_to_f16(dense[i]);
            } else {
                dense[i] = bf16 ? emu_bf16_to_f32(data[i * step]) : emu_f16_to_f32(data[i * step]);
            }
        }
    }
}

/* A contiguous half-type view converted as one flat array, in blocks: the
 * per-row walk costs more than converting a row of 64 or 128 values. */
enum { FLAT_BLOCK = 1 << 14 };

static void flat_range(void *opaque, size_t begin, size_t end)
{
    const rows_ctx *ctx = opaque;
    const emu_view *v = ctx->view;
    const emu_convert_kernels *cv = ctx->run->convert;
    const bool bf16 = v->dtype == ACL_BF16;
    const size_t numel = (size_t)emu_view_numel(v), first = begin * FLAT_BLOCK;
    const size_t count = (end * FLAT_BLOCK < numel ? end * FLAT_BLOCK : numel) - first;
    uint16_t *data = (uint16_t *)emu_view_origin(v) + first;
    float *dense = ctx->dense + first;
    if (ctx->store) {
        (bf16 ? cv->f32_to_bf16 : cv->f32_to_f16)(count, dense, data);
    } else {
        (bf16 ? cv->bf16_to_f32 : cv->f16_to_f32)(count, data, dense);
    }
}

static void convert_rows(const floyd_run *run, const emu_view *view, float *dense, bool store)
{
    rows_ctx ctx = {run, view, dense, store};
    if (view->dtype != ACL_FLOAT && emu_view_is_contiguous(view)) {
        const size_t blocks = ((size_t)emu_view_numel(view) + FLAT_BLOCK - 1) / FLAT_BLOCK;
        emu_parallel_for(blocks, 1, flat_range, &ctx);
        return;
    }
    size_t rows = (size_t)(emu_view_numel(view) / view->shape[FLOYD_RANK - 1]);
    if (store && emu_view_may_self_overlap(view)) {
        rows_range(&ctx, 0, rows); /* one writer, in row order: the last row wins, as in the other operators */
        return;
    }
    emu_parallel_for(rows, 64, rows_range, &ctx);
}

const float *floyd_input(const floyd_run *run, const aclOpExecutor *executor, int index)
{
    const emu_view *view = &executor->tensors[index];
    if (!run->plan->stage[index].staged) {
        return emu_view_origin(view);
    }
    float *dense = (float *)(run->workspace + run->plan->stage[index].offset);
    convert_rows(run, view, dense, false);
    return dense;
}

float *floyd_output(const floyd_run *run, const aclOpExecutor *executor, int index)
{
    if (!run->plan->stage[index].staged) {
        return emu_view_origin(&executor->tensors[index]);
    }
    return (float *)(run->workspace + run->plan->stage[index].offset);
}

void floyd_finish_output(const floyd_run *run, const aclOpExecutor *executor, int index)
{
    if (run->plan->stage[index].staged) {
        convert_rows(run, &executor->tensors[index], (float *)(run->workspace + run->plan->stage[index].offset),
                     true);
    }
}

void floyd_tile_products_y1(const floyd_run *run, void *scratch, const float *x, const float *y1, int64_t n0,
                            int64_t m0, int64_t k0, float *out)
{
    const floyd_dims *d = &run->plan->dims;
    const int64_t M = d->M, K = d->K, D = d->D;
    const int64_t NB = run->plan->nb, MB = run->plan->mb, KB = run->plan->kb, LDN = floyd_tile_ldn(run->plan);
    /* x[n, m0.., :] (MB x D) . y1[n, k0.., :]^T (D x KB), batched over n. */
    for (int64_t nl = 0; nl < NB; ++nl) {
        const int64_t n = n0 + nl;
        if (nl + 1 < NB) {
            floyd_prefetch_range(x + ((n + 1) * M + m0) * D, MB * D);
            floyd_prefetch_range(y1 + ((n + 1) * K + k0) * D, KB * D);
            floyd_prefetch_for_write(out + (nl + 1) * LDN, MB * KB);
        }
        floyd_gemm(run, scratch, MB, KB, D, x + (n * M + m0) * D, D, 1, y1 + (n * K + k0) * D, 1, D,
                   out + nl * LDN, KB, 0);
    }
}

void floyd_tile_products_y2(const floyd_run *run, void *scratch, const float *x, const float *y2, int64_t n0,
                            int64_t m0, int64_t k0, int64_t ml, float *out)
{
    const floyd_dims *d = &run->plan->dims;
    const int64_t M = d->M, D = d->D;
    const int64_t NB = run->plan->nb, KB = run->plan->kb, LDN = floyd_tile_ldn(run->plan);
    const int64_t m = m0 + ml;
    /* x[n0.., m, :] (NB x D) . y2[k0.., m, :]^T (D x KB). */
    floyd_gemm(run, scratch, NB, KB, D, x + (n0 * M + m) * D, M * D, 1, y2 + (k0 * M + m) * D, 1, M * D,
               out + ml * KB, LDN, 1);
}

void floyd_tile_products(const floyd_run *run, void *scratch, const float *x, const float *y1, const float *y2,
                         int64_t n0, int64_t m0, int64_t k0, float *out)
{
    floyd_tile_products_y1(run, scratch, x, y1, n0, m0, k0, out);
    for (int64_t ml = 0; ml < run->plan->mb; ++ml) {
        floyd_tile_products_y2(run, scratch, x, y2, n0, m0, k0, ml, out);
    }
}
