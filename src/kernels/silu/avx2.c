/* AVX2+FMA SiLU: two ymm per iteration, then one, then a stack-buffer tail.
 * Mirrors algo.h step by step (see the comments there). */
#include <immintrin.h>

#include "kernels/convert/avx2_inline.h"
#include "kernels/silu/algo.h"

static inline __m256 exp_neg_8(__m256 a) {
    a = _mm256_max_ps(_mm256_set1_ps(EMU_SILU_CLAMP), a); /* NaN a passes through */
    const __m256 magic = _mm256_set1_ps(EMU_SILU_MAGIC);
    const __m256 z = _mm256_fmadd_ps(a, _mm256_set1_ps(EMU_SILU_LOG2E), magic);
    const __m256 nf = _mm256_sub_ps(z, magic);
    const __m256 scale = _mm256_castsi256_ps(_mm256_add_epi32(
        _mm256_slli_epi32(_mm256_castps_si256(z), 23), _mm256_set1_epi32((int)EMU_SILU_SCALE_BIAS_BITS)));

    __m256 r = _mm256_fmadd_ps(nf, _mm256_set1_ps(-EMU_SILU_LN2_HI), a);
    r = _mm256_fmadd_ps(nf, _mm256_set1_ps(-EMU_SILU_LN2_LO), r);
    __m256 p = _mm256_set1_ps(EMU_SILU_P0);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_SILU_P1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_SILU_P2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_SILU_P3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_SILU_P4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_SILU_P5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(_mm256_mul_ps(p, scale), _mm256_set1_ps(EMU_SILU_UNBIAS));
}

static inline __m256 sigmoid_8(__m256 x, __m256* oms) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 t = exp_neg_8(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
    const __m256 q = _mm256_div_ps(one, _mm256_add_ps(one, t));
    const __m256 tq = _mm256_mul_ps(t, q);
    const __m256 pos = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ);
    *oms = _mm256_blendv_ps(q, tq, pos);
    return _mm256_blendv_ps(tq, q, pos);
}

static inline __m256 silu_8(__m256 x) {
    __m256 oms;
    const __m256 s = sigmoid_8(x, &oms);
    return _mm256_mul_ps(x, s);
}

static inline __m256 silu_grad_8(__m256 dy, __m256 x) {
    __m256 oms;
    const __m256 s = sigmoid_8(x, &oms);
    return _mm256_mul_ps(_mm256_mul_ps(dy, s), _mm256_fmadd_ps(x, oms, _mm256_set1_ps(1.0f)));
}

void emu_f32_silu__avx2_u16(size_t n, const float* x, float* y) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 y0 = silu_8(_mm256_loadu_ps(x + i));
        const __m256 y1 = silu_8(_mm256_loadu_ps(x + i + 8));
        _mm256_storeu_ps(y + i, y0);
        _mm256_storeu_ps(y + i + 8, y1);
    }
    if (i + 8 <= n) {
        _mm256_storeu_ps(y + i, silu_8(_mm256_loadu_ps(x + i)));
        i += 8;
    }
    if (i < n) {
        float xb[8] = {0}, yb[8];
        memcpy(xb, x + i, (n - i) * sizeof *x);
        _mm256_storeu_ps(yb, silu_8(_mm256_loadu_ps(xb)));
        memcpy(y + i, yb, (n - i) * sizeof *y);
    }
}

void emu_f32_silu_grad__avx2_u16(size_t n, const float* dy, const float* x, float* dx) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 d0 = silu_grad_8(_mm256_loadu_ps(dy + i), _mm256_loadu_ps(x + i));
        const __m256 d1 = silu_grad_8(_mm256_loadu_ps(dy + i + 8), _mm256_loadu_ps(x + i + 8));
        _mm256_storeu_ps(dx + i, d0);
        _mm256_storeu_ps(dx + i + 8, d1);
    }
    if (i + 8 <= n) {
        _mm256_storeu_ps(dx + i, silu_grad_8(_mm256_loadu_ps(dy + i), _mm256_loadu_ps(x + i)));
        i += 8;
    }
    if (i < n) {
        float db[8] = {0}, xb[8] = {0}, ob[8];
        memcpy(db, dy + i, (n - i) * sizeof *dy);
        memcpy(xb, x + i, (n - i) * sizeof *x);
        _mm256_storeu_ps(ob, silu_grad_8(_mm256_loadu_ps(db), _mm256_loadu_ps(xb)));
        memcpy(dx + i, ob, (n - i) * sizeof *dx);
    }
}

/* fp16/bf16 in and out: the loops above with the conversion fused into the
 * loads and stores (16 at a time, in the lane order of the pair helpers,
 * which is free for element-wise work); the tail converts through a stack
 * buffer of 8. */
#define EMU_SILU_AVX2_HALF(name, load8, store8, load16, store16)                                    \
    void emu_##name##_silu__avx2_u16(size_t n, const uint16_t* x, uint16_t* y) {                    \
        size_t i = 0;                                                                               \
        for (; i + 16 <= n; i += 16) {                                                              \
            __m256 x0, x1;                                                                          \
            load16(x + i, &x0, &x1);                                                                \
            store16(y + i, silu_8(x0), silu_8(x1));                                                 \
        }                                                                                           \
        for (; i + 8 <= n; i += 8) {                                                                \
            store8(y + i, silu_8(load8(x + i)));                                                    \
        }                                                                                           \
        if (i < n) {                                                                                \
            uint16_t xb[8] = {0}, yb[8];                                                            \
            memcpy(xb, x + i, (n - i) * sizeof *x);                                                 \
            store8(yb, silu_8(load8(xb)));                                                          \
            memcpy(y + i, yb, (n - i) * sizeof *y);                                                 \
        }                                                                                           \
    }                                                                                               \
    void emu_##name##_silu_grad__avx2_u16(size_t n, const uint16_t* dy, const uint16_t* x,          \
                                          uint16_t* dx) {                                           \
        size_t i = 0;                                                                               \
        for (; i + 16 <= n; i += 16) {                                                              \
            __m256 d0, d1, x0, x1;                                                                  \
            load16(dy + i, &d0, &d1);                                                               \
            load16(x + i, &x0, &x1);                                                                \
            store16(dx + i, silu_grad_8(d0, x0), silu_grad_8(d1, x1));                              \
        }                                                                                           \
        for (; i + 8 <= n; i += 8) {                                                                \
            store8(dx + i, silu_grad_8(load8(dy + i), load8(x + i)));                               \
        }                                                                                           \
        if (i < n) {                                                                                \
            uint16_t db[8] = {0}, xb[8] = {0}, ob[8];                                               \
            memcpy(db, dy + i, (n - i) * sizeof *dy);                                               \
            memcpy(xb, x + i, (n - i) * sizeof *x);                                                 \
            store8(ob, silu_grad_8(load8(db), load8(xb)));                                          \
            memcpy(dx + i, ob, (n - i) * sizeof *dx);                                               \
        }                                                                                           \
    }

EMU_SILU_AVX2_HALF(f16, emu_load_f16_8, emu_store_f16_8, emu_load_f16_pair_16, emu_store_f16_pair_16)
EMU_SILU_AVX2_HALF(bf16, emu_load_bf16_8, emu_store_bf16_8, emu_load_bf16_pair_16, emu_store_bf16_pair_16)
