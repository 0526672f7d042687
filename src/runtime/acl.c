/* aclInit / aclFinalize reference counting and version query. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "common/emu.h"
#include "aclnn_emu/aclnn_emu.h"
#include "meta/executor.h"

/* Two kinds of reference keep the runtime up: host code's aclInit calls and
 * the holds of the Python package (aclnnEmuRetainRuntime). They are counted
 * apart so that the package's own initialisation stays invisible: host code
 * that calls aclInit after `import aclnn_emu` gets ACL_SUCCESS, as it would
 * without the package. Changes happen under init_lock (init and finalize
 * are rare and finalize must not race an init); reads are lock-free. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long host_inits;
static atomic_long package_holds;

bool emu_acl_initialized(void)
{
    return atomic_load(&host_inits) > 0 || atomic_load(&package_holds) > 0;
}

aclError aclInit(const char *configPath)
{
    if (configPath != NULL && configPath[0] != '\0') {
        FILE *config = fopen(configPath, "rb");
        if (config == NULL) {
            return emu_fail(ACL_ERROR_INVALID_FILE, "aclInit: configPath \"%.200s\" cannot be read; expected a "
                                                    "readable JSON file or NULL.", configPath);
        }
        fclose(config);
    }
    pthread_mutex_lock(&init_lock);
    /* A repeated aclInit still counts: aclFinalizeReference releases it. */
    const long before = atomic_fetch_add(&host_inits, 1);
    pthread_mutex_unlock(&init_lock);
    if (before > 0) {
        return emu_fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: AscendCL is already initialised; expected one "
                                                     "aclInit per aclFinalize.");
    }
    return ACL_SUCCESS;
}

static void report_tensor(const void *handle, void *ctx)
{
    const aclTensor *tensor = handle;
    char shape[256];
    fprintf(ctx, "aclnn_emu:   tensor %p, %s%s (aclCreateTensor without aclDestroyTensor)\n", handle,
            emu_dtype_name(tensor->view.dtype), emu_shape_string(&tensor->view, shape, sizeof shape));
}

/* ACLNN_EMU_REPORT_LEAKS=1: what the program created and never released. */
static void report_leaks(FILE *out)
{
    size_t blocks = emu_device_blocks_report(NULL);
    size_t tensors = emu_handle_each(EMU_HANDLE_TENSOR, NULL, NULL);
    size_t executors = emu_executor_report_live(NULL);
    size_t streams = emu_stream_live_count();
    size_t events = emu_handle_each(EMU_HANDLE_EVENT, NULL, NULL);
    fprintf(out, "aclnn_emu: aclFinalize: %zu device block(s), %zu tensor(s), %zu executor(s), %zu stream(s), "
                 "%zu event(s) still alive\n", blocks, tensors, executors, streams, events);
    emu_device_blocks_report(out);
    emu_handle_each(EMU_HANDLE_TENSOR, report_tensor, out);
    emu_executor_report_live(out);
    fflush(out);
}

/* What the last reference's release does, by either finalize call: queued
 * work finishes before the runtime goes away, then the leak report. */
static aclError finalize_runtime(void)
{
    aclError status = emu_streams_finalize();
    emu_device_cache_release();
    if (emu_report_leaks()) {
        report_leaks(stderr);
    }
    return status;
}

/* Under init_lock: the last reference of either kind is gone. */
static aclError finalize_if_unreferenced_locked(void)
{
    if (atomic_load(&host_inits) == 0 && atomic_load(&package_holds) == 0) {
        return finalize_runtime();
    }
    return ACL_SUCCESS;
}

aclError aclFinalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (atomic_exchange(&host_inits, 0) <= 0) {
        pthread_mutex_unlock(&init_lock);
        return emu_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: AscendCL is not initialised; expected a "
                                                   "successful aclInit first.");
    }
    const aclError status = finalize_if_unreferenced_locked();
    pthread_mutex_unlock(&init_lock);
    return status;
}

aclError aclFinalizeReference(uint64_t *refCount)
{
    pthread_mutex_lock(&init_lock);
    const long current = atomic_load(&host_inits);
    if (current <= 0) {
        pthread_mutex_unlock(&init_lock);
        return emu_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference: AscendCL is not initialised; "
                                                   "expected a successful aclInit first.");
    }
    atomic_store(&host_inits, current - 1);
    if (refCount != NULL) {
        *refCount = (uint64_t)(current - 1);
    }
    const aclError status = finalize_if_unreferenced_locked();
    pthread_mutex_unlock(&init_lock);
    return status;
}

aclError aclnnEmuRetainRuntime(void)
{
    pthread_mutex_lock(&init_lock);
    atomic_fetch_add(&package_holds, 1);
    pthread_mutex_unlock(&init_lock);
    return ACL_SUCCESS;
}

aclError aclnnEmuReleaseRuntime(void)
{
    pthread_mutex_lock(&init_lock);
    const long current = atomic_load(&package_holds);
    if (current <= 0) {
        pthread_mutex_unlock(&init_lock);
        return emu_fail(ACL_ERROR_REPEAT_FINALIZE, "aclnnEmuReleaseRuntime: no hold to release; expected one "
                                                   "aclnnEmuRetainRuntime per release.");
    }
    atomic_store(&package_holds, current - 1);
    const aclError status = finalize_if_unreferenced_locked();
    pthread_mutex_unlock(&init_lock);
    return status;
}

aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    if (majorVersion == NULL || minorVersion == NULL || patchVersion == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: %s is NULL; expected a pointer to int32_t.",
                        majorVersion == NULL ? "majorVersion" : minorVersion == NULL ? "minorVersion"
                                                                                      : "patchVersion");
    }
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

aclnnStatus aclnnInit(const char *configPath)
{
    (void)configPath;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void)
{
    return ACLNN_SUCCESS;
}

double emu_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
}
