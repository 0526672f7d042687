/* x86 packing of Bᵀ slivers by 8×8 register transposes (internal; included
 * by avx2.c and avx512.c, so it compiles with their flags; both have AVX2).
 * Pure data movement: the packed sliver is the one emu_gemm_pack_b_sliver
 * writes, so the results cannot depend on which packing ran. */
#ifndef ACLNN_EMU_KERNELS_GEMM_PACK_X86_H
#define ACLNN_EMU_KERNELS_GEMM_PACK_X86_H

#include <immintrin.h>
#include <stdint.h>

#include "kernels/transpose8x8_x86.h"

/* dst[p*nr + j] = b[j*cs + p] for j < nr (a multiple of 8), p < kc. */
static inline void emu_gemm_pack_bt_x8(float* dst, const float* b, int64_t cs, int64_t kc, int nr) {
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) {
        for (int j = 0; j < nr; j += 8) {
            const float* col = b + j * cs + p;
            __m256 r[8];
            for (int q = 0; q < 8; q++) r[q] = _mm256_loadu_ps(col + q * cs);
            emu_transpose8x8_ps(r);
            float* out = dst + p * nr + j;
            for (int q = 0; q < 8; q++) _mm256_storeu_ps(out + q * nr, r[q]);
        }
    }
    for (; p < kc; p++)
        for (int j = 0; j < nr; j++) dst[p * nr + j] = b[j * cs + p];
}

#endif
