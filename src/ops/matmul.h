/* The matrix-multiply operators (matmul.c: Mm, BatchMatMul, Matmul, Mv) and
 * the batched product they all plan (matmul_plan.c) and run
 * (matmul_run.c).
 *
 * Every product is C[b] = A[b] · B[b] over a broadcast batch, computed the
 * way the cube unit is fed: each operand rounded to the compute dtype that
 * CANN's dtype rules pick (fp16, bf16, fp32, or fp32 rounded to HF32),
 * widened to fp32, multiplied by the fp32 GEMM of src/kernels/gemm (one fma
 * chain per element, in increasing k: bit-identical for any thread count,
 * ISA level and tiling), rounded once to the dtype the kernel writes, then
 * cast to out's dtype (a second rounding only where CANN casts a fp16/bf16
 * kernel result to another 16-bit dtype). The device accumulates in fp32
 * too, in its own block order; its sums may differ from ours in the last
 * bits. */
#ifndef EMU_OPS_MATMUL_H_
#define EMU_OPS_MATMUL_H_

#include "kernels/gemv/gemv.h"
#include "meta/executor.h"
#include "ops/check.h"
#include "ops/opdef.h"

enum { MM_BATCH_MAX = 6, MM_STAGE_DIMS = MM_BATCH_MAX + 2 };

/* cubeMathType values (CANN's op_api_def): FP16FP32_KEEP_DTYPE (-1) is an
 * internal mode that the op_api accepts on Atlas A2/A3. */
enum { MM_KEEP_FP16FP32 = -1, MM_KEEP_DTYPE = 0, MM_ALLOW_DOWN = 1, MM_USE_FP16 = 2, MM_USE_HF32 = 3,
       MM_USE_FP32_ADD = 4 };

/* How the cube sees the operands and what it writes. */
typedef struct {
    aclDataType compute;    /* FLOAT, FLOAT16 or BF16: both operands are cast to it */
    bool hf32;              /* FLOAT operands rounded to HF32 (11 mantissa bits) */
    aclDataType kernel_out; /* the dtype of the product before the cast to out */
} mm_precision;

/* One operand (or the result) of the product, in the executor's tensors:
 * element (batch index b, row r, column c) at view origin +
 * sum(b[d] * bstride[d]) + r * rs + c * cs, in elements of its dtype.
 * Broadcast dimensions have stride 0. */
typedef struct {
    int32_t slot;
    aclDataType dtype;
    int64_t bstride[MM_BATCH_MAX];
    int64_t rs, cs;
} mm_side;

/* mat2 in the FRACTAL_NZ layout (nz_layout.h): B's element (p, j) lies at
 * the batch's offset + emu_nz_index(r, c, rows16, c0) with (r, c) = (p, j),
 * or (j, p) for a transposed view (the NZ storage of B^T). b.rs and b.cs
 * are then 0. */
typedef struct {
    bool on, transposed;
    int64_t rows16, c0;
} mm_nz;

/* What an operator asks for: A is m x k, B is k x n, C is m x n. */
typedef struct {
    int32_t batch_rank;
    int64_t batch_shape[MM_BATCH_MAX];
    int64_t m, n, k;
    mm_side a, b, c;
    mm_nz b_nz;
    mm_precision precision;
    bool no_terms; /* an input is empty: C = 0 whatever k says */
} mm_problem;

/* self's operand copied to fp32 in the workspace once per run (its
 * dimensions of size > 1 and stride != 0, in the source's memory order),
 * rounded on the way. mat2's operand, when it needs the same, is copied a
 * block at a time by each task into its slot (see matmul_run.c). */
typedef struct {
    bool staged;
    bool to_f16; /* round to fp16 first (USE_FP16, or bf16 cast to fp16) */
    bool hf32;   /* round fp32 values to HF32 */
    int32_t rank;
    int64_t shape[MM_STAGE_DIMS], stride[MM_STAGE_DIMS]; /* source strides, outermost first */
    int64_t count;
    uint64_t offset; /* bytes into the (aligned) workspace */
} mm_stage;

/* Depth of the B blocks a task converts and multiplies at a time: at
 * least the GEMM's own depth block, and as deep as MM_BLOCK_FLOATS allow
 * (long runs of ggml's transposed weights stream from memory far better). */
enum { MM_KB = 256, MM_BLOCK_FLOATS = 128 * 1024 };
/* Runs of a converted block are MM_PAD floats further apart than their
 * length: a power-of-two distance would map the GEMM's 8 x 8 transposes
 * of 8 runs onto the same L1 sets. */
enum { MM_PAD = 16 };

/* A product of at most EMU_GEMV_MAX_M rows whose B the GEMV kernels read
 * in place (B needs no rounding on the way to fp32, and runs along k or
 * along n): the tasks call them instead of converting blocks of B for the
 * GEMM. Same bits (both keep gemm.h's chain); B's element (p, j) lies at
 * emu_gemv_index() of these fields. */
typedef struct {
    bool on, k_inner;
    emu_gemv_kind kind;
    int64_t stride, blk, blk_stride;
} mm_gemv;

typedef struct {
    mm_side a, b, c;  /* a indexes the fp32 copy where sa.staged; b is always the tensor */
    mm_stage sa;
    bool b_staged, b_to_f16, b_hf32; /* B's blocks converted per task */
    mm_nz b_nz;
    mm_gemv gemv;
    int32_t batch_rank;
    int64_t batch_shape[MM_BATCH_MAX];
    int64_t batches, m, n, k;
    aclDataType kernel_out;
    bool direct;      /* the GEMM writes out itself (fp32 result, unit column stride) */
    int64_t mt, nt;   /* rows and columns of C per task */
    int64_t kb;       /* depth of the GEMM calls (of B's converted blocks) */
    int64_t m_tiles, n_tiles, tasks;
    int32_t slots;
    uint64_t slot_bytes, slot_offset;
    uint64_t tile_offset, block_offset; /* in a slot: after the GEMM's scratch, C's tile, then B's block */
} mm_plan;

/* The CANN rules for cubeMathType and the dtypes of the two inputs and the
 * output (matmul_util's arch rules; names[] as the header calls them):
 * 161002 on a refused combination. */
aclnnStatus mm_resolve_precision(const char *api, const char *const names[3], aclDataType self,
                                 aclDataType mat2, aclDataType out, int8_t cube_math_type, mm_precision *precision);

/* Plans `problem` into executor->plan; returns the workspace size. */
uint64_t mm_plan_build(const mm_problem *problem, mm_plan *plan);
/* Phase 2 of every matrix-multiply operator. */
const char *mm_run(aclOpExecutor *executor, void *workspace);

#endif /* EMU_OPS_MATMUL_H_ */
