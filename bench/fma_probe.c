/* fp32 FMA peak probe; see fma_probe.h. */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* clock_gettime under -std=c11 */
#endif

#include "fma_probe.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define FMA_PROBE_X86 1
#include <immintrin.h>
#endif

enum { PROBE_MAX_THREADS = 256 };

static double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_seconds(void)
{
    return clock_seconds(CLOCK_MONOTONIC);
}

/* Each kernel runs `iters` steps of its chains and returns a value that
 * depends on all of them (so none is dead code). Returns flops done. */
typedef double (*probe_kernel)(long iters, float seed, float *sink);

/* AVX2 has 16 ymm registers, AVX-512 32 zmm: 12 and 24 chains stay in them
 * and cover 4-cycle latency on 2 (or 3) fma pipes. */
#define CHAINS_AVX2 12
#define CHAINS_AVX512 24

#if defined(FMA_PROBE_X86)
__attribute__((target("avx2,fma"))) static double kernel_avx2(long iters, float seed, float *sink)
{
    __m256 acc[CHAINS_AVX2];
    const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(seed);
    for (int c = 0; c < CHAINS_AVX2; c++) acc[c] = _mm256_set1_ps((float)c);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS_AVX2; c++) acc[c] = _mm256_fmadd_ps(acc[c], x, y);
    }
    __m256 s = acc[0];
    for (int c = 1; c < CHAINS_AVX2; c++) s = _mm256_add_ps(s, acc[c]);
    _mm256_storeu_ps(sink, s);
    return 2.0 * 8.0 * CHAINS_AVX2 * (double)iters;
}

__attribute__((target("avx512f"))) static double kernel_avx512(long iters, float seed, float *sink)
{
    __m512 acc[CHAINS_AVX512];
    const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(seed);
    for (int c = 0; c < CHAINS_AVX512; c++) acc[c] = _mm512_set1_ps((float)c);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 24
        for (int c = 0; c < CHAINS_AVX512; c++) acc[c] = _mm512_fmadd_ps(acc[c], x, y);
    }
    __m512 s = acc[0];
    for (int c = 1; c < CHAINS_AVX512; c++) s = _mm512_add_ps(s, acc[c]);
    _mm512_storeu_ps(sink, s);
    return 2.0 * 16.0 * CHAINS_AVX512 * (double)iters;
}
#endif

static double kernel_scalar(long iters, float seed, float *sink)
{
    float acc[8];
    for (int c = 0; c < 8; c++) acc[c] = (float)c;
    for (long i = 0; i < iters; i++) {
        for (int c = 0; c < 8; c++) acc[c] = fmaf(acc[c], 0.999999f, seed);
    }
    float s = 0;
    for (int c = 0; c < 8; c++) s += acc[c];
    sink[0] = s;
    return 2.0 * 8.0 * (double)iters;
}

static probe_kernel pick_kernel(const char **name)
{
#if defined(FMA_PROBE_X86)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        *name = "avx512";
        return kernel_avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        *name = "avx2";
        return kernel_avx2;
    }
#endif
    *name = "scalar";
    return kernel_scalar;
}

const char *fma_probe_isa(void)
{
    const char *name = "scalar";
    (void)pick_kernel(&name);
    return name;
}

typedef struct {
    probe_kernel kernel;
    long iters;
    double flops;
    float sink[16];
} probe_job;

static void *probe_thread(void *arg)
{
    probe_job *job = arg;
    job->flops = job->kernel(job->iters, 1e-3f, job->sink);
    return NULL;
}

/* Seconds for `threads` threads (the caller one of them) to run iters each;
 * adds the flops to *flops. Negative when a thread cannot be started. */
static double timed_run(probe_kernel kernel, int threads, long iters, double *flops)
{
    pthread_t ids[PROBE_MAX_THREADS];
    probe_job jobs[PROBE_MAX_THREADS];
    int started = 0, ok = 1;
    const double t0 = now_seconds();
    for (int t = 1; t < threads; t++) {
        jobs[t].kernel = kernel, jobs[t].iters = iters;
        if (pthread_create(&ids[t], NULL, probe_thread, &jobs[t]) != 0) {
            ok = 0;
            break;
        }
        started = t;
    }
    jobs[0].kernel = kernel, jobs[0].iters = iters;
    probe_thread(&jobs[0]);
    for (int t = 1; t <= started; t++) pthread_join(ids[t], NULL);
    const double seconds = now_seconds() - t0;
    *flops = 0;
    for (int t = 0; t <= started; t++) *flops += jobs[t].flops;
    return ok ? seconds : -1.0;
}

double fma_probe_gflops(int threads, double seconds, int tries)
{
    if (threads < 1 || threads > PROBE_MAX_THREADS || !(seconds > 0) || tries < 1) {
        return -1.0;
    }
    const char *name;
    probe_kernel kernel = pick_kernel(&name);
    /* Calibrate the iteration count on one thread. */
    long iters = 1000;
    double flops = 0, t = 0;
    for (;;) {
        t = timed_run(kernel, 1, iters, &flops);
        if (t < 0) return -1.0;
        if (t >= 0.01 || iters > (1L << 40)) break;
        iters *= 4;
    }
    iters = (long)((double)iters * seconds / t) + 1;
    double best = 0;
    for (int r = 0; r < tries; r++) {
        t = timed_run(kernel, threads, iters, &flops);
        if (t <= 0) return -1.0;
        const double g = flops / t * 1e-9;
        best = g > best ? g : best;
    }
    return best;
}

double fma_probe_gflops_cpu(double seconds, int tries)
{
    if (!(seconds > 0) || tries < 1) {
        return -1.0;
    }
    const char *name;
    probe_kernel kernel = pick_kernel(&name);
    float sink[16];
    long iters = 1000;
    double t = 0, flops = 0;
    for (;;) {
        const double t0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        flops = kernel(iters, 1e-3f, sink);
        t = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - t0;
        if (t >= 0.01 || iters > (1L << 40)) break;
        iters *= 4;
    }
    iters = (long)((double)iters * seconds / t) + 1;
    double best = 0;
    for (int r = 0; r < tries; r++) {
        const double t0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        flops = kernel(iters, 1e-3f, sink);
        t = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - t0;
        if (t <= 0) return -1.0;
        best = flops / t * 1e-9 > best ? flops / t * 1e-9 : best;
    }
    return best;
}
