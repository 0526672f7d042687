/* Phase 2 of ReduceSum, Mean, MeanV2 and Norm.
 *
 * The order of every sum is fixed by the data's logical layout alone: an
 * output's elements, in row-major order of the reduced dimensions, are cut
 * into blocks of EMU_RED_BLOCK; element i of a block is added to lane
 * i % L (L = 32 in fp32, 16 in fp64), the lanes are combined by halving
 * (lane k += lane k + L/2, ...), and the block results are added the same
 * way. Rows (reduced elements dense in memory) and columns (outputs dense
 * in memory, reduced elements strided) are two loops over the same
 * lanes, so both give these bits, for any thread count and ISA. The fp32
 * additions run in kernels/reduce, which read fp32, fp16 and bf16 data in
 * place (a half-type row is widened in registers, not through a buffer)
 * and keep this order at every ISA level (a NaN result's sign and payload
 * aside, where NaNs of different bits meet: see kernels/reduce/reduce.h).
 * CANN's
 * kernels also sum in vector lanes, with their own tiling: their low bits
 * may differ, the value is as accurate. int64 sums wrap and have no order. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/parallel.h"
#include "ops/reduce.h"

enum { COLS = 256, PREFETCH_ROWS = 4, LF = EMU_RED_LANES_F32, LD = EMU_RED_LANES_F64 };

_Static_assert(sizeof(emu_red_sum_plan) <= EMU_PLAN_BYTES, "the plan must fit in the executor");
_Static_assert(LF * sizeof(float) == LD * sizeof(double), "one lane buffer for both");
_Static_assert(EMU_RED_BLOCK % LF == 0 && EMU_RED_BLOCK % LD == 0, "blocks must start at lane 0");

typedef struct {
    const emu_red_sum_plan *plan;
    const emu_reduce_kernels *kernels; /* chosen once per launch */
    const char *self;
    char *out;
    aclDataType self_dtype, out_dtype;
    size_t self_item, out_item, csize;
    char *partials;
    int64_t cols_last, cols_groups; /* the column loop's geometry */
} sum_ctx;

/* The norm's transform of each element, in place. */
static void transform(const emu_red_sum_plan *plan, float *x, int64_t n)
{
    switch (plan->norm) {
    case EMU_RED_P0:
        for (int64_t i = 0; i < n; ++i) {
            x[i] = x[i] != 0.0f ? 1.0f : 0.0f; /* NaN counts */
        }
        break;
    case EMU_RED_P2:
        for (int64_t i = 0; i < n; ++i) {
            x[i] = x[i] * x[i];
        }
        break;
    case EMU_RED_P3:
        for (int64_t i = 0; i < n; ++i) {
            const float a = fabsf(x[i]);
            const float a2 = a * a;
            x[i] = a2 * a;
        }
        break;
    case EMU_RED_POTHER:
        for (int64_t i = 0; i < n; ++i) {
            x[i] = powf(fabsf(x[i]), plan->p);
        }
        break;
    default:
        for (int64_t i = 0; i < n; ++i) {
            x[i] = fabsf(x[i]);
        }
        break;
    }
}

static bool extreme(const emu_red_sum_plan *plan)
{
    return plan->kind == EMU_RED_NORM && (plan->norm == EMU_RED_PINF || plan->norm == EMU_RED_PNINF);
}

/* max or min; the first NaN wins. */
static float extreme_f32(const float *x, int64_t n, bool max)
{
    float m = x[0];
    for (int64_t i = 1; i < n && m == m; ++i) {
        if (x[i] != x[i] || (max ? x[i] > m : x[i] < m)) {
            m = x[i];
        }
    }
    return m;
}

/* Reduces n values of the compute type (already transformed for a norm). */
static void reduce_values(const emu_red_sum_plan *plan, const void *x, int64_t n, void *result)
{
    switch (plan->compute) {
    case EMU_RED_F32:
        *(float *)result = extreme(plan) ? extreme_f32(x, n, plan->norm == EMU_RED_PINF) : emu_red_sum_f32(x, n);
        break;
    case EMU_RED_F64: *(double *)result = emu_red_sum_f64(x, n); break;
    case EMU_RED_I64: *(int64_t *)result = emu_red_sum_i64(x, n); break;
    }
}

/* The reduction's value to the output: the last step of each kind, the
 * rounding to the kernel's dtype, and the cast into out's. */
static void finish(const sum_ctx *c, int64_t o, void *value)
{
    const emu_red_sum_plan *plan = c->plan;
    const int64_t count = plan->geom.inner_count;
    if (plan->compute == EMU_RED_F32) {
        float v = *(float *)value;
        if (plan->kind == EMU_RED_MEAN) {
            v *= (float)(1.0 / (double)count);
        } else if (plan->kind == EMU_RED_NORM) {
            if (plan->norm == EMU_RED_P2) {
                v = sqrtf(v);
            } else if (plan->norm == EMU_RED_P3) {
                v = powf(v, 1.0f / 3.0f);
            } else if (plan->norm == EMU_RED_POTHER) {
                v = powf(v, 1.0f / plan->p);
            }
        }
        *(float *)value = (float)emu_round_to_dtype(v, plan->via);
    } else if (plan->compute == EMU_RED_F64) {
        if (plan->kind == EMU_RED_MEAN) {
            *(double *)value /= (double)count;
        }
    } else {
        int64_t v = emu_red_wrap(*(int64_t *)value, plan->via);
        if (plan->kind == EMU_RED_MEAN) {
            v /= count;
        }
        *(int64_t *)value = v;
    }
    int64_t in_off, out_off;
    emu_red_outer_offsets(&plan->geom, o, &in_off, &out_off);
    emu_red_store_run(plan->compute, value, 1, c->out_dtype, c->out + out_off * (int64_t)c->out_item, 1);
}

static void emit(const sum_ctx *c, int64_t o, int64_t b, void *value)
{
    if (c->plan->blocks == 1) {
        finish(c, o, value);
    } else {
        memcpy(c->partials + (size_t)(o * c->plan->blocks + b) * c->csize, value, c->csize);
    }
}

static int64_t block_length(const emu_red_sum_plan *plan, int64_t b)
{
    const int64_t left = plan->geom.inner_count - b * EMU_RED_BLOCK;
    return left < EMU_RED_BLOCK ? left : EMU_RED_BLOCK;
}

/* ---- rows: one output's block at a time ---- */

/* Whether a block's elements are dense in self, so that the sum kernels
 * can read them in place. */
static bool dense_rows(const sum_ctx *c)
{
    const emu_red_sum_plan *plan = c->plan;
    const emu_red_geom *g = &plan->geom;
    return plan->kind != EMU_RED_NORM && plan->compute == EMU_RED_F32 &&
           (g->inner_rank == 0 || (g->inner_rank == 1 && g->inner_in[0] == 1)) &&
           emu_red_widens_exactly(c->self_dtype, plan->via);
}

static void run_rows(void *opaque, size_t begin, size_t end)
{
    const sum_ctx *c = opaque;
    const emu_red_sum_plan *plan = c->plan;
    _Alignas(64) unsigned char buf[EMU_RED_BLOCK * 8];
    const bool dense = dense_rows(c);
    for (size_t item = begin; item < end; ++item) {
        const int64_t o = (int64_t)item / plan->blocks, b = (int64_t)item % plan->blocks;
        int64_t in_off, out_off;
        emu_red_outer_offsets(&plan->geom, o, &in_off, &out_off);
        const int64_t n = block_length(plan, b);
        if (dense) {
            const char *src = c->self + (in_off + b * EMU_RED_BLOCK) * (int64_t)c->self_item;
            const float sum = emu_red_sum_dense(c->kernels, src, c->self_dtype, n);
            _Alignas(8) unsigned char value[8];
            memcpy(value, &sum, sizeof sum);
            emit(c, o, b, value);
            continue;
        }
        const bool norm = plan->kind == EMU_RED_NORM;
        const void *x = emu_red_load(&plan->geom, c->self + in_off * (int64_t)c->self_item, c->self_dtype, plan->via,
                                     plan->compute, b * EMU_RED_BLOCK, n, buf, !norm);
        if (norm) {
            transform(plan, (float *)buf, n);
        }
        _Alignas(8) unsigned char value[8];
        reduce_values(plan, x, n, value);
        emit(c, o, b, value);
    }
}

/* ---- columns: up to COLS outputs adjacent in memory, one block ----
 * Each reduced index reads COLS consecutive elements (1 KiB of fp32) and
 * adds them to the lane of that index, so memory is read in long runs. */

static bool use_columns(const emu_red_sum_plan *plan)
{
    const emu_red_geom *g = &plan->geom;
    if (plan->compute == EMU_RED_I64 || extreme(plan) || g->outer_rank == 0 || g->inner_rank == 0 ||
        g->outer_in[g->outer_rank - 1] != 1) {
        return false;
    }
    for (int32_t d = 0; d < g->inner_rank; ++d) {
        if (g->inner_in[d] == 1) {
            return false;
        }
    }
    return true;
}

static void column_block(const sum_ctx *c, int64_t o0, int64_t cols, int64_t b, void *values)
{
    const emu_red_sum_plan *plan = c->plan;
    const emu_red_geom *g = &plan->geom;
    const bool f32 = plan->compute == EMU_RED_F32;
    /* LF x COLS floats or LD x COLS doubles: 32 KiB, in L1 */
    _Alignas(64) unsigned char acc[LF * COLS * sizeof(float)];
    _Alignas(64) unsigned char tmp[COLS * 8];
    float(*accf)[COLS] = (float(*)[COLS])acc;
    double(*accd)[COLS] = (double(*)[COLS])acc;
    memset(acc, 0, sizeof acc);
    int64_t in_off, out_off;
    emu_red_outer_offsets(g, o0, &in_off, &out_off);
    const int64_t start = b * EMU_RED_BLOCK, n = block_length(plan, b);
    const int32_t last = g->inner_rank - 1;
    int64_t idx[EMU_RED_MAX_RANK], offset = 0, rest = start;
    for (int32_t d = last; d >= 0; --d) {
        idx[d] = rest % g->inner_shape[d];
        rest /= g->inner_shape[d];
        offset += idx[d] * g->inner_in[d];
    }
    /* fp64 read in place; fp32 and the half types widened by the kernels as they add */
    const bool direct = plan->kind != EMU_RED_NORM &&
                        (f32 ? emu_red_widens_exactly(c->self_dtype, plan->via)
                             : c->self_dtype == plan->via && c->self_dtype == ACL_DOUBLE);
    const int64_t run_bytes = cols * (int64_t)c->self_item;
    for (int64_t i = 0; i < n; ++i) {
        const char *src = c->self + (in_off + offset) * (int64_t)c->self_item;
        if (i + PREFETCH_ROWS < n) { /* the rows ahead are pages away: fetch them early */
            const char *ahead = src + PREFETCH_ROWS * g->inner_in[last] * (int64_t)c->self_item;
            for (int64_t k = 0; k < run_bytes; k += 64) {
                __builtin_prefetch(ahead + k);
            }
        }
        const void *x = src;
        aclDataType x_dtype = c->self_dtype;
        if (!direct) {
            emu_red_load_run(src, c->self_dtype, 1, cols, plan->via, plan->compute, tmp);
            x = tmp;
            x_dtype = f32 ? ACL_FLOAT : ACL_DOUBLE;
        }
        if (f32) {
            if (plan->kind == EMU_RED_NORM) {
                transform(plan, (float *)tmp, cols);
            }
            emu_red_add_dense(c->kernels, accf[i % LF], x, x_dtype, cols);
        } else {
            const double *t = (const double *)x;
            double *lane = accd[i % LD];
            for (int64_t j = 0; j < cols; ++j) {
                lane[j] += t[j];
            }
        }
        for (int32_t d = last; d >= 0; --d) { /* next inner index */
            offset += g->inner_in[d];
            if (++idx[d] < g->inner_shape[d] || d == 0) {
                break;
            }
            offset -= idx[d] * g->inner_in[d];
            idx[d] = 0;
        }
    }
    for (int w = (f32 ? LF : LD) / 2; w > 0; w /= 2) {
        for (int k = 0; k < w; ++k) {
            if (f32) {
                emu_red_add_dense(c->kernels, accf[k], accf[k + w], ACL_FLOAT, cols);
            } else {
                for (int64_t j = 0; j < cols; ++j) {
                    accd[k][j] += accd[k + w][j];
                }
            }
        }
    }
    if (f32) {
        memcpy(values, accf[0], (size_t)cols * sizeof(float));
    } else {
        memcpy(values, accd[0], (size_t)cols * sizeof(double));
    }
}

static void run_columns(void *opaque, size_t begin, size_t end)
{
    const sum_ctx *c = opaque;
    const int64_t blocks = c->plan->blocks;
    for (size_t item = begin; item < end; ++item) {
        const int64_t b = (int64_t)item % blocks, rest = (int64_t)item / blocks;
        const int64_t group = rest % c->cols_groups, row = rest / c->cols_groups;
        const int64_t o0 = row * c->cols_last + group * COLS;
        const int64_t cols = c->cols_last - group * COLS < COLS ? c->cols_last - group * COLS : COLS;
        _Alignas(64) unsigned char values[COLS * 8];
        column_block(c, o0, cols, b, values);
        for (int64_t j = 0; j < cols; ++j) {
            emit(c, o0 + j, b, values + j * (int64_t)c->csize);
        }
    }
}

/* ---- block results to outputs ---- */

static void run_partials(void *opaque, size_t begin, size_t end)
{
    const sum_ctx *c = opaque;
    for (size_t o = begin; o < end; ++o) {
        _Alignas(8) unsigned char value[8];
        reduce_values(c->plan, c->partials + o * (size_t)c->plan->blocks * c->csize, c->plan->blocks, value);
        finish(c, (int64_t)o, value);
    }
}

uint64_t emu_red_sum_workspace(const emu_red_sum_plan *plan)
{
    return plan->blocks > 1 ? (uint64_t)plan->geom.outer_count * (uint64_t)plan->blocks *
                                  emu_red_compute_size(plan->compute)
                            : 0;
}

const char *emu_red_run_sum(aclOpExecutor *executor, void *workspace)
{
    const emu_red_sum_plan *plan = (const emu_red_sum_plan *)executor->plan;
    if (plan->fill) {
        return emu_ew_execute(&plan->fill_plan, executor->tensors);
    }
    const emu_view *self = &executor->tensors[0], *out = &executor->tensors[1];
    sum_ctx c = {.plan = plan, .kernels = emu_reduce_select(emu_isa_active()), .self = emu_view_origin(self),
                 .out = emu_view_origin(out), .self_dtype = self->dtype, .out_dtype = out->dtype,
                 .self_item = emu_dtype_size(self->dtype), .out_item = emu_dtype_size(out->dtype),
                 .csize = emu_red_compute_size(plan->compute), .partials = workspace};
    const int64_t per_block = plan->geom.inner_count < EMU_RED_BLOCK ? plan->geom.inner_count : EMU_RED_BLOCK;
    const bool columns = use_columns(plan);
    if (columns) {
        c.cols_last = plan->geom.outer_shape[plan->geom.outer_rank - 1];
        c.cols_groups = (c.cols_last + COLS - 1) / COLS;
        const int64_t items = plan->geom.outer_count / c.cols_last * c.cols_groups * plan->blocks;
        const int64_t per_item = per_block * (c.cols_last < COLS ? c.cols_last : COLS);
        emu_parallel_for((size_t)items, (size_t)(EMU_RED_GRAIN_ELEMENTS / per_item > 0 ? EMU_RED_GRAIN_ELEMENTS /
                                                                                              per_item : 1),
                         run_columns, &c);
    } else {
        emu_parallel_for((size_t)(plan->geom.outer_count * plan->blocks),
                         (size_t)(EMU_RED_GRAIN_ELEMENTS / per_block > 0 ? EMU_RED_GRAIN_ELEMENTS / per_block : 1),
                         run_rows, &c);
    }
    if (plan->blocks > 1) {
        emu_parallel_for((size_t)plan->geom.outer_count, 64, run_partials, &c);
    }
    static const char *const KIND[] = {"reduce_sum", "reduce_mean", "lp_norm"};
    static const char *const COMPUTE[] = {"f32", "f64", "i64"};
    static _Thread_local char name[48];
    snprintf(name, sizeof name, "%s_%s_%s", KIND[plan->kind], COMPUTE[plan->compute], columns ? "cols" : "rows");
    return name;
}
