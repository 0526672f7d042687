/* AVX2 + FMA: the blocked algorithm of blocked.h with a 6×16 micro-kernel
 * (12 ymm accumulators, two B vectors and one broadcast A value per step:
 * 15 of 16 registers, enough independent chains to cover the FMA latency). */
#include <immintrin.h>

#include "kernels/gemm/blocked.h"
#include "kernels/gemm/pack_x86.h"

enum { MR = 6, NR = 16 };

static void tile_6x16(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, float* c, int64_t ldc,
                      int load_c) {
    const float *a0 = a, *a1 = a + a_rs, *a2 = a + 2 * a_rs, *a3 = a + 3 * a_rs, *a4 = a + 4 * a_rs, *a5 = a + 5 * a_rs;
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    if (load_c) {
        c00 = _mm256_loadu_ps(c + 0 * ldc), c01 = _mm256_loadu_ps(c + 0 * ldc + 8);
        c10 = _mm256_loadu_ps(c + 1 * ldc), c11 = _mm256_loadu_ps(c + 1 * ldc + 8);
        c20 = _mm256_loadu_ps(c + 2 * ldc), c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
        c30 = _mm256_loadu_ps(c + 3 * ldc), c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
        c40 = _mm256_loadu_ps(c + 4 * ldc), c41 = _mm256_loadu_ps(c + 4 * ldc + 8);
        c50 = _mm256_loadu_ps(c + 5 * ldc), c51 = _mm256_loadu_ps(c + 5 * ldc + 8);
    } else {
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
    }
    for (int64_t p = 0, q = 0; p < kc; p++, q += a_cs) {
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
        __m256 ai;
        ai = _mm256_broadcast_ss(a0 + q), c00 = _mm256_fmadd_ps(ai, b0, c00), c01 = _mm256_fmadd_ps(ai, b1, c01);
        ai = _mm256_broadcast_ss(a1 + q), c10 = _mm256_fmadd_ps(ai, b0, c10), c11 = _mm256_fmadd_ps(ai, b1, c11);
        ai = _mm256_broadcast_ss(a2 + q), c20 = _mm256_fmadd_ps(ai, b0, c20), c21 = _mm256_fmadd_ps(ai, b1, c21);
        ai = _mm256_broadcast_ss(a3 + q), c30 = _mm256_fmadd_ps(ai, b0, c30), c31 = _mm256_fmadd_ps(ai, b1, c31);
        ai = _mm256_broadcast_ss(a4 + q), c40 = _mm256_fmadd_ps(ai, b0, c40), c41 = _mm256_fmadd_ps(ai, b1, c41);
        ai = _mm256_broadcast_ss(a5 + q), c50 = _mm256_fmadd_ps(ai, b0, c50), c51 = _mm256_fmadd_ps(ai, b1, c51);
        b += NR;
    }
    _mm256_storeu_ps(c + 0 * ldc, c00), _mm256_storeu_ps(c + 0 * ldc + 8, c01);
    _mm256_storeu_ps(c + 1 * ldc, c10), _mm256_storeu_ps(c + 1 * ldc + 8, c11);
    _mm256_storeu_ps(c + 2 * ldc, c20), _mm256_storeu_ps(c + 2 * ldc + 8, c21);
    _mm256_storeu_ps(c + 3 * ldc, c30), _mm256_storeu_ps(c + 3 * ldc + 8, c31);
    _mm256_storeu_ps(c + 4 * ldc, c40), _mm256_storeu_ps(c + 4 * ldc + 8, c41);
    _mm256_storeu_ps(c + 5 * ldc, c50), _mm256_storeu_ps(c + 5 * ldc + 8, c51);
}

static void pack_bt(float* dst, const float* b, int64_t cs, int64_t kc) { emu_gemm_pack_bt_x8(dst, b, cs, kc, NR); }

void emu_f32_gemm__avx2(const emu_sgemm_args* args, void* scratch) {
    emu_gemm_blocked(args, scratch, tile_6x16, pack_bt, MR, NR);
}
