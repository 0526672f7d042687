/* Binary element-wise operators and their tensor-scalar forms, declared
 * from CANN's op_api sources (hicann/ops-math math/{add,sub,mul,div,equal,
 * pow}/op_api): dtype lists, promotion, broadcasting (numpy rules, the
 * broadcast shape must be out's), the in-place forms (other broadcasts
 * into selfRef) and how each scalar form picks the dtype it computes in. */
#include <stdio.h>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_sub.h"
#include "ops/ew.h"

static const emu_dtype_table ANY_OUT = {EMU_ANY, EMU_ANY, EMU_ANY};
#define INTS (EMU_I8 | EMU_U8 | EMU_I16 | EMU_I32 | EMU_I64)
#define REALS (EMU_F | EMU_H | EMU_B | EMU_D | INTS | EMU_BOOL)

#define BINARY_DEF(var, api_, kernel_, names_, in_, out_, result_, out_rule_, broadcast_)                     \
    static const emu_ew_def var = {.api = api_, .kernel = EMU_EWK_##kernel_, .input_count = 2,                \
                                   .names = names_, .in_dtypes = &in_, .out_dtypes = &out_,                  \
                                   .result = EMU_EW_RESULT_##result_, .out_rule = EMU_EW_OUT_##out_rule_,    \
                                   .broadcast = broadcast_};
#define SCALAR_DEF(var, api_, kernel_, in_name, out_name, in_, out_, out_rule_)                               \
    static const emu_ew_def var = {.api = api_, .kernel = EMU_EWK_##kernel_, .input_count = 1,                \
                                   .names = {in_name, out_name}, .in_dtypes = &in_, .out_dtypes = &out_,      \
                                   .result = EMU_EW_RESULT_PROMOTE, .out_rule = EMU_EW_OUT_##out_rule_};
#define NAMES(...) {__VA_ARGS__}

/* The four public entry points of a family with a tensor and a scalar form
 * (Mul: aclnnMul, aclnnInplaceMul, aclnnMuls, aclnnInplaceMuls), each
 * handing its definition to the family's phase 1, and their phase 2. */
#define TENSOR_AND_SCALAR_ENTRIES(Name, tensor_fn, DEF, scalar_fn, SDEF)                                      \
    aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,   \
                                               uint64_t *workspaceSize, aclOpExecutor **executor)               \
    {                                                                                                           \
        return tensor_fn(&DEF, self, other, out, workspaceSize, executor);                                      \
    }                                                                                                           \
    aclnnStatus aclnnInplace##Name##GetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,                \
                                                      uint64_t *workspaceSize, aclOpExecutor **executor)        \
    {                                                                                                           \
        return tensor_fn(&DEF##_INPLACE, selfRef, other, selfRef, workspaceSize, executor);                     \
    }                                                                                                           \
    aclnnStatus aclnn##Name##sGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,  \
                                                uint64_t *workspaceSize, aclOpExecutor **executor)              \
    {                                                                                                           \
        return scalar_fn(&SDEF, self, other, out, workspaceSize, executor);                                     \
    }                                                                                                           \
    aclnnStatus aclnnInplace##Name##sGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,               \
                                                       uint64_t *workspaceSize, aclOpExecutor **executor)       \
    {                                                                                                           \
        return scalar_fn(&SDEF##_INPLACE, selfRef, other, selfRef, workspaceSize, executor);                    \
    }                                                                                                           \
    EMU_EW_PHASE2(Name)                                                                                         \
    EMU_EW_PHASE2(Inplace##Name)                                                                                \
    EMU_EW_PHASE2(Name##s)                                                                                      \
    EMU_EW_PHASE2(Inplace##Name##s)

static const char *phase1_name(const emu_ew_def *def, char *buf, size_t size)
{
    snprintf(buf, size, "%sGetWorkspaceSize", def->api);
    return buf;
}

/* The scalar form's compute dtype on Atlas A2/A3 (PromoteTypeScalar of
 * aclnn_add.cpp / aclnn_sub.cpp): a floating tensor keeps its dtype; an
 * integer tensor with a DOUBLE scalar and FLOAT out computes in FLOAT; a
 * floating scalar or a BOOL tensor promotes by the tensor table; an integer
 * tensor with an integer scalar keeps the tensor's dtype. */
static aclDataType add_scalar_dtype(aclDataType self, aclDataType scalar, aclDataType out)
{
    if (emu_dtype_is_float(self)) {
        return self;
    }
    if (scalar == ACL_DOUBLE && out == ACL_FLOAT) {
        return ACL_FLOAT;
    }
    if (emu_dtype_is_float(scalar) || self == ACL_BOOL) {
        return emu_promote_types(self, scalar);
    }
    return self;
}

/* alpha must cast to the compute dtype (for BOOL, alpha must be integral). */
static aclnnStatus check_alpha(const char *api, const aclScalar *alpha, aclDataType compute)
{
    const aclDataType dtype = emu_scalar_dtype(alpha);
    const bool ok = compute == ACL_BOOL ? emu_dtype_is_integral(dtype) : emu_can_cast(dtype, compute);
    if (compute != ACL_DT_UNDEFINED && !ok) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: alpha has dtype %s, which cannot be cast to %s, the dtype the "
                                                 "operator computes in; expected an alpha of a castable dtype.", api,
                        emu_dtype_name(dtype), emu_dtype_name(compute));
    }
    return ACLNN_SUCCESS;
}

/* ---- Add, Sub: out = self +- alpha * other ---- */

static const emu_dtype_table ADD_TYPES = EMU_DTYPES(REALS);
BINARY_DEF(ADD, "aclnnAdd", add, NAMES("self", "other", "out"), ADD_TYPES, ANY_OUT, PROMOTE, CASTABLE, true)
BINARY_DEF(ADD_INPLACE, "aclnnInplaceAdd", add, NAMES("selfRef", "other", "selfRef"), ADD_TYPES, ANY_OUT, PROMOTE,
           CASTABLE, true)
BINARY_DEF(SUB, "aclnnSub", sub, NAMES("self", "other", "out"), ADD_TYPES, ANY_OUT, PROMOTE, CASTABLE, true)
BINARY_DEF(SUB_INPLACE, "aclnnInplaceSub", sub, NAMES("selfRef", "other", "selfRef"), ADD_TYPES, ANY_OUT, PROMOTE,
           CASTABLE, true)
SCALAR_DEF(ADDS, "aclnnAdds", adds, "self", "out", ADD_TYPES, ANY_OUT, CASTABLE)
SCALAR_DEF(ADDS_INPLACE, "aclnnInplaceAdds", adds, "selfRef", "selfRef", ADD_TYPES, ANY_OUT, CASTABLE)
SCALAR_DEF(SUBS, "aclnnSubs", subs, "self", "out", ADD_TYPES, ANY_OUT, CASTABLE)
SCALAR_DEF(SUBS_INPLACE, "aclnnInplaceSubs", subs, "selfRef", "selfRef", ADD_TYPES, ANY_OUT, CASTABLE)

static aclnnStatus add_sub(const emu_ew_def *def, const aclTensor *self, const aclTensor *other,
                           const aclScalar *alpha, const aclTensor *out, uint64_t *workspaceSize,
                           aclOpExecutor **executor)
{
    char api[96];
    phase1_name(def, api, sizeof api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, "alpha", alpha));
    EMU_TRY(emu_check_not_null(api, def->names[2], out));
    EMU_TRY(check_alpha(api, alpha, emu_promote_types(self->view.dtype, other->view.dtype)));
    const emu_ew_call call = {.inputs = {self, other}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED,
                              .result_dtype = ACL_DT_UNDEFINED, .params = {emu_scalar_to_double(alpha)},
                              .params_int = {emu_scalar_to_int64(alpha)}, .has_params_int = true};
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

static aclnnStatus adds_subs(const emu_ew_def *def, const aclTensor *self, const aclScalar *other,
                             const aclScalar *alpha, const aclTensor *out, uint64_t *workspaceSize,
                             aclOpExecutor **executor)
{
    char api[96];
    phase1_name(def, api, sizeof api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, "alpha", alpha));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    const aclDataType compute = add_scalar_dtype(self->view.dtype, emu_scalar_dtype(other), out->view.dtype);
    if (compute == ACL_DT_UNDEFINED) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) and other (%s) have no common dtype to compute in.", api,
                        def->names[0], emu_dtype_name(self->view.dtype), emu_dtype_name(emu_scalar_dtype(other)));
    }
    EMU_TRY(check_alpha(api, alpha, compute));
    /* The scalar becomes a tensor of the compute dtype. */
    const emu_ew_call call = {.inputs = {self}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED, .result_dtype = compute,
                              .params = {emu_round_to_dtype(emu_scalar_to_double(other), compute),
                                         emu_scalar_to_double(alpha)},
                              .params_int = {emu_scalar_to_int64(other), emu_scalar_to_int64(alpha)},
                              .has_params_int = true};
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return add_sub(&ADD, self, other, alpha, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return add_sub(&ADD_INPLACE, selfRef, other, alpha, selfRef, workspaceSize, executor);
}

aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return adds_subs(&ADDS, self, other, alpha, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceAddsGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha,
                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return adds_subs(&ADDS_INPLACE, selfRef, other, alpha, selfRef, workspaceSize, executor);
}

aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return add_sub(&SUB, self, other, alpha, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return add_sub(&SUB_INPLACE, selfRef, other, alpha, selfRef, workspaceSize, executor);
}

aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return adds_subs(&SUBS, self, other, alpha, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha,
                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return adds_subs(&SUBS_INPLACE, selfRef, other, alpha, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Add)
EMU_EW_PHASE2(InplaceAdd)
EMU_EW_PHASE2(Adds)
EMU_EW_PHASE2(InplaceAdds)
EMU_EW_PHASE2(Sub)
EMU_EW_PHASE2(InplaceSub)
EMU_EW_PHASE2(Subs)
EMU_EW_PHASE2(InplaceSubs)

/* ---- Mul, Muls: out = self * other; Mul's out must be in the list too ---- */

static const emu_dtype_table MUL_TYPES = EMU_DTYPES(REALS);
BINARY_DEF(MUL, "aclnnMul", mul, NAMES("self", "other", "out"), MUL_TYPES, MUL_TYPES, PROMOTE, CASTABLE, true)
BINARY_DEF(MUL_INPLACE, "aclnnInplaceMul", mul, NAMES("selfRef", "other", "selfRef"), MUL_TYPES, MUL_TYPES, PROMOTE,
           CASTABLE, true)
SCALAR_DEF(MULS, "aclnnMuls", muls, "self", "out", MUL_TYPES, MUL_TYPES, ANY)
SCALAR_DEF(MULS_INPLACE, "aclnnInplaceMuls", muls, "selfRef", "selfRef", MUL_TYPES, MUL_TYPES, ANY)

static aclnnStatus binary(const emu_ew_def *def, const aclTensor *self, const aclTensor *other, const aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    phase1_name(def, api, sizeof api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, def->names[2], out));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {self, other}, .out = out);
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

/* Muls on A2/A3 (InferTensorScalarDtype): a FLOAT/FLOAT16/DOUBLE tensor keeps
 * its dtype, BF16 computes in FLOAT, a BOOL tensor with a DOUBLE scalar or a
 * DOUBLE scalar with FLOAT out in FLOAT, a floating scalar or a BOOL tensor
 * by the tensor table, otherwise the tensor's dtype. */
static aclDataType muls_dtype(aclDataType self, aclDataType scalar, aclDataType out)
{
    if (self == ACL_FLOAT || self == ACL_FLOAT16 || self == ACL_DOUBLE) {
        return self;
    }
    if (self == ACL_BF16 || (self == ACL_BOOL && scalar == ACL_DOUBLE) || (scalar == ACL_DOUBLE && out == ACL_FLOAT)) {
        return ACL_FLOAT;
    }
    if (emu_dtype_is_float(scalar) || self == ACL_BOOL) {
        return emu_promote_types(self, scalar);
    }
    return self;
}

static aclnnStatus muls(const emu_ew_def *def, const aclTensor *self, const aclScalar *other, const aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    phase1_name(def, api, sizeof api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    aclDataType compute = muls_dtype(self->view.dtype, emu_scalar_dtype(other), out->view.dtype);
    compute = compute == ACL_DT_UNDEFINED ? self->view.dtype : compute;
    /* The scalar becomes a tensor of the compute dtype (a FLOAT scale on a
     * FLOAT16 tensor is rounded to FLOAT16). */
    const emu_ew_call call = {.inputs = {self}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED, .result_dtype = compute,
                              .params = {emu_round_to_dtype(emu_scalar_to_double(other), compute)},
                              .params_int = {emu_scalar_to_int64(other)}, .has_params_int = true};
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

TENSOR_AND_SCALAR_ENTRIES(Mul, binary, MUL, muls, MULS)

/* ---- Div, Divs: true division; integers divide in FLOAT ----
 * out must be castable from the promoted dtype (INT32 for two INT32
 * tensors, so an integer out takes the truncated quotient). */

static const emu_dtype_table DIV_TYPES = EMU_DTYPES(REALS);
BINARY_DEF(DIV, "aclnnDiv", div, NAMES("self", "other", "out"), DIV_TYPES, ANY_OUT, PROMOTE, ANY, true)
BINARY_DEF(DIV_INPLACE, "aclnnInplaceDiv", div, NAMES("selfRef", "other", "selfRef"), DIV_TYPES, ANY_OUT, PROMOTE, ANY,
           true)
SCALAR_DEF(DIVS, "aclnnDivs", divs, "self", "out", DIV_TYPES, ANY_OUT, CASTABLE_FROM_SELF)
SCALAR_DEF(DIVS_INPLACE, "aclnnInplaceDivs", divs, "selfRef", "selfRef", DIV_TYPES, ANY_OUT, CASTABLE_FROM_SELF)

static aclnnStatus div_tensor(const emu_ew_def *def, const aclTensor *self, const aclTensor *other,
                              const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    phase1_name(def, api, sizeof api);
    EMU_TRY(emu_check_not_null(api, def->names[2], out));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    const aclDataType promoted = emu_promote_types(self->view.dtype, other->view.dtype);
    if (promoted != ACL_DT_UNDEFINED && !emu_can_cast(promoted, out->view.dtype)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s, to which the promoted dtype %s cannot be cast; "
                                                 "expected a dtype the result casts to.", api, def->names[2],
                        emu_dtype_name(out->view.dtype), emu_dtype_name(promoted));
    }
    const aclDataType compute = promoted == ACL_DT_UNDEFINED || emu_dtype_is_float(promoted) ? promoted : ACL_FLOAT;
    const emu_ew_call call = {.inputs = {self, other}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED,
                              .result_dtype = compute};
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

static aclnnStatus divs(const emu_ew_def *def, const aclTensor *self, const aclScalar *other, const aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    phase1_name(def, api, sizeof api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, def->names[1], out));
    EMU_TRY(emu_check_dtype_table(api, "other", emu_scalar_dtype(other), &DIV_TYPES));
    const aclDataType compute = emu_dtype_is_float(self->view.dtype) ? self->view.dtype : ACL_FLOAT;
    const emu_ew_call call = {.inputs = {self}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED, .result_dtype = compute,
                              .params = {(float)emu_scalar_to_double(other)}};
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

TENSOR_AND_SCALAR_ENTRIES(Div, div_tensor, DIV, divs, DIVS)

/* ---- EqTensor: 1 where self == other, in out's dtype ----
 * On A2/A3 only the promoted dtype and out are checked against the list. */

static const emu_dtype_table EQ_TYPES = EMU_DTYPES(REALS);
BINARY_DEF(EQ, "aclnnEqTensor", eq, NAMES("self", "other", "out"), ANY_OUT, EQ_TYPES, BOOL, ANY, true)
BINARY_DEF(EQ_INPLACE, "aclnnInplaceEqTensor", eq, NAMES("selfRef", "other", "selfRef"), ANY_OUT, EQ_TYPES, BOOL, ANY,
           true)

static aclnnStatus eq_tensor(const emu_ew_def *def, const aclTensor *self, const aclTensor *other,
                             const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char api[96];
    phase1_name(def, api, sizeof api);
    EMU_TRY(emu_check_not_null(api, def->names[0], self));
    EMU_TRY(emu_check_not_null(api, "other", other));
    EMU_TRY(emu_check_not_null(api, def->names[2], out));
    const aclDataType promoted = emu_promote_types(self->view.dtype, other->view.dtype);
    if (promoted != ACL_DT_UNDEFINED) {
        EMU_TRY(emu_check_dtype_table(api, "the promoted dtype of self and other", promoted, &EQ_TYPES));
    }
    const emu_ew_call call = EMU_EW_CALL(.inputs = {self, other}, .out = out);
    return emu_ew_phase1(def, &call, workspaceSize, executor);
}

aclnnStatus aclnnEqTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return eq_tensor(&EQ, self, other, out, workspaceSize, executor);
}

aclnnStatus aclnnInplaceEqTensorGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return eq_tensor(&EQ_INPLACE, selfRef, other, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(EqTensor)
EMU_EW_PHASE2(InplaceEqTensor)

/* ---- PowScalarTensor: out = self ^ exponent, self a scalar ----
 * Computed in the exponent's dtype when it is floating, else in the
 * promotion of the two when the scalar is floating or the exponent BOOL,
 * else in the exponent's dtype. */

static const emu_dtype_table POW_TYPES = EMU_DTYPES(REALS);
SCALAR_DEF(POW_SCALAR_TENSOR, "aclnnPowScalarTensor", pow_scalar_tensor, "exponent", "out", POW_TYPES, ANY_OUT,
           CASTABLE)

aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *exponent,
                                                 const aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    static const char API[] = "aclnnPowScalarTensorGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "exponent", exponent));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_dtype_table(API, "self", emu_scalar_dtype(self), &POW_TYPES));
    const aclDataType base = emu_scalar_dtype(self), exp = exponent->view.dtype;
    if (base == ACL_BOOL && exp == ACL_BOOL) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self and exponent are both ACL_BOOL; expected a numeric dtype "
                                                 "for one of them.", API);
    }
    aclDataType compute = exp;
    if (!emu_dtype_is_float(exp) && (emu_dtype_is_float(base) || exp == ACL_BOOL)) {
        compute = emu_promote_types(exp, base);
    }
    if (compute == ACL_DT_UNDEFINED) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self (%s) and exponent (%s) have no common dtype to compute in.",
                        API, emu_dtype_name(base), emu_dtype_name(exp));
    }
    const emu_ew_call call = {.inputs = {exponent}, .out = out, .scalar_dtype = ACL_DT_UNDEFINED,
                              .result_dtype = compute,
                              .params = {emu_round_to_dtype(emu_scalar_to_double(self), compute)}};
    return emu_ew_phase1(&POW_SCALAR_TENSOR, &call, workspaceSize, executor);
}
EMU_EW_PHASE2(PowScalarTensor)
