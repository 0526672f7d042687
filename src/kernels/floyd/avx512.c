/* AVX-512 Floyd element-wise kernels: algo.h's algorithm, 16 lanes in one vector. */
#include <immintrin.h>

#include "kernels/floyd/algo.h"

static inline __m512 exp16(__m512 x) {
    x = _mm512_max_ps(_mm512_set1_ps(EMU_FLOYD_EXP_LO), x);
    x = _mm512_min_ps(_mm512_set1_ps(EMU_FLOYD_EXP_HI), x);
    __m512 z;
    const __m512 p = emu_exp_core_avx512(x, &z);
    const __m512i n = _mm512_sub_epi32(_mm512_castps_si512(z), _mm512_set1_epi32(EMU_EXP_MAGIC_BITS));
    const __m512i n1 = _mm512_srai_epi32(n, 1);
    const __m512i n2 = _mm512_sub_epi32(n, n1);
    const __m512i bias = _mm512_set1_epi32(127);
    const __m512 scale1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n1, bias), 23));
    const __m512 scale2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n2, bias), 23));
    return _mm512_mul_ps(_mm512_mul_ps(p, scale1), scale2);
}

static inline __m512 score16(const float* s, const uint8_t* mask, __m512 scale) {
    const __m512 x = _mm512_mul_ps(scale, _mm512_loadu_ps(s));
    if (mask == NULL) return x;
    const __m512i m = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i*)mask));
    const __mmask16 masked = _mm512_test_epi32_mask(m, m);
    return _mm512_mask_blend_ps(masked, x, _mm512_set1_ps(-FLT_MAX));
}

float emu_f32_floyd_scores_max__avx512(size_t n, float* s, const uint8_t* mask, float scale) {
    const __m512 vs = _mm512_set1_ps(scale);
    __m512 acc = _mm512_set1_ps(-INFINITY);
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        const __m512 x = score16(s + i, mask ? mask + i : NULL, vs);
        _mm512_storeu_ps(s + i, x);
        acc = _mm512_max_ps(x, acc);
    }
    float lane[EMU_FLOYD_LANES];
    _mm512_storeu_ps(lane, acc);
    return emu_floyd_combine_max_(lane);
}

float emu_f32_floyd_exp_sum__avx512(size_t n, float* s, float max) {
    const __m512 vmax = _mm512_set1_ps(max);
    __m512 acc = _mm512_setzero_ps();
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        const __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(s + i), vmax));
        _mm512_storeu_ps(s + i, e);
        acc = _mm512_add_ps(acc, e);
    }
    float lane[EMU_FLOYD_LANES];
    _mm512_storeu_ps(lane, acc);
    return emu_floyd_combine_sum_(lane);
}

void emu_f32_floyd_softmax__avx512(size_t n, float* s, const uint8_t* mask, float scale, float max, float sum) {
    const __m512 vs = _mm512_set1_ps(scale), vmax = _mm512_set1_ps(max), vsum = _mm512_set1_ps(sum);
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        const __m512 x = score16(s + i, mask ? mask + i : NULL, vs);
        _mm512_storeu_ps(s + i, _mm512_div_ps(exp16(_mm512_sub_ps(x, vmax)), vsum));
    }
}

void emu_f32_floyd_softmax_grad__avx512(size_t n, const float* p, float* dp, float dsum, float scale) {
    const __m512 vd = _mm512_set1_ps(dsum), vs = _mm512_set1_ps(scale);
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        const __m512 t = _mm512_sub_ps(_mm512_loadu_ps(dp + i), vd);
        _mm512_storeu_ps(dp + i, _mm512_mul_ps(vs, _mm512_mul_ps(_mm512_loadu_ps(p + i), t)));
    }
}

float emu_f32_floyd_dot__avx512(size_t n, const float* x, const float* y) {
    __m512 acc = _mm512_setzero_ps();
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        acc = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), acc);
    }
    float lane[EMU_FLOYD_LANES];
    _mm512_storeu_ps(lane, acc);
    return emu_floyd_combine_sum_(lane);
}
