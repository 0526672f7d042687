/* aclnnTransMatmulWeight, aclnnCalculateMatmulWeightSize(V2)
 * (hicann/ops-math conversion/trans_data/op_api/aclnn_trans_matmul_weight.cpp).
 *
 * TransMatmulWeight rewrites a matmul weight in place into the FRACTAL_NZ
 * layout (nz_layout.h): phase 1 sets the tensor's storage format to
 * FRACTAL_NZ and its storage shape to [..., ceil(cols/C0), ceil(rows/16),
 * 16, C0] (the view is kept), phase 2 copies the view to the workspace and
 * writes the padded NZ matrices from the view's first element on. The
 * caller's buffer must hold CalculateMatmulWeightSizeV2 elements from there.
 * Operators that take the same tensor afterwards see a FRACTAL_NZ weight
 * and read it through nz_layout.h (WeightQuantBatchMatmulV2 does).
 *
 * CalculateMatmulWeightSize(V2): the element count of that storage:
 * batch dimensions times align(rows, 16) times align(cols, 16) for
 * FLOAT16/BF16 or align(cols, 32) for any other dtype (CANN does not check
 * the dtype here). */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "common/parallel.h"
#include "meta/executor.h"
#include "ops/check.h"
#include "ops/nz_layout.h"
#include "ops/opdef.h"

enum { MIN_DIMS = 2, MAX_DIMS = 6, MAX_TENSOR_DIMS = 8 };

void emu_nz_to_nd(const void *nz, void *nd, int64_t batch, int64_t rows, int64_t cols, int64_t elem_size)
{
    const int64_t c0 = EMU_NZ_BLOCK_BYTES / elem_size, rows16 = emu_nz_align(rows, EMU_NZ_ROWS);
    const int64_t per = emu_nz_matrix_elems(rows, cols, c0);
    for (int64_t b = 0; b < batch; ++b) {
        const char *src = (const char *)nz + b * per * elem_size;
        char *dst = (char *)nd + b * rows * cols * elem_size;
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < cols; c += c0) {
                const int64_t run = cols - c < c0 ? cols - c : c0;
                memcpy(dst + (r * cols + c) * elem_size, src + emu_nz_index(r, c, rows16, c0) * elem_size,
                       (size_t)(run * elem_size));
            }
        }
    }
}

/* ---- CalculateMatmulWeightSize(V2) ---- */

static aclnnStatus check_dims(const char *api, const char *name, uint64_t dims, bool two_to_six)
{
    if (two_to_six ? (dims < MIN_DIMS || dims > MAX_DIMS) : dims != MIN_DIMS) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %llu dimensions; expected %s on %s.", api, name,
                        (unsigned long long)dims, two_to_six ? "2 to 6" : "2", aclrtGetSocName());
    }
    return ACLNN_SUCCESS;
}

static bool is_a2_a3(void)
{
    return emu_soc_get() == EMU_SOC_ASCEND910B || emu_soc_get() == EMU_SOC_ASCEND910_93;
}

/* CANN's product in int64 (wrapping as its arithmetic would), returned as uint64. */
static uint64_t nz_elems(const int64_t *shape, uint64_t dims, aclDataType dtype)
{
    const bool half = dtype == ACL_FLOAT16 || dtype == ACL_BF16;
    uint64_t size = 1;
    for (uint64_t i = 0; i < dims; ++i) {
        int64_t d = shape[i];
        if (i + 2 == dims) {
            d = emu_nz_align(d, EMU_NZ_ROWS);
        } else if (i + 1 == dims) {
            d = emu_nz_align(d, half ? 16 : 32);
        }
        size *= (uint64_t)d;
    }
    return size;
}

aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape, uint64_t *weightTensorSize)
{
    static const char API[] = "aclnnCalculateMatmulWeightSize";
    EMU_TRY(emu_check_not_null(API, "tensorShape", tensorShape));
    EMU_TRY(emu_check_not_null(API, "weightTensorSize", weightTensorSize));
    uint64_t dims = 0;
    const int64_t *shape = emu_int_array_values(tensorShape, &dims);
    EMU_TRY(check_dims(API, "tensorShape", dims, is_a2_a3()));
    *weightTensorSize = nz_elems(shape, dims, ACL_FLOAT16);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape, aclDataType dataType,
                                             uint64_t *weightTensorSize)
{
    static const char API[] = "aclnnCalculateMatmulWeightSizeV2";
    if (emu_soc_get() == EMU_SOC_ASCEND910) {
        return emu_fail(ACLNN_ERR_RUNTIME_ERROR, "%s: support for %s is not implemented by CANN.", API,
                        aclrtGetSocName());
    }
    EMU_TRY(emu_check_not_null(API, "tensorShape", tensorShape));
    EMU_TRY(emu_check_not_null(API, "weightTensorSize", weightTensorSize));
    uint64_t dims = 0;
    const int64_t *shape = emu_int_array_values(tensorShape, &dims);
    EMU_TRY(check_dims(API, "tensorShape", dims, true));
    for (uint64_t i = 0; i < dims; ++i) {
        if (shape[i] == 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensorShape[%llu] is 0; expected no zero in the shape.",
                            API, (unsigned long long)i);
        }
    }
    *weightTensorSize = nz_elems(shape, dims, dataType);
    return ACLNN_SUCCESS;
}

/* ---- TransMatmulWeight ---- */

#define NZ_1B (EMU_DT(ACL_INT8) | EMU_DT(ACL_UINT8) | EMU_DT(ACL_FLOAT8_E4M3FN) | EMU_DT(ACL_HIFLOAT8))
static const emu_dtype_table TRANS_TYPES = {EMU_DTS_HALF | NZ_1B, EMU_DT(ACL_FLOAT16), EMU_DTS_HALF | NZ_1B};

typedef struct {
    int64_t batch, rows, cols, c0, elem;
    int64_t col_blocks, rows16;
} tw_plan;

static_assert(sizeof(tw_plan) <= EMU_PLAN_BYTES, "tw_plan must fit in the executor");

typedef struct {
    const tw_plan *plan;
    const char *dense;
    char *nz;
} tw_ctx;

/* One column block of one matrix: every padded row's run of C0 elements. */
static void write_blocks(void *opaque, size_t begin, size_t end)
{
    const tw_ctx *t = opaque;
    const tw_plan *p = t->plan;
    const int64_t run_bytes = p->c0 * p->elem;
    for (size_t task = begin; task < end; ++task) {
        const int64_t b = (int64_t)task / p->col_blocks, cb = (int64_t)task % p->col_blocks;
        const int64_t c = cb * p->c0, run = p->cols - c < p->c0 ? p->cols - c : p->c0;
        const char *src = t->dense + (b * p->rows * p->cols + c) * p->elem;
        char *dst = t->nz + ((b * p->col_blocks + cb) * p->rows16 * p->c0) * p->elem;
        for (int64_t r = 0; r < p->rows16; ++r, dst += run_bytes) {
            if (r < p->rows) {
                memcpy(dst, src + r * p->cols * p->elem, (size_t)(run * p->elem));
                memset(dst + run * p->elem, 0, (size_t)((p->c0 - run) * p->elem));
            } else {
                memset(dst, 0, (size_t)run_bytes);
            }
        }
    }
}

static const char *run_trans(aclOpExecutor *executor, void *workspace)
{
    const tw_plan *p = (const tw_plan *)executor->plan;
    if (p->batch == 0) {
        return "";
    }
    /* The whole view is read before the first NZ byte is written: the NZ
     * matrices overwrite the weight in place. */
    emu_view_gather(&executor->tensors[0], workspace);
    tw_ctx t = {.plan = p, .dense = workspace, .nz = emu_view_origin(&executor->tensors[1])};
    emu_parallel_for((size_t)(p->batch * p->col_blocks), 1, write_blocks, &t);
    return "trans_data_nz";
}

static const char *const TW_NAMES[] = {"mmWeightRef", "mmWeightRef"};

aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    static const char API[] = "aclnnTransMatmulWeightGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "mmWeightRef", mmWeightRef));
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    const emu_view *view = &mmWeightRef->view;
    EMU_TRY(emu_check_dtype_table(API, "mmWeightRef", view->dtype, &TRANS_TYPES));
    if (mmWeightRef->format != ACL_FORMAT_ND) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: mmWeightRef has the storage format %d; expected ACL_FORMAT_ND "
                                                 "(%d).", API, (int)mmWeightRef->format, (int)ACL_FORMAT_ND);
    }
    EMU_TRY(emu_check_max_rank(API, "mmWeightRef", mmWeightRef, MAX_TENSOR_DIMS));
    tw_plan plan = {0};
    aclTensor nz = *mmWeightRef;
    const bool empty = emu_view_is_empty(view);
    if (!empty) {
        EMU_TRY(check_dims(API, "mmWeightRef", (uint64_t)view->rank,
                           view->dtype == ACL_INT8 || is_a2_a3()));
        EMU_TRY(emu_check_has_data(API, "mmWeightRef", mmWeightRef));
        EMU_TRY(emu_check_device_memory(API, "mmWeightRef", mmWeightRef));
        plan.elem = (int64_t)emu_dtype_size(view->dtype);
        plan.c0 = EMU_NZ_BLOCK_BYTES / plan.elem;
        plan.rows = view->shape[view->rank - 2];
        plan.cols = view->shape[view->rank - 1];
        plan.batch = emu_view_numel(view) / (plan.rows * plan.cols);
        plan.rows16 = emu_nz_align(plan.rows, EMU_NZ_ROWS);
        plan.col_blocks = emu_nz_align(plan.cols, plan.c0) / plan.c0;
        /* What phase 2 writes: the NZ storage from the view's first element. */
        nz.view.rank = 1;
        nz.view.shape[0] = plan.batch * emu_nz_matrix_elems(plan.rows, plan.cols, plan.c0);
        nz.view.strides[0] = 1;
        EMU_TRY(emu_check_device_memory(API, "mmWeightRef", &nz));
        /* Host memory (Python's numpy arrays) is not checked by the above:
         * the padded NZ storage must then fit in the view's own extent. */
        const size_t nz_bytes = emu_view_extent_bytes(&nz.view);
        if (emu_host_memory_allowed() && !emu_device_range_ok(emu_view_origin(&nz.view), nz_bytes) &&
            nz_bytes > emu_view_extent_bytes(view)) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: mmWeightRef's FRACTAL_NZ storage takes %zu bytes from its "
                            "first element, more than its view's %zu, in memory that is not a device block; "
                            "expected a device buffer of aclnnCalculateMatmulWeightSizeV2 elements.", API, nz_bytes,
                            emu_view_extent_bytes(view));
        }
    }
    aclOpExecutor *planned = emu_executor_create(API, "aclnnTransMatmulWeight", 1, 1);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    emu_executor_name_tensors(planned, TW_NAMES);
    emu_executor_allow_aliasing(planned);
    emu_executor_bind(planned, 0, mmWeightRef);
    emu_executor_bind(planned, 1, &nz);
    if (empty) {
        emu_executor_mark_unused(planned, 0);
        emu_executor_mark_unused(planned, 1);
    }
    memcpy(planned->plan, &plan, sizeof plan);
    const uint64_t workspace = empty ? 0 : (uint64_t)(emu_view_numel(view) * plan.elem);
    EMU_TRY(emu_executor_publish(planned, run_trans, workspace, workspaceSize, executor));
    if (!empty) {
        /* The tensor now describes NZ storage, as CANN leaves it. */
        const int32_t batch_dims = view->rank - 2;
        mmWeightRef->format = ACL_FORMAT_FRACTAL_NZ;
        mmWeightRef->storage_rank = batch_dims + 4;
        for (int32_t i = 0; i < batch_dims; ++i) {
            mmWeightRef->storage[i] = view->shape[i];
        }
        mmWeightRef->storage[batch_dims] = plan.col_blocks;
        mmWeightRef->storage[batch_dims + 1] = plan.rows16 / EMU_NZ_ROWS;
        mmWeightRef->storage[batch_dims + 2] = EMU_NZ_ROWS;
        mmWeightRef->storage[batch_dims + 3] = plan.c0;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnTransMatmulWeight(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream)
{
    return emu_executor_run("aclnnTransMatmulWeight", workspace, workspaceSize, executor, stream);
}
