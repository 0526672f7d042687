/* Virtual memory (aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem
 * and their inverses, aclrtMemGetAllocationGranularity) and peer access.
 *
 * Emulated for real: a reservation is a PROT_NONE mapping of its own; a
 * physical handle is an anonymous shared memory file of its size (memfd),
 * so that it can be mapped, and at several places; aclrtMapMem maps the file
 * MAP_FIXED over reserved pages and aclrtUnmapMem puts PROT_NONE pages back.
 * Each run of mappings that follow each other without a gap inside one
 * reservation is one record of memory.c's device table (vmm.h), so that a
 * tensor spanning two mappings passes every device-memory check, and an
 * unmapped range fails them.
 *
 * Argument checks follow CANN's runtime (hicann/runtime
 * src/acl/aclrt_impl/memory.cpp): its ACL layer answers 100000
 * (ACL_ERROR_INVALID_PARAM) for NULL pointers, zero sizes, reserved flags and
 * the prop fields it checks; what it leaves to the driver (alignment,
 * sizes, addresses, handles) answers as the runtime maps driver errors:
 * 107000 for an invalid value, 107017 for an invalid handle, 207001 when
 * memory cannot be had, 107001 for a device id. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/emu.h"
#include "runtime/vmm.h"

/* CANN documents one granularity, 2 MiB (its huge page), for both
 * ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM and _RECOMMENDED; memory with a
 * HUGE1G attribute comes in 1 GiB pages. */
#define VMM_GRANULARITY ((size_t)2 << 20)
#define VMM_GRANULARITY_1G ((size_t)1 << 30)

/* The memAttr values of newer CANN headers (ACL_MEM_NORMAL .. ACL_MEM_P2P_HUGE1G),
 * which CANN's runtime accepts; this header keeps the 0..11 of CANN 8. */
enum { MEM_NORMAL = 12, MEM_HUGE, MEM_HUGE1G, MEM_P2P_NORMAL, MEM_P2P_HUGE, MEM_P2P_HUGE1G };

typedef struct phys_handle phys_handle;
struct phys_handle {
    phys_handle *next;
    int fd;
    size_t size;
    size_t granularity;
    size_t mappings; /* live aclrtMapMem of this handle */
};

typedef struct {
    char *base;
    size_t size;
    phys_handle *handle;
    uint64_t serial; /* tells a mapping from a later one at the same address */
} mapping;

typedef struct reservation reservation;
struct reservation {
    reservation *next;
    char *base;
    size_t size;   /* rounded up to the granularity */
    mapping *maps; /* sorted by address */
    size_t map_count;
    size_t map_capacity;
};

/* Guards the lists below; taken before memory.c's table lock, never after. */
static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static reservation *reservations;
static phys_handle *handles;
static uint64_t map_serial;

static bool is_power_of_two(size_t value)
{
    return value != 0 && (value & (value - 1)) == 0;
}

static size_t host_memory_bytes(void)
{
    long page = sysconf(_SC_PAGESIZE);
    long pages = sysconf(_SC_PHYS_PAGES);
    return page > 0 && pages > 0 ? (size_t)page * (size_t)pages : SIZE_MAX;
}

/* ---- properties ---- */

/* CANN's checks of memAttr: a device location may not ask for DDR memory,
 * and only the attributes with a page type exist. Sets the granularity. */
static aclError check_mem_attr(const char *api, const aclrtPhysicalMemProp *prop, size_t *granularity)
{
    int attr = (int)prop->memAttr;
    bool ddr = attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL || attr == ACL_DDR_MEM_P2P_HUGE ||
               attr == ACL_DDR_MEM_P2P_NORMAL;
    if (ddr && prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->memAttr is %d (DDR memory) with prop->location.type "
                                                 "ACL_MEM_LOCATION_TYPE_DEVICE; expected an HBM attribute such as "
                                                 "ACL_HBM_MEM_HUGE (4), or a host location.", api, attr);
    }
    switch (attr) {
    case ACL_HBM_MEM_HUGE1G:
    case MEM_HUGE1G:
    case MEM_P2P_HUGE1G:
        *granularity = VMM_GRANULARITY_1G;
        return ACL_SUCCESS;
    case ACL_DDR_MEM_HUGE:
    case ACL_DDR_MEM_NORMAL:
    case ACL_HBM_MEM_HUGE:
    case ACL_HBM_MEM_NORMAL:
    case ACL_DDR_MEM_P2P_HUGE:
    case ACL_DDR_MEM_P2P_NORMAL:
    case MEM_NORMAL:
    case MEM_HUGE:
    case MEM_P2P_NORMAL:
    case MEM_P2P_HUGE:
        *granularity = VMM_GRANULARITY;
        return ACL_SUCCESS;
    default:
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->memAttr is %d; expected ACL_HBM_MEM_HUGE (4), "
                                                 "ACL_HBM_MEM_NORMAL (5), ACL_HBM_MEM_HUGE1G (10) or, for host "
                                                 "memory, ACL_DDR_MEM_HUGE (2), _NORMAL (3), _P2P_HUGE (6) or "
                                                 "_P2P_NORMAL (7).", api, attr);
    }
}

/* What CANN's driver checks of the location: a type that exists, and a
 * device id that does. */
static aclError check_location(const char *api, const aclrtPhysicalMemProp *prop)
{
    int type = (int)prop->location.type;
    if (type != ACL_MEM_LOCATION_TYPE_HOST && type != ACL_MEM_LOCATION_TYPE_DEVICE &&
        type != ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: prop->location.type is %d; expected "
                                                    "ACL_MEM_LOCATION_TYPE_DEVICE (1), _HOST (0) or _HOST_NUMA (4).",
                        api, type);
    }
    if (type == ACL_MEM_LOCATION_TYPE_DEVICE && prop->location.id != 0) {
        return emu_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: prop->location.id is %u; expected device 0 (aclnn_emu "
                                                       "emulates one device).", api, (unsigned)prop->location.id);
    }
    return ACL_SUCCESS;
}

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                          size_t *granularity)
{
    static const char api[] = "aclrtMemGetAllocationGranularity";
    if (prop == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop is NULL; expected a pointer to aclrtPhysicalMemProp.", api);
    }
    if (granularity == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: granularity is NULL; expected a pointer to size_t.", api);
    }
    size_t bytes = 0;
    aclError status = check_mem_attr(api, prop, &bytes);
    if (status != ACL_SUCCESS) {
        return status;
    }
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: option is %d; expected "
                                                    "ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM (0) or "
                                                    "ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED (1).", api, (int)option);
    }
    status = check_location(api, prop);
    if (status != ACL_SUCCESS) {
        return status;
    }
    *granularity = bytes;
    return ACL_SUCCESS;
}

/* ---- physical memory ---- */

/* A file of `size` zero bytes in memory, or -1. */
static int create_memory_file(size_t size)
{
    int fd = -1;
#if defined(__linux__)
    fd = memfd_create("aclnn_emu_physical", MFD_CLOEXEC);
#else
    char name[64];
    snprintf(name, sizeof name, "/aclnn_emu_%ld_%p", (long)getpid(), (void *)&name);
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
        shm_unlink(name);
    }
#endif
    if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Under vmm_lock. */
static phys_handle *find_handle_locked(const void *handle)
{
    for (phys_handle *h = handles; h != NULL; h = h->next) {
        if (h == handle) {
            return h;
        }
    }
    return NULL;
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                             uint64_t flags)
{
    static const char api[] = "aclrtMallocPhysical";
    if (handle == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: handle is NULL; expected a pointer to aclrtDrvMemHandle.", api);
    }
    if (prop == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop is NULL; expected a pointer to aclrtPhysicalMemProp.", api);
    }
    if (size == 0) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0; expected a multiple of the granularity "
                                                 "(aclrtMemGetAllocationGranularity).", api);
    }
    if (flags != 0) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: flags is %llu; expected 0 (reserved).", api,
                        (unsigned long long)flags);
    }
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->handleType is %d; expected ACL_MEM_HANDLE_TYPE_NONE (0).",
                        api, (int)prop->handleType);
    }
    if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->allocationType is %d; expected "
                                                 "ACL_MEM_ALLOCATION_TYPE_PINNED (0).", api,
                        (int)prop->allocationType);
    }
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED ||
        prop->location.type == ACL_MEM_LOCATION_TYPE_MANAGED) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->location.type is %d (%s); expected "
                                                 "ACL_MEM_LOCATION_TYPE_DEVICE (1), _HOST (0) or _HOST_NUMA (4).",
                        api, (int)prop->location.type,
                        prop->location.type == ACL_MEM_LOCATION_TYPE_MANAGED ? "MANAGED" : "UNREGISTERED");
    }
    size_t granularity = 0;
    aclError status = check_mem_attr(api, prop, &granularity);
    if (status == ACL_SUCCESS) {
        status = check_location(api, prop);
    }
    if (status != ACL_SUCCESS) {
        return status;
    }
    if (size % granularity != 0) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: size is %zu; expected a multiple of the granularity, %zu "
                                                    "bytes (aclrtMemGetAllocationGranularity).", api, size,
                        granularity);
    }
    if (size > host_memory_bytes()) {
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: size is %zu bytes, more than the %zu bytes of the "
                                                        "emulated device (the host's memory).", api, size,
                        host_memory_bytes());
    }
    phys_handle *created = calloc(1, sizeof *created);
    int fd = created != NULL ? create_memory_file(size) : -1;
    if (fd < 0) {
        free(created);
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: cannot allocate %zu bytes of physical memory; the "
                                                        "host is out of memory.", api, size);
    }
    created->fd = fd;
    created->size = size;
    created->granularity = granularity;
    pthread_mutex_lock(&vmm_lock);
    created->next = handles;
    handles = created;
    pthread_mutex_unlock(&vmm_lock);
    *handle = created;
    return ACL_SUCCESS;
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    static const char api[] = "aclrtFreePhysical";
    if (handle == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: handle is NULL; expected a handle from aclrtMallocPhysical.",
                        api);
    }
    aclError status = ACL_SUCCESS;
    phys_handle *freed = NULL;
    pthread_mutex_lock(&vmm_lock);
    phys_handle **link = &handles;
    while (*link != NULL && *link != handle) {
        link = &(*link)->next;
    }
    if (*link == NULL) {
        status = emu_fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: handle %p is not live physical memory; expected a handle "
                                                       "from aclrtMallocPhysical, not yet freed.", api, handle);
    } else if ((*link)->mappings > 0) {
        status = emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: handle %p is still mapped %zu time(s); expected "
                                                      "aclrtUnmapMem of each mapping first.", api, handle,
                          (*link)->mappings);
    } else {
        freed = *link;
        *link = freed->next;
    }
    pthread_mutex_unlock(&vmm_lock);
    if (freed != NULL) {
        close(freed->fd);
        free(freed);
    }
    return status;
}

/* ---- reservations ---- */

/* Reserved, inaccessible pages over [base, base+size), in place of what
 * is there; false if the host refuses. */
static bool reserve_pages(char *base, size_t size)
{
    void *pages = mmap(base, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return pages == base;
}

/* A fresh reservation of `size` bytes aligned to `align`, at `expect`
 * when not NULL; NULL if the addresses cannot be had. */
static char *map_reservation(size_t size, size_t align, void *expect)
{
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    if (expect != NULL) {
#if defined(MAP_FIXED_NOREPLACE)
        void *pages = mmap(expect, size, PROT_NONE, flags | MAP_FIXED_NOREPLACE, -1, 0);
#else
        void *pages = mmap(expect, size, PROT_NONE, flags, -1, 0);
#endif
        if (pages == MAP_FAILED) {
            return NULL;
        }
        if (pages != expect) { /* a kernel that took it as a hint */
            (void)munmap(pages, size);
            return NULL;
        }
        return pages;
    }
    size_t length = size + align - 1;
    if (length < size) {
        return NULL;
    }
    void *pages = mmap(NULL, length, PROT_NONE, flags, -1, 0);
    if (pages == MAP_FAILED) {
        return NULL;
    }
    char *raw = pages;
    char *base = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    size_t head = (size_t)(base - raw), tail = length - head - size;
    if (head > 0) {
        (void)munmap(raw, head);
    }
    if (tail > 0) {
        (void)munmap(base + size, tail);
    }
    return base;
}

aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags)
{
    static const char api[] = "aclrtReserveMemAddress";
    if (virPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: virPtr is NULL; expected a pointer to void*.", api);
    }
    if (size == 0) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0; expected at least 1 byte.", api);
    }
    if (flags > 1) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: flags is %llu; expected 0 (normal pages) or 1 (huge pages).",
                        api, (unsigned long long)flags);
    }
    if (alignment != 0 && !is_power_of_two(alignment)) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: alignment is %zu; expected 0 or a power of two.", api,
                        alignment);
    }
    const size_t align = alignment > VMM_GRANULARITY ? alignment : VMM_GRANULARITY;
    if (size > SIZE_MAX - VMM_GRANULARITY) {
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: size is %zu; no address range that large can be "
                                                        "reserved.", api, size);
    }
    const size_t rounded = (size + VMM_GRANULARITY - 1) / VMM_GRANULARITY * VMM_GRANULARITY;
    if (expectPtr != NULL) {
        size_t expect_align = rounded > VMM_GRANULARITY_1G && align < VMM_GRANULARITY_1G ? VMM_GRANULARITY_1G : align;
        if ((uintptr_t)expectPtr % expect_align != 0) {
            return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: expectPtr %p is not a multiple of %zu bytes; expected "
                                                        "NULL or an address aligned to the alignment (to 1 GiB for "
                                                        "more than 1 GiB).", api, expectPtr, expect_align);
        }
    }
    reservation *created = calloc(1, sizeof *created);
    char *base = created != NULL ? map_reservation(rounded, align, expectPtr) : NULL;
    if (base == NULL) {
        free(created);
        if (expectPtr != NULL) {
            return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: the %zu bytes at expectPtr %p cannot be reserved "
                                                            "(in use, or refused by the host); expected free "
                                                            "addresses or NULL.", api, rounded, expectPtr);
        }
        return emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: cannot reserve %zu bytes of addresses aligned to %zu; "
                                                        "the host refused them.", api, rounded, align);
    }
    created->base = base;
    created->size = rounded;
    pthread_mutex_lock(&vmm_lock);
    created->next = reservations;
    reservations = created;
    pthread_mutex_unlock(&vmm_lock);
    *virPtr = base;
    return ACL_SUCCESS;
}

/* Under vmm_lock: the reservation containing ptr, or NULL. */
static reservation *find_reservation_locked(const void *ptr)
{
    for (reservation *r = reservations; r != NULL; r = r->next) {
        if ((const char *)ptr >= r->base && (size_t)((const char *)ptr - r->base) < r->size) {
            return r;
        }
    }
    return NULL;
}

aclError aclrtReleaseMemAddress(void *virPtr)
{
    static const char api[] = "aclrtReleaseMemAddress";
    if (virPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: virPtr is NULL; expected an address from "
                                                 "aclrtReserveMemAddress.", api);
    }
    aclError status = ACL_SUCCESS;
    reservation *released = NULL;
    pthread_mutex_lock(&vmm_lock);
    reservation *r = find_reservation_locked(virPtr);
    if (r == NULL) {
        status = emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p is not a live reservation; expected an address "
                                                      "from aclrtReserveMemAddress, not yet released.", api, virPtr);
    } else if (r->base != virPtr) {
        status = emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p lies inside the reservation at %p; expected "
                                                      "its start.", api, virPtr, (void *)r->base);
    } else if (r->map_count > 0) {
        status = emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p still has %zu mapping(s); expected "
                                                      "aclrtUnmapMem of each first.", api, virPtr, r->map_count);
    } else {
        reservation **link = &reservations;
        while (*link != r) {
            link = &(*link)->next;
        }
        *link = r->next;
        released = r;
    }
    pthread_mutex_unlock(&vmm_lock);
    if (released != NULL) {
        (void)munmap(released->base, released->size);
        free(released->maps);
        free(released);
    }
    return status;
}

/* ---- mappings ---- */

/* Under vmm_lock: the first and last index of the run of gapless mappings
 * around maps[k]. */
static void run_around(const reservation *r, size_t k, size_t *first, size_t *last)
{
    size_t i = k, j = k;
    while (i > 0 && r->maps[i - 1].base + r->maps[i - 1].size == r->maps[i].base) {
        --i;
    }
    while (j + 1 < r->map_count && r->maps[j].base + r->maps[j].size == r->maps[j + 1].base) {
        ++j;
    }
    *first = i;
    *last = j;
}

static emu_block run_block(const reservation *r, size_t first, size_t last)
{
    return (emu_block){.base = r->maps[first].base,
                       .size = (size_t)(r->maps[last].base + r->maps[last].size - r->maps[first].base)};
}

/* Under vmm_lock: where a mapping of [base, base+size) goes in r, or an
 * error naming what it overlaps. */
static aclError insertion_point(const char *api, const reservation *r, const char *base, size_t size, size_t *at)
{
    size_t p = 0;
    while (p < r->map_count && r->maps[p].base < base) {
        ++p;
    }
    const mapping *clash = NULL;
    if (p > 0 && r->maps[p - 1].base + r->maps[p - 1].size > base) {
        clash = &r->maps[p - 1];
    } else if (p < r->map_count && r->maps[p].base < base + size) {
        clash = &r->maps[p];
    }
    if (clash != NULL) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p plus size %zu overlaps the mapping at %p (%zu "
                                                    "bytes); expected addresses not mapped yet.", api, (const void *)base,
                        size, (void *)clash->base, clash->size);
    }
    *at = p;
    return ACL_SUCCESS;
}

/* Under vmm_lock: the checks of aclrtMapMem after CANN's ACL layer. */
static aclError check_map_locked(const char *api, char *base, size_t size, size_t offset, phys_handle *h,
                                 const void *handle, reservation **found, size_t *at)
{
    if (h == NULL) {
        return emu_fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: handle %p is not live physical memory; expected a handle "
                                                     "from aclrtMallocPhysical, not yet freed.", api, handle);
    }
    if (offset != 0) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: offset is %zu; expected 0.", api, offset);
    }
    if (size != h->size) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: size is %zu; expected the handle's size, %zu bytes (as "
                                                    "given to aclrtMallocPhysical).", api, size, h->size);
    }
    if ((uintptr_t)base % h->granularity != 0) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p is not a multiple of the granularity, %zu "
                                                    "bytes; expected an aligned address.", api, (void *)base,
                        h->granularity);
    }
    reservation *r = find_reservation_locked(base);
    if (r == NULL) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p is not inside any reservation; expected an "
                                                    "address from aclrtReserveMemAddress.", api, (void *)base);
    }
    size_t start = (size_t)(base - r->base);
    if (size > r->size - start) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p plus size %zu runs %zu bytes past the end of the "
                                                    "reservation at %p (%zu bytes); expected the mapping inside one "
                                                    "reservation.", api, (void *)base, size,
                        size - (r->size - start), (void *)r->base, r->size);
    }
    *found = r;
    return insertion_point(api, r, base, size, at);
}

aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)
{
    static const char api[] = "aclrtMapMem";
    if (virPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: virPtr is NULL; expected an address inside a reservation.",
                        api);
    }
    if (handle == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: handle is NULL; expected a handle from aclrtMallocPhysical.",
                        api);
    }
    if (size == 0) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0; expected the handle's size.", api);
    }
    if (flags != 0) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: flags is %llu; expected 0 (reserved).", api,
                        (unsigned long long)flags);
    }
    char *base = virPtr;
    pthread_mutex_lock(&vmm_lock);
    phys_handle *h = find_handle_locked(handle);
    reservation *r = NULL;
    size_t at = 0;
    aclError status = check_map_locked(api, base, size, offset, h, handle, &r, &at);
    if (status == ACL_SUCCESS && r->map_count == r->map_capacity) {
        size_t capacity = r->map_capacity ? r->map_capacity * 2 : 8;
        mapping *grown = realloc(r->maps, capacity * sizeof *grown);
        if (grown == NULL) {
            status = emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory.", api);
        } else {
            r->maps = grown;
            r->map_capacity = capacity;
        }
    }
    if (status == ACL_SUCCESS &&
        mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, h->fd, 0) != (void *)base) {
        status = emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: the host refused to map %zu bytes at virPtr %p "
                                                          "(errno %d).", api, size, virPtr, errno);
        (void)reserve_pages(base, size);
    }
    if (status == ACL_SUCCESS) {
        memmove(&r->maps[at + 1], &r->maps[at], (r->map_count - at) * sizeof *r->maps);
        r->maps[at] = (mapping){.base = base, .size = size, .handle = h, .serial = ++map_serial};
        ++r->map_count;
        size_t first, last;
        run_around(r, at, &first, &last);
        /* The runs that end at the new mapping and start after it become one. */
        emu_block old[2];
        size_t old_count = 0;
        if (first < at) {
            old[old_count++] = run_block(r, first, at - 1);
        }
        if (last > at) {
            old[old_count++] = run_block(r, at + 1, last);
        }
        emu_block merged = run_block(r, first, last);
        if (emu_device_regions_replace(old, old_count, &merged, 1)) {
            ++h->mappings;
        } else {
            --r->map_count;
            memmove(&r->maps[at], &r->maps[at + 1], (r->map_count - at) * sizeof *r->maps);
            (void)reserve_pages(base, size);
            status = emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory.", api);
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    return status;
}

/* Under vmm_lock: the index of the mapping that starts at ptr. */
static aclError find_mapping_locked(const char *api, const char *ptr, reservation **found, size_t *index)
{
    reservation *r = find_reservation_locked(ptr);
    if (r == NULL) {
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p is not inside any reservation; expected an "
                                                    "address mapped with aclrtMapMem.", api, (const void *)ptr);
    }
    for (size_t k = 0; k < r->map_count; ++k) {
        const mapping *m = &r->maps[k];
        if (m->base == ptr) {
            *found = r;
            *index = k;
            return ACL_SUCCESS;
        }
        if (ptr > m->base && (size_t)(ptr - m->base) < m->size) {
            return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p lies inside the mapping at %p (%zu bytes); "
                                                        "expected the address aclrtMapMem mapped.", api,
                            (const void *)ptr, (void *)m->base, m->size);
        }
    }
    return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p is not mapped; expected an address mapped with "
                                                "aclrtMapMem and not yet unmapped.", api, (const void *)ptr);
}

aclError aclrtUnmapMem(void *virPtr)
{
    static const char api[] = "aclrtUnmapMem";
    if (virPtr == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: virPtr is NULL; expected an address mapped with aclrtMapMem.",
                        api);
    }
    reservation *r = NULL;
    size_t k = 0;
    pthread_mutex_lock(&vmm_lock);
    aclError status = find_mapping_locked(api, virPtr, &r, &k);
    const mapping seen = status == ACL_SUCCESS ? r->maps[k] : (mapping){0};
    pthread_mutex_unlock(&vmm_lock);
    if (status != ACL_SUCCESS) {
        return status;
    }
    /* Work still queued on a stream may use the pages: let it finish first. */
    status = emu_streams_wait_for_block(api, "virPtr", seen.base, seen.size);
    if (status != ACL_SUCCESS) {
        return status;
    }
    pthread_mutex_lock(&vmm_lock);
    status = find_mapping_locked(api, virPtr, &r, &k);
    if (status == ACL_SUCCESS && r->maps[k].serial != seen.serial) {
        status = emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p was unmapped and mapped again by another "
                                                      "thread during this call; expected one unmap per mapping.", api,
                          virPtr);
    }
    if (status == ACL_SUCCESS) {
        const mapping m = r->maps[k];
        size_t first, last;
        run_around(r, k, &first, &last);
        emu_block old = run_block(r, first, last);
        emu_block parts[2];
        size_t part_count = 0;
        if (first < k) {
            parts[part_count++] = run_block(r, first, k - 1);
        }
        if (last > k) {
            parts[part_count++] = run_block(r, k + 1, last);
        }
        /* Out of device memory before the pages go: no check passes on them after. */
        if (!emu_device_regions_replace(&old, 1, parts, part_count)) {
            status = emu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory.", api);
        } else {
            if (!reserve_pages(m.base, m.size)) {
                (void)mprotect(m.base, m.size, PROT_NONE);
            }
            --m.handle->mappings;
            --r->map_count;
            memmove(&r->maps[k], &r->maps[k + 1], (r->map_count - k) * sizeof *r->maps);
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    return status;
}

size_t emu_vmm_report(void *out_file)
{
    FILE *out = out_file;
    size_t count = 0;
    pthread_mutex_lock(&vmm_lock);
    for (const reservation *r = reservations; r != NULL; r = r->next, ++count) {
        if (out != NULL) {
            size_t mapped = 0;
            for (size_t k = 0; k < r->map_count; ++k) {
                mapped += r->maps[k].size;
            }
            fprintf(out, "aclnn_emu:   reserved addresses %p, %zu bytes, %zu mapped in %zu mapping(s) "
                         "(aclrtReserveMemAddress without aclrtReleaseMemAddress)\n", (void *)r->base, r->size,
                    mapped, r->map_count);
        }
    }
    for (const phys_handle *h = handles; h != NULL; h = h->next, ++count) {
        if (out != NULL) {
            fprintf(out, "aclnn_emu:   physical memory %p, %zu bytes (aclrtMallocPhysical without "
                         "aclrtFreePhysical)\n", (const void *)h, h->size);
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    return count;
}

/* ---- peer access ---- */

/* aclnn_emu has one device, 0. */
static aclError invalid_device(const char *api, const char *name, int32_t id)
{
    return emu_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: %s is %d; expected 0 (aclnn_emu emulates one device, so no "
                                                   "peer exists).", api, name, (int)id);
}

aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    static const char api[] = "aclrtDeviceCanAccessPeer";
    if (deviceId == peerDeviceId) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: deviceId %d is equal to peerDeviceId; expected two different "
                                                 "devices.", api, (int)deviceId);
    }
    if (peerDeviceId != 0) {
        return invalid_device(api, "peerDeviceId", peerDeviceId);
    }
    if (deviceId != 0) {
        return invalid_device(api, "deviceId", deviceId);
    }
    if (canAccessPeer == NULL) { /* not reached with one device, kept in CANN's order */
        return emu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: canAccessPeer is NULL; expected a pointer to int32_t.", api);
    }
    *canAccessPeer = 0;
    return ACL_SUCCESS;
}

/* Both directions of peer access: no peer exists. */
static aclError peer_access(const char *api, int32_t peerDeviceId)
{
    int32_t current = 0;
    if (aclrtGetDevice(&current) != ACL_SUCCESS) {
        return emu_fail(ACL_ERROR_RT_CONTEXT_NULL, "%s: the calling thread has no current device; expected "
                                                   "aclrtSetDevice first.", api);
    }
    if (peerDeviceId == current) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: peerDeviceId %d is the current device; expected another "
                                                 "device.", api, (int)peerDeviceId);
    }
    return invalid_device(api, "peerDeviceId", peerDeviceId);
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    if (flags != 0) {
        return emu_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtDeviceEnablePeerAccess: flags is %u; expected 0 "
                                                       "(reserved).", (unsigned)flags);
    }
    return peer_access("aclrtDeviceEnablePeerAccess", peerDeviceId);
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    return peer_access("aclrtDeviceDisablePeerAccess", peerDeviceId);
}
