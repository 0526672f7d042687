#include <stdio.h>
#include <string.h>

#include "ops/check.h"

aclnnStatus emu_check_not_null(const char *api, const char *name, const void *pointer)
{
    if (pointer == NULL) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL; expected a valid pointer.", api, name);
    }
    return ACLNN_SUCCESS;
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
    if (tensor->view.data == NULL && !emu_view_is_empty(&tensor->view)) {
        char shape[256];
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has no device memory (its data address is NULL) but shape "
                                                 "%s; expected memory from aclrtMalloc.", api, name,
                        emu_shape_string(&tensor->view, shape, sizeof shape));
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

/* [origin, origin + extent) of a view that has memory, or false. */
static bool byte_range(const aclTensor *tensor, const char **begin, size_t *length)
{
    const emu_view *view = tensor != NULL ? &tensor->view : NULL;
    if (view == NULL || view->data == NULL || emu_view_is_empty(view)) {
        return false;
    }
    *begin = emu_view_origin(view);
    *length = emu_view_extent_bytes(view);
    return true;
}

aclnnStatus emu_check_outputs_separate(const char *api, const char *const *names, const aclTensor *const *tensors,
                                       int first_output, int count)
{
    for (int out = first_output; out < count; ++out) {
        const char *out_begin;
        size_t out_length;
        if (!byte_range(tensors[out], &out_begin, &out_length)) {
            continue;
        }
        for (int other = 0; other < out; ++other) {
            const char *other_begin;
            size_t other_length;
            if (byte_range(tensors[other], &other_begin, &other_length) &&
                emu_ranges_overlap(out_begin, out_length, other_begin, other_length)) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (bytes %p..+%zu) shares memory with %s (bytes "
                                                         "%p..+%zu); expected an output in memory of its own.",
                                api, names[out], (const void *)out_begin, out_length, names[other],
                                (const void *)other_begin, other_length);
            }
        }
    }
    return ACLNN_SUCCESS;
}
