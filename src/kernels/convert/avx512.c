/* AVX-512 (F/BW/VL/DQ) + F16C conversions, 16 elements per step; the tail
 * uses masked loads/stores, which never fault on masked-off elements. */
#include <immintrin.h>

#include "kernels/convert/ukernels.h"

static inline __mmask16 tail_mask(size_t rem) { return (__mmask16)((1u << rem) - 1u); }

static inline __m256i f32_to_bf16_16(__m512 v) {
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

static inline __m512 bf16_to_f32_16(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

void emu_f16_to_f32__avx512(size_t n, const uint16_t* src, float* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(src + i))));
    if (i < n) {
        const __mmask16 m = tail_mask(n - i);
        _mm512_mask_storeu_ps(dst + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, src + i)));
    }
}

void emu_bf16_to_f32__avx512(size_t n, const uint16_t* src, float* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, bf16_to_f32_16(_mm256_loadu_si256((const __m256i*)(src + i))));
    if (i < n) {
        const __mmask16 m = tail_mask(n - i);
        _mm512_mask_storeu_ps(dst + i, m, bf16_to_f32_16(_mm256_maskz_loadu_epi16(m, src + i)));
    }
}

void emu_f32_to_f16__avx512(size_t n, const float* src, uint16_t* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i*)(dst + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    if (i < n) {
        const __mmask16 m = tail_mask(n - i);
        const __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm256_mask_storeu_epi16(dst + i, m, h);
    }
}

void emu_f32_to_bf16__avx512(size_t n, const float* src, uint16_t* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i*)(dst + i), f32_to_bf16_16(_mm512_loadu_ps(src + i)));
    if (i < n) {
        const __mmask16 m = tail_mask(n - i);
        _mm256_mask_storeu_epi16(dst + i, m, f32_to_bf16_16(_mm512_maskz_loadu_ps(m, src + i)));
    }
}
