/* aclInit / aclFinalize reference counting and version query. */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "common/emu.h"

static atomic_long init_count;

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

aclError aclFinalize(void)
{
    if (atomic_exchange(&init_count, 0) <= 0) {
        return emu_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: AscendCL is not initialised; expected a "
                                                   "successful aclInit first.");
    }
    return ACL_SUCCESS;
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
    return ACL_SUCCESS;
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
