/* AVX2+FMA SiLU: two ymm per iteration, then one, then a stack-buffer tail.
 * Mirrors algo.h step by step (see the comments there). */
#include <immintrin.h>

#include "kernels/convert/avx2_inline.h"
#include "kernels/silu/algo.h"

static inline __m256 exp_neg_8(__m256 a) {
    a = _mm256_max_ps(_mm256_set1_ps(EMU_SILU_CLAMP), a); /* NaN a passes through */
    __m256 z;
    const __m256 p = emu_exp_core_avx2(a, &z);
    const __m256 scale = _mm256_castsi256_ps(_mm256_add_epi32(
        _mm256_slli_epi32(_mm256_castps_si256(z), 23), _mm256_set1_epi32((int)EMU_SILU_SCALE_BIAS_BITS)));
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

/* The plain kernel for the ragged ends, so both forms give the same bits. */
void emu_f32_silu_grad_streaming__avx2_u16(size_t n, const float* dy, const float* x, float* dx) {
    if (((uintptr_t)dx & 3u) != 0) {
        emu_f32_silu_grad__avx2_u16(n, dy, x, dx);
        return;
    }
    const size_t misaligned = ((uintptr_t)dx & 31u) / sizeof *dx;
    const size_t head = misaligned == 0 ? 0 : 8 - misaligned;
    size_t i = head < n ? head : n;
    emu_f32_silu_grad__avx2_u16(i, dy, x, dx);
    for (; i + 16 <= n; i += 16) {
        const __m256 d0 = silu_grad_8(_mm256_loadu_ps(dy + i), _mm256_loadu_ps(x + i));
        const __m256 d1 = silu_grad_8(_mm256_loadu_ps(dy + i + 8), _mm256_loadu_ps(x + i + 8));
        _mm256_stream_ps(dx + i, d0);
        _mm256_stream_ps(dx + i + 8, d1);
    }
    emu_f32_silu_grad__avx2_u16(n - i, dy + i, x + i, dx + i);
    _mm_sfence();
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

/* The gradient factor g(x) is read with plain scalar loads, not with
 * vgatherdps: on Zen 3 a gather of 8 lanes costs about as much as the rest
 * of the loop (1 core, L1-resident: 0.35-0.39 against 0.53-0.59 ns per
 * element). GCC assembles the block into vectors with vmovss/vinsertps
 * from memory; copying the entries through general registers into the
 * stack instead was 3x slower (the vector reload waits on 8 stores), and
 * extracting the indices from 64-bit loads of x 2x slower. The block is
 * filled in the lane order the type's conversion wants: natural for fp16;
 * for bf16 the order emu_load_bf16_pair_16 and emu_store_bf16_pair_16 use
 * (lo = elements 0-3 and 8-11, hi = 4-7 and 12-15), so no cross-lane
 * shuffle is needed. */
static inline int bf16_pair_slot(int k) { return (k & 3) | ((k & 4) << 1) | ((k & 8) >> 1); }

static inline void lookup_16(const float* factor, const uint16_t* x, int bf16_order, float* block) {
    /* No vectorising: the compiler would turn these loads back into gathers. */
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) {
        block[bf16_order ? bf16_pair_slot(k) : k] = factor[x[k]];
    }
}

/* 32 bytes out; `streaming` (a constant at every call site) picks the
 * non-temporal store, whose destination must then be 32-byte aligned. */
static inline void store_32(uint16_t* p, __m256i v, int streaming) {
    if (streaming) {
        _mm256_stream_si256((__m256i*)p, v);
    } else {
        _mm256_storeu_si256((__m256i*)p, v);
    }
}

static inline void f16_silu_grad_16(const float* factor, const uint16_t* dy, const uint16_t* x, uint16_t* dx,
                                    int streaming) {
    _Alignas(32) float g[16];
    lookup_16(factor, x, 0, g);
    const __m128i lo = _mm256_cvtps_ph(_mm256_mul_ps(emu_load_f16_8(dy), _mm256_load_ps(g)), _MM_FROUND_TO_NEAREST_INT);
    const __m128i hi =
        _mm256_cvtps_ph(_mm256_mul_ps(emu_load_f16_8(dy + 8), _mm256_load_ps(g + 8)), _MM_FROUND_TO_NEAREST_INT);
    store_32(dx, _mm256_set_m128i(hi, lo), streaming);
}

static inline void bf16_silu_grad_16(const float* factor, const uint16_t* dy, const uint16_t* x, uint16_t* dx,
                                     int streaming) {
    _Alignas(32) float g[16];
    lookup_16(factor, x, 1, g);
    __m256 d_lo, d_hi;
    emu_load_bf16_pair_16(dy, &d_lo, &d_hi);
    const __m256i lo = emu_f32_to_bf16_lanes(_mm256_mul_ps(d_lo, _mm256_load_ps(g)));
    const __m256i hi = emu_f32_to_bf16_lanes(_mm256_mul_ps(d_hi, _mm256_load_ps(g + 8)));
    store_32(dx, _mm256_packus_epi32(lo, hi), streaming);
}

/* Fewer than 16 elements, through stack buffers: nothing past n is touched. */
#define EMU_SILU_AVX2_HALF_GRAD_PARTIAL(name)                                                          \
    static void name##_silu_grad_partial(const float* factor, size_t n, const uint16_t* dy,            \
                                         const uint16_t* x, uint16_t* dx) {                            \
        _Alignas(32) uint16_t db[16] = {0}, xb[16] = {0}, ob[16];                                      \
        memcpy(db, dy, n * sizeof *dy);                                                                \
        memcpy(xb, x, n * sizeof *x);                                                                  \
        name##_silu_grad_16(factor, db, xb, ob, 0);                                                    \
        memcpy(dx, ob, n * sizeof *dx);                                                                \
    }

EMU_SILU_AVX2_HALF_GRAD_PARTIAL(f16)
EMU_SILU_AVX2_HALF_GRAD_PARTIAL(bf16)

/* The streaming form first brings dx to a 32-byte boundary with one partial
 * block, and fences its stores before returning so that whoever waits for
 * this call sees them. Both forms compute the same values. */
#define EMU_SILU_AVX2_HALF_GRAD(name, suffix, streaming)                                               \
    void emu_##name##_silu_grad##suffix##__avx2_u16(size_t n, const uint16_t* dy, const uint16_t* x,   \
                                                    uint16_t* dx) {                                    \
        const float* factor = emu_silu_grad_##name##_table_();                                         \
        size_t i = 0;                                                                                  \
        if (streaming && ((uintptr_t)dx & 1u) != 0) {                                                  \
            /* Elements off their natural alignment cannot reach a 32-byte boundary. */                \
            emu_##name##_silu_grad__avx2_u16(n, dy, x, dx);                                            \
            return;                                                                                    \
        }                                                                                              \
        if (streaming) {                                                                               \
            const size_t misaligned = ((uintptr_t)dx & 31u) / sizeof *dx;                              \
            const size_t head = misaligned == 0 ? 0 : 16 - misaligned;                                 \
            i = head < n ? head : n;                                                                   \
            if (i > 0) name##_silu_grad_partial(factor, i, dy, x, dx);                                 \
        }                                                                                              \
        for (; i + 16 <= n; i += 16) {                                                                 \
            name##_silu_grad_16(factor, dy + i, x + i, dx + i, streaming);                             \
        }                                                                                              \
        if (i < n) name##_silu_grad_partial(factor, n - i, dy + i, x + i, dx + i);                     \
        if (streaming) _mm_sfence();                                                                   \
    }

EMU_SILU_AVX2_HALF_GRAD(f16, , 0)
EMU_SILU_AVX2_HALF_GRAD(bf16, , 0)
EMU_SILU_AVX2_HALF_GRAD(f16, _streaming, 1)
EMU_SILU_AVX2_HALF_GRAD(bf16, _streaming, 1)
