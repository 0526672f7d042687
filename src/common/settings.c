/* Process-wide settings. Each is an atomic, initialised once from the
 * environment (pthread_once) and changeable through aclnn_emu.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#if defined(__linux__)
#include <sched.h>
#endif

#include "common/emu.h"
#include "kernels/isa.h"

enum { EMU_MAX_THREADS = 1024 };

typedef struct {
    emu_soc soc;
    const char *name;
} soc_info;

static const soc_info SOCS[] = {
    {EMU_SOC_ASCEND910B, "Ascend910B"},
    {EMU_SOC_ASCEND910_93, "Ascend910_93"},
    {EMU_SOC_ASCEND910, "Ascend910"},
    {EMU_SOC_ASCEND950, "Ascend950"},
};

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static atomic_int soc_setting = EMU_SOC_ASCEND910B;
static atomic_int threads_setting; /* 0 = all usable cores */
static atomic_bool verbose_setting;
static atomic_bool sync_setting;
static atomic_bool report_leaks_setting;
static atomic_bool host_memory_default;
static atomic_ullong device_cache_limit; /* bytes; see aclnnEmuSetDeviceCacheLimit */
/* FusedFloydAttention(Grad) tile override (ACLNN_EMU_FLOYD_TILE=NBxMBxKB, for
 * tuning), 0 = automatic; one word so a reader sees the three together:
 * nb, mb and kb in 21 bits each. */
static atomic_ullong floyd_tile_setting;
/* -1: not set on this thread, use the process default. */
static _Thread_local int host_memory_allowed = -1;
static _Thread_local char last_kernel[128];

static const soc_info *soc_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof SOCS / sizeof SOCS[0]; ++i) {
        if (strcmp(SOCS[i].name, name) == 0) {
            return &SOCS[i];
        }
    }
    return NULL;
}

/* Set and not "0". */
static bool env_flag(const char *name)
{
    const char *value = getenv(name);
    return value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
}

/* The memory this process may use: the host's, or its cgroup's limit
 * (v2, then v1) when that is lower; 0 when unknown. */
static uint64_t usable_memory(void)
{
    uint64_t bytes = 0;
    long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES);
    if (page > 0 && pages > 0) {
        bytes = (uint64_t)page * (uint64_t)pages;
    }
    static const char *const LIMITS[] = {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    for (size_t i = 0; i < sizeof LIMITS / sizeof LIMITS[0]; ++i) {
        FILE *file = fopen(LIMITS[i], "r");
        if (file == NULL) {
            continue;
        }
        unsigned long long limit = 0; /* "max" (no limit) does not parse */
        if (fscanf(file, "%llu", &limit) == 1 && limit > 0 && (bytes == 0 || limit < bytes)) {
            bytes = limit;
        }
        fclose(file);
    }
    return bytes;
}

/* 1 GiB, or an eighth of the usable memory if that is less: enough to keep
 * the workspaces of a few large launches, little on a small CI machine. */
static uint64_t default_device_cache_limit(void)
{
    uint64_t limit = (uint64_t)1 << 30, usable = usable_memory();
    if (usable > 0 && usable / 8 < limit) {
        limit = usable / 8;
    }
    return limit;
}

enum { EMU_FLOYD_TILE_MAX = (1 << 21) - 1 };

static unsigned long long pack_tile(long long nb, long long mb, long long kb)
{
    return (unsigned long long)nb | (unsigned long long)mb << 21 | (unsigned long long)kb << 42;
}

static void read_environment(void)
{
    const char *soc = getenv("ACLNN_EMU_SOC");
    if (soc != NULL && soc[0] != '\0') {
        const soc_info *info = soc_by_name(soc);
        if (info != NULL) {
            atomic_store(&soc_setting, (int)info->soc);
        } else {
            fprintf(stderr, "aclnn_emu: ignoring ACLNN_EMU_SOC=%s; expected Ascend910B, Ascend910_93, "
                            "Ascend910 or Ascend950.\n", soc);
        }
    }
    const char *threads = getenv("ACLNN_EMU_NUM_THREADS");
    if (threads != NULL && threads[0] != '\0') {
        char *end = NULL;
        long n = strtol(threads, &end, 10);
        if (*end == '\0' && n >= 0 && n <= EMU_MAX_THREADS) {
            atomic_store(&threads_setting, (int)n);
        } else {
            fprintf(stderr, "aclnn_emu: ignoring ACLNN_EMU_NUM_THREADS=%s; expected 0..%d.\n", threads,
                    EMU_MAX_THREADS);
        }
    }
    const char *verbose = getenv("ACLNN_EMU_VERBOSE");
    atomic_store(&verbose_setting, verbose != NULL && verbose[0] != '\0' && strcmp(verbose, "0") != 0);
    atomic_store(&sync_setting, env_flag("ACLNN_EMU_SYNC"));
    atomic_store(&report_leaks_setting, env_flag("ACLNN_EMU_REPORT_LEAKS"));
    atomic_store(&device_cache_limit, default_device_cache_limit());
    const char *cache = getenv("ACLNN_EMU_DEVICE_CACHE_MIB");
    if (cache != NULL && cache[0] != '\0') {
        char *end = NULL;
        unsigned long long mib = strtoull(cache, &end, 10);
        if (*end == '\0' && cache[0] != '-' && mib <= (UINT64_MAX >> 20)) {
            atomic_store(&device_cache_limit, (unsigned long long)mib << 20);
        } else {
            fprintf(stderr, "aclnn_emu: ignoring ACLNN_EMU_DEVICE_CACHE_MIB=%s; expected a number of MiB "
                            "(0 turns the cache off).\n", cache);
        }
    }
    const char *tile = getenv("ACLNN_EMU_FLOYD_TILE");
    if (tile != NULL && tile[0] != '\0') {
        long long nb = 0, mb = 0, kb = 0;
        char end = '\0';
        if (sscanf(tile, "%lldx%lldx%lld%c", &nb, &mb, &kb, &end) == 3 && nb > 0 && mb > 0 && kb > 0 &&
            nb <= EMU_FLOYD_TILE_MAX && mb <= EMU_FLOYD_TILE_MAX && kb <= EMU_FLOYD_TILE_MAX) {
            atomic_store(&floyd_tile_setting, pack_tile(nb, mb, kb));
        } else {
            fprintf(stderr, "aclnn_emu: ignoring ACLNN_EMU_FLOYD_TILE=%s; expected NBxMBxKB, three sizes 1..%d.\n",
                    tile, EMU_FLOYD_TILE_MAX);
        }
    }
    const char *host = getenv("ACLNN_EMU_ALLOW_HOST_MEMORY");
    atomic_store(&host_memory_default, host != NULL && host[0] != '\0' && strcmp(host, "0") != 0);
}

static void ensure_environment(void)
{
    pthread_once(&env_once, read_environment);
}

emu_soc emu_soc_get(void)
{
    ensure_environment();
    return (emu_soc)atomic_load(&soc_setting);
}

const char *aclrtGetSocName(void)
{
    emu_soc soc = emu_soc_get();
    for (size_t i = 0; i < sizeof SOCS / sizeof SOCS[0]; ++i) {
        if (SOCS[i].soc == soc) {
            return SOCS[i].name;
        }
    }
    return SOCS[0].name;
}

aclError aclnnEmuSetSocName(const char *socName)
{
    ensure_environment();
    if (socName == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuSetSocName: socName is NULL; expected Ascend910B, "
                                                 "Ascend910_93, Ascend910 or Ascend950.");
    }
    const soc_info *info = soc_by_name(socName);
    if (info == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuSetSocName: socName is \"%.64s\"; expected Ascend910B, "
                                                 "Ascend910_93, Ascend910 or Ascend950.", socName);
    }
    atomic_store(&soc_setting, (int)info->soc);
    return ACL_SUCCESS;
}

static atomic_int usable_cores_cache; /* 0 until measured */

static int measure_usable_cores(void)
{
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) {
            return n;
        }
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)(n < EMU_MAX_THREADS ? n : EMU_MAX_THREADS) : 1;
}

/* Measured once: the affinity query is a system call, too slow for every launch. */
static int usable_cores(void)
{
    int cores = atomic_load(&usable_cores_cache);
    if (cores == 0) {
        cores = measure_usable_cores();
        atomic_store(&usable_cores_cache, cores);
    }
    return cores;
}

int emu_num_threads(void)
{
    ensure_environment();
    int n = atomic_load(&threads_setting);
    return n > 0 ? n : usable_cores();
}

aclError aclnnEmuSetNumThreads(int32_t numThreads)
{
    ensure_environment();
    if (numThreads < 0 || numThreads > EMU_MAX_THREADS) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuSetNumThreads: numThreads is %d; expected 0 (all cores) "
                                                 "to %d.", (int)numThreads, EMU_MAX_THREADS);
    }
    atomic_store(&threads_setting, numThreads);
    return ACL_SUCCESS;
}

int32_t aclnnEmuGetNumThreads(void)
{
    return emu_num_threads();
}

bool emu_verbose(void)
{
    ensure_environment();
    return atomic_load_explicit(&verbose_setting, memory_order_relaxed);
}

aclError aclnnEmuSetVerbose(int32_t verbose)
{
    ensure_environment();
    if (verbose != 0 && verbose != 1) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuSetVerbose: verbose is %d; expected 0 or 1.", (int)verbose);
    }
    atomic_store(&verbose_setting, verbose != 0);
    return ACL_SUCCESS;
}

int32_t aclnnEmuGetVerbose(void)
{
    return emu_verbose() ? 1 : 0;
}

bool emu_floyd_tile(int64_t *nb, int64_t *mb, int64_t *kb)
{
    ensure_environment();
    const unsigned long long packed = atomic_load_explicit(&floyd_tile_setting, memory_order_relaxed);
    if (packed == 0) {
        return false;
    }
    *nb = (int64_t)(packed & EMU_FLOYD_TILE_MAX);
    *mb = (int64_t)(packed >> 21 & EMU_FLOYD_TILE_MAX);
    *kb = (int64_t)(packed >> 42 & EMU_FLOYD_TILE_MAX);
    return true;
}

aclError aclnnEmuSetFloydTile(int64_t nb, int64_t mb, int64_t kb)
{
    ensure_environment();
    const bool automatic = nb == 0 && mb == 0 && kb == 0;
    if (!automatic && (nb < 1 || mb < 1 || kb < 1 || nb > EMU_FLOYD_TILE_MAX || mb > EMU_FLOYD_TILE_MAX ||
                       kb > EMU_FLOYD_TILE_MAX)) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuSetFloydTile: nb, mb, kb are %lld, %lld, %lld; expected "
                                                 "three sizes 1..%d, or 0, 0, 0 for the automatic choice.",
                        (long long)nb, (long long)mb, (long long)kb, EMU_FLOYD_TILE_MAX);
    }
    atomic_store(&floyd_tile_setting, automatic ? 0ULL : pack_tile(nb, mb, kb));
    return ACL_SUCCESS;
}

aclError aclnnEmuGetFloydTile(int64_t *nb, int64_t *mb, int64_t *kb)
{
    if (nb == NULL || mb == NULL || kb == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuGetFloydTile: %s is NULL; expected a pointer to int64_t.",
                        nb == NULL ? "nb" : mb == NULL ? "mb" : "kb");
    }
    if (!emu_floyd_tile(nb, mb, kb)) {
        *nb = *mb = *kb = 0;
    }
    return ACL_SUCCESS;
}

bool emu_sync_mode(void)
{
    ensure_environment();
    return atomic_load(&sync_setting);
}

bool emu_report_leaks(void)
{
    ensure_environment();
    return atomic_load(&report_leaks_setting);
}

bool emu_host_memory_allowed(void)
{
    if (host_memory_allowed >= 0) {
        return host_memory_allowed != 0;
    }
    ensure_environment();
    return atomic_load(&host_memory_default);
}

uint64_t emu_device_cache_limit(void)
{
    ensure_environment();
    return atomic_load(&device_cache_limit);
}

void emu_device_cache_limit_set(uint64_t bytes)
{
    ensure_environment();
    atomic_store(&device_cache_limit, bytes);
}

aclError aclnnEmuSetHostMemoryAllowed(int32_t allowed)
{
    if (allowed != 0 && allowed != 1) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuSetHostMemoryAllowed: allowed is %d; expected 0 or 1.",
                        (int)allowed);
    }
    host_memory_allowed = allowed;
    return ACL_SUCCESS;
}

int32_t aclnnEmuGetHostMemoryAllowed(void)
{
    return emu_host_memory_allowed() ? 1 : 0;
}

void emu_set_last_kernel(const char *name)
{
    size_t length = name != NULL ? strlen(name) : 0;
    length = length < sizeof last_kernel - 1 ? length : sizeof last_kernel - 1;
    if (length > 0) {
        memcpy(last_kernel, name, length);
    }
    last_kernel[length] = '\0';
}

const char *aclnnEmuGetLastKernel(void)
{
    return last_kernel;
}

aclnnEmuIsa aclnnEmuGetDetectedIsa(void)
{
    return (aclnnEmuIsa)emu_isa_detected();
}

aclnnEmuIsa aclnnEmuGetIsa(void)
{
    return (aclnnEmuIsa)emu_isa_active();
}

aclError aclnnEmuSetIsaCap(aclnnEmuIsa cap)
{
    if ((int)cap < (int)ACLNN_EMU_ISA_SCALAR || (int)cap > (int)ACLNN_EMU_ISA_AVX512_BF16) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclnnEmuSetIsaCap: cap is %d; expected ACLNN_EMU_ISA_SCALAR (0), "
                                                 "ACLNN_EMU_ISA_AVX2 (1), ACLNN_EMU_ISA_AVX512 (2) or "
                                                 "ACLNN_EMU_ISA_AVX512_BF16 (3).", (int)cap);
    }
    emu_isa_set_cap((emu_isa)cap);
    return ACL_SUCCESS;
}

const char *aclnnEmuIsaName(aclnnEmuIsa isa)
{
    if ((int)isa < (int)ACLNN_EMU_ISA_SCALAR || (int)isa > (int)ACLNN_EMU_ISA_AVX512_BF16) {
        return "unknown";
    }
    return emu_isa_name((emu_isa)isa);
}

const char *aclnnEmuVersion(void)
{
    return "0.1.0";
}
