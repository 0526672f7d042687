/* Gated linear units: the input is split in two halves along `dim`, one
 * half is activated and multiplied by the other. Both halves are views of
 * the input (the second with an offset), so the element-wise driver runs
 * them with no copy.
 *   SwiGlu   (hicann/ops-nn activation/swi_glu, generated aclnn; rules from
 *            its doc and op definition): out = silu(A) * B.
 *   GeGluV3  (activation/ge_glu_v2/op_host/op_api/aclnn_geglu.cpp): with
 *            activateLeft, outGelu = gelu(A), out = gelu(A) * B; otherwise
 *            outGelu = gelu(B), out = A * gelu(B). approximate 0 is the erf
 *            form, 1 the tanh form.
 * Not on the training series (Ascend910). */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_swi_glu.h"
#include "ops/ew.h"

static const emu_dtype_table GLU_TYPES = {EMU_F | EMU_H | EMU_B, 0, EMU_F | EMU_H | EMU_B};

/* Resolves dim (negative counts from the end; a 0-d tensor counts as 1-d)
 * and checks that it splits self in two equal halves. */
static aclnnStatus split_dim(const char *api, const char *name, const aclTensor *self, int64_t dim, int32_t *out)
{
    const int64_t rank = self->view.rank > 0 ? self->view.rank : 1;
    if (dim < -rank || dim >= rank || self->view.rank == 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dim is %lld; expected a dimension of %s in [%lld, %lld].", api,
                        (long long)dim, name, (long long)-rank, (long long)(rank - 1));
    }
    const int32_t d = (int32_t)(dim < 0 ? dim + rank : dim);
    if (self->view.shape[d] % 2 != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %lld elements along dim %d; expected an even number, "
                                                 "split into two halves.", api, name,
                        (long long)self->view.shape[d], (int)d);
    }
    *out = d;
    return ACLNN_SUCCESS;
}

/* The two halves of self along d, as tensors of their own. */
static void halves(const aclTensor *self, int32_t d, aclTensor *first, aclTensor *second)
{
    *first = *self;
    first->view.shape[d] /= 2;
    *second = *first;
    second->view.offset += first->view.shape[d] * self->view.strides[d];
}

static aclnnStatus check_half_shape(const char *api, const char *name, const aclTensor *out, const aclTensor *half)
{
    if (!emu_view_same_shape(&out->view, &half->view)) {
        char have[256], want[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has shape %s; expected %s, the input with dim halved.", api,
                        name, emu_shape_string(&out->view, have, sizeof have),
                        emu_shape_string(&half->view, want, sizeof want));
    }
    return ACLNN_SUCCESS;
}

/* ---- SwiGlu ---- */

static const emu_ew_def SWIGLU = {.api = "aclnnSwiGlu", .kernel = EMU_EWK_swiglu, .input_count = 2,
                                  .names = {"x", "x", "out"}, .in_dtypes = &GLU_TYPES, .out_dtypes = &GLU_TYPES,
                                  .result = EMU_EW_RESULT_PROMOTE, .out_rule = EMU_EW_OUT_SAME};

aclnnStatus aclnnSwiGluGetWorkspaceSize(const aclTensor *x, int64_t dim, const aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnSwiGluGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "x", x));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_dtype_table(API, "x", x->view.dtype, &GLU_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &GLU_TYPES));
    int32_t d = 0;
    EMU_TRY(split_dim(API, "x", x, dim, &d));
    aclTensor first, second;
    halves(x, d, &first, &second);
    EMU_TRY(check_half_shape(API, "out", out, &first));
    const emu_ew_call call = EMU_EW_CALL(.inputs = {&first, &second}, .out = out);
    return emu_ew_phase1(&SWIGLU, &call, workspaceSize, executor);
}
EMU_EW_PHASE2(SwiGlu)

/* ---- GeGluV3, GeGlu ---- */

enum { GEGLU_ACT, GEGLU_OTHER, GEGLU_OUT, GEGLU_OUT_GELU };

#define GELU_DEF(var, kernel_, api_)                                                                         \
    static const emu_ew_def var = {.api = api_, .kernel = EMU_EWK_##kernel_, .input_count = 1,                \
                                   .names = {"self", "outGelu"}, .in_dtypes = &GLU_TYPES,                     \
                                   .out_dtypes = &GLU_TYPES, .result = EMU_EW_RESULT_PROMOTE,                 \
                                   .out_rule = EMU_EW_OUT_SAME};
#define GEGLU_DEF(var, kernel_, api_)                                                                        \
    static const emu_ew_def var = {.api = api_, .kernel = EMU_EWK_##kernel_, .input_count = 2,                \
                                   .names = {"self", "self", "out"}, .in_dtypes = &GLU_TYPES,                 \
                                   .out_dtypes = &GLU_TYPES, .result = EMU_EW_RESULT_PROMOTE,                 \
                                   .out_rule = EMU_EW_OUT_SAME};
GELU_DEF(GELU_ERF, gelu_erf, "aclnnGeGluV3")
GELU_DEF(GELU_TANH, gelu_tanh, "aclnnGeGluV3")
GEGLU_DEF(GEGLU_ERF, geglu_erf, "aclnnGeGluV3")
GEGLU_DEF(GEGLU_TANH, geglu_tanh, "aclnnGeGluV3")

static const char *run_geglu(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const emu_ew_plan *plans = (const emu_ew_plan *)executor->plan;
    emu_ew_execute(&plans[0], executor->tensors);
    return emu_ew_execute(&plans[1], executor->tensors);
}

static aclnnStatus geglu(const char *api, const char *phase2, const aclTensor *self, int64_t dim,
                         int64_t approximate, bool activateLeft, const aclTensor *out, const aclTensor *outGelu,
                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null(api, "self", self));
    EMU_TRY(emu_check_not_null(api, "out", out));
    EMU_TRY(emu_check_not_null(api, "outGelu", outGelu));
    EMU_TRY(emu_check_not_null(api, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(api, "executor", executor));
    EMU_TRY(emu_check_dtype_table(api, "self", self->view.dtype, &GLU_TYPES));
    EMU_TRY(emu_check_dtype_table(api, "out", out->view.dtype, &GLU_TYPES));
    EMU_TRY(emu_check_dtype_table(api, "outGelu", outGelu->view.dtype, &GLU_TYPES));
    int32_t d = 0;
    EMU_TRY(split_dim(api, "self", self, dim, &d));
    aclTensor first, second;
    halves(self, d, &first, &second);
    EMU_TRY(check_half_shape(api, "out", out, &first));
    EMU_TRY(check_half_shape(api, "outGelu", outGelu, &first));
    if (approximate != 0 && approximate != 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: approximate is %lld; expected 0 (erf) or 1 (tanh).", api,
                        (long long)approximate);
    }
    if (emu_views_share_bytes(&out->view, &outGelu->view)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out shares memory with outGelu; expected outputs in memory of "
                                                 "their own.", api);
    }
    const aclTensor *act = activateLeft ? &first : &second, *other = activateLeft ? &second : &first;
    /* out = gelu(act) * other, in the order of the halves. */
    const emu_ew_call gelu_call = EMU_EW_CALL(.inputs = {act}, .out = outGelu);
    const emu_ew_call out_call = EMU_EW_CALL(.inputs = {act, other}, .out = out);
    static const int GELU_SLOTS[] = {GEGLU_ACT, GEGLU_OUT_GELU};
    static const int OUT_SLOTS[] = {GEGLU_ACT, GEGLU_OTHER, GEGLU_OUT};
    emu_ew_plan plans[2];
    EMU_TRY(emu_ew_prepare(api, approximate == 1 ? &GELU_TANH : &GELU_ERF, &gelu_call, GELU_SLOTS, &plans[0]));
    EMU_TRY(emu_ew_prepare(api, approximate == 1 ? &GEGLU_TANH : &GEGLU_ERF, &out_call, OUT_SLOTS, &plans[1]));

    aclOpExecutor *planned = emu_executor_create(api, phase2, 2, 2);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_allow_aliasing(planned);
    static const char *const NAMES[] = {"self", "self", "out", "outGelu"};
    emu_executor_name_tensors(planned, NAMES);
    emu_executor_bind(planned, GEGLU_ACT, act);
    emu_executor_bind(planned, GEGLU_OTHER, other);
    emu_executor_bind(planned, GEGLU_OUT, out);
    emu_executor_bind(planned, GEGLU_OUT_GELU, outGelu);
    if (plans[1].rank < 0) {
        for (int i = 0; i < 4; ++i) {
            emu_executor_mark_unused(planned, i);
        }
    }
    memcpy(planned->plan, plans, sizeof plans);
    return emu_executor_publish(planned, run_geglu, 0, workspaceSize, executor);
}

aclnnStatus aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t approximate, bool activateLeft,
                                         aclTensor *out, aclTensor *outGelu, uint64_t *workspaceSize,
                                         aclOpExecutor **executor)
{
    return geglu("aclnnGeGluV3GetWorkspaceSize", "aclnnGeGluV3", self, dim, approximate, activateLeft, out, outGelu,
                 workspaceSize, executor);
}

aclnnStatus aclnnGeGluGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t approximate, aclTensor *out,
                                       aclTensor *outGelu, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return geglu("aclnnGeGluGetWorkspaceSize", "aclnnGeGlu", self, dim, approximate, false, out, outGelu,
                 workspaceSize, executor);
}
EMU_EW_PHASE2(GeGluV3)
EMU_EW_PHASE2(GeGlu)
