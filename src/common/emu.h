/* Internal declarations shared by the runtime, meta and op layers.
 * Never installed. */
#ifndef EMU_COMMON_EMU_H_
#define EMU_COMMON_EMU_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn_emu/aclnn_emu.h"

#if defined(__GNUC__)
#define EMU_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define EMU_PRINTF(fmt_index, first_arg)
#endif

/* ---- error messages (errmsg.c) ----
 * Every failing public call stores one sentence for aclGetRecentErrMsg()
 * and returns its code through emu_fail. */
int emu_fail(int code, const char *fmt, ...) EMU_PRINTF(2, 3);
void emu_set_message(const char *fmt, ...) EMU_PRINTF(1, 2);

/* ---- data types (dtype.c) ---- */
const char *emu_dtype_name(aclDataType dtype);
size_t emu_dtype_size(aclDataType dtype); /* 0 for sub-byte and unknown types */

/* ---- settings (settings.c) ---- */
typedef enum { EMU_SOC_ASCEND910B, EMU_SOC_ASCEND910_93, EMU_SOC_ASCEND910, EMU_SOC_ASCEND950 } emu_soc;
emu_soc emu_soc_get(void);
int emu_num_threads(void);
bool emu_verbose(void);
bool emu_host_memory_allowed(void); /* aclnnEmuSetHostMemoryAllowed on this thread */
void emu_set_last_kernel(const char *name);

/* ---- handle registry (registry.c) ----
 * A process-wide set of live handles, so that every public entry point can
 * tell a live object from a stale or foreign pointer before touching it. */
typedef enum {
    EMU_HANDLE_STREAM = 1,
    EMU_HANDLE_EVENT,
    EMU_HANDLE_CONTEXT,
    EMU_HANDLE_HOST_ALLOC,
    EMU_HANDLE_EXECUTOR,
    EMU_HANDLE_EXECUTOR_CONSUMED
} emu_handle_kind;

bool emu_handle_add(const void *handle, emu_handle_kind kind); /* false: out of memory */
bool emu_handle_remove(const void *handle, emu_handle_kind kind); /* false: not registered as kind */
bool emu_handle_is(const void *handle, emu_handle_kind kind);
/* Atomically changes the kind of a registered handle; false if it was not `from`. */
bool emu_handle_change(const void *handle, emu_handle_kind from, emu_handle_kind to);

/* ---- device memory table (memory.c) ---- */
typedef struct {
    void *base;
    size_t size;
} emu_block;
/* Finds the live device block containing ptr; true when [ptr, ptr+len) lies
 * inside it. `out` is filled whenever a block contains ptr (size 0 if none). */
bool emu_device_block_find(const void *ptr, size_t len, emu_block *out);
/* Whether `len` bytes at `ptr` lie in one live device block. */
bool emu_device_range_ok(const void *ptr, size_t len);
/* Sets the message for a range that emu_device_range_ok refused, naming
 * `api`, `what`, the pointer and the block it runs out of. */
void emu_report_device_range(const char *api, const char *what, const void *ptr, size_t len);

/* ---- streams (stream.c) ----
 * The single launch path: every operator run, async memcpy and memset goes
 * through it. Work runs synchronously today. */
typedef void (*emu_stream_work_fn)(void *ctx);
bool emu_stream_is_valid(aclrtStream stream);
void emu_stream_launch(aclrtStream stream, emu_stream_work_fn work, void *ctx);

/* ---- time ---- */
double emu_now_ms(void);

#endif /* EMU_COMMON_EMU_H_ */
