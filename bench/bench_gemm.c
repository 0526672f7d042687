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
 *              [--quiet-wait S] [--shapes MxNxK[:nn|nt|tn],...]
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
    shape shapes[MAX_SHAPES];
    int shape_count;
} options;

static const char* const DEFAULT_SHAPES =
    "16x64x32:nt,64x256x32:nt,128x128x64:nt,256x256x32:nt,256x256x64:nt,256x256x128:nt,256x256x128,"
    "256x128x256:tn,128x256x256,256x256x256,64x64x256:tn,512x512x512";

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

/* ------------------------------------------------------------------ one thread's products */

typedef struct {
    const emu_gemm_kernels* kern;
    emu_sgemm_args args;
    float *a, *b, *c;
    void* scratch;
    long count; /* products per timed sample */
} worker;

static void worker_init(worker* w, const emu_gemm_kernels* kern, const shape* s, uint32_t seed) {
    const int64_t m = s->m, n = s->n, k = s->k;
    w->kern = kern;
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
    for (long r = 0; r < w->count; r++) w->kern->sgemm(&w->args, w->scratch);
    return NULL;
}

/* Seconds for `threads` workers to run their products at once. */
static double timed(worker* ws, int threads) {
    pthread_t ids[MAX_THREADS];
    int started = 0;
    const double t0 = now_seconds();
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&ids[t], NULL, worker_run, &ws[t]) != 0) break;
        started = t;
    }
    worker_run(&ws[0]);
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

/* GFLOP/s samples of `threads` workers; returns the median, *best the best. */
static double measure(worker* ws, int threads, const options* opt, const shape* s, double* best) {
    double samples[MAX_REPS];
    const double flops = 2.0 * (double)s->m * (double)s->n * (double)s->k * (double)ws[0].count * threads;
    *best = 0;
    for (int r = 0; r < opt->reps; r++) {
        const double g = flops / timed(ws, threads) * 1e-9;
        samples[r] = g;
        *best = g > *best ? g : *best;
    }
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
            "  --shapes LIST  MxNxK[:nn|nt|tn],... (default %s)\n",
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
    printf("kernel %s, fma probe %s, %d threads in the parallel pass, %d samples of >= %.0f ms per case\n",
           kern->name, fma_probe_isa(), T, opt.reps, opt.min_ms);
    printf("GFLOP/s: median (best); %% of the fp32 FMA peak probed just before the case\n");
    char label[16];
    snprintf(label, sizeof label, "%dT", T);
    printf("%-16s %-3s | %8s %8s %6s %6s | %8s %8s %6s %6s | %6s\n", "m x n x k", "lay", "1T", "best", "peak", "%",
           label, "best", "peak", "%", "others");
    int failures = 0;
    for (int si = 0; si < opt.shape_count; si++) {
        const shape* s = &opt.shapes[si];
        worker ws[MAX_THREADS];
        for (int t = 0; t < T; t++) worker_init(&ws[t], kern, s, 0x9E3779B9u * (uint32_t)(t + 1 + si * 64));
        const int bad = check_bits(&ws[0]);
        failures += bad != 0;
        /* Products per sample: enough for min_ms on one thread. */
        double t1 = timed(ws, 1);
        long count = (long)(opt.min_ms * 1e-3 / (t1 > 1e-7 ? t1 : 1e-7)) + 1;
        for (int t = 0; t < T; t++) ws[t].count = count;
        wait_for_quiet(opt.quiet_wait);
        const load_sample before = load_now();
        const double peak1 = fma_probe_gflops(1, 0.05, 3);
        double best1, bestT = 0, medT = 0, peakT = 0;
        const double med1 = measure(ws, 1, &opt, s, &best1);
        if (T > 1) {
            peakT = fma_probe_gflops(T, 0.05, 3);
            medT = measure(ws, T, &opt, s, &bestT);
        }
        const double others = others_between(before, load_now());
        char name[48];
        snprintf(name, sizeof name, "%lldx%lldx%lld", (long long)s->m, (long long)s->n, (long long)s->k);
        printf("%-16s %-3s | %8.1f %8.1f %6.1f %5.0f%% | %8.1f %8.1f %6.1f %5.0f%% | %6.2f%s\n", name, s->layout, med1,
               best1, peak1, 100.0 * med1 / peak1, medT, bestT, peakT, peakT > 0 ? 100.0 * medT / peakT : 0.0, others,
               bad ? "  BITS DIFFER FROM THE FMA CHAIN" : "");
        fflush(stdout);
        for (int t = 0; t < T; t++) worker_free(&ws[t]);
    }
    return failures ? 1 : 0;
}
