/* Matrix products (hicann/ops-nn matmul/): Mm (mat_mul_v3/op_host/op_api/
 * aclnn_mm.cpp), BatchMatMul (batch_mat_mul_v3/.../aclnn_batch_matmul.cpp),
 * Matmul (mat_mul_v3/.../aclnn_matmul.cpp, torch.matmul's shapes) and Mv
 * (mv/op_host/op_api/aclnn_mv.cpp).
 *
 * All four take FLOAT, FLOAT16 and BF16 (not BF16 on the training series)
 * in any combination Mv excepted, and a cubeMathType whose meaning
 * matmul_plan.c implements: the dtype the cube computes in (fp32 inputs
 * rounded to fp16 under USE_FP16, to HF32 under ALLOW_FP32_DOWN_PRECISION
 * and USE_HF32 on Atlas A2/A3 and Ascend950) and the dtype it writes. The
 * products themselves are planned and run by matmul_plan.c and
 * matmul_run.c. A mat2 in the FRACTAL_NZ format (a weight that
 * aclnnTransMatmulWeight rewrote, as ggml-cann does for model weights) is
 * read from its NZ storage (nz_layout.h); self and out must be ND. The
 * *WeightNz entry points are not implemented. */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mv.h"
#include "ops/matmul.h"
#include "ops/nz_layout.h"

static const char *const MM_NAMES[] = {"self", "mat2", "out"};
static const char *const MV_NAMES[] = {"self", "vec", "out"};

static bool is_nz(aclFormat format)
{
    return format == ACL_FORMAT_FRACTAL_NZ || (format >= ACL_FORMAT_FRACTAL_NZ_C0_16 &&
                                               format <= ACL_FORMAT_FRACTAL_NZ_C0_8);
}

static aclnnStatus check_formats(const char *api, const aclTensor *self, const aclTensor *out)
{
    if (is_nz(self->format) || is_nz(out->format)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the 'self' or 'out' tensor is in the FRACTAL_NZ format; "
                                                 "expected ND.", api);
    }
    return ACLNN_SUCCESS;
}

/* mat2 in FRACTAL_NZ (a weight after aclnnTransMatmulWeight): which NZ
 * matrix its view reads (nz_layout.h: the view's own [rows, cols], or for
 * a transposed view the untransposed matrix), B's batch strides (the NZ
 * matrices follow each other), and in *bound a 1-d view of the whole NZ
 * storage, which the memory checks and the executor use in mat2's place. */
static aclnnStatus plan_nz(const char *api, const aclTensor *self, const aclTensor *mat2, int32_t lead, mm_problem *p,
                           aclTensor *bound)
{
    const aclDataType sd = self->view.dtype, md = mat2->view.dtype;
    if ((sd == ACL_FLOAT16 && md == ACL_BF16) || (sd == ACL_BF16 && md == ACL_FLOAT16)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has dtype %s and the FRACTAL_NZ mat2 %s; expected both "
                                                 "ACL_FLOAT16 or both ACL_BF16.", api, emu_dtype_name(sd),
                        emu_dtype_name(md));
    }
    const int32_t r = mat2->view.rank;
    const int64_t k = mat2->view.shape[r - 2], n = mat2->view.shape[r - 1];
    const int64_t s0 = mat2->view.strides[r - 2], s1 = mat2->view.strides[r - 1];
    const bool plain = (s1 == 1 || n == 1) && (s0 == n || k == 1);
    const bool transposed = (s0 == 1 || k == 1) && (s1 == k || n == 1);
    if (!plain && !transposed) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: mat2 is in the FRACTAL_NZ format with strides (%lld, %lld) "
                                                 "for its last two dimensions [%lld, %lld]; expected its contiguous "
                                                 "view or the transposed one.", api, (long long)s0, (long long)s1,
                        (long long)k, (long long)n);
    }
    const bool t = !plain;
    const int64_t rows = t ? n : k, cols = t ? k : n, c0 = emu_nz_c0(md);
    int64_t total = emu_nz_matrix_elems(rows, cols, c0), vstride[EMU_MAX_DIMS];
    for (int32_t d = lead - 1; d >= 0; --d) {
        vstride[d] = mat2->view.shape[d] == 1 ? 0 : total;
        total *= mat2->view.shape[d];
    }
    p->b.slot = 1;
    p->b.dtype = md;
    for (int32_t d = 0; d < p->batch_rank; ++d) {
        const int32_t vd = d - (p->batch_rank - lead);
        p->b.bstride[d] = vd >= 0 ? vstride[vd] : 0;
    }
    p->b.rs = p->b.cs = 0;
    p->b_nz = (mm_nz){.on = true, .transposed = t, .rows16 = emu_nz_align(rows, EMU_NZ_ROWS), .c0 = c0};
    *bound = *mat2;
    bound->view.rank = 1;
    bound->view.shape[0] = total;
    bound->view.strides[0] = 1;
    return ACLNN_SUCCESS;
}

static aclnnStatus rank_error(const char *api, const char *name, const aclTensor *t, const char *expected)
{
    char shape[256];
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s (rank %d); expected %s.", api, name,
                    emu_shape_string(&t->view, shape, sizeof shape), (int)t->view.rank, expected);
}

static aclnnStatus shape_error(const char *api, const char *name, const aclTensor *t, const int64_t *want,
                               int32_t rank, const char *what)
{
    emu_view expected = {.rank = rank};
    memcpy(expected.shape, want, (size_t)rank * sizeof(int64_t));
    char have[256], need[256];
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s; expected %s%s.", api, name,
                    emu_shape_string(&t->view, have, sizeof have), emu_shape_string(&expected, need, sizeof need),
                    what);
}

static aclnnStatus k_error(const char *api, const char *b_name, const aclTensor *a, const aclTensor *b)
{
    char sa[256], sb[256];
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the k-axis of self %s and %s %s differ; expected self's last "
                                             "dimension to equal %s's reduce dimension.", api,
                    emu_shape_string(&a->view, sa, sizeof sa), b_name, emu_shape_string(&b->view, sb, sizeof sb),
                    b_name);
}

/* Our checks after CANN's: addresses, device memory, and an out of its own. */
static aclnnStatus check_memory(const char *api, const char *const *names, const aclTensor *const *t)
{
    for (int i = 0; i < 3; ++i) {
        EMU_TRY(emu_check_has_data(api, names[i], t[i]));
        EMU_TRY(emu_check_device_memory(api, names[i], t[i]));
    }
    EMU_TRY(emu_check_output_not_self_overlapping(api, names[2], t[2]));
    return emu_check_outputs_separate(api, names, t, 2, 3);
}

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

/* Binds self, mat2 (or vec) and out; plans the product, or nothing when
 * `problem` is NULL (an empty out). */
static aclnnStatus publish(const char *api, const char *phase2, const char *const *names,
                           const aclTensor *const *t, const mm_problem *problem, uint64_t *workspaceSize,
                           aclOpExecutor **executor)
{
    aclOpExecutor *planned = emu_executor_create(api, phase2, 2, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, names);
    for (int i = 0; i < 3; ++i) {
        emu_executor_bind(planned, i, t[i]);
    }
    if (problem == NULL) {
        for (int i = 0; i < 3; ++i) {
            emu_executor_mark_unused(planned, i);
        }
        return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
    }
    if (problem->no_terms || problem->k == 0) {
        emu_executor_mark_unused(planned, 0); /* out = 0: the inputs are not read */
        emu_executor_mark_unused(planned, 1);
    }
    _Static_assert(sizeof(mm_plan) <= EMU_PLAN_BYTES, "mm_plan must fit in the executor");
    const uint64_t workspace = mm_plan_build(problem, (mm_plan *)planned->plan);
    return emu_executor_publish(planned, mm_run, workspace, workspaceSize, executor);
}

/* side's batch strides for a tensor whose first `lead` dimensions are
 * batch dimensions, aligned to the right of the problem's batch shape
 * (missing and size-1 dimensions broadcast with stride 0). */
static void set_side(mm_side *side, int32_t slot, const aclTensor *t, int32_t lead, const mm_problem *p,
                     int64_t rs, int64_t cs)
{
    side->slot = slot;
    side->dtype = t->view.dtype;
    for (int32_t d = 0; d < p->batch_rank; ++d) {
        const int32_t vd = d - (p->batch_rank - lead);
        side->bstride[d] = vd >= 0 && t->view.shape[vd] != 1 ? t->view.strides[vd] : 0;
    }
    side->rs = rs;
    side->cs = cs;
}

static bool is_empty(const aclTensor *t)
{
    return emu_view_is_empty(&t->view);
}

/* ---- Mm ---- */

aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType,
                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnMmGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "mat2", mat2));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    mm_problem p = {0};
    EMU_TRY(mm_resolve_precision(API, MM_NAMES, self->view.dtype, mat2->view.dtype, out->view.dtype, cubeMathType,
                                 &p.precision));
    if (mat2->view.rank != 2) {
        return rank_error(API, "mat2", mat2, "2 dimensions");
    }
    if (self->view.rank != 2) {
        return rank_error(API, "self", self, "2 dimensions");
    }
    if (self->view.shape[1] != mat2->view.shape[0]) {
        return k_error(API, "mat2", self, mat2);
    }
    if (out->view.rank != 2) {
        return rank_error(API, "out", out, "2 dimensions");
    }
    const int64_t want[2] = {self->view.shape[0], mat2->view.shape[1]};
    if (out->view.shape[0] != want[0] || out->view.shape[1] != want[1]) {
        return shape_error(API, "out", out, want, 2, " (self's rows by mat2's columns)");
    }
    EMU_TRY(check_formats(API, self, out));
    aclTensor bound;
    const bool nz = is_nz(mat2->format);
    if (nz) {
        EMU_TRY(plan_nz(API, self, mat2, 0, &p, &bound));
    }
    const aclTensor *const t[3] = {self, nz ? &bound : mat2, out};
    if (is_empty(out)) {
        return publish(API, "aclnnMm", MM_NAMES, t, NULL, workspaceSize, executor);
    }
    EMU_TRY(check_memory(API, MM_NAMES, t));
    p.m = want[0];
    p.n = want[1];
    p.k = self->view.shape[1];
    p.no_terms = is_empty(self) || is_empty(mat2);
    set_side(&p.a, 0, self, 0, &p, self->view.strides[0], self->view.strides[1]);
    if (!nz) {
        set_side(&p.b, 1, mat2, 0, &p, mat2->view.strides[0], mat2->view.strides[1]);
    }
    set_side(&p.c, 2, out, 0, &p, out->view.strides[0], out->view.strides[1]);
    return publish(API, "aclnnMm", MM_NAMES, t, &p, workspaceSize, executor);
}

aclnnStatus aclnnMm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnMm", workspace, workspaceSize, executor, stream);
}

/* ---- BatchMatMul ---- */

aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                             int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnBatchMatMulGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "mat2", mat2));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    mm_problem p = {0};
    EMU_TRY(mm_resolve_precision(API, MM_NAMES, self->view.dtype, mat2->view.dtype, out->view.dtype, cubeMathType,
                                 &p.precision));
    const aclTensor *const given[3] = {self, mat2, out};
    for (int i = 0; i < 3; ++i) {
        if (given[i]->view.rank != 3) {
            return rank_error(API, MM_NAMES[i], given[i], "3 dimensions [batch, rows, columns]");
        }
    }
    const int64_t *s = self->view.shape, *o = mat2->view.shape;
    if (s[2] != o[1]) {
        return k_error(API, "mat2", self, mat2);
    }
    if (s[0] != o[0] && s[0] != 1 && o[0] != 1) {
        char a[256], b[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self %s and mat2 %s have batches %lld and %lld; expected equal "
                                                 "batches, or one of them 1.", API,
                        emu_shape_string(&self->view, a, sizeof a), emu_shape_string(&mat2->view, b, sizeof b),
                        (long long)s[0], (long long)o[0]);
    }
    /* CANN's out batch is the larger of the two (so 1 against 0 gives 1). */
    const int64_t want[3] = {s[0] >= o[0] ? s[0] : o[0], s[1], o[2]};
    if (memcmp(out->view.shape, want, sizeof want) != 0) {
        return shape_error(API, "out", out, want, 3, " (the batch, self's rows, mat2's columns)");
    }
    EMU_TRY(check_formats(API, self, out));
    p.batch_rank = 1;
    p.batch_shape[0] = want[0];
    aclTensor bound;
    const bool nz = is_nz(mat2->format);
    if (nz) {
        EMU_TRY(plan_nz(API, self, mat2, 1, &p, &bound));
    }
    const aclTensor *const t[3] = {self, nz ? &bound : mat2, out};
    if (s[0] == 0 || s[1] == 0 || o[2] == 0) {
        return publish(API, "aclnnBatchMatMul", MM_NAMES, t, NULL, workspaceSize, executor);
    }
    EMU_TRY(check_memory(API, MM_NAMES, t));
    p.m = want[1];
    p.n = want[2];
    p.k = s[2];
    p.no_terms = is_empty(self) || is_empty(mat2);
    set_side(&p.a, 0, self, 1, &p, self->view.strides[1], self->view.strides[2]);
    if (!nz) {
        set_side(&p.b, 1, mat2, 1, &p, mat2->view.strides[1], mat2->view.strides[2]);
    }
    set_side(&p.c, 2, out, 1, &p, out->view.strides[1], out->view.strides[2]);
    return publish(API, "aclnnBatchMatMul", MM_NAMES, t, &p, workspaceSize, executor);
}

aclnnStatus aclnnBatchMatMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnBatchMatMul", workspace, workspaceSize, executor, stream);
}

/* ---- Matmul ---- */

enum { MATMUL_MAX_RANK = 6 };

/* torch.matmul's shapes: a 1-d self is a row (its row dimension removed
 * from the result), a 1-d mat2 a column; the batch dimensions of the rest
 * broadcast. */
static aclnnStatus matmul_shapes(const char *api, const aclTensor *self, const aclTensor *mat2, mm_problem *p,
                                 int64_t *result, int32_t *result_rank)
{
    const int32_t r1 = self->view.rank, r2 = mat2->view.rank;
    if (r1 > MATMUL_MAX_RANK) {
        return rank_error(api, "self", self, "at most 6 dimensions");
    }
    if (r2 > MATMUL_MAX_RANK) {
        return rank_error(api, "mat2", mat2, "at most 6 dimensions");
    }
    if (r1 == 0 || r2 == 0) {
        return rank_error(api, r1 == 0 ? "self" : "mat2", r1 == 0 ? self : mat2, "1 to 6 dimensions");
    }
    const int64_t k = self->view.shape[r1 - 1];
    if (k != mat2->view.shape[r2 >= 2 ? r2 - 2 : 0]) {
        return k_error(api, "mat2", self, mat2);
    }
    const int32_t lead1 = r1 >= 2 ? r1 - 2 : 0, lead2 = r2 >= 2 ? r2 - 2 : 0;
    p->batch_rank = lead1 > lead2 ? lead1 : lead2;
    for (int32_t d = 0; d < p->batch_rank; ++d) {
        const int32_t d1 = d - (p->batch_rank - lead1), d2 = d - (p->batch_rank - lead2);
        const int64_t e1 = d1 >= 0 ? self->view.shape[d1] : 1, e2 = d2 >= 0 ? mat2->view.shape[d2] : 1;
        if (e1 != e2 && e1 != 1 && e2 != 1) {
            char a[256], b[256];
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the batch dimensions of self %s and mat2 %s do not "
                                                     "broadcast; expected equal sizes or 1.", api,
                            emu_shape_string(&self->view, a, sizeof a), emu_shape_string(&mat2->view, b, sizeof b));
        }
        p->batch_shape[d] = e1 == 1 ? e2 : e1;
        result[d] = p->batch_shape[d];
    }
    *result_rank = p->batch_rank;
    p->m = r1 >= 2 ? self->view.shape[r1 - 2] : 1;
    p->n = r2 >= 2 ? mat2->view.shape[r2 - 1] : 1;
    p->k = k;
    if (r1 >= 2) {
        result[(*result_rank)++] = p->m;
    }
    if (r2 >= 2) {
        result[(*result_rank)++] = p->n;
    }
    set_side(&p->a, 0, self, lead1, p, r1 >= 2 ? self->view.strides[r1 - 2] : 0, self->view.strides[r1 - 1]);
    set_side(&p->b, 1, mat2, lead2, p, mat2->view.strides[r2 >= 2 ? r2 - 2 : 0],
             r2 >= 2 ? mat2->view.strides[r2 - 1] : 0);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                        int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnMatmulGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "mat2", mat2));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    mm_problem p = {0};
    EMU_TRY(mm_resolve_precision(API, MM_NAMES, self->view.dtype, mat2->view.dtype, out->view.dtype, cubeMathType,
                                 &p.precision));
    int64_t result[EMU_MAX_DIMS];
    int32_t result_rank = 0;
    EMU_TRY(matmul_shapes(API, self, mat2, &p, result, &result_rank));
    EMU_TRY(check_formats(API, self, out));
    aclTensor bound;
    const bool nz = is_nz(mat2->format);
    if (nz) {
        if (mat2->view.rank < 2) {
            return rank_error(API, "mat2", mat2, "2 to 6 dimensions for a FRACTAL_NZ mat2");
        }
        EMU_TRY(plan_nz(API, self, mat2, mat2->view.rank - 2, &p, &bound));
    }
    const aclTensor *const t[3] = {self, nz ? &bound : mat2, out};
    if (is_empty(out) && (is_empty(self) || is_empty(mat2))) {
        return publish(API, "aclnnMatmul", MM_NAMES, t, NULL, workspaceSize, executor);
    }
    /* CANN reshapes the product to out's shape: a different shape with as
     * many elements is accepted (here for a contiguous out, read as the
     * product's shape). */
    emu_view expected = {.rank = result_rank, .dtype = out->view.dtype};
    memcpy(expected.shape, result, (size_t)result_rank * sizeof(int64_t));
    aclTensor shaped = *out;
    if (!emu_view_same_shape(&out->view, &expected)) {
        if (emu_view_numel(&out->view) != emu_view_numel(&expected) || !emu_view_is_contiguous(&out->view)) {
            return shape_error(API, "out", out, result, result_rank,
                               " (torch.matmul's shape), or as many elements in a contiguous out");
        }
        shaped.view.rank = result_rank;
        int64_t dense = 1;
        for (int32_t d = result_rank - 1; d >= 0; --d) {
            shaped.view.shape[d] = result[d];
            shaped.view.strides[d] = dense;
            dense *= result[d];
        }
    }
    EMU_TRY(check_memory(API, MM_NAMES, t));
    if (self->view.rank == 1 && mat2->view.rank == 1) {
        /* A dot product: no cube, the inputs promoted to a common dtype. */
        const aclDataType promoted = emu_promote_types(self->view.dtype, mat2->view.dtype);
        p.precision = (mm_precision){.compute = promoted, .hf32 = false, .kernel_out = promoted};
    }
    p.no_terms = is_empty(self) || is_empty(mat2);
    const int32_t r = shaped.view.rank, lead = p.batch_rank;
    set_side(&p.c, 2, &shaped, lead, &p, self->view.rank >= 2 ? shaped.view.strides[lead] : 0,
             mat2->view.rank >= 2 ? shaped.view.strides[r - 1] : 0);
    /* The executor keeps out's own view; the strides above address it. */
    return publish(API, "aclnnMatmul", MM_NAMES, t, &p, workspaceSize, executor);
}

aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnMatmul", workspace, workspaceSize, executor, stream);
}

/* ---- Mv ---- */

aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec, aclTensor *out, int8_t cubeMathType,
                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnMvGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "vec", vec));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "vec", vec));
    if (!is_empty(self)) {
        EMU_TRY(emu_check_same_dtype(API, "self", self, "vec", vec));
    }
    mm_problem p = {0};
    EMU_TRY(mm_resolve_precision(API, MV_NAMES, self->view.dtype, vec->view.dtype, out->view.dtype, cubeMathType,
                                 &p.precision));
    if (self->view.rank != 2) {
        return rank_error(API, "self", self, "2 dimensions");
    }
    if (vec->view.rank != 1) {
        return rank_error(API, "vec", vec, "1 dimension");
    }
    if (out->view.rank != 1) {
        return rank_error(API, "out", out, "1 dimension");
    }
    if (vec->view.shape[0] != self->view.shape[1]) {
        return shape_error(API, "vec", vec, &self->view.shape[1], 1, " (self's columns)");
    }
    if (out->view.shape[0] != self->view.shape[0]) {
        return shape_error(API, "out", out, &self->view.shape[0], 1, " (self's rows)");
    }
    const aclTensor *const t[3] = {self, vec, out};
    if (is_empty(out)) {
        return publish(API, "aclnnMv", MV_NAMES, t, NULL, workspaceSize, executor);
    }
    EMU_TRY(check_memory(API, MV_NAMES, t));
    p.m = self->view.shape[0];
    p.k = self->view.shape[1];
    p.n = 1;
    p.no_terms = is_empty(self);
    set_side(&p.a, 0, self, 0, &p, self->view.strides[0], self->view.strides[1]);
    set_side(&p.b, 1, vec, 0, &p, vec->view.strides[0], 0);
    set_side(&p.c, 2, out, 0, &p, out->view.strides[0], 0);
    return publish(API, "aclnnMv", MV_NAMES, t, &p, workspaceSize, executor);
}

aclnnStatus aclnnMv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnMv", workspace, workspaceSize, executor, stream);
}
