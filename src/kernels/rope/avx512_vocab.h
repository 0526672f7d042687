/* The AVX-512 vocabulary of the RoPE kernels (simd_body.h's V_* macros, 16
 * lanes) and their fp16/bf16 loads and stores, for avx512.c and
 * avx512_bf16.c. The includer defines ROPE_AVX512_BF16 to narrow bf16 with
 * AVX512_BF16's instructions (built with -mavx512bf16). */
#ifndef ACLNN_EMU_KERNELS_ROPE_AVX512_VOCAB_H
#define ACLNN_EMU_KERNELS_ROPE_AVX512_VOCAB_H

#include <immintrin.h>
#include <stdbool.h>

#define VEC __m512
#define VW 16
#define V_LOAD _mm512_loadu_ps
#define V_STORE _mm512_storeu_ps
#define V_STREAM _mm512_stream_ps
#define V_FMA _mm512_fmadd_ps
#define V_MUL _mm512_mul_ps
#define V_XOR _mm512_xor_ps
#define V_NEG(v) _mm512_xor_ps((v), _mm512_set1_ps(-0.0f))
#define V_SWAP_PAIRS(v) _mm512_permute_ps((v), 0xB1)
#define V_SIGN_ODD                                                                                         \
    _mm512_setr_ps(0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, \
                   0.0f, -0.0f)
#define V_SIGN_EVEN                                                                                        \
    _mm512_setr_ps(-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, \
                   -0.0f, 0.0f)
/* The conversions are those of convert/avx512.c (F16C with
 * round-to-nearest-even; bf16 by shift, and RNE with NaNs quieted as
 * convert.h specifies). */
#include "kernels/convert/convert.h"

static inline __m512 f16_load16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p));
}

static inline void f16_store16(uint16_t* p, __m512 v) {
    _mm256_storeu_si256((__m256i*)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

static inline void f16_stream16(uint16_t* p, __m512 v) {
    _mm256_stream_si256((__m256i*)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

static inline __m512 bf16_load16(const uint16_t* p) {
    /* word i to word 2i + 1, the even words zeroed: one permutation instead of a widening move and a shift. */
    const __m512i to_high = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4,
                                             0, 3, 0, 2, 0, 1, 0, 0, 0);
    const __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i*)p));
    return _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, to_high, v));
}

/* RNE to bf16 in the low 16 bits of each lane, for lanes that are not NaN. */
static inline __m512i bf16_round16_numbers(__m512i x) {
    const __m512i hi = _mm512_srli_epi32(x, 16);
    const __m512i bias = _mm512_add_epi32(_mm512_and_si512(hi, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x7FFF));
    return _mm512_srli_epi32(_mm512_add_epi32(x, bias), 16);
}

/* The same for every lane: NaNs keep their sign and payload's top bits and
 * are quieted (convert.h's rule, bit for bit). */
static inline __m512i bf16_round16(__m512 v) {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i quiet_nan = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x0040));
    return _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), bf16_round16_numbers(x), quiet_nan);
}


/* RNE to bf16 in the high 16 bits of each lane (the low bits are garbage):
 * bf16_round16_numbers without its final shift, NaNs quieted in place. */
static inline __m512i bf16_round16_high(__m512 v, const bool may_be_nan) {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(x, lsb), _mm512_set1_epi32(0x7FFF));
    if (!may_be_nan) return rounded;
    const __m512i quiet_nan = _mm512_or_si512(x, _mm512_set1_epi32(0x00400000));
    return _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), rounded, quiet_nan);
}

/* 32 values for one store: the high halves of both vectors gathered by one
 * two-source word permutation (instead of two shifts, a pack and a lane
 * fix-up), and one test for NaNs in either vector instead of a select per
 * vector, as bf16_pack16 of avx2.c does. */
static inline __m512i bf16_pack32_exact(__m512 v0, __m512 v1) {
    __m512i r0, r1;
    if (__builtin_expect(_mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) != 0, 0)) {
        r0 = bf16_round16_high(v0, true);
        r1 = bf16_round16_high(v1, true);
    } else {
        r0 = bf16_round16_high(v0, false);
        r1 = bf16_round16_high(v1, false);
    }
    /* word i of the result: word 2i + 1 of r0 (i < 16) or of r1 (index bit 5). */
    const __m512i odd_words = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31,
                                               29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    return _mm512_permutex2var_epi16(r0, odd_words, r1);
}

#ifdef ROPE_AVX512_BF16
/* vcvtneps2bf16 / vcvtne2ps2bf16 round to nearest even and quiet NaNs
 * exactly as convert.h does, but read denormal inputs as zero (convert.h
 * rounds them like any number): vectors holding one take the integer path,
 * which costs a class test per vector on the common path. */
static inline int bf16_any_denormal(__m512 v) { return _mm512_fpclass_ps_mask(v, 0x20) != 0; }

static inline __m256i bf16_pack16(__m512 v) {
    if (__builtin_expect(bf16_any_denormal(v), 0)) return _mm512_cvtepi32_epi16(bf16_round16(v));
    return (__m256i)_mm512_cvtneps_pbh(v);
}

static inline __m512i bf16_pack32(__m512 v0, __m512 v1) {
    if (__builtin_expect(bf16_any_denormal(v0) | bf16_any_denormal(v1), 0)) return bf16_pack32_exact(v0, v1);
    return (__m512i)_mm512_cvtne2ps_pbh(v1, v0);
}
#else
static inline __m256i bf16_pack16(__m512 v) { return _mm512_cvtepi32_epi16(bf16_round16(v)); }

static inline __m512i bf16_pack32(__m512 v0, __m512 v1) { return bf16_pack32_exact(v0, v1); }
#endif

static inline void bf16_store16(uint16_t* p, __m512 v) { _mm256_storeu_si256((__m256i*)p, bf16_pack16(v)); }

static inline void bf16_stream16(uint16_t* p, __m512 v) { _mm256_stream_si256((__m256i*)p, bf16_pack16(v)); }

static inline void bf16_store32(uint16_t* p, __m512 v0, __m512 v1) {
    _mm512_storeu_si512((void*)p, bf16_pack32(v0, v1));
}

static inline void bf16_stream32(uint16_t* p, __m512 v0, __m512 v1) {
    _mm512_stream_si512((void*)p, bf16_pack32(v0, v1));
}

#endif
