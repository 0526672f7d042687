/*
 * Test-only: the five AVX-512F intrinsics the gemm micro-kernel uses, as
 * plain per-lane C (lane-wise fmaf for the fma), so that the AVX-512 gemm
 * source can run its real blocking, packing and tile logic on a CPU without
 * AVX-512. Force-included (-include) before src/kernels/gemm/avx512.c in the
 * test build only; the library always compiles that file natively.
 */
#ifndef ACLNN_EMU_TEST_AVX512_EMULATION_H
#define ACLNN_EMU_TEST_AVX512_EMULATION_H

#include <immintrin.h>
#include <math.h>
#include <string.h>

typedef struct {
    float lane[16];
} emu_test_m512;

static inline emu_test_m512 emu_test_m512_loadu(const float* p) {
    emu_test_m512 v;
    memcpy(v.lane, p, sizeof v.lane);
    return v;
}
static inline void emu_test_m512_storeu(float* p, emu_test_m512 v) { memcpy(p, v.lane, sizeof v.lane); }
static inline emu_test_m512 emu_test_m512_set1(float x) {
    emu_test_m512 v;
    for (int i = 0; i < 16; i++) v.lane[i] = x;
    return v;
}
static inline emu_test_m512 emu_test_m512_fmadd(emu_test_m512 a, emu_test_m512 b, emu_test_m512 c) {
    for (int i = 0; i < 16; i++) c.lane[i] = fmaf(a.lane[i], b.lane[i], c.lane[i]);
    return c;
}

#define __m512 emu_test_m512
#define _mm512_loadu_ps(p) emu_test_m512_loadu(p)
#define _mm512_storeu_ps(p, v) emu_test_m512_storeu((p), (v))
#define _mm512_set1_ps(x) emu_test_m512_set1(x)
#define _mm512_setzero_ps() emu_test_m512_set1(0.0f)
#define _mm512_fmadd_ps(a, b, c) emu_test_m512_fmadd((a), (b), (c))
/* The emulated build gets its own entry point name. */
#define emu_f32_gemm__avx512 emu_f32_gemm__avx512_emulated

#endif
