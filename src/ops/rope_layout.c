#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/convert/convert.h"
#include "kernels/isa.h"
#include "kernels/rope/rope.h"
#include "ops/check.h"
#include "ops/opdef.h"
#include "ops/rope_layout.h"

enum {
    /* CANN's D limits: A2/A3 tiling refuses D > 896, Ascend950 D > 1024. */
    ROPE_MAX_D_A2 = 896,
    ROPE_MAX_D_950 = 1024,
    /* Interleave mode on A2/A3 needs B*N below this. */
    ROPE_MAX_BN = 1000,
    /* fp32 values per scratch row block (accumulators, converted rows): 8 KiB each. */
    ROPE_BLOCK = 2048,
    /* Elements of dy per parallel chunk, at least: long contiguous runs for
     * the prefetchers, still dozens of chunks on the benchmark shapes. */
    ROPE_GRAIN = 1 << 18,
    /* Scratch arrays sit ROPE_BLOCK + ROPE_SKEW floats apart, so that their
     * streams differ modulo 4 KiB: equal low address bits make the CPU's
     * memory disambiguation see false store-to-load dependencies (4K
     * aliasing), which tripled the time of the fp16/bf16 gradient. */
    ROPE_SKEW = 48,
    /* Elements of dy per kernel call (rows x d, at least one row). */
    ROPE_KERNEL_ELEMS = 1024,
    /* Bytes of a cos row's dy rows in each region, at most, for walking
     * regions together (see plan_reduce_walk). */
    ROPE_SHORT_RUN = 8192,
    ROPE_STRIDE = ROPE_BLOCK + ROPE_SKEW,
};

/* Per-chunk fp32 scratch: converted dy/x/dx rows, accumulators, cos/sin rows. */
typedef struct {
    _Alignas(64) float buf[7][ROPE_STRIDE];
} rope_scratch;

enum { SCRATCH_IN, SCRATCH_X, SCRATCH_OUT, SCRATCH_ACC_COS, SCRATCH_ACC_SIN, SCRATCH_COS, SCRATCH_SIN };

static_assert((int)EMU_ROPE_MAX_D <= (int)ROPE_BLOCK, "a scratch block must hold one row");

static const char *const MODE_NAMES[] = {"half", "interleave", "quarter", "interleave-half"};

typedef struct {
    bool forward;
    bool has_x;
    int mode;
    aclDataType dtype;
    int64_t d;
    int64_t m0, k0, m1, k1, m2;
    int64_t dy_rows, cos_rows;
    /* With x: cos rows per accumulation block, and regions (b0 values)
     * walked together, cos row by cos row (see plan_reduce_walk). */
    int64_t reduce_block, reduce_step;
    int input_count;
    /* Write dx / y through an L1 buffer and non-temporal stores. */
    bool stream_out;
    /* Inputs (slots 0-3) that are not contiguous: read through gather_rows. */
    bool strided[4];
} rope_plan;

static_assert(sizeof(rope_plan) <= EMU_PLAN_BYTES, "rope_plan must fit in the executor");

/* ------------------------------------------------------------ validation */

aclnnStatus emu_rope_check_product(const char *api)
{
    if (emu_soc_get() == EMU_SOC_ASCEND910) {
        return emu_fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "%s: the emulated product %s (Atlas training series) has "
                                                           "no kernel for this operator; expected Ascend910B, "
                                                           "Ascend910_93 or Ascend950.", api, aclrtGetSocName());
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_one_dtype(const emu_rope_args *args, const char *name, const aclTensor *tensor)
{
    static const aclDataType SUPPORTED[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    EMU_TRY(emu_check_dtype_in(args->api, name, tensor, SUPPORTED, 3));
    if (tensor != args->main) {
        EMU_TRY(emu_check_same_dtype(args->api, name, tensor, args->main_name, args->main));
    }
    if (tensor->format != ACL_FORMAT_ND) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has format %d; expected ACL_FORMAT_ND (%d).", args->api,
                        name, (int)tensor->format, (int)ACL_FORMAT_ND);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_rope_check_dtypes(const emu_rope_args *args)
{
    EMU_TRY(check_one_dtype(args, args->main_name, args->main));
    EMU_TRY(check_one_dtype(args, "cos", args->cos));
    EMU_TRY(check_one_dtype(args, "sin", args->sin));
    if (args->x != NULL) {
        EMU_TRY(check_one_dtype(args, "xOptional", args->x));
    }
    EMU_TRY(check_one_dtype(args, args->out_name, args->out));
    if (args->dcos != NULL) {
        EMU_TRY(check_one_dtype(args, "dcosOut", args->dcos));
        EMU_TRY(check_one_dtype(args, "dsinOut", args->dsin));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus shape_error(const emu_rope_args *args, const char *name, const aclTensor *tensor,
                               const char *expected)
{
    char have[256];
    return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s has shape %s; expected %s.", args->api, name,
                    emu_shape_string(&tensor->view, have, sizeof have), expected);
}

/* Leading dims of a rank-3 (TND, read as 1,T,N) or rank-4 view. */
static void leading_dims(const emu_view *view, int64_t out[3])
{
    if (view->rank == 3) {
        out[0] = 1;
        out[1] = view->shape[0];
        out[2] = view->shape[1];
    } else {
        memcpy(out, view->shape, 3 * sizeof out[0]);
    }
}

/* The patterns CANN's A2/A3 half-mode tiling recognises (x = a,b,c; cos = p,q,r). */
static bool half_pattern_a2(const int64_t x[3], const int64_t c[3])
{
    const int64_t a = x[0], b = x[1], n = x[2], p = c[0], q = c[1], r = c[2];
    return (p == a && q == b && r == n) ||            /* BNSD/BSND/SBND/TND, no broadcast */
           (a != 1 && p == 1 && q == b && r == 1) ||  /* BSND with 1S1D */
           (p == a && q == b && r == 1 && a < b) ||   /* BSND with BS1D */
           (a != 1 && p == 1 && q == 1 && r == n) ||  /* BNSD with 11SD */
           (p == a && q == 1 && r == n && a < n) ||   /* BNSD with B1SD, B < S */
           (p == a && b != 1 && q == 1 && r == 1) ||  /* SBND with S11D */
           (p == a && q == b && r == 1);              /* SBND with SB1D (and TND with T1D) */
}

/* a * b, or INT64_MAX when that does not fit (dimensions of an empty view
 * may be that large). */
static int64_t product_or_max(int64_t a, int64_t b)
{
    int64_t p;
    return __builtin_mul_overflow(a, b, &p) ? INT64_MAX : p;
}

/* A2/A3 interleave mode: the layout it recognises (B*N from it), or -1. */
static int64_t interleave_bn_a2(const int64_t x[3], const int64_t c[3])
{
    if (c[0] == 1 && c[2] == 1 && x[1] == c[1]) {
        return product_or_max(x[0], x[2]); /* BSND with 1S1D, TND with T1D */
    }
    if (c[0] == 1 && c[1] == 1 && x[2] == c[2]) {
        return product_or_max(x[0], x[1]); /* BNSD with 11SD */
    }
    if (c[1] == 1 && c[2] == 1 && x[0] == c[0]) {
        return product_or_max(x[1], x[2]); /* SBND with S11D */
    }
    return -1;
}

static aclnnStatus check_broadcast(const emu_rope_args *args, int64_t mode)
{
    const emu_view *main = &args->main->view, *cos = &args->cos->view;
    int64_t x[3], c[3];
    leading_dims(main, x);
    leading_dims(cos, c);
    char have[256], want[256];
    emu_shape_string(main, want, sizeof want);
    emu_shape_string(cos, have, sizeof have);
    if (emu_soc_get() == EMU_SOC_ASCEND950) {
        for (int i = 0; i < 3; ++i) {
            if (c[i] != 1 && c[i] != x[i]) {
                return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: cos has shape %s; expected every axis but the "
                                                              "last to be 1 or equal to that axis of %s %s.",
                                args->api, have, args->main_name, want);
            }
        }
        return ACLNN_SUCCESS;
    }
    const bool tnd = main->rank == 3;
    if (mode == 0 && !half_pattern_a2(x, c)) {
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: cos has shape %s, which half mode on %s cannot broadcast "
                                                      "to %s %s; expected %s.", args->api, have, aclrtGetSocName(),
                        args->main_name, want,
                        tnd ? "T1D or TND" : "11SD, B1SD (B < S) or BNSD for BNSD; 1S1D, BS1D or BSND for BSND; "
                                             "S11D, SB1D or SBND for SBND");
    }
    if (mode == 1) {
        int64_t bn = interleave_bn_a2(x, c);
        if (bn < 0) {
            return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: cos has shape %s, which interleave mode on %s cannot "
                                                          "broadcast to %s %s; expected %s.", args->api, have,
                            aclrtGetSocName(), args->main_name, want,
                            tnd ? "T1D" : "11SD for BNSD, 1S1D for BSND or S11D for SBND");
        }
        if (bn >= ROPE_MAX_BN) {
            return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: %s has shape %s, so B*N is %lld; interleave mode on %s "
                                                          "expects B*N below %d.", args->api, args->main_name, want,
                            (long long)bn, aclrtGetSocName(), ROPE_MAX_BN);
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_d(const emu_rope_args *args, int64_t mode)
{
    const emu_view *main = &args->main->view, *cos = &args->cos->view;
    const int64_t d = main->shape[main->rank - 1];
    char want[256];
    if (cos->shape[cos->rank - 1] != d) {
        snprintf(want, sizeof want, "a last dimension (D) of %lld, as %s has", (long long)d, args->main_name);
        return shape_error(args, "cos", args->cos, want);
    }
    const bool soc950 = emu_soc_get() == EMU_SOC_ASCEND950;
    const int64_t max_d = soc950 ? ROPE_MAX_D_950 : ROPE_MAX_D_A2;
    if (d > max_d) {
        snprintf(want, sizeof want, "a last dimension (D) of at most %lld on %s", (long long)max_d, aclrtGetSocName());
        return shape_error(args, args->main_name, args->main, want);
    }
    const int64_t multiple = mode == 2 ? 4 : 2;
    if (d % multiple != 0) {
        snprintf(want, sizeof want, "a last dimension (D) that is a multiple of %lld in %s mode", (long long)multiple,
                 MODE_NAMES[mode]);
        return shape_error(args, args->main_name, args->main, want);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_same(const emu_rope_args *args, const char *name, const aclTensor *tensor,
                              const char *ref_name, const aclTensor *ref)
{
    if (!emu_view_same_shape(&tensor->view, &ref->view)) {
        char want[320], ref_shape[256];
        snprintf(want, sizeof want, "%s, the shape of %s", emu_shape_string(&ref->view, ref_shape, sizeof ref_shape),
                 ref_name);
        return shape_error(args, name, tensor, want);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_no_empty(const emu_rope_args *args, const char *name, const aclTensor *tensor)
{
    if (tensor != NULL && emu_view_is_empty(&tensor->view)) {
        return shape_error(args, name, tensor, "no dimension of size 0 (Ascend950's kernel rejects empty tensors)");
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_rope_check_shapes(const emu_rope_args *args, int64_t mode)
{
    const bool soc950 = emu_soc_get() == EMU_SOC_ASCEND950;
    if (mode < 0 || mode > 3 || (!soc950 && mode > 1)) {
        return emu_fail(ACLNN_ERR_INNER_TILING_ERROR, "%s: mode is %lld; expected %s on %s.", args->api,
                        (long long)mode, soc950 ? "0 (half), 1 (interleave), 2 (quarter) or 3 (interleave-half)"
                                                : "0 (half) or 1 (interleave); modes 2 and 3 need Ascend950",
                        aclrtGetSocName());
    }
    const int32_t rank = args->main->view.rank;
    if (rank != 3 && rank != 4) {
        return shape_error(args, args->main_name, args->main, "3 dimensions (TND) or 4 (BNSD, BSND or SBND)");
    }
    if (args->cos->view.rank != rank) {
        char want[96];
        snprintf(want, sizeof want, "%d dimensions, as %s has", (int)rank, args->main_name);
        return shape_error(args, "cos", args->cos, want);
    }
    EMU_TRY(check_same(args, "sin", args->sin, "cos", args->cos));
    EMU_TRY(check_same(args, args->out_name, args->out, args->main_name, args->main));
    EMU_TRY(check_d(args, mode));
    if (args->x != NULL) {
        EMU_TRY(check_same(args, "xOptional", args->x, args->main_name, args->main));
        EMU_TRY(check_same(args, "dcosOut", args->dcos, "cos", args->cos));
        EMU_TRY(check_same(args, "dsinOut", args->dsin, "sin", args->sin));
    }
    EMU_TRY(check_broadcast(args, mode));
    if (soc950) {
        EMU_TRY(check_no_empty(args, args->main_name, args->main));
        EMU_TRY(check_no_empty(args, "cos", args->cos));
        EMU_TRY(check_no_empty(args, "xOptional", args->x));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_output(const emu_rope_args *args, const char *name, const aclTensor *tensor)
{
    if (!emu_view_is_empty(&tensor->view) && !emu_view_is_contiguous(&tensor->view)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s is a non-contiguous view; expected a contiguous tensor (the "
                                                 "operator writes its outputs densely, as on the device).",
                        args->api, name);
    }
    EMU_TRY(emu_check_has_data(args->api, name, tensor));
    return emu_check_device_memory(args->api, name, tensor);
}

static aclnnStatus check_input(const emu_rope_args *args, const char *name, const aclTensor *tensor)
{
    EMU_TRY(emu_check_has_data(args->api, name, tensor));
    return emu_check_device_memory(args->api, name, tensor);
}

aclnnStatus emu_rope_check_memory(const emu_rope_args *args)
{
    EMU_TRY(check_output(args, args->out_name, args->out));
    if (args->x != NULL) {
        EMU_TRY(check_output(args, "dcosOut", args->dcos));
        EMU_TRY(check_output(args, "dsinOut", args->dsin));
    }
    EMU_TRY(check_input(args, args->main_name, args->main));
    EMU_TRY(check_input(args, "cos", args->cos));
    EMU_TRY(check_input(args, "sin", args->sin));
    if (args->x != NULL) {
        EMU_TRY(check_input(args, "xOptional", args->x));
    }
    /* In place, out is exactly x; then only cos and sin must stay apart from it. */
    const aclTensor *main = args->main;
    if (args->out_may_be_main) {
        EMU_TRY(emu_check_exact_alias(args->api, args->out_name, args->out, args->main_name, args->main));
        if (emu_views_identical(&args->out->view, &args->main->view)) {
            main = NULL;
        }
    }
    /* Without x, dcosOut and dsinOut are never written. */
    const char *const names[] = {args->main_name, "cos", "sin", "xOptional", args->out_name, "dcosOut", "dsinOut"};
    const aclTensor *const tensors[] = {main, args->cos, args->sin, args->x, args->out,
                                        args->x != NULL ? args->dcos : NULL, args->x != NULL ? args->dsin : NULL};
    return emu_check_outputs_separate(args->api, names, tensors, 4, 7);
}

/* ------------------------------------------------------------------ plan */

static void plan_segments(rope_plan *plan, const emu_view *main, const emu_view *cos)
{
    int64_t x[3], c[3];
    leading_dims(main, x);
    leading_dims(cos, c);
    bool kept[3];
    int64_t size[3];
    int count = 0;
    for (int i = 0; i < 3; ++i) {
        if (x[i] == 1) {
            continue;
        }
        bool k = c[i] == x[i];
        if (count > 0 && kept[count - 1] == k) {
            size[count - 1] = product_or_max(size[count - 1], x[i]); /* only an empty view saturates */
        } else {
            kept[count] = k;
            size[count++] = x[i];
        }
    }
    plan->m0 = plan->k0 = plan->m1 = plan->k1 = plan->m2 = 1;
    int at = 0;
    if (count == 1 && !kept[0]) {
        plan->m2 = size[0];
        return;
    }
    if (at < count && !kept[at]) {
        plan->m0 = size[at++];
    }
    if (at < count) {
        plan->k0 = size[at++];
    }
    if (at < count) {
        if (at == count - 1) {
            plan->m2 = size[at++];
        } else {
            plan->m1 = size[at++];
        }
    }
    if (at < count) {
        plan->k1 = size[at++];
    }
    if (at < count) {
        plan->m2 = size[at];
    }
}

/* The gradient with x walks a block of cos rows at a time, writing the
 * block's sums at its end. Within a block it takes the regions of dy
 * (b0 = 0, 1, ...) `step` at a time: cos row by cos row, each region's rows
 * of that cos row (m1 x m2 of them), before the next cos row. Each cos row
 * still receives its rows in (b0, b1, b2) order, since step > 1 only where
 * m1 = 1.
 *
 * The aim is to keep the streams (dy, x, dx, cos, sin, dcos, dsin)
 * advancing a few lines at a time, in step, which the hardware prefetchers
 * follow best; larger blocks walked region after region made each stream
 * take turns in runs of tens of KiB. So:
 * - one region, or two (m0 x m1 = 2) whose rows per cos row span at most
 *   ROPE_SHORT_RUN bytes: one cos row per block, all regions together;
 * - three or more regions (m1 = 1) of such short runs: two regions at a
 *   time, over blocks of as many cos rows as keep the sums in L1
 *   (ROPE_BLOCK);
 * - else: one region at a time over ROPE_BLOCK-sized blocks.
 * Measured on Zen 4, 2 threads, each call alternated with one region at a
 * time over ROPE_BLOCK:
 * - [2,8192,5,128] (case 1): +22-30% in all three dtypes;
 * - [2,32768,1,128]: +35-43%;
 * - two regions of 2.5-8 KiB runs: +8-19%;
 * - one region: +1 to +7% (cases 2 and 3), up to +32% with a cos row per
 *   dy row;
 * - BNSD dy with 11SD cos ([2,5,8192,128], ten regions of single rows):
 *   +17-26% two at a time;
 * - three or four regions of 1-8 KiB runs: two at a time -2 to +4%.
 * Where the rules stop, the other walks measured worse: two regions of
 * 10-32 KiB runs -6 to +3% with one cos row per block, three or four
 * regions 0-15% slower, ten regions of single rows 2x slower all at once. */
static void plan_reduce_walk(rope_plan *plan)
{
    const int64_t row_bytes = plan->d * (int64_t)emu_dtype_size(plan->dtype);
    const bool short_runs = plan->m2 <= ROPE_SHORT_RUN / row_bytes;
    const bool one_region = plan->m0 == 1 && plan->m1 == 1;
    const bool two_regions = (plan->m0 == 2 && plan->m1 == 1) || (plan->m0 == 1 && plan->m1 == 2);
    plan->reduce_block = ROPE_BLOCK / plan->d;
    plan->reduce_step = 1;
    if (one_region || (two_regions && short_runs)) {
        plan->reduce_block = 1;
    } else if (plan->m1 == 1 && short_runs) {
        plan->reduce_step = 2;
    }
}

/* ------------------------------------------------------------------- run */

typedef struct {
    const rope_plan *plan;
    const void *main, *x, *cos, *sin;
    void *out, *dcos, *dsin;
    emu_rope_fwd_fn fwd;
    emu_rope_grad_fn grad;
    /* fp16/bf16 kernels with the conversions fused in; NULL: convert around the fp32 kernel. */
    emu_rope_fwd_h_fn fwd_h;
    emu_rope_grad_h_fn grad_h;
    /* The gradient with x of fp16/bf16 rows reads their cos/sin rows as
     * they are (kernels/rope/half_instances.h says why); NULL otherwise. */
    emu_rope_grad_h16_fn grad_h16;
    /* Bytes per element of the tensors (all one dtype), and of the cos/sin
     * rows the kernels take: the tensors' own (fp32 rows, or fp16/bf16 ones
     * for grad_h16), else 4: rows widened to fp32 in scratch. Set once per
     * launch: the walk may ask for them at every cos row. */
    size_t item, table_item;
    const emu_convert_kernels *convert;
    /* Non-NULL when the outputs go out through non-temporal stores: dx (or
     * y) and dcos/dsin copied from L1 buffers, or dx stored so by the
     * kernels themselves where dx_direct. */
    void (*stream_copy)(size_t bytes, const void *src, void *dst);
    void (*stream_fence)(void);
    bool dx_direct;
    /* The views of the inputs (by slot) that are not contiguous; NULL for
     * the others, which main/x/cos/sin address densely. */
    const emu_view *strided[4];
} rope_ctx;

static void widen(const rope_ctx *ctx, const void *src, int64_t at, size_t n, float *dst)
{
    const uint16_t *half = (const uint16_t *)src + at;
    if (ctx->plan->dtype == ACL_BF16) {
        ctx->convert->bf16_to_f32(n, half, dst);
    } else {
        ctx->convert->f16_to_f32(n, half, dst);
    }
}

static void narrow(const rope_ctx *ctx, const float *src, size_t n, void *dst, int64_t at)
{
    uint16_t *half = (uint16_t *)dst + at;
    if (ctx->plan->dtype == ACL_BF16) {
        ctx->convert->f32_to_bf16(n, src, half);
    } else {
        ctx->convert->f32_to_f16(n, src, half);
    }
}

/* Element offset of row `row` (in row-major order over every axis but the
 * last) of a view. */
static int64_t row_offset(const emu_view *view, int64_t row)
{
    int64_t at = view->offset;
    for (int dim = view->rank - 2; dim >= 0 && row > 0; --dim) {
        at += row % view->shape[dim] * view->strides[dim];
        row /= view->shape[dim];
    }
    return at;
}

/* Rows [row, row + count) of a strided view, d elements of `item` bytes
 * each, copied densely to dst. */
static void gather_rows(const emu_view *view, int64_t row, int64_t count, int64_t d, size_t item, void *dst)
{
    const int64_t step = view->strides[view->rank - 1];
    char *out = dst;
    for (int64_t r = 0; r < count; ++r, out += (size_t)d * item) {
        const char *src = (const char *)view->data + row_offset(view, row + r) * (int64_t)item;
        if (step == 1) {
            memcpy(out, src, (size_t)d * item);
        } else if (item == sizeof(float)) {
            for (int64_t e = 0; e < d; ++e) {
                memcpy(out + e * 4, src + e * step * 4, 4);
            }
        } else {
            for (int64_t e = 0; e < d; ++e) {
                memcpy(out + e * 2, src + e * step * 2, 2);
            }
        }
    }
}

/* Rows [row, row + count) of input `slot` (dense at `dense` unless
 * strided) in its dtype: where they are, or gathered into buf. */
static const void *input_rows(const rope_ctx *ctx, int slot, const void *dense, int64_t row, int64_t count,
                              void *buf)
{
    const int64_t d = ctx->plan->d;
    if (ctx->strided[slot] == NULL) {
        return (const char *)dense + (size_t)(row * d) * ctx->item;
    }
    gather_rows(ctx->strided[slot], row, count, d, ctx->item, buf);
    return buf;
}

/* The same rows of a fp16/bf16 input widened to fp32 into dst. */
static void widen_input_rows(const rope_ctx *ctx, int slot, const void *dense, int64_t row, int64_t count,
                             float *dst)
{
    const int64_t d = ctx->plan->d;
    if (ctx->strided[slot] == NULL) {
        widen(ctx, dense, row * d, (size_t)(count * d), dst);
        return;
    }
    uint16_t staged[EMU_ROPE_MAX_D];
    for (int64_t r = 0; r < count; ++r) {
        gather_rows(ctx->strided[slot], row + r, 1, d, ctx->item, staged);
        widen(ctx, staged, 0, (size_t)d, dst + r * d);
    }
}

/* No software prefetch runs ahead of dy: the hardware prefetchers follow
 * the rows in memory order. One 16 KiB ahead of the gradient without x,
 * measured on Zen 4 once the kernels stored dx with non-temporal stores,
 * made the four benchmark cases 0-41% slower (2 threads, both dx routes,
 * streamed or not), up to 1.5x slower on one thread. */
enum { ROPE_LINE = 64 };

/* Asks for the first and last lines of [dst, dst + bytes), which a later
 * stream_copy writes with plain stores where they are partial. Stores
 * retire in order, so one that misses holds up every later store, and no
 * prefetcher follows a stream of non-temporal stores: without this the
 * fp16 gradient of case 2 with x lost a quarter of its speed when dx was
 * not 64-byte aligned (numpy's arrays are not). */
static void prefetch_stream_ends(char *dst, size_t bytes)
{
#if defined(__GNUC__)
    /* Only partial lines: a whole one would be read for nothing. */
    if ((uintptr_t)dst % ROPE_LINE != 0) {
        __builtin_prefetch(dst, 1, 3);
    }
    if ((uintptr_t)(dst + bytes) % ROPE_LINE != 0) {
        __builtin_prefetch(dst + bytes - 1, 1, 3);
    }
#else
    (void)dst, (void)bytes;
#endif
}

/* Writes `elems` finished sums (fp32, in L1) to dst from element `at`, in
 * the plan's dtype; through non-temporal stores when the output streams. A
 * block's sums came out in a burst of store misses with plain stores,
 * which cost the gradient with x up to a tenth of its speed. */
static void write_sums(const rope_ctx *ctx, rope_scratch *scratch, const float *acc, size_t elems, void *dst,
                       int64_t at)
{
    const size_t item = ctx->item;
    if (ctx->stream_copy == NULL) {
        if (ctx->plan->dtype == ACL_FLOAT) {
            memcpy((float *)dst + at, acc, elems * sizeof(float));
        } else {
            narrow(ctx, acc, elems, dst, at);
        }
        return;
    }
    const void *src = acc;
    if (ctx->plan->dtype != ACL_FLOAT) {
        /* Free here: only the unfused route, which never streams, widens rows into it. */
        narrow(ctx, acc, elems, scratch->buf[SCRATCH_IN], 0);
        src = scratch->buf[SCRATCH_IN];
    }
    ctx->stream_copy(elems * item, src, (char *)dst + (size_t)at * item);
}

/* One kernel call on rows of the plan's dtype: the fp32 kernel, or the
 * fp16/bf16 one with the conversions fused in. */
static void run_kernel(const rope_ctx *ctx, size_t rows, const void *in, const void *x, const void *cos,
                       const void *sin, void *out, float *acc_cos, float *acc_sin)
{
    const size_t d = (size_t)ctx->plan->d;
    if (ctx->plan->dtype == ACL_FLOAT) {
        if (ctx->plan->forward) {
            ctx->fwd(rows, d, in, cos, sin, out);
        } else {
            ctx->grad(rows, d, in, x, cos, sin, out, acc_cos, acc_sin);
        }
    } else if (ctx->plan->forward) {
        ctx->fwd_h(rows, d, in, cos, sin, out);
    } else if (ctx->grad_h16 != NULL) {
        ctx->grad_h16(rows, d, in, x, cos, sin, out, acc_cos, acc_sin);
    } else {
        ctx->grad_h(rows, d, in, x, cos, sin, out, acc_cos, acc_sin);
    }
}

/* `count` consecutive dy rows from `row`, all with the given cos/sin row (of ctx->table_item bytes per element). */
static void process_rows(const rope_ctx *ctx, rope_scratch *scratch, int64_t row, int64_t count, const void *cos,
                         const void *sin, float *acc_cos, float *acc_sin)
{
    const rope_plan *plan = ctx->plan;
    const size_t d = (size_t)plan->d;
    /* At most ROPE_KERNEL_ELEMS elements per kernel call: converted rows and
     * a streamed output pass through scratch buffers of that size, in L1. */
    int64_t per = plan->d <= ROPE_KERNEL_ELEMS ? ROPE_KERNEL_ELEMS / plan->d : 1;
    /* Calls of equal size: 10 rows as 5 + 5, not 8 + 2 (5-24% faster on
     * case 2, whose short second call cost as much as a long one). */
    const int64_t calls = (count + per - 1) / per;
    per = (count + calls - 1) / calls;
    if (plan->dtype == ACL_FLOAT || ctx->fwd_h != NULL || ctx->grad_h != NULL) {
        const size_t item = plan->dtype == ACL_FLOAT ? sizeof(float) : sizeof(uint16_t);
        for (int64_t r = 0; r < count; r += per) {
            const int64_t n = count - r < per ? count - r : per;
            const size_t at = (size_t)((row + r) * plan->d) * item, bytes = (size_t)(n * plan->d) * item;
            char *dst = (char *)ctx->out + at;
            const bool copied = ctx->stream_copy != NULL && !ctx->dx_direct;
            void *out = copied ? (void *)scratch->buf[SCRATCH_OUT] : (void *)dst;
            if (copied) {
                prefetch_stream_ends(dst, bytes);
            }
            const void *in = input_rows(ctx, EMU_ROPE_SLOT_MAIN, ctx->main, row + r, n, scratch->buf[SCRATCH_IN]);
            const void *x = ctx->x == NULL ? NULL
                                           : input_rows(ctx, EMU_ROPE_SLOT_X, ctx->x, row + r, n,
                                                        scratch->buf[SCRATCH_X]);
            run_kernel(ctx, (size_t)n, in, x, cos, sin, out, acc_cos, acc_sin);
            if (copied) {
                ctx->stream_copy(bytes, out, dst);
            }
        }
        return;
    }
    float *in_w = scratch->buf[SCRATCH_IN], *x_w = scratch->buf[SCRATCH_X], *out_w = scratch->buf[SCRATCH_OUT];
    for (int64_t r = 0; r < count; r += per) {
        const int64_t n = count - r < per ? count - r : per;
        const int64_t at = (row + r) * plan->d;
        const size_t elems = (size_t)(n * plan->d);
        widen_input_rows(ctx, EMU_ROPE_SLOT_MAIN, ctx->main, row + r, n, in_w);
        if (plan->forward) {
            ctx->fwd((size_t)n, d, in_w, cos, sin, out_w);
        } else {
            if (ctx->x != NULL) {
                widen_input_rows(ctx, EMU_ROPE_SLOT_X, ctx->x, row + r, n, x_w);
            }
            ctx->grad((size_t)n, d, in_w, ctx->x != NULL ? x_w : NULL, cos, sin, out_w, acc_cos, acc_sin);
        }
        narrow(ctx, out_w, elems, ctx->out, at);
    }
}

/* cos/sin rows [first, first + count) as the kernels take them: in place,
 * gathered into the buffers where strided, or widened to fp32 into them for
 * the unfused route. At most ROPE_BLOCK elements. */
static void table_rows(const rope_ctx *ctx, int64_t first, int64_t count, float *cos_w, float *sin_w,
                       const void **cos, const void **sin)
{
    if (ctx->table_item == ctx->item) {
        *cos = input_rows(ctx, EMU_ROPE_SLOT_COS, ctx->cos, first, count, cos_w);
        *sin = input_rows(ctx, EMU_ROPE_SLOT_SIN, ctx->sin, first, count, sin_w);
        return;
    }
    widen_input_rows(ctx, EMU_ROPE_SLOT_COS, ctx->cos, first, count, cos_w);
    widen_input_rows(ctx, EMU_ROPE_SLOT_SIN, ctx->sin, first, count, sin_w);
    *cos = cos_w;
    *sin = sin_w;
}

/* With x: cos rows [begin, end), walked as plan_reduce_walk says. */
static void run_reduce_chunk(void *opaque, size_t begin, size_t end)
{
    const rope_ctx *ctx = opaque;
    const rope_plan *p = ctx->plan;
    const int64_t d = p->d, block = p->reduce_block, step = p->reduce_step;
    rope_scratch scratch;
    float *acc_cos = scratch.buf[SCRATCH_ACC_COS], *acc_sin = scratch.buf[SCRATCH_ACC_SIN];
    float *cos_w = scratch.buf[SCRATCH_COS], *sin_w = scratch.buf[SCRATCH_SIN];
    for (int64_t first = (int64_t)begin; first < (int64_t)end; first += block) {
        const int64_t last = first + block < (int64_t)end ? first + block : (int64_t)end;
        const size_t elems = (size_t)((last - first) * d);
        memset(acc_cos, 0, elems * sizeof(float));
        memset(acc_sin, 0, elems * sizeof(float));
        const int64_t at = first * d;
        if (ctx->stream_copy != NULL) {
            const size_t item = ctx->item;
            prefetch_stream_ends((char *)ctx->dcos + (size_t)at * item, elems * item);
            prefetch_stream_ends((char *)ctx->dsin + (size_t)at * item, elems * item);
        }
        const void *cos, *sin;
        table_rows(ctx, first, last - first, cos_w, sin_w, &cos, &sin);
        for (int64_t g0 = 0; g0 < p->m0; g0 += step) {
            const int64_t g1 = g0 + step < p->m0 ? g0 + step : p->m0;
            for (int64_t i0 = first / p->k1; i0 <= (last - 1) / p->k1; ++i0) {
                const int64_t lo = (first > i0 * p->k1 ? first : i0 * p->k1) - i0 * p->k1;
                const int64_t hi = (last < (i0 + 1) * p->k1 ? last : (i0 + 1) * p->k1) - i0 * p->k1;
                for (int64_t b1 = 0; b1 < p->m1; ++b1) {
                    for (int64_t i1 = lo; i1 < hi; ++i1) {
                        const int64_t slot = (i0 * p->k1 + i1 - first) * d;
                        const size_t slot_bytes = (size_t)slot * ctx->table_item;
                        for (int64_t b0 = g0; b0 < g1; ++b0) {
                            const int64_t row = (((b0 * p->k0 + i0) * p->m1 + b1) * p->k1 + i1) * p->m2;
                            process_rows(ctx, &scratch, row, p->m2, (const char *)cos + slot_bytes,
                                         (const char *)sin + slot_bytes, acc_cos + slot, acc_sin + slot);
                        }
                    }
                }
            }
        }
        write_sums(ctx, &scratch, acc_cos, elems, ctx->dcos, at);
        write_sums(ctx, &scratch, acc_sin, elems, ctx->dsin, at);
    }
    if (ctx->stream_fence != NULL) {
        ctx->stream_fence();
    }
}

/* Without reductions: dy rows [begin, end), in runs that share a cos row. */
static void run_rows_chunk(void *opaque, size_t begin, size_t end)
{
    const rope_ctx *ctx = opaque;
    const rope_plan *p = ctx->plan;
    rope_scratch scratch;
    float *cos_w = scratch.buf[SCRATCH_COS], *sin_w = scratch.buf[SCRATCH_SIN];
    int64_t row = (int64_t)begin, g = row / p->m2;
    int64_t b2 = row % p->m2, i1 = g % p->k1, t = g / p->k1;
    int64_t b1 = t % p->m1;
    t /= p->m1;
    int64_t i0 = t % p->k0;
    int64_t cached = -1;
    const void *cos = NULL, *sin = NULL;
    while (row < (int64_t)end) {
        const int64_t cos_row = i0 * p->k1 + i1;
        if (cos_row != cached) {
            table_rows(ctx, cos_row, 1, cos_w, sin_w, &cos, &sin);
            cached = cos_row;
        }
        const int64_t n = p->m2 - b2 < (int64_t)end - row ? p->m2 - b2 : (int64_t)end - row;
        process_rows(ctx, &scratch, row, n, cos, sin, NULL, NULL);
        row += n;
        b2 = 0;
        if (++i1 == p->k1) {
            i1 = 0;
            if (++b1 == p->m1) {
                b1 = 0;
                if (++i0 == p->k0) {
                    i0 = 0;
                }
            }
        }
    }
    if (ctx->stream_fence != NULL) {
        ctx->stream_fence();
    }
}

/* The kernel's name, with "+stream" when its output goes out through an L1
 * buffer and non-temporal stores, "+nt" when it is the kernel's form that
 * stores dx so itself, or "+<t>_convert__<isa>" on the unfused route. */
static const char *kernel_name(const rope_ctx *ctx, const emu_rope_kernels *kernels)
{
    static _Thread_local char name[128];
    const rope_plan *p = ctx->plan;
    const char *base = p->forward ? kernels->fwd_name[p->mode] : kernels->grad_name[p->mode];
    const int h = p->dtype == ACL_BF16;
    if (p->dtype != ACL_FLOAT && ctx->grad_h16 != NULL) {
        base = kernels->grad_h16_name[h][p->mode];
    } else if (p->dtype != ACL_FLOAT && (ctx->fwd_h != NULL || ctx->grad_h != NULL)) {
        base = p->forward ? kernels->fwd_h_name[h][p->mode] : kernels->grad_h_name[h][p->mode];
    } else if (p->dtype != ACL_FLOAT) {
        snprintf(name, sizeof name, "%s+%s_convert__%s", base, h ? "bf16" : "f16", ctx->convert->isa_name);
        return name;
    }
    if (ctx->stream_copy == NULL) {
        return base;
    }
    snprintf(name, sizeof name, "%s+%s", base, ctx->dx_direct ? "nt" : "stream");
    return name;
}

/* Where dx and every run of pairs start on a 64-byte boundary, the
 * gradient kernels store dx with non-temporal stores themselves: no pass
 * through an L1 buffer and no extra copy (4-39% faster than that route on
 * the benchmark shapes, Zen 4). aclrtMalloc's memory qualifies; numpy's
 * 16-byte-aligned arrays take the copy route. Decided at each launch: a
 * repeatable executor's output address may change between launches. */
static void use_direct_stores(rope_ctx *ctx, const emu_rope_kernels *kernels)
{
    const rope_plan *p = ctx->plan;
    const size_t run = p->mode == 1 ? (size_t)p->d : p->mode == 2 ? (size_t)p->d / 4 : (size_t)p->d / 2;
    if ((uintptr_t)ctx->out % 64 != 0 || run * emu_dtype_size(p->dtype) % 64 != 0) {
        return;
    }
    if (p->dtype == ACL_FLOAT) {
        if (kernels->grad_nt[p->mode] != NULL) {
            ctx->grad = kernels->grad_nt[p->mode];
            ctx->dx_direct = true;
        }
        return;
    }
    const int h = p->dtype == ACL_BF16;
    if (ctx->grad_h16 != NULL && kernels->grad_h16_nt[h][p->mode] != NULL) {
        ctx->grad_h16 = kernels->grad_h16_nt[h][p->mode];
        ctx->dx_direct = true;
    } else if (ctx->grad_h16 == NULL && ctx->grad_h != NULL && kernels->grad_h_nt[h][p->mode] != NULL) {
        ctx->grad_h = kernels->grad_h_nt[h][p->mode];
        ctx->dx_direct = true;
    }
}

static const char *run_rope(aclOpExecutor *executor, void *workspace)
{
    (void)workspace;
    const rope_plan *p = (const rope_plan *)executor->plan;
    emu_isa isa = emu_isa_active();
    const emu_rope_kernels *kernels = emu_rope_select(isa);
    rope_ctx ctx = {.plan = p, .convert = emu_convert_select(isa), .item = emu_dtype_size(p->dtype)};
    const void *inputs[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < p->input_count; ++i) {
        const emu_view *view = &executor->tensors[i];
        if (!executor->present[i]) {
            continue;
        }
        inputs[i] = emu_view_origin(view);
        ctx.strided[i] = p->strided[i] ? view : NULL;
    }
    ctx.main = inputs[EMU_ROPE_SLOT_MAIN];
    ctx.cos = inputs[EMU_ROPE_SLOT_COS];
    ctx.sin = inputs[EMU_ROPE_SLOT_SIN];
    if (p->dtype != ACL_FLOAT) {
        const int h = p->dtype == ACL_BF16;
        ctx.fwd_h = p->forward ? kernels->fwd_h[h][p->mode] : NULL;
        ctx.grad_h = p->forward ? NULL : kernels->grad_h[h][p->mode];
        ctx.grad_h16 = p->forward || !p->has_x ? NULL : kernels->grad_h16[h][p->mode];
    }
    /* The fp16/bf16 route through kernels/convert already narrows from a
     * buffer; it keeps plain stores. */
    const bool fused = p->dtype == ACL_FLOAT || (p->forward ? ctx.fwd_h != NULL : ctx.grad_h != NULL);
    ctx.table_item = p->dtype == ACL_FLOAT || ctx.grad_h16 != NULL ? ctx.item : sizeof(float);
    if (p->stream_out && fused && kernels->stream_copy != NULL) {
        ctx.stream_copy = kernels->stream_copy;
        ctx.stream_fence = kernels->stream_fence;
    }
    if (p->forward) {
        ctx.out = emu_view_origin(&executor->tensors[EMU_ROPE_FWD_SLOT_OUT]);
        ctx.fwd = kernels->fwd[p->mode];
    } else {
        ctx.x = p->has_x ? inputs[EMU_ROPE_SLOT_X] : NULL;
        ctx.out = emu_view_origin(&executor->tensors[EMU_ROPE_GRAD_SLOT_DX]);
        ctx.grad = kernels->grad[p->mode];
        if (p->has_x) {
            ctx.dcos = emu_view_origin(&executor->tensors[EMU_ROPE_GRAD_SLOT_DCOS]);
            ctx.dsin = emu_view_origin(&executor->tensors[EMU_ROPE_GRAD_SLOT_DSIN]);
        }
        if (ctx.stream_copy != NULL) {
            use_direct_stores(&ctx, kernels);
        }
    }
    if (p->dy_rows == 0 || p->d == 0) {
        /* Nothing to rotate; the gradients of cos and sin are empty sums. */
        if (p->has_x && p->cos_rows > 0 && p->d > 0) {
            size_t bytes = (size_t)(p->cos_rows * p->d) * emu_dtype_size(p->dtype);
            memset(ctx.dcos, 0, bytes);
            memset(ctx.dsin, 0, bytes);
        }
        return "";
    }
    if (p->has_x) {
        const int64_t per_cos = p->dy_rows / p->cos_rows;
        int64_t grain = (ROPE_GRAIN + per_cos * p->d - 1) / (per_cos * p->d);
        emu_parallel_for((size_t)p->cos_rows, (size_t)(grain > 0 ? grain : 1), run_reduce_chunk, &ctx);
    } else {
        int64_t grain = (ROPE_GRAIN + p->d - 1) / p->d;
        emu_parallel_for((size_t)p->dy_rows, (size_t)(grain > 0 ? grain : 1), run_rows_chunk, &ctx);
    }
    return kernel_name(&ctx, kernels);
}

aclnnStatus emu_rope_publish(aclOpExecutor *executor, bool forward, int64_t mode, bool has_x,
                             uint64_t *workspace_size, aclOpExecutor **executor_out)
{
    rope_plan *plan = (rope_plan *)executor->plan;
    memset(plan, 0, sizeof *plan);
    const emu_view *main = &executor->tensors[EMU_ROPE_SLOT_MAIN];
    const emu_view *cos = &executor->tensors[EMU_ROPE_SLOT_COS];
    plan->forward = forward;
    plan->has_x = has_x;
    plan->mode = (int)mode;
    plan->dtype = main->dtype;
    plan->d = main->shape[main->rank - 1];
    plan->input_count = forward ? 3 : 4;
    plan_segments(plan, main, cos);
    plan->reduce_block = plan->reduce_step = 1;
    if (plan->d > 0) {
        plan_reduce_walk(plan);
    }
    plan->dy_rows = plan->d > 0 ? emu_view_numel(main) / plan->d : 0;
    plan->cos_rows = plan->d > 0 ? emu_view_numel(cos) / plan->d : 0;
    /* What the call streams through the cache: dy (or x), dx (or y), and x with dcos/dsin. */
    const uint64_t row_bytes = (uint64_t)emu_view_numel(main) * emu_dtype_size(main->dtype);
    plan->stream_out = row_bytes * (has_x ? 3 : 2) >= EMU_STREAM_OUTPUT_MIN_BYTES;
    for (int i = 0; i < plan->input_count; ++i) {
        plan->strided[i] = executor->present[i] && !emu_view_is_contiguous(&executor->tensors[i]);
    }
    return emu_executor_publish(executor, run_rope, 0, workspace_size, executor_out);
}
