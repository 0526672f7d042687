/* AVX-512 (F/BW/VL/DQ) + F16C conversions, 16 elements per step; the tail
 * uses masked loads/stores, which never fault on masked-off elements. */
#include <immintrin.h>

#include "kernels/convert/avx512_inline.h"
#include "kernels/convert/ukernels.h"

void emu_f16_to_f32__avx512(size_t n, const uint16_t* src, float* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(src + i))));
    if (i < n) {
        const __mmask16 m = emu_tail_mask16(n - i);
        _mm512_mask_storeu_ps(dst + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, src + i)));
    }
}

void emu_bf16_to_f32__avx512(size_t n, const uint16_t* src, float* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, emu_bf16_to_f32_16(_mm256_loadu_si256((const __m256i*)(src + i))));
    if (i < n) {
        const __mmask16 m = emu_tail_mask16(n - i);
        _mm512_mask_storeu_ps(dst + i, m, emu_bf16_to_f32_16(_mm256_maskz_loadu_epi16(m, src + i)));
    }
}

void emu_f32_to_f16__avx512(size_t n, const float* src, uint16_t* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i*)(dst + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    if (i < n) {
        const __mmask16 m = emu_tail_mask16(n - i);
        const __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm256_mask_storeu_epi16(dst + i, m, h);
    }
}

void emu_f32_to_bf16__avx512(size_t n, const float* src, uint16_t* dst) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i*)(dst + i), emu_f32_to_bf16_16(_mm512_loadu_ps(src + i)));
    if (i < n) {
        const __mmask16 m = emu_tail_mask16(n - i);
        _mm256_mask_storeu_epi16(dst + i, m, emu_f32_to_bf16_16(_mm512_maskz_loadu_ps(m, src + i)));
    }
}
