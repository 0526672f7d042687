#include <stdio.h>
#include <string.h>

#include "ops/check.h"

aclnnStatus emu_check_pointer_not_null(const char *api, const char *name, const void *pointer)
{
    if (pointer == NULL) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL; expected a valid pointer.", api, name);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_live_handle(const char *api, const char *name, const void *handle, emu_handle_kind kind)
{
    EMU_TRY(emu_check_pointer_not_null(api, name, handle));
    return emu_check_live(api, name, handle, kind);
}

aclnnStatus emu_check_tensor_arg(const char *api, const char *name, const aclTensor *tensor)
{
    return check_live_handle(api, name, tensor, EMU_HANDLE_TENSOR);
}

aclnnStatus emu_check_scalar_arg(const char *api, const char *name, const aclScalar *scalar)
{
    return check_live_handle(api, name, scalar, EMU_HANDLE_SCALAR);
}

aclnnStatus emu_check_int_array_arg(const char *api, const char *name, const aclIntArray *array)
{
    return check_live_handle(api, name, array, EMU_HANDLE_INT_ARRAY);
}

aclnnStatus emu_check_float_array_arg(const char *api, const char *name, const aclFloatArray *array)
{
    return check_live_handle(api, name, array, EMU_HANDLE_FLOAT_ARRAY);
}

aclnnStatus emu_check_bool_array_arg(const char *api, const char *name, const aclBoolArray *array)
{
    return check_live_handle(api, name, array, EMU_HANDLE_BOOL_ARRAY);
}

aclnnStatus emu_check_tensor_list_arg(const char *api, const char *name, const aclTensorList *list)
{
    EMU_TRY(emu_check_pointer_not_null(api, name, list));
    return emu_check_tensor_list_live(api, name, list);
}

aclnnStatus emu_check_scalar_list_arg(const char *api, const char *name, const aclScalarList *list)
{
    return check_live_handle(api, name, list, EMU_HANDLE_SCALAR_LIST);
}

aclnnStatus emu_check_dtype_in(const char *api, const char *name, const aclTensor *tensor, const aclDataType *allowed,
                               int allowed_count)
{
    for (int i = 0; i < allowed_count; ++i) {
        if (tensor->view.dtype == allowed[i]) {
            return ACLNN_SUCCESS;
        }
    }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; i < allowed_count && used < sizeof list; ++i) {
        const char *sep = i == 0 ? "" : (i == allowed_count - 1 ? " or " : ", ");
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", sep, emu_dtype_name(allowed[i]));
    }
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s; expected %s.", api, name,
                    emu_dtype_name(tensor->view.dtype), list);
}

aclnnStatus emu_check_same_dtype(const char *api, const char *name, const aclTensor *tensor, const char *ref_name,
                                 const aclTensor *ref)
{
    if (tensor->view.dtype != ref->view.dtype) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s; expected %s, the dtype of %s.", api, name,
                        emu_dtype_name(tensor->view.dtype), emu_dtype_name(ref->view.dtype), ref_name);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_check_max_rank(const char *api, const char *name, const aclTensor *tensor, int max_rank)
{
    if (tensor->view.rank > max_rank) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has rank %d; expected at most %d dimensions.", api, name,
                        (int)tensor->view.rank, max_rank);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_check_same_shape(const char *api, const char *name, const aclTensor *tensor, const char *ref_name,
                                 const aclTensor *ref, aclnnStatus code)
{
    if (!emu_view_same_shape(&tensor->view, &ref->view)) {
        char have[256], want[256];
        return emu_fail(code, "%s: %s has shape %s; expected %s, the shape of %s.", api, name,
                        emu_shape_string(&tensor->view, have, sizeof have),
                        emu_shape_string(&ref->view, want, sizeof want), ref_name);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_check_bf16_supported(const char *api, const char *name, const aclTensor *tensor)
{
    if (tensor->view.dtype == ACL_BF16 && emu_soc_get() == EMU_SOC_ASCEND910) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype ACL_BF16, which the emulated product %s does not "
                                                 "support; expected ACL_FLOAT or ACL_FLOAT16.", api, name,
                        aclrtGetSocName());
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_check_has_data(const char *api, const char *name, const aclTensor *tensor)
{
    if (emu_view_is_empty(&tensor->view)) {
        return ACLNN_SUCCESS;
    }
    if (tensor->view.data == NULL) {
        char shape[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has no device memory (its data address is NULL) but shape "
                                                 "%s; expected memory from aclrtMalloc.", api, name,
                        emu_shape_string(&tensor->view, shape, sizeof shape));
    }
    if (!emu_view_is_aligned(&tensor->view)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s starts at %p, not a multiple of its %zu-byte element size; "
                                                 "expected an aligned address (aclrtMalloc memory plus whole "
                                                 "elements).", api, name, emu_view_origin(&tensor->view),
                        emu_dtype_size(tensor->view.dtype));
    }
    const uint64_t numel = (uint64_t)emu_view_numel(&tensor->view); /* fits: the view is not empty */
    if (numel > EMU_MAX_TENSOR_BYTES / emu_dtype_size(tensor->view.dtype)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has %llu elements of %zu bytes; expected at most 2^58 "
                                                 "bytes of elements (a view that large, even a stride-0 "
                                                 "broadcast, cannot be staged or computed).", api, name,
                        (unsigned long long)numel, emu_dtype_size(tensor->view.dtype));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_check_device_memory(const char *api, const char *name, const aclTensor *tensor)
{
    const emu_view *view = &tensor->view;
    if (emu_view_is_empty(view) || view->data == NULL || emu_host_memory_allowed()) {
        return ACLNN_SUCCESS; /* NULL data is emu_check_has_data's to report */
    }
    const void *origin = emu_view_origin(view);
    size_t extent = emu_view_extent_bytes(view);
    if (!emu_device_range_ok(origin, extent)) {
        char what[128];
        snprintf(what, sizeof what, "the view of %s", name);
        emu_report_device_range(api, what, origin, extent);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus emu_check_outputs_separate(const char *api, const char *const *names, const aclTensor *const *tensors,
                                       int first_output, int count)
{
    for (int out = first_output; out < count; ++out) {
        for (int other = 0; other < out && tensors[out] != NULL; ++other) {
            if (tensors[other] != NULL && emu_views_share_bytes(&tensors[out]->view, &tensors[other]->view)) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shares memory with %s (their bytes from first to "
                                                         "last element overlap); expected an output in memory of "
                                                         "its own.", api, names[out], names[other]);
            }
        }
    }
    return ACLNN_SUCCESS;
}
