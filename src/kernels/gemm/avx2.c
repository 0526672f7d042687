/* AVX2 + FMA: the blocked algorithm of blocked.h with a 6×16 micro-kernel
 * (12 ymm accumulators, two B vectors and one broadcast A value per step:
 * 15 of 16 registers, enough independent chains to cover the FMA latency).
 * A tile with at most 4 (or 2) live rows runs a copy of the same body cut to
 * 4 (or 2) rows: 8 chains still cover the latency, and the dropped rows were
 * never stored anyway. Every element's chain is the same in all three. */
#include <immintrin.h>

#include "kernels/gemm/blocked.h"
#include "kernels/gemm/pack_x86.h"

enum { MR = 6, NR = 16 };

#define ROW_INIT(r)                                                                        \
    do {                                                                                   \
        if (load_c && (r) < rows) {                                                        \
            c##r##0 = _mm256_loadu_ps(c + (r) * ldc), c##r##1 = _mm256_loadu_ps(c + (r) * ldc + 8); \
        } else {                                                                           \
            c##r##0 = c##r##1 = _mm256_setzero_ps();                                       \
        }                                                                                  \
    } while (0)
#define ROW_STEP(r)                                              \
    do {                                                         \
        if ((r) < height) {                                      \
            const __m256 ai = _mm256_broadcast_ss(a##r + q);     \
            c##r##0 = _mm256_fmadd_ps(ai, b0, c##r##0);          \
            c##r##1 = _mm256_fmadd_ps(ai, b1, c##r##1);          \
        }                                                        \
    } while (0)
#define ROW_STORE(r)                                                                                 \
    do {                                                                                             \
        if ((r) < rows) _mm256_storeu_ps(c + (r) * ldc, c##r##0), _mm256_storeu_ps(c + (r) * ldc + 8, c##r##1); \
    } while (0)

/* `height` (6, 4 or 2, a constant once inlined) rows are computed; rows
 * past `rows` (<= height) read row 0 again (always there) and are not stored. */
static inline __attribute__((always_inline)) void tile_body(const int height, int64_t kc, const float* a, int64_t a_rs,
                                                            int64_t a_cs, const float* b, float* c, int64_t ldc,
                                                            int rows, int load_c) {
    const float *a0 = a, *a1 = rows > 1 ? a + a_rs : a, *a2 = rows > 2 ? a + 2 * a_rs : a,
                *a3 = rows > 3 ? a + 3 * a_rs : a, *a4 = rows > 4 ? a + 4 * a_rs : a, *a5 = rows > 5 ? a + 5 * a_rs : a;
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    ROW_INIT(0); ROW_INIT(1); ROW_INIT(2); ROW_INIT(3); ROW_INIT(4); ROW_INIT(5);
    for (int64_t p = 0, q = 0; p < kc; p++, q += a_cs) {
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
        ROW_STEP(0); ROW_STEP(1); ROW_STEP(2); ROW_STEP(3); ROW_STEP(4); ROW_STEP(5);
        b += NR;
    }
    ROW_STORE(0); ROW_STORE(1); ROW_STORE(2); ROW_STORE(3); ROW_STORE(4); ROW_STORE(5);
}

static void tile_6x16(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, float* c, int64_t ldc,
                      int rows, int load_c) {
    if (rows > 4) {
        tile_body(6, kc, a, a_rs, a_cs, b, c, ldc, rows, load_c);
    } else if (rows > 2) {
        tile_body(4, kc, a, a_rs, a_cs, b, c, ldc, rows, load_c);
    } else {
        tile_body(2, kc, a, a_rs, a_cs, b, c, ldc, rows, load_c);
    }
}

static void pack_bt(float* dst, const float* b, int64_t cs, int64_t kc) { emu_gemm_pack_bt_x8(dst, b, cs, kc, NR); }

void emu_f32_gemm__avx2(const emu_sgemm_args* args, void* scratch) {
    emu_gemm_blocked(args, scratch, tile_6x16, pack_bt, MR, NR);
}
