/* The live-handle set: an open-addressing hash table (linear probing,
 * backward-shift deletion) from pointer to kind, under one mutex. */
#include <pthread.h>
#include <stdlib.h>

#include "common/emu.h"

typedef struct {
    const void *key;
    emu_handle_kind kind;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static size_t capacity; /* power of two, or 0 */
static size_t count;

static size_t hash_pointer(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static size_t find_slot(const slot *table, size_t cap, const void *key)
{
    size_t mask = cap - 1;
    size_t i = hash_pointer(key) & mask;
    while (table[i].key != NULL && table[i].key != key) {
        i = (i + 1) & mask;
    }
    return i;
}

static bool grow(void)
{
    size_t new_capacity = capacity ? capacity * 2 : 64;
    slot *table = calloc(new_capacity, sizeof *table);
    if (table == NULL) {
        return false;
    }
    for (size_t i = 0; i < capacity; ++i) {
        if (slots[i].key != NULL) {
            table[find_slot(table, new_capacity, slots[i].key)] = slots[i];
        }
    }
    free(slots);
    slots = table;
    capacity = new_capacity;
    return true;
}

bool emu_handle_add(const void *handle, emu_handle_kind kind)
{
    bool ok = true;
    pthread_mutex_lock(&lock);
    if ((count + 1) * 2 > capacity && !grow()) {
        ok = false;
    } else {
        size_t i = find_slot(slots, capacity, handle);
        if (slots[i].key == NULL) {
            ++count;
        }
        slots[i].key = handle;
        slots[i].kind = kind;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

static void remove_at(size_t i)
{
    size_t mask = capacity - 1;
    slots[i].key = NULL;
    --count;
    /* Shift later members of the probe run back so lookups still find them. */
    for (size_t j = (i + 1) & mask; slots[j].key != NULL; j = (j + 1) & mask) {
        size_t home = hash_pointer(slots[j].key) & mask;
        bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            slots[i] = slots[j];
            slots[j].key = NULL;
            i = j;
        }
    }
}

bool emu_handle_remove(const void *handle, emu_handle_kind kind)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    if (capacity != 0 && handle != NULL) {
        size_t i = find_slot(slots, capacity, handle);
        if (slots[i].key == handle && slots[i].kind == kind) {
            remove_at(i);
            found = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

bool emu_handle_is(const void *handle, emu_handle_kind kind)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    if (capacity != 0 && handle != NULL) {
        size_t i = find_slot(slots, capacity, handle);
        found = slots[i].key == handle && slots[i].kind == kind;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

bool emu_handle_change(const void *handle, emu_handle_kind from, emu_handle_kind to)
{
    bool changed = false;
    pthread_mutex_lock(&lock);
    if (capacity != 0 && handle != NULL) {
        size_t i = find_slot(slots, capacity, handle);
        if (slots[i].key == handle && slots[i].kind == from) {
            slots[i].kind = to;
            changed = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return changed;
}

size_t emu_handle_each(emu_handle_kind kind, void (*fn)(const void *handle, void *ctx), void *ctx)
{
    size_t found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < capacity; ++i) {
        if (slots[i].key != NULL && slots[i].kind == kind) {
            ++found;
            if (fn != NULL) {
                fn(slots[i].key, ctx);
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

emu_handle_kind emu_handle_kind_of(const void *handle)
{
    emu_handle_kind kind = (emu_handle_kind)0;
    pthread_mutex_lock(&lock);
    if (capacity != 0 && handle != NULL) {
        size_t i = find_slot(slots, capacity, handle);
        if (slots[i].key == handle) {
            kind = slots[i].kind;
        }
    }
    pthread_mutex_unlock(&lock);
    return kind;
}

const char *emu_handle_kind_name(emu_handle_kind kind)
{
    switch (kind) {
    case EMU_HANDLE_STREAM: return "aclrtStream";
    case EMU_HANDLE_EVENT: return "aclrtEvent";
    case EMU_HANDLE_CONTEXT: return "aclrtContext";
    case EMU_HANDLE_HOST_ALLOC: return "aclrtMallocHost block";
    case EMU_HANDLE_EXECUTOR: return "aclOpExecutor";
    case EMU_HANDLE_EXECUTOR_CONSUMED: return "consumed aclOpExecutor";
    case EMU_HANDLE_TENSOR: return "aclTensor";
    case EMU_HANDLE_SCALAR: return "aclScalar";
    case EMU_HANDLE_INT_ARRAY: return "aclIntArray";
    case EMU_HANDLE_FLOAT_ARRAY: return "aclFloatArray";
    case EMU_HANDLE_BOOL_ARRAY: return "aclBoolArray";
    case EMU_HANDLE_TENSOR_LIST: return "aclTensorList";
    case EMU_HANDLE_SCALAR_LIST: return "aclScalarList";
    }
    return "handle";
}

bool emu_tensor_is_live(const aclTensor *tensor)
{
    return tensor != NULL && emu_handle_is(tensor, EMU_HANDLE_TENSOR);
}

static const char *creator_of(emu_handle_kind kind)
{
    switch (kind) {
    case EMU_HANDLE_TENSOR: return "aclCreateTensor";
    case EMU_HANDLE_SCALAR: return "aclCreateScalar";
    case EMU_HANDLE_INT_ARRAY: return "aclCreateIntArray";
    case EMU_HANDLE_FLOAT_ARRAY: return "aclCreateFloatArray";
    case EMU_HANDLE_BOOL_ARRAY: return "aclCreateBoolArray";
    case EMU_HANDLE_TENSOR_LIST: return "aclCreateTensorList";
    case EMU_HANDLE_SCALAR_LIST: return "aclCreateScalarList";
    default: return "its create call";
    }
}

aclnnStatus emu_check_live(const char *api, const char *name, const void *handle, emu_handle_kind kind)
{
    if (handle == NULL) {
        return ACLNN_SUCCESS;
    }
    emu_handle_kind actual = emu_handle_kind_of(handle);
    if (actual == kind) {
        return ACLNN_SUCCESS;
    }
    if (actual != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s %p is a live %s, not an %s; expected an %s from %s.", api,
                        name, handle, emu_handle_kind_name(actual), emu_handle_kind_name(kind),
                        emu_handle_kind_name(kind), creator_of(kind));
    }
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s %p is not a live %s (already destroyed, or never created by "
                                             "%s); expected an %s from %s that is not yet destroyed.", api, name,
                    handle, emu_handle_kind_name(kind), creator_of(kind), emu_handle_kind_name(kind),
                    creator_of(kind));
}
