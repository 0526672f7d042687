/* Internal: the bodies of the sum kernels (reduce.h), instantiated once per
 * ISA level by scalar.c, avx2.c and avx512.c, which define EMU_REDUCE_ISA
 * and are built with that level's flags and -ffp-contract=off.
 *
 * The x86 levels keep the 32 lanes in registers and add 32 widened
 * elements per step: each lane gets the same additions in the same order
 * as in the plain loops, which finish what the vectors leave (the last
 * partial group of 32, and the whole row at the scalar level).
 *
 * The lane loops read 16 bytes per load at both x86 levels: eight 4-float
 * vectors for fp32, four 8-float vectors (8 halves widened) for fp16 and
 * bf16. Rows of [16384,4096] summed by two threads from memory ran 5-15%
 * slower with 32- or 64-byte loads (AVX2 / AVX-512 registers of fp32, or
 * 16 halves widened to a 512-bit register) on the EPYC these kernels were
 * measured on, though faster in cache; rows that large are the common case. */
#include <string.h>

#if defined(__AVX512F__)
#include "kernels/convert/avx512_inline.h"
#endif
#if defined(__AVX2__)
#include "kernels/convert/avx2_inline.h"
#endif
#include "kernels/convert/convert.h"

#include "kernels/reduce/reduce.h"

#define EMU_REDUCE_CAT_(a, b) a##b
#define EMU_REDUCE_CAT(a, b) EMU_REDUCE_CAT_(a, b)
#define EMU_REDUCE_STR_(a) #a
#define EMU_REDUCE_STR(a) EMU_REDUCE_STR_(a)
#define EMU_REDUCE_FN(name) EMU_REDUCE_CAT(emu_reduce_##name##__, EMU_REDUCE_ISA)

enum { L_ = EMU_REDUCE_LANES };

static inline float EMU_REDUCE_FN(widen_f32)(float v) { return v; }

#if defined(__AVX2__)
/* The 32 lanes as s0 (0-3) to s7 (28-31), one 16-byte load each. */
#define EMU_REDUCE_VEC_LANES_F32                                                                   \
    {                                                                                              \
        __m128 s0 = _mm_loadu_ps(a), s1 = _mm_loadu_ps(a + 4), s2 = _mm_loadu_ps(a + 8);           \
        __m128 s3 = _mm_loadu_ps(a + 12), s4 = _mm_loadu_ps(a + 16), s5 = _mm_loadu_ps(a + 20);    \
        __m128 s6 = _mm_loadu_ps(a + 24), s7 = _mm_loadu_ps(a + 28);                               \
        for (; i + L_ <= n; i += L_) {                                                             \
            s0 = _mm_add_ps(s0, _mm_loadu_ps(x + i));                                              \
            s1 = _mm_add_ps(s1, _mm_loadu_ps(x + i + 4));                                          \
            s2 = _mm_add_ps(s2, _mm_loadu_ps(x + i + 8));                                          \
            s3 = _mm_add_ps(s3, _mm_loadu_ps(x + i + 12));                                         \
            s4 = _mm_add_ps(s4, _mm_loadu_ps(x + i + 16));                                         \
            s5 = _mm_add_ps(s5, _mm_loadu_ps(x + i + 20));                                         \
            s6 = _mm_add_ps(s6, _mm_loadu_ps(x + i + 24));                                         \
            s7 = _mm_add_ps(s7, _mm_loadu_ps(x + i + 28));                                         \
        }                                                                                          \
        _mm_storeu_ps(a, s0);                                                                      \
        _mm_storeu_ps(a + 4, s1);                                                                  \
        _mm_storeu_ps(a + 8, s2);                                                                  \
        _mm_storeu_ps(a + 12, s3);                                                                 \
        _mm_storeu_ps(a + 16, s4);                                                                 \
        _mm_storeu_ps(a + 20, s5);                                                                 \
        _mm_storeu_ps(a + 24, s6);                                                                 \
        _mm_storeu_ps(a + 28, s7);                                                                 \
    }
/* The 32 lanes as s0 (0-7) to s3 (24-31), 8 halves widened each. */
#define EMU_REDUCE_VEC_LANES_HALF(LOAD)                                                            \
    {                                                                                              \
        __m256 s0 = _mm256_loadu_ps(a), s1 = _mm256_loadu_ps(a + 8);                               \
        __m256 s2 = _mm256_loadu_ps(a + 16), s3 = _mm256_loadu_ps(a + 24);                         \
        for (; i + L_ <= n; i += L_) {                                                             \
            s0 = _mm256_add_ps(s0, LOAD(x + i));                                                   \
            s1 = _mm256_add_ps(s1, LOAD(x + i + 8));                                               \
            s2 = _mm256_add_ps(s2, LOAD(x + i + 16));                                              \
            s3 = _mm256_add_ps(s3, LOAD(x + i + 24));                                              \
        }                                                                                          \
        _mm256_storeu_ps(a, s0);                                                                   \
        _mm256_storeu_ps(a + 8, s1);                                                               \
        _mm256_storeu_ps(a + 16, s2);                                                              \
        _mm256_storeu_ps(a + 24, s3);                                                              \
    }
#define EMU_REDUCE_VEC_LANES_F16 EMU_REDUCE_VEC_LANES_HALF(emu_load_f16_8)
#define EMU_REDUCE_VEC_LANES_BF16 EMU_REDUCE_VEC_LANES_HALF(emu_load_bf16_8)
#else
#define EMU_REDUCE_VEC_LANES_F32
#define EMU_REDUCE_VEC_LANES_F16
#define EMU_REDUCE_VEC_LANES_BF16
#endif

/* acc[i % 32] += WIDEN(x[i]); the lanes live in a local array (restrict
 * pointers, no stores to the caller's array inside the loops) so that the
 * scalar level's compiler may keep them in registers too. */
#define EMU_REDUCE_LANES_BODY(VEC, WIDEN)                                                           \
    float a[L_];                                                                                   \
    memcpy(a, acc, sizeof a);                                                                      \
    size_t i = 0;                                                                                  \
    VEC                                                                                            \
    for (; i + L_ <= n; i += L_) {                                                                 \
        for (int j = 0; j < L_; ++j) {                                                             \
            a[j] += WIDEN(x[i + j]);                                                               \
        }                                                                                          \
    }                                                                                              \
    for (int j = 0; i + (size_t)j < n; ++j) {                                                      \
        a[j] += WIDEN(x[i + j]);                                                                   \
    }                                                                                              \
    memcpy(acc, a, sizeof a);

/* The element-wise adds (the first-axis sums, into an accumulator in L1)
 * use the widest registers. */
#if defined(__AVX512F__)
enum { V_ = 16 };
#define EMU_REDUCE_VLOAD_F32(p) _mm512_loadu_ps(p)
#define EMU_REDUCE_VLOAD_F16(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define EMU_REDUCE_VLOAD_BF16(p) emu_bf16_to_f32_16(_mm256_loadu_si256((const __m256i *)(p)))
#define EMU_REDUCE_VADD(a, b) _mm512_add_ps(a, b)
#define EMU_REDUCE_VSTORE(p, v) _mm512_storeu_ps(p, v)
#elif defined(__AVX2__)
enum { V_ = 8 };
#define EMU_REDUCE_VLOAD_F32(p) _mm256_loadu_ps(p)
#define EMU_REDUCE_VLOAD_F16(p) emu_load_f16_8(p)
#define EMU_REDUCE_VLOAD_BF16(p) emu_load_bf16_8(p)
#define EMU_REDUCE_VADD(a, b) _mm256_add_ps(a, b)
#define EMU_REDUCE_VSTORE(p, v) _mm256_storeu_ps(p, v)
#endif

#if defined(__AVX2__)
#define EMU_REDUCE_VEC_ADD(LOAD)                                                                   \
    for (; j + V_ <= n; j += V_) {                                                                 \
        EMU_REDUCE_VSTORE(acc + j, EMU_REDUCE_VADD(EMU_REDUCE_VLOAD_F32(acc + j), LOAD(x + j)));   \
    }
#else
#define EMU_REDUCE_VEC_ADD(LOAD)
#endif

/* acc[j] += WIDEN(x[j]); each element on its own, so no order to keep. */
#define EMU_REDUCE_ADD_BODY(LOAD, WIDEN)                                                            \
    size_t j = 0;                                                                                  \
    EMU_REDUCE_VEC_ADD(LOAD)                                                                       \
    for (; j < n; ++j) {                                                                           \
        acc[j] += WIDEN(x[j]);                                                                     \
    }

static void EMU_REDUCE_FN(lanes_add_f32)(float *restrict acc, const float *restrict x, size_t n)
{
    EMU_REDUCE_LANES_BODY(EMU_REDUCE_VEC_LANES_F32, EMU_REDUCE_FN(widen_f32))
}

static void EMU_REDUCE_FN(lanes_add_f16)(float *restrict acc, const uint16_t *restrict x, size_t n)
{
    EMU_REDUCE_LANES_BODY(EMU_REDUCE_VEC_LANES_F16, emu_f16_to_f32)
}

static void EMU_REDUCE_FN(lanes_add_bf16)(float *restrict acc, const uint16_t *restrict x, size_t n)
{
    EMU_REDUCE_LANES_BODY(EMU_REDUCE_VEC_LANES_BF16, emu_bf16_to_f32)
}

static void EMU_REDUCE_FN(add_f32)(float *restrict acc, const float *restrict x, size_t n)
{
    EMU_REDUCE_ADD_BODY(EMU_REDUCE_VLOAD_F32, EMU_REDUCE_FN(widen_f32))
}

static void EMU_REDUCE_FN(add_f16)(float *restrict acc, const uint16_t *restrict x, size_t n)
{
    EMU_REDUCE_ADD_BODY(EMU_REDUCE_VLOAD_F16, emu_f16_to_f32)
}

static void EMU_REDUCE_FN(add_bf16)(float *restrict acc, const uint16_t *restrict x, size_t n)
{
    EMU_REDUCE_ADD_BODY(EMU_REDUCE_VLOAD_BF16, emu_bf16_to_f32)
}

const emu_reduce_kernels EMU_REDUCE_CAT(emu_reduce_kernels__, EMU_REDUCE_ISA) = {
    .lanes_add_f32 = EMU_REDUCE_FN(lanes_add_f32),
    .lanes_add_f16 = EMU_REDUCE_FN(lanes_add_f16),
    .lanes_add_bf16 = EMU_REDUCE_FN(lanes_add_bf16),
    .add_f32 = EMU_REDUCE_FN(add_f32),
    .add_f16 = EMU_REDUCE_FN(add_f16),
    .add_bf16 = EMU_REDUCE_FN(add_bf16),
    .isa_name = EMU_REDUCE_STR(EMU_REDUCE_ISA),
};
