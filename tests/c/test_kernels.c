/*
 * Standalone test of the SIMD kernel layer (src/kernels): ISA plumbing,
 * fp16/bf16 conversions, SiLU, the Floyd dot product, the norm row kernels and the reduction sum
 * kernels, for every ISA level
 * this CPU supports.
 * Each check group prints one line; the last line is "N passed, M failed"
 * and the exit code is 1 if anything failed.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/convert/convert.h"
#include "kernels/ew/ew.h"
#include "kernels/floyd/floyd.h"
#include "kernels/isa.h"
#include "kernels/moe/moe.h"
#include "kernels/norm/norm.h"
#include "kernels/reduce/reduce.h"
#include "kernels/silu/silu.h"

#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#include "test_util.h"

static uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }

/* ---------- independent references (double arithmetic, no bit tricks) ---------- */

static float ref_f16_to_f32(uint16_t h) {
    const int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    if (exp == 0x1F) {
        if (man == 0) return sign ? -INFINITY : INFINITY;
        return bitsf(((uint32_t)sign << 31) | 0x7FC00000u | ((uint32_t)man << 13));
    }
    const double mag = exp ? ldexp(1024 + man, exp - 25) : ldexp(man, -24);
    return (float)(sign ? -mag : mag);
}

/* Round |f| to a multiple of 2^(max(floor(log2|f|), emin) - mbits) with rint
 * (ties to even), then encode; a result of 2^(emax+1) or more is inf. */
static uint16_t ref_round(float f, int emin, int emax, int mbits) {
    const int sign = (fbits(f) >> 31) ? 0x8000 : 0;
    const int inf = mbits == 10 ? 0x7C00 : 0x7F80;
    const double a = fabs((double)f);
    int enc;
    if (isinf(f)) {
        enc = inf;
    } else if (a == 0) {
        enc = 0;
    } else {
        int e;
        frexp(a, &e);
        const int E = e - 1 < emin ? emin : e - 1;
        const double nq = rint(ldexp(a, mbits - E));
        const int bias = (1 << (mbits == 10 ? 4 : 7)) - 1;
        if (ldexp(nq, E - mbits) >= ldexp(1.0, emax + 1)) enc = inf;
        else if (E == emin) enc = (int)nq; /* subnormal, or the carry into the first normal */
        else enc = ((E + bias) << mbits) + ((int)nq - (1 << mbits));
    }
    return (uint16_t)(sign | enc);
}

static uint16_t ref_f32_to_f16(float f) {
    if (isnan(f)) return (uint16_t)(((fbits(f) >> 16) & 0x8000) | 0x7E00 | ((fbits(f) >> 13) & 0x3FF));
    return ref_round(f, -14, 15, 10);
}

static uint16_t ref_f32_to_bf16(float f) {
    if (isnan(f)) return (uint16_t)((fbits(f) >> 16) | 0x40);
    return ref_round(f, -126, 127, 7);
}

/* ---------- test inputs ---------- */

static const uint32_t k_edge_bits[] = {
    0x00000000, 0x00000001, 0x00000002, 0x007FFFFF, 0x00800000, 0x00008000, 0x00018000,
    0x007F8000, 0x007F7FFF, 0x33000000, 0x33000001, 0x337FFFFF, 0x33800000, 0x33C00000,
    0x34000000, 0x34200000, 0x387FC000, 0x387FE000, 0x387FFFFF, 0x38800000, 0x38801000,
    0x3F800000, 0x3F801000, 0x3F803000, 0x3F801001, 0x3F800FFF, 0x3F808000, 0x3F818000,
    0x3F808001, 0x3F807FFF, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001, 0x47800000,
    0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7F801FFF, 0x7F802000,
    0x7FBFFFFF, 0x7FC00000, 0x7FC00001, 0x7FFFE000, 0x7FFFFFFF, 0x3EAAAAAB, 0x40490FDB,
};

static size_t build_f32_inputs(float** out) {
    const size_t n_edge = sizeof k_edge_bits / sizeof k_edge_bits[0];
    const size_t n_rand = (size_t)1 << 21;
    const size_t n = 2 * n_edge + n_rand;
    float* v = xmalloc(n * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n_edge; ++i) {
        v[k++] = bitsf(k_edge_bits[i]);
        v[k++] = bitsf(k_edge_bits[i] | 0x80000000u);
    }
    v[k++] = nextafterf(65520.0f, 0.0f); /* 65519.996 */
    for (size_t i = 1; i < n_rand; ++i) {
        uint32_t u = rnd32();
        switch (i & 3) {
            case 0: break; /* any pattern */
            case 1: u = (u & 0x807FFFFFu) | ((100u + (u >> 8) % 46u) << 23); break; /* f16 range */
            case 2: u = (u & 0x807FE000u) | 0x1000u | ((100u + (u >> 8) % 46u) << 23); break; /* f16 ties */
            default: u = (u & 0xFFFF0000u) | ((u & 1) ? 0x8000u : 0x7FFFu); break; /* bf16 ties */
        }
        v[k++] = bitsf(u);
    }
    *out = v;
    return k;
}

static const size_t k_cvt_lengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 1000};
#define GUARD 32
#define GUARD_BYTE 0xA5

static int guard_ok(const void* p, size_t bytes) {
    const unsigned char* c = p;
    for (size_t i = 0; i < bytes; ++i)
        if (c[i] != GUARD_BYTE) return 0;
    return 1;
}

/* ---------- ISA plumbing ---------- */

static void test_isa_api(void) {
    emu_isa v = EMU_ISA_SCALAR;
    int ok = strcmp(emu_isa_name(EMU_ISA_SCALAR), "scalar") == 0 &&
             strcmp(emu_isa_name(EMU_ISA_AVX2), "avx2") == 0 &&
             strcmp(emu_isa_name(EMU_ISA_AVX512), "avx512") == 0 &&
             strcmp(emu_isa_name(EMU_ISA_AVX512_BF16), "avx512_bf16") == 0 &&
             strcmp(emu_isa_name((emu_isa)(EMU_ISA_MAX + 1)), "unknown") == 0;
    ok = ok && emu_isa_parse("AVX512_BF16", &v) == 0 && v == EMU_ISA_AVX512_BF16;
    ok = ok && emu_isa_parse("AVX2", &v) == 0 && v == EMU_ISA_AVX2;
    ok = ok && emu_isa_parse("Scalar", &v) == 0 && v == EMU_ISA_SCALAR;
    ok = ok && emu_isa_parse("avx512", &v) == 0 && v == EMU_ISA_AVX512;
    ok = ok && emu_isa_parse("avx", &v) != 0 && emu_isa_parse("avx2x", &v) != 0 &&
         emu_isa_parse("", &v) != 0 && emu_isa_parse(NULL, &v) != 0 && v == EMU_ISA_AVX512;
    check(ok, "isa: names and parse");

    const emu_isa saved = emu_isa_get_cap(), det = emu_isa_detected();
    emu_isa_set_cap(EMU_ISA_SCALAR);
    ok = emu_isa_active() == EMU_ISA_SCALAR && emu_isa_get_cap() == EMU_ISA_SCALAR;
    emu_isa_set_cap(EMU_ISA_MAX);
    ok = ok && emu_isa_active() == det;
    emu_isa_set_cap((emu_isa)(EMU_ISA_MAX + 5)); /* clamped */
    ok = ok && emu_isa_get_cap() == EMU_ISA_MAX;
    emu_isa_set_cap(saved);
    check(ok, "isa: cap semantics (detected=%s, cap from env=%s)", emu_isa_name(det),
          emu_isa_name(saved));
}

/* ---------- conversions ---------- */

static void test_convert_scalar_helpers(const float* in, size_t n) {
    static const struct { uint32_t f; uint16_t h, b; } known[] = {
        {0x3F800000, 0x3C00, 0x3F80}, /* 1.0 */
        {0x477FF000, 0x7C00, 0x4780}, /* 65520 -> f16 inf */
        {0x477FEFFF, 0x7BFF, 0x4780}, /* 65519.99 */
        {0x477FE000, 0x7BFF, 0x4780}, /* 65504 */
        {0x33800000, 0x0001, 0x3380}, /* 2^-24 */
        {0x33000000, 0x0000, 0x3300}, /* 2^-25: tie to zero */
        {0x33000001, 0x0001, 0x3300},
        {0x33C00000, 0x0002, 0x33C0}, /* 1.5 * 2^-24: tie to even 2 */
        {0x80000000, 0x8000, 0x8000}, /* -0 */
        {0x3F801000, 0x3C00, 0x3F80}, /* 1 + 2^-11: f16 tie, down */
        {0x3F803000, 0x3C02, 0x3F80}, /* 1 + 3*2^-11: f16 tie, up */
        {0x3F808000, 0x3C04, 0x3F80}, /* 1.00390625: bf16 tie, down */
        {0x3F818000, 0x3C0C, 0x3F82}, /* 1.01171875: bf16 tie, up */
        {0x7F7FFFFF, 0x7C00, 0x7F80}, /* FLT_MAX */
        {0xFF800000, 0xFC00, 0xFF80}, /* -inf */
        {0x7FC00000, 0x7E00, 0x7FC0}, /* qNaN */
        {0xFF800001, 0xFE00, 0xFFC0}, /* sNaN, payload below f16 precision */
        {0x7FBFE000, 0x7FFF, 0x7FFF}, /* sNaN, full payload */
        {0x00000001, 0x0000, 0x0000}, /* f32 subnormal */
        {0x00018000, 0x0000, 0x0002}, /* bf16 subnormal tie, up */
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i) {
        const float f = bitsf(known[i].f);
        if (emu_f32_to_f16(f) != known[i].h || emu_f32_to_bf16(f) != known[i].b) {
            printf("  known 0x%08X: f16 0x%04X (want 0x%04X), bf16 0x%04X (want 0x%04X)\n",
                   known[i].f, emu_f32_to_f16(f), known[i].h, emu_f32_to_bf16(f), known[i].b);
            ok = 0;
        }
    }
    ok = ok && fbits(emu_f16_to_f32(0x3C00)) == 0x3F800000 && emu_f16_to_f32(0x0001) == 0x1p-24f &&
         emu_f16_to_f32(0x7BFF) == 65504.0f && fbits(emu_f16_to_f32(0x8000)) == 0x80000000 &&
         emu_f16_to_f32(0xFC00) == -INFINITY && emu_bf16_to_f32(0x3F82) == 1.015625f;
    check(ok, "convert: scalar helpers on known values");

    size_t bad = 0;
    for (uint32_t h = 0; h < 65536; ++h)
        if (fbits(emu_f16_to_f32((uint16_t)h)) != fbits(ref_f16_to_f32((uint16_t)h))) ++bad;
    check(bad == 0, "convert: scalar f16->f32 vs double reference, all 65536 (%zu bad)", bad);

    size_t bad16 = 0, bad_b = 0;
    for (size_t i = 0; i < n; ++i) {
        if (emu_f32_to_f16(in[i]) != ref_f32_to_f16(in[i]) && bad16++ < 5)
            printf("  f16 0x%08X: 0x%04X want 0x%04X\n", fbits(in[i]), emu_f32_to_f16(in[i]),
                   ref_f32_to_f16(in[i]));
        if (emu_f32_to_bf16(in[i]) != ref_f32_to_bf16(in[i]) && bad_b++ < 5)
            printf("  bf16 0x%08X: 0x%04X want 0x%04X\n", fbits(in[i]), emu_f32_to_bf16(in[i]),
                   ref_f32_to_bf16(in[i]));
    }
    check(bad16 == 0 && bad_b == 0,
          "convert: scalar f32->f16/bf16 vs double reference, %zu inputs (%zu/%zu bad)", n,
          bad16, bad_b);
}

/* Runs a narrowing kernel at length len on exact-size copies (so ASan sees
 * over-reads) and checks results against the scalar helper and the guard. */
static int run_from_f32(emu_cvt_from_f32_fn fn, uint16_t (*ref)(float), const float* in,
                        size_t len) {
    float* src = xmalloc(len * sizeof *src);
    uint16_t* dst = xmalloc((len + GUARD) * sizeof *dst);
    memcpy(src, in, len * sizeof *src);
    memset(dst, GUARD_BYTE, (len + GUARD) * sizeof *dst);
    fn(len, src, dst);
    int ok = guard_ok(dst + len, GUARD * sizeof *dst);
    for (size_t i = 0; i < len && ok; ++i)
        if (dst[i] != ref(src[i])) {
            printf("  0x%08X -> 0x%04X, scalar 0x%04X\n", fbits(src[i]), dst[i], ref(src[i]));
            ok = 0;
        }
    free(src);
    free(dst);
    return ok;
}

/* The streaming narrowings at length len into dst placed `shift` elements
 * past a 64-byte boundary, with guards on both sides: their head, lines
 * and tail must give the scalar helper's bits and touch nothing else. */
static int run_from_f32_stream(emu_cvt_from_f32_fn fn, uint16_t (*ref)(float), const float* in, size_t len,
                               size_t shift) {
    float* src = xmalloc(len * sizeof *src + 1);
    unsigned char* raw = xmalloc((len + 2 * GUARD + 64) * sizeof(uint16_t) + 64);
    uint16_t* base = (uint16_t*)(void*)(raw + (64 - (uintptr_t)raw % 64) % 64);
    uint16_t* dst = base + GUARD + shift;
    memcpy(src, in, len * sizeof *src);
    memset(base, GUARD_BYTE, (len + 2 * GUARD + shift) * sizeof *dst);
    fn(len, src, dst);
    int ok = guard_ok(base, (GUARD + shift) * sizeof *dst) && guard_ok(dst + len, GUARD * sizeof *dst);
    for (size_t i = 0; i < len && ok; ++i)
        if (dst[i] != ref(src[i])) {
            printf("  stream 0x%08X -> 0x%04X, scalar 0x%04X (shift %zu)\n", fbits(src[i]), dst[i], ref(src[i]),
                   shift);
            ok = 0;
        }
    free(src);
    free(raw);
    return ok;
}

static int run_to_f32(emu_cvt_to_f32_fn fn, float (*ref)(uint16_t), const uint16_t* in,
                      size_t len) {
    uint16_t* src = xmalloc(len * sizeof *src);
    float* dst = xmalloc((len + GUARD) * sizeof *dst);
    memcpy(src, in, len * sizeof *src);
    memset(dst, GUARD_BYTE, (len + GUARD) * sizeof *dst);
    fn(len, src, dst);
    int ok = guard_ok(dst + len, GUARD * sizeof *dst);
    for (size_t i = 0; i < len && ok; ++i)
        if (fbits(dst[i]) != fbits(ref(src[i]))) {
            printf("  0x%04X -> 0x%08X, scalar 0x%08X\n", src[i], fbits(dst[i]), fbits(ref(src[i])));
            ok = 0;
        }
    free(src);
    free(dst);
    return ok;
}

static void test_convert_isa(emu_isa isa, const float* in, size_t n) {
    const emu_convert_kernels* k = emu_convert_select(isa);
    check(strcmp(k->isa_name, emu_isa_name(isa)) == 0, "convert[%s]: selected '%s'",
          emu_isa_name(isa), k->isa_name);

    uint16_t* all16 = xmalloc(65536 * sizeof *all16);
    for (uint32_t h = 0; h < 65536; ++h) all16[h] = (uint16_t)h;
    int ok16 = run_to_f32(k->f16_to_f32, emu_f16_to_f32, all16, 65536);
    int okb = run_to_f32(k->bf16_to_f32, emu_bf16_to_f32, all16, 65536);
    for (size_t li = 0; li < sizeof k_cvt_lengths / sizeof k_cvt_lengths[0]; ++li)
        for (size_t off = 0; off < 3; ++off) { /* misaligned starts, NaN/inf region included */
            const size_t start = off * 31744 + off; /* 0, 0x7C01 (NaNs), ... */
            ok16 = ok16 && run_to_f32(k->f16_to_f32, emu_f16_to_f32, all16 + start, k_cvt_lengths[li]);
            okb = okb && run_to_f32(k->bf16_to_f32, emu_bf16_to_f32, all16 + start, k_cvt_lengths[li]);
        }
    check(ok16, "convert[%s]: f16->f32 all 65536 patterns + tails, bitwise vs scalar, guard intact",
          emu_isa_name(isa));
    check(okb, "convert[%s]: bf16->f32 all 65536 patterns + tails, bitwise vs scalar, guard intact",
          emu_isa_name(isa));
    free(all16);

    int okh = run_from_f32(k->f32_to_f16, emu_f32_to_f16, in, n);
    int okf = run_from_f32(k->f32_to_bf16, emu_f32_to_bf16, in, n);
    for (size_t li = 0; li < sizeof k_cvt_lengths / sizeof k_cvt_lengths[0]; ++li)
        for (size_t off = 0; off < 4; ++off) {
            const size_t start = off * 13; /* edge cases sit at the front */
            okh = okh && run_from_f32(k->f32_to_f16, emu_f32_to_f16, in + start, k_cvt_lengths[li]);
            okf = okf && run_from_f32(k->f32_to_bf16, emu_f32_to_bf16, in + start, k_cvt_lengths[li]);
        }
    check(okh, "convert[%s]: f32->f16 %zu edge+random inputs + tails, bitwise vs scalar, guard intact",
          emu_isa_name(isa), n);
    check(okf, "convert[%s]: f32->bf16 %zu edge+random inputs + tails, bitwise vs scalar, guard intact",
          emu_isa_name(isa), n);

    if (k->f32_to_f16_stream == NULL || k->f32_to_bf16_stream == NULL) {
        check(isa < EMU_ISA_AVX2 && k->f32_to_f16_stream == NULL && k->f32_to_bf16_stream == NULL,
              "convert[%s]: streaming narrowings exist on the x86 SIMD levels only", emu_isa_name(isa));
        return;
    }
    int oks = 1;
    for (size_t shift = 0; shift < 33 && oks; ++shift) { /* every head length, then aligned */
        oks = run_from_f32_stream(k->f32_to_f16_stream, emu_f32_to_f16, in, n, shift) &&
              run_from_f32_stream(k->f32_to_bf16_stream, emu_f32_to_bf16, in, n, shift);
        for (size_t li = 0; li < sizeof k_cvt_lengths / sizeof k_cvt_lengths[0] && oks; ++li)
            oks = run_from_f32_stream(k->f32_to_f16_stream, emu_f32_to_f16, in + 13, k_cvt_lengths[li], shift) &&
                  run_from_f32_stream(k->f32_to_bf16_stream, emu_f32_to_bf16, in + 13, k_cvt_lengths[li], shift);
    }
    check(oks, "convert[%s]: streaming f32->f16/bf16 at 33 alignments + tails, bitwise vs scalar, guards intact",
          emu_isa_name(isa));
}

/* ---------- SiLU ---------- */

static const size_t k_silu_lengths[] = {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000, 4097};
#define SILU_MAX_LEN 4097

/* Stable long double reference. scale = sum of the magnitudes of the terms of
 * dy*s*(1 + x*(1-s)): the size of the rounding errors any float evaluation makes. */
static void ref_silu(float xf, float dyf, long double* y, long double* dx, long double* scale) {
    const long double x = xf, dy = dyf, e = expl(-fabsl(x));
    const long double s = x >= 0 ? 1 / (1 + e) : e / (1 + e);
    const long double oms = x >= 0 ? e / (1 + e) : 1 / (1 + e);
    *y = x * s;
    *dx = dy * s * (1 + x * oms);
    *scale = fabsl(dy * s) * (1 + fabsl(x * oms));
}

static int same_float(float a, float b) { return (isnan(a) && isnan(b)) || fbits(a) == fbits(b); }

typedef struct {
    double fwd, grad, grad_away, grad_scaled;
} silu_err;

/* The streaming form of a gradient kernel must write the plain form's bytes
 * (`want`) and nothing else, wherever dx starts: at every element offset
 * from a 32-byte boundary (the aligned head), and, for the SIMD levels, off
 * the element's own alignment, where it cannot align at all (the scalar
 * level would store misaligned elements, which C does not allow). */
typedef void (*grad_call_fn)(const void* kernels, size_t len, const void* dy, const void* x, void* dx);

static int streaming_grad_matches(grad_call_fn call, const void* kernels, const char* name, const void* dy,
                                  const void* x, size_t len, size_t item, const void* want) {
    const size_t bytes = len * item;
    unsigned char* buffer = xmalloc(bytes + 64 + 2 * GUARD);
    unsigned char* base = buffer + (32 - (uintptr_t)buffer % 32) % 32 + GUARD;
    const int misaligned_too = strstr(name, "scalar") == NULL;
    int ok = 1;
    for (size_t shift = 0; shift <= 32; ++shift) {
        if (shift % item != 0 && !(shift == 1 && misaligned_too)) continue;
        unsigned char* dx = base + shift;
        memset(dx - GUARD, GUARD_BYTE, bytes + 2 * GUARD);
        call(kernels, len, dy, x, dx);
        ok &= guard_ok(dx - GUARD, GUARD) && guard_ok(dx + bytes, GUARD) && memcmp(dx, want, bytes) == 0;
    }
    free(buffer);
    return ok;
}

static void f32_grad_streaming(const void* kernels, size_t len, const void* dy, const void* x, void* dx) {
    ((const emu_silu_kernels*)kernels)->silu_grad_streaming(len, dy, x, dx);
}

static void half_grad_streaming(const void* kernels, size_t len, const void* dy, const void* x, void* dx) {
    ((const emu_silu_half_kernels*)kernels)->silu_grad_streaming(len, dy, x, dx);
}

/* Runs both kernels at length len on exact-size copies; returns 0 on guard damage. */
static int run_silu(const emu_silu_kernels* k, const float* x, const float* dy, size_t len,
                    float* y_out, float* dx_out) {
    float* xs = xmalloc(len * sizeof *xs);
    float* ds = xmalloc(len * sizeof *ds);
    float* y = xmalloc((len + GUARD) * sizeof *y);
    float* dx = xmalloc((len + GUARD) * sizeof *dx);
    memcpy(xs, x, len * sizeof *xs);
    memcpy(ds, dy, len * sizeof *ds);
    memset(y, GUARD_BYTE, (len + GUARD) * sizeof *y);
    memset(dx, GUARD_BYTE, (len + GUARD) * sizeof *dx);
    k->silu(len, xs, y);
    k->silu_grad(len, ds, xs, dx);
    int ok = guard_ok(y + len, GUARD * sizeof *y) && guard_ok(dx + len, GUARD * sizeof *dx);
    memcpy(y_out, y, len * sizeof *y);
    memcpy(dx_out, dx, len * sizeof *dx);
    ok &= streaming_grad_matches(f32_grad_streaming, k, k->silu_grad_streaming_name, ds, xs, len, sizeof *dx, dx);
    free(xs);
    free(ds);
    free(y);
    free(dx);
    return ok;
}

static void test_silu_isa(emu_isa isa) {
    const emu_silu_kernels* k = emu_silu_select(isa);
    const emu_silu_kernels* ks = emu_silu_select(EMU_ISA_SCALAR);
    check(strstr(k->silu_name, emu_isa_name(isa)) && strstr(k->silu_grad_name, emu_isa_name(isa)),
          "silu[%s]: selected %s, %s", emu_isa_name(isa), k->silu_name, k->silu_grad_name);

    float *x = xmalloc(SILU_MAX_LEN * sizeof *x), *dy = xmalloc(SILU_MAX_LEN * sizeof *dy);
    float *y = xmalloc(SILU_MAX_LEN * sizeof *y), *dx = xmalloc(SILU_MAX_LEN * sizeof *dx);
    float *ys = xmalloc(SILU_MAX_LEN * sizeof *ys), *dxs = xmalloc(SILU_MAX_LEN * sizeof *dxs);
    silu_err err = {0, 0, 0, 0};
    int guards = 1, bitwise = 1;
    size_t samples = 0;
    for (size_t li = 0; li < sizeof k_silu_lengths / sizeof k_silu_lengths[0]; ++li) {
        const size_t len = k_silu_lengths[li];
        for (size_t i = 0; i < len; ++i) {
            x[i] = rnd_uniform(-20.0f, 20.0f);
            dy[i] = rnd_uniform(-2.0f, 2.0f);
        }
        guards &= run_silu(k, x, dy, len, y, dx);
        guards &= run_silu(ks, x, dy, len, ys, dxs);
        for (size_t i = 0; i < len; ++i) {
            long double gy, gdx, scale;
            ref_silu(x[i], dy[i], &gy, &gdx, &scale);
            const double ey = (double)(fabsl(y[i] - gy) / (fabsl(gy) + 1e-7L));
            const double ed = (double)(fabsl(dx[i] - gdx) / (fabsl(gdx) + 1e-7L));
            const double es = (double)(fabsl(dx[i] - gdx) / (scale + 1e-7L));
            if (ey > err.fwd) err.fwd = ey;
            if (ed > err.grad) err.grad = ed;
            if (es > err.grad_scaled) err.grad_scaled = es;
            /* away from the zero of 1 + x*(1-s) at x = -1.2785 */
            if (fabsf(x[i] + 1.2785f) > 0.05f && ed > err.grad_away) err.grad_away = ed;
            if (!same_float(y[i], ys[i]) || !same_float(dx[i], dxs[i])) {
                if (bitwise) printf("  x=%a dy=%a: y %a vs scalar %a, dx %a vs scalar %a\n", x[i],
                                    dy[i], y[i], ys[i], dx[i], dxs[i]);
                bitwise = 0;
            }
        }
        samples += len;
    }
    check(guards, "silu[%s]: lengths 0..4097, inputs and output guards intact; the streaming gradient writes the "
          "same bytes at every dx alignment", emu_isa_name(isa));
    check(bitwise, "silu[%s]: bitwise identical to scalar on %zu samples", emu_isa_name(isa), samples);
    check(err.fwd < 1e-5, "silu[%s]: forward max rel err %.3g (limit 1e-5)", emu_isa_name(isa), err.fwd);
    check(err.grad_scaled < 1e-6 && err.grad_away < 1e-5,
          "silu[%s]: grad max rel err %.3g for |x+1.2785|>0.05 (limit 1e-5), %.3g relative to term "
          "size (limit 1e-6); plain rel err incl. near the zero of the grad: %.3g (not limited)",
          emu_isa_name(isa), err.grad_away, err.grad_scaled, err.grad);

    /* Specials, repeated so they land in full vectors and in tails. */
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 88.0f, -88.0f,
                               100.0f, -100.0f, 1e-30f, -1e-30f, 87.5f, -87.5f, 1.0f};
    const size_t nsp = sizeof sp / sizeof sp[0], len = 3 * nsp + 5;
    int ok = 1;
    for (size_t i = 0; i < len; ++i) {
        x[i] = sp[i % nsp];
        dy[i] = (i & 1) ? -1.5f : 0.75f;
    }
    ok &= run_silu(k, x, dy, len, y, dx);
    for (size_t i = 0; i < len; ++i) {
        const double xd = x[i], s = 1.0 / (1.0 + exp(-xd));
        const double gy = xd * s, gdx = (double)dy[i] * s * (1.0 + xd * (1.0 - s));
        const int cls = isnan(y[i]) == isnan(gy) && isinf(y[i]) == isinf(gy) &&
                        isnan(dx[i]) == isnan(gdx) && isinf(dx[i]) == isinf(gdx);
        const int close = (isnan(gy) || isinf(gy) || fabs(y[i] - gy) <= 1e-6 * (1 + fabs(gy))) &&
                          (isnan(gdx) || isinf(gdx) || fabs(dx[i] - gdx) <= 1e-6 * (1 + fabs(gdx))) &&
                          (!isinf(gy) || y[i] == gy) && (!isinf(gdx) || dx[i] == gdx);
        if (!cls || !close) {
            printf("  x=%g dy=%g: y=%g (want %g) dx=%g (want %g)\n", xd, dy[i], y[i], gy, dx[i], gdx);
            ok = 0;
        }
    }
    check(ok, "silu[%s]: special values (+-0, +-inf, NaN, +-88, +-100, +-1e-30) match the double "
          "formula's NaN/inf class and value", emu_isa_name(isa));

    /* Deep negative x: sigmoid is subnormal, not 0, so an infinite gradient
     * stays infinite (the formula's -inf, not inf * 0 = NaN) and silu keeps
     * its tiny value. */
    static const float deep[] = {-87.5f, -88.0f, -90.0f, -95.0f, -100.0f, -103.0f};
    const size_t ndeep = sizeof deep / sizeof deep[0], deep_len = 3 * ndeep + 1;
    ok = 1;
    for (size_t i = 0; i < deep_len; ++i) {
        x[i] = deep[i % ndeep];
        dy[i] = INFINITY;
    }
    ok &= run_silu(k, x, dy, deep_len, y, dx);
    for (size_t i = 0; i < deep_len; ++i) {
        const double xd = x[i], gy = xd / (1.0 + exp(-xd));
        /* s is a subnormal (rounded to a multiple of 2^-149), and y = x*s scales its error by |x|. */
        const double tolerance = fabs(xd) * 0x1p-149 + 1e-6 * fabs(gy);
        if (!(dx[i] == -INFINITY) || !(y[i] < 0.0f) || fabs(y[i] - gy) > tolerance) {
            printf("  x=%g: y=%g (want %g) dx=%g (want -inf)\n", xd, y[i], gy, dx[i]);
            ok = 0;
        }
    }
    check(ok, "silu[%s]: x in [-103, -87.5] gives subnormal sigmoid: silu within |x| subnormal ULP, "
          "grad of an infinite dy is -inf", emu_isa_name(isa));
    free(x);
    free(dy);
    free(y);
    free(dx);
    free(ys);
    free(dxs);
}

/* The fp16/bf16 kernels, at every ISA and every length (tails included),
 * must give y = narrow(silu_f32(widen(x))) and
 * dx = narrow(widen(dy) * g(x)) with g(x) = silu_grad_f32(1, widen(x)) --
 * the fp32 algorithm's factor s * (1 + x * (1 - s)), looked up per 16-bit
 * pattern -- bit for bit (NaN for NaN), reading and writing nothing past n.
 * Expected values come from the scalar fp32 kernels, not from the tables.
 * One pass covers all 65536 patterns of x. */
static uint16_t to_half(int bf16, float f) { return bf16 ? emu_f32_to_bf16(f) : emu_f32_to_f16(f); }
static float from_half(int bf16, uint16_t h) { return bf16 ? emu_bf16_to_f32(h) : emu_f16_to_f32(h); }

enum { HALF_PATTERNS = 65536 };

static int run_silu_half(const emu_silu_half_kernels* h, const uint16_t* x, const uint16_t* dy, size_t len,
                         uint16_t* y_out, uint16_t* dx_out) {
    uint16_t* xs = xmalloc((len + 1) * sizeof *xs);
    uint16_t* ds = xmalloc((len + 1) * sizeof *ds);
    uint16_t* y = xmalloc((len + GUARD) * sizeof *y);
    uint16_t* dx = xmalloc((len + GUARD) * sizeof *dx);
    memcpy(xs, x, len * sizeof *xs);
    memcpy(ds, dy, len * sizeof *ds);
    memset(y, GUARD_BYTE, (len + GUARD) * sizeof *y);
    memset(dx, GUARD_BYTE, (len + GUARD) * sizeof *dx);
    h->silu(len, xs, y);
    h->silu_grad(len, ds, xs, dx);
    int ok = guard_ok(y + len, GUARD * sizeof *y) && guard_ok(dx + len, GUARD * sizeof *dx);
    memcpy(y_out, y, len * sizeof *y);
    memcpy(dx_out, dx, len * sizeof *dx);
    ok &= streaming_grad_matches(half_grad_streaming, h, h->silu_grad_streaming_name, ds, xs, len, sizeof *dx, dx);
    free(xs);
    free(ds);
    free(y);
    free(dx);
    return ok;
}

static void test_silu_half_isa(emu_isa isa) {
    const emu_silu_kernels* k = emu_silu_select(isa);
    const emu_silu_kernels* ks = emu_silu_select(EMU_ISA_SCALAR);
    uint16_t* x = xmalloc(HALF_PATTERNS * sizeof *x);
    uint16_t* dy = xmalloc(HALF_PATTERNS * sizeof *dy);
    uint16_t* y = xmalloc(HALF_PATTERNS * sizeof *y);
    uint16_t* dx = xmalloc(HALF_PATTERNS * sizeof *dx);
    float* xf = xmalloc(HALF_PATTERNS * sizeof *xf);
    float* ones = xmalloc(HALF_PATTERNS * sizeof *ones);
    float* yf = xmalloc(HALF_PATTERNS * sizeof *yf);
    float* gf = xmalloc(HALF_PATTERNS * sizeof *gf);
    for (int bf16 = 0; bf16 <= 1; ++bf16) {
        const emu_silu_half_kernels* h = bf16 ? &k->bf16 : &k->f16;
        const char* type = bf16 ? "bf16" : "f16";
        check(strstr(h->silu_grad_name, emu_isa_name(isa)) && strncmp(h->silu_grad_name, type, strlen(type)) == 0,
              "silu %s[%s]: selected %s", type, emu_isa_name(isa), h->silu_grad_name);
        for (size_t i = 0; i < HALF_PATTERNS; ++i) {
            x[i] = (uint16_t)(i * 40503u); /* odd multiplier: every pattern once, shuffled */
            dy[i] = i % 8 == 1 ? (uint16_t)rnd32() : to_half(bf16, rnd_uniform(-4.0f, 4.0f));
            xf[i] = from_half(bf16, x[i]);
            ones[i] = 1.0f;
        }
        ks->silu(HALF_PATTERNS, xf, yf);
        ks->silu_grad(HALF_PATTERNS, ones, xf, gf);
        int guards = run_silu_half(h, x, dy, HALF_PATTERNS, y, dx), same = 1;
        for (size_t i = 0; i < HALF_PATTERNS; ++i) {
            same &= same_float(from_half(bf16, y[i]), from_half(bf16, to_half(bf16, yf[i])));
            same &= same_float(from_half(bf16, dx[i]), from_half(bf16, to_half(bf16, from_half(bf16, dy[i]) * gf[i])));
        }
        for (size_t li = 0; li < sizeof k_silu_lengths / sizeof k_silu_lengths[0]; ++li) {
            const size_t len = k_silu_lengths[li], at = 977 * li;
            uint16_t yl[SILU_MAX_LEN], dxl[SILU_MAX_LEN];
            guards &= run_silu_half(h, x + at, dy + at, len, yl, dxl);
            same &= memcmp(yl, y + at, len * sizeof *yl) == 0 && memcmp(dxl, dx + at, len * sizeof *dxl) == 0;
        }
        check(guards, "silu %s[%s]: lengths 0..65536, output guards intact; the streaming gradient writes the same "
              "bytes at every dx alignment", type, emu_isa_name(isa));
        check(same, "silu %s[%s]: all 65536 x patterns equal the fp32 kernels' results rounded, bit for bit", type,
              emu_isa_name(isa));
    }
    free(x);
    free(dy);
    free(y);
    free(dx);
    free(xf);
    free(ones);
    free(yf);
    free(gf);
}

/* ULP error of silu over its whole normal range (all ISAs are bitwise equal,
 * checked above, so the active one stands for all). */
static void test_silu_ulp(emu_isa isa) {
    const emu_silu_kernels* k = emu_silu_select(isa);
    const size_t n = (size_t)1 << 22;
    float* x = xmalloc(n * sizeof *x);
    float* y = xmalloc(n * sizeof *y);
    for (size_t i = 0; i < n; ++i)
        x[i] = (i & 1) ? rnd_uniform(-87.0f, 88.0f)
                       : ldexpf(rnd_uniform(-1.0f, 1.0f), -(int)(rnd32() % 100)); /* near 0 */
    k->silu(n, x, y);
    double max_ulp = 0;
    float worst = 0;
    for (size_t i = 0; i < n; ++i) {
        long double gy, gdx, scale;
        ref_silu(x[i], 1.0f, &gy, &gdx, &scale);
        if (fabsl(gy) < FLT_MIN) continue;
        int e;
        frexpl(gy, &e);
        const double ulp = ldexp(1.0, e - 24);
        const double u = (double)(fabsl(y[i] - gy) / ulp);
        if (u > max_ulp) {
            max_ulp = u;
            worst = x[i];
        }
    }
    check(max_ulp <= 4.0, "silu[%s]: forward max error %.2f ULP over %zu x in [-87, 88] (worst x=%a, "
          "limit 4)", emu_isa_name(isa), max_ulp, n, worst);
    free(x);
    free(y);
}

/* The Floyd family's dot product (Dsum of the backward): bit-identical to
 * the scalar kernel in every ISA, and within the error bound of its
 * summation (16 fma chains of n/16 terms, then 4 levels of additions:
 * (n/16 + 4) * 2^-24 * sum|x*y| to first order; n/16 + 5 allowed) of the
 * float64 dot product. */
static void test_floyd_dot_isa(emu_isa isa) {
    const emu_floyd_kernels* k = emu_floyd_select(isa);
    const emu_floyd_kernels* ks = emu_floyd_select(EMU_ISA_SCALAR);
    static const size_t lengths[] = {16, 32, 64, 128, 4096};
    enum { MAX_LEN = 4096 };
    float* x = xmalloc(MAX_LEN * sizeof *x);
    float* y = xmalloc(MAX_LEN * sizeof *y);
    int same = 1, close = 1;
    double worst = 0;
    for (int round = 0; round < 50; ++round) {
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li) {
            const size_t n = lengths[li];
            for (size_t i = 0; i < n; ++i) {
                x[i] = rnd_uniform(-1.0f, 1.0f) * ldexpf(1.0f, (int)(rnd32() % 9) - 4);
                y[i] = rnd_uniform(-1.0f, 1.0f);
            }
            const float got = k->dot(n, x, y), want_bits = ks->dot(n, x, y);
            double exact = 0, magnitude = 0;
            for (size_t i = 0; i < n; ++i) {
                exact += (double)x[i] * (double)y[i];
                magnitude += fabs((double)x[i] * (double)y[i]);
            }
            const double err = fabs((double)got - exact), bound = ((double)n / 16 + 5) * ldexp(1.0, -24) * magnitude;
            same &= same_float(got, want_bits);
            close &= err <= bound;
            if (magnitude > 0 && err / magnitude > worst) worst = err / magnitude;
        }
    }
    check(same, "floyd dot[%s]: equals the scalar kernel bit for bit (lengths 16..4096)", emu_isa_name(isa));
    check(close, "floyd dot[%s]: within (n/16+5)*2^-24*sum|x*y| of the float64 dot (worst %.3g of sum|x*y|)",
          emu_isa_name(isa), worst);
    free(x);
    free(y);
}

/* MoeTokenPermute's row copy, with and without non-temporal stores: the
 * source bytes and nothing else, at every dst offset from a 64-byte
 * boundary and lengths around the 32/64/128/256-byte steps (the streaming
 * form copies a head to the boundary, whole steps, then the rest). */
static void test_moe_copy_row_isa(emu_isa isa) {
    static const size_t lengths[] = {0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4097};
    const emu_moe_kernels* k = emu_moe_select(isa);
    enum { MAX_BYTES = 4097, SHIFTS = 65 };
    unsigned char* src = xmalloc(MAX_BYTES);
    unsigned char* buffer = xmalloc(MAX_BYTES + 2 * GUARD + 2 * SHIFTS);
    for (size_t i = 0; i < MAX_BYTES; ++i) src[i] = (unsigned char)rnd32();
    unsigned char* base = buffer + (64 - (uintptr_t)buffer % 64) % 64 + GUARD;
    int ok = 1;
    for (int stream = 0; stream <= 1; ++stream) {
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li) {
            for (size_t shift = 0; shift < SHIFTS; ++shift) {
                const size_t bytes = lengths[li];
                unsigned char* dst = base + shift;
                memset(dst - GUARD, GUARD_BYTE, bytes + 2 * GUARD);
                k->copy_row(bytes, src, dst, stream != 0);
                ok &= guard_ok(dst - GUARD, GUARD) && guard_ok(dst + bytes, GUARD) && memcmp(dst, src, bytes) == 0;
            }
        }
    }
    check(ok && strcmp(k->isa_name, emu_isa_name(isa)) == 0,
          "moe copy_row[%s]: plain and streaming copies give the source bytes at every dst offset, guards intact",
          emu_isa_name(isa));
    free(src);
    free(buffer);
}

/* The norm/softmax row kernels: every kernel of level isa gives the scalar
 * kernel's bits (lanes included) on ragged lengths; the scalar lanes are
 * element i added to lane i % 16 in order, and the scalar exp is the
 * element-wise kernels' exp. The exp runs over a sweep of all float bit
 * patterns (NaN, inf, the clamps, subnormal results), the half kernels over
 * random fp16/bf16 patterns (NaN included). As elsewhere in this file, any
 * NaN equals any NaN: where two NaNs meet in an addition, which payload
 * survives is the compiler's choice (C leaves the operand order of a + b
 * free), so only the payload may differ between levels. */
static int same_floats(const float* a, const float* b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (!same_float(a[i], b[i])) return 0;
    }
    return 1;
}

/* fp16 / bf16 values: the same bits, or NaN both (the lanes of NaN or inf patterns). */
static int same_halves(const uint16_t* a, const uint16_t* b, size_t n, int bf16) {
    for (size_t i = 0; i < n; ++i) {
        const int nan_a = bf16 ? (a[i] & 0x7FFF) > 0x7F80 : (a[i] & 0x7FFF) > 0x7C00;
        const int nan_b = bf16 ? (b[i] & 0x7FFF) > 0x7F80 : (b[i] & 0x7FFF) > 0x7C00;
        if (a[i] != b[i] && !(nan_a && nan_b)) return 0;
    }
    return 1;
}

static void test_norm_isa(emu_isa isa) {
    static const size_t lengths[] = {0, 1, 15, 16, 17, 31, 33, 255, 256, 257, 1000, 4096, 4099};
    enum { MAX_LEN = 65536 };
    const emu_norm_kernels* k = emu_norm_select(isa);
    const emu_norm_kernels* ks = emu_norm_select(EMU_ISA_SCALAR);
    float* x = xmalloc(MAX_LEN * sizeof *x);
    float* g = xmalloc(MAX_LEN * sizeof *g);
    float* b = xmalloc(MAX_LEN * sizeof *b);
    float* y1 = xmalloc(MAX_LEN * sizeof *y1);
    float* y2 = xmalloc(MAX_LEN * sizeof *y2);
    uint16_t* h = xmalloc(MAX_LEN * sizeof *h);
    uint16_t* h1 = xmalloc(MAX_LEN * sizeof *h1);
    uint16_t* h2 = xmalloc(MAX_LEN * sizeof *h2);
    int lanes_ok = 1, ref_ok = 1, exp_ok = 1, ew_ok = 1, map_ok = 1, half_ok = 1;
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li) {
        const size_t n = lengths[li];
        for (size_t i = 0; i < n; ++i) {
            x[i] = rnd_uniform(-8.0f, 8.0f);
            g[i] = rnd_uniform(-2.0f, 2.0f);
            b[i] = rnd_uniform(-2.0f, 2.0f);
            h[i] = (uint16_t)rnd32();
        }
        if (n > 20) {
            x[3] = NAN;
            x[5] = -INFINITY;
            x[7] = -0.0f;
        }
        float a1[16], a2[16], ref[16];
        for (int kind = 0; kind < 4; ++kind) {
            for (int j = 0; j < 16; ++j) a1[j] = a2[j] = ref[j] = kind == 3 ? -INFINITY : 0.5f * (float)j;
            for (size_t i = 0; i < n; ++i) {
                const float v = x[i];
                float* r = &ref[i % 16];
                switch (kind) {
                    case 0: *r += v; break;
                    case 1: *r += v * v; break;
                    case 2: *r += (v - 0.25f) * (v - 0.25f); break;
                    default: *r = v > *r ? v : *r; break;
                }
            }
            const emu_norm_kernels* both[2] = {ks, k};
            float* accs[2] = {a1, a2};
            for (int w = 0; w < 2; ++w) {
                switch (kind) {
                    case 0: both[w]->lanes_add(accs[w], x, n); break;
                    case 1: both[w]->lanes_add_sq(accs[w], x, n); break;
                    case 2: both[w]->lanes_add_dev_sq(accs[w], x, n, 0.25f); break;
                    default: both[w]->lanes_max(accs[w], x, n); break;
                }
            }
            lanes_ok &= same_floats(a1, a2, 16);
            ref_ok &= same_floats(a1, ref, 16);
        }
        for (int j = 0; j < 16; ++j) a1[j] = a2[j] = 0.0f;
        ks->exp_lanes_add(a1, x, y1, n, 1.5f);
        memcpy(y2, x, n * sizeof *y2);
        k->exp_lanes_add(a2, y2, y2, n, 1.5f); /* in place */
        exp_ok &= same_floats(a1, a2, 16) && same_floats(y1, y2, n);
        ks->div(x, y1, n, 3.0f);
        k->div(x, y2, n, 3.0f);
        map_ok &= same_floats(y1, y2, n);
        ks->scale_mul(x, y1, n, 0.7f, g);
        k->scale_mul(x, y2, n, 0.7f, g);
        map_ok &= same_floats(y1, y2, n);
        memcpy(y1, x, n * sizeof *y1);
        memcpy(y2, x, n * sizeof *y2);
        ks->scale(y1, n, 0.7f);
        k->scale(y2, n, 0.7f);
        map_ok &= same_floats(y1, y2, n);
        for (int wb = 0; wb < 4; ++wb) {
            const float* wp = wb & 1 ? g : NULL;
            const float* bp = wb & 2 ? b : NULL;
            ks->affine(x, y1, n, 0.3f, 1.7f, wp, bp);
            k->affine(x, y2, n, 0.3f, 1.7f, wp, bp);
            map_ok &= same_floats(y1, y2, n);
            for (int bf16 = 0; bf16 <= 1; ++bf16) {
                ks->affine_narrow(x, h1, n, 0.3f, 1.7f, wp, bp, bf16);
                k->affine_narrow(x, h2, n, 0.3f, 1.7f, wp, bp, bf16);
                half_ok &= same_halves(h1, h2, n, bf16);
            }
        }
        for (int bf16 = 0; bf16 <= 1; ++bf16) {
            for (int j = 0; j < 16; ++j) a1[j] = a2[j] = -INFINITY;
            ks->load_max(a1, h, y1, n, bf16);
            k->load_max(a2, h, y2, n, bf16);
            half_ok &= same_floats(a1, a2, 16) && same_floats(y1, y2, n);
            for (int j = 0; j < 16; ++j) a1[j] = a2[j] = 0.0f;
            ks->load_add(a1, h, y1, n, bf16);
            k->load_add(a2, h, y2, n, bf16);
            half_ok &= same_floats(a1, a2, 16) && same_floats(y1, y2, n);
            ks->div_narrow(x, h1, n, 3.0f, bf16);
            k->div_narrow(x, h2, n, 3.0f, bf16);
            half_ok &= same_halves(h1, h2, n, bf16);
        }
    }
    /* exp over bit patterns spread over all 2^32 (and 0x7F800000 + 1 for a NaN). */
    for (size_t i = 0; i < MAX_LEN; ++i) x[i] = bitsf((uint32_t)(i * 65537u + 1u));
    float a1[16] = {0}, a2[16] = {0};
    ks->exp_lanes_add(a1, x, y1, MAX_LEN - 5, 0.0f);
    k->exp_lanes_add(a2, x, y2, MAX_LEN - 5, 0.0f);
    exp_ok &= same_floats(a1, a2, 16) && same_floats(y1, y2, (MAX_LEN - 5));
    emu_ew_params params;
    memset(&params, 0, sizeof params);
    const float* in[1] = {x};
    emu_ew_select(EMU_ISA_SCALAR)->f32[EMU_EWK_exp](MAX_LEN - 5, in, y2, &params);
    ew_ok &= same_floats(y1, y2, (MAX_LEN - 5));
    check(lanes_ok && exp_ok && map_ok && half_ok && strcmp(k->isa_name, emu_isa_name(isa)) == 0,
          "norm[%s]: lanes (sum, squares, deviations, max), exp with sum, div, scale, affine and the fp16/bf16 "
          "fused kernels equal the scalar kernels bit for bit (any NaN equals any NaN)", emu_isa_name(isa));
    if (isa == EMU_ISA_SCALAR) {
        check(ref_ok, "norm[scalar]: lane j holds the elements i %% 16 == j in order (sum, squares, deviations, max)");
        check(ew_ok, "norm[scalar]: the exp is the element-wise kernels' exp over a sweep of all bit patterns");
    }
    free(x);
    free(g);
    free(b);
    free(y1);
    free(y2);
    free(h);
    free(h1);
    free(h2);
}

/* The reduction sum kernels: the scalar kernels add element i (widened
 * by the portable converters) to lane i % 32 in order, and element j to
 * acc[j]; every level gives the scalar kernels' bits on ragged lengths, for
 * fp32 values with NaN, inf and -0 and for random fp16 / bf16 patterns
 * (NaN, inf and subnormals included). Any NaN equals any NaN (see above). */
static void test_reduce_isa(emu_isa isa) {
    static const size_t lengths[] = {0,  1,  7,   8,   9,   15,   16,   17,   31,   32,
                                     33, 63, 65, 255, 256, 257, 1000, 4095, 4096, 4099};
    enum { MAX_LEN = 4099, L = EMU_REDUCE_LANES };
    const emu_reduce_kernels* k = emu_reduce_select(isa);
    const emu_reduce_kernels* ks = emu_reduce_select(EMU_ISA_SCALAR);
    float* x = xmalloc(MAX_LEN * sizeof *x);
    uint16_t* h = xmalloc(MAX_LEN * sizeof *h);
    float* w = xmalloc(MAX_LEN * sizeof *w); /* h widened */
    float* c1 = xmalloc(MAX_LEN * sizeof *c1);
    float* c2 = xmalloc(MAX_LEN * sizeof *c2);
    float* cref = xmalloc(MAX_LEN * sizeof *cref);
    int same_ok = 1, ref_ok = 1;
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li) {
        const size_t n = lengths[li];
        for (size_t i = 0; i < n; ++i) {
            x[i] = rnd_uniform(-8.0f, 8.0f) * (float)(1u << (rnd64() % 12));
            h[i] = (uint16_t)rnd32();
        }
        if (n > 20) {
            x[3] = NAN;
            x[5] = -INFINITY;
            x[7] = -0.0f;
        }
        for (int type = 0; type < 3; ++type) {
            for (size_t i = 0; i < n; ++i) {
                w[i] = type == 0 ? x[i] : type == 1 ? emu_f16_to_f32(h[i]) : emu_bf16_to_f32(h[i]);
            }
            float a1[L], a2[L], ref[L];
            for (int j = 0; j < L; ++j) a1[j] = a2[j] = ref[j] = 0.25f * (float)j;
            for (size_t i = 0; i < n; ++i) ref[i % L] += w[i];
            for (size_t j = 0; j < n; ++j) {
                c1[j] = c2[j] = (float)j;
                cref[j] = (float)j + w[j];
            }
            const emu_reduce_kernels* both[2] = {ks, k};
            float* accs[2] = {a1, a2};
            float* cols[2] = {c1, c2};
            for (int v = 0; v < 2; ++v) {
                switch (type) {
                    case 0:
                        both[v]->lanes_add_f32(accs[v], x, n);
                        both[v]->add_f32(cols[v], x, n);
                        break;
                    case 1:
                        both[v]->lanes_add_f16(accs[v], h, n);
                        both[v]->add_f16(cols[v], h, n);
                        break;
                    default:
                        both[v]->lanes_add_bf16(accs[v], h, n);
                        both[v]->add_bf16(cols[v], h, n);
                        break;
                }
            }
            same_ok &= same_floats(a1, a2, L) && same_floats(c1, c2, n);
            ref_ok &= same_floats(a1, ref, L) && same_floats(c1, cref, n);
        }
    }
    check(same_ok && strcmp(k->isa_name, emu_isa_name(isa)) == 0,
          "reduce[%s]: the lane and element sums of fp32, fp16 and bf16 equal the scalar kernels bit for bit "
          "(any NaN equals any NaN)", emu_isa_name(isa));
    if (isa == EMU_ISA_SCALAR) {
        check(ref_ok, "reduce[scalar]: lane j holds the widened elements i %% 32 == j in order; acc[j] += x[j]");
    }
    free(x);
    free(h);
    free(w);
    free(c1);
    free(c2);
    free(cref);
}

int main(void) {
    test_isa_api();
    float* in;
    const size_t n = build_f32_inputs(&in);
    test_convert_scalar_helpers(in, n);
    /* The families tested here have no kernels of their own above AVX-512:
     * there, they select their AVX-512 ones. */
    const emu_isa det = emu_isa_detected() > EMU_ISA_AVX512 ? EMU_ISA_AVX512 : emu_isa_detected();
    if (emu_isa_detected() > EMU_ISA_AVX512) {
        const emu_isa top = emu_isa_detected();
        check(emu_convert_select(top) == emu_convert_select(EMU_ISA_AVX512) &&
                  emu_silu_select(top) == emu_silu_select(EMU_ISA_AVX512) &&
                  emu_moe_select(top) == emu_moe_select(EMU_ISA_AVX512) &&
                  emu_floyd_select(top) == emu_floyd_select(EMU_ISA_AVX512) &&
                  emu_norm_select(top) == emu_norm_select(EMU_ISA_AVX512) &&
                  emu_reduce_select(top) == emu_reduce_select(EMU_ISA_AVX512),
              "%s selects the AVX-512 kernels of convert, silu, moe, floyd, norm and reduce", emu_isa_name(top));
    }
    for (int isa = EMU_ISA_SCALAR; isa <= (int)det; ++isa) test_convert_isa((emu_isa)isa, in, n);
    free(in);
    for (int isa = EMU_ISA_SCALAR; isa <= (int)det; ++isa) test_silu_isa((emu_isa)isa);
    for (int isa = EMU_ISA_SCALAR; isa <= (int)det; ++isa) test_silu_half_isa((emu_isa)isa);
    test_silu_ulp(det);
    for (int isa = EMU_ISA_SCALAR; isa <= (int)det; ++isa) test_floyd_dot_isa((emu_isa)isa);
    for (int isa = EMU_ISA_SCALAR; isa <= (int)det; ++isa) test_moe_copy_row_isa((emu_isa)isa);
    for (int isa = EMU_ISA_SCALAR; isa <= (int)det; ++isa) test_norm_isa((emu_isa)isa);
    for (int isa = EMU_ISA_SCALAR; isa <= (int)det; ++isa) test_reduce_isa((emu_isa)isa);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
