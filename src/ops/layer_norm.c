/* LayerNorm (+WithImplMode) and GroupNorm (hicann/ops-nn
 * norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp,
 * norm/group_norm/op_host/op_api/aclnn_group_norm.cpp).
 *
 *   mean = sum(x) / n,  rstd = 1 / sqrt(sum((x - mean)^2) / n + eps),
 *   out = (x - mean) * rstd * weight + bias
 * over LayerNorm's trailing normalizedShape dimensions, or over each group
 * of C / group channels (x all spatial positions) of GroupNorm's
 * [N, C, spatial...] input, with gamma/beta per channel. Absent weights are
 * ones and absent biases zeros, as CANN builds them. Statistics in fp32,
 * two passes (mean, then squared deviations), each in the fixed lane order
 * of norm_rows.c; the device's kernels use Welford updates or binary trees
 * of partial sums (docs/ParallelWelford_and_BinaryAccumulation_LayerNormV4.md)
 * and may round mean/rstd through the weight's dtype before the final cast;
 * here each output is rounded once, from fp32.
 *
 * Rows are streamed in blocks through buffers on the stack: no workspace
 * (fp16/bf16 weight and bias are converted once per launch into heap
 * memory instead). The per-row passes are the row kernels of kernels/norm,
 * built per ISA level; dense fp32 rows are read and written in place, dense
 * fp16/bf16 ones convert inside the first and last passes.
 * (ggml-cann's GroupNorm passes meanOut/rstdOut views that run past their
 * allocation into the memory its pool hands out next, where a workspace
 * would land.) meanOut and rstdOut are written as CANN's op_api copies them
 * out, all of mean, then all of rstd: where the two overlap, rstd wins.
 *
 * Empty tensors as the op_api does: no rows, nothing to do; rows of no
 * elements, mean 0 and rstd NaN. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "kernels/isa.h"
#include "ops/ew.h"
#include "ops/norm.h"

typedef struct {
    emu_rows_plan rows;
    int64_t cols;
    int32_t lead;     /* LayerNorm: the dimensions of input that count rows */
    int64_t groups;   /* GroupNorm: groups per sample, 0 for LayerNorm */
    int64_t channels; /* GroupNorm: channels per group, and spatial size per channel */
    int64_t spatial;
    float eps;
    bool fill_only;    /* rows of no elements: mean 0, rstd NaN */
    bool stats_serial; /* meanOut and rstdOut overlap: written after the rows, one after the other */
} ln_plan;

static_assert(sizeof(ln_plan) <= EMU_PLAN_BYTES, "ln_plan must fit in the executor");

/* Slots of both operators: input, weight, bias, out, mean, rstd. */
enum { S_IN, S_WEIGHT, S_BIAS, S_OUT, S_MEAN, S_RSTD, S_COUNT };

/* Elements per block: a multiple of EMU_LANES, so blocks sum as whole rows do.
 * Rows of up to BLOCK elements (hidden sizes to 4096) are loaded (and
 * converted) once and stay in the buffer for both statistics passes and
 * the affine pass; longer rows stream. WEIGHT_BLOCK: weight and bias
 * elements converted at a time where they are not converted once per
 * launch (see run_ln; dense fp32 ones are read in place). 24 KiB of stack
 * in all. */
enum { BLOCK = 4096, WEIGHT_BLOCK = 1024 };
/* Longest weight and bias converted once per launch (16 MiB each). */
enum { CONVERT_ONCE_MAX = 1 << 22 };

typedef struct {
    const ln_plan *plan;
    const emu_convert_kernels *cv;
    const emu_norm_kernels *nk;
    emu_rows in, out, weight, bias;
    const float *weight_f32, *bias_f32; /* dense fp32 weight / bias, read in place; else NULL */
    const emu_view *weight_view, *bias_view; /* NULL: absent */
    const emu_view *mean, *rstd;             /* NULL: not written by the rows */
} ln_ctx;

static int64_t block_at(int64_t n, int64_t pos)
{
    return n - pos < BLOCK ? n - pos : BLOCK;
}

/* mean and rstd of n values in memory: the same lanes as the blocks below. */
static void dense_stats(const ln_ctx *c, const float *x, int64_t n, float *mean, float *rstd)
{
    emu_lanes sum = {{0}}, dev = {{0}};
    c->nk->lanes_add(sum.acc, x, (size_t)n);
    *mean = emu_lanes_total(&sum) / (float)n;
    c->nk->lanes_add_dev_sq(dev.acc, x, (size_t)n, *mean);
    *rstd = 1.0f / sqrtf(emu_lanes_total(&dev) / (float)n + c->plan->eps);
}

/* mean and rstd of a row; buf holds the row afterwards when it fits, unless
 * the row is dense fp32 (then read in place). */
static void row_stats(const ln_ctx *c, int64_t row, float *buf, float *mean, float *rstd)
{
    const int64_t n = c->plan->cols;
    const float *dense = emu_rows_dense_f32(&c->in, row);
    if (dense != NULL) {
        dense_stats(c, dense, n, mean, rstd);
        return;
    }
    emu_lanes sum = {{0}}, dev = {{0}};
    for (int64_t pos = 0; pos < n; pos += BLOCK) {
        emu_rows_load_range(&c->in, row, pos, block_at(n, pos), buf, c->cv);
        c->nk->lanes_add(sum.acc, buf, (size_t)block_at(n, pos));
    }
    *mean = emu_lanes_total(&sum) / (float)n;
    for (int64_t pos = 0; pos < n; pos += BLOCK) {
        if (n > BLOCK) {
            emu_rows_load_range(&c->in, row, pos, block_at(n, pos), buf, c->cv);
        }
        c->nk->lanes_add_dev_sq(dev.acc, buf, (size_t)block_at(n, pos), *mean);
    }
    *rstd = 1.0f / sqrtf(emu_lanes_total(&dev) / (float)n + c->plan->eps);
}

/* dst = (src - mean) * rstd * weight + bias for elements [pos, pos + m) of
 * row `row`, which lie in one channel for GroupNorm; dst may be src. */
static void affine(const ln_ctx *c, int64_t row, int64_t pos, int64_t m, float mean, float rstd, const float *src,
                   float *dst)
{
    const ln_plan *p = c->plan;
    if (p->groups > 0) {
        const int64_t channel = (row % p->groups) * p->channels + pos / p->spatial;
        const float w = c->weight_view != NULL ? (float)emu_view_load_at(c->weight_view, channel) : 1.0f;
        const float b = c->bias_view != NULL ? (float)emu_view_load_at(c->bias_view, channel) : 0.0f;
        for (int64_t i = 0; i < m; ++i) {
            dst[i] = (src[i] - mean) * rstd * w + b;
        }
        return;
    }
    if ((c->weight_view == NULL || c->weight_f32 != NULL) && (c->bias_view == NULL || c->bias_f32 != NULL)) {
        c->nk->affine(src, dst, (size_t)m, mean, rstd, c->weight_f32 != NULL ? c->weight_f32 + pos : NULL,
                      c->bias_f32 != NULL ? c->bias_f32 + pos : NULL);
        return;
    }
    float w[WEIGHT_BLOCK], b[WEIGHT_BLOCK];
    for (int64_t k = 0; k < m; k += WEIGHT_BLOCK) {
        const int64_t len = m - k < WEIGHT_BLOCK ? m - k : WEIGHT_BLOCK;
        const float *wk = NULL, *bk = NULL;
        if (c->weight_f32 != NULL) {
            wk = c->weight_f32 + pos + k;
        } else if (c->weight_view != NULL) {
            emu_rows_load_range(&c->weight, 0, pos + k, len, w, c->cv);
            wk = w;
        }
        if (c->bias_f32 != NULL) {
            bk = c->bias_f32 + pos + k;
        } else if (c->bias_view != NULL) {
            emu_rows_load_range(&c->bias, 0, pos + k, len, b, c->cv);
            bk = b;
        }
        c->nk->affine(src + k, dst + k, (size_t)len, mean, rstd, wk, bk);
    }
}

static void ln_row(const void *opaque, int64_t row, void *scratch)
{
    (void)scratch;
    const ln_ctx *c = opaque;
    const ln_plan *p = c->plan;
    const int64_t n = p->cols;
    float buf[BLOCK], mean, rstd;
    const float *in = emu_rows_dense_f32(&c->in, row);
    float *out = emu_rows_dense_f32(&c->out, row);
    if (p->groups == 0 && in != NULL && out != NULL) {
        /* Dense fp32 rows, any length: the statistics read input in place
         * and the affine pass writes out directly (out may be input: each
         * element is read before it is written), no copies. */
        dense_stats(c, in, n, &mean, &rstd);
        if (c->mean != NULL) {
            emu_view_store_at(c->mean, row, mean);
        }
        if (c->rstd != NULL) {
            emu_view_store_at(c->rstd, row, rstd);
        }
        affine(c, row, 0, n, mean, rstd, in, out);
        return;
    }
    const aclDataType half = c->in.dtype;
    const uint16_t *in_h = NULL;
    uint16_t *out_h = NULL;
    if (p->groups == 0 && n <= BLOCK && (half == ACL_FLOAT16 || half == ACL_BF16) &&
        (c->weight_view == NULL || c->weight_f32 != NULL) && (c->bias_view == NULL || c->bias_f32 != NULL)) {
        in_h = emu_rows_dense(&c->in, row, half);
        out_h = in_h != NULL ? emu_rows_dense(&c->out, row, half) : NULL;
    }
    if (out_h != NULL) {
        /* Dense fp16/bf16 rows that fit the buffer, out of input's dtype:
         * the widening load fused with the sum, the affine pass with the
         * rounding store; the same values as the separate passes. */
        const int bf16 = half == ACL_BF16;
        emu_lanes sum = {{0}}, dev = {{0}};
        c->nk->load_add(sum.acc, in_h, buf, (size_t)n, bf16);
        mean = emu_lanes_total(&sum) / (float)n;
        c->nk->lanes_add_dev_sq(dev.acc, buf, (size_t)n, mean);
        rstd = 1.0f / sqrtf(emu_lanes_total(&dev) / (float)n + p->eps);
        if (c->mean != NULL) {
            emu_view_store_at(c->mean, row, mean);
        }
        if (c->rstd != NULL) {
            emu_view_store_at(c->rstd, row, rstd);
        }
        c->nk->affine_narrow(buf, out_h, (size_t)n, mean, rstd, c->weight_f32, c->bias_f32, bf16);
        return;
    }
    row_stats(c, row, buf, &mean, &rstd);
    if (c->mean != NULL) {
        emu_view_store_at(c->mean, row, mean);
    }
    if (c->rstd != NULL) {
        emu_view_store_at(c->rstd, row, rstd);
    }
    /* Blocks that stay within one channel (GroupNorm); the row is in buf
     * when n <= BLOCK (and not dense fp32, which row_stats reads in place). */
    const bool whole = n <= BLOCK && in == NULL;
    const int64_t segment = p->groups > 0 ? p->spatial : n;
    for (int64_t pos = 0; pos < n;) {
        const int64_t m = block_at(segment, pos % segment);
        float *x = whole ? buf + pos : buf;
        if (!whole) {
            emu_rows_load_range(&c->in, row, pos, m, x, c->cv);
        }
        affine(c, row, pos, m, mean, rstd, x, x);
        if (!whole) {
            emu_rows_store_range(&c->out, row, pos, m, x, c->cv);
        }
        pos += m;
    }
    if (whole) {
        emu_rows_store(&c->out, row, buf, c->cv);
    }
}

/* meanOut and rstdOut as CANN's op_api copies them out after `out`: all of
 * mean, then all of rstd. Rows of no elements: mean 0, rstd NaN. */
static void write_stats(const aclOpExecutor *executor, const ln_ctx *c)
{
    const int slots[] = {S_MEAN, S_RSTD};
    for (int k = 0; k < 2; ++k) {
        const emu_view *view = &executor->tensors[slots[k]];
        if (!executor->present[slots[k]] || emu_view_is_empty(view)) {
            continue;
        }
        for (int64_t row = 0; row < c->plan->rows.rows; ++row) {
            float buf[BLOCK], mean = 0.0f, rstd = NAN;
            if (!c->plan->fill_only) {
                row_stats(c, row, buf, &mean, &rstd);
            }
            emu_view_store_at(view, row, k == 0 ? mean : rstd);
        }
    }
}

/* A present fp32 weight or bias whose elements are one dense run: read in
 * place by the affine pass (the values a load would copy). */
static const float *dense_f32(const emu_view *view, const emu_rows *rows)
{
    if (view == NULL || rows->dtype != ACL_FLOAT || rows->lead_rank != 0 ||
        (rows->inner_rank == 1 && rows->inner_stride[0] != 1) || rows->inner_rank > 1) {
        return NULL;
    }
    return (const float *)rows->origin;
}

static const char *run_ln(aclOpExecutor *executor, void *workspace)
{
    const ln_plan *plan = (const ln_plan *)executor->plan;
    const emu_view *t = executor->tensors;
    if (plan->rows.rows == 0) {
        return "";
    }
    ln_ctx c = {.plan = plan, .cv = emu_convert_select(emu_isa_active()), .nk = emu_norm_kernels_active()};
    if (plan->groups == 0) {
        emu_rows_split(&c.in, &t[S_IN], plan->lead);
        emu_rows_split(&c.out, &t[S_OUT], plan->lead);
    } else {
        emu_rows_groups(&c.in, &t[S_IN], plan->groups);
        emu_rows_groups(&c.out, &t[S_OUT], plan->groups);
    }
    if (plan->fill_only) {
        write_stats(executor, &c);
        return "norm_fill";
    }
    if (executor->present[S_WEIGHT]) {
        c.weight_view = &t[S_WEIGHT];
        emu_rows_split(&c.weight, c.weight_view, 0);
    }
    if (executor->present[S_BIAS]) {
        c.bias_view = &t[S_BIAS];
        emu_rows_split(&c.bias, c.bias_view, 0);
    }
    c.weight_f32 = dense_f32(c.weight_view, &c.weight);
    c.bias_f32 = dense_f32(c.bias_view, &c.bias);
    /* LayerNorm's fp16/bf16 (or strided) weight and bias, converted once per
     * launch instead of once per row: the values a per-block load gives.
     * Not in the workspace (see the top); heap memory, and where that
     * fails (or the rows are huge) the per-block conversion. */
    float *converted[2] = {NULL, NULL};
    if (plan->groups == 0 && plan->cols <= CONVERT_ONCE_MAX) {
        const emu_rows *sources[2] = {&c.weight, &c.bias};
        const float **targets[2] = {&c.weight_f32, &c.bias_f32};
        const emu_view *views[2] = {c.weight_view, c.bias_view};
        for (int k = 0; k < 2; ++k) {
            if (views[k] != NULL && *targets[k] == NULL) {
                converted[k] = malloc((size_t)plan->cols * sizeof(float));
                if (converted[k] != NULL) {
                    emu_rows_load_range(sources[k], 0, 0, plan->cols, converted[k], c.cv);
                    *targets[k] = converted[k];
                }
            }
        }
    }
    if (!plan->stats_serial) {
        c.mean = executor->present[S_MEAN] && !emu_view_is_empty(&t[S_MEAN]) ? &t[S_MEAN] : NULL;
        c.rstd = executor->present[S_RSTD] && !emu_view_is_empty(&t[S_RSTD]) ? &t[S_RSTD] : NULL;
    }
    emu_rows_run(&plan->rows, workspace, ln_row, &c);
    if (plan->stats_serial) {
        write_stats(executor, &c);
    }
    free(converted[0]);
    free(converted[1]);
    return plan->groups == 0 ? "layer_norm" : "group_norm";
}

/* Our memory checks, then the executor. The output may be the input (the
 * op_api copies the kernel's fresh result out), and meanOut may overlap
 * rstdOut (ggml-cann's GroupNorm passes two such views). */
static aclnnStatus publish(const char *api, const char *phase2, ln_plan *plan, const char *const *names,
                           const aclTensor *const *tensors, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const int ALIAS[][3] = {{S_OUT, S_IN, EMU_ALIAS_EXACT}, {S_MEAN, S_RSTD, EMU_ALIAS_ANY}, {-1, -1, 0}};
    const bool unused = plan->rows.rows == 0;
    bool aliased = false;
    if (!unused) {
        EMU_TRY(emu_norm_check_memory(api, names, tensors, 3, S_COUNT, ALIAS, &aliased));
        const aclTensor *mean = tensors[S_MEAN], *rstd = tensors[S_RSTD];
        plan->stats_serial = mean != NULL && rstd != NULL && emu_views_share_bytes(&mean->view, &rstd->view);
    }
    aclOpExecutor *planned = emu_executor_create(api, phase2, 3, 3);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, names);
    if (aliased) {
        emu_executor_allow_aliasing(planned);
    }
    for (int i = 0; i < S_COUNT; ++i) {
        emu_executor_bind(planned, i, tensors[i]);
        /* Nothing to do, or only statistics to fill: the others are not touched. */
        if (unused || (plan->fill_only && i != S_MEAN && i != S_RSTD)) {
            emu_executor_mark_unused(planned, i);
        }
    }
    memcpy(planned->plan, plan, sizeof *plan);
    return emu_executor_publish(planned, run_ln, 0, workspaceSize, executor);
}

static void plan_rows(ln_plan *plan, int64_t rows, int64_t cols)
{
    plan->cols = cols;
    if (plan->fill_only || rows == 0) {
        plan->rows.rows = plan->fill_only ? rows : 0;
        return;
    }
    emu_rows_plan_init(&plan->rows, rows, cols, 0, 0);
}

/* ---- LayerNorm ---- */

static const emu_dtype_table LN_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);

static aclnnStatus ln_check_dtypes(const char *api, const aclTensor *input, const aclTensor *weight,
                                   const aclTensor *bias, const aclTensor *out, const aclTensor *mean,
                                   const aclTensor *rstd)
{
    EMU_TRY(emu_check_dtype_table(api, "input", input->view.dtype, &LN_TYPES));
    /* weight and bias: input's dtype or FLOAT, and one dtype for both. */
    if (weight != NULL) {
        EMU_TRY(emu_check_dtype_table(api, "weightOptional", weight->view.dtype, &LN_TYPES));
        if (weight->view.dtype != ACL_FLOAT) {
            EMU_TRY(emu_check_same_dtype(api, "weightOptional", weight, "input", input));
        }
    }
    if (bias != NULL) {
        EMU_TRY(emu_check_dtype_table(api, "biasOptional", bias->view.dtype, &LN_TYPES));
        if (bias->view.dtype != ACL_FLOAT) {
            EMU_TRY(emu_check_same_dtype(api, "biasOptional", bias, "input", input));
        }
    }
    if (weight != NULL && bias != NULL) {
        EMU_TRY(emu_check_same_dtype(api, "biasOptional", bias, "weightOptional", weight));
    }
    /* The outputs are casts of the kernel's results: any dtype of the list. */
    EMU_TRY(emu_check_dtype_table(api, "out", out->view.dtype, &LN_TYPES));
    if (mean != NULL) {
        EMU_TRY(emu_check_dtype_table(api, "meanOutOptional", mean->view.dtype, &LN_TYPES));
    }
    if (rstd != NULL) {
        EMU_TRY(emu_check_dtype_table(api, "rstdOutOptional", rstd->view.dtype, &LN_TYPES));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus ln_check_shapes(const char *api, const aclTensor *input, const int64_t *norm, uint64_t norm_len,
                                   const aclTensor *weight, const aclTensor *bias, const aclTensor *out,
                                   const aclTensor *mean, const aclTensor *rstd)
{
    static const char *const NAMES[] = {"input", "out", "weightOptional", "biasOptional", "meanOutOptional",
                                        "rstdOutOptional"};
    const aclTensor *const tensors[] = {input, out, weight, bias, mean, rstd};
    for (int i = 0; i < 6; ++i) {
        if (tensors[i] != NULL) {
            EMU_TRY(emu_check_max_rank(api, NAMES[i], tensors[i], 8));
        }
    }
    if (norm_len > 8 || norm_len < 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: normalizedShape has %llu values; expected 1 to 8.", api,
                        (unsigned long long)norm_len);
    }
    const int32_t begin = input->view.rank - (int32_t)norm_len;
    if (begin < 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: input has rank %d; expected at least %llu, the length of "
                                                 "normalizedShape.", api, (int)input->view.rank,
                        (unsigned long long)norm_len);
    }
    for (int i = 2; i < 4; ++i) {
        if (tensors[i] != NULL && tensors[i]->view.rank != (int32_t)norm_len) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has rank %d; expected %llu, the length of "
                                                     "normalizedShape.", api, NAMES[i], (int)tensors[i]->view.rank,
                            (unsigned long long)norm_len);
        }
    }
    for (uint64_t k = 0; k < norm_len; ++k) {
        if (norm[k] != input->view.shape[begin + (int32_t)k]) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: normalizedShape[%llu] is %lld; expected %lld, dimension "
                                                     "%d of input (normalizedShape names input's trailing "
                                                     "dimensions).", api, (unsigned long long)k, (long long)norm[k],
                            (long long)input->view.shape[begin + (int32_t)k], (int)(begin + (int32_t)k));
        }
        for (int i = 2; i < 4; ++i) {
            if (tensors[i] != NULL && tensors[i]->view.shape[k] != norm[k]) {
                return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, api, NAMES[i], &tensors[i]->view,
                                            "normalizedShape");
            }
        }
    }
    return emu_check_same_shape(api, "out", out, "input", input, ACLNN_ERR_PARAM_INVALID);
}

/* meanOutOptional / rstdOutOptional: Ascend950 checks [A..., 1...]; on
 * A2/A3 the op_api copies the kernel's rows into the view as they are, so a
 * view of one element per row is required (we refuse others). */
static aclnnStatus ln_check_stat(const char *api, const char *name, const aclTensor *stat, const aclTensor *input,
                                 int32_t begin, int64_t rows)
{
    if (stat == NULL || emu_view_is_empty(&stat->view)) {
        return ACLNN_SUCCESS;
    }
    bool ok = emu_view_numel(&stat->view) == rows;
    if (emu_soc_get() == EMU_SOC_ASCEND950) {
        ok = stat->view.rank == input->view.rank;
        for (int32_t i = 0; ok && i < stat->view.rank; ++i) {
            ok = stat->view.shape[i] == (i < begin ? input->view.shape[i] : 1);
        }
    }
    if (!ok) {
        char want[160];
        snprintf(want, sizeof want, "%lld elements, one per row: input[:%d] followed by ones", (long long)rows,
                 (int)begin);
        return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, api, name, &stat->view, want);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus layer_norm(const char *api, const char *phase2, const aclTensor *input,
                              const aclIntArray *normalizedShape, const aclTensor *weight, const aclTensor *bias,
                              double eps, aclTensor *out, aclTensor *mean, aclTensor *rstd, int32_t implMode,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null(api, "input", input));
    EMU_TRY(emu_check_not_null(api, "normalizedShape", normalizedShape));
    EMU_TRY(emu_check_not_null(api, "out", out));
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    EMU_TRY(ln_check_dtypes(api, input, weight, bias, out, mean, rstd));
    uint64_t norm_len = 0;
    const int64_t *norm = emu_int_array_values(normalizedShape, &norm_len);
    EMU_TRY(ln_check_shapes(api, input, norm, norm_len, weight, bias, out, mean, rstd));
    const int32_t begin = input->view.rank - (int32_t)norm_len;
    int64_t rows = 1, cols = 1;
    for (int32_t i = 0; i < input->view.rank; ++i) {
        *(i < begin ? &rows : &cols) *= input->view.shape[i];
    }
    EMU_TRY(ln_check_stat(api, "meanOutOptional", mean, input, begin, rows));
    EMU_TRY(ln_check_stat(api, "rstdOutOptional", rstd, input, begin, rows));
    if (emu_soc_get() == EMU_SOC_ASCEND950 && mean != NULL && rstd != NULL &&
        !emu_view_same_shape(&mean->view, &rstd->view)) {
        return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, api, "rstdOutOptional", &rstd->view,
                                    "the shape of meanOutOptional");
    }
    if (implMode < 0 || implMode > 2) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: implMode is %d; expected 0 (high precision), 1 (high "
                                                 "performance) or 2 (keep fp16).", api, (int)implMode);
    }
    if (implMode == 2 && (input->view.dtype != ACL_FLOAT16 || (weight != NULL && weight->view.dtype != ACL_FLOAT16) ||
                          (bias != NULL && bias->view.dtype != ACL_FLOAT16))) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: implMode is 2 (keep fp16); expected input, weightOptional "
                                                 "and biasOptional of dtype ACL_FLOAT16.", api);
    }
    static const char *const NAMES[] = {"input", "weightOptional", "biasOptional", "out", "meanOutOptional",
                                        "rstdOutOptional"};
    const aclTensor *const tensors[] = {input, weight, bias, out, mean, rstd};
    ln_plan plan = {.eps = (float)eps, .fill_only = rows > 0 && cols == 0, .lead = begin};
    plan_rows(&plan, rows, cols);
    return publish(api, phase2, &plan, NAMES, tensors, workspaceSize, executor);
}

aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                           const aclTensor *weightOptional, const aclTensor *biasOptional, double eps,
                                           aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return layer_norm("aclnnLayerNormGetWorkspaceSize", "aclnnLayerNorm", input, normalizedShape, weightOptional,
                      biasOptional, eps, out, meanOutOptional, rstdOutOptional, 0, workspaceSize, executor);
}

aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                       const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                       double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                       aclTensor *rstdOutOptional, int32_t implMode,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* implMode chooses the device's speed/precision trade-off; the result
     * here is the same for all three. */
    return layer_norm("aclnnLayerNormWithImplModeGetWorkspaceSize", "aclnnLayerNormWithImplMode", input,
                      normalizedShape, weightOptional, biasOptional, eps, out, meanOutOptional, rstdOutOptional,
                      implMode, workspaceSize, executor);
}

aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnLayerNorm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLayerNormWithImplMode(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream)
{
    return emu_executor_run("aclnnLayerNormWithImplMode", workspace, workspaceSize, executor, stream);
}

/* ---- GroupNorm ---- */

static const emu_dtype_table GN_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);

static aclnnStatus gn_check_format(const char *api, const aclTensor *self, const aclTensor *out)
{
    if (self->format != out->format) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has format %d and out format %d; expected one format "
                                                 "for both.", api, (int)self->format, (int)out->format);
    }
    switch (self->format) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_UNDEFINED:
        return ACLNN_SUCCESS;
    default:
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has format %d; expected ND, NCL, NCHW or NCDHW.", api,
                        (int)self->format);
    }
}

static aclnnStatus gn_check_shapes(const char *api, const aclTensor *self, const aclTensor *gamma,
                                   const aclTensor *beta, int64_t N, int64_t C, int64_t HxW, int64_t group,
                                   const aclTensor *out, const aclTensor *mean, const aclTensor *rstd)
{
    if (self->view.rank < 2 || self->view.rank > 8) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has rank %d; expected 2 to 8 dimensions.", api,
                        (int)self->view.rank);
    }
    EMU_TRY(emu_check_same_shape(api, "out", out, "self", self, ACLNN_ERR_PARAM_INVALID));
    char want[96];
    snprintf(want, sizeof want, "[N, group] = [%lld, %lld]", (long long)N, (long long)group);
    const emu_view *stats[] = {&mean->view, &rstd->view};
    for (int i = 0; i < 2; ++i) {
        if (stats[i]->rank != 2 || stats[i]->shape[0] != N || stats[i]->shape[1] != group) {
            return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, api, i == 0 ? "meanOut" : "rstdOut", stats[i], want);
        }
    }
    int64_t spatial = 1;
    for (int32_t i = 2; i < self->view.rank; ++i) {
        spatial *= self->view.shape[i];
    }
    if (self->view.shape[0] != N || self->view.shape[1] != C || spatial != HxW) {
        snprintf(want, sizeof want, "[N, C, ...] with N = %lld, C = %lld and HxW = %lld elements after them",
                 (long long)N, (long long)C, (long long)HxW);
        return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, api, "self", &self->view, want);
    }
    const aclTensor *affine[] = {gamma, beta};
    for (int i = 0; i < 2; ++i) {
        if (affine[i] != NULL && (affine[i]->view.rank != 1 || affine[i]->view.shape[0] != C)) {
            snprintf(want, sizeof want, "[C] = [%lld], one value per channel", (long long)C);
            return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, api, i == 0 ? "gamma" : "beta", &affine[i]->view,
                                        want);
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta,
                                           int64_t N, int64_t C, int64_t HxW, int64_t group, double eps,
                                           aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut,
                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnGroupNormGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "meanOut", meanOut));
    EMU_TRY(emu_check_not_null(API, "rstdOut", rstdOut));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &GN_TYPES));
    static const char *const NAMES[] = {"self", "gamma", "beta", "out", "meanOut", "rstdOut"};
    const aclTensor *const tensors[] = {self, gamma, beta, out, meanOut, rstdOut};
    for (int i = 1; i < S_COUNT; ++i) {
        if (tensors[i] != NULL) {
            EMU_TRY(emu_check_same_dtype(API, NAMES[i], tensors[i], "self", self));
        }
    }
    if (group <= 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: group is %lld; expected a value greater than 0.", API,
                        (long long)group);
    }
    if (C % group != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: C is %lld and group %lld; expected C divisible by group.", API,
                        (long long)C, (long long)group);
    }
    if (!(eps > 0.0)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: eps is %g; expected a value greater than 0.", API, eps);
    }
    EMU_TRY(gn_check_shapes(API, self, gamma, beta, N, C, HxW, group, out, meanOut, rstdOut));
    EMU_TRY(gn_check_format(API, self, out));
    const int64_t rows = N * group;
    ln_plan plan = {.eps = (float)eps, .groups = group, .channels = C / group, .spatial = HxW,
                    .fill_only = emu_view_is_empty(&self->view) && rows > 0};
    plan_rows(&plan, rows, (C / group) * HxW);
    return publish(API, "aclnnGroupNorm", &plan, NAMES, tensors, workspaceSize, executor);
}

aclnnStatus aclnnGroupNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnGroupNorm", workspace, workspaceSize, executor, stream);
}
