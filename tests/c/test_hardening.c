/* Misuse that used to crash, hang or pass silently:
 * destroyed and double-destroyed meta handles (161002 naming the argument,
 * never a read or a second free), waits that can never finish (an error
 * naming the event and stream instead of a hang), and the memcpy kinds CANN
 * rejects. Each check fails on the library before these fixes (the hangs
 * are caught by a watchdog that fails the test instead of blocking ctest).
 * Prints "N passed, M failed". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_silu_backward.h"


static int passed, failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            ++passed;                                                                \
        } else {                                                                     \
            ++failed;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* The last message contains every one of the NULL-terminated strings. */
static int message_has(const char *first, ...)
{
    const char *msg = aclGetRecentErrMsg();
    if (msg == NULL) {
        fprintf(stderr, "  (no message)\n");
        return 0;
    }
    int ok = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *s = first; s != NULL; s = va_arg(ap, const char *)) {
        if (strstr(msg, s) == NULL) {
            ok = 0;
        }
    }
    va_end(ap);
    if (!ok) {
        fprintf(stderr, "  message: %s\n", msg);
    }
    return ok;
}
#define MESSAGE_HAS(...) message_has(__VA_ARGS__, (const char *)NULL)

static const char *ptr_text(const void *p, char *buf, size_t size)
{
    snprintf(buf, size, "%p", p);
    return buf;
}

/* ---- a watchdog: a hang fails the test instead of blocking it ---- */

static atomic_int watchdog_armed;
static const char *watchdog_what;

static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        int seconds = atomic_exchange(&watchdog_armed, 0);
        if (seconds > 0) {
            struct timespec start;
            clock_gettime(CLOCK_MONOTONIC, &start);
            for (;;) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (atomic_load(&watchdog_armed) < 0) {
                    atomic_store(&watchdog_armed, 0);
                    break;
                }
                if (now.tv_sec - start.tv_sec >= seconds) {
                    fprintf(stderr, "FAIL: %s did not return within %d s (hang)\n", watchdog_what, seconds);
                    fflush(stderr);
                    _exit(3);
                }
                usleep(1000);
            }
        }
        usleep(1000);
    }
    return NULL;
}

static void arm(const char *what)
{
    watchdog_what = what;
    atomic_store(&watchdog_armed, 10);
}

static void disarm(void)
{
    atomic_store(&watchdog_armed, -1);
    while (atomic_load(&watchdog_armed) != 0) {
        usleep(100);
    }
}

static aclTensor *vector_tensor(void *data, int64_t n)
{
    int64_t shape[1] = {n};
    return aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, data);
}

/* ---- destroyed handles ---- */

static void test_double_destroy(void)
{
    char p[32];
    aclTensor *t = vector_tensor(NULL, 0);
    CHECK(t != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    CHECK(aclDestroyTensor(t) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyTensor", "tensor", ptr_text(t, p, sizeof p), "not a live aclTensor"));
    CHECK(aclDestroyTensor(NULL) == 0); /* as CANN */

    float one = 1.0f;
    aclScalar *s = aclCreateScalar(&one, ACL_FLOAT);
    CHECK(aclDestroyScalar(s) == 0);
    CHECK(aclDestroyScalar(s) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyScalar", "scalar", "not a live aclScalar"));

    int64_t values[3] = {1, 2, 3};
    aclIntArray *ia = aclCreateIntArray(values, 3);
    CHECK(aclDestroyIntArray(ia) == 0);
    CHECK(aclDestroyIntArray(ia) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyIntArray", "array", "not a live aclIntArray"));
    float fv[2] = {1, 2};
    aclFloatArray *fa = aclCreateFloatArray(fv, 2);
    CHECK(aclDestroyFloatArray(fa) == 0);
    CHECK(aclDestroyFloatArray(fa) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyFloatArray", "not a live aclFloatArray"));
    bool bv[2] = {true, false};
    aclBoolArray *ba = aclCreateBoolArray(bv, 2);
    CHECK(aclDestroyBoolArray(ba) == 0);
    CHECK(aclDestroyBoolArray(ba) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyBoolArray", "not a live aclBoolArray"));

    /* A handle of another kind is named as what it is. */
    aclIntArray *other = aclCreateIntArray(values, 1);
    CHECK(aclDestroyTensor((const aclTensor *)other) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyTensor", "is a live aclIntArray, not an aclTensor"));
    CHECK(aclDestroyIntArray(other) == 0);
}

static void test_lists(void)
{
    /* One tensor twice: destroyed once, reported, nothing leaks. */
    aclTensor *a = vector_tensor(NULL, 0), *b = vector_tensor(NULL, 0);
    const aclTensor *twice[3] = {a, b, a};
    aclTensorList *list = aclCreateTensorList(twice, 3);
    CHECK(list != NULL);
    CHECK(aclDestroyTensorList(list) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyTensorList", "array[2] is array[0] again"));
    CHECK(aclDestroyTensor(a) == ACLNN_ERR_PARAM_INVALID); /* the list destroyed it */
    (void)aclGetRecentErrMsg();
    CHECK(aclDestroyTensorList(list) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyTensorList", "not a live aclTensorList"));

    /* An element destroyed before the list: left alone, reported. */
    aclTensor *c = vector_tensor(NULL, 0), *d = vector_tensor(NULL, 0);
    const aclTensor *items[2] = {c, d};
    list = aclCreateTensorList(items, 2);
    CHECK(aclDestroyTensor(c) == 0);
    CHECK(aclDestroyTensorList(list) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyTensorList", "array[0]", "not a live aclTensor"));
    CHECK(aclDestroyTensor(d) == ACLNN_ERR_PARAM_INVALID); /* destroyed with the list */
    (void)aclGetRecentErrMsg();

    float one = 1.0f;
    aclScalar *s = aclCreateScalar(&one, ACL_FLOAT);
    const aclScalar *scalars[2] = {s, s};
    aclScalarList *slist = aclCreateScalarList(scalars, 2);
    CHECK(aclDestroyScalarList(slist) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclDestroyScalarList", "array[1] is array[0] again"));

    /* Sizes of destroyed lists and arrays are reported, not read. */
    aclTensor *e = vector_tensor(NULL, 0);
    const aclTensor *one_item[1] = {e};
    list = aclCreateTensorList(one_item, 1);
    uint64_t size = 99;
    CHECK(aclGetTensorListSize(list, &size) == 0 && size == 1);
    CHECK(aclDestroyTensorList(list) == 0);
    size = 99;
    CHECK(aclGetTensorListSize(list, &size) == ACLNN_ERR_PARAM_INVALID && size == 99);
    CHECK(MESSAGE_HAS("aclGetTensorListSize", "tensorList", "not a live aclTensorList"));
    int64_t v = 5;
    aclIntArray *ia = aclCreateIntArray(&v, 1);
    CHECK(aclDestroyIntArray(ia) == 0);
    CHECK(aclGetIntArraySize(ia, &size) == ACLNN_ERR_PARAM_INVALID && size == 99);
    CHECK(MESSAGE_HAS("aclGetIntArraySize", "array", "not a live aclIntArray"));
}

static void test_accessors_on_destroyed_tensor(void)
{
    void *block = NULL;
    CHECK(aclrtMalloc(&block, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    aclTensor *t = vector_tensor(block, 16);
    CHECK(aclDestroyTensor(t) == 0);
    int64_t offset = 7;
    CHECK(aclGetViewOffset(t, &offset) == ACLNN_ERR_PARAM_INVALID && offset == 7);
    CHECK(MESSAGE_HAS("aclGetViewOffset", "tensor", "not a live aclTensor"));
    int64_t *dims = NULL;
    uint64_t rank = 0;
    CHECK(aclGetViewShape(t, &dims, &rank) == ACLNN_ERR_PARAM_INVALID && dims == NULL);
    CHECK(MESSAGE_HAS("aclGetViewShape", "tensor", "not a live aclTensor"));
    CHECK(aclGetStorageShape(t, &dims, &rank) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclGetStorageShape", "not a live aclTensor"));
    CHECK(aclGetViewStrides(t, &dims, &rank) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclGetViewStrides", "not a live aclTensor"));
    aclFormat format;
    CHECK(aclGetFormat(t, &format) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclGetFormat", "not a live aclTensor"));
    aclDataType dtype;
    CHECK(aclGetDataType(t, &dtype) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclGetDataType", "not a live aclTensor"));
    void *addr = NULL;
    CHECK(aclGetRawTensorAddr(t, &addr) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclGetRawTensorAddr", "not a live aclTensor"));
    CHECK(aclSetRawTensorAddr(t, block) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclSetRawTensorAddr", "not a live aclTensor"));
    int64_t shape[1] = {16};
    CHECK(aclInitTensor(t, shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, block) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclInitTensor", "not a live aclTensor"));
    /* NULL keeps its own code. */
    CHECK(aclGetViewOffset(NULL, &offset) == ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();

    /* The address setters write the descriptor they are given. */
    aclTensor *x = vector_tensor(block, 16);
    void *out = NULL;
    CHECK(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    aclTensor *y = vector_tensor(out, 16);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSiluGetWorkspaceSize(x, y, &ws, &executor) == 0);
    CHECK(aclSetAclOpExecutorRepeatable(executor) == 0);
    CHECK(aclDestroyTensor(x) == 0);
    CHECK(aclSetInputTensorAddr(executor, 0, x, block) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclSetInputTensorAddr", "tensor", "not a live aclTensor"));
    CHECK(aclSetInputTensorAddr(executor, 0, NULL, block) == 0); /* no descriptor: fine */
    CHECK(aclDestroyAclOpExecutor(executor) == 0);
    CHECK(aclDestroyTensor(y) == 0);
    aclrtFree(block);
    aclrtFree(out);
}

/* Phase 1 of any operator finds a destroyed argument in the registry
 * (161002 naming it) before reading it: under ASan, a read of the freed
 * descriptor would be a heap use-after-free. No executor is handed out. */
static void test_phase1_on_destroyed_handles(void)
{
    void *block = NULL;
    CHECK(aclrtMalloc(&block, 256, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    aclTensor *x = vector_tensor(block, 16);
    aclTensor *y = vector_tensor((char *)block + 64, 16);
    aclTensor *dead = vector_tensor((char *)block + 128, 16);
    CHECK(aclDestroyTensor(dead) == 0);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    char p[32];

    CHECK(aclnnSiluGetWorkspaceSize(dead, y, &ws, &executor) == ACLNN_ERR_PARAM_INVALID && executor == NULL);
    CHECK(MESSAGE_HAS("aclnnSiluGetWorkspaceSize", "self", ptr_text(dead, p, sizeof p), "not a live aclTensor"));
    CHECK(aclnnSiluGetWorkspaceSize(x, dead, &ws, &executor) == ACLNN_ERR_PARAM_INVALID && executor == NULL);
    CHECK(MESSAGE_HAS("aclnnSiluGetWorkspaceSize", "out", "not a live aclTensor"));
    CHECK(aclnnSiluBackwardGetWorkspaceSize(x, dead, y, &ws, &executor) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclnnSiluBackwardGetWorkspaceSize", "self", "not a live aclTensor"));
    CHECK(aclnnMatmulGetWorkspaceSize(x, dead, y, 0, &ws, &executor) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclnnMatmulGetWorkspaceSize", "mat2", "not a live aclTensor"));

    /* A NULL argument keeps its own code, even beside a destroyed one. */
    CHECK(aclnnSiluGetWorkspaceSize(NULL, dead, &ws, &executor) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(MESSAGE_HAS("aclnnSiluGetWorkspaceSize", "self"));

    /* Scalars, int arrays and tensor lists, and a handle of another kind. */
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    CHECK(aclDestroyScalar(alpha) == 0);
    CHECK(aclnnAddGetWorkspaceSize(x, x, alpha, y, &ws, &executor) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclnnAddGetWorkspaceSize", "alpha", "not a live aclScalar"));
    int64_t order[1] = {0};
    aclIntArray *dims = aclCreateIntArray(order, 1);
    CHECK(aclDestroyIntArray(dims) == 0);
    CHECK(aclnnPermuteGetWorkspaceSize(x, dims, y, &ws, &executor) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclnnPermuteGetWorkspaceSize", "dims", "not a live aclIntArray"));
    aclIntArray *live_dims = aclCreateIntArray(order, 1);
    CHECK(aclnnPermuteGetWorkspaceSize(x, (const aclIntArray *)(const void *)x, y, &ws, &executor) ==
          ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclnnPermuteGetWorkspaceSize", "dims", "is a live aclTensor"));
    aclTensor *dead_in_list = vector_tensor((char *)block + 128, 16);
    const aclTensor *members[2] = {vector_tensor(block, 16), dead_in_list};
    aclTensorList *list = aclCreateTensorList(members, 2);
    aclTensor *cat_out = vector_tensor((char *)block + 128, 32); /* before the destroy: no address reuse */
    CHECK(aclDestroyTensor(dead_in_list) == 0);
    CHECK(aclnnCatGetWorkspaceSize(list, 0, cat_out, &ws, &executor) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclnnCatGetWorkspaceSize", "tensors[1]", "not a live aclTensor"));
    CHECK(executor == NULL);

    /* The same calls with live handles plan. */
    CHECK(aclnnPermuteGetWorkspaceSize(x, live_dims, y, &ws, &executor) == 0 && executor != NULL);
    CHECK(aclDestroyAclOpExecutor(executor) == 0);
    CHECK(aclDestroyIntArray(live_dims) == 0);
    CHECK(aclDestroyTensorList(list) == ACLNN_ERR_PARAM_INVALID); /* reports the dead member, frees the rest */
    (void)aclGetRecentErrMsg();
    CHECK(aclDestroyTensor(cat_out) == 0);
    CHECK(aclDestroyTensor(x) == 0);
    CHECK(aclDestroyTensor(y) == 0);
    (void)aclGetRecentErrMsg();
    aclrtFree(block);
}

/* ---- memcpy kinds 6 and 7 ---- */

static void test_memcpy_inner_inter_kinds(void)
{
    void *a = NULL, *b = NULL;
    CHECK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    CHECK(MESSAGE_HAS("aclrtMemcpy", "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", "CANN", "ACL_MEMCPY_DEVICE_TO_DEVICE"));
    CHECK(aclrtMemcpyAsync(a, 64, b, 64, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, NULL) == ACL_ERROR_INVALID_PARAM);
    CHECK(MESSAGE_HAS("aclrtMemcpyAsync", "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE", "CANN"));
    CHECK(aclrtMemcpy(a, 64, b, 64, (aclrtMemcpyKind)8) == ACL_ERROR_INVALID_PARAM);
    CHECK(MESSAGE_HAS("aclrtMemcpy", "kind is 8"));
    aclrtFree(a);
    aclrtFree(b);
}

/* ---- waits that never return ---- */

static void *record_later(void *event)
{
    usleep(100 * 1000);
    aclrtRecordEvent(event, NULL);
    return NULL;
}

static void test_default_stream_wait_returns(void)
{
    char e[32];
    aclrtEvent ev = NULL;
    aclrtStream s = NULL;
    CHECK(aclrtCreateEvent(&ev) == 0);
    CHECK(aclrtCreateStream(&s) == 0);
    void *a = NULL, *b = NULL;
    CHECK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);

    arm("aclrtStreamWaitEvent(NULL, unrecorded event)");
    CHECK(aclrtStreamWaitEvent(NULL, ev) == 0); /* CANN returns at once */
    disarm();
    /* The default stream's next work cannot wait for a record not yet queued. */
    arm("aclrtMemcpy on the default stream behind the wait");
    CHECK(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK(MESSAGE_HAS("aclrtMemcpy", "default stream", ptr_text(ev, e, sizeof e), "not recorded"));
    disarm();
    /* Phase 2 on the default stream reports it too, and the executor stays usable. */
    aclTensor *x = vector_tensor(a, 16), *y = vector_tensor(b, 16);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSiluGetWorkspaceSize(x, y, &ws, &executor) == 0);
    CHECK(aclnnSilu(NULL, 0, executor, NULL) == ACLNN_ERR_RUNTIME_ERROR);
    CHECK(MESSAGE_HAS("aclnnSilu", ptr_text(ev, e, sizeof e)));
    /* Recorded on a created stream (a valid CANN order): the work runs. */
    CHECK(aclrtRecordEvent(ev, s) == 0);
    arm("aclnnSilu after the record");
    CHECK(aclnnSilu(NULL, 0, executor, NULL) == 0);
    CHECK(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_DEVICE_TO_DEVICE) == 0);
    disarm();

    /* Recorded by another thread a little later (on its default stream):
     * the default stream's next work waits for it. */
    aclrtEvent later = NULL;
    CHECK(aclrtCreateEvent(&later) == 0);
    CHECK(aclrtStreamWaitEvent(NULL, later) == 0);
    pthread_t recorder;
    CHECK(pthread_create(&recorder, NULL, record_later, later) == 0);
    arm("default-stream work behind an event another thread records");
    CHECK(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_DEVICE_TO_DEVICE) == 0);
    disarm();
    pthread_join(recorder, NULL);
    CHECK(aclrtDestroyEvent(later) == 0);

    /* A wait that nothing records: synchronizing the default stream drops it. */
    aclrtEvent never = NULL;
    CHECK(aclrtCreateEvent(&never) == 0);
    CHECK(aclrtStreamWaitEvent(NULL, never) == 0);
    arm("aclrtSynchronizeStream(NULL)");
    CHECK(aclrtSynchronizeStream(NULL) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK(MESSAGE_HAS("aclrtSynchronizeStream", ptr_text(never, e, sizeof e), "dropped"));
    CHECK(aclrtMemset(a, 64, 0, 64) == 0);
    disarm();
    /* An event destroyed while the default stream waits for it: dropped too. */
    CHECK(aclrtStreamWaitEvent(NULL, never) == 0);
    CHECK(aclrtDestroyEvent(never) == 0);
    CHECK(aclrtMemset(a, 64, 0, 64) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK(MESSAGE_HAS("aclrtMemset", "destroyed"));
    CHECK(aclrtMemset(a, 64, 0, 64) == 0);

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    CHECK(aclrtDestroyStream(s) == 0);
    CHECK(aclrtDestroyEvent(ev) == 0);
    aclrtFree(a);
    aclrtFree(b);
}

static void *destroy_event_later(void *event)
{
    usleep(1500 * 1000); /* past the notice */
    aclrtDestroyEvent(event);
    return NULL;
}

static void test_stuck_stream(void)
{
    char e[32], st[32];
    aclrtEvent ev = NULL;
    aclrtStream s = NULL;
    CHECK(aclrtCreateEvent(&ev) == 0);
    CHECK(aclrtCreateStream(&s) == 0);
    void *a = NULL;
    CHECK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtStreamWaitEvent(s, ev) == 0);
    CHECK(aclrtMemsetAsync(a, 64, 1, 64, s) == 0);

    /* aclrtFree of a block the held work uses waits (another thread may
     * record the event) but says so on stderr instead of hanging silently;
     * destroying the event, which nothing then can record, drops the wait. */
    aclrtEvent doomed = NULL;
    CHECK(aclrtCreateEvent(&doomed) == 0);
    void *b = NULL;
    CHECK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    aclrtStream s2 = NULL;
    CHECK(aclrtCreateStream(&s2) == 0);
    CHECK(aclrtStreamWaitEvent(s2, doomed) == 0);
    CHECK(aclrtMemsetAsync(b, 64, 1, 64, s2) == 0);
    fflush(stderr);
    FILE *log = tmpfile();
    int saved = dup(2);
    CHECK(log != NULL && saved >= 0 && dup2(fileno(log), 2) >= 0);
    pthread_t destroyer;
    CHECK(pthread_create(&destroyer, NULL, destroy_event_later, doomed) == 0);
    arm("aclrtFree of a block used behind an unrecorded event");
    CHECK(aclrtFree(b) == 0);
    disarm();
    pthread_join(destroyer, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[2048] = {0};
    rewind(log);
    text[fread(text, 1, sizeof text - 1, log)] = '\0';
    fclose(log);
    CHECK(strstr(text, "aclrtFree: devPtr") != NULL && strstr(text, ptr_text(s2, st, sizeof st)) != NULL &&
          strstr(text, ptr_text(doomed, e, sizeof e)) != NULL);
    CHECK(aclrtSynchronizeStream(s2) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT); /* the dropped wait */
    CHECK(MESSAGE_HAS("aclrtSynchronizeStream", ptr_text(doomed, e, sizeof e)));
    CHECK(aclrtDestroyStream(s2) == 0);
    /* The timed synchronize calls CANN has, which a binding can call in slices. */
    aclrtEvent after = NULL;
    CHECK(aclrtCreateEvent(&after) == 0);
    CHECK(aclrtRecordEvent(after, s) == 0);
    CHECK(aclrtSynchronizeEventWithTimeout(after, 10) == 507047);
    CHECK(MESSAGE_HAS("aclrtSynchronizeEventWithTimeout", ptr_text(after, e, sizeof e)));
    CHECK(aclrtSynchronizeEventWithTimeout(after, -2) == ACL_ERROR_RT_PARAM_INVALID);
    CHECK(MESSAGE_HAS("aclrtSynchronizeEventWithTimeout", "timeout is -2"));
    CHECK(aclrtSynchronizeDeviceWithTimeout(10) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK(MESSAGE_HAS("aclrtSynchronizeDeviceWithTimeout", ptr_text(s, st, sizeof st)));
    /* Recording releases it. */
    CHECK(aclrtRecordEvent(ev, NULL) == 0);
    arm("the released stream");
    CHECK(aclrtSynchronizeEventWithTimeout(after, -1) == 0);
    CHECK(aclrtFree(a) == 0);
    disarm();
    CHECK(aclrtDestroyEvent(after) == 0);

    /* The event destroyed while a stream waits, no record queued: the wait
     * is dropped and the next synchronize says so. */
    aclrtEvent gone = NULL;
    CHECK(aclrtCreateEvent(&gone) == 0);
    CHECK(aclrtStreamWaitEvent(s, gone) == 0);
    CHECK(aclrtDestroyEvent(gone) == 0);
    arm("aclrtSynchronizeStream after the event was destroyed");
    CHECK(aclrtSynchronizeStream(s) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK(MESSAGE_HAS("aclrtSynchronizeStream", ptr_text(s, st, sizeof st), ptr_text(gone, e, sizeof e),
                      "dropped"));
    CHECK(aclrtSynchronizeStream(s) == 0);
    disarm();

    /* aclrtDestroyStream of a stream held by an unrecorded event. */
    CHECK(aclrtResetEvent(ev, s) == 0);
    CHECK(aclrtSynchronizeStream(s) == 0);
    CHECK(aclrtStreamWaitEvent(s, ev) == 0); /* the flag is clear: waits for the next record */
    arm("aclrtDestroyStream of a stream waiting for an unrecorded event");
    CHECK(aclrtDestroyStream(s) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK(MESSAGE_HAS("aclrtDestroyStream", ptr_text(s, st, sizeof st), ptr_text(ev, e, sizeof e)));
    disarm();
    CHECK(aclrtDestroyEvent(ev) == 0);
}

static void test_finalize_with_stuck_stream(void)
{
    char e[32];
    aclrtEvent ev = NULL;
    aclrtStream s = NULL;
    CHECK(aclrtCreateEvent(&ev) == 0);
    CHECK(aclrtCreateStream(&s) == 0);
    CHECK(aclrtStreamWaitEvent(s, ev) == 0);
    arm("aclFinalize with a stream waiting for an unrecorded event");
    CHECK(aclFinalize() == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK(MESSAGE_HAS("aclFinalize", ptr_text(ev, e, sizeof e)));
    disarm();
    CHECK(aclInit(NULL) == 0);
    CHECK(aclrtDestroyStream(s) == 0);
    CHECK(aclrtDestroyEvent(ev) == 0);
}

/* ---- settings: read once, changeable at run time ---- */

static void test_settings(void)
{
    const int32_t verbose = aclnnEmuGetVerbose();
    CHECK(aclnnEmuSetVerbose(2) == ACL_ERROR_INVALID_PARAM);
    CHECK(MESSAGE_HAS("aclnnEmuSetVerbose", "verbose is 2"));
    CHECK(aclnnEmuSetVerbose(1) == 0 && aclnnEmuGetVerbose() == 1);

    /* MoeTokenPermuteGrad skips an index out of range (as CANN's kernel does
     * for one >= rows) and the verbose log says so. */
    void *grad = NULL, *idx = NULL, *out = NULL;
    CHECK(aclrtMalloc(&grad, 4 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&idx, 2 * sizeof(int32_t), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&out, 4 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    const float g[4] = {1, 2, 3, 4};
    const int32_t indices[2] = {1, 7};
    CHECK(aclrtMemcpy(grad, sizeof g, g, sizeof g, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(aclrtMemcpy(idx, sizeof indices, indices, sizeof indices, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    int64_t shape2[2] = {2, 2}, shape1[1] = {2};
    aclTensor *tg = aclCreateTensor(shape2, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape2, 2, grad);
    aclTensor *ti = aclCreateTensor(shape1, 1, ACL_INT32, NULL, 0, ACL_FORMAT_ND, shape1, 1, idx);
    aclTensor *to = aclCreateTensor(shape2, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape2, 2, out);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    fflush(stderr);
    FILE *log = tmpfile();
    int saved = dup(2);
    CHECK(log != NULL && saved >= 0 && dup2(fileno(log), 2) >= 0);
    aclnnStatus status = aclnnMoeTokenPermuteGradGetWorkspaceSize(tg, ti, 1, false, to, &ws, &executor);
    void *workspace = NULL;
    if (status == 0 && ws > 0) {
        status = aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_NORMAL_ONLY);
    }
    if (status == 0) {
        status = aclnnMoeTokenPermuteGrad(workspace, ws, executor, NULL);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(status == 0);
    char text[4096] = {0};
    rewind(log);
    size_t got = fread(text, 1, sizeof text - 1, log);
    text[got] = '\0';
    fclose(log);
    CHECK(strstr(text, "aclnnMoeTokenPermuteGrad: 1 of 2 sortedIndices lie outside [0, 2)") != NULL &&
          strstr(text, "sortedIndices[1] = 7") != NULL);
    float result[4] = {0};
    CHECK(aclrtMemcpy(result, sizeof result, out, sizeof result, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    CHECK(result[0] == 3 && result[1] == 4 && result[2] == 0 && result[3] == 0); /* the result is kept */
    CHECK(aclnnEmuSetVerbose(verbose) == 0);
    aclDestroyTensor(tg);
    aclDestroyTensor(ti);
    aclDestroyTensor(to);
    if (workspace != NULL) {
        aclrtFree(workspace);
    }
    aclrtFree(grad);
    aclrtFree(idx);
    aclrtFree(out);

    int64_t nb = -1, mb = -1, kb = -1;
    CHECK(aclnnEmuSetFloydTile(32, 128, 128) == 0);
    CHECK(aclnnEmuGetFloydTile(&nb, &mb, &kb) == 0 && nb == 32 && mb == 128 && kb == 128);
    CHECK(aclnnEmuSetFloydTile(0, 128, 128) == ACL_ERROR_INVALID_PARAM);
    CHECK(MESSAGE_HAS("aclnnEmuSetFloydTile", "0, 128, 128"));
    CHECK(aclnnEmuSetFloydTile(0, 0, 0) == 0);
    CHECK(aclnnEmuGetFloydTile(&nb, &mb, &kb) == 0 && nb == 0 && mb == 0 && kb == 0);
    CHECK(aclnnEmuGetFloydTile(NULL, &mb, &kb) == ACL_ERROR_INVALID_PARAM);
    CHECK(MESSAGE_HAS("aclnnEmuGetFloydTile", "nb is NULL"));
}

static const struct {
    const char *name;
    void (*run)(void);
} SECTIONS[] = {
    {"double_destroy", test_double_destroy},
    {"lists", test_lists},
    {"accessors", test_accessors_on_destroyed_tensor},
    {"phase1", test_phase1_on_destroyed_handles},
    {"memcpy_kinds", test_memcpy_inner_inter_kinds},
    {"default_stream_wait", test_default_stream_wait_returns},
    {"stuck_stream", test_stuck_stream},
    {"finalize", test_finalize_with_stuck_stream},
    {"settings", test_settings},
};

/* `test_hardening [section]` runs one section (see SECTIONS), else all. */
int main(int argc, char **argv)
{
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, NULL);
    pthread_detach(dog);
    CHECK(aclInit(NULL) == 0);
    CHECK(aclrtSetDevice(0) == 0);
    for (size_t i = 0; i < sizeof SECTIONS / sizeof SECTIONS[0]; ++i) {
        if (argc < 2 || strcmp(argv[1], SECTIONS[i].name) == 0) {
            SECTIONS[i].run();
        }
    }
    CHECK(aclrtResetDevice(0) == 0);
    CHECK(aclFinalize() == 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
