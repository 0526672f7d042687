/* What aclnnRotaryPositionEmbedding and aclnnRotaryPositionEmbeddingGrad
 * share: the product, mode, shape and broadcast rules of CANN's tiling, and
 * the plan/run over the rows of the tensors.
 *
 * Broadcasting. The leading (non-D) axes of cos are each 1 or equal to the
 * same axis of dy (x in the forward). After dropping axes of size 1 and
 * merging neighbours of the same kind, they form at most three segments,
 * kept (K: cos follows dy) or broadcast (B: cos has 1). The plan stores them
 * as five sizes, dy row = ((((b0*k0 + i0)*m1 + b1)*k1 + i1)*m2 + b2) and cos
 * row = i0*k1 + i1, with unused sizes 1.
 *
 * Determinism. With x, each chunk of the parallel loop owns a range of cos
 * rows: it walks their dy rows a block of cos rows at a time, b0 by b0, so
 * every dcos/dsin row sums its contributions in increasing (b0, b1, b2)
 * order in fp32 whatever the block, chunking and thread count, and stores
 * the row once.
 *
 * Memory. The plans take no workspace (CANN's tiling asks for none beyond
 * the system's): strided inputs are read a kernel call's rows at a time
 * into per-chunk scratch. In place (the forward's out exactly x) the
 * kernels run on the same rows: every forward kernel reads all the elements
 * it combines (a pair, a vector of pairs, or a whole de-interleaved row)
 * before storing them, and no store reaches an element a later step reads,
 * so the results equal the out-of-place call's bit for bit. */
#ifndef EMU_OPS_ROPE_LAYOUT_H_
#define EMU_OPS_ROPE_LAYOUT_H_

#include "meta/executor.h"

/* Executor slots. Forward: x, cos, sin, out. Backward: dy, cos, sin, x, dx, dcos, dsin. */
enum {
    EMU_ROPE_SLOT_MAIN = 0,
    EMU_ROPE_SLOT_COS = 1,
    EMU_ROPE_SLOT_SIN = 2,
    EMU_ROPE_SLOT_X = 3,
    EMU_ROPE_FWD_SLOT_OUT = 3,
    EMU_ROPE_GRAD_SLOT_DX = 4,
    EMU_ROPE_GRAD_SLOT_DCOS = 5,
    EMU_ROPE_GRAD_SLOT_DSIN = 6,
};

/* The tensors one API validates, with the names its messages use. */
typedef struct {
    const char *api;
    const char *main_name; /* "dy" or "x" */
    const char *out_name;  /* "dxOut" or "out" */
    const aclTensor *main, *cos, *sin, *out;
    const aclTensor *x;           /* backward only; may be NULL */
    const aclTensor *dcos, *dsin; /* backward only */
    /* The forward: out may be exactly the view of x (in place); a partial
     * overlap stays refused. */
    bool out_may_be_main;
} emu_rope_args;

/* The product runs this operator (Atlas A2/A3 and Ascend950 do, the
 * training series does not): else ACLNN_ERR_INNER_FIND_KERNEL_ERROR. */
aclnnStatus emu_rope_check_product(const char *api);
/* Every present tensor is FLOAT, FLOAT16 or BFLOAT16, all equal to the
 * main tensor's dtype, in format ND: else ACLNN_ERR_PARAM_INVALID. */
aclnnStatus emu_rope_check_dtypes(const emu_rope_args *args);
/* Mode, ranks, shapes, D and the broadcast pattern the emulated product's
 * tiling accepts: else ACLNN_ERR_INNER_TILING_ERROR. */
aclnnStatus emu_rope_check_shapes(const emu_rope_args *args, int64_t mode);
/* Outputs contiguous, data present and inside device memory, no output
 * sharing memory with another tensor (but out exactly x where
 * out_may_be_main): else 161002. */
aclnnStatus emu_rope_check_memory(const emu_rope_args *args);

/* Finishes phase 1 of a validated executor (slots bound as above). */
aclnnStatus emu_rope_publish(aclOpExecutor *executor, bool forward, int64_t mode, bool has_x,
                             uint64_t *workspace_size, aclOpExecutor **executor_out);

#endif /* EMU_OPS_ROPE_LAYOUT_H_ */
