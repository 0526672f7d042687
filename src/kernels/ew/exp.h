/* Internal: expf written so that a loop over it vectorizes (no branches, no
 * calls but fmaf, which every vector ISA we build for has). Cody-Waite
 * reduction and Cephes' polynomial from kernels/exp_core.h (about 1 ulp);
 * 2^n is applied as two normal factors 2^(n - h) and 2^h with h = floor(n/2), so results
 * overflow to inf above 88.72 and round correctly into the subnormals down
 * to exp(-103.97). NaN stays NaN. Include only from files built with
 * -ffp-contract=off: every ISA then gives the same bits. */
#ifndef ACLNN_EMU_KERNELS_EW_EXP_H
#define ACLNN_EMU_KERNELS_EW_EXP_H

#include <stdint.h>
#include <string.h>

#include "kernels/exp_core.h"

static inline float emu_ew_expf(float x)
{
    /* Comparisons are false for NaN, which passes through both clamps.
     * Written as `bound < x ? bound : x`, the operand order of x86's
     * minps/maxps, so each clamp is one instruction instead of a compare
     * and a blend. */
    float a = 88.8f < x ? 88.8f : x;
    a = -104.0f > a ? -104.0f : a;
    float z;
    const float p = emu_exp_core_(a, &z);
    int32_t z_bits;
    memcpy(&z_bits, &z, sizeof z_bits);
    const int32_t n = z_bits - EMU_EXP_MAGIC_BITS; /* in [-150, 129] */
    /* Floor, not truncation (>> of a negative int is arithmetic on every
     * compiler we build with): either split gives two normal factors whose
     * product with p rounds once, and a shift is one instruction where the
     * division is three. */
    const int32_t half = n >> 1;
    const uint32_t bits_a = (uint32_t)(n - half + 127) << 23, bits_b = (uint32_t)(half + 127) << 23;
    float scale_a, scale_b;
    memcpy(&scale_a, &bits_a, sizeof scale_a);
    memcpy(&scale_b, &bits_b, sizeof scale_b);
    return p * scale_a * scale_b;
}

#endif
