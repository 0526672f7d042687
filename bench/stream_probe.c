/* STREAM-like copy/triad probe; see stream_probe.h. */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* madvise, pthread barriers, clock_gettime under -std=c11 */
#endif

#include "stream_probe.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum {
    PROBE_LINE_DOUBLES = 8, /* 64 bytes */
    PROBE_MAX_THREADS = 1024,
};
#define PROBE_HUGE_PAGE ((size_t)2 << 20)
#define PROBE_TRIAD_SCALAR 0.5 /* keeps a[] bounded: a -> 2*b after many passes */

typedef struct {
    stream_probe *probe;
    int index;
} probe_worker;

struct stream_probe {
    double *a, *b, *c;
    size_t n;
    size_t reserved_bytes;
    int max_threads;
    pthread_t *threads;
    probe_worker *workers;
    int started; /* helper threads running */
    pthread_mutex_t gate; /* held while the helpers are being started */
    pthread_barrier_t start, finish;
    /* Set by the caller thread before `start`, read by helpers after it. */
    int kind;
    int active;
    int stopping;
    double last_seconds;
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* [begin, end) of thread `index` out of `count`, in whole cache lines. */
static void slice(size_t n, int index, int count, size_t *begin, size_t *end)
{
    size_t lines = n / PROBE_LINE_DOUBLES;
    *begin = lines * (size_t)index / (size_t)count * PROBE_LINE_DOUBLES;
    *end = lines * (size_t)(index + 1) / (size_t)count * PROBE_LINE_DOUBLES;
}

static void copy_kernel(double *restrict c, const double *restrict a, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        c[i] = a[i];
    }
}

static void triad_kernel(double *restrict a, const double *restrict b, const double *restrict c, double q, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        a[i] = b[i] + q * c[i];
    }
}

static void run_slice(stream_probe *p, int kind, int index, int count)
{
    size_t begin, end;
    slice(p->n, index, count, &begin, &end);
    switch (kind) {
    case STREAM_PROBE_COPY:
        copy_kernel(p->c + begin, p->a + begin, end - begin);
        break;
    case STREAM_PROBE_TRIAD:
        triad_kernel(p->a + begin, p->b + begin, p->c + begin, PROBE_TRIAD_SCALAR, end - begin);
        break;
    case STREAM_PROBE_MEMCPY:
        memcpy(p->c + begin, p->a + begin, (end - begin) * sizeof(double));
        break;
    default: /* -1: first touch */
        for (size_t i = begin; i < end; ++i) {
            p->a[i] = 1.0;
            p->b[i] = 2.0;
            p->c[i] = 0.0;
        }
        break;
    }
}

static void *worker_main(void *arg)
{
    probe_worker *w = arg;
    stream_probe *p = w->probe;
    pthread_mutex_lock(&p->gate);
    int stop_now = p->stopping;
    pthread_mutex_unlock(&p->gate);
    if (stop_now) {
        return NULL;
    }
    for (;;) {
        pthread_barrier_wait(&p->start);
        if (p->stopping) {
            return NULL;
        }
        if (w->index < p->active) {
            run_slice(p, p->kind, w->index, p->active);
        }
        pthread_barrier_wait(&p->finish);
    }
}

static void *alloc_huge(size_t bytes)
{
    void *base = NULL;
    if (posix_memalign(&base, PROBE_HUGE_PAGE, bytes) != 0) {
        return NULL;
    }
#if defined(MADV_HUGEPAGE)
    (void)madvise(base, bytes, MADV_HUGEPAGE); /* advice only */
#endif
    return base;
}

/* Runs one pass on `threads` threads; returns its seconds. */
static double run_pass(stream_probe *p, int kind, int threads)
{
    p->kind = kind;
    p->active = threads;
    double t0 = now_seconds();
    if (p->started > 0) {
        pthread_barrier_wait(&p->start);
    }
    run_slice(p, kind, 0, threads);
    if (p->started > 0) {
        pthread_barrier_wait(&p->finish);
    }
    return now_seconds() - t0;
}

stream_probe *stream_probe_create(size_t bytes_per_array, int max_threads)
{
    if (max_threads < 1 || max_threads > PROBE_MAX_THREADS) {
        return NULL;
    }
    size_t n = bytes_per_array / sizeof(double) / PROBE_LINE_DOUBLES * PROBE_LINE_DOUBLES;
    if (n == 0) {
        return NULL;
    }
    stream_probe *p = calloc(1, sizeof *p);
    if (p == NULL) {
        return NULL;
    }
    pthread_mutex_init(&p->gate, NULL);
    p->n = n;
    p->max_threads = max_threads;
    p->reserved_bytes = (n * sizeof(double) + PROBE_HUGE_PAGE - 1) / PROBE_HUGE_PAGE * PROBE_HUGE_PAGE;
    p->a = alloc_huge(p->reserved_bytes);
    p->b = alloc_huge(p->reserved_bytes);
    p->c = alloc_huge(p->reserved_bytes);
    p->threads = calloc((size_t)max_threads, sizeof *p->threads);
    p->workers = calloc((size_t)max_threads, sizeof *p->workers);
    if (p->a == NULL || p->b == NULL || p->c == NULL || p->threads == NULL || p->workers == NULL) {
        stream_probe_destroy(p);
        return NULL;
    }
    if (max_threads > 1) {
        /* Helpers wait on `gate` until the barriers exist, so that the
         * barriers can count the helpers that really started. */
        pthread_mutex_lock(&p->gate);
        for (int i = 1; i < max_threads; ++i) {
            p->workers[i].probe = p;
            p->workers[i].index = i;
            if (pthread_create(&p->threads[i], NULL, worker_main, &p->workers[i]) != 0) {
                break;
            }
            p->started = i;
        }
        p->max_threads = p->started + 1;
        int ok = p->started == 0 || pthread_barrier_init(&p->start, NULL, (unsigned)p->max_threads) == 0;
        if (ok && p->started > 0 && pthread_barrier_init(&p->finish, NULL, (unsigned)p->max_threads) != 0) {
            pthread_barrier_destroy(&p->start);
            ok = 0;
        }
        if (!ok) {
            p->stopping = 1; /* helpers see it after the gate and exit */
        }
        pthread_mutex_unlock(&p->gate);
        if (!ok) {
            for (int i = 1; i <= p->started; ++i) {
                pthread_join(p->threads[i], NULL);
            }
            p->started = 0;
            stream_probe_destroy(p);
            return NULL;
        }
    }
    (void)run_pass(p, -1, p->max_threads); /* first touch by the owning threads */
    return p;
}

double stream_probe_run(stream_probe *p, int kind, int threads)
{
    if (p == NULL || kind < STREAM_PROBE_COPY || kind > STREAM_PROBE_MEMCPY || threads < 1 ||
        threads > p->max_threads) {
        return -1.0;
    }
    double seconds = run_pass(p, kind, threads);
    p->last_seconds = seconds;
    return stream_probe_bytes(p, kind) / seconds / 1e9;
}

int stream_probe_max_threads(const stream_probe *p)
{
    return p == NULL ? 0 : p->max_threads;
}

double stream_probe_last_seconds(const stream_probe *p)
{
    return p == NULL ? 0.0 : p->last_seconds;
}

double stream_probe_bytes(const stream_probe *p, int kind)
{
    if (p == NULL) {
        return 0.0;
    }
    double arrays = kind == STREAM_PROBE_TRIAD ? 3.0 : 2.0;
    return arrays * (double)p->n * (double)sizeof(double);
}

const char *stream_probe_kind_name(int kind)
{
    switch (kind) {
    case STREAM_PROBE_COPY:
        return "copy";
    case STREAM_PROBE_TRIAD:
        return "triad";
    case STREAM_PROBE_MEMCPY:
        return "memcpy";
    default:
        return "unknown";
    }
}

void stream_probe_destroy(stream_probe *p)
{
    if (p == NULL) {
        return;
    }
    if (p->started > 0) {
        p->stopping = 1;
        pthread_barrier_wait(&p->start);
        for (int i = 1; i <= p->started; ++i) {
            pthread_join(p->threads[i], NULL);
        }
        pthread_barrier_destroy(&p->start);
        pthread_barrier_destroy(&p->finish);
    }
    free(p->a);
    free(p->b);
    free(p->c);
    free(p->threads);
    free(p->workers);
    pthread_mutex_destroy(&p->gate);
    free(p);
}
