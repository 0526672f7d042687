/* Image-shaped gathers:
 *   UpsampleNearest2d (hicann/ops-cv image/resize_nearest_neighbor_v2/
 *       op_api/aclnn_upsample_nearest_2d.cpp): a 4-D self in NCHW or NHWC
 *       format (the tensor's format decides which) resized to outputSize
 *       (H, W) by nearest neighbour: source row = min(floor(h * scale),
 *       inH - 1) with scale = (float)inH / outH, in float as the kernel
 *       computes it (op_kernel/arch35/resize_nearest_neighbor_v2_simt.h,
 *       no align-corners, no half-pixel centres); the same for columns.
 *   Im2col (hicann/ops-math conversion/im2col/op_api/aclnn_im2col.cpp):
 *       PyTorch's unfold of a (N, C, H, W) or (C, H, W) self into
 *       (N, C*kh*kw, L) or (C*kh*kw, L): out[n][(c*kh + i)*kw + j][y*OW + x]
 *       = self[n][c][y*sh - ph + i*dh][x*sw - pw + j*dw], zero outside
 *       self (the padding). CANN computes in self's dtype and casts the
 *       result to out's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_im2col.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "common/parallel.h"
#include "ops/index_common.h"

enum { IMG_SELF, IMG_OUT };

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

static aclnnStatus publish(const char *api, const char *phase2, const aclTensor *self, const aclTensor *out,
                           const void *plan, size_t plan_size, bool empty, emu_run_fn run, uint64_t *workspaceSize,
                           aclOpExecutor **executor)
{
    static const char *const NAMES[] = {"self", "out"};
    aclOpExecutor *planned = emu_executor_create(api, phase2, 1, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    emu_executor_bind(planned, IMG_SELF, self);
    emu_executor_bind(planned, IMG_OUT, out);
    memcpy(planned->plan, plan, plan_size);
    if (empty) {
        emu_executor_mark_unused(planned, IMG_SELF);
        emu_executor_mark_unused(planned, IMG_OUT);
        return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
    }
    return emu_executor_publish(planned, run, 0, workspaceSize, executor);
}

static aclnnStatus check_io_memory(const char *api, const aclTensor *self, const aclTensor *out, bool empty)
{
    EMU_TRY(emu_idx_check_memory(api, "self", self));
    EMU_TRY(emu_idx_check_memory(api, "out", out));
    if (!empty) {
        EMU_TRY(emu_check_output_not_self_overlapping(api, "out", out));
        EMU_TRY(emu_idx_check_separate(api, "out", out, "self", self));
    }
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- UpsampleNearest2d */

#define UPSAMPLE_A2 (EMU_H | EMU_F | EMU_D | EMU_U8)
static const emu_dtype_table UPSAMPLE_TYPES = {UPSAMPLE_A2 | EMU_B, UPSAMPLE_A2, UPSAMPLE_A2 | EMU_B};

typedef struct {
    int64_t n, c, in_h, in_w, out_h, out_w;
    /* Strides in bytes along N, C, H, W, whatever the layout. */
    int64_t self_stride[4], out_stride[4];
    float scale_h, scale_w;
    size_t elem;
} upsample_plan;

_Static_assert(sizeof(upsample_plan) <= EMU_PLAN_BYTES, "upsample_plan must fit in the executor");

typedef struct {
    const upsample_plan *plan;
    const char *self;
    char *out;
} upsample_ctx;

static int64_t nearest(int64_t at, float scale, int64_t len)
{
    const int64_t src = (int64_t)floorf((float)at * scale);
    return src < len - 1 ? src : len - 1;
}

/* Rows are (n, c, h) of out. */
static void upsample_rows(void *opaque, size_t begin, size_t end)
{
    const upsample_ctx *ctx = opaque;
    const upsample_plan *p = ctx->plan;
    const size_t elem = p->elem;
    for (size_t r = begin; r < end; ++r) {
        const int64_t h = (int64_t)r % p->out_h;
        const int64_t nc = (int64_t)r / p->out_h;
        const int64_t c = nc % p->c, n = nc / p->c;
        const int64_t src_h = nearest(h, p->scale_h, p->in_h);
        const char *src = ctx->self + n * p->self_stride[0] + c * p->self_stride[1] + src_h * p->self_stride[2];
        char *dst = ctx->out + n * p->out_stride[0] + c * p->out_stride[1] + h * p->out_stride[2];
        for (int64_t w = 0; w < p->out_w; ++w) {
            memcpy(dst + w * p->out_stride[3], src + nearest(w, p->scale_w, p->in_w) * p->self_stride[3], elem);
        }
    }
}

static const char *run_upsample(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const upsample_plan *p = (const upsample_plan *)executor->plan;
    upsample_ctx ctx = {.plan = p, .self = emu_view_origin(&executor->tensors[IMG_SELF]),
                        .out = emu_view_origin(&executor->tensors[IMG_OUT])};
    const int64_t rows = p->n * p->c * p->out_h;
    const size_t grain = (size_t)(EMU_IDX_GRAIN_ELEMENTS / p->out_w > 0 ? EMU_IDX_GRAIN_ELEMENTS / p->out_w : 1);
    emu_parallel_for((size_t)rows, grain, upsample_rows, &ctx);
    return "index_upsample_nearest";
}

aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                   aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnUpsampleNearest2dGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "outputSize", outputSize));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &UPSAMPLE_TYPES));
    EMU_TRY(emu_check_same_dtype(API, "out", out, "self", self));
    uint64_t size_count = 0;
    const int64_t *size = emu_int_array_values(outputSize, &size_count);
    char buf[256], buf2[256];
    if (size_count != 2) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize is %s; expected two sizes (H, W).", API,
                        emu_idx_int_array_string(size, size_count, buf, sizeof buf));
    }
    const emu_view *s = &self->view, *o = &out->view;
    if (s->rank != 4) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has rank %d; expected a 4-D tensor.", API, (int)s->rank);
    }
    /* CANN checks the last two dimensions and the second, whatever the format. */
    if (s->shape[2] == 0 || s->shape[3] == 0 || size[0] == 0 || size[1] == 0 || s->shape[1] == 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has shape %s and outputSize is %s; expected non-zero "
                                                 "sizes but for the batch.", API,
                        emu_shape_string(s, buf, sizeof buf), emu_idx_int_array_string(size, 2, buf2, sizeof buf2));
    }
    if (self->format != ACL_FORMAT_NCHW && self->format != ACL_FORMAT_NHWC) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has format %d; expected ACL_FORMAT_NCHW or "
                                                 "ACL_FORMAT_NHWC.", API, (int)self->format);
    }
    if (out->format != self->format) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has format %d and self %d; expected the same format.", API,
                        (int)out->format, (int)self->format);
    }
    const bool nchw = self->format == ACL_FORMAT_NCHW;
    /* The dimensions of N, C, H, W in the view. */
    const int dn = 0, dc = nchw ? 1 : 3, dh = nchw ? 2 : 1, dw = nchw ? 3 : 2;
    if (o->rank != 4) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has rank %d; expected a 4-D tensor.", API, (int)o->rank);
    }
    if (s->shape[dn] != o->shape[dn] || s->shape[dc] != o->shape[dc]) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s and self %s; expected the same N and C.", API,
                        emu_shape_string(o, buf, sizeof buf), emu_shape_string(s, buf2, sizeof buf2));
    }
    if (o->shape[dh] != size[0] || o->shape[dw] != size[1]) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has H %lld and W %lld; expected outputSize %s.", API,
                        (long long)o->shape[dh], (long long)o->shape[dw],
                        emu_idx_int_array_string(size, 2, buf, sizeof buf));
    }
    if (emu_soc_get() != EMU_SOC_ASCEND950) {
        for (int i = 0; i < 4; ++i) {
            if (s->shape[i] > INT32_MAX || o->shape[i] > INT32_MAX) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has a dimension of %lld; expected at most %d.", API,
                                s->shape[i] > INT32_MAX ? "self" : "out",
                                (long long)(s->shape[i] > INT32_MAX ? s->shape[i] : o->shape[i]), INT32_MAX);
            }
        }
    }
    const bool empty = emu_view_is_empty(s) || emu_view_is_empty(o);
    EMU_TRY(check_io_memory(API, self, out, empty));
    upsample_plan plan = {.n = s->shape[dn], .c = s->shape[dc], .in_h = s->shape[dh], .in_w = s->shape[dw],
                          .out_h = o->shape[dh], .out_w = o->shape[dw], .elem = emu_dtype_size(s->dtype)};
    plan.scale_h = (float)plan.in_h / (float)plan.out_h;
    plan.scale_w = (float)plan.in_w / (float)plan.out_w;
    const int dims[4] = {dn, dc, dh, dw};
    for (int i = 0; i < 4; ++i) {
        plan.self_stride[i] = s->strides[dims[i]] * (int64_t)plan.elem;
        plan.out_stride[i] = o->strides[dims[i]] * (int64_t)plan.elem;
    }
    return publish(API, "aclnnUpsampleNearest2d", self, out, &plan, sizeof plan, empty, run_upsample, workspaceSize,
                   executor);
}

aclnnStatus aclnnUpsampleNearest2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   const aclrtStream stream)
{
    return emu_executor_run("aclnnUpsampleNearest2d", workspace, workspaceSize, executor, stream);
}

/* ---------------------------------------------------------------- Im2col */

/* Not on the training series; Ascend950 takes every plain dtype. */
static const emu_dtype_table IM2COL_TYPES = {
    EMU_F | EMU_H | EMU_B, 0,
    EMU_I8 | EMU_U8 | EMU_I16 | EMU_U16 | EMU_I32 | EMU_U32 | EMU_I64 | EMU_U64 | EMU_B | EMU_H | EMU_F | EMU_D |
        EMU_BOOL | EMU_DT(ACL_COMPLEX32) | EMU_DT(ACL_COMPLEX64)};

typedef struct {
    int64_t n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
    int64_t self_stride[4]; /* bytes along N, C, H, W */
    int64_t out_stride[3];  /* bytes along N, C*kh*kw, L */
    aclDataType in_dtype, out_dtype;
} im2col_plan;

_Static_assert(sizeof(im2col_plan) <= EMU_PLAN_BYTES, "im2col_plan must fit in the executor");

typedef struct {
    const im2col_plan *plan;
    const char *self;
    char *out;
} im2col_ctx;

/* ceil(a / b) for b > 0. */
static int64_t ceil_div(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Rows are (n, c, i, j): one row of out, OH*OW long. */
static void im2col_rows(void *opaque, size_t begin, size_t end)
{
    const im2col_ctx *ctx = opaque;
    const im2col_plan *p = ctx->plan;
    const int64_t out_elem = (int64_t)emu_dtype_size(p->out_dtype);
    const emu_idx_block none = {0};
    for (size_t r = begin; r < end; ++r) {
        const int64_t j = (int64_t)r % p->kw;
        int64_t rest = (int64_t)r / p->kw;
        const int64_t i = rest % p->kh;
        rest /= p->kh;
        const int64_t c = rest % p->c, n = rest / p->c;
        const int64_t row = (c * p->kh + i) * p->kw + j;
        char *dst = ctx->out + n * p->out_stride[0] + row * p->out_stride[1];
        const char *plane = ctx->self + n * p->self_stride[0] + c * p->self_stride[1];
        /* Columns x with 0 <= x*sw - pw + j*dw < W. */
        const int64_t x_off = j * p->dw - p->pw;
        int64_t x0 = ceil_div(-x_off, p->sw), x1 = floor_div(p->w - 1 - x_off, p->sw) + 1;
        x0 = x0 < 0 ? 0 : x0 > p->ow ? p->ow : x0;
        x1 = x1 < x0 ? x0 : x1 > p->ow ? p->ow : x1;
        const int64_t ls = p->out_stride[2];
        for (int64_t y = 0; y < p->oh; ++y) {
            char *seg = dst + y * p->ow * ls;
            const int64_t src_y = y * p->sh - p->ph + i * p->dh;
            if (src_y < 0 || src_y >= p->h || x0 == x1) {
                emu_idx_block segment = {.rank = 1, .shape = {p->ow}, .dst = {ls}};
                emu_idx_block_zero(&segment, seg, (size_t)out_elem);
                continue;
            }
            for (int64_t x = 0; x < x0; ++x) {
                emu_idx_block_zero(&none, seg + x * ls, (size_t)out_elem);
            }
            emu_idx_move(seg + x0 * ls, ls, p->out_dtype,
                         plane + src_y * p->self_stride[2] + (x0 * p->sw + x_off) * p->self_stride[3],
                         p->sw * p->self_stride[3], p->in_dtype, x1 - x0);
            for (int64_t x = x1; x < p->ow; ++x) {
                emu_idx_block_zero(&none, seg + x * ls, (size_t)out_elem);
            }
        }
    }
}

static const char *run_im2col(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const im2col_plan *p = (const im2col_plan *)executor->plan;
    im2col_ctx ctx = {.plan = p, .self = emu_view_origin(&executor->tensors[IMG_SELF]),
                      .out = emu_view_origin(&executor->tensors[IMG_OUT])};
    const int64_t rows = p->n * p->c * p->kh * p->kw, per_row = p->oh * p->ow;
    const size_t grain = (size_t)(EMU_IDX_GRAIN_ELEMENTS / per_row > 0 ? EMU_IDX_GRAIN_ELEMENTS / per_row : 1);
    emu_parallel_for((size_t)rows, grain, im2col_rows, &ctx);
    return "index_im2col";
}

static aclnnStatus check_pair(const char *api, const char *name, const int64_t *values, uint64_t count)
{
    if (count != 2) {
        char buf[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s is %s; expected two values (H, W).", api, name,
                        emu_idx_int_array_string(values, count, buf, sizeof buf));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_values(const char *api, const char *name, const int64_t *values, int64_t least)
{
    for (int i = 0; i < 2; ++i) {
        if (values[i] < least) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s[%d] is %lld; expected at least %lld.", api, name, i,
                            (long long)values[i], (long long)least);
        }
    }
    return ACLNN_SUCCESS;
}

/* The number of kernel positions along one axis: floor((in + 2p - (d(k-1)+1)) / s) + 1,
 * or 0 when it does not fit in int64. */
static int64_t positions(int64_t in, int64_t k, int64_t d, int64_t p, int64_t s)
{
    int64_t span, padded;
    if (__builtin_mul_overflow(d, k - 1, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_mul_overflow(p, 2, &padded) || __builtin_add_overflow(padded, in, &padded)) {
        return 0;
    }
    return floor_div(padded - span, s) + 1;
}

aclnnStatus aclnnIm2colGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                        const aclIntArray *dilation, const aclIntArray *padding,
                                        const aclIntArray *stride, const aclTensor *out, uint64_t *workspaceSize,
                                        aclOpExecutor **executor)
{
    static const char API[] = "aclnnIm2colGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "self", self));
    EMU_TRY(emu_check_not_null(API, "kernelSize", kernelSize));
    EMU_TRY(emu_check_not_null(API, "dilation", dilation));
    EMU_TRY(emu_check_not_null(API, "padding", padding));
    EMU_TRY(emu_check_not_null(API, "stride", stride));
    EMU_TRY(emu_check_not_null(API, "out", out));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_dtype_table(API, "self", self->view.dtype, &IM2COL_TYPES));
    const emu_view *s = &self->view, *o = &out->view;
    char buf[256], buf2[256];
    if (s->rank != 3 && s->rank != 4) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has rank %d; expected (N, C, H, W) or (C, H, W).", API,
                        (int)s->rank);
    }
    const int first = s->rank == 4 ? 1 : 0; /* the batch of a 4-D self may be 0 */
    for (int i = first; i < s->rank; ++i) {
        if (s->shape[i] <= 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: self has shape %s; expected non-zero C, H and W.", API,
                            emu_shape_string(s, buf, sizeof buf));
        }
    }
    uint64_t nk, nd, np, ns;
    const int64_t *k = emu_int_array_values(kernelSize, &nk), *dil = emu_int_array_values(dilation, &nd);
    const int64_t *pad = emu_int_array_values(padding, &np), *st = emu_int_array_values(stride, &ns);
    EMU_TRY(check_pair(API, "kernelSize", k, nk));
    EMU_TRY(check_pair(API, "dilation", dil, nd));
    EMU_TRY(check_pair(API, "padding", pad, np));
    EMU_TRY(check_pair(API, "stride", st, ns));
    EMU_TRY(check_values(API, "kernelSize", k, 1));
    EMU_TRY(check_values(API, "stride", st, 1));
    EMU_TRY(check_values(API, "dilation", dil, 1));
    EMU_TRY(check_values(API, "padding", pad, 0));
    const int64_t h = s->shape[s->rank - 2], w = s->shape[s->rank - 1];
    const int64_t oh = positions(h, k[0], dil[0], pad[0], st[0]), ow = positions(w, k[1], dil[1], pad[1], st[1]);
    if (oh < 1 || ow < 1) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the kernel fits %lld x %lld times in self (H %lld, W %lld) "
                                                 "with these kernelSize, dilation, padding and stride; expected at "
                                                 "least once.", API, (long long)oh, (long long)ow, (long long)h,
                        (long long)w);
    }
    const int64_t n = s->rank == 4 ? s->shape[0] : 1, c = s->shape[s->rank - 3];
    int64_t rows, cols;
    if (__builtin_mul_overflow(c, k[0], &rows) || __builtin_mul_overflow(rows, k[1], &rows) ||
        __builtin_mul_overflow(oh, ow, &cols)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out would have more than 2^63 elements in a dimension.", API);
    }
    emu_view want = {.rank = s->rank - 1};
    want.shape[0] = s->rank == 4 ? n : rows;
    want.shape[1] = s->rank == 4 ? rows : cols;
    want.shape[2] = cols;
    if (!emu_view_same_shape(o, &want)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has shape %s; expected %s.", API,
                        emu_shape_string(o, buf, sizeof buf), emu_shape_string(&want, buf2, sizeof buf2));
    }
    /* CANN casts the result to out's dtype; the documentation lists the same dtypes for out. */
    EMU_TRY(emu_check_dtype_table(API, "out", o->dtype, &IM2COL_TYPES));
    if (!emu_idx_can_convert(s->dtype, o->dtype)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: out has dtype %s and self %s; expected dtypes the result "
                                                 "casts between (complex only to itself).", API,
                        emu_dtype_name(o->dtype), emu_dtype_name(s->dtype));
    }
    const bool empty = emu_view_is_empty(s);
    EMU_TRY(check_io_memory(API, self, out, empty));
    im2col_plan plan = {.n = n, .c = c, .h = h, .w = w, .kh = k[0], .kw = k[1], .sh = st[0], .sw = st[1],
                        .ph = pad[0], .pw = pad[1], .dh = dil[0], .dw = dil[1], .oh = oh, .ow = ow,
                        .in_dtype = s->dtype, .out_dtype = o->dtype};
    const int64_t ie = (int64_t)emu_dtype_size(s->dtype), oe = (int64_t)emu_dtype_size(o->dtype);
    const int sb = s->rank == 4 ? 0 : -1, ob = s->rank == 4 ? 0 : -1;
    plan.self_stride[0] = sb == 0 ? s->strides[0] * ie : 0;
    for (int i = 1; i < 4; ++i) {
        plan.self_stride[i] = s->strides[i + sb] * ie;
    }
    plan.out_stride[0] = ob == 0 ? o->strides[0] * oe : 0;
    for (int i = 1; i < 3; ++i) {
        plan.out_stride[i] = o->strides[i + ob] * oe;
    }
    return publish(API, "aclnnIm2col", self, out, &plan, sizeof plan, empty, run_im2col, workspaceSize, executor);
}

aclnnStatus aclnnIm2col(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_run("aclnnIm2col", workspace, workspaceSize, executor, stream);
}
