/* Internal: the bodies of the row kernels (norm.h), instantiated once per
 * ISA level by scalar.c, avx2.c and avx512.c, which define EMU_NORM_ISA and
 * are built with that level's flags and -ffp-contract=off.
 *
 * The lane loops keep their accumulators in a local array (restrict
 * pointers, no stores to the caller's array inside the loop): the compiler
 * may then keep the 16 lanes in registers and add a vector of them per
 * step, which is the same sequence of additions per lane as the scalar
 * loop, hence the same bits. */
#include <string.h>

#if defined(__AVX512F__)
#include "kernels/convert/avx512_inline.h"
#elif defined(__AVX2__)
#include "kernels/convert/avx2_inline.h"
#endif
#include "kernels/convert/convert.h"

#include "kernels/ew/exp.h"
#include "kernels/norm/norm.h"

#define EMU_NORM_CAT_(a, b) a##b
#define EMU_NORM_CAT(a, b) EMU_NORM_CAT_(a, b)
#define EMU_NORM_STR_(a) #a
#define EMU_NORM_STR(a) EMU_NORM_STR_(a)
#define EMU_NORM_FN(name) EMU_NORM_CAT(emu_norm_##name##__, EMU_NORM_ISA)

enum { L_ = EMU_NORM_LANES };

/* The lane loop over x with `term` of v = x[i] added to lane i % 16; the
 * partial last group adds to lanes 0..n%16-1 only. */
#define EMU_NORM_LANE_LOOP(term)                                                                   \
    float a[L_];                                                                                   \
    memcpy(a, acc, sizeof a);                                                                      \
    size_t i = 0;                                                                                  \
    for (; i + L_ <= n; i += L_) {                                                                 \
        for (int j = 0; j < L_; ++j) {                                                             \
            const float v = x[i + j];                                                              \
            a[j] += (term);                                                                        \
        }                                                                                          \
    }                                                                                              \
    for (int j = 0; i + (size_t)j < n; ++j) {                                                      \
        const float v = x[i + j];                                                                  \
        a[j] += (term);                                                                            \
    }                                                                                              \
    memcpy(acc, a, sizeof a);

static void EMU_NORM_FN(lanes_add)(float *restrict acc, const float *restrict x, size_t n)
{
    EMU_NORM_LANE_LOOP(v)
}

static void EMU_NORM_FN(lanes_add_sq)(float *restrict acc, const float *restrict x, size_t n)
{
    EMU_NORM_LANE_LOOP(v * v)
}

static void EMU_NORM_FN(lanes_add_dev_sq)(float *restrict acc, const float *restrict x, size_t n, float mean)
{
    EMU_NORM_LANE_LOOP((v - mean) * (v - mean))
}

static void EMU_NORM_FN(lanes_max)(float *restrict acc, const float *restrict x, size_t n)
{
    float a[L_];
    memcpy(a, acc, sizeof a);
    size_t i = 0;
    /* GCC leaves this select scalar (one maxss per element), so the x86
     * levels spell it out. x86's max(x, a) is exactly x > a ? x : a (a NaN
     * x keeps a; equal zeros keep a), the scalar body below. */
#if defined(__AVX512F__)
    __m512 m = _mm512_loadu_ps(a);
    for (; i + L_ <= n; i += L_) {
        m = _mm512_max_ps(_mm512_loadu_ps(x + i), m);
    }
    _mm512_storeu_ps(a, m);
#elif defined(__AVX2__)
    __m256 m0 = _mm256_loadu_ps(a), m1 = _mm256_loadu_ps(a + 8);
    for (; i + L_ <= n; i += L_) {
        m0 = _mm256_max_ps(_mm256_loadu_ps(x + i), m0);
        m1 = _mm256_max_ps(_mm256_loadu_ps(x + i + 8), m1);
    }
    _mm256_storeu_ps(a, m0);
    _mm256_storeu_ps(a + 8, m1);
#endif
    for (; i + L_ <= n; i += L_) {
        for (int j = 0; j < L_; ++j) {
            a[j] = x[i + j] > a[j] ? x[i + j] : a[j];
        }
    }
    for (int j = 0; i + (size_t)j < n; ++j) {
        a[j] = x[i + j] > a[j] ? x[i + j] : a[j];
    }
    memcpy(acc, a, sizeof a);
}

#if defined(__AVX512F__)
/* emu_ew_expf (kernels/ew/exp.h) on 16 floats, step by step: the clamps as
 * min(88.8, x) and max(-104, a), which are x > 88.8 ? 88.8 : x and
 * a < -104 ? -104 : a exactly (x86's min/max return the second operand for
 * a NaN, so NaN passes through as there); the same core (exp_core.h); n / 2
 * rounded toward zero as C's division does; the two scale factors applied
 * in the same order. GCC's own vectorization of emu_ew_expf spends about a
 * dozen mask operations on the clamps. */
static inline __m512 emu_norm_exp16_(__m512 x)
{
    __m512 a = _mm512_min_ps(_mm512_set1_ps(88.8f), x);
    a = _mm512_max_ps(_mm512_set1_ps(-104.0f), a);
    __m512 z;
    const __m512 p = emu_exp_core_avx512(a, &z);
    const __m512i n = _mm512_sub_epi32(_mm512_castps_si512(z), _mm512_set1_epi32(EMU_EXP_MAGIC_BITS));
    const __m512i half = _mm512_srai_epi32(_mm512_add_epi32(n, _mm512_srli_epi32(n, 31)), 1);
    const __m512i bias = _mm512_set1_epi32(127);
    const __m512 scale_a = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(n, half), bias), 23));
    const __m512 scale_b = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(half, bias), 23));
    return _mm512_mul_ps(_mm512_mul_ps(p, scale_a), scale_b);
}
#elif defined(__AVX2__)
/* The same on 8 floats (see the AVX-512 form). */
static inline __m256 emu_norm_exp8_(__m256 x)
{
    __m256 a = _mm256_min_ps(_mm256_set1_ps(88.8f), x);
    a = _mm256_max_ps(_mm256_set1_ps(-104.0f), a);
    __m256 z;
    const __m256 p = emu_exp_core_avx2(a, &z);
    const __m256i n = _mm256_sub_epi32(_mm256_castps_si256(z), _mm256_set1_epi32(EMU_EXP_MAGIC_BITS));
    const __m256i half = _mm256_srai_epi32(_mm256_add_epi32(n, _mm256_srli_epi32(n, 31)), 1);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256 scale_a = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(n, half), bias), 23));
    const __m256 scale_b = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, scale_a), scale_b);
}
#endif

/* dst[i] = exp(src[i] - shift), acc[i % 16] += dst[i]; dst may be src
 * (each element is read before it is written). The x86 levels compute 16
 * elements and add them to the 16 lanes in one step; the portable level
 * runs blocks of 256 (the exp loop, vectorized like the element-wise exp
 * kernel, then the lane loop while the block is in L1; blocks are whole
 * groups of 16, so lane i % 16 is the same as over the row). */
static void EMU_NORM_FN(exp_lanes_add)(float *restrict acc, const float *src, float *dst, size_t n, float shift)
{
    size_t i = 0;
#if defined(__AVX512F__)
    const __m512 s = _mm512_set1_ps(shift);
    __m512 a = _mm512_loadu_ps(acc);
    for (; i + L_ <= n; i += L_) {
        const __m512 e = emu_norm_exp16_(_mm512_sub_ps(_mm512_loadu_ps(src + i), s));
        _mm512_storeu_ps(dst + i, e);
        a = _mm512_add_ps(a, e);
    }
    if (i < n) {
        /* The last partial group: lanes 0..n-i-1 only (masked loads do not fault). */
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        const __m512 e = emu_norm_exp16_(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, src + i), s));
        _mm512_mask_storeu_ps(dst + i, m, e);
        a = _mm512_mask_add_ps(a, m, a, e);
        i = n;
    }
    _mm512_storeu_ps(acc, a);
#elif defined(__AVX2__)
    const __m256 s = _mm256_set1_ps(shift);
    __m256 a0 = _mm256_loadu_ps(acc), a1 = _mm256_loadu_ps(acc + 8);
    for (; i + L_ <= n; i += L_) {
        const __m256 e0 = emu_norm_exp8_(_mm256_sub_ps(_mm256_loadu_ps(src + i), s));
        const __m256 e1 = emu_norm_exp8_(_mm256_sub_ps(_mm256_loadu_ps(src + i + 8), s));
        _mm256_storeu_ps(dst + i, e0);
        _mm256_storeu_ps(dst + i + 8, e1);
        a0 = _mm256_add_ps(a0, e0);
        a1 = _mm256_add_ps(a1, e1);
    }
    _mm256_storeu_ps(acc, a0);
    _mm256_storeu_ps(acc + 8, a1);
    /* The last partial group goes through the scalar body below. */
#endif
    enum { B = 256 };
    for (size_t start = i; start < n; start += B) {
        const size_t m = n - start < B ? n - start : B;
        for (size_t k = 0; k < m; ++k) {
            dst[start + k] = emu_ew_expf(src[start + k] - shift);
        }
        /* start is a multiple of 16 here (0, or where the x86 loop stopped). */
        EMU_NORM_FN(lanes_add)(acc, dst + start, m);
    }
}

/* dst[i] = src[i] / d: a true division, not a reciprocal product; dst may be src. */
static void EMU_NORM_FN(div)(const float *src, float *dst, size_t n, float d)
{
    for (size_t i = 0; i < n; ++i) {
        dst[i] = src[i] / d;
    }
}

/* dst may be src (each element is read before it is written): no restrict on them. */
/* fp16 / bf16 rows: the conversions of kernels/convert (one vector form
 * per level, the scalar ones of convert.h, the same bits) fused into the
 * first and last passes of a softmax. */
static inline float EMU_NORM_FN(widen)(uint16_t h, int bf16)
{
    return bf16 ? emu_bf16_to_f32(h) : emu_f16_to_f32(h);
}

static inline uint16_t EMU_NORM_FN(narrow)(float f, int bf16)
{
    return bf16 ? emu_f32_to_bf16(f) : emu_f32_to_f16(f);
}

/* dst[i] = src[i] widened to fp32, each value folded into lane i % L_ of
 * acc as it goes: FOLD512 / FOLD256 (acc, v) on the vectors, FOLD(a, v) on
 * the scalars of the tail, in the operand order of the plain loops (which
 * operand a max returns for a NaN is part of the result). */
#define EMU_NORM_LOAD_FOLD(name, FOLD512, FOLD256, FOLD)                                                      \
    static void EMU_NORM_FN(name)(float *restrict acc, const uint16_t *restrict src, float *restrict dst,      \
                                  size_t n, int bf16)                                                         \
    {                                                                                                         \
        float a[L_];                                                                                          \
        memcpy(a, acc, sizeof a);                                                                             \
        size_t i = 0;                                                                                         \
        EMU_NORM_LOAD_FOLD_SIMD_(FOLD512, FOLD256)                                                            \
        for (; i < n; ++i) {                                                                                  \
            const float v = EMU_NORM_FN(widen)(src[i], bf16);                                                 \
            dst[i] = v;                                                                                       \
            a[i % L_] = FOLD(a[i % L_], v);                                                                   \
        }                                                                                                     \
        memcpy(acc, a, sizeof a);                                                                             \
    }
#if defined(__AVX512F__)
#define EMU_NORM_LOAD_FOLD_SIMD_(FOLD512, FOLD256)                                                            \
    __m512 m = _mm512_loadu_ps(a);                                                                            \
    for (; i + L_ <= n; i += L_) {                                                                            \
        const __m256i h = _mm256_loadu_si256((const __m256i *)(src + i));                                     \
        const __m512 v = bf16 ? emu_bf16_to_f32_16(h) : _mm512_cvtph_ps(h);                                   \
        _mm512_storeu_ps(dst + i, v);                                                                         \
        m = FOLD512(m, v);                                                                                    \
    }                                                                                                         \
    _mm512_storeu_ps(a, m);
#elif defined(__AVX2__)
#define EMU_NORM_LOAD_FOLD_SIMD_(FOLD512, FOLD256)                                                            \
    __m256 m0 = _mm256_loadu_ps(a), m1 = _mm256_loadu_ps(a + 8);                                              \
    for (; i + L_ <= n; i += L_) {                                                                            \
        const __m256 v0 = bf16 ? emu_load_bf16_8(src + i) : emu_load_f16_8(src + i);                         \
        const __m256 v1 = bf16 ? emu_load_bf16_8(src + i + 8) : emu_load_f16_8(src + i + 8);                 \
        _mm256_storeu_ps(dst + i, v0);                                                                        \
        _mm256_storeu_ps(dst + i + 8, v1);                                                                    \
        m0 = FOLD256(m0, v0);                                                                                 \
        m1 = FOLD256(m1, v1);                                                                                 \
    }                                                                                                         \
    _mm256_storeu_ps(a, m0);                                                                                  \
    _mm256_storeu_ps(a + 8, m1);
#else
#define EMU_NORM_LOAD_FOLD_SIMD_(FOLD512, FOLD256)
#endif
/* The max keeps the operand order max(v, acc) of the plain loop's v > a ? v : a. */
#define EMU_NORM_MAX512_(acc, v) _mm512_max_ps(v, acc)
#define EMU_NORM_MAX256_(acc, v) _mm256_max_ps(v, acc)
#define EMU_NORM_MAX_(acc, v) ((v) > (acc) ? (v) : (acc))
#define EMU_NORM_ADD512_(acc, v) _mm512_add_ps(acc, v)
#define EMU_NORM_ADD256_(acc, v) _mm256_add_ps(acc, v)
#define EMU_NORM_ADD_(acc, v) ((acc) + (v))
/* load_max: and the lanes' max as lanes_max. load_add: and acc[i % 16] += dst[i] (lanes_add). */
EMU_NORM_LOAD_FOLD(load_max, EMU_NORM_MAX512_, EMU_NORM_MAX256_, EMU_NORM_MAX_)
EMU_NORM_LOAD_FOLD(load_add, EMU_NORM_ADD512_, EMU_NORM_ADD256_, EMU_NORM_ADD_)

/* dst[i] = src[i] / d rounded to fp16 / bf16 (nearest even), as div and
 * then the store's conversion. */
static void EMU_NORM_FN(div_narrow)(const float *restrict src, uint16_t *restrict dst, size_t n, float d, int bf16)
{
    size_t i = 0;
#if defined(__AVX512F__)
    const __m512 dv = _mm512_set1_ps(d);
    for (; i + L_ <= n; i += L_) {
        const __m512 q = _mm512_div_ps(_mm512_loadu_ps(src + i), dv);
        _mm256_storeu_si256((__m256i *)(dst + i),
                            bf16 ? emu_f32_to_bf16_16(q) : _mm512_cvtps_ph(q, _MM_FROUND_TO_NEAREST_INT));
    }
#elif defined(__AVX2__)
    const __m256 dv = _mm256_set1_ps(d);
    for (; i + 8 <= n; i += 8) {
        const __m256 q = _mm256_div_ps(_mm256_loadu_ps(src + i), dv);
        if (bf16) {
            emu_store_bf16_8(dst + i, q);
        } else {
            emu_store_f16_8(dst + i, q);
        }
    }
#endif
    for (; i < n; ++i) {
        dst[i] = EMU_NORM_FN(narrow)(src[i] / d, bf16);
    }
}


/* affine (below) and the rounding store in one pass: dst[i] = the fp16 /
 * bf16 rounding of affine's value. Blocks of 64 go through a buffer on the
 * stack, affine's own loops then the conversion, while in L1: the same
 * operations per element as affine followed by a store. */
static void EMU_NORM_FN(affine)(const float *src, float *dst, size_t n, float mean, float rstd,
                                const float *restrict w, const float *restrict b);

static void EMU_NORM_FN(affine_narrow)(const float *restrict src, uint16_t *restrict dst, size_t n, float mean,
                                       float rstd, const float *restrict w, const float *restrict b, int bf16)
{
    enum { B = 64 };
    float t[B];
    for (size_t start = 0; start < n; start += B) {
        const size_t m = n - start < B ? n - start : B;
        EMU_NORM_FN(affine)(src + start, t, m, mean, rstd, w != NULL ? w + start : NULL,
                            b != NULL ? b + start : NULL);
        size_t i = 0;
#if defined(__AVX512F__)
        for (; i + L_ <= m; i += L_) {
            const __m512 v = _mm512_loadu_ps(t + i);
            _mm256_storeu_si256((__m256i *)(dst + start + i),
                                bf16 ? emu_f32_to_bf16_16(v) : _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        }
#elif defined(__AVX2__)
        for (; i + 8 <= m; i += 8) {
            if (bf16) {
                emu_store_bf16_8(dst + start + i, _mm256_loadu_ps(t + i));
            } else {
                emu_store_f16_8(dst + start + i, _mm256_loadu_ps(t + i));
            }
        }
#endif
        for (; i < m; ++i) {
            dst[start + i] = EMU_NORM_FN(narrow)(t[i], bf16);
        }
    }
}

static void EMU_NORM_FN(scale_mul)(const float *src, float *dst, size_t n, float s, const float *restrict g)
{
    for (size_t i = 0; i < n; ++i) {
        dst[i] = (src[i] * s) * g[i];
    }
}

static void EMU_NORM_FN(scale)(float *restrict x, size_t n, float s)
{
    for (size_t i = 0; i < n; ++i) {
        x[i] = x[i] * s;
    }
}

/* dst may be src (each element is read before it is written): no restrict on them. */
static void EMU_NORM_FN(affine)(const float *src, float *dst, size_t n, float mean, float rstd,
                                const float *restrict w, const float *restrict b)
{
    /* One loop per case, so that each vectorizes without a select per element. */
    if (w != NULL && b != NULL) {
        for (size_t i = 0; i < n; ++i) {
            dst[i] = ((src[i] - mean) * rstd) * w[i] + b[i];
        }
    } else if (w != NULL) {
        for (size_t i = 0; i < n; ++i) {
            dst[i] = ((src[i] - mean) * rstd) * w[i] + 0.0f;
        }
    } else if (b != NULL) {
        for (size_t i = 0; i < n; ++i) {
            dst[i] = (src[i] - mean) * rstd + b[i];
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            dst[i] = (src[i] - mean) * rstd + 0.0f;
        }
    }
}

const emu_norm_kernels EMU_NORM_CAT(emu_norm_kernels__, EMU_NORM_ISA) = {
    .lanes_add = EMU_NORM_FN(lanes_add),
    .lanes_add_sq = EMU_NORM_FN(lanes_add_sq),
    .lanes_add_dev_sq = EMU_NORM_FN(lanes_add_dev_sq),
    .lanes_max = EMU_NORM_FN(lanes_max),
    .exp_lanes_add = EMU_NORM_FN(exp_lanes_add),
    .div = EMU_NORM_FN(div),
    .load_max = EMU_NORM_FN(load_max),
    .div_narrow = EMU_NORM_FN(div_narrow),
    .load_add = EMU_NORM_FN(load_add),
    .affine_narrow = EMU_NORM_FN(affine_narrow),
    .scale_mul = EMU_NORM_FN(scale_mul),
    .scale = EMU_NORM_FN(scale),
    .affine = EMU_NORM_FN(affine),
    .isa_name = EMU_NORM_STR(EMU_NORM_ISA),
};
