/* aclnnRotaryPositionEmbedding: CANN's hand-written API returns success
 * for an empty out before any other check; then the same dtype, mode and
 * shape rules as the gradient (ops/rope_layout.h). out may be exactly x
 * (in place, as ggml-cann calls it for contiguous fp32 ROPE): the kernels
 * read what they combine before storing it (ops/rope_layout.h), so the
 * result is the out-of-place one; any other overlap is refused (161002). */
#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "ops/check.h"
#include "ops/rope_layout.h"

static const char *run_nothing(aclOpExecutor *executor, void *workspace)
{
    (void)executor;
    (void)workspace;
    return "";
}

/* An executor with the four tensors bound (x, cos or sin may be NULL when out is empty). */
static aclOpExecutor *bind_forward(const char *api, const aclTensor *x, const aclTensor *cos, const aclTensor *sin,
                                   const aclTensor *out)
{
    aclOpExecutor *planned = emu_executor_create(api, "aclnnRotaryPositionEmbedding", 3, 1);
    if (planned != NULL) {
        static const char *const NAMES[] = {"x", "cos", "sin", "out"};
        emu_executor_name_tensors(planned, NAMES);
        emu_executor_bind(planned, EMU_ROPE_SLOT_MAIN, x);
        emu_executor_bind(planned, EMU_ROPE_SLOT_COS, cos);
        emu_executor_bind(planned, EMU_ROPE_SLOT_SIN, sin);
        emu_executor_bind(planned, EMU_ROPE_FWD_SLOT_OUT, out);
    }
    return planned;
}

aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x, const aclTensor *cos,
                                                         const aclTensor *sin, int64_t mode, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char API[] = "aclnnRotaryPositionEmbeddingGetWorkspaceSize";
    EMU_TRY(emu_check_not_null(API, "workspaceSize", workspaceSize));
    EMU_TRY(emu_check_not_null(API, "executor", executor));
    EMU_TRY(emu_check_not_null(API, "out", out));
    if (emu_view_is_empty(&out->view)) {
        aclOpExecutor *planned = bind_forward(API, x, cos, sin, out);
        if (planned == NULL) {
            return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        }
        for (int slot = EMU_ROPE_SLOT_MAIN; slot <= EMU_ROPE_SLOT_SIN; ++slot) {
            emu_executor_mark_unused(planned, slot); /* nothing is read */
        }
        return emu_executor_publish(planned, run_nothing, 0, workspaceSize, executor);
    }
    EMU_TRY(emu_check_not_null(API, "x", x));
    EMU_TRY(emu_check_not_null(API, "cos", cos));
    EMU_TRY(emu_check_not_null(API, "sin", sin));
    EMU_TRY(emu_rope_check_product(API));
    const emu_rope_args args = {
        .api = API, .main_name = "x", .out_name = "out", .main = x, .cos = cos, .sin = sin, .out = out,
        .out_may_be_main = true,
    };
    EMU_TRY(emu_rope_check_dtypes(&args));
    EMU_TRY(emu_rope_check_shapes(&args, mode));
    EMU_TRY(emu_rope_check_memory(&args));
    aclOpExecutor *planned = bind_forward(API, x, cos, sin, out);
    if (planned == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    if (emu_views_identical(&out->view, &x->view)) {
        /* Phase 2 then lets out share x's memory; phase 1 refused every other overlap. */
        emu_executor_allow_aliasing(planned);
    }
    return emu_rope_publish(planned, true, mode, false, workspaceSize, executor);
}

aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream)
{
    return emu_executor_run("aclnnRotaryPositionEmbedding", workspace, workspaceSize, executor, stream);
}
