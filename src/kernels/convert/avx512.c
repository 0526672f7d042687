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

/* The lines of dst from its first 64-byte boundary on: 32 values per line,
 * narrowed as above and stored non-temporally; the elements before and
 * after through the plain kernel (same bits). dst must hold whole elements
 * (2-byte aligned) for its lines to hold whole values. */
#define EMU_CVT_STREAM_AVX512(name, plain, narrow16)                                             \
    void name(size_t n, const float* src, uint16_t* dst) {                                        \
        size_t head = (size_t)((64 - (uintptr_t)dst % 64) % 64) / 2;                              \
        if ((uintptr_t)dst % 2 != 0 || head > n) head = n;                                        \
        plain(head, src, dst);                                                                    \
        size_t i = head;                                                                          \
        for (; i + 32 <= n; i += 32) {                                                            \
            const __m256i lo = narrow16(_mm512_loadu_ps(src + i));                                \
            const __m256i hi = narrow16(_mm512_loadu_ps(src + i + 16));                           \
            _mm512_stream_si512((void*)(dst + i), _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1)); \
        }                                                                                         \
        plain(n - i, src + i, dst + i);                                                           \
    }

static inline __m256i emu_f32_to_f16_16(__m512 v) { return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT); }
EMU_CVT_STREAM_AVX512(emu_f32_to_f16_stream__avx512, emu_f32_to_f16__avx512, emu_f32_to_f16_16)
EMU_CVT_STREAM_AVX512(emu_f32_to_bf16_stream__avx512, emu_f32_to_bf16__avx512, emu_f32_to_bf16_16)
