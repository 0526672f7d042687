/* Plan and run of SiLU and SiLU backward on their tuned kernels.
 *
 * Inputs must have the output's shape; broadcast inputs are bound as views
 * of that shape with stride 0 (emu_view_broadcast_to). Every view may be
 * arbitrary: a non-contiguous tensor is staged through the workspace
 * (gathered before, scattered after), so kernels only see dense arrays.
 * Each tensor has its own dtype: fp16/bf16 data is widened to fp32 in
 * L1-sized blocks, computed in fp32 and rounded back to nearest even. */
#ifndef EMU_OPS_SILU_PLAN_H_
#define EMU_OPS_SILU_PLAN_H_

#include "meta/executor.h"

typedef enum {
    EMU_SILU_FORWARD,      /* y = silu(x):            inputs {x}     */
    EMU_SILU_GRAD  /* dx = silu'(x) * dy:     inputs {dy, x} */
} emu_silu_op;

/* Finishes phase 1 for an executor whose inputs (slots 0..n-1) and output
 * (slot n) are bound and validated. */
aclnnStatus emu_silu_publish(aclOpExecutor *executor, emu_silu_op op, uint64_t *workspace_size,
                                    aclOpExecutor **executor_out);

#endif /* EMU_OPS_SILU_PLAN_H_ */
