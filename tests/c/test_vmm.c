/* Virtual memory, peer access and aclrtDestroyStreamForce, from C: every
 * error path (the code, and a message naming the API and the argument),
 * ggml-cann's pool round trip (reserve, map physical chunks back to back,
 * copy and run aclnnSilu across a mapping boundary, unmap, and the device
 * checks refusing the unmapped range), and a forced stream destroy that
 * drops queued work without leaking. CI runs it under ASan+UBSan and TSan.
 * Prints "N passed, M failed". */
#define _GNU_SOURCE /* clock_gettime, usleep, dup under -std=c11 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_silu.h"

static atomic_int passed, failed;

#define MIB ((size_t)1 << 20)
#define GRAN (2 * MIB)

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            atomic_fetch_add(&passed, 1);                                            \
        } else {                                                                     \
            atomic_fetch_add(&failed, 1);                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* The call failed with `want`, and its message names `api` and `needle`. */
static void expect_fail(int got, int want, const char *api, const char *needle, int line)
{
    const char *msg = aclGetRecentErrMsg();
    if (got == want && msg != NULL && strstr(msg, api) != NULL && strstr(msg, needle) != NULL) {
        atomic_fetch_add(&passed, 1);
        return;
    }
    atomic_fetch_add(&failed, 1);
    fprintf(stderr, "%s:%d: got %d (expected %d naming %s and \"%s\"); message: %s\n", __FILE__, line, got, want,
            api, needle, msg != NULL ? msg : "(none)");
}
#define EXPECT_FAIL(call, want, api, needle) expect_fail((call), (want), (api), (needle), __LINE__)

static aclrtPhysicalMemProp device_prop(void)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    return prop;
}

static aclrtDrvMemHandle physical(size_t size)
{
    aclrtPhysicalMemProp prop = device_prop();
    aclrtDrvMemHandle handle = NULL;
    CHECK(aclrtMallocPhysical(&handle, size, &prop, 0) == ACL_SUCCESS && handle != NULL);
    return handle;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void test_granularity(void)
{
    static const char api[] = "aclrtMemGetAllocationGranularity";
    aclrtPhysicalMemProp prop = device_prop();
    size_t g = 0;
    CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g) == 0 && g == GRAN);
    g = 0;
    CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g) == 0 && g == GRAN);
    prop.memAttr = ACL_HBM_MEM_HUGE1G;
    CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g) == 0 && g == 1024 * MIB);
    prop = device_prop();
    prop.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    prop.memAttr = ACL_DDR_MEM_NORMAL;
    CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g) == 0 && g == GRAN);

    g = 12345;
    prop = device_prop();
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                ACL_ERROR_INVALID_PARAM, api, "prop");
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
                ACL_ERROR_INVALID_PARAM, api, "granularity");
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(&prop, (aclrtMemGranularityOptions)2, &g),
                ACL_ERROR_RT_PARAM_INVALID, api, "option");
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g),
                ACL_ERROR_RT_PARAM_INVALID, api, "option");
    prop.memAttr = ACL_DDR_MEM_HUGE; /* DDR on a device location */
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                ACL_ERROR_INVALID_PARAM, api, "prop->memAttr");
    prop.memAttr = ACL_HBM_MEM; /* no page type */
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                ACL_ERROR_INVALID_PARAM, api, "prop->memAttr");
    prop = device_prop();
    prop.location.type = (aclrtMemLocationType)7;
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                ACL_ERROR_RT_PARAM_INVALID, api, "prop->location.type");
    prop = device_prop();
    prop.location.id = 1;
    EXPECT_FAIL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                ACL_ERROR_RT_INVALID_DEVICEID, api, "prop->location.id");
    CHECK(g == 12345); /* untouched on failure */
}

static void test_reserve_release(void)
{
    static const char api[] = "aclrtReserveMemAddress";
    void *ptr = (void *)&ptr;
    void *const untouched = ptr;
    EXPECT_FAIL(aclrtReserveMemAddress(NULL, GRAN, 0, NULL, 0), ACL_ERROR_INVALID_PARAM, api, "virPtr");
    EXPECT_FAIL(aclrtReserveMemAddress(&ptr, 0, 0, NULL, 0), ACL_ERROR_INVALID_PARAM, api, "size");
    EXPECT_FAIL(aclrtReserveMemAddress(&ptr, GRAN, 0, NULL, 2), ACL_ERROR_INVALID_PARAM, api, "flags");
    EXPECT_FAIL(aclrtReserveMemAddress(&ptr, GRAN, 3 * MIB, NULL, 0), ACL_ERROR_RT_PARAM_INVALID, api, "alignment");
    EXPECT_FAIL(aclrtReserveMemAddress(&ptr, GRAN, 0, (void *)(uintptr_t)(GRAN * 1000 + 4096), 0),
                ACL_ERROR_RT_PARAM_INVALID, api, "expectPtr");
    EXPECT_FAIL(aclrtReserveMemAddress(&ptr, SIZE_MAX - 4096, 0, NULL, 0), ACL_ERROR_RT_MEMORY_ALLOCATION, api,
                "size");
    CHECK(ptr == untouched);

    /* A size that is not a multiple of the granularity is rounded up (CANN
     * documents no alignment for it, and ggml reserves the free memory
     * aclrtGetMemInfo reports): the last granule is there to map. */
    void *odd = NULL;
    CHECK(aclrtReserveMemAddress(&odd, 3 * MIB + 1, 0, NULL, 1) == 0 && (uintptr_t)odd % GRAN == 0);
    aclrtDrvMemHandle h = physical(GRAN);
    CHECK(aclrtMapMem((char *)odd + GRAN, GRAN, 0, h, 0) == 0);
    CHECK(aclrtUnmapMem((char *)odd + GRAN) == 0);
    EXPECT_FAIL(aclrtMapMem((char *)odd + 2 * GRAN, GRAN, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID, "aclrtMapMem",
                "virPtr");
    CHECK(aclrtFreePhysical(h) == 0);

    /* The alignment asked for is honoured. */
    void *aligned = NULL;
    CHECK(aclrtReserveMemAddress(&aligned, GRAN, 1024 * MIB, NULL, 0) == 0 && (uintptr_t)aligned % (1024 * MIB) == 0);

    /* expectPtr: a free address is taken as it is, one in use is refused. */
    void *first = NULL, *again = NULL, *taken = (void *)&taken;
    CHECK(aclrtReserveMemAddress(&first, 4 * MIB, 0, NULL, 0) == 0);
    CHECK(aclrtReleaseMemAddress(first) == 0);
    CHECK(aclrtReserveMemAddress(&again, 4 * MIB, 0, first, 0) == 0 && again == first);
    EXPECT_FAIL(aclrtReserveMemAddress(&taken, 4 * MIB, 0, first, 0), ACL_ERROR_RT_MEMORY_ALLOCATION, api,
                "expectPtr");
    CHECK(taken == (void *)&taken);

    static const char rel[] = "aclrtReleaseMemAddress";
    int local = 0;
    EXPECT_FAIL(aclrtReleaseMemAddress(NULL), ACL_ERROR_INVALID_PARAM, rel, "virPtr");
    EXPECT_FAIL(aclrtReleaseMemAddress(&local), ACL_ERROR_RT_PARAM_INVALID, rel, "virPtr");
    EXPECT_FAIL(aclrtReleaseMemAddress((char *)again + GRAN), ACL_ERROR_RT_PARAM_INVALID, rel, "inside");
    CHECK(aclrtReleaseMemAddress(again) == 0);
    EXPECT_FAIL(aclrtReleaseMemAddress(again), ACL_ERROR_RT_PARAM_INVALID, rel, "virPtr"); /* twice */
    CHECK(aclrtReleaseMemAddress(aligned) == 0);
    CHECK(aclrtReleaseMemAddress(odd) == 0);
}

static void test_physical(void)
{
    static const char api[] = "aclrtMallocPhysical";
    aclrtPhysicalMemProp prop = device_prop();
    aclrtDrvMemHandle h = (aclrtDrvMemHandle)&h;
    const aclrtDrvMemHandle untouched = h;
    EXPECT_FAIL(aclrtMallocPhysical(NULL, GRAN, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "handle");
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, NULL, 0), ACL_ERROR_INVALID_PARAM, api, "prop");
    EXPECT_FAIL(aclrtMallocPhysical(&h, 0, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "size");
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 1), ACL_ERROR_INVALID_PARAM, api, "flags");
    prop.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "prop->handleType");
    prop = device_prop();
    prop.allocationType = (aclrtMemAllocationType)1;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "prop->allocationType");
    prop = device_prop();
    prop.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "prop->location.type");
    prop.location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "prop->location.type");
    prop.location.type = (aclrtMemLocationType)9;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_RT_PARAM_INVALID, api, "prop->location.type");
    prop = device_prop();
    prop.memAttr = ACL_DDR_MEM_P2P_NORMAL;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "prop->memAttr");
    prop.memAttr = (aclrtMemAttr)99;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_INVALID_PARAM, api, "prop->memAttr");
    prop = device_prop();
    prop.location.id = 3;
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_RT_INVALID_DEVICEID, api, "prop->location.id");
    prop = device_prop();
    EXPECT_FAIL(aclrtMallocPhysical(&h, MIB, &prop, 0), ACL_ERROR_RT_PARAM_INVALID, api, "size");
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN + 4096, &prop, 0), ACL_ERROR_RT_PARAM_INVALID, api, "size");
    prop.memAttr = ACL_HBM_MEM_HUGE1G; /* 1 GiB granularity */
    EXPECT_FAIL(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_ERROR_RT_PARAM_INVALID, api, "size");
    prop = device_prop();
    EXPECT_FAIL(aclrtMallocPhysical(&h, SIZE_MAX / GRAN * GRAN, &prop, 0), ACL_ERROR_RT_MEMORY_ALLOCATION, api,
                "size");
    CHECK(h == untouched);

    /* A host location with DDR memory is fine too. */
    prop.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    prop.memAttr = ACL_DDR_MEM_HUGE;
    CHECK(aclrtMallocPhysical(&h, 2 * GRAN, &prop, 0) == 0 && h != untouched);

    static const char fr[] = "aclrtFreePhysical";
    int local = 0;
    EXPECT_FAIL(aclrtFreePhysical(NULL), ACL_ERROR_INVALID_PARAM, fr, "handle");
    EXPECT_FAIL(aclrtFreePhysical(&local), ACL_ERROR_RT_INVALID_HANDLE, fr, "handle");
    CHECK(aclrtFreePhysical(h) == 0);
    EXPECT_FAIL(aclrtFreePhysical(h), ACL_ERROR_RT_INVALID_HANDLE, fr, "handle"); /* twice */
}

static void test_map_errors(void)
{
    static const char api[] = "aclrtMapMem";
    static const char un[] = "aclrtUnmapMem";
    char *res = NULL, *gone = NULL;
    CHECK(aclrtReserveMemAddress((void **)&res, 64 * MIB, 0, NULL, 0) == 0);
    CHECK(aclrtReserveMemAddress((void **)&gone, 4 * MIB, 0, NULL, 0) == 0);
    CHECK(aclrtReleaseMemAddress(gone) == 0); /* addresses in no reservation */
    aclrtDrvMemHandle h = physical(GRAN), h4 = physical(2 * GRAN);
    int local = 0;

    EXPECT_FAIL(aclrtMapMem(NULL, GRAN, 0, h, 0), ACL_ERROR_INVALID_PARAM, api, "virPtr");
    EXPECT_FAIL(aclrtMapMem(res, GRAN, 0, NULL, 0), ACL_ERROR_INVALID_PARAM, api, "handle");
    EXPECT_FAIL(aclrtMapMem(res, 0, 0, h, 0), ACL_ERROR_INVALID_PARAM, api, "size");
    EXPECT_FAIL(aclrtMapMem(res, GRAN, 0, h, 1), ACL_ERROR_INVALID_PARAM, api, "flags");
    EXPECT_FAIL(aclrtMapMem(res, GRAN, 0, &local, 0), ACL_ERROR_RT_INVALID_HANDLE, api, "handle");
    EXPECT_FAIL(aclrtMapMem(res, GRAN, 4096, h, 0), ACL_ERROR_RT_PARAM_INVALID, api, "offset");
    EXPECT_FAIL(aclrtMapMem(res, 2 * GRAN, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID, api, "size");
    EXPECT_FAIL(aclrtMapMem(res + 4096, GRAN, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID, api, "virPtr");
    EXPECT_FAIL(aclrtMapMem(gone, GRAN, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID, api, "reservation");
    /* Straddling the end of the reservation. */
    EXPECT_FAIL(aclrtMapMem(res + 64 * MIB - GRAN, 2 * GRAN, 0, h4, 0), ACL_ERROR_RT_PARAM_INVALID, api,
                "past the end");
    /* Already mapped, fully or in part. */
    CHECK(aclrtMapMem(res + GRAN, 2 * GRAN, 0, h4, 0) == 0);
    EXPECT_FAIL(aclrtMapMem(res + GRAN, GRAN, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID, api, "overlaps");
    EXPECT_FAIL(aclrtMapMem(res + 2 * GRAN, GRAN, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID, api, "overlaps");
    EXPECT_FAIL(aclrtMapMem(res, 2 * GRAN, 0, h4, 0), ACL_ERROR_RT_PARAM_INVALID, api, "overlaps");

    /* Free and release while mapped are refused; so is aclrtFree. */
    EXPECT_FAIL(aclrtFreePhysical(h4), ACL_ERROR_RT_PARAM_INVALID, "aclrtFreePhysical", "still mapped");
    EXPECT_FAIL(aclrtReleaseMemAddress(res), ACL_ERROR_RT_PARAM_INVALID, "aclrtReleaseMemAddress", "mapping");
    EXPECT_FAIL(aclrtFree(res + GRAN), ACL_ERROR_INVALID_PARAM, "aclrtFree", "aclrtMapMem");

    EXPECT_FAIL(aclrtUnmapMem(NULL), ACL_ERROR_INVALID_PARAM, un, "virPtr");
    EXPECT_FAIL(aclrtUnmapMem(res), ACL_ERROR_RT_PARAM_INVALID, un, "not mapped");
    EXPECT_FAIL(aclrtUnmapMem(res + 2 * GRAN), ACL_ERROR_RT_PARAM_INVALID, un, "inside the mapping");
    EXPECT_FAIL(aclrtUnmapMem(gone), ACL_ERROR_RT_PARAM_INVALID, un, "reservation");

    /* One handle mapped at two places shares its bytes. */
    CHECK(aclrtMapMem(res + 16 * MIB, GRAN, 0, h, 0) == 0);
    CHECK(aclrtMapMem(res + 32 * MIB, GRAN, 0, h, 0) == 0);
    /* (Through the API: the compiler cannot know that two addresses alias.) */
    const char pattern[8] = "ACLNNEM", empty[8] = {0};
    char seen[8] = {0};
    CHECK(aclrtMemcpy(res + 32 * MIB + 100, 8, empty, 8, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(aclrtMemcpy(res + 16 * MIB + 100, 8, pattern, 8, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(aclrtMemcpy(seen, 8, res + 32 * MIB + 100, 8, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    CHECK(memcmp(seen, pattern, 8) == 0);
    EXPECT_FAIL(aclrtFreePhysical(h), ACL_ERROR_RT_PARAM_INVALID, "aclrtFreePhysical", "2 time(s)");
    CHECK(aclrtUnmapMem(res + 16 * MIB) == 0);
    EXPECT_FAIL(aclrtUnmapMem(res + 16 * MIB), ACL_ERROR_RT_PARAM_INVALID, un, "not mapped"); /* twice */
    CHECK(aclrtUnmapMem(res + 32 * MIB) == 0);
    CHECK(aclrtUnmapMem(res + GRAN) == 0);
    CHECK(aclrtFreePhysical(h) == 0);
    CHECK(aclrtFreePhysical(h4) == 0);
    EXPECT_FAIL(aclrtMapMem(res, GRAN, 0, h, 0), ACL_ERROR_RT_INVALID_HANDLE, api, "handle"); /* freed */
    CHECK(aclrtReleaseMemAddress(res) == 0);
}

static aclTensor *vector(void *data, int64_t n)
{
    int64_t shape[1] = {n};
    int64_t strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

/* aclnnSilu x -> y on `stream`, synchronized; the status of the first phase that fails. */
static int silu(void *x, void *y, int64_t n, aclrtStream stream)
{
    aclTensor *tx = vector(x, n), *ty = vector(y, n);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    int status = aclnnSiluGetWorkspaceSize(tx, ty, &ws, &executor);
    void *workspace = NULL;
    if (status == 0 && ws > 0) {
        status = aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    }
    if (status == 0) {
        status = aclnnSilu(workspace, ws, executor, stream);
    }
    if (status == 0) {
        status = aclrtSynchronizeStream(stream);
    }
    if (workspace != NULL) {
        aclrtFree(workspace);
    }
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    return status;
}

typedef struct {
    aclrtEvent gate;
} gate_arg;

static void *record_later(void *arg)
{
    gate_arg *g = arg;
    usleep(50 * 1000);
    aclrtRecordEvent(g->gate, NULL);
    return NULL;
}

/* ggml_cann_pool_vmm's way: reserve, then map chunks one after another. */
static void test_round_trip(void)
{
    enum { N = (int)(2 * MIB / sizeof(float)) }; /* 2 MiB of floats */
    char *pool = NULL;
    CHECK(aclrtReserveMemAddress((void **)&pool, 1024 * MIB, 0, NULL, 1) == 0);
    aclrtDrvMemHandle h[3] = {physical(GRAN), physical(GRAN), physical(GRAN)};
    for (int i = 0; i < 3; ++i) {
        CHECK(aclrtMapMem(pool + (size_t)i * GRAN, GRAN, 0, h[i], 0) == 0);
    }
    float *host = malloc(N * sizeof(float)), *back = malloc(N * sizeof(float)), *want = malloc(N * sizeof(float));
    for (int i = 0; i < N; ++i) {
        host[i] = (float)((i % 613) - 306) * 0.03125f;
    }
    /* x spans mappings 0 and 1, y spans mappings 1 and 2. */
    char *x = pool + MIB, *y = pool + 3 * MIB;
    CHECK(aclrtMemcpy(x, 2 * MIB, host, 2 * MIB, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(aclrtMemcpy(back, 2 * MIB, x, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    CHECK(memcmp(back, host, 2 * MIB) == 0);
    CHECK(aclrtMemset(y, 2 * MIB, 0, 2 * MIB) == 0);
    CHECK(aclrtMemcpy(y, 2 * MIB, x, 2 * MIB, ACL_MEMCPY_DEVICE_TO_DEVICE) == 0);
    CHECK(aclrtMemcpy(back, 2 * MIB, y, 2 * MIB, ACL_MEMCPY_DEFAULT) == 0 && memcmp(back, host, 2 * MIB) == 0);
    EXPECT_FAIL(aclrtMemcpy(x, 2 * MIB, host, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemcpy", "dst");

    /* The expected SiLU, from aclrtMalloc blocks. */
    void *dx = NULL, *dy = NULL;
    CHECK(aclrtMalloc(&dx, 2 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    CHECK(aclrtMalloc(&dy, 2 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    CHECK(aclrtMemcpy(dx, 2 * MIB, host, 2 * MIB, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(silu(dx, dy, N, NULL) == 0);
    CHECK(aclrtMemcpy(want, 2 * MIB, dy, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST) == 0);

    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream) == 0);
    CHECK(silu(x, y, N, NULL) == 0);
    CHECK(aclrtMemcpy(back, 2 * MIB, y, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST) == 0 && memcmp(back, want, 2 * MIB) == 0);
    CHECK(aclrtMemset(y, 2 * MIB, 0, 2 * MIB) == 0);
    CHECK(silu(x, y, N, stream) == 0);
    CHECK(aclrtMemcpy(back, 2 * MIB, y, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST) == 0 && memcmp(back, want, 2 * MIB) == 0);

    /* Unmapping the middle chunk splits the range: copies across it fail,
     * and its bytes come back with it. */
    CHECK(aclrtUnmapMem(pool + GRAN) == 0);
    EXPECT_FAIL(aclrtMemcpy(back, 2 * MIB, x, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemcpy", "src");
    EXPECT_FAIL(aclrtMemset(pool + GRAN, MIB, 0, MIB), ACL_ERROR_RT_PARAM_INVALID, "aclrtMemset", "devPtr");
    CHECK(aclrtMemcpy(back, MIB, pool + 2 * GRAN, MIB, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    CHECK(aclrtMapMem(pool + GRAN, GRAN, 0, h[1], 0) == 0);
    CHECK(aclrtMemcpy(back, 2 * MIB, y, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST) == 0 && memcmp(back, want, 2 * MIB) == 0);
    /* The same handle mapped further on shows the same bytes. */
    CHECK(aclrtMapMem(pool + 5 * GRAN, GRAN, 0, h[1], 0) == 0);
    CHECK(aclrtMemcpy(back, GRAN, pool + 5 * GRAN, GRAN, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    /* That chunk holds x's second half, then y's first half. */
    CHECK(memcmp(back, (const char *)host + MIB, MIB) == 0 && memcmp((char *)back + MIB, want, MIB) == 0);
    CHECK(aclrtUnmapMem(pool + 5 * GRAN) == 0);

    /* Unmap waits for queued work that uses the chunk: a copy held by an
     * event that another thread records later has run when it returns. */
    aclrtEvent gate = NULL;
    CHECK(aclrtCreateEvent(&gate) == 0);
    CHECK(aclrtStreamWaitEvent(stream, gate) == 0);
    memset(back, 0, 2 * MIB);
    CHECK(aclrtMemcpyAsync(back, 2 * MIB, y, 2 * MIB, ACL_MEMCPY_DEVICE_TO_HOST, stream) == 0);
    gate_arg arg = {gate};
    pthread_t recorder;
    CHECK(pthread_create(&recorder, NULL, record_later, &arg) == 0);
    CHECK(aclrtUnmapMem(pool + 2 * GRAN) == 0);
    CHECK(memcmp(back, want, 2 * MIB) == 0);
    pthread_join(recorder, NULL);
    CHECK(aclrtSynchronizeStream(stream) == 0);
    CHECK(aclrtDestroyEvent(gate) == 0);

    /* y now runs past the mapped range: phase 1 refuses it. A plan made
     * while its memory was mapped fails in phase 2 once it is not. */
    EXPECT_FAIL(silu(x, y, N, stream), ACLNN_ERR_PARAM_INVALID, "aclnnSiluGetWorkspaceSize", "out");
    aclTensor *tx = vector(pool, N / 2), *ty = vector(pool + GRAN, N / 2);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSiluGetWorkspaceSize(tx, ty, &ws, &executor) == 0 && ws == 0);
    CHECK(aclrtUnmapMem(pool) == 0);
    EXPECT_FAIL(aclnnSilu(NULL, 0, executor, stream), ACLNN_ERR_PARAM_INVALID, "aclnnSilu", "not in device memory");
    CHECK(aclDestroyAclOpExecutor(executor) == 0);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    EXPECT_FAIL(aclrtMemcpy(pool, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemcpy", "not in device memory");

    CHECK(aclrtUnmapMem(pool + GRAN) == 0);
    for (int i = 0; i < 3; ++i) {
        CHECK(aclrtFreePhysical(h[i]) == 0);
    }
    CHECK(aclrtReleaseMemAddress(pool) == 0);
    EXPECT_FAIL(aclrtMemcpy(back, 16, pool + GRAN, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemcpy", "src");
    CHECK(aclrtDestroyStream(stream) == 0);
    CHECK(aclrtFree(dx) == 0);
    CHECK(aclrtFree(dy) == 0);
    free(host);
    free(back);
    free(want);
}

static void *enable_without_device(void *arg)
{
    int *code = arg;
    *code = aclrtDeviceEnablePeerAccess(1, 0);
    const char *msg = aclGetRecentErrMsg();
    if (msg == NULL || strstr(msg, "aclrtDeviceEnablePeerAccess") == NULL || strstr(msg, "aclrtSetDevice") == NULL) {
        *code = -1;
    }
    return NULL;
}

static void test_peer_access(void)
{
    static const char can[] = "aclrtDeviceCanAccessPeer";
    int32_t v = 7;
    EXPECT_FAIL(aclrtDeviceCanAccessPeer(&v, 0, 0), ACL_ERROR_INVALID_PARAM, can, "peerDeviceId");
    EXPECT_FAIL(aclrtDeviceCanAccessPeer(&v, 0, 1), ACL_ERROR_RT_INVALID_DEVICEID, can, "peerDeviceId");
    EXPECT_FAIL(aclrtDeviceCanAccessPeer(&v, 1, 0), ACL_ERROR_RT_INVALID_DEVICEID, can, "deviceId");
    EXPECT_FAIL(aclrtDeviceCanAccessPeer(&v, -1, 0), ACL_ERROR_RT_INVALID_DEVICEID, can, "deviceId");
    EXPECT_FAIL(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_RT_INVALID_DEVICEID, can, "peerDeviceId");
    CHECK(v == 7);

    static const char en[] = "aclrtDeviceEnablePeerAccess";
    static const char dis[] = "aclrtDeviceDisablePeerAccess";
    EXPECT_FAIL(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED, en, "flags");
    EXPECT_FAIL(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM, en, "peerDeviceId");
    EXPECT_FAIL(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_INVALID_DEVICEID, en, "peerDeviceId");
    EXPECT_FAIL(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_INVALID_PARAM, dis, "peerDeviceId");
    EXPECT_FAIL(aclrtDeviceDisablePeerAccess(2), ACL_ERROR_RT_INVALID_DEVICEID, dis, "peerDeviceId");
    int code = 0;
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, enable_without_device, &code) == 0);
    pthread_join(thread, NULL);
    CHECK(code == ACL_ERROR_RT_CONTEXT_NULL);
}

static void *synchronize_device(void *arg)
{
    (void)arg;
    aclrtSynchronizeDevice();
    return NULL;
}

static void test_destroy_force(void)
{
    static const char api[] = "aclrtDestroyStreamForce";
    int local = 0;
    EXPECT_FAIL(aclrtDestroyStreamForce(NULL), ACL_ERROR_INVALID_PARAM, api, "stream");
    EXPECT_FAIL(aclrtDestroyStreamForce(&local), ACL_ERROR_INVALID_PARAM, api, "stream");

    enum { N = 4096 };
    static float host[N], back[N];
    for (int i = 0; i < N; ++i) {
        host[i] = (float)i;
    }
    void *x = NULL, *y = NULL;
    CHECK(aclrtMalloc(&x, sizeof host, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMalloc(&y, sizeof host, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
    CHECK(aclrtMemset(x, sizeof host, 0, sizeof host) == 0);
    CHECK(aclrtMemset(y, sizeof host, 0, sizeof host) == 0);

    aclrtStream s = NULL, other = NULL;
    aclrtEvent gate = NULL, done = NULL;
    CHECK(aclrtCreateStream(&s) == 0);
    CHECK(aclrtCreateStream(&other) == 0);
    CHECK(aclrtCreateEvent(&gate) == 0); /* never recorded: holds s */
    CHECK(aclrtCreateEvent(&done) == 0);
    CHECK(aclrtStreamWaitEvent(s, gate) == 0);
    CHECK(aclrtMemcpyAsync(x, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE, s) == 0);
    aclTensor *tx = vector(x, N), *ty = vector(y, N);
    uint64_t ws = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnSiluGetWorkspaceSize(tx, ty, &ws, &executor) == 0 && ws == 0);
    CHECK(aclnnSilu(NULL, 0, executor, s) == 0); /* single-use: released when dropped */
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    CHECK(aclrtRecordEvent(done, s) == 0);
    CHECK(aclrtMemsetAsync(y, sizeof host, 0x7F, sizeof host, s) == 0);
    /* Another stream waits for the record that will be dropped. */
    CHECK(aclrtStreamWaitEvent(other, done) == 0);
    CHECK(aclrtMemsetAsync(x, sizeof host, 0x11, 16, other) == 0);
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    CHECK(aclrtStreamQuery(s, &status) == 0 && status == ACL_STREAM_STATUS_NOT_READY);

    pthread_t waiter;
    CHECK(pthread_create(&waiter, NULL, synchronize_device, NULL) == 0);
    usleep(20 * 1000);
    double start = now_ms();
    CHECK(aclrtDestroyStreamForce(s) == 0);
    CHECK(now_ms() - start < 5000.0);
    pthread_join(waiter, NULL); /* its wait for s ended */
    EXPECT_FAIL(aclrtDestroyStreamForce(s), ACL_ERROR_INVALID_PARAM, api, "stream"); /* twice */
    EXPECT_FAIL(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream", "stream");

    CHECK(aclrtSynchronizeStream(other) == 0);
    CHECK(aclrtSynchronizeEvent(done) == 0);
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    CHECK(aclrtQueryEventStatus(done, &recorded) == 0 && recorded == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    /* Nothing queued on s ran: x holds only other's memset, y its zeros. */
    CHECK(aclrtMemcpy(back, sizeof back, x, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    const unsigned char *bytes = (const unsigned char *)back;
    CHECK(bytes[0] == 0x11 && bytes[15] == 0x11 && bytes[16] == 0 && back[N - 1] == 0.0f);
    CHECK(aclrtMemcpy(back, sizeof back, y, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    CHECK(back[0] == 0.0f && back[N - 1] == 0.0f);

    /* A stream with nothing queued, and one whose work already ran. */
    CHECK(aclrtCreateStream(&s) == 0);
    CHECK(aclrtDestroyStreamForce(s) == 0);
    CHECK(aclrtCreateStream(&s) == 0);
    CHECK(aclrtMemsetAsync(y, sizeof host, 0x22, sizeof host, s) == 0);
    CHECK(aclrtSynchronizeStream(s) == 0);
    CHECK(aclrtDestroyStreamForce(s) == 0);
    CHECK(aclrtMemcpy(back, 4, y, 4, ACL_MEMCPY_DEVICE_TO_HOST) == 0 && bytes[0] == 0x22);

    CHECK(aclrtDestroyStream(other) == 0);
    CHECK(aclrtDestroyEvent(gate) == 0);
    CHECK(aclrtDestroyEvent(done) == 0);
    CHECK(aclrtFree(x) == 0);
    CHECK(aclrtFree(y) == 0);
}

/* aclFinalize's leak report (ACLNN_EMU_REPORT_LEAKS=1), captured. */
static void finalize_report(char *out, size_t size)
{
    fflush(stderr);
    FILE *capture = tmpfile();
    int saved = dup(2);
    CHECK(capture != NULL && saved >= 0);
    if (capture == NULL || saved < 0) {
        out[0] = '\0';
        aclFinalize();
        return;
    }
    dup2(fileno(capture), 2);
    CHECK(aclFinalize() == 0);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(capture);
    size_t got = fread(out, 1, size - 1, capture);
    out[got] = '\0';
    fclose(capture);
}

static void test_leak_report(void)
{
    char *res = NULL;
    CHECK(aclrtReserveMemAddress((void **)&res, 8 * MIB, 0, NULL, 0) == 0);
    aclrtDrvMemHandle h = physical(GRAN);
    CHECK(aclrtMapMem(res, GRAN, 0, h, 0) == 0);
    char report[4096];
    finalize_report(report, sizeof report);
    CHECK(strstr(report, "2 device block(s)") != NULL);
    CHECK(strstr(report, "reserved addresses") != NULL && strstr(report, "1 mapping(s)") != NULL);
    CHECK(strstr(report, "aclrtMallocPhysical without aclrtFreePhysical") != NULL);
    CHECK(aclInit(NULL) == 0);
    CHECK(aclrtUnmapMem(res) == 0);
    CHECK(aclrtFreePhysical(h) == 0);
    CHECK(aclrtReleaseMemAddress(res) == 0);
    finalize_report(report, sizeof report);
    if (strstr(report, "0 device block(s), 0 tensor(s), 0 executor(s), 0 stream(s), 0 event(s)") == NULL) {
        fprintf(stderr, "leak report:\n%s", report);
        CHECK(0);
    }
}

int main(void)
{
    setenv("ACLNN_EMU_REPORT_LEAKS", "1", 1);
    CHECK(aclInit(NULL) == 0);
    CHECK(aclrtSetDevice(0) == 0);
    test_granularity();
    test_reserve_release();
    test_physical();
    test_map_errors();
    test_round_trip();
    test_peer_access();
    test_destroy_force();
    test_leak_report();
    printf("%d passed, %d failed\n", atomic_load(&passed), atomic_load(&failed));
    return atomic_load(&failed) == 0 ? 0 : 1;
}
