/* Shared by the C kernel tests: PASS/FAIL reporting, a seeded splitmix64
 * generator, float bit access and a checked malloc. Each test program
 * defines TEST_RNG_SEED before including this header. Header-only
 * (static functions), so every test stays one translation unit. */
#ifndef ACLNN_EMU_TESTS_C_TEST_UTIL_H
#define ACLNN_EMU_TESTS_C_TEST_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_RNG_SEED
#error "define TEST_RNG_SEED before including test_util.h"
#endif

static int g_passed, g_failed;

static void check(int ok, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("[%s] ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (ok) ++g_passed;
    else ++g_failed;
    fflush(stdout);
}

static uint64_t g_rng = TEST_RNG_SEED;
static uint64_t rnd64(void) { /* splitmix64 */
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline float rnd_uniform(float lo, float hi) {
    return lo + (hi - lo) * (float)((double)(rnd64() >> 40) / (double)(1ull << 24));
}

static inline uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void* xmalloc(size_t bytes) {
    void* p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

#endif
