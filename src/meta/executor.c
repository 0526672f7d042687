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
static const void *consumed_ring[EMU_CONSUMED_MEMORY];
static size_t consumed_next;

aclOpExecutor *emu_executor_create(const char *phase1_api, const char *phase2_api, int input_count,
                                   int output_count)
{
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
    memset(executor->present, 0, sizeof executor->present);
    return executor;
}

void emu_executor_bind(aclOpExecutor *executor, int index, const aclTensor *tensor)
{
    executor->present[index] = tensor != NULL;
    if (tensor != NULL) {
        executor->tensors[index] = tensor->view;
    }
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

static void remember_consumed(aclOpExecutor *executor)
{
    if (!emu_handle_change(executor, EMU_HANDLE_EXECUTOR, EMU_HANDLE_EXECUTOR_CONSUMED)) {
        return;
    }
    pthread_mutex_lock(&consumed_lock);
    const void *oldest = consumed_ring[consumed_next];
    consumed_ring[consumed_next] = executor;
    consumed_next = (consumed_next + 1) % EMU_CONSUMED_MEMORY;
    pthread_mutex_unlock(&consumed_lock);
    if (oldest != NULL) {
        emu_handle_remove(oldest, EMU_HANDLE_EXECUTOR_CONSUMED);
    }
    free(executor);
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
    if (emu_handle_is(executor, EMU_HANDLE_EXECUTOR_CONSUMED)) {
        return emu_fail(dead_code, "%s: executor %p was already consumed by an earlier run; expected a fresh "
                                   "executor from phase 1, or call aclSetAclOpExecutorRepeatable right after "
                                   "phase 1 to run one executor many times.", api, (const void *)executor);
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
    remember_consumed(executor);
    return ACLNN_SUCCESS;
}

static aclnnStatus set_address(const char *api, aclOpExecutor *executor, size_t index, bool outputs_only,
                               bool inputs_only, aclTensor *tensor, void *addr)
{
    aclnnStatus status = check_live(api, executor, ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID);
    if (status != ACLNN_SUCCESS) {
        return status;
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
        if (addr == NULL) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: addr is NULL for tensor %zu of %s, which has elements; "
                                                     "expected device memory from aclrtMalloc.", api, index,
                            executor->api);
        }
        const void *origin = emu_view_origin(&rebound);
        size_t extent = emu_view_extent_bytes(&rebound);
        if (!executor->host_memory_allowed && !emu_host_memory_allowed() && !emu_device_range_ok(origin, extent)) {
            char what[96];
            snprintf(what, sizeof what, "tensor %zu of %s", index, executor->api);
            emu_report_device_range(api, what, origin, extent);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
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

typedef struct {
    aclOpExecutor *executor;
    void *workspace;
    const char *kernel;
} launch;

static void run_launch(void *ctx)
{
    launch *work = ctx;
    work->kernel = work->executor->run(work->executor, work->workspace);
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
    if (executor->workspace_size > 0 && !executor->host_memory_allowed && !emu_host_memory_allowed() &&
        !emu_device_range_ok(workspace, (size_t)executor->workspace_size)) {
        emu_report_device_range(api, "workspace", workspace, (size_t)executor->workspace_size);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (!emu_stream_is_valid(stream)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: stream %p is not a live stream; expected NULL (the default "
                                                 "stream) or a stream from aclrtCreateStream.", api, stream);
    }
    launch work = {.executor = executor, .workspace = workspace, .kernel = ""};
    double start = emu_verbose() ? emu_now_ms() : 0.0;
    emu_stream_launch(stream, run_launch, &work);
    emu_set_last_kernel(work.kernel);
    if (emu_verbose()) {
        fprintf(stderr, "[aclnn_emu] %s: kernel %s, %d thread(s), %.3f ms\n", api,
                work.kernel[0] ? work.kernel : "(none: empty tensors)", emu_num_threads(), emu_now_ms() - start);
    }
    if (!executor->repeatable) {
        remember_consumed(executor);
    }
    return ACLNN_SUCCESS;
}
