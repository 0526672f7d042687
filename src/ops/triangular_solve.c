/* TriangularSolve (hicann/ops-math math/triangular_solve/op_host/op_api/
 * aclnn_triangular_solve.cpp): X with op(A) X = self, op(A) = A or, with
 * transpose, A^T (the adjoint for complex dtypes), A upper or lower
 * triangular; batches broadcast. mOut (optional) receives A broadcast to
 * the batch. With unitriangular the diagonal counts as ones: CANN forms
 * A * (1 - eye) + eye (FLOAT only), so a diagonal element that is inf or
 * NaN still gives NaN.
 *
 * Dtypes FLOAT, DOUBLE, COMPLEX64 and COMPLEX128, on every product. CANN's
 * op_api reports a NULL self, A or xOut as 561103 (ACLNN_ERR_INNER_NULLPTR),
 * not 161001; so do we.
 *
 * The device runs Eigen's solver on its AI CPU. Here every column of X is
 * solved by substitution in its own dtype: row i of X minus op(A)[i][p] *
 * row p, p in increasing order (each product and difference rounded),
 * then divided by the diagonal. Tasks are (batch, block of columns) pairs,
 * each solved in place in xOut by one thread, so the results do not depend
 * on the thread count. No workspace. */
#include <string.h>

#include "aclnnop/aclnn_triangular_solve.h"
#include "common/parallel.h"
#include "meta/executor.h"
#include "ops/check.h"
#include "ops/opdef.h"

enum { TS_MAX_RANK = 8, TS_BATCH = TS_MAX_RANK - 2, TS_COLS = 64 };
enum { S_SELF, S_A, S_X, S_M };

typedef struct {
    aclDataType dtype;
    bool forward, conj, unit, has_m, transposed;
    int32_t batch_rank;
    int64_t batch_shape[TS_BATCH];
    int64_t bs[4][TS_BATCH]; /* batch strides of self, A, xOut, mOut */
    int64_t rs[4], cs[4];    /* row and column strides; A's are op(A)'s */
    int64_t m, n, col_blocks, tasks;
} ts_plan;

_Static_assert(sizeof(ts_plan) <= EMU_PLAN_BYTES, "ts_plan must fit in the executor");

typedef struct {
    float re, im;
} ts_c64;
typedef struct {
    double re, im;
} ts_c128;

/* x[i][j] -= t * x[p][j] and x[i][j] /= d, for one dtype. */
#define TS_REAL_OPS(T, SUFFIX)                                                                               \
    static inline T axpy_t_##SUFFIX(T t, bool unit)                                                      \
    {                                                                                                       \
        return unit ? t * (T)1 + (T)0 : t;                                                                  \
    }                                                                                                       \
    static inline T diag_##SUFFIX(T d, bool unit)                                                         \
    {                                                                                                       \
        return unit ? d * (T)0 + (T)1 : d;                                                                  \
    }                                                                                                       \
    static void solve_##SUFFIX(const ts_plan *p, const char *a_base, char *x_base, int64_t cols)            \
    {                                                                                                       \
        const T *a = (const T *)a_base;                                                                     \
        T *x = (T *)x_base;                                                                                 \
        const int64_t ars = p->rs[S_A], acs = p->cs[S_A], xrs = p->rs[S_X], xcs = p->cs[S_X];               \
        for (int64_t s = 0; s < p->m; ++s) {                                                                \
            const int64_t i = p->forward ? s : p->m - 1 - s;                                                \
            const int64_t p0 = p->forward ? 0 : i + 1, p1 = p->forward ? i : p->m;                          \
            T *xi = x + i * xrs;                                                                            \
            for (int64_t q = p0; q < p1; ++q) {                                                             \
                const T t = axpy_t_##SUFFIX(a[i * ars + q * acs], p->unit);                                 \
                const T *xq = x + q * xrs;                                                                  \
                if (xcs == 1) {                                                                             \
                    for (int64_t j = 0; j < cols; ++j) {                                                    \
                        xi[j] = xi[j] - t * xq[j];                                                          \
                    }                                                                                       \
                } else {                                                                                    \
                    for (int64_t j = 0; j < cols; ++j) {                                                    \
                        xi[j * xcs] = xi[j * xcs] - t * xq[j * xcs];                                        \
                    }                                                                                       \
                }                                                                                           \
            }                                                                                               \
            const T d = diag_##SUFFIX(a[i * ars + i * acs], p->unit);                                      \
            for (int64_t j = 0; j < cols; ++j) {                                                            \
                xi[j * xcs] = xi[j * xcs] / d;                                                              \
            }                                                                                               \
        }                                                                                                   \
    }

TS_REAL_OPS(float, f32)
TS_REAL_OPS(double, f64)

/* Complex: (a + bi)(c + di) = (ac - bd) + (ad + bc)i; x / d = x conj(d) / |d|^2. */
#define TS_COMPLEX_OPS(C, R, SUFFIX)                                                                         \
    static void solve_##SUFFIX(const ts_plan *p, const char *a_base, char *x_base, int64_t cols)            \
    {                                                                                                       \
        const C *a = (const C *)a_base;                                                                     \
        C *x = (C *)x_base;                                                                                 \
        const int64_t ars = p->rs[S_A], acs = p->cs[S_A], xrs = p->rs[S_X], xcs = p->cs[S_X];               \
        const R sign = p->conj ? (R)-1 : (R)1;                                                              \
        for (int64_t s = 0; s < p->m; ++s) {                                                                \
            const int64_t i = p->forward ? s : p->m - 1 - s;                                                \
            const int64_t p0 = p->forward ? 0 : i + 1, p1 = p->forward ? i : p->m;                          \
            C *xi = x + i * xrs;                                                                            \
            for (int64_t q = p0; q < p1; ++q) {                                                             \
                const C t = a[i * ars + q * acs];                                                           \
                const R tr = t.re, ti = sign * t.im;                                                        \
                const C *xq = x + q * xrs;                                                                  \
                for (int64_t j = 0; j < cols; ++j) {                                                        \
                    const C v = xq[j * xcs];                                                                \
                    xi[j * xcs].re = xi[j * xcs].re - (tr * v.re - ti * v.im);                              \
                    xi[j * xcs].im = xi[j * xcs].im - (tr * v.im + ti * v.re);                              \
                }                                                                                           \
            }                                                                                               \
            const C d = a[i * ars + i * acs];                                                               \
            const R dr = d.re, di = sign * d.im, den = dr * dr + di * di;                                   \
            for (int64_t j = 0; j < cols; ++j) {                                                            \
                const C v = xi[j * xcs];                                                                    \
                xi[j * xcs].re = (v.re * dr + v.im * di) / den;                                             \
                xi[j * xcs].im = (v.im * dr - v.re * di) / den;                                             \
            }                                                                                               \
        }                                                                                                   \
    }

TS_COMPLEX_OPS(ts_c64, float, c64)
TS_COMPLEX_OPS(ts_c128, double, c128)

/* Copies rows x cols elements of `size` bytes between two strided matrices. */
static void copy_matrix(char *dst, int64_t drs, int64_t dcs, const char *src, int64_t srs, int64_t scs, int64_t rows,
                        int64_t cols, size_t size)
{
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
            memcpy(dst + (i * drs + j * dcs) * (int64_t)size, src + (i * srs + j * scs) * (int64_t)size, size);
        }
    }
}

typedef struct {
    const ts_plan *plan;
    const emu_view *views;
} ts_ctx;

static void ts_range(void *opaque, size_t begin, size_t end)
{
    const ts_ctx *c = opaque;
    const ts_plan *p = c->plan;
    const int64_t size = (int64_t)emu_dtype_size(p->dtype);
    for (size_t task = begin; task < end; ++task) {
        const int64_t block = (int64_t)task % p->col_blocks;
        int64_t batch = (int64_t)task / p->col_blocks, off[4] = {0, 0, 0, 0};
        for (int32_t d = p->batch_rank - 1; d >= 0; --d) {
            const int64_t i = batch % p->batch_shape[d];
            batch /= p->batch_shape[d];
            for (int k = 0; k < 4; ++k) {
                off[k] += i * p->bs[k][d];
            }
        }
        const char *a = (const char *)emu_view_origin(&c->views[S_A]) + off[S_A] * size;
        if (block == 0 && p->has_m) {
            /* mOut is A itself, not op(A): undo the transposition of the strides. */
            const bool t = p->transposed;
            copy_matrix((char *)emu_view_origin(&c->views[S_M]) + off[S_M] * size, p->rs[S_M], p->cs[S_M], a,
                        t ? p->cs[S_A] : p->rs[S_A], t ? p->rs[S_A] : p->cs[S_A], p->m, p->m, (size_t)size);
        }
        const int64_t j0 = block * TS_COLS, cols = p->n - j0 < TS_COLS ? p->n - j0 : TS_COLS;
        char *x = (char *)emu_view_origin(&c->views[S_X]) + (off[S_X] + j0 * p->cs[S_X]) * size;
        const char *b = (const char *)emu_view_origin(&c->views[S_SELF]) + (off[S_SELF] + j0 * p->cs[S_SELF]) * size;
        copy_matrix(x, p->rs[S_X], p->cs[S_X], b, p->rs[S_SELF], p->cs[S_SELF], p->m, cols, (size_t)size);
        switch (p->dtype) {
        case ACL_FLOAT:
            solve_f32(p, a, x, cols);
            break;
        case ACL_DOUBLE:
            solve_f64(p, a, x, cols);
            break;
        case ACL_COMPLEX64:
            solve_c64(p, a, x, cols);
            break;
        default:
            solve_c128(p, a, x, cols);
            break;
        }
    }
}

static const char *run_solve(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    ts_ctx c = {.plan = (const ts_plan *)executor->plan, .views = executor->tensors};
    emu_parallel_for((size_t)c.plan->tasks, 1, ts_range, &c);
    return "triangular_solve";
}

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

static const emu_dtype_table TS_TYPES = {
    EMU_DT(ACL_FLOAT) | EMU_DT(ACL_DOUBLE) | EMU_DT(ACL_COMPLEX64) | EMU_DT(ACL_COMPLEX128),
    EMU_DT(ACL_FLOAT) | EMU_DT(ACL_DOUBLE) | EMU_DT(ACL_COMPLEX64) | EMU_DT(ACL_COMPLEX128),
    EMU_DT(ACL_FLOAT) | EMU_DT(ACL_DOUBLE) | EMU_DT(ACL_COMPLEX64) | EMU_DT(ACL_COMPLEX128)};

static aclnnStatus check_rank(const char *api, const char *name, const aclTensor *t)
{
    if (t->view.rank < 2 || t->view.rank > TS_MAX_RANK) {
        char shape[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s (rank %d); expected 2 to 8 dimensions.", api,
                        name, emu_shape_string(&t->view, shape, sizeof shape), (int)t->view.rank);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_shape_is(const char *api, const char *name, const aclTensor *t, const emu_view *want)
{
    if (!emu_view_same_shape(&t->view, want)) {
        char have[256], need[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s; expected %s.", api, name,
                        emu_shape_string(&t->view, have, sizeof have), emu_shape_string(want, need, sizeof need));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_shapes(const char *api, const aclTensor *self, const aclTensor *A, const aclTensor *xOut,
                                const aclTensor *mOut, emu_view *broadcast)
{
    EMU_TRY(check_rank(api, "self", self));
    EMU_TRY(check_rank(api, "A", A));
    EMU_TRY(check_rank(api, "xOut", xOut));
    const int32_t ar = A->view.rank, br = self->view.rank;
    const int64_t m = A->view.shape[ar - 2];
    char sa[256], sb[256];
    if (A->view.shape[ar - 1] != m) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: A has shape %s; expected batches of square matrices.", api,
                        emu_shape_string(&A->view, sa, sizeof sa));
    }
    if (self->view.shape[br - 2] != m) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self %s has %lld rows for A %s of %lld by %lld; expected as "
                                                 "many rows as A.", api, emu_shape_string(&self->view, sb, sizeof sb),
                        (long long)self->view.shape[br - 2], emu_shape_string(&A->view, sa, sizeof sa),
                        (long long)m, (long long)m);
    }
    emu_view rows = self->view;
    rows.shape[br - 1] = m;
    if (!emu_broadcast_shape(&A->view, &rows, broadcast->shape, &broadcast->rank)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the batch dimensions of A %s and self %s do not broadcast; "
                                                 "expected equal sizes or 1.", api,
                        emu_shape_string(&A->view, sa, sizeof sa), emu_shape_string(&self->view, sb, sizeof sb));
    }
    emu_view x = *broadcast;
    x.shape[x.rank - 1] = self->view.shape[br - 1];
    EMU_TRY(check_shape_is(api, "xOut", xOut, &x));
    if (mOut != NULL) {
        EMU_TRY(check_rank(api, "mOut", mOut));
        EMU_TRY(check_shape_is(api, "mOut", mOut, broadcast));
    }
    return ACLNN_SUCCESS;
}

/* Batch strides of t (its leading dimensions aligned to the right of the
 * batch), 0 where it broadcasts. */
static void batch_strides(int64_t *bs, const aclTensor *t, const ts_plan *p)
{
    const int32_t lead = t->view.rank - 2;
    for (int32_t d = 0; d < p->batch_rank; ++d) {
        const int32_t vd = d - (p->batch_rank - lead);
        bs[d] = vd >= 0 && t->view.shape[vd] != 1 ? t->view.strides[vd] : 0;
    }
}

aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self, const aclTensor *A, bool upper,
                                                 bool transpose, bool unitriangular, aclTensor *xOut,
                                                 aclTensor *mOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnTriangularSolveGetWorkspaceSize";
    static const char *const NAMES[] = {"self", "A", "xOut", "mOut"};
    const aclTensor *const t[4] = {self, A, xOut, mOut};
    for (int i = 0; i < 3; ++i) {
        if (t[i] == NULL) {
            return emu_fail(ACLNN_ERR_INNER_NULLPTR, "%s: %s is NULL; expected a tensor.", API, NAMES[i]);
        }
    }
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &TS_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "A", A->view.dtype, &TS_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "xOut", xOut->view.dtype, &TS_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "A", A, "self", self));
    EMU_TRY(emu_check_same_dtype(API, "xOut", xOut, "self", self));
    if (mOut != NULL) {
        EMU_TRY(emu_check_dtype_table(API, "mOut", mOut->view.dtype, &TS_TYPES));
        EMU_TRY(emu_check_same_dtype(API, "mOut", mOut, "self", self));
    }
    emu_view broadcast = {.rank = 0};
    EMU_TRY(check_shapes(API, self, A, xOut, mOut, &broadcast));
    const int count = mOut != NULL ? 4 : 3;
    aclOpExecutor *planned = NULL;
    if (emu_view_is_empty(&A->view) || emu_view_is_empty(&self->view)) {
        planned = emu_executor_create(API, "aclnnTriangularSolve", 2, count - 2);
        if (planned == NULL) {
            return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        }
        emu_executor_name_tensors(planned, NAMES);
        for (int i = 0; i < count; ++i) {
            emu_executor_bind(planned, i, t[i]);
            emu_executor_mark_unused(planned, i);
        }
        return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
    }
    if (unitriangular && self->view.dtype != ACL_FLOAT) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: unitriangular is true with dtype %s; CANN's unitriangular "
                                                 "mode supports ACL_FLOAT only.", API,
                        emu_dtype_name(self->view.dtype));
    }
    for (int i = 0; i < count; ++i) {
        EMU_TRY(emu_check_has_data(API, NAMES[i], t[i]));
        EMU_TRY(emu_check_device_memory(API, NAMES[i], t[i]));
    }
    for (int i = 2; i < count; ++i) {
        EMU_TRY(emu_check_output_not_self_overlapping(API, NAMES[i], t[i]));
    }
    EMU_TRY(emu_check_outputs_separate(API, NAMES, t, 2, count));

    planned = emu_executor_create(API, "aclnnTriangularSolve", 2, count - 2);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    for (int i = 0; i < count; ++i) {
        emu_executor_bind(planned, i, t[i]);
    }
    ts_plan *p = (ts_plan *)planned->plan;
    memset(p, 0, sizeof *p);
    p->dtype = self->view.dtype;
    p->forward = upper == transpose; /* lower A, or the transpose of an upper one */
    p->conj = transpose && (p->dtype == ACL_COMPLEX64 || p->dtype == ACL_COMPLEX128);
    p->unit = unitriangular;
    p->has_m = mOut != NULL;
    p->transposed = transpose;
    p->batch_rank = broadcast.rank - 2;
    int64_t batches = 1;
    for (int32_t d = 0; d < p->batch_rank; ++d) {
        p->batch_shape[d] = broadcast.shape[d];
        batches *= broadcast.shape[d];
    }
    for (int i = 0; i < count; ++i) {
        batch_strides(p->bs[i], t[i], p);
        p->rs[i] = t[i]->view.strides[t[i]->view.rank - 2];
        p->cs[i] = t[i]->view.strides[t[i]->view.rank - 1];
    }
    if (transpose) {
        const int64_t rs = p->rs[S_A];
        p->rs[S_A] = p->cs[S_A];
        p->cs[S_A] = rs;
    }
    p->m = A->view.shape[A->view.rank - 1];
    p->n = self->view.shape[self->view.rank - 1];
    p->col_blocks = (p->n + TS_COLS - 1) / TS_COLS;
    p->tasks = batches * p->col_blocks;
    return emu_executor_publish(planned, run_solve, 0, workspaceSize, executor);
}

aclnnStatus aclnnTriangularSolve(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 const aclrtStream stream)
{
    return emu_executor_run("aclnnTriangularSolve", workspace, workspaceSize, executor, stream);
}
