/* aclnnWeightQuantBatchMatmulV2's plan, shared by its phase 1
 * (quant_matmul.c) and its run (quant_matmul_run.c). */
#ifndef EMU_OPS_QUANT_MATMUL_H_
#define EMU_OPS_QUANT_MATMUL_H_

#include <assert.h>

#include "kernels/gemv/gemv.h"
#include "meta/executor.h"

/* Depth block, column block and row tile of one task. */
enum { WQ_KB = 256, WQ_NB = 64, WQ_MT = 256 };
/* The executor's tensor slots: the phase-1 arguments in order. */
enum { WQ_X, WQ_W, WQ_SCALE, WQ_OFFSET, WQ_QSCALE, WQ_QOFFSET, WQ_BIAS, WQ_Y, WQ_SLOTS };

typedef enum { W_INT8, W_INT4, W_INT8_NZ } wq_weight;

typedef struct {
    int64_t m, k, n;
    aclDataType xdt;
    int64_t xs_m, xs_k;
    wq_weight wkind;
    int64_t ws_k, ws_n; /* ND: element (INT4: nibble) strides of the weight */
    int64_t w_nib0;     /* INT4: nibble of the first element in the first byte */
    bool nz_trans;      /* NZ: the stored matrix is [n, k] (the view is its transpose) */
    int64_t nz_rows16;  /* NZ: rows of the stored matrix, aligned to 16 */
    int64_t group;      /* k rows per group of scales (k: one group) */
    int64_t sc_g, sc_n; /* scale strides per group and per column (0: the same value) */
    bool has_offset;
    int64_t of_g, of_n;
    bool has_bias;
    aclDataType bias_dt;
    int64_t ys_m;
    /* At most EMU_GEMV_MAX_M rows and a weight the GEMV kernels read in
     * place: tasks of gemv_nt columns dequantize inside the kernel (same
     * bits as the blocks). B's element (p, j) at emu_gemv_index() of these. */
    bool gemv, gemv_k_inner;
    int64_t gemv_stride, gemv_blk, gemv_blk_stride, gemv_nt;
    int64_t m_tiles, n_tiles, tasks, slots;
    uint64_t slot_offset, slot_bytes, block_offset, tile_offset;
} wq_plan;

static_assert(sizeof(wq_plan) <= EMU_PLAN_BYTES, "wq_plan must fit in the executor");

/* Phase 2: dequantizes the weight a block at a time and multiplies. */
const char *wq_run(aclOpExecutor *executor, void *workspace);

#endif /* EMU_OPS_QUANT_MATMUL_H_ */
