/*
 * fp16 / bf16 <-> fp32 conversion of contiguous arrays, plus scalar
 * single-value helpers usable from any C file (no intrinsics here).
 *
 * Rounding (f32 -> f16 and f32 -> bf16): IEEE round-to-nearest-even,
 * independent of the FP environment (integer arithmetic in the scalar and
 * bf16 paths, an explicit rounding immediate in the F16C paths).
 *   - subnormal results are produced exactly (no flush to zero);
 *   - overflow gives +-inf, never the largest finite value
 *     (f16: |x| >= 65520 -> inf; bf16: everything rounding past 0x7F7F);
 *   - -0 stays -0.
 * NaN rules (chosen to match what x86 F16C hardware does, so every ISA path
 * is bit-identical to these helpers):
 *   f32  -> f16 : sign | 0x7E00 | (f32 mantissa >> 13)  (quiet, payload truncated)
 *   f32  -> bf16: (bits >> 16) | 0x0040                 (quiet, payload truncated)
 *   f16  -> f32 : sign | 0x7FC00000 | (f16 mantissa << 13) (signalling NaNs are
 *                 quieted, payload kept)
 *   bf16 -> f32 : bits << 16 (pure widening, exact for every pattern; a
 *                 signalling NaN stays signalling)
 * Widening conversions are otherwise exact (f16 subnormals become normal f32).
 *
 * The array kernels never read src[n..] or write dst[n..]; n == 0 is allowed.
 */
#ifndef ACLNN_EMU_KERNELS_CONVERT_H
#define ACLNN_EMU_KERNELS_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*emu_cvt_to_f32_fn)(size_t n, const uint16_t* src, float* dst);
typedef void (*emu_cvt_from_f32_fn)(size_t n, const float* src, uint16_t* dst);

typedef struct {
    emu_cvt_to_f32_fn f16_to_f32, bf16_to_f32;
    emu_cvt_from_f32_fn f32_to_f16, f32_to_bf16;
    /* The same narrowing into an output too large to stay cached: the whole
     * 64-byte lines of dst with non-temporal stores (its partial lines with
     * plain ones), so the output's lines are not read first; same bits.
     * The caller fences (_mm_sfence) before another thread reads dst. NULL
     * where the level has no such stores. */
    emu_cvt_from_f32_fn f32_to_f16_stream, f32_to_bf16_stream;
    const char* isa_name;
} emu_convert_kernels;

/* Best implementation whose level is <= isa (pass emu_isa_active()). Never NULL. */
const emu_convert_kernels* emu_convert_select(emu_isa isa);

static inline uint32_t emu_f32_bits_(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float emu_f32_from_bits_(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float emu_f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu;
    const uint32_t man = h & 0x3FFu;
    if (exp == 0x1F) /* inf, or NaN quieted like vcvtph2ps does */
        return emu_f32_from_bits_(sign | 0x7F800000u | (man ? 0x400000u | (man << 13) : 0));
    if (exp == 0) {
        /* man * 2^-24 is exact in f32 and is a normal number. */
        const float mag = (float)man * 5.9604644775390625e-8f;
        return emu_f32_from_bits_(sign | emu_f32_bits_(mag));
    }
    return emu_f32_from_bits_(sign | ((exp + 112u) << 23) | (man << 13));
}

static inline uint16_t emu_f32_to_f16(float f) {
    const uint32_t x = emu_f32_bits_(f);
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u) return (uint16_t)(sign | 0x7E00u | ((ax >> 13) & 0x3FFu));
    if (ax >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* >= 65520 rounds to inf */
    if (ax >= 0x38800000u) {                                  /* >= 2^-14: normal f16 */
        /* Rebias the exponent (127 -> 15) and round away 13 mantissa bits; a
         * mantissa carry correctly bumps the exponent. */
        const uint32_t r = ax - (112u << 23);
        return (uint16_t)(sign | ((r + 0x0FFFu + ((r >> 13) & 1u)) >> 13));
    }
    const uint32_t e = ax >> 23;
    if (e < 102) return sign; /* < 2^-25: rounds to zero (2^-25 itself is a tie to 0) */
    /* Subnormal f16: result = round(significand * 2^(e - 126)). */
    const uint32_t sig = (ax & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - e; /* 14..24 */
    uint32_t q = sig >> shift;
    const uint32_t rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return (uint16_t)(sign | q);
}

static inline float emu_bf16_to_f32(uint16_t h) {
    return emu_f32_from_bits_((uint32_t)h << 16);
}

static inline uint16_t emu_f32_to_bf16(float f) {
    const uint32_t x = emu_f32_bits_(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x0040u);
    /* Round to nearest even on the low 16 bits; the carry handles overflow to inf. */
    return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

#ifdef __cplusplus
}
#endif

#endif
