/* aclnnWeightQuantBatchMatmulV2 (hicann/ops-nn matmul/weight_quant_batch_matmul_v2/op_host/op_api/
 * aclnn_weight_quant_batch_matmul_v2.cpp and its doc):
 *     y = x @ ANTIQUANT(weight) + bias,   ANTIQUANT(w) = (w + antiquantOffset) * antiquantScale
 * x [m, k] FLOAT16/BF16 (contiguous or its last two dimensions transposed),
 * weight [k, n] INT8 or INT4 (ND, contiguous or transposed; INT8 also in
 * the FRACTAL_NZ layout aclnnTransMatmulWeight writes, nz_layout.h), scale
 * and offset in x's dtype per tensor ((1) or (1, 1)), per channel ((n) or
 * (1, n)) or per group of antiquantGroupSize rows of k ((ceil(k/g), n)),
 * bias (n) or (1, n) (FLOAT16 for fp16 x, FLOAT for bf16 x), y [m, n] in
 * x's dtype. INT4 tensors count shape, strides and offset in 4-bit
 * elements, two to a byte, the even element in the low nibble (two's
 * complement). Checks and codes in CANN's order for Atlas A2/A3 (the
 * training series has no such kernel: 361001); Ascend950 adds its own
 * refusals (quantScale/quantOffset, non-ND weight) and takes the A2 rules
 * for the INT8/INT4 subset aclnn_emu computes.
 *
 * Not computed (refused with 161002 and a message saying so): the INT8
 * output (quantScaleOptional, from aclnnTransQuantParam), the UINT64/INT64
 * antiquantScale mode, INT32-packed INT4 weights and INT4 FRACTAL_NZ
 * weights (both from aclnnConvertWeightToINT4Pack).
 *
 * Numerics, as the A2 kernel's vector unit then cube unit do it: the weight
 * is dequantized in x's dtype (fp16: q + offset rounded to fp16, times the
 * scale rounded to fp16, as half-precision Adds/Muls do; bf16: computed in
 * fp32 and rounded once to bf16), then the product runs in fp32 (the fp32
 * GEMM of kernels/gemm: one fma chain per element in increasing k), the bias
 * is added in fp32 and the sum rounded once to y's dtype. The device
 * accumulates in its own block order; its sums may differ in the last bits. */
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "kernels/gemm/gemm.h"
#include "ops/check.h"
#include "ops/nz_layout.h"
#include "ops/opdef.h"
#include "ops/quant_matmul.h"

enum { KMAX = 65535, GROUP_UNIT = 32, MAX_SLOTS = 64 };
enum { X = WQ_X, W = WQ_W, SCALE = WQ_SCALE, OFFSET = WQ_OFFSET, QSCALE = WQ_QSCALE, QOFFSET = WQ_QOFFSET,
       BIAS = WQ_BIAS, Y = WQ_Y, SLOTS = WQ_SLOTS };

static const char *const NAMES[SLOTS] = {"x", "weight", "antiquantScale", "antiquantOffsetOptional",
                                         "quantScaleOptional", "quantOffsetOptional", "biasOptional", "y"};

/* CANN's A2/A3 and Ascend950 lists (Ascend950's FP8/HIF8/FP4 weights and
 * FLOAT8_E8M0 scales are not computed by aclnn_emu and not listed). */
static const emu_dtype_table X_TYPES = {EMU_DTS_HALF, 0, EMU_DTS_HALF};
static const emu_dtype_table W_TYPES = {EMU_DT(ACL_INT8) | EMU_DT(ACL_INT4), 0, EMU_DT(ACL_INT8) | EMU_DT(ACL_INT4)};
static const emu_dtype_table S_TYPES = {EMU_DTS_HALF | EMU_DT(ACL_UINT64) | EMU_DT(ACL_INT64), 0, EMU_DTS_HALF};
static const emu_dtype_table Y_TYPES = {EMU_DTS_HALF | EMU_DT(ACL_INT8), 0, EMU_DTS_HALF};

/* ---- phase 1 ---- */

/* CANN's IsTransposeLastTwoDims for the 2-d tensors this operator takes. */
static bool transposed(const aclTensor *t)
{
    const emu_view *v = &t->view;
    if (v->rank != 2) {
        return false;
    }
    return v->strides[0] == 1 && v->strides[1] == v->shape[0] && !(v->shape[0] == 1 && v->shape[1] == 1);
}

static aclnnStatus invalid(const char *api, const char *what)
{
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s", api, what);
}

#define REFUSE(cond, ...)                                                  \
    do {                                                                   \
        if (cond) {                                                        \
            return emu_fail(ACLNN_ERR_PARAM_INVALID, __VA_ARGS__);         \
        }                                                                  \
    } while (0)

static aclnnStatus check_layouts(const char *api, const aclTensor *const *t, bool trans_w)
{
    REFUSE(!transposed(t[X]) && !emu_view_is_contiguous(&t[X]->view),
           "%s: x is neither contiguous nor the transpose of its last two dimensions; expected one of those.", api);
    REFUSE(!trans_w && !emu_view_is_contiguous(&t[W]->view),
           "%s: weight is neither contiguous nor the transpose of its last two dimensions; expected one of those.",
           api);
    for (int i = SCALE; i <= OFFSET; ++i) {
        REFUSE(t[i] != NULL && !trans_w && !emu_view_is_contiguous(&t[i]->view),
               "%s: %s is not contiguous; expected a contiguous tensor, or the transpose of its last two "
               "dimensions where weight is transposed.", api, NAMES[i]);
    }
    REFUSE(!emu_view_is_contiguous(&t[Y]->view), "%s: y is not contiguous; expected a contiguous tensor.", api);
    for (int i = QSCALE; i <= BIAS; ++i) {
        REFUSE(t[i] != NULL && !emu_view_is_contiguous(&t[i]->view),
               "%s: %s is not contiguous; expected a contiguous tensor.", api, NAMES[i]);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_rank(const char *api, int i, const aclTensor *t, int lo, int hi)
{
    REFUSE(t != NULL && (t->view.rank < lo || t->view.rank > hi),
           "%s: %s has %d dimensions; expected %d to %d.", api, NAMES[i], (int)t->view.rank, lo, hi);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_nd(const char *api, int i, const aclTensor *t, bool strict)
{
    /* CANN relabels every format but FRACTAL_NZ as ND for x, weight and
     * bias; antiquantScale and the other optional inputs must be ND. */
    REFUSE(t != NULL && (strict ? t->format != ACL_FORMAT_ND : t->format == ACL_FORMAT_FRACTAL_NZ),
           "%s: %s has the storage format %d; expected ACL_FORMAT_ND (%d).", api, NAMES[i], (int)t->format,
           (int)ACL_FORMAT_ND);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_dtypes(const char *api, const aclTensor *const *t)
{
    EMU_TRY(emu_check_dtype_table(api, "x", t[X]->view.dtype, &X_TYPES));
    EMU_TRY(emu_check_dtype_table(api, "weight", t[W]->view.dtype, &W_TYPES));
    EMU_TRY(emu_check_dtype_table(api, "antiquantScale", t[SCALE]->view.dtype, &S_TYPES));
    EMU_TRY(emu_check_dtype_table(api, "y", t[Y]->view.dtype, &Y_TYPES));
    const aclDataType xdt = t[X]->view.dtype, ydt = t[Y]->view.dtype, sdt = t[SCALE]->view.dtype;
    REFUSE(t[QSCALE] != NULL && ydt != ACL_INT8, "%s: y has dtype %s; expected ACL_INT8 when quantScaleOptional is "
           "given.", api, emu_dtype_name(ydt));
    REFUSE(t[QSCALE] == NULL && ydt != xdt, "%s: y has dtype %s; expected x's dtype %s when quantScaleOptional is "
           "NULL.", api, emu_dtype_name(ydt), emu_dtype_name(xdt));
    EMU_TRY(check_rank(api, X, t[X], 2, 2));
    EMU_TRY(check_rank(api, W, t[W], 2, 2));
    EMU_TRY(check_rank(api, Y, t[Y], 2, 2));
    const aclTensor *off = t[OFFSET];
    const bool fixpipe = sdt == ACL_UINT64 || sdt == ACL_INT64;
    if (off != NULL && off->view.dtype == ACL_INT32) {
        REFUSE(emu_soc_get() == EMU_SOC_ASCEND950, "%s: antiquantOffsetOptional has dtype ACL_INT32; expected "
               "ACL_FLOAT16 or ACL_BF16 on %s.", api, aclrtGetSocName());
        REFUSE(!fixpipe, "%s: antiquantScale has dtype %s; expected ACL_UINT64 or ACL_INT64 when "
               "antiquantOffsetOptional is ACL_INT32.", api, emu_dtype_name(sdt));
    }
    if (fixpipe) {
        REFUSE(xdt != ACL_FLOAT16, "%s: x has dtype %s; expected ACL_FLOAT16 when antiquantScale is %s.", api,
               emu_dtype_name(xdt), emu_dtype_name(sdt));
        REFUSE(t[W]->view.dtype != ACL_INT8, "%s: weight has dtype %s; expected ACL_INT8 when antiquantScale is %s.",
               api, emu_dtype_name(t[W]->view.dtype), emu_dtype_name(sdt));
        REFUSE(off != NULL && off->view.dtype != ACL_INT32, "%s: antiquantOffsetOptional has dtype %s; expected "
               "ACL_INT32 when antiquantScale is %s.", api, emu_dtype_name(off->view.dtype), emu_dtype_name(sdt));
        REFUSE(ydt != ACL_FLOAT16, "%s: y has dtype %s; expected ACL_FLOAT16 when antiquantScale is %s.", api,
               emu_dtype_name(ydt), emu_dtype_name(sdt));
    } else {
        REFUSE(xdt != sdt, "%s: antiquantScale has dtype %s; expected x's dtype %s.", api, emu_dtype_name(sdt),
               emu_dtype_name(xdt));
        REFUSE(off != NULL && off->view.dtype != sdt, "%s: antiquantOffsetOptional has dtype %s; expected "
               "antiquantScale's dtype %s.", api, emu_dtype_name(off->view.dtype), emu_dtype_name(sdt));
    }
    const aclTensor *bias = t[BIAS];
    if (bias != NULL) {
        const aclDataType bdt = bias->view.dtype;
        REFUSE(xdt == ACL_FLOAT16 && bdt != ACL_FLOAT16, "%s: biasOptional has dtype %s; expected ACL_FLOAT16 when x "
               "is ACL_FLOAT16.", api, emu_dtype_name(bdt));
        if (xdt == ACL_BF16) {
            const bool a5 = emu_soc_get() == EMU_SOC_ASCEND950;
            REFUSE(bdt != ACL_FLOAT && !(a5 && bdt == ACL_BF16), "%s: biasOptional has dtype %s; expected %s when x "
                   "is ACL_BF16.", api, emu_dtype_name(bdt), a5 ? "ACL_FLOAT or ACL_BF16" : "ACL_FLOAT");
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_formats_and_optionals(const char *api, const aclTensor *const *t)
{
    EMU_TRY(check_nd(api, X, t[X], false));
    EMU_TRY(check_nd(api, SCALE, t[SCALE], true));
    EMU_TRY(check_nd(api, BIAS, t[BIAS], false));
    EMU_TRY(check_rank(api, BIAS, t[BIAS], 1, 2));
    for (int i = OFFSET; i <= QOFFSET; ++i) {
        EMU_TRY(check_nd(api, i, t[i], true));
    }
    for (int i = SCALE; i <= QOFFSET; ++i) {
        EMU_TRY(check_rank(api, i, t[i], 1, 2));
    }
    REFUSE(t[QSCALE] == NULL && t[QOFFSET] != NULL, "%s: quantOffsetOptional is given but quantScaleOptional is "
           "NULL; expected both or neither.", api);
    REFUSE(t[QSCALE] != NULL && t[QSCALE]->view.dtype != ACL_UINT64 && t[QSCALE]->view.dtype != ACL_INT64,
           "%s: quantScaleOptional has dtype %s; expected ACL_UINT64 (from aclnnTransQuantParam).", api,
           emu_dtype_name(t[QSCALE]->view.dtype));
    return ACLNN_SUCCESS;
}

static aclnnStatus check_shapes(const char *api, const aclTensor *const *t, int group, bool trans_x, bool trans_w)
{
    const int64_t m = t[X]->view.shape[0], k = t[X]->view.shape[1];
    const int64_t kw = t[W]->view.shape[0], n = t[W]->view.shape[1];
    REFUSE(k != kw, "%s: x's k is %lld and weight's k is %lld; expected them equal.", api, (long long)k,
           (long long)kw);
    REFUSE(k < 1 || m < 1 || n < 1, "%s: m is %lld, k %lld, n %lld; expected each at least 1 (no empty tensors).",
           api, (long long)m, (long long)k, (long long)n);
    REFUSE(emu_soc_get() != EMU_SOC_ASCEND950 && (k > KMAX || n > KMAX || (trans_x && m > KMAX)),
           "%s: k is %lld, n %lld%s; expected k and n at most 65535%s.", api, (long long)k, (long long)n,
           trans_x ? " and x is transposed with m " : "", trans_x ? ", and m too" : "");
    if (t[W]->view.dtype == ACL_INT4) {
        REFUSE(trans_w && k % 2 != 0, "%s: weight is INT4 and transposed with k %lld; expected an even k.", api,
               (long long)k);
        REFUSE(!trans_w && n % 2 != 0, "%s: weight is INT4 with n %lld; expected an even n.", api, (long long)n);
    }
    REFUSE(t[Y]->view.shape[0] != m, "%s: y's m is %lld; expected x's m %lld.", api, (long long)t[Y]->view.shape[0],
           (long long)m);
    REFUSE(t[Y]->view.shape[1] != n, "%s: y's n is %lld; expected weight's n %lld.", api,
           (long long)t[Y]->view.shape[1], (long long)n);
    /* antiquantGroupSize: 0, or a multiple of 32 in [32, k - 1]. */
    REFUSE(group < 0, "%s: antiquantGroupSize is %d; expected 0 or more.", api, group);
    REFUSE(group % GROUP_UNIT != 0, "%s: antiquantGroupSize is %d; expected a multiple of 32.", api, group);
    REFUSE(group > 0 && group + 1 > k, "%s: antiquantGroupSize is %d; expected at most k - 1 = %lld.", api, group,
           (long long)(k - 1));
    const emu_view *s = &t[SCALE]->view;
    if (s->rank == 1) {
        REFUSE(group > 0 || (s->shape[0] != 1 && s->shape[0] != n), "%s: antiquantScale has shape [%lld] with "
               "antiquantGroupSize %d; expected [1] or [%lld] with antiquantGroupSize 0.", api,
               (long long)s->shape[0], group, (long long)n);
    } else {
        const int64_t ks = s->shape[0], ns = s->shape[1], groups = group > 0 ? (k + group - 1) / group : 1;
        REFUSE(group == 0 && (ks != 1 || (ns != n && ns != 1)), "%s: antiquantScale has shape [%lld, %lld]; "
               "expected [1, %lld] or [1, 1] with antiquantGroupSize 0.", api, (long long)ks, (long long)ns,
               (long long)n);
        REFUSE(group > 0 && (ks != groups || ns != n), "%s: antiquantScale has shape [%lld, %lld]; expected "
               "[%lld, %lld] with antiquantGroupSize %d.", api, (long long)ks, (long long)ns, (long long)groups,
               (long long)n, group);
    }
    if (t[OFFSET] != NULL && !emu_view_same_shape(&t[OFFSET]->view, s)) {
        char a[128], b[128];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: antiquantOffsetOptional has shape %s; expected antiquantScale's "
                        "shape %s.", api, emu_shape_string(&t[OFFSET]->view, a, sizeof a),
                        emu_shape_string(s, b, sizeof b));
    }
    const emu_view *q = t[QSCALE] != NULL ? &t[QSCALE]->view : NULL;
    REFUSE(q != NULL && q->rank == 1 && q->shape[0] != 0 && q->shape[0] != 1 && q->shape[0] != n,
           "%s: quantScaleOptional has shape [%lld]; expected [0], [1] or [%lld].", api, (long long)q->shape[0],
           (long long)n);
    REFUSE(q != NULL && q->rank == 2 && (q->shape[0] != 1 || q->shape[1] != n),
           "%s: quantScaleOptional has 2 dimensions; expected the shape [1, %lld].", api, (long long)n);
    if (q != NULL && t[QOFFSET] != NULL && !emu_view_same_shape(&t[QOFFSET]->view, q)) {
        return invalid(api, "quantOffsetOptional's shape differs from quantScaleOptional's; expected the same.");
    }
    const emu_view *b = t[BIAS] != NULL ? &t[BIAS]->view : NULL;
    REFUSE(b != NULL && b->rank == 1 && b->shape[0] != 0 && b->shape[0] != n,
           "%s: biasOptional has shape [%lld]; expected [0] or [%lld].", api, (long long)b->shape[0], (long long)n);
    REFUSE(b != NULL && b->rank == 2 && (b->shape[0] != 1 || b->shape[1] != n),
           "%s: biasOptional has shape [%lld, %lld]; expected [1, %lld].", api, (long long)b->shape[0],
           (long long)b->shape[1], (long long)n);
    return ACLNN_SUCCESS;
}

/* The bytes an INT4 or NZ weight's elements lie in, as a 1-d INT8 tensor,
 * for the memory checks and the executor. */
static aclTensor byte_view(const aclTensor *w, const wq_plan *p)
{
    aclTensor b = *w;
    int64_t first = w->view.offset, last;
    if (p->wkind == W_INT4) {
        last = first + (p->k - 1) * p->ws_k + (p->n - 1) * p->ws_n;
        first >>= 1;
        last >>= 1;
    } else {
        const int64_t rows = p->nz_trans ? p->n : p->k, cols = p->nz_trans ? p->k : p->n;
        last = first + emu_nz_matrix_elems(rows, cols, EMU_NZ_BLOCK_BYTES) - 1;
    }
    b.view.dtype = ACL_INT8;
    b.view.rank = 1;
    b.view.shape[0] = last - first + 1;
    b.view.strides[0] = 1;
    b.view.offset = first;
    return b;
}

/* Whether the GEMV kernels read this weight in place (wq_plan), and how:
 * INT4 from a whole byte, and runs along k or along n (or NZ storage of
 * the [n, k] matrix). */
static void plan_gemv(wq_plan *p)
{
    p->gemv = false;
    if (p->m > EMU_GEMV_MAX_M || (p->wkind == W_INT4 && p->w_nib0 != 0)) {
        return;
    }
    if (p->wkind == W_INT8_NZ) {
        if (!p->nz_trans) {
            return;
        }
        p->gemv_k_inner = true;
        p->gemv_stride = EMU_NZ_BLOCK_BYTES;
        p->gemv_blk = EMU_NZ_BLOCK_BYTES;
        p->gemv_blk_stride = p->nz_rows16 * EMU_NZ_BLOCK_BYTES;
    } else if (p->ws_k == 1) {
        p->gemv_k_inner = true;
        p->gemv_stride = p->ws_n;
        p->gemv_blk = p->k;
        p->gemv_blk_stride = 0;
    } else if (p->ws_n == 1) {
        p->gemv_k_inner = false;
        p->gemv_stride = p->ws_k;
    } else {
        return;
    }
    const emu_gemv_args probe = {.m = p->m, .n0 = 0, .n = p->n, .k = p->k,
                                 .kind = p->wkind == W_INT4 ? EMU_GEMV_I4 : EMU_GEMV_I8, .k_inner = p->gemv_k_inner,
                                 .stride = p->gemv_stride, .blk = p->gemv_blk, .blk_stride = p->gemv_blk_stride};
    p->gemv = emu_gemv_supported(&probe);
}

static void plan_operands(const aclTensor *const *t, int group, bool trans_w, wq_plan *p)
{
    const emu_view *x = &t[X]->view, *w = &t[W]->view, *s = &t[SCALE]->view;
    p->m = x->shape[0];
    p->k = x->shape[1];
    p->n = w->shape[1];
    p->xdt = x->dtype;
    p->xs_m = x->strides[0];
    p->xs_k = x->strides[1];
    p->wkind = w->dtype == ACL_INT4 ? W_INT4 : t[W]->format == ACL_FORMAT_FRACTAL_NZ ? W_INT8_NZ : W_INT8;
    p->ws_k = w->strides[0];
    p->ws_n = w->strides[1];
    p->w_nib0 = w->offset & 1;
    p->nz_trans = trans_w;
    p->nz_rows16 = emu_nz_align(trans_w ? p->n : p->k, EMU_NZ_ROWS);
    p->group = group > 0 ? group : p->k;
    /* Strides of the group and column indices (0 where a dimension is 1). */
    const emu_view *views[2] = {s, t[OFFSET] != NULL ? &t[OFFSET]->view : NULL};
    int64_t *gs[2] = {&p->sc_g, &p->of_g}, *ns[2] = {&p->sc_n, &p->of_n};
    for (int i = 0; i < 2; ++i) {
        const emu_view *v = views[i];
        if (v == NULL) {
            continue;
        }
        const int64_t cols = v->shape[v->rank - 1];
        *ns[i] = cols > 1 ? v->strides[v->rank - 1] : 0;
        *gs[i] = v->rank == 2 && v->shape[0] > 1 ? v->strides[0] : 0;
    }
    p->has_offset = views[1] != NULL;
    p->has_bias = t[BIAS] != NULL && emu_view_numel(&t[BIAS]->view) > 0;
    p->bias_dt = t[BIAS] != NULL ? t[BIAS]->view.dtype : ACL_FLOAT;
    p->ys_m = t[Y]->view.strides[0];
    p->m_tiles = (p->m + WQ_MT - 1) / WQ_MT;
    p->n_tiles = (p->n + WQ_NB - 1) / WQ_NB;
    const int64_t threads = emu_num_threads() > 0 ? emu_num_threads() : 1;
    plan_gemv(p);
    if (p->gemv) {
        /* Columns in whole vectors, at most 512 (the tile's rows stay in L1),
         * about four tasks per thread. */
        int64_t nt = p->n < 512 ? p->n : 512;
        while (nt > 64 && (p->n + nt - 1) / nt < 4 * threads) {
            nt = (nt / 2 + 31) / 32 * 32;
        }
        p->gemv_nt = nt;
        p->m_tiles = 1;
        p->n_tiles = (p->n + nt - 1) / nt;
    }
    p->tasks = p->m_tiles * p->n_tiles;
    p->slots = p->tasks < threads ? p->tasks : threads > MAX_SLOTS ? MAX_SLOTS : threads;
    const uint64_t scratch = (emu_sgemm_scratch_bytes() + 63) / 64 * 64;
    p->block_offset = scratch;
    p->tile_offset = scratch + (uint64_t)WQ_KB * WQ_NB * sizeof(float);
    p->slot_bytes = p->tile_offset + (uint64_t)WQ_MT * WQ_NB * sizeof(float);
    p->slot_offset = ((uint64_t)p->m * (uint64_t)p->k * sizeof(float) + 63) / 64 * 64;
}

aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale,
    const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional,
    const aclTensor *biasOptional, int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    static const char API[] = "aclnnWeightQuantBatchMatmulV2GetWorkspaceSize";
    const aclTensor *t[SLOTS] = {x, weight, antiquantScale, antiquantOffsetOptional, quantScaleOptional,
                                 quantOffsetOptional, biasOptional, y};
    if (emu_soc_get() == EMU_SOC_ASCEND910) {
        return emu_fail(ACLNN_ERR_RUNTIME_ERROR, "%s: support for %s is not implemented by CANN.", API,
                        aclrtGetSocName());
    }
    EMU_TRY(emu_check_not_null(API, "x", x));
    EMU_TRY(emu_check_not_null(API, "weight", weight));
    EMU_TRY(emu_check_not_null(API, "antiquantScale", antiquantScale));
    EMU_TRY(emu_check_not_null(API, "y", y));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    if (emu_soc_get() == EMU_SOC_ASCEND950) {
        if (quantScaleOptional != NULL || quantOffsetOptional != NULL) {
            return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: quantScaleOptional and quantOffsetOptional must be NULL on "
                            "%s.", API, aclrtGetSocName());
        }
        EMU_TRY(check_nd(API, W, weight, true));
    }
    const bool trans_x = transposed(x), trans_w = transposed(weight);
    EMU_TRY(check_layouts(API, t, trans_w));
    REFUSE(weight->view.dtype == ACL_INT32, "%s: weight is ACL_INT32 (INT4 packed by aclnnConvertWeightToINT4Pack), "
           "which aclnn_emu does not implement; expected ACL_INT8 or ACL_INT4.", API);
    EMU_TRY(check_dtypes(API, t));
    EMU_TRY(check_formats_and_optionals(API, t));
    EMU_TRY(check_shapes(API, t, antiquantGroupSize, trans_x, trans_w));
    REFUSE(weight->view.dtype == ACL_INT4 && weight->format == ACL_FORMAT_FRACTAL_NZ, "%s: weight is ACL_INT4 in "
           "FRACTAL_NZ (from aclnnConvertWeightToINT4Pack), which aclnn_emu does not read; expected an ND INT4 "
           "weight.", API);
    REFUSE(antiquantScale->view.dtype == ACL_UINT64 || antiquantScale->view.dtype == ACL_INT64,
           "%s: antiquantScale is %s (the fixpipe mode of aclnnTransQuantParamV2), which aclnn_emu does not "
           "implement; expected x's dtype.", API, emu_dtype_name(antiquantScale->view.dtype));
    REFUSE(quantScaleOptional != NULL, "%s: quantScaleOptional is given (an INT8 y), which aclnn_emu does not "
           "implement; expected NULL.", API);

    wq_plan plan = {0};
    plan_operands(t, antiquantGroupSize, trans_w, &plan);
    aclTensor wbytes = *weight;
    if (plan.wkind != W_INT8) {
        wbytes = byte_view(weight, &plan);
    }
    const aclTensor *checked[SLOTS] = {x, &wbytes, antiquantScale, antiquantOffsetOptional, NULL, NULL,
                                       biasOptional, y};
    for (int i = 0; i < SLOTS; ++i) {
        if (checked[i] != NULL) {
            EMU_TRY(emu_check_has_data(API, NAMES[i], checked[i]));
            EMU_TRY(emu_check_device_memory(API, NAMES[i], checked[i]));
        }
    }
    EMU_TRY(emu_check_outputs_separate(API, NAMES, checked, Y, SLOTS));

    aclOpExecutor *planned = emu_executor_create(API, "aclnnWeightQuantBatchMatmulV2", Y, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, NAMES);
    for (int i = 0; i < SLOTS; ++i) {
        emu_executor_bind(planned, i, i == W ? &wbytes : t[i]);
    }
    if (biasOptional != NULL && !plan.has_bias) {
        emu_executor_mark_unused(planned, BIAS);
    }
    memcpy(planned->plan, &plan, sizeof plan);
    const uint64_t workspace = plan.slot_offset + (uint64_t)plan.slots * plan.slot_bytes + 64;
    return emu_executor_publish(planned, wq_run, workspace, workspaceSize, executor);
}

aclnnStatus aclnnWeightQuantBatchMatmulV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream)
{
    return emu_executor_run("aclnnWeightQuantBatchMatmulV2", workspace, workspaceSize, executor, stream);
}
