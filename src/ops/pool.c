/* AvgPool2d (hicann/ops-nn pooling/avg_pool3_d/op_api/aclnn_avgpool2d.cpp)
 * and MaxPool (pooling/max_pool_v3/op_api/aclnn_max_pool.cpp) over the last
 * two dimensions of a (C, H, W) or (N, C, H, W) tensor.
 *
 * AvgPool2d: self and out FLOAT, FLOAT16 or BF16 (no BF16 on the training
 * series), the same dtype, NCL when 3-D and NCHW when 4-D; kernelSize of 1
 * (square) or 2 values, strides of 0 (the kernel), 1 or 2, paddings of 1 or
 * 2 values at most half the kernel; PyTorch's output size and ceil mode;
 * the divisor is divisorOverride when not 0, else the window clipped to the
 * padded input (countIncludePad) or to the input. cubeMathType: 0..4; on
 * Atlas A2/A3 an fp32 input takes 0 (fp32) or 2 (USE_FP16: through fp16)
 * only, on the training series 1 or 2 (through fp16).
 *
 * MaxPool: FLOAT16 or FLOAT on Atlas A2/A3, FLOAT16 on the training series,
 * FLOAT16, FLOAT or BF16 on Ascend950 (its integer dtypes are refused:
 * aclnn_emu does not implement them); any public format, the same for self
 * and out; kernelShape of 1 or 2 values, strides of 0 (1), 1 or 2, pads of
 * 0, 1, 2 or 4 values ([top, left, bottom, right]) summing at most to the
 * kernel per axis, dilations of 0, 1, 2 or 4 values all 1, autoPad 0
 * (NOTSET); ceilMode as a bool. Padding never wins the maximum; NaN does.
 *
 * Every output is computed from its window alone: sums in fp32 in row, then
 * column order, then divided by the divisor (CANN's cube path multiplies
 * by the reciprocal of the window instead); results do not depend on the
 * thread count. */
#include <math.h>
#include <string.h>

#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_max_pool.h"
#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "ops/check.h"
#include "ops/conv.h"
#include "ops/opdef.h"

typedef struct {
    bool is_max, count_include_pad;
    conv_rounding rounding;
    int64_t planes, channels, h, w, oh, ow, kh, kw, sh, sw;
    int64_t pt, pb, pl, pr; /* padding top, bottom, left, right */
    int64_t divisor;        /* 0: from the window */
    int64_t in_stride[4], out_stride[4]; /* n, c, h, w (n is 0 for 3-D) */
} pool_plan;

_Static_assert(sizeof(pool_plan) <= EMU_PLAN_BYTES, "pool_plan must fit in the executor");

typedef struct {
    const pool_plan *p;
    const char *x;
    char *out;
    aclDataType in_dtype, out_dtype;
} pool_ctx;

static float load(const char *p, aclDataType dtype)
{
    uint16_t h;
    float f;
    switch (dtype) {
    case ACL_FLOAT16:
        memcpy(&h, p, 2);
        return emu_f16_to_f32(h);
    case ACL_BF16:
        memcpy(&h, p, 2);
        return emu_bf16_to_f32(h);
    default:
        memcpy(&f, p, 4);
        return f;
    }
}

/* One output from the plane at x (element strides in_stride[2..3], bytes esize). */
static float pool_one(const pool_plan *p, const char *x, aclDataType dtype, int64_t oh, int64_t ow)
{
    const int64_t esize = (int64_t)emu_dtype_size(dtype), rs = p->in_stride[2] * esize, cs = p->in_stride[3] * esize;
    int64_t h0 = oh * p->sh - p->pt, w0 = ow * p->sw - p->pl;
    int64_t h1 = h0 + p->kh, w1 = w0 + p->kw;
    /* PyTorch's avg_pool2d divisor: the window clipped to the padded input, or to the input. */
    const int64_t hp = h1 > p->h + p->pb ? p->h + p->pb : h1, wp = w1 > p->w + p->pr ? p->w + p->pr : w1;
    const int64_t padded = (hp - h0) * (wp - w0);
    h0 = h0 < 0 ? 0 : h0;
    w0 = w0 < 0 ? 0 : w0;
    h1 = h1 > p->h ? p->h : h1;
    w1 = w1 > p->w ? p->w : w1;
    if (p->is_max) {
        float m = -INFINITY;
        for (int64_t i = h0; i < h1; ++i) {
            for (int64_t j = w0; j < w1; ++j) {
                const float v = load(x + i * rs + j * cs, dtype);
                if (isnan(v)) {
                    return v;
                }
                m = v > m ? v : m;
            }
        }
        return m;
    }
    float sum = 0.0f;
    for (int64_t i = h0; i < h1; ++i) {
        for (int64_t j = w0; j < w1; ++j) {
            sum += conv_round(load(x + i * rs + j * cs, dtype), p->rounding);
        }
    }
    const int64_t divisor = p->divisor != 0 ? p->divisor : p->count_include_pad ? padded : (h1 - h0) * (w1 - w0);
    return conv_round(sum / (float)divisor, p->rounding);
}

static void pool_range(void *opaque, size_t begin, size_t end)
{
    const pool_ctx *c = opaque;
    const pool_plan *p = c->p;
    const int64_t osize = (int64_t)emu_dtype_size(c->out_dtype), isize = (int64_t)emu_dtype_size(c->in_dtype);
    float row[256];
    for (size_t task = begin; task < end; ++task) {
        const int64_t oh = (int64_t)task % p->oh, plane = (int64_t)task / p->oh;
        const int64_t n = plane / p->channels, ch = plane % p->channels;
        const char *x = c->x + (n * p->in_stride[0] + ch * p->in_stride[1]) * isize;
        char *dst = c->out + (n * p->out_stride[0] + ch * p->out_stride[1] + oh * p->out_stride[2]) * osize;
        for (int64_t ow0 = 0; ow0 < p->ow; ow0 += 256) {
            const int64_t len = p->ow - ow0 < 256 ? p->ow - ow0 : 256;
            for (int64_t j = 0; j < len; ++j) {
                row[j] = pool_one(p, x, c->in_dtype, oh, ow0 + j);
            }
            conv_store_f32(row, c->out_dtype, dst + ow0 * p->out_stride[3] * osize, p->out_stride[3], len);
        }
    }
}

/* No workspace: ggml's MaxPool input is a padded buffer that its allocation
 * does not cover entirely, and the workspace it gets next would overlap it. */
static const char *pool_run(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const pool_plan *p = (const pool_plan *)executor->plan;
    pool_ctx c = {.p = p, .x = emu_view_origin(&executor->tensors[0]), .out = emu_view_origin(&executor->tensors[1]),
                  .in_dtype = executor->tensors[0].dtype, .out_dtype = executor->tensors[1].dtype};
    emu_parallel_for((size_t)(p->planes * p->oh), 8, pool_range, &c);
    return p->is_max ? "max_pool2d_f32" : "avg_pool2d_f32";
}

/* PyTorch's pooling output size; ceil mode drops a last window that would start in the padding. */
static int64_t pool_out_size(int64_t in, int64_t k, int64_t pad_front, int64_t pad_back, int64_t s, bool ceil_mode)
{
    int64_t out = conv_floor_div(in + pad_front + pad_back - k + (ceil_mode ? s - 1 : 0), s) + 1;
    if (ceil_mode && (out - 1) * s >= in + pad_front) {
        --out;
    }
    return out;
}

/* The (C, H, W) sizes are not 0, the output is the expected shape, and the plan gets the geometry. */
static aclnnStatus finish_shape(const char *api, const aclTensor *self, const aclTensor *out, pool_plan *p,
                                bool ceil_mode)
{
    const emu_view *v = &self->view;
    const bool is3d = v->rank == 3;
    const int64_t n = is3d ? 1 : v->shape[0];
    p->channels = v->shape[v->rank - 3];
    p->h = v->shape[v->rank - 2];
    p->w = v->shape[v->rank - 1];
    char shape[256], want_s[256];
    if (p->channels == 0 || p->h == 0 || p->w == 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has shape %s; expected non-zero channel, height and "
                                                 "width (only the batch may be 0).", api,
                        emu_shape_string(v, shape, sizeof shape));
    }
    p->oh = pool_out_size(p->h, p->kh, p->pt, p->pb, p->sh, ceil_mode);
    p->ow = pool_out_size(p->w, p->kw, p->pl, p->pr, p->sw, ceil_mode);
    if (p->oh <= 0 || p->ow <= 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self %s gives an output of %lld x %lld; expected a positive "
                                                 "size.", api, emu_shape_string(v, shape, sizeof shape),
                        (long long)p->oh, (long long)p->ow);
    }
    emu_view want = *v;
    want.shape[v->rank - 2] = p->oh;
    want.shape[v->rank - 1] = p->ow;
    if (!emu_view_same_shape(&out->view, &want)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected %s.", api,
                        emu_shape_string(&out->view, shape, sizeof shape), emu_shape_string(&want, want_s, sizeof want_s));
    }
    p->planes = n * p->channels;
    const emu_view *o = &out->view;
    p->out_stride[0] = is3d ? 0 : o->strides[0];
    p->out_stride[1] = o->strides[o->rank - 3];
    p->out_stride[2] = o->strides[o->rank - 2];
    p->out_stride[3] = o->strides[o->rank - 1];
    for (int i = 0; i < 4; ++i) {
        p->in_stride[i] = i == 0 && is3d ? 0 : v->strides[v->rank - 4 + i];
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus publish(const char *api, const char *phase2, const aclTensor *self, const aclTensor *out,
                           const pool_plan *plan, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char *const NAMES[] = {"self", "out"};
    const aclTensor *const t[2] = {self, out};
    const bool empty = emu_view_is_empty(&self->view) || emu_view_is_empty(&out->view);
    if (!empty) {
        for (int i = 0; i < 2; ++i) {
            EMU_TRY(emu_check_has_data(api, NAMES[i], t[i]));
            EMU_TRY(emu_check_device_memory(api, NAMES[i], t[i]));
        }
        EMU_TRY(emu_check_output_not_self_overlapping(api, "out", out));
        EMU_TRY(emu_check_outputs_separate(api, NAMES, t, 1, 2));
    }
    aclOpExecutor *planned = emu_executor_create(api, phase2, 1, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    for (int i = 0; i < 2; ++i) {
        emu_executor_bind(planned, i, t[i]);
        if (empty) {
            emu_executor_mark_unused(planned, i);
        }
    }
    if (empty) {
        return emu_executor_publish(planned, conv_run_nothing, 0, workspaceSize, executor);
    }
    memcpy(planned->plan, plan, sizeof *plan);
    return emu_executor_publish(planned, pool_run, 0, workspaceSize, executor);
}

static aclnnStatus check_list_values(const char *api, const char *name, const int64_t *v, uint64_t n, int64_t min)
{
    for (uint64_t i = 0; i < n; ++i) {
        if (v[i] < min) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s[%llu] is %lld; expected %s.", api, name,
                            (unsigned long long)i, (long long)v[i], min > 0 ? "a value greater than 0" : "0 or more");
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_same_dtype_and_rank(const char *api, const aclTensor *self, const aclTensor *out)
{
    EMU_TRY(emu_check_same_dtype(api, "out", out, "self", self));
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- AvgPool2d */

static const emu_dtype_table AVG_TYPES = EMU_DTYPES(EMU_DTS_FLOAT);

aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                           const aclIntArray *strides, const aclIntArray *paddings, const bool ceilMode,
                                           const bool countIncludePad, const int64_t divisorOverride,
                                           const int8_t cubeMathType, aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor)
{
    static const char API[] = "aclnnAvgPool2dGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "kernelSize", kernelSize));
    EMU_TRY(emu_check_not_null(API, "strides", strides));
    EMU_TRY(emu_check_not_null(API, "paddings", paddings));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &AVG_TYPES));
    EMU_TRY(emu_check_dtype_table(API, "out", out->view.dtype, &AVG_TYPES));
    EMU_TRY(check_same_dtype_and_rank(API, self, out));
    const aclFormat fs = self->format, fo = out->format;
    if ((fs != ACL_FORMAT_NCHW && fs != ACL_FORMAT_NCL) || (fo != ACL_FORMAT_NCHW && fo != ACL_FORMAT_NCL) ||
        (self->view.rank == 4 && (fs != ACL_FORMAT_NCHW || fo != ACL_FORMAT_NCHW)) ||
        (self->view.rank == 3 && (fs != ACL_FORMAT_NCL || fo != ACL_FORMAT_NCL))) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self is %s and out %s; expected both NCHW (4-D) or both NCL "
                                                 "(3-D).", API, conv_format_name(fs), conv_format_name(fo));
    }
    uint64_t nk = 0, ns = 0, np = 0;
    const int64_t *k = emu_int_array_values(kernelSize, &nk), *s = emu_int_array_values(strides, &ns);
    const int64_t *pd = emu_int_array_values(paddings, &np);
    EMU_TRY(check_list_values(API, "kernelSize", k, nk, 1));
    EMU_TRY(check_list_values(API, "strides", s, ns, 1));
    EMU_TRY(check_list_values(API, "paddings", pd, np, 0));
    if (self->view.rank != out->view.rank || (self->view.rank != 3 && self->view.rank != 4)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has %d and out %d dimensions; expected both 3 or both 4.",
                        API, (int)self->view.rank, (int)out->view.rank);
    }
    if (nk < 1 || (np != 1 && np != 2) || ns > 2) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: kernelSize has %llu, paddings %llu and strides %llu values; "
                                                 "expected 1 or 2, 1 or 2, and 0 to 2.", API, (unsigned long long)nk,
                        (unsigned long long)np, (unsigned long long)ns);
    }
    pool_plan p = {.is_max = false, .count_include_pad = countIncludePad, .divisor = divisorOverride};
    p.kh = k[0];
    p.kw = nk == 1 ? k[0] : k[1];
    p.sh = ns == 0 ? p.kh : s[0];
    p.sw = ns == 0 ? p.kw : ns == 1 ? p.sh : s[1];
    p.pt = p.pb = pd[0];
    p.pl = p.pr = np == 1 ? pd[0] : pd[1];
    if (2 * p.pt > p.kh || 2 * p.pl > p.kw) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: paddings (%lld, %lld) for kernel (%lld, %lld); expected at "
                                                 "most half of the kernel.", API, (long long)p.pt, (long long)p.pl,
                        (long long)p.kh, (long long)p.kw);
    }
    EMU_TRY(finish_shape(API, self, out, &p, ceilMode));
    EMU_TRY(conv_check_cube_math_type(API, cubeMathType, self->view.dtype));
    if (self->view.dtype == ACL_FLOAT) {
        const bool training = emu_soc_get() == EMU_SOC_ASCEND910;
        if (!training && cubeMathType != CONV_KEEP_DTYPE && cubeMathType != CONV_USE_FP16) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: cubeMathType is %d with ACL_FLOAT self; expected 0 "
                                                     "(KEEP_DTYPE) or 2 (USE_FP16) on %s.", API, (int)cubeMathType,
                            aclrtGetSocName());
        }
        p.rounding = cubeMathType == CONV_KEEP_DTYPE ? CONV_EXACT : CONV_ROUND_F16;
    }
    return publish(API, "aclnnAvgPool2d", self, out, &p, workspaceSize, executor);
}

aclnnStatus aclnnAvgPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnAvgPool2d", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------- MaxPool */

static const emu_dtype_table MAX_TYPES = {EMU_DT(ACL_FLOAT16) | EMU_DT(ACL_FLOAT), EMU_DT(ACL_FLOAT16),
                                          EMU_DTS_FLOAT};

static aclnnStatus check_max_list(const char *api, const char *name, uint64_t n, bool zero, bool four)
{
    if ((n == 0 && !zero) || n > 4 || n == 3 || (n == 4 && !four)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %llu values; expected %s.", api, name,
                        (unsigned long long)n, !zero ? "1 or 2" : four ? "0, 1, 2 or 4" : "0, 1 or 2");
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape,
                                         const aclIntArray *strides, const int64_t autoPad, const aclIntArray *pads,
                                         const aclIntArray *dilations, const int64_t ceilMode, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnMaxPoolGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "kernelShape", kernelShape));
    EMU_TRY(emu_check_not_null(API, "strides", strides));
    EMU_TRY(emu_check_not_null(API, "pads", pads));
    EMU_TRY(emu_check_not_null(API, "dilations", dilations));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &MAX_TYPES));
    EMU_TRY(check_same_dtype_and_rank(API, self, out));
    if (self->format != out->format) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self is %s and out %s; expected the same format.", API,
                        conv_format_name(self->format), conv_format_name(out->format));
    }
    if (conv_format_is_private(self->format)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self is %s; expected NCHW, CHW or ND.", API,
                        conv_format_name(self->format));
    }
    if (self->view.rank != 3 && self->view.rank != 4) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has %d dimensions; expected 3 or 4.", API,
                        (int)self->view.rank);
    }
    uint64_t nk = 0, ns = 0, np = 0, nd = 0;
    const int64_t *k = emu_int_array_values(kernelShape, &nk), *s = emu_int_array_values(strides, &ns);
    const int64_t *pd = emu_int_array_values(pads, &np), *d = emu_int_array_values(dilations, &nd);
    EMU_TRY(check_max_list(API, "kernelShape", nk, false, false));
    EMU_TRY(check_max_list(API, "strides", ns, true, false));
    EMU_TRY(check_max_list(API, "pads", np, true, true));
    EMU_TRY(check_max_list(API, "dilations", nd, true, true));
    if (autoPad != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: autoPad is %lld; expected 0 (NOTSET).", API, (long long)autoPad);
    }
    for (uint64_t i = 0; i < nd; ++i) {
        if (d[i] != 1) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: dilations[%llu] is %lld; CANN's MaxPool supports only 1.",
                            API, (unsigned long long)i, (long long)d[i]);
        }
    }
    pool_plan p = {.is_max = true};
    p.kh = k[0];
    p.kw = nk == 1 ? k[0] : k[1];
    if (p.kh <= 0 || p.kw <= 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: kernelShape is (%lld, %lld); expected values greater than 0.",
                        API, (long long)p.kh, (long long)p.kw);
    }
    p.sh = ns == 0 ? 1 : s[0];
    p.sw = ns == 0 ? 1 : ns == 1 ? p.sh : s[1];
    if (p.sh <= 0 || p.sw <= 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: strides are (%lld, %lld); expected values greater than 0.",
                        API, (long long)p.sh, (long long)p.sw);
    }
    if (np == 1) {
        p.pt = p.pb = p.pl = p.pr = pd[0];
    } else if (np == 2) {
        p.pt = p.pb = pd[0];
        p.pl = p.pr = pd[1];
    } else if (np == 4) {
        p.pt = pd[0];
        p.pl = pd[1];
        p.pb = pd[2];
        p.pr = pd[3];
    }
    if (p.pt + p.pb > p.kh || p.pl + p.pr > p.kw || p.pt < 0 || p.pb < 0 || p.pl < 0 || p.pr < 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: pads (top %lld, bottom %lld, left %lld, right %lld) for "
                                                 "kernel (%lld, %lld); expected non-negative pads summing at most "
                                                 "to the kernel along each axis.", API, (long long)p.pt,
                        (long long)p.pb, (long long)p.pl, (long long)p.pr, (long long)p.kh, (long long)p.kw);
    }
    EMU_TRY(finish_shape(API, self, out, &p, ceilMode != 0));
    return publish(API, "aclnnMaxPool", self, out, &p, workspaceSize, executor);
}

aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnMaxPool", workspace, workspaceSize, executor, stream);
}
