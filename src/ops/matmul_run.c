/* Phase 2 of the matrix-multiply operators (matmul.h): operands that the
 * cube would see in another dtype are copied to fp32 through that dtype,
 * then every task (a batch, a block of rows, a block of columns) runs the
 * fp32 GEMM into out or into its slot's tile, which is rounded to the
 * kernel's dtype and cast to out's. Tasks are claimed by the threads as
 * they come, but each is computed by one thread alone, so the results do
 * not depend on the thread count. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemv/gemv.h"
#include "ops/matmul.h"
#include "ops/nz_layout.h"

enum { CHUNK = 512 };

/* ---- element conversions on rows ---- */

/* n elements of dtype at src (stride in elements) as fp32 in dst. */
static void load_run(aclDataType dtype, const char *src, int64_t stride, int64_t n, float *dst,
                     const emu_convert_kernels *cv)
{
    if (dtype == ACL_FLOAT) {
        const float *s = (const float *)src;
        if (stride == 1) {
            memcpy(dst, s, (size_t)n * sizeof(float));
        } else {
            for (int64_t i = 0; i < n; ++i) {
                dst[i] = s[i * stride];
            }
        }
        return;
    }
    const uint16_t *s = (const uint16_t *)src;
    const emu_cvt_to_f32_fn widen = dtype == ACL_FLOAT16 ? cv->f16_to_f32 : cv->bf16_to_f32;
    if (stride == 1) {
        widen((size_t)n, s, dst);
        return;
    }
    uint16_t tmp[CHUNK];
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const int64_t len = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (int64_t i = 0; i < len; ++i) {
            tmp[i] = s[(i0 + i) * stride];
        }
        widen((size_t)len, tmp, dst + i0);
    }
}

/* Rounds n fp32 values in place to fp16 or bf16. */
static void round_half(aclDataType dtype, float *x, int64_t n, const emu_convert_kernels *cv)
{
    uint16_t tmp[CHUNK];
    const bool f16 = dtype == ACL_FLOAT16;
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const size_t len = (size_t)(n - i0 < CHUNK ? n - i0 : CHUNK);
        (f16 ? cv->f32_to_f16 : cv->f32_to_bf16)(len, x + i0, tmp);
        (f16 ? cv->f16_to_f32 : cv->bf16_to_f32)(len, tmp, x + i0);
    }
}

/* HF32 keeps 11 of fp32's 23 mantissa bits. The cube kernels set its
 * conversion to round to nearest with ties away from zero (SetHF32(true,
 * 1)); the low 12 bits are dropped after adding half of the lowest kept
 * bit to the magnitude (which carries into the exponent where it must, and
 * takes the largest values to infinity). NaN stays as it is. */
static void round_hf32(float *x, int64_t n)
{
    uint32_t *u = (uint32_t *)x;
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t v = u[i];
        const uint32_t r = (((v >> 11) + 1u) >> 1) << 12;
        u[i] = (v & 0x7FFFFFFFu) > 0x7F800000u ? v : r;
    }
}

/* n fp32 values to dtype at dst (stride in elements), rounded to nearest even. */
static void store_run(aclDataType dtype, const float *src, char *dst, int64_t stride, int64_t n,
                      const emu_convert_kernels *cv)
{
    if (dtype == ACL_FLOAT) {
        float *d = (float *)dst;
        if (stride == 1) {
            memcpy(d, src, (size_t)n * sizeof(float));
        } else {
            for (int64_t i = 0; i < n; ++i) {
                d[i * stride] = src[i];
            }
        }
        return;
    }
    uint16_t *d = (uint16_t *)dst;
    const emu_cvt_from_f32_fn narrow = dtype == ACL_FLOAT16 ? cv->f32_to_f16 : cv->f32_to_bf16;
    if (stride == 1) {
        narrow((size_t)n, src, d);
        return;
    }
    uint16_t tmp[CHUNK];
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const int64_t len = n - i0 < CHUNK ? n - i0 : CHUNK;
        narrow((size_t)len, src + i0, tmp);
        for (int64_t i = 0; i < len; ++i) {
            d[(i0 + i) * stride] = tmp[i];
        }
    }
}

/* ---- staging: an operand copied to fp32 through the compute dtype ---- */

typedef struct {
    const mm_stage *stage;
    aclDataType dtype;
    const char *src;
    float *dst;
    int64_t inner;
    const emu_convert_kernels *cv;
} stage_ctx;

static void stage_range(void *opaque, size_t begin, size_t end)
{
    const stage_ctx *c = opaque;
    const mm_stage *s = c->stage;
    const size_t elem = emu_dtype_size(c->dtype);
    const int64_t inner_stride = s->rank > 0 ? s->stride[s->rank - 1] : 1;
    for (size_t run = begin; run < end; ++run) {
        int64_t rest = (int64_t)run, offset = 0;
        for (int32_t d = s->rank - 2; d >= 0; --d) {
            offset += rest % s->shape[d] * s->stride[d];
            rest /= s->shape[d];
        }
        float *dst = c->dst + (int64_t)run * c->inner;
        load_run(c->dtype, c->src + offset * (int64_t)elem, inner_stride, c->inner, dst, c->cv);
        if (s->to_f16) {
            round_half(ACL_FLOAT16, dst, c->inner, c->cv);
        }
        if (s->hf32) {
            round_hf32(dst, c->inner);
        }
    }
}

static void stage(const mm_stage *s, const emu_view *view, unsigned char *workspace, const emu_convert_kernels *cv)
{
    if (!s->staged) {
        return;
    }
    stage_ctx c = {.stage = s, .dtype = view->dtype, .src = emu_view_origin(view),
                   .dst = (float *)(workspace + s->offset), .inner = s->rank > 0 ? s->shape[s->rank - 1] : 1,
                   .cv = cv};
    const int64_t runs = s->count / c.inner;
    const int64_t grain = c.inner >= 16384 ? 1 : 16384 / c.inner;
    emu_parallel_for((size_t)runs, (size_t)grain, stage_range, &c);
}

/* ---- the tasks ---- */

typedef struct {
    const mm_plan *plan;
    const emu_convert_kernels *cv;
    const emu_gemm_kernels *gemm;
    const emu_gemv_kernels *gemv;
    int64_t kb; /* depth per GEMM call */
    unsigned char *workspace;
    const char *a, *b; /* element (0, 0, 0) of each operand: A's fp32 copy or the tensor */
    size_t a_elem, b_elem;
    aclDataType b_dtype;
    char *c;
    size_t c_elem;
    atomic_llong next;
} task_ctx;

/* Rounds a staged run to the compute dtype. */
static void round_run(const mm_plan *p, float *run, int64_t len, const emu_convert_kernels *cv)
{
    if (p->b_to_f16) {
        round_half(ACL_FLOAT16, run, len, cv);
    }
    if (p->b_hf32) {
        round_hf32(run, len);
    }
}

/* The kc x cols block of B at depth pc and column j0 of the batch at
 * `origin` (in B's dtype) as fp32 in dst, through the compute dtype; *rs
 * and *cs receive its strides (its columns stay runs where they are runs
 * in B: ggml's transposed weights). */
static void stage_block(const task_ctx *t, const char *origin, int64_t pc, int64_t j0, int64_t kc, int64_t cols,
                        float *dst, int64_t *rs, int64_t *cs)
{
    const mm_plan *p = t->plan;
    const int64_t brs = p->b.rs, bcs = p->b.cs, elem = (int64_t)t->b_elem;
    if (p->b_nz.on) {
        /* NZ: runs of at most c0 elements along the storage's columns. */
        const mm_nz *z = &p->b_nz;
        const int64_t outer = z->transposed ? cols : kc, len = z->transposed ? kc : cols;
        const int64_t first = z->transposed ? pc : j0;
        for (int64_t o = 0; o < outer; ++o) {
            const int64_t r = (z->transposed ? j0 : pc) + o;
            for (int64_t i = 0; i < len;) {
                const int64_t c = first + i, run = z->c0 - c % z->c0 < len - i ? z->c0 - c % z->c0 : len - i;
                load_run(t->b_dtype, origin + emu_nz_index(r, c, z->rows16, z->c0) * elem, 1, run,
                         dst + o * (len + MM_PAD) + i, t->cv);
                i += run;
            }
            round_run(p, dst + o * (len + MM_PAD), len, t->cv);
        }
        *rs = z->transposed ? 1 : cols + MM_PAD;
        *cs = z->transposed ? kc + MM_PAD : 1;
        return;
    }
    const char *src = origin + (pc * brs + j0 * bcs) * elem;
    const bool by_column = (brs < 0 ? -brs : brs) < (bcs < 0 ? -bcs : bcs);
    const int64_t runs = by_column ? cols : kc, len = by_column ? kc : cols;
    for (int64_t r = 0; r < runs; ++r) {
        float *run = dst + r * (len + MM_PAD);
        load_run(t->b_dtype, src + r * (by_column ? bcs : brs) * elem, by_column ? brs : bcs, len, run, t->cv);
        round_run(p, run, len, t->cv);
    }
    *rs = by_column ? 1 : cols + MM_PAD;
    *cs = by_column ? kc + MM_PAD : 1;
}

/* The GEMM over B's depth blocks, each converted first where B needs it. */
static void run_gemm(const task_ctx *t, unsigned char *slot_base, float *tile, char *c_origin, int64_t off_a,
                     int64_t off_b, int64_t i0, int64_t j0, int64_t rows, int64_t cols)
{
    const mm_plan *p = t->plan;
    emu_sgemm_args g = {.m = rows, .n = cols, .a_row_stride = p->a.rs, .a_col_stride = p->a.cs,
                        .c = p->direct ? (float *)c_origin : tile, .c_row_stride = p->direct ? p->c.rs : p->nt};
    /* One GEMM call per depth block: the chain of every element goes on
     * from the value the previous call stored (the GEMM's contract), so the
     * blocks change nothing in the results. */
    int64_t pc = 0;
    do {
        const int64_t kc = p->k - pc < t->kb ? p->k - pc : t->kb;
        g.k = kc;
        g.accumulate = pc > 0;
        if (kc > 0) {
            g.a = (const float *)(t->a + (off_a + i0 * p->a.rs + pc * p->a.cs) * (int64_t)t->a_elem);
            if (p->b_staged) {
                float *block = (float *)(slot_base + p->block_offset);
                stage_block(t, t->b + off_b * (int64_t)t->b_elem, pc, j0, kc, cols, block, &g.b_row_stride,
                            &g.b_col_stride);
                g.b = block;
            } else {
                g.b = (const float *)(t->b + (off_b + pc * p->b.rs + j0 * p->b.cs) * (int64_t)t->b_elem);
                g.b_row_stride = p->b.rs;
                g.b_col_stride = p->b.cs;
            }
        }
        t->gemm->sgemm(&g, slot_base);
        pc += kc;
    } while (pc < p->k);
}

static void run_task(task_ctx *t, int32_t slot, int64_t task)
{
    const mm_plan *p = t->plan;
    const int64_t jb = task % p->n_tiles, ib = task / p->n_tiles % p->m_tiles;
    int64_t batch = task / p->n_tiles / p->m_tiles;
    int64_t off_a = 0, off_b = 0, off_c = 0;
    for (int32_t d = p->batch_rank - 1; d >= 0; --d) {
        const int64_t i = batch % p->batch_shape[d];
        batch /= p->batch_shape[d];
        off_a += i * p->a.bstride[d];
        off_b += i * p->b.bstride[d];
        off_c += i * p->c.bstride[d];
    }
    const int64_t i0 = ib * p->mt, j0 = jb * p->nt;
    const int64_t rows = p->m - i0 < p->mt ? p->m - i0 : p->mt, cols = p->n - j0 < p->nt ? p->n - j0 : p->nt;
    unsigned char *slot_base = t->workspace + p->slot_offset + (uint64_t)slot * p->slot_bytes;
    char *c_origin = t->c + (off_c + i0 * p->c.rs + j0 * p->c.cs) * (int64_t)t->c_elem;
    float *tile = (float *)(slot_base + p->tile_offset);
    if (p->gemv.on) {
        const emu_gemv_args v = {.m = rows, .n0 = j0, .n = cols, .k = p->k,
                                 .a = (const float *)(t->a + (off_a + i0 * p->a.rs) * (int64_t)t->a_elem),
                                 .a_row_stride = p->a.rs, .a_col_stride = p->a.cs, .kind = p->gemv.kind,
                                 .b = t->b + off_b * (int64_t)t->b_elem, .k_inner = p->gemv.k_inner,
                                 .stride = p->gemv.stride, .blk = p->gemv.blk, .blk_stride = p->gemv.blk_stride,
                                 .c = p->direct ? (float *)c_origin : tile,
                                 .c_row_stride = p->direct ? p->c.rs : p->nt};
        t->gemv->gemv(&v);
    } else {
        run_gemm(t, slot_base, tile, c_origin, off_a, off_b, i0, j0, rows, cols);
    }
    if (p->direct) {
        return;
    }
    const aclDataType out = p->c.dtype;
    for (int64_t r = 0; r < rows; ++r) {
        float *row = tile + r * p->nt;
        if (p->kernel_out != ACL_FLOAT && p->kernel_out != out) {
            round_half(p->kernel_out, row, cols, t->cv); /* the kernel's fp16/bf16 result, then the cast */
        }
        store_run(out, row, c_origin + r * p->c.rs * (int64_t)t->c_elem, p->c.cs, cols, t->cv);
    }
}

static void slots_range(void *opaque, size_t begin, size_t end)
{
    task_ctx *t = opaque;
    for (size_t slot = begin; slot < end; ++slot) {
        for (;;) {
            const long long task = atomic_fetch_add(&t->next, 1);
            if (task >= t->plan->tasks) {
                break;
            }
            run_task(t, (int32_t)slot, task);
        }
    }
}

const char *mm_run(aclOpExecutor *executor, void *workspace)
{
    const mm_plan *p = (const mm_plan *)executor->plan;
    const emu_view *tensors = executor->tensors;
    const emu_isa isa = emu_isa_active();
    task_ctx t = {.plan = p, .cv = emu_convert_select(isa), .gemm = emu_gemm_select(isa),
                  .gemv = emu_gemv_select(isa)};
    t.kb = p->kb;
    const uintptr_t base = (uintptr_t)workspace;
    t.workspace = (unsigned char *)((base + 63) / 64 * 64);
    if (p->k > 0) {
        const emu_view *a = &tensors[p->a.slot], *b = &tensors[p->b.slot];
        stage(&p->sa, a, t.workspace, t.cv);
        t.a = p->sa.staged ? (const char *)(t.workspace + p->sa.offset) : emu_view_origin(a);
        t.a_elem = p->sa.staged ? sizeof(float) : emu_dtype_size(a->dtype);
        t.b = emu_view_origin(b);
        t.b_elem = emu_dtype_size(b->dtype);
        t.b_dtype = b->dtype;
    }
    const emu_view *c = &tensors[p->c.slot];
    t.c = emu_view_origin(c);
    t.c_elem = emu_dtype_size(c->dtype);
    atomic_init(&t.next, 0);
    emu_parallel_for((size_t)p->slots, 1, slots_range, &t);
    static _Thread_local char name[96];
    snprintf(name, sizeof name, "matmul(%s)", p->gemv.on ? t.gemv->name : t.gemm->name);
    return name;
}
