/* Softmax and SoftmaxCrossEntropyWithLogits (hicann/ops-nn
 * activation/softmax_v2/op_api/aclnn_softmax.cpp,
 * activation/softmax_cross_entropy_with_logits/op_api/
 * aclnn_softmax_cross_entropy_with_logits.cpp).
 *
 *   softmax(x) = exp(x - max) / sum(exp(x - max))      along `dim`
 *   loss = sum(labels * (log(sum(exp(x - max))) - (x - max))),
 *   backprop = softmax(x) - labels                      along the classes
 * The row max is subtracted first, so no exp overflows; a NaN in a row
 * makes the whole row NaN, as does +inf (inf - inf) or a row of -inf only.
 * fp16/bf16/fp32 in fp32 with the vectorized exp of the element-wise
 * kernels (kernels/ew/exp.h, the same bits on every ISA), DOUBLE in double.
 * The fp32 passes are the row kernels of kernels/norm (built per ISA level):
 * max, exp with the sum, division; dense rows skip the copies through
 * scratch (fp32) or convert inside the first and last pass (fp16/bf16).
 * Sums in the fixed lane order of norm_rows.c; the device's vector units
 * reduce each row with their own repeat-and-halve tree.
 *
 * Softmax's result is the kernel's, in self's dtype, then cast to out's
 * dtype: an fp16 self with an fp32 out gets fp16-rounded values. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"
#include "kernels/ew/ew.h"
#include "kernels/isa.h"
#include "ops/ew.h"
#include "ops/norm.h"

typedef struct {
    emu_rows_plan rows;
    int64_t len; /* elements of a row */
    int32_t dim; /* Softmax: the normalized dimension of the view (-1 for a 0-d tensor) */
    bool f64;
    bool tiled;    /* rows are strided runs: TILE of them per step (plan rows count tiles) */
    int64_t lines; /* rows of the tensor */
} sm_plan;

static_assert(sizeof(sm_plan) <= EMU_PLAN_BYTES, "sm_plan must fit in the executor");

typedef struct {
    const sm_plan *plan;
    const emu_convert_kernels *cv;
    const emu_norm_kernels *nk;
    emu_ew_f32_fn exp_f32;
    emu_rows in, out, labels;
    aclDataType self_dtype;
    const emu_view *loss;
} sm_ctx;

static double sum_f64(const double *x, int64_t n)
{
    double acc[16] = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        for (int j = 0; j < 16; ++j) {
            acc[j] += x[i + j];
        }
    }
    for (int j = 0; i + j < n; ++j) {
        acc[j] += x[i + j];
    }
    for (int width = 8; width >= 1; width /= 2) {
        for (int j = 0; j < width; ++j) {
            acc[j] += acc[j + width];
        }
    }
    return acc[0];
}

/* z = x - max(x) in place; e = exp(z) (e may be z). Returns sum(e). */
static float shifted_exp(const sm_ctx *c, float *z, float *e, int64_t n)
{
    const float max = emu_norm_max_with(c->nk, z, n);
    for (int64_t i = 0; i < n; ++i) {
        z[i] -= max;
    }
    emu_ew_params params;
    memset(&params, 0, sizeof params);
    const float *in[1] = {z};
    c->exp_f32((size_t)n, in, e, &params);
    emu_lanes lanes = {{0}};
    c->nk->lanes_add(lanes.acc, e, (size_t)n);
    return emu_lanes_total(&lanes);
}

/* softmax of n values from src into dst (dst may be src); rounded through
 * self's dtype when out has another (the kernel's result is cast). Three
 * passes of the row kernels: the max, exp(x - max) with the lane sums in
 * the same pass, and the division; the same operations in the same order
 * as separate passes (the element-wise kernels' exp, then the lanes of
 * emu_norm_sum), so the same bits. */
static void softmax_f32(const sm_ctx *c, const float *src, float *dst, int64_t n)
{
    const float max = emu_norm_max_with(c->nk, src, n);
    emu_lanes lanes = {{0}};
    c->nk->exp_lanes_add(lanes.acc, src, dst, (size_t)n, max);
    c->nk->div(dst, dst, (size_t)n, emu_lanes_total(&lanes));
    if (c->out.dtype != c->self_dtype) {
        emu_norm_round(c->self_dtype, dst, n, c->cv);
    }
}

static void softmax_row(const void *opaque, int64_t row, void *scratch)
{
    const sm_ctx *c = opaque;
    const int64_t n = c->plan->len;
    if (c->plan->f64) {
        double *x = scratch, max = -INFINITY;
        emu_rows_load_f64(&c->in, row, x);
        for (int64_t i = 0; i < n; ++i) {
            max = x[i] > max ? x[i] : max;
        }
        for (int64_t i = 0; i < n; ++i) {
            x[i] = exp(x[i] - max);
        }
        const double sum = sum_f64(x, n);
        for (int64_t i = 0; i < n; ++i) {
            x[i] /= sum;
        }
        emu_rows_store_f64(&c->out, row, x);
        return;
    }
    float *x = scratch;
    const float *in = emu_rows_dense_f32(&c->in, row);
    float *out = emu_rows_dense_f32(&c->out, row);
    if (in != NULL && out != NULL) {
        /* Dense fp32 rows: the max and the exp read self, the division
         * writes out, instead of copying the row in and out of scratch.
         * The exp goes to scratch, not out: out may be self. */
        const float max = emu_norm_max_with(c->nk, in, n);
        emu_lanes lanes = {{0}};
        c->nk->exp_lanes_add(lanes.acc, in, x, (size_t)n, max);
        c->nk->div(x, out, (size_t)n, emu_lanes_total(&lanes));
        return;
    }
    const aclDataType half = c->self_dtype;
    const uint16_t *in_h = half == ACL_FLOAT16 || half == ACL_BF16 ? emu_rows_dense(&c->in, row, half) : NULL;
    uint16_t *out_h = in_h != NULL ? emu_rows_dense(&c->out, row, half) : NULL;
    if (out_h != NULL) {
        /* Dense fp16/bf16 rows in and out, one dtype: the widening load
         * fused with the max, the division with the rounding store; the
         * same values as the separate passes. */
        const int bf16 = half == ACL_BF16;
        emu_lanes lanes;
        for (int j = 0; j < EMU_LANES; ++j) {
            lanes.acc[j] = -INFINITY;
        }
        c->nk->load_max(lanes.acc, in_h, x, (size_t)n, bf16);
        const float max = emu_lanes_max_total(&lanes);
        emu_lanes sum = {{0}};
        c->nk->exp_lanes_add(sum.acc, x, x, (size_t)n, max);
        c->nk->div_narrow(x, out_h, (size_t)n, emu_lanes_total(&sum), bf16);
        return;
    }
    emu_rows_load(&c->in, row, x, c->cv);
    softmax_f32(c, x, x, n);
    emu_rows_store(&c->out, row, x, c->cv);
}

/* A dimension other than the last: TILE rows side by side at a time, each
 * computed as softmax_row would (the same bits). */
enum { TILE = 16 };

static void softmax_tile(const void *opaque, int64_t tile, void *scratch)
{
    const sm_ctx *c = opaque;
    const int64_t n = c->plan->len, first = tile * TILE;
    const int64_t count = c->plan->lines - first < TILE ? c->plan->lines - first : TILE;
    float *x = scratch;
    emu_rows_load_lines(&c->in, first, count, x);
    for (int64_t k = 0; k < count; ++k) {
        softmax_f32(c, x + k * n, x + k * n, n);
    }
    emu_rows_store_lines(&c->out, first, count, x);
}

static const char *run_softmax(aclOpExecutor *executor, void *workspace)
{
    const sm_plan *plan = (const sm_plan *)executor->plan;
    sm_ctx c = {.plan = plan, .cv = emu_convert_select(emu_isa_active()), .nk = emu_norm_kernels_active(),
                .exp_f32 = emu_ew_select(emu_isa_active())->f32[EMU_EWK_exp],
                .self_dtype = executor->tensors[0].dtype};
    if (plan->dim < 0) {
        emu_rows_split(&c.in, &executor->tensors[0], 0);
        emu_rows_split(&c.out, &executor->tensors[1], 0);
    } else {
        emu_rows_axis(&c.in, &executor->tensors[0], plan->dim);
        emu_rows_axis(&c.out, &executor->tensors[1], plan->dim);
    }
    emu_rows_run(&plan->rows, workspace, plan->tiled ? softmax_tile : softmax_row, &c);
    return plan->rows.rows == 0 ? "" : plan->f64 ? "softmax_f64" : "softmax";
}

static aclnnStatus publish(const char *api, const char *phase2, emu_run_fn run, const sm_plan *plan,
                           uint64_t workspace, const char *const *names, const aclTensor *const *tensors, int inputs,
                           int outputs, bool unused, bool aliased, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    aclOpExecutor *planned = emu_executor_create(api, phase2, inputs, outputs);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, names);
    if (aliased) {
        emu_executor_allow_aliasing(planned);
    }
    for (int i = 0; i < inputs + outputs; ++i) {
        emu_executor_bind(planned, i, tensors[i]);
        if (unused) {
            emu_executor_mark_unused(planned, i);
        }
    }
    memcpy(planned->plan, plan, sizeof *plan);
    return emu_executor_publish(planned, run, workspace, workspaceSize, executor);
}

/* ---- Softmax ---- */

/* DOUBLE runs on the AI CPU; bf16 from Atlas A2 on. */
static const emu_dtype_table SOFTMAX_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_D);

aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                                         aclOpExecutor **executor)
{
    static const char API[] = "aclnnSoftmaxGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    static const char *const NAMES[] = {"self", "out"};
    const aclTensor *const tensors[] = {self, out};
    sm_plan plan = {.dim = -1};
    /* CANN returns before any other check when self is empty. */
    if (emu_view_is_empty(&self->view)) {
        return publish(API, "aclnnSoftmax", run_softmax, &plan, 0, NAMES, tensors, 1, 1, true, false, workspaceSize,
                       executor);
    }
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &SOFTMAX_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &SOFTMAX_TYPES));
    const int64_t rank = self->view.rank > 0 ? self->view.rank : 1;
    if (dim < -rank || dim >= rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of self in [%lld, %lld].",
                        API, (long long)dim, (long long)-rank, (long long)(rank - 1));
    }
    EMU_TRY(emu_check_max_rank(API, "self", self, 8));
    EMU_TRY(emu_check_same_shape(API, "out", out, "self", self, ACLNN_ERR_PARAM_INVALID));
    /* The op_api copies the kernel's fresh result out: out may be self. */
    static const int ALIAS[][3] = {{1, 0, EMU_ALIAS_EXACT}, {-1, -1, 0}};
    bool aliased = false;
    EMU_TRY(emu_norm_check_memory(API, NAMES, tensors, 1, 2, ALIAS, &aliased));
    plan.dim = self->view.rank == 0 ? -1 : (int32_t)(dim < 0 ? dim + rank : dim);
    plan.len = self->view.rank == 0 ? 1 : self->view.shape[plan.dim];
    plan.f64 = self->view.dtype == ACL_DOUBLE;
    plan.lines = emu_view_numel(&self->view) / plan.len;
    /* Rows are strided runs of self and out when dim is not (merged into) the innermost dimension. */
    emu_rows in_rows, out_rows;
    emu_rows_axis(&in_rows, &self->view, plan.dim < 0 ? 0 : plan.dim);
    emu_rows_axis(&out_rows, &out->view, plan.dim < 0 ? 0 : plan.dim);
    plan.tiled = !plan.f64 && plan.dim >= 0 && plan.lines > 1 && in_rows.inner_rank == 1 &&
                 out_rows.inner_rank == 1 && (in_rows.inner_stride[0] != 1 || out_rows.inner_stride[0] != 1);
    const int64_t per_unit = plan.tiled ? TILE : 1;
    const uint64_t workspace =
        emu_rows_plan_init(&plan.rows, (plan.lines + per_unit - 1) / per_unit, per_unit * plan.len, 0,
                           (uint64_t)(per_unit * plan.len) * (plan.f64 ? sizeof(double) : sizeof(float)));
    return publish(API, "aclnnSoftmax", run_softmax, &plan, workspace, NAMES, tensors, 1, 1, false, aliased,
                   workspaceSize, executor);
}

aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnSoftmax", workspace, workspaceSize, executor, stream);
}

/* ---- SoftmaxCrossEntropyWithLogits ---- */

static const emu_dtype_table SCE_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);

enum { C_FEATURES, C_LABELS, C_LOSS, C_BACKPROP };

static void sce_row(const void *opaque, int64_t row, void *scratch)
{
    const sm_ctx *c = opaque;
    const int64_t n = c->plan->len;
    float *z = scratch, *y = z + n, *e = y + n;
    emu_rows_load(&c->in, row, z, c->cv);
    emu_rows_load(&c->labels, row, y, c->cv);
    const float sum = shifted_exp(c, z, e, n);
    const float log_sum = logf(sum);
    for (int64_t i = 0; i < n; ++i) {
        z[i] = y[i] * (log_sum - z[i]); /* -labels * log(softmax) */
        e[i] = e[i] / sum - y[i];
    }
    emu_view_store_at(c->loss, row, emu_norm_sum(z, n));
    emu_rows_store(&c->out, row, e, c->cv);
}

static const char *run_sce(aclOpExecutor *executor, void *workspace)
{
    const sm_plan *plan = (const sm_plan *)executor->plan;
    const emu_view *t = executor->tensors;
    sm_ctx c = {.plan = plan, .cv = emu_convert_select(emu_isa_active()), .nk = emu_norm_kernels_active(),
                .exp_f32 = emu_ew_select(emu_isa_active())->f32[EMU_EWK_exp], .loss = &t[C_LOSS]};
    emu_rows_split(&c.in, &t[C_FEATURES], 1);
    emu_rows_split(&c.labels, &t[C_LABELS], 1);
    emu_rows_split(&c.out, &t[C_BACKPROP], 1);
    emu_rows_run(&plan->rows, workspace, sce_row, &c);
    return plan->rows.rows == 0 ? "" : "softmax_cross_entropy_with_logits";
}

aclnnStatus aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(const aclTensor *features, aclTensor *labels,
                                                               aclTensor *loss, aclTensor *backprop,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "features", features));
    EMU_TRY(emu_check_not_null(API, "labels", labels));
    EMU_TRY(emu_check_not_null(API, "loss", loss));
    EMU_TRY(emu_check_not_null(API, "backprop", backprop));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "features", features->view.dtype, &SCE_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "labels", labels->view.dtype, &SCE_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "loss", loss->view.dtype, &SCE_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "backprop", backprop->view.dtype, &SCE_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "loss", loss, "features", features));
    EMU_TRY(emu_check_same_dtype(API, "backprop", backprop, "features", features));
    static const char *const NAMES[] = {"features", "labels", "loss", "backprop"};
    const aclTensor *const tensors[] = {features, labels, loss, backprop};
    for (int i = 0; i < 4; ++i) {
        EMU_TRY(emu_check_max_rank(API, NAMES[i], tensors[i], 8));
    }
    for (int i = 0; i < 2; ++i) {
        if (tensors[i]->view.rank != 2) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has rank %d; expected 2 dimensions, [batch, classes].",
                            API, NAMES[i], (int)tensors[i]->view.rank);
        }
    }
    sm_plan plan = {.dim = 1};
    if (emu_view_is_empty(&features->view) || emu_view_is_empty(&labels->view)) {
        return publish(API, "aclnnSoftmaxCrossEntropyWithLogits", run_sce, &plan, 0, NAMES, tensors, 2, 2, true, false,
                       workspaceSize, executor);
    }
    /* The documented rules the op_api leaves to the kernel: labels of
     * features' dtype and shape; the outputs are copies of the kernel's
     * [batch] and [batch, classes] results. */
    EMU_TRY(emu_check_same_dtype(API, "labels", labels, "features", features));
    EMU_TRY(emu_check_same_shape(API, "labels", labels, "features", features, ACLNN_ERR_PARAM_INVALID));
    EMU_TRY(emu_check_same_shape(API, "backprop", backprop, "features", features, ACLNN_ERR_PARAM_INVALID));
    if (loss->view.rank != 1 || loss->view.shape[0] != features->view.shape[0]) {
        char want[64];
        snprintf(want, sizeof want, "[%lld], one loss per row of features", (long long)features->view.shape[0]);
        return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, API, "loss", &loss->view, want);
    }
    static const int ALIAS[][3] = {{C_BACKPROP, C_FEATURES, EMU_ALIAS_EXACT},
                                   {C_BACKPROP, C_LABELS, EMU_ALIAS_EXACT}, {-1, -1, 0}};
    bool aliased = false;
    EMU_TRY(emu_norm_check_memory(API, NAMES, tensors, 2, 4, ALIAS, &aliased));
    plan.len = features->view.shape[1];
    const uint64_t workspace = emu_rows_plan_init(&plan.rows, features->view.shape[0], 3 * plan.len, 0,
                                                  3 * (uint64_t)plan.len * sizeof(float));
    return publish(API, "aclnnSoftmaxCrossEntropyWithLogits", run_sce, &plan, workspace, NAMES, tensors, 2, 2, false,
                   aliased, workspaceSize, executor);
}

aclnnStatus aclnnSoftmaxCrossEntropyWithLogits(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               const aclrtStream stream)
{
    return emu_executor_run("aclnnSoftmaxCrossEntropyWithLogits", workspace, workspaceSize, executor, stream);
}
