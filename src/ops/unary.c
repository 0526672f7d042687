/* Unary element-wise operators without attributes, declared from CANN's
 * op_api sources (hicann/ops-math math/<op>/op_api/aclnn_<op>.cpp and
 * hicann/ops-nn activation/<op>/op_api/aclnn_<op>.cpp): the dtype lists per
 * product, the result dtype and how the output dtype must relate to it.
 * Complex dtypes are not implemented and are refused as unsupported. */
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_hardsigmoid.h"
#include "aclnnop/aclnn_hardswish.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_tanh.h"
#include "ops/ew.h"

#define DEF(var, api_, kernel_, in_name, out_name, in_, out_, result_, out_rule_)                             \
    static const emu_ew_def var = {.api = api_, .kernel = EMU_EWK_##kernel_, .input_count = 1,                \
                                   .names = {in_name, out_name}, .in_dtypes = &in_, .out_dtypes = &out_,        \
                                   .result = EMU_EW_RESULT_##result_, .out_rule = EMU_EW_OUT_##out_rule_};
/* The in-place form: the same operator with one tensor as input and output. */
#define INPLACE(var, api_, kernel_, name, in_, result_, out_rule_)                                           \
    DEF(var, api_, kernel_, name, name, in_, in_, result_, out_rule_)

static const emu_dtype_table ANY_OUT = {EMU_ANY, EMU_ANY, EMU_ANY};
#define FLOATS (EMU_F | EMU_H | EMU_B | EMU_D)
#define INTS (EMU_I8 | EMU_U8 | EMU_I16 | EMU_I32 | EMU_I64)
static const emu_dtype_table EXP_TYPES = EMU_DTYPES(FLOATS | EMU_BOOL | EMU_I64);
static const emu_dtype_table FLOAT_TYPES = EMU_DTYPES(FLOATS);
static const emu_dtype_table REAL_TYPES = EMU_DTYPES(FLOATS | INTS | EMU_BOOL);
static const emu_dtype_table HALF_AND_FLOAT_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);

/* out = |self|; out has self's dtype. */
static const emu_dtype_table ABS_TYPES = EMU_DTYPES(FLOATS | INTS | EMU_BOOL);
DEF(ABS, "aclnnAbs", abs, "self", "out", ABS_TYPES, ABS_TYPES, PROMOTE, SAME)
aclnnStatus aclnnAbsGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    return emu_ew_unary(&ABS, self, out, workspaceSize, executor);
}
EMU_EW_PHASE2(Abs)

/* out = -self; self's dtype must cast to out's. */
static const emu_dtype_table NEG_TYPES = EMU_DTYPES(EMU_I8 | EMU_I32 | EMU_I64 | FLOATS);
DEF(NEG, "aclnnNeg", neg, "self", "out", NEG_TYPES, ANY_OUT, PROMOTE, CASTABLE)
INPLACE(NEG_INPLACE, "aclnnInplaceNeg", neg, "selfRef", NEG_TYPES, PROMOTE, CASTABLE)
aclnnStatus aclnnNegGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    return emu_ew_unary(&NEG, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceNegGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&NEG_INPLACE, selfRef, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Neg)
EMU_EW_PHASE2(InplaceNeg)

/* out = e^self; BOOL and INT64 compute as FLOAT. */
DEF(EXP, "aclnnExp", exp, "self", "out", EXP_TYPES, ANY_OUT, FLOATING, CASTABLE)
INPLACE(EXP_INPLACE, "aclnnInplaceExp", exp, "selfRef", FLOAT_TYPES, FLOATING, CASTABLE)
aclnnStatus aclnnExpGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    return emu_ew_unary(&EXP, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceExpGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&EXP_INPLACE, selfRef, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Exp)
EMU_EW_PHASE2(InplaceExp)

/* out = ln(self); integers compute as FLOAT; out is floating and self casts to it. */
DEF(LOG, "aclnnLog", log, "self", "out", REAL_TYPES, FLOAT_TYPES, FLOATING,
    CASTABLE_FROM_SELF)
INPLACE(LOG_INPLACE, "aclnnInplaceLog", log, "selfRef", FLOAT_TYPES, FLOATING, CASTABLE_FROM_SELF)
aclnnStatus aclnnLogGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    return emu_ew_unary(&LOG, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceLogGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&LOG_INPLACE, selfRef, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Log)
EMU_EW_PHASE2(InplaceLog)

/* out = sqrt(self); integers compute as FLOAT. */
DEF(SQRT, "aclnnSqrt", sqrt, "self", "out", REAL_TYPES, ANY_OUT, FLOATING, CASTABLE)
INPLACE(SQRT_INPLACE, "aclnnInplaceSqrt", sqrt, "self", FLOAT_TYPES, FLOATING, CASTABLE)
aclnnStatus aclnnSqrtGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **opExecutor)
{
    return emu_ew_unary(&SQRT, self, out, workspaceSize, opExecutor);
}
aclnnStatus aclnnInplaceSqrtGetWorkspaceSize(aclTensor *self, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&SQRT_INPLACE, self, self, workspaceSize, executor);
}
EMU_EW_PHASE2(Sqrt)
EMU_EW_PHASE2(InplaceSqrt)

/* Sin, Cos: integers compute as FLOAT; out is any floating dtype. */
static const emu_dtype_table TRIG_IN = EMU_DTYPES(FLOATS | INTS | EMU_BOOL);
static const emu_dtype_table TRIG_OUT = EMU_DTYPES(FLOATS);
DEF(SIN, "aclnnSin", sin, "self", "out", TRIG_IN, TRIG_OUT, FLOATING, ANY)
INPLACE(SIN_INPLACE, "aclnnInplaceSin", sin, "selfRef", TRIG_OUT, FLOATING, ANY)
DEF(COS, "aclnnCos", cos, "input", "out", TRIG_IN, TRIG_OUT, FLOATING, ANY)
INPLACE(COS_INPLACE, "aclnnInplaceCos", cos, "inputRef", TRIG_OUT, FLOATING, ANY)
aclnnStatus aclnnSinGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    return emu_ew_unary(&SIN, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceSinGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&SIN_INPLACE, selfRef, selfRef, workspaceSize, executor);
}
aclnnStatus aclnnCosGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor)
{
    return emu_ew_unary(&COS, input, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceCosGetWorkspaceSize(aclTensor *inputRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&COS_INPLACE, inputRef, inputRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Sin)
EMU_EW_PHASE2(InplaceSin)
EMU_EW_PHASE2(Cos)
EMU_EW_PHASE2(InplaceCos)

/* out = tanh(self); integers compute as FLOAT, which must cast to out. */
static const emu_dtype_table TANH_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_BOOL | INTS);
DEF(TANH, "aclnnTanh", tanh, "self", "out", TANH_TYPES, TANH_TYPES, FLOATING, CASTABLE)
INPLACE(TANH_INPLACE, "aclnnInplaceTanh", tanh, "selfRef", HALF_AND_FLOAT_TYPES, FLOATING, CASTABLE)
aclnnStatus aclnnTanhGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    return emu_ew_unary(&TANH, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceTanhGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&TANH_INPLACE, selfRef, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Tanh)
EMU_EW_PHASE2(InplaceTanh)

/* result = 1, 0 or -1 in self's dtype (BOOL stays itself). */
static const emu_dtype_table SIGN_TYPES = EMU_DTYPES(EMU_D | EMU_F | EMU_H | EMU_B | EMU_I32 | EMU_I64 | EMU_BOOL);
DEF(SIGN, "aclnnSign", sign, "self", "result", SIGN_TYPES, SIGN_TYPES, PROMOTE, SAME)
aclnnStatus aclnnSignGetWorkspaceSize(const aclTensor *self, aclTensor *result, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    return emu_ew_unary(&SIGN, self, result, workspaceSize, executor);
}
EMU_EW_PHASE2(Sign)

/* out = 1 / (1 + e^-self); integers compute as FLOAT; out is any floating dtype. */
DEF(SIGMOID, "aclnnSigmoid", sigmoid, "self", "out", TRIG_IN, TRIG_OUT, FLOATING, ANY)
INPLACE(SIGMOID_INPLACE, "aclnnInplaceSigmoid", sigmoid, "selfRef", TRIG_OUT, FLOATING, ANY)
aclnnStatus aclnnSigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                         aclOpExecutor **executor)
{
    return emu_ew_unary(&SIGMOID, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceSigmoidGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                aclOpExecutor **executor)
{
    return emu_ew_unary(&SIGMOID_INPLACE, selfRef, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Sigmoid)
EMU_EW_PHASE2(InplaceSigmoid)

/* out = max(self, 0) in self's dtype (integers too). */
static const emu_dtype_table RELU_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_I8 | EMU_U8 | EMU_I32 | EMU_I64);
DEF(RELU, "aclnnRelu", relu, "self", "out", RELU_TYPES, RELU_TYPES, PROMOTE, SAME)
INPLACE(RELU_INPLACE, "aclnnInplaceRelu", relu, "selfRef", RELU_TYPES, PROMOTE, SAME)
aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    return emu_ew_unary(&RELU, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return emu_ew_unary(&RELU_INPLACE, selfRef, selfRef, workspaceSize, executor);
}
EMU_EW_PHASE2(Relu)
EMU_EW_PHASE2(InplaceRelu)

/* aclnnGelu is the tanh approximation (CANN's doc and golden):
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
static const emu_dtype_table GELU_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);
DEF(GELU, "aclnnGelu", gelu_tanh, "self", "out", GELU_TYPES, GELU_TYPES, PROMOTE, SAME)
aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor)
{
    return emu_ew_unary(&GELU, self, out, workspaceSize, executor);
}
EMU_EW_PHASE2(Gelu)

/* approximate 1 is the tanh form; every other value is erf's (CANN does
 * not validate it). */
DEF(GELU_V2_TANH, "aclnnGeluV2", gelu_tanh, "x", "y", GELU_TYPES, GELU_TYPES, PROMOTE, SAME)
DEF(GELU_V2_ERF, "aclnnGeluV2", gelu_erf, "x", "y", GELU_TYPES, GELU_TYPES, PROMOTE, SAME)
aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y, uint64_t *workspaceSize,
                                        aclOpExecutor **executor)
{
    return emu_ew_unary(approximate == 1 ? &GELU_V2_TANH : &GELU_V2_ERF, x, y, workspaceSize, executor);
}
EMU_EW_PHASE2(GeluV2)

/* out = clip(x / 6 + 1/2, 0, 1) in self's dtype (INT32 truncates). */
static const emu_dtype_table HARDSIGMOID_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_I32);
DEF(HARDSIGMOID, "aclnnHardsigmoid", hardsigmoid, "self", "out", HARDSIGMOID_TYPES, HARDSIGMOID_TYPES, PROMOTE, SAME)
INPLACE(HARDSIGMOID_INPLACE, "aclnnInplaceHardsigmoid", hardsigmoid, "self", HARDSIGMOID_TYPES, PROMOTE, SAME)
aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    return emu_ew_unary(&HARDSIGMOID, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceHardsigmoidGetWorkspaceSize(const aclTensor *self, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    return emu_ew_unary(&HARDSIGMOID_INPLACE, self, self, workspaceSize, executor);
}
EMU_EW_PHASE2(Hardsigmoid)
EMU_EW_PHASE2(InplaceHardsigmoid)

/* out = x * relu6(x + 3) / 6; self casts to out. */
static const emu_dtype_table HARDSWISH_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B);
DEF(HARDSWISH, "aclnnHardswish", hardswish, "self", "out", HARDSWISH_TYPES, HARDSWISH_TYPES, PROMOTE,
    CASTABLE_FROM_SELF)
INPLACE(HARDSWISH_INPLACE, "aclnnInplaceHardswish", hardswish, "self", HARDSWISH_TYPES, PROMOTE, CASTABLE_FROM_SELF)
aclnnStatus aclnnHardswishGetWorkspaceSize(const aclTensor *self, const aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor)
{
    return emu_ew_unary(&HARDSWISH, self, out, workspaceSize, executor);
}
aclnnStatus aclnnInplaceHardswishGetWorkspaceSize(const aclTensor *self, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    return emu_ew_unary(&HARDSWISH_INPLACE, self, self, workspaceSize, executor);
}
EMU_EW_PHASE2(Hardswish)
EMU_EW_PHASE2(InplaceHardswish)
