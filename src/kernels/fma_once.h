/* Internal: fma_once(a, b, c), a*b + c rounded once to float, for the
 * portable kernels whose chains must give the SIMD levels' bits. Include
 * only from files built with -ffp-contract=off. */
#ifndef ACLNN_EMU_KERNELS_FMA_ONCE_H
#define ACLNN_EMU_KERNELS_FMA_ONCE_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__FP_FAST_FMAF) || !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#define fma_once(a, b, c) fmaf((a), (b), (c))
#else
/* Where fmaf is a library call (x86 without -mfma: ~10 cycles, and it keeps
 * the accumulators in memory), the same once-rounded result from double
 * arithmetic: a·b is exact in double (48 significant bits); the sum is
 * rounded to double and its exact error recovered (TwoSum); when it was
 * inexact, the double is moved to its odd neighbour on the error's side
 * (round to odd), and round-to-odd at 53 bits followed by rounding to 24
 * bits equals rounding once (Boldo & Melquiond, "Emulation of FMA and
 * correctly rounded sums: proved algorithms using rounding to odd", 2008).
 * Needs plain double evaluation (FLT_EVAL_METHOD == 0), hence the guard. */
static inline float fma_once(float a, float b, float c) {
    const double x = (double)a * (double)b, y = (double)c;
    const double s = x + y, x_part = s - y;
    const double err = (x - x_part) + (y - (s - x_part));
    double r = s;
    if (err != 0.0 && isfinite(s)) {
        uint64_t u;
        memcpy(&u, &s, sizeof u);
        if ((u & 1) == 0) {
            u = (err > 0) == (s > 0) ? u + 1 : u - 1; /* one ulp toward the exact sum */
            memcpy(&r, &u, sizeof r);
        }
    }
    return (float)r;
}
#endif

#endif
