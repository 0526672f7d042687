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

#include "kernels/fma_once.h"

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
