/* Shared by the convolution and pooling operators (conv.c, conv_run.c,
 * pool.c): staging of strided FLOAT/FLOAT16/BF16 views into dense fp32,
 * the precision a cubeMathType asks for, and format checks. */
#ifndef EMU_OPS_CONV_H_
#define EMU_OPS_CONV_H_

#include "meta/executor.h"

/* How staged values are rounded before the arithmetic (and, for pooling,
 * the result before it is stored): exactly, to FLOAT16, or to HF32 (fp32
 * with 11 mantissa bits, ties away from zero, as the cube unit converts). */
typedef enum { CONV_EXACT, CONV_ROUND_F16, CONV_ROUND_HF32 } conv_rounding;

/* The cubeMathType values of aclnn (CANN's cube_util.h). */
enum { CONV_KEEP_DTYPE, CONV_ALLOW_FP32_DOWN_PRECISION, CONV_USE_FP16, CONV_USE_HF32, CONV_USE_FP32_ADD };

/* The view's elements, row-major, as fp32 (rounded as asked) into dense. */
void conv_stage_f32(const emu_view *view, float *dense, conv_rounding rounding);
/* One value rounded as asked. */
float conv_round(float value, conv_rounding rounding);
/* n fp32 values to dst (stride in elements) in dtype, rounded to nearest even. */
void conv_store_f32(const float *src, aclDataType dtype, void *dst, int64_t stride, int64_t n);

/* CANN's private (device-internal) formats: NC1HWC0, FRACTAL_Z, FRACTAL_NZ ... */
bool conv_format_is_private(aclFormat format);
const char *conv_format_name(aclFormat format);

/* 161002 unless cubeMathType is 0..4 and, on the training series (no fp32
 * cube), an fp32 computation asks for down-precision (1 or 2). */
aclnnStatus conv_check_cube_math_type(const char *api, int8_t cube_math_type, aclDataType compute_dtype);

/* A 1-D or 2-D convolution, transposed or not (1-D as H = 1). Slots:
 * input, weight, bias (absent when NULL), output. */
enum { CONV_INPUT, CONV_WEIGHT, CONV_BIAS, CONV_OUTPUT };
typedef struct {
    int64_t n, cin, cout, groups;
    int64_t ih, iw, kh, kw, oh, ow;
    int64_t sh, sw, ph, pw, dh, dw; /* ph, pw: the padding before the first row and column */
    bool transposed, has_bias;
    conv_rounding rounding;
    int64_t in_elems, w_elems;
    int64_t out_stride[4]; /* output strides of n, c, h, w (h is 0 for 1-D) */
} conv_plan;

const char *conv_run(aclOpExecutor *executor, void *workspace);
/* The run of an empty problem: nothing to do. */
const char *conv_run_nothing(aclOpExecutor *executor, void *workspace);

/* Floor and ceiling division for a positive divisor. */
static inline int64_t conv_floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
static inline int64_t conv_ceil_div(int64_t a, int64_t b)
{
    return -conv_floor_div(-a, b);
}

#endif /* EMU_OPS_CONV_H_ */
