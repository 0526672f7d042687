/* Executor lifetime and the phase-2 checks common to every operator.
 *
 * Consumed executors are freed, but their addresses stay registered as
 * "consumed" (for the last EMU_CONSUMED_MEMORY of them), so a second phase 2
 * with the same pointer is reported instead of touching freed memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/executor.h"

enum { EMU_CONSUMED_MEMORY = 4096 };

static pthread_mutex_t consumed_lock = PTHREAD_MUTEX_INITIALIZER;
/* Guards pending_runs of every executor. */
static pthread_mutex_t runs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t runs_done = PTHREAD_COND_INITIALIZER;
static const void *consumed_ring[EMU_CONSUMED_MEMORY];
static size_t consumed_next;

aclOpExecutor *emu_executor_create(const char *phase1_api, const char *phase2_api, int input_count,
                                   int output_count)
{
    if (input_count < 0 || output_count < 0 || input_count + output_count > EMU_MAX_OP_TENSORS) {
        emu_set_message("%s: %d inputs and %d outputs do not fit the executor's %d tensor slots.", phase1_api,
                        input_count, output_count, (int)EMU_MAX_OP_TENSORS);
        return NULL;
    }
    aclOpExecutor *executor = malloc(sizeof *executor);
    if (executor == NULL) {
        emu_set_message("%s: out of host memory while creating the executor.", phase1_api);
        return NULL;
    }
    executor->api = phase2_api;
    executor->repeatable = false;
    executor->host_memory_allowed = emu_host_memory_allowed();
    executor->workspace_size = 0;
    executor->input_count = input_count;
    executor->output_count = output_count;
    executor->run = NULL;
    executor->pending_runs = 0;
    executor->names = NULL;
    executor->outputs_may_alias = false;
    memset(executor->present, 0, sizeof executor->present);
    return executor;
}

void emu_executor_name_tensors(aclOpExecutor *executor, const char *const *names)
{
    executor->names = names;
}

void emu_executor_bind(aclOpExecutor *executor, int index, const aclTensor *tensor)
{
    if (index < 0 || index >= executor->input_count + executor->output_count) {
        return; /* emu_executor_create sized the slots: an operator's bug, never the caller's */
    }
    executor->present[index] = tensor != NULL;
    if (tensor != NULL) {
        executor->tensors[index] = tensor->view;
    }
}

void emu_executor_allow_aliasing(aclOpExecutor *executor)
{
    executor->outputs_may_alias = true;
}

void emu_executor_mark_unused(aclOpExecutor *executor, int index)
{
    executor->tensors[index].rank = 1;
    executor->tensors[index].shape[0] = 0;
}

aclnnStatus emu_executor_publish(aclOpExecutor *executor, emu_run_fn run, uint64_t workspace_size,
                                 uint64_t *workspace_size_out, aclOpExecutor **executor_out)
{
    executor->run = run;
    executor->workspace_size = workspace_size;
    if (!emu_handle_add(executor, EMU_HANDLE_EXECUTOR)) {
        const char *api = executor->api;
        free(executor);
        return emu_fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%sGetWorkspaceSize: out of host memory while "
                                                         "registering the executor.", api);
    }
    *workspace_size_out = workspace_size;
    *executor_out = executor;
    return ACLNN_SUCCESS;
}

void emu_executor_discard(aclOpExecutor *executor)
{
    free(executor);
}

/* Marks a live executor consumed (atomically: of two threads racing to
 * consume it, one gets false) and remembers its address; the caller frees it. */
static bool mark_consumed(aclOpExecutor *executor)
{
    if (!emu_handle_change(executor, EMU_HANDLE_EXECUTOR, EMU_HANDLE_EXECUTOR_CONSUMED)) {
        return false;
    }
    pthread_mutex_lock(&consumed_lock);
    const void *oldest = consumed_ring[consumed_next];
    consumed_ring[consumed_next] = executor;
    consumed_next = (consumed_next + 1) % EMU_CONSUMED_MEMORY;
    pthread_mutex_unlock(&consumed_lock);
    if (oldest != NULL) {
        emu_handle_remove(oldest, EMU_HANDLE_EXECUTOR_CONSUMED);
    }
    return true;
}

static void wait_for_runs(aclOpExecutor *executor)
{
    pthread_mutex_lock(&runs_lock);
    while (executor->pending_runs > 0) {
        pthread_cond_wait(&runs_done, &runs_lock);
    }
    pthread_mutex_unlock(&runs_lock);
}

typedef struct {
    FILE *out;
} report_ctx;

static void report_one(const void *handle, void *ctx)
{
    const aclOpExecutor *executor = handle;
    FILE *out = ((report_ctx *)ctx)->out;
    if (out != NULL) {
        fprintf(out, "aclnn_emu:   executor %p of %s (%s)\n", handle, executor->api,
                executor->repeatable ? "repeatable, never passed to aclDestroyAclOpExecutor"
                                     : "phase 1 without phase 2");
    }
}

size_t emu_executor_report_live(void *out_file)
{
    report_ctx ctx = {.out = out_file};
    return emu_handle_each(EMU_HANDLE_EXECUTOR, report_one, &ctx);
}

/* Whether `executor` is among the remembered consumed addresses. The
 * registry forgets that an address was consumed once another object (a
 * tensor, a scalar) is allocated there; the ring still knows. */
static bool remembered_as_consumed(const aclOpExecutor *executor)
{
    bool found = false;
    pthread_mutex_lock(&consumed_lock);
    for (size_t i = 0; i < EMU_CONSUMED_MEMORY && !found; ++i) {
        found = consumed_ring[i] == (const void *)executor;
    }
    pthread_mutex_unlock(&consumed_lock);
    return found;
}

/* Checks that `executor` is live; on failure sets the message and returns the code. */
static aclnnStatus check_live(const char *api, const aclOpExecutor *executor, aclnnStatus null_code,
                              aclnnStatus dead_code)
{
    if (executor == NULL) {
        return emu_fail(null_code, "%s: executor is NULL; expected the executor returned by phase 1.", api);
    }
    if (emu_handle_is(executor, EMU_HANDLE_EXECUTOR)) {
        return ACLNN_SUCCESS;
    }
    if (emu_handle_is(executor, EMU_HANDLE_EXECUTOR_CONSUMED) || remembered_as_consumed(executor)) {
        return emu_fail(dead_code, "%s: executor %p was already consumed by an earlier run or destroyed; "
                                   "expected a fresh executor from phase 1 (call aclSetAclOpExecutorRepeatable "
                                   "right after phase 1 to run one executor many times).", api,
                        (const void *)executor);
    }
    return emu_fail(dead_code, "%s: executor %p is not a live executor; expected the executor returned by "
                               "phase 1 and not yet destroyed.", api, (const void *)executor);
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    aclnnStatus status = check_live("aclSetAclOpExecutorRepeatable", executor, ACLNN_ERR_INNER_NULLPTR,
                                    ACLNN_ERR_INNER);
    if (status != ACLNN_SUCCESS) {
        return status;
    }
    executor->repeatable = true;
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    aclnnStatus status = check_live("aclDestroyAclOpExecutor", executor, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_INNER);
    if (status != ACLNN_SUCCESS) {
        return status;
    }
    /* Launches still queued use it: they finish first. */
    wait_for_runs(executor);
    if (!mark_consumed(executor)) {
        return check_live("aclDestroyAclOpExecutor", executor, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_INNER);
    }
    free(executor);
    return ACLNN_SUCCESS;
}

/* "gradOutput (input 0)" when the operator named its slots, else "input 0";
 * "workspace" for slot -1. */
static const char *slot_label(const aclOpExecutor *executor, int slot, char *buf, size_t size)
{
    const bool input = slot < executor->input_count;
    const int position = input ? slot : slot - executor->input_count;
    if (slot < 0) {
        snprintf(buf, size, "workspace");
    } else if (executor->names != NULL) {
        snprintf(buf, size, "%s (%s %d)", executor->names[slot], input ? "input" : "output", position);
    } else {
        snprintf(buf, size, "%s %d", input ? "input" : "output", position);
    }
    return buf;
}

static aclnnStatus set_address(const char *api, aclOpExecutor *executor, size_t index, bool outputs_only,
                               bool inputs_only, aclTensor *tensor, void *addr)
{
    aclnnStatus status = check_live(api, executor, ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID);
    if (status != ACLNN_SUCCESS) {
        return status;
    }
    /* The descriptor is optional; a given one is written below. */
    if (tensor != NULL && !emu_tensor_is_live(tensor)) {
        return emu_check_live(api, "tensor", tensor, EMU_HANDLE_TENSOR);
    }
    size_t first = outputs_only ? (size_t)executor->input_count : 0;
    size_t count = inputs_only ? (size_t)executor->input_count
                 : outputs_only ? (size_t)executor->output_count
                                : (size_t)(executor->input_count + executor->output_count);
    if (index >= count) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: index is %zu; expected below %zu, the number of %s of %s.", api,
                        index, count, inputs_only ? "inputs" : outputs_only ? "outputs" : "tensors", executor->api);
    }
    size_t slot = first + index;
    if (!executor->present[slot]) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: index %zu names an optional tensor that phase 1 of %s was "
                                                 "given as NULL; expected a tensor given in phase 1.", api, index,
                        executor->api);
    }
    emu_view rebound = executor->tensors[slot];
    rebound.data = addr;
    if (!emu_view_is_empty(&rebound)) {
        /* The label is formatted on the error paths only: this call sits on
         * the hot path of every repeated launch. */
        char label[96], what[128];
        if (addr == NULL) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: addr is NULL for %s of %s, which has elements; expected "
                                                     "device memory from aclrtMalloc.", api,
                            slot_label(executor, (int)slot, label, sizeof label), executor->api);
        }
        const void *origin = emu_view_origin(&rebound);
        size_t extent = emu_view_extent_bytes(&rebound);
        if (!emu_view_is_aligned(&rebound)) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: addr %p puts the first element of %s of %s at %p, not a "
                                                     "multiple of its %zu-byte element size; expected an aligned "
                                                     "address.", api, addr,
                            slot_label(executor, (int)slot, label, sizeof label), executor->api, origin,
                            emu_dtype_size(rebound.dtype));
        }
        if (!executor->host_memory_allowed && !emu_host_memory_allowed() && !emu_device_range_ok(origin, extent)) {
            slot_label(executor, (int)slot, label, sizeof label);
            snprintf(what, sizeof what, "%s of %s", label, executor->api);
            emu_report_device_range(api, what, origin, extent);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    wait_for_runs(executor); /* queued launches keep the addresses they were launched with */
    executor->tensors[slot].data = addr;
    if (tensor != NULL) {
        tensor->view.data = addr;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_address("aclSetInputTensorAddr", executor, index, false, true, tensor, addr);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_address("aclSetOutputTensorAddr", executor, index, true, false, tensor, addr);
}

aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return set_address("aclSetTensorAddr", executor, index, false, false, tensor, addr);
}

aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return aclSetInputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return aclSetOutputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr)
{
    return aclSetTensorAddr(executor, index, tensor, addr);
}

/* ---- phase 2 ---- */

typedef struct {
    emu_task task;
    aclOpExecutor *executor;
    void *workspace;
    aclrtStream stream;
    bool owns_executor; /* single use: freed after the run */
    bool on_heap;
} launch_task;

static void describe_tensors(const aclOpExecutor *executor, int first, int count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = first; i < first + count && used < size; ++i) {
        char shape[256];
        int n;
        if (!executor->present[i]) {
            n = snprintf(buf + used, size - used, "%s(absent)", i > first ? ", " : "");
        } else {
            const emu_view *view = &executor->tensors[i];
            n = snprintf(buf + used, size - used, "%s%s%s%s", i > first ? ", " : "", emu_dtype_name(view->dtype),
                         emu_shape_string(view, shape, sizeof shape), emu_view_is_contiguous(view) ? "" : " strided");
        }
        if (n < 0) {
            break;
        }
        used += (size_t)n;
    }
}

static void log_launch(const launch_task *work, const char *kernel, double elapsed_ms)
{
    const aclOpExecutor *executor = work->executor;
    char inputs[1024], outputs[512];
    describe_tensors(executor, 0, executor->input_count, inputs, sizeof inputs);
    describe_tensors(executor, executor->input_count, executor->output_count, outputs, sizeof outputs);
    char stream[64];
    if (work->stream == NULL) {
        snprintf(stream, sizeof stream, "default stream");
    } else {
        snprintf(stream, sizeof stream, "stream %p", work->stream);
    }
    fprintf(stderr, "[aclnn_emu] %s on %s: inputs %s; outputs %s; workspace %llu bytes; kernel %s; %d thread(s); "
                    "%.3f ms\n", executor->api, stream, inputs, outputs,
            (unsigned long long)executor->workspace_size, kernel[0] ? kernel : "(none: empty tensors)",
            emu_num_threads(), elapsed_ms);
}

static void run_launch(emu_task *task)
{
    launch_task *work = (launch_task *)task;
    bool verbose = emu_verbose();
    double start = verbose ? emu_now_ms() : 0.0;
    const char *kernel = work->executor->run(work->executor, work->workspace);
    task->kernel = kernel != NULL ? kernel : "";
    if (verbose) {
        log_launch(work, task->kernel, emu_now_ms() - start);
    }
}

static void release_launch(emu_task *task)
{
    launch_task *work = (launch_task *)task;
    if (work->owns_executor) {
        free(work->executor);
    } else {
        pthread_mutex_lock(&runs_lock);
        if (--work->executor->pending_runs == 0) {
            pthread_cond_broadcast(&runs_done);
        }
        pthread_mutex_unlock(&runs_lock);
    }
    if (work->on_heap) {
        free(work);
    }
}

static bool launch_uses(const emu_task *task, const void *base, size_t size)
{
    const launch_task *work = (const launch_task *)task;
    const aclOpExecutor *executor = work->executor;
    if (emu_ranges_overlap(work->workspace, (size_t)executor->workspace_size, base, size)) {
        return true;
    }
    for (int i = 0; i < executor->input_count + executor->output_count; ++i) {
        const emu_view *view = &executor->tensors[i];
        if (executor->present[i] && !emu_view_is_empty(view) &&
            emu_ranges_overlap(emu_view_origin(view), emu_view_extent_bytes(view), base, size)) {
            return true;
        }
    }
    return false;
}

/* The byte ranges a launch touches: every bound view with elements and
 * memory (first to last element), then the workspace (slot -1) when the
 * plan has one. Computed once per launch for the checks below. */
typedef struct {
    const void *ptrs[EMU_MAX_OP_TENSORS + 1];
    size_t lens[EMU_MAX_OP_TENSORS + 1];
    int slots[EMU_MAX_OP_TENSORS + 1];
    int count;
} launch_ranges;

static void collect_ranges(const aclOpExecutor *executor, const void *workspace, launch_ranges *r)
{
    r->count = 0;
    for (int i = 0; i < executor->input_count + executor->output_count; ++i) {
        const emu_view *view = &executor->tensors[i];
        if (executor->present[i] && view->data != NULL && !emu_view_is_empty(view)) {
            r->ptrs[r->count] = emu_view_origin(view);
            r->lens[r->count] = emu_view_extent_bytes(view);
            r->slots[r->count++] = i;
        }
    }
    if (executor->workspace_size > 0) {
        r->ptrs[r->count] = workspace;
        r->lens[r->count] = (size_t)executor->workspace_size;
        r->slots[r->count++] = -1;
    }
}

/* Every range inside live device blocks. */
static aclnnStatus check_launch_memory(const char *api, const aclOpExecutor *executor, const launch_ranges *r)
{
    int bad = emu_device_ranges_check(r->ptrs, r->lens, r->count);
    if (bad < 0) {
        return ACLNN_SUCCESS;
    }
    char what[96];
    emu_report_device_range(api, slot_label(executor, r->slots[bad], what, sizeof what), r->ptrs[bad], r->lens[bad]);
    return ACLNN_ERR_PARAM_INVALID;
}

/* The workspace shares no byte with a view, and (unless the operator runs in
 * place) no output with an input or an earlier output: phase 1 checked the
 * views it was given, but addresses may have been rebound since. Ranges are
 * in slot order, the workspace last. */
static aclnnStatus check_launch_hazards(const char *api, const aclOpExecutor *executor, const launch_ranges *r)
{
    char a[96], b[96];
    const int views = r->count > 0 && r->slots[r->count - 1] < 0 ? r->count - 1 : r->count;
    for (int j = 0; j < views && views < r->count && r->ptrs[views] != NULL; ++j) {
        if (emu_ranges_overlap(r->ptrs[views], r->lens[views], r->ptrs[j], r->lens[j])) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the workspace (%p, %zu bytes) overlaps %s; expected "
                                                     "workspace memory of its own.", api, r->ptrs[views],
                            r->lens[views], slot_label(executor, r->slots[j], a, sizeof a));
        }
    }
    for (int i = 0; i < views && !executor->outputs_may_alias; ++i) {
        for (int j = 0; j < i && r->slots[i] >= executor->input_count; ++j) {
            if (emu_ranges_overlap(r->ptrs[i], r->lens[i], r->ptrs[j], r->lens[j])) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shares memory with %s (their bytes from first to "
                                                         "last element overlap); expected an output in memory of "
                                                         "its own.", api, slot_label(executor, r->slots[i], a,
                                                                                     sizeof a),
                                slot_label(executor, r->slots[j], b, sizeof b));
            }
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_executor_run(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                             aclrtStream stream)
{
    aclnnStatus status = check_live(api, executor, ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID);
    if (status != ACLNN_SUCCESS) {
        return status;
    }
    if (strcmp(executor->api, api) != 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: executor %p was planned by %sGetWorkspaceSize; expected an "
                                                 "executor from %sGetWorkspaceSize.", api, (void *)executor,
                        executor->api, api);
    }
    if (workspace == NULL && workspace_size > 0) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspace is NULL but workspaceSize is %llu; expected device "
                                                 "memory of that size.", api, (unsigned long long)workspace_size);
    }
    if (workspace_size < executor->workspace_size) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: workspaceSize is %llu; expected at least %llu bytes, as "
                                                 "phase 1 reported.", api, (unsigned long long)workspace_size,
                        (unsigned long long)executor->workspace_size);
    }
    launch_ranges ranges;
    collect_ranges(executor, workspace, &ranges);
    if (!executor->host_memory_allowed && !emu_host_memory_allowed()) {
        status = check_launch_memory(api, executor, &ranges);
        if (status != ACLNN_SUCCESS) {
            return status;
        }
    }
    status = check_launch_hazards(api, executor, &ranges);
    if (status != ACLNN_SUCCESS) {
        return status;
    }
    if (!emu_stream_is_valid(stream)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: stream %p is not a live stream; expected NULL (the default "
                                                 "stream) or a stream from aclrtCreateStream.", api, stream);
    }
    bool inline_run = emu_stream_runs_inline(stream);
    if (inline_run && emu_stream_ready(api, stream) != ACL_SUCCESS) {
        return ACLNN_ERR_RUNTIME_ERROR; /* the message names the event the stream waits for */
    }
    launch_task local;
    launch_task *work = inline_run ? &local : malloc(sizeof *work);
    if (work == NULL) {
        return emu_fail(ACLNN_ERR_INNER, "%s: out of host memory while queueing the launch.", api);
    }
    *work = (launch_task){.task = {.run = run_launch, .release = release_launch, .uses = launch_uses},
                          .executor = executor, .workspace = workspace, .stream = stream,
                          .owns_executor = !executor->repeatable, .on_heap = !inline_run};
    if (executor->repeatable) {
        pthread_mutex_lock(&runs_lock);
        ++executor->pending_runs;
        pthread_mutex_unlock(&runs_lock);
    } else if (!mark_consumed(executor)) {
        /* Another thread consumed it between the check and here. */
        if (work->on_heap) {
            free(work);
        }
        return check_live(api, executor, ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID);
    }
    emu_stream_submit(stream, &work->task);
    return ACLNN_SUCCESS;
}
