/* AVX-512 SiLU: two zmm per iteration, then one, then a masked tail (masked
 * loads never fault on masked-off elements). Mirrors algo.h step by step. */
#include <immintrin.h>

#include "kernels/convert/avx512_inline.h"
#include "kernels/silu/algo.h"

static inline __m512 exp_neg_16(__m512 a) {
    a = _mm512_max_ps(_mm512_set1_ps(EMU_SILU_CLAMP), a); /* NaN a passes through */
    __m512 z;
    const __m512 p = emu_exp_core_avx512(a, &z);
    const __m512 scale = _mm512_castsi512_ps(_mm512_add_epi32(
        _mm512_slli_epi32(_mm512_castps_si512(z), 23), _mm512_set1_epi32((int)EMU_SILU_SCALE_BIAS_BITS)));
    return _mm512_mul_ps(_mm512_mul_ps(p, scale), _mm512_set1_ps(EMU_SILU_UNBIAS));
}

static inline __m512 sigmoid_16(__m512 x, __m512* oms) {
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 t = exp_neg_16(_mm512_or_ps(x, _mm512_set1_ps(-0.0f)));
    const __m512 q = _mm512_div_ps(one, _mm512_add_ps(one, t));
    const __m512 tq = _mm512_mul_ps(t, q);
    const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
    *oms = _mm512_mask_blend_ps(pos, q, tq);
    return _mm512_mask_blend_ps(pos, tq, q);
}

static inline __m512 silu_16(__m512 x) {
    __m512 oms;
    const __m512 s = sigmoid_16(x, &oms);
    return _mm512_mul_ps(x, s);
}

static inline __m512 silu_grad_16(__m512 dy, __m512 x) {
    __m512 oms;
    const __m512 s = sigmoid_16(x, &oms);
    return _mm512_mul_ps(_mm512_mul_ps(dy, s), _mm512_fmadd_ps(x, oms, _mm512_set1_ps(1.0f)));
}

void emu_f32_silu__avx512_u32(size_t n, const float* x, float* y) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 y0 = silu_16(_mm512_loadu_ps(x + i));
        const __m512 y1 = silu_16(_mm512_loadu_ps(x + i + 16));
        _mm512_storeu_ps(y + i, y0);
        _mm512_storeu_ps(y + i + 16, y1);
    }
    if (i + 16 <= n) {
        _mm512_storeu_ps(y + i, silu_16(_mm512_loadu_ps(x + i)));
        i += 16;
    }
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        _mm512_mask_storeu_ps(y + i, m, silu_16(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

void emu_f32_silu_grad__avx512_u32(size_t n, const float* dy, const float* x, float* dx) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 d0 = silu_grad_16(_mm512_loadu_ps(dy + i), _mm512_loadu_ps(x + i));
        const __m512 d1 = silu_grad_16(_mm512_loadu_ps(dy + i + 16), _mm512_loadu_ps(x + i + 16));
        _mm512_storeu_ps(dx + i, d0);
        _mm512_storeu_ps(dx + i + 16, d1);
    }
    if (i + 16 <= n) {
        _mm512_storeu_ps(dx + i, silu_grad_16(_mm512_loadu_ps(dy + i), _mm512_loadu_ps(x + i)));
        i += 16;
    }
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        const __m512 d = silu_grad_16(_mm512_maskz_loadu_ps(m, dy + i), _mm512_maskz_loadu_ps(m, x + i));
        _mm512_mask_storeu_ps(dx + i, m, d);
    }
}

/* The plain kernel for the ragged ends, so both forms give the same bits. */
void emu_f32_silu_grad_streaming__avx512_u32(size_t n, const float* dy, const float* x, float* dx) {
    if (((uintptr_t)dx & 3u) != 0) {
        emu_f32_silu_grad__avx512_u32(n, dy, x, dx);
        return;
    }
    const size_t head = ((size_t)-(uintptr_t)dx & 63u) / sizeof *dx;
    size_t i = head < n ? head : n;
    emu_f32_silu_grad__avx512_u32(i, dy, x, dx);
    for (; i + 32 <= n; i += 32) {
        const __m512 d0 = silu_grad_16(_mm512_loadu_ps(dy + i), _mm512_loadu_ps(x + i));
        const __m512 d1 = silu_grad_16(_mm512_loadu_ps(dy + i + 16), _mm512_loadu_ps(x + i + 16));
        _mm512_stream_ps(dx + i, d0);
        _mm512_stream_ps(dx + i + 16, d1);
    }
    emu_f32_silu_grad__avx512_u32(n - i, dy + i, x + i, dx + i);
    _mm_sfence();
}

/* fp16/bf16 in and out, through the tables of table.c (one gather per 16
 * elements), in natural lane order; the tail uses masked loads, gathers and
 * stores, which touch nothing past n. */
static inline __m512i index_16(__mmask16 m, const uint16_t* x) {
    return _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x));
}

static inline void silu_half(const uint16_t* table, size_t n, const uint16_t* x, uint16_t* y) {
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : emu_tail_mask16(n - i);
        /* 32-bit gathers read the entry and the next one (table.c pads the end). */
        const __m512i pair = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, index_16(m, x + i),
                                                         (const int*)table, 2);
        _mm256_mask_storeu_epi16(y + i, m, _mm512_cvtepi32_epi16(pair));
    }
}

void emu_f16_silu__avx512_u32(size_t n, const uint16_t* x, uint16_t* y) {
    silu_half(emu_silu_f16_table_(), n, x, y);
}
void emu_bf16_silu__avx512_u32(size_t n, const uint16_t* x, uint16_t* y) {
    silu_half(emu_silu_bf16_table_(), n, x, y);
}

static inline __m512 load_f16_16(__mmask16 m, const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
}
static inline __m512 load_bf16_16(__mmask16 m, const uint16_t* p) {
    return emu_bf16_to_f32_16(_mm256_maskz_loadu_epi16(m, p));
}
static inline __m256i narrow_f16_16(__m512 v) { return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT); }
static inline __m256i narrow_bf16_16(__m512 v) { return emu_f32_to_bf16_16(v); }

/* The gradient factor is read with scalar loads, as in avx2.c, not with
 * vgatherdps: on Zen 4 (1 core, L2-resident) the 16-lane gather held the
 * kernel at 2.2 G elements/s, scalar loads reach 3.4-3.5. GCC assembles the
 * block with vmovss/vinsertps from memory; x must hold 16 readable
 * elements. */
static inline __m512 lookup_16(const float* factor, const uint16_t* x) {
    _Alignas(64) float g[16];
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) {
        g[k] = factor[x[k]];
    }
    return _mm512_load_ps(g);
}

/* At most 16 elements: x goes through a zeroed stack block so the
 * lookups read nothing past n; dy and dx use masked loads and stores. */
#define EMU_SILU_AVX512_HALF_GRAD_PARTIAL(name)                                                      \
    static void name##_silu_grad_partial(const float* factor, size_t n, const uint16_t* dy,         \
                                         const uint16_t* x, uint16_t* dx) {                         \
        const __mmask16 m = emu_tail_mask16(n);                                                     \
        _Alignas(32) uint16_t xb[16];                                                               \
        _mm256_store_si256((__m256i*)xb, _mm256_maskz_loadu_epi16(m, x));                           \
        const __m512 d = _mm512_mul_ps(load_##name##_16(m, dy), lookup_16(factor, xb));             \
        _mm256_mask_storeu_epi16(dx, m, narrow_##name##_16(d));                                     \
    }

/* Elements of dy and x prefetched ahead of the block being computed (1 KiB):
 * the table lookups fill the core's load queue, which leaves the hardware
 * prefetchers too little room to keep the two input streams coming. */
enum { HALF_PREFETCH_AHEAD = 512 };

/* 32 elements: 64 bytes of dy, x and dx each. */
#define EMU_SILU_AVX512_HALF_GRAD_BLOCK(name)                                                        \
    static inline void name##_silu_grad_32(const float* factor, const uint16_t* dy, const uint16_t* x, \
                                           uint16_t* dx, int streaming) {                            \
        _mm_prefetch((const char*)(dy + HALF_PREFETCH_AHEAD), _MM_HINT_T0);                          \
        _mm_prefetch((const char*)(x + HALF_PREFETCH_AHEAD), _MM_HINT_T0);                           \
        const __m512 d0 = _mm512_mul_ps(load_##name##_16(0xFFFF, dy), lookup_16(factor, x));        \
        const __m512 d1 = _mm512_mul_ps(load_##name##_16(0xFFFF, dy + 16), lookup_16(factor, x + 16)); \
        const __m512i d = _mm512_inserti64x4(_mm512_castsi256_si512(narrow_##name##_16(d0)),         \
                                             narrow_##name##_16(d1), 1);                             \
        if (streaming) {                                                                             \
            _mm512_stream_si512((void*)dx, d);                                                       \
        } else {                                                                                     \
            _mm512_storeu_si512((void*)dx, d);                                                       \
        }                                                                                            \
    }

/* The streaming form brings dx to a 64-byte boundary with the plain kernel,
 * writes with non-temporal stores, and fences them before returning; both
 * forms compute the same values. */
#define EMU_SILU_AVX512_HALF_GRAD(name)                                                              \
    EMU_SILU_AVX512_HALF_GRAD_PARTIAL(name)                                                          \
    EMU_SILU_AVX512_HALF_GRAD_BLOCK(name)                                                            \
    void emu_##name##_silu_grad__avx512_u32(size_t n, const uint16_t* dy, const uint16_t* x,         \
                                            uint16_t* dx) {                                          \
        const float* factor = emu_silu_grad_##name##_table_();                                       \
        size_t i = 0;                                                                                \
        for (; i + 32 <= n; i += 32) {                                                               \
            name##_silu_grad_32(factor, dy + i, x + i, dx + i, 0);                                   \
        }                                                                                            \
        for (; i < n; i += 16) {                                                                     \
            name##_silu_grad_partial(factor, n - i < 16 ? n - i : 16, dy + i, x + i, dx + i);        \
        }                                                                                            \
    }                                                                                                \
    void emu_##name##_silu_grad_streaming__avx512_u32(size_t n, const uint16_t* dy, const uint16_t* x, \
                                                      uint16_t* dx) {                                \
        if (((uintptr_t)dx & 1u) != 0) {                                                             \
            /* Elements off their natural alignment cannot reach a 64-byte boundary. */             \
            emu_##name##_silu_grad__avx512_u32(n, dy, x, dx);                                        \
            return;                                                                                  \
        }                                                                                            \
        const float* factor = emu_silu_grad_##name##_table_();                                       \
        const size_t head = ((size_t)-(uintptr_t)dx & 63u) / sizeof *dx;                            \
        size_t i = head < n ? head : n;                                                              \
        emu_##name##_silu_grad__avx512_u32(i, dy, x, dx);                                            \
        for (; i + 32 <= n; i += 32) {                                                               \
            name##_silu_grad_32(factor, dy + i, x + i, dx + i, 1);                                   \
        }                                                                                            \
        emu_##name##_silu_grad__avx512_u32(n - i, dy + i, x + i, dx + i);                            \
        _mm_sfence();                                                                                \
    }

EMU_SILU_AVX512_HALF_GRAD(f16)
EMU_SILU_AVX512_HALF_GRAD(bf16)
