/* AVX-512F: the blocked algorithm of blocked.h with a 12×32 micro-kernel
 * (24 zmm accumulators, two B vectors and one broadcast A value per step).
 * Same chain per element as every other implementation: one fma per p, in
 * increasing p, from C or +0. */
#include <immintrin.h>

#include "kernels/gemm/blocked.h"
#include "kernels/gemm/pack_x86.h"

enum { MR = 12, NR = 32 };

#define ROW_DECL(r) __m512 c##r##0, c##r##1
#define ROW_INIT(r)                                                                          \
    do {                                                                                     \
        if (load_c && (r) < rows) {                                                          \
            c##r##0 = _mm512_loadu_ps(c + (r) * ldc), c##r##1 = _mm512_loadu_ps(c + (r) * ldc + 16); \
        } else {                                                                             \
            c##r##0 = _mm512_setzero_ps(), c##r##1 = _mm512_setzero_ps();                    \
        }                                                                                    \
    } while (0)
#define ROW_STEP(r)                                           \
    do {                                                      \
        if ((r) < height) {                                   \
            const __m512 ai = _mm512_set1_ps(row[r][q]);      \
            c##r##0 = _mm512_fmadd_ps(ai, b0, c##r##0);       \
            c##r##1 = _mm512_fmadd_ps(ai, b1, c##r##1);       \
        }                                                     \
    } while (0)
#define ROW_STORE(r)                                                                                          \
    do {                                                                                                      \
        if ((r) < rows) _mm512_storeu_ps(c + (r) * ldc, c##r##0), _mm512_storeu_ps(c + (r) * ldc + 16, c##r##1); \
    } while (0)

/* `height` (12, 8 or 4, a constant once inlined) rows are computed; rows
 * past `rows` (<= height) read row 0 again (always there) and are not stored. */
static inline __attribute__((always_inline)) void tile_body(const int height, int64_t kc, const float* a, int64_t a_rs,
                                                            int64_t a_cs, const float* b, float* c, int64_t ldc,
                                                            int rows, int load_c) {
    const float* row[MR];
    for (int r = 0; r < MR; r++) row[r] = r < rows ? a + r * a_rs : a;
    ROW_DECL(0); ROW_DECL(1); ROW_DECL(2); ROW_DECL(3); ROW_DECL(4); ROW_DECL(5);
    ROW_DECL(6); ROW_DECL(7); ROW_DECL(8); ROW_DECL(9); ROW_DECL(10); ROW_DECL(11);
    ROW_INIT(0); ROW_INIT(1); ROW_INIT(2); ROW_INIT(3); ROW_INIT(4); ROW_INIT(5);
    ROW_INIT(6); ROW_INIT(7); ROW_INIT(8); ROW_INIT(9); ROW_INIT(10); ROW_INIT(11);
    for (int64_t p = 0, q = 0; p < kc; p++, q += a_cs) {
        const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
        ROW_STEP(0); ROW_STEP(1); ROW_STEP(2); ROW_STEP(3); ROW_STEP(4); ROW_STEP(5);
        ROW_STEP(6); ROW_STEP(7); ROW_STEP(8); ROW_STEP(9); ROW_STEP(10); ROW_STEP(11);
        b += NR;
    }
    ROW_STORE(0); ROW_STORE(1); ROW_STORE(2); ROW_STORE(3); ROW_STORE(4); ROW_STORE(5);
    ROW_STORE(6); ROW_STORE(7); ROW_STORE(8); ROW_STORE(9); ROW_STORE(10); ROW_STORE(11);
}

/* As in avx2.c: a tile with at most 8 (or 4) live rows runs the body cut to
 * 8 (or 4) rows, which still has 16 (8) independent chains. */
static void tile_12x32(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, float* c,
                       int64_t ldc, int rows, int load_c) {
    if (rows > 8) {
        tile_body(12, kc, a, a_rs, a_cs, b, c, ldc, rows, load_c);
    } else if (rows > 4) {
        tile_body(8, kc, a, a_rs, a_cs, b, c, ldc, rows, load_c);
    } else {
        tile_body(4, kc, a, a_rs, a_cs, b, c, ldc, rows, load_c);
    }
}

static void pack_bt(float* dst, const float* b, int64_t cs, int64_t kc) { emu_gemm_pack_bt_x8(dst, b, cs, kc, NR); }

void emu_f32_gemm__avx512(const emu_sgemm_args* args, void* scratch) {
    emu_gemm_blocked(args, scratch, tile_12x32, pack_bt, MR, NR);
}
