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

/* The lines of dst from its first 32-byte boundary on: 16 values per
 * 32-byte store, narrowed as above and stored non-temporally; the elements
 * before and after through the plain kernel (same bits). */
#define EMU_CVT_STREAM_AVX2(name, plain, narrow8)                                                 \
    void name(size_t n, const float* src, uint16_t* dst) {                                        \
        size_t head = (size_t)((32 - (uintptr_t)dst % 32) % 32) / 2;                              \
        if ((uintptr_t)dst % 2 != 0 || head > n) head = n;                                        \
        plain(head, src, dst);                                                                    \
        size_t i = head;                                                                          \
        for (; i + 16 <= n; i += 16) {                                                            \
            const __m128i lo = narrow8(_mm256_loadu_ps(src + i));                                 \
            const __m128i hi = narrow8(_mm256_loadu_ps(src + i + 8));                             \
            _mm256_stream_si256((__m256i*)(dst + i), _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1)); \
        }                                                                                         \
        plain(n - i, src + i, dst + i);                                                           \
    }

static inline __m128i emu_f32_to_f16_8(__m256 v) { return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT); }
EMU_CVT_STREAM_AVX2(emu_f32_to_f16_stream__avx2, emu_f32_to_f16__avx2, emu_f32_to_f16_8)
EMU_CVT_STREAM_AVX2(emu_f32_to_bf16_stream__avx2, emu_f32_to_bf16__avx2, emu_f32_to_bf16_8)
