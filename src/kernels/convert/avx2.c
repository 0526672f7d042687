/* AVX2 + F16C conversions. Tails (< 8 elements) go through a stack buffer so
 * no load or store touches memory past n. */
#include <immintrin.h>

#include "kernels/convert/ukernels.h"

/* Returns the bf16 results in the low 16 bits of each 32-bit lane. */
static inline __m256i f32_to_bf16_lanes(__m256 v) {
    const __m256i x = _mm256_castps_si256(v);
    const __m256i hi = _mm256_srli_epi32(x, 16);
    const __m256i bias = _mm256_add_epi32(_mm256_and_si256(hi, _mm256_set1_epi32(1)),
                                          _mm256_set1_epi32(0x7FFF));
    const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(x, bias), 16);
    const __m256i quiet_nan = _mm256_or_si256(hi, _mm256_set1_epi32(0x0040));
    const __m256i ax = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFFFFFF));
    const __m256i is_nan = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7F800000));
    return _mm256_blendv_epi8(rounded, quiet_nan, is_nan);
}

static inline __m128i f32_to_bf16_8(__m256 v) {
    const __m256i r = f32_to_bf16_lanes(v);
    /* Every lane is <= 0xFFFF, so the unsigned saturating pack is exact. */
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

static inline __m256 bf16_to_f32_8(__m128i h) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

void emu_f16_to_f32__avx2(size_t n, const uint16_t* src, float* dst) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(src + i))));
    if (i < n) {
        uint16_t in[8] = {0};
        float out[8];
        memcpy(in, src + i, (n - i) * sizeof *src);
        _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)in)));
        memcpy(dst + i, out, (n - i) * sizeof *dst);
    }
}

void emu_bf16_to_f32__avx2(size_t n, const uint16_t* src, float* dst) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, bf16_to_f32_8(_mm_loadu_si128((const __m128i*)(src + i))));
    if (i < n) {
        uint16_t in[8] = {0};
        float out[8];
        memcpy(in, src + i, (n - i) * sizeof *src);
        _mm256_storeu_ps(out, bf16_to_f32_8(_mm_loadu_si128((const __m128i*)in)));
        memcpy(dst + i, out, (n - i) * sizeof *dst);
    }
}

void emu_f32_to_f16__avx2(size_t n, const float* src, uint16_t* dst) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i*)(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    if (i < n) {
        float in[8] = {0};
        uint16_t out[8];
        memcpy(in, src + i, (n - i) * sizeof *src);
        _mm_storeu_si128((__m128i*)out,
                         _mm256_cvtps_ph(_mm256_loadu_ps(in), _MM_FROUND_TO_NEAREST_INT));
        memcpy(dst + i, out, (n - i) * sizeof *dst);
    }
}

void emu_f32_to_bf16__avx2(size_t n, const float* src, uint16_t* dst) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i*)(dst + i), f32_to_bf16_8(_mm256_loadu_ps(src + i)));
    if (i < n) {
        float in[8] = {0};
        uint16_t out[8];
        memcpy(in, src + i, (n - i) * sizeof *src);
        _mm_storeu_si128((__m128i*)out, f32_to_bf16_8(_mm256_loadu_ps(in)));
        memcpy(dst + i, out, (n - i) * sizeof *dst);
    }
}
