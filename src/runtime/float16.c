/* aclFloat16 helpers of acl_base.h. */
#include "common/emu.h"
#include "kernels/convert/convert.h"

float aclFloat16ToFloat(aclFloat16 value)
{
    return emu_f16_to_f32(value);
}

aclFloat16 aclFloatToFloat16(float value)
{
    enum { FP16_MAX_BITS = 0x7BFF, FP16_SIGN = 0x8000 };
    if (value != value) {
        return FP16_MAX_BITS; /* CANN saturates NaN to 65504 */
    }
    aclFloat16 rounded = emu_f32_to_f16(value);
    if ((rounded & 0x7FFF) == 0x7C00) {
        return (aclFloat16)((rounded & FP16_SIGN) | FP16_MAX_BITS);
    }
    return rounded;
}
