/* x86 packing of Bᵀ slivers by 8×8 register transposes (internal; included
 * by avx2.c and avx512.c, so it compiles with their flags; both have AVX2).
 * Pure data movement: the packed sliver is the one emu_gemm_pack_b_sliver
 * writes, so the results cannot depend on which packing ran. */
#ifndef ACLNN_EMU_KERNELS_GEMM_PACK_X86_H
#define ACLNN_EMU_KERNELS_GEMM_PACK_X86_H

#include <immintrin.h>
#include <stdint.h>

/* dst[p*nr + j] = b[j*cs + p] for j < nr (a multiple of 8), p < kc. */
static inline void emu_gemm_pack_bt_x8(float* dst, const float* b, int64_t cs, int64_t kc, int nr) {
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) {
        for (int j = 0; j < nr; j += 8) {
            const float* col = b + j * cs + p;
            const __m256 r0 = _mm256_loadu_ps(col), r1 = _mm256_loadu_ps(col + cs),
                         r2 = _mm256_loadu_ps(col + 2 * cs), r3 = _mm256_loadu_ps(col + 3 * cs),
                         r4 = _mm256_loadu_ps(col + 4 * cs), r5 = _mm256_loadu_ps(col + 5 * cs),
                         r6 = _mm256_loadu_ps(col + 6 * cs), r7 = _mm256_loadu_ps(col + 7 * cs);
            const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
                         t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
                         t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
                         t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
            const __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)),
                         u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)),
                         u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)),
                         u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)),
                         u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)),
                         u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2)),
                         u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)),
                         u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
            float* out = dst + p * nr + j;
            _mm256_storeu_ps(out + 0 * nr, _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_storeu_ps(out + 1 * nr, _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_storeu_ps(out + 2 * nr, _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_storeu_ps(out + 3 * nr, _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_storeu_ps(out + 4 * nr, _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_storeu_ps(out + 5 * nr, _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_storeu_ps(out + 6 * nr, _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_storeu_ps(out + 7 * nr, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
    }
    for (; p < kc; p++)
        for (int j = 0; j < nr; j++) dst[p * nr + j] = b[j * cs + p];
}

#endif
