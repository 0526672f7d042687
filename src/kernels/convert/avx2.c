/* AVX2 + F16C conversions. Tails (< 8 elements) go through a stack buffer so
 * no load or store touches memory past n. */
#include <immintrin.h>

#include "kernels/convert/avx2_inline.h"
#include "kernels/convert/ukernels.h"

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
        _mm256_storeu_ps(dst + i, emu_bf16_to_f32_8(_mm_loadu_si128((const __m128i*)(src + i))));
    if (i < n) {
        uint16_t in[8] = {0};
        float out[8];
        memcpy(in, src + i, (n - i) * sizeof *src);
        _mm256_storeu_ps(out, emu_bf16_to_f32_8(_mm_loadu_si128((const __m128i*)in)));
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
        _mm_storeu_si128((__m128i*)(dst + i), emu_f32_to_bf16_8(_mm256_loadu_ps(src + i)));
    if (i < n) {
        float in[8] = {0};
        uint16_t out[8];
        memcpy(in, src + i, (n - i) * sizeof *src);
        _mm_storeu_si128((__m128i*)out, emu_f32_to_bf16_8(_mm256_loadu_ps(in)));
        memcpy(dst + i, out, (n - i) * sizeof *dst);
    }
}
