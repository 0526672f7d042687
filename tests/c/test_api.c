/* The aclnn contract exercised from C: runtime error paths, tensors,
 * executors and SiluBackward on strided views. Built with the library's
 * sanitizers in CI, so every path here is also checked for memory errors
 * and leaks. Prints "N passed, M failed". */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_rotary_position_embedding_grad.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_silu_backward.h"

static int passed, failed;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (cond) {                                                        \
            ++passed;                                                      \
        } else {                                                           \
            ++failed;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                  \
    } while (0)

/* The call returned `code` and left a message mentioning `word`. */
#define CHECK_ERROR(call, code, word)                                       \
    do {                                                                    \
        int got_ = (int)(call);                                             \
        const char *msg_ = aclGetRecentErrMsg();                            \
        CHECK(got_ == (code));                                              \
        CHECK(msg_ != NULL && strstr(msg_, (word)) != NULL);                \
        if (got_ != (code) || msg_ == NULL || strstr(msg_, (word)) == NULL) \
            fprintf(stderr, "  got %d, message: %s\n", got_, msg_ ? msg_ : "(null)"); \
    } while (0)

static double silu_grad_ref(double dy, double x)
{
    double s = 1.0 / (1.0 + exp(-x));
    return dy * s * (1.0 + x * (1.0 - s));
}

static void test_runtime(void)
{
    CHECK(aclInit(NULL) == ACL_SUCCESS);
    CHECK_ERROR(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE, "aclInit");
    CHECK_ERROR(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId");
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    int32_t device = -1;
    CHECK(aclrtGetDevice(&device) == ACL_SUCCESS && device == 0);
    uint32_t count = 0;
    CHECK(aclrtGetDeviceCount(&count) == ACL_SUCCESS && count == 1);
    CHECK(strcmp(aclrtGetSocName(), "Ascend910B") == 0);

    void *block = NULL;
    CHECK_ERROR(aclrtMalloc(NULL, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "devPtr");
    CHECK_ERROR(aclrtMalloc(&block, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "size");
    CHECK(block == NULL);
    CHECK(aclrtMalloc(&block, 100, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS);
    CHECK(((uintptr_t)block % 64) == 0);
    char host[100];
    memset(host, 7, sizeof host);
    CHECK(aclrtMemcpy(block, 100, host, 100, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CHECK_ERROR(aclrtMemcpy(block, 50, host, 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID, "destMax");
    CHECK_ERROR(aclrtMemcpy(NULL, 50, host, 10, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "dst");
    CHECK_ERROR(aclrtMemcpy(block, 50, host, 10, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "kind");
    CHECK(aclrtMemcpy(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CHECK(aclrtMemset(block, 100, 1, 10) == ACL_SUCCESS);
    CHECK_ERROR(aclrtMemset(block, 5, 1, 10), ACL_ERROR_RT_PARAM_INVALID, "maxCount");
    char back[100];
    CHECK(aclrtMemcpy(back, 100, block, 100, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(back[0] == 1 && back[9] == 1 && back[10] == 7 && back[99] == 7);
    CHECK_ERROR(aclrtFree((char *)block + 8), ACL_ERROR_INVALID_PARAM, "devPtr");
    CHECK(aclrtFree(block) == ACL_SUCCESS);
    CHECK_ERROR(aclrtFree(block), ACL_ERROR_INVALID_PARAM, "devPtr");
    CHECK_ERROR(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM, "devPtr");

    aclrtStream stream = NULL;
    CHECK_ERROR(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM, "stream");
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    CHECK(aclrtStreamQuery(stream, &status) == ACL_SUCCESS && status == ACL_STREAM_STATUS_COMPLETE);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(aclrtSynchronizeStream(NULL) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    CHECK_ERROR(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM, "stream");
    CHECK_ERROR(aclrtSynchronizeStream(host), ACL_ERROR_INVALID_PARAM, "stream");
    CHECK(aclGetRecentErrMsg() == NULL); /* reading cleared it */
}

static aclTensor *device_tensor(const float *values, int64_t count, const int64_t *shape, uint64_t rank,
                                const int64_t *strides, int64_t offset, void **block)
{
    size_t bytes = (size_t)count * sizeof(float);
    if (aclrtMalloc(block, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        return NULL;
    }
    aclrtMemcpy(*block, bytes, values, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    int64_t storage = count;
    return aclCreateTensor(shape, rank, ACL_FLOAT, strides, offset, ACL_FORMAT_ND, &storage, 1, *block);
}

static void test_tensors(void)
{
    int64_t shape[8] = {1, 2, 1, 3, 1, 1, 2, 1};
    aclTensor *t = aclCreateTensor(shape, 8, ACL_FLOAT16, NULL, 5, ACL_FORMAT_NCHW, shape, 8, NULL);
    CHECK(t != NULL);
    int64_t *dims = NULL;
    uint64_t rank = 0;
    CHECK(aclGetViewShape(t, &dims, &rank) == ACLNN_SUCCESS && rank == 8 && dims[3] == 3);
    aclnnEmuFreeArray(dims);
    CHECK(aclGetViewStrides(t, &dims, &rank) == ACLNN_SUCCESS && rank == 8 && dims[7] == 1 && dims[0] == 12);
    aclnnEmuFreeArray(dims);
    int64_t offset = 0;
    CHECK(aclGetViewOffset(t, &offset) == ACLNN_SUCCESS && offset == 5);
    aclFormat format = ACL_FORMAT_ND;
    CHECK(aclGetFormat(t, &format) == ACLNN_SUCCESS && format == ACL_FORMAT_NCHW);
    aclDataType dtype = ACL_FLOAT;
    CHECK(aclGetDataType(t, &dtype) == ACLNN_SUCCESS && dtype == ACL_FLOAT16);
    CHECK_ERROR(aclGetViewShape(NULL, &dims, &rank), ACLNN_ERR_PARAM_NULLPTR, "tensor");
    CHECK_ERROR(aclGetViewShape(t, NULL, &rank), ACLNN_ERR_PARAM_NULLPTR, "viewDims");
    int fake = 0;
    CHECK(aclSetRawTensorAddr(t, &fake) == ACLNN_SUCCESS);
    void *addr = NULL;
    CHECK(aclGetRawTensorAddr(t, &addr) == ACLNN_SUCCESS && addr == &fake);
    int64_t bad[2] = {2, -1};
    CHECK_ERROR(aclInitTensor(t, bad, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL), ACLNN_ERR_PARAM_INVALID,
                "viewDims[1]");
    CHECK(aclGetViewOffset(t, &offset) == ACLNN_SUCCESS && offset == 5); /* unchanged */
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    CHECK(aclDestroyTensor(NULL) == ACLNN_SUCCESS);
    CHECK(aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL) == NULL);
    CHECK(strstr(aclGetRecentErrMsg(), "viewDims") != NULL);

    int64_t values[3] = {1, 2, 3};
    aclIntArray *ints = aclCreateIntArray(values, 3);
    uint64_t size = 0;
    CHECK(ints != NULL && aclGetIntArraySize(ints, &size) == ACLNN_SUCCESS && size == 3);
    aclDestroyIntArray(ints);
    float one = 1.0f;
    aclScalar *scalar = aclCreateScalar(&one, ACL_FLOAT);
    const aclScalar *scalars[1] = {scalar};
    aclScalarList *scalar_list = aclCreateScalarList(scalars, 1);
    CHECK(scalar_list != NULL && aclGetScalarListSize(scalar_list, &size) == ACLNN_SUCCESS && size == 1);
    aclDestroyScalarList(scalar_list); /* owns the scalar */
    CHECK(aclCreateScalar(NULL, ACL_FLOAT) == NULL);
    CHECK(aclGetRecentErrMsg() != NULL);
}

static void test_silu_backward(void)
{
    enum { ROWS = 37, COLS = 19, N = ROWS * COLS };
    float *dy = malloc(N * sizeof(float)), *x = malloc(N * sizeof(float)), *out = malloc((N + 3) * sizeof(float));
    for (int i = 0; i < N; ++i) {
        dy[i] = (float)((i % 13) - 6) * 0.25f;
        x[i] = (float)((i * 7) % 41 - 20) * 0.5f;
    }
    /* dy as given; x read through a transposed view of a [COLS, ROWS] buffer;
     * the output written with an offset of 3 elements. */
    float *x_t = malloc(N * sizeof(float));
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c)
            x_t[c * ROWS + r] = x[r * COLS + c];
    int64_t shape[2] = {ROWS, COLS};
    int64_t strides_t[2] = {1, ROWS};
    void *dy_block = NULL, *x_block = NULL, *out_block = NULL;
    aclTensor *dy_t = device_tensor(dy, N, shape, 2, NULL, 0, &dy_block);
    aclTensor *x_tensor = device_tensor(x_t, N, shape, 2, strides_t, 0, &x_block);
    memset(out, 0, (N + 3) * sizeof(float));
    aclTensor *out_t = device_tensor(out, N + 3, shape, 2, NULL, 3, &out_block);

    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSiluBackwardGetWorkspaceSize(dy_t, x_tensor, out_t, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(workspace_size >= N * sizeof(float)); /* the transposed input is staged */
    void *workspace = NULL;
    CHECK(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK_ERROR(aclnnSiluBackward(NULL, workspace_size, executor, NULL), ACLNN_ERR_PARAM_NULLPTR, "workspace");
    CHECK_ERROR(aclnnSiluBackward(workspace, workspace_size - 1, executor, NULL), ACLNN_ERR_PARAM_INVALID,
                "workspaceSize");
    CHECK_ERROR(aclnnSilu(workspace, workspace_size, executor, NULL), ACLNN_ERR_PARAM_INVALID, "executor");
    CHECK(aclnnSiluBackward(workspace, workspace_size, executor, NULL) == ACLNN_SUCCESS);
    CHECK_ERROR(aclnnSiluBackward(workspace, workspace_size, executor, NULL), ACLNN_ERR_PARAM_INVALID, "consumed");
    CHECK_ERROR(aclnnSiluBackward(workspace, workspace_size, NULL, NULL), ACLNN_ERR_PARAM_NULLPTR, "executor");
    aclrtMemcpy(out, (N + 3) * sizeof(float), out_block, (N + 3) * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    double worst = 0.0;
    for (int i = 0; i < N; ++i) {
        double want = silu_grad_ref(dy[i], x[i]);
        double err = fabs(out[i + 3] - want) / (fabs(want) + 1e-7);
        worst = err > worst ? err : worst;
    }
    CHECK(worst < 1e-5);
    CHECK(out[0] == 0.0f && out[1] == 0.0f && out[2] == 0.0f); /* nothing before the view */

    /* A repeatable executor run three times, rebinding the output. */
    CHECK(aclnnSiluBackwardGetWorkspaceSize(dy_t, x_tensor, out_t, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS);
    for (int run = 0; run < 3; ++run) {
        CHECK(aclnnSiluBackward(workspace, workspace_size, executor, NULL) == ACLNN_SUCCESS);
    }
    CHECK_ERROR(aclSetOutputTensorAddr(executor, 1, NULL, out_block), ACLNN_ERR_PARAM_INVALID, "index");
    CHECK(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS);
    CHECK_ERROR(aclDestroyAclOpExecutor(NULL), ACLNN_ERR_INNER_NULLPTR, "executor");

    /* Validation: NULL, dtype and shape. */
    CHECK_ERROR(aclnnSiluBackwardGetWorkspaceSize(NULL, x_tensor, out_t, &workspace_size, &executor),
                ACLNN_ERR_PARAM_NULLPTR, "gradOutput");
    CHECK_ERROR(aclnnSiluBackwardGetWorkspaceSize(dy_t, x_tensor, out_t, NULL, &executor), ACLNN_ERR_PARAM_NULLPTR,
                "workspaceSize");
    int64_t other_shape[2] = {COLS, ROWS};
    aclTensor *wrong_shape = aclCreateTensor(other_shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, other_shape, 2,
                                             dy_block);
    CHECK_ERROR(aclnnSiluBackwardGetWorkspaceSize(wrong_shape, x_tensor, out_t, &workspace_size, &executor),
                ACLNN_ERR_PARAM_INVALID, "gradOutput");
    aclTensor *wrong_dtype = aclCreateTensor(shape, 2, ACL_INT32, NULL, 0, ACL_FORMAT_ND, shape, 2, dy_block);
    CHECK_ERROR(aclnnSiluBackwardGetWorkspaceSize(dy_t, wrong_dtype, out_t, &workspace_size, &executor),
                ACLNN_ERR_PARAM_INVALID, "self");

    aclTensor *no_data = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 2, NULL);
    CHECK_ERROR(aclnnSiluBackwardGetWorkspaceSize(dy_t, x_tensor, no_data, &workspace_size, &executor),
                ACLNN_ERR_PARAM_INVALID, "gradInput");
    int64_t huge[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 4};
    CHECK(aclCreateTensor(huge, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, huge, 3, NULL) == NULL);
    CHECK(strstr(aclGetRecentErrMsg(), "int64") != NULL);

    aclDestroyTensor(no_data);
    aclDestroyTensor(wrong_shape);
    aclDestroyTensor(wrong_dtype);
    aclDestroyTensor(dy_t);
    aclDestroyTensor(x_tensor);
    aclDestroyTensor(out_t);
    aclrtFree(workspace);
    aclrtFree(dy_block);
    aclrtFree(x_block);
    aclrtFree(out_block);
    free(dy);
    free(x);
    free(x_t);
    free(out);
}

/* Views must lie in device memory, unless the thread allows host memory. */
static void test_device_memory_checks(void)
{
    int64_t shape[1] = {28};
    float host_in[28] = {0}, host_out[28];
    void *small = NULL, *block = NULL;
    CHECK(aclrtMalloc(&small, 100, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS); /* 25 floats */
    CHECK(aclrtMalloc(&block, 28 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS);
    aclTensor *in = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, block);
    aclTensor *past_end = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, small);
    aclTensor *host = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, host_out);
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    CHECK_ERROR(aclnnSiluGetWorkspaceSize(in, past_end, &workspace_size, &executor), ACLNN_ERR_PARAM_INVALID,
                "past the end");
    CHECK_ERROR(aclnnSiluGetWorkspaceSize(in, host, &workspace_size, &executor), ACLNN_ERR_PARAM_INVALID,
                "out");

    /* Rebinding a repeatable executor's output to host memory is refused too. */
    aclTensor *out = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, block);
    CHECK(aclnnSiluGetWorkspaceSize(in, out, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS);
    CHECK_ERROR(aclSetOutputTensorAddr(executor, 0, NULL, host_out), ACLNN_ERR_PARAM_INVALID, "device memory");
    CHECK_ERROR(aclSetOutputTensorAddr(executor, 0, NULL, small), ACLNN_ERR_PARAM_INVALID, "past the end");
    CHECK(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS);

    /* A workspace in host memory is refused at phase 2. */
    int64_t two[2] = {4, 7}, transposed[2] = {1, 4};
    aclTensor *strided_in = aclCreateTensor(two, 2, ACL_FLOAT, transposed, 0, ACL_FORMAT_ND, shape, 1, block);
    void *out_block = NULL; /* its own memory: a partial overlap with strided_in is refused */
    CHECK(aclrtMalloc(&out_block, 28 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS);
    aclTensor *dense_out = aclCreateTensor(two, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, out_block);
    CHECK(aclnnSiluGetWorkspaceSize(strided_in, dense_out, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(workspace_size > 0);
    char host_workspace[256];
    CHECK(workspace_size <= sizeof host_workspace);
    CHECK_ERROR(aclnnSilu(host_workspace, workspace_size, executor, NULL), ACLNN_ERR_PARAM_INVALID, "workspace");
    CHECK(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS);

    /* With host memory allowed on this thread, the host view runs. */
    CHECK(aclnnEmuGetHostMemoryAllowed() == 0);
    CHECK(aclnnEmuSetHostMemoryAllowed(1) == ACL_SUCCESS);
    aclTensor *host_in_t = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, host_in);
    CHECK(aclnnSiluGetWorkspaceSize(host_in_t, host, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(aclnnSilu(NULL, 0, executor, NULL) == ACLNN_SUCCESS);
    CHECK(host_out[0] == 0.0f && host_out[27] == 0.0f);
    CHECK_ERROR(aclnnEmuSetHostMemoryAllowed(2), ACL_ERROR_INVALID_PARAM, "allowed");

    /* An executor planned while host memory was allowed keeps the permission. */
    CHECK(aclnnSiluGetWorkspaceSize(host_in_t, host, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS);
    CHECK(aclnnEmuSetHostMemoryAllowed(0) == ACL_SUCCESS);
    float other_out[28];
    other_out[5] = 42.0f;
    CHECK(aclSetOutputTensorAddr(executor, 0, NULL, other_out) == ACLNN_SUCCESS);
    CHECK(aclnnSilu(NULL, 0, executor, NULL) == ACLNN_SUCCESS);
    CHECK(other_out[5] == 0.0f);
    CHECK(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS);
    CHECK_ERROR(aclnnSiluGetWorkspaceSize(host_in_t, host, &workspace_size, &executor), ACLNN_ERR_PARAM_INVALID,
                "self");

    aclDestroyTensor(host_in_t);
    aclDestroyTensor(strided_in);
    aclDestroyTensor(dense_out);
    aclDestroyTensor(out);
    aclDestroyTensor(in);
    aclDestroyTensor(past_end);
    aclDestroyTensor(host);
    aclrtFree(small);
    aclrtFree(block);
    aclrtFree(out_block);
}

enum { MIB = 1 << 20 };

static void *cache_churn(void *arg)
{
    (void)arg;
    aclrtSetDevice(0); /* each thread needs a current device, as in CANN */
    for (int i = 0; i < 200; ++i) {
        void *p = NULL;
        size_t size = (size_t)(2 + i % 5) * MIB;
        if (aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
            return (void *)1;
        }
        memset(p, i, 4096);
        memset((char *)p + size - 4096, i, 4096);
        if (aclrtFree(p) != ACL_SUCCESS) {
            return (void *)1;
        }
    }
    return NULL;
}

#if defined(__SANITIZE_ADDRESS__)
/* Runs `write` in a forked child (its stderr to /dev/null); true when the
 * child did not exit cleanly, i.e. AddressSanitizer stopped it. */
static bool asan_stops(void (*write)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *null = freopen("/dev/null", "w", stderr);
        (void)null;
        write();
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        return false;
    }
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void write_into_rounding_tail(void)
{
    void *p = NULL;
    if (aclrtMalloc(&p, 3 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS) { /* 4 MiB reserved */
        ((volatile char *)p)[3 * MIB] = 1;
    }
}

static void write_into_cached_block(void)
{
    void *p = NULL;
    if (aclnnEmuSetDeviceCacheLimit(64 * MIB) == ACL_SUCCESS &&
        aclrtMalloc(&p, 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS && aclrtFree(p) == ACL_SUCCESS) {
        ((volatile char *)p)[100] = 1; /* the block is in the cache, not unmapped */
    }
}

static void write_inside_block(void)
{
    void *p = NULL;
    if (aclrtMalloc(&p, 3 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS) {
        ((volatile char *)p)[3 * MIB - 1] = 1;
        aclrtFree(p);
    }
}

/* Under ASan, a large block's rounding tail and a block kept by the device
 * cache are poisoned: writes there are reported as they would be on
 * malloc'd memory, while the block itself stays writable. */
static void test_asan_sees_large_block_misuse(void)
{
    CHECK(!asan_stops(write_inside_block));
    CHECK(asan_stops(write_into_rounding_tail));
    CHECK(asan_stops(write_into_cached_block));
}
#endif

/* aclrtFree keeps large blocks for reuse within the limit; a kept block is
 * freed memory to every check. */
static void test_device_cache(void)
{
    uint64_t saved = aclnnEmuGetDeviceCacheLimit();
    CHECK(aclnnEmuSetDeviceCacheLimit(0) == ACL_SUCCESS);
    CHECK(aclnnEmuSetDeviceCacheLimit(12 * MIB) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheLimit() == 12 * MIB);

    void *block = NULL, *again = NULL, *small = NULL;
    CHECK(aclrtMalloc(&block, 4 * MIB - 100, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    memset(block, 0x5A, 4 * MIB - 100);
    CHECK(aclrtFree(block) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 4 * MIB);
    CHECK_ERROR(aclrtFree(block), ACL_ERROR_INVALID_PARAM, "devPtr");
    CHECK_ERROR(aclrtMemset(block, 64, 0, 64), ACL_ERROR_RT_PARAM_INVALID, "not in device memory");

    /* The same block comes back, contents and all, for any size it holds
     * without wasting more than half. */
    CHECK(aclrtMalloc(&again, 3 * MIB, ACL_MEM_MALLOC_HUGE_ONLY) == ACL_SUCCESS);
    CHECK(again == block);
    CHECK(((unsigned char *)again)[3 * MIB - 1] == 0x5A);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 0);
    CHECK(aclrtFree(again) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&again, MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS); /* too small for it */
    CHECK(again != block && aclnnEmuGetDeviceCacheBytes() == 4 * MIB);
    CHECK(aclrtFree(again) == ACL_SUCCESS); /* under 2 MiB: never kept */
    CHECK(aclnnEmuGetDeviceCacheBytes() == 4 * MIB);
    /* Half its size is the least it serves: 2 MiB + 1 rounds to 4 MiB of
     * huge pages, but would waste nearly 3/4 of an 8 MiB block. */
    void *large = NULL;
    CHECK(aclnnEmuMallocResult(&large, 8 * MIB) == ACL_SUCCESS);
    CHECK(aclrtFree(large) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&again, 2 * MIB + 1, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(again == block); /* the 4 MiB block, not the 8 MiB one */
    CHECK(aclrtFree(again) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 12 * MIB);
    CHECK(aclnnEmuSetDeviceCacheLimit(4 * MIB) == ACL_SUCCESS); /* the 8 MiB block goes */
    CHECK(aclnnEmuSetDeviceCacheLimit(12 * MIB) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 4 * MIB);
    CHECK_ERROR(aclnnEmuMallocResult(NULL, 8), ACL_ERROR_INVALID_PARAM, "devPtr");
    CHECK_ERROR(aclnnEmuMallocResult(&large, 0), ACL_ERROR_INVALID_PARAM, "size");

    /* Over the limit the oldest goes; a block larger than the limit is not kept. */
    void *b[3];
    for (int i = 0; i < 3; ++i) {
        CHECK(aclrtMalloc(&b[i], 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    }
    CHECK(aclnnEmuGetDeviceCacheBytes() == 0);
    for (int i = 0; i < 3; ++i) {
        CHECK(aclrtFree(b[i]) == ACL_SUCCESS);
    }
    CHECK(aclnnEmuGetDeviceCacheBytes() == 12 * MIB);
    CHECK(aclrtMalloc(&small, 14 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtFree(small) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 12 * MIB);
    CHECK(aclrtMalloc(&small, 6 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtFree(small) == ACL_SUCCESS); /* evicts b[0] and b[1] */
    CHECK(aclnnEmuGetDeviceCacheBytes() == 10 * MIB);
    CHECK(aclnnEmuSetDeviceCacheLimit(8 * MIB) == ACL_SUCCESS); /* evicts b[2], the oldest */
    CHECK(aclnnEmuGetDeviceCacheBytes() == 6 * MIB);

    /* Threads allocating and freeing at once (run under TSan in CI). */
    pthread_t threads[4];
    for (int i = 0; i < 4; ++i) {
        CHECK(pthread_create(&threads[i], NULL, cache_churn, NULL) == 0);
    }
    for (int i = 0; i < 4; ++i) {
        void *result = (void *)1;
        CHECK(pthread_join(threads[i], &result) == 0 && result == NULL);
    }
    CHECK(aclnnEmuGetDeviceCacheBytes() <= 8 * MIB);

    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 0);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&block, 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtFree(block) == ACL_SUCCESS);
    CHECK(aclnnEmuSetDeviceCacheLimit(0) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 0);
    CHECK(aclnnEmuSetDeviceCacheLimit(saved) == ACL_SUCCESS);
}

static void test_empty(void)
{
    int64_t shape[3] = {4, 0, 2};
    aclTensor *a = aclCreateTensor(shape, 3, ACL_BF16, NULL, 0, ACL_FORMAT_ND, shape, 3, NULL);
    aclTensor *b = aclCreateTensor(shape, 3, ACL_BF16, NULL, 0, ACL_FORMAT_ND, shape, 3, NULL);
    aclTensor *c = aclCreateTensor(shape, 3, ACL_BF16, NULL, 0, ACL_FORMAT_ND, shape, 3, NULL);
    uint64_t workspace_size = 99;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSiluBackwardGetWorkspaceSize(a, b, c, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(workspace_size == 0);
    CHECK(aclnnSiluBackward(NULL, 0, executor, NULL) == ACLNN_SUCCESS);
    CHECK(strcmp(aclnnEmuGetLastKernel(), "") == 0);
    aclDestroyTensor(a);
    aclDestroyTensor(b);
    aclDestroyTensor(c);

    /* An empty view may have dimensions whose product overflows int64: a
     * valid call that must not compute that product (UBSan in CI; found by
     * an extended test_fuzz campaign). */
    int64_t huge[3] = {INT64_MAX, 2, 0};
    aclTensor *self = aclCreateTensor(huge, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, huge, 3, NULL);
    aclTensor *out = aclCreateTensor(huge, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, huge, 3, NULL);
    CHECK(self != NULL && out != NULL);
    workspace_size = 99;
    CHECK(aclnnSiluGetWorkspaceSize(self, out, &workspace_size, &executor) == ACLNN_SUCCESS);
    CHECK(workspace_size == 0);
    CHECK(aclnnSilu(NULL, 0, executor, NULL) == ACLNN_SUCCESS);
    aclDestroyTensor(self);
    aclDestroyTensor(out);

    /* RoPE grad on such views: B*N of an empty BSND dy in interleave mode
     * (still more than the 1000 A2 allows), and the layout plan of an empty
     * D = 0 problem. */
    int64_t dy1[4] = {INT64_MAX, 0, 4, 2}, cs1[4] = {1, 0, 1, 2};
    int64_t dy2[4] = {INT64_MAX, 2, 1, 0};
    for (int mode = 1; mode >= 0; --mode) {
        const int64_t *d = mode == 1 ? dy1 : dy2, *c = mode == 1 ? cs1 : dy2;
        aclTensor *t[6];
        for (int i = 0; i < 6; ++i) {
            const int64_t *shape = (i == 0 || i == 3) ? d : c;
            t[i] = aclCreateTensor(shape, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 4, NULL);
        }
        /* dy, cos, sin, dx, dcos, dsin */
        aclnnStatus st = aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(t[0], t[1], t[2], NULL, mode, t[3], t[4],
                                                                          t[5], &workspace_size, &executor);
        if (mode == 1) {
            CHECK(st == ACLNN_ERR_INNER_TILING_ERROR);
        } else {
            CHECK(st == ACLNN_SUCCESS && workspace_size == 0);
            CHECK(st != ACLNN_SUCCESS || aclnnRotaryPositionEmbeddingGrad(NULL, 0, executor, NULL) == ACLNN_SUCCESS);
        }
        for (int i = 0; i < 6; ++i) {
            aclDestroyTensor(t[i]);
        }
    }
}

int main(void)
{
    test_runtime();
    test_tensors();
    test_silu_backward();
    test_device_memory_checks();
    test_device_cache();
#if defined(__SANITIZE_ADDRESS__)
    test_asan_sees_large_block_misuse();
#endif
    test_empty();
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclFinalize() == ACL_SUCCESS);
    CHECK_ERROR(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE, "aclFinalize");
    /* After aclrtResetDevice the thread has no current device: CANN's 107002. */
    void *late = NULL;
    CHECK_ERROR(aclrtMalloc(&late, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtMalloc: the calling thread has no current device");
    aclrtStream orphan = NULL;
    CHECK_ERROR(aclrtCreateStream(&orphan), ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtCreateStream: the calling thread has no current device");
    char byte = 1, copy = 0;
    CHECK_ERROR(aclrtMemcpy(&copy, 1, &byte, 1, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtMemcpy: the calling thread has no current device");
    CHECK(aclrtMemcpy(&copy, 1, &byte, 0, ACL_MEMCPY_HOST_TO_HOST) == ACL_SUCCESS); /* nothing to copy: fine */
    /* After aclFinalize nothing would release the cache: freed blocks go at once. A
     * device set again works without aclInit, as in CANN's runtime (no init check). */
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&late, 4u << 20, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtFree(late) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclnnEmuGetDeviceCacheBytes() == 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
