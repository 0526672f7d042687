/* Phase 2 of aclnnWeightQuantBatchMatmulV2 (quant_matmul.c): x is copied to
 * fp32 once; then every task (a tile of WQ_MT rows and WQ_NB columns of y)
 * dequantizes its columns of the weight WQ_KB rows at a time into its slot
 * and runs the fp32 GEMM on them, the chain of each element going on from
 * block to block; the bias is added and the row rounded to y's dtype. A
 * product of a few rows (wq_plan.gemv) instead has the GEMV kernels read
 * the weight once, dequantizing in registers by the same formula: copying
 * it would cost more than the product. Tasks
 * are claimed by the threads as they come, each computed by one alone, so
 * the results do not depend on the thread count or the ISA. */
#include <stdatomic.h>
#include <stdio.h>

#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemv/gemv.h"
#include "ops/nz_layout.h"
#include "ops/quant_matmul.h"

typedef struct {
    const wq_plan *p;
    const emu_convert_kernels *cv;
    const emu_gemm_kernels *gemm;
    const emu_gemv_kernels *gemv;
    unsigned char *ws;
    const char *x;
    float *x32;
    const unsigned char *w;
    const uint16_t *scale, *offset;
    const char *bias;
    char *y;
    atomic_llong next;
} wq_ctx;

static inline float half_value(const wq_plan *p, uint16_t h)
{
    return p->xdt == ACL_FLOAT16 ? emu_f16_to_f32(h) : emu_bf16_to_f32(h);
}

static void stage_x(void *opaque, size_t begin, size_t end)
{
    wq_ctx *t = opaque;
    const wq_plan *p = t->p;
    uint16_t tmp[WQ_KB];
    for (size_t i = begin; i < end; ++i) {
        const uint16_t *src = (const uint16_t *)t->x + (int64_t)i * p->xs_m;
        float *dst = t->x32 + (int64_t)i * p->k;
        for (int64_t k0 = 0; k0 < p->k; k0 += WQ_KB) {
            const int64_t len = p->k - k0 < WQ_KB ? p->k - k0 : WQ_KB;
            const uint16_t *run = src + k0 * p->xs_k;
            if (p->xs_k != 1) {
                for (int64_t j = 0; j < len; ++j) {
                    tmp[j] = run[j * p->xs_k];
                }
                run = tmp;
            }
            (p->xdt == ACL_FLOAT16 ? t->cv->f16_to_f32 : t->cv->bf16_to_f32)((size_t)len, run, dst + k0);
        }
    }
}

/* Quantized values of weight row k, columns [n0, n0 + nc), as floats. */
static void load_q(const wq_ctx *t, int64_t k, int64_t n0, int64_t nc, float *row)
{
    const wq_plan *p = t->p;
    const int8_t *w8 = (const int8_t *)t->w;
    switch (p->wkind) {
    case W_INT8:
        for (int64_t j = 0; j < nc; ++j) {
            row[j] = (float)w8[k * p->ws_k + (n0 + j) * p->ws_n];
        }
        break;
    case W_INT4:
        for (int64_t j = 0; j < nc; ++j) {
            const int64_t nib = p->w_nib0 + k * p->ws_k + (n0 + j) * p->ws_n;
            const unsigned v = (nib & 1) ? t->w[nib >> 1] >> 4 : t->w[nib >> 1] & 15u;
            row[j] = (float)((int)(v ^ 8u) - 8);
        }
        break;
    case W_INT8_NZ:
        for (int64_t j = 0; j < nc; ++j) {
            const int64_t r = p->nz_trans ? n0 + j : k, c = p->nz_trans ? k : n0 + j;
            row[j] = (float)w8[emu_nz_index(r, c, p->nz_rows16, EMU_NZ_BLOCK_BYTES)];
        }
        break;
    }
}

/* Rows [k0, k0 + kc) and columns [n0, n0 + nc) of the dequantized weight,
 * in x's dtype (held as floats), row-major in dst. */
static void dequant_block(const wq_ctx *t, int64_t k0, int64_t kc, int64_t n0, int64_t nc, float *dst)
{
    const wq_plan *p = t->p;
    const bool f16 = p->xdt == ACL_FLOAT16;
    for (int64_t kk = 0; kk < kc; ++kk) {
        const int64_t g = (k0 + kk) / p->group;
        float *row = dst + kk * nc;
        load_q(t, k0 + kk, n0, nc, row);
        const uint16_t *sc = t->scale + g * p->sc_g + n0 * p->sc_n;
        const uint16_t *of = p->has_offset ? t->offset + g * p->of_g + n0 * p->of_n : NULL;
        for (int64_t j = 0; j < nc; ++j) {
            float v = row[j];
            if (of != NULL) {
                v += half_value(p, of[j * p->of_n]);
                if (f16) {
                    v = emu_f16_to_f32(emu_f32_to_f16(v));
                }
            }
            v *= half_value(p, sc[j * p->sc_n]);
            row[j] = f16 ? emu_f16_to_f32(emu_f32_to_f16(v)) : emu_bf16_to_f32(emu_f32_to_bf16(v));
        }
    }
}

/* All rows of y, columns [j0, j0 + cols), by the GEMV kernel: the weight
 * dequantized in registers with the formula of dequant_block. */
static void gemv_tile(const wq_ctx *t, int64_t j0, int64_t cols, float *tile)
{
    const wq_plan *p = t->p;
    const emu_gemv_args v = {.m = p->m, .n0 = j0, .n = cols, .k = p->k, .a = t->x32, .a_row_stride = p->k,
                             .a_col_stride = 1, .kind = p->wkind == W_INT4 ? EMU_GEMV_I4 : EMU_GEMV_I8, .b = t->w,
                             .k_inner = p->gemv_k_inner, .stride = p->gemv_stride, .blk = p->gemv_blk,
                             .blk_stride = p->gemv_blk_stride, .scale = t->scale, .offset = t->offset,
                             .group = p->group, .sc_g = p->sc_g, .sc_n = p->sc_n, .of_g = p->of_g, .of_n = p->of_n,
                             .dq_f16 = p->xdt == ACL_FLOAT16, .c = tile, .c_row_stride = p->gemv_nt};
    t->gemv->gemv(&v);
}

static void run_task(wq_ctx *t, int64_t slot, int64_t task)
{
    const wq_plan *p = t->p;
    const int64_t mt = p->gemv ? p->m : WQ_MT, nt = p->gemv ? p->gemv_nt : WQ_NB;
    const int64_t i0 = task / p->n_tiles * mt, j0 = task % p->n_tiles * nt;
    const int64_t rows = p->m - i0 < mt ? p->m - i0 : mt, cols = p->n - j0 < nt ? p->n - j0 : nt;
    unsigned char *slot_base = t->ws + p->slot_offset + (uint64_t)slot * p->slot_bytes;
    float *block = (float *)(slot_base + p->block_offset), *tile = (float *)(slot_base + p->tile_offset);
    if (p->gemv) {
        gemv_tile(t, j0, cols, tile);
    } else {
        emu_sgemm_args g = {.m = rows, .n = cols, .a_row_stride = p->k, .a_col_stride = 1, .b = block,
                            .b_row_stride = cols, .b_col_stride = 1, .c = tile, .c_row_stride = WQ_NB};
        /* The GEMM goes on with each element's chain from the value the
         * previous depth block stored: the blocks change nothing in the results. */
        for (int64_t pc = 0; pc < p->k; pc += WQ_KB) {
            const int64_t kc = p->k - pc < WQ_KB ? p->k - pc : WQ_KB;
            dequant_block(t, pc, kc, j0, cols, block);
            g.k = kc;
            g.accumulate = pc > 0;
            g.a = t->x32 + i0 * p->k + pc;
            t->gemm->sgemm(&g, slot_base);
        }
    }
    const size_t ysize = 2;
    for (int64_t r = 0; r < rows; ++r) {
        float *row = tile + r * nt;
        if (p->has_bias) {
            for (int64_t j = 0; j < cols; ++j) {
                row[j] += p->bias_dt == ACL_FLOAT ? ((const float *)t->bias)[j0 + j]
                                                  : emu_f16_to_f32(((const uint16_t *)t->bias)[j0 + j]);
            }
        }
        uint16_t *out = (uint16_t *)(t->y + ((i0 + r) * p->ys_m + j0) * (int64_t)ysize);
        (p->xdt == ACL_FLOAT16 ? t->cv->f32_to_f16 : t->cv->f32_to_bf16)((size_t)cols, row, out);
    }
}

static void slots_range(void *opaque, size_t begin, size_t end)
{
    wq_ctx *t = opaque;
    for (size_t slot = begin; slot < end; ++slot) {
        for (;;) {
            const long long task = atomic_fetch_add(&t->next, 1);
            if (task >= t->p->tasks) {
                break;
            }
            run_task(t, (int64_t)slot, task);
        }
    }
}

const char *wq_run(aclOpExecutor *executor, void *workspace)
{
    const wq_plan *p = (const wq_plan *)executor->plan;
    const emu_view *v = executor->tensors;
    const emu_isa isa = emu_isa_active();
    wq_ctx t = {.p = p, .cv = emu_convert_select(isa), .gemm = emu_gemm_select(isa), .gemv = emu_gemv_select(isa)};
    t.ws = (unsigned char *)(((uintptr_t)workspace + 63) / 64 * 64);
    t.x = emu_view_origin(&v[WQ_X]);
    t.x32 = (float *)t.ws;
    t.w = emu_view_origin(&v[WQ_W]);
    t.scale = emu_view_origin(&v[WQ_SCALE]);
    t.offset = p->has_offset ? emu_view_origin(&v[WQ_OFFSET]) : NULL;
    t.bias = p->has_bias ? emu_view_origin(&v[WQ_BIAS]) : NULL;
    t.y = emu_view_origin(&v[WQ_Y]);
    emu_parallel_for((size_t)p->m, 16, stage_x, &t);
    atomic_init(&t.next, 0);
    emu_parallel_for((size_t)p->slots, 1, slots_range, &t);
    static _Thread_local char name[96];
    snprintf(name, sizeof name, "weight_quant_matmul(%s)", p->gemv ? t.gemv->name : t.gemm->name);
    return name;
}

