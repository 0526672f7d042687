/* Deterministic randomized robustness test of the runtime (aclInit ..
 * aclrtGetMemInfo) and of the tensor, scalar, array and list API, run by
 * ctest and, in CI, under ASan + UBSan + LeakSanitizer and ThreadSanitizer.
 * tests/c/test_fuzz.c does the same for the operators.
 *
 * Three parts:
 *  1. runtime: EPISODES episodes of EPISODE_STEPS random calls on one
 *     thread, valid and mutated: init and finalize (repeat codes, config
 *     files), devices and contexts (bad ids, stale handles), aclrtMalloc /
 *     Free / MallocHost / FreeHost (size 0, 2^62 and SIZE_MAX, every policy
 *     and invalid ones, double and interior frees, host memory), memset and
 *     memcpy, synchronous and queued (every kind and invalid ones, count 0,
 *     count > destMax, ranges past a block, overlapping ranges in one
 *     block, host memory where device memory is required and the other way
 *     round, NULL, stale and garbage pointers), streams and events (every
 *     call, NULL and stale handles, destroyed with work queued, held on an
 *     event that is never recorded until the step that opens it), and the
 *     information calls. A host model of every device block and host buffer
 *     follows each call; the model also knows which stream may still touch
 *     which memory and which streams are held, so that it orders streams
 *     (by a synchronize or an event) before they share memory and never
 *     makes a call that would wait forever.
 *  2. tensors: TENSOR_TRIALS random descriptors (rank 0..40, dimensions,
 *     strides and offsets up to the int64 limits, every dtype and invalid
 *     ones) through aclCreateTensor, aclInitTensor and every getter (also
 *     with NULL outputs), aclSet/GetRawTensorAddr; scalars of every dtype;
 *     int, float and bool arrays; tensor and scalar lists (NULL entries,
 *     size 0, NULL with size > 0); every destroy function with NULL.
 *  3. threads: WORKERS host threads each run the runtime part's steps on
 *     their own streams and memory plus a stream shared by all, while each
 *     hands device blocks to the next one: it fills a block on its stream
 *     and records an event; the consumer waits for the event (on its stream,
 *     on the default stream, or with aclrtSynchronizeEvent) and copies the
 *     block. Then two fixed scenarios: a thread destroying an unrelated idle
 *     stream while another waits in aclrtFree or aclrtSynchronizeDevice for
 *     work held by an event must not be held up (it may be the thread whose
 *     next call releases the wait).
 * Checks: every call returns a code its header documents (exactly, where
 * the header fixes it); a failed call leaves a message that names the API
 * and leaves its out-parameters untouched; every byte of every block and
 * host buffer equals the model after a synchronize; a stream held by an
 * event reports NOT_READY and times out, and its queued memset has not run;
 * aclFinalize's leak report (ACLNN_EMU_REPORT_LEAKS=1) lists exactly the
 * model's live blocks, tensors, streams and events, and nothing at the end
 * of each episode; no call waits forever (a watchdog fails the run after
 * WATCHDOG_SECONDS).
 *
 * Every episode, trial and worker seeds its own generator from
 * TEST_RNG_SEED and its number, and no random choice depends on timing: a
 * failure printed as "runtime 7 step 123" replays the same calls with
 * `test_fuzz_runtime runtime 7`, "tensors 42 ..." with `test_fuzz_runtime
 * tensors 42`; `test_fuzz_runtime threads` runs the threads part (its
 * interleaving is the scheduler's). Numbers past the default counts are new
 * cases, for longer campaigns: `runtime 40 1000` runs episodes 40..1039,
 * `tensors 4000 100000` trials 4000..103999. TEST_FUZZ_TRACE=1 prints every
 * call before it is made and its code after.
 * Prints "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#define TEST_RNG_SEED 0xA5C1F022ull
#include "test_util.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"

enum {
    EPISODES = 40,
    EPISODE_STEPS = 500,
    TENSOR_TRIALS = 4000,
    WORKERS = 4,
    WORKER_STEPS = 4000,
    HANDOFF_SLOTS = 3,
    WATCHDOG_SECONDS = 300,
    MAX_FAILURE_LINES = 25,
    MAX_OBJECTS = 16,     /* device blocks and host buffers of one model */
    MAX_DEVICE_BLOCKS = 10,
    HOST_BUFFERS = 2,     /* malloc'd */
    HOST_BUFFER_BYTES = 1 << 16,
    MAX_COPY = 1 << 14,
    MAX_STREAMS = 4,
    MAX_EVENTS = 6,
    MAX_CONTEXTS = 3,
    MAX_STALE = 24,
    MAX_EXTRA_HOST = 4,
    MAX_MODEL_TENSORS = 4,
    MAX_RANK = 40,        /* descriptors go past aclCreateTensor's limit of 32 */
    LIMIT_RANK = 32,
};

/* Stream arguments as the model sees them: a created stream's slot, or these. */
enum { DEFAULT_STREAM = -1, NOT_A_STREAM = -2 };
/* Event arguments: an event slot, or these. */
enum { GATE_EVENT = -1, NOT_AN_EVENT = -2 };

static bool trace_calls;

/* ------------------------------------------------------------ checks */

typedef enum { PART_RUNTIME, PART_TENSORS, PART_THREADS } part_id;
static const char *const PART_NAMES[] = {"runtime", "tensors", "threads"};

typedef struct {
    const char *part;
    int number; /* episode, trial or worker */
    int step;
    uint64_t rng;
    int passed, failed, printed;
    char call[384]; /* the call being checked, for failure reports */
} fuzz_context;

static void start_context(fuzz_context *ctx, part_id part, int number)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->part = PART_NAMES[part];
    ctx->number = number;
    /* Each episode, trial and worker has its own seed, so that it reruns alone. */
    g_rng = TEST_RNG_SEED + ((uint64_t)part << 40) + (uint64_t)number * 0x10001ull;
    ctx->rng = rnd64();
}

static void finish_context(const fuzz_context *ctx)
{
    g_passed += ctx->passed;
    g_failed += ctx->failed;
}

/* Every context draws from its own generator, so that threads share none:
 * a Weyl sequence scrambled with the murmur3 finalizer. */
static uint64_t draw(fuzz_context *ctx)
{
    uint64_t z = (ctx->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDull;
    z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ull;
    return z ^ (z >> 33);
}
static size_t below(fuzz_context *ctx, size_t n) { return n > 0 ? (size_t)(draw(ctx) % n) : 0; }
static bool one_in(fuzz_context *ctx, size_t n) { return below(ctx, n) == 0; }
#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))
#define PICK(ctx, array) ((array)[below((ctx), COUNT_OF(array))])

static bool expect(fuzz_context *ctx, bool ok, const char *fmt, ...)
{
    if (ok) {
        ++ctx->passed;
        return true;
    }
    ++ctx->failed;
    if (ctx->printed++ < MAX_FAILURE_LINES) {
        char what[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        printf("FAIL %s %d step %d: %s: %s\n", ctx->part, ctx->number, ctx->step, ctx->call, what);
    } else if (ctx->printed == MAX_FAILURE_LINES + 1) {
        printf("FAIL %s %d: further failures not shown\n", ctx->part, ctx->number);
    }
    fflush(stdout);
    return false;
}

/* Names the call about to be made (for failure reports and the trace) and
 * drops any message left over, so that it cannot pass for this call's. */
static void begin_call(fuzz_context *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->call, sizeof ctx->call, fmt, ap);
    va_end(ap);
    (void)aclGetRecentErrMsg();
    if (trace_calls) {
        printf("%s %d step %d: %s\n", ctx->part, ctx->number, ctx->step, ctx->call);
        fflush(stdout);
    }
}

/* The API's name stands in the message as a word of its own
 * ("aclrtCreateStream:" does not name aclrtCreateStreamWithConfig). */
static bool names_api(const char *message, const char *api)
{
    size_t length = strlen(api);
    for (const char *at = message ? strstr(message, api) : NULL; at != NULL; at = strstr(at + 1, api)) {
        char next = at[length];
        if (!isalnum((unsigned char)next) && next != '_') {
            return true;
        }
    }
    return false;
}

static void expect_message(fuzz_context *ctx, const char *api)
{
    const char *message = aclGetRecentErrMsg();
    expect(ctx, names_api(message, api), "left the message \"%s\"; expected a sentence naming %s",
           message ? message : "(none)", api);
}

/* The codes a call may return: more than one where the header leaves the
 * order of its checks open, or the outcome depends on timing. */
typedef struct {
    int codes[8];
    int count;
} code_set;

static void allow(code_set *set, int code)
{
    for (int i = 0; i < set->count; ++i) {
        if (set->codes[i] == code) {
            return;
        }
    }
    if (set->count < (int)COUNT_OF(set->codes)) {
        set->codes[set->count++] = code;
    }
}

static bool allows(const code_set *set, int code)
{
    for (int i = 0; i < set->count; ++i) {
        if (set->codes[i] == code) {
            return true;
        }
    }
    return false;
}

static code_set only(int code)
{
    code_set set = {.count = 0};
    allow(&set, code);
    return set;
}

/* The call returned one of `allowed`, and a failure named `api` in its
 * message. Returns whether the call succeeded. */
static bool expect_code(fuzz_context *ctx, const char *api, int got, code_set allowed)
{
    char list[96] = "";
    for (int i = 0; i < allowed.count; ++i) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%d", i ? " or " : "", allowed.codes[i]);
    }
    expect(ctx, allows(&allowed, got), "returned %d; expected %s", got, list);
    if (trace_calls) {
        printf("  -> %d\n", got);
    }
    if (got != ACL_SUCCESS) {
        expect_message(ctx, api);
    }
    return got == ACL_SUCCESS;
}

/* ------------------------------------------------------------ sanitizers */

/* aclrtMalloc, aclrtMallocHost and the array constructors are asked for
 * 2^62 bytes and more: the sanitizers' allocators must then return NULL, as
 * malloc does, rather than stop the program. */
__attribute__((visibility("default"))) const char *__asan_default_options(void);
__attribute__((visibility("default"))) const char *__tsan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
const char *__tsan_default_options(void) { return "allocator_may_return_null=1"; }

/* ------------------------------------------------------------ the leak report */

typedef struct {
    bool found;
    long blocks, tensors, executors, streams, events;
    char text[2048]; /* what aclFinalize wrote, shown when a count is wrong */
} leak_report;

/* aclFinalize with ACLNN_EMU_REPORT_LEAKS=1 writes what is still alive to
 * stderr: catch it in a temporary file and read the counts back. */
static aclError finalize_and_read_report(leak_report *report)
{
    memset(report, 0, sizeof *report);
    fflush(stderr);
    FILE *capture = tmpfile();
    int saved = dup(STDERR_FILENO);
    if (capture == NULL || saved < 0 || dup2(fileno(capture), STDERR_FILENO) < 0) {
        if (capture != NULL) {
            fclose(capture);
        }
        if (saved >= 0) {
            close(saved);
        }
        return aclFinalize();
    }
    aclError code = aclFinalize();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(capture);
    size_t length = fread(report->text, 1, sizeof report->text - 1, capture);
    report->text[length] = '\0';
    fclose(capture);
    const char *line = strstr(report->text, "aclFinalize: ");
    report->found = line != NULL &&
                    sscanf(line, "aclFinalize: %ld device block(s), %ld tensor(s), %ld executor(s), %ld stream(s), "
                                 "%ld event(s)", &report->blocks, &report->tensors, &report->executors,
                           &report->streams, &report->events) == 5;
    return code;
}

static void expect_report(fuzz_context *ctx, const leak_report *report, long blocks, long tensors, long streams,
                          long events)
{
    bool ok = report->found && report->blocks == blocks && report->tensors == tensors && report->executors == 0 &&
              report->streams == streams && report->events == events;
    expect(ctx, ok, "leak report should list %ld block(s), %ld tensor(s), 0 executors, %ld stream(s), %ld event(s); "
                    "aclFinalize wrote:\n%s", blocks, tensors, streams, events, report->text);
}

/* ------------------------------------------------------------ the runtime model */

typedef enum { OBJECT_NONE, OBJECT_DEVICE, OBJECT_HOST, OBJECT_PINNED } object_kind;
enum { DEVICE_OBJECTS = 1u << OBJECT_DEVICE, HOST_OBJECTS = 1u << OBJECT_HOST | 1u << OBJECT_PINNED };

typedef struct {
    object_kind kind;
    unsigned char *base;
    size_t size;
    unsigned char *expected; /* the bytes once the work queued so far has run */
    int owner;               /* the stream slot whose queued work may still touch it, or DEFAULT_STREAM */
} memory_object;

typedef struct {
    aclrtStream handle; /* NULL: a free slot */
    bool has_work;      /* work queued since it last drained */
    bool gated;         /* waits for the gate: nothing after that wait runs until the gate opens */
    bool maybe_gated;   /* gated, or waits through an event for work behind the gate */
    bool persistent;    /* a worker's own or the shared stream: never destroyed by a step */
    bool shared;        /* other threads queue work on it too */
} stream_slot;

typedef enum { FLAG_CLEAR, FLAG_SET, FLAG_UNKNOWN } event_flag;

typedef struct {
    aclrtEvent handle;
    event_flag flag;  /* once every queued record and reset has run */
    unsigned records; /* stream slots (bits) that may still have a record of it queued */
    unsigned resets;  /* ... a reset */
} event_slot;

typedef enum { MODEL_ALONE, MODEL_WORKER } model_mode;

typedef struct {
    fuzz_context ctx;
    model_mode mode;
    memory_object objects[MAX_OBJECTS];
    stream_slot streams[MAX_STREAMS];
    event_slot events[MAX_EVENTS];
    /* Waited on to hold a stream; recorded (and reset) on the default stream only, to open it. */
    aclrtEvent gate;
    /* Freed blocks and host allocations, destroyed streams, events and contexts. */
    void *stale[MAX_STALE];
    int stale_count, stale_next;
    void *extra_host[MAX_EXTRA_HOST]; /* aclrtMallocHost blocks no copy uses */
    aclTensor *tensors[MAX_MODEL_TENSORS]; /* descriptors of blocks, for the leak report */
    aclrtContext contexts[MAX_CONTEXTS];
    aclrtContext current_context; /* this thread's, as the library must see it (NULL: none) */
    aclrtContext default_context; /* aclrtSetDevice's, learnt from aclrtGetCurrentContext */
    bool device_set;
    long init_count;
    const char *config_path; /* a readable file for aclInit */
    unsigned char *scratch;  /* HOST_BUFFER_BYTES, for reading blocks back */
} runtime_model;

static unsigned stream_bit(int slot) { return slot >= 0 ? 1u << slot : 0u; }

static void remember_stale(runtime_model *m, void *pointer)
{
    m->stale[m->stale_next] = pointer;
    m->stale_next = (m->stale_next + 1) % MAX_STALE;
    if (m->stale_count < MAX_STALE) {
        ++m->stale_count;
    }
}

/* The object of `kinds` whose bytes contain ptr, or -1. */
static int object_at(const runtime_model *m, const void *ptr, unsigned kinds)
{
    uintptr_t p = (uintptr_t)ptr;
    for (int i = 0; i < MAX_OBJECTS; ++i) {
        const memory_object *o = &m->objects[i];
        if ((kinds & (1u << o->kind)) && o->kind != OBJECT_NONE && p >= (uintptr_t)o->base &&
            p - (uintptr_t)o->base < o->size) {
            return i;
        }
    }
    return -1;
}

static int count_objects(const runtime_model *m, unsigned kinds)
{
    int n = 0;
    for (int i = 0; i < MAX_OBJECTS; ++i) {
        n += m->objects[i].kind != OBJECT_NONE && (kinds & (1u << m->objects[i].kind));
    }
    return n;
}

static int random_object(runtime_model *m, unsigned kinds)
{
    int n = count_objects(m, kinds);
    if (n == 0) {
        return -1;
    }
    int k = (int)below(&m->ctx, (size_t)n);
    for (int i = 0; i < MAX_OBJECTS; ++i) {
        if (m->objects[i].kind != OBJECT_NONE && (kinds & (1u << m->objects[i].kind)) && k-- == 0) {
            return i;
        }
    }
    return -1;
}

/* Records a new object; its first bytes are whatever the memory holds. */
static int add_object(runtime_model *m, object_kind kind, void *base, size_t size)
{
    for (int i = 0; i < MAX_OBJECTS; ++i) {
        memory_object *o = &m->objects[i];
        if (o->kind == OBJECT_NONE) {
            *o = (memory_object){.kind = kind, .base = base, .size = size, .owner = DEFAULT_STREAM};
            o->expected = xmalloc(size);
            memcpy(o->expected, base, size);
            return i;
        }
    }
    return -1;
}

static void drop_object(runtime_model *m, int i)
{
    free(m->objects[i].expected);
    m->objects[i] = (memory_object){.kind = OBJECT_NONE};
}

static int stream_slot_of(const runtime_model *m, aclrtStream handle)
{
    if (handle == NULL) {
        return DEFAULT_STREAM;
    }
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if (m->streams[i].handle == handle) {
            return i;
        }
    }
    return NOT_A_STREAM;
}

static int event_slot_of(const runtime_model *m, aclrtEvent handle)
{
    if (handle != NULL && handle == m->gate) {
        return GATE_EVENT;
    }
    for (int i = 0; handle != NULL && i < MAX_EVENTS; ++i) {
        if (m->events[i].handle == handle) {
            return i;
        }
    }
    return NOT_AN_EVENT;
}

static int live_streams(const runtime_model *m)
{
    int n = 0;
    for (int i = 0; i < MAX_STREAMS; ++i) {
        n += m->streams[i].handle != NULL;
    }
    return n;
}

static int live_events(const runtime_model *m)
{
    int n = m->gate != NULL;
    for (int i = 0; i < MAX_EVENTS; ++i) {
        n += m->events[i].handle != NULL;
    }
    return n;
}

static int random_stream_slot(runtime_model *m)
{
    int n = live_streams(m);
    int k = n ? (int)below(&m->ctx, (size_t)n) : -1;
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if (m->streams[i].handle != NULL && k-- == 0) {
            return i;
        }
    }
    return -1;
}

static int random_event_slot(runtime_model *m)
{
    int live = 0;
    for (int i = 0; i < MAX_EVENTS; ++i) {
        live += m->events[i].handle != NULL;
    }
    int k = live ? (int)below(&m->ctx, (size_t)live) : -1;
    for (int i = 0; i < MAX_EVENTS; ++i) {
        if (m->events[i].handle != NULL && k-- == 0) {
            return i;
        }
    }
    return -1;
}

static const uintptr_t GARBAGE_ADDRESSES[] = {0x10, 0x1000, 0xDEAD0000, (uintptr_t)1 << 46, UINTPTR_MAX - 63};

/* A pointer that is no live handle of the role it is passed in (the model
 * checks anyway: an address may have been reused): a stale handle or block,
 * a garbage address, a host buffer, a device block, or a live handle of
 * another kind. Never the gate. Workers use no stale pointers: another
 * thread's live objects may sit at those addresses. */
static void *foreign_pointer(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    switch (below(ctx, 6)) {
    case 0:
        if (m->mode == MODEL_ALONE && m->stale_count > 0) {
            return m->stale[below(ctx, (size_t)m->stale_count)];
        }
        break;
    case 1: {
        int object = random_object(m, DEVICE_OBJECTS | HOST_OBJECTS);
        if (object >= 0) {
            return m->objects[object].base;
        }
        break;
    }
    case 2: {
        int slot = random_stream_slot(m);
        if (slot >= 0) {
            return m->streams[slot].handle;
        }
        break;
    }
    case 3: {
        int slot = random_event_slot(m);
        if (slot >= 0) {
            return m->events[slot].handle;
        }
        break;
    }
    case 4:
        if (m->current_context != NULL) {
            return m->current_context;
        }
        break;
    default:
        break;
    }
    return (void *)PICK(ctx, GARBAGE_ADDRESSES);
}

/* A stream argument: mostly the default stream or a live one. */
static aclrtStream pick_stream(runtime_model *m)
{
    size_t r = below(&m->ctx, 20);
    int slot = random_stream_slot(m);
    if (r < 7 || (r < 17 && slot < 0)) {
        return NULL;
    }
    return r < 17 ? m->streams[slot].handle : foreign_pointer(m);
}

/* An event argument: mostly a live one (never the gate). */
static aclrtEvent pick_event(runtime_model *m)
{
    int slot = random_event_slot(m);
    if (slot >= 0 && !one_in(&m->ctx, 7)) {
        return m->events[slot].handle;
    }
    return one_in(&m->ctx, 4) ? NULL : foreign_pointer(m);
}

/* ---- streams, holding and ordering ---- */

static bool any_maybe_gated(const runtime_model *m, unsigned slots)
{
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if ((slots & stream_bit(i)) && m->streams[i].handle != NULL && m->streams[i].maybe_gated) {
            return true;
        }
    }
    return false;
}

static void open_gate(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    begin_call(ctx, "aclrtRecordEvent(gate, NULL) to open the gate");
    expect_code(ctx, "aclrtRecordEvent", aclrtRecordEvent(m->gate, NULL), only(ACL_SUCCESS));
    begin_call(ctx, "aclrtResetEvent(gate, NULL) to close the gate again");
    expect_code(ctx, "aclrtResetEvent", aclrtResetEvent(m->gate, NULL), only(ACL_SUCCESS));
    for (int i = 0; i < MAX_STREAMS; ++i) {
        m->streams[i].gated = m->streams[i].maybe_gated = false;
    }
}

/* Opens the gate before a call that waits for work of `slots`: a held
 * stream would make it wait forever. */
static void settle(runtime_model *m, unsigned slots)
{
    if (any_maybe_gated(m, slots)) {
        open_gate(m);
    }
}

/* The stream ran everything queued on it. */
static void mark_drained(runtime_model *m, int slot)
{
    m->streams[slot].has_work = m->streams[slot].gated = m->streams[slot].maybe_gated = false;
    for (int i = 0; i < MAX_OBJECTS; ++i) {
        if (m->objects[i].owner == slot) {
            m->objects[i].owner = DEFAULT_STREAM;
        }
    }
    for (int i = 0; i < MAX_EVENTS; ++i) {
        m->events[i].records &= ~stream_bit(slot);
        m->events[i].resets &= ~stream_bit(slot);
    }
}

static void mark_all_drained(runtime_model *m)
{
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if (m->streams[i].handle != NULL) {
            mark_drained(m, i);
        }
    }
}

static void synchronize_slot(runtime_model *m, int slot)
{
    fuzz_context *ctx = &m->ctx;
    settle(m, stream_bit(slot));
    int code;
    if (one_in(ctx, 4)) {
        begin_call(ctx, "aclrtSynchronizeStreamWithTimeout(stream %d, -1)", slot);
        code = aclrtSynchronizeStreamWithTimeout(m->streams[slot].handle, -1);
        expect_code(ctx, "aclrtSynchronizeStreamWithTimeout", code, only(ACL_SUCCESS));
    } else {
        begin_call(ctx, "aclrtSynchronizeStream(stream %d)", slot);
        code = aclrtSynchronizeStream(m->streams[slot].handle);
        expect_code(ctx, "aclrtSynchronizeStream", code, only(ACL_SUCCESS));
    }
    mark_drained(m, slot);
}

/* Work queued on the object's owner must be done before `target` (a slot,
 * or DEFAULT_STREAM) touches the object: a synchronize, or an event
 * recorded on the owner that the target waits for. The event is destroyed
 * with both markers still queued. */
static void order_before(runtime_model *m, int object, int target)
{
    fuzz_context *ctx = &m->ctx;
    int owner = m->objects[object].owner;
    if (owner == DEFAULT_STREAM || owner == target) {
        return;
    }
    if (one_in(ctx, 2)) {
        synchronize_slot(m, owner);
        return;
    }
    if (target == DEFAULT_STREAM) {
        settle(m, stream_bit(owner)); /* the calling thread waits */
    }
    aclrtEvent ordering = NULL;
    begin_call(ctx, "aclrtCreateEvent for ordering stream %d before %d", owner, target);
    if (!expect_code(ctx, "aclrtCreateEvent", aclrtCreateEvent(&ordering), only(ACL_SUCCESS))) {
        synchronize_slot(m, owner);
        return;
    }
    begin_call(ctx, "aclrtRecordEvent(ordering, stream %d)", owner);
    expect_code(ctx, "aclrtRecordEvent", aclrtRecordEvent(ordering, m->streams[owner].handle), only(ACL_SUCCESS));
    aclrtStream waiter = target == DEFAULT_STREAM ? NULL : m->streams[target].handle;
    begin_call(ctx, "aclrtStreamWaitEvent(stream %d, ordering)", target);
    expect_code(ctx, "aclrtStreamWaitEvent", aclrtStreamWaitEvent(waiter, ordering), only(ACL_SUCCESS));
    begin_call(ctx, "aclrtDestroyEvent(ordering) with its markers queued");
    expect_code(ctx, "aclrtDestroyEvent", aclrtDestroyEvent(ordering), only(ACL_SUCCESS));
    m->streams[owner].has_work = true;
    if (target != DEFAULT_STREAM) {
        m->streams[target].has_work = true;
        m->streams[target].maybe_gated |= m->streams[owner].maybe_gated;
    }
    m->objects[object].owner = target;
}

/* After a queued call that touches the object succeeded. */
static void touch(runtime_model *m, int object, int target)
{
    if (object >= 0 && target >= 0) {
        m->objects[object].owner = target;
        m->streams[target].has_work = true;
    }
}

/* ---- memory checks ---- */

/* Reads the object back (by a device-to-host copy, or directly) and
 * compares it with the model. */
static void verify_object(runtime_model *m, int i)
{
    fuzz_context *ctx = &m->ctx;
    memory_object *o = &m->objects[i];
    if (o->owner != DEFAULT_STREAM) {
        synchronize_slot(m, o->owner);
    }
    const unsigned char *actual = o->base;
    if (o->kind == OBJECT_DEVICE && o->size <= HOST_BUFFER_BYTES && one_in(ctx, 2)) {
        begin_call(ctx, "aclrtMemcpy(scratch, %zu, block %d, %zu, DEVICE_TO_HOST) to read it back", o->size, i,
                   o->size);
        if (!expect_code(ctx, "aclrtMemcpy",
                         aclrtMemcpy(m->scratch, o->size, o->base, o->size, ACL_MEMCPY_DEVICE_TO_HOST),
                         only(ACL_SUCCESS))) {
            return;
        }
        actual = m->scratch;
    }
    begin_call(ctx, "checking object %d (%zu bytes at %p) against the model", i, o->size, (void *)o->base);
    size_t at = 0;
    while (at < o->size && actual[at] == o->expected[at]) {
        ++at;
    }
    expect(ctx, at == o->size, "byte %zu is 0x%02x; expected 0x%02x", at, at < o->size ? actual[at] : 0,
           at < o->size ? o->expected[at] : 0);
    memcpy(o->expected, actual, o->size); /* a mismatch is reported once, not at every later check */
}

/* After a write the model cannot follow (a DEFAULT copy past a block's
 * end, which the header lets through): take the bytes as they are. */
static void reload_object(runtime_model *m, int i)
{
    memory_object *o = &m->objects[i];
    if (o->owner != DEFAULT_STREAM) {
        synchronize_slot(m, o->owner);
    }
    memcpy(o->expected, o->base, o->size);
}

/* Bytes aclrtMalloc's allocation has past the block's end: blocks are
 * rounded up to 64 bytes (2 MiB from 2 MiB up). A copy past a block's end
 * stays inside them, so a check that lets it through shows as a wrong code
 * here rather than as heap corruption. */
static size_t allocation_slack(size_t size)
{
    size_t unit = size >= ((size_t)2 << 20) ? ((size_t)2 << 20) : 64;
    return (size + unit - 1) / unit * unit - size;
}

/* ------------------------------------------------------------ memset and memcpy */

typedef enum { SIDE_DEVICE, SIDE_HOST, SIDE_EITHER } side_role;

static bool kind_is_valid(int kind)
{
    return kind >= ACL_MEMCPY_HOST_TO_HOST && kind <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
}

/* Where the kind says the destination or source lives. */
static side_role kind_side(int kind, bool destination)
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
        return SIDE_HOST;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
        return destination ? SIDE_DEVICE : SIDE_HOST;
    case ACL_MEMCPY_DEVICE_TO_HOST:
        return destination ? SIDE_HOST : SIDE_DEVICE;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        return SIDE_DEVICE;
    default:
        return SIDE_EITHER; /* DEFAULT infers it; invalid kinds are refused before */
    }
}

typedef struct {
    void *ptr;
    int object;  /* the model object it points into, or -1 */
    size_t room; /* bytes from ptr to the end of that object */
} pointer_pick;

static pointer_pick locate(const runtime_model *m, void *ptr)
{
    pointer_pick pick = {.ptr = ptr, .object = object_at(m, ptr, DEVICE_OBJECTS | HOST_OBJECTS)};
    if (pick.object >= 0) {
        const memory_object *o = &m->objects[pick.object];
        pick.room = o->size - (size_t)((unsigned char *)ptr - o->base);
    }
    return pick;
}

static pointer_pick point_into(runtime_model *m, int object)
{
    const memory_object *o = &m->objects[object];
    size_t offset = one_in(&m->ctx, 3) ? 0 : below(&m->ctx, o->size);
    return locate(m, o->base + offset);
}

/* Mostly memory where `role` says; sometimes NULL, the other memory, or,
 * where the library must refuse it as a device side, a stale or garbage
 * pointer (as a host side it would be read or written). */
static pointer_pick pick_side(runtime_model *m, side_role role, bool kind_valid)
{
    fuzz_context *ctx = &m->ctx;
    size_t r = below(ctx, 24);
    if (r == 0) {
        return (pointer_pick){.ptr = NULL, .object = -1};
    }
    if (r == 1 && (role == SIDE_DEVICE || !kind_valid)) {
        void *foreign = m->mode == MODEL_ALONE && m->stale_count > 0 && one_in(ctx, 2)
                            ? m->stale[below(ctx, (size_t)m->stale_count)]
                            : (void *)PICK(ctx, GARBAGE_ADDRESSES);
        pointer_pick pick = locate(m, foreign);
        if (pick.object < 0 || m->objects[pick.object].kind == OBJECT_DEVICE) {
            return pick;
        }
    }
    bool device = role == SIDE_DEVICE || (role == SIDE_EITHER && one_in(ctx, 2));
    if (r == 2 || r == 3) {
        device = !device; /* the other memory */
    }
    int object = random_object(m, device ? DEVICE_OBJECTS : HOST_OBJECTS);
    if (object < 0) {
        object = random_object(m, DEVICE_OBJECTS | HOST_OBJECTS);
    }
    return point_into(m, object);
}

/* A count, mostly one that fits every side; sometimes 0, or one that runs
 * past the end of a device block (inside its allocation slack). */
static size_t pick_count(runtime_model *m, const pointer_pick *sides, int side_count)
{
    fuzz_context *ctx = &m->ctx;
    if (one_in(ctx, 16)) {
        return 0;
    }
    size_t fit = MAX_COPY;
    for (int i = 0; i < side_count; ++i) {
        if (sides[i].object >= 0 && sides[i].room < fit) {
            fit = sides[i].room;
        }
    }
    size_t count = 1 + below(ctx, fit);
    int past = (int)below(ctx, (size_t)side_count);
    const pointer_pick *over = &sides[past];
    if (one_in(ctx, 6) && over->object >= 0 && m->objects[over->object].kind == OBJECT_DEVICE) {
        size_t slack = allocation_slack(m->objects[over->object].size);
        size_t longer = over->room + 1 + below(ctx, slack);
        bool others_fit = true;
        for (int i = 0; i < side_count; ++i) {
            others_fit &= i == past || sides[i].object < 0 || sides[i].room >= longer;
        }
        if (slack > 0 && others_fit) {
            return longer;
        }
    }
    return count;
}

/* destMax or maxCount: mostly the count; sometimes more, SIZE_MAX, or less. */
static size_t pick_capacity(runtime_model *m, size_t count)
{
    switch (below(&m->ctx, 10)) {
    case 0:
        return SIZE_MAX;
    case 1:
    case 2:
        return count + below(&m->ctx, 300);
    case 3:
        return count > 0 ? count - 1 - below(&m->ctx, count) : count;
    default:
        return count;
    }
}

/* Whether a device side of `count` bytes at ptr lies in one live block. */
static bool device_range_ok(const runtime_model *m, const void *ptr, size_t count)
{
    int block = object_at(m, ptr, DEVICE_OBJECTS);
    return block >= 0 && count <= locate(m, (void *)ptr).room;
}

/* The codes aclrtMemcpy(Async) may return for these arguments (acl_rt.h):
 * 100000 for NULL pointers, kinds outside 0..5 and unknown streams; 107000
 * for count > destMax, a device side without `count` bytes in one live
 * block, or a host side in a block. The header orders none of these, and
 * count 0 succeeds. *doubtful is set for a DEFAULT copy that runs past the
 * end of a block: the header lets DEFAULT "accept either" side and names
 * no extent check for it, so both 0 and 107000 are accepted. */
static code_set memcpy_codes(const runtime_model *m, const void *dst, size_t dest_max, const void *src, size_t count,
                             int kind, int stream, bool *doubtful)
{
    code_set refused = {.count = 0};
    *doubtful = false;
    if (dst == NULL || src == NULL || !kind_is_valid(kind) || stream == NOT_A_STREAM) {
        allow(&refused, ACL_ERROR_INVALID_PARAM);
    }
    if (count > dest_max) {
        allow(&refused, ACL_ERROR_RT_PARAM_INVALID);
    }
    const void *sides[2] = {dst, src};
    for (int d = 0; d < 2 && kind_is_valid(kind); ++d) {
        if (sides[d] == NULL) {
            continue;
        }
        bool in_block = object_at(m, sides[d], DEVICE_OBJECTS) >= 0;
        bool fits = device_range_ok(m, sides[d], count);
        switch (kind_side(kind, d == 0)) {
        case SIDE_DEVICE:
            if (!fits) {
                allow(&refused, ACL_ERROR_RT_PARAM_INVALID);
            }
            break;
        case SIDE_HOST:
            if (in_block) {
                allow(&refused, ACL_ERROR_RT_PARAM_INVALID);
            }
            break;
        case SIDE_EITHER:
            *doubtful |= in_block && !fits;
            break;
        }
    }
    code_set allowed = refused;
    if (refused.count == 0 || count == 0) {
        allow(&allowed, ACL_SUCCESS);
    }
    if (*doubtful) {
        allow(&allowed, ACL_ERROR_RT_PARAM_INVALID);
    }
    return allowed;
}

static const int INVALID_KINDS[] = {6, 7, -1, 8, 100, INT32_MIN};

static void memcpy_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int kind = one_in(ctx, 8) ? PICK(ctx, INVALID_KINDS) : (int)below(ctx, 6);
    bool valid_kind = kind_is_valid(kind);
    pointer_pick sides[2] = {pick_side(m, kind_side(kind, true), valid_kind),
                             pick_side(m, kind_side(kind, false), valid_kind)};
    size_t count = pick_count(m, sides, 2);
    /* A huge count only where a device side must refuse it before any byte moves. */
    if (one_in(ctx, 40) && valid_kind && kind != ACL_MEMCPY_DEFAULT && kind != ACL_MEMCPY_HOST_TO_HOST) {
        count = one_in(ctx, 2) ? SIZE_MAX : (size_t)1 << 62;
    }
    size_t dest_max = pick_capacity(m, count);
    bool async = one_in(ctx, 2);
    aclrtStream stream = async ? pick_stream(m) : NULL;
    int target = stream_slot_of(m, stream);
    bool doubtful = false;
    code_set allowed = memcpy_codes(m, sides[0].ptr, dest_max, sides[1].ptr, count, kind, target, &doubtful);
    if (allows(&allowed, ACL_SUCCESS) && count > 0) {
        for (int d = 0; d < 2; ++d) {
            if (sides[d].object >= 0) {
                order_before(m, sides[d].object, target);
            }
        }
    }
    const char *api = async ? "aclrtMemcpyAsync" : "aclrtMemcpy";
    begin_call(ctx, "%s(dst %p [object %d], destMax %zu, src %p [object %d], count %zu, kind %d, stream %d)", api,
               sides[0].ptr, sides[0].object, dest_max, sides[1].ptr, sides[1].object, count, kind, target);
    int code = async ? aclrtMemcpyAsync(sides[0].ptr, dest_max, sides[1].ptr, count, (aclrtMemcpyKind)kind, stream)
                     : aclrtMemcpy(sides[0].ptr, dest_max, sides[1].ptr, count, (aclrtMemcpyKind)kind);
    if (!expect_code(ctx, api, code, allowed) || count == 0) {
        return;
    }
    memory_object *dst = sides[0].object >= 0 ? &m->objects[sides[0].object] : NULL;
    bool modelled = dst != NULL && sides[1].object >= 0 && count <= sides[0].room && count <= sides[1].room;
    if (modelled) {
        const memory_object *src = &m->objects[sides[1].object];
        memmove(dst->expected + ((unsigned char *)sides[0].ptr - dst->base),
                src->expected + ((unsigned char *)sides[1].ptr - src->base), count);
    }
    touch(m, sides[0].object, target);
    touch(m, sides[1].object, target);
    if (dst != NULL && !modelled) {
        reload_object(m, sides[0].object);
    }
}

static void memset_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    pointer_pick where = pick_side(m, SIDE_DEVICE, true);
    size_t count = pick_count(m, &where, 1);
    size_t max_count = pick_capacity(m, count);
    int32_t value = (int32_t)draw(ctx);
    bool async = one_in(ctx, 2);
    aclrtStream stream = async ? pick_stream(m) : NULL;
    int target = stream_slot_of(m, stream);
    /* acl_rt.h: 100000 for NULL devPtr or an unknown stream; 107000 for
     * count > maxCount or bytes not in one live block; count 0 succeeds. */
    code_set allowed = {.count = 0};
    if (where.ptr == NULL || target == NOT_A_STREAM) {
        allow(&allowed, ACL_ERROR_INVALID_PARAM);
    }
    if (count > max_count || !device_range_ok(m, where.ptr, count)) {
        allow(&allowed, ACL_ERROR_RT_PARAM_INVALID);
    }
    if (allowed.count == 0 || count == 0) {
        allow(&allowed, ACL_SUCCESS);
        if (where.object >= 0 && count > 0) {
            order_before(m, where.object, target);
        }
    }
    const char *api = async ? "aclrtMemsetAsync" : "aclrtMemset";
    begin_call(ctx, "%s(devPtr %p [object %d], maxCount %zu, value %d, count %zu, stream %d)", api, where.ptr,
               where.object, max_count, (int)value, count, target);
    int code = async ? aclrtMemsetAsync(where.ptr, max_count, value, count, stream)
                     : aclrtMemset(where.ptr, max_count, value, count);
    if (expect_code(ctx, api, code, allowed) && count > 0 && where.object >= 0) {
        memory_object *o = &m->objects[where.object];
        memset(o->expected + ((unsigned char *)where.ptr - o->base), (unsigned char)value,
               count <= where.room ? count : where.room);
        touch(m, where.object, target);
    }
}

/* Host buffers get new random bytes (once nothing queued touches them). */
static void refill_step(runtime_model *m)
{
    int object = random_object(m, HOST_OBJECTS);
    if (object < 0) {
        return;
    }
    memory_object *o = &m->objects[object];
    if (o->owner != DEFAULT_STREAM) {
        synchronize_slot(m, o->owner);
    }
    for (size_t i = 0; i < o->size; ++i) {
        o->base[i] = o->expected[i] = (unsigned char)draw(&m->ctx);
    }
}

/* ------------------------------------------------------------ allocation */

static const int VALID_POLICY_BASES[] = {0, 1, 2, 3, 4, 5, 6, 7};
static const int POLICY_FLAGS[] = {0, ACL_MEM_TYPE_LOW_BAND_WIDTH, ACL_MEM_TYPE_HIGH_BAND_WIDTH,
                                   ACL_MEM_ACCESS_USER_SPACE_READONLY,
                                   ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY};
static const int INVALID_POLICIES[] = {8, 0xFF, 0x200, 0x2000, -1, INT32_MIN, ACL_MEM_TYPE_LOW_BAND_WIDTH | 9};
/* More than any host has: aclrtMalloc must fail with 207001. */
static const size_t HUGE_SIZES[] = {(size_t)1 << 62, SIZE_MAX, SIZE_MAX - 63, (size_t)1 << 50, SIZE_MAX / 2 + 1};

static size_t pick_block_size(fuzz_context *ctx)
{
    size_t r = below(ctx, 100);
    if (r < 60) {
        return 1 + below(ctx, 512);
    }
    if (r < 97) {
        return 513 + below(ctx, 8192);
    }
    return ((size_t)2 << 20) + 1 + below(ctx, 4096); /* the huge-page path */
}

static void malloc_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    if (count_objects(m, DEVICE_OBJECTS) >= MAX_DEVICE_BLOCKS || count_objects(m, ~0u) >= MAX_OBJECTS) {
        return;
    }
    size_t size = pick_block_size(ctx);
    bool huge = false;
    if (one_in(ctx, 10)) {
        size = 0;
    } else if (one_in(ctx, 10)) {
        size = PICK(ctx, HUGE_SIZES);
        huge = true;
    }
    bool bad_policy = one_in(ctx, 8);
    int policy = bad_policy ? PICK(ctx, INVALID_POLICIES) : PICK(ctx, VALID_POLICY_BASES) | PICK(ctx, POLICY_FLAGS);
    bool null_out = one_in(ctx, 16);
    bool align32 = one_in(ctx, 3);
    /* acl_rt.h: 100000 for NULL devPtr, size 0 or an unknown policy; 207001 out of memory. */
    code_set allowed = {.count = 0};
    if (null_out || size == 0 || bad_policy) {
        allow(&allowed, ACL_ERROR_INVALID_PARAM);
    } else if (huge) {
        allow(&allowed, ACL_ERROR_RT_MEMORY_ALLOCATION);
    } else {
        allow(&allowed, ACL_SUCCESS);
    }
    void *const untouched = (void *)&m->scratch;
    void *block = untouched;
    const char *api = align32 ? "aclrtMallocAlign32" : "aclrtMalloc";
    begin_call(ctx, "%s(%s, %zu, policy 0x%x)", api, null_out ? "NULL" : "&block", size, (unsigned)policy);
    int code = align32 ? aclrtMallocAlign32(null_out ? NULL : &block, size, (aclrtMemMallocPolicy)policy)
                       : aclrtMalloc(null_out ? NULL : &block, size, (aclrtMemMallocPolicy)policy);
    if (!expect_code(ctx, api, code, allowed)) {
        expect(ctx, block == untouched, "a failed call changed *devPtr to %p", block);
        return;
    }
    if (null_out) {
        return;
    }
    bool fresh = object_at(m, block, DEVICE_OBJECTS) < 0 && object_at(m, (char *)block + size - 1, DEVICE_OBJECTS) < 0;
    expect(ctx, ((uintptr_t)block % 64) == 0 && fresh, "block %p is not 64-byte aligned or overlaps a live block",
           block);
    add_object(m, OBJECT_DEVICE, block, size);
}

/* aclrtFree of a live block (it may have work queued: the call waits), a
 * freed one, an interior pointer, host memory, NULL or garbage. */
static void free_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    void *pointer = NULL;
    size_t r = below(ctx, 10);
    int block = random_object(m, DEVICE_OBJECTS);
    if (r < 5 && block >= 0) {
        pointer = m->objects[block].base;
    } else if (r < 7 && block >= 0 && m->objects[block].size > 1) {
        pointer = m->objects[block].base + 1 + below(ctx, m->objects[block].size - 1);
    } else if (r < 9) {
        pointer = foreign_pointer(m);
    }
    int target = object_at(m, pointer, DEVICE_OBJECTS);
    bool live_block = target >= 0 && m->objects[target].base == pointer;
    if (live_block) {
        settle(m, stream_bit(m->objects[target].owner));
    }
    /* acl_rt.h: 100000 for NULL or anything but the start of a live block. */
    begin_call(ctx, "aclrtFree(%p%s)", pointer, live_block ? ", a live block" : "");
    if (expect_code(ctx, "aclrtFree", aclrtFree(pointer), only(live_block ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) &&
        live_block) {
        drop_object(m, target);
        remember_stale(m, pointer);
    }
}

static int live_pinned_or_extra(const runtime_model *m, const void *pointer, bool *is_extra)
{
    for (int i = 0; i < MAX_EXTRA_HOST; ++i) {
        if (m->extra_host[i] != NULL && m->extra_host[i] == pointer) {
            *is_extra = true;
            return i;
        }
    }
    *is_extra = false;
    int object = object_at(m, pointer, 1u << OBJECT_PINNED);
    return object >= 0 && m->objects[object].base == pointer ? object : -1;
}

/* aclrtMallocHost (size 0, huge, NULL out) or aclrtFreeHost of its
 * blocks, an interior pointer, device or malloc'd memory, NULL or garbage. */
static void host_alloc_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int slot = -1;
    for (int i = 0; i < MAX_EXTRA_HOST; ++i) {
        if (m->extra_host[i] == NULL) {
            slot = i;
        }
    }
    if (one_in(ctx, 2) && slot >= 0) {
        bool huge = one_in(ctx, 8);
        size_t size = huge ? PICK(ctx, HUGE_SIZES) : one_in(ctx, 8) ? 0 : 1 + below(ctx, 4096);
        bool null_out = one_in(ctx, 12);
        /* acl_rt.h: 100000 for NULL or size 0; 207001 out of memory. */
        code_set allowed = only(null_out || size == 0 ? ACL_ERROR_INVALID_PARAM
                                : huge                ? ACL_ERROR_RT_MEMORY_ALLOCATION
                                                      : ACL_SUCCESS);
        void *const untouched = (void *)&m->scratch;
        void *host = untouched;
        begin_call(ctx, "aclrtMallocHost(%s, %zu)", null_out ? "NULL" : "&host", size);
        if (expect_code(ctx, "aclrtMallocHost", aclrtMallocHost(null_out ? NULL : &host, size), allowed)) {
            expect(ctx, (uintptr_t)host % 64 == 0, "host block %p is not 64-byte aligned", host);
            m->extra_host[slot] = host;
        } else {
            expect(ctx, host == untouched, "a failed call changed *hostPtr to %p", host);
        }
        return;
    }
    void *pointer;
    size_t r = below(ctx, 6);
    int extra = (int)below(ctx, MAX_EXTRA_HOST);
    if (r < 3 && m->extra_host[extra] != NULL) {
        pointer = m->extra_host[extra];
    } else if (r == 3 && m->extra_host[extra] != NULL) {
        pointer = (char *)m->extra_host[extra] + 1; /* not what aclrtMallocHost returned */
    } else if (r == 4) {
        pointer = NULL;
    } else {
        pointer = foreign_pointer(m);
    }
    bool is_extra = false;
    int live = live_pinned_or_extra(m, pointer, &is_extra);
    if (live >= 0 && !is_extra) {
        return; /* a buffer the copies use: freed at the end of the episode */
    }
    begin_call(ctx, "aclrtFreeHost(%p)", pointer);
    if (expect_code(ctx, "aclrtFreeHost", aclrtFreeHost(pointer),
                    only(live >= 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) &&
        live >= 0) {
        m->extra_host[live] = NULL;
        remember_stale(m, pointer);
    }
}

/* ------------------------------------------------------------ streams */

static const uint32_t STREAM_FLAGS[] = {0, ACL_STREAM_FAST_LAUNCH, ACL_STREAM_FAST_SYNC,
                                        ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE, 0x10, 0xFFFFFFFFu};
static const int32_t TIMEOUTS[] = {-1, 0, 1, 2, 50, -2, INT32_MIN};

static int free_stream_slot(const runtime_model *m)
{
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if (m->streams[i].handle == NULL) {
            return i;
        }
    }
    return -1;
}

static void create_stream(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int slot = free_stream_slot(m);
    bool null_out = slot < 0 || one_in(ctx, 12);
    bool config = one_in(ctx, 3);
    uint32_t priority = (uint32_t)draw(ctx), flag = PICK(ctx, STREAM_FLAGS);
    /* acl_rt.h: priority and flag are accepted and have no effect; flag bits
     * outside ACL_STREAM_* are not documented either way. */
    code_set allowed = only(null_out ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS);
    if (config && !null_out && (flag & ~0xFu) != 0) {
        allow(&allowed, ACL_ERROR_INVALID_PARAM);
    }
    aclrtStream created = NULL;
    const char *api = config ? "aclrtCreateStreamWithConfig" : "aclrtCreateStream";
    begin_call(ctx, "%s(%s, priority %u, flag 0x%x)", api, null_out ? "NULL" : "&stream", priority, flag);
    aclrtStream *out = null_out ? NULL : &created;
    int code = config ? aclrtCreateStreamWithConfig(out, priority, flag) : aclrtCreateStream(out);
    if (expect_code(ctx, api, code, allowed) && !null_out) {
        m->streams[slot] = (stream_slot){.handle = created};
    }
}

static void destroy_stream(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int pick = random_stream_slot(m);
    aclrtStream handle = pick >= 0 && !one_in(ctx, 4) ? m->streams[pick].handle
                         : one_in(ctx, 3)            ? NULL
                                                     : foreign_pointer(m);
    int slot = stream_slot_of(m, handle);
    if (slot >= 0 && m->streams[slot].persistent) {
        return;
    }
    if (slot >= 0) {
        settle(m, stream_bit(slot)); /* it finishes its queue first */
    }
    begin_call(ctx, "aclrtDestroyStream(%p [stream %d]%s)", handle, slot,
               slot >= 0 && m->streams[slot].has_work ? ", work queued" : "");
    if (expect_code(ctx, "aclrtDestroyStream", aclrtDestroyStream(handle),
                    only(slot >= 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) &&
        slot >= 0) {
        mark_drained(m, slot);
        m->streams[slot].handle = NULL;
        remember_stale(m, handle);
    }
}

static void synchronize_stream_step(runtime_model *m, bool with_timeout)
{
    fuzz_context *ctx = &m->ctx;
    aclrtStream handle = pick_stream(m);
    int slot = stream_slot_of(m, handle);
    int32_t timeout = with_timeout ? PICK(ctx, TIMEOUTS) : -1;
    const stream_slot *s = slot >= 0 ? &m->streams[slot] : NULL;
    if (s != NULL && s->maybe_gated && timeout > 1) {
        timeout = 1; /* it would only wait out the timeout */
    }
    if (slot >= 0 && timeout == -1) {
        settle(m, stream_bit(slot));
    }
    /* acl_rt.h: 100000 for a bad handle or a timeout below -1; 507046 when
     * work is still queued at the timeout: certain for a held stream,
     * possible for one with work queued. */
    code_set allowed = {.count = 0};
    if (slot == NOT_A_STREAM || timeout < -1) {
        allow(&allowed, ACL_ERROR_INVALID_PARAM);
    } else if (s != NULL && s->gated && timeout >= 0) {
        allow(&allowed, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    } else {
        allow(&allowed, ACL_SUCCESS);
        if (s != NULL && timeout >= 0 && (s->has_work || s->shared)) {
            allow(&allowed, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
        }
    }
    const char *api = with_timeout ? "aclrtSynchronizeStreamWithTimeout" : "aclrtSynchronizeStream";
    begin_call(ctx, "%s(%p [stream %d], timeout %d)", api, handle, slot, (int)timeout);
    int code = with_timeout ? aclrtSynchronizeStreamWithTimeout(handle, timeout) : aclrtSynchronizeStream(handle);
    /* Only a wait without a limit drains the stream in the model: what a
     * timed one finds depends on timing, and the episode must replay. */
    if (expect_code(ctx, api, code, allowed) && slot >= 0 && timeout == -1) {
        mark_drained(m, slot);
    }
}

static void query_stream_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    aclrtStream handle = pick_stream(m);
    int slot = stream_slot_of(m, handle);
    bool null_status = one_in(ctx, 10);
    const aclrtStreamStatus untouched = (aclrtStreamStatus)77;
    aclrtStreamStatus status = untouched;
    begin_call(ctx, "aclrtStreamQuery(%p [stream %d], %s)", handle, slot, null_status ? "NULL" : "&status");
    int code = aclrtStreamQuery(handle, null_status ? NULL : &status);
    if (!expect_code(ctx, "aclrtStreamQuery", code,
                     only(null_status || slot == NOT_A_STREAM ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS))) {
        expect(ctx, status == untouched, "a failed call changed *status to %d", (int)status);
        return;
    }
    /* Exact for the default stream, a held stream and a drained one. */
    const stream_slot *s = slot >= 0 ? &m->streams[slot] : NULL;
    bool complete = status == ACL_STREAM_STATUS_COMPLETE, not_ready = status == ACL_STREAM_STATUS_NOT_READY;
    if (s == NULL) {
        expect(ctx, complete, "status %d; expected COMPLETE for the default stream", (int)status);
    } else if (s->gated) {
        expect(ctx, not_ready, "status %d; expected NOT_READY for a stream held by an event", (int)status);
    } else if (!s->has_work && !s->shared) {
        expect(ctx, complete, "status %d; expected COMPLETE for a stream with nothing queued", (int)status);
    } else {
        expect(ctx, complete || not_ready, "status %d; expected COMPLETE or NOT_READY", (int)status);
    }
}

static void synchronize_stream(runtime_model *m) { synchronize_stream_step(m, false); }
static void synchronize_stream_with_timeout(runtime_model *m) { synchronize_stream_step(m, true); }

/* ------------------------------------------------------------ events */

static const uint32_t EVENT_FLAGS[] = {0, ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE, ACL_EVENT_CAPTURE_STREAM_PROGRESS,
                                       ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY,
                                       ACL_EVENT_EXTERNAL, 0x40, 0xFFFFFFFFu};
enum { KNOWN_EVENT_FLAGS = 0x3Bu };

/* What the model knows of an event slot or the gate (clear, nothing queued). */
static event_slot event_state(const runtime_model *m, int e)
{
    return e >= 0 ? m->events[e] : (event_slot){.handle = m->gate, .flag = FLAG_CLEAR};
}

/* A record or reset queued on `slot` (or run on the default stream) sets
 * or clears the flag once every queued marker has run, unless a marker of
 * the other kind queued on another stream may run after it. */
static void note_marker(runtime_model *m, int e, int slot, bool record)
{
    event_slot *ev = &m->events[e];
    unsigned *mine = record ? &ev->records : &ev->resets;
    unsigned others = (record ? ev->resets : ev->records) & ~stream_bit(slot);
    ev->flag = others ? FLAG_UNKNOWN : record ? FLAG_SET : FLAG_CLEAR;
    *mine |= stream_bit(slot);
    if (slot >= 0) {
        m->streams[slot].has_work = true;
    }
}

/* A wait for it ends without the gate opening: its last marker was a
 * record, and no reset is queued. */
static bool waitable(const runtime_model *m, int e)
{
    return e >= 0 && m->events[e].flag == FLAG_SET && m->events[e].resets == 0;
}

static void create_event(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int slot = -1;
    for (int i = 0; i < MAX_EVENTS; ++i) {
        if (m->events[i].handle == NULL) {
            slot = i;
        }
    }
    bool null_out = slot < 0 || one_in(ctx, 12);
    int variant = (int)below(ctx, 3);
    uint32_t flag = PICK(ctx, EVENT_FLAGS);
    static const char *const APIS[] = {"aclrtCreateEvent", "aclrtCreateEventWithFlag", "aclrtCreateEventExWithFlag"};
    code_set allowed = only(null_out ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS);
    if (variant > 0 && !null_out && (flag & ~KNOWN_EVENT_FLAGS) != 0) {
        allow(&allowed, ACL_ERROR_INVALID_PARAM); /* bits outside ACL_EVENT_*: not documented either way */
    }
    aclrtEvent created = NULL;
    aclrtEvent *out = null_out ? NULL : &created;
    begin_call(ctx, "%s(%s, flag 0x%x)", APIS[variant], null_out ? "NULL" : "&event", flag);
    int code = variant == 0   ? aclrtCreateEvent(out)
               : variant == 1 ? aclrtCreateEventWithFlag(out, flag)
                              : aclrtCreateEventExWithFlag(out, flag);
    if (expect_code(ctx, APIS[variant], code, allowed) && !null_out) {
        m->events[slot] = (event_slot){.handle = created, .flag = FLAG_CLEAR};
    }
}

static void destroy_event(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    aclrtEvent handle = pick_event(m);
    int e = event_slot_of(m, handle);
    /* acl_rt.h: 100000 for NULL or an unknown event; queued markers keep a
     * destroyed event alive, so this never waits. */
    begin_call(ctx, "aclrtDestroyEvent(%p [event %d])", handle, e);
    if (expect_code(ctx, "aclrtDestroyEvent", aclrtDestroyEvent(handle),
                    only(e >= 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) &&
        e >= 0) {
        m->events[e] = (event_slot){.handle = NULL};
        remember_stale(m, handle);
    }
}

static void record_or_reset(runtime_model *m, bool record)
{
    fuzz_context *ctx = &m->ctx;
    aclrtEvent handle = pick_event(m);
    aclrtStream stream = pick_stream(m);
    int e = event_slot_of(m, handle), slot = stream_slot_of(m, stream);
    const char *api = record ? "aclrtRecordEvent" : "aclrtResetEvent";
    begin_call(ctx, "%s(%p [event %d], %p [stream %d])", api, handle, e, stream, slot);
    int code = record ? aclrtRecordEvent(handle, stream) : aclrtResetEvent(handle, stream);
    bool valid = e >= 0 && slot != NOT_A_STREAM;
    if (expect_code(ctx, api, code, only(valid ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) && valid) {
        note_marker(m, e, slot, record);
    }
}

/* aclrtStreamWaitEvent only where it cannot wait forever: the event's last
 * marker is a record (pending or done), or an argument is invalid. */
static void wait_event_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    aclrtEvent handle = pick_event(m);
    aclrtStream stream = pick_stream(m);
    int e = event_slot_of(m, handle), slot = stream_slot_of(m, stream);
    for (int i = 0; i < MAX_EVENTS && e >= 0 && !waitable(m, e); ++i) {
        if (m->events[i].handle != NULL && waitable(m, i)) {
            e = i; /* another event this wait can use */
            handle = m->events[i].handle;
        }
    }
    bool valid = e >= 0 && slot != NOT_A_STREAM;
    if (valid && !waitable(m, e)) {
        return;
    }
    if (valid && slot == DEFAULT_STREAM) {
        settle(m, m->events[e].records); /* the calling thread waits for them */
    }
    begin_call(ctx, "aclrtStreamWaitEvent(%p [stream %d], %p [event %d])", stream, slot, handle, e);
    if (!expect_code(ctx, "aclrtStreamWaitEvent", aclrtStreamWaitEvent(stream, handle),
                     only(valid ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) ||
        !valid) {
        return;
    }
    if (slot >= 0) {
        m->streams[slot].has_work = true;
        m->streams[slot].maybe_gated |= any_maybe_gated(m, m->events[e].records);
    } else {
        m->events[e].records = 0; /* the thread waited for every record queued so far */
    }
}

static void synchronize_event_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    aclrtEvent handle = pick_event(m);
    int e = event_slot_of(m, handle);
    if (e >= 0) {
        settle(m, m->events[e].records);
    }
    begin_call(ctx, "aclrtSynchronizeEvent(%p [event %d])", handle, e);
    if (expect_code(ctx, "aclrtSynchronizeEvent", aclrtSynchronizeEvent(handle),
                    only(e >= 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) &&
        e >= 0) {
        m->events[e].records = 0;
    }
}

static void query_event_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    aclrtEvent handle = one_in(ctx, 8) ? m->gate : pick_event(m);
    int e = event_slot_of(m, handle);
    bool null_status = one_in(ctx, 10);
    bool valid = e != NOT_AN_EVENT && handle != NULL && !null_status;
    const aclrtEventRecordedStatus untouched = (aclrtEventRecordedStatus)77;
    aclrtEventRecordedStatus status = untouched;
    begin_call(ctx, "aclrtQueryEventStatus(%p [event %d], %s)", handle, e, null_status ? "NULL" : "&status");
    if (!expect_code(ctx, "aclrtQueryEventStatus", aclrtQueryEventStatus(handle, null_status ? NULL : &status),
                     only(valid ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM))) {
        expect(ctx, status == untouched, "a failed call changed *status to %d", (int)status);
        return;
    }
    /* Exact once nothing is queued: COMPLETE when recorded, NOT_READY when
     * never recorded or reset. */
    event_slot ev = event_state(m, e);
    bool complete = status == ACL_EVENT_RECORDED_STATUS_COMPLETE;
    if (ev.records == 0 && ev.resets == 0 && ev.flag != FLAG_UNKNOWN) {
        expect(ctx, complete == (ev.flag == FLAG_SET), "status %d; expected %s", (int)status,
               ev.flag == FLAG_SET ? "COMPLETE" : "NOT_READY");
    } else {
        expect(ctx, complete || status == ACL_EVENT_RECORDED_STATUS_NOT_READY, "status %d is no status", (int)status);
    }
}

/* The codes aclrtEventElapsedTime may give for one event: 0 once recorded,
 * 107006 when not recorded, 507006 while a record is queued. */
static void allow_elapsed_codes(code_set *set, const event_slot *ev, bool *may_succeed)
{
    bool pending = ev->records != 0 || ev->resets != 0;
    if (ev->records != 0) {
        allow(set, ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    }
    if (pending || ev->flag != FLAG_SET) {
        allow(set, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    }
    *may_succeed &= pending || ev->flag != FLAG_CLEAR;
}

static void elapsed_time_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    aclrtEvent start = one_in(ctx, 8) ? m->gate : pick_event(m);
    aclrtEvent end = one_in(ctx, 5) ? start : pick_event(m);
    int e0 = event_slot_of(m, start), e1 = event_slot_of(m, end);
    bool null_ms = one_in(ctx, 12);
    code_set allowed = {.count = 0};
    bool may_succeed = true;
    if (null_ms || e0 == NOT_AN_EVENT || e1 == NOT_AN_EVENT) {
        allow(&allowed, ACL_ERROR_INVALID_PARAM);
    } else {
        event_slot first = event_state(m, e0), second = event_state(m, e1);
        allow_elapsed_codes(&allowed, &first, &may_succeed);
        allow_elapsed_codes(&allowed, &second, &may_succeed);
        if (may_succeed) {
            allow(&allowed, ACL_SUCCESS);
        }
    }
    const float untouched = -12345.0f;
    float ms = untouched;
    begin_call(ctx, "aclrtEventElapsedTime(%s, %p [event %d], %p [event %d])", null_ms ? "NULL" : "&ms", start, e0,
               end, e1);
    if (expect_code(ctx, "aclrtEventElapsedTime", aclrtEventElapsedTime(null_ms ? NULL : &ms, start, end), allowed)) {
        expect(ctx, ms == ms && ms > -1e9f && ms < 1e9f && (start != end || ms == 0.0f),
               "%g ms; expected a finite time (0 from an event to itself)", (double)ms);
    } else {
        expect(ctx, ms == untouched, "a failed call changed *ms to %g", (double)ms);
    }
}

static void record_event(runtime_model *m) { record_or_reset(m, true); }
static void reset_event(runtime_model *m) { record_or_reset(m, false); }

/* ------------------------------------------------------------ the gate */

/* Holds a stream on the gate. Half the time it was drained first, and a
 * memset is queued behind the wait: the stream must then report
 * NOT_READY, time out, and leave the block as it was. */
static void hold_stream_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int slot = random_stream_slot(m);
    if (slot < 0 || m->gate == NULL) {
        return;
    }
    int block = random_object(m, DEVICE_OBJECTS);
    bool probe = block >= 0 && one_in(ctx, 2) && !m->streams[slot].maybe_gated;
    if (probe) {
        int owner = m->objects[block].owner;
        if (owner != DEFAULT_STREAM && owner != slot && m->streams[owner].maybe_gated) {
            probe = false;
        } else {
            if (owner != DEFAULT_STREAM && owner != slot) {
                synchronize_slot(m, owner);
            }
            synchronize_slot(m, slot);
        }
    }
    aclrtStream stream = m->streams[slot].handle;
    begin_call(ctx, "aclrtStreamWaitEvent(stream %d, gate) to hold it", slot);
    expect_code(ctx, "aclrtStreamWaitEvent", aclrtStreamWaitEvent(stream, m->gate), only(ACL_SUCCESS));
    m->streams[slot].gated = m->streams[slot].maybe_gated = m->streams[slot].has_work = true;
    if (!probe) {
        return;
    }
    memory_object *o = &m->objects[block];
    unsigned char *before = xmalloc(o->size);
    memcpy(before, o->base, o->size);
    int value = (int)below(ctx, 256);
    begin_call(ctx, "aclrtMemsetAsync(block %d, %zu, %d, %zu, held stream %d)", block, o->size, value, o->size, slot);
    if (expect_code(ctx, "aclrtMemsetAsync", aclrtMemsetAsync(o->base, o->size, value, o->size, stream),
                    only(ACL_SUCCESS))) {
        memset(o->expected, value, o->size);
        touch(m, block, slot);
    }
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    begin_call(ctx, "aclrtStreamQuery(held stream %d)", slot);
    expect_code(ctx, "aclrtStreamQuery", aclrtStreamQuery(stream, &status), only(ACL_SUCCESS));
    expect(ctx, status == ACL_STREAM_STATUS_NOT_READY, "status %d; expected NOT_READY", (int)status);
    begin_call(ctx, "aclrtSynchronizeStreamWithTimeout(held stream %d, 0)", slot);
    expect_code(ctx, "aclrtSynchronizeStreamWithTimeout", aclrtSynchronizeStreamWithTimeout(stream, 0),
                only(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT));
    begin_call(ctx, "reading block %d while its memset waits behind the gate", block);
    expect(ctx, memcmp(before, o->base, o->size) == 0, "the memset ran before the gate opened");
    free(before);
}

static void gate_step(runtime_model *m)
{
    if (m->gate == NULL) {
        return;
    }
    if (one_in(&m->ctx, 3) && any_maybe_gated(m, ~0u)) {
        open_gate(m);
    } else {
        hold_stream_step(m);
    }
}

/* ------------------------------------------------------------ devices, contexts, init, information */

static const int32_t DEVICE_IDS[] = {0, 0, 0, 1, -1, 7, INT32_MAX, INT32_MIN};

static void synchronize_device(runtime_model *m)
{
    settle(m, ~0u);
    begin_call(&m->ctx, "aclrtSynchronizeDevice()");
    expect_code(&m->ctx, "aclrtSynchronizeDevice", aclrtSynchronizeDevice(), only(ACL_SUCCESS));
    mark_all_drained(m);
}

static void device_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int32_t id = PICK(ctx, DEVICE_IDS);
    switch (below(ctx, 5)) {
    case 0:
        begin_call(ctx, "aclrtSetDevice(%d)", (int)id);
        if (expect_code(ctx, "aclrtSetDevice", aclrtSetDevice(id),
                        only(id == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID))) {
            m->device_set = true;
        }
        break;
    case 1:
        if (id == 0) {
            settle(m, ~0u); /* it synchronizes the device */
        }
        begin_call(ctx, "aclrtResetDevice(%d)", (int)id);
        if (expect_code(ctx, "aclrtResetDevice", aclrtResetDevice(id),
                        only(id == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID))) {
            m->device_set = false;
            mark_all_drained(m);
            /* Memory needs a current device (CANN's 107002 without one); then
             * the thread gets its device back, as the other steps assume. */
            void *probe = NULL;
            begin_call(ctx, "aclrtMalloc(&probe, 64) with%s a current context",
                       m->current_context != NULL ? "" : "out");
            expect_code(ctx, "aclrtMalloc", aclrtMalloc(&probe, 64, ACL_MEM_MALLOC_HUGE_FIRST),
                        only(m->current_context != NULL ? ACL_SUCCESS : ACL_ERROR_RT_CONTEXT_NULL));
            if (probe != NULL) {
                aclrtFree(probe);
            }
            begin_call(ctx, "aclrtSetDevice(0) to restore the thread's device");
            if (expect_code(ctx, "aclrtSetDevice", aclrtSetDevice(0), only(ACL_SUCCESS))) {
                m->device_set = true;
            }
        }
        break;
    case 2: {
        bool null_out = one_in(ctx, 5);
        int32_t device = -77;
        bool has_device = m->device_set || m->current_context != NULL;
        begin_call(ctx, "aclrtGetDevice(%s)", null_out ? "NULL" : "&device");
        if (expect_code(ctx, "aclrtGetDevice", aclrtGetDevice(null_out ? NULL : &device),
                        only(null_out ? ACL_ERROR_INVALID_PARAM
                             : has_device ? ACL_SUCCESS
                                          : ACL_ERROR_RT_CONTEXT_NULL))) {
            expect(ctx, device == 0, "device %d; expected 0", (int)device);
        } else {
            expect(ctx, device == -77, "a failed call changed *deviceId to %d", (int)device);
        }
        break;
    }
    case 3: {
        bool null_out = one_in(ctx, 4);
        uint32_t count = 77;
        begin_call(ctx, "aclrtGetDeviceCount(%s)", null_out ? "NULL" : "&count");
        if (expect_code(ctx, "aclrtGetDeviceCount", aclrtGetDeviceCount(null_out ? NULL : &count),
                        only(null_out ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS))) {
            expect(ctx, count == 1, "%u devices; expected 1", count);
        }
        break;
    }
    default:
        synchronize_device(m);
        break;
    }
}

static int context_slot_of(const runtime_model *m, aclrtContext handle)
{
    for (int i = 0; handle != NULL && i < MAX_CONTEXTS; ++i) {
        if (m->contexts[i] == handle) {
            return i;
        }
    }
    return -1;
}

static aclrtContext pick_context(runtime_model *m)
{
    aclrtContext live = m->contexts[below(&m->ctx, MAX_CONTEXTS)];
    size_t r = below(&m->ctx, 8);
    if (r < 4 && live != NULL) {
        return live;
    }
    if (r < 6 && m->default_context != NULL) {
        return m->default_context;
    }
    return r == 6 ? NULL : foreign_pointer(m);
}

static void destroy_context(runtime_model *m, aclrtContext handle)
{
    fuzz_context *ctx = &m->ctx;
    int slot = context_slot_of(m, handle);
    /* acl_rt.h: 100000 for NULL or a handle aclrtCreateContext did not return. */
    begin_call(ctx, "aclrtDestroyContext(%p [context %d])", handle, slot);
    if (expect_code(ctx, "aclrtDestroyContext", aclrtDestroyContext(handle),
                    only(slot >= 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM)) &&
        slot >= 0) {
        m->contexts[slot] = NULL;
        if (m->current_context == handle) {
            m->current_context = NULL;
        }
        remember_stale(m, handle);
    }
}

static void context_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    switch (below(ctx, 4)) {
    case 0: {
        int slot = -1;
        for (int i = 0; i < MAX_CONTEXTS; ++i) {
            slot = m->contexts[i] == NULL ? i : slot;
        }
        if (slot < 0) {
            destroy_context(m, m->contexts[below(ctx, MAX_CONTEXTS)]);
            return;
        }
        int32_t id = one_in(ctx, 4) ? PICK(ctx, DEVICE_IDS) : 0;
        bool null_out = one_in(ctx, 8);
        code_set allowed = {.count = 0};
        if (null_out) {
            allow(&allowed, ACL_ERROR_INVALID_PARAM);
        }
        if (id != 0) {
            allow(&allowed, ACL_ERROR_RT_INVALID_DEVICEID);
        }
        if (allowed.count == 0) {
            allow(&allowed, ACL_SUCCESS);
        }
        aclrtContext created = NULL;
        begin_call(ctx, "aclrtCreateContext(%s, %d)", null_out ? "NULL" : "&context", (int)id);
        if (expect_code(ctx, "aclrtCreateContext", aclrtCreateContext(null_out ? NULL : &created, id), allowed)) {
            m->contexts[slot] = m->current_context = created; /* it becomes current */
            m->device_set = true;
        }
        break;
    }
    case 1:
        destroy_context(m, pick_context(m));
        break;
    case 2: {
        aclrtContext handle = pick_context(m);
        bool valid = handle != NULL && (context_slot_of(m, handle) >= 0 || handle == m->default_context);
        begin_call(ctx, "aclrtSetCurrentContext(%p)", handle);
        if (expect_code(ctx, "aclrtSetCurrentContext", aclrtSetCurrentContext(handle),
                        only(valid ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM))) {
            m->current_context = handle;
            m->device_set = true;
        }
        break;
    }
    default: {
        bool null_out = one_in(ctx, 6);
        aclrtContext const untouched = (aclrtContext)&m->scratch;
        aclrtContext current = untouched;
        bool has_one = m->current_context != NULL || m->device_set;
        begin_call(ctx, "aclrtGetCurrentContext(%s)", null_out ? "NULL" : "&context");
        if (!expect_code(ctx, "aclrtGetCurrentContext", aclrtGetCurrentContext(null_out ? NULL : &current),
                         only(null_out ? ACL_ERROR_INVALID_PARAM
                              : has_one ? ACL_SUCCESS
                                        : ACL_ERROR_RT_CONTEXT_NULL))) {
            expect(ctx, current == untouched, "a failed call changed *context to %p", current);
            break;
        }
        if (m->current_context == NULL && m->default_context == NULL) {
            m->default_context = current; /* aclrtSetDevice's context, first seen here */
        }
        aclrtContext expected = m->current_context != NULL ? m->current_context : m->default_context;
        expect(ctx, current == expected, "context %p; expected %p", current, expected);
        break;
    }
    }
}

/* aclFinalize: its leak report must list exactly the model's live objects. */
static int live_tensors(const runtime_model *m)
{
    int n = 0;
    for (int i = 0; i < MAX_MODEL_TENSORS; ++i) {
        n += m->tensors[i] != NULL;
    }
    return n;
}

static void finalize_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    settle(m, ~0u); /* it synchronizes every stream */
    leak_report report;
    begin_call(ctx, "aclFinalize() with %ld reference(s)", m->init_count);
    int code = finalize_and_read_report(&report);
    if (!expect_code(ctx, "aclFinalize", code, only(m->init_count > 0 ? ACL_SUCCESS : ACL_ERROR_REPEAT_FINALIZE))) {
        expect(ctx, !report.found, "a failed aclFinalize wrote a leak report");
        return;
    }
    expect_report(ctx, &report, count_objects(m, DEVICE_OBJECTS), live_tensors(m), live_streams(m), live_events(m));
    m->init_count = 0;
    mark_all_drained(m);
}

static void init_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    switch (below(ctx, 4)) {
    case 0: {
        static const char *const MISSING = "/nonexistent/aclnn_emu/acl.json";
        const char *paths[] = {NULL, m->config_path, MISSING, ""};
        const char *path = PICK(ctx, paths);
        /* acl.h: 100002 when already initialised (the count still goes up);
         * 100003 for a path that cannot be read; "" is not documented. */
        code_set allowed = only(path == MISSING ? ACL_ERROR_INVALID_FILE
                                : m->init_count > 0 ? ACL_ERROR_REPEAT_INITIALIZE
                                                    : ACL_SUCCESS);
        if (path != NULL && path[0] == '\0') {
            allow(&allowed, ACL_ERROR_INVALID_FILE);
        }
        begin_call(ctx, "aclInit(%s%s%s) with %ld reference(s)", path ? "\"" : "", path ? path : "NULL",
                   path ? "\"" : "", m->init_count);
        int code = aclInit(path);
        expect_code(ctx, "aclInit", code, allowed);
        if (code == ACL_SUCCESS || code == ACL_ERROR_REPEAT_INITIALIZE) {
            ++m->init_count;
        }
        break;
    }
    case 1: {
        if (m->init_count == 1) {
            settle(m, ~0u); /* it finalises, which may synchronize every stream */
        }
        bool null_out = one_in(ctx, 2);
        uint64_t left = 777;
        begin_call(ctx, "aclFinalizeReference(%s) with %ld reference(s)", null_out ? "NULL" : "&left", m->init_count);
        if (expect_code(ctx, "aclFinalizeReference", aclFinalizeReference(null_out ? NULL : &left),
                        only(m->init_count > 0 ? ACL_SUCCESS : ACL_ERROR_REPEAT_FINALIZE))) {
            --m->init_count;
            expect(ctx, null_out || left == (uint64_t)m->init_count, "%llu references left; expected %ld",
                   (unsigned long long)left, m->init_count);
        }
        break;
    }
    default:
        finalize_step(m);
        break;
    }
}

/* acl_base.h: the element size; 0 for ACL_DT_UNDEFINED, ACL_STRING, the
 * sub-byte types and values that name no type. */
static size_t documented_dtype_size(int dtype)
{
    switch (dtype) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
        return 1;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
        return 8;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 0;
    }
}

/* Every value from -3 to 45 and the int32 extremes. */
static int random_dtype_value(fuzz_context *ctx)
{
    return one_in(ctx, 20) ? (one_in(ctx, 2) ? INT32_MAX : INT32_MIN) : (int)below(ctx, 49) - 3;
}

static const char *const SOC_NAMES[] = {"Ascend910B", "Ascend910_93", "Ascend910", "Ascend950"};

static void information_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    switch (below(ctx, 5)) {
    case 0: {
        static const int INVALID_ATTRIBUTES[] = {-1, 12, 13, 100, INT32_MIN, INT32_MAX};
        int attr = one_in(ctx, 5) ? PICK(ctx, INVALID_ATTRIBUTES) : (int)below(ctx, 12);
        bool null_free = one_in(ctx, 8), null_total = one_in(ctx, 8);
        size_t free_bytes = 7, total_bytes = 7;
        bool valid = attr >= 0 && attr <= 11 && !null_free && !null_total;
        begin_call(ctx, "aclrtGetMemInfo(%d, %s, %s)", attr, null_free ? "NULL" : "&free",
                   null_total ? "NULL" : "&total");
        if (expect_code(ctx, "aclrtGetMemInfo",
                        aclrtGetMemInfo((aclrtMemAttr)attr, null_free ? NULL : &free_bytes,
                                        null_total ? NULL : &total_bytes),
                        only(valid ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM))) {
            expect(ctx, total_bytes > 0 && free_bytes <= total_bytes, "free %zu, total %zu", free_bytes, total_bytes);
        } else {
            expect(ctx, free_bytes == 7 && total_bytes == 7, "a failed call changed its outputs");
        }
        break;
    }
    case 1: {
        begin_call(ctx, "aclrtGetSocName()");
        const char *name = aclrtGetSocName();
        bool known = false;
        for (size_t i = 0; name != NULL && i < COUNT_OF(SOC_NAMES); ++i) {
            known |= strcmp(name, SOC_NAMES[i]) == 0;
        }
        expect(ctx, known, "\"%s\" is not a product aclnn_emu emulates", name ? name : "(NULL)");
        break;
    }
    case 2: {
        bool null_out = one_in(ctx, 4);
        aclrtRunMode mode = (aclrtRunMode)77;
        begin_call(ctx, "aclrtGetRunMode(%s)", null_out ? "NULL" : "&mode");
        if (expect_code(ctx, "aclrtGetRunMode", aclrtGetRunMode(null_out ? NULL : &mode),
                        only(null_out ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS))) {
            expect(ctx, mode == ACL_HOST, "run mode %d; expected ACL_HOST", (int)mode);
        }
        break;
    }
    case 3: {
        int32_t version[3] = {-1, -1, -1};
        int null_at = one_in(ctx, 3) ? (int)below(ctx, 3) : -1;
        begin_call(ctx, "aclrtGetVersion(NULL at %d)", null_at);
        if (expect_code(ctx, "aclrtGetVersion",
                        aclrtGetVersion(null_at == 0 ? NULL : &version[0], null_at == 1 ? NULL : &version[1],
                                        null_at == 2 ? NULL : &version[2]),
                        only(null_at >= 0 ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS))) {
            expect(ctx, version[0] == ACL_MAJOR_VERSION && version[1] == ACL_MINOR_VERSION &&
                            version[2] == ACL_PATCH_VERSION, "version %d.%d.%d", (int)version[0], (int)version[1],
                   (int)version[2]);
        }
        break;
    }
    default: {
        int dtype = random_dtype_value(ctx);
        begin_call(ctx, "aclDataTypeSize(%d)", dtype);
        size_t size = aclDataTypeSize((aclDataType)dtype);
        expect(ctx, size == documented_dtype_size(dtype), "%zu; expected %zu", size, documented_dtype_size(dtype));
        break;
    }
    }
}

/* A descriptor of a device block made or destroyed: aclFinalize's leak
 * report counts the live ones (the tensors part checks the API itself). */
static void descriptor_step(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    int slot = (int)below(ctx, MAX_MODEL_TENSORS);
    if (m->tensors[slot] != NULL) {
        begin_call(ctx, "aclDestroyTensor(tensor %d)", slot);
        expect(ctx, aclDestroyTensor(m->tensors[slot]) == ACLNN_SUCCESS, "aclDestroyTensor failed");
        m->tensors[slot] = NULL;
        return;
    }
    int block = random_object(m, DEVICE_OBJECTS);
    int64_t elements = block >= 0 ? (int64_t)(m->objects[block].size / sizeof(float)) : 0;
    begin_call(ctx, "aclCreateTensor([%lld], ACL_FLOAT) on block %d", (long long)elements, block);
    m->tensors[slot] = aclCreateTensor(&elements, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &elements, 1,
                                       block >= 0 ? m->objects[block].base : NULL);
    expect(ctx, m->tensors[slot] != NULL, "aclCreateTensor refused a plain vector");
}

/* ------------------------------------------------------------ episodes */

typedef void (*step_fn)(runtime_model *m);

typedef struct {
    step_fn run;
    int weight;
    bool alone_only; /* changes process-wide state another thread relies on */
} step_kind;

static void verify_step(runtime_model *m)
{
    int object = random_object(m, DEVICE_OBJECTS | HOST_OBJECTS);
    if (object >= 0) {
        verify_object(m, object);
    }
}

static const step_kind STEPS[] = {
    {memcpy_step, 48, false},
    {memset_step, 20, false},
    {verify_step, 16, false},
    {malloc_step, 16, false},
    {free_step, 14, false},
    {host_alloc_step, 8, false},
    {refill_step, 4, false},
    {create_stream, 3, false},
    {destroy_stream, 3, false},
    {synchronize_stream, 3, false},
    {synchronize_stream_with_timeout, 3, false},
    {query_stream_step, 8, false},
    {create_event, 3, false},
    {destroy_event, 3, false},
    {record_event, 6, false},
    {reset_event, 3, false},
    {wait_event_step, 3, false},
    {synchronize_event_step, 3, false},
    {query_event_step, 3, false},
    {elapsed_time_step, 4, false},
    {gate_step, 10, true},
    {device_step, 6, false},
    {context_step, 6, false},
    {init_step, 4, true},
    {information_step, 6, false},
    {descriptor_step, 4, false},
};

static void random_step(runtime_model *m)
{
    int total = 0;
    for (size_t i = 0; i < COUNT_OF(STEPS); ++i) {
        total += STEPS[i].weight;
    }
    for (;;) {
        int r = (int)below(&m->ctx, (size_t)total);
        size_t i = 0;
        while (r >= STEPS[i].weight) {
            r -= STEPS[i].weight;
            ++i;
        }
        if (m->mode == MODEL_ALONE || !STEPS[i].alone_only) {
            STEPS[i].run(m);
            return;
        }
    }
}

/* Host buffers (malloc and aclrtMallocHost), two device blocks and, for
 * an episode, a stream and the gate. */
static void start_model(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    m->scratch = xmalloc(HOST_BUFFER_BYTES);
    for (int i = 0; i < HOST_BUFFERS; ++i) {
        unsigned char *host = xmalloc(HOST_BUFFER_BYTES);
        for (size_t b = 0; b < HOST_BUFFER_BYTES; ++b) {
            host[b] = (unsigned char)draw(ctx);
        }
        add_object(m, OBJECT_HOST, host, HOST_BUFFER_BYTES);
    }
    void *pinned = NULL;
    begin_call(ctx, "aclrtMallocHost(&pinned, %d)", HOST_BUFFER_BYTES);
    if (expect_code(ctx, "aclrtMallocHost", aclrtMallocHost(&pinned, HOST_BUFFER_BYTES), only(ACL_SUCCESS))) {
        memset(pinned, 0x5A, HOST_BUFFER_BYTES);
        add_object(m, OBJECT_PINNED, pinned, HOST_BUFFER_BYTES);
    }
    for (int i = 0; i < 2; ++i) {
        void *block = NULL;
        size_t size = pick_block_size(ctx);
        begin_call(ctx, "aclrtMalloc(&block, %zu, NORMAL_ONLY)", size);
        if (expect_code(ctx, "aclrtMalloc", aclrtMalloc(&block, size, ACL_MEM_MALLOC_NORMAL_ONLY), only(0))) {
            add_object(m, OBJECT_DEVICE, block, size);
        }
    }
}

/* Drains every stream, checks every byte, releases everything. Leaves the
 * thread with its device set and no current context. */
static void end_model(runtime_model *m)
{
    fuzz_context *ctx = &m->ctx;
    if (m->gate != NULL) {
        open_gate(m);
    }
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if (m->streams[i].handle != NULL) {
            synchronize_slot(m, i);
        }
    }
    for (int i = 0; i < MAX_OBJECTS; ++i) {
        memory_object *o = &m->objects[i];
        if (o->kind == OBJECT_NONE) {
            continue;
        }
        verify_object(m, i);
        if (o->kind == OBJECT_DEVICE) {
            begin_call(ctx, "aclrtFree(block %d) at the end", i);
            expect_code(ctx, "aclrtFree", aclrtFree(o->base), only(ACL_SUCCESS));
        } else if (o->kind == OBJECT_PINNED) {
            begin_call(ctx, "aclrtFreeHost(pinned %d) at the end", i);
            expect_code(ctx, "aclrtFreeHost", aclrtFreeHost(o->base), only(ACL_SUCCESS));
        } else {
            free(o->base);
        }
        drop_object(m, i);
    }
    for (int i = 0; i < MAX_EXTRA_HOST; ++i) {
        if (m->extra_host[i] != NULL) {
            begin_call(ctx, "aclrtFreeHost(extra %d) at the end", i);
            expect_code(ctx, "aclrtFreeHost", aclrtFreeHost(m->extra_host[i]), only(ACL_SUCCESS));
        }
    }
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if (m->streams[i].handle != NULL && !m->streams[i].shared) {
            begin_call(ctx, "aclrtDestroyStream(stream %d) at the end", i);
            expect_code(ctx, "aclrtDestroyStream", aclrtDestroyStream(m->streams[i].handle), only(ACL_SUCCESS));
        }
    }
    for (int i = 0; i < MAX_EVENTS; ++i) {
        if (m->events[i].handle != NULL) {
            begin_call(ctx, "aclrtDestroyEvent(event %d) at the end", i);
            expect_code(ctx, "aclrtDestroyEvent", aclrtDestroyEvent(m->events[i].handle), only(ACL_SUCCESS));
        }
    }
    if (m->gate != NULL) {
        begin_call(ctx, "aclrtDestroyEvent(gate) at the end");
        expect_code(ctx, "aclrtDestroyEvent", aclrtDestroyEvent(m->gate), only(ACL_SUCCESS));
    }
    for (int i = 0; i < MAX_CONTEXTS; ++i) {
        if (m->contexts[i] != NULL) {
            destroy_context(m, m->contexts[i]);
        }
    }
    for (int i = 0; i < MAX_MODEL_TENSORS; ++i) {
        aclDestroyTensor(m->tensors[i]);
        m->tensors[i] = NULL;
    }
    /* A context made and destroyed clears the current one (the default
     * context may have been made current). */
    aclrtContext scratch_context = NULL;
    begin_call(ctx, "aclrtCreateContext + aclrtDestroyContext + aclrtSetDevice(0) to restore the thread");
    expect(ctx, aclrtCreateContext(&scratch_context, 0) == ACL_SUCCESS &&
                    aclrtDestroyContext(scratch_context) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS,
           "could not restore the thread's device");
    free(m->scratch);
}

static void run_episode(int episode, const char *config_path)
{
    runtime_model *m = calloc(1, sizeof *m);
    if (m == NULL) {
        exit(2);
    }
    start_context(&m->ctx, PART_RUNTIME, episode);
    fuzz_context *ctx = &m->ctx;
    m->mode = MODEL_ALONE;
    m->config_path = config_path;
    m->init_count = 1; /* main's aclInit; every episode leaves it so */
    m->device_set = true;
    start_model(m);
    begin_call(ctx, "aclrtCreateEvent(&gate)");
    expect_code(ctx, "aclrtCreateEvent", aclrtCreateEvent(&m->gate), only(ACL_SUCCESS));
    begin_call(ctx, "aclrtCreateStream(&stream)");
    expect_code(ctx, "aclrtCreateStream", aclrtCreateStream(&m->streams[0].handle), only(ACL_SUCCESS));
    for (ctx->step = 0; ctx->step < EPISODE_STEPS; ++ctx->step) {
        random_step(m);
    }
    ctx->step = EPISODE_STEPS;
    end_model(m);
    /* Back to one reference, then aclFinalize: nothing may be left alive. */
    if (m->init_count == 0) {
        begin_call(ctx, "aclInit(NULL) at the end");
        expect_code(ctx, "aclInit", aclInit(NULL), only(ACL_SUCCESS));
        m->init_count = 1;
    }
    while (m->init_count > 1) {
        begin_call(ctx, "aclFinalizeReference(NULL) at the end");
        expect_code(ctx, "aclFinalizeReference", aclFinalizeReference(NULL), only(ACL_SUCCESS));
        --m->init_count;
    }
    memset(m->streams, 0, sizeof m->streams);
    memset(m->events, 0, sizeof m->events);
    m->gate = NULL;
    finalize_step(m);
    begin_call(ctx, "aclInit(NULL) for the next episode");
    expect_code(ctx, "aclInit", aclInit(NULL), only(ACL_SUCCESS));
    finish_context(ctx);
    free(m);
}

/* ------------------------------------------------------------ tensors, scalars, arrays, lists */

typedef struct {
    uint64_t rank, storage_rank;
    bool dims_null, strides_null, storage_null;
    int64_t dims[MAX_RANK], strides[MAX_RANK], storage[MAX_RANK];
    int64_t offset;
    int dtype;
    int format;
    void *data;
} tensor_args;

static const int64_t EXTREME_VALUES[] = {-1, INT64_MIN, INT64_MAX, INT64_MAX / 2, (int64_t)1 << 62,
                                         (int64_t)1 << 40, (int64_t)1 << 32, (int64_t)1 << 31, 0};
/* Dimensions whose products fit int64 in elements but not always in bytes. */
static const int64_t BIG_DIMS[] = {3, (int64_t)1 << 20, (int64_t)1 << 31, (int64_t)1 << 32, (int64_t)1 << 40,
                                   (int64_t)1 << 61, (int64_t)1 << 62, INT64_MAX};
static const int TENSOR_RANKS[] = {31, 32, 33, 40};
static const int VALID_DTYPES[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_UINT8,
                                   ACL_BOOL, ACL_DOUBLE, ACL_COMPLEX128, ACL_INT4, ACL_STRING, ACL_FLOAT4_E2M1};
static const int FORMATS[] = {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_FRACTAL_NZ,
                              ACL_FORMAT_NC1HWC0, ACL_FORMAT_UNDEFINED, 999, INT32_MIN};

/* The strides aclCreateTensor computes for NULL: row-major, a 0 dimension
 * counting as 1. *overflow: they do not fit int64 (an empty view only). */
static void contiguous_strides(const tensor_args *a, int64_t *strides, bool *overflow)
{
    int64_t running = 1;
    *overflow = false;
    for (int64_t i = (int64_t)a->rank - 1; i >= 0; --i) {
        strides[i] = running;
        if (__builtin_mul_overflow(running, a->dims[i] > 0 ? a->dims[i] : 1, &running)) {
            *overflow = true;
            running = INT64_MAX;
        }
    }
}

static void random_tensor_args(fuzz_context *ctx, tensor_args *a, void *const *data_choices, size_t data_count)
{
    memset(a, 0, sizeof *a);
    size_t shape_kind = below(ctx, 10);
    a->rank = shape_kind < 6 ? below(ctx, 5)
              : shape_kind < 8 ? 5 + below(ctx, 4)
              : shape_kind == 8 ? (uint64_t)PICK(ctx, TENSOR_RANKS)
                                : 1 + below(ctx, 3);
    for (uint64_t i = 0; i < a->rank; ++i) {
        a->dims[i] = shape_kind == 9  ? PICK(ctx, BIG_DIMS)
                     : one_in(ctx, 20) ? PICK(ctx, EXTREME_VALUES)
                     : one_in(ctx, 10) ? 0
                                       : 1 + (int64_t)below(ctx, 5);
    }
    if (shape_kind == 9 && one_in(ctx, 2)) {
        /* 2^58..2^62 elements in powers of two: the element count fits, the
         * bytes may not, and the dimensions' sum stays small. */
        a->rank = 2 + below(ctx, 3);
        int exponent = 58 + (int)below(ctx, 5);
        for (uint64_t i = 0; i < a->rank; ++i) {
            int share = i + 1 == a->rank ? exponent : 1 + (int)below(ctx, (size_t)exponent - (a->rank - i));
            a->dims[i] = (int64_t)1 << share;
            exponent -= share;
        }
    }
    a->dims_null = a->rank > 0 && one_in(ctx, 25);
    a->strides_null = one_in(ctx, 2);
    if (!a->strides_null && a->rank <= LIMIT_RANK) {
        bool overflow;
        contiguous_strides(a, a->strides, &overflow);
    }
    for (uint64_t i = 0; i < a->rank && !a->strides_null; ++i) {
        size_t r = below(ctx, 10);
        a->strides[i] = r < 6 ? a->strides[i] : r < 9 ? (int64_t)below(ctx, 9) : PICK(ctx, EXTREME_VALUES);
    }
    a->offset = one_in(ctx, 4) ? PICK(ctx, EXTREME_VALUES) : (int64_t)below(ctx, 17);
    a->dtype = one_in(ctx, 5) ? random_dtype_value(ctx) : PICK(ctx, VALID_DTYPES);
    a->format = PICK(ctx, FORMATS);
    size_t r = below(ctx, 10);
    if (r < 6) {
        a->storage_rank = 1;
        a->storage[0] = (int64_t)below(ctx, 1000);
    } else if (r < 8) {
        a->storage_rank = below(ctx, 4);
        for (uint64_t i = 0; i < a->storage_rank; ++i) {
            a->storage[i] = one_in(ctx, 10) ? PICK(ctx, EXTREME_VALUES) : (int64_t)below(ctx, 9);
        }
    } else if (r == 8) {
        a->storage_rank = a->rank;
        memcpy(a->storage, a->dims, sizeof a->storage);
    } else {
        a->storage_rank = one_in(ctx, 2) ? 33 : 1 + below(ctx, 3);
        a->storage_null = one_in(ctx, 2);
    }
    a->data = data_choices[below(ctx, data_count)];
}

/* What acl_meta.h says aclCreateTensor / aclInitTensor must do. */
typedef struct {
    bool null_pointer; /* a shape pointer NULL with a non-zero count: NULL, or 161001 */
    bool invalid;      /* rank > 32, a negative value, a view past int64 or byte 2^63-1: NULL, or 161002 */
    bool either;       /* the header leaves it open */
} tensor_verdict;

static tensor_verdict judge_tensor(const tensor_args *a)
{
    tensor_verdict v = {.null_pointer = (a->dims_null && a->rank > 0) || (a->storage_null && a->storage_rank > 0)};
    v.invalid = a->rank > LIMIT_RANK || a->storage_rank > LIMIT_RANK || a->offset < 0;
    for (uint64_t i = 0; i < a->rank && i < MAX_RANK && !a->dims_null; ++i) {
        v.invalid |= a->dims[i] < 0 || (!a->strides_null && a->strides[i] < 0);
    }
    for (uint64_t i = 0; i < a->storage_rank && i < MAX_RANK && !a->storage_null; ++i) {
        v.invalid |= a->storage[i] < 0;
    }
    if (v.invalid || v.null_pointer) {
        return v;
    }
    /* The last element's index, with the strides the library uses. */
    bool empty = false;
    for (uint64_t i = 0; i < a->rank; ++i) {
        empty |= a->dims[i] == 0;
    }
    int64_t strides[MAX_RANK];
    bool strides_overflow = false; /* an empty view's: no element uses them */
    if (a->strides_null) {
        contiguous_strides(a, strides, &strides_overflow);
    } else {
        memcpy(strides, a->strides, sizeof strides);
    }
    int64_t numel = 1, last = a->offset, reach;
    bool overflow = false;
    for (uint64_t i = 0; i < a->rank && !empty; ++i) {
        overflow |= __builtin_mul_overflow(numel, a->dims[i], &numel) ||
                    __builtin_mul_overflow(a->dims[i] - 1, strides[i], &reach) ||
                    __builtin_add_overflow(last, reach, &last);
    }
    size_t size = documented_dtype_size(a->dtype);
    uint64_t unit = size > 0 ? size : 1;
    /* Bytes up to the end of the last element (or of the offset, for an empty view). */
    uint64_t end = 0;
    bool past = overflow || __builtin_mul_overflow((uint64_t)last + 1, unit, &end) || end > (uint64_t)1 << 63;
    if (empty) {
        /* No element lies anywhere: refusing an offset at or past byte 2^63 is the library's choice. */
        v.either = past || end == (uint64_t)1 << 63;
    } else if (past) {
        v.invalid = true;
    } else if (end == (uint64_t)1 << 63) {
        v.either = true; /* the last byte is 2^63-1 exactly: not past it, but past int64 arithmetic */
    }
    return v;
}

static void expect_array(fuzz_context *ctx, const char *what, const int64_t *got, uint64_t got_count,
                         const int64_t *want, uint64_t want_count)
{
    bool same = got_count == want_count && (want_count == 0 ? got == NULL : got != NULL);
    for (uint64_t i = 0; same && i < want_count; ++i) {
        same = got[i] == want[i];
    }
    expect(ctx, same, "%s: %llu values (first %lld); expected %llu (first %lld)", what, (unsigned long long)got_count,
           got_count && got ? (long long)got[0] : 0LL, (unsigned long long)want_count,
           want_count ? (long long)want[0] : 0LL);
}

typedef aclnnStatus (*shape_getter)(const aclTensor *tensor, int64_t **values, uint64_t *count);

static void expect_shape(fuzz_context *ctx, const aclTensor *t, shape_getter get, const char *api,
                         const int64_t *want, uint64_t want_count, bool check_values)
{
    int64_t *values = (int64_t *)&values;
    uint64_t count = 777;
    begin_call(ctx, "%s(tensor, &values, &count)", api);
    if (expect_code(ctx, api, get(t, &values, &count), only(ACLNN_SUCCESS))) {
        if (check_values) {
            expect_array(ctx, api, values, count, want, want_count);
        }
        aclnnEmuFreeArray(values);
    }
}

/* Every getter reports what the descriptor was made with. */
static void expect_tensor_is(fuzz_context *ctx, const aclTensor *t, const tensor_args *a)
{
    int64_t strides[MAX_RANK];
    bool strides_overflow = false;
    if (a->strides_null) {
        contiguous_strides(a, strides, &strides_overflow);
    } else {
        memcpy(strides, a->strides, sizeof strides);
    }
    expect_shape(ctx, t, aclGetViewShape, "aclGetViewShape", a->dims, a->rank, true);
    expect_shape(ctx, t, aclGetStorageShape, "aclGetStorageShape", a->storage, a->storage_rank, true);
    expect_shape(ctx, t, aclGetViewStrides, "aclGetViewStrides", strides, a->rank, !strides_overflow);
    int64_t offset = -7;
    aclFormat format = (aclFormat)-7;
    aclDataType dtype = (aclDataType)-7;
    void *data = &offset;
    begin_call(ctx, "aclGetViewOffset, aclGetFormat, aclGetDataType, aclGetRawTensorAddr");
    bool ok = aclGetViewOffset(t, &offset) == ACLNN_SUCCESS && aclGetFormat(t, &format) == ACLNN_SUCCESS &&
              aclGetDataType(t, &dtype) == ACLNN_SUCCESS && aclGetRawTensorAddr(t, &data) == ACLNN_SUCCESS;
    expect(ctx, ok && offset == a->offset && (int)format == a->format && (int)dtype == a->dtype && data == a->data,
           "offset %lld, format %d, dtype %d, data %p; expected %lld, %d, %d, %p", (long long)offset, (int)format,
           (int)dtype, data, (long long)a->offset, a->format, a->dtype, a->data);
}

/* One getter with a NULL tensor or a NULL output: 161001. */
static void null_getter_check(fuzz_context *ctx, const aclTensor *t)
{
    static const shape_getter SHAPE_GETTERS[] = {aclGetViewShape, aclGetStorageShape, aclGetViewStrides};
    static const char *const SHAPE_APIS[] = {"aclGetViewShape", "aclGetStorageShape", "aclGetViewStrides"};
    int64_t *values = NULL, offset = 0;
    uint64_t count = 0;
    aclFormat format;
    aclDataType dtype;
    void *data;
    size_t which = below(ctx, 7), null_at = below(ctx, which < 3 ? 3 : 2);
    const aclTensor *tensor = null_at == 0 ? NULL : t;
    const char *api;
    int code;
    begin_call(ctx, "getter %zu with argument %zu NULL", which, null_at);
    if (which < 3) {
        api = SHAPE_APIS[which];
        code = SHAPE_GETTERS[which](tensor, null_at == 1 ? NULL : &values, null_at == 2 ? NULL : &count);
    } else if (which == 3) {
        api = "aclGetViewOffset";
        code = aclGetViewOffset(tensor, null_at ? NULL : &offset);
    } else if (which == 4) {
        api = "aclGetFormat";
        code = aclGetFormat(tensor, null_at ? NULL : &format);
    } else if (which == 5) {
        api = "aclGetDataType";
        code = aclGetDataType(tensor, null_at ? NULL : &dtype);
    } else {
        api = "aclGetRawTensorAddr";
        code = aclGetRawTensorAddr(tensor, null_at ? NULL : &data);
    }
    expect_code(ctx, api, code, only(ACLNN_ERR_PARAM_NULLPTR));
    if (code == ACLNN_SUCCESS && which < 3) {
        aclnnEmuFreeArray(values);
    }
}

static aclTensor *create_tensor_checked(fuzz_context *ctx, const tensor_args *a)
{
    tensor_verdict v = judge_tensor(a);
    begin_call(ctx, "aclCreateTensor(rank %llu%s, dims[0] %lld, dtype %d, strides %s, offset %lld, format %d, "
                    "storage rank %llu%s, data %p)",
               (unsigned long long)a->rank, a->dims_null ? " NULL" : "", (long long)a->dims[0], a->dtype,
               a->strides_null ? "NULL" : "given", (long long)a->offset, a->format,
               (unsigned long long)a->storage_rank, a->storage_null ? " NULL" : "", a->data);
    aclTensor *t = aclCreateTensor(a->dims_null ? NULL : a->dims, a->rank, (aclDataType)a->dtype,
                                   a->strides_null ? NULL : a->strides, a->offset, (aclFormat)a->format,
                                   a->storage_null ? NULL : a->storage, a->storage_rank, a->data);
    bool refuse = v.null_pointer || v.invalid;
    expect(ctx, v.either || (t == NULL) == refuse, "%s; acl_meta.h says it must %s",
           t ? "created the tensor" : "returned NULL", refuse ? "return NULL" : "create it");
    if (t == NULL) {
        expect_message(ctx, "aclCreateTensor");
    }
    return t;
}

/* aclInitTensor: the documented code; the descriptor changes only on success. */
static void reinit_tensor_checked(fuzz_context *ctx, aclTensor *t, tensor_args *current, const tensor_args *a)
{
    tensor_verdict v = judge_tensor(a);
    code_set allowed = {.count = 0};
    if (v.null_pointer) {
        allow(&allowed, ACLNN_ERR_PARAM_NULLPTR);
    }
    if (v.invalid || v.either) {
        allow(&allowed, ACLNN_ERR_PARAM_INVALID);
    }
    if (allowed.count == 0 || v.either) {
        allow(&allowed, ACLNN_SUCCESS);
    }
    begin_call(ctx, "aclInitTensor(tensor, rank %llu, dims[0] %lld, dtype %d, strides %s, offset %lld)",
               (unsigned long long)a->rank, (long long)a->dims[0], a->dtype, a->strides_null ? "NULL" : "given",
               (long long)a->offset);
    int code = aclInitTensor(t, a->dims_null ? NULL : a->dims, a->rank, (aclDataType)a->dtype,
                             a->strides_null ? NULL : a->strides, a->offset, (aclFormat)a->format,
                             a->storage_null ? NULL : a->storage, a->storage_rank, a->data);
    if (expect_code(ctx, "aclInitTensor", code, allowed)) {
        *current = *a;
    }
    expect_tensor_is(ctx, t, current);
}

static aclTensor *small_tensor(void)
{
    int64_t dims[2] = {2, 3};
    return aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, NULL);
}

static aclScalar *scalar_checked(fuzz_context *ctx, int dtype, bool null_value)
{
    _Alignas(16) unsigned char value[16];
    for (size_t i = 0; i < sizeof value; ++i) {
        value[i] = (unsigned char)draw(ctx);
    }
    bool valid = !null_value && documented_dtype_size(dtype) > 0;
    begin_call(ctx, "aclCreateScalar(%s, %d)", null_value ? "NULL" : "&value", dtype);
    aclScalar *scalar = aclCreateScalar(null_value ? NULL : value, (aclDataType)dtype);
    expect(ctx, (scalar != NULL) == valid, "%s; acl_meta.h says it must %s", scalar ? "created it" : "returned NULL",
           valid ? "create it" : "return NULL (NULL value or a dtype without a fixed size)");
    if (scalar == NULL) {
        expect_message(ctx, "aclCreateScalar");
    }
    return scalar;
}

typedef enum { INT_ARRAY, FLOAT_ARRAY, BOOL_ARRAY } array_kind;
static const char *const ARRAY_CREATE_APIS[] = {"aclCreateIntArray", "aclCreateFloatArray", "aclCreateBoolArray"};
static const char *const ARRAY_SIZE_APIS[] = {"aclGetIntArraySize", "aclGetFloatArraySize", "aclGetBoolArraySize"};

static const void *create_array(array_kind kind, const void *values, uint64_t size)
{
    switch (kind) {
    case INT_ARRAY:
        return aclCreateIntArray(values, size);
    case FLOAT_ARRAY:
        return aclCreateFloatArray(values, size);
    default:
        return aclCreateBoolArray(values, size);
    }
}

static aclnnStatus array_size(array_kind kind, const void *array, uint64_t *size)
{
    switch (kind) {
    case INT_ARRAY:
        return aclGetIntArraySize(array, size);
    case FLOAT_ARRAY:
        return aclGetFloatArraySize(array, size);
    default:
        return aclGetBoolArraySize(array, size);
    }
}

static aclnnStatus destroy_array(array_kind kind, const void *array)
{
    switch (kind) {
    case INT_ARRAY:
        return aclDestroyIntArray(array);
    case FLOAT_ARRAY:
        return aclDestroyFloatArray(array);
    default:
        return aclDestroyBoolArray(array);
    }
}

/* Arrays copy size values; NULL only with size 0. The huge sizes are
 * refused before a value is read (they do not fit in memory). */
static void array_checks(fuzz_context *ctx)
{
    array_kind kind = (array_kind)below(ctx, 3);
    _Alignas(8) unsigned char values[16 * sizeof(int64_t)];
    for (size_t i = 0; i < sizeof values; ++i) {
        values[i] = (unsigned char)(kind == BOOL_ARRAY ? draw(ctx) & 1 : draw(ctx));
    }
    static const uint64_t HUGE_COUNTS[] = {UINT64_MAX, UINT64_MAX / 2, (uint64_t)1 << 62};
    uint64_t size = below(ctx, 17);
    const void *source = values;
    size_t r = below(ctx, 10);
    if (r == 6) {
        size = 0;
        source = NULL;
    } else if (r == 7 || r == 8) {
        size = one_in(ctx, 2) ? 1 + below(ctx, 16) : PICK(ctx, HUGE_COUNTS);
        source = NULL;
    } else if (r == 9) {
        size = PICK(ctx, HUGE_COUNTS);
    }
    bool valid = (source != NULL || size == 0) && size <= 16;
    const char *api = ARRAY_CREATE_APIS[kind];
    begin_call(ctx, "%s(%s, %llu)", api, source ? "values" : "NULL", (unsigned long long)size);
    const void *array = create_array(kind, source, size);
    expect(ctx, (array != NULL) == valid, "%s; expected %s", array ? "created it" : "returned NULL",
           valid ? "an array" : "NULL");
    if (array == NULL) {
        expect_message(ctx, api);
        return;
    }
    uint64_t reported = 777;
    begin_call(ctx, "%s(array, &size)", ARRAY_SIZE_APIS[kind]);
    if (expect_code(ctx, ARRAY_SIZE_APIS[kind], array_size(kind, array, &reported), only(ACLNN_SUCCESS))) {
        expect(ctx, reported == size, "size %llu; expected %llu", (unsigned long long)reported,
               (unsigned long long)size);
    }
    bool null_array = one_in(ctx, 2);
    begin_call(ctx, "%s(%s, %s)", ARRAY_SIZE_APIS[kind], null_array ? "NULL" : "array", null_array ? "&size" : "NULL");
    expect_code(ctx, ARRAY_SIZE_APIS[kind], array_size(kind, null_array ? NULL : array, null_array ? &reported : NULL),
                only(ACLNN_ERR_PARAM_NULLPTR));
    begin_call(ctx, "aclDestroy*Array(array)");
    expect(ctx, destroy_array(kind, array) == ACLNN_SUCCESS, "destroying an array failed");
}

/* Lists own their entries (NULL ones allowed): destroying the list
 * destroys them; a list that was refused owns nothing. */
static void list_checks(fuzz_context *ctx)
{
    bool scalars = one_in(ctx, 2);
    uint64_t size = below(ctx, 5);
    const void *entries[4] = {NULL, NULL, NULL, NULL};
    for (uint64_t i = 0; i < size; ++i) {
        if (!one_in(ctx, 3)) {
            entries[i] = scalars ? (const void *)scalar_checked(ctx, ACL_FLOAT, false) : (const void *)small_tensor();
        }
    }
    bool null_value = one_in(ctx, 6);
    const char *api = scalars ? "aclCreateScalarList" : "aclCreateTensorList";
    begin_call(ctx, "%s(%s, %llu)", api, null_value ? "NULL" : "entries", (unsigned long long)size);
    const void *list = scalars ? (const void *)aclCreateScalarList(
                                     null_value ? NULL : (const aclScalar *const *)entries, size)
                               : (const void *)aclCreateTensorList(
                                     null_value ? NULL : (const aclTensor *const *)entries, size);
    bool valid = !null_value || size == 0;
    expect(ctx, (list != NULL) == valid, "%s; expected %s", list ? "created it" : "returned NULL",
           valid ? "a list" : "NULL (NULL value with size > 0)");
    if (list == NULL) {
        expect_message(ctx, api);
        for (uint64_t i = 0; i < size; ++i) {
            if (scalars) {
                aclDestroyScalar(entries[i]);
            } else {
                aclDestroyTensor(entries[i]);
            }
        }
        return;
    }
    const char *size_api = scalars ? "aclGetScalarListSize" : "aclGetTensorListSize";
    uint64_t reported = 777;
    bool null_size = one_in(ctx, 4);
    begin_call(ctx, "%s(list, %s)", size_api, null_size ? "NULL" : "&size");
    int code = scalars ? aclGetScalarListSize(list, null_size ? NULL : &reported)
                       : aclGetTensorListSize(list, null_size ? NULL : &reported);
    if (expect_code(ctx, size_api, code, only(null_size ? ACLNN_ERR_PARAM_NULLPTR : ACLNN_SUCCESS))) {
        expect(ctx, reported == size, "size %llu; expected %llu", (unsigned long long)reported,
               (unsigned long long)size);
    }
    begin_call(ctx, "%s(NULL, &size)", size_api);
    code = scalars ? aclGetScalarListSize(NULL, &reported) : aclGetTensorListSize(NULL, &reported);
    expect_code(ctx, size_api, code, only(ACLNN_ERR_PARAM_NULLPTR));
    begin_call(ctx, "aclDestroy%sList(list)", scalars ? "Scalar" : "Tensor");
    code = scalars ? aclDestroyScalarList(list) : aclDestroyTensorList(list);
    expect(ctx, code == ACLNN_SUCCESS, "destroying a list returned %d", code);
}

/* acl_meta.h: every destroy function takes NULL as a no-op. */
static void null_destroy_check(fuzz_context *ctx)
{
    begin_call(ctx, "aclDestroy{Tensor,Scalar,IntArray,FloatArray,BoolArray,TensorList,ScalarList}(NULL)");
    bool ok = aclDestroyTensor(NULL) == ACLNN_SUCCESS && aclDestroyScalar(NULL) == ACLNN_SUCCESS &&
              aclDestroyIntArray(NULL) == ACLNN_SUCCESS && aclDestroyFloatArray(NULL) == ACLNN_SUCCESS &&
              aclDestroyBoolArray(NULL) == ACLNN_SUCCESS && aclDestroyTensorList(NULL) == ACLNN_SUCCESS &&
              aclDestroyScalarList(NULL) == ACLNN_SUCCESS;
    expect(ctx, ok, "a destroy function refused NULL");
}

static void run_tensor_trial(int trial, void *const *data_choices, size_t data_count)
{
    fuzz_context ctx;
    start_context(&ctx, PART_TENSORS, trial);
    tensor_args a;
    random_tensor_args(&ctx, &a, data_choices, data_count);
    aclTensor *t = create_tensor_checked(&ctx, &a);
    if (t != NULL) {
        expect_tensor_is(&ctx, t, &a);
        null_getter_check(&ctx, t);
        void *address = data_choices[below(&ctx, data_count)];
        begin_call(&ctx, "aclSetRawTensorAddr(tensor, %p)", address);
        if (expect_code(&ctx, "aclSetRawTensorAddr", aclSetRawTensorAddr(t, address), only(ACLNN_SUCCESS))) {
            a.data = address;
        }
        begin_call(&ctx, "aclSetRawTensorAddr(NULL, %p)", address);
        expect_code(&ctx, "aclSetRawTensorAddr", aclSetRawTensorAddr(NULL, address), only(ACLNN_ERR_PARAM_NULLPTR));
        tensor_args other;
        random_tensor_args(&ctx, &other, data_choices, data_count);
        reinit_tensor_checked(&ctx, t, &a, &other);
        begin_call(&ctx, "aclDestroyTensor(tensor)");
        expect(&ctx, aclDestroyTensor(t) == ACLNN_SUCCESS, "aclDestroyTensor failed");
    }
    tensor_args unused;
    random_tensor_args(&ctx, &unused, data_choices, data_count);
    begin_call(&ctx, "aclInitTensor(NULL, ...)");
    expect_code(&ctx, "aclInitTensor",
                aclInitTensor(NULL, unused.dims, unused.rank < LIMIT_RANK ? unused.rank : 1, ACL_FLOAT, NULL, 0,
                              ACL_FORMAT_ND, NULL, 0, NULL),
                only(ACLNN_ERR_PARAM_NULLPTR));
    aclDestroyScalar(scalar_checked(&ctx, random_dtype_value(&ctx), one_in(&ctx, 10)));
    array_checks(&ctx);
    list_checks(&ctx);
    null_destroy_check(&ctx);
    finish_context(&ctx);
}

static void run_tensor_part(int only_trial, int count)
{
    void *block = NULL;
    if (aclrtMalloc(&block, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS) {
        check(0, "tensors: aclrtMalloc for the data pointers");
        return;
    }
    static unsigned char host[256];
    /* Descriptors never touch their data: any address will do. */
    void *const data_choices[] = {NULL, block, (char *)block + 64, host, (void *)(uintptr_t)0x1000};
    int before = g_failed;
    const int first = only_trial < 0 ? 0 : only_trial, trials = only_trial < 0 ? TENSOR_TRIALS : count;
    for (int trial = first; trial - first < trials; ++trial) {
        run_tensor_trial(trial, data_choices, COUNT_OF(data_choices));
    }
    aclrtFree(block);
    check(g_failed == before, "tensors: %d trials of descriptors, getters, scalars, arrays and lists", trials);
}

/* ------------------------------------------------------------ threads */

typedef enum { SLOT_EMPTY, SLOT_FULL, SLOT_TAKEN } handoff_state;

typedef struct {
    void *block;
    size_t size;
    aclrtEvent filled; /* recorded after each fill, on the stream that filled it */
    handoff_state state;
    unsigned char value;
} handoff_slot;

/* Device blocks handed from one worker to the next: the producer fills an
 * EMPTY slot and records its event, the consumer waits for the event and
 * reads the block, then empties the slot. */
typedef struct {
    pthread_mutex_t lock;
    handoff_slot slots[HANDOFF_SLOTS];
} handoff;

typedef struct {
    runtime_model model;
    handoff *outbox, *inbox;
    aclrtEvent *every_event; /* every slot's, for queries across threads */
    pthread_barrier_t *start; /* the workers start their steps together */
    int handed, received;
} worker;

enum { OWN_STREAM = 0, SHARED_STREAM = 1 };

static int take_slot(handoff *box, handoff_state from, handoff_state to, unsigned char *value)
{
    int found = -1;
    pthread_mutex_lock(&box->lock);
    for (int i = 0; i < HANDOFF_SLOTS && found < 0; ++i) {
        if (box->slots[i].state == from) {
            box->slots[i].state = to;
            *value = box->slots[i].value;
            found = i;
        }
    }
    pthread_mutex_unlock(&box->lock);
    return found;
}

static void put_slot(handoff *box, int i, handoff_state state, unsigned char value)
{
    pthread_mutex_lock(&box->lock);
    box->slots[i].state = state;
    box->slots[i].value = value;
    pthread_mutex_unlock(&box->lock);
}

/* Fills an empty slot on the default, own or shared stream and records its event there. */
static void produce_step(worker *w)
{
    runtime_model *m = &w->model;
    fuzz_context *ctx = &m->ctx;
    unsigned char value;
    int i = take_slot(w->outbox, SLOT_EMPTY, SLOT_TAKEN, &value);
    if (i < 0) {
        return;
    }
    handoff_slot *slot = &w->outbox->slots[i];
    value = (unsigned char)draw(ctx);
    int target = (int)below(ctx, 3) - 1; /* DEFAULT_STREAM, OWN_STREAM or SHARED_STREAM */
    aclrtStream stream = target == DEFAULT_STREAM ? NULL : m->streams[target].handle;
    begin_call(ctx, "aclrtMemsetAsync(handoff slot %d, %zu, %d, stream %d)", i, slot->size, value, target);
    expect_code(ctx, "aclrtMemsetAsync", aclrtMemsetAsync(slot->block, slot->size, value, slot->size, stream),
                only(ACL_SUCCESS));
    begin_call(ctx, "aclrtRecordEvent(handoff slot %d, stream %d)", i, target);
    expect_code(ctx, "aclrtRecordEvent", aclrtRecordEvent(slot->filled, stream), only(ACL_SUCCESS));
    if (target >= 0) {
        m->streams[target].has_work = true;
    }
    put_slot(w->outbox, i, SLOT_FULL, value);
    ++w->handed;
}

static void expect_filled(fuzz_context *ctx, const unsigned char *bytes, size_t count, unsigned char value)
{
    size_t at = 0;
    while (at < count && bytes[at] == value) {
        ++at;
    }
    expect(ctx, at == count, "byte %zu of the handed block is 0x%02x; expected 0x%02x", at,
           at < count ? bytes[at] : 0, value);
}

/* Takes a full slot and reads its block after waiting for its event: on
 * the own stream (a copy into an own block), on the default stream, or
 * with aclrtSynchronizeEvent. */
static void consume_step(worker *w)
{
    runtime_model *m = &w->model;
    fuzz_context *ctx = &m->ctx;
    unsigned char value;
    int i = take_slot(w->inbox, SLOT_FULL, SLOT_TAKEN, &value);
    if (i < 0) {
        return;
    }
    const handoff_slot *slot = &w->inbox->slots[i];
    int block = random_object(m, DEVICE_OBJECTS);
    size_t mode = below(ctx, 4);
    if (mode == 0 && block >= 0) {
        memory_object *o = &m->objects[block];
        size_t count = o->size < slot->size ? o->size : slot->size;
        order_before(m, block, OWN_STREAM);
        aclrtStream own = m->streams[OWN_STREAM].handle;
        begin_call(ctx, "aclrtStreamWaitEvent(own stream, handoff slot %d)", i);
        expect_code(ctx, "aclrtStreamWaitEvent", aclrtStreamWaitEvent(own, slot->filled), only(ACL_SUCCESS));
        m->streams[OWN_STREAM].has_work = true;
        begin_call(ctx, "aclrtMemcpyAsync(block %d, %zu, handoff slot %d, DEVICE_TO_DEVICE, own stream)", block,
                   count, i);
        if (expect_code(ctx, "aclrtMemcpyAsync",
                        aclrtMemcpyAsync(o->base, count, slot->block, count, ACL_MEMCPY_DEVICE_TO_DEVICE, own),
                        only(ACL_SUCCESS))) {
            memset(o->expected, value, count);
            touch(m, block, OWN_STREAM);
        }
        verify_object(m, block); /* synchronizes: the copy is done, the slot may be filled again */
    } else {
        if (mode == 1) {
            begin_call(ctx, "aclrtStreamWaitEvent(NULL, handoff slot %d)", i);
            expect_code(ctx, "aclrtStreamWaitEvent", aclrtStreamWaitEvent(NULL, slot->filled), only(ACL_SUCCESS));
        } else {
            aclrtEventRecordedStatus status = (aclrtEventRecordedStatus)77;
            begin_call(ctx, "aclrtQueryEventStatus(handoff slot %d)", i);
            expect_code(ctx, "aclrtQueryEventStatus", aclrtQueryEventStatus(slot->filled, &status), only(0));
            expect(ctx, status == ACL_EVENT_RECORDED_STATUS_COMPLETE || status == ACL_EVENT_RECORDED_STATUS_NOT_READY,
                   "status %d is no status", (int)status);
            begin_call(ctx, "aclrtSynchronizeEvent(handoff slot %d)", i);
            expect_code(ctx, "aclrtSynchronizeEvent", aclrtSynchronizeEvent(slot->filled), only(ACL_SUCCESS));
        }
        begin_call(ctx, "aclrtMemcpy(scratch, %zu, handoff slot %d, DEVICE_TO_HOST)", slot->size, i);
        if (expect_code(ctx, "aclrtMemcpy",
                        aclrtMemcpy(m->scratch, slot->size, slot->block, slot->size, ACL_MEMCPY_DEVICE_TO_HOST),
                        only(ACL_SUCCESS))) {
            expect_filled(ctx, m->scratch, slot->size, value);
        }
    }
    put_slot(w->inbox, i, SLOT_EMPTY, value);
    ++w->received;
}

/* Other threads' events, recorded or not, queued or done: any documented answer. */
static void handoff_query_step(worker *w)
{
    fuzz_context *ctx = &w->model.ctx;
    aclrtEvent start = w->every_event[below(ctx, WORKERS * HANDOFF_SLOTS)];
    aclrtEvent end = w->every_event[below(ctx, WORKERS * HANDOFF_SLOTS)];
    code_set allowed = only(ACL_SUCCESS);
    allow(&allowed, ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    allow(&allowed, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    float ms = 0.0f;
    begin_call(ctx, "aclrtEventElapsedTime(&ms, %p, %p) across threads", start, end);
    expect_code(ctx, "aclrtEventElapsedTime", aclrtEventElapsedTime(&ms, start, end), allowed);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    runtime_model *m = &w->model;
    fuzz_context *ctx = &m->ctx;
    aclrtSetDevice(0); /* each thread needs a current device, as in CANN */
    start_model(m);
    m->device_set = true;
    begin_call(ctx, "aclrtCreateStream(&own)");
    expect_code(ctx, "aclrtCreateStream", aclrtCreateStream(&m->streams[OWN_STREAM].handle), only(ACL_SUCCESS));
    m->streams[OWN_STREAM].persistent = true;
    pthread_barrier_wait(w->start);
    for (ctx->step = 0; ctx->step < WORKER_STEPS; ++ctx->step) {
        size_t r = below(ctx, 10);
        if (r < 2) {
            produce_step(w);
        } else if (r < 4) {
            consume_step(w);
        } else if (r == 4) {
            handoff_query_step(w);
        } else {
            random_step(m);
        }
    }
    end_model(m);
    return NULL;
}

static void run_worker_part(fuzz_context *ctx)
{
    aclrtStream shared = NULL;
    handoff boxes[WORKERS];
    aclrtEvent every_event[WORKERS * HANDOFF_SLOTS];
    worker *workers = xmalloc(WORKERS * sizeof *workers);
    memset(workers, 0, WORKERS * sizeof *workers);
    begin_call(ctx, "setting up the shared stream and the handoff slots");
    bool ok = aclrtCreateStream(&shared) == ACL_SUCCESS;
    for (int b = 0; b < WORKERS; ++b) {
        pthread_mutex_init(&boxes[b].lock, NULL);
        for (int i = 0; i < HANDOFF_SLOTS; ++i) {
            handoff_slot *slot = &boxes[b].slots[i];
            *slot = (handoff_slot){.size = 64 + below(ctx, 2048), .state = SLOT_EMPTY};
            ok &= aclrtMalloc(&slot->block, slot->size, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS &&
                  aclrtCreateEvent(&slot->filled) == ACL_SUCCESS;
            every_event[b * HANDOFF_SLOTS + i] = slot->filled;
        }
    }
    ok = expect(ctx, ok, "setup failed");
    pthread_t threads[WORKERS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, WORKERS);
    for (int t = 0; t < WORKERS && ok; ++t) {
        worker *w = &workers[t];
        start_context(&w->model.ctx, PART_THREADS, t);
        w->model.mode = MODEL_WORKER;
        w->model.streams[SHARED_STREAM] = (stream_slot){.handle = shared, .persistent = true, .shared = true};
        w->outbox = &boxes[t];
        w->inbox = &boxes[(t + WORKERS - 1) % WORKERS];
        w->every_event = every_event;
        w->start = &start;
        if (pthread_create(&threads[t], NULL, worker_main, w) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(2);
        }
    }
    int handed = 0, received = 0;
    for (int t = 0; t < WORKERS && ok; ++t) {
        pthread_join(threads[t], NULL);
        finish_context(&workers[t].model.ctx);
        handed += workers[t].handed;
        received += workers[t].received;
    }
    pthread_barrier_destroy(&start);
    begin_call(ctx, "tearing down the shared stream and the handoff slots");
    ok = aclrtSynchronizeStream(shared) == ACL_SUCCESS && aclrtDestroyStream(shared) == ACL_SUCCESS;
    for (int b = 0; b < WORKERS; ++b) {
        for (int i = 0; i < HANDOFF_SLOTS; ++i) {
            ok &= aclrtFree(boxes[b].slots[i].block) == ACL_SUCCESS &&
                  aclrtDestroyEvent(boxes[b].slots[i].filled) == ACL_SUCCESS;
        }
        pthread_mutex_destroy(&boxes[b].lock);
    }
    expect(ctx, ok && handed > 0 && received > 0, "teardown failed, or nothing was handed over (%d, %d)", handed,
           received);
    printf("threads: %d workers x %d steps, %d blocks handed over, %d taken\n", WORKERS, WORKER_STEPS, handed,
           received);
    free(workers);
}

/* ---- a destroy while another thread waits device-wide ---- */

typedef struct {
    bool by_free;
    void *block;
    int code;
    atomic_bool done;
} device_wide_waiter;

static void *device_wide_wait_main(void *arg)
{
    device_wide_waiter *w = arg;
    w->code = w->by_free ? aclrtFree(w->block) : aclrtSynchronizeDevice();
    atomic_store(&w->done, true);
    return NULL;
}

typedef struct {
    aclrtStream stream;
    int code;
    bool done;
    pthread_mutex_t lock;
    pthread_cond_t finished;
} stream_destroyer;

static void *destroy_stream_main(void *arg)
{
    stream_destroyer *d = arg;
    int code = aclrtDestroyStream(d->stream);
    pthread_mutex_lock(&d->lock);
    d->code = code;
    d->done = true;
    pthread_cond_signal(&d->finished);
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

static bool wait_until_done(stream_destroyer *d, int seconds)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    pthread_mutex_lock(&d->lock);
    int rc = 0;
    while (!d->done && rc == 0) {
        rc = pthread_cond_timedwait(&d->finished, &d->lock, &deadline);
    }
    bool done = d->done;
    pthread_mutex_unlock(&d->lock);
    return done;
}

/* aclrtFree waits for queued work that uses the block, and
 * aclrtSynchronizeDevice for every stream; here that work waits for an
 * event. Another thread destroys an unrelated idle stream and would then
 * record the event: the destroy must not wait for the first thread's wait,
 * or a correct program never ends. (The test records the event itself
 * after a few seconds, so that a failure does not hang the run.) */
static void check_destroy_during_device_wide_wait(fuzz_context *ctx, bool by_free)
{
    const char *waiting_api = by_free ? "aclrtFree" : "aclrtSynchronizeDevice";
    aclrtStream held = NULL, unrelated = NULL;
    aclrtEvent gate = NULL;
    void *block = NULL;
    begin_call(ctx, "setup: a stream held by an event with a memset queued, and an idle stream");
    bool ok = aclrtCreateStream(&held) == 0 && aclrtCreateStream(&unrelated) == 0 && aclrtCreateEvent(&gate) == 0 &&
              aclrtMalloc(&block, 256, ACL_MEM_MALLOC_NORMAL_ONLY) == 0 &&
              aclrtMemsetAsync(block, 256, 1, 256, unrelated) == 0 && aclrtSynchronizeStream(unrelated) == 0 &&
              aclrtStreamWaitEvent(held, gate) == 0 && aclrtMemsetAsync(block, 256, 2, 256, held) == 0;
    if (!expect(ctx, ok, "setup failed")) {
        return;
    }
    device_wide_waiter waiter = {.by_free = by_free, .block = block};
    atomic_init(&waiter.done, false);
    stream_destroyer destroyer = {.stream = unrelated};
    pthread_mutex_init(&destroyer.lock, NULL);
    pthread_cond_init(&destroyer.finished, NULL);
    pthread_t waiting, destroying;
    pthread_create(&waiting, NULL, device_wide_wait_main, &waiter);
    /* The waiter cannot return before the event is recorded; give it time to start waiting. */
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    pthread_create(&destroying, NULL, destroy_stream_main, &destroyer);
    bool destroyed_in_time = wait_until_done(&destroyer, 2);
    begin_call(ctx, "aclrtDestroyStream(an idle stream) while another thread waits in %s for work behind an event",
               waiting_api);
    expect(ctx, destroyed_in_time, "still blocked after 2 s: it waits for the other thread's %s, which waits for "
                                   "the event this thread records next", waiting_api);
    bool returned_early = atomic_load(&waiter.done);
    begin_call(ctx, "aclrtRecordEvent(gate, NULL) to release %s", waiting_api);
    expect_code(ctx, "aclrtRecordEvent", aclrtRecordEvent(gate, NULL), only(ACL_SUCCESS));
    pthread_join(waiting, NULL);
    pthread_join(destroying, NULL);
    expect(ctx, !returned_early && waiter.code == ACL_SUCCESS && destroyer.code == ACL_SUCCESS,
           "%s returned %d%s; aclrtDestroyStream returned %d", waiting_api, waiter.code,
           returned_early ? " before the event was recorded" : "", destroyer.code);
    pthread_cond_destroy(&destroyer.finished);
    pthread_mutex_destroy(&destroyer.lock);
    begin_call(ctx, "teardown");
    ok = aclrtDestroyStream(held) == 0 && aclrtDestroyEvent(gate) == 0 && (by_free || aclrtFree(block) == 0);
    expect(ctx, ok, "teardown failed");
}

static void run_threads_part(void)
{
    fuzz_context ctx;
    start_context(&ctx, PART_THREADS, WORKERS);
    int before = g_failed + ctx.failed;
    run_worker_part(&ctx);
    check_destroy_during_device_wide_wait(&ctx, true);
    check_destroy_during_device_wide_wait(&ctx, false);
    finish_context(&ctx);
    check(g_failed == before, "threads: %d workers with own, shared and handed-over memory; a destroy during "
                              "device-wide waits", WORKERS);
}

/* ------------------------------------------------------------ main */

static pthread_mutex_t watchdog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watchdog_wake = PTHREAD_COND_INITIALIZER;
static bool watchdog_stopped;

/* A call that waits forever must fail the run, not hang it. */
static void *watchdog_main(void *arg)
{
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WATCHDOG_SECONDS;
    pthread_mutex_lock(&watchdog_lock);
    int rc = 0;
    while (!watchdog_stopped && rc == 0) {
        rc = pthread_cond_timedwait(&watchdog_wake, &watchdog_lock, &deadline);
    }
    bool stopped = watchdog_stopped;
    pthread_mutex_unlock(&watchdog_lock);
    if (!stopped) {
        printf("FAIL: not finished after %d s: a call waits forever (TEST_FUZZ_TRACE=1 shows which)\n",
               WATCHDOG_SECONDS);
        fflush(stdout);
        _exit(3);
    }
    return NULL;
}

static void stop_watchdog(pthread_t watchdog)
{
    pthread_mutex_lock(&watchdog_lock);
    watchdog_stopped = true;
    pthread_cond_signal(&watchdog_wake);
    pthread_mutex_unlock(&watchdog_lock);
    pthread_join(watchdog, NULL);
}

static void run_runtime_part(int only_episode, int count, const char *program)
{
    /* A readable file for aclInit's configPath (its content is not read). */
    char config_path[] = "/tmp/aclnn_emu_fuzz_runtime_XXXXXX";
    int config = mkstemp(config_path);
    if (config >= 0) {
        (void)!write(config, "{}\n", 3);
        close(config);
    }
    int before = g_failed;
    const int first = only_episode < 0 ? 0 : only_episode, episodes = only_episode < 0 ? EPISODES : count;
    for (int episode = first; episode - first < episodes; ++episode) {
        run_episode(episode, config >= 0 ? config_path : program);
    }
    if (config >= 0) {
        unlink(config_path);
    }
    check(g_failed == before, "runtime: %d episodes of %d steps", episodes, EPISODE_STEPS);
}

int main(int argc, char **argv)
{
    /* Read at the first call into the library: aclFinalize then reports what is alive. */
    setenv("ACLNN_EMU_REPORT_LEAKS", "1", 1);
    const char *trace = getenv("TEST_FUZZ_TRACE");
    trace_calls = trace != NULL && strcmp(trace, "0") != 0;
    const char *only_part = argc > 1 ? argv[1] : NULL;
    int only_number = argc > 2 ? atoi(argv[2]) : -1;
    int count = argc > 3 ? atoi(argv[3]) : 1;
    if ((only_part != NULL && strcmp(only_part, "runtime") != 0 && strcmp(only_part, "tensors") != 0 &&
         strcmp(only_part, "threads") != 0) ||
        (argc > 2 && only_number < 0) || count < 1) {
        fprintf(stderr, "usage: %s [runtime [episode [count]] | tensors [trial [count]] | threads]\n", argv[0]);
        return 2;
    }
    printf("seed 0x%llx\n", (unsigned long long)TEST_RNG_SEED);
    pthread_t watchdog;
    pthread_create(&watchdog, NULL, watchdog_main, NULL);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "aclInit/aclrtSetDevice failed\n");
        return 2;
    }
    if (only_part == NULL || strcmp(only_part, "runtime") == 0) {
        run_runtime_part(only_number, count, argv[0]);
    }
    if (only_part == NULL || strcmp(only_part, "threads") == 0) {
        run_threads_part();
    }
    if (only_part == NULL || strcmp(only_part, "tensors") == 0) {
        run_tensor_part(only_number, count);
    }
    aclrtResetDevice(0);
    leak_report report;
    aclError code = finalize_and_read_report(&report);
    check(code == ACL_SUCCESS && report.found && report.blocks == 0 && report.tensors == 0 && report.executors == 0 &&
              report.streams == 0 && report.events == 0,
          "at the end aclFinalize reports nothing alive:\n%s", report.text);
    stop_watchdog(watchdog);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
