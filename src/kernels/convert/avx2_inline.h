/* Internal: AVX2 + F16C conversions of one vector, shared by the convert
 * kernels and the kernels that fuse conversion into their loads/stores.
 * Include only from files compiled with AVX2/F16C flags. Rounding and NaN
 * rules are those of convert.h. */
#ifndef ACLNN_EMU_KERNELS_CONVERT_AVX2_INLINE_H
#define ACLNN_EMU_KERNELS_CONVERT_AVX2_INLINE_H

#include <immintrin.h>
#include <stdint.h>

/* Returns the bf16 results in the low 16 bits of each 32-bit lane. */
static inline __m256i emu_f32_to_bf16_lanes(__m256 v) {
    const __m256i x = _mm256_castps_si256(v);
    const __m256i hi = _mm256_srli_epi32(x, 16);
    const __m256i bias = _mm256_add_epi32(_mm256_and_si256(hi, _mm256_set1_epi32(1)),
                                          _mm256_set1_epi32(0x7FFF));
    const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(x, bias), 16);
    const __m256i quiet_nan = _mm256_or_si256(hi, _mm256_set1_epi32(0x0040));
    /* NaN is the one input the rounding add could carry into a wrong result. */
    const __m256 is_nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
    return _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(rounded), _mm256_castsi256_ps(quiet_nan), is_nan));
}

static inline __m128i emu_f32_to_bf16_8(__m256 v) {
    const __m256i r = emu_f32_to_bf16_lanes(v);
    /* Every lane is <= 0xFFFF, so the unsigned saturating pack is exact. */
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

static inline __m256 emu_bf16_to_f32_8(__m128i h) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

static inline __m256 emu_load_f16_8(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p));
}

static inline __m256 emu_load_bf16_8(const uint16_t* p) {
    return emu_bf16_to_f32_8(_mm_loadu_si128((const __m128i*)p));
}

static inline void emu_store_f16_8(uint16_t* p, __m256 v) {
    _mm_storeu_si128((__m128i*)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

static inline void emu_store_bf16_8(uint16_t* p, __m256 v) {
    _mm_storeu_si128((__m128i*)p, emu_f32_to_bf16_8(v));
}

/* Element-wise kernels may handle 16 bf16 values in a permuted lane order:
 * interleaving with zero words widens them without crossing 128-bit lanes
 * (lo holds elements 0-3 and 8-11, hi holds 4-7 and 12-15), and
 * emu_store_bf16_pair_16 restores the order, because packus also works per
 * 128-bit lane: (lo 0-3, hi 4-7 | lo 8-11, hi 12-15). */
static inline void emu_load_bf16_pair_16(const uint16_t* p, __m256* lo, __m256* hi) {
    const __m256i v = _mm256_loadu_si256((const __m256i*)p);
    const __m256i zero = _mm256_setzero_si256();
    *lo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, v));
    *hi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, v));
}

static inline void emu_store_bf16_pair_16(uint16_t* p, __m256 lo, __m256 hi) {
    _mm256_storeu_si256((__m256i*)p, _mm256_packus_epi32(emu_f32_to_bf16_lanes(lo), emu_f32_to_bf16_lanes(hi)));
}

static inline void emu_load_f16_pair_16(const uint16_t* p, __m256* lo, __m256* hi) {
    *lo = emu_load_f16_8(p);
    *hi = emu_load_f16_8(p + 8);
}

static inline void emu_store_f16_pair_16(uint16_t* p, __m256 lo, __m256 hi) {
    emu_store_f16_8(p, lo);
    emu_store_f16_8(p + 8, hi);
}

#endif
