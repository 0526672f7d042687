/* The run of aclnnConvolution: input, weight and bias staged to dense fp32
 * in the workspace (rounded to FLOAT16 or HF32 where cubeMathType asks),
 * then every output row (n, c_out, h_out) computed by one task into a
 * block of fp32 accumulators and stored in the output's dtype.
 *
 * Each output element is the fp32 sum, in a fixed order (input channel of
 * its group, then kernel row, then kernel column, ascending), of the
 * products that reach it, with the bias added last. Padding contributes
 * nothing (the device multiplies padded zeros, which differs only where a
 * weight is inf or NaN). The cube unit sums in its own blocked order, so
 * results may differ from the device's in the last bits; they do not
 * depend on the thread count or the ISA. */
#include "common/parallel.h"
#include "ops/conv.h"

enum { CONV_BLOCK = 256 };

typedef struct {
    const conv_plan *p;
    const float *x, *w, *b;
    char *out;
    aclDataType out_dtype;
} conv_ctx;

/* acc[j] += contributions to output columns ow0 + j of row (n, co, oh). */
static void forward_row(const conv_plan *p, const float *x, const float *w, int64_t n, int64_t co, int64_t oh,
                        int64_t ow0, int64_t len, float *acc)
{
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups, g = co / cout_g;
    for (int64_t c = 0; c < cin_g; ++c) {
        const float *xc = x + (n * p->cin + g * cin_g + c) * p->ih * p->iw;
        const float *wc = w + (co * cin_g + c) * p->kh * p->kw;
        for (int64_t kh = 0; kh < p->kh; ++kh) {
            const int64_t ih = oh * p->sh - p->ph + kh * p->dh;
            if (ih < 0 || ih >= p->ih) {
                continue;
            }
            const float *xr = xc + ih * p->iw;
            for (int64_t kw = 0; kw < p->kw; ++kw) {
                const float wv = wc[kh * p->kw + kw];
                const int64_t off = kw * p->dw - p->pw; /* iw = (ow0 + j) * sw + off */
                int64_t lo = conv_ceil_div(-off, p->sw) - ow0, hi = conv_floor_div(p->iw - 1 - off, p->sw) - ow0 + 1;
                lo = lo < 0 ? 0 : lo;
                hi = hi > len ? len : hi;
                const int64_t base = ow0 * p->sw + off;
                if (p->sw == 1) {
                    for (int64_t j = lo; j < hi; ++j) {
                        acc[j] += xr[base + j] * wv;
                    }
                } else {
                    for (int64_t j = lo; j < hi; ++j) {
                        acc[j] += xr[base + j * p->sw] * wv;
                    }
                }
            }
        }
    }
}

/* The transposed form: input position (ih, iw) with kernel tap (kh, kw)
 * reaches output (ih * sh - ph + kh * dh, iw * sw - pw + kw * dw). */
static void transposed_row(const conv_plan *p, const float *x, const float *w, int64_t n, int64_t co, int64_t oh,
                           int64_t ow0, int64_t len, float *acc)
{
    const int64_t cin_g = p->cin / p->groups, cout_g = p->cout / p->groups, g = co / cout_g, cg = co % cout_g;
    for (int64_t c = 0; c < cin_g; ++c) {
        const int64_t ci = g * cin_g + c;
        const float *xc = x + (n * p->cin + ci) * p->ih * p->iw;
        const float *wc = w + (ci * cout_g + cg) * p->kh * p->kw;
        for (int64_t kh = 0; kh < p->kh; ++kh) {
            const int64_t t = oh + p->ph - kh * p->dh;
            if (t < 0 || t % p->sh != 0 || t / p->sh >= p->ih) {
                continue;
            }
            const float *xr = xc + (t / p->sh) * p->iw;
            for (int64_t kw = 0; kw < p->kw; ++kw) {
                const float wv = wc[kh * p->kw + kw];
                const int64_t off = kw * p->dw - p->pw; /* ow = iw * sw + off */
                int64_t lo = conv_ceil_div(ow0 - off, p->sw), hi = conv_floor_div(ow0 + len - 1 - off, p->sw) + 1;
                lo = lo < 0 ? 0 : lo;
                hi = hi > p->iw ? p->iw : hi;
                const int64_t base = off - ow0; /* acc index of input column 0 */
                if (p->sw == 1) {
                    for (int64_t i = lo; i < hi; ++i) {
                        acc[base + i] += xr[i] * wv;
                    }
                } else {
                    for (int64_t i = lo; i < hi; ++i) {
                        acc[base + i * p->sw] += xr[i] * wv;
                    }
                }
            }
        }
    }
}

static void conv_range(void *opaque, size_t begin, size_t end)
{
    const conv_ctx *c = opaque;
    const conv_plan *p = c->p;
    const int64_t esize = (int64_t)emu_dtype_size(c->out_dtype);
    float acc[CONV_BLOCK];
    for (size_t task = begin; task < end; ++task) {
        const int64_t oh = (int64_t)task % p->oh, co = (int64_t)task / p->oh % p->cout;
        const int64_t n = (int64_t)task / p->oh / p->cout;
        const float bias = p->has_bias ? c->b[co] : 0.0f;
        char *row = c->out + (n * p->out_stride[0] + co * p->out_stride[1] + oh * p->out_stride[2]) * esize;
        for (int64_t ow0 = 0; ow0 < p->ow; ow0 += CONV_BLOCK) {
            const int64_t len = p->ow - ow0 < CONV_BLOCK ? p->ow - ow0 : CONV_BLOCK;
            for (int64_t j = 0; j < len; ++j) {
                acc[j] = 0.0f;
            }
            (p->transposed ? transposed_row : forward_row)(p, c->x, c->w, n, co, oh, ow0, len, acc);
            if (p->has_bias) {
                for (int64_t j = 0; j < len; ++j) {
                    acc[j] += bias;
                }
            }
            conv_store_f32(acc, c->out_dtype, row + ow0 * p->out_stride[3] * esize, p->out_stride[3], len);
        }
    }
}

const char *conv_run(aclOpExecutor *executor, void *workspace)
{
    const conv_plan *p = (const conv_plan *)executor->plan;
    float *x = workspace, *w = x + p->in_elems, *b = w + p->w_elems;
    conv_stage_f32(&executor->tensors[CONV_INPUT], x, p->rounding);
    conv_stage_f32(&executor->tensors[CONV_WEIGHT], w, p->rounding);
    if (p->has_bias) {
        conv_stage_f32(&executor->tensors[CONV_BIAS], b, CONV_EXACT);
    }
    conv_ctx c = {.p = p, .x = x, .w = w, .b = b, .out = emu_view_origin(&executor->tensors[CONV_OUTPUT]),
                  .out_dtype = executor->tensors[CONV_OUTPUT].dtype};
    emu_parallel_for((size_t)(p->n * p->cout * p->oh), 4, conv_range, &c);
    return p->transposed ? "conv_transposed_f32" : "conv_f32";
}

const char *conv_run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}
