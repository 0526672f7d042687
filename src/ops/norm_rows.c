/* Rows of a tensor for the norm and softmax operators: views as rows,
 * loading and storing them in fp32 / fp64, fixed-order reductions and the
 * parallel row loop (norm.h). */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/isa.h"
#include "ops/norm.h"

/* Appends a dimension of n elements, stride s (in elements), after the
 * dimensions already there: dropped when n is 1, merged into the previous
 * one when the two are dense together. */
static void add_dim(int32_t *rank, int64_t *shape, int64_t *stride, int64_t n, int64_t s)
{
    if (n == 1) {
        return;
    }
    if (*rank > 0 && stride[*rank - 1] == s * n) {
        shape[*rank - 1] *= n;
        stride[*rank - 1] = s;
        return;
    }
    shape[*rank] = n;
    stride[*rank] = s;
    ++*rank;
}

static void rows_begin(emu_rows *rows, const emu_view *view)
{
    memset(rows, 0, sizeof *rows);
    rows->origin = emu_view_origin(view);
    rows->dtype = view->dtype;
    rows->elem = emu_dtype_size(view->dtype);
}

void emu_rows_split(emu_rows *rows, const emu_view *view, int32_t k)
{
    rows_begin(rows, view);
    for (int32_t i = 0; i < view->rank; ++i) {
        if (i < k) {
            add_dim(&rows->lead_rank, rows->lead_shape, rows->lead_stride, view->shape[i], view->strides[i]);
        } else {
            add_dim(&rows->inner_rank, rows->inner_shape, rows->inner_stride, view->shape[i], view->strides[i]);
        }
    }
}

void emu_rows_axis(emu_rows *rows, const emu_view *view, int32_t dim)
{
    rows_begin(rows, view);
    for (int32_t i = 0; i < view->rank; ++i) {
        if (i == dim) {
            add_dim(&rows->inner_rank, rows->inner_shape, rows->inner_stride, view->shape[i], view->strides[i]);
        } else {
            add_dim(&rows->lead_rank, rows->lead_shape, rows->lead_stride, view->shape[i], view->strides[i]);
        }
    }
}

void emu_rows_groups(emu_rows *rows, const emu_view *view, int64_t groups)
{
    rows_begin(rows, view);
    const int64_t per_group = view->shape[1] / groups;
    add_dim(&rows->lead_rank, rows->lead_shape, rows->lead_stride, view->shape[0], view->strides[0]);
    add_dim(&rows->lead_rank, rows->lead_shape, rows->lead_stride, groups, per_group * view->strides[1]);
    add_dim(&rows->inner_rank, rows->inner_shape, rows->inner_stride, per_group, view->strides[1]);
    for (int32_t i = 2; i < view->rank; ++i) {
        add_dim(&rows->inner_rank, rows->inner_shape, rows->inner_stride, view->shape[i], view->strides[i]);
    }
}

static int64_t row_offset(const emu_rows *rows, int64_t row)
{
    int64_t offset = 0;
    for (int32_t i = rows->lead_rank - 1; i >= 0; --i) {
        offset += (row % rows->lead_shape[i]) * rows->lead_stride[i];
        row /= rows->lead_shape[i];
    }
    return offset;
}

typedef enum { LOAD_F32, STORE_F32, LOAD_F64, STORE_F64 } io_kind;

/* One run of n elements, stride `stride` elements, between the view's
 * memory at p and the dense buffer buf. */
static void io_run(io_kind kind, aclDataType dtype, char *p, int64_t stride, int64_t n, void *buf,
                   const emu_convert_kernels *cv)
{
    const int64_t step = stride * (int64_t)emu_dtype_size(dtype);
    float *f = buf;
    double *d = buf;
    if (stride == 1 && cv != NULL && (dtype == ACL_FLOAT16 || dtype == ACL_BF16)) {
        if (kind == LOAD_F32) {
            (dtype == ACL_FLOAT16 ? cv->f16_to_f32 : cv->bf16_to_f32)((size_t)n, (const uint16_t *)p, f);
            return;
        }
        if (kind == STORE_F32) {
            (dtype == ACL_FLOAT16 ? cv->f32_to_f16 : cv->f32_to_bf16)((size_t)n, f, (uint16_t *)p);
            return;
        }
    }
    if (kind == LOAD_F32 && dtype == ACL_FLOAT) {
        for (int64_t j = 0; j < n; ++j) {
            f[j] = *(const float *)(p + j * step);
        }
        return;
    }
    if (kind == STORE_F32 && dtype == ACL_FLOAT) {
        for (int64_t j = 0; j < n; ++j) {
            *(float *)(p + j * step) = f[j];
        }
        return;
    }
    for (int64_t j = 0; j < n; ++j) {
        char *at = p + j * step;
        double v = 0.0;
        if (kind == LOAD_F32 || kind == LOAD_F64) {
            switch (dtype) {
            case ACL_FLOAT: v = *(const float *)at; break;
            case ACL_FLOAT16: v = emu_f16_to_f32(*(const uint16_t *)at); break;
            case ACL_BF16: v = emu_bf16_to_f32(*(const uint16_t *)at); break;
            case ACL_DOUBLE: v = *(const double *)at; break;
            default: break;
            }
            if (kind == LOAD_F32) {
                f[j] = (float)v;
            } else {
                d[j] = v;
            }
            continue;
        }
        v = kind == STORE_F32 ? (double)f[j] : d[j];
        switch (dtype) {
        case ACL_FLOAT: *(float *)at = (float)v; break;
        case ACL_FLOAT16: *(uint16_t *)at = emu_f32_to_f16((float)v); break;
        case ACL_BF16: *(uint16_t *)at = emu_f32_to_bf16((float)v); break;
        case ACL_DOUBLE: *(double *)at = v; break;
        default: break;
        }
    }
}

/* Elements [start, start + count) of a row, in row-major order, between
 * the view and buf. */
static void rows_io(const emu_rows *rows, int64_t row, int64_t start, int64_t count, void *buf, io_kind kind,
                    const emu_convert_kernels *cv)
{
    char *base = rows->origin + row_offset(rows, row) * (int64_t)rows->elem;
    const size_t buf_elem = (kind == LOAD_F32 || kind == STORE_F32) ? sizeof(float) : sizeof(double);
    const bool load = kind == LOAD_F32 || kind == LOAD_F64;
    const bool raw = rows->elem == buf_elem && ((buf_elem == 4 && rows->dtype == ACL_FLOAT) ||
                                                (buf_elem == 8 && rows->dtype == ACL_DOUBLE));
    if (rows->inner_rank == 0) {
        if (count > 0) {
            io_run(kind, rows->dtype, base, 1, 1, buf, cv);
        }
        return;
    }
    const int32_t last = rows->inner_rank - 1;
    const int64_t run = rows->inner_shape[last], run_stride = rows->inner_stride[last];
    /* The multi-index of `start` over the dimensions before the last. */
    int64_t index[EMU_ROWS_DIMS] = {0};
    int64_t at = start / run, skip = start % run;
    for (int32_t i = last - 1; i >= 0; --i) {
        index[i] = at % rows->inner_shape[i];
        at /= rows->inner_shape[i];
    }
    char *out = buf;
    while (count > 0) {
        int64_t offset = skip * run_stride;
        for (int32_t i = 0; i < last; ++i) {
            offset += index[i] * rows->inner_stride[i];
        }
        const int64_t n = run - skip < count ? run - skip : count;
        char *p = base + offset * (int64_t)rows->elem;
        if (run_stride == 1 && raw) {
            /* A dense fp32/fp64 run is copied as bytes. */
            memcpy(load ? out : p, load ? p : out, (size_t)n * buf_elem);
        } else {
            io_run(kind, rows->dtype, p, run_stride, n, out, cv);
        }
        out += (size_t)n * buf_elem;
        count -= n;
        skip = 0;
        for (int32_t i = last - 1; i >= 0; --i) {
            if (++index[i] < rows->inner_shape[i]) {
                break;
            }
            index[i] = 0;
        }
    }
}

static int64_t row_length(const emu_rows *rows)
{
    int64_t n = 1;
    for (int32_t i = 0; i < rows->inner_rank; ++i) {
        n *= rows->inner_shape[i];
    }
    return n;
}

void *emu_rows_dense(const emu_rows *rows, int64_t row, aclDataType dtype)
{
    if (rows->dtype != dtype || rows->inner_rank != 1 || rows->inner_stride[0] != 1) {
        return NULL;
    }
    return rows->origin + row_offset(rows, row) * (int64_t)rows->elem;
}

float *emu_rows_dense_f32(const emu_rows *rows, int64_t row)
{
    return emu_rows_dense(rows, row, ACL_FLOAT);
}

void emu_rows_load_range(const emu_rows *rows, int64_t row, int64_t start, int64_t count, float *dst,
                         const emu_convert_kernels *cv)
{
    rows_io(rows, row, start, count, dst, LOAD_F32, cv);
}

void emu_rows_store_range(const emu_rows *rows, int64_t row, int64_t start, int64_t count, const float *src,
                          const emu_convert_kernels *cv)
{
    rows_io(rows, row, start, count, (void *)src, STORE_F32, cv);
}

void emu_rows_load(const emu_rows *rows, int64_t row, float *dst, const emu_convert_kernels *cv)
{
    rows_io(rows, row, 0, row_length(rows), dst, LOAD_F32, cv);
}

void emu_rows_store(const emu_rows *rows, int64_t row, const float *src, const emu_convert_kernels *cv)
{
    rows_io(rows, row, 0, row_length(rows), (void *)src, STORE_F32, cv);
}

void emu_rows_load_f64(const emu_rows *rows, int64_t row, double *dst)
{
    rows_io(rows, row, 0, row_length(rows), dst, LOAD_F64, NULL);
}

void emu_rows_store_f64(const emu_rows *rows, int64_t row, const double *src)
{
    rows_io(rows, row, 0, row_length(rows), (void *)src, STORE_F64, NULL);
}

/* Rows first..first+count as blocks of n elements at dst + k * n: read
 * element by element across the rows (element i of every row, then i + 1),
 * so that rows lying side by side in memory (a softmax over a dimension
 * that is not the last) are read and written a cache line at a time. */
static void lines_io(const emu_rows *rows, int64_t first, int64_t count, float *buf, bool load)
{
    if (rows->inner_rank != 1 || count == 1) {
        for (int64_t k = 0; k < count; ++k) {
            int64_t n = rows->inner_rank == 1 ? rows->inner_shape[0] : 1;
            rows_io(rows, first + k, 0, n, buf + k * n, load ? LOAD_F32 : STORE_F32, NULL);
        }
        return;
    }
    enum { MAX_LINES = 64 };
    char *base[MAX_LINES];
    for (int64_t k = 0; k < count && k < MAX_LINES; ++k) {
        base[k] = rows->origin + row_offset(rows, first + k) * (int64_t)rows->elem;
    }
    const int64_t n = rows->inner_shape[0], step = rows->inner_stride[0] * (int64_t)rows->elem;
#define LINES_LOOP(body)                                                                                       \
    for (int64_t i = 0; i < n; ++i) {                                                                          \
        for (int64_t k = 0; k < count; ++k) {                                                                  \
            char *at = base[k] + i * step;                                                                     \
            float *v = buf + k * n + i;                                                                        \
            body;                                                                                              \
        }                                                                                                      \
    }
    switch (rows->dtype) {
    case ACL_FLOAT:
        if (load) {
            LINES_LOOP(*v = *(const float *)at)
        } else {
            LINES_LOOP(*(float *)at = *v)
        }
        break;
    case ACL_FLOAT16:
        if (load) {
            LINES_LOOP(*v = emu_f16_to_f32(*(const uint16_t *)at))
        } else {
            LINES_LOOP(*(uint16_t *)at = emu_f32_to_f16(*v))
        }
        break;
    case ACL_BF16:
        if (load) {
            LINES_LOOP(*v = emu_bf16_to_f32(*(const uint16_t *)at))
        } else {
            LINES_LOOP(*(uint16_t *)at = emu_f32_to_bf16(*v))
        }
        break;
    default:
        break;
    }
#undef LINES_LOOP
}

void emu_rows_load_lines(const emu_rows *rows, int64_t first, int64_t count, float *dst)
{
    lines_io(rows, first, count, dst, true);
}

void emu_rows_store_lines(const emu_rows *rows, int64_t first, int64_t count, const float *src)
{
    lines_io(rows, first, count, (float *)src, false);
}

double emu_view_load_at(const emu_view *view, int64_t index)
{
    int64_t offset = 0;
    for (int32_t i = view->rank - 1; i >= 0; --i) {
        offset += (index % view->shape[i]) * view->strides[i];
        index /= view->shape[i];
    }
    double value = 0.0;
    io_run(LOAD_F64, view->dtype, (char *)emu_view_origin(view) + offset * (int64_t)emu_dtype_size(view->dtype), 1,
           1, &value, NULL);
    return value;
}

void emu_view_store_at(const emu_view *view, int64_t index, double value)
{
    int64_t offset = 0;
    for (int32_t i = view->rank - 1; i >= 0; --i) {
        offset += (index % view->shape[i]) * view->strides[i];
        index /= view->shape[i];
    }
    char *p = (char *)emu_view_origin(view) + offset * (int64_t)emu_dtype_size(view->dtype);
    io_run(STORE_F64, view->dtype, p, 1, 1, &value, NULL);
}

void emu_norm_round(aclDataType dtype, float *x, int64_t n, const emu_convert_kernels *cv)
{
    if (dtype != ACL_FLOAT16 && dtype != ACL_BF16) {
        return;
    }
    uint16_t tmp[256];
    for (int64_t i = 0; i < n; i += 256) {
        const size_t m = (size_t)(n - i < 256 ? n - i : 256);
        (dtype == ACL_FLOAT16 ? cv->f32_to_f16 : cv->f32_to_bf16)(m, x + i, tmp);
        (dtype == ACL_FLOAT16 ? cv->f16_to_f32 : cv->bf16_to_f32)(m, tmp, x + i);
    }
}

/* ---- fixed-order reductions ---- */

/* The lane loops run in the row kernels (kernels/norm), chosen here for the
 * active ISA level: every level adds element i to lane i % EMU_LANES in row
 * order, so the bits do not depend on the level. */
static_assert((int)EMU_LANES == (int)EMU_NORM_LANES, "ops/norm.h and kernels/norm agree on the lanes");

const emu_norm_kernels *emu_norm_kernels_active(void)
{
    return emu_norm_select(emu_isa_active());
}

void emu_lanes_add(emu_lanes *lanes, const float *x, int64_t n)
{
    emu_norm_kernels_active()->lanes_add(lanes->acc, x, (size_t)n);
}

void emu_lanes_add_sq(emu_lanes *lanes, const float *x, int64_t n)
{
    emu_norm_kernels_active()->lanes_add_sq(lanes->acc, x, (size_t)n);
}

void emu_lanes_add_dev_sq(emu_lanes *lanes, const float *x, int64_t n, float mean)
{
    emu_norm_kernels_active()->lanes_add_dev_sq(lanes->acc, x, (size_t)n, mean);
}

float emu_lanes_total(const emu_lanes *lanes)
{
    float acc[EMU_LANES];
    memcpy(acc, lanes->acc, sizeof acc);
    for (int width = EMU_LANES / 2; width >= 1; width /= 2) {
        for (int j = 0; j < width; ++j) {
            acc[j] += acc[j + width];
        }
    }
    return acc[0];
}

float emu_norm_sum(const float *x, int64_t n)
{
    emu_lanes lanes = {{0}};
    emu_lanes_add(&lanes, x, n);
    return emu_lanes_total(&lanes);
}

float emu_norm_sum_sq(const float *x, int64_t n)
{
    emu_lanes lanes = {{0}};
    emu_lanes_add_sq(&lanes, x, n);
    return emu_lanes_total(&lanes);
}

float emu_lanes_max_total(const emu_lanes *lanes)
{
    float m = lanes->acc[0];
    for (int j = 1; j < EMU_LANES; ++j) {
        m = lanes->acc[j] > m ? lanes->acc[j] : m;
    }
    return m;
}

float emu_norm_max_with(const emu_norm_kernels *k, const float *x, int64_t n)
{
    emu_lanes lanes;
    for (int j = 0; j < EMU_LANES; ++j) {
        lanes.acc[j] = -INFINITY;
    }
    k->lanes_max(lanes.acc, x, (size_t)n);
    return emu_lanes_max_total(&lanes);
}

float emu_norm_max(const float *x, int64_t n)
{
    return emu_norm_max_with(emu_norm_kernels_active(), x, n);
}

/* ---- the parallel row loop ---- */

enum { CHUNKS_MAX = 64, CHUNK_MIN_WORK = 8192, SCRATCH_ALIGN = 64 };

uint64_t emu_rows_plan_init(emu_rows_plan *plan, int64_t rows, int64_t work, uint64_t prefix_bytes,
                            uint64_t scratch_bytes)
{
    memset(plan, 0, sizeof *plan);
    plan->rows = rows;
    if (rows <= 0) {
        return 0;
    }
    int64_t grain = (rows + CHUNKS_MAX - 1) / CHUNKS_MAX;
    const int64_t by_work = work > 0 ? (CHUNK_MIN_WORK + work - 1) / work : rows;
    grain = grain > by_work ? grain : by_work;
    plan->grain = grain < rows ? grain : rows;
    plan->prefix_bytes = (prefix_bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
    plan->scratch_bytes = (scratch_bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
    const uint64_t chunks = (uint64_t)((rows + plan->grain - 1) / plan->grain);
    return plan->prefix_bytes + chunks * plan->scratch_bytes;
}

typedef struct {
    const emu_rows_plan *plan;
    char *scratch;
    emu_rows_fn fn;
    const void *ctx;
} rows_job;

static void rows_range(void *opaque, size_t begin, size_t end)
{
    const rows_job *job = opaque;
    void *scratch = job->scratch == NULL ? NULL
                  : job->scratch + (begin / (size_t)job->plan->grain) * job->plan->scratch_bytes;
    for (size_t row = begin; row < end; ++row) {
        job->fn(job->ctx, (int64_t)row, scratch);
    }
}

void emu_rows_run(const emu_rows_plan *plan, void *workspace, emu_rows_fn fn, const void *ctx)
{
    if (plan->rows <= 0) {
        return;
    }
    rows_job job = {plan, workspace == NULL ? NULL : (char *)workspace + plan->prefix_bytes, fn, ctx};
    emu_parallel_for((size_t)plan->rows, (size_t)plan->grain, rows_range, &job);
}

bool emu_norm_is_training(void)
{
    return emu_soc_get() == EMU_SOC_ASCEND910;
}

aclnnStatus emu_norm_shape_error(aclnnStatus code, const char *api, const char *name, const emu_view *have,
                                 const char *expected)
{
    char buf[256];
    return emu_fail(code, "%s: %s has shape %s; expected %s.", api, name, emu_shape_string(have, buf, sizeof buf),
                    expected);
}

aclnnStatus emu_norm_check_memory(const char *api, const char *const *names, const aclTensor *const *tensors,
                                  int first_output, int count, const int (*allowed)[3], bool *aliased)
{
    *aliased = false;
    for (int i = 0; i < count; ++i) {
        if (tensors[i] != NULL) {
            EMU_TRY(emu_check_has_data(api, names[i], tensors[i]));
            EMU_TRY(emu_check_device_memory(api, names[i], tensors[i]));
        }
    }
    for (int out = first_output; out < count; ++out) {
        if (tensors[out] == NULL || emu_view_is_empty(&tensors[out]->view)) {
            continue;
        }
        EMU_TRY(emu_check_output_not_self_overlapping(api, names[out], tensors[out]));
        for (int other = 0; other < count; ++other) {
            if (other == out || tensors[other] == NULL ||
                !emu_views_share_bytes(&tensors[out]->view, &tensors[other]->view)) {
                continue;
            }
            int kind = 0;
            for (int k = 0; allowed != NULL && allowed[k][0] >= 0; ++k) {
                if ((allowed[k][0] == out && allowed[k][1] == other) ||
                    (allowed[k][0] == other && allowed[k][1] == out)) {
                    kind = allowed[k][2];
                }
            }
            if (kind == EMU_ALIAS_ANY ||
                (kind == EMU_ALIAS_EXACT && emu_views_identical(&tensors[out]->view, &tensors[other]->view))) {
                *aliased = true;
                continue;
            }
            if (other > out && other >= first_output) {
                continue; /* reported from the other output's side, in order */
            }
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shares memory with %s (their bytes from first to last "
                                                     "element overlap); expected %s.", api, names[out], names[other],
                            kind == EMU_ALIAS_EXACT ? "exactly the same view (in place) or memory of its own"
                                                    : "an output in memory of its own");
        }
    }
    return ACLNN_SUCCESS;
}
