/* One emulated device (id 0) and its contexts. */
#include <stdio.h>
#include <stdlib.h>

#include "common/emu.h"

typedef struct {
    int32_t device;
} emu_context;

/* The context aclrtSetDevice makes current, as CANN's default context. */
static emu_context default_context;

static _Thread_local bool device_set;
static _Thread_local aclrtContext current_context;

static aclError invalid_device(const char *api, int32_t deviceId)
{
    return emu_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: deviceId is %d; expected 0 (aclnn_emu emulates one "
                                                   "device).", api, (int)deviceId);
}

aclError emu_require_device(const char *api)
{
    if (!device_set && current_context == NULL) {
        return emu_fail(ACL_ERROR_RT_CONTEXT_NULL, "%s: the calling thread has no current device; expected "
                                                   "aclrtSetDevice(0) (or aclrtSetCurrentContext) on this thread "
                                                   "first, as CANN requires.", api);
    }
    if (!emu_acl_initialized() && emu_verbose()) {
        fprintf(stderr, "[aclnn_emu] %s before aclInit: CANN's runtime does not check it either; portable code "
                        "calls aclInit first\n", api);
    }
    return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    if (deviceId != 0) {
        return invalid_device("aclrtSetDevice", deviceId);
    }
    device_set = true;
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId)
{
    if (deviceId != 0) {
        return invalid_device("aclrtResetDevice", deviceId);
    }
    aclrtSynchronizeDevice();
    emu_device_cache_release();
    device_set = false;
    return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId)
{
    if (deviceId == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is NULL; expected a pointer to int32_t.");
    }
    if (!device_set && current_context == NULL) {
        return emu_fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice: the calling thread has no current device; "
                                                   "expected aclrtSetDevice(0) first.");
    }
    *deviceId = 0;
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (count == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL; expected a pointer to "
                                                 "uint32_t.");
    }
    *count = 1;
    return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    if (runMode == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is NULL; expected a pointer to "
                                                 "aclrtRunMode.");
    }
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    if (context == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is NULL; expected a pointer to "
                                                 "aclrtContext.");
    }
    if (deviceId != 0) {
        return invalid_device("aclrtCreateContext", deviceId);
    }
    emu_context *created = calloc(1, sizeof *created);
    if (created == NULL || !emu_handle_add(created, EMU_HANDLE_CONTEXT)) {
        free(created);
        return emu_fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateContext: out of host memory.");
    }
    created->device = deviceId;
    current_context = created;
    device_set = true;
    *context = created;
    return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context)
{
    if (context == NULL || !emu_handle_remove(context, EMU_HANDLE_CONTEXT)) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: context %p is %s; expected a context from "
                                                 "aclrtCreateContext.", context,
                        context == NULL ? "NULL" : "not a live context");
    }
    if (current_context == context) {
        current_context = NULL;
    }
    free(context);
    return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context)
{
    if (context == NULL || (context != &default_context && !emu_handle_is(context, EMU_HANDLE_CONTEXT))) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: context %p is %s; expected a context "
                                                 "from aclrtCreateContext.", context,
                        context == NULL ? "NULL" : "not a live context");
    }
    current_context = context;
    device_set = true;
    return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext *context)
{
    if (context == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is NULL; expected a pointer to "
                                                 "aclrtContext.");
    }
    if (current_context == NULL && device_set) {
        *context = &default_context;
        return ACL_SUCCESS;
    }
    if (current_context == NULL) {
        return emu_fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext: the calling thread has no current "
                                                   "context; expected aclrtSetDevice or aclrtCreateContext first.");
    }
    *context = current_context;
    return ACL_SUCCESS;
}
