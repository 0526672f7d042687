/* What the reduction operators share: the outer/inner split of self,
 * loading elements through CANN's Cast into the compute type, storing
 * results, the fixed-order sums, and the checks of dims and out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/convert/convert.h"
#include "ops/reduce.h"

emu_red_compute emu_red_compute_for(aclDataType via)
{
    switch (via) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_BF16:
        return EMU_RED_F32;
    case ACL_DOUBLE:
        return EMU_RED_F64;
    default:
        return EMU_RED_I64;
    }
}

size_t emu_red_compute_size(emu_red_compute compute)
{
    return compute == EMU_RED_F32 ? sizeof(float) : 8;
}

/* ---- geometry ---- */

void emu_red_split(const emu_view *self, uint64_t inner_mask, const emu_view *out, bool keepdim,
                   bool out_same_shape, emu_red_geom *geom)
{
    memset(geom, 0, sizeof *geom);
    emu_red_geom *g = geom;
    int32_t packed = 0;
    for (int32_t d = 0; d < self->rank; ++d) {
        const bool inner = ((inner_mask >> d) & 1u) != 0;
        const int32_t od = out_same_shape || keepdim ? d : packed;
        if (!inner) {
            ++packed;
        }
        if (self->shape[d] == 1) {
            continue;
        }
        if (inner) {
            g->inner_shape[g->inner_rank] = self->shape[d];
            g->inner_in[g->inner_rank] = self->strides[d];
            g->inner_out[g->inner_rank] = out_same_shape ? out->strides[d] : 0;
            ++g->inner_rank;
        } else {
            g->outer_shape[g->outer_rank] = self->shape[d];
            g->outer_in[g->outer_rank] = self->strides[d];
            g->outer_out[g->outer_rank] = out->rank > 0 ? out->strides[od] : 0;
            ++g->outer_rank;
        }
    }
    /* Inner dimensions that step densely through each other become one. */
    int32_t merged = 0;
    for (int32_t d = 0; d < g->inner_rank; ++d) {
        if (merged > 0 && g->inner_in[merged - 1] == g->inner_in[d] * g->inner_shape[d] &&
            g->inner_out[merged - 1] == g->inner_out[d] * g->inner_shape[d]) {
            g->inner_shape[merged - 1] *= g->inner_shape[d];
            g->inner_in[merged - 1] = g->inner_in[d];
            g->inner_out[merged - 1] = g->inner_out[d];
            continue;
        }
        g->inner_shape[merged] = g->inner_shape[d];
        g->inner_in[merged] = g->inner_in[d];
        g->inner_out[merged] = g->inner_out[d];
        ++merged;
    }
    g->inner_rank = merged;
    g->outer_count = 1;
    for (int32_t d = 0; d < g->outer_rank; ++d) {
        g->outer_count *= g->outer_shape[d];
    }
    g->inner_count = 1;
    for (int32_t d = 0; d < g->inner_rank; ++d) {
        g->inner_count *= g->inner_shape[d];
    }
}

void emu_red_outer_offsets(const emu_red_geom *geom, int64_t index, int64_t *in_offset, int64_t *out_offset)
{
    int64_t in = 0, out = 0;
    for (int32_t d = geom->outer_rank - 1; d >= 0; --d) {
        const int64_t i = index % geom->outer_shape[d];
        index /= geom->outer_shape[d];
        in += i * geom->outer_in[d];
        out += i * geom->outer_out[d];
    }
    *in_offset = in;
    *out_offset = out;
}

/* ---- element conversion ---- */

static double read_f64(const char *p, aclDataType dtype)
{
    switch (dtype) {
    case ACL_FLOAT: return *(const float *)p;
    case ACL_FLOAT16: return emu_f16_to_f32(*(const uint16_t *)p);
    case ACL_BF16: return emu_bf16_to_f32(*(const uint16_t *)p);
    case ACL_DOUBLE: return *(const double *)p;
    case ACL_INT8: return *(const int8_t *)p;
    case ACL_UINT8: return *(const uint8_t *)p;
    case ACL_INT16: return *(const int16_t *)p;
    case ACL_UINT16: return *(const uint16_t *)p;
    case ACL_INT32: return *(const int32_t *)p;
    case ACL_UINT32: return *(const uint32_t *)p;
    case ACL_INT64: return (double)*(const int64_t *)p;
    case ACL_UINT64: return (double)*(const uint64_t *)p;
    case ACL_BOOL: return *(const uint8_t *)p != 0;
    default: return 0.0;
    }
}

/* Integer and bool elements, exactly (UINT64 keeps its bits). */
static int64_t read_i64(const char *p, aclDataType dtype)
{
    switch (dtype) {
    case ACL_INT8: return *(const int8_t *)p;
    case ACL_UINT8: return *(const uint8_t *)p;
    case ACL_INT16: return *(const int16_t *)p;
    case ACL_UINT16: return *(const uint16_t *)p;
    case ACL_INT32: return *(const int32_t *)p;
    case ACL_UINT32: return *(const uint32_t *)p;
    case ACL_INT64: return *(const int64_t *)p;
    case ACL_UINT64: return (int64_t)*(const uint64_t *)p;
    case ACL_BOOL: return *(const uint8_t *)p != 0;
    default: return 0;
    }
}

int64_t emu_red_wrap(int64_t value, aclDataType dtype)
{
    switch (dtype) {
    case ACL_INT8: return (int8_t)value;
    case ACL_UINT8: return (uint8_t)value;
    case ACL_INT16: return (int16_t)value;
    case ACL_UINT16: return (uint16_t)value;
    case ACL_INT32: return (int32_t)value;
    case ACL_UINT32: return (uint32_t)value;
    case ACL_BOOL: return value != 0;
    default: return value;
    }
}

/* Floating to integer as Cast: truncation toward zero, saturating, NaN 0. */
static int64_t float_to_int(double value, aclDataType dtype)
{
    const double r = emu_round_to_dtype(value, dtype);
    if (r >= 9223372036854775807.0) {
        return INT64_MAX;
    }
    if (r < -9223372036854775807.0) {
        return INT64_MIN;
    }
    return (int64_t)r;
}

static void write_int(char *p, aclDataType dtype, int64_t v)
{
    switch (dtype) {
    case ACL_INT8: *(int8_t *)p = (int8_t)v; break;
    case ACL_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case ACL_INT16: *(int16_t *)p = (int16_t)v; break;
    case ACL_UINT16: *(uint16_t *)p = (uint16_t)v; break;
    case ACL_INT32: *(int32_t *)p = (int32_t)v; break;
    case ACL_UINT32: *(uint32_t *)p = (uint32_t)v; break;
    case ACL_INT64: *(int64_t *)p = v; break;
    case ACL_UINT64: *(uint64_t *)p = (uint64_t)v; break;
    case ACL_BOOL: *(uint8_t *)p = v != 0; break;
    default: break;
    }
}

static void write_f64(char *p, aclDataType dtype, double v)
{
    switch (dtype) {
    case ACL_FLOAT: *(float *)p = (float)v; break;
    case ACL_FLOAT16: *(uint16_t *)p = emu_f32_to_f16((float)v); break;
    case ACL_BF16: *(uint16_t *)p = emu_f32_to_bf16((float)v); break;
    case ACL_DOUBLE: *(double *)p = v; break;
    case ACL_BOOL: *(uint8_t *)p = v != 0; break;
    default: write_int(p, dtype, float_to_int(v, dtype)); break;
    }
}

void emu_red_load_run(const char *src, aclDataType dtype, int64_t stride, int64_t n, aclDataType via,
                      emu_red_compute compute, void *dst)
{
    const int64_t step = stride * (int64_t)emu_dtype_size(dtype);
    if (compute == EMU_RED_F32) {
        float *o = dst;
        if (dtype == ACL_FLOAT && via == ACL_FLOAT) {
            for (int64_t i = 0; i < n; ++i) {
                o[i] = *(const float *)(src + i * step);
            }
        } else if ((dtype == ACL_FLOAT16 || dtype == ACL_BF16) && (via == ACL_FLOAT || via == dtype)) {
            if (stride == 1) {
                const emu_convert_kernels *k = emu_convert_select(emu_isa_active());
                (dtype == ACL_FLOAT16 ? k->f16_to_f32 : k->bf16_to_f32)((size_t)n, (const uint16_t *)src, o);
            } else {
                for (int64_t i = 0; i < n; ++i) {
                    const uint16_t h = *(const uint16_t *)(src + i * step);
                    o[i] = dtype == ACL_FLOAT16 ? emu_f16_to_f32(h) : emu_bf16_to_f32(h);
                }
            }
        } else {
            for (int64_t i = 0; i < n; ++i) {
                o[i] = (float)emu_round_to_dtype(read_f64(src + i * step, dtype), via);
            }
        }
    } else if (compute == EMU_RED_F64) {
        double *o = dst;
        for (int64_t i = 0; i < n; ++i) {
            o[i] = read_f64(src + i * step, dtype);
        }
    } else {
        int64_t *o = dst;
        if (emu_dtype_is_integral(dtype)) {
            for (int64_t i = 0; i < n; ++i) {
                o[i] = emu_red_wrap(read_i64(src + i * step, dtype), via);
            }
        } else if (via == ACL_BOOL) {
            for (int64_t i = 0; i < n; ++i) {
                o[i] = read_f64(src + i * step, dtype) != 0.0; /* NaN counts as true */
            }
        } else {
            for (int64_t i = 0; i < n; ++i) {
                o[i] = float_to_int(read_f64(src + i * step, dtype), via);
            }
        }
    }
}

static bool direct(aclDataType dtype, aclDataType via, emu_red_compute compute)
{
    return dtype == via && ((compute == EMU_RED_F32 && dtype == ACL_FLOAT) ||
                            (compute == EMU_RED_F64 && dtype == ACL_DOUBLE) ||
                            (compute == EMU_RED_I64 && dtype == ACL_INT64));
}

const void *emu_red_load(const emu_red_geom *geom, const char *base, aclDataType dtype, aclDataType via,
                         emu_red_compute compute, int64_t start, int64_t n, void *dst, bool may_alias)
{
    const int64_t item = (int64_t)emu_dtype_size(dtype);
    if (geom->inner_rank <= 1) {
        const int64_t stride = geom->inner_rank == 1 ? geom->inner_in[0] : 1;
        const char *src = base + start * stride * item;
        if (may_alias && (stride == 1 || n == 1) && direct(dtype, via, compute)) {
            return src;
        }
        emu_red_load_run(src, dtype, stride, n, via, compute, dst);
        return dst;
    }
    const int32_t last = geom->inner_rank - 1;
    int64_t idx[EMU_RED_MAX_RANK];
    for (int32_t d = last; d >= 0; --d) {
        idx[d] = start % geom->inner_shape[d];
        start /= geom->inner_shape[d];
    }
    const size_t csize = emu_red_compute_size(compute);
    char *o = dst;
    while (n > 0) {
        const int64_t run = n < geom->inner_shape[last] - idx[last] ? n : geom->inner_shape[last] - idx[last];
        int64_t offset = 0;
        for (int32_t d = 0; d <= last; ++d) {
            offset += idx[d] * geom->inner_in[d];
        }
        emu_red_load_run(base + offset * item, dtype, geom->inner_in[last], run, via, compute, o);
        o += run * (int64_t)csize;
        n -= run;
        idx[last] += run;
        for (int32_t d = last; d > 0 && idx[d] == geom->inner_shape[d]; --d) {
            idx[d] = 0;
            ++idx[d - 1];
        }
    }
    return dst;
}

void emu_red_store_run(emu_red_compute compute, const void *values, int64_t n, aclDataType dtype, char *dst,
                       int64_t stride)
{
    const int64_t step = stride * (int64_t)emu_dtype_size(dtype);
    if (compute == EMU_RED_F32) {
        const float *v = values;
        if (dtype == ACL_FLOAT) {
            for (int64_t i = 0; i < n; ++i) {
                *(float *)(dst + i * step) = v[i];
            }
        } else if (dtype == ACL_FLOAT16 || dtype == ACL_BF16) {
            for (int64_t i = 0; i < n; ++i) {
                *(uint16_t *)(dst + i * step) = dtype == ACL_FLOAT16 ? emu_f32_to_f16(v[i]) : emu_f32_to_bf16(v[i]);
            }
        } else {
            for (int64_t i = 0; i < n; ++i) {
                write_f64(dst + i * step, dtype, v[i]);
            }
        }
    } else if (compute == EMU_RED_F64) {
        const double *v = values;
        for (int64_t i = 0; i < n; ++i) {
            write_f64(dst + i * step, dtype, v[i]);
        }
    } else {
        const int64_t *v = values;
        const bool integral = emu_dtype_is_integral(dtype);
        for (int64_t i = 0; i < n; ++i) {
            if (integral) {
                write_int(dst + i * step, dtype, v[i]);
            } else {
                write_f64(dst + i * step, dtype, (double)v[i]);
            }
        }
    }
}

/* ---- fixed-order sums ----
 * Element i goes to lane i % L; the lanes are then added pairwise by
 * halving (lane k += lane k + L/2, ...). The fp32 lanes are filled by the
 * per-ISA kernels of kernels/reduce (the same additions in the same order
 * at every level); the rest are plain loops over the lane array, which
 * the compiler vectorizes without changing the order. */

_Static_assert((int)EMU_RED_LANES_F32 == (int)EMU_REDUCE_LANES, "the kernels fill the lanes of the fixed order");

bool emu_red_widens_exactly(aclDataType dtype, aclDataType via)
{
    return (dtype == ACL_FLOAT && via == ACL_FLOAT) ||
           ((dtype == ACL_FLOAT16 || dtype == ACL_BF16) && (via == ACL_FLOAT || via == dtype));
}

void emu_red_add_dense(const emu_reduce_kernels *k, float *acc, const void *x, aclDataType dtype, int64_t n)
{
    switch (dtype) {
    case ACL_FLOAT16: k->add_f16(acc, x, (size_t)n); break;
    case ACL_BF16: k->add_bf16(acc, x, (size_t)n); break;
    default: k->add_f32(acc, x, (size_t)n); break;
    }
}

float emu_red_sum_dense(const emu_reduce_kernels *k, const void *x, aclDataType dtype, int64_t n)
{
    enum { L = EMU_RED_LANES_F32 };
    float acc[L] = {0};
    switch (dtype) {
    case ACL_FLOAT16: k->lanes_add_f16(acc, x, (size_t)n); break;
    case ACL_BF16: k->lanes_add_bf16(acc, x, (size_t)n); break;
    default: k->lanes_add_f32(acc, x, (size_t)n); break;
    }
    for (int w = L / 2; w > 0; w /= 2) {
        for (int j = 0; j < w; ++j) {
            acc[j] += acc[j + w];
        }
    }
    return acc[0];
}

float emu_red_sum_f32(const float *x, int64_t n)
{
    return emu_red_sum_dense(emu_reduce_select(emu_isa_active()), x, ACL_FLOAT, n);
}

double emu_red_sum_f64(const double *x, int64_t n)
{
    enum { L = EMU_RED_LANES_F64 };
    double acc[L] = {0};
    int64_t i = 0;
    for (; i + L <= n; i += L) {
        for (int k = 0; k < L; ++k) {
            acc[k] += x[i + k];
        }
    }
    for (int k = 0; i + k < n; ++k) {
        acc[k] += x[i + k];
    }
    for (int w = L / 2; w > 0; w /= 2) {
        for (int k = 0; k < w; ++k) {
            acc[k] += acc[k + w];
        }
    }
    return acc[0];
}

int64_t emu_red_sum_i64(const int64_t *x, int64_t n)
{
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; ++i) {
        acc += (uint64_t)x[i];
    }
    return (int64_t)acc;
}

/* ---- checks ---- */

static int64_t rank_as_1d(const aclTensor *self)
{
    return self->view.rank > 0 ? self->view.rank : 1;
}

aclnnStatus emu_red_dim(const char *api, const char *dim_name, const aclTensor *self, int64_t dim, int32_t *out)
{
    const int64_t rank = rank_as_1d(self);
    if (dim < -rank || dim >= rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s is %lld; expected a dimension of self in [%lld, %lld].", api,
                        dim_name, (long long)dim, (long long)-rank, (long long)(rank - 1));
    }
    *out = self->view.rank == 0 ? 0 : (int32_t)(dim < 0 ? dim + rank : dim);
    return ACLNN_SUCCESS;
}

aclnnStatus emu_red_dims_mask(const char *api, const char *dims_name, const aclTensor *self, const aclIntArray *dims,
                              uint64_t *mask)
{
    const int64_t rank = rank_as_1d(self);
    uint64_t count = 0;
    const int64_t *values = emu_int_array_values(dims, &count);
    uint64_t seen = 0;
    for (uint64_t i = 0; i < count; ++i) {
        const int64_t dim = values[i];
        if (dim < -rank || dim >= rank) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s[%llu] is %lld; expected a dimension of self in "
                                                     "[%lld, %lld].", api, dims_name, (unsigned long long)i,
                            (long long)dim, (long long)-rank, (long long)(rank - 1));
        }
        const int64_t d = dim < 0 ? dim + rank : dim;
        if ((seen >> d) & 1u) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s names dimension %lld twice; expected each dimension at "
                                                     "most once.", api, dims_name, (long long)d);
        }
        seen |= (uint64_t)1 << d;
    }
    const uint64_t all = self->view.rank >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << self->view.rank) - 1;
    *mask = count == 0 ? all : seen & all;
    return ACLNN_SUCCESS;
}

aclnnStatus emu_red_check_out_shape(const char *api, const aclTensor *self, uint64_t mask, bool keepdim,
                                    const aclTensor *out)
{
    char have[256], want[256];
    if (self->view.rank == 0) {
        if (emu_view_numel(&out->view) != 1) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected one element, the result of "
                                                     "reducing a 0-d self.", api,
                            emu_shape_string(&out->view, have, sizeof have));
        }
        return ACLNN_SUCCESS;
    }
    emu_view expected = out->view;
    expected.rank = 0;
    for (int32_t d = 0; d < self->view.rank; ++d) {
        if (((mask >> d) & 1u) == 0) {
            expected.shape[expected.rank++] = self->view.shape[d];
        } else if (keepdim) {
            expected.shape[expected.rank++] = 1;
        }
    }
    /* CANN's CheckShapeAndScalarSame: a one-element result may have any
     * one-element shape ([] or [1], as ggml's CROSS_ENTROPY_LOSS passes). */
    const bool both_single = emu_view_numel(&out->view) == 1 && emu_view_numel(&expected) == 1;
    if (!both_single && !emu_view_same_shape(&out->view, &expected)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected %s, self's shape with the reduced "
                                                 "dimensions %s.", api, emu_shape_string(&out->view, have, sizeof have),
                        emu_shape_string(&expected, want, sizeof want), keepdim ? "kept as 1" : "removed");
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_red_check_memory(const char *api, const char *self_name, const aclTensor *self,
                                 const char *out_name, const aclTensor *out)
{
    EMU_TRY(emu_check_has_data(api, self_name, self));
    EMU_TRY(emu_check_has_data(api, out_name, out));
    EMU_TRY(emu_check_device_memory(api, self_name, self));
    EMU_TRY(emu_check_device_memory(api, out_name, out));
    const char *const names[] = {self_name, out_name};
    const aclTensor *const tensors[] = {self, out};
    EMU_TRY(emu_check_outputs_separate(api, names, tensors, 1, 2));
    return emu_check_output_not_self_overlapping(api, out_name, out);
}

static const emu_dtype_table ANY_TABLE = {EMU_ANY, EMU_ANY, EMU_ANY};
static const emu_ew_def FILL = {.api = "aclnnReduce", .kernel = EMU_EWK_fill, .input_count = 0, .names = {"out"},
                                .in_dtypes = &ANY_TABLE, .out_dtypes = &ANY_TABLE, .result = EMU_EW_RESULT_OUT,
                                .out_rule = EMU_EW_OUT_ANY};

aclnnStatus emu_red_fill_plan(const char *api, const aclTensor *out, double value, emu_ew_plan *plan)
{
    const emu_ew_call call = {.out = out, .scalar_dtype = ACL_DT_UNDEFINED, .result_dtype = ACL_DT_UNDEFINED,
                              .params = {emu_round_to_dtype(value, out->view.dtype)}, .params_int = {0},
                              .has_params_int = true};
    static const int SLOTS[] = {1};
    return emu_ew_prepare(api, &FILL, &call, SLOTS, plan);
}

aclnnStatus emu_red_publish(const char *api, const char *phase2, const char *const *names, const aclTensor *self,
                            const aclTensor *out, const void *plan, size_t plan_size, unsigned unused_mask,
                            emu_run_fn run, uint64_t workspace, uint64_t *workspace_size, aclOpExecutor **executor)
{
    aclOpExecutor *planned = emu_executor_create(api, phase2, 1, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, names);
    emu_executor_bind(planned, 0, self);
    emu_executor_bind(planned, 1, out);
    for (int i = 0; i < 2; ++i) {
        if ((unused_mask >> i) & 1u) {
            emu_executor_mark_unused(planned, i);
        }
    }
    memcpy(planned->plan, plan, plan_size);
    return emu_executor_publish(planned, run, workspace, workspace_size, executor);
}
