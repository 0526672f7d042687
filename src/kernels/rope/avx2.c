/* AVX2 RoPE kernels: 8 lanes, the bodies of simd_body.h. */
#include <immintrin.h>

#define VEC __m256
#define VW 8
#define V_LOAD _mm256_loadu_ps
#define V_STORE _mm256_storeu_ps
#define V_STREAM _mm256_stream_ps
#define V_FMA _mm256_fmadd_ps
#define V_MUL _mm256_mul_ps
#define V_XOR _mm256_xor_ps
#define V_NEG(v) _mm256_xor_ps((v), _mm256_set1_ps(-0.0f))
#define V_SWAP_PAIRS(v) _mm256_permute_ps((v), 0xB1)
#define V_SIGN_ODD _mm256_setr_ps(0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f)
#define V_SIGN_EVEN _mm256_setr_ps(-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f)
#define ISA_SUFFIX(name) name##__avx2

#include "kernels/rope/simd_body.h"

/* fp16/bf16 kernels with fused conversions; the conversions are those of
 * convert/avx2.c (F16C with round-to-nearest-even; bf16 by shift, and RNE
 * with NaNs quieted as convert.h specifies). */
#include "kernels/convert/convert.h"

static inline __m256 f16_load8(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p)); }

static inline void f16_store8(uint16_t* p, __m256 v) {
    _mm_storeu_si128((__m128i*)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

static inline void f16_stream8(uint16_t* p, __m256 v) {
    _mm_stream_si128((__m128i*)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

static inline __m256 bf16_load8(const uint16_t* p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p)), 16));
}

/* RNE to bf16 in the low 16 bits of each lane, for lanes that are not NaN. */
static inline __m256i bf16_round8_numbers(__m256i x) {
    const __m256i hi = _mm256_srli_epi32(x, 16);
    const __m256i bias = _mm256_add_epi32(_mm256_and_si256(hi, _mm256_set1_epi32(1)), _mm256_set1_epi32(0x7FFF));
    return _mm256_srli_epi32(_mm256_add_epi32(x, bias), 16);
}

/* The same for every lane: NaNs keep their sign and payload's top bits and
 * are quieted (convert.h's rule, bit for bit). */
static inline __m256i bf16_round8(__m256 v) {
    const __m256i x = _mm256_castps_si256(v);
    const __m256i quiet_nan = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x0040));
    const __m256i is_nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    return _mm256_blendv_epi8(bf16_round8_numbers(x), quiet_nan, is_nan);
}

static inline __m128i bf16_pack8(__m256 v) {
    const __m256i r = bf16_round8(v);
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

static inline void bf16_store8(uint16_t* p, __m256 v) { _mm_storeu_si128((__m128i*)p, bf16_pack8(v)); }

static inline void bf16_stream8(uint16_t* p, __m256 v) { _mm_stream_si128((__m128i*)p, bf16_pack8(v)); }

/* 16 values for one store: one pack and one lane fix-up instead of two
 * extract-and-pack sequences, and one test for NaNs in either vector
 * instead of a select per vector (the NaN-free path, taken unless a NaN is
 * stored, is 16 operations instead of 19). */
static inline __m256i bf16_pack16(__m256 v0, __m256 v1) {
    __m256i r0, r1;
    if (__builtin_expect(_mm256_movemask_ps(_mm256_cmp_ps(v0, v1, _CMP_UNORD_Q)) != 0, 0)) {
        r0 = bf16_round8(v0);
        r1 = bf16_round8(v1);
    } else {
        r0 = bf16_round8_numbers(_mm256_castps_si256(v0));
        r1 = bf16_round8_numbers(_mm256_castps_si256(v1));
    }
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(r0, r1), 0xD8);
}

static inline void bf16_store16(uint16_t* p, __m256 v0, __m256 v1) {
    _mm256_storeu_si256((__m256i*)p, bf16_pack16(v0, v1));
}

static inline void bf16_stream16(uint16_t* p, __m256 v0, __m256 v1) {
    _mm256_stream_si256((__m256i*)p, bf16_pack16(v0, v1));
}

#define HALF_LOAD f16_load8
#define HALF_STORE f16_store8
#define HALF_STREAM f16_stream8
#define HALF_TO_F32 emu_f16_to_f32
#define HALF_FROM_F32 emu_f32_to_f16
#define HALF_NAME(name, form) emu_f16_##name##form##__avx2
#include "kernels/rope/half_instances.h"

#define HALF_LOAD bf16_load8
#define HALF_STORE bf16_store8
#define HALF_STORE2 bf16_store16
#define HALF_STREAM bf16_stream8
#define HALF_STREAM2 bf16_stream16
#define HALF_TO_F32 emu_bf16_to_f32
#define HALF_FROM_F32 emu_f32_to_bf16
#define HALF_NAME(name, form) emu_bf16_##name##form##__avx2
#include "kernels/rope/half_instances.h"

#include "kernels/stream_copy_x86.h"

/* The source is the chunk's scratch block, already in L1: no prefetch. */
void emu_rope_stream_copy__avx2(size_t bytes, const void* src, void* dst) { emu_stream_copy_avx2(dst, src, bytes, 0); }

void emu_rope_stream_fence__avx2(void) { _mm_sfence(); }
