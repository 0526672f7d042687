/* A small persistent thread pool. One loop runs at a time; the submitting
 * thread works too. Workers sleep on a condition variable between loops. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "common/emu.h"
#include "common/parallel.h"

typedef struct {
    emu_range_fn fn;
    void *ctx;
    size_t n;
    size_t grain;
    size_t chunks;
    atomic_size_t next_chunk;
} loop;

typedef struct {
    pthread_mutex_t submit; /* one loop at a time */
    pthread_mutex_t lock;   /* guards everything below */
    pthread_cond_t wake;
    pthread_cond_t done;
    pthread_t *workers;
    int worker_count;
    unsigned long generation; /* bumped for each loop and for shutdown */
    int busy_workers;
    int wanted_workers; /* workers that take part in the current loop */
    bool stopping;
    loop *current;
} pool;

static pool the_pool = {
    .submit = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

static void run_chunks(loop *job)
{
    for (;;) {
        size_t chunk = atomic_fetch_add(&job->next_chunk, 1);
        if (chunk >= job->chunks) {
            return;
        }
        size_t begin = chunk * job->grain;
        size_t end = begin + job->grain < job->n ? begin + job->grain : job->n;
        job->fn(job->ctx, begin, end);
    }
}

typedef struct {
    int index;
} worker_arg;

static void *worker_main(void *arg)
{
    int index = ((worker_arg *)arg)->index;
    free(arg);
    pool *p = &the_pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen) {
            pthread_cond_wait(&p->wake, &p->lock);
        }
        seen = p->generation;
        if (p->stopping) {
            break;
        }
        if (index >= p->wanted_workers || p->current == NULL) {
            continue;
        }
        loop *job = p->current;
        pthread_mutex_unlock(&p->lock);
        run_chunks(job);
        pthread_mutex_lock(&p->lock);
        if (--p->busy_workers == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Called with `submit` held. Grows the pool to `count` workers. */
static int ensure_workers(pool *p, int count)
{
    if (count <= p->worker_count) {
        return count;
    }
    pthread_t *grown = realloc(p->workers, (size_t)count * sizeof *grown);
    if (grown == NULL) {
        return p->worker_count;
    }
    p->workers = grown;
    while (p->worker_count < count) {
        worker_arg *arg = malloc(sizeof *arg);
        if (arg == NULL) {
            break;
        }
        arg->index = p->worker_count;
        if (pthread_create(&p->workers[p->worker_count], NULL, worker_main, arg) != 0) {
            free(arg);
            break;
        }
        ++p->worker_count;
    }
    return p->worker_count;
}

void emu_parallel_for(size_t n, size_t grain, emu_range_fn fn, void *ctx)
{
    if (n == 0) {
        return;
    }
    if (grain == 0) {
        grain = 1;
    }
    loop job = {.fn = fn, .ctx = ctx, .n = n, .grain = grain, .chunks = (n + grain - 1) / grain};
    atomic_init(&job.next_chunk, 0);

    int threads = emu_num_threads();
    pool *p = &the_pool;
    if (threads <= 1 || job.chunks == 1 || pthread_mutex_trylock(&p->submit) != 0) {
        run_chunks(&job);
        return;
    }
    int helpers = (int)(job.chunks - 1 < (size_t)(threads - 1) ? job.chunks - 1 : (size_t)(threads - 1));
    helpers = ensure_workers(p, helpers);

    pthread_mutex_lock(&p->lock);
    p->current = &job;
    p->wanted_workers = helpers;
    p->busy_workers = helpers;
    ++p->generation;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    run_chunks(&job);

    pthread_mutex_lock(&p->lock);
    while (p->busy_workers > 0) {
        pthread_cond_wait(&p->done, &p->lock);
    }
    p->current = NULL;
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->submit);
}

/* A forked child has none of the parent's workers: start from an empty pool. */
static void reset_after_fork(void)
{
    pool *p = &the_pool;
    pthread_mutex_init(&p->submit, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    free(p->workers);
    p->workers = NULL;
    p->worker_count = 0;
    p->busy_workers = 0;
    p->current = NULL;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, reset_after_fork);
}

/* Joins the workers at unload so leak checkers and valgrind see a clean exit.
 * If a loop is still running on another thread, the workers are left alone. */
__attribute__((destructor)) static void stop_pool(void)
{
    pool *p = &the_pool;
    if (pthread_mutex_trylock(&p->submit) != 0) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    ++p->generation;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->worker_count; ++i) {
        pthread_join(p->workers[i], NULL);
    }
    free(p->workers);
    p->workers = NULL;
    p->worker_count = 0;
    pthread_mutex_unlock(&p->submit);
}
