/* Streams and events.
 *
 * Each created stream is a FIFO of tasks run by its own worker thread (the
 * HIP-CPU model): the launching call queues a task and returns at once; the
 * worker starts at the first task and sleeps on a condition variable while
 * the queue is empty. A thread that waits without a time limit for queued
 * work (aclrtSynchronizeStream, a blocking launch, aclrtFree of a block the
 * work uses) while the worker is still asleep runs the waiting tasks itself,
 * in order and one at a time with the worker: the common "launch, then
 * synchronize" then costs no thread wake-up (about 45 us on the VMs we
 * measure on). A busy worker is left to drain its queue, so that the two do
 * not hand tasks back and forth. Tasks are numbered per stream in launch order;
 * `completed` is the number of the last finished one, so "wait for all work
 * queued so far" is "wait until completed reaches submitted as it was".
 *
 * The NULL (default) stream has no worker: work launched on it runs on the
 * calling thread before the call returns, so it is complete on return. It
 * does not wait for created streams. ACLNN_EMU_SYNC=1 (emu_sync_mode) makes
 * every stream behave that way, for debugging.
 *
 * Events follow CANN's flag model: aclrtRecordEvent queues a marker that
 * sets the event's "recorded" flag and timestamp when the stream reaches it;
 * aclrtResetEvent queues a marker that clears it; aclrtStreamWaitEvent
 * queues a task that holds the stream until the event's pending records
 * have completed, or, when the flag is clear and none is pending, until the
 * next record completes. Events are reference counted so that a marker may
 * outlive aclrtDestroyEvent. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/emu.h"

typedef struct emu_stream emu_stream;
struct emu_stream {
    pthread_mutex_t lock;
    pthread_cond_t task_ready; /* the worker waits here */
    pthread_cond_t task_done;  /* synchronizing threads wait here */
    emu_task *head;
    emu_task *tail;
    emu_task *running;
    uint64_t submitted;
    uint64_t completed;
    bool stopping;
    bool worker_started;
    bool worker_idle; /* started, or asleep, and not yet back for the queue */
    /* The number of the task a thread is running, from taking it to counting
     * it complete, or 0 (`running` is cleared earlier, before the task's
     * release may free it). */
    uint64_t busy_seq;
    pthread_t worker;
    char last_kernel[128]; /* kernel of the last operator run, for aclnnEmuGetLastKernel */
    bool kernel_fresh;     /* last_kernel changed since the last synchronize */
    uint32_t priority;
    uint32_t flags;
    emu_stream *next_live; /* in the list of live streams */
    int borrowers;         /* device-wide waits using it; under streams_lock */
    bool destroyed;        /* destroyed while borrowed: the last borrower frees it; under streams_lock */
    bool abandoned;        /* aclrtDestroyStreamForce: a running event wait gives up; under events_lock */
    /* aclrtDestroyStream and aclFinalize: an event wait that no queued record
     * can end gives up (nothing may record on the host any more); under
     * events_lock. */
    bool drop_unrecordable;
    /* An event wait gave up because nothing could record its event (the
     * event destroyed, or the stream being destroyed or finalized): the
     * event, for the next synchronize's error; under events_lock. */
    const void *dropped_event;
};

/* The live streams, for aclrtSynchronizeDevice and aclrtFree. */
static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static emu_stream *live_streams;

bool emu_stream_is_valid(aclrtStream stream)
{
    return stream == NULL || emu_handle_is(stream, EMU_HANDLE_STREAM);
}

bool emu_stream_runs_inline(aclrtStream stream)
{
    return stream == NULL || emu_sync_mode();
}

/* aclrtFree/aclrtUnmapMem held by an unrecordable event wait this long
 * print a notice (they go on waiting: another thread may record it). */
enum { STUCK_NOTICE_MS = 1000 };
/* The default stream's work behind aclrtStreamWaitEvent(NULL, event) waits
 * this long for another thread to queue a record of the event (see
 * settle_gates). */
enum { GATE_GRACE_MS = 1000 };


/* Event internals used by the stream code (defined with the events below). */
static pthread_mutex_t events_lock;
static bool stuck_on_event_locked(emu_stream *s, const void **event);
static aclError take_dropped_wait(const char *api, emu_stream *s);
static aclError settle_gates(const char *api, aclrtStream stream, bool drop);
static void drop_unrecordable_waits(emu_stream *s, bool drop);

static void finish_task(emu_task *task)
{
    if (task->release != NULL) {
        task->release(task);
    }
}

/* Runs the task at the head of the queue; called and returns with s->lock held. */
static void run_next_locked(emu_stream *s)
{
    emu_task *task = s->head;
    s->head = task->next;
    if (s->head == NULL) {
        s->tail = NULL;
    }
    s->running = task;
    s->busy_seq = task->seq;
    pthread_mutex_unlock(&s->lock);

    task->kernel = NULL;
    task->run(task);
    const char *kernel = task->kernel;
    uint64_t seq = task->seq;

    pthread_mutex_lock(&s->lock);
    if (kernel != NULL) {
        snprintf(s->last_kernel, sizeof s->last_kernel, "%s", kernel);
        s->kernel_fresh = true;
    }
    s->running = NULL;
    if (!task->release_on_completion) {
        pthread_mutex_unlock(&s->lock);
        /* Released before the task counts as complete, so that a synchronized
         * host sees consumed executors already freed (leak checks). */
        finish_task(task);
        pthread_mutex_lock(&s->lock);
    } else {
        finish_task(task); /* takes events_lock inside s->lock; nothing nests them the other way */
    }
    s->completed = seq;
    s->busy_seq = 0;
    pthread_cond_broadcast(&s->task_done);
    if (s->head != NULL) {
        pthread_cond_signal(&s->task_ready); /* the worker may have waited for this task's runner */
    }
}

static void *stream_worker(void *arg)
{
    emu_stream *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        /* One task at a time: a synchronizing thread may be running one. */
        while (s->busy_seq != 0 || (s->head == NULL && !s->stopping)) {
            s->worker_idle = true;
            pthread_cond_wait(&s->task_ready, &s->lock);
        }
        s->worker_idle = false;
        if (s->head == NULL) {
            break; /* stopping, and nothing left */
        }
        run_next_locked(s);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Called with s->lock held. Starts the worker when work is queued and there
 * is none; if no thread can be started, runs the queue here, in order. */
static void ensure_worker_locked(emu_stream *s)
{
    if (s->worker_started || s->head == NULL) {
        return;
    }
    if (pthread_create(&s->worker, NULL, stream_worker, s) == 0) {
        s->worker_started = true;
        s->worker_idle = true;
        return;
    }
    while (s->head != NULL) {
        run_next_locked(s);
    }
}

static void run_inline(emu_task *task)
{
    task->kernel = NULL;
    task->run(task);
    if (task->kernel != NULL) {
        emu_set_last_kernel(task->kernel);
    }
    finish_task(task);
}

bool emu_stream_submit(aclrtStream stream, emu_task *task)
{
    task->next = NULL;
    if (emu_stream_runs_inline(stream)) {
        run_inline(task);
        return true;
    }
    emu_stream *s = stream;
    pthread_mutex_lock(&s->lock);
    task->seq = ++s->submitted;
    if (s->tail != NULL) {
        s->tail->next = task;
    } else {
        s->head = task;
    }
    s->tail = task;
    pthread_cond_signal(&s->task_ready);
    ensure_worker_locked(s);
    pthread_mutex_unlock(&s->lock);
    return true;
}

/* Waits until the stream has completed task `target`; false on timeout
 * (timeout_ms < 0: no limit) and, with `stuck_event` given, as soon as the
 * stream is held by an event wait that no queued record can end (the event
 * is then stored there). Called without s->lock. */
static bool wait_completed_or_stuck(emu_stream *s, uint64_t target, int32_t timeout_ms, const void **stuck_event);

static bool wait_completed(emu_stream *s, uint64_t target, int32_t timeout_ms)
{
    return wait_completed_or_stuck(s, target, timeout_ms, NULL);
}

static bool wait_completed_or_stuck(emu_stream *s, uint64_t target, int32_t timeout_ms, const void **stuck_event)
{
    bool done = true;
    struct timespec deadline;
    if (timeout_ms >= 0) {
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&s->lock);
    while (s->completed < target) {
        if (stuck_event != NULL && stuck_on_event_locked(s, stuck_event)) {
            done = false;
            break;
        }
        if (timeout_ms < 0 && s->worker_idle && s->busy_seq == 0 && s->head != NULL && s->head->seq <= target) {
            /* A timed wait does not help: a task may take longer than its limit. */
            run_next_locked(s);
        } else if (timeout_ms < 0) {
            pthread_cond_wait(&s->task_done, &s->lock);
        } else if (pthread_cond_timedwait(&s->task_done, &s->lock, &deadline) == ETIMEDOUT) {
            done = s->completed >= target;
            break;
        }
    }
    if (done && s->kernel_fresh) {
        emu_set_last_kernel(s->last_kernel);
        s->kernel_fresh = false;
    }
    pthread_mutex_unlock(&s->lock);
    return done;
}

static uint64_t submitted_now(emu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    ensure_worker_locked(s); /* after a fork, queued work has no worker yet */
    uint64_t target = s->submitted;
    pthread_mutex_unlock(&s->lock);
    return target;
}

static bool synchronize(emu_stream *s, int32_t timeout_ms)
{
    return wait_completed(s, submitted_now(s), timeout_ms);
}

/* ---- the launch helper for callers that keep their work on the stack ---- */

typedef struct {
    emu_task task;
    emu_stream_work_fn work;
    void *ctx;
} blocking_work;

static void run_blocking(emu_task *task)
{
    blocking_work *w = (blocking_work *)task;
    w->work(w->ctx);
}

void emu_stream_launch(aclrtStream stream, emu_stream_work_fn work, void *ctx)
{
    blocking_work w = {.task = {.run = run_blocking}, .work = work, .ctx = ctx};
    emu_stream_submit(stream, &w.task);
    if (!emu_stream_runs_inline(stream)) {
        emu_stream *s = stream;
        wait_completed(s, w.task.seq, -1);
    }
}

/* ---- device-wide waits ---- */

/* Device-wide waits borrow the live streams (so that a stream destroyed
 * meanwhile stays allocated until they return it) and wait without holding
 * streams_lock: a wait may last until another thread records an event, and
 * that thread may need the lock. */
typedef struct {
    emu_stream **streams;
    size_t count;
} borrowed_streams;

static bool borrow_streams(borrowed_streams *out)
{
    pthread_mutex_lock(&streams_lock);
    size_t count = 0;
    for (emu_stream *s = live_streams; s != NULL; s = s->next_live) {
        ++count;
    }
    out->count = 0;
    out->streams = count ? malloc(count * sizeof *out->streams) : NULL;
    if (count > 0 && out->streams == NULL) {
        pthread_mutex_unlock(&streams_lock);
        return false;
    }
    for (emu_stream *s = live_streams; s != NULL; s = s->next_live) {
        s->borrowers++;
        out->streams[out->count++] = s;
    }
    pthread_mutex_unlock(&streams_lock);
    return true;
}

static void free_stream(emu_stream *s)
{
    pthread_cond_destroy(&s->task_done);
    pthread_cond_destroy(&s->task_ready);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static void return_streams(borrowed_streams *borrowed)
{
    size_t orphans = 0;
    pthread_mutex_lock(&streams_lock);
    for (size_t i = 0; i < borrowed->count; ++i) {
        emu_stream *s = borrowed->streams[i];
        if (--s->borrowers == 0 && s->destroyed) {
            borrowed->streams[orphans++] = s; /* aclrtDestroyStream left it to us */
        }
    }
    pthread_mutex_unlock(&streams_lock);
    for (size_t i = 0; i < orphans; ++i) {
        free_stream(borrowed->streams[i]);
    }
    free(borrowed->streams);
}

/* Every live stream; `timeout_ms` < 0: no limit, else for each stream in
 * turn (aclrtSynchronizeDeviceWithTimeout: 507046 when one is not done). A
 * stream whose event wait was dropped (see take_dropped_wait) gives 507046
 * too, naming `api`, the stream and the event. */
static aclError synchronize_all(const char *api, int32_t timeout_ms)
{
    borrowed_streams borrowed;
    if (!borrow_streams(&borrowed)) {
        return emu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory.", api);
    }
    aclError status = ACL_SUCCESS;
    const double deadline = emu_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    for (size_t i = 0; i < borrowed.count; ++i) {
        int32_t left = -1;
        if (timeout_ms >= 0) {
            double remaining = deadline - emu_now_ms();
            left = remaining > 0 ? (int32_t)remaining : 0;
        }
        if (!synchronize(borrowed.streams[i], left)) {
            if (status == ACL_SUCCESS) {
                status = emu_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "%s: stream %p still has work after timeout %d "
                                                                    "ms; expected it to finish in time (is it "
                                                                    "waiting for an event that is never recorded?).",
                                  api, (void *)borrowed.streams[i], (int)timeout_ms);
            }
            continue;
        }
        aclError dropped = take_dropped_wait(api, borrowed.streams[i]);
        if (status == ACL_SUCCESS) {
            status = dropped;
        }
    }
    return_streams(&borrowed);
    return status;
}

void emu_streams_synchronize_all(void)
{
    (void)synchronize_all("aclrtSynchronizeDevice", -1);
}

static bool task_uses(const emu_task *task, const void *base, size_t size)
{
    return task->uses != NULL && task->uses(task, base, size);
}

aclError emu_streams_wait_for_block(const char *api, const char *what, const void *base, size_t size)
{
    borrowed_streams borrowed;
    if (!borrow_streams(&borrowed)) {
        emu_streams_synchronize_all();
        return ACL_SUCCESS;
    }
    aclError status = ACL_SUCCESS;
    for (size_t i = 0; i < borrowed.count && status == ACL_SUCCESS; ++i) {
        emu_stream *s = borrowed.streams[i];
        uint64_t last_user = 0;
        pthread_mutex_lock(&s->lock);
        if (s->running != NULL && task_uses(s->running, base, size)) {
            last_user = s->running->seq;
        }
        for (const emu_task *t = s->head; t != NULL; t = t->next) {
            if (task_uses(t, base, size)) {
                last_user = t->seq;
            }
        }
        pthread_mutex_unlock(&s->lock);
        const void *event = NULL;
        if (last_user != 0 && !wait_completed_or_stuck(s, last_user, -1, &event)) {
            /* Held by an event no queued record can end: only another
             * thread's aclrtRecordEvent (or aclrtDestroyEvent, which drops the
             * wait) can release it. Wait, but say so after a second. */
            if (!wait_completed(s, last_user, STUCK_NOTICE_MS)) {
                fprintf(stderr, "aclnn_emu: %s: %s %p is used by work queued on stream %p, which waits "
                                "(aclrtStreamWaitEvent) for event %p; the event is not recorded and no record of it "
                                "is queued; still waiting for another thread to record it (or to destroy it, or the "
                                "stream with aclrtDestroyStreamForce).\n", api, what, base, (void *)s, event);
                fflush(stderr);
                wait_completed(s, last_user, -1);
            }
        }
    }
    return_streams(&borrowed);
    return status;
}

size_t emu_stream_live_count(void)
{
    size_t count = 0;
    pthread_mutex_lock(&streams_lock);
    for (emu_stream *s = live_streams; s != NULL; s = s->next_live) {
        ++count;
    }
    pthread_mutex_unlock(&streams_lock);
    return count;
}

/* ---- streams ---- */

static aclError bad_stream(const char *api, aclrtStream stream)
{
    return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is not a live stream; expected NULL (the default "
                                             "stream) or a stream from aclrtCreateStream.", api, stream);
}

/* Both creation entry points; `api` names the one called in messages. */
static aclError create_stream(const char *api, aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    if (stream == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL; expected a pointer to aclrtStream.", api);
    }
    aclError status = emu_require_device(api);
    if (status != ACL_SUCCESS) {
        return status;
    }
    emu_stream *created = calloc(1, sizeof *created);
    if (created == NULL) {
        return emu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory.", api);
    }
    pthread_mutex_init(&created->lock, NULL);
    pthread_cond_init(&created->task_ready, NULL);
    pthread_cond_init(&created->task_done, NULL);
    created->priority = priority;
    created->flags = flag;
    if (!emu_handle_add(created, EMU_HANDLE_STREAM)) {
        free_stream(created);
        return emu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory.", api);
    }
    pthread_mutex_lock(&streams_lock);
    created->next_live = live_streams;
    live_streams = created;
    pthread_mutex_unlock(&streams_lock);
    *stream = created;
    return ACL_SUCCESS;
}

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    return create_stream("aclrtCreateStreamWithConfig", stream, priority, flag);
}

aclError aclrtCreateStream(aclrtStream *stream)
{
    return create_stream("aclrtCreateStream", stream, 0, 0);
}

/* Both destroy calls: the handle, checked and removed from the registry
 * and the live list; NULL after setting the message. */
static emu_stream *retire_stream(const char *api, aclrtStream stream)
{
    if (stream == NULL) {
        emu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL; expected a stream from aclrtCreateStream.", api);
        return NULL;
    }
    if (!emu_handle_remove(stream, EMU_HANDLE_STREAM)) {
        bad_stream(api, stream);
        return NULL;
    }
    emu_stream *s = stream;
    pthread_mutex_lock(&streams_lock);
    for (emu_stream **link = &live_streams; *link != NULL; link = &(*link)->next_live) {
        if (*link == s) {
            *link = s->next_live;
            break;
        }
    }
    pthread_mutex_unlock(&streams_lock);
    return s;
}

/* Both destroy calls, once the worker has stopped. A device-wide wait
 * (aclrtSynchronizeDevice, aclrtFree) may still hold the stream, waiting
 * for work on other streams: its last borrower frees it. Waiting here
 * instead deadlocked a thread that would, after this call, record the
 * event those waits need. */
static void free_unless_borrowed(emu_stream *s)
{
    pthread_mutex_lock(&streams_lock);
    const bool borrowed = s->borrowers > 0;
    s->destroyed = borrowed;
    pthread_mutex_unlock(&streams_lock);
    if (!borrowed) {
        free_stream(s);
    }
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    emu_stream *s = retire_stream("aclrtDestroyStream", stream);
    if (s == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    /* The queued work still runs: the worker drains the queue before it
     * stops. CANN requires the stream's work complete before this call, so an
     * event wait that no queued record can end would never end: it gives up,
     * the rest of the queue runs, and the call reports it. */
    drop_unrecordable_waits(s, true);
    pthread_mutex_lock(&s->lock);
    ensure_worker_locked(s);
    s->stopping = true;
    bool started = s->worker_started;
    pthread_cond_signal(&s->task_ready);
    pthread_mutex_unlock(&s->lock);
    if (started) {
        pthread_join(s->worker, NULL);
    }
    aclError status = take_dropped_wait("aclrtDestroyStream", s);
    free_unless_borrowed(s);
    return status;
}

static void discard_tasks(emu_task *head);
static void abandon_event_waits(emu_stream *s);

aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    emu_stream *s = retire_stream("aclrtDestroyStreamForce", stream);
    if (s == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    /* Tasks not started yet leave the queue; a running event wait gives up. */
    pthread_mutex_lock(&s->lock);
    emu_task *dropped = s->head;
    s->head = NULL;
    s->tail = NULL;
    s->stopping = true;
    pthread_mutex_unlock(&s->lock);
    abandon_event_waits(s);
    /* The running task, if any, finishes; then everything queued counts as
     * complete, so threads synchronizing the stream return. */
    pthread_mutex_lock(&s->lock);
    while (s->busy_seq != 0) {
        pthread_cond_wait(&s->task_done, &s->lock);
    }
    s->completed = s->submitted;
    pthread_cond_broadcast(&s->task_done);
    pthread_cond_signal(&s->task_ready);
    bool started = s->worker_started;
    pthread_mutex_unlock(&s->lock);
    if (started) {
        pthread_join(s->worker, NULL);
    }
    discard_tasks(dropped);
    free_unless_borrowed(s);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtSynchronizeStream", stream);
    }
    if (stream == NULL) {
        return settle_gates("aclrtSynchronizeStream", NULL, true);
    }
    synchronize(stream, -1);
    return take_dropped_wait("aclrtSynchronizeStream", stream);
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    if (timeout < -1) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStreamWithTimeout: timeout is %d; expected -1 "
                                                 "(wait forever) or a number of milliseconds >= 0.", (int)timeout);
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtSynchronizeStreamWithTimeout", stream);
    }
    if (stream == NULL) {
        return settle_gates("aclrtSynchronizeStreamWithTimeout", NULL, true);
    }
    if (!synchronize(stream, timeout)) {
        return emu_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "aclrtSynchronizeStreamWithTimeout: stream %p still has "
                                                          "work after timeout %d ms; expected it to finish in time "
                                                          "(is it waiting for an event that is never recorded?).",
                        stream, (int)timeout);
    }
    return take_dropped_wait("aclrtSynchronizeStreamWithTimeout", stream);
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    if (status == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is NULL; expected a pointer to "
                                                 "aclrtStreamStatus.");
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtStreamQuery", stream);
    }
    bool complete = true;
    if (stream != NULL) {
        emu_stream *s = stream;
        pthread_mutex_lock(&s->lock);
        complete = s->completed == s->submitted;
        pthread_mutex_unlock(&s->lock);
    }
    *status = complete ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void)
{
    aclError gates = settle_gates("aclrtSynchronizeDevice", NULL, true);
    aclError status = synchronize_all("aclrtSynchronizeDevice", -1);
    return gates != ACL_SUCCESS ? gates : status;
}

/* CANN: timeout -1 waits without limit, 0 checks; below -1 is
 * ACL_ERROR_RT_PARAM_INVALID (RT src/acl/aclrt_impl/device.cpp). The limit
 * applies to all streams together. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    if (timeout < -1) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeDeviceWithTimeout: timeout is %d; expected -1 "
                                                    "(wait forever) or a number of milliseconds >= 0.", (int)timeout);
    }
    aclError gates = settle_gates("aclrtSynchronizeDeviceWithTimeout", NULL, true);
    aclError status = synchronize_all("aclrtSynchronizeDeviceWithTimeout", timeout);
    return gates != ACL_SUCCESS ? gates : status;
}

/* ---- events ---- */

typedef struct {
    uint32_t flags;
    int refs;           /* the handle + queued markers; under events_lock */
    uint64_t issued;    /* records queued */
    uint64_t completed; /* records that ran */
    bool recorded;      /* the flag: set by a record, cleared by a reset */
    bool destroyed;     /* aclrtDestroyEvent ran: no record can be issued any more */
    double timestamp_ms;
} emu_event;

/* One lock and condition for every event: event traffic is light. */
static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t events_changed = PTHREAD_COND_INITIALIZER;

static void event_release_locked(emu_event *ev)
{
    if (--ev->refs == 0) {
        free(ev);
    }
}

typedef enum { MARK_RECORD, MARK_RESET, MARK_WAIT } marker_kind;

typedef struct {
    emu_task task;
    emu_event *event;
    marker_kind kind;
    uint64_t target; /* record: its number; wait: the record count to reach */
    bool on_heap;    /* queued markers are on the heap; inline ones on the stack */
    const bool *abandoned; /* its stream's flag (NULL inline): a wait gives up; under events_lock */
    emu_stream *stream;    /* the created stream it is queued on (NULL inline) */
} event_marker;

/* A wait holds its stream here. A record or reset takes effect in its
 * release, which a stream runs as the marker counts complete: a thread that
 * sees the event recorded also sees the recording stream past the marker
 * (a consumer synchronized after waiting on it finds the producer done). */
static void run_marker(emu_task *task)
{
    event_marker *m = (event_marker *)task;
    if (m->kind != MARK_WAIT) {
        return;
    }
    emu_event *ev = m->event;
    pthread_mutex_lock(&events_lock);
    while (ev->completed < m->target && (m->abandoned == NULL || !*m->abandoned)) {
        /* No record that reaches the target is queued, and none can come:
         * the event is destroyed, or its stream is being destroyed or
         * finalized. Waiting would never end: give up, and tell the stream. */
        if (ev->issued < m->target && (ev->destroyed || (m->stream != NULL && m->stream->drop_unrecordable))) {
            if (m->stream != NULL && m->stream->dropped_event == NULL) {
                m->stream->dropped_event = ev;
            }
            break;
        }
        pthread_cond_wait(&events_changed, &events_lock);
    }
    pthread_mutex_unlock(&events_lock);
}

/* Under s->lock: the task the stream runs now, or runs next when none runs,
 * is an event wait that no queued record can end (a later host call might
 * still record it). */
static bool stuck_on_event_locked(emu_stream *s, const void **event)
{
    const emu_task *task = s->running;
    if (task == NULL && s->busy_seq == 0) {
        task = s->head;
    }
    if (task == NULL || task->run != run_marker || ((const event_marker *)task)->kind != MARK_WAIT) {
        return false;
    }
    const event_marker *m = (const event_marker *)task;
    pthread_mutex_lock(&events_lock); /* inside s->lock, as finish_task nests them */
    const bool stuck = m->event->completed < m->target && m->event->issued < m->target;
    pthread_mutex_unlock(&events_lock);
    if (stuck) {
        *event = m->event;
    }
    return stuck;
}

static void drop_unrecordable_waits(emu_stream *s, bool drop)
{
    pthread_mutex_lock(&events_lock);
    s->drop_unrecordable = drop;
    pthread_cond_broadcast(&events_changed);
    pthread_mutex_unlock(&events_lock);
}

/* The error for a wait that run_marker gave up, once: 507046 naming `api`,
 * the stream and the event. */
static aclError take_dropped_wait(const char *api, emu_stream *s)
{
    pthread_mutex_lock(&events_lock);
    const void *event = s->dropped_event;
    s->dropped_event = NULL;
    pthread_mutex_unlock(&events_lock);
    if (event == NULL) {
        return ACL_SUCCESS;
    }
    return emu_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "%s: stream %p waited (aclrtStreamWaitEvent) for event %p, "
                                                      "which is not recorded and which nothing could record any more "
                                                      "(the event was destroyed, or the stream destroyed or "
                                                      "finalized, with no record of it queued); the wait was dropped "
                                                      "and the stream's later work ran without it; expected "
                                                      "aclrtRecordEvent for every event a stream waits for.", api,
                    (void *)s, event);
}

aclError emu_streams_finalize(void)
{
    /* After aclFinalize no call may record an event: a wait that no queued
     * record can end gives up, so that the synchronize below returns. */
    borrowed_streams borrowed = {NULL, 0};
    const bool borrowed_ok = borrow_streams(&borrowed);
    for (size_t i = 0; i < borrowed.count; ++i) {
        drop_unrecordable_waits(borrowed.streams[i], true);
    }
    aclError gates = settle_gates("aclFinalize", NULL, true);
    aclError status = synchronize_all("aclFinalize", -1);
    for (size_t i = 0; i < borrowed.count; ++i) {
        drop_unrecordable_waits(borrowed.streams[i], false);
    }
    if (borrowed_ok) {
        return_streams(&borrowed);
    }
    return gates != ACL_SUCCESS ? gates : status;
}

/* ---- waits of the default stream ----
 * The default stream runs its work on the calling thread, so
 * aclrtStreamWaitEvent(NULL, event) cannot hold it as a device holds a
 * stream while the host goes on. When no record of the event is queued yet,
 * the wait returns at once and leaves a gate on the calling thread's default
 * stream: its next work waits for a queued record, and when none is queued
 * within GATE_GRACE_MS fails (507046 from runtime calls, 361001 from phase 2,
 * with a message naming the event) instead of blocking the thread that would
 * record it. Synchronizing the default stream drops such a gate, reporting it.
 * (Under ACLNN_EMU_SYNC=1 a created stream's wait blocks the calling thread
 * until the record, as before: that mode is for debugging.) */
typedef struct gate {
    struct gate *next;
    aclrtStream stream; /* NULL, or a created stream under ACLNN_EMU_SYNC=1 */
    emu_event *event;   /* holds a reference */
    uint64_t target;
} gate;

static _Thread_local gate *thread_gates;

static aclError settle_gates(const char *api, aclrtStream stream, bool drop)
{
    aclError status = ACL_SUCCESS;
    gate **link = &thread_gates;
    while (*link != NULL) {
        gate *g = *link;
        if (g->stream != stream) {
            link = &g->next;
            continue;
        }
        emu_event *ev = g->event;
        bool done = false, blocked = false, destroyed = false;
        /* Another thread may be about to record it: give it a grace period
         * in which a record may be queued (then wait for that record without
         * limit), so a single thread gets an error rather than a hang. */
        struct timespec grace;
        clock_gettime(CLOCK_REALTIME, &grace);
        grace.tv_sec += GATE_GRACE_MS / 1000;
        grace.tv_nsec += (long)(GATE_GRACE_MS % 1000) * 1000000L;
        if (grace.tv_nsec >= 1000000000L) {
            grace.tv_sec += 1;
            grace.tv_nsec -= 1000000000L;
        }
        bool grace_over = false;
        pthread_mutex_lock(&events_lock);
        for (;;) {
            if (ev->completed >= g->target) {
                done = true;
                break;
            }
            if (ev->issued < g->target && (ev->destroyed || grace_over)) { /* nothing queued can record it */
                blocked = true;
                destroyed = ev->destroyed;
                break;
            }
            if (ev->issued >= g->target) {
                pthread_cond_wait(&events_changed, &events_lock);
            } else if (pthread_cond_timedwait(&events_changed, &events_lock, &grace) == ETIMEDOUT) {
                grace_over = true;
            }
        }
        pthread_mutex_unlock(&events_lock);
        if (blocked && status == ACL_SUCCESS) {
            char where[64];
            if (stream == NULL) {
                snprintf(where, sizeof where, "the default stream");
            } else {
                snprintf(where, sizeof where, "stream %p (run inline: ACLNN_EMU_SYNC=1)", stream);
            }
            status = emu_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                              "%s: %s waits (aclrtStreamWaitEvent) for event %p, which %s; aclnn_emu runs that "
                              "stream's work on the calling thread, so it can only wait for a record queued on a "
                              "created stream (or by another thread within %d ms); %s", api, where, (void *)ev,
                              destroyed ? "was destroyed without a record queued"
                                        : "is not recorded and has no record queued",
                              (int)GATE_GRACE_MS,
                              drop || destroyed ? "the wait was dropped."
                                                : "expected aclrtRecordEvent on a created stream before more work on "
                                                  "it (synchronizing it drops the wait).");
        }
        if (done || drop || destroyed) {
            *link = g->next;
            pthread_mutex_lock(&events_lock);
            event_release_locked(ev);
            pthread_mutex_unlock(&events_lock);
            free(g);
        } else {
            link = &g->next;
        }
    }
    return status;
}

aclError emu_stream_ready(const char *api, aclrtStream stream)
{
    if (thread_gates == NULL || stream != NULL) {
        return ACL_SUCCESS;
    }
    return settle_gates(api, stream, false);
}

static void release_marker(emu_task *task)
{
    event_marker *m = (event_marker *)task;
    emu_event *ev = m->event;
    pthread_mutex_lock(&events_lock);
    if (m->kind == MARK_RECORD) {
        if (m->target > ev->completed) {
            ev->completed = m->target;
        }
        ev->recorded = true;
        ev->timestamp_ms = emu_now_ms();
        pthread_cond_broadcast(&events_changed);
    } else if (m->kind == MARK_RESET) {
        ev->recorded = false;
        pthread_cond_broadcast(&events_changed);
    }
    event_release_locked(ev);
    pthread_mutex_unlock(&events_lock);
    if (m->on_heap) {
        free(m);
    }
}

/* The target a wait queued now waits for: pending records, or, when the
 * flag is clear and none is pending, the next record (CANN's
 * wait-until-recorded). Under events_lock. */
static uint64_t wait_target_locked(const emu_event *ev)
{
    return ev->issued > ev->completed ? ev->issued : ev->recorded ? ev->completed : ev->issued + 1;
}

/* aclrtStreamWaitEvent on a stream that runs inline: done when the target
 * is reached, waits here for a record already queued, and otherwise leaves a
 * gate (see settle_gates) and returns at once, as CANN's call does. */
static aclError wait_inline(const char *api, emu_event *ev, aclrtStream stream)
{
    gate *g = malloc(sizeof *g);
    if (g == NULL) {
        return emu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory.", api);
    }
    bool keep = false;
    pthread_mutex_lock(&events_lock);
    const uint64_t target = wait_target_locked(ev);
    while (ev->completed < target && ev->issued >= target) {
        pthread_cond_wait(&events_changed, &events_lock);
    }
    if (ev->completed < target) {
        ++ev->refs;
        keep = true;
    }
    pthread_mutex_unlock(&events_lock);
    if (!keep) {
        free(g);
        return ACL_SUCCESS;
    }
    *g = (gate){.next = thread_gates, .stream = stream, .event = ev, .target = target};
    thread_gates = g;
    return ACL_SUCCESS;
}

/* Queues (or, inline, runs) a marker. */
static aclError submit_marker(const char *api, emu_event *ev, aclrtStream stream, marker_kind kind)
{
    bool inline_run = emu_stream_runs_inline(stream);
    if (inline_run) {
        aclError ready = emu_stream_ready(api, stream);
        if (ready != ACL_SUCCESS) {
            return ready;
        }
    }
    if (stream == NULL && kind == MARK_WAIT) {
        return wait_inline(api, ev, stream);
    }
    event_marker local;
    event_marker *m = inline_run ? &local : malloc(sizeof *m);
    if (m == NULL) {
        return emu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory.", api);
    }
    memset(m, 0, sizeof *m);
    m->task.run = run_marker;
    m->task.release = release_marker;
    m->task.release_on_completion = true;
    m->event = ev;
    m->kind = kind;
    m->on_heap = !inline_run;
    m->abandoned = inline_run ? NULL : &((emu_stream *)stream)->abandoned;
    m->stream = inline_run ? NULL : (emu_stream *)stream;
    pthread_mutex_lock(&events_lock);
    ++ev->refs;
    switch (kind) {
    case MARK_RECORD:
        m->target = ++ev->issued;
        break;
    case MARK_RESET:
        break;
    case MARK_WAIT:
        m->target = wait_target_locked(ev);
        break;
    }
    pthread_mutex_unlock(&events_lock);
    emu_stream_submit(stream, &m->task);
    return ACL_SUCCESS;
}

static void abandon_event_waits(emu_stream *s)
{
    pthread_mutex_lock(&events_lock);
    s->abandoned = true;
    pthread_cond_broadcast(&events_changed);
    pthread_mutex_unlock(&events_lock);
}

/* Releases tasks aclrtDestroyStreamForce dropped, without running them. A
 * dropped record completes its number without touching the event's flag or
 * timestamp, so that no wait for it lasts forever. */
static void discard_tasks(emu_task *head)
{
    while (head != NULL) {
        emu_task *task = head;
        head = task->next;
        if (task->run != run_marker) {
            finish_task(task);
            continue;
        }
        event_marker *m = (event_marker *)task;
        pthread_mutex_lock(&events_lock);
        if (m->kind == MARK_RECORD && m->target > m->event->completed) {
            m->event->completed = m->target;
            pthread_cond_broadcast(&events_changed);
        }
        event_release_locked(m->event);
        pthread_mutex_unlock(&events_lock);
        free(m);
    }
}

static aclError bad_event(const char *api, const char *name, aclrtEvent event)
{
    return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p is %s; expected an event from aclrtCreateEvent.", api, name,
                    event, event == NULL ? "NULL" : "not a live event");
}

static bool event_is_live(aclrtEvent event)
{
    return event != NULL && emu_handle_is(event, EMU_HANDLE_EVENT);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    if (!event_is_live(event)) {
        return bad_event("aclrtStreamWaitEvent", "event", event);
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtStreamWaitEvent", stream);
    }
    return submit_marker("aclrtStreamWaitEvent", event, stream, MARK_WAIT);
}

/* The three creation entry points; `api` names the one called in messages. */
static aclError create_event(const char *api, aclrtEvent *event, uint32_t flag)
{
    if (event == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: event is NULL; expected a pointer to aclrtEvent.", api);
    }
    emu_event *created = calloc(1, sizeof *created);
    if (created == NULL || !emu_handle_add(created, EMU_HANDLE_EVENT)) {
        free(created);
        return emu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory.", api);
    }
    created->flags = flag;
    created->refs = 1;
    *event = created;
    return ACL_SUCCESS;
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event("aclrtCreateEventWithFlag", event, flag);
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
    return create_event("aclrtCreateEvent", event, ACL_EVENT_SYNC);
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event("aclrtCreateEventExWithFlag", event, flag);
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    if (!event_is_live(event)) {
        return bad_event("aclrtRecordEvent", "event", event);
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtRecordEvent", stream);
    }
    return submit_marker("aclrtRecordEvent", event, stream, MARK_RECORD);
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    if (!event_is_live(event)) {
        return bad_event("aclrtResetEvent", "event", event);
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtResetEvent", stream);
    }
    return submit_marker("aclrtResetEvent", event, stream, MARK_RESET);
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    if (status == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is NULL; expected a pointer to "
                                                 "aclrtEventRecordedStatus.");
    }
    if (!event_is_live(event)) {
        return bad_event("aclrtQueryEventStatus", "event", event);
    }
    emu_event *ev = event;
    pthread_mutex_lock(&events_lock);
    bool complete = ev->recorded && ev->completed == ev->issued;
    pthread_mutex_unlock(&events_lock);
    *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    if (!event_is_live(event)) {
        return bad_event("aclrtSynchronizeEvent", "event", event);
    }
    emu_event *ev = event;
    pthread_mutex_lock(&events_lock);
    uint64_t target = ev->issued; /* never recorded: nothing to wait for */
    while (ev->completed < target) {
        pthread_cond_wait(&events_changed, &events_lock);
    }
    pthread_mutex_unlock(&events_lock);
    return ACL_SUCCESS;
}

/* CANN: -1 waits without limit, 0 checks; below -1 is ACL_ERROR_RT_PARAM_INVALID,
 * NULL is ACL_ERROR_INVALID_PARAM and the timeout ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
 * (507047) (RT src/acl/aclrt_impl/event.cpp). Waits in slices of this call
 * let a binding stay responsive (Python checks for Ctrl-C between them). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    if (timeout < -1) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeEventWithTimeout: timeout is %d; expected -1 "
                                                    "(wait forever) or a number of milliseconds >= 0.", (int)timeout);
    }
    if (!event_is_live(event)) {
        return bad_event("aclrtSynchronizeEventWithTimeout", "event", event);
    }
    emu_event *ev = event;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    if (timeout > 0) {
        deadline.tv_sec += timeout / 1000;
        deadline.tv_nsec += (long)(timeout % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    bool done = true;
    pthread_mutex_lock(&events_lock);
    uint64_t target = ev->issued; /* never recorded: nothing to wait for */
    while (ev->completed < target) {
        if (timeout < 0) {
            pthread_cond_wait(&events_changed, &events_lock);
        } else if (timeout == 0 ||
                   pthread_cond_timedwait(&events_changed, &events_lock, &deadline) == ETIMEDOUT) {
            done = ev->completed >= target;
            break;
        }
    }
    pthread_mutex_unlock(&events_lock);
    if (!done) {
        return emu_fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "aclrtSynchronizeEventWithTimeout: event %p has a record "
                                                         "its stream has not reached after timeout %d ms; expected "
                                                         "it to finish in time (is its stream waiting for an event "
                                                         "that is never recorded?).", event, (int)timeout);
    }
    return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    if (ms == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is NULL; expected a pointer to float.");
    }
    if (!event_is_live(startEvent)) {
        return bad_event("aclrtEventElapsedTime", "startEvent", startEvent);
    }
    if (!event_is_live(endEvent)) {
        return bad_event("aclrtEventElapsedTime", "endEvent", endEvent);
    }
    const emu_event *events[2] = {startEvent, endEvent};
    const char *names[2] = {"startEvent", "endEvent"};
    aclError status = ACL_SUCCESS;
    pthread_mutex_lock(&events_lock);
    for (int i = 0; i < 2 && status == ACL_SUCCESS; ++i) {
        if (events[i]->completed < events[i]->issued) {
            status = emu_fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "aclrtEventElapsedTime: %s %p is recorded but its "
                                                               "stream has not reached it yet; expected "
                                                               "aclrtSynchronizeEvent or aclrtSynchronizeStream "
                                                               "first.", names[i], (const void *)events[i]);
        } else if (!events[i]->recorded) {
            status = emu_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "aclrtEventElapsedTime: %s was not recorded; "
                                                                    "expected both events recorded with "
                                                                    "aclrtRecordEvent.", names[i]);
        }
    }
    double elapsed = endEvent == startEvent ? 0.0 : events[1]->timestamp_ms - events[0]->timestamp_ms;
    pthread_mutex_unlock(&events_lock);
    if (status == ACL_SUCCESS) {
        *ms = (float)elapsed;
    }
    return status;
}

aclError aclrtDestroyEvent(aclrtEvent event)
{
    if (event == NULL || !emu_handle_remove(event, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtDestroyEvent", "event", event);
    }
    /* Markers still queued keep the event alive until they have run; waits
     * that no queued record can end give up (run_marker). */
    pthread_mutex_lock(&events_lock);
    ((emu_event *)event)->destroyed = true;
    pthread_cond_broadcast(&events_changed);
    event_release_locked(event);
    pthread_mutex_unlock(&events_lock);
    return ACL_SUCCESS;
}

/* A forked child has none of the parent's stream workers: each stream starts
 * a new one when it next has work, and the locks start unlocked. A task the
 * parent was running at the fork counts as done in the child. */
static void reset_after_fork(void)
{
    pthread_mutex_init(&streams_lock, NULL);
    pthread_mutex_init(&events_lock, NULL);
    pthread_cond_init(&events_changed, NULL);
    for (emu_stream *s = live_streams; s != NULL; s = s->next_live) {
        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->task_ready, NULL);
        pthread_cond_init(&s->task_done, NULL);
        s->worker_started = false;
        s->worker_idle = false;
        s->borrowers = 0;
        if (s->busy_seq != 0) {
            s->completed = s->busy_seq;
        }
        s->running = NULL;
        s->busy_seq = 0;
    }
}

__attribute__((constructor)) static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, reset_after_fork);
}
