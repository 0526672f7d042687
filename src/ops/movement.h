/* Data movement (movement.c, movement_repeat.c, movement_cat.c, movement_pad.c,
 * movement_tri.c):
 * operators whose results are copies of their input over views, run as
 * element-wise identity or fill loops (ops/ew.h) over views built on the
 * stack. Phase 1 checks in CANN's order and keeps the operator's attributes
 * in the executor's plan area; phase 2 rebuilds the views from the
 * executor's tensors (their addresses may have been rebound) and runs one
 * loop per view pair, so an operator may run any number of them. */
#ifndef EMU_OPS_MOVEMENT_H_
#define EMU_OPS_MOVEMENT_H_

#include "meta/executor.h"
#include "ops/check.h"
#include "ops/opdef.h"

/* dst = src element by element (same shape; any strides, negative ones
 * included); dtypes may differ, converted as aclnnCast converts. Returns
 * the kernel's name, "" when there is nothing to do. */
const char *emu_mv_copy(const emu_view *src, const emu_view *dst);
/* Every element of dst = value (floats: value rounded to dst's dtype;
 * integers and BOOL: ivalue, wrapped into the dtype). */
const char *emu_mv_fill(const emu_view *dst, double value, int64_t ivalue);

/* `view` restricted to [begin, begin + size) along dim. */
void emu_mv_narrow(emu_view *view, int32_t dim, int64_t begin, int64_t size);

/* 161002 unless every non-empty tensor has data in device memory, the
 * output (the last of `count`) has distinct elements and, unless `in_place`
 * allows exactly the input's view, shares no byte with an input. */
aclnnStatus emu_mv_check_memory(const char *api, const char *const *names, const aclTensor *const *tensors,
                                int count, bool in_place);

/* Ends phase 1: an executor over `count` tensors (the last one the output)
 * with `plan` copied to its plan area. `empty`: nothing to do, the tensors
 * are bound unused and `run` is not called. */
aclnnStatus emu_mv_publish(const char *api, const char *phase2, const char *const *names,
                           const aclTensor *const *tensors, int count, const void *plan, size_t plan_size,
                           emu_run_fn run, uint64_t workspace, bool empty, bool in_place, uint64_t *workspaceSize,
                           aclOpExecutor **executor);

/* 161001 naming workspaceSize or executor when NULL. */
aclnnStatus emu_mv_check_phase1_outputs(const char *api, uint64_t *workspaceSize, aclOpExecutor **executor);
/* 161002 unless out has the shape of `want`, described by `what`. */
aclnnStatus emu_mv_check_out_shape(const char *api, const aclTensor *out, const emu_view *want, const char *what);
/* {"self", "out"}: the tensor names of most of these operators. */
extern const char *const EMU_MV_SELF_OUT[];

/* "[1, 2, 3]" into buf. */
const char *emu_mv_ints_string(const int64_t *values, uint64_t count, char *buf, size_t size);

/* The usual phase 2. */
#define EMU_MV_PHASE2(Name)                                                                                   \
    aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,                 \
                            aclrtStream stream)                                                               \
    {                                                                                                         \
        return emu_executor_run("aclnn" #Name, workspace, workspaceSize, executor, stream);                  \
    }

#endif /* EMU_OPS_MOVEMENT_H_ */
