#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "ops/ew.h"

enum {
    /* Elements per block of a row: the compute buffers of every operand stay in L1. */
    EW_BLOCK = 1024,
    /* Elements per parallel chunk: large enough to amortise the hand-off. */
    EW_GRAIN_ELEMENTS = 32768,
    /* A cache line: an input that steps this much or more along the
     * output's rows uses one element of each line it reads there. */
    EW_LINE_BYTES = 64,
    /* Tiles of the walk over transposed inputs (run_tiles). Computed tiles:
     * EW_TILE_SIDE elements along the output's rows by EW_TILE_BYTES of the
     * widest transposed input, so that its transposed part stays in L1 while
     * the tile is computed. */
    EW_TILE_SIDE = 64,
    EW_TILE_BYTES = 16384,
    /* Copied tiles (transposed straight into the output): EW_RUN_BYTES of
     * each output row by a parallel chunk's worth of rows, at least
     * 2 * EW_RUN_BYTES of each input row. Long runs on both sides keep DRAM
     * pages open, and several of the copy's sub-tiles in a row let its
     * prefetches land in the cache of the thread that reads them. */
    EW_RUN_BYTES = 512,
    /* Half-type inputs read at least EW_REUSE_MIN times per element and
     * spanning at most EW_CONVERTED_ELEMENTS are converted to fp32 once per
     * launch (convert_reused_inputs). */
    EW_REUSE_MIN = 4,
    EW_CONVERTED_ELEMENTS = 4096,
};

typedef emu_ew_plan ew_plan;
static_assert(2 * sizeof(ew_plan) <= EMU_PLAN_BYTES, "two ew plans must fit in the executor");

/* ---------------------------------------------------------------- phase 1 */

static const char *input_list(const emu_ew_def *def, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < def->input_count && used < size; ++i) {
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " and " : "", def->names[i]);
    }
    return buf;
}

/* The dtype the inputs (and a scalar) promote to; ACL_DT_UNDEFINED when none. */
static aclDataType promoted_dtype(const emu_ew_def *def, const emu_ew_call *call)
{
    if (call->result_dtype != ACL_DT_UNDEFINED) {
        return call->result_dtype;
    }
    if (def->input_count == 0) {
        return call->out->view.dtype;
    }
    aclDataType dtype = call->inputs[0]->view.dtype;
    for (int i = 1; i < def->input_count && dtype != ACL_DT_UNDEFINED; ++i) {
        dtype = emu_promote_types(dtype, call->inputs[i]->view.dtype);
    }
    if (dtype != ACL_DT_UNDEFINED && call->scalar_dtype != ACL_DT_UNDEFINED) {
        dtype = emu_promote_with_scalar(dtype, call->scalar_dtype);
    }
    return dtype;
}

static aclnnStatus check_dtypes(const char *api, const emu_ew_def *def, const emu_ew_call *call,
                                aclDataType *compute_dtype)
{
    const int out_slot = def->input_count;
    for (int i = 0; i < def->input_count; ++i) {
        EMU_TRY(emu_check_dtype_table(api, def->names[i], call->inputs[i]->view.dtype, def->in_dtypes));
    }
    EMU_TRY(emu_check_dtype_table(api, def->names[out_slot], call->out->view.dtype, def->out_dtypes));
    aclDataType promoted = promoted_dtype(def, call);
    if (promoted == ACL_DT_UNDEFINED) {
        char names[128];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s have dtypes with no common type to compute in.", api,
                        input_list(def, names, sizeof names));
    }
    const aclDataType out_dtype = call->out->view.dtype;
    aclDataType result = promoted;
    switch (def->result) {
    case EMU_EW_RESULT_FLOATING:
        result = emu_dtype_is_float(promoted) ? promoted : ACL_FLOAT;
        promoted = result;
        break;
    case EMU_EW_RESULT_BOOL:
        result = ACL_BOOL;
        break;
    case EMU_EW_RESULT_OUT:
        result = out_dtype;
        promoted = emu_promote_types(promoted, out_dtype);
        promoted = promoted == ACL_DT_UNDEFINED ? out_dtype : promoted;
        break;
    case EMU_EW_RESULT_PROMOTE:
        break;
    }
    if (def->out_rule == EMU_EW_OUT_SAME && out_dtype != result) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s; expected %s, the dtype of the result.", api,
                        def->names[out_slot], emu_dtype_name(out_dtype), emu_dtype_name(result));
    }
    if (def->out_rule == EMU_EW_OUT_CASTABLE_FROM_SELF && !emu_can_cast(call->inputs[0]->view.dtype, out_dtype)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s, to which %s (%s) cannot be cast; expected a "
                                                 "dtype %s casts to.", api, def->names[out_slot],
                        emu_dtype_name(out_dtype), def->names[0], emu_dtype_name(call->inputs[0]->view.dtype),
                        def->names[0]);
    }
    if (def->out_rule == EMU_EW_OUT_CASTABLE && !emu_can_cast(result, out_dtype)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s, to which the result dtype %s cannot be cast; "
                                                 "expected a dtype the result casts to.", api,
                        def->names[out_slot], emu_dtype_name(out_dtype), emu_dtype_name(result));
    }
    *compute_dtype = promoted;
    return ACLNN_SUCCESS;
}

static aclnnStatus check_shapes(const char *api, const emu_ew_def *def, const emu_ew_call *call)
{
    const int out_slot = def->input_count;
    const emu_view *out = &call->out->view;
    for (int i = 0; i <= def->input_count; ++i) {
        const aclTensor *tensor = i < out_slot ? call->inputs[i] : call->out;
        EMU_TRY(emu_check_max_rank(api, def->names[i], tensor, EMU_EW_MAX_RANK));
    }
    char have[256], want[256];
    if (def->input_count == 0) {
        return ACLNN_SUCCESS;
    }
    if (!def->broadcast) {
        for (int i = 0; i < def->input_count; ++i) {
            if (!emu_view_same_shape(&call->inputs[i]->view, out)) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s; expected %s, the shape of %s.", api,
                                def->names[out_slot], emu_shape_string(out, have, sizeof have),
                                emu_shape_string(&call->inputs[i]->view, want, sizeof want), def->names[i]);
            }
        }
        return ACLNN_SUCCESS;
    }
    emu_view broadcast = def->broadcast_into_out ? *out : call->inputs[0]->view;
    for (int i = def->broadcast_into_out ? 0 : 1; i < def->input_count; ++i) {
        emu_view next = broadcast;
        if (!emu_broadcast_shape(&broadcast, &call->inputs[i]->view, next.shape, &next.rank)) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s, which does not broadcast with %s; "
                                                     "expected shapes that broadcast together.", api,
                            def->names[i], emu_shape_string(&call->inputs[i]->view, have, sizeof have),
                            emu_shape_string(&broadcast, want, sizeof want));
        }
        broadcast = next;
    }
    if (!emu_view_same_shape(out, &broadcast)) {
        char names[128];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s; expected %s, the broadcast shape of %s.", api,
                        def->names[out_slot], emu_shape_string(out, have, sizeof have),
                        emu_shape_string(&broadcast, want, sizeof want), input_list(def, names, sizeof names));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_memory(const char *api, const emu_ew_def *def, const emu_ew_call *call)
{
    const int out_slot = def->input_count;
    for (int i = 0; i <= def->input_count; ++i) {
        const aclTensor *tensor = i < out_slot ? call->inputs[i] : call->out;
        EMU_TRY(emu_check_has_data(api, def->names[i], tensor));
        EMU_TRY(emu_check_device_memory(api, def->names[i], tensor));
    }
    EMU_TRY(emu_check_output_not_self_overlapping(api, def->names[out_slot], call->out));
    for (int i = 0; i < def->input_count; ++i) {
        EMU_TRY(emu_check_exact_alias(api, def->names[out_slot], call->out, def->names[i], call->inputs[i]));
    }
    return ACLNN_SUCCESS;
}

static emu_ew_compute compute_for(const emu_ew_def *def, aclDataType compute_dtype, const emu_ew_call *call)
{
    if (def->kernel == EMU_EWK_identity) {
        bool same = true;
        for (int i = 0; i < def->input_count; ++i) {
            same = same && call->inputs[i]->view.dtype == call->out->view.dtype;
        }
        if (same) {
            return EMU_EW_COMPUTE_RAW;
        }
    }
    if (compute_dtype == ACL_DOUBLE) {
        return EMU_EW_COMPUTE_F64;
    }
    if (emu_dtype_is_float(compute_dtype)) {
        return EMU_EW_COMPUTE_F32;
    }
    /* Integers: exactly in int64 where the body has an integer form. */
    return emu_ew_select(EMU_ISA_SCALAR)->i64[def->kernel] != NULL ? EMU_EW_COMPUTE_I64 : EMU_EW_COMPUTE_F64;
}

/* Broadcasts every operand to the output's shape, drops size-1 dimensions
 * and merges dimensions that are dense together in every operand. */
static void plan_strides(ew_plan *plan, const emu_ew_call *call)
{
    const emu_view *out = &call->out->view;
    emu_view views[EMU_EW_MAX_INPUTS + 1];
    for (int i = 0; i < plan->input_count; ++i) {
        views[i] = call->inputs[i]->view;
        emu_view_broadcast_to(&views[i], out->shape, out->rank);
    }
    views[plan->input_count] = *out;
    const int operands = plan->input_count + 1;
    int32_t rank = 0;
    for (int32_t d = 0; d < out->rank; ++d) {
        if (out->shape[d] == 1) {
            continue;
        }
        bool merge = rank > 0;
        for (int k = 0; k < operands && merge; ++k) {
            merge = plan->strides[k][rank - 1] == views[k].strides[d] * out->shape[d];
        }
        if (merge) {
            plan->shape[rank - 1] *= out->shape[d];
            for (int k = 0; k < operands; ++k) {
                plan->strides[k][rank - 1] = views[k].strides[d];
            }
            continue;
        }
        plan->shape[rank] = out->shape[d];
        for (int k = 0; k < operands; ++k) {
            plan->strides[k][rank] = views[k].strides[d];
        }
        ++rank;
    }
    plan->rank = rank;
}

static void fill_params(ew_plan *plan, const emu_ew_call *call)
{
    for (int k = 0; k < EMU_EW_MAX_PARAMS; ++k) {
        const double value = call->params[k];
        plan->params.d[k] = value;
        plan->params.f[k] = (float)value;
        if (call->has_params_int) {
            plan->params.i[k] = call->params_int[k];
        } else if (value != value) {
            plan->params.i[k] = 0;
        } else if (value >= 9223372036854775807.0) {
            plan->params.i[k] = INT64_MAX;
        } else if (value <= -9223372036854775808.0) {
            plan->params.i[k] = INT64_MIN;
        } else {
            plan->params.i[k] = (int64_t)value;
        }
    }
}

aclnnStatus emu_ew_check(const char *api, const emu_ew_def *def, const emu_ew_call *call)
{
    if (def->validate != NULL) {
        EMU_TRY(def->validate(api, def, call));
    } else {
        aclDataType compute_dtype = ACL_FLOAT;
        EMU_TRY(check_dtypes(api, def, call, &compute_dtype));
        EMU_TRY(check_shapes(api, def, call));
    }
    return check_memory(api, def, call);
}

aclnnStatus emu_ew_prepare(const char *api, const emu_ew_def *def, const emu_ew_call *call, const int *slots,
                           emu_ew_plan *plan)
{
    aclDataType compute_dtype = ACL_FLOAT;
    EMU_TRY(check_dtypes(api, def, call, &compute_dtype));
    EMU_TRY(check_shapes(api, def, call));
    EMU_TRY(check_memory(api, def, call));
    assert(def->kernel != EMU_EW_OWN_KERNELS && def->validate == NULL);
    memset(plan, 0, sizeof *plan);
    plan->kernel = def->kernel;
    plan->input_count = def->input_count;
    plan->compute = compute_for(def, compute_dtype, call);
    for (int k = 0; k <= def->input_count; ++k) {
        plan->slot[k] = slots != NULL ? slots[k] : k;
    }
    fill_params(plan, call);
    if (emu_view_is_empty(&call->out->view)) {
        plan->rank = -1; /* nothing to do */
    } else {
        plan_strides(plan, call);
    }
    return ACLNN_SUCCESS;
}

static const char *run_ew(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    return emu_ew_execute((const emu_ew_plan *)executor->plan, executor->tensors);
}

aclnnStatus emu_ew_get_workspace_size(const emu_ew_def *def, const emu_ew_call *call, uint64_t *workspace_size,
                                      aclOpExecutor **executor)
{
    char api[128];
    snprintf(api, sizeof api, "%sGetWorkspaceSize", def->api);
    emu_ew_plan plan;
    EMU_TRY(emu_ew_prepare(api, def, call, NULL, &plan));
    const int slots = def->input_count + 1;
    aclOpExecutor *planned = emu_executor_create(api, def->api, def->input_count, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_allow_aliasing(planned); /* exact aliasing only: checked above and again in phase 2 */
    emu_executor_name_tensors(planned, def->names);
    for (int i = 0; i < def->input_count; ++i) {
        emu_executor_bind(planned, i, call->inputs[i]);
    }
    emu_executor_bind(planned, slots - 1, call->out);
    if (plan.rank < 0) {
        for (int i = 0; i < slots; ++i) {
            emu_executor_mark_unused(planned, i);
        }
    }
    memcpy(planned->plan, &plan, sizeof plan);
    return emu_executor_publish(planned, run_ew, 0, workspace_size, executor);
}

aclnnStatus emu_ew_phase1(const emu_ew_def *def, const emu_ew_call *call, uint64_t *workspace_size,
                          aclOpExecutor **executor)
{
    char api[128];
    snprintf(api, sizeof api, "%sGetWorkspaceSize", def->api);
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspace_size));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    return emu_ew_get_workspace_size(def, call, workspace_size, executor);
}

aclnnStatus emu_ew_unary(const emu_ew_def *def, const aclTensor *in, const aclTensor *out, uint64_t *workspace_size,
                         aclOpExecutor **executor)
{
    char api[128];
    snprintf(api, sizeof api, "%sGetWorkspaceSize", def->api);
    EMU_TRY(emu_check_not_null(api, def->names[0], in));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspace_size));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {in}, .out = out);
    return emu_ew_get_workspace_size(def, &call, workspace_size, executor);
}

/* ---------------------------------------------------------------- phase 2 */

typedef struct {
    const ew_plan *plan;
    const emu_ew_kernels *kernels;
    const emu_convert_kernels *convert;
    char *base[EMU_EW_MAX_INPUTS + 1];
    aclDataType dtype[EMU_EW_MAX_INPUTS + 1];
    size_t elem[EMU_EW_MAX_INPUTS + 1];
    int64_t row_length;
    int64_t blocks_per_row;
    /* The tiled walk (see choose_tiling): the dimension tiled together with
     * the innermost one, -1 for the walk by rows of blocks. */
    int32_t across;
    int64_t tile_across, tile_inner;   /* a tile's extent along each */
    int64_t tiles_across, tiles_inner; /* tiles along each */
    /* Per input: its transposed copy where the tiles transpose it, else NULL. */
    emu_ew_transpose_fn transpose[EMU_EW_MAX_INPUTS];
    /* Dense output blocks go out through the kernels' stream_copy (see
     * choose_streaming). */
    bool stream;
    /* Per input: fp32 values of a small half-type operand that every row
     * reads again (a broadcast bias), converted once per launch; else NULL. */
    const float *converted[EMU_EW_MAX_INPUTS];
} ew_ctx;

/* Floating values into integers as a C cast would be, without its
 * undefined cases: truncation toward zero, saturating, NaN to 0. The bounds
 * are powers of two, exact in double: [lo, hi_excl). */
static inline int64_t ew_saturate(double v, double lo, double hi_excl, int64_t lo_value, int64_t hi_value)
{
    if (v != v) {
        return 0;
    }
    if (v < lo) {
        return lo_value;
    }
    return v >= hi_excl ? hi_value : (int64_t)v;
}

static inline uint64_t ew_saturate_u64(double v)
{
    if (v != v || v < 0) {
        return 0;
    }
    return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
}

#define EW_SAT(v, bits, T) ew_saturate((double)(v), -(double)((uint64_t)1 << ((bits) - 1)), \
                                       (double)((uint64_t)1 << ((bits) - 1)), (int64_t)T##_MIN, (int64_t)T##_MAX)
#define EW_SAT_U(v, bits, T) ew_saturate((double)(v), 0.0, (double)((uint64_t)1 << (bits)), 0, (int64_t)T##_MAX)

#define EW_LOAD_LOOP(T_OUT, T_IN, expr)                                                                        \
    do {                                                                                                       \
        T_OUT *dst_ = (T_OUT *)buf;                                                                            \
        for (size_t j = 0; j < n; ++j) {                                                                       \
            const T_IN v = *(const T_IN *)(src + (int64_t)j * step);                                           \
            dst_[j] = (T_OUT)(expr);                                                                           \
        }                                                                                                      \
    } while (0)

/* Every storage dtype read as T_OUT (float, double or int64_t). */
#define EW_LOAD_ANY(T_OUT)                                                                                     \
    switch (dtype) {                                                                                           \
    case ACL_FLOAT: EW_LOAD_LOOP(T_OUT, float, v); break;                                                      \
    case ACL_FLOAT16: EW_LOAD_LOOP(T_OUT, uint16_t, emu_f16_to_f32(v)); break;                                 \
    case ACL_BF16: EW_LOAD_LOOP(T_OUT, uint16_t, emu_bf16_to_f32(v)); break;                                   \
    case ACL_DOUBLE: EW_LOAD_LOOP(T_OUT, double, v); break;                                                    \
    case ACL_INT8: EW_LOAD_LOOP(T_OUT, int8_t, v); break;                                                      \
    case ACL_UINT8: EW_LOAD_LOOP(T_OUT, uint8_t, v); break;                                                    \
    case ACL_INT16: EW_LOAD_LOOP(T_OUT, int16_t, v); break;                                                    \
    case ACL_UINT16: EW_LOAD_LOOP(T_OUT, uint16_t, v); break;                                                  \
    case ACL_INT32: EW_LOAD_LOOP(T_OUT, int32_t, v); break;                                                    \
    case ACL_UINT32: EW_LOAD_LOOP(T_OUT, uint32_t, v); break;                                                  \
    case ACL_INT64: EW_LOAD_LOOP(T_OUT, int64_t, v); break;                                                    \
    case ACL_UINT64: EW_LOAD_LOOP(T_OUT, uint64_t, v); break;                                                  \
    case ACL_BOOL: EW_LOAD_LOOP(T_OUT, uint8_t, v != 0); break;                                                \
    default: memset(buf, 0, n * sizeof(T_OUT)); break;                                                         \
    }

/* The block of operand k as an array of the compute type: the operand
 * itself where it already is one, else converted into buf. */
static const void *load(const ew_ctx *ctx, int k, const char *src, int64_t stride, size_t n, void *buf)
{
    const aclDataType dtype = ctx->dtype[k];
    const int64_t step = stride * (int64_t)ctx->elem[k];
    switch (ctx->plan->compute) {
    case EMU_EW_COMPUTE_F32:
        if (stride == 1 && dtype == ACL_FLOAT) {
            return src;
        }
        if (ctx->converted[k] != NULL) {
            /* The same element's fp32 value, at the same element offset. */
            const float *values = ctx->converted[k] + (src - ctx->base[k]) / (ptrdiff_t)ctx->elem[k];
            if (stride == 1) {
                return values;
            }
            float *dst = buf;
            for (size_t j = 0; j < n; ++j) {
                dst[j] = values[(int64_t)j * stride];
            }
            return buf;
        }
        if (stride == 1 && (dtype == ACL_FLOAT16 || dtype == ACL_BF16)) {
            (dtype == ACL_FLOAT16 ? ctx->convert->f16_to_f32 : ctx->convert->bf16_to_f32)(n, (const uint16_t *)src,
                                                                                          buf);
            return buf;
        }
        EW_LOAD_ANY(float);
        return buf;
    case EMU_EW_COMPUTE_F64:
        if (stride == 1 && dtype == ACL_DOUBLE) {
            return src;
        }
        EW_LOAD_ANY(double);
        return buf;
    case EMU_EW_COMPUTE_I64:
        if (stride == 1 && dtype == ACL_INT64) {
            return src;
        }
        EW_LOAD_ANY(int64_t);
        return buf;
    case EMU_EW_COMPUTE_RAW:
        break;
    }
    return src;
}

#define EW_STORE_LOOP(T_IN, T_OUT, expr)                                                                       \
    do {                                                                                                       \
        const T_IN *in_ = (const T_IN *)values;                                                                \
        for (size_t j = 0; j < n; ++j) {                                                                       \
            const T_IN v = in_[j];                                                                             \
            *(T_OUT *)(dst + (int64_t)j * step) = (T_OUT)(expr);                                               \
        }                                                                                                      \
    } while (0)

/* An array of T_IN written to every storage dtype: floats round to nearest
 * even, floating values saturate into integers, anything non-zero is true. */
#define EW_STORE_ANY(T_IN)                                                                                     \
    switch (dtype) {                                                                                           \
    case ACL_FLOAT: EW_STORE_LOOP(T_IN, float, v); break;                                                      \
    case ACL_FLOAT16: EW_STORE_LOOP(T_IN, uint16_t, emu_f32_to_f16((float)v)); break;                          \
    case ACL_BF16: EW_STORE_LOOP(T_IN, uint16_t, emu_f32_to_bf16((float)v)); break;                            \
    case ACL_DOUBLE: EW_STORE_LOOP(T_IN, double, v); break;                                                    \
    case ACL_INT8: EW_STORE_LOOP(T_IN, int8_t, EW_SAT(v, 8, INT8)); break;                                     \
    case ACL_UINT8: EW_STORE_LOOP(T_IN, uint8_t, EW_SAT_U(v, 8, UINT8)); break;                                \
    case ACL_INT16: EW_STORE_LOOP(T_IN, int16_t, EW_SAT(v, 16, INT16)); break;                                 \
    case ACL_UINT16: EW_STORE_LOOP(T_IN, uint16_t, EW_SAT_U(v, 16, UINT16)); break;                            \
    case ACL_INT32: EW_STORE_LOOP(T_IN, int32_t, EW_SAT(v, 32, INT32)); break;                                 \
    case ACL_UINT32: EW_STORE_LOOP(T_IN, uint32_t, EW_SAT_U(v, 32, UINT32)); break;                            \
    case ACL_INT64: EW_STORE_LOOP(T_IN, int64_t, EW_SAT(v, 64, INT64)); break;                                 \
    case ACL_UINT64: EW_STORE_LOOP(T_IN, uint64_t, ew_saturate_u64((double)v)); break;                         \
    case ACL_BOOL: EW_STORE_LOOP(T_IN, uint8_t, v != 0); break;                                                \
    default: break;                                                                                            \
    }

/* Integer results wrap into narrower integers, as CANN's integer kernels do. */
static void store_i64(aclDataType dtype, const void *values, char *dst, int64_t step, size_t n)
{
    switch (dtype) {
    case ACL_INT8: EW_STORE_LOOP(int64_t, int8_t, (uint64_t)v); break;
    case ACL_UINT8: EW_STORE_LOOP(int64_t, uint8_t, (uint64_t)v); break;
    case ACL_INT16: EW_STORE_LOOP(int64_t, int16_t, (uint64_t)v); break;
    case ACL_UINT16: EW_STORE_LOOP(int64_t, uint16_t, (uint64_t)v); break;
    case ACL_INT32: EW_STORE_LOOP(int64_t, int32_t, (uint64_t)v); break;
    case ACL_UINT32: EW_STORE_LOOP(int64_t, uint32_t, (uint64_t)v); break;
    case ACL_INT64: EW_STORE_LOOP(int64_t, int64_t, v); break;
    case ACL_UINT64: EW_STORE_LOOP(int64_t, uint64_t, (uint64_t)v); break;
    case ACL_BOOL: EW_STORE_LOOP(int64_t, uint8_t, v != 0); break;
    case ACL_FLOAT: EW_STORE_LOOP(int64_t, float, v); break;
    case ACL_DOUBLE: EW_STORE_LOOP(int64_t, double, v); break;
    case ACL_FLOAT16: EW_STORE_LOOP(int64_t, uint16_t, emu_f32_to_f16((float)v)); break;
    case ACL_BF16: EW_STORE_LOOP(int64_t, uint16_t, emu_f32_to_bf16((float)v)); break;
    default: break;
    }
}

static void store(const ew_ctx *ctx, const void *values, char *dst, int64_t stride, size_t n)
{
    const int k = ctx->plan->input_count;
    const aclDataType dtype = ctx->dtype[k];
    const int64_t step = stride * (int64_t)ctx->elem[k];
    switch (ctx->plan->compute) {
    case EMU_EW_COMPUTE_F32:
        if (stride == 1 && (dtype == ACL_FLOAT16 || dtype == ACL_BF16)) {
            (dtype == ACL_FLOAT16 ? ctx->convert->f32_to_f16 : ctx->convert->f32_to_bf16)(n, values,
                                                                                          (uint16_t *)dst);
            return;
        }
        EW_STORE_ANY(float);
        return;
    case EMU_EW_COMPUTE_F64:
        EW_STORE_ANY(double);
        return;
    case EMU_EW_COMPUTE_I64:
        store_i64(dtype, values, dst, step, n);
        return;
    case EMU_EW_COMPUTE_RAW:
        return;
    }
}

/* Whether the kernel may write the output block directly. */
static bool out_is_direct(const ew_ctx *ctx, int64_t stride)
{
    const aclDataType dtype = ctx->dtype[ctx->plan->input_count];
    switch (ctx->plan->compute) {
    case EMU_EW_COMPUTE_F32:
        return stride == 1 && dtype == ACL_FLOAT;
    case EMU_EW_COMPUTE_F64:
        return stride == 1 && dtype == ACL_DOUBLE;
    case EMU_EW_COMPUTE_I64:
        return stride == 1 && dtype == ACL_INT64;
    case EMU_EW_COMPUTE_RAW:
        return true;
    }
    return false;
}

/* A strided element copy: one typed load and store per element (a memcpy
 * of a run-time size would be a library call per element). */
#define EW_STRIDED_COPY(T)                                                                                     \
    do {                                                                                                       \
        const T *from_ = (const T *)src;                                                                       \
        T *to_ = (T *)dst;                                                                                     \
        for (size_t j = 0; j < n; ++j) {                                                                       \
            to_[(int64_t)j * dst_stride] = from_[(int64_t)j * src_stride];                                     \
        }                                                                                                      \
    } while (0)

static void raw_copy(const ew_ctx *ctx, const char *src, int64_t src_stride, char *dst, int64_t dst_stride, size_t n)
{
    const size_t elem = ctx->elem[0];
    if (src_stride == 1 && dst_stride == 1) {
        memmove(dst, src, n * elem);
        return;
    }
    switch (elem) {
    case 1: EW_STRIDED_COPY(uint8_t); return;
    case 2: EW_STRIDED_COPY(uint16_t); return;
    case 4: EW_STRIDED_COPY(uint32_t); return;
    case 8: EW_STRIDED_COPY(uint64_t); return;
    default: break;
    }
    for (size_t j = 0; j < n; ++j) {
        memcpy(dst + (int64_t)j * dst_stride * (int64_t)elem, src + (int64_t)j * src_stride * (int64_t)elem, elem);
    }
}

static void compute(const ew_ctx *ctx, size_t n, const void *const *in, void *out)
{
    const ew_plan *plan = ctx->plan;
    switch (plan->compute) {
    case EMU_EW_COMPUTE_F32:
        ctx->kernels->f32[plan->kernel](n, (const float *const *)in, out, &plan->params);
        break;
    case EMU_EW_COMPUTE_F64:
        ctx->kernels->f64[plan->kernel](n, (const double *const *)in, out, &plan->params);
        break;
    case EMU_EW_COMPUTE_I64:
        ctx->kernels->i64[plan->kernel](n, (const int64_t *const *)in, out, &plan->params);
        break;
    case EMU_EW_COMPUTE_RAW:
        break;
    }
}

/* A block of computed values into a dense run of the output through the
 * streaming copy, converted first into `packed` where the output's dtype is
 * not the compute type. */
static void stream_store(const ew_ctx *ctx, const void *values, char *dst, size_t count, void *packed)
{
    const int outs = ctx->plan->input_count;
    if (!out_is_direct(ctx, 1)) {
        store(ctx, values, packed, 1, count);
        values = packed;
    }
    ctx->kernels->stream_copy(count * ctx->elem[outs], values, dst);
}

/* One block: `count` elements of one row; operand k starts at ptr[k] and
 * steps stride[k] elements. */
static void run_block(const ew_ctx *ctx, char *const *ptr, const int64_t *stride, size_t count)
{
    const int outs = ctx->plan->input_count;
    const bool stream = ctx->stream && stride[outs] == 1;
    if (ctx->plan->compute == EMU_EW_COMPUTE_RAW) {
        if (stream && stride[0] == 1) {
            ctx->kernels->stream_copy(count * ctx->elem[0], ptr[0], ptr[outs]);
        } else {
            raw_copy(ctx, ptr[0], stride[0], ptr[outs], stride[outs], count);
        }
        return;
    }
    _Alignas(64) unsigned char buffers[EMU_EW_MAX_INPUTS + 1][EW_BLOCK * sizeof(double)];
    if (ctx->plan->kernel == EMU_EWK_identity && stream) {
        const void *values = load(ctx, 0, ptr[0], stride[0], count, buffers[0]);
        const aclDataType dtype = ctx->dtype[outs];
        const emu_cvt_from_f32_fn narrow =
            ctx->plan->compute != EMU_EW_COMPUTE_F32 ? NULL
            : dtype == ACL_FLOAT16                  ? ctx->convert->f32_to_f16_stream
            : dtype == ACL_BF16                     ? ctx->convert->f32_to_bf16_stream
                                                    : NULL;
        if (narrow != NULL) {
            /* A cast into a half type: narrowed and streamed in one pass
             * (0.8x -> 1.0x PyTorch for fp32 -> fp16). Computed blocks keep
             * the packed buffer and the streaming copy: narrowing them
             * straight into the output measured slower (bf16 Add 9 -> 16 ms
             * on 64M elements). */
            narrow(count, values, (uint16_t *)ptr[outs]);
        } else {
            stream_store(ctx, values, ptr[outs], count, buffers[1]);
        }
        return;
    }
    if (ctx->plan->kernel == EMU_EWK_identity) {
        /* A cast (copies within one dtype are raw): the identity body copies
         * the loaded values bit for bit, so the loaded block is the result
         * and the compute pass is skipped. A dense output of the compute
         * type is loaded into directly; it shares no bytes with the input,
         * as only views of one dtype may alias. */
        const bool direct = out_is_direct(ctx, stride[outs]);
        const void *values = load(ctx, 0, ptr[0], stride[0], count, direct ? ptr[outs] : (char *)buffers[0]);
        if (!direct) {
            store(ctx, values, ptr[outs], stride[outs], count);
        } else if (values != ptr[outs]) {
            memcpy(ptr[outs], values, count * ctx->elem[outs]);
        }
        return;
    }
    const void *in[EMU_EW_MAX_INPUTS] = {NULL, NULL, NULL};
    for (int k = 0; k < outs; ++k) {
        in[k] = load(ctx, k, ptr[k], stride[k], count, buffers[k]);
    }
    if (stream) {
        /* The inputs are read: their buffers are free for the packed block. */
        compute(ctx, count, in, buffers[outs]);
        stream_store(ctx, buffers[outs], ptr[outs], count, buffers[0]);
        return;
    }
    if (out_is_direct(ctx, stride[outs])) {
        compute(ctx, count, in, ptr[outs]);
        return;
    }
    compute(ctx, count, in, buffers[outs]);
    store(ctx, buffers[outs], ptr[outs], stride[outs], count);
}

/* Items are blocks of rows: item = row * blocks_per_row + block. The row's
 * index is decomposed once per range and then stepped like an odometer:
 * with short rows (a permute's 128-element runs) the divisions of a
 * decomposition per item cost as much as the copy. */
static void run_items(void *opaque, size_t begin, size_t end)
{
    const ew_ctx *ctx = opaque;
    const ew_plan *plan = ctx->plan;
    const int operands = plan->input_count + 1;
    const int32_t outer = plan->rank - 1; /* dimensions before the row's */
    int64_t row = (int64_t)begin / ctx->blocks_per_row;
    int64_t block = (int64_t)begin % ctx->blocks_per_row;
    int64_t index[EMU_EW_MAX_RANK];
    int64_t at[EMU_EW_MAX_INPUTS + 1] = {0, 0, 0, 0}; /* the row's first element, per operand */
    for (int32_t d = outer - 1; d >= 0; --d) {
        index[d] = row % plan->shape[d];
        row /= plan->shape[d];
        for (int k = 0; k < operands; ++k) {
            at[k] += index[d] * plan->strides[k][d];
        }
    }
    int64_t stride[EMU_EW_MAX_INPUTS + 1];
    for (int k = 0; k < operands; ++k) {
        stride[k] = plan->rank > 0 ? plan->strides[k][plan->rank - 1] : 1;
    }
    for (size_t item = begin; item < end; ++item) {
        const int64_t first = block * EW_BLOCK;
        char *ptr[EMU_EW_MAX_INPUTS + 1];
        for (int k = 0; k < operands; ++k) {
            ptr[k] = ctx->base[k] + (at[k] + first * stride[k]) * (int64_t)ctx->elem[k];
        }
        const int64_t left = ctx->row_length - first;
        run_block(ctx, ptr, stride, (size_t)(left < EW_BLOCK ? left : EW_BLOCK));
        if (++block < ctx->blocks_per_row) {
            continue;
        }
        block = 0;
        for (int32_t d = outer - 1; d >= 0; --d) {
            for (int k = 0; k < operands; ++k) {
                at[k] += plan->strides[k][d];
            }
            if (++index[d] < plan->shape[d]) {
                break;
            }
            for (int k = 0; k < operands; ++k) {
                at[k] -= index[d] * plan->strides[k][d];
            }
            index[d] = 0;
        }
    }
    if (ctx->stream) {
        ctx->kernels->stream_fence();
    }
}

/* Items are tiles: item = (rest * tiles_inner + tile_j) * tiles_across
 * + tile_i, where rest counts the other dimensions (row-major) and tile_i
 * runs fastest, so that consecutive tiles continue the transposed inputs'
 * rows where the last tile left them. A copy is transposed straight into
 * the output. Otherwise each transposed input's part of the tile is
 * transposed into an L1 buffer (rows_of) and the tile is run as one block
 * per index along `across`, such inputs read from their buffer as dense
 * rows and the others in place. */
static void run_tiles(void *opaque, size_t begin, size_t end)
{
    const ew_ctx *ctx = opaque;
    const ew_plan *plan = ctx->plan;
    const int outs = plan->input_count;
    const int32_t inner = plan->rank - 1, across = ctx->across;
    _Alignas(64) unsigned char rows_of[EMU_EW_MAX_INPUTS][EW_TILE_BYTES];
    for (size_t item = begin; item < end; ++item) {
        int64_t rest = (int64_t)item;
        const int64_t tile_i = rest % ctx->tiles_across;
        rest /= ctx->tiles_across;
        const int64_t tile_j = rest % ctx->tiles_inner;
        rest /= ctx->tiles_inner;
        const int64_t first_i = tile_i * ctx->tile_across, first_j = tile_j * ctx->tile_inner;
        int64_t at[EMU_EW_MAX_INPUTS + 1] = {0, 0, 0, 0};
        for (int32_t d = inner - 1; d >= 0; --d) {
            if (d == across) {
                continue;
            }
            const int64_t index = rest % plan->shape[d];
            rest /= plan->shape[d];
            for (int k = 0; k <= outs; ++k) {
                at[k] += index * plan->strides[k][d];
            }
        }
        const int64_t left_i = plan->shape[across] - first_i, left_j = plan->shape[inner] - first_j;
        const size_t count_i = (size_t)(left_i < ctx->tile_across ? left_i : ctx->tile_across);
        const size_t count_j = (size_t)(left_j < ctx->tile_inner ? left_j : ctx->tile_inner);
        /* The next item is usually the next tile along `across`. */
        const int64_t left_next = left_i - (int64_t)count_i;
        const size_t rows_next = (size_t)(left_next < ctx->tile_across ? left_next : ctx->tile_across);
        char *ptr[EMU_EW_MAX_INPUTS + 1];
        for (int k = 0; k <= outs; ++k) {
            const int64_t first = at[k] + first_i * plan->strides[k][across] + first_j * plan->strides[k][inner];
            ptr[k] = ctx->base[k] + first * (int64_t)ctx->elem[k];
        }
        if (plan->compute == EMU_EW_COMPUTE_RAW) {
            ctx->transpose[0](count_i, count_j, ptr[0], plan->strides[0][inner], ptr[outs],
                              plan->strides[outs][across], rows_next);
            continue;
        }
        int64_t stride[EMU_EW_MAX_INPUTS + 1];
        int64_t step[EMU_EW_MAX_INPUTS + 1]; /* bytes from one index along `across` to the next */
        for (int k = 0; k <= outs; ++k) {
            if (k < outs && ctx->transpose[k] != NULL) {
                ctx->transpose[k](count_i, count_j, ptr[k], plan->strides[k][inner], rows_of[k], (ptrdiff_t)count_j,
                                  rows_next);
                ptr[k] = (char *)rows_of[k];
                stride[k] = 1;
                step[k] = (int64_t)(count_j * ctx->elem[k]);
            } else {
                stride[k] = plan->strides[k][inner];
                step[k] = plan->strides[k][across] * (int64_t)ctx->elem[k];
            }
        }
        for (size_t i = 0; i < count_i; ++i) {
            run_block(ctx, ptr, stride, count_j);
            for (int k = 0; k <= outs; ++k) {
                ptr[k] += step[k];
            }
        }
    }
}

/* A transposed read: where the output is dense along its innermost
 * dimension but an input steps a cache line or more along it and is dense
 * along another dimension, rows of blocks would fetch a line of that input
 * per element and use one element of it before the line is evicted (at
 * power-of-two strides all of them fall in one cache set). Such inputs are
 * walked in tiles over the two dimensions instead and transposed a tile at a
 * time, so that both sides move whole lines. Picks their transposed copies
 * (ctx->transpose) and returns the other dimension, or -1 where rows of
 * blocks are as good. */
static int32_t choose_tiling(ew_ctx *ctx)
{
    const ew_plan *plan = ctx->plan;
    const int32_t inner = plan->rank - 1;
    const int outs = plan->input_count;
    if (plan->rank < 2 || plan->strides[outs][inner] != 1) {
        return -1;
    }
    int32_t across = -1;
    for (int k = 0; k < outs; ++k) {
        const size_t elem = ctx->elem[k];
        const int size_index = elem == 1 ? 0 : elem == 2 ? 1 : elem == 4 ? 2 : elem == 8 ? 3 : -1;
        if (size_index < 0 || plan->strides[k][inner] * (int64_t)elem < EW_LINE_BYTES) {
            continue;
        }
        for (int32_t d = inner - 1; d >= 0 && across < 0; --d) {
            if (plan->strides[k][d] == 1) {
                across = d;
            }
        }
        if (across >= 0 && plan->strides[k][across] == 1) {
            ctx->transpose[k] = ctx->kernels->transpose[size_index];
        }
    }
    return across;
}

/* Elements of operand k's memory between its lowest and highest element:
 * *lowest gets the offset of the lowest (<= 0). */
static int64_t operand_span(const ew_plan *plan, int k, int64_t *lowest)
{
    int64_t low = 0, high = 0;
    for (int32_t d = 0; d < plan->rank; ++d) {
        const int64_t reach = (plan->shape[d] - 1) * plan->strides[k][d];
        if (reach < 0) {
            low += reach;
        } else {
            high += reach;
        }
    }
    *lowest = low;
    return high - low + 1;
}

/* Half-type inputs of an fp32 computation that are small and read again
 * and again (a [C] bias broadcast over [R, C]) are converted once, into
 * `scratch`, instead of once per block: whole spans, gaps included, so
 * that their strides stay as they are (the span lies inside the tensor's
 * storage, so every byte read is the tensor's). */
static void convert_reused_inputs(ew_ctx *ctx, int64_t elements, float *scratch, int64_t scratch_elements)
{
    const ew_plan *plan = ctx->plan;
    if (plan->compute != EMU_EW_COMPUTE_F32) {
        return;
    }
    for (int k = 0; k < plan->input_count; ++k) {
        const aclDataType dtype = ctx->dtype[k];
        int64_t lowest = 0;
        const int64_t span = operand_span(plan, k, &lowest);
        /* A tile's transposed copy of an input is read from an L1 buffer,
         * not at the input's own offsets. */
        if ((dtype != ACL_FLOAT16 && dtype != ACL_BF16) || ctx->transpose[k] != NULL || span > scratch_elements ||
            span * EW_REUSE_MIN > elements) {
            continue;
        }
        const uint16_t *first = (const uint16_t *)ctx->base[k] + lowest;
        (dtype == ACL_FLOAT16 ? ctx->convert->f16_to_f32 : ctx->convert->bf16_to_f32)((size_t)span, first, scratch);
        ctx->converted[k] = scratch - lowest;
        scratch += span;
        scratch_elements -= span;
    }
}

/* Whether dense output blocks go out with non-temporal stores: where the
 * level has them, the walk is by rows of blocks, and the launch streams
 * more than EMU_STREAM_OUTPUT_MIN_BYTES (inputs and output, each at its own
 * span), so that nothing of the output would stay cached for the next
 * operator anyway and plain stores would read every line first. */
static bool choose_streaming(const ew_ctx *ctx)
{
    const ew_plan *plan = ctx->plan;
    const int outs = plan->input_count;
    if (ctx->kernels->stream_copy == NULL || ctx->across >= 0 || plan->rank < 1 ||
        plan->strides[outs][plan->rank - 1] != 1) {
        return false;
    }
    uint64_t bytes = 0;
    for (int k = 0; k <= outs; ++k) {
        int64_t lowest = 0;
        bytes += (uint64_t)operand_span(plan, k, &lowest) * ctx->elem[k];
    }
    return bytes >= EMU_STREAM_OUTPUT_MIN_BYTES;
}

const char *emu_ew_execute(const emu_ew_plan *plan, const emu_view *views)
{
    if (plan->rank < 0) {
        return "";
    }
    const emu_isa isa = emu_isa_active();
    ew_ctx ctx = {.plan = plan, .kernels = emu_ew_select(isa), .convert = emu_convert_select(isa)};
    for (int k = 0; k <= plan->input_count; ++k) {
        const emu_view *view = &views[plan->slot[k]];
        ctx.base[k] = emu_view_origin(view);
        ctx.dtype[k] = view->dtype;
        ctx.elem[k] = emu_dtype_size(view->dtype);
    }
    ctx.row_length = plan->rank > 0 ? plan->shape[plan->rank - 1] : 1;
    ctx.blocks_per_row = (ctx.row_length + EW_BLOCK - 1) / EW_BLOCK;
    int64_t rows = 1;
    for (int32_t d = 0; d + 1 < plan->rank; ++d) {
        rows *= plan->shape[d];
    }
    ctx.across = choose_tiling(&ctx);
    ctx.stream = choose_streaming(&ctx);
    _Alignas(64) float converted[EW_CONVERTED_ELEMENTS];
    convert_reused_inputs(&ctx, rows * ctx.row_length, converted, EW_CONVERTED_ELEMENTS);
    if (ctx.across >= 0) {
        if (plan->compute == EMU_EW_COMPUTE_RAW) {
            const int64_t elem = (int64_t)ctx.elem[0];
            ctx.tile_inner = EW_RUN_BYTES / elem;
            const int64_t chunk_rows = EW_GRAIN_ELEMENTS / ctx.tile_inner, run_rows = 2 * EW_RUN_BYTES / elem;
            ctx.tile_across = chunk_rows > run_rows ? chunk_rows : run_rows;
        } else {
            size_t widest = 1;
            for (int k = 0; k < plan->input_count; ++k) {
                widest = ctx.transpose[k] != NULL && ctx.elem[k] > widest ? ctx.elem[k] : widest;
            }
            ctx.tile_inner = EW_TILE_SIDE;
            ctx.tile_across = (int64_t)(EW_TILE_BYTES / EW_TILE_SIDE / widest);
        }
        ctx.tiles_across = (plan->shape[ctx.across] + ctx.tile_across - 1) / ctx.tile_across;
        ctx.tiles_inner = (ctx.row_length + ctx.tile_inner - 1) / ctx.tile_inner;
        const int64_t tiles = rows / plan->shape[ctx.across] * ctx.tiles_across * ctx.tiles_inner;
        const int64_t tile_elements = ctx.tile_across * ctx.tile_inner;
        const size_t grain = (size_t)(EW_GRAIN_ELEMENTS / tile_elements > 0 ? EW_GRAIN_ELEMENTS / tile_elements : 1);
        emu_parallel_for((size_t)tiles, grain, run_tiles, &ctx);
    } else {
        const int64_t block_elements = ctx.row_length < EW_BLOCK ? ctx.row_length : EW_BLOCK;
        const size_t grain = (size_t)(EW_GRAIN_ELEMENTS / block_elements > 0 ? EW_GRAIN_ELEMENTS / block_elements : 1);
        emu_parallel_for((size_t)(rows * ctx.blocks_per_row), grain, run_items, &ctx);
    }

    static _Thread_local char name[96];
    static const char *const COMPUTE[] = {"f32", "f64", "i64", "raw"};
    snprintf(name, sizeof name, "ew_%s_%s%s__%s", emu_ew_kernel_name(plan->kernel), COMPUTE[plan->compute],
             ctx.across >= 0 ? "_tiled" : "", ctx.kernels->isa_name);
    return name;
}
