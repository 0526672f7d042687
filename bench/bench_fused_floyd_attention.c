/* Benchmark of aclnnFusedFloydAttentionGrad (and its forward) against the
 * machine's fp32 FMA peak, measured in the same process right before each
 * case (bench/fma_probe.c, same thread count as the library).
 *
 * For each shape B x H x N x M x K x D and dtype it runs the forward once
 * (its outputs feed the backward), then times phase 1 + phase 2 of the
 * backward and of the forward, and reports medians: ms, GFLOP/s counting
 * 16*B*H*N*M*K*D flops for the backward (four products at 2 flops per multiply-add; the kernel
 * does 20*...: S and dP are recomputed) and 8*B*H*N*M*K*D for the forward,
 * the percentage of the FMA peak, the workspace of each phase 1, and the
 * process's peak RSS (ru_maxrss) after the case.
 *
 *   bench_fused_floyd_attention [--threads N] [--reps R] [--dtypes fp32,bf16,fp16]
 *                               [--shapes 1x1x256x256x256x128,1x2x64x128x128x64]
 *
 * Speed is reported, never asserted; the machine is shared, so compare the
 * ratios measured in one run. Results and commands: docs/benchmarks.md.
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

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_fused_floyd_attention.h"
#include "aclnnop/aclnn_fused_floyd_attention_grad.h"
#include "fma_probe.h"

enum { MAX_CASES = 8, MAX_REPS = 51, TENSORS = 15 };

typedef struct {
    const char *name;
    aclDataType dtype;
    size_t itemsize;
} dtype_info;

static const dtype_info DTYPES[] = {{"fp32", ACL_FLOAT, 4}, {"bf16", ACL_BF16, 2}, {"fp16", ACL_FLOAT16, 2}};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of every thread of the process: on a shared machine, time
 * spent waiting for a core does not count (time in the pool's waits does). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint16_t to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

typedef struct {
    void *data;
    aclTensor *tensor;
} dev_tensor;

/* A device tensor of `shape`, filled with uniform values in [lo, hi) of `dtype` (fp32 if stats). */
static int make(dev_tensor *t, const int64_t *shape, aclDataType dtype, float lo, float hi, unsigned *seed)
{
    int64_t n = 1;
    for (int i = 0; i < 5; ++i) {
        n *= shape[i];
    }
    size_t item = dtype == ACL_FLOAT ? 4 : dtype == ACL_BOOL ? 1 : 2;
    void *host = malloc((size_t)n * item);
    if (host == NULL || aclrtMalloc(&t->data, (size_t)n * item, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        free(host);
        return -1;
    }
    for (int64_t i = 0; i < n; ++i) {
        *seed = *seed * 1664525u + 1013904223u;
        float v = lo + (hi - lo) * (float)(*seed >> 8) * (1.0f / 16777216.0f);
        if (dtype == ACL_FLOAT) {
            ((float *)host)[i] = v;
        } else if (dtype == ACL_BF16) {
            ((uint16_t *)host)[i] = to_bf16(v);
        } else if (dtype == ACL_FLOAT16) {
            ((uint16_t *)host)[i] = aclFloatToFloat16(v);
        } else {
            ((uint8_t *)host)[i] = 0;
        }
    }
    aclrtMemcpy(t->data, (size_t)n * item, host, (size_t)n * item, ACL_MEMCPY_HOST_TO_DEVICE);
    free(host);
    int64_t strides[5] = {0, 0, 0, 0, 1};
    for (int i = 3; i >= 0; --i) {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    t->tensor = aclCreateTensor(shape, 5, dtype, strides, 0, ACL_FORMAT_ND, shape, 5, t->data);
    return t->tensor == NULL ? -1 : 0;
}

static void release(dev_tensor *t)
{
    if (t->tensor) {
        aclDestroyTensor(t->tensor);
    }
    if (t->data) {
        aclrtFree(t->data);
    }
}

static int run_forward(dev_tensor *t, double scale, uint64_t *ws_bytes, double *seconds)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    double start = now_s();
    if (aclnnFusedFloydAttentionGetWorkspaceSize(t[0].tensor, t[1].tensor, t[2].tensor, t[3].tensor, t[4].tensor,
                                                 NULL, scale, t[7].tensor, t[8].tensor, t[9].tensor, &ws, &ex)) {
        fprintf(stderr, "forward phase 1: %s\n", aclGetRecentErrMsg());
        return -1;
    }
    void *work = NULL;
    if (ws && aclrtMalloc(&work, ws, ACL_MEM_MALLOC_HUGE_FIRST)) {
        return -1;
    }
    int rc = aclnnFusedFloydAttention(work, ws, ex, NULL);
    *seconds = now_s() - start;
    aclrtFree(work);
    *ws_bytes = ws;
    return rc;
}

static int run_backward(dev_tensor *t, double scale, uint64_t *ws_bytes, double *seconds, double *cpu_seconds)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    double start = now_s(), cpu_start = cpu_s();
    if (aclnnFusedFloydAttentionGradGetWorkspaceSize(t[0].tensor, t[1].tensor, t[2].tensor, t[3].tensor,
                                                     t[4].tensor, t[5].tensor, NULL, t[7].tensor, t[8].tensor,
                                                     t[9].tensor, scale, t[10].tensor, t[11].tensor, t[12].tensor,
                                                     t[13].tensor, t[14].tensor, &ws, &ex)) {
        fprintf(stderr, "backward phase 1: %s\n", aclGetRecentErrMsg());
        return -1;
    }
    void *work = NULL;
    if (ws && aclrtMalloc(&work, ws, ACL_MEM_MALLOC_HUGE_FIRST)) {
        return -1;
    }
    int rc = aclnnFusedFloydAttentionGrad(work, ws, ex, NULL);
    *seconds = now_s() - start;
    *cpu_seconds = cpu_s() - cpu_start;
    aclrtFree(work);
    *ws_bytes = ws;
    return rc;
}

int main(int argc, char **argv)
{
    int threads = 0, reps = 5;
    const char *shapes = "1x1x256x256x256x128,1x2x64x128x128x64", *dtypes = "fp32,bf16,fp16";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--shapes")) shapes = argv[i + 1];
        else if (!strcmp(argv[i], "--dtypes")) dtypes = argv[i + 1];
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
    if (aclInit(NULL) || aclrtSetDevice(0)) {
        return 1;
    }
    if (threads > 0) {
        aclnnEmuSetNumThreads(threads);
    }
    threads = aclnnEmuGetNumThreads();
    printf("aclnnFusedFloydAttentionGrad benchmark: %d thread(s), FMA probe %s, %d rep(s), median times\n", threads,
           fma_probe_isa(), reps);
    printf("bwd cpu: CPU seconds of the whole process per backward; GFLOP/s per CPU-second against the 1-thread\n"
           "probe timed on its own CPU time (%%peak cpu: the kernel's efficiency per core, whatever the sharing)\n");
    printf("%-22s %-5s %9s %8s %8s %6s | %9s %8s %8s %6s | %9s %8s %6s | %9s %9s %9s\n", "B x H x N x M x K x D",
           "dtype", "bwd ms", "GFLOP/s", "peak", "%peak", "bwd cpu", "GF/cpu-s", "peak1", "%cpu", "fwd ms", "GFLOP/s",
           "%peak", "bwd ws", "fwd ws", "maxrss");
    const char *s = shapes;
    int status = 0;
    while (*s) {
        long long d[6];
        int used = 0;
        if (sscanf(s, "%lldx%lldx%lldx%lldx%lldx%lld%n", &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &used) != 6) {
            fprintf(stderr, "bad shape list at %s\n", s);
            return 2;
        }
        s += used;
        if (*s == ',') s++;
        const int64_t B = d[0], H = d[1], N = d[2], M = d[3], K = d[4], D = d[5];
        const int64_t q[5] = {B, H, N, M, D}, k1[5] = {B, H, N, K, D}, k2[5] = {B, H, K, M, D};
        const int64_t st[5] = {B, H, N, M, 8};
        const double flops = (double)B * H * N * M * K * D;
        for (size_t di = 0; di < sizeof DTYPES / sizeof DTYPES[0]; ++di) {
            const dtype_info *dt = &DTYPES[di];
            if (!strstr(dtypes, dt->name)) continue;
            dev_tensor t[TENSORS];
            memset(t, 0, sizeof t);
            const int64_t *shape_of[TENSORS] = {q, k1, k1, k2, k2, q, NULL, st, st, q, q, k1, k1, k2, k2};
            unsigned seed = 12345;
            int ok = 0;
            for (int i = 0; i < TENSORS; ++i) {
                if (i == 6) continue;
                aclDataType type = (i == 7 || i == 8) ? ACL_FLOAT : dt->dtype;
                ok |= make(&t[i], shape_of[i], type, -1.0f, 1.0f, &seed);
            }
            double scale = 1.0 / sqrt((double)D);
            uint64_t fws = 0, bws = 0;
            double fwd[MAX_REPS], bwd[MAX_REPS], bwd_cpu[MAX_REPS], once;
            ok |= run_forward(t, scale, &fws, &once); /* stats and output for the backward */
            double peak = fma_probe_gflops(threads, 0.2, 3), peak_cpu = fma_probe_gflops_cpu(0.2, 3);
            for (int r = 0; r < reps && !ok; ++r) {
                ok |= run_backward(t, scale, &bws, &bwd[r], &bwd_cpu[r]);
                ok |= run_forward(t, scale, &fws, &fwd[r]);
            }
            if (ok) {
                fprintf(stderr, "case failed: %s\n", aclGetRecentErrMsg());
                status = 1;
            } else {
                double bt = median(bwd, reps), ft = median(fwd, reps), bc = median(bwd_cpu, reps);
                struct rusage ru;
                getrusage(RUSAGE_SELF, &ru);
                char name[64];
                snprintf(name, sizeof name, "%lldx%lldx%lldx%lldx%lldx%lld", d[0], d[1], d[2], d[3], d[4], d[5]);
                printf("%-22s %-5s %9.1f %8.1f %8.1f %5.1f%% | %9.1f %8.1f %8.1f %5.1f%% | %9.1f %8.1f %5.1f%% | "
                       "%8.1fM %8.1fM %8.1fM\n", name,
                       dt->name, 1e3 * bt, 16 * flops / bt / 1e9, peak, 100 * 16 * flops / bt / 1e9 / peak, 1e3 * bc,
                       16 * flops / bc / 1e9, peak_cpu, 100 * 16 * flops / bc / 1e9 / peak_cpu, 1e3 * ft,
                       8 * flops / ft / 1e9, 100 * 8 * flops / ft / 1e9 / peak, bws / 1048576.0, fws / 1048576.0,
                       ru.ru_maxrss / 1024.0);
                fflush(stdout);
            }
            for (int i = 0; i < TENSORS; ++i) release(&t[i]);
        }
    }
    aclrtResetDevice(0);
    aclFinalize();
    return status;
}
