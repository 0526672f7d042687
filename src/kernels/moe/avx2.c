/* AVX2 + F16C MoE leaves. gather_sum keeps 64 fp32 sums in eight ymm
 * registers while it walks the kept rows, prefetching each row ahead, then
 * rounds and stores once; 8-wide blocks and a scalar tail finish the row,
 * each with the per-element operations of moe.h. */
#include <immintrin.h>
#include <string.h>

#include "kernels/convert/convert.h"
#include "kernels/moe/moe.h"
#include "kernels/stream_copy_x86.h"

enum { PREFETCH_BYTES = 1024 };

static inline __m256 load8_f32(const void* p) { return _mm256_loadu_ps((const float*)p); }
static inline __m256 load8_f16(const void* p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p)); }
static inline __m256 load8_bf16(const void* p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p)), 16));
}

static inline __m128i narrow8_bf16(__m256 v) {
    const __m256i x = _mm256_castps_si256(v);
    const __m256i hi = _mm256_srli_epi32(x, 16);
    const __m256i bias = _mm256_add_epi32(_mm256_and_si256(hi, _mm256_set1_epi32(1)), _mm256_set1_epi32(0x7FFF));
    const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(x, bias), 16);
    const __m256i quiet_nan = _mm256_or_si256(hi, _mm256_set1_epi32(0x0040));
    const __m256i ax = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFFFFFF));
    const __m256i r = _mm256_blendv_epi8(rounded, quiet_nan, _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7F800000)));
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

static inline void store8_f32(void* p, __m256 v, bool nt) {
    if (nt) _mm256_stream_ps((float*)p, v);
    else _mm256_storeu_ps((float*)p, v);
}
static inline void store8_f16(void* p, __m256 v, bool nt) {
    const __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
    if (nt) _mm_stream_si128((__m128i*)p, h);
    else _mm_storeu_si128((__m128i*)p, h);
}
static inline void store8_bf16(void* p, __m256 v, bool nt) {
    const __m128i h = narrow8_bf16(v);
    if (nt) _mm_stream_si128((__m128i*)p, h);
    else _mm_storeu_si128((__m128i*)p, h);
}

static inline float tail_f32(const void* p) { return *(const float*)p; }
static inline float tail_f16(const void* p) { return emu_f16_to_f32(*(const uint16_t*)p); }
static inline float tail_bf16(const void* p) { return emu_bf16_to_f32(*(const uint16_t*)p); }
static inline void put_f32(void* p, float v) { *(float*)p = v; }
static inline void put_f16(void* p, float v) { *(uint16_t*)p = emu_f32_to_f16(v); }
static inline void put_bf16(void* p, float v) { *(uint16_t*)p = emu_f32_to_bf16(v); }

static inline bool kept(int32_t i, int64_t rows) { return i >= 0 && i < rows; }

#define DEFINE_GATHER_SUM(name, E, LOAD8, STORE8, TAIL, PUT)                                                  \
    void emu_moe_gather_sum_##name##__avx2(size_t width, const int32_t* idx, size_t count, int64_t rows,      \
                                           const void* base, int64_t row_bytes, void* out, bool stream) {     \
        char* dst = (char*)out;                                                                                \
        const char* b = (const char*)base;                                                                     \
        size_t first = 0;                                                                                      \
        while (first < count && !kept(idx[first], rows)) ++first;                                             \
        if (first == count) {                                                                                  \
            memset(out, 0, width * (E));                                                                       \
            return;                                                                                            \
        }                                                                                                      \
        const char* r0 = b + (int64_t)idx[first] * row_bytes;                                                  \
        const bool nt = stream && ((uintptr_t)dst % (8 * (E))) == 0;                                           \
        size_t i = 0;                                                                                          \
        for (; i + 64 <= width; i += 64) {                                                                     \
            const char* p = r0 + i * (E);                                                                      \
            for (int l = 0; l < (E); ++l) _mm_prefetch(p + PREFETCH_BYTES + 64 * l, _MM_HINT_T0);              \
            __m256 a0 = LOAD8(p), a1 = LOAD8(p + 8 * (E)), a2 = LOAD8(p + 16 * (E)), a3 = LOAD8(p + 24 * (E)); \
            __m256 a4 = LOAD8(p + 32 * (E)), a5 = LOAD8(p + 40 * (E)), a6 = LOAD8(p + 48 * (E));             \
            __m256 a7 = LOAD8(p + 56 * (E));                                                                   \
            for (size_t j = first + 1; j < count; ++j) {                                                       \
                if (!kept(idx[j], rows)) continue;                                                             \
                const char* q = b + (int64_t)idx[j] * row_bytes + i * (E);                                     \
                for (int l = 0; l < (E); ++l) _mm_prefetch(q + PREFETCH_BYTES + 64 * l, _MM_HINT_T0);          \
                a0 = _mm256_add_ps(a0, LOAD8(q));                                                              \
                a1 = _mm256_add_ps(a1, LOAD8(q + 8 * (E)));                                                    \
                a2 = _mm256_add_ps(a2, LOAD8(q + 16 * (E)));                                                   \
                a3 = _mm256_add_ps(a3, LOAD8(q + 24 * (E)));                                                   \
                a4 = _mm256_add_ps(a4, LOAD8(q + 32 * (E)));                                                   \
                a5 = _mm256_add_ps(a5, LOAD8(q + 40 * (E)));                                                   \
                a6 = _mm256_add_ps(a6, LOAD8(q + 48 * (E)));                                                   \
                a7 = _mm256_add_ps(a7, LOAD8(q + 56 * (E)));                                                   \
            }                                                                                                  \
            char* o = dst + i * (E);                                                                           \
            STORE8(o, a0, nt);                                                                                 \
            STORE8(o + 8 * (E), a1, nt);                                                                       \
            STORE8(o + 16 * (E), a2, nt);                                                                      \
            STORE8(o + 24 * (E), a3, nt);                                                                      \
            STORE8(o + 32 * (E), a4, nt);                                                                      \
            STORE8(o + 40 * (E), a5, nt);                                                                      \
            STORE8(o + 48 * (E), a6, nt);                                                                      \
            STORE8(o + 56 * (E), a7, nt);                                                                      \
        }                                                                                                      \
        for (; i + 8 <= width; i += 8) {                                                                       \
            __m256 a = LOAD8(r0 + i * (E));                                                                    \
            for (size_t j = first + 1; j < count; ++j) {                                                       \
                if (kept(idx[j], rows)) a = _mm256_add_ps(a, LOAD8(b + (int64_t)idx[j] * row_bytes + i * (E)));\
            }                                                                                                  \
            STORE8(dst + i * (E), a, nt);                                                                      \
        }                                                                                                      \
        for (; i < width; ++i) {                                                                               \
            float a = TAIL(r0 + i * (E));                                                                      \
            for (size_t j = first + 1; j < count; ++j) {                                                       \
                if (kept(idx[j], rows)) a += TAIL(b + (int64_t)idx[j] * row_bytes + i * (E));                  \
            }                                                                                                  \
            PUT(dst + i * (E), a);                                                                             \
        }                                                                                                      \
        if (nt) _mm_sfence();                                                                                  \
    }

DEFINE_GATHER_SUM(f32, 4, load8_f32, store8_f32, tail_f32, put_f32)
DEFINE_GATHER_SUM(f16, 2, load8_f16, store8_f16, tail_f16, put_f16)
DEFINE_GATHER_SUM(bf16, 2, load8_bf16, store8_bf16, tail_bf16, put_bf16)

void emu_moe_copy_row__avx2(size_t bytes, const void* src, void* dst, bool stream) {
    if (!stream) {
        memcpy(dst, src, bytes);
        return;
    }
    emu_stream_copy_avx2(dst, src, bytes, PREFETCH_BYTES); /* the source row is far away: prefetch it */
    _mm_sfence();
}
