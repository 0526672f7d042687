/* Portable implementation: the blocked algorithm of blocked.h with a 4×4
 * micro-kernel of explicit fused multiply-adds (one chain per accumulator,
 * so -ffp-contract and the compiler cannot change the rounding). Used on
 * every architecture without a SIMD implementation, aarch64 included, where
 * fmaf is one instruction and GCC turns the 16 chains into four in-register
 * NEON fmla per step (still one fused operation per element). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/gemm/blocked.h"

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

enum { MR = 4, NR = 4 };

static void tile_4x4(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, float* c, int64_t ldc,
                     int rows, int load_c) {
    /* Rows past `rows` read row 0 again (always there) and are not stored;
     * fixed loop bounds keep the accumulators in registers. */
    const float* row[MR];
    float acc[MR][NR];
    for (int r = 0; r < MR; r++) {
        row[r] = r < rows ? a + r * a_rs : a;
        for (int j = 0; j < NR; j++) acc[r][j] = load_c && r < rows ? c[r * ldc + j] : 0.0f;
    }
    for (int64_t p = 0, q = 0; p < kc; p++, q += a_cs) {
        for (int r = 0; r < MR; r++)
            for (int j = 0; j < NR; j++) acc[r][j] = fma_once(row[r][q], b[j], acc[r][j]);
        b += NR;
    }
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < NR; j++) c[r * ldc + j] = acc[r][j];
}

void emu_f32_gemm__scalar(const emu_sgemm_args* args, void* scratch) {
    emu_gemm_blocked(args, scratch, tile_4x4, NULL, MR, NR);
}
