/* Internal: the core of the kernels' exp, shared by the SiLU and Floyd
 * families. Cody-Waite reduction by ln 2 and Cephes expf's polynomial:
 *   z = fma(x, log2(e), MAGIC)   rounds x*log2(e) to an integer n (RNE),
 *                                and z's bits are MAGIC_BITS + n;
 *   r = x - n*ln2                two fmas (LN2_HI has 9 significant bits,
 *                                so n*LN2_HI is exact);
 *   p = exp(r)                   1 + r + r^2 * (P5 + r*(P4 + ... + r*P0)),
 *                                |r| <= ln2/2.
 * Each family applies 2^n to p its own way (their ranges and subnormal
 * handling differ). The scalar form uses fmaf and the SIMD forms the same
 * fused operations in the same order, so every ISA gives the same bits;
 * include it only from files built with -ffp-contract=off. The AVX2 and
 * AVX-512 forms exist where the including file is built for them. */
#ifndef ACLNN_EMU_KERNELS_EXP_CORE_H
#define ACLNN_EMU_KERNELS_EXP_CORE_H

#include <math.h>

#define EMU_EXP_LOG2E 1.44269504088896341f
#define EMU_EXP_MAGIC 12582912.0f /* 1.5 * 2^23 */
#define EMU_EXP_MAGIC_BITS 0x4B400000
#define EMU_EXP_LN2_HI 0.693359375f
#define EMU_EXP_LN2_LO (-2.12194440e-4f)
#define EMU_EXP_P0 1.9875691500e-4f
#define EMU_EXP_P1 1.3981999507e-3f
#define EMU_EXP_P2 8.3334519073e-3f
#define EMU_EXP_P3 4.1665795894e-2f
#define EMU_EXP_P4 1.6666665459e-1f
#define EMU_EXP_P5 5.0000001201e-1f

/* w with exp(x - n*ln2) = 1 + r*w, before that last fma: for callers that
 * carry 1 + r*w in two parts; *z gets z and *r gets r (see above). */
static inline float emu_exp_core_w_(float x, float* z, float* r) {
    *z = fmaf(x, EMU_EXP_LOG2E, EMU_EXP_MAGIC);
    const float nf = *z - EMU_EXP_MAGIC;
    *r = fmaf(nf, -EMU_EXP_LN2_HI, x);
    *r = fmaf(nf, -EMU_EXP_LN2_LO, *r);
    float p = EMU_EXP_P0;
    p = fmaf(p, *r, EMU_EXP_P1);
    p = fmaf(p, *r, EMU_EXP_P2);
    p = fmaf(p, *r, EMU_EXP_P3);
    p = fmaf(p, *r, EMU_EXP_P4);
    p = fmaf(p, *r, EMU_EXP_P5);
    return fmaf(p, *r, 1.0f);
}

/* exp(x - n*ln2) for n = round(x*log2(e)); *z gets z (see above). */
static inline float emu_exp_core_(float x, float* z) {
    float r;
    const float w = emu_exp_core_w_(x, z, &r);
    return fmaf(w, r, 1.0f);
}

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

static inline __m256 emu_exp_core_avx2(__m256 x, __m256* z) {
    const __m256 magic = _mm256_set1_ps(EMU_EXP_MAGIC);
    *z = _mm256_fmadd_ps(x, _mm256_set1_ps(EMU_EXP_LOG2E), magic);
    const __m256 nf = _mm256_sub_ps(*z, magic);
    __m256 r = _mm256_fmadd_ps(nf, _mm256_set1_ps(-EMU_EXP_LN2_HI), x);
    r = _mm256_fmadd_ps(nf, _mm256_set1_ps(-EMU_EXP_LN2_LO), r);
    __m256 p = _mm256_set1_ps(EMU_EXP_P0);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_EXP_P1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_EXP_P2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_EXP_P3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_EXP_P4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(EMU_EXP_P5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    return _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
}
#endif

#if defined(__AVX512F__)
#include <immintrin.h>

static inline __m512 emu_exp_core_avx512(__m512 x, __m512* z) {
    const __m512 magic = _mm512_set1_ps(EMU_EXP_MAGIC);
    *z = _mm512_fmadd_ps(x, _mm512_set1_ps(EMU_EXP_LOG2E), magic);
    const __m512 nf = _mm512_sub_ps(*z, magic);
    __m512 r = _mm512_fmadd_ps(nf, _mm512_set1_ps(-EMU_EXP_LN2_HI), x);
    r = _mm512_fmadd_ps(nf, _mm512_set1_ps(-EMU_EXP_LN2_LO), r);
    __m512 p = _mm512_set1_ps(EMU_EXP_P0);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(EMU_EXP_P1));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(EMU_EXP_P2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(EMU_EXP_P3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(EMU_EXP_P4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(EMU_EXP_P5));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
}
#endif

#endif
