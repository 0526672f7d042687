/* aclOpExecutor: what phase 1 planned and phase 2 runs.
 *
 * Phase 1 copies every tensor view into the executor (so later changes to
 * the caller's descriptors do not leak in), stores an op-specific plan in
 * `plan`, and reports the workspace. Phase 2 goes through
 * emu_executor_run, the one place that checks executor state, workspace,
 * stream and device memory before queueing `run` on the stream. `run` may
 * execute later on the stream's worker thread: it must use only the
 * executor and the workspace, and treat the executor as read-only. */
#ifndef EMU_META_EXECUTOR_H_
#define EMU_META_EXECUTOR_H_

#include "meta/tensor.h"

enum { EMU_MAX_OP_TENSORS = 16, EMU_PLAN_BYTES = 1024 };

typedef struct aclOpExecutor aclOpExecutor;

/* Runs the plan. `workspace` is at least workspace_size bytes (or NULL when
 * that is 0). Returns the name of the kernel that ran ("" for none). */
typedef const char *(*emu_run_fn)(aclOpExecutor *executor, void *workspace);

struct aclOpExecutor {
    const char *api; /* phase-2 name, e.g. "aclnnSiluBackward" */
    bool repeatable;
    /* Planned while the thread allowed host memory: rebinding and runs may
     * use host memory too, from any thread. */
    bool host_memory_allowed;
    uint64_t workspace_size;
    int input_count;
    int output_count;
    /* Outputs may share memory with inputs (element-wise operators run in
     * place); otherwise phase 2 refuses views that rebinding made overlap. */
    bool outputs_may_alias;
    bool present[EMU_MAX_OP_TENSORS]; /* optional inputs given as NULL are absent */
    emu_view tensors[EMU_MAX_OP_TENSORS]; /* inputs, then outputs */
    emu_run_fn run;
    /* Phase-2 launches of this (repeatable) executor still queued or running;
     * guarded by the executor module's lock. Address setters and
     * aclDestroyAclOpExecutor wait until it is 0. */
    int pending_runs;
    /* Argument names of the tensor slots for phase-2 messages, or NULL
     * ("input 0", "output 0"); set with emu_executor_name_tensors. */
    const char *const *names;
    _Alignas(64) unsigned char plan[EMU_PLAN_BYTES];
};

/* A new executor with no tensors; NULL (message set) when out of memory or
 * when the tensors do not fit EMU_MAX_OP_TENSORS slots. */
aclOpExecutor *emu_executor_create(const char *phase1_api, const char *phase2_api, int input_count,
                                   int output_count);
/* Optional: the operator's argument names for the tensor slots (inputs,
 * then outputs; a static array), so phase-2 messages say "gradOutput"
 * rather than "input 0". */
void emu_executor_name_tensors(aclOpExecutor *executor, const char *const *names);
/* Copies the view of `tensor` (may be NULL for absent optional inputs) to slot `index`. */
void emu_executor_bind(aclOpExecutor *executor, int index, const aclTensor *tensor);
/* For element-wise operators, which read each element before writing it:
 * outputs may share memory with inputs (in-place calls). */
void emu_executor_allow_aliasing(aclOpExecutor *executor);
/* Keeps slot `index` bound (so the address setters accept it) but as an
 * empty view, for a tensor this plan never reads or writes: phase 2 then
 * does not check memory that phase 1 was right to ignore. */
void emu_executor_mark_unused(aclOpExecutor *executor, int index);
/* Ends a successful phase 1: hands the executor and its workspace size out. */
aclnnStatus emu_executor_publish(aclOpExecutor *executor, emu_run_fn run, uint64_t workspace_size,
                                 uint64_t *workspace_size_out, aclOpExecutor **executor_out);
/* Releases an executor that phase 1 could not finish. */
void emu_executor_discard(aclOpExecutor *executor);
/* Writes one line per live (published, not consumed) executor to `out`;
 * returns their number. */
size_t emu_executor_report_live(void *out_file);

/* The whole of every operator's phase 2: checks the executor, the workspace,
 * the stream and that every tensor view and the workspace lie in live device
 * memory (blocks may have been freed since phase 1), that the workspace
 * overlaps no view and, unless the operator allows aliasing, that no output
 * overlaps an input or another output (addresses may have been rebound
 * since phase 1), then queues the run on the stream. A single-use executor is consumed here (a second phase 2 gets
 * 161002) and freed after its run; a repeatable one may be queued many
 * times. */
aclnnStatus emu_executor_run(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                             aclrtStream stream);

#endif /* EMU_META_EXECUTOR_H_ */
