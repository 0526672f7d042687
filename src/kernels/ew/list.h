/*
 * The element-wise bodies, written once. Each entry is
 *   X(name, arity, expression)
 * where the expression computes one output element from x (input 0), y
 * (input 1), z (input 2) and the attributes P(0..3), in the compute type T.
 * It is instantiated for T = float and T = double (math functions come from
 * <tgmath.h>, so log1p(x) is log1pf for float). The upper-case functions
 * are vectorizable forms for float and libm for double: EXP (exp.h), LOG,
 * TANH, SIN, COS and GELU_ERF (fmath.h; SIN and COS hand |x| > 2^22 and inf
 * to libm's sinf/cosf, element by element, through EMU_EW_RARE of
 * instances.h). A body that calls libm for float does not vectorize. The
 * formulas are CANN's (see each operator's file in src/ops/ for the source
 * of the formula and of its attributes).
 *
 * NaN: comparisons are written so that a NaN input gives a NaN result
 * wherever the formula passes x through (relu, clamp, threshold, ...).
 */
#ifndef ACLNN_EMU_KERNELS_EW_LIST_H
#define ACLNN_EMU_KERNELS_EW_LIST_H

#define EMU_EW_FLOAT_KERNELS(X)                                                                         \
    X(identity, 1, x)                                                                                   \
    X(abs, 1, fabs(x))                                                                                  \
    X(neg, 1, -x)                                                                                       \
    X(exp, 1, EXP(x))                                                                                   \
    X(log, 1, LOG(x))                                                                                   \
    X(sqrt, 1, sqrt(x))                                                                                 \
    X(sin, 1, SIN(x))                                                                                   \
    X(cos, 1, COS(x))                                                                                   \
    X(tanh, 1, TANH(x))                                                                                 \
    X(sigmoid, 1, (T)1 / ((T)1 + EXP(-x)))                                                              \
    X(silu, 1, x / ((T)1 + EXP(-x)))                                                                    \
    X(relu, 1, x < (T)0 ? (T)0 : x)                                                                     \
    X(gelu_tanh, 1, EMU_EW_GELU_TANH(x))                                                                \
    X(gelu_erf, 1, EMU_EW_GELU_ERF(x))                                                                  \
    X(hardsigmoid, 1, x <= (T)-3 ? (T)0 : (x >= (T)3 ? (T)1 : x / (T)6 + (T)0.5))                     \
    X(hardswish, 1, x <= (T)-3 ? (T)0 : (x >= (T)3 ? x : x * (x + (T)3) / (T)6))                      \
    X(sign, 1, x > (T)0 ? (T)1 : (x < (T)0 ? (T)-1 : x))                                                \
    /* P(0) alpha, P(1) scale, P(2) input scale */                                                      \
    X(elu, 1, x > (T)0 ? P(1) * x : P(1) * P(0) * (EXP(x * P(2)) - (T)1))                               \
    /* CANN's form when alpha or the input scale is inf or NaN */                                       \
    X(elu_limit, 1, x > (T)0 ? P(1) * x : -P(0) * P(1))                                                 \
    /* P(0) beta, P(1) threshold */                                                                     \
    X(softplus, 1, x * P(0) > P(1) ? x : log1p(EXP(x * P(0))) / P(0))                                   \
    /* P(0) negative slope */                                                                           \
    X(leaky_relu, 1, x < (T)0 ? x * P(0) : x)                                                           \
    /* P(0) the scalar */                                                                               \
    X(gt_scalar, 1, x > P(0) ? (T)1 : (T)0)                                                             \
    /* P(0) min, P(1) max; P(2) != 0: has min, P(3) != 0: has max */                                    \
    X(clamp, 1, EMU_EW_CLAMP(x, P(0), P(1), P(2) != (T)0, P(3) != (T)0))                                \
    /* P(0) threshold, P(1) value */                                                                    \
    X(threshold, 1, x > P(0) ? x : (x != x ? x : P(1)))                                                 \
    /* P(0) the scalar, P(1) alpha: x + alpha * s, x - alpha * s, x * s, x / s */                       \
    X(adds, 1, x + P(1) * P(0))                                                                         \
    X(subs, 1, x - P(1) * P(0))                                                                         \
    X(muls, 1, x * P(0))                                                                                \
    X(divs, 1, x / P(0))                                                                                \
    /* P(0) the value */                                                                                \
    X(fill, 0, P(0))                                                                                    \
    /* P(0) the base */                                                                                 \
    X(pow_scalar_tensor, 1, pow(P(0), x))                                                               \
    /* P(0) alpha */                                                                                    \
    X(add, 2, x + P(0) * y)                                                                             \
    X(sub, 2, x - P(0) * y)                                                                             \
    X(mul, 2, x * y)                                                                                    \
    X(div, 2, x / y)                                                                                    \
    X(eq, 2, x == y ? (T)1 : (T)0)                                                                      \
    X(pow, 2, pow(x, y))                                                                                \
    /* gated units: x is the activated half, y the other */                                             \
    X(swiglu, 2, x / ((T)1 + EXP(-x)) * y)                                                              \
    X(geglu_tanh, 2, EMU_EW_GELU_TANH(x) * y)                                                           \
    X(geglu_erf, 2, EMU_EW_GELU_ERF(x) * y)

/* GELU without cancellation for negative x: the tanh form as
 * x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (the same function, and the
 * form of CANN's kernel), the erf form as 0.5 x erfc(-x / sqrt(2))
 * (GELU_ERF: that formula for double, fmath.h's emu_ew_gelu_erff for float). */
#define EMU_EW_GELU_TANH(x) ((x) / ((T)1 + EXP((T)-1.5957691216057308 * ((x) + (T)0.044715 * (x) * (x) * (x)))))
#define EMU_EW_GELU_ERF(x) GELU_ERF(x)

/* Integer forms (T = int64_t), for the kernels defined on integers. */
#define EMU_EW_INT_KERNELS(X)                                                                           \
    X(identity, 1, x)                                                                                   \
    X(abs, 1, x < 0 ? (T)((uint64_t)0 - (uint64_t)x) : x)                                               \
    X(neg, 1, (T)((uint64_t)0 - (uint64_t)x))                                                           \
    X(relu, 1, x < 0 ? 0 : x)                                                                           \
    X(sign, 1, (T)((x > 0) - (x < 0)))                                                                  \
    X(gt_scalar, 1, x > P(0) ? 1 : 0)                                                                   \
    X(clamp, 1, EMU_EW_CLAMP(x, P(0), P(1), P(2) != 0, P(3) != 0))                                      \
    X(threshold, 1, x > P(0) ? x : P(1))                                                                \
    X(adds, 1, (T)((uint64_t)x + (uint64_t)P(1) * (uint64_t)P(0)))                                      \
    X(subs, 1, (T)((uint64_t)x - (uint64_t)P(1) * (uint64_t)P(0)))                                      \
    X(muls, 1, (T)((uint64_t)x * (uint64_t)P(0)))                                                       \
    X(fill, 0, P(0))                                                                                    \
    X(add, 2, (T)((uint64_t)x + (uint64_t)P(0) * (uint64_t)y))                                          \
    X(sub, 2, (T)((uint64_t)x - (uint64_t)P(0) * (uint64_t)y))                                          \
    X(mul, 2, (T)((uint64_t)x * (uint64_t)y))                                                           \
    X(eq, 2, x == y ? 1 : 0)

/* min with max, then max with min, as CANN's Clamp (y = max(min(x, max), min)):
 * min > max gives min; a NaN x stays NaN (every comparison with it is false). */
#define EMU_EW_CLAMP_HI_(x, hi, has_hi) ((has_hi) && (x) > (hi) ? (hi) : (x))
#define EMU_EW_CLAMP(x, lo, hi, has_lo, has_hi)                                                         \
    ((has_lo) && EMU_EW_CLAMP_HI_(x, hi, has_hi) < (lo) ? (lo) : EMU_EW_CLAMP_HI_(x, hi, has_hi))

#endif
