/* Staging and precision helpers of the convolution and pooling operators. */
#include <string.h>

#include "common/emu.h"
#include "kernels/convert/convert.h"
#include "ops/check.h"
#include "ops/conv.h"

float conv_round(float value, conv_rounding rounding)
{
    switch (rounding) {
    case CONV_ROUND_F16:
        return emu_f16_to_f32(emu_f32_to_f16(value));
    case CONV_ROUND_HF32: {
        /* Drop the low 12 mantissa bits after adding half of the lowest kept
         * one to the magnitude (a carry may reach the exponent, and the
         * largest values become infinite); NaN stays as it is. */
        const uint32_t v = emu_f32_bits_(value);
        if ((v & 0x7FFFFFFFu) > 0x7F800000u) {
            return value;
        }
        return emu_f32_from_bits_((v + 0x800u) & ~0xFFFu);
    }
    default:
        return value;
    }
}

static float load_one(const char *p, aclDataType dtype)
{
    uint16_t h;
    switch (dtype) {
    case ACL_FLOAT16:
        memcpy(&h, p, 2);
        return emu_f16_to_f32(h);
    case ACL_BF16:
        memcpy(&h, p, 2);
        return emu_bf16_to_f32(h);
    default: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    }
}

void conv_stage_f32(const emu_view *view, float *dense, conv_rounding rounding)
{
    const int32_t rank = view->rank;
    const int64_t numel = emu_view_numel(view);
    if (numel == 0) {
        return;
    }
    const int64_t size = (int64_t)emu_dtype_size(view->dtype);
    const char *base = (const char *)emu_view_origin(view);
    const int64_t inner = rank > 0 ? view->shape[rank - 1] : 1;
    const int64_t step = rank > 0 ? view->strides[rank - 1] * size : 0;
    int64_t index[EMU_MAX_DIMS] = {0};
    for (int64_t row = 0; row < numel / inner; ++row) {
        int64_t offset = 0;
        for (int32_t d = 0; d < rank - 1; ++d) {
            offset += index[d] * view->strides[d];
        }
        const char *p = base + offset * size;
        float *out = dense + row * inner;
        if (view->dtype == ACL_FLOAT && step == 4) {
            memcpy(out, p, (size_t)inner * 4);
        } else {
            for (int64_t i = 0; i < inner; ++i) {
                out[i] = load_one(p + i * step, view->dtype);
            }
        }
        if (rounding != CONV_EXACT) {
            for (int64_t i = 0; i < inner; ++i) {
                out[i] = conv_round(out[i], rounding);
            }
        }
        for (int32_t d = rank - 2; d >= 0; --d) {
            if (++index[d] < view->shape[d]) {
                break;
            }
            index[d] = 0;
        }
    }
}

void conv_store_f32(const float *src, aclDataType dtype, void *dst, int64_t stride, int64_t n)
{
    if (dtype == ACL_FLOAT) {
        float *d = dst;
        if (stride == 1) {
            memcpy(d, src, (size_t)n * 4);
            return;
        }
        for (int64_t i = 0; i < n; ++i) {
            d[i * stride] = src[i];
        }
        return;
    }
    uint16_t *d = dst;
    const bool f16 = dtype == ACL_FLOAT16;
    for (int64_t i = 0; i < n; ++i) {
        d[i * stride] = f16 ? emu_f32_to_f16(src[i]) : emu_f32_to_bf16(src[i]);
    }
}

bool conv_format_is_private(aclFormat format)
{
    switch (format) {
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
        return false;
    default:
        return true;
    }
}

const char *conv_format_name(aclFormat format)
{
    switch (format) {
    case ACL_FORMAT_NCHW:
        return "NCHW";
    case ACL_FORMAT_NHWC:
        return "NHWC";
    case ACL_FORMAT_ND:
        return "ND";
    case ACL_FORMAT_HWCN:
        return "HWCN";
    case ACL_FORMAT_NDHWC:
        return "NDHWC";
    case ACL_FORMAT_NCDHW:
        return "NCDHW";
    case ACL_FORMAT_NC:
        return "NC";
    case ACL_FORMAT_NCL:
        return "NCL";
    case ACL_FORMAT_NC1HWC0:
        return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z:
        return "FRACTAL_Z";
    case ACL_FORMAT_FRACTAL_NZ:
        return "FRACTAL_NZ";
    default:
        return "a private format";
    }
}

aclnnStatus conv_check_cube_math_type(const char *api, int8_t cube_math_type, aclDataType compute_dtype)
{
    if (cube_math_type < CONV_KEEP_DTYPE || cube_math_type > CONV_USE_FP32_ADD) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: cubeMathType is %d; expected 0 (KEEP_DTYPE), 1 "
                                                 "(ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16), 3 (USE_HF32) or 4 "
                                                 "(USE_FP32_ADD).", api, (int)cube_math_type);
    }
    const bool down = cube_math_type == CONV_ALLOW_FP32_DOWN_PRECISION || cube_math_type == CONV_USE_FP16;
    if (emu_soc_get() == EMU_SOC_ASCEND910 && compute_dtype == ACL_FLOAT && !down) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: cubeMathType is %d with ACL_FLOAT data; the cube unit of %s "
                                                 "does not compute in fp32: expected 1 (ALLOW_FP32_DOWN_PRECISION) "
                                                 "or 2 (USE_FP16).", api, (int)cube_math_type, aclrtGetSocName());
    }
    return ACLNN_SUCCESS;
}
