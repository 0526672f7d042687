/*
 * The blocked, packed algorithm shared by every gemm implementation
 * (internal to src/kernels/gemm).
 *
 * Loops (Goto/BLIS order): column panels of NC columns of C; depth blocks of
 * KC steps of p; row blocks of MC rows. B's KC×NC panel is copied into the
 * caller's scratch as slivers of NR columns, p-major, zero-padded to NR
 * columns, so the micro-kernel reads it with unit stride whatever B's strides
 * are (B must be packed: its rows are NR-wide vector loads, and an in-place
 * B with a power-of-two row stride thrashes L1). A row-major A or Aᵀ is read
 * in place; any other A's MC×KC block is copied as slivers of MR rows.
 *
 * Why every implementation gives the same bits as the one-loop reference:
 * the micro-kernel keeps one accumulator per C element and runs
 * acc = fma(a[p], b[p], acc) for p in increasing order over its depth block.
 * The first depth block starts from C (accumulate) or +0; each later block
 * starts from the fp32 value the previous block stored to C, which is exactly
 * the value the unblocked chain holds at that p. A tile with fewer than MR
 * rows left computes its missing rows on a copy of its first row and never
 * stores them; one with fewer than NR columns runs on an MR×NR copy of C in
 * the scratch. So no access leaves the operands.
 *
 * Each ISA file includes this header, so the packing loops are compiled (and
 * vectorised) with that file's ISA flags; the blocking constants below are
 * shared so that one scratch size serves every implementation.
 */
#ifndef ACLNN_EMU_KERNELS_GEMM_BLOCKED_H
#define ACLNN_EMU_KERNELS_GEMM_BLOCKED_H

#include <stdint.h>
#include <string.h>

#include "kernels/gemm/gemm.h"

/* Depth and panel sizes: a KC×NR sliver of B (16 KiB at NR = 16) stays in
 * L1, the KC×NC panel of B and the MC×KC block of A together (352 KiB) in a
 * 512 KiB L2. NC and MC are multiples of every NR and MR used. */
enum {
    EMU_GEMM_KC = 256,
    EMU_GEMM_NC = 256,
    EMU_GEMM_MC = 96,
    EMU_GEMM_MAX_MR = 12,
    EMU_GEMM_MAX_NR = 32,
};

#define EMU_GEMM_SCRATCH_FLOATS                                          \
    ((size_t)EMU_GEMM_KC * EMU_GEMM_NC + (size_t)EMU_GEMM_MC * EMU_GEMM_KC + \
     (size_t)EMU_GEMM_MAX_MR * EMU_GEMM_MAX_NR)

/* Runs kc steps of the chain on rows [0, rows) (1 <= rows <= MR) of one
 * MR×NR tile of C (row stride ldc); rows of A and C past `rows` are neither
 * read nor written (their accumulators run on a copy of row 0 and are
 * dropped). A's element (r, p) is a[r*a_rs + p*a_cs]: a packed sliver
 * (a_rs = 1, a_cs = MR) or A itself, read in place (a_cs = 1: A row-major;
 * a_rs = 1: Aᵀ row-major).
 * b_pack holds kc groups of NR values. load_c: start from C, else from +0. */
typedef void (*emu_gemm_tile_fn)(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b_pack,
                                 float* c, int64_t ldc, int rows, int load_c);

/* Optional ISA-specific packing of one full sliver of a B stored column by
 * column (b_row_stride == 1, i.e. Bᵀ given row-major): same result as
 * emu_gemm_pack_b_sliver. NULL: the portable loop. */
typedef void (*emu_gemm_pack_bt_fn)(float* dst, const float* b, int64_t cs, int64_t kc);

/* The ISA entry points (avx2.c, avx512.c); declared here so config.c and the
 * tests can name them. */
void emu_f32_gemm__avx2(const emu_sgemm_args* args, void* scratch);
void emu_f32_gemm__avx512(const emu_sgemm_args* args, void* scratch);

/* Copies rows [0, rows) × depth [0, kc) of A (origin a) into dst as
 * kc groups of mr values; the places of rows rows..mr-1 are left as they
 * are (the micro-kernel never reads them). Only for A with no unit stride
 * (the others are read in place), so one plain loop serves. */
static inline void emu_gemm_pack_a_sliver(float* dst, const float* a, int64_t rs, int64_t cs, int64_t rows,
                                          int64_t kc, int mr) {
    for (int64_t r = 0; r < rows; r++) {
        const float* row = a + r * rs;
        for (int64_t p = 0; p < kc; p++) dst[p * mr + r] = row[p * cs];
    }
}

/* Copies depth [0, kc) × columns [0, cols) of B (origin b) into dst as
 * kc groups of nr values; columns cols..nr-1 are zero. */
static inline void emu_gemm_pack_b_sliver(float* dst, const float* b, int64_t rs, int64_t cs, int64_t cols,
                                          int64_t kc, int nr) {
    if (cols == nr && cs == 1) { /* row-major B: nr contiguous values per p */
        for (int64_t p = 0; p < kc; p++) memcpy(dst + p * nr, b + p * rs, (size_t)nr * sizeof(float));
        return;
    }
    if (cols < nr) memset(dst, 0, (size_t)(kc * nr) * sizeof(float));
    for (int64_t j = 0; j < cols; j++) { /* also the column-major (rs == 1) case: reads stay contiguous */
        const float* col = b + j * cs;
        for (int64_t p = 0; p < kc; p++) dst[p * nr + j] = col[p * rs];
    }
}

/* One tile of C: tiles with all NR columns go straight to C, narrower
 * ones through an NR-wide copy. */
static inline void emu_gemm_run_tile(emu_gemm_tile_fn tile, int nr, int64_t kc, const float* a, int64_t a_rs,
                                     int64_t a_cs, const float* b_pack, float* c, int64_t ldc, int64_t rows,
                                     int64_t cols, int load_c, float* edge) {
    if (cols == nr) {
        tile(kc, a, a_rs, a_cs, b_pack, c, ldc, (int)rows, load_c);
        return;
    }
    if (load_c) {
        for (int64_t r = 0; r < rows; r++) memcpy(edge + r * nr, c + r * ldc, (size_t)cols * sizeof(float));
    }
    tile(kc, a, a_rs, a_cs, b_pack, edge, nr, (int)rows, load_c);
    for (int64_t r = 0; r < rows; r++) memcpy(c + r * ldc, edge + r * nr, (size_t)cols * sizeof(float));
}

/* C = A·B or C += A·B with the given micro-kernel; scratch as gemm.h says.
 * A with unit stride along p or along rows (A or Aᵀ row-major) is read in
 * place; only other strides are packed. */
static inline void emu_gemm_blocked(const emu_sgemm_args* g, void* scratch, emu_gemm_tile_fn tile,
                                    emu_gemm_pack_bt_fn pack_bt, int mr, int nr) {
    const int64_t m = g->m, n = g->n, k = g->k;
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {
        if (!g->accumulate) {
            for (int64_t i = 0; i < m; i++) {
                float* row = g->c + i * g->c_row_stride;
                for (int64_t j = 0; j < n; j++) row[j] = 0.0f;
            }
        }
        return;
    }
    float* b_pack = (float*)scratch;
    float* a_pack = b_pack + (size_t)EMU_GEMM_KC * EMU_GEMM_NC;
    float* edge = a_pack + (size_t)EMU_GEMM_MC * EMU_GEMM_KC;
    const int a_in_place = g->a_col_stride == 1 || g->a_row_stride == 1;

    for (int64_t jc = 0; jc < n; jc += EMU_GEMM_NC) {
        const int64_t nc = n - jc < EMU_GEMM_NC ? n - jc : EMU_GEMM_NC;
        for (int64_t pc = 0; pc < k; pc += EMU_GEMM_KC) {
            const int64_t kc = k - pc < EMU_GEMM_KC ? k - pc : EMU_GEMM_KC;
            const int load_c = pc > 0 || g->accumulate;
            for (int64_t jr = 0; jr < nc; jr += nr) {
                const int64_t cols = nc - jr < nr ? nc - jr : nr;
                const float* b = g->b + pc * g->b_row_stride + (jc + jr) * g->b_col_stride;
                if (pack_bt && cols == nr && g->b_row_stride == 1) {
                    pack_bt(b_pack + jr * kc, b, g->b_col_stride, kc);
                } else {
                    emu_gemm_pack_b_sliver(b_pack + jr * kc, b, g->b_row_stride, g->b_col_stride, cols, kc, nr);
                }
            }
            for (int64_t ic = 0; ic < m; ic += EMU_GEMM_MC) {
                const int64_t mc = m - ic < EMU_GEMM_MC ? m - ic : EMU_GEMM_MC;
                for (int64_t ir = 0; ir < mc && !a_in_place; ir += mr) {
                    const int64_t rows = mc - ir < mr ? mc - ir : mr;
                    emu_gemm_pack_a_sliver(a_pack + ir * kc,
                                           g->a + (ic + ir) * g->a_row_stride + pc * g->a_col_stride,
                                           g->a_row_stride, g->a_col_stride, rows, kc, mr);
                }
                for (int64_t jr = 0; jr < nc; jr += nr) {
                    const int64_t cols = nc - jr < nr ? nc - jr : nr;
                    for (int64_t ir = 0; ir < mc; ir += mr) {
                        const int64_t rows = mc - ir < mr ? mc - ir : mr;
                        const float* a = a_in_place ? g->a + (ic + ir) * g->a_row_stride + pc * g->a_col_stride
                                                    : a_pack + ir * kc;
                        emu_gemm_run_tile(tile, nr, kc, a, a_in_place ? g->a_row_stride : 1,
                                          a_in_place ? g->a_col_stride : mr,
                                          b_pack + jr * kc, g->c + (ic + ir) * g->c_row_stride + jc + jr,
                                          g->c_row_stride, rows, cols, load_c, edge);
                    }
                }
            }
        }
    }
}

#endif
