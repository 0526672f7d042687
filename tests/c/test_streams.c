/* Streams under load, from C: several host threads, each with its own
 * stream, launch copies and operators concurrently and check every result
 * bit for bit; threads that synchronize one stream while another launches
 * on it; create/run/destroy cycles that LeakSanitizer (the ASan CI
 * stage) checks for leaks; and asynchrony that does not depend on timing.
 * CI also runs this program under ThreadSanitizer.
 * Prints "N passed, M failed". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_silu_backward.h"

static atomic_int passed, failed;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (cond) {                                                                      \
            atomic_fetch_add(&passed, 1);                                                \
        } else {                                                                         \
            atomic_fetch_add(&failed, 1);                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                                \
    } while (0)

/* ELEMENTS spans 3 chunks of the element-wise grain (32768), so the workers
 * of different streams contend for the shared thread pool. */
enum { STRESS_THREADS = 4, STRESS_ROUNDS = 25, STRESS_BATCH = 8, ELEMENTS = 70000, PATTERNS = 8 };
enum { LEAK_CYCLES = 10000 };

static float inputs[PATTERNS][ELEMENTS];
static float expected[PATTERNS][ELEMENTS]; /* SiLU of each pattern, from the default stream */

static aclTensor *vector_tensor(void *data, int64_t n)
{
    int64_t shape[1] = {n};
    int64_t strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

/* Phase 1 and 2 of aclnnSilu on device buffers x -> y, on `stream`. */
static int launch_silu(void *x, void *y, int64_t n, aclrtStream stream)
{
    aclTensor *tx = vector_tensor(x, n);
    aclTensor *ty = vector_tensor(y, n);
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    int status = aclnnSiluGetWorkspaceSize(tx, ty, &workspace_size, &executor);
    void *workspace = NULL;
    if (status == 0 && workspace_size > 0) {
        status = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
    }
    if (status == 0) {
        status = aclnnSilu(workspace, workspace_size, executor, stream);
    }
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    if (workspace != NULL) {
        aclrtFree(workspace); /* waits for the launch that uses it */
    }
    return status;
}

static void make_expected(void)
{
    void *x = NULL, *y = NULL;
    CHECK(aclrtMalloc(&x, sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&y, sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    for (int p = 0; p < PATTERNS; ++p) {
        for (int i = 0; i < ELEMENTS; ++i) {
            inputs[p][i] = (float)((i % 97) - 48) * 0.125f + (float)p * 0.01f;
        }
        CHECK(aclrtMemcpy(x, sizeof inputs[p], inputs[p], sizeof inputs[p], ACL_MEMCPY_HOST_TO_DEVICE) == 0);
        CHECK(launch_silu(x, y, ELEMENTS, NULL) == 0);
        CHECK(aclrtMemcpy(expected[p], sizeof expected[p], y, sizeof expected[p], ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    }
    aclrtFree(x);
    aclrtFree(y);
}

typedef struct {
    int index;
    int mismatches;
    int errors;
} stress_arg;

/* Each round queues STRESS_BATCH copy-in / operator / copy-out triples on the
 * thread's own stream without waiting, then synchronizes and checks them. */
static void *stress_thread(void *arg)
{
    stress_arg *me = arg;
    aclrtStream stream = NULL;
    aclrtSetDevice(0); /* each thread needs a current device, as in CANN */
    if (aclrtCreateStream(&stream) != 0) {
        me->errors++;
        return NULL;
    }
    void *x[STRESS_BATCH], *y[STRESS_BATCH];
    float(*out)[ELEMENTS] = malloc(STRESS_BATCH * sizeof *out);
    if (out == NULL) {
        me->errors++;
        aclrtDestroyStream(stream);
        return NULL;
    }
    for (int b = 0; b < STRESS_BATCH; ++b) {
        me->errors += aclrtMalloc(&x[b], sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) != 0;
        me->errors += aclrtMalloc(&y[b], sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) != 0;
    }
    for (int round = 0; round < STRESS_ROUNDS; ++round) {
        for (int b = 0; b < STRESS_BATCH; ++b) {
            int p = (me->index + round + b) % PATTERNS;
            memset(out[b], 0, sizeof out[b]);
            me->errors += aclrtMemcpyAsync(x[b], sizeof inputs[p], inputs[p], sizeof inputs[p],
                                           ACL_MEMCPY_HOST_TO_DEVICE, stream) != 0;
            me->errors += launch_silu(x[b], y[b], ELEMENTS, stream) != 0;
            me->errors += aclrtMemcpyAsync(out[b], sizeof out[b], y[b], sizeof out[b], ACL_MEMCPY_DEVICE_TO_HOST,
                                           stream) != 0;
        }
        me->errors += aclrtSynchronizeStream(stream) != 0;
        for (int b = 0; b < STRESS_BATCH; ++b) {
            int p = (me->index + round + b) % PATTERNS;
            me->mismatches += memcmp(out[b], expected[p], sizeof out[b]) != 0;
        }
    }
    for (int b = 0; b < STRESS_BATCH; ++b) {
        aclrtFree(x[b]);
        aclrtFree(y[b]);
    }
    me->errors += aclrtDestroyStream(stream) != 0;
    free(out);
    return NULL;
}

static void test_stress(void)
{
    make_expected();
    pthread_t threads[STRESS_THREADS];
    stress_arg args[STRESS_THREADS];
    for (int t = 0; t < STRESS_THREADS; ++t) {
        args[t] = (stress_arg){.index = t};
        CHECK(pthread_create(&threads[t], NULL, stress_thread, &args[t]) == 0);
    }
    int mismatches = 0, errors = 0;
    for (int t = 0; t < STRESS_THREADS; ++t) {
        pthread_join(threads[t], NULL);
        mismatches += args[t].mismatches;
        errors += args[t].errors;
    }
    CHECK(errors == 0);
    CHECK(mismatches == 0);
    printf("stress: %d threads x %d launches, %d errors, %d wrong results\n", STRESS_THREADS,
           STRESS_ROUNDS * STRESS_BATCH, errors, mismatches);
}

/* Threads that synchronize a stream run its waiting tasks themselves while
 * the worker sleeps; with several of them on one stream and a thread still
 * launching, every task must still run once, alone and in launch order. */
typedef struct {
    aclrtStream stream;
    atomic_int stop;
    atomic_int errors;
} synchronizer_arg;

static void *synchronizer_thread(void *arg)
{
    synchronizer_arg *me = arg;
    while (!atomic_load(&me->stop)) {
        if (aclrtSynchronizeStream(me->stream) != 0) {
            atomic_fetch_add(&me->errors, 1);
        }
    }
    return NULL;
}

static void test_shared_stream_synchronizers(void)
{
    enum { SYNCHRONIZERS = 2, ROUNDS = 40, BATCH = 6 };
    synchronizer_arg shared = {.stream = NULL};
    CHECK(aclrtCreateStream(&shared.stream) == 0);
    void *x[BATCH], *y[BATCH];
    float(*out)[ELEMENTS] = malloc(BATCH * sizeof *out);
    CHECK(out != NULL);
    for (int b = 0; b < BATCH; ++b) {
        CHECK(aclrtMalloc(&x[b], sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
        CHECK(aclrtMalloc(&y[b], sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    }
    pthread_t threads[SYNCHRONIZERS];
    for (int t = 0; t < SYNCHRONIZERS; ++t) {
        CHECK(pthread_create(&threads[t], NULL, synchronizer_thread, &shared) == 0);
    }
    int mismatches = 0, errors = 0;
    for (int round = 0; out != NULL && round < ROUNDS; ++round) {
        for (int b = 0; b < BATCH; ++b) {
            int p = (round + b) % PATTERNS;
            memset(out[b], 0, sizeof out[b]);
            /* y is cleared first, so a copy-out that overtook the operator would be seen. */
            errors += aclrtMemsetAsync(y[b], sizeof inputs[p], 0, sizeof inputs[p], shared.stream) != 0;
            errors += aclrtMemcpyAsync(x[b], sizeof inputs[p], inputs[p], sizeof inputs[p],
                                       ACL_MEMCPY_HOST_TO_DEVICE, shared.stream) != 0;
            errors += launch_silu(x[b], y[b], ELEMENTS, shared.stream) != 0;
            errors += aclrtMemcpyAsync(out[b], sizeof out[b], y[b], sizeof out[b], ACL_MEMCPY_DEVICE_TO_HOST,
                                       shared.stream) != 0;
        }
        errors += aclrtSynchronizeStream(shared.stream) != 0;
        for (int b = 0; b < BATCH; ++b) {
            mismatches += memcmp(out[b], expected[(round + b) % PATTERNS], sizeof out[b]) != 0;
        }
    }
    atomic_store(&shared.stop, 1);
    for (int t = 0; t < SYNCHRONIZERS; ++t) {
        pthread_join(threads[t], NULL);
    }
    CHECK(errors == 0 && atomic_load(&shared.errors) == 0);
    CHECK(mismatches == 0);
    printf("shared stream: %d synchronizing threads, %d launches, %d errors, %d wrong results\n", SYNCHRONIZERS,
           ROUNDS * BATCH, errors + atomic_load(&shared.errors), mismatches);
    for (int b = 0; b < BATCH; ++b) {
        aclrtFree(x[b]);
        aclrtFree(y[b]);
    }
    free(out);
    CHECK(aclrtDestroyStream(shared.stream) == 0);
}

/* A stream held by an event that is not recorded yet: its work must wait. */
static void test_asynchrony(void)
{
    aclrtStream stream = NULL;
    aclrtEvent gate = NULL;
    CHECK(aclrtCreateStream(&stream) == 0);
    CHECK(aclrtCreateEvent(&gate) == 0);
    void *x = NULL, *y = NULL;
    CHECK(aclrtMalloc(&x, sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&y, sizeof inputs[0], ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMemset(y, sizeof inputs[0], 0, sizeof inputs[0]) == 0);
    static float out[ELEMENTS];
    memset(out, 0xFF, sizeof out);

    CHECK(aclrtStreamWaitEvent(stream, gate) == 0);
    CHECK(aclrtMemcpyAsync(x, sizeof inputs[3], inputs[3], sizeof inputs[3], ACL_MEMCPY_HOST_TO_DEVICE, stream) == 0);
    CHECK(launch_silu(x, y, ELEMENTS, stream) == 0);
    CHECK(aclrtMemcpyAsync(out, sizeof out, y, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST, stream) == 0);
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    CHECK(aclrtStreamQuery(stream, &status) == 0 && status == ACL_STREAM_STATUS_NOT_READY);
    unsigned char first = 0;
    memcpy(&first, out, 1);
    CHECK(first == 0xFF); /* nothing ran: the stream is held */
    CHECK(aclrtSynchronizeStreamWithTimeout(stream, 10) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    (void)aclGetRecentErrMsg();

    CHECK(aclrtRecordEvent(gate, NULL) == 0); /* the default stream records at once */
    CHECK(aclrtSynchronizeStream(stream) == 0);
    CHECK(memcmp(out, expected[3], sizeof out) == 0);
    CHECK(aclrtStreamQuery(stream, &status) == 0 && status == ACL_STREAM_STATUS_COMPLETE);
    aclrtFree(x);
    aclrtFree(y);
    CHECK(aclrtDestroyEvent(gate) == 0);
    CHECK(aclrtDestroyStream(stream) == 0);
}

/* The checks at launch and in copies, under the sanitizers: codes, messages,
 * and no access to freed memory. */
static void test_misuse(void)
{
    void *x = NULL, *y = NULL;
    CHECK(aclrtMalloc(&x, 64 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&y, 64 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    aclTensor *tx = vector_tensor(x, 64), *ty = vector_tensor(y, 64);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSiluGetWorkspaceSize(tx, ty, &ws, &executor) == 0);
    CHECK(aclrtFree(y) == 0); /* freed between phase 1 and phase 2 */
    CHECK(aclnnSilu(NULL, 0, executor, NULL) == ACLNN_ERR_PARAM_INVALID);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "output 0") != NULL && strstr(msg, "not in device memory") != NULL);
    CHECK(aclDestroyAclOpExecutor(executor) == 0); /* a failed launch does not consume it */

    float host[64] = {0};
    CHECK(aclrtMemcpy(host, sizeof host, x, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_RT_PARAM_INVALID);
    msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "dst") != NULL);
    CHECK(aclrtMemcpy(x, sizeof host, y, sizeof host, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_ERROR_RT_PARAM_INVALID);
    msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "src") != NULL); /* y is freed */
    CHECK(aclrtMemset((char *)x + 8, 64 * sizeof(float), 0, 64 * sizeof(float)) == ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();

    aclrtEvent event = NULL;
    float ms = -1.0f;
    CHECK(aclrtCreateEvent(&event) == 0);
    CHECK(aclrtEventElapsedTime(&ms, event, event) == ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    (void)aclGetRecentErrMsg();
    CHECK(aclrtDestroyEvent(event) == 0);
    CHECK(aclrtDestroyEvent(event) == ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclrtFree(x);
}

/* LeakSanitizer fails the run if any of these cycles leaves memory behind. */
static void test_leak_cycles(void)
{
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream) == 0);
    /* Outputs per target: work on the default stream does not wait for
     * `stream`, so the two must not write the same memory. */
    void *x = NULL, *dy = NULL, *y[2] = {NULL, NULL}, *dx[2] = {NULL, NULL}, *scratch = NULL;
    CHECK(aclrtMalloc(&x, 64 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&dy, 64 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&scratch, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    for (int i = 0; i < 2; ++i) {
        CHECK(aclrtMalloc(&y[i], 64 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
        CHECK(aclrtMalloc(&dx[i], 64 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    }
    CHECK(aclrtMemcpy(x, 64 * sizeof(float), inputs[0], 64 * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(aclrtMemcpy(dy, 64 * sizeof(float), inputs[1], 64 * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    int errors = 0;
    for (int cycle = 0; cycle < LEAK_CYCLES; ++cycle) {
        int on_stream = cycle & 1;
        aclrtStream target = on_stream ? stream : NULL;
        if (cycle % 3 == 0) {
            errors += launch_silu(x, y[on_stream], 64, target) != 0;
        } else {
            aclTensor *tdy = vector_tensor(dy, 64), *tx = vector_tensor(x, 64);
            aclTensor *tdx = vector_tensor(dx[on_stream], 64);
            uint64_t ws = 0;
            aclOpExecutor *executor = NULL;
            int status = aclnnSiluBackwardGetWorkspaceSize(tdy, tx, tdx, &ws, &executor);
            if (status == 0 && cycle % 3 == 1) {
                /* a repeatable executor, run twice and destroyed while queued */
                status = aclSetAclOpExecutorRepeatable(executor);
                status |= aclnnSiluBackward(NULL, 0, executor, target);
                status |= aclnnSiluBackward(NULL, 0, executor, target);
                status |= aclDestroyAclOpExecutor(executor);
            } else if (status == 0) {
                status = aclnnSiluBackward(NULL, 0, executor, target);
            }
            errors += status != 0;
            aclDestroyTensor(tdy);
            aclDestroyTensor(tx);
            aclDestroyTensor(tdx);
        }
        if (cycle % 100 == 0) {
            aclrtEvent event = NULL;
            errors += aclrtCreateEvent(&event) != 0;
            errors += aclrtRecordEvent(event, stream) != 0;
            errors += aclrtDestroyEvent(event) != 0; /* the queued record keeps it alive */
        }
        if (cycle % 1000 == 0) {
            aclrtStream extra = NULL;
            errors += aclrtCreateStream(&extra) != 0;
            errors += aclrtMemsetAsync(scratch, 64, 0, 64, extra) != 0;
            errors += aclrtDestroyStream(extra) != 0; /* drains, then joins its worker */
        }
    }
    CHECK(aclrtSynchronizeStream(stream) == 0);
    CHECK(errors == 0);
    printf("leak cycles: %d create/run/destroy cycles, %d errors\n", LEAK_CYCLES, errors);
    aclrtFree(x);
    aclrtFree(dy);
    aclrtFree(scratch);
    for (int i = 0; i < 2; ++i) {
        aclrtFree(y[i]);
        aclrtFree(dx[i]);
    }
    CHECK(aclrtDestroyStream(stream) == 0);
}

int main(void)
{
    CHECK(aclInit(NULL) == 0);
    CHECK(aclrtSetDevice(0) == 0);
    test_stress();
    test_shared_stream_synchronizers();
    test_asynchrony();
    test_misuse();
    test_leak_cycles();
    CHECK(aclrtResetDevice(0) == 0);
    CHECK(aclFinalize() == 0);
    printf("%d passed, %d failed\n", atomic_load(&passed), atomic_load(&failed));
    return atomic_load(&failed) == 0 ? 0 : 1;
}
