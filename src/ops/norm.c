/* RmsNorm and AddRmsNorm (hicann/ops-nn norm/rms_norm, norm/add_rms_norm).
 *
 *   rstd = 1 / sqrt(sum(x^2) / n + epsilon),  y = x * rstd * gamma
 * over the trailing dimensions that gamma's shape names; AddRmsNorm first
 * forms x = x1 + x2 (stored in xOut). Statistics in fp32.
 *
 * RmsNorm is a generated aclnn: its rules come from docs/aclnnRmsNorm.md,
 * the op definition (rms_norm_def.cpp: the dtype combinations per product)
 * and the tiling (rms_norm_tiling.cpp: every shape rule, code 561002).
 * AddRmsNorm's come from op_host/op_api/aclnn_add_rms_norm.cpp (161001,
 * 161002) and its tiling (561002); its modes follow from the optional
 * outputs: rstdOut and xOut given (add + norm), only xOut (pre-norm) or
 * neither (post-norm), the last two with gamma [1, D] and fp16/bf16 only.
 *
 * Order of the sums: the device reduces x^2 with its vector units'
 * repeat-and-halve tree (ReduceSumHalfInterval; AddRmsNorm scales by 1/n
 * before the sum); here 16 lanes, then pairwise (norm_rows.c), in the row
 * kernels of kernels/norm, built per ISA level. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "kernels/isa.h"
#include "ops/ew.h"
#include "ops/norm.h"

typedef enum { MODE_ADD, MODE_PRE, MODE_POST, MODE_RMS } rms_mode;

typedef struct {
    emu_rows_plan rows;
    int64_t cols;
    int32_t lead; /* dimensions of x that count rows */
    float epsilon;
    float avg; /* 1 / cols, in fp32 as the tiling computes it */
    rms_mode mode;
    /* AddRmsNorm in fp16/bf16 rounds x * rstd to that dtype before gamma. */
    bool round_normalized;
} rms_plan;

static_assert(sizeof(rms_plan) <= EMU_PLAN_BYTES, "rms_plan must fit in the executor");

/* Slots: RmsNorm x, gamma, yOut, rstdOut; AddRmsNorm x1, x2, gamma, yOut, rstdOut, xOut. */
enum { R_X, R_GAMMA, R_Y, R_RSTD };
enum { A_X1, A_X2, A_GAMMA, A_Y, A_RSTD, A_X };

typedef struct {
    const rms_plan *plan;
    const emu_convert_kernels *cv;
    const emu_norm_kernels *nk;
    emu_rows x1, x2, y, x_out;
    const emu_view *rstd; /* NULL: not written */
    bool write_x;
    const float *gamma;
} rms_ctx;

static void rms_row(const void *opaque, int64_t row, void *scratch)
{
    const rms_ctx *c = opaque;
    const int64_t n = c->plan->cols;
    float *x = scratch;
    const float *in = emu_rows_dense_f32(&c->x1, row);
    float *out = emu_rows_dense_f32(&c->y, row);
    if (c->plan->mode == MODE_RMS && in != NULL && out != NULL) {
        /* Dense fp32 rows (RmsNorm rounds nothing in between): the sum reads
         * x in place and the scaling writes yOut directly, no copies. yOut
         * may be x: each element is read before it is written. */
        emu_lanes sq = {{0}};
        c->nk->lanes_add_sq(sq.acc, in, (size_t)n);
        const float rstd = 1.0f / sqrtf(emu_lanes_total(&sq) * c->plan->avg + c->plan->epsilon);
        if (c->rstd != NULL) {
            emu_view_store_at(c->rstd, row, rstd);
        }
        c->nk->scale_mul(in, out, (size_t)n, rstd, c->gamma);
        return;
    }
    emu_rows_load(&c->x1, row, x, c->cv);
    if (c->plan->mode != MODE_RMS) {
        float *x2 = x + n;
        emu_rows_load(&c->x2, row, x2, c->cv);
        for (int64_t i = 0; i < n; ++i) {
            x[i] += x2[i];
        }
        /* The device keeps x = x1 + x2 in the inputs' dtype and normalizes that. */
        emu_norm_round(c->x1.dtype, x, n, c->cv);
        if (c->write_x) {
            emu_rows_store(&c->x_out, row, x, c->cv);
        }
    }
    emu_lanes sq = {{0}};
    c->nk->lanes_add_sq(sq.acc, x, (size_t)n);
    const float rstd = 1.0f / sqrtf(emu_lanes_total(&sq) * c->plan->avg + c->plan->epsilon);
    if (c->rstd != NULL) {
        emu_view_store_at(c->rstd, row, rstd);
    }
    if (c->plan->round_normalized) {
        c->nk->scale(x, (size_t)n, rstd);
        emu_norm_round(c->x1.dtype, x, n, c->cv);
        for (int64_t i = 0; i < n; ++i) {
            x[i] *= c->gamma[i];
        }
    } else {
        /* (x * rstd) * gamma in one pass: both products rounded as the two passes did. */
        c->nk->scale_mul(x, x, (size_t)n, rstd, c->gamma);
    }
    emu_rows_store(&c->y, row, x, c->cv);
}

static const char *run_rms(aclOpExecutor *executor, void *workspace)
{
    const rms_plan *plan = (const rms_plan *)executor->plan;
    const emu_view *t = executor->tensors;
    const bool add = plan->mode != MODE_RMS;
    rms_ctx c = {.plan = plan, .cv = emu_convert_select(emu_isa_active()), .nk = emu_norm_kernels_active(),
                 .gamma = workspace};
    emu_rows gamma;
    emu_rows_split(&gamma, &t[add ? A_GAMMA : R_GAMMA], 0);
    emu_rows_load(&gamma, 0, workspace, c.cv);
    emu_rows_split(&c.x1, &t[add ? A_X1 : R_X], plan->lead);
    emu_rows_split(&c.y, &t[add ? A_Y : R_Y], plan->lead);
    if (add) {
        emu_rows_split(&c.x2, &t[A_X2], plan->lead);
        c.write_x = executor->present[A_X];
        if (c.write_x) {
            emu_rows_split(&c.x_out, &t[A_X], plan->lead);
        }
        c.rstd = executor->present[A_RSTD] ? &t[A_RSTD] : NULL;
    } else {
        c.rstd = &t[R_RSTD];
    }
    emu_rows_run(&plan->rows, workspace, rms_row, &c);
    return add ? "add_rms_norm" : "rms_norm";
}

/* Rows and columns of x for a gamma of rank gamma_rank; the plan and its workspace. */
static uint64_t plan_rows(rms_plan *plan, const aclTensor *x, int32_t gamma_rank, int buffers)
{
    plan->lead = x->view.rank - gamma_rank;
    int64_t rows = 1, cols = 1;
    for (int32_t i = 0; i < x->view.rank; ++i) {
        *(i < plan->lead ? &rows : &cols) *= x->view.shape[i];
    }
    plan->cols = cols;
    plan->avg = 1.0f / (float)cols;
    return emu_rows_plan_init(&plan->rows, rows, cols, (uint64_t)cols * sizeof(float),
                              (uint64_t)buffers * (uint64_t)cols * sizeof(float));
}

static aclnnStatus publish(const char *api, const char *phase2, const rms_plan *plan, uint64_t workspace,
                           const char *const *names, const aclTensor *const *tensors, int inputs, int outputs,
                           bool aliased, uint64_t *workspaceSize, aclOpExecutor **executor)
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
    }
    memcpy(planned->plan, plan, sizeof *plan);
    return emu_executor_publish(planned, run_rms, workspace, workspaceSize, executor);
}

/* An executor that does nothing: empty tensors. */
static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

static aclnnStatus publish_empty(const char *api, const char *phase2, const char *const *names,
                                 const aclTensor *const *tensors, int inputs, int outputs, uint64_t *workspaceSize,
                                 aclOpExecutor **executor)
{
    aclOpExecutor *planned = emu_executor_create(api, phase2, inputs, outputs);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, names);
    for (int i = 0; i < inputs + outputs; ++i) {
        emu_executor_bind(planned, i, tensors[i]);
        emu_executor_mark_unused(planned, i);
    }
    return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
}

static aclnnStatus tiling_error(const char *api, const char *fmt_name, const char *what)
{
    return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s; expected %s.", api, fmt_name, what);
}

/* ---- RmsNorm ---- */

static const emu_dtype_table RMS_TYPES = {EMU_F | EMU_H | EMU_B, EMU_F | EMU_H, EMU_F | EMU_H | EMU_B};
static const emu_dtype_table RSTD_TYPES = EMU_DTYPES(EMU_F);

static aclnnStatus rms_check_shapes(const char *api, const aclTensor *x, const aclTensor *gamma,
                                    const aclTensor *y, const aclTensor *rstd, double epsilon)
{
    const int32_t xr = x->view.rank, gr = gamma->view.rank, rr = rstd->view.rank;
    char buf[160];
    if (xr < 1 || xr > 8 || gr < 1 || gr > 8 || gr > xr) {
        snprintf(buf, sizeof buf, "x has rank %d and gamma rank %d", (int)xr, (int)gr);
        return tiling_error(api, buf, "ranks in [1, 8], gamma's at most x's");
    }
    if (y->view.rank != xr) {
        snprintf(buf, sizeof buf, "yOut has rank %d", (int)y->view.rank);
        return tiling_error(api, buf, "the rank of x");
    }
    for (int32_t i = 0; i < gr; ++i) {
        if (gamma->view.shape[i] != x->view.shape[xr - gr + i]) {
            return emu_norm_shape_error(ACLNN_ERR_INNER_TILING_ERROR, api, "gamma", &gamma->view,
                                        "the trailing dimensions of x");
        }
    }
    if (!emu_view_same_shape(&y->view, &x->view)) {
        return emu_norm_shape_error(ACLNN_ERR_INNER_TILING_ERROR, api, "yOut", &y->view, "the shape of x");
    }
    /* The tiling allows each dimension of rstdOut to equal x's or be 1; the
     * kernel writes one value per row, densely, so rstdOut must also hold
     * exactly that many (we refuse what would write past it). */
    int64_t rows = 1;
    for (int32_t i = 0; i < xr - gr; ++i) {
        rows *= x->view.shape[i];
    }
    bool ok = rr <= xr && emu_view_numel(&rstd->view) == rows;
    for (int32_t i = 0; ok && i < rr; ++i) {
        ok = rstd->view.shape[i] == x->view.shape[i] || rstd->view.shape[i] == 1;
    }
    if (!ok) {
        snprintf(buf, sizeof buf, "%lld elements, one per row of x, each dimension equal to x's or 1 (x[:%d] "
                                  "followed by ones)", (long long)rows, (int)(xr - gr));
        return emu_norm_shape_error(ACLNN_ERR_INNER_TILING_ERROR, api, "rstdOut", &rstd->view, buf);
    }
    if (!(epsilon >= 0.0)) {
        snprintf(buf, sizeof buf, "epsilon is %g", epsilon);
        return tiling_error(api, buf, "a value of at least 0");
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
                                         const aclTensor *yOut, const aclTensor *rstdOut, uint64_t *workspaceSize,
                                         aclOpExecutor **executor)
{
    static const char API[] = "aclnnRmsNormGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "x", x));
    EMU_TRY(emu_check_not_null(API, "gamma", gamma));
    EMU_TRY(emu_check_not_null(API, "yOut", yOut));
    EMU_TRY(emu_check_not_null(API, "rstdOut", rstdOut));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "x", x->view.dtype, &RMS_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "gamma", gamma->view.dtype, &RMS_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "yOut", yOut->view.dtype, &RMS_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "rstdOut", rstdOut->view.dtype, &RSTD_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "yOut", yOut, "x", x));
    /* The op definition pairs x with gamma of its own dtype, and fp16/bf16 x
     * with fp32 gamma too (not on the training series). */
    const bool mixed = gamma->view.dtype == ACL_FLOAT && x->view.dtype != ACL_FLOAT && !emu_norm_is_training();
    if (gamma->view.dtype != x->view.dtype && !mixed) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: gamma has dtype %s with x of dtype %s; expected gamma of x's "
                                                 "dtype%s.", API, emu_dtype_name(gamma->view.dtype),
                        emu_dtype_name(x->view.dtype), emu_norm_is_training() ? "" : " or ACL_FLOAT");
    }
    EMU_TRY(rms_check_shapes(API, x, gamma, yOut, rstdOut, epsilon));
    static const char *const NAMES[] = {"x", "gamma", "yOut", "rstdOut"};
    const aclTensor *const tensors[] = {x, gamma, yOut, rstdOut};
    if (emu_view_is_empty(&x->view)) {
        return publish_empty(API, "aclnnRmsNorm", NAMES, tensors, 2, 2, workspaceSize, executor);
    }
    /* In place (yOut is x) works on the device, and ggml-cann's in-place RMS_NORM uses it. */
    static const int ALIAS[][3] = {{R_Y, R_X, EMU_ALIAS_EXACT}, {-1, -1, 0}};
    bool aliased = false;
    EMU_TRY(emu_norm_check_memory(API, NAMES, tensors, 2, 4, ALIAS, &aliased));
    rms_plan plan = {.epsilon = (float)epsilon, .mode = MODE_RMS};
    const uint64_t workspace = plan_rows(&plan, x, gamma->view.rank, 1);
    return publish(API, "aclnnRmsNorm", &plan, workspace, NAMES, tensors, 2, 2, aliased, workspaceSize, executor);
}

aclnnStatus aclnnRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnRmsNorm", workspace, workspaceSize, executor, stream);
}

/* ---- AddRmsNorm ---- */

static const emu_dtype_table ADD_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);
/* Pre- and post-norm modes: fp16 and bf16 only. */
static const emu_dtype_table ADD_HALF_TYPES = EMU_DTYPES(EMU_H | EMU_B);

static aclnnStatus add_check_dtypes(const char *api, rms_mode mode, const aclTensor *x1, const aclTensor *x2,
                                    const aclTensor *gamma, const aclTensor *y, const aclTensor *rstd,
                                    const aclTensor *x)
{
    const emu_dtype_table *types = mode == MODE_ADD ? &ADD_TYPES : &ADD_HALF_TYPES;
    EMU_TRY(emu_check_dtype_table(api, "x1", x1->view.dtype, types));
    EMU_TRY(emu_check_dtype_table(api, "x2", x2->view.dtype, types));
    EMU_TRY(emu_check_dtype_table(api, "gamma", gamma->view.dtype, types));
    EMU_TRY(emu_check_same_dtype(api, "x2", x2, "x1", x1));
    EMU_TRY(emu_check_same_dtype(api, "gamma", gamma, "x1", x1));
    EMU_TRY(emu_check_dtype_table(api, "yOut", y->view.dtype, types));
    EMU_TRY(emu_check_same_dtype(api, "yOut", y, "x1", x1));
    if (mode == MODE_ADD || mode == MODE_PRE) {
        EMU_TRY(emu_check_dtype_table(api, "xOut", x->view.dtype, types));
        EMU_TRY(emu_check_same_dtype(api, "xOut", x, "yOut", y));
    }
    if (mode == MODE_ADD) {
        EMU_TRY(emu_check_dtype_table(api, "rstdOut", rstd->view.dtype, &RSTD_TYPES));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus add_check_ranks(const char *api, rms_mode mode, const aclTensor *x1, const aclTensor *x2,
                                   const aclTensor *gamma, const aclTensor *y, const aclTensor *rstd,
                                   const aclTensor *x)
{
    static const char *const NAMES[] = {"x1", "x2", "gamma", "yOut", "rstdOut", "xOut"};
    const aclTensor *const tensors[] = {x1, x2, gamma, y, rstd, x};
    for (int i = 0; i < 6; ++i) {
        if (tensors[i] != NULL) {
            EMU_TRY(emu_check_max_rank(api, NAMES[i], tensors[i], 8));
        }
        if (i < 3 && tensors[i]->view.rank < 1) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has rank 0; expected at least 1 dimension.", api,
                            NAMES[i]);
        }
    }
    EMU_TRY(emu_check_same_shape(api, "x2", x2, "x1", x1, ACLNN_ERR_PARAM_INVALID));
    EMU_TRY(emu_check_same_shape(api, "yOut", y, "x1", x1, ACLNN_ERR_PARAM_INVALID));
    if (x != NULL) {
        EMU_TRY(emu_check_same_shape(api, "xOut", x, "x1", x1, ACLNN_ERR_PARAM_INVALID));
    }
    if (mode != MODE_ADD) {
        EMU_TRY(emu_check_max_rank(api, "gamma", gamma, 2));
    }
    return ACLNN_SUCCESS;
}

/* The tiling's rules (561002). */
static aclnnStatus add_check_tiling(const char *api, rms_mode mode, const aclTensor *x1, const aclTensor *gamma,
                                    const aclTensor *rstd, double epsilon)
{
    const int32_t xr = x1->view.rank, gr = gamma->view.rank;
    char buf[160];
    if (mode == MODE_ADD) {
        if (gr > xr) {
            snprintf(buf, sizeof buf, "gamma has rank %d and x1 rank %d", (int)gr, (int)xr);
            return tiling_error(api, buf, "gamma's rank at most x1's");
        }
        for (int32_t i = 0; i < gr; ++i) {
            if (gamma->view.shape[i] != x1->view.shape[xr - gr + i]) {
                return emu_norm_shape_error(ACLNN_ERR_INNER_TILING_ERROR, api, "gamma", &gamma->view,
                                            "the trailing dimensions of x1");
            }
        }
        /* The kernel's rstd is [x1[:k], 1...], copied into rstdOut by the
         * op_api, which has no rule of its own for rstdOut's shape: we ask
         * for that very shape (161002). */
        bool ok = rstd->view.rank == xr;
        for (int32_t i = 0; ok && i < xr; ++i) {
            ok = rstd->view.shape[i] == (i < xr - gr ? x1->view.shape[i] : 1);
        }
        if (!ok) {
            snprintf(buf, sizeof buf, "x1[:%d] followed by %d ones", (int)(xr - gr), (int)gr);
            return emu_norm_shape_error(ACLNN_ERR_PARAM_INVALID, api, "rstdOut", &rstd->view, buf);
        }
    } else if (gr != 2 || gamma->view.shape[0] != 1 || gamma->view.shape[1] != x1->view.shape[xr - 1]) {
        return emu_norm_shape_error(ACLNN_ERR_INNER_TILING_ERROR, api, "gamma", &gamma->view,
                                    "[1, D] with D the last dimension of x1 (without rstdOut)");
    }
    if (!(epsilon >= 0.0)) {
        snprintf(buf, sizeof buf, "epsilon is %g", epsilon);
        return tiling_error(api, buf, "a value of at least 0");
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                            double epsilon, aclTensor *yOut, aclTensor *rstdOut, aclTensor *xOut,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnAddRmsNormGetWorkspaceSize";
    rms_mode mode = MODE_ADD;
    if (xOut != NULL && rstdOut == NULL) {
        mode = MODE_PRE;
    } else if (xOut == NULL && rstdOut == NULL) {
        mode = MODE_POST;
    }
    EMU_TRY(emu_check_not_null(API, "x1", x1));
    EMU_TRY(emu_check_not_null(API, "x2", x2));
    EMU_TRY(emu_check_not_null(API, "gamma", gamma));
    EMU_TRY(emu_check_not_null(API, "yOut", yOut));
    if (mode == MODE_ADD) {
        /* rstdOut given without xOut. */
        EMU_TRY(emu_check_not_null(API, "xOut (required when rstdOut is given)", xOut));
    }
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(add_check_dtypes(API, mode, x1, x2, gamma, yOut, rstdOut, xOut));
    EMU_TRY(add_check_ranks(API, mode, x1, x2, gamma, yOut, rstdOut, xOut));
    static const char *const NAMES[] = {"x1", "x2", "gamma", "yOut", "rstdOut", "xOut"};
    const aclTensor *const tensors[] = {x1, x2, gamma, yOut, rstdOut, xOut};
    if (emu_view_is_empty(&x1->view) || emu_view_is_empty(&gamma->view)) {
        return publish_empty(API, "aclnnAddRmsNorm", NAMES, tensors, 3, 3, workspaceSize, executor);
    }
    if (emu_norm_is_training()) {
        return emu_fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "%s: the emulated product %s (Atlas training series) "
                                                           "has no AddRmsNorm kernel; expected Ascend910B, "
                                                           "Ascend910_93 or Ascend950.", API, aclrtGetSocName());
    }
    EMU_TRY(add_check_tiling(API, mode, x1, gamma, rstdOut, epsilon));
    /* The kernel writes fresh tensors that the op_api copies out: in place is fine. */
    static const int ALIAS[][3] = {{A_Y, A_X1, EMU_ALIAS_EXACT}, {A_Y, A_X2, EMU_ALIAS_EXACT},
                                   {A_X, A_X1, EMU_ALIAS_EXACT}, {A_X, A_X2, EMU_ALIAS_EXACT}, {-1, -1, 0}};
    bool aliased = false;
    EMU_TRY(emu_norm_check_memory(API, NAMES, tensors, 3, 6, ALIAS, &aliased));
    rms_plan plan = {.epsilon = (float)epsilon, .mode = mode, .round_normalized = x1->view.dtype != ACL_FLOAT};
    const uint64_t workspace = plan_rows(&plan, x1, mode == MODE_ADD ? gamma->view.rank : 1, 2);
    return publish(API, "aclnnAddRmsNorm", &plan, workspace, NAMES, tensors, 3, 3, aliased, workspaceSize,
                   executor);
}

aclnnStatus aclnnAddRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnAddRmsNorm", workspace, workspaceSize, executor, stream);
}
