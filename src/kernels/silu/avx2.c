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

/* fp16/bf16 in and out, through the tables of table.c (one gather per 8
 * elements). Indices come from zero-extending the 16-bit patterns; where
 * that is done by interleaving with zero words (lanes 0-3 and 8-11 in lo,
 * 4-7 and 12-15 in hi), packus puts the results back in order. Tails go
 * through stack buffers, so nothing past n is read or written. */
static inline __m256i gather_u16_8(const uint16_t* table, __m256i index) {
    /* A 32-bit gather reads the entry and the next one (table.c pads the
     * end); keep the low half. */
    const __m256i pair = _mm256_i32gather_epi32((const int*)table, index, 2);
    return _mm256_and_si256(pair, _mm256_set1_epi32(0xFFFF));
}

static inline void silu_half_16(const uint16_t* table, const uint16_t* x, uint16_t* y) {
    const __m256i v = _mm256_loadu_si256((const __m256i*)x);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i lo = gather_u16_8(table, _mm256_unpacklo_epi16(v, zero));
    const __m256i hi = gather_u16_8(table, _mm256_unpackhi_epi16(v, zero));
    _mm256_storeu_si256((__m256i*)y, _mm256_packus_epi32(lo, hi));
}

static inline void silu_half(const uint16_t* table, size_t n, const uint16_t* x, uint16_t* y) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        silu_half_16(table, x + i, y + i);
    }
    if (i < n) {
        uint16_t xb[16] = {0}, yb[16];
        memcpy(xb, x + i, (n - i) * sizeof *x);
        silu_half_16(table, xb, yb);
        memcpy(y + i, yb, (n - i) * sizeof *y);
    }
}

void emu_f16_silu__avx2_u16(size_t n, const uint16_t* x, uint16_t* y) { silu_half(emu_silu_f16_table_(), n, x, y); }
void emu_bf16_silu__avx2_u16(size_t n, const uint16_t* x, uint16_t* y) {
    silu_half(emu_silu_bf16_table_(), n, x, y);
}

/* fp16 dy in the same permuted order as the indices: elements 0-3 with
 * 8-11, and 4-7 with 12-15 (two 8-byte loads each), undone on the store. */
static inline __m256 load_f16_quads(const uint16_t* p, int first) {
    const __m128i low = _mm_loadl_epi64((const __m128i*)(p + first));
    return _mm256_cvtph_ps(_mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(low), (const double*)(p + first + 8))));
}

static inline void f16_silu_grad_16(const float* factor, const uint16_t* dy, const uint16_t* x, uint16_t* dx) {
    const __m256i v = _mm256_loadu_si256((const __m256i*)x);
    const __m256i zero = _mm256_setzero_si256();
    const __m256 f_lo = _mm256_i32gather_ps(factor, _mm256_unpacklo_epi16(v, zero), 4);
    const __m256 f_hi = _mm256_i32gather_ps(factor, _mm256_unpackhi_epi16(v, zero), 4);
    const __m128i lo = _mm256_cvtps_ph(_mm256_mul_ps(load_f16_quads(dy, 0), f_lo), _MM_FROUND_TO_NEAREST_INT);
    const __m128i hi = _mm256_cvtps_ph(_mm256_mul_ps(load_f16_quads(dy, 4), f_hi), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128((__m128i*)dx, _mm_unpacklo_epi64(lo, hi));
    _mm_storeu_si128((__m128i*)(dx + 8), _mm_unpackhi_epi64(lo, hi));
}

static inline void bf16_silu_grad_16(const float* factor, const uint16_t* dy, const uint16_t* x, uint16_t* dx) {
    const __m256i v = _mm256_loadu_si256((const __m256i*)x);
    const __m256i zero = _mm256_setzero_si256();
    const __m256 f_lo = _mm256_i32gather_ps(factor, _mm256_unpacklo_epi16(v, zero), 4);
    const __m256 f_hi = _mm256_i32gather_ps(factor, _mm256_unpackhi_epi16(v, zero), 4);
    __m256 d_lo, d_hi;
    emu_load_bf16_pair_16(dy, &d_lo, &d_hi);
    emu_store_bf16_pair_16(dx, _mm256_mul_ps(d_lo, f_lo), _mm256_mul_ps(d_hi, f_hi));
}

#define EMU_SILU_AVX2_HALF_GRAD(name)                                                               \
    void emu_##name##_silu_grad__avx2_u16(size_t n, const uint16_t* dy, const uint16_t* x,          \
                                          uint16_t* dx) {                                           \
        const float* factor = emu_silu_grad_##name##_table_();                                      \
        size_t i = 0;                                                                               \
        for (; i + 16 <= n; i += 16) {                                                              \
            name##_silu_grad_16(factor, dy + i, x + i, dx + i);                                     \
        }                                                                                           \
        if (i < n) {                                                                                \
            uint16_t db[16] = {0}, xb[16] = {0}, ob[16];                                            \
            memcpy(db, dy + i, (n - i) * sizeof *dy);                                               \
            memcpy(xb, x + i, (n - i) * sizeof *x);                                                 \
            name##_silu_grad_16(factor, db, xb, ob);                                                \
            memcpy(dx + i, ob, (n - i) * sizeof *dx);                                               \
        }                                                                                           \
    }

EMU_SILU_AVX2_HALF_GRAD(f16)
EMU_SILU_AVX2_HALF_GRAD(bf16)
