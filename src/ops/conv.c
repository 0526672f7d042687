/* Convolution (hicann/ops-nn conv/convolution_forward/op_host/op_api/
 * aclnn_convolution.cpp, docs/aclnnConvolution.md): 1-D (NCL) and 2-D
 * (NCHW) convolutions, transposed or not, with stride, padding, dilation,
 * outputPadding (transposed), groups and an optional bias. 3-D (NCDHW) is
 * refused with 161002; so are ConvTbc and ConvDepthwise2d (not
 * implemented: their stubs answer 561003).
 *
 * Checks in CANN's order: NULL input, weight, stride, padding, dilation,
 * output, workspaceSize, executor (and outputPadding when transposed);
 * dtypes (input, weight, output FLOAT, FLOAT16 or BF16 on Atlas A2/A3 and
 * Ascend950, FLOAT or FLOAT16 on the training series; bias FLOAT, FLOAT16
 * or BF16); ranks (input, weight, output of 3 to 5 dimensions, all equal;
 * bias 1-D of the output channels; stride and dilation one value per
 * spatial dimension; padding 1 or 2 values for a 1-D non-transposed
 * convolution, 2 or 4 for 2-D, else one per spatial dimension; outputPadding
 * one per spatial dimension); formats (input and output the same; NCL for
 * all three tensors in 1-D, NCHW in 2-D); values (spatial sizes, stride and
 * dilation > 0, the padded input at least the dilated kernel, groups > 0
 * dividing the channels, outputPadding >= 0 and below stride or dilation,
 * a transposed input with channels, the transposed kernel reach
 * (K - 1) * dilation - padding <= 255 of CANN's kernels); the output shape;
 * cubeMathType. The computation is in conv_run.c. */
#include <string.h>

#include "aclnnop/aclnn_convolution.h"
#include "ops/check.h"
#include "ops/conv.h"
#include "ops/opdef.h"

static const char API[] = "aclnnConvolutionGetWorkspaceSize";
static const char *const NAMES[] = {"input", "weight", "bias", "output"};

static const emu_dtype_table CONV_TYPES = EMU_DTYPES(EMU_DTS_FLOAT);
static const emu_dtype_table BIAS_TYPES = {EMU_DTS_FLOAT, EMU_DTS_FLOAT, EMU_DTS_FLOAT};

typedef struct {
    int spatial;                      /* 1 or 2 */
    int64_t stride[2], dilation[2];
    int64_t pad_front[2], pad_total[2];
    int64_t out_pad[2];
} conv_attrs;

static aclnnStatus check_rank(const char *name, const aclTensor *t)
{
    if (t->view.rank < 3 || t->view.rank > 5) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %d dimensions; expected 3 (NCL), 4 (NCHW) or 5 "
                                                 "(NCDHW).", API, name, (int)t->view.rank);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_list_size(const char *name, uint64_t size, uint64_t a, uint64_t b)
{
    if (size != a && size != b) {
        if (a == b) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %llu values; expected %llu.", API, name,
                            (unsigned long long)size, (unsigned long long)a);
        }
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %llu values; expected %llu or %llu.", API, name,
                        (unsigned long long)size, (unsigned long long)a, (unsigned long long)b);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_ranks(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                               const aclTensor *output, bool transposed, int64_t groups, const aclIntArray *stride,
                               const aclIntArray *padding, const aclIntArray *dilation,
                               const aclIntArray *output_padding)
{
    EMU_TRY(check_rank("input", input));
    EMU_TRY(check_rank("weight", weight));
    EMU_TRY(check_rank("output", output));
    const int32_t rank = input->view.rank;
    if (weight->view.rank != rank || output->view.rank != rank) {
        const aclTensor *odd = weight->view.rank != rank ? weight : output;
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %d dimensions and input %d; expected the same.", API,
                        odd == weight ? "weight" : "output", (int)odd->view.rank, (int)rank);
    }
    if (bias != NULL) {
        const int64_t want = transposed ? weight->view.shape[1] * groups : weight->view.shape[0];
        if (bias->view.rank != 1 || bias->view.shape[0] != want) {
            char shape[256];
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: bias has shape %s; expected [%lld] (%s).", API,
                            emu_shape_string(&bias->view, shape, sizeof shape), (long long)want,
                            transposed ? "weight.shape[1] * groups when transposed" : "weight.shape[0]");
        }
    }
    uint64_t n = 0;
    const uint64_t spatial = (uint64_t)rank - 2;
    emu_int_array_values(stride, &n);
    EMU_TRY(check_list_size("stride", n, spatial, spatial));
    emu_int_array_values(dilation, &n);
    EMU_TRY(check_list_size("dilation", n, spatial, spatial));
    emu_int_array_values(padding, &n);
    if ((rank == 3 && !transposed) || rank == 4) {
        EMU_TRY(check_list_size("padding", n, spatial, 2 * spatial));
    } else {
        EMU_TRY(check_list_size("padding", n, spatial, spatial));
    }
    if (transposed) {
        emu_int_array_values(output_padding, &n);
        EMU_TRY(check_list_size("outputPadding", n, spatial, spatial));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_formats(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                 const aclTensor *output)
{
    if (input->format != output->format) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: input is %s and output %s; expected the same format.", API,
                        conv_format_name(input->format), conv_format_name(output->format));
    }
    if (bias != NULL && bias->format != ACL_FORMAT_ND && bias->format != ACL_FORMAT_NCL &&
        bias->format != ACL_FORMAT_NCHW && bias->format != ACL_FORMAT_NCDHW) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: bias is %s; expected ND, NCL, NCHW or NCDHW.", API,
                        conv_format_name(bias->format));
    }
    if (input->view.rank == 5) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: input has 5 dimensions (a 3-D convolution), which aclnn_emu "
                                                 "does not implement; expected 3 (NCL) or 4 (NCHW).", API);
    }
    const aclFormat want = input->view.rank == 3 ? ACL_FORMAT_NCL : ACL_FORMAT_NCHW;
    const aclTensor *const t[3] = {input, weight, output};
    for (int i = 0; i < 3; ++i) {
        if (t[i]->format != want) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s is %s; a %dd convolution expects %s.", API,
                            NAMES[i == 2 ? 3 : i], conv_format_name(t[i]->format), (int)input->view.rank - 2,
                            conv_format_name(want));
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus read_attrs(int spatial, bool transposed, const aclIntArray *stride, const aclIntArray *padding,
                              const aclIntArray *dilation, const aclIntArray *output_padding, conv_attrs *a)
{
    uint64_t n = 0;
    const int64_t *s = emu_int_array_values(stride, &n), *d = emu_int_array_values(dilation, &n);
    const int64_t *p = emu_int_array_values(padding, &n);
    a->spatial = spatial;
    for (int i = 0; i < spatial; ++i) {
        a->stride[i] = s[i];
        a->dilation[i] = d[i];
        if (n == (uint64_t)spatial) {
            a->pad_front[i] = p[i];
            a->pad_total[i] = 2 * p[i];
        } else { /* 1-D [left, right]; 2-D [top, bottom, left, right] */
            a->pad_front[i] = p[2 * i];
            a->pad_total[i] = p[2 * i] + p[2 * i + 1];
        }
        if (a->stride[i] <= 0 || a->dilation[i] <= 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s[%d] is %lld; expected a value greater than 0.", API,
                            a->stride[i] <= 0 ? "stride" : "dilation", i,
                            (long long)(a->stride[i] <= 0 ? a->stride[i] : a->dilation[i]));
        }
    }
    for (uint64_t i = 0; i < n; ++i) {
        if (p[i] < 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: padding[%llu] is %lld; expected 0 or more.", API,
                            (unsigned long long)i, (long long)p[i]);
        }
    }
    memset(a->out_pad, 0, sizeof a->out_pad);
    if (transposed) {
        const int64_t *o = emu_int_array_values(output_padding, &n);
        for (int i = 0; i < spatial; ++i) {
            a->out_pad[i] = o[i];
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_values(const aclTensor *input, const aclTensor *weight, bool transposed, int64_t groups,
                                const conv_attrs *a)
{
    char si[256], sw[256];
    emu_shape_string(&input->view, si, sizeof si);
    emu_shape_string(&weight->view, sw, sizeof sw);
    for (int i = 0; i < a->spatial; ++i) {
        if (weight->view.shape[2 + i] <= 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: weight has shape %s; expected kernel sizes greater than 0.",
                            API, sw);
        }
        const int64_t reach = a->dilation[i] * (weight->view.shape[2 + i] - 1) + 1;
        if (!transposed && !emu_view_is_empty(&input->view) &&
            input->view.shape[2 + i] + a->pad_total[i] < reach) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: input %s padded by %lld is smaller than the dilated "
                                                     "kernel (%lld) of weight %s in spatial dimension %d.", API, si,
                            (long long)a->pad_total[i], (long long)reach, sw, i);
        }
    }
    if (groups <= 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: groups is %lld; expected a value greater than 0.", API,
                        (long long)groups);
    }
    const int64_t cin = input->view.shape[1];
    if (transposed) {
        if (weight->view.shape[0] != cin) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: weight %s and input %s; a transposed convolution expects "
                                                     "weight.shape[0] equal to the input channels.", API, sw, si);
        }
        for (int i = 0; i < a->spatial; ++i) {
            if (a->out_pad[i] >= a->stride[i] && a->out_pad[i] >= a->dilation[i]) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: outputPadding[%d] is %lld; expected less than "
                                                         "stride[%d] (%lld) or dilation[%d] (%lld).", API, i,
                                (long long)a->out_pad[i], i, (long long)a->stride[i], i, (long long)a->dilation[i]);
            }
            if (a->out_pad[i] < 0) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: outputPadding[%d] is %lld; expected 0 or more.", API,
                                i, (long long)a->out_pad[i]);
            }
        }
    } else if (weight->view.shape[1] * groups != cin) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: weight %s with groups %lld and input %s; expected "
                                                 "weight.shape[1] * groups equal to the input channels.", API, sw,
                        (long long)groups, si);
    }
    if (weight->view.shape[0] % groups != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: weight %s; expected weight.shape[0] divisible by groups "
                                                 "(%lld).", API, sw, (long long)groups);
    }
    if (transposed && cin == 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: input %s has no channels; a transposed convolution expects "
                                                 "some.", API, si);
    }
    return ACLNN_SUCCESS;
}

/* CANN's transposed kernels reach at most 255 positions beyond the padding. */
static aclnnStatus check_transposed_reach(const aclTensor *weight, uint64_t pad_count, const int64_t *pads,
                                          const conv_attrs *a)
{
    for (int i = 0; i < a->spatial; ++i) {
        /* CANN reads padding[0] for rows and padding[1] (when given) for columns. */
        const int64_t pad = pads[a->spatial == 1 || pad_count == 1 ? 0 : (uint64_t)i];
        const int64_t reach = (weight->view.shape[2 + i] - 1) * a->dilation[i] - pad;
        if (reach > 255) {
            char sw[256];
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: weight %s with dilation %lld and padding %lld; a "
                                                     "transposed convolution expects (kernel - 1) * dilation - "
                                                     "padding <= 255 (it is %lld).", API,
                            emu_shape_string(&weight->view, sw, sizeof sw), (long long)a->dilation[i],
                            (long long)pad, (long long)reach);
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_output_shape(const aclTensor *input, const aclTensor *weight, const aclTensor *output,
                                      bool transposed, int64_t groups, const conv_attrs *a)
{
    emu_view want = output->view;
    want.shape[0] = input->view.shape[0];
    want.shape[1] = transposed ? weight->view.shape[1] * groups : weight->view.shape[0];
    for (int i = 0; i < a->spatial; ++i) {
        const int64_t in = input->view.shape[2 + i], k = weight->view.shape[2 + i];
        want.shape[2 + i] = transposed ? (in - 1) * a->stride[i] - a->pad_total[i] + a->dilation[i] * (k - 1) +
                                             a->out_pad[i] + 1
                                       : (in + a->pad_total[i] - a->dilation[i] * (k - 1) - 1) / a->stride[i] + 1;
    }
    char have[256], need[256];
    if (!emu_view_same_shape(&output->view, &want)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: output has shape %s; expected %s.", API,
                        emu_shape_string(&output->view, have, sizeof have), emu_shape_string(&want, need, sizeof need));
    }
    if ((emu_view_is_empty(&input->view) || emu_view_is_empty(&weight->view)) && !emu_view_is_empty(&output->view)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: input or weight is empty and output %s is not; expected an "
                                                 "empty output.", API, emu_shape_string(&output->view, have, sizeof have));
    }
    return ACLNN_SUCCESS;
}

static aclDataType compute_dtype(aclDataType a, aclDataType b)
{
    return a == b ? a : ACL_FLOAT; /* CANN's GetUpperFloatDataType for these dtypes */
}

static conv_rounding rounding_for(aclDataType compute, int8_t cube_math_type)
{
    if (compute != ACL_FLOAT) {
        return CONV_EXACT;
    }
    if (cube_math_type == CONV_USE_FP16 ||
        (emu_soc_get() == EMU_SOC_ASCEND910 && cube_math_type == CONV_ALLOW_FP32_DOWN_PRECISION)) {
        return CONV_ROUND_F16;
    }
    if (cube_math_type == CONV_ALLOW_FP32_DOWN_PRECISION || cube_math_type == CONV_USE_HF32) {
        return CONV_ROUND_HF32;
    }
    return CONV_EXACT;
}

aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                             const aclIntArray *stride, const aclIntArray *padding,
                                             const aclIntArray *dilation, bool transposed,
                                             const aclIntArray *outputPadding, const int64_t groups,
                                             aclTensor *output, int8_t cubeMathType, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    EMU_TRY(emu_check_not_null(API, "input", input));
    EMU_TRY(emu_check_not_null(API, "weight", weight));
    EMU_TRY(emu_check_not_null(API, "stride", stride));
    EMU_TRY(emu_check_not_null(API, "padding", padding));
    EMU_TRY(emu_check_not_null(API, "dilation", dilation));
    EMU_TRY(emu_check_not_null(API, "output", output));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    if (transposed) {
        EMU_TRY(emu_check_not_null(API, "outputPadding", outputPadding));
    }
    if (bias != NULL) {
        EMU_TRY(emu_check_dtype_table(API, "bias", bias->view.dtype, &BIAS_TYPES));
    }
    EMU_TRY(emu_check_dtype_table(API, "input", input->view.dtype, &CONV_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "weight", weight->view.dtype, &CONV_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "output", output->view.dtype, &CONV_TYPES));
    if (transposed && output->view.dtype != input->view.dtype) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: output has dtype %s and input %s; a transposed convolution "
                                                 "expects the same.", API, emu_dtype_name(output->view.dtype),
                        emu_dtype_name(input->view.dtype));
    }
    EMU_TRY(check_ranks(input, weight, bias, output, transposed, groups, stride, padding, dilation, outputPadding));
    EMU_TRY(check_formats(input, weight, bias, output));
    conv_attrs a;
    EMU_TRY(read_attrs(input->view.rank - 2, transposed, stride, padding, dilation, outputPadding, &a));
    EMU_TRY(check_values(input, weight, transposed, groups, &a));
    const bool empty = emu_view_is_empty(&input->view) || emu_view_is_empty(&weight->view) ||
                       emu_view_is_empty(&output->view);
    if (transposed && !empty) {
        uint64_t pad_count = 0;
        const int64_t *pads = emu_int_array_values(padding, &pad_count);
        EMU_TRY(check_transposed_reach(weight, pad_count, pads, &a));
    }
    EMU_TRY(check_output_shape(input, weight, output, transposed, groups, &a));
    const aclDataType compute = compute_dtype(input->view.dtype, weight->view.dtype);
    EMU_TRY(conv_check_cube_math_type(API, cubeMathType, compute));

    const aclTensor *const t[4] = {input, weight, bias, output};
    aclOpExecutor *planned = NULL;
    if (empty) {
        planned = emu_executor_create(API, "aclnnConvolution", 3, 1);
        if (planned == NULL) {
            return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        }
        emu_executor_name_tensors(planned, NAMES);
        for (int i = 0; i < 4; ++i) {
            emu_executor_bind(planned, i, t[i]);
            emu_executor_mark_unused(planned, i);
        }
        return emu_executor_publish(planned, conv_run_nothing, 0, workspaceSize, executor);
    }
    for (int i = 0; i < 4; ++i) {
        if (t[i] != NULL) {
            EMU_TRY(emu_check_has_data(API, NAMES[i], t[i]));
            EMU_TRY(emu_check_device_memory(API, NAMES[i], t[i]));
        }
    }
    EMU_TRY(emu_check_output_not_self_overlapping(API, "output", output));
    EMU_TRY(emu_check_outputs_separate(API, NAMES, t, 3, 4));

    planned = emu_executor_create(API, "aclnnConvolution", 3, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    for (int i = 0; i < 4; ++i) {
        emu_executor_bind(planned, i, t[i]);
    }
    conv_plan *p = (conv_plan *)planned->plan;
    memset(p, 0, sizeof *p);
    const emu_view *iv = &input->view, *wv = &weight->view, *ov = &output->view;
    const bool two = a.spatial == 2;
    p->n = iv->shape[0];
    p->cin = iv->shape[1];
    p->cout = ov->shape[1];
    p->groups = groups;
    p->ih = two ? iv->shape[2] : 1;
    p->iw = iv->shape[iv->rank - 1];
    p->kh = two ? wv->shape[2] : 1;
    p->kw = wv->shape[wv->rank - 1];
    p->oh = two ? ov->shape[2] : 1;
    p->ow = ov->shape[ov->rank - 1];
    p->sh = two ? a.stride[0] : 1;
    p->sw = a.stride[a.spatial - 1];
    p->dh = two ? a.dilation[0] : 1;
    p->dw = a.dilation[a.spatial - 1];
    p->ph = two ? a.pad_front[0] : 0;
    p->pw = a.pad_front[a.spatial - 1];
    p->transposed = transposed;
    p->has_bias = bias != NULL;
    p->rounding = rounding_for(compute, cubeMathType);
    p->in_elems = emu_view_numel(iv);
    p->w_elems = emu_view_numel(wv);
    p->out_stride[0] = ov->strides[0];
    p->out_stride[1] = ov->strides[1];
    p->out_stride[2] = two ? ov->strides[2] : 0;
    p->out_stride[3] = ov->strides[ov->rank - 1];
    const uint64_t ws = (uint64_t)(p->in_elems + p->w_elems + (bias != NULL ? p->cout : 0)) * sizeof(float);
    return emu_executor_publish(planned, conv_run, ws, workspaceSize, executor);
}

aclnnStatus aclnnConvolution(void *workspace, const uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream)
{
    return emu_executor_run("aclnnConvolution", workspace, workspaceSize, executor, stream);
}
