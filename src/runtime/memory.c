/* Device memory: host memory recorded in a table of live blocks, sorted by
 * address, so any pointer can be mapped to the block that contains it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/emu.h"
#include "runtime/vmm.h"

enum {
    /* As the device allocator: ggml-cann, for one, assumes 128-byte aligned blocks. */
    EMU_DEVICE_ALIGN = 512,
    /* Blocks this large are aligned to a huge page so THP can back them. */
    EMU_HUGE_THRESHOLD = 2 << 20,
    EMU_HUGE_PAGE = 2 << 20,
};

typedef struct {
    void *base;
    size_t size;      /* as asked for */
    size_t reserved;  /* as allocated (rounded up) */
    int policy;
    bool mapped;      /* a mapping of its own (map_block), not from malloc */
    bool unreported;  /* from aclnnEmuMallocResult: the leak report leaves it out */
    bool vmm;         /* a run of aclrtMapMem mappings (vmm.c): not aclrtFree's, reported by vmm.c */
} block_record;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static block_record *table;
static size_t table_count;
static size_t table_capacity;

/* Freed blocks kept for reuse. aclrtFree keeps blocks of at least
 * EMU_HUGE_THRESHOLD bytes, up to emu_device_cache_limit() bytes in all,
 * and aclrtMalloc hands them out again. A fresh block costs its page
 * faults: the kernel zeroes every page at its first touch (1.4 GB/s with
 * small pages here, about 7 with huge ones), so a program that allocates
 * its workspace around each launch, as the CANN samples do, paid up to
 * 0.3 s for a 465 MiB Floyd workspace per call. A cached block is out of
 * the table: to every check it is freed memory. Guarded by table_lock. */
enum { EMU_CACHE_SLOTS = 16 };

typedef struct {
    void *base;
    size_t reserved; /* always a mapped block */
    int policy;
    uint64_t stamp; /* order of caching: the oldest goes first */
} cached_block;

static cached_block cache[EMU_CACHE_SLOTS];

/* Under AddressSanitizer a cached block is poisoned, so that a stale write
 * into it is reported as it was when aclrtFree freed the block at once. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define CACHE_POISON(base, size) ASAN_POISON_MEMORY_REGION((base), (size))
#define CACHE_UNPOISON(base, size) ASAN_UNPOISON_MEMORY_REGION((base), (size))
#else
#define CACHE_POISON(base, size) ((void)(base), (void)(size))
#define CACHE_UNPOISON(base, size) ((void)(base), (void)(size))
#endif
static size_t cache_count;
static size_t cache_bytes;
static uint64_t cache_clock;

/* Index of the first block whose base is > ptr. */
static size_t upper_bound(const void *ptr)
{
    size_t lo = 0, hi = table_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((const char *)table[mid].base <= (const char *)ptr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Under table_lock: room for `count` records in all. */
static bool reserve_table_locked(size_t count)
{
    if (count <= table_capacity) {
        return true;
    }
    size_t capacity = table_capacity ? table_capacity : 64;
    while (capacity < count) {
        capacity *= 2;
    }
    block_record *grown = realloc(table, capacity * sizeof *grown);
    if (grown == NULL) {
        return false;
    }
    table = grown;
    table_capacity = capacity;
    return true;
}

/* Under table_lock, with room for one more record. */
static void insert_locked(block_record record)
{
    size_t at = upper_bound(record.base);
    memmove(&table[at + 1], &table[at], (table_count - at) * sizeof *table);
    table[at] = record;
    ++table_count;
}

static bool table_insert(block_record record)
{
    pthread_mutex_lock(&table_lock);
    bool ok = reserve_table_locked(table_count + 1);
    if (ok) {
        insert_locked(record);
    }
    pthread_mutex_unlock(&table_lock);
    return ok;
}

/* Under table_lock: removes the record that starts at `base` and is (vmm)
 * or is not (!vmm) a run of mappings; false if there is none. */
static bool remove_locked(const void *base, bool vmm, block_record *removed)
{
    size_t at = upper_bound(base);
    if (at == 0 || table[at - 1].base != base || table[at - 1].vmm != vmm) {
        return false;
    }
    if (removed != NULL) {
        *removed = table[at - 1];
    }
    memmove(&table[at - 1], &table[at], (table_count - at) * sizeof *table);
    --table_count;
    return true;
}

/* Removes the aclrtMalloc block that starts at `base`; *mapped_run tells
 * when `base` lies in a run of mappings instead. */
static bool table_remove(void *base, block_record *removed, bool *mapped_run)
{
    pthread_mutex_lock(&table_lock);
    bool found = remove_locked(base, false, removed);
    size_t at = upper_bound(base);
    *mapped_run = !found && at > 0 && table[at - 1].vmm &&
                  (size_t)((const char *)base - (const char *)table[at - 1].base) < table[at - 1].size;
    pthread_mutex_unlock(&table_lock);
    return found;
}

bool emu_device_regions_replace(const emu_block *old, size_t old_count, const emu_block *add, size_t add_count)
{
    pthread_mutex_lock(&table_lock);
    bool ok = reserve_table_locked(table_count + add_count);
    if (ok) {
        for (size_t i = 0; i < old_count; ++i) {
            remove_locked(old[i].base, true, NULL);
        }
        for (size_t i = 0; i < add_count; ++i) {
            insert_locked((block_record){.base = add[i].base, .size = add[i].size, .reserved = add[i].size,
                                         .unreported = true, .vmm = true});
        }
    }
    pthread_mutex_unlock(&table_lock);
    return ok;
}

bool emu_device_block_find(const void *ptr, size_t len, emu_block *out)
{
    bool found = false;
    out->base = NULL;
    out->size = 0;
    pthread_mutex_lock(&table_lock);
    size_t at = upper_bound(ptr);
    if (at > 0) {
        const block_record *record = &table[at - 1];
        size_t start = (size_t)((const char *)ptr - (const char *)record->base);
        if (start < record->size || (start == 0 && record->size == 0)) {
            out->base = record->base;
            out->size = record->size;
            found = len <= record->size - start;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* Under table_lock. */
static bool range_in_block_locked(const void *ptr, size_t len)
{
    size_t at = upper_bound(ptr);
    if (at == 0) {
        return false;
    }
    const block_record *record = &table[at - 1];
    size_t start = (size_t)((const char *)ptr - (const char *)record->base);
    return start < record->size && len <= record->size - start;
}

int emu_device_ranges_check(const void *const *ptrs, const size_t *lens, int count)
{
    int bad = -1;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < count; ++i) {
        if (lens[i] != 0 && !range_in_block_locked(ptrs[i], lens[i])) {
            bad = i;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return bad;
}

size_t emu_device_blocks_report(void *out_file)
{
    FILE *out = out_file;
    pthread_mutex_lock(&table_lock);
    size_t count = 0;
    for (size_t i = 0; i < table_count; ++i) {
        if (table[i].unreported) {
            continue;
        }
        ++count;
        if (out != NULL) {
            fprintf(out, "aclnn_emu:   device block %p, %zu bytes (aclrtMalloc without aclrtFree)\n",
                    table[i].base, table[i].size);
        }
    }
    pthread_mutex_unlock(&table_lock);
    return count + emu_vmm_report(out); /* reservations and physical memory */
}

bool emu_device_range_ok(const void *ptr, size_t len)
{
    emu_block block;
    return emu_device_block_find(ptr, len, &block);
}

void emu_report_device_range(const char *api, const char *what, const void *ptr, size_t len)
{
    emu_block block;
    emu_device_block_find(ptr, len, &block);
    if (block.base == NULL) {
        emu_set_message("%s: %s (%zu bytes at %p) is not in device memory; expected memory from aclrtMalloc "
                        "(call aclnnEmuSetHostMemoryAllowed(1) to pass host memory on purpose).", api, what, len, ptr);
    } else {
        size_t start = (size_t)((const char *)ptr - (const char *)block.base);
        emu_set_message("%s: %s (%zu bytes at %p) runs %zu bytes past the end of its device block %p of %zu "
                        "bytes; expected a view that fits in its block.", api, what, len, ptr,
                        start + len - block.size, block.base, block.size);
    }
}

static bool policy_is_valid(int policy)
{
    int base = policy & 0xFF;
    int flags = policy & ~0xFF;
    int known_flags = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY;
    return base <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P && (flags & ~known_flags) == 0;
}

static bool policy_wants_huge(int policy)
{
    int base = policy & 0xFF;
    return base != ACL_MEM_MALLOC_NORMAL_ONLY && base != ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
}

static void advise_pages(void *base, size_t reserved, int policy)
{
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    /* Advice only: without THP the block still works with small pages. */
    (void)madvise(base, reserved, policy_wants_huge(policy) ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void)base, (void)reserved, (void)policy;
#endif
}

/* Blocks of EMU_HUGE_THRESHOLD bytes or more are mappings of their own,
 * huge-page aligned, advised before their first touch and unmapped when
 * freed. Taken from malloc's heap instead, a NORMAL_ONLY block could be
 * memory that an earlier HUGE_FIRST block had faulted in with huge pages
 * (MADV_NOHUGEPAGE does not split them, and CI saw exactly that), and the
 * advice would outlive the block on the heap. One inaccessible page follows
 * each block, so that an overrun faults instead of reaching the next one. */
static size_t guard_bytes(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096u;
}

static void *map_block(size_t rounded, int policy)
{
    const size_t guard = guard_bytes();
    const size_t length = rounded + EMU_HUGE_PAGE + guard;
    if (length < rounded) {
        return NULL;
    }
    void *mapping = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        return NULL;
    }
    char *raw = mapping;
    char *base = (char *)(((uintptr_t)raw + EMU_HUGE_PAGE - 1) & ~(uintptr_t)(EMU_HUGE_PAGE - 1));
    const size_t head = (size_t)(base - raw), tail = length - head - rounded - guard;
    if (mprotect(base + rounded, guard, PROT_NONE) != 0) {
        (void)munmap(raw, length);
        return NULL;
    }
    if (head > 0) {
        (void)munmap(raw, head);
    }
    if (tail > 0) {
        (void)munmap(base + rounded + guard, tail);
    }
    advise_pages(base, rounded, policy);
    return base;
}

static void unmap_block(void *base, size_t reserved)
{
    CACHE_UNPOISON(base, reserved);
    (void)munmap(base, reserved + guard_bytes());
}

static void release_block(void *base, size_t reserved, bool mapped)
{
    if (mapped) {
        unmap_block(base, reserved);
    } else {
        free(base);
    }
}

/* Takes the smallest cached block that holds `rounded` bytes and no more
 * than twice `size`, the bytes asked for, allocated with the same page
 * advice (madvise cannot split huge pages already faulted in, so a block
 * keeps the pages it has); NULL when there is none. */
static void *cache_take(size_t size, size_t rounded, int policy, size_t *reserved)
{
    cached_block taken = {0};
    pthread_mutex_lock(&table_lock);
    size_t best = cache_count;
    for (size_t i = 0; i < cache_count; ++i) {
        if (cache[i].reserved >= rounded && cache[i].reserved / 2 <= size &&
            policy_wants_huge(cache[i].policy) == policy_wants_huge(policy) &&
            (best == cache_count || cache[i].reserved < cache[best].reserved)) {
            best = i;
        }
    }
    if (best < cache_count) {
        taken = cache[best];
        cache[best] = cache[--cache_count];
        cache_bytes -= taken.reserved;
    }
    pthread_mutex_unlock(&table_lock);
    if (taken.base != NULL) {
        CACHE_UNPOISON(taken.base, taken.reserved);
    }
    *reserved = taken.reserved;
    return taken.base;
}

/* Under table_lock: removes the oldest cached blocks until a block of
 * `incoming` bytes (0: none) fits in a slot and under `limit`; returns how
 * many it put in `evicted`, for the caller to free after unlocking
 * (unmapping takes a while). */
static size_t evict_oldest_locked(uint64_t limit, size_t incoming, cached_block *evicted)
{
    size_t count = 0;
    while (cache_count > 0 &&
           (cache_count + (incoming > 0) > EMU_CACHE_SLOTS || cache_bytes + incoming > limit)) {
        size_t oldest = 0;
        for (size_t i = 1; i < cache_count; ++i) {
            if (cache[i].stamp < cache[oldest].stamp) {
                oldest = i;
            }
        }
        evicted[count++] = cache[oldest];
        cache_bytes -= cache[oldest].reserved;
        cache[oldest] = cache[--cache_count];
    }
    return count;
}

static void unmap_all(const cached_block *blocks, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        unmap_block(blocks[i].base, blocks[i].reserved);
    }
}

/* Keeps a freed block when the limit allows, evicting the oldest blocks to
 * make room; frees it otherwise, and always once aclFinalize has run (no
 * later call would release the cache). The limit is read under the lock,
 * so a concurrent aclnnEmuSetDeviceCacheLimit is never overrun. */
static void cache_put_or_free(const block_record *block)
{
    if (!block->mapped) {
        free(block->base);
        return;
    }
    cached_block dropped[EMU_CACHE_SLOTS];
    size_t count = 0;
    cached_block entry = {.base = block->base, .reserved = block->reserved, .policy = block->policy};
    pthread_mutex_lock(&table_lock);
    uint64_t limit = emu_device_cache_limit();
    if (block->reserved > limit || !emu_acl_initialized()) {
        dropped[count++] = entry;
    } else {
        count = evict_oldest_locked(limit, block->reserved, dropped);
        entry.stamp = ++cache_clock;
        cache[cache_count++] = entry;
        cache_bytes += block->reserved;
        CACHE_POISON(block->base, block->reserved);
    }
    pthread_mutex_unlock(&table_lock);
    unmap_all(dropped, count);
}

size_t emu_device_cache_release(void)
{
    cached_block released[EMU_CACHE_SLOTS];
    pthread_mutex_lock(&table_lock);
    size_t bytes = cache_bytes;
    size_t count = evict_oldest_locked(0, 0, released);
    pthread_mutex_unlock(&table_lock);
    unmap_all(released, count);
    return bytes;
}

static void *allocate_block(size_t size, int policy, size_t *reserved, bool *mapped)
{
    *mapped = size >= EMU_HUGE_THRESHOLD;
    size_t align = *mapped ? EMU_HUGE_PAGE : EMU_DEVICE_ALIGN;
    size_t rounded = (size + align - 1) / align * align;
    if (rounded < size) {
        return NULL;
    }
    if (!*mapped) {
        void *base = NULL;
        *reserved = rounded;
        return posix_memalign(&base, align, rounded) == 0 ? base : NULL;
    }
    void *base = cache_take(size, rounded, policy, reserved);
    if (base == NULL) {
        base = map_block(rounded, policy);
        /* The cache may hold what this block needs. */
        if (base == NULL && emu_device_cache_release() > 0) {
            base = map_block(rounded, policy);
        }
        *reserved = rounded;
    }
    return base;
}

/* Both allocation entry points; `api` names the one called in messages. */
static aclError malloc_block(const char *api, void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                             bool unreported)
{
    if (devPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL; expected a pointer to void*.", api);
    }
    if (size == 0) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0; expected at least 1 byte.", api);
    }
    if (!policy_is_valid((int)policy)) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: policy is %d; expected an aclrtMemMallocPolicy value.", api,
                        (int)policy);
    }
    if (!unreported) { /* the Python package's result blocks are its own business */
        aclError status = emu_require_device(api);
        if (status != ACL_SUCCESS) {
            return status;
        }
    }
    size_t reserved = 0;
    bool mapped = false;
    void *base = allocate_block(size, (int)policy, &reserved, &mapped);
    if (base == NULL) {
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: cannot allocate %zu bytes; the host is out of "
                                                        "memory.", api, size);
    }
    block_record record = {.base = base, .size = size, .reserved = reserved, .policy = (int)policy,
                           .mapped = mapped, .unreported = unreported};
    if (!table_insert(record)) {
        release_block(base, reserved, mapped);
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: cannot record the block; the host is out of "
                                                        "memory.", api);
    }
    if (mapped) {
        /* Under ASan, a write past the block but inside its rounding is reported too. */
        CACHE_POISON((char *)base + size, reserved - size);
    }
    *devPtr = base;
    return ACL_SUCCESS;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_block("aclrtMalloc", devPtr, size, policy, false);
}

aclError aclnnEmuMallocResult(void **devPtr, size_t size)
{
    return malloc_block("aclnnEmuMallocResult", devPtr, size, ACL_MEM_MALLOC_HUGE_FIRST, true);
}

aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_block("aclrtMallocAlign32", devPtr, size, policy, false);
}

aclError aclrtFree(void *devPtr)
{
    if (devPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is NULL; expected a block from aclrtMalloc.");
    }
    /* Work still queued on a stream may use the block: let it finish first. */
    emu_block block;
    emu_device_block_find(devPtr, 0, &block);
    if (block.base == devPtr) {
        aclError waited = emu_streams_wait_for_block("aclrtFree", "devPtr", block.base, block.size);
        if (waited != ACL_SUCCESS) {
            return waited;
        }
    }
    block_record removed;
    bool mapped_run = false;
    if (!table_remove(devPtr, &removed, &mapped_run)) {
        if (mapped_run) {
            return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr %p is virtual memory mapped with "
                                                     "aclrtMapMem; expected aclrtUnmapMem for it (aclrtFree takes "
                                                     "pointers from aclrtMalloc).", devPtr);
        }
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr %p is not the start of a live device block; "
                                                 "expected a pointer returned by aclrtMalloc and not yet freed.",
                        devPtr);
    }
    cache_put_or_free(&removed);
    return ACL_SUCCESS;
}

aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    if (hostPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is NULL; expected a pointer to void*.");
    }
    if (size == 0) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size is 0; expected at least 1 byte.");
    }
    void *base = NULL;
    size_t rounded = (size + EMU_DEVICE_ALIGN - 1) / EMU_DEVICE_ALIGN * EMU_DEVICE_ALIGN;
    if (rounded < size || posix_memalign(&base, EMU_DEVICE_ALIGN, rounded) != 0) {
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMallocHost: cannot allocate %zu bytes; the host is "
                                                        "out of memory.", size);
    }
    if (!emu_handle_add(base, EMU_HANDLE_HOST_ALLOC)) {
        free(base);
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMallocHost: out of host memory.");
    }
    *hostPtr = base;
    return ACL_SUCCESS;
}

aclError aclrtFreeHost(void *hostPtr)
{
    if (hostPtr == NULL || !emu_handle_remove(hostPtr, EMU_HANDLE_HOST_ALLOC)) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr %p is %s; expected a pointer returned by "
                                                 "aclrtMallocHost and not yet freed.", hostPtr,
                        hostPtr == NULL ? "NULL" : "not a live host allocation");
    }
    free(hostPtr);
    return ACL_SUCCESS;
}

/* A memset or memcpy as a stream task. */
typedef struct {
    emu_task task;
    void *dst;
    const void *src; /* NULL for memset */
    size_t count;
    int value;
    bool on_heap;
} copy_task;

static void run_copy(emu_task *task)
{
    copy_task *work = (copy_task *)task;
    if (work->src != NULL) {
        memmove(work->dst, work->src, work->count);
    } else {
        memset(work->dst, work->value, work->count);
    }
}

static void release_copy(emu_task *task)
{
    if (((copy_task *)task)->on_heap) {
        free(task);
    }
}

static bool copy_uses(const emu_task *task, const void *base, size_t size)
{
    const copy_task *work = (const copy_task *)task;
    return emu_ranges_overlap(work->dst, work->count, base, size) ||
           (work->src != NULL && emu_ranges_overlap(work->src, work->count, base, size));
}

static aclError submit_copy(const char *api, aclrtStream stream, void *dst, const void *src, size_t count, int value)
{
    copy_task local;
    bool inline_run = emu_stream_runs_inline(stream);
    if (inline_run) {
        aclError ready = emu_stream_ready(api, stream);
        if (ready != ACL_SUCCESS) {
            return ready;
        }
    }
    copy_task *work = inline_run ? &local : malloc(sizeof *work);
    if (work == NULL) {
        return emu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory while queueing the copy.", api);
    }
    *work = (copy_task){.task = {.run = run_copy, .release = release_copy, .uses = copy_uses},
                        .dst = dst, .src = src, .count = count, .value = value, .on_heap = !inline_run};
    emu_stream_submit(stream, &work->task);
    return ACL_SUCCESS;
}

/* A device-side pointer must start `count` bytes inside one live block. */
static aclError check_device_side(const char *api, const char *name, const void *ptr, size_t count,
                                  const char *kind_name)
{
    emu_block block;
    if (emu_device_block_find(ptr, count, &block)) {
        return ACL_SUCCESS;
    }
    if (block.base == NULL) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p is not in device memory, but kind %s says it is; "
                                                    "expected memory from aclrtMalloc (not freed) or a kind that "
                                                    "matches where %s lives.", api, name, ptr, kind_name, name);
    }
    size_t start = (size_t)((const char *)ptr - (const char *)block.base);
    return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p plus %zu bytes runs %zu bytes past the end of device "
                                                "block %p of %zu bytes; expected the copy to fit in its block.",
                    api, name, ptr, count, start + count - block.size, block.base, block.size);
}

/* A host-side pointer must not point into device memory. */
static aclError check_host_side(const char *api, const char *name, const void *ptr, const char *kind_name)
{
    emu_block block;
    emu_device_block_find(ptr, 0, &block);
    if (block.base == NULL) {
        return ACL_SUCCESS;
    }
    return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p lies in device block %p of %zu bytes, but kind %s says "
                                                "it is host memory; expected a host pointer or a kind that matches "
                                                "where %s lives.", api, name, ptr, block.base, block.size,
                    kind_name, name);
}

static aclError check_memset(const char *api, void *devPtr, size_t maxCount, size_t count)
{
    if (count == 0) {
        return ACL_SUCCESS;
    }
    if (devPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL; expected device memory.", api);
    }
    if (count > maxCount) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count is %zu; expected at most maxCount (%zu).", api, count,
                        maxCount);
    }
    return check_device_side(api, "devPtr", devPtr, count, "(memset)");
}

static aclError memset_on(const char *api, void *devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream)
{
    aclError status = check_memset(api, devPtr, maxCount, count);
    if (status != ACL_SUCCESS || count == 0) {
        return status;
    }
    if (!emu_stream_is_valid(stream)) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is not a live stream; expected NULL or a stream from "
                                                 "aclrtCreateStream.", api, stream);
    }
    return submit_copy(api, stream, devPtr, NULL, count, value);
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    return memset_on("aclrtMemset", devPtr, maxCount, value, count, NULL);
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    return memset_on("aclrtMemsetAsync", devPtr, maxCount, value, count, stream);
}

static const char *const KIND_NAMES[] = {
    "ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE", "ACL_MEMCPY_DEVICE_TO_HOST",
    "ACL_MEMCPY_DEVICE_TO_DEVICE", "ACL_MEMCPY_DEFAULT", "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
};

/* With ACL_MEMCPY_DEFAULT either side may be host or device memory; a side
 * that starts in a device block must still fit in it. */
static aclError check_default_side(const char *api, const char *name, const void *ptr, size_t count)
{
    emu_block block;
    emu_device_block_find(ptr, 0, &block);
    return block.base == NULL ? ACL_SUCCESS : check_device_side(api, name, ptr, count, "ACL_MEMCPY_DEFAULT");
}

/* Where each kind says dst and src live; ACL_MEMCPY_DEFAULT infers it. */
static aclError check_kind_sides(const char *api, void *dst, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if (kind == ACL_MEMCPY_DEFAULT) {
        aclError status = check_default_side(api, "dst", dst, count);
        return status != ACL_SUCCESS ? status : check_default_side(api, "src", src, count);
    }
    bool dst_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                      kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
    bool src_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    const char *kind_name = KIND_NAMES[kind];
    aclError status = dst_device ? check_device_side(api, "dst", dst, count, kind_name)
                                 : check_host_side(api, "dst", dst, kind_name);
    if (status == ACL_SUCCESS) {
        status = src_device ? check_device_side(api, "src", src, count, kind_name)
                            : check_host_side(api, "src", src, kind_name);
    }
    return status;
}

static aclError memcpy_on(const char *api, void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream)
{
    if (count == 0) {
        return ACL_SUCCESS;
    }
    if (dst == NULL || src == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL; expected a valid pointer.", api,
                        dst == NULL ? "dst" : "src");
    }
    /* CANN's aclrtMemcpy/aclrtMemcpyAsync translate kinds 0-5 only and reject
     * ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6) and ACL_MEMCPY_INTER_DEVICE_TO_DEVICE
     * (7), which acl_rt.h declares, with ACL_ERROR_INVALID_PARAM (hicann/runtime
     * src/acl/aclrt_impl/memory.cpp, MemcpyKindTranslate). */
    if (kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: kind is %s (%d), which CANN's %s rejects too (it copies "
                                                 "kinds 0 to 5 only); expected ACL_MEMCPY_DEVICE_TO_DEVICE for a "
                                                 "copy between device blocks, or ACL_MEMCPY_DEFAULT.", api,
                        kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE ? "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE"
                                                                   : "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE",
                        (int)kind, api);
    }
    if ((int)kind < (int)ACL_MEMCPY_HOST_TO_HOST || (int)kind > (int)ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: kind is %d; expected ACL_MEMCPY_HOST_TO_HOST (0) to "
                                                 "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE (5).", api, (int)kind);
    }
    if (count > destMax) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count is %zu; expected at most destMax (%zu).", api, count,
                        destMax);
    }
    aclError status = check_kind_sides(api, dst, src, count, kind);
    if (status != ACL_SUCCESS) {
        return status;
    }
    if (!emu_stream_is_valid(stream)) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is not a live stream; expected NULL or a stream from "
                                                 "aclrtCreateStream.", api, stream);
    }
    status = emu_require_device(api);
    if (status != ACL_SUCCESS) {
        return status;
    }
    return submit_copy(api, stream, dst, src, count, 0);
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    return memcpy_on("aclrtMemcpy", dst, destMax, src, count, kind, NULL);
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream)
{
    return memcpy_on("aclrtMemcpyAsync", dst, destMax, src, count, kind, stream);
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
    if (free == NULL || total == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: %s is NULL; expected a pointer to size_t.",
                        free == NULL ? "free" : "total");
    }
    if ((int)attr < (int)ACL_DDR_MEM || (int)attr > (int)ACL_HBM_MEM_P2P_HUGE1G) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: attr is %d; expected an aclrtMemAttr value.",
                        (int)attr);
    }
    long page = sysconf(_SC_PAGESIZE);
    long pages = sysconf(_SC_PHYS_PAGES);
#if defined(_SC_AVPHYS_PAGES)
    long available = sysconf(_SC_AVPHYS_PAGES);
#else
    long available = pages;
#endif
    *total = page > 0 && pages > 0 ? (size_t)page * (size_t)pages : 0;
    *free = page > 0 && available > 0 ? (size_t)page * (size_t)available : 0;
    return ACL_SUCCESS;
}

aclError aclnnEmuSetDeviceCacheLimit(uint64_t bytes)
{
    cached_block evicted[EMU_CACHE_SLOTS];
    pthread_mutex_lock(&table_lock);
    emu_device_cache_limit_set(bytes);
    size_t count = evict_oldest_locked(bytes, 0, evicted);
    pthread_mutex_unlock(&table_lock);
    unmap_all(evicted, count);
    return ACL_SUCCESS;
}

uint64_t aclnnEmuGetDeviceCacheLimit(void)
{
    return emu_device_cache_limit();
}

uint64_t aclnnEmuGetDeviceCacheBytes(void)
{
    pthread_mutex_lock(&table_lock);
    size_t bytes = cache_bytes;
    pthread_mutex_unlock(&table_lock);
    return bytes;
}
