/* Internal: AVX-512 (F/BW/VL/DQ) + F16C conversions of one vector, shared by
 * the convert kernels and the kernels that fuse conversion into their
 * loads/stores. Include only from files compiled with AVX-512 flags.
 * Rounding and NaN rules are those of convert.h. */
#ifndef ACLNN_EMU_KERNELS_CONVERT_AVX512_INLINE_H
#define ACLNN_EMU_KERNELS_CONVERT_AVX512_INLINE_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline __mmask16 emu_tail_mask16(size_t rem) { return (__mmask16)((1u << rem) - 1u); }

static inline __m256i emu_f32_to_bf16_16(__m512 v) {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i hi = _mm512_srli_epi32(x, 16);
    const __m512i bias = _mm512_add_epi32(_mm512_and_si512(hi, _mm512_set1_epi32(1)),
                                          _mm512_set1_epi32(0x7FFF));
    const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(x, bias), 16);
    const __m512i quiet_nan = _mm512_or_si512(hi, _mm512_set1_epi32(0x0040));
    const __m512i ax = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFFFFFF));
    const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(ax, _mm512_set1_epi32(0x7F800000));
    /* Lanes are <= 0xFFFF, so the truncating narrow is exact. */
    return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(is_nan, rounded, quiet_nan));
}

static inline __m512 emu_bf16_to_f32_16(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

#endif
