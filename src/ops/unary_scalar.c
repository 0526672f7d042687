/* Unary element-wise operators with aclScalar attributes, declared from
 * CANN's op_api sources (hicann/ops-nn activation/{elu,softplus_v2,
 * leaky_relu,threshold}, hicann/ops-math math/greater (GtScalar) and
 * conversion/clip_by_value_v2 (Clamp)). Each entry point null-checks its
 * arguments in CANN's order, checks what is particular to its scalars, and
 * hands the rest to the element-wise driver. */
#include <math.h>
#include <stdio.h>

#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_elu.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_leaky_relu.h"
#include "aclnnop/aclnn_softplus.h"
#include "aclnnop/aclnn_threshold.h"
#include "ops/ew.h"

#define DEF(var, api_, kernel_, in_name, out_name, in_, out_, result_, out_rule_)                             \
    static const emu_ew_def var = {.api = api_, .kernel = EMU_EWK_##kernel_, .input_count = 1,                \
                                   .names = {in_name, out_name}, .in_dtypes = &in_, .out_dtypes = &out_,      \
                                   .result = EMU_EW_RESULT_##result_, .out_rule = EMU_EW_OUT_##out_rule_};

static const emu_dtype_table ANY_OUT = {EMU_ANY, EMU_ANY, EMU_ANY};

static bool is_complex(aclDataType dtype)
{
    return dtype == ACL_COMPLEX64 || dtype == ACL_COMPLEX128 || dtype == ACL_COMPLEX32;
}

/* A scalar CANN converts to a floating type: anything but complex. */
static aclnnStatus check_real_scalar(const char *api, const char *name, const aclScalar *scalar)
{
    if (is_complex(emu_scalar_dtype(scalar))) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s, which cannot be cast to a real type; expected "
                                                 "a real scalar.", api, name,
                        emu_dtype_name(emu_scalar_dtype(scalar)));
    }
    return ACLNN_SUCCESS;
}

/* ---- Elu: scale * x for x > 0, alpha * scale * (exp(x * inputScale) - 1) otherwise ---- */

static const emu_dtype_table ELU_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_D | EMU_B);
DEF(ELU, "aclnnElu", elu, "self", "out", ELU_TYPES, ANY_OUT, PROMOTE, CASTABLE_FROM_SELF)
DEF(ELU_LIMIT, "aclnnElu", elu_limit, "self", "out", ELU_TYPES, ANY_OUT, PROMOTE, CASTABLE_FROM_SELF)
DEF(ELU_INPLACE, "aclnnInplaceElu", elu, "selfRef", "selfRef", ELU_TYPES, ANY_OUT, PROMOTE, CASTABLE_FROM_SELF)
DEF(ELU_LIMIT_INPLACE, "aclnnInplaceElu", elu_limit, "selfRef", "selfRef", ELU_TYPES, ANY_OUT, PROMOTE,
    CASTABLE_FROM_SELF)

static aclnnStatus elu(bool in_place, const aclTensor *self, const aclScalar *alpha, const aclScalar *scale,
                       const aclScalar *inputScale, const aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor)
{
    const char *api = in_place ? "aclnnInplaceEluGetWorkspaceSize" : "aclnnEluGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(api, in_place ? "selfRef" : "self", self));
    EMU_TRY(emu_check_not_null(api, "alpha", alpha));
    EMU_TRY(emu_check_not_null(api, "scale", scale));
    EMU_TRY(emu_check_not_null(api, "inputScale", inputScale));
    EMU_TRY(emu_check_not_null(api, "out", out));
    EMU_TRY(check_real_scalar(api, "scale", scale));
    EMU_TRY(check_real_scalar(api, "alpha", alpha));
    EMU_TRY(check_real_scalar(api, "inputScale", inputScale));
    const double a = (float)emu_scalar_to_double(alpha), s = (float)emu_scalar_to_double(scale),
                 in_scale = (float)emu_scalar_to_double(inputScale);
    /* CANN's special case: an infinite or NaN alpha or input scale gives
     * scale * (x > 0 ? x : -alpha). */
    const bool limit = !isfinite(a) || !isfinite(in_scale);
    const emu_ew_def *def = in_place ? (limit ? &ELU_LIMIT_INPLACE : &ELU_INPLACE) : (limit ? &ELU_LIMIT : &ELU);
    const emu_ew_call call = EMU_EW_CALL(.inputs = {self}, .out = out, .params = {a, s, in_scale});
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

aclnnStatus aclnnEluGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha, const aclScalar *scale,
                                     const aclScalar *inputScale, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    return elu(false, self, alpha, scale, inputScale, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceEluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *alpha, const aclScalar *scale,
                                            const aclScalar *inputScale, uint64_t *workspaceSize,
                                            aclOpExecutor **executor)
{
    return elu(true, selfRef, alpha, scale, inputScale, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Elu)
EMU_EW_PHASE2(InplaceElu)

/* ---- Softplus: log(1 + exp(beta x)) / beta, or x where beta x > threshold ---- */

static const emu_dtype_table SOFTPLUS_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);
DEF(SOFTPLUS, "aclnnSoftplus", softplus, "self", "out", SOFTPLUS_TYPES, ANY_OUT, PROMOTE, CASTABLE_FROM_SELF)

aclnnStatus aclnnSoftplusGetWorkspaceSize(const aclTensor *self, const aclScalar *beta, const aclScalar *threshold,
                                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnSoftplusGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "beta", beta));
    EMU_TRY(emu_check_not_null(API, "threshold", threshold));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(check_real_scalar(API, "beta", beta));
    EMU_TRY(check_real_scalar(API, "threshold", threshold));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {self}, .out = out,
                                         .params = {(float)emu_scalar_to_double(beta),
                                                    (float)emu_scalar_to_double(threshold)});
    return emu_ew_get_workspace_size(&SOFTPLUS, &call, workspaceSize, executor);
}
EMU_EW_PHASE2(Softplus)

/* ---- LeakyRelu: x for x > 0, negativeSlope * x otherwise ---- */

static const emu_dtype_table LEAKY_RELU_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_D | EMU_B);
DEF(LEAKY_RELU, "aclnnLeakyRelu", leaky_relu, "self", "out", LEAKY_RELU_TYPES, ANY_OUT, PROMOTE, CASTABLE_FROM_SELF)
DEF(LEAKY_RELU_INPLACE, "aclnnInplaceLeakyRelu", leaky_relu, "selfRef", "selfRef", LEAKY_RELU_TYPES, ANY_OUT, PROMOTE,
    CASTABLE_FROM_SELF)

static aclnnStatus leaky_relu(const emu_ew_def *def, const aclTensor *self, const aclScalar *negativeSlope,
                              const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    snprintf(api, sizeof api, "%sGetWorkspaceSize", def->api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "negativeSlope", negativeSlope));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {self}, .out = out,
                                         .params = {(float)emu_scalar_to_double(negativeSlope)});
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

aclnnStatus aclnnLeakyReluGetWorkspaceSize(const aclTensor *self, const aclScalar *negativeSlope, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return leaky_relu(&LEAKY_RELU, self, negativeSlope, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceLeakyReluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *negativeSlope,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return leaky_relu(&LEAKY_RELU_INPLACE, selfRef, negativeSlope, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(LeakyRelu)
EMU_EW_PHASE2(InplaceLeakyRelu)

/* ---- GtScalar: 1 where self > other, else 0, in out's dtype ----
 * Computed in PromoteType(self, other's dtype) (the tensor-tensor table;
 * BOOL as INT8), the other converted to it. */

#define GT_IN (EMU_F | EMU_I32 | EMU_I64 | EMU_H | EMU_I16 | EMU_I8 | EMU_U8 | EMU_D | EMU_U64 | EMU_U16 | EMU_U32 | EMU_BOOL | EMU_B)
static const emu_dtype_table GT_TYPES = EMU_DTYPES(GT_IN);
DEF(GT_SCALAR, "aclnnGtScalar", gt_scalar, "self", "out", GT_TYPES, GT_TYPES, BOOL, ANY)
DEF(GT_SCALAR_INPLACE, "aclnnInplaceGtScalar", gt_scalar, "selfRef", "selfRef", GT_TYPES, GT_TYPES, BOOL, ANY)

static aclnnStatus gt_scalar(const emu_ew_def *def, const aclTensor *self, const aclScalar *other,
                             const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    snprintf(api, sizeof api, "%sGetWorkspaceSize", def->api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    EMU_TRY(emu_check_dtype_table(api, "other", emu_scalar_dtype(other), &GT_TYPES));
    aclDataType compute = emu_promote_types(self->view.dtype, emu_scalar_dtype(other));
    if (compute == ACL_DT_UNDEFINED) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) and other (%s) have no common dtype to compare in.",
                        api, def->names[0], emu_dtype_name(self->view.dtype),
                        emu_dtype_name(emu_scalar_dtype(other)));
    }
    compute = compute == ACL_BOOL ? ACL_INT8 : compute;
    const emu_ew_call call = {.inputs = {self}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED,
                              .result_dtype = compute,
                              .params = {emu_round_to_dtype(emu_scalar_to_double(other), compute)},
                              .params_int = {emu_scalar_to_int64(other)}, .has_params_int = true};
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

aclnnStatus aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return gt_scalar(&GT_SCALAR, self, other, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceGtScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    return gt_scalar(&GT_SCALAR_INPLACE, selfRef, other, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(GtScalar)
EMU_EW_PHASE2(InplaceGtScalar)

/* ---- Clamp: max(min(x, max), min), computed in out's dtype ----
 * Either bound may be NULL, not both; the bounds are converted to out's
 * dtype. */

static const emu_dtype_table CLAMP_TYPES =
    EMU_DTYPES(EMU_H | EMU_F | EMU_I32 | EMU_I64 | EMU_I16 | EMU_I8 | EMU_U8 | EMU_D | EMU_B);
DEF(CLAMP, "aclnnClamp", clamp, "self", "out", CLAMP_TYPES, CLAMP_TYPES, OUT, CASTABLE_FROM_SELF)
DEF(CLAMP_MIN, "aclnnClampMin", clamp, "self", "out", CLAMP_TYPES, CLAMP_TYPES, OUT, CASTABLE_FROM_SELF)
DEF(CLAMP_MAX, "aclnnClampMax", clamp, "self", "out", CLAMP_TYPES, CLAMP_TYPES, OUT, CASTABLE_FROM_SELF)
DEF(CLAMP_MAX_INPLACE, "aclnnInplaceClampMax", clamp, "selfRef", "selfRef", CLAMP_TYPES, CLAMP_TYPES, OUT,
    CASTABLE_FROM_SELF)

static aclnnStatus clamp(const emu_ew_def *def, const aclTensor *self, const aclScalar *lo, const aclScalar *hi,
                         const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    snprintf(api, sizeof api, "%sGetWorkspaceSize", def->api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    if (lo == NULL && hi == NULL) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: clipValueMin and clipValueMax are both NULL; expected at least "
                                                 "one bound.", api);
    }
    const aclDataType dtype = out->view.dtype;
    const double lo_value = lo ? emu_round_to_dtype(emu_scalar_to_double(lo), dtype) : 0;
    const double hi_value = hi ? emu_round_to_dtype(emu_scalar_to_double(hi), dtype) : 0;
    const emu_ew_call call = {.inputs = {self}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED,
                              .result_dtype = ACL_DT_UNDEFINED,
                              .params = {lo_value, hi_value, lo != NULL, hi != NULL},
                              .params_int = {lo ? emu_scalar_to_int64(lo) : 0, hi ? emu_scalar_to_int64(hi) : 0,
                                             lo != NULL, hi != NULL},
                              .has_params_int = true};
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                       const aclScalar *clipValueMax, aclTensor *out, uint64_t *workspaceSize,
                                       aclOpExecutor **executor)
{
    return clamp(&CLAMP, self, clipValueMin, clipValueMax, out, workspaceSize, executor);
}

aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null("aclnnClampMinGetWorkspaceSize", "clipValueMin", clipValueMin));
    return clamp(&CLAMP_MIN, self, clipValueMin, NULL, out, workspaceSize, executor);
}

aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMax, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null("aclnnClampMaxGetWorkspaceSize", "clipValueMax", clipValueMax));
    return clamp(&CLAMP_MAX, self, NULL, clipValueMax, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceClampMaxGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *clipValueMax,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null("aclnnInplaceClampMaxGetWorkspaceSize", "clipValueMax", clipValueMax));
    return clamp(&CLAMP_MAX_INPLACE, selfRef, NULL, clipValueMax, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Clamp)
EMU_EW_PHASE2(ClampMin)
EMU_EW_PHASE2(ClampMax)
EMU_EW_PHASE2(InplaceClampMax)

/* ---- Threshold: x where x > threshold, else value; both converted to self's dtype ---- */

static const emu_dtype_table THRESHOLD_TYPES =
    EMU_DTYPES(EMU_F | EMU_I32 | EMU_H | EMU_I8 | EMU_U8 | EMU_I16 | EMU_I64 | EMU_B);
DEF(THRESHOLD, "aclnnThreshold", threshold, "self", "out", THRESHOLD_TYPES, ANY_OUT, PROMOTE, CASTABLE_FROM_SELF)
DEF(THRESHOLD_INPLACE, "aclnnInplaceThreshold", threshold, "selfRef", "selfRef", THRESHOLD_TYPES, ANY_OUT, PROMOTE,
    CASTABLE_FROM_SELF)

static aclnnStatus threshold(const emu_ew_def *def, const aclTensor *self, const aclScalar *limit,
                             const aclScalar *value, const aclTensor *out, uint64_t *workspaceSize,
                             aclOpExecutor **executor)
{
    char api[96];
    snprintf(api, sizeof api, "%sGetWorkspaceSize", def->api);
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    EMU_TRY(emu_check_not_null(api, "threshold", limit));
    EMU_TRY(emu_check_not_null(api, "value", value));
    const aclDataType dtype = self->view.dtype;
    const emu_ew_call call = {.inputs = {self}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED,
                              .result_dtype = ACL_DT_UNDEFINED,
                              .params = {emu_round_to_dtype(emu_scalar_to_double(limit), dtype),
                                         emu_round_to_dtype(emu_scalar_to_double(value), dtype)},
                              .params_int = {emu_scalar_to_int64(limit), emu_scalar_to_int64(value)},
                              .has_params_int = true};
    return emu_ew_get_workspace_size(def, &call, workspaceSize, executor);
}

aclnnStatus aclnnThresholdGetWorkspaceSize(const aclTensor *self, const aclScalar *threshold_, const aclScalar *value,
                                           aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return threshold(&THRESHOLD, self, threshold_, value, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceThresholdGetWorkspaceSize(aclTensor *selfRef, const aclScalar *threshold_,
                                                  const aclScalar *value, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    return threshold(&THRESHOLD_INPLACE, selfRef, threshold_, value, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Threshold)
EMU_EW_PHASE2(InplaceThreshold)
