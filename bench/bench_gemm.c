/* Benchmark of the fp32 matrix-product kernels (src/kernels/gemm) against
 * the machine's fp32 FMA peak measured in the same run (fma_probe).
 *
 * For each shape it reports GFLOP/s (2·m·n·k per product) with one thread,
 * and with T threads each running its own independent products (as the
 * operators use the kernel: one product per thread at a time), each as a
 * percentage of the FMA peak for that many threads, probed right before.
 * Medians over the repetitions, and the best one. Every shape is checked
 * first: sampled elements must equal an fmaf chain bit for bit (the
 * determinism contract), else the exit status is 1.
 *
 *   bench_gemm [--threads T] [--reps R] [--min-ms MS] [--isa scalar|avx2|avx512]
 *              [--quiet-wait S] [--shapes MxNxK[:nn|nt|tn],...] [--peer LIBBLAS.so]
 *
 * --peer loads a CBLAS library (cblas_sgemm, or numpy's bundled OpenBLAS
 * with its scipy_cblas_sgemm64_ names) and times it on the same operands in
 * the same process, one BLAS thread per product, as a second row "peer".
 *
 * The last column is the CPU (in cores) that other processes used, or the
 * hypervisor stole, while the case ran: figures taken with it well above 0
 * are not the kernel's.
 *
 * Layouts: nn = A and B row-major; nt = B given as its transpose, row-major
 * (S = Q·Kᵀ with K stored [n][k]); tn = A given as its transpose (dV = Pᵀ·dO).
 * Built only inside the aclnn_emu tree: the kernels are internal symbols.
 * Speed is reported, never asserted; on a shared machine compare the
 * percentages, not the absolute numbers.
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fma_probe.h"
#include "kernels/gemm/gemm.h"
#include "kernels/isa.h"

enum { MAX_SHAPES = 32, MAX_THREADS = 64, MAX_REPS = 101, CHECK_SAMPLES = 256 };

typedef struct {
    int64_t m, n, k;
    char layout[3]; /* "nn", "nt", "tn" */
} shape;

typedef struct {
    int threads, reps;
    double min_ms, quiet_wait;
    const char* isa;
    const char* peer;
    shape shapes[MAX_SHAPES];
    int shape_count;
} options;

static const char* const DEFAULT_SHAPES =
    "16x64x32:nt,64x256x32:nt,128x128x64:nt,256x256x32:nt,256x256x64:nt,256x256x128:nt,256x256x128,"
    "256x128x256:tn,128x256x256,256x256x256,64x64x256:tn,512x512x512";

static double clock_seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_seconds(void) { return clock_seconds(CLOCK_MONOTONIC); }

static int compare_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void* xalloc(size_t bytes) {
    void* p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "bench_gemm: out of memory\n");
        exit(2);
    }
    return p;
}

/* ------------------------------------------------------------------ machine load */

/* CPU time of everything else on the machine: /proc/stat's busy time minus
 * this process's own, plus the hypervisor's steal time (USER_HZ granularity,
 * so only meaningful over windows of 100 ms or more). */
typedef struct {
    double busy, steal, self, wall;
    int valid;
} load_sample;

static load_sample load_now(void) {
    load_sample s = {0, 0, 0, now_seconds(), 0};
    FILE* f = fopen("/proc/stat", "r");
    if (f) {
        unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
        if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait, &irq, &softirq,
                   &steal) == 8) {
            const double hz = (double)sysconf(_SC_CLK_TCK);
            s.busy = (double)(user + nice + sys + irq + softirq) / hz;
            s.steal = (double)steal / hz;
            s.valid = 1;
        }
        fclose(f);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        s.self = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
                 1e-6 * (double)ru.ru_stime.tv_usec;
    return s;
}

/* Cores used by other processes, or stolen, between two samples (-1: unknown). */
static double others_between(load_sample a, load_sample b) {
    const double wall = b.wall - a.wall;
    if (!a.valid || !b.valid || wall <= 0) return -1.0;
    const double o = ((b.busy - a.busy) - (b.self - a.self) + (b.steal - a.steal)) / wall;
    return o > 0 ? o : 0;
}

/* Waits (up to max_seconds) for a 250 ms window in which other processes use
 * under a quarter of a core. */
static void wait_for_quiet(double max_seconds) {
    const double start = now_seconds();
    while (max_seconds > 0) {
        const load_sample a = load_now();
        struct timespec nap = {0, 250000000L};
        nanosleep(&nap, NULL);
        const double others = others_between(a, load_now());
        if ((others >= 0 && others < 0.25) || now_seconds() - start >= max_seconds) break;
    }
}

/* ------------------------------------------------------------------ a CBLAS peer */

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };
typedef void (*cblas_sgemm_lp64)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                                 float*, int);
typedef void (*cblas_sgemm_ilp64)(int, int, int, int64_t, int64_t, int64_t, float, const float*, int64_t,
                                  const float*, int64_t, float, float*, int64_t);

typedef struct {
    cblas_sgemm_lp64 sgemm32;
    cblas_sgemm_ilp64 sgemm64;
} blas_peer;

static int blas_peer_open(const char* path, blas_peer* peer) {
    memset(peer, 0, sizeof *peer);
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "bench_gemm: cannot load %s: %s\n", path, dlerror());
        return -1;
    }
    /* One BLAS thread per call: the threads of the parallel pass are ours. */
    void (*set_threads32)(int) = (void (*)(int))dlsym(lib, "openblas_set_num_threads");
    void (*set_threads64)(int64_t) = (void (*)(int64_t))dlsym(lib, "scipy_openblas_set_num_threads64_");
    if (set_threads32) set_threads32(1);
    if (set_threads64) set_threads64(1);
    peer->sgemm32 = (cblas_sgemm_lp64)dlsym(lib, "cblas_sgemm");
    peer->sgemm64 = (cblas_sgemm_ilp64)dlsym(lib, "scipy_cblas_sgemm64_");
    if (!peer->sgemm32 && !peer->sgemm64) {
        fprintf(stderr, "bench_gemm: %s has neither cblas_sgemm nor scipy_cblas_sgemm64_\n", path);
        return -1;
    }
    return 0; /* the library stays loaded until exit */
}

/* C = A·B through the peer; A and B are row-major or given transposed. */
static void blas_peer_run(const blas_peer* peer, const emu_sgemm_args* g) {
    const int a_t = g->a_col_stride != 1, b_t = g->b_col_stride != 1;
    const int64_t lda = a_t ? g->a_col_stride : g->a_row_stride, ldb = b_t ? g->b_col_stride : g->b_row_stride;
    if (peer->sgemm64)
        peer->sgemm64(CBLAS_ROW_MAJOR, a_t ? CBLAS_TRANS : CBLAS_NO_TRANS, b_t ? CBLAS_TRANS : CBLAS_NO_TRANS, g->m,
                      g->n, g->k, 1.0f, g->a, lda, g->b, ldb, 0.0f, g->c, g->c_row_stride);
    else
        peer->sgemm32(CBLAS_ROW_MAJOR, a_t ? CBLAS_TRANS : CBLAS_NO_TRANS, b_t ? CBLAS_TRANS : CBLAS_NO_TRANS,
                      (int)g->m, (int)g->n, (int)g->k, 1.0f, g->a, (int)lda, g->b, (int)ldb, 0.0f, g->c,
                      (int)g->c_row_stride);
}

/* Largest |peer - ours| over C, relative to the largest |ours|, after one
 * product of each on w's operands. */
static double blas_peer_difference(const blas_peer* peer, const emu_sgemm_args* g, void* scratch,
                                   const emu_gemm_kernels* kern) {
    const size_t count = (size_t)(g->m * g->n);
    float* ours = malloc(count * sizeof(float));
    if (!ours) return INFINITY;
    kern->sgemm(g, scratch);
    memcpy(ours, g->c, count * sizeof(float));
    blas_peer_run(peer, g);
    double diff = 0, size = 0;
    for (size_t q = 0; q < count; q++) {
        diff = fmax(diff, fabs((double)g->c[q] - (double)ours[q]));
        size = fmax(size, fabs((double)ours[q]));
    }
    free(ours);
    return size > 0 ? diff / size : diff;
}

/* ------------------------------------------------------------------ one thread's products */

typedef struct {
    const emu_gemm_kernels* kern;
    const blas_peer* peer; /* non-NULL: time the peer instead */
    emu_sgemm_args args;
    float *a, *b, *c;
    void* scratch;
    long count; /* products per timed sample */
} worker;

static void worker_init(worker* w, const emu_gemm_kernels* kern, const shape* s, uint32_t seed) {
    const int64_t m = s->m, n = s->n, k = s->k;
    w->kern = kern;
    w->peer = NULL;
    w->a = xalloc((size_t)(m * k) * sizeof(float));
    w->b = xalloc((size_t)(k * n) * sizeof(float));
    w->c = xalloc((size_t)(m * n) * sizeof(float));
    w->scratch = xalloc(emu_sgemm_scratch_bytes());
    uint32_t x = seed | 1u;
    for (int64_t q = 0; q < m * k; q++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, w->a[q] = (float)(x >> 8) / 16777216.0f - 0.5f;
    for (int64_t q = 0; q < k * n; q++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, w->b[q] = (float)(x >> 8) / 16777216.0f - 0.5f;
    const int a_t = s->layout[0] == 't', b_t = s->layout[1] == 't';
    emu_sgemm_args g = {m,   n,   k, w->a, a_t ? 1 : k, a_t ? m : 1, w->b, b_t ? 1 : n, b_t ? k : 1,
                        w->c, n, 0};
    w->args = g;
    w->count = 1;
}

static void worker_free(worker* w) {
    free(w->a), free(w->b), free(w->c), free(w->scratch);
}

static void* worker_run(void* arg) {
    worker* w = arg;
    if (w->peer) {
        for (long r = 0; r < w->count; r++) blas_peer_run(w->peer, &w->args);
    } else {
        for (long r = 0; r < w->count; r++) w->kern->sgemm(&w->args, w->scratch);
    }
    return NULL;
}

/* Seconds for `threads` workers to run their products at once; *cpu gets
 * the calling thread's CPU seconds over the same span. */
static double timed(worker* ws, int threads, double* cpu) {
    pthread_t ids[MAX_THREADS];
    int started = 0;
    const double c0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID), t0 = now_seconds();
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&ids[t], NULL, worker_run, &ws[t]) != 0) break;
        started = t;
    }
    worker_run(&ws[0]);
    *cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
    for (int t = 1; t <= started; t++) pthread_join(ids[t], NULL);
    if (started != threads - 1) {
        fprintf(stderr, "bench_gemm: could not start %d threads\n", threads);
        exit(2);
    }
    return now_seconds() - t0;
}

/* Sampled elements against the contract's fmaf chain; returns mismatches. */
static int check_bits(const worker* w) {
    const emu_sgemm_args* g = &w->args;
    w->kern->sgemm(g, w->scratch);
    int bad = 0;
    uint32_t x = 12345u;
    for (int s = 0; s < CHECK_SAMPLES; s++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        const int64_t i = (int64_t)(x % (uint32_t)g->m), j = (int64_t)((x >> 11) % (uint32_t)g->n);
        float acc = 0.0f;
        for (int64_t p = 0; p < g->k; p++)
            acc = fmaf(g->a[i * g->a_row_stride + p * g->a_col_stride], g->b[p * g->b_row_stride + j * g->b_col_stride], acc);
        bad += memcmp(&acc, &g->c[i * g->c_row_stride + j], sizeof acc) != 0;
    }
    return bad;
}

/* GFLOP/s samples of `threads` workers; returns the median, *best the best,
 * *cpu_median the median of the first worker's GFLOP/s over its own CPU
 * time (what it ran at while it was on a core). */
static double measure(worker* ws, int threads, const options* opt, const shape* s, double* best, double* cpu_median) {
    double samples[MAX_REPS], cpu_samples[MAX_REPS];
    const double flops = 2.0 * (double)s->m * (double)s->n * (double)s->k * (double)ws[0].count;
    *best = 0;
    for (int r = 0; r < opt->reps; r++) {
        double cpu;
        const double g = flops * threads / timed(ws, threads, &cpu) * 1e-9;
        samples[r] = g;
        cpu_samples[r] = cpu > 0 ? flops / cpu * 1e-9 : 0;
        *best = g > *best ? g : *best;
    }
    *cpu_median = median(cpu_samples, opt->reps);
    return median(samples, opt->reps);
}

/* ------------------------------------------------------------------ options */

static void usage(FILE* out) {
    fprintf(out,
            "usage: bench_gemm [options]\n"
            "  --threads T    threads for the parallel pass, each with its own products (default 2)\n"
            "  --reps R       timed samples per case (default 9)\n"
            "  --min-ms MS    minimum length of one sample (default 30)\n"
            "  --isa NAME     cap the SIMD level: scalar, avx2 or avx512\n"
            "  --quiet-wait S before each case, wait up to S seconds for other processes to use < 0.25 core\n"
            "                 (default 10; 0 disables)\n"
            "  --shapes LIST  MxNxK[:nn|nt|tn],... (default %s)\n"
            "  --peer LIB     also time a CBLAS library's sgemm (e.g. numpy.libs/libscipy_openblas64_*.so)\n",
            DEFAULT_SHAPES);
}

static int parse_shape(const char* text, shape* s) {
    long long m, n, k;
    char layout[3] = "nn";
    int used = 0;
    if (sscanf(text, "%lldx%lldx%lld%n", &m, &n, &k, &used) != 3 || m < 1 || n < 1 || k < 1) return -1;
    if (text[used] == ':') {
        if (strlen(text + used + 1) != 2) return -1;
        memcpy(layout, text + used + 1, 2);
        if ((layout[0] != 'n' && layout[0] != 't') || (layout[1] != 'n' && layout[1] != 't')) return -1;
    } else if (text[used] != '\0') {
        return -1;
    }
    s->m = m, s->n = n, s->k = k;
    memcpy(s->layout, layout, 3);
    return 0;
}

static void parse_options(int argc, char** argv, options* opt) {
    memset(opt, 0, sizeof *opt);
    opt->threads = 2, opt->reps = 9, opt->min_ms = 30, opt->quiet_wait = 10;
    const char* shapes = DEFAULT_SHAPES;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (i + 1 >= argc) {
            usage(stderr);
            exit(2);
        }
        const char* v = argv[++i];
        if (!strcmp(a, "--threads")) opt->threads = atoi(v);
        else if (!strcmp(a, "--reps")) opt->reps = atoi(v);
        else if (!strcmp(a, "--min-ms")) opt->min_ms = atof(v);
        else if (!strcmp(a, "--isa")) opt->isa = v;
        else if (!strcmp(a, "--quiet-wait")) opt->quiet_wait = atof(v);
        else if (!strcmp(a, "--peer")) opt->peer = v;
        else if (!strcmp(a, "--shapes")) shapes = v;
        else {
            usage(stderr);
            exit(2);
        }
    }
    if (opt->threads < 1 || opt->threads > MAX_THREADS || opt->reps < 1 || opt->reps > MAX_REPS || !(opt->min_ms > 0)) {
        fprintf(stderr, "bench_gemm: need 1 <= threads <= %d, 1 <= reps <= %d, min-ms > 0\n", MAX_THREADS, MAX_REPS);
        exit(2);
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", shapes);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (opt->shape_count == MAX_SHAPES || parse_shape(tok, &opt->shapes[opt->shape_count]) != 0) {
            fprintf(stderr, "bench_gemm: bad shape '%s'\n", tok);
            exit(2);
        }
        opt->shape_count++;
    }
}

/* ------------------------------------------------------------------ main */

int main(int argc, char** argv) {
    options opt;
    parse_options(argc, argv, &opt);
    if (opt.isa) {
        emu_isa cap;
        if (emu_isa_parse(opt.isa, &cap) != 0) {
            fprintf(stderr, "bench_gemm: unknown isa '%s'\n", opt.isa);
            return 2;
        }
        emu_isa_set_cap(cap);
    }
    const emu_gemm_kernels* kern = emu_gemm_select(emu_isa_active());
    const int T = opt.threads;
    blas_peer peer;
    if (opt.peer && blas_peer_open(opt.peer, &peer) != 0) return 2;
    printf("kernel %s, fma probe %s, %d threads in the parallel pass, %d samples of >= %.0f ms per case\n",
           kern->name, fma_probe_isa(), T, opt.reps, opt.min_ms);
    printf("GFLOP/s: median (best) over the wall clock, %% of the fp32 FMA peak probed just before the case;\n"
           "cpu: the 1-thread median over the thread's own CPU time, %% of the probe timed the same way\n");
    char label[16];
    snprintf(label, sizeof label, "%dT", T);
    printf("%-16s %-3s | %7s %7s %6s %5s | %7s %6s %5s | %7s %7s %6s %5s | %6s\n", "m x n x k", "lay", "1T", "best",
           "peak", "%", "1T cpu", "peak", "%", label, "best", "peak", "%", "others");
    int failures = 0;
    for (int si = 0; si < opt.shape_count; si++) {
        const shape* s = &opt.shapes[si];
        worker ws[MAX_THREADS];
        for (int t = 0; t < T; t++) worker_init(&ws[t], kern, s, 0x9E3779B9u * (uint32_t)(t + 1 + si * 64));
        const int bad = check_bits(&ws[0]);
        failures += bad != 0;
        /* Products per sample: enough for min_ms on one thread. */
        double cpu_unused;
        double t1 = timed(ws, 1, &cpu_unused);
        long count = (long)(opt.min_ms * 1e-3 / (t1 > 1e-7 ? t1 : 1e-7)) + 1;
        for (int t = 0; t < T; t++) ws[t].count = count;
        wait_for_quiet(opt.quiet_wait);
        char name[48];
        snprintf(name, sizeof name, "%lldx%lldx%lld", (long long)s->m, (long long)s->n, (long long)s->k);
        const double peer_diff = opt.peer ? blas_peer_difference(&peer, &ws[0].args, ws[0].scratch, kern) : 0;
        failures += !(peer_diff < 1e-4);
        for (int pass = 0; pass < (opt.peer ? 2 : 1); pass++) {
            for (int t = 0; t < T; t++) ws[t].peer = pass ? &peer : NULL;
            const load_sample before = load_now();
            const double peak1 = fma_probe_gflops(1, 0.05, 3), peak_cpu = fma_probe_gflops_cpu(0.05, 3);
            double best1, cpu1, bestT = 0, medT = 0, peakT = 0, cpu_unused2;
            const double med1 = measure(ws, 1, &opt, s, &best1, &cpu1);
            if (T > 1) {
                peakT = fma_probe_gflops(T, 0.05, 3);
                medT = measure(ws, T, &opt, s, &bestT, &cpu_unused2);
            }
            const double others = others_between(before, load_now());
            printf("%-16s %-3s | %7.1f %7.1f %6.1f %4.0f%% | %7.1f %6.1f %4.0f%% | %7.1f %7.1f %6.1f %4.0f%% | %6.2f%s\n",
                   pass ? "  peer" : name, s->layout, med1, best1, peak1, 100.0 * med1 / peak1, cpu1, peak_cpu,
                   100.0 * cpu1 / peak_cpu, medT, bestT, peakT, peakT > 0 ? 100.0 * medT / peakT : 0.0, others,
                   pass ? (peer_diff < 1e-4 ? "" : "  PEER DISAGREES") : bad ? "  BITS DIFFER FROM THE FMA CHAIN" : "");
            fflush(stdout);
        }
        for (int t = 0; t < T; t++) worker_free(&ws[t]);
    }
    return failures ? 1 : 0;
}
