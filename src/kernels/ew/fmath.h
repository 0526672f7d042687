/* Internal: tanhf, sinf, cosf, logf and the erf-form GELU (on an erfc)
 * written, like exp.h's expf, so that a loop over them vectorizes: no
 * branches (both sides of every choice are computed and one is selected),
 * no calls but fmaf, bit manipulation through memcpy. Include only from
 * files built with -ffp-contract=off: every ISA then gives the same bits
 * (checked over every float: scalar, AVX2 and AVX-512 code agree, NaNs
 * included).
 *
 * Accuracy, measured over every float against double-precision libm, in
 * ulp of the exact result (normal results; subnormal ones within the same
 * number of units of 2^-149):
 *   tanh 1.37; sin, cos 1.51 for |x| <= 1e5, 2.37 for |x| <= 2^22 (the
 *   kernels call libm beyond); erfc 3.0; GELU-erf 3.74; log 0.90.
 * Coefficients: minimax fits (Remez, relative error) rounded to float. */
#ifndef ACLNN_EMU_KERNELS_EW_FMATH_H
#define ACLNN_EMU_KERNELS_EW_FMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ew/exp.h"

/* Inlined into the kernels' loops, whatever their size: a call would keep
 * the loop from vectorizing. */
#if defined(__GNUC__)
#define EMU_FM_INLINE static inline __attribute__((always_inline))
#else
#define EMU_FM_INLINE static inline
#endif

EMU_FM_INLINE uint32_t emu_fm_bits_(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

EMU_FM_INLINE float emu_fm_float_(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* c ? a : b, as bit operations. Both sides are computed anyway; written
 * as a conditional, GCC moves the work of each side under a branch (and
 * threads consecutive clamps), and under -ftrapping-math it can then only
 * vectorize the loop with AVX-512's masks, not with AVX2. */
EMU_FM_INLINE float emu_fm_sel_(int c, float a, float b)
{
    const uint32_t m = 0u - (uint32_t)c;
    return emu_fm_float_((emu_fm_bits_(a) & m) | (emu_fm_bits_(b) & ~m));
}

/* y, or x + x (x quieted) where x is NaN. Where two NaNs meet in an
 * operation, x86 returns the first operand's, and which one is first
 * differs between the scalar, AVX2 and AVX-512 code (and libm's fmaf):
 * the NaN a function returns is its input's, so that the bits agree. */
EMU_FM_INLINE float emu_fm_nan_(float x, float y)
{
    return emu_fm_sel_(x != x, x + x, y);
}

/* ------------------------------------------------------------------ tanh
 * |x| < 0.625: x + x^3 P(x^2) (degree 5 in x^2, fit error 3e-10);
 * else 1 - 2 / (exp(2|x|) + 1) (1 once exp overflows; tanh is 1 in
 * float from 9.01 on); the sign of x is copied onto the result, so that
 * tanh(-0) = -0 and the function is exactly odd. NaN stays NaN. */
EMU_FM_INLINE float emu_ew_tanhf(float x)
{
    const float a = fabsf(x);
    const float u = a * a;
    float p = 2.130308654e-03f;
    p = fmaf(p, u, -8.168870583e-03f);
    p = fmaf(p, u, 2.170024440e-02f);
    p = fmaf(p, u, -5.394745991e-02f);
    p = fmaf(p, u, 1.333322078e-01f);
    p = fmaf(p, u, -3.333333135e-01f);
    const float small = fmaf(a * u, p, a);
    const float e = emu_ew_expf(a + a); /* inf from |x| = 44.4 on */
    const float large = 1.0f - 2.0f / (e + 1.0f);
    return emu_fm_nan_(x, copysignf(emu_fm_sel_(a < 0.625f, small, large), x));
}

/* ------------------------------------------------------------- sin, cos
 * Cody-Waite reduction of |x| by pi/2 in three parts, each below pi/2's
 * digits so that all are positive (the first fma is exact), j = the
 * nearest integer to |x| 2/pi read from the bits of a magic-number sum;
 * then sin(r) = r + r^3 S(r^2) and cos(r) = 1 + r^2 (-1/2 + r^2 C(r^2)) on
 * |r| <= pi/4 and the quadrant picks one and its sign. Accurate for
 * |x| <= EMU_FM_SINCOS_MAX; the kernels send larger |x| (and inf) to libm. */
#define EMU_FM_SINCOS_MAX 0x1p22f

EMU_FM_INLINE float emu_fm_sincos_(float x, uint32_t quarter_turns)
{
    const float a = fabsf(x);
    const float z = fmaf(a, 6.366197467e-01f, EMU_EXP_MAGIC); /* MAGIC + j */
    const float j = z - EMU_EXP_MAGIC;
    float r = fmaf(-j, 1.570796251e+00f, a);
    r = fmaf(-j, 7.549789416e-08f, r);
    r = fmaf(-j, 5.390302953e-15f, r);
    const float u = r * r;
    float s = 2.718311634e-06f;
    s = fmaf(s, u, -1.983933471e-04f);
    s = fmaf(s, u, 8.333329111e-03f);
    s = fmaf(s, u, -1.666666716e-01f);
    s = fmaf(r * u, s, r);
    float c = -2.720575480e-07f;
    c = fmaf(c, u, 2.479945942e-05f);
    c = fmaf(c, u, -1.388888340e-03f);
    c = fmaf(c, u, 4.166666791e-02f);
    c = fmaf(c, u, -0.5f);
    c = fmaf(c, u, 1.0f);
    const uint32_t q = emu_fm_bits_(z) + quarter_turns; /* low bits: j mod 4 (+1 for cos) */
    const float v = emu_fm_sel_((int)(q & 1u), c, s);
    return emu_fm_float_(emu_fm_bits_(v) ^ ((q & 2u) << 30));
}

/* sin(|x|) with the sign of x: odd, sin(-0) = -0. */
EMU_FM_INLINE float emu_ew_sinf(float x)
{
    return emu_fm_nan_(x, emu_fm_float_(emu_fm_bits_(emu_fm_sincos_(x, 0u)) ^ (emu_fm_bits_(x) & 0x80000000u)));
}

EMU_FM_INLINE float emu_ew_cosf(float x)
{
    return emu_fm_nan_(x, emu_fm_sincos_(x, 1u));
}

/* ------------------------------------------------------------------ erfc
 * scale * erfc(z) for z = zh + zl (|zl| <= ulp(zh) / 2, |zh| <= 10.6),
 * given hh + hl = z^2 exactly:
 *   |z| < 0.5:        1 - z R(z^2), R = erf(z)/z of degree 5 in z^2 (fit
 *                     error 1e-11);
 *   0.5 <= |z| < 2.5: exp(-z^2) g(a), a = |z|, g(a) = erfc(a) exp(a^2) =
 *                     G1(a - 1.5), G1 of degree 12 (fit error 5e-10);
 *   2.5 <= |z|:       exp(-z^2) G2(1/a) / a, G2 of degree 7 (fit error
 *                     3e-9);
 *   negative z:       2 - erfc(|z|) (for |z| >= 0.5).
 * exp(-z^2) = 2^n (1 + r w) (1 - hl), with expf's reduction of -hh and its
 * polynomial (kernels/exp_core.h); the small factors (1 - hl) and, for
 * G2, 1/a = (1 - zl/|zh|) / |zh| are folded into one fma:
 *   M (1 + s) / den * 2^n,  s = r w + (1 + r w)(-hl - zl/|zh|),
 *   M = scale G, den = |zh| or 1,
 * so that few roundings stack up, and the scale multiplies before 2^n
 * does: a normal result keeps its precision where erfc alone would be
 * subnormal (GELU's far negative tail). erfc(|z|) is 0 for z^2 > 104,
 * below half the smallest subnormal. NaN stays NaN. */
EMU_FM_INLINE float emu_fm_erfc_(float zh, float zl, float hh, float hl, float scale)
{
    float rr = -7.692853105e-04f;
    rr = fmaf(rr, hh, 5.200308282e-03f);
    rr = fmaf(rr, hh, -2.686312050e-02f);
    rr = fmaf(rr, hh, 1.128377393e-01f);
    rr = fmaf(rr, hh, -3.761263788e-01f);
    rr = fmaf(rr, hh, 1.128379226e+00f);
    const float near = fmaf(scale, fmaf(-zh, rr, 1.0f), (scale * -zl) * rr);

    const int pos = zh > 0.0f;
    const float a = fabsf(zh), al = emu_fm_sel_(pos, zl, -zl);
    const float v = (a - 1.5f) + al;
    float g1 = 2.604169822e-06f;
    g1 = fmaf(g1, v, -9.227632290e-06f);
    g1 = fmaf(g1, v, 2.232092447e-05f);
    g1 = fmaf(g1, v, -6.972905248e-05f);
    g1 = fmaf(g1, v, 2.235004504e-04f);
    g1 = fmaf(g1, v, -6.637086626e-04f);
    g1 = fmaf(g1, v, 1.886147307e-03f);
    g1 = fmaf(g1, v, -5.145439878e-03f);
    g1 = fmaf(g1, v, 1.337732282e-02f);
    g1 = fmaf(g1, v, -3.293097019e-02f);
    g1 = fmaf(g1, v, 7.615104318e-02f);
    g1 = fmaf(g1, v, -1.636229157e-01f);
    g1 = fmaf(g1, v, 3.215854168e-01f);
    const float t = 1.0f / a;
    float g2 = -1.251958776e-02f;
    g2 = fmaf(g2, t, 3.994323015e-01f);
    g2 = fmaf(g2, t, -8.571803570e-01f);
    g2 = fmaf(g2, t, 6.762527227e-01f);
    g2 = fmaf(g2, t, -4.410021752e-02f);
    g2 = fmaf(g2, t, -2.775210738e-01f);
    g2 = fmaf(g2, t, -2.606470953e-04f);
    g2 = fmaf(g2, t, 5.641958714e-01f);
    const int mid = a < 2.5f;
    const float g = emu_fm_sel_(mid, g1, g2), den = emu_fm_sel_(mid, 1.0f, a);
    const float a_rel = emu_fm_sel_(mid, 0.0f, al * t);
    const float big_m = emu_fm_sel_(pos, scale * g, g);

    /* 2^n (1 + r w) = exp(-hh), as in emu_ew_expf */
    const int none = hh > 104.0f;
    const float x = emu_fm_sel_(none, -104.0f, -hh); /* NaN passes */
    float zm, r;
    const float w = emu_exp_core_w_(x, &zm, &r);
    const int32_t n = (int32_t)emu_fm_bits_(zm) - EMU_EXP_MAGIC_BITS; /* in [-150, 0] */
    const int32_t half = n / 2;
    const float scale_a = emu_fm_float_((uint32_t)(n - half + 127) << 23);
    const float scale_b = emu_fm_float_((uint32_t)(half + 127) << 23);
    const float small = fmaf(r, w, (-hl - a_rel) * fmaf(r, w, 1.0f)); /* (1 + r w)(1 - hl - a_rel) - 1 */
    float far = fmaf(small, big_m, big_m) / den * scale_a * scale_b;
    far = emu_fm_sel_(none, big_m * 0.0f, far); /* NaN for an infinite scale, as inf * 0 */
    const float far_neg = scale * (2.0f - far);
    const float res = emu_fm_sel_(a < 0.5f, near, emu_fm_sel_(pos, far, far_neg));
    return emu_fm_sel_(scale == 0.0f, scale, res); /* 0 erfc(z) = 0 with the sign of the scale */
}

/* erfc(z). */
EMU_FM_INLINE float emu_ew_erfcf(float z)
{
    float zc = emu_fm_sel_(z > 10.6f, 10.6f, z); /* NaN passes */
    zc = emu_fm_sel_(zc < -10.6f, -10.6f, zc);
    const float hh = zc * zc;
    return emu_fm_nan_(z, emu_fm_erfc_(zc, 0.0f, hh, fmaf(zc, zc, -hh), 1.0f));
}

/* GELU, erf form: 0.5 x erfc(-x / sqrt(2)), with z = -x / sqrt(2) as a
 * sum of two floats and z^2 = x^2 / 2 split exactly (a rounded z would
 * cost the far tail its precision); |x| is clamped to 15 for the erfc
 * (erfc(-15/sqrt(2)) rounds to 2, and to 0 on the other side), not for
 * the factor 0.5 x, so -inf gives NaN as 0.5 x erfc(-x / sqrt(2)) does. */
EMU_FM_INLINE float emu_ew_gelu_erff(float x)
{
    float xc = emu_fm_sel_(x > 15.0f, 15.0f, x); /* NaN passes */
    xc = emu_fm_sel_(xc < -15.0f, -15.0f, xc);
    const float zh = xc * -7.071067691e-01f;
    const float zl = fmaf(xc, -7.071067691e-01f, -zh) + xc * -1.210161749e-08f;
    const float xx = xc * xc;
    return emu_fm_nan_(x, emu_fm_erfc_(zh, zl, 0.5f * xx, 0.5f * fmaf(xc, xc, -xx), 0.5f * x));
}

/* ------------------------------------------------------------------- log
 * x = 2^k m, m in [sqrt(2)/2, sqrt(2)) (subnormal x scaled by 2^23 first),
 * f = m - 1 (exact); log(1 + f) = f + f^2 (-1/2 + f P(f)), P of degree 8
 * (fit error 7e-10); log(x) = k ln2_hi + (k ln2_lo + log(1 + f)) with
 * expf's two-part ln 2. log(+-0) = -inf, log(x < 0) = NaN (x86's default
 * NaN, as libm's), log(inf) = inf, NaN stays NaN. */
EMU_FM_INLINE float emu_ew_logf(float x)
{
    const int sub = x < 0x1p-126f;
    uint32_t ix = emu_fm_bits_(x * emu_fm_sel_(sub, 0x1p23f, 1.0f)) + (0x3f800000u - 0x3f3504f3u);
    const float k = (float)((int32_t)(ix >> 23) - 0x7f - 23 * sub);
    ix = (ix & 0x007fffffu) + 0x3f3504f3u;
    const float f = emu_fm_float_(ix) - 1.0f;
    float p = 6.746635586e-02f;
    p = fmaf(p, f, -1.167564616e-01f);
    p = fmaf(p, f, 1.188816130e-01f);
    p = fmaf(p, f, -1.240558997e-01f);
    p = fmaf(p, f, 1.421955228e-01f);
    p = fmaf(p, f, -1.666799635e-01f);
    p = fmaf(p, f, 2.000211924e-01f);
    p = fmaf(p, f, -2.500000894e-01f);
    p = fmaf(p, f, 3.333331347e-01f);
    p = fmaf(p, f, -0.5f);
    const float l1p = fmaf(f * f, p, f);
    float r = fmaf(k, EMU_EXP_LN2_HI, fmaf(k, EMU_EXP_LN2_LO, l1p));
    r = emu_fm_sel_(x == 0.0f, -INFINITY, r);
    r = emu_fm_sel_(x < 0.0f, emu_fm_float_(0xffc00000u), r);
    return emu_fm_sel_(!(x < INFINITY), x + x, r); /* inf, NaN */
}

#endif
