/* Casts, copies and fills, declared from CANN's op_api sources
 * (hicann/ops-math math/cast, conversion/view_copy (InplaceCopy),
 * math/zero_op (InplaceZero), conversion/fill (InplaceFillScalar)). All are
 * the element-wise identity or fill computed into the output's dtype: same
 * dtypes copy bytes, others convert (round to nearest even into floats,
 * truncation toward zero, saturating, into integers, non-zero to true). */
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_zero.h"
#include "ops/ew.h"

#define INTS (EMU_I8 | EMU_U8 | EMU_I16 | EMU_I32 | EMU_I64 | EMU_U16 | EMU_U32 | EMU_U64)
#define REALS (EMU_F | EMU_H | EMU_B | EMU_D | INTS | EMU_BOOL)
static const emu_dtype_table ANY_DTYPE = {EMU_ANY, EMU_ANY, EMU_ANY};

/* ---- Cast: out = self converted to dtype ---- */

static const emu_dtype_table CAST_TYPES = EMU_DTYPES(REALS);
static const emu_ew_def CAST = {.api = "aclnnCast", .kernel = EMU_EWK_identity, .input_count = 1,
                                .names = {"self", "out"}, .in_dtypes = &CAST_TYPES, .out_dtypes = &ANY_DTYPE,
                                .result = EMU_EW_RESULT_OUT, .out_rule = EMU_EW_OUT_ANY};

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnCastGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &CAST_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "dtype", dtype, &CAST_TYPES));
    /* CANN casts to dtype and then copies the result into out; a copy between
     * different dtypes is not what a caller means, so it is refused here. */
    if (out->view.dtype != dtype) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has dtype %s; expected %s, the dtype argument.", API,
                        emu_dtype_name(out->view.dtype), emu_dtype_name(dtype));
    }
    const emu_ew_call call = EMU_EW_CALL(.inputs = {self}, .out = out);
    return emu_ew_phase1(&CAST, &call, workspaceSize, executor);
}
EMU_EW_PHASE2(Cast)

/* ---- InplaceCopy: selfRef = src, src broadcast into selfRef and converted ---- */

static const emu_dtype_table COPY_TYPES = {REALS, REALS, REALS};
static const emu_ew_def INPLACE_COPY = {.api = "aclnnInplaceCopy", .kernel = EMU_EWK_identity, .input_count = 1,
                                        .names = {"src", "selfRef"}, .in_dtypes = &COPY_TYPES,
                                        .out_dtypes = &COPY_TYPES, .result = EMU_EW_RESULT_OUT,
                                        .out_rule = EMU_EW_OUT_ANY, .broadcast = true,
                                        .broadcast_into_out = true};

aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    static const char API[] = "aclnnInplaceCopyGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "selfRef", selfRef));
    EMU_TRY(emu_check_not_null(API, "src", src));
    EMU_TRY(emu_check_dtype_table(API, "selfRef", selfRef->view.dtype, &COPY_TYPES));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {src}, .out = selfRef);
    return emu_ew_get_workspace_size(&INPLACE_COPY, &call, workspaceSize, executor);
}
EMU_EW_PHASE2(InplaceCopy)

/* ---- InplaceZero and InplaceFillScalar: every element of selfRef set ---- */

static const emu_dtype_table ZERO_TYPES =
    {REALS & ~(EMU_U32 | EMU_U64), REALS & ~(EMU_U32 | EMU_U64), REALS & ~(EMU_U32 | EMU_U64)};
static const emu_ew_def INPLACE_ZERO = {.api = "aclnnInplaceZero", .kernel = EMU_EWK_fill, .input_count = 0,
                                        .names = {"selfRef"}, .in_dtypes = &ZERO_TYPES, .out_dtypes = &ZERO_TYPES,
                                        .result = EMU_EW_RESULT_OUT, .out_rule = EMU_EW_OUT_ANY};

aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null("aclnnInplaceZeroGetWorkspaceSize", "selfRef", selfRef));
    const emu_ew_call call = EMU_EW_CALL(.out = selfRef);
    return emu_ew_phase1(&INPLACE_ZERO, &call, workspaceSize, executor);
}
EMU_EW_PHASE2(InplaceZero)

static const emu_dtype_table FILL_TYPES = {REALS, REALS & ~(EMU_B | EMU_U16 | EMU_U32 | EMU_U64), REALS};
static const emu_ew_def INPLACE_FILL = {.api = "aclnnInplaceFillScalar", .kernel = EMU_EWK_fill, .input_count = 0,
                                        .names = {"selfRef"}, .in_dtypes = &FILL_TYPES, .out_dtypes = &FILL_TYPES,
                                        .result = EMU_EW_RESULT_OUT, .out_rule = EMU_EW_OUT_ANY};

aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnInplaceFillScalarGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "selfRef", selfRef));
    EMU_TRY(emu_check_not_null(API, "value", value));
    EMU_TRY(emu_check_dtype_table(API, "selfRef", selfRef->view.dtype, &FILL_TYPES));
    if (emu_promote_types(selfRef->view.dtype, emu_scalar_dtype(value)) == ACL_DT_UNDEFINED) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: value has dtype %s, which has no common dtype with selfRef's "
                                                 "%s; expected a value of a compatible dtype.", API,
                        emu_dtype_name(emu_scalar_dtype(value)), emu_dtype_name(selfRef->view.dtype));
    }
    /* The value is converted to selfRef's dtype first. */
    const aclDataType dtype = selfRef->view.dtype;
    const emu_ew_call call = {.out = selfRef, .scalar_dtype = ACL_DT_UNDEFINED, .result_dtype = ACL_DT_UNDEFINED,
                              .params = {emu_round_to_dtype(emu_scalar_to_double(value), dtype)},
                              .params_int = {emu_scalar_to_int64(value)}, .has_params_int = true};
    return emu_ew_phase1(&INPLACE_FILL, &call, workspaceSize, executor);
}
EMU_EW_PHASE2(InplaceFillScalar)
