/* Benchmark of aclnnSiluBackward against the machine's memory bandwidth.
 *
 * In one process and with one thread count at a time, it interleaves a
 * STREAM-like probe (copy and triad, own pthreads, same thread count) with
 * timed aclnnSiluBackward calls (phase 1 + phase 2) and reports medians:
 *   - ms, GB/s of useful traffic (3 tensors x numel x itemsize: read dy and
 *     x, write dx; no write-allocate, as STREAM counts), and the kernel's
 *     GB/s as a percentage of the copy and triad bandwidth measured around it;
 *   - the same at 1 thread, and the scaling;
 *   - phase-1 + phase-2 overhead on a [2,3] fp32 tensor, in ns per pair.
 * Every case is checked against a double-precision reference on sampled
 * elements first; a mismatch makes the exit status 1.
 *
 *   bench_silu_backward [--threads N] [--reps R] [--shapes 8x4096x11008,4096x4096]
 *                       [--dtypes fp32,fp16,bf16] [--stream-mib M] [--no-single-thread]
 *                       [--overhead-iters N] [--isa scalar|avx2|avx512] [--skip-large]
 *
 * Speed is reported, never asserted: compare the ratios, not the absolute
 * numbers (shared machines drift by tens of percent between runs).
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "stream_probe.h"

enum {
    MAX_SHAPES = 8,
    MAX_DTYPES = 3,
    MAX_RANK = 8,
    MAX_REPS = 101,
    MAX_RESULTS = 2 * MAX_SHAPES * MAX_DTYPES,
    FILL_BLOCK = 1 << 16, /* distinct input values, repeated over the tensor */
    CHECK_SAMPLES = 4096,
    OVERHEAD_BATCH = 1000,
};

typedef struct {
    const char *name;
    aclDataType dtype;
    size_t itemsize;
    double tolerance; /* of the result, relative to the size of its terms */
} dtype_info;

static const dtype_info DTYPES[MAX_DTYPES] = {
    {"fp32", ACL_FLOAT, 4, 1e-5},
    {"fp16", ACL_FLOAT16, 2, 2e-3},
    {"bf16", ACL_BF16, 2, 1.6e-2},
};

typedef struct {
    int64_t dims[MAX_RANK];
    int rank;
    int64_t numel;
    char text[96];
} shape_info;

typedef struct {
    int threads; /* 0: all usable cores (the library's default) */
    int reps;
    int single_thread;
    int overhead_iters;
    size_t stream_mib;
    const char *isa;
    double quiet_wait; /* seconds to wait for other processes to go idle before each case */
    shape_info shapes[MAX_SHAPES];
    int shape_count;
    const dtype_info *dtypes[MAX_DTYPES];
    int dtype_count;
} options;

typedef struct {
    int threads;
    const shape_info *shape;
    const dtype_info *dtype;
    double ms_median, ms_min;
    double gbs;            /* useful bytes / median time */
    double copy_gbs;       /* median of the interleaved copy probes */
    double copy_best;      /* fastest of them (what STREAM itself reports) */
    double triad_gbs;      /* median of the interleaved triad probes */
    double max_rel_error;  /* sampled check, relative to the terms' size */
    double others;         /* CPU used by other processes during the reps, in cores */
    double steal;          /* CPU stolen by the hypervisor during the reps, in cores */
    int ok;
    char kernel[128];
} result;

/* ------------------------------------------------------------------ utilities */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *values, int count)
{
    double sorted[MAX_REPS > OVERHEAD_BATCH ? MAX_REPS : OVERHEAD_BATCH];
    if (count <= 0) {
        return 0.0;
    }
    memcpy(sorted, values, (size_t)count * sizeof *values);
    qsort(sorted, (size_t)count, sizeof *sorted, compare_double);
    return count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
}

static double min_of(const double *values, int count)
{
    double m = values[0];
    for (int i = 1; i < count; ++i) {
        m = values[i] < m ? values[i] : m;
    }
    return m;
}

static void die(const char *what, int code)
{
    const char *msg = aclGetRecentErrMsg();
    fprintf(stderr, "bench_silu_backward: %s failed (%d)%s%s\n", what, code, msg ? ": " : "", msg ? msg : "");
    exit(2);
}

#define CHECK_ACL(call)                      \
    do {                                     \
        int rc_ = (int)(call);               \
        if (rc_ != 0) {                      \
            die(#call, rc_);                 \
        }                                    \
    } while (0)

static uint16_t f32_to_bf16_rne(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7FFFu + ((u >> 16) & 1u); /* finite inputs only */
    return (uint16_t)(u >> 16);
}

static float bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float load_as_float(const void *base, size_t i, aclDataType dtype)
{
    switch (dtype) {
    case ACL_FLOAT:
        return ((const float *)base)[i];
    case ACL_FLOAT16:
        return aclFloat16ToFloat(((const uint16_t *)base)[i]);
    default:
        return bf16_to_f32(((const uint16_t *)base)[i]);
    }
}

/* xorshift32, uniform in [lo, hi). */
static float uniform(uint32_t *state, float lo, float hi)
{
    uint32_t s = *state;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    *state = s;
    return lo + (hi - lo) * (float)(s >> 8) * (1.0f / 16777216.0f);
}

/* Writes numel elements: a block of FILL_BLOCK pseudo-random values
 * (x in [-8, 8), dy in [-2, 2)), repeated. */
static void fill(void *dst, int64_t numel, const dtype_info *dt, uint32_t seed, float lo, float hi)
{
    size_t block = (size_t)numel < FILL_BLOCK ? (size_t)numel : FILL_BLOCK;
    size_t block_bytes = block * dt->itemsize;
    uint32_t state = seed;
    for (size_t i = 0; i < block; ++i) {
        float v = uniform(&state, lo, hi);
        if (dt->dtype == ACL_FLOAT) {
            ((float *)dst)[i] = v;
        } else if (dt->dtype == ACL_FLOAT16) {
            ((uint16_t *)dst)[i] = aclFloatToFloat16(v);
        } else {
            ((uint16_t *)dst)[i] = f32_to_bf16_rne(v);
        }
    }
    size_t total = (size_t)numel * dt->itemsize;
    for (size_t at = block_bytes; at < total; at += block_bytes) {
        size_t n = total - at < block_bytes ? total - at : block_bytes;
        memcpy((char *)dst + at, dst, n);
    }
}

/* ------------------------------------------------------------------ machine load */

/* CPU time of everything else on the machine: /proc/stat's busy time minus
 * this process's own (all threads), plus the hypervisor's steal time. At
 * USER_HZ granularity (10 ms), so only meaningful over windows of 100 ms+. */
typedef struct {
    double busy, steal, self, wall;
    int valid;
} load_sample;

static load_sample load_now(void)
{
    load_sample s = {0, 0, 0, now_seconds(), 0};
    FILE *f = fopen("/proc/stat", "r");
    if (f) {
        unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
        if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait, &irq,
                   &softirq, &steal) == 8) {
            double hz = (double)sysconf(_SC_CLK_TCK);
            s.busy = (double)(user + nice + sys + irq + softirq) / hz;
            s.steal = (double)steal / hz;
            s.valid = 1;
        }
        fclose(f);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        s.self = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
                 1e-6 * (double)ru.ru_stime.tv_usec;
    }
    return s;
}

/* Cores used by other processes (and stolen) between two samples. */
static void load_between(load_sample a, load_sample b, double *others, double *steal)
{
    double wall = b.wall - a.wall;
    if (!a.valid || !b.valid || wall <= 0) {
        *others = *steal = -1.0;
        return;
    }
    double o = ((b.busy - a.busy) - (b.self - a.self)) / wall;
    *others = o > 0 ? o : 0;
    *steal = (b.steal - a.steal) / wall;
}

/* Waits (up to max_seconds) for a 250 ms window in which other processes use
 * under a quarter of a core. Returns the seconds waited. */
static double wait_for_quiet(double max_seconds)
{
    double start = now_seconds();
    while (max_seconds > 0) {
        load_sample a = load_now();
        struct timespec nap = {0, 250000000L};
        nanosleep(&nap, NULL);
        double others, steal;
        load_between(a, load_now(), &others, &steal);
        if (others < 0.25 || now_seconds() - start >= max_seconds) {
            break;
        }
    }
    return now_seconds() - start;
}

/* ------------------------------------------------------------------ options */

static int parse_shape(const char *text, shape_info *shape)
{
    memset(shape, 0, sizeof *shape);
    snprintf(shape->text, sizeof shape->text, "%s", text);
    shape->numel = 1;
    const char *p = text;
    while (*p) {
        char *end = NULL;
        long long d = strtoll(p, &end, 10);
        if (end == p || d <= 0 || shape->rank == MAX_RANK) {
            return -1;
        }
        shape->dims[shape->rank++] = d;
        shape->numel *= d;
        p = end;
        if (*p == 'x' || *p == 'X') {
            ++p;
        } else if (*p != '\0') {
            return -1;
        }
    }
    /* Printed as [a,b,c]. */
    int at = snprintf(shape->text, sizeof shape->text, "[");
    for (int i = 0; i < shape->rank; ++i) {
        at += snprintf(shape->text + at, sizeof shape->text - (size_t)at, "%s%lld", i ? "," : "",
                       (long long)shape->dims[i]);
    }
    snprintf(shape->text + at, sizeof shape->text - (size_t)at, "]");
    return shape->rank > 0 ? 0 : -1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_silu_backward [options]\n"
            "  --threads N          threads for the kernels and the probe (default 0: all usable cores)\n"
            "  --reps R             timed repetitions per case, each between a copy and a triad probe (default 11)\n"
            "  --shapes LIST        comma-separated shapes, dims joined by x (default 8x4096x11008,4096x4096)\n"
            "  --skip-large         shorthand for --shapes 4096x4096\n"
            "  --dtypes LIST        subset of fp32,fp16,bf16 (default all three)\n"
            "  --stream-mib M       size of each of the probe's three arrays in MiB (default 512)\n"
            "  --no-single-thread   skip the 1-thread pass\n"
            "  --overhead-iters N   phase-1 + phase-2 pairs timed on [2,3] (default 200000; 0 skips)\n"
            "  --isa NAME           cap the SIMD level: scalar, avx2 or avx512\n"
            "  --quiet-wait S       before each case, wait up to S seconds for other processes to use < 0.25\n"
            "                       core (default 20; 0 disables)\n");
}

static void parse_options(int argc, char **argv, options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->reps = 11;
    opt->single_thread = 1;
    opt->overhead_iters = 200000;
    opt->stream_mib = 512;
    opt->quiet_wait = 20.0;
    const char *shapes = "8x4096x11008,4096x4096";
    const char *dtypes = "fp32,fp16,bf16";
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--no-single-thread")) {
            opt->single_thread = 0;
            continue;
        } else if (!strcmp(a, "--skip-large")) {
            shapes = "4096x4096";
            continue;
        }
        if (v == NULL) {
            usage(stderr);
            exit(2);
        }
        ++i;
        if (!strcmp(a, "--threads")) {
            opt->threads = atoi(v);
        } else if (!strcmp(a, "--reps")) {
            opt->reps = atoi(v);
        } else if (!strcmp(a, "--shapes")) {
            shapes = v;
        } else if (!strcmp(a, "--dtypes")) {
            dtypes = v;
        } else if (!strcmp(a, "--stream-mib")) {
            opt->stream_mib = (size_t)strtoull(v, NULL, 10);
        } else if (!strcmp(a, "--overhead-iters")) {
            opt->overhead_iters = atoi(v);
        } else if (!strcmp(a, "--quiet-wait")) {
            opt->quiet_wait = atof(v);
        } else if (!strcmp(a, "--isa")) {
            opt->isa = v;
        } else {
            usage(stderr);
            exit(2);
        }
    }
    if (opt->reps < 1 || opt->reps > MAX_REPS || opt->threads < 0 || opt->stream_mib == 0 ||
        opt->overhead_iters < 0) {
        fprintf(stderr, "bench_silu_backward: need 1 <= reps <= %d, threads >= 0, stream-mib > 0\n", MAX_REPS);
        exit(2);
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", shapes);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (opt->shape_count == MAX_SHAPES || parse_shape(tok, &opt->shapes[opt->shape_count]) != 0) {
            fprintf(stderr, "bench_silu_backward: bad shape '%s'\n", tok);
            exit(2);
        }
        ++opt->shape_count;
    }
    snprintf(buf, sizeof buf, "%s", dtypes);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const dtype_info *found = NULL;
        for (int k = 0; k < MAX_DTYPES; ++k) {
            if (!strcmp(tok, DTYPES[k].name)) {
                found = &DTYPES[k];
            }
        }
        if (found == NULL || opt->dtype_count == MAX_DTYPES) {
            fprintf(stderr, "bench_silu_backward: bad dtype '%s' (fp32, fp16, bf16)\n", tok);
            exit(2);
        }
        opt->dtypes[opt->dtype_count++] = found;
    }
}

/* ------------------------------------------------------------------ the kernel */

typedef struct {
    aclTensor *dy, *x, *dx;
} tensors;

static tensors make_tensors(const shape_info *shape, aclDataType dtype, void *dy, void *x, void *dx)
{
    tensors t;
    t.dy = aclCreateTensor(shape->dims, (uint64_t)shape->rank, dtype, NULL, 0, ACL_FORMAT_ND, shape->dims,
                           (uint64_t)shape->rank, dy);
    t.x = aclCreateTensor(shape->dims, (uint64_t)shape->rank, dtype, NULL, 0, ACL_FORMAT_ND, shape->dims,
                          (uint64_t)shape->rank, x);
    t.dx = aclCreateTensor(shape->dims, (uint64_t)shape->rank, dtype, NULL, 0, ACL_FORMAT_ND, shape->dims,
                           (uint64_t)shape->rank, dx);
    if (t.dy == NULL || t.x == NULL || t.dx == NULL) {
        die("aclCreateTensor", -1);
    }
    return t;
}

static void free_tensors(tensors *t)
{
    aclDestroyTensor(t->dy);
    aclDestroyTensor(t->x);
    aclDestroyTensor(t->dx);
}

/* One aclnnSiluBackward call: phase 1, phase 2 (workspace 0 for dense
 * tensors) and the synchronize that makes the result there, as CANN host
 * code does: a created stream runs its work asynchronously. */
static void silu_backward(const tensors *t, aclrtStream stream)
{
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    CHECK_ACL(aclnnSiluBackwardGetWorkspaceSize(t->dy, t->x, t->dx, &workspace_size, &executor));
    if (workspace_size != 0) {
        die("dense tensors asked for a workspace:", (int)workspace_size);
    }
    CHECK_ACL(aclnnSiluBackward(NULL, 0, executor, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
}

/* Largest error on sampled elements, relative to |dy*s| * (1 + |x*(1-s)|)
 * (plus the smallest normal number for fp16, whose subnormals are coarse). */
static double check_sampled(const void *dy, const void *x, const void *dx, int64_t numel, aclDataType dtype)
{
    double floor = dtype == ACL_FLOAT16 ? 6.103515625e-05 : 1e-30;
    uint64_t stride = (uint64_t)numel / CHECK_SAMPLES > 0 ? (uint64_t)numel / CHECK_SAMPLES : 1;
    double worst = 0.0;
    for (uint64_t k = 0; k < CHECK_SAMPLES; ++k) {
        size_t i = (size_t)((k * stride + (k * 2654435761u) % stride) % (uint64_t)numel);
        double g = load_as_float(dy, i, dtype);
        double v = load_as_float(x, i, dtype);
        double got = load_as_float(dx, i, dtype);
        double s = 1.0 / (1.0 + exp(-v));
        double want = g * s * (1.0 + v * (1.0 - s));
        double scale = fabs(g * s) * (1.0 + fabs(v * (1.0 - s))) + floor;
        double err = fabs(got - want) / scale;
        if (!(err <= worst)) {
            worst = err; /* NaN propagates */
        }
    }
    return worst;
}

static void run_case(const options *opt, stream_probe *probe, int threads, const shape_info *shape,
                     const dtype_info *dt, void *dy, void *x, void *dx, aclrtStream stream, result *out)
{
    tensors t = make_tensors(shape, dt->dtype, dy, x, dx);
    silu_backward(&t, stream); /* warm-up: faults nothing (pre-faulted), loads the code */
    memset(out, 0, sizeof *out);
    out->threads = threads;
    out->shape = shape;
    out->dtype = dt;
    snprintf(out->kernel, sizeof out->kernel, "%s", aclnnEmuGetLastKernel());
    out->max_rel_error = check_sampled(dy, x, dx, shape->numel, dt->dtype);
    out->ok = out->max_rel_error <= dt->tolerance;

    double secs[MAX_REPS], copy[MAX_REPS], triad[MAX_REPS];
    wait_for_quiet(opt->quiet_wait);
    load_sample load0 = load_now();
    for (int r = 0; r < opt->reps; ++r) {
        copy[r] = stream_probe_run(probe, STREAM_PROBE_COPY, threads);
        double t0 = now_seconds();
        silu_backward(&t, stream);
        secs[r] = now_seconds() - t0;
        triad[r] = stream_probe_run(probe, STREAM_PROBE_TRIAD, threads);
    }
    load_between(load0, load_now(), &out->others, &out->steal);
    free_tensors(&t);
    double bytes = 3.0 * (double)shape->numel * (double)dt->itemsize;
    double med = median(secs, opt->reps);
    out->ms_median = 1e3 * med;
    out->ms_min = 1e3 * min_of(secs, opt->reps);
    out->gbs = bytes / med / 1e9;
    out->copy_gbs = median(copy, opt->reps);
    out->copy_best = copy[0];
    for (int r = 1; r < opt->reps; ++r) {
        out->copy_best = copy[r] > out->copy_best ? copy[r] : out->copy_best;
    }
    out->triad_gbs = median(triad, opt->reps);
}

/* ------------------------------------------------------------------ compute ceiling */

/* Throughput with all data in L2: [32768] elements on one thread, called
 * back to back. Tells whether a dtype's path is
 * compute-bound: its G elem/s times 3 x itemsize is the most GB/s one core
 * could reach even with infinite memory bandwidth. */
static void run_compute_ceiling(const options *opt, aclrtStream stream)
{
    enum { CEIL_NUMEL = 32768, CEIL_CALLS = 200, CEIL_ROUNDS = 15 };
    shape_info shape;
    parse_shape("32768", &shape);
    void *dy = NULL, *x = NULL, *dx = NULL;
    CHECK_ACL(aclrtMalloc(&dy, CEIL_NUMEL * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&x, CEIL_NUMEL * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&dx, CEIL_NUMEL * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclnnEmuSetNumThreads(1));
    printf("\n## Compute ceiling: [%d] elements resident in L2, %d back-to-back calls, median of %d rounds, 1 core\n\n",
           CEIL_NUMEL, CEIL_CALLS, CEIL_ROUNDS);
    printf("| dtype | ns per call | G elem/s | equivalent GB/s (3 x itemsize) | kernel |\n|---|---:|---:|---:|---|\n");
    for (int d = 0; d < opt->dtype_count; ++d) {
        const dtype_info *dt = opt->dtypes[d];
        fill(dy, CEIL_NUMEL, dt, 12345u, -2.0f, 2.0f);
        fill(x, CEIL_NUMEL, dt, 67890u, -8.0f, 8.0f);
        tensors t = make_tensors(&shape, dt->dtype, dy, x, dx);
        double ns[CEIL_ROUNDS];
        for (int i = 0; i < CEIL_CALLS; ++i) {
            silu_backward(&t, stream);
        }
        for (int r = 0; r < CEIL_ROUNDS; ++r) {
            double t0 = now_seconds();
            for (int i = 0; i < CEIL_CALLS; ++i) {
                silu_backward(&t, stream);
            }
            ns[r] = (now_seconds() - t0) * 1e9 / CEIL_CALLS;
        }
        free_tensors(&t);
        double med = median(ns, CEIL_ROUNDS);
        printf("| %s | %.0f | %.2f | %.1f | %s |\n", dt->name, med, CEIL_NUMEL / med,
               3.0 * CEIL_NUMEL * (double)dt->itemsize / med, aclnnEmuGetLastKernel());
    }
    fflush(stdout);
    CHECK_ACL(aclnnEmuSetNumThreads(opt->threads));
    aclrtFree(dy);
    aclrtFree(x);
    aclrtFree(dx);
}

/* ------------------------------------------------------------------ overhead */

static double time_batches(int iters, void (*body)(void *), void *ctx)
{
    int batches = iters / OVERHEAD_BATCH;
    if (batches < 1) {
        batches = 1;
    }
    if (batches > OVERHEAD_BATCH) {
        batches = OVERHEAD_BATCH;
    }
    double ns[OVERHEAD_BATCH];
    for (int i = 0; i < OVERHEAD_BATCH; ++i) { /* warm-up */
        body(ctx);
    }
    for (int b = 0; b < batches; ++b) {
        double t0 = now_seconds();
        for (int i = 0; i < OVERHEAD_BATCH; ++i) {
            body(ctx);
        }
        ns[b] = (now_seconds() - t0) * 1e9 / OVERHEAD_BATCH;
    }
    return median(ns, batches);
}

typedef struct {
    tensors t;
    shape_info shape;
    void *dy, *x, *dx;
    aclrtStream stream;
    aclOpExecutor *repeatable;
} overhead_ctx;

static void body_pair(void *p)
{
    overhead_ctx *c = p;
    silu_backward(&c->t, c->stream);
}

static void body_create_pair_destroy(void *p)
{
    overhead_ctx *c = p;
    tensors t = make_tensors(&c->shape, ACL_FLOAT, c->dy, c->x, c->dx);
    silu_backward(&t, c->stream);
    free_tensors(&t);
}

static void body_phase1_only(void *p)
{
    overhead_ctx *c = p;
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    CHECK_ACL(aclnnSiluBackwardGetWorkspaceSize(c->t.dy, c->t.x, c->t.dx, &ws, &executor));
    CHECK_ACL(aclDestroyAclOpExecutor(executor));
}

static void body_phase2_repeatable(void *p)
{
    overhead_ctx *c = p;
    CHECK_ACL(aclnnSiluBackward(NULL, 0, c->repeatable, c->stream));
}

static void run_overhead(const options *opt, aclrtStream stream)
{
    if (opt->overhead_iters == 0) {
        return;
    }
    overhead_ctx c;
    memset(&c, 0, sizeof c);
    parse_shape("2x3", &c.shape);
    /* The default stream runs each launch on this thread before returning,
     * so these figures are the cost of the calls themselves, not of
     * handing work to a stream's worker. */
    (void)stream;
    c.stream = NULL;
    CHECK_ACL(aclrtMalloc(&c.dy, 6 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&c.x, 6 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&c.dx, 6 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    static const float dy_v[6] = {1, 1, 1, 1, 1, 1};
    static const float x_v[6] = {1, 2, 3, 4, 5, 6};
    memcpy(c.dy, dy_v, sizeof dy_v);
    memcpy(c.x, x_v, sizeof x_v);
    c.t = make_tensors(&c.shape, ACL_FLOAT, c.dy, c.x, c.dx);

    uint64_t ws = 0;
    CHECK_ACL(aclnnSiluBackwardGetWorkspaceSize(c.t.dy, c.t.x, c.t.dx, &ws, &c.repeatable));
    CHECK_ACL(aclSetAclOpExecutorRepeatable(c.repeatable));

    int iters = opt->overhead_iters;
    double pair = time_batches(iters, body_pair, &c);
    double full = time_batches(iters, body_create_pair_destroy, &c);
    double p1 = time_batches(iters, body_phase1_only, &c);
    double p2 = time_batches(iters, body_phase2_repeatable, &c);
    int batches = iters / OVERHEAD_BATCH < 1 ? 1 : iters / OVERHEAD_BATCH > OVERHEAD_BATCH ? OVERHEAD_BATCH
                                                                                          : iters / OVERHEAD_BATCH;
    printf("\n## Per-call overhead, [2,3] fp32 (median of %d batches of %d calls per mode, %d threads set)\n\n",
           batches, OVERHEAD_BATCH, (int)aclnnEmuGetNumThreads());
    printf("| mode | ns per call |\n|---|---:|\n");
    printf("| phase 1 + phase 2 (tensors created once) | %.0f |\n", pair);
    printf("| 3x aclCreateTensor + phase 1 + phase 2 + 3x aclDestroyTensor | %.0f |\n", full);
    printf("| phase 1 + aclDestroyAclOpExecutor (no run) | %.0f |\n", p1);
    printf("| phase 2 only (repeatable executor) | %.0f |\n", p2);
    fflush(stdout);

    CHECK_ACL(aclDestroyAclOpExecutor(c.repeatable));
    free_tensors(&c.t);
    aclrtFree(c.dy);
    aclrtFree(c.x);
    aclrtFree(c.dx);
}

/* ------------------------------------------------------------------ report */

static void print_machine(int all_threads)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *colon = strchr(line, ':');
                if (colon) {
                    snprintf(model, sizeof model, "%s", colon + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    printf("# aclnnSiluBackward benchmark (aclnn_emu %s)\n\n", aclnnEmuVersion());
    printf("- CPU: %s, %ld online cores; library threads: %d\n", model, sysconf(_SC_NPROCESSORS_ONLN), all_threads);
    printf("- ISA: detected %s, active %s\n", aclnnEmuIsaName(aclnnEmuGetDetectedIsa()),
           aclnnEmuIsaName(aclnnEmuGetIsa()));
}

static void print_row(const result *r)
{
    printf("| %d | %s | %s | %.2f | %.2f | %.1f | %.1f | %.1f | %.0f%% | %.0f%% | %.0f%% | %.2f / %.2f | %s %.1e | %s |\n",
           r->threads, r->shape->text, r->dtype->name, r->ms_median, r->ms_min, r->gbs, r->copy_gbs, r->triad_gbs,
           100.0 * r->gbs / r->copy_gbs, 100.0 * r->gbs / r->copy_best, 100.0 * r->gbs / r->triad_gbs, r->others,
           r->steal, r->ok ? "ok" : "MISMATCH", r->max_rel_error, r->kernel);
    fflush(stdout);
}

static void print_probe_summary(stream_probe *probe, const int *thread_list, int thread_count)
{
    enum { PROBE_REPS = 5 };
    printf("\n## STREAM-like probe alone (%zu MiB per array, median of %d passes; GB/s = 1e9 B/s, no write-allocate)\n\n",
           (size_t)(stream_probe_bytes(probe, STREAM_PROBE_COPY) / 2.0 / (1 << 20)), PROBE_REPS);
    printf("| threads | copy | triad | memcpy (glibc; may use non-temporal stores) |\n|---:|---:|---:|---:|\n");
    for (int i = 0; i < thread_count; ++i) {
        double g[3][PROBE_REPS];
        for (int r = 0; r < PROBE_REPS; ++r) {
            for (int k = 0; k < 3; ++k) {
                g[k][r] = stream_probe_run(probe, k, thread_list[i]);
            }
        }
        printf("| %d | %.1f | %.1f | %.1f |\n", thread_list[i], median(g[0], PROBE_REPS),
               median(g[1], PROBE_REPS), median(g[2], PROBE_REPS));
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    options opt;
    parse_options(argc, argv, &opt);

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    if (opt.isa != NULL) {
        aclnnEmuIsa cap = !strcmp(opt.isa, "scalar") ? ACLNN_EMU_ISA_SCALAR
                          : !strcmp(opt.isa, "avx2") ? ACLNN_EMU_ISA_AVX2
                          : !strcmp(opt.isa, "avx512") ? ACLNN_EMU_ISA_AVX512
                                                       : (aclnnEmuIsa)-1;
        CHECK_ACL(aclnnEmuSetIsaCap(cap));
    }
    CHECK_ACL(aclnnEmuSetNumThreads(opt.threads));
    int all_threads = (int)aclnnEmuGetNumThreads();
    int thread_list[2] = {all_threads, 1};
    int thread_count = opt.single_thread && all_threads > 1 ? 2 : 1;

    print_machine(all_threads);
    printf("- command:");
    for (int i = 0; i < argc; ++i) {
        printf(" %s", argv[i]);
    }
    printf("\n- useful bytes = 3 x numel x itemsize (read dy, read x, write dx); each rep = copy probe, one\n"
           "  phase-1 + phase-2 call, triad probe; GB/s at the median time; %% of copy = kernel GB/s / median copy\n"
           "  GB/s of the same case's probes; %% of best copy = kernel GB/s / fastest of those copy probes\n"
           "- other load / steal: CPU used by other processes / stolen by the hypervisor during the case's reps,\n"
           "  in cores (from /proc/stat; each case first waits up to %.0f s for other load < 0.25 core)\n",
           opt.quiet_wait);
    fflush(stdout);

    stream_probe *probe = stream_probe_create(opt.stream_mib << 20, all_threads);
    if (probe == NULL || stream_probe_max_threads(probe) != all_threads) {
        fprintf(stderr, "bench_silu_backward: cannot create the STREAM probe (%zu MiB x 3, %d threads)\n",
                opt.stream_mib, all_threads);
        return 2;
    }
    print_probe_summary(probe, thread_list, thread_count);

    int64_t max_numel = 0;
    for (int s = 0; s < opt.shape_count; ++s) {
        max_numel = opt.shapes[s].numel > max_numel ? opt.shapes[s].numel : max_numel;
    }
    size_t max_bytes = (size_t)max_numel * sizeof(float);
    void *dy = NULL, *x = NULL, *dx = NULL;
    CHECK_ACL(aclrtMalloc(&dy, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&x, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&dx, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Pre-fault all three buffers so no timed call pays for first touch. */
    memset(dy, 0, max_bytes);
    memset(x, 0, max_bytes);
    memset(dx, 0, max_bytes);

    printf("\n## aclnnSiluBackward (median of %d reps; memory from aclrtMalloc HUGE_FIRST, pre-faulted)\n\n", opt.reps);
    printf("| threads | shape | dtype | ms median | ms min | GB/s | copy GB/s | triad GB/s | %% of copy | %% of best copy "
           "| %% of triad | other load / steal (cores) | check (max rel err) | kernel |\n");
    printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    result results[MAX_RESULTS];
    int result_count = 0;
    int all_ok = 1;
    for (int ti = 0; ti < thread_count; ++ti) {
        CHECK_ACL(aclnnEmuSetNumThreads(thread_list[ti]));
        for (int s = 0; s < opt.shape_count; ++s) {
            for (int d = 0; d < opt.dtype_count; ++d) {
                const dtype_info *dt = opt.dtypes[d];
                fill(dy, opt.shapes[s].numel, dt, 12345u, -2.0f, 2.0f);
                fill(x, opt.shapes[s].numel, dt, 67890u, -8.0f, 8.0f);
                result *r = &results[result_count++];
                run_case(&opt, probe, thread_list[ti], &opt.shapes[s], dt, dy, x, dx, stream, r);
                all_ok &= r->ok;
                print_row(r);
            }
        }
    }
    CHECK_ACL(aclnnEmuSetNumThreads(opt.threads));

    if (thread_count == 2) {
        printf("\n## Scaling, %d threads vs 1 (GB/s from the table above)\n\n", all_threads);
        printf("| shape | dtype | GB/s 1T | %% copy 1T | GB/s %dT | %% copy %dT | speed-up |\n", all_threads,
               all_threads);
        printf("|---|---|---:|---:|---:|---:|---:|\n");
        int per_pass = result_count / 2;
        for (int i = 0; i < per_pass; ++i) {
            const result *m = &results[i], *one = &results[i + per_pass];
            printf("| %s | %s | %.1f | %.0f%% | %.1f | %.0f%% | %.2fx |\n", m->shape->text, m->dtype->name, one->gbs,
                   100.0 * one->gbs / one->copy_gbs, m->gbs, 100.0 * m->gbs / m->copy_gbs, m->gbs / one->gbs);
        }
    }
    aclrtFree(dy);
    aclrtFree(dx);
    aclrtFree(x);
    stream_probe_destroy(probe);

    /* The default stream: back-to-back launches measure the kernel, not the
     * round trip to a stream's worker thread. */
    run_compute_ceiling(&opt, NULL);
    run_overhead(&opt, stream);

    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    if (!all_ok) {
        fprintf(stderr, "bench_silu_backward: some results did not match the reference (see the check column)\n");
        return 1;
    }
    return 0;
}
