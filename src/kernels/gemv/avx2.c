/* AVX2 + FMA + F16C: gemv.h with 8 lanes (body.h). */
#include <immintrin.h>
#include <string.h>

#include "kernels/convert/avx2_inline.h"
#include "kernels/transpose8x8_x86.h"

#define V 8
typedef __m256 vf;

static inline vf vzero(void) { return _mm256_setzero_ps(); }
static inline vf vset1(float x) { return _mm256_set1_ps(x); }
static inline vf vfma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
static inline vf vadd(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vmul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline vf vloadu(const float* p) { return _mm256_loadu_ps(p); }
static inline void vstoreu(float* p, vf v) { _mm256_storeu_ps(p, v); }
static inline vf load_f16(const uint16_t* p) { return emu_load_f16_8(p); }
static inline vf load_bf16(const uint16_t* p) { return emu_load_bf16_8(p); }
static inline vf load_i8(const int8_t* p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)p)));
}
static inline vf load_i4(const uint8_t* p) {
    int32_t word;
    memcpy(&word, p, sizeof word);
    const __m128i b = _mm_cvtsi32_si128(word), low = _mm_set1_epi8(15), eight = _mm_set1_epi8(8);
    const __m128i v = _mm_unpacklo_epi8(_mm_and_si128(b, low), _mm_and_si128(_mm_srli_epi16(b, 4), low));
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_sub_epi8(_mm_xor_si128(v, eight), eight)));
}
static inline vf round_f16(vf v) { return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)); }
static inline vf round_bf16(vf v) { return emu_bf16_to_f32_8(emu_f32_to_bf16_8(v)); }

static inline __attribute__((always_inline)) void transpose(vf* r) { emu_transpose8x8_ps(r); }

#include "kernels/gemv/body.h"

void emu_gemv__avx2(const emu_gemv_args* g) { gemv_any(g); }
