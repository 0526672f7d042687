/* AVX2+FMA Floyd element-wise kernels: algo.h's algorithm, 16 lanes as two
 * 8-float vectors (lanes 0-7 and 8-15). */
#include <immintrin.h>

#include "kernels/floyd/algo.h"

static inline __m256 exp8(__m256 x) {
    x = _mm256_max_ps(_mm256_set1_ps(EMU_FLOYD_EXP_LO), x);
    x = _mm256_min_ps(_mm256_set1_ps(EMU_FLOYD_EXP_HI), x);
    __m256 z;
    const __m256 p = emu_exp_core_avx2(x, &z);
    const __m256i n = _mm256_sub_epi32(_mm256_castps_si256(z), _mm256_set1_epi32(EMU_EXP_MAGIC_BITS));
    const __m256i n1 = _mm256_srai_epi32(n, 1);
    const __m256i n2 = _mm256_sub_epi32(n, n1);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256 scale1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const __m256 scale2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, scale1), scale2);
}

/* scale*s, or -FLT_MAX where mask[0..7] is non-zero. */
static inline __m256 score8(const float* s, const uint8_t* mask, __m256 scale) {
    const __m256 x = _mm256_mul_ps(scale, _mm256_loadu_ps(s));
    if (mask == NULL) return x;
    const __m256i m = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)mask));
    const __m256 masked = _mm256_castsi256_ps(_mm256_cmpeq_epi32(m, _mm256_setzero_si256()));
    return _mm256_blendv_ps(_mm256_set1_ps(-FLT_MAX), x, masked);
}

float emu_f32_floyd_scores_max__avx2(size_t n, float* s, const uint8_t* mask, float scale) {
    const __m256 vs = _mm256_set1_ps(scale);
    __m256 lo = _mm256_set1_ps(-INFINITY), hi = lo;
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        const __m256 x0 = score8(s + i, mask ? mask + i : NULL, vs);
        const __m256 x1 = score8(s + i + 8, mask ? mask + i + 8 : NULL, vs);
        _mm256_storeu_ps(s + i, x0);
        _mm256_storeu_ps(s + i + 8, x1);
        lo = _mm256_max_ps(x0, lo);
        hi = _mm256_max_ps(x1, hi);
    }
    float lane[EMU_FLOYD_LANES];
    _mm256_storeu_ps(lane, lo);
    _mm256_storeu_ps(lane + 8, hi);
    return emu_floyd_combine_max_(lane);
}

float emu_f32_floyd_exp_sum__avx2(size_t n, float* s, float max) {
    const __m256 vmax = _mm256_set1_ps(max);
    __m256 lo = _mm256_setzero_ps(), hi = lo;
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        const __m256 e0 = exp8(_mm256_sub_ps(_mm256_loadu_ps(s + i), vmax));
        const __m256 e1 = exp8(_mm256_sub_ps(_mm256_loadu_ps(s + i + 8), vmax));
        _mm256_storeu_ps(s + i, e0);
        _mm256_storeu_ps(s + i + 8, e1);
        lo = _mm256_add_ps(lo, e0);
        hi = _mm256_add_ps(hi, e1);
    }
    float lane[EMU_FLOYD_LANES];
    _mm256_storeu_ps(lane, lo);
    _mm256_storeu_ps(lane + 8, hi);
    return emu_floyd_combine_sum_(lane);
}

void emu_f32_floyd_softmax__avx2(size_t n, float* s, const uint8_t* mask, float scale, float max, float sum) {
    const __m256 vs = _mm256_set1_ps(scale), vmax = _mm256_set1_ps(max), vsum = _mm256_set1_ps(sum);
    for (size_t i = 0; i < n; i += 8) {
        const __m256 x = score8(s + i, mask ? mask + i : NULL, vs);
        _mm256_storeu_ps(s + i, _mm256_div_ps(exp8(_mm256_sub_ps(x, vmax)), vsum));
    }
}

void emu_f32_floyd_softmax_grad__avx2(size_t n, const float* p, float* dp, float dsum, float scale) {
    const __m256 vd = _mm256_set1_ps(dsum), vs = _mm256_set1_ps(scale);
    for (size_t i = 0; i < n; i += 8) {
        const __m256 t = _mm256_sub_ps(_mm256_loadu_ps(dp + i), vd);
        _mm256_storeu_ps(dp + i, _mm256_mul_ps(vs, _mm256_mul_ps(_mm256_loadu_ps(p + i), t)));
    }
}

float emu_f32_floyd_dot__avx2(size_t n, const float* x, const float* y) {
    __m256 lo = _mm256_setzero_ps(), hi = lo;
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        lo = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), lo);
        hi = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), hi);
    }
    float lane[EMU_FLOYD_LANES];
    _mm256_storeu_ps(lane, lo);
    _mm256_storeu_ps(lane + 8, hi);
    return emu_floyd_combine_sum_(lane);
}
