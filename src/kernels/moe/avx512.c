/* AVX-512 MoE leaves: the AVX2 structure with 16-wide registers (four zmm
 * hold a 64-element block) and a masked tail; the same per-element
 * operations as moe.h, so results match the other ISAs bit for bit. */
#include <immintrin.h>
#include <string.h>

#include "kernels/moe/moe.h"
#include "kernels/stream_copy_x86.h"

enum { PREFETCH_BYTES = 1024 };

static inline __mmask16 tail_mask(size_t rem) { return (__mmask16)((1u << rem) - 1u); }

static inline __m512 load16_f32(const void* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
static inline __m512 load16_f16(const void* p, __mmask16 m) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
}
static inline __m512 load16_bf16(const void* p, __mmask16 m) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
}

static inline __m256i narrow16_bf16(__m512 v) {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i hi = _mm512_srli_epi32(x, 16);
    const __m512i bias = _mm512_add_epi32(_mm512_and_si512(hi, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x7FFF));
    const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(x, bias), 16);
    const __m512i quiet_nan = _mm512_or_si512(hi, _mm512_set1_epi32(0x0040));
    const __m512i ax = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFFFFFF));
    const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(ax, _mm512_set1_epi32(0x7F800000));
    return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(is_nan, rounded, quiet_nan));
}

static inline void store16_f32(void* p, __m512 v, __mmask16 m, bool nt) {
    if (nt) _mm512_stream_ps((float*)p, v);
    else _mm512_mask_storeu_ps(p, m, v);
}
static inline void store16_f16(void* p, __m512 v, __mmask16 m, bool nt) {
    const __m256i h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
    if (nt) _mm256_stream_si256((__m256i*)p, h);
    else _mm256_mask_storeu_epi16(p, m, h);
}
static inline void store16_bf16(void* p, __m512 v, __mmask16 m, bool nt) {
    const __m256i h = narrow16_bf16(v);
    if (nt) _mm256_stream_si256((__m256i*)p, h);
    else _mm256_mask_storeu_epi16(p, m, h);
}

static inline bool kept(int32_t i, int64_t rows) { return i >= 0 && i < rows; }

#define DEFINE_GATHER_SUM(name, E, LOAD16, STORE16)                                                           \
    void emu_moe_gather_sum_##name##__avx512(size_t width, const int32_t* idx, size_t count, int64_t rows,    \
                                             const void* base, int64_t row_bytes, void* out, bool stream) {   \
        char* dst = (char*)out;                                                                                \
        const char* b = (const char*)base;                                                                     \
        const __mmask16 all = 0xFFFF;                                                                          \
        size_t first = 0;                                                                                      \
        while (first < count && !kept(idx[first], rows)) ++first;                                             \
        if (first == count) {                                                                                  \
            memset(out, 0, width * (E));                                                                       \
            return;                                                                                            \
        }                                                                                                      \
        const char* r0 = b + (int64_t)idx[first] * row_bytes;                                                  \
        const bool nt = stream && ((uintptr_t)dst % (16 * (E))) == 0;                                          \
        size_t i = 0;                                                                                          \
        for (; i + 64 <= width; i += 64) {                                                                     \
            const char* p = r0 + i * (E);                                                                      \
            for (int l = 0; l < (E); ++l) _mm_prefetch(p + PREFETCH_BYTES + 64 * l, _MM_HINT_T0);              \
            __m512 a0 = LOAD16(p, all), a1 = LOAD16(p + 16 * (E), all);                                        \
            __m512 a2 = LOAD16(p + 32 * (E), all), a3 = LOAD16(p + 48 * (E), all);                             \
            for (size_t j = first + 1; j < count; ++j) {                                                       \
                if (!kept(idx[j], rows)) continue;                                                             \
                const char* q = b + (int64_t)idx[j] * row_bytes + i * (E);                                     \
                for (int l = 0; l < (E); ++l) _mm_prefetch(q + PREFETCH_BYTES + 64 * l, _MM_HINT_T0);          \
                a0 = _mm512_add_ps(a0, LOAD16(q, all));                                                        \
                a1 = _mm512_add_ps(a1, LOAD16(q + 16 * (E), all));                                             \
                a2 = _mm512_add_ps(a2, LOAD16(q + 32 * (E), all));                                             \
                a3 = _mm512_add_ps(a3, LOAD16(q + 48 * (E), all));                                             \
            }                                                                                                  \
            char* o = dst + i * (E);                                                                           \
            STORE16(o, a0, all, nt);                                                                           \
            STORE16(o + 16 * (E), a1, all, nt);                                                                \
            STORE16(o + 32 * (E), a2, all, nt);                                                                \
            STORE16(o + 48 * (E), a3, all, nt);                                                                \
        }                                                                                                      \
        for (; i < width; i += 16) {                                                                           \
            const size_t n = width - i < 16 ? width - i : 16;                                                  \
            const __mmask16 m = n == 16 ? all : tail_mask(n);                                                  \
            __m512 a = LOAD16(r0 + i * (E), m);                                                                \
            for (size_t j = first + 1; j < count; ++j) {                                                       \
                if (kept(idx[j], rows)) a = _mm512_add_ps(a, LOAD16(b + (int64_t)idx[j] * row_bytes + i * (E), m)); \
            }                                                                                                  \
            STORE16(dst + i * (E), a, m, nt && n == 16);                                                       \
        }                                                                                                      \
        if (nt) _mm_sfence();                                                                                  \
    }

DEFINE_GATHER_SUM(f32, 4, load16_f32, store16_f32)
DEFINE_GATHER_SUM(f16, 2, load16_f16, store16_f16)
DEFINE_GATHER_SUM(bf16, 2, load16_bf16, store16_bf16)

void emu_moe_copy_row__avx512(size_t bytes, const void* src, void* dst, bool stream) {
    if (!stream) {
        memcpy(dst, src, bytes);
        return;
    }
    emu_stream_copy_avx512(dst, src, bytes, PREFETCH_BYTES); /* the source row is far away: prefetch it */
    _mm_sfence();
}
