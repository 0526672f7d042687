/* AVX-512F: gemv.h with 16 lanes (body.h). */
#include <immintrin.h>

#include "kernels/convert/avx512_inline.h"

#define V 16
typedef __m512 vf;

static inline vf vzero(void) { return _mm512_setzero_ps(); }
static inline vf vset1(float x) { return _mm512_set1_ps(x); }
static inline vf vfma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
static inline vf vadd(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vmul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf vloadu(const float* p) { return _mm512_loadu_ps(p); }
static inline void vstoreu(float* p, vf v) { _mm512_storeu_ps(p, v); }
static inline vf load_f16(const uint16_t* p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p)); }
static inline vf load_bf16(const uint16_t* p) { return emu_bf16_to_f32_16(_mm256_loadu_si256((const __m256i*)p)); }
static inline vf load_i8(const int8_t* p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)p)));
}
static inline vf load_i4(const uint8_t* p) {
    const __m128i b = _mm_loadl_epi64((const __m128i*)p), low = _mm_set1_epi8(15), eight = _mm_set1_epi8(8);
    const __m128i v = _mm_unpacklo_epi8(_mm_and_si128(b, low), _mm_and_si128(_mm_srli_epi16(b, 4), low));
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_sub_epi8(_mm_xor_si128(v, eight), eight)));
}
static inline vf round_f16(vf v) {
    return _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
static inline vf round_bf16(vf v) { return emu_bf16_to_f32_16(emu_f32_to_bf16_16(v)); }

static inline __attribute__((always_inline)) void transpose(vf* r) {
    __m512 t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    /* r[4h + c] now holds, in each 128-bit lane L, column 4L + c of rows 4h..4h+3. */
    for (int h = 0; h < 16; h += 8) {
        for (int c = 0; c < 4; ++c) {
            t[h + c] = _mm512_shuffle_f32x4(r[h + c], r[h + 4 + c], 0x88);
            t[h + 4 + c] = _mm512_shuffle_f32x4(r[h + c], r[h + 4 + c], 0xDD);
        }
    }
    for (int c = 0; c < 8; ++c) {
        r[c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88);
        r[8 + c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0xDD);
    }
}

#include "kernels/gemv/body.h"

void emu_gemv__avx512(const emu_gemv_args* g) { gemv_any(g); }
