/* Reductions over a list of dimensions, from CANN's op_api sources:
 *   ReduceSum  (hicann/ops-math math/reduce_sum/op_api/aclnn_reduce_sum.cpp)
 *   Mean, MeanV2 (math/reduce_mean/op_api/aclnn_mean.cpp)
 *   Norm       (hicann/ops-nn norm/lp_norm_v2/op_api/aclnn_norm.cpp)
 * self is cast to the kernel's dtype first (ReduceSum and Mean: `dtype`;
 * MeanV2: self's; Norm: FLOAT) and reduced in fp32 (fp16, bf16, fp32),
 * fp64 or wrapping int64. Empty self: ReduceSum and Norm fill out with 0,
 * Mean with NaN (0 into integers), as CANN does.
 *
 * Phase 2 is reduce_sum_run.c, which documents the fixed summation order.
 * Mean multiplies the fp32 sum by 1/n (as CANN's AI-core kernel does);
 * integer Mean divides the wrapped sum by n, truncating (its AI-CPU
 * kernel). Norm computes in fp32 whatever the dtypes (A2/A3 cast self to
 * FLOAT unless self and out are FLOAT/FLOAT16/BF16 pairs LpNormV2 takes,
 * which it computes in fp32 too). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_norm.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "ops/reduce.h"

static const char *const NAMES[] = {"self", "out"};

/* ---- phase 1 ---- */

/* After the operator's checks: the empty-self fill, or the reduction. */
static aclnnStatus plan_sum(const char *api, const char *phase2, const aclTensor *self, uint64_t mask, bool keepdim,
                            const aclTensor *out, emu_red_sum_plan *plan, double empty_value,
                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    EMU_TRY(emu_red_check_memory(api, "self", self, "out", out));
    if (emu_view_is_empty(&self->view)) {
        plan->fill = true;
        EMU_TRY(emu_red_fill_plan(api, out, empty_value, &plan->fill_plan));
        return emu_red_publish(api, phase2, NAMES, self, out, plan, sizeof *plan, plan->fill_plan.rank < 0 ? 3u : 1u,
                               emu_red_run_sum, 0, workspaceSize, executor);
    }
    plan->compute = emu_red_compute_for(plan->via);
    emu_red_split(&self->view, mask, &out->view, keepdim, false, &plan->geom);
    plan->blocks = (plan->geom.inner_count + EMU_RED_BLOCK - 1) / EMU_RED_BLOCK;
    return emu_red_publish(api, phase2, NAMES, self, out, plan, sizeof *plan, 0, emu_red_run_sum,
                           emu_red_sum_workspace(plan), workspaceSize, executor);
}

#define INTS (EMU_I8 | EMU_U8 | EMU_I16 | EMU_I32 | EMU_I64)
/* CANN's lists less COMPLEX64/COMPLEX128, which aclnn_emu does not implement. */
static const emu_dtype_table SUM_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_D | INTS | EMU_BOOL);
static const emu_dtype_table MEAN_TYPES = EMU_DTYPES(EMU_F | EMU_H | EMU_B | EMU_D | INTS);

aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keepDims,
                                           aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor)
{
    static const char API[] = "aclnnReduceSumGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "dims", dims));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &SUM_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &SUM_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "dtype", dtype, &SUM_TYPES));
    if (out->view.dtype != dtype) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has dtype %s; expected %s, the dtype argument.", API,
                        emu_dtype_name(out->view.dtype), emu_dtype_name(dtype));
    }
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_RED_MAX_RANK));
    uint64_t mask = 0;
    EMU_TRY(emu_red_dims_mask(API, "dims", self, dims, &mask));
    if (!emu_view_is_empty(&self->view)) {
        EMU_TRY(emu_red_check_out_shape(API, self, mask, keepDims, out));
    }
    /* dtype BOOL runs ReduceAny: the sum of 0/1 elements, non-zero to true. */
    emu_red_sum_plan plan = {.kind = EMU_RED_SUM, .via = dtype};
    return plan_sum(API, "aclnnReduceSum", self, mask, keepDims, out, &plan, 0.0, workspaceSize, executor);
}

aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnReduceSum", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnMeanGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "dim", dim));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &MEAN_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "dtype", dtype, &MEAN_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &MEAN_TYPES));
    if (!emu_can_cast(self->view.dtype, dtype) || !emu_can_cast(dtype, out->view.dtype)) {
        const bool first = !emu_can_cast(self->view.dtype, dtype);
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s %s cannot be cast to %s %s; expected self castable to "
                                                 "dtype and dtype to out.", API, first ? "self's dtype" : "dtype",
                        emu_dtype_name(first ? self->view.dtype : dtype), first ? "dtype" : "out's dtype",
                        emu_dtype_name(first ? dtype : out->view.dtype));
    }
    uint64_t mask = 0;
    EMU_TRY(emu_red_dims_mask(API, "dim", self, dim, &mask));
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_RED_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "out", out, EMU_RED_MAX_RANK));
    if (!emu_view_is_empty(&self->view)) {
        EMU_TRY(emu_red_check_out_shape(API, self, mask, keepDim, out));
    }
    emu_red_sum_plan plan = {.kind = EMU_RED_MEAN, .via = dtype};
    return plan_sum(API, "aclnnMean", self, mask, keepDim, out, &plan, NAN, workspaceSize, executor);
}

aclnnStatus aclnnMean(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnMean", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMeanV2GetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                        bool noopWithEmptyAxes, aclTensor *out, uint64_t *workspaceSize,
                                        aclOpExecutor **executor)
{
    static const char API[] = "aclnnMeanV2GetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "dim", dim));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &MEAN_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &MEAN_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    uint64_t mask = 0;
    EMU_TRY(emu_red_dims_mask(API, "dim", self, dim, &mask));
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_RED_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "out", out, EMU_RED_MAX_RANK));
    uint64_t dims = 0;
    aclGetIntArraySize(dim, &dims);
    if (dims == 0 && noopWithEmptyAxes) {
        mask = 0; /* self copied to out */
        keepDim = true;
    }
    if (!emu_view_is_empty(&self->view)) {
        EMU_TRY(emu_red_check_out_shape(API, self, mask, keepDim, out));
    }
    emu_red_sum_plan plan = {.kind = EMU_RED_MEAN, .via = self->view.dtype};
    return plan_sum(API, "aclnnMeanV2", self, mask, keepDim, out, &plan, NAN, workspaceSize, executor);
}

aclnnStatus aclnnMeanV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnMeanV2", workspace, workspaceSize, executor, stream);
}

/* ---- Norm ---- */

/* Python's math.isclose with rel_tol 1e-6, as LpNormV2's tiling picks its kernel. */
static bool isclose(float a, float b)
{
    if (a == b) {
        return true;
    }
    if (isinf(a) || isinf(b)) {
        return false;
    }
    const float diff = fabsf(b - a);
    return diff <= fabsf(1e-6f * b) || diff <= fabsf(1e-6f * a);
}

static emu_red_norm norm_for(float p, int64_t count)
{
    /* Off Ascend950, the op_api turns +-inf (and +-INT_MAX) into +-2^31 and
     * the kernel takes those for the infinity norms. */
    const bool regbase = emu_soc_get() == EMU_SOC_ASCEND950;
    if (isclose(p, 0.0f)) {
        return EMU_RED_P0;
    }
    if (isclose(p, 1.0f) || count == 1) {
        return EMU_RED_P1; /* a single element is reduced as |x| whatever p */
    }
    if (isclose(p, 2.0f)) {
        return EMU_RED_P2;
    }
    if (isclose(p, 3.0f)) {
        return EMU_RED_P3;
    }
    if (isinf(p) || (!regbase && fabsf(p) == 2147483648.0f)) {
        return p > 0 ? EMU_RED_PINF : EMU_RED_PNINF;
    }
    return EMU_RED_POTHER;
}

static const emu_dtype_table NORM_950_TYPES = {EMU_ANY, EMU_ANY, EMU_F | EMU_H | EMU_B};
#define REALS (EMU_F | EMU_H | EMU_B | EMU_D | INTS | EMU_U16 | EMU_U32 | EMU_U64 | EMU_BOOL)
static const emu_dtype_table NORM_TYPES = {REALS, REALS, REALS};

aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar, const aclIntArray *dim,
                                      bool keepdim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnNormGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "pScalar", pScalar));
    EMU_TRY(emu_check_not_null(API, "dim", dim));
    EMU_TRY(emu_check_not_null(API, "out", out));
    /* Only Ascend950 checks a list; A2/A3 cast any other dtype to FLOAT. */
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &NORM_950_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &NORM_950_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &NORM_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &NORM_TYPES));
    const aclDataType promoted = emu_promote_types(self->view.dtype, out->view.dtype);
    if (promoted == ACL_DT_UNDEFINED) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has dtype %s and out %s, which have no common dtype; "
                                                 "expected promotable dtypes.", API, emu_dtype_name(self->view.dtype),
                        emu_dtype_name(out->view.dtype));
    }
    if (emu_soc_get() == EMU_SOC_ASCEND950 && !emu_can_cast(promoted, out->view.dtype)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the result dtype %s cannot be cast to out's %s; expected out "
                                                 "of a dtype it casts to.", API, emu_dtype_name(promoted),
                        emu_dtype_name(out->view.dtype));
    }
    uint64_t mask = 0;
    EMU_TRY(emu_red_dims_mask(API, "dim", self, dim, &mask));
    EMU_TRY(emu_check_max_rank(API, "self", self, EMU_RED_MAX_RANK));
    EMU_TRY(emu_check_max_rank(API, "out", out, EMU_RED_MAX_RANK));
    EMU_TRY(emu_red_check_out_shape(API, self, mask, keepdim, out));
    float p = (float)emu_scalar_to_double(pScalar);
    if (emu_soc_get() != EMU_SOC_ASCEND950) {
        if ((isinf(p) && p > 0) || fabsf(p - 2147483648.0f) < 1e-6f) {
            p = 2147483648.0f;
        } else if ((isinf(p) && p < 0) || fabsf(p + 2147483648.0f) < 1e-6f) {
            p = -2147483648.0f;
        }
    }
    int64_t count = 1;
    for (int32_t d = 0; d < self->view.rank; ++d) {
        count *= ((mask >> d) & 1u) ? self->view.shape[d] : 1;
    }
    emu_red_sum_plan plan = {.kind = EMU_RED_NORM, .via = ACL_FLOAT, .p = p, .norm = norm_for(p, count)};
    return plan_sum(API, "aclnnNorm", self, mask, keepdim, out, &plan, 0.0, workspaceSize, executor);
}

aclnnStatus aclnnNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnNorm", workspace, workspaceSize, executor, stream);
}
