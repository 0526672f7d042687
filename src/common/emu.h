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
bool emu_verbose(void);      /* ACLNN_EMU_VERBOSE, or aclnnEmuSetVerbose */
/* The FusedFloydAttention(Grad) tile (aclnnEmuSetFloydTile, initially
 * ACLNN_EMU_FLOYD_TILE=NBxMBxKB, read once); false: automatic. */
bool emu_floyd_tile(int64_t *nb, int64_t *mb, int64_t *kb);
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
    EMU_HANDLE_TENSOR,
    EMU_HANDLE_SCALAR,
    EMU_HANDLE_INT_ARRAY,
    EMU_HANDLE_FLOAT_ARRAY,
    EMU_HANDLE_BOOL_ARRAY,
    EMU_HANDLE_TENSOR_LIST,
    EMU_HANDLE_SCALAR_LIST
} emu_handle_kind;

bool emu_handle_add(const void *handle, emu_handle_kind kind); /* false: out of memory */
bool emu_handle_remove(const void *handle, emu_handle_kind kind); /* false: not registered as kind */
bool emu_handle_is(const void *handle, emu_handle_kind kind);
/* The kind `handle` is registered as, or 0 when it is not registered. */
emu_handle_kind emu_handle_kind_of(const void *handle);
/* "aclTensor", "aclScalar", "aclrtStream", ... for messages. */
const char *emu_handle_kind_name(emu_handle_kind kind);
/* Liveness of the aclnn meta objects (aclCreateTensor ... aclCreateScalarList
 * register them, their destroy calls remove them). A destroyed handle is
 * never read: the registry does not touch the object. One registry lookup
 * (a mutex and a hash probe, about 20 ns uncontended). */
bool emu_tensor_is_live(const aclTensor *tensor);
/* For phase 1 and the accessors: NULL passes (the caller's NULL check comes
 * first and has its own code); a pointer not registered as `kind` sets one
 * sentence naming `api` and `name` (and what the pointer is instead, when it
 * is another live handle) and returns ACLNN_ERR_PARAM_INVALID (161002). */
aclnnStatus emu_check_live(const char *api, const char *name, const void *handle, emu_handle_kind kind);
/* emu_check_live for every tensor of a list (the list itself included);
 * `name` is the list's argument name, elements are named name[i]. */
aclnnStatus emu_check_tensor_list_live(const char *api, const char *name, const aclTensorList *list);
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
/* What CANN's runtime checks before memory, copies and streams: the calling
 * thread has a current context (aclrtSetDevice or aclrtSetCurrentContext),
 * else ACL_ERROR_RT_CONTEXT_NULL naming `api`. It does not check aclInit
 * (hicann/runtime), so neither do we; the verbose log notes the omission. */
aclError emu_require_device(const char *api);
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
/* Waits until no queued or running task uses [base, base+size). When such
 * a task sits behind an event wait that no queued record can end, it prints
 * a notice naming `api`, `what`, the stream and the event to stderr after a
 * second and goes on waiting (another thread may record the event; destroying
 * the event drops the wait). ACL_SUCCESS, or an error with its message. */
aclError emu_streams_wait_for_block(const char *api, const char *what, const void *base, size_t size);
/* aclFinalize: every stream finishes its work; event waits that no queued
 * record can end give up (507046, message naming the stream and the event). */
aclError emu_streams_finalize(void);
/* Before work is submitted to a stream that runs inline (the default
 * stream): waits for the records its earlier aclrtStreamWaitEvent calls
 * need; 507046 with a message naming `api` and the event when no record of
 * one is queued (nothing is run then). Costs one thread-local load when the
 * thread has no such wait. */
aclError emu_stream_ready(const char *api, aclrtStream stream);
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
