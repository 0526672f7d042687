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
bool emu_sync_mode(void);    /* ACLNN_EMU_SYNC=1: every stream runs work inline */
bool emu_report_leaks(void); /* ACLNN_EMU_REPORT_LEAKS=1: aclFinalize lists what is still alive */
bool emu_host_memory_allowed(void); /* aclnnEmuSetHostMemoryAllowed on this thread */
uint64_t emu_device_cache_limit(void);        /* bytes of freed device blocks aclrtFree may keep */
void emu_device_cache_limit_set(uint64_t bytes);
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
    EMU_HANDLE_EXECUTOR_CONSUMED,
    EMU_HANDLE_TENSOR
} emu_handle_kind;

bool emu_handle_add(const void *handle, emu_handle_kind kind); /* false: out of memory */
bool emu_handle_remove(const void *handle, emu_handle_kind kind); /* false: not registered as kind */
bool emu_handle_is(const void *handle, emu_handle_kind kind);
/* Atomically changes the kind of a registered handle; false if it was not `from`. */
bool emu_handle_change(const void *handle, emu_handle_kind from, emu_handle_kind to);
/* Calls fn for each live handle of `kind` (under the registry lock: fn must
 * not call back into the registry); returns how many there are. */
size_t emu_handle_each(emu_handle_kind kind, void (*fn)(const void *handle, void *ctx), void *ctx);

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
/* Checks `count` ranges under one lock; returns the index of the first that
 * is not inside one live device block, or -1 when all are. Zero-length
 * ranges are skipped. */
int emu_device_ranges_check(const void *const *ptrs, const size_t *lens, int count);
/* Between aclInit and the aclFinalize that releases it (acl.c). */
bool emu_acl_initialized(void);
/* Frees every cached (freed, kept for reuse) device block; returns the bytes
 * released. aclrtResetDevice and aclFinalize call it. */
size_t emu_device_cache_release(void);
/* Writes one line per live device block to `out`; returns their number. */
size_t emu_device_blocks_report(void *out_file);

/* ---- streams (stream.c) ----
 * Every operator run, memcpy, memset and event marker is a task on a
 * stream. A created stream runs its tasks in launch order on its own worker
 * thread; the NULL stream (and every stream when ACLNN_EMU_SYNC=1) runs them
 * on the calling thread before emu_stream_submit returns. */
typedef struct emu_task emu_task;
struct emu_task {
    emu_task *next; /* queue link, owned by the stream */
    uint64_t seq;   /* number in its stream, set when queued (0 when run inline) */
    void (*run)(emu_task *task);
    /* Called once after run, on the thread that ran it: frees the task and
     * what it owns. NULL: nothing to free. */
    void (*release)(emu_task *task);
    /* Run release with the stream's lock held, at the moment the task counts
     * complete, instead of before: what release makes visible (an event's
     * record) is then never seen apart from the stream's completion. */
    bool release_on_completion;
    /* Whether the task reads or writes [base, base+size): aclrtFree of a block
     * waits for the queued tasks that use it. NULL: no device memory. */
    bool (*uses)(const emu_task *task, const void *base, size_t size);
    /* Set by run for operator launches: the kernel aclnnEmuGetLastKernel
     * reports (on the launching thread for inline runs, on the thread that
     * synchronizes the stream otherwise). */
    const char *kernel;
};
typedef void (*emu_stream_work_fn)(void *ctx);
bool emu_stream_is_valid(aclrtStream stream);
/* NULL or synchronous mode: tasks run inline, so they may live on the stack. */
bool emu_stream_runs_inline(aclrtStream stream);
/* Queues `task` (heap memory, freed by its release) on a live stream, or
 * runs it at once when emu_stream_runs_inline. */
bool emu_stream_submit(aclrtStream stream, emu_task *task);
/* Runs work(ctx) in order on the stream and waits for it to finish. */
void emu_stream_launch(aclrtStream stream, emu_stream_work_fn work, void *ctx);
void emu_streams_synchronize_all(void);
/* Waits until no queued or running task uses [base, base+size). */
void emu_streams_wait_for_block(const void *base, size_t size);
size_t emu_stream_live_count(void);

static inline bool emu_ranges_overlap(const void *a, size_t a_len, const void *b, size_t b_len)
{
    const char *a0 = (const char *)a, *b0 = (const char *)b;
    return a_len > 0 && b_len > 0 && a0 < b0 + b_len && b0 < a0 + a_len;
}

/* Operator outputs go out with non-temporal stores where the kernel has
 * that form once the call moves this many bytes through the cache, every
 * stream counted (SiLU backward: dy, x and dx; RoPE: dy, x and dx): at
 * twice the L3 of the machines we measure on, nothing of the output would
 * still be cached for the next operator, and plain stores would first read
 * every line. The inputs count because they evict the output as surely:
 * SiLU backward with dx of 11-24 MiB, which only that count streams, ran
 * faster from DRAM on Zen 4 (fp32 +20 to +23%, fp16 +6 to +19%, bf16 +0 to +3%;
 * bf16 with its inputs still partly cached, -3 to -6%). (Streaming RoPE's
 * 21 MB dx once measured slower, up to 2-3x on Zen 3; part of that, a
 * quarter on Zen 4, was the partial lines at the ends of each copy missing
 * in the cache, which are now fetched ahead: src/ops/rope_layout.c.) MoE
 * measured its own 16 MiB. */
#define EMU_STREAM_OUTPUT_MIN_BYTES ((uint64_t)32 << 20)

/* ---- time ---- */
double emu_now_ms(void);

#endif /* EMU_COMMON_EMU_H_ */
