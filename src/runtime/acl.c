/* aclInit / aclFinalize reference counting and version query. */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "common/emu.h"
#include "meta/executor.h"

static atomic_long init_count;

bool emu_acl_initialized(void)
{
    return atomic_load(&init_count) > 0;
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
    if (atomic_fetch_add(&init_count, 1) > 0) {
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

aclError aclFinalize(void)
{
    if (atomic_exchange(&init_count, 0) <= 0) {
        return emu_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: AscendCL is not initialised; expected a "
                                                   "successful aclInit first.");
    }
    return finalize_runtime();
}

aclError aclFinalizeReference(uint64_t *refCount)
{
    long current = atomic_load(&init_count);
    while (current > 0 && !atomic_compare_exchange_weak(&init_count, &current, current - 1)) {
    }
    if (current <= 0) {
        return emu_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference: AscendCL is not initialised; "
                                                   "expected a successful aclInit first.");
    }
    if (refCount != NULL) {
        *refCount = (uint64_t)(current - 1);
    }
    return current == 1 ? finalize_runtime() : ACL_SUCCESS;
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
