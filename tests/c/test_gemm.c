/*
 * Test of the fp32 matrix-product kernels (src/kernels/gemm) for every ISA
 * level this CPU supports:
 *   - bit-identical to an independent one-loop fmaf reference (the
 *     determinism contract of gemm.h) over tile edges, primes, k = 0,
 *     depths across the blocking, accumulate 0/1, transposed, strided,
 *     negative and zero strides, and pointers off any vector alignment;
 *   - nothing written outside C (guard cells around and between its rows)
 *     or past emu_sgemm_scratch_bytes() of the scratch;
 *   - a product split along k into two calls gives the same bits;
 *   - within the fma-chain error bound of a double-precision reference.
 * On x86 the AVX-512 source also runs with its vector intrinsics emulated
 * lane by lane (avx512_emulation.h), whatever this CPU has.
 * Each group prints one line; the last line is "N passed, M failed" and the
 * exit code is 1 if anything failed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm/gemm.h"
#include "kernels/isa.h"

#define TEST_RNG_SEED 0x243F6A8885A308D3ull
#include "test_util.h"

static int64_t rnd_int(int64_t lo, int64_t hi) { /* [lo, hi] */
    return lo + (int64_t)(rnd64() % (uint64_t)(hi - lo + 1));
}

#if defined(EMU_TEST_AVX512_EMULATED)
void emu_f32_gemm__avx512_emulated(const emu_sgemm_args* args, void* scratch);
#endif

/* ---------- the contract, written independently of the kernels ---------- */

static float ref_element(const emu_sgemm_args* g, int64_t i, int64_t j, float c0) {
    float acc = g->accumulate ? c0 : 0.0f;
    for (int64_t p = 0; p < g->k; p++)
        acc = fmaf(g->a[i * g->a_row_stride + p * g->a_col_stride], g->b[p * g->b_row_stride + j * g->b_col_stride],
                   acc);
    return acc;
}

/* ---------- operands with arbitrary strides ---------- */

enum { LAYOUT_ROW, LAYOUT_COL, LAYOUT_STRIDED, LAYOUT_NEG_ROWS, LAYOUT_NEG_COLS, LAYOUT_NEG_BOTH, LAYOUT_ZERO_ROW,
       LAYOUT_ZERO_COL, LAYOUT_COUNT };
static const char* const LAYOUT_NAMES[LAYOUT_COUNT] = {"row", "col", "strided", "neg-rows", "neg-cols",
                                                       "neg-both", "zero-row", "zero-col"};

typedef struct {
    float* storage;
    const float* origin; /* element (0,0) */
    int64_t rs, cs;
} operand;

/* A rows×cols operand in the given layout, filled with values in [-1, 1),
 * starting `misalign` floats after a 64-byte boundary. */
static operand make_operand(int64_t rows, int64_t cols, int layout, int misalign) {
    int64_t rs = cols, cs = 1;
    switch (layout) {
    case LAYOUT_COL: rs = 1, cs = rows; break;
    case LAYOUT_STRIDED: rs = 2 * cols + 3, cs = 2; break;
    case LAYOUT_NEG_ROWS: rs = -(cols + 1), cs = 1; break;
    case LAYOUT_NEG_COLS: rs = cols, cs = -1; break;
    case LAYOUT_NEG_BOTH: rs = -1, cs = -(rows + 2); break;
    case LAYOUT_ZERO_ROW: rs = 0, cs = 1; break;
    case LAYOUT_ZERO_COL: rs = cols, cs = 0; break;
    default: break;
    }
    const int64_t r_last = rows > 0 ? rows - 1 : 0, c_last = cols > 0 ? cols - 1 : 0;
    const int64_t lo = (rs < 0 ? rs * r_last : 0) + (cs < 0 ? cs * c_last : 0);
    const int64_t hi = (rs > 0 ? rs * r_last : 0) + (cs > 0 ? cs * c_last : 0);
    const size_t count = (size_t)(hi - lo + 1);
    operand o;
    o.storage = xmalloc((count + 16) * sizeof(float) + 64);
    float* base = (float*)(((uintptr_t)o.storage + 63) & ~(uintptr_t)63) + misalign;
    for (size_t t = 0; t < count; t++) base[t] = rnd_uniform(-1.0f, 1.0f);
    o.origin = base - lo;
    o.rs = rs, o.cs = cs;
    return o;
}

/* ---------- one checked call ---------- */

enum { GUARD = 7 }; /* guard cells before, after and between C's rows */
static const uint32_t GUARD_BITS = 0x7FBADBADu; /* a NaN no kernel would produce */

typedef struct {
    int64_t cases, mismatches, guard_hits, scratch_hits, bound_misses;
    double worst_ratio; /* |c - exact| / bound */
    char first_failure[256];
} tally;

static void note_failure(tally* t, const char* what, const emu_sgemm_args* g, int al, int bl) {
    if (t->first_failure[0]) return;
    snprintf(t->first_failure, sizeof t->first_failure, "%s at m=%lld n=%lld k=%lld acc=%d A=%s B=%s", what,
             (long long)g->m, (long long)g->n, (long long)g->k, g->accumulate, LAYOUT_NAMES[al], LAYOUT_NAMES[bl]);
}

static void run_case(const emu_gemm_kernels* kern, void* scratch, size_t scratch_bytes, int64_t m, int64_t n,
                     int64_t k, int accumulate, int a_layout, int b_layout, int misalign, tally* t) {
    operand A = make_operand(m, k, a_layout, misalign);
    operand B = make_operand(k, n, b_layout, (misalign * 3) % 16);
    const int64_t ldc = n + GUARD;
    const size_t c_count = (size_t)(GUARD + (m + 1) * ldc + GUARD); /* a whole guard row after C */
    float* c_store = xmalloc((c_count + 16) * sizeof(float) + 64);
    float* c_base = (float*)(((uintptr_t)c_store + 63) & ~(uintptr_t)63) + (misalign * 5) % 16;
    float* c_init = xmalloc((size_t)(m * n) * sizeof(float));
    for (size_t t2 = 0; t2 < c_count; t2++) memcpy(&c_base[t2], &GUARD_BITS, sizeof(float));
    float* c = c_base + GUARD;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) c_init[i * n + j] = c[i * ldc + j] = rnd_uniform(-1.0f, 1.0f);

    emu_sgemm_args g = {m, n, k, A.origin, A.rs, A.cs, B.origin, B.rs, B.cs, c, ldc, accumulate};
    unsigned char* s = scratch;
    memset(s + scratch_bytes, 0xA5, 256);
    kern->sgemm(&g, scratch);
    for (int q = 0; q < 256; q++)
        if (s[scratch_bytes + q] != 0xA5) {
            t->scratch_hits++;
            note_failure(t, "scratch overrun", &g, a_layout, b_layout);
            break;
        }

    for (size_t t2 = 0; t2 < c_count; t2++) {
        const int64_t off = (int64_t)t2 - GUARD;
        const int inside = off >= 0 && off < m * ldc && off % ldc < n;
        if (!inside && fbits(c_base[t2]) != GUARD_BITS) {
            t->guard_hits++;
            note_failure(t, "write outside C", &g, a_layout, b_layout);
        }
    }
    const double u = ldexp(1.0, -24), gamma = (double)k * u / (1.0 - (double)k * u);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            const float c0 = c_init[i * n + j], got = c[i * ldc + j];
            if (fbits(got) != fbits(ref_element(&g, i, j, c0))) {
                t->mismatches++;
                note_failure(t, "bits differ from the fmaf chain", &g, a_layout, b_layout);
            }
            double exact = accumulate ? (double)c0 : 0.0, size = accumulate ? fabs((double)c0) : 0.0;
            for (int64_t p = 0; p < k; p++) {
                const double prod = (double)A.origin[i * A.rs + p * A.cs] * (double)B.origin[p * B.rs + j * B.cs];
                exact += prod, size += fabs(prod);
            }
            const double err = fabs((double)got - exact), bound = gamma * size;
            if (err > bound) {
                t->bound_misses++;
                note_failure(t, "outside the fma-chain error bound", &g, a_layout, b_layout);
            } else if (bound > 0 && err / bound > t->worst_ratio) {
                t->worst_ratio = err / bound;
            }
        }
    }
    t->cases++;
    free(A.storage);
    free(B.storage);
    free(c_store);
    free(c_init);
}

static void report(const emu_gemm_kernels* kern, const char* group, const tally* t) {
    check(t->mismatches == 0 && t->guard_hits == 0 && t->scratch_hits == 0 && t->bound_misses == 0 && t->cases > 0,
          "%s: %s: %lld cases, %lld bit mismatches, %lld guard hits, %lld scratch overruns, %lld bound misses "
          "(worst error %.3f of the bound)%s%s",
          kern->name, group, (long long)t->cases, (long long)t->mismatches, (long long)t->guard_hits,
          (long long)t->scratch_hits, (long long)t->bound_misses, t->worst_ratio, t->first_failure[0] ? "; first: " : "",
          t->first_failure);
}

/* ---------- groups ---------- */

static void test_kernel(const emu_gemm_kernels* kern, void* scratch, size_t bytes);

static void test_tile_edges(const emu_gemm_kernels* kern, void* scratch, size_t bytes) {
    tally t = {0};
    for (int64_t m = 1; m <= 26; m++)
        for (int64_t n = 1; n <= 35; n++) {
            const int64_t k = 1 + (m * 7 + n * 3) % 19;
            run_case(kern, scratch, bytes, m, n, k, (int)((m + n) & 1), LAYOUT_ROW, LAYOUT_ROW, (int)(n % 16), &t);
        }
    report(kern, "every m in 1..26 x n in 1..35", &t);
}

static void test_layouts(const emu_gemm_kernels* kern, void* scratch, size_t bytes) {
    tally t = {0};
    static const int64_t shapes[][3] = {{13, 37, 29}, {6, 16, 5}, {25, 33, 70}};
    for (int s = 0; s < 3; s++)
        for (int al = 0; al < LAYOUT_COUNT; al++)
            for (int bl = 0; bl < LAYOUT_COUNT; bl++)
                run_case(kern, scratch, bytes, shapes[s][0], shapes[s][1], shapes[s][2], (al + bl + s) & 1, al, bl,
                         (al * 5 + bl) % 16, &t);
    report(kern, "every A x B layout (row, col, strided, negative, zero strides)", &t);
}

static void test_depths(const emu_gemm_kernels* kern, void* scratch, size_t bytes) {
    tally t = {0};
    /* Around the depth block (256) and across several of them. */
    static const int64_t depths[] = {0, 1, 2, 3, 31, 255, 256, 257, 511, 513, 769};
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++)
        for (int acc = 0; acc <= 1; acc++)
            run_case(kern, scratch, bytes, 7 + (int64_t)d, 19, depths[d], acc, (int)(d % 2) ? LAYOUT_COL : LAYOUT_ROW,
                     (int)(d % 3) ? LAYOUT_ROW : LAYOUT_COL, (int)d, &t);
    report(kern, "k = 0, 1, 2, 3, 31, 255..257, 511, 513, 769, accumulate 0 and 1", &t);
}

static void test_floyd_shapes(const emu_gemm_kernels* kern, void* scratch, size_t bytes) {
    tally t = {0};
    /* The operator's products, including the blocking edges (96 rows, 256 columns). */
    static const int64_t shapes[][3] = {{16, 64, 32},  {64, 256, 128}, {97, 96, 64},  {256, 64, 16},
                                        {193, 257, 33}, {300, 300, 5},  {128, 128, 256}, {257, 31, 100}};
    for (int s = 0; s < 8; s++)
        run_case(kern, scratch, bytes, shapes[s][0], shapes[s][1], shapes[s][2], s & 1, s % 3 == 0 ? LAYOUT_COL : LAYOUT_ROW,
                 s % 4 == 1 ? LAYOUT_COL : LAYOUT_ROW, s, &t);
    report(kern, "operator-sized and block-edge shapes up to 300", &t);
}

static void test_random(const emu_gemm_kernels* kern, void* scratch, size_t bytes) {
    tally t = {0};
    for (int r = 0; r < 60; r++) {
        const int64_t m = rnd_int(1, 100), n = rnd_int(1, 100), k = rnd_int(0, 270);
        run_case(kern, scratch, bytes, m, n, k, (int)rnd_int(0, 1), (int)rnd_int(0, LAYOUT_COUNT - 1),
                 (int)rnd_int(0, LAYOUT_COUNT - 1), (int)rnd_int(0, 15), &t);
    }
    report(kern, "60 random shapes and layouts", &t);
}

/* Splitting along k must not change a bit (the contract's promise to callers). */
static void test_k_split(const emu_gemm_kernels* kern, void* scratch) {
    const int64_t m = 37, n = 45, k = 300, k1 = 113;
    operand A = make_operand(m, k, LAYOUT_ROW, 0), B = make_operand(k, n, LAYOUT_COL, 1);
    float* c1 = xmalloc((size_t)(m * n) * sizeof(float));
    float* c2 = xmalloc((size_t)(m * n) * sizeof(float));
    emu_sgemm_args whole = {m, n, k, A.origin, A.rs, A.cs, B.origin, B.rs, B.cs, c1, n, 0};
    kern->sgemm(&whole, scratch);
    emu_sgemm_args first = {m, n, k1, A.origin, A.rs, A.cs, B.origin, B.rs, B.cs, c2, n, 0};
    emu_sgemm_args second = {m, n, k - k1, A.origin + k1 * A.cs, A.rs, A.cs, B.origin + k1 * B.rs, B.rs, B.cs, c2, n, 1};
    kern->sgemm(&first, scratch);
    kern->sgemm(&second, scratch);
    check(memcmp(c1, c2, (size_t)(m * n) * sizeof(float)) == 0, "%s: k=300 as 113 + 187 gives the same bits",
          kern->name);
    free(A.storage), free(B.storage), free(c1), free(c2);
}

/* k == 0 without accumulate writes +0 over anything, even NaN; with it, C stays. */
static void test_empty_depth(const emu_gemm_kernels* kern, void* scratch) {
    enum { ROWS = 3, COLS = 4, LDC = 5 };
    float c[ROWS * LDC], before[ROWS * LDC];
    for (int q = 0; q < ROWS * LDC; q++) before[q] = c[q] = q % 2 ? NAN : -1.5f;
    const float dummy = 1.0f;
    emu_sgemm_args g = {ROWS, COLS, 0, &dummy, 0, 0, &dummy, 0, 0, c, LDC, 1};
    kern->sgemm(&g, scratch);
    int ok = memcmp(c, before, sizeof c) == 0;
    g.accumulate = 0;
    kern->sgemm(&g, scratch);
    for (int q = 0; q < ROWS * LDC; q++)
        ok = ok && fbits(c[q]) == (q % LDC < COLS ? 0u : fbits(before[q]));
    check(ok, "%s: k = 0 keeps C (accumulate) or writes +0 (no accumulate), only inside C", kern->name);
}

/* Products that a float-via-double fma would round twice: c + a·b with
 * a·b = ±(1 - 2^-2t)·(half an ulp of c), t = 13..23, so the exact sum lies
 * within 2^-26..2^-46 ulp of the midpoint between two floats, on either
 * side. Rounding the sum to double first lands on the midpoint whenever
 * 2t > 29 and then ties to even: wrong for half of the cases. Every
 * implementation must give fmaf's (once-rounded) bits. */
static void test_double_rounding_traps(const emu_gemm_kernels* kern, void* scratch) {
    enum { N = 256 };
    float b[N], c[N], expect[N];
    int64_t mismatches = 0, cases = 0;
    for (int t = 13; t <= 23; t++) {
        const float a = 1.0f + ldexpf(1.0f, -t);
        for (int j = 0; j < N; j++) {
            int e;
            const float mant = 1.0f + (float)rnd_int(0, (1 << 23) - 1) * ldexpf(1.0f, -23);
            c[j] = ldexpf(mant, (int)rnd_int(-100, 100)) * (rnd_int(0, 1) ? 1.0f : -1.0f);
            frexpf(c[j], &e); /* |c| in [2^(e-1), 2^e): half an ulp is 2^(e-25) */
            b[j] = ldexpf(1.0f - ldexpf(1.0f, -t), e - 25) * (rnd_int(0, 1) ? 1.0f : -1.0f);
            expect[j] = fmaf(a, b[j], c[j]);
        }
        emu_sgemm_args g = {1, N, 1, &a, 1, 1, b, N, 1, c, N, 1};
        kern->sgemm(&g, scratch);
        for (int j = 0; j < N; j++) mismatches += fbits(c[j]) != fbits(expect[j]);
        cases += N;
    }
    check(mismatches == 0, "%s: %lld fma double-rounding traps, %lld differ from fmaf", kern->name, (long long)cases,
          (long long)mismatches);
}

/* Exact data (small integers: every partial sum is exact) gives the exact result. */
static void test_exact_integers(const emu_gemm_kernels* kern, void* scratch) {
    const int64_t m = 50, n = 70, k = 90;
    float* a = xmalloc((size_t)(m * k) * sizeof(float));
    float* b = xmalloc((size_t)(k * n) * sizeof(float));
    float* c = xmalloc((size_t)(m * n) * sizeof(float));
    for (int64_t q = 0; q < m * k; q++) a[q] = (float)rnd_int(-8, 8);
    for (int64_t q = 0; q < k * n; q++) b[q] = (float)rnd_int(-8, 8);
    emu_sgemm_args g = {m, n, k, a, k, 1, b, n, 1, c, n, 0};
    kern->sgemm(&g, scratch);
    int ok = 1;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long long exact = 0;
            for (int64_t p = 0; p < k; p++) exact += (long long)a[i * k + p] * (long long)b[p * n + j];
            ok = ok && c[i * n + j] == (float)exact;
        }
    check(ok, "%s: integer operands give the exact integer product", kern->name);
    free(a), free(b), free(c);
}

static void test_kernel(const emu_gemm_kernels* kern, void* scratch, size_t bytes) {
    test_tile_edges(kern, scratch, bytes);
    test_layouts(kern, scratch, bytes);
    test_depths(kern, scratch, bytes);
    test_floyd_shapes(kern, scratch, bytes);
    test_random(kern, scratch, bytes);
    test_k_split(kern, scratch);
    test_empty_depth(kern, scratch);
    test_exact_integers(kern, scratch);
    test_double_rounding_traps(kern, scratch);
}

int main(void) {
    const size_t bytes = emu_sgemm_scratch_bytes();
    check(bytes >= 64 && bytes < ((size_t)64 << 20), "scratch bytes %zu (any shape)", bytes);
    unsigned char* scratch = aligned_alloc(64, (bytes + 256 + 63) / 64 * 64);
    if (!scratch) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    const emu_isa saved = emu_isa_get_cap(), detected = emu_isa_detected();
    const emu_gemm_kernels* seen[EMU_ISA_MAX + 1] = {0};
    for (int level = EMU_ISA_SCALAR; level <= (int)detected; level++) {
        emu_isa_set_cap((emu_isa)level);
        const emu_gemm_kernels* kern = emu_gemm_select(emu_isa_active());
        seen[level] = kern;
        /* A level of its own up to AVX-512; avx512_bf16 runs the AVX-512 kernel. */
        const int own = level == EMU_ISA_SCALAR || level <= EMU_ISA_AVX512;
        check(kern != NULL && kern->sgemm != NULL && kern->name != NULL &&
                  (level == EMU_ISA_SCALAR || (own ? kern != seen[level - 1] : kern == seen[level - 1])),
              "isa %s selects %s", emu_isa_name((emu_isa)level), kern && kern->name ? kern->name : "(null)");
        if (kern && kern->sgemm) test_kernel(kern, scratch, bytes);
    }
    emu_isa_set_cap(saved);
#if defined(EMU_TEST_AVX512_EMULATED)
    const emu_gemm_kernels emulated = {emu_f32_gemm__avx512_emulated, "f32_gemm__avx512_12x32 (lanes emulated)"};
    test_kernel(&emulated, scratch, bytes);
#endif
    free(scratch);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
