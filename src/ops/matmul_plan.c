/* The matrix-multiply rules shared by Mm, BatchMatMul, Matmul and Mv, and
 * the plan of their batched product (matmul.h).
 *
 * Dtypes and cubeMathType follow hicann/ops-nn matmul/common/op_host/op_api
 * (matmul_util.cpp: Dav2201MatMulRule for Atlas A2/A3 and Ascend950,
 * DefaultMatMulRule for the training series; cube_util.cpp). */
#include <stdio.h>
#include <string.h>

#include "kernels/gemm/gemm.h"
#include "ops/matmul.h"

enum { MM_ALIGN = 64 };

static const emu_dtype_table MM_TYPES = EMU_DTYPES(EMU_DT(ACL_FLOAT) | EMU_DT(ACL_FLOAT16) | EMU_DT(ACL_BF16));

aclnnStatus mm_resolve_precision(const char *api, const char *const names[3], aclDataType self,
                                 aclDataType mat2, aclDataType out, int8_t cube, mm_precision *p)
{
    const emu_soc soc = emu_soc_get();
    const bool training = soc == EMU_SOC_ASCEND910, a5 = soc == EMU_SOC_ASCEND950;
    if (cube == MM_KEEP_FP16FP32 && a5) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: cubeMathType is -1 (FP16FP32_KEEP_DTYPE); Ascend950 does "
                                                 "not support it.", api);
    }
    const aclDataType dtypes[3] = {self, mat2, out};
    for (int i = 0; i < 3; ++i) {
        EMU_TRY(emu_check_dtype_table(api, names[i], dtypes[i], &MM_TYPES));
    }
    if (cube < MM_KEEP_FP16FP32 || cube > MM_USE_FP32_ADD) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: cubeMathType is %d; expected 0 (KEEP_DTYPE), 1 "
                                                 "(ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16), 3 (USE_HF32) or 4 "
                                                 "(USE_FP32_ADD).", api, (int)cube);
    }
    if (training) {
        const bool any_f32 = self == ACL_FLOAT || mat2 == ACL_FLOAT;
        /* The training series has no fp32 cube: fp32 inputs need a mode
         * that lets them go down to fp16 (ALLOW_FP32_DOWN_PRECISION or
         * USE_FP16). Its rule has no column for USE_FP32_ADD, which the
         * documentation says has no effect there: it is KEEP_DTYPE here. */
        const int mode = cube == MM_USE_FP32_ADD || cube == MM_KEEP_FP16FP32 ? MM_KEEP_DTYPE : cube;
        if (any_f32 && (mode == MM_KEEP_DTYPE || mode == MM_USE_HF32)) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s and %s have dtypes %s and %s with cubeMathType %d; the "
                                                     "Atlas training series computes no FLOAT in the cube: expected "
                                                     "cubeMathType 1 (ALLOW_FP32_DOWN_PRECISION) or 2 (USE_FP16).",
                            api, names[0], names[1], emu_dtype_name(self), emu_dtype_name(mat2), (int)cube);
        }
        p->compute = ACL_FLOAT16;
        p->hf32 = false;
        p->kernel_out = out == ACL_FLOAT ? ACL_FLOAT : ACL_FLOAT16;
        return ACLNN_SUCCESS;
    }
    const bool same_half = (self == ACL_FLOAT16 && mat2 == ACL_FLOAT16) || (self == ACL_BF16 && mat2 == ACL_BF16);
    if (same_half) {
        p->compute = self;
    } else {
        /* fp32 with anything, and fp16 with bf16: fp32, or fp16 with USE_FP16. */
        p->compute = cube == MM_USE_FP16 ? ACL_FLOAT16 : ACL_FLOAT;
    }
    /* ALLOW_FP32_DOWN_PRECISION and USE_HF32 run fp32 as HF32 (NeedCubeGoHF32). */
    p->hf32 = p->compute == ACL_FLOAT && (cube == MM_ALLOW_DOWN || cube == MM_USE_HF32);
    if (cube == MM_KEEP_FP16FP32) {
        p->kernel_out = ACL_FLOAT;
        return ACLNN_SUCCESS;
    }
    /* Atlas A2/A3 keep an fp32 out in fp32 unless USE_FP16; fp16 x fp16 and
     * bf16 x bf16 write fp32 for an fp32 out on A2/A3 and Ascend950. */
    p->kernel_out = !a5 && cube != MM_USE_FP16 && out == ACL_FLOAT ? ACL_FLOAT : p->compute;
    if (same_half && out == ACL_FLOAT) {
        p->kernel_out = ACL_FLOAT;
    }
    return ACLNN_SUCCESS;
}

/* ---- the plan ---- */

static uint64_t align_up(uint64_t bytes)
{
    return (bytes + MM_ALIGN - 1) / MM_ALIGN * MM_ALIGN;
}

static void remove_batch_dim(mm_problem *p, int32_t d)
{
    for (int32_t i = d; i + 1 < p->batch_rank; ++i) {
        p->batch_shape[i] = p->batch_shape[i + 1];
        p->a.bstride[i] = p->a.bstride[i + 1];
        p->b.bstride[i] = p->b.bstride[i + 1];
        p->c.bstride[i] = p->c.bstride[i + 1];
    }
    --p->batch_rank;
}

/* Batch dimensions of size 1 go; the innermost ones over which B does not
 * move and A and C step by whole matrices become rows (one taller product
 * instead of several short ones against the same B). */
static void fold_batch(mm_problem *p)
{
    for (int32_t d = p->batch_rank - 1; d >= 0; --d) {
        if (p->batch_shape[d] == 1) {
            remove_batch_dim(p, d);
        }
    }
    while (p->batch_rank > 0) {
        const int32_t d = p->batch_rank - 1;
        if (p->b.bstride[d] != 0) {
            break;
        }
        if (p->m == 1) {
            p->a.rs = p->a.bstride[d];
            p->c.rs = p->c.bstride[d];
        } else if (p->a.bstride[d] != p->a.rs * p->m || p->c.bstride[d] != p->c.rs * p->m) {
            break;
        }
        p->m *= p->batch_shape[d];
        --p->batch_rank;
    }
}

/* C = A B as C^T = B^T A^T: a product with few columns has as many rows
 * afterwards, which the GEMM's wide micro-tiles waste far less work on. */
static void transpose(mm_problem *p)
{
    const mm_side a = p->a, b = p->b;
    p->a = b;
    p->a.rs = b.cs;
    p->a.cs = b.rs;
    p->b = a;
    p->b.rs = a.cs;
    p->b.cs = a.rs;
    const int64_t c_rs = p->c.rs;
    p->c.rs = p->c.cs;
    p->c.cs = c_rs;
    const int64_t m = p->m;
    p->m = p->n;
    p->n = m;
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* The fp32 copy of one operand (rows x cols per batch): the dimensions
 * that address distinct elements, in the source's memory order (largest
 * stride first), densely; side's strides then index the copy. */
static void plan_stage(const mm_problem *p, const mm_precision *prec, mm_side *side, int64_t rows, int64_t cols,
                       mm_stage *s, uint64_t *workspace)
{
    memset(s, 0, sizeof *s);
    s->staged = side->dtype != ACL_FLOAT || prec->compute != ACL_FLOAT || prec->hf32;
    if (!s->staged) {
        return;
    }
    s->to_f16 = prec->compute == ACL_FLOAT16 && side->dtype != ACL_FLOAT16;
    s->hf32 = prec->hf32 && side->dtype == ACL_FLOAT;
    int64_t shape[MM_STAGE_DIMS], *stride[MM_STAGE_DIMS];
    int32_t n = 0;
    for (int32_t d = 0; d < p->batch_rank; ++d) {
        shape[n] = p->batch_shape[d];
        stride[n++] = &side->bstride[d];
    }
    shape[n] = rows;
    stride[n++] = &side->rs;
    shape[n] = cols;
    stride[n++] = &side->cs;
    int32_t order[MM_STAGE_DIMS], kept = 0;
    for (int32_t d = 0; d < n; ++d) {
        if (shape[d] > 1 && *stride[d] != 0) {
            int32_t at = kept++;
            while (at > 0 && abs64(*stride[order[at - 1]]) < abs64(*stride[d])) {
                order[at] = order[at - 1];
                --at;
            }
            order[at] = d;
        }
    }
    s->rank = kept;
    int64_t dense = 1;
    for (int32_t i = kept - 1; i >= 0; --i) {
        s->shape[i] = shape[order[i]];
        s->stride[i] = *stride[order[i]];
        *stride[order[i]] = dense;
        dense *= s->shape[i];
    }
    for (int32_t d = 0; d < n; ++d) {
        if (shape[d] <= 1 || *stride[d] == 0) {
            *stride[d] = 0;
        }
    }
    s->count = dense;
    s->offset = *workspace;
    *workspace = align_up(*workspace + (uint64_t)dense * sizeof(float));
}

/* Rows and columns per task: as large as possible (each task packs its B
 * columns once, so taller tasks pack less), small enough to give every
 * thread about four tasks. A product of a few rows is bound by reading B:
 * narrow tasks read few of B's rows (ggml's transposed weights) at a time,
 * which the prefetchers follow. The tiling does not change any result. */
static void plan_tiles(mm_plan *plan, int64_t target)
{
    const int64_t n_cap = plan->m <= 8 ? 32 : plan->m <= 32 ? 256 : 1024;
    int64_t mt = plan->m < 768 ? plan->m : 768, nt = plan->n < n_cap ? plan->n : n_cap;
    for (;;) {
        const int64_t tasks = plan->batches * ((plan->m + mt - 1) / mt) * ((plan->n + nt - 1) / nt);
        if (tasks >= target) {
            break;
        }
        if (nt > 256) {
            nt = (nt / 2 + 31) / 32 * 32;
        } else if (mt > 96) {
            mt = (mt / 2 + 11) / 12 * 12;
        } else if (nt > 32) {
            nt = (nt / 2 + 31) / 32 * 32;
        } else if (mt > 12) {
            mt = (mt / 2 + 11) / 12 * 12;
        } else {
            break;
        }
    }
    /* Tiles of even sizes (multiples of the micro-tiles where they can be). */
    mt = mt > 0 ? mt : 1;
    nt = nt > 0 ? nt : 1;
    plan->m_tiles = (plan->m + mt - 1) / mt;
    plan->n_tiles = (plan->n + nt - 1) / nt;
    mt = ((plan->m + plan->m_tiles - 1) / plan->m_tiles + 11) / 12 * 12;
    nt = ((plan->n + plan->n_tiles - 1) / plan->n_tiles + 31) / 32 * 32;
    plan->mt = mt < plan->m ? mt : plan->m;
    plan->nt = nt < plan->n ? nt : plan->n;
    plan->m_tiles = (plan->m + plan->mt - 1) / plan->mt;
    plan->n_tiles = (plan->n + plan->nt - 1) / plan->nt;
    plan->tasks = plan->batches * plan->m_tiles * plan->n_tiles;
}

/* Whether the GEMV kernels can read B as it is, and how (mm_gemv). */
static mm_gemv plan_gemv(const mm_problem *p, const mm_plan *plan)
{
    mm_gemv v = {0};
    if (p->k <= 0 || p->m > EMU_GEMV_MAX_M || plan->b_to_f16 || plan->b_hf32) {
        return v;
    }
    v.kind = p->b.dtype == ACL_FLOAT16 ? EMU_GEMV_F16 : p->b.dtype == ACL_BF16 ? EMU_GEMV_BF16 : EMU_GEMV_F32;
    if (p->b_nz.on) {
        /* Only the storage of B^T ([n, k]) has runs along k; the other's
         * runs along n are C0 long, shorter than the kernels' vectors. */
        if (!p->b_nz.transposed) {
            return v;
        }
        v.k_inner = true;
        v.stride = p->b_nz.c0;
        v.blk = p->b_nz.c0;
        v.blk_stride = p->b_nz.rows16 * p->b_nz.c0;
    } else if (p->b.rs == 1) {
        v.k_inner = true;
        v.stride = p->b.cs;
        v.blk = p->k;
    } else if (p->b.cs == 1) {
        v.stride = p->b.rs;
    } else {
        return v;
    }
    v.on = true;
    return v;
}

/* GEMV tasks: all rows, columns in multiples of 32 (whole vectors), at
 * most 512 (so a rounded tile stays in L1) and few enough that every
 * thread gets about four tasks. */
static void plan_gemv_tiles(mm_plan *plan, int64_t target)
{
    int64_t nt = plan->n < 512 ? plan->n : 512;
    while (nt > 64 && plan->batches * ((plan->n + nt - 1) / nt) < target) {
        nt = (nt / 2 + 31) / 32 * 32;
    }
    plan->mt = plan->m > 0 ? plan->m : 1;
    plan->nt = nt > 0 ? nt : 1;
    plan->m_tiles = 1;
    plan->n_tiles = (plan->n + plan->nt - 1) / plan->nt;
    plan->tasks = plan->batches * plan->m_tiles * plan->n_tiles;
}

uint64_t mm_plan_build(const mm_problem *problem, mm_plan *plan)
{
    mm_problem p = *problem;
    if (p.no_terms) {
        p.k = 0;
    }
    fold_batch(&p);
    if (p.n < 8 && p.m > p.n && !p.b_nz.on) {
        transpose(&p);
    }
    memset(plan, 0, sizeof *plan);
    plan->batch_rank = p.batch_rank;
    plan->batches = 1;
    for (int32_t d = 0; d < p.batch_rank; ++d) {
        plan->batch_shape[d] = p.batch_shape[d];
        plan->batches *= p.batch_shape[d];
    }
    plan->m = p.m;
    plan->n = p.n;
    plan->k = p.k;
    plan->kernel_out = p.precision.kernel_out;
    uint64_t workspace = 0; /* offsets from the aligned base (mm_run) */
    if (p.k > 0) {
        plan_stage(&p, &p.precision, &p.a, p.m, p.k, &plan->sa, &workspace);
        /* A product of a few rows also copies fp32 blocks: the GEMM would
         * otherwise read B in short pieces of many rows at once. */
        plan->b_staged = p.b.dtype != ACL_FLOAT || p.precision.compute != ACL_FLOAT || p.precision.hf32 ||
                         p.b_nz.on || p.m <= 8;
        plan->b_nz = p.b_nz;
        plan->b_to_f16 = p.precision.compute == ACL_FLOAT16 && p.b.dtype != ACL_FLOAT16;
        plan->b_hf32 = p.precision.hf32 && p.b.dtype == ACL_FLOAT;
    }
    if (p.n == 1) {
        p.c.cs = 1; /* never stepped */
    }
    plan->a = p.a;
    plan->b = p.b;
    plan->c = p.c;
    plan->direct = p.c.dtype == ACL_FLOAT && p.precision.kernel_out == ACL_FLOAT && p.c.cs == 1;
    const int64_t threads = emu_num_threads() > 0 ? emu_num_threads() : 1;
    plan->gemv = plan_gemv(&p, plan);
    if (plan->gemv.on) {
        plan->b_staged = false;
        plan_gemv_tiles(plan, 4 * threads);
    } else {
        plan_tiles(plan, 4 * threads);
    }
    plan->slots = (int32_t)(plan->tasks < threads ? plan->tasks : threads);
    plan->tile_offset = plan->gemv.on ? 0 : align_up(emu_sgemm_scratch_bytes());
    plan->block_offset = plan->tile_offset + (plan->direct ? 0 : align_up((uint64_t)(plan->mt * plan->nt) * 4));
    plan->kb = MM_KB;
    if (plan->b_staged && MM_BLOCK_FLOATS / plan->nt > MM_KB) {
        plan->kb = MM_BLOCK_FLOATS / plan->nt;
    }
    plan->kb = plan->kb < p.k ? plan->kb : (p.k > 0 ? p.k : 1);
    const uint64_t block = (uint64_t)((plan->kb + MM_PAD) * (plan->nt + MM_PAD)) * 4;
    plan->slot_bytes = plan->block_offset + (plan->b_staged ? align_up(block) : 0);
    plan->slot_offset = workspace;
    /* MM_ALIGN more: mm_run moves the caller's base up to 63 bytes to align it. */
    return workspace + plan->slot_bytes * (uint64_t)plan->slots + MM_ALIGN;
}
