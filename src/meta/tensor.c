/* aclTensor: creation, validation, getters and address management. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/shape_array.h"
#include "meta/tensor.h"

typedef struct {
    const int64_t *view_dims;
    uint64_t view_rank;
    aclDataType dtype;
    const int64_t *strides;
    int64_t offset;
    aclFormat format;
    const int64_t *storage_dims;
    uint64_t storage_rank;
    void *data;
} tensor_args;

/* Validates the arguments and fills `out`; returns 0, 161001 or 161002. */
static aclnnStatus build_tensor(const char *api, const tensor_args *args, struct aclTensor *out)
{
    if (args->view_dims == NULL && args->view_rank > 0) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: viewDims is NULL but viewDimsNum is %llu; expected a shape "
                                                 "array of that length.", api, (unsigned long long)args->view_rank);
    }
    if (args->storage_dims == NULL && args->storage_rank > 0) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: storageDims is NULL but storageDimsNum is %llu; expected a "
                                                 "shape array of that length.", api,
                        (unsigned long long)args->storage_rank);
    }
    if (args->view_rank > EMU_MAX_DIMS || args->storage_rank > EMU_MAX_DIMS) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s is %llu; expected at most %d dimensions.", api,
                        args->view_rank > EMU_MAX_DIMS ? "viewDimsNum" : "storageDimsNum",
                        (unsigned long long)(args->view_rank > EMU_MAX_DIMS ? args->view_rank : args->storage_rank),
                        EMU_MAX_DIMS);
    }
    if (args->offset < 0) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: offset is %lld; expected a non-negative element offset.", api,
                        (long long)args->offset);
    }
    memset(out, 0, sizeof *out);
    out->view.dtype = args->dtype;
    out->view.rank = (int32_t)args->view_rank;
    out->view.offset = args->offset;
    out->view.data = args->data;
    out->format = args->format;
    out->storage_rank = (int32_t)args->storage_rank;
    for (uint64_t i = 0; i < args->view_rank; ++i) {
        if (args->view_dims[i] < 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: viewDims[%llu] is %lld; expected a non-negative size.", api,
                            (unsigned long long)i, (long long)args->view_dims[i]);
        }
        out->view.shape[i] = args->view_dims[i];
    }
    for (uint64_t i = 0; i < args->storage_rank; ++i) {
        if (args->storage_dims[i] < 0) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: storageDims[%llu] is %lld; expected a non-negative size.",
                            api, (unsigned long long)i, (long long)args->storage_dims[i]);
        }
        out->storage[i] = args->storage_dims[i];
    }
    /* Row-major strides for a NULL stride argument, saturated (an empty view
     * may have dimensions whose product overflows; it is never indexed). */
    int64_t contiguous[EMU_MAX_DIMS];
    int64_t running = 1;
    for (uint64_t i = args->view_rank; i-- > 0;) {
        contiguous[i] = running;
        if (__builtin_mul_overflow(running, args->view_dims[i] > 0 ? args->view_dims[i] : 1, &running)) {
            running = INT64_MAX;
        }
    }
    /* Element counts and the furthest element index must fit in int64, so
     * no later size computation can overflow. */
    int64_t numel = 1, last_index = args->offset;
    bool empty = false;
    for (uint64_t i = 0; i < args->view_rank; ++i) {
        empty = empty || args->view_dims[i] == 0;
    }
    for (uint64_t i = 0; i < args->view_rank && !empty; ++i) {
        int64_t stride = args->strides != NULL ? args->strides[i] : contiguous[i];
        int64_t reach = 0;
        if (__builtin_mul_overflow(numel, args->view_dims[i], &numel) ||
            (stride >= 0 && (__builtin_mul_overflow(args->view_dims[i] - 1, stride, &reach) ||
                             __builtin_add_overflow(last_index, reach, &last_index)))) {
            return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: viewDims and stride describe more elements than int64 "
                                                     "can index; expected a view of at most 2^63-1 elements.", api);
        }
    }
    /* The same in bytes: the op layer turns offsets into addresses with
     * int64 byte arithmetic, which must not wrap to another block. */
    const size_t item = emu_dtype_size(args->dtype);
    int64_t end_byte = 0;
    if (__builtin_add_overflow(last_index, 1, &end_byte) ||
        __builtin_mul_overflow(end_byte, (int64_t)(item > 0 ? item : 1), &end_byte)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: offset %lld and the view reach past byte 2^63-1 for elements "
                                                 "of %zu bytes; expected a view that fits in memory.", api,
                        (long long)args->offset, item > 0 ? item : (size_t)1);
    }
    if (args->strides != NULL) {
        for (uint64_t i = 0; i < args->view_rank; ++i) {
            if (args->strides[i] < 0) {
                return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: stride[%llu] is %lld; expected a non-negative "
                                                         "element stride.", api, (unsigned long long)i,
                                (long long)args->strides[i]);
            }
            out->view.strides[i] = args->strides[i];
        }
    } else {
        memcpy(out->view.strides, contiguous, (size_t)args->view_rank * sizeof *contiguous);
    }
    return ACLNN_SUCCESS;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData)
{
    tensor_args args = {viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                        tensorData};
    struct aclTensor *tensor = malloc(sizeof *tensor);
    if (tensor == NULL) {
        emu_set_message("aclCreateTensor: out of host memory.");
        return NULL;
    }
    if (build_tensor("aclCreateTensor", &args, tensor) != ACLNN_SUCCESS) {
        free(tensor);
        return NULL;
    }
    /* Registered, so that every later call can tell a live tensor from a
     * destroyed one (and for the aclFinalize leak report): a tensor the
     * registry cannot hold is not handed out. */
    if (!emu_handle_add(tensor, EMU_HANDLE_TENSOR)) {
        free(tensor);
        emu_set_message("aclCreateTensor: out of host memory while registering the tensor.");
        return NULL;
    }
    return tensor;
}

aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                          const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                          uint64_t storageDimsNum, void *tensorData)
{
    if (tensor == NULL) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor: tensor is NULL; expected a tensor from "
                                                 "aclCreateTensor.");
    }
    aclnnStatus live = emu_check_live("aclInitTensor", "tensor", tensor, EMU_HANDLE_TENSOR);
    if (live != ACLNN_SUCCESS) {
        return live;
    }
    tensor_args args = {viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                        tensorData};
    struct aclTensor rebuilt;
    aclnnStatus status = build_tensor("aclInitTensor", &args, &rebuilt);
    if (status == ACLNN_SUCCESS) {
        *tensor = rebuilt;
    }
    return status;
}

/* CANN's nnopbase returns 0 for NULL and deletes whatever it is given (a
 * second destroy is a double free; only its debug mode logs "possible
 * double-free"). Here a handle that is not a live tensor is never touched:
 * ACLNN_ERR_PARAM_INVALID (161002) with a message. */
aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    if (tensor == NULL) {
        return ACLNN_SUCCESS;
    }
    if (!emu_handle_remove(tensor, EMU_HANDLE_TENSOR)) {
        return emu_check_live("aclDestroyTensor", "tensor", tensor, EMU_HANDLE_TENSOR);
    }
    free((void *)tensor);
    return ACLNN_SUCCESS;
}

static aclnnStatus null_argument(const char *api, const char *name)
{
    return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL; expected a valid pointer.", api, name);
}

typedef enum { DIMS_VIEW_SHAPE, DIMS_STORAGE_SHAPE, DIMS_VIEW_STRIDES } dims_kind;

static aclnnStatus copy_dims(const char *api, const aclTensor *tensor, dims_kind which, int64_t **out,
                             uint64_t *out_rank, const char *out_name, const char *rank_name)
{
    if (tensor == NULL) {
        return null_argument(api, "tensor");
    }
    aclnnStatus live = emu_check_live(api, "tensor", tensor, EMU_HANDLE_TENSOR);
    if (live != ACLNN_SUCCESS) {
        return live;
    }
    if (out == NULL) {
        return null_argument(api, out_name);
    }
    if (out_rank == NULL) {
        return null_argument(api, rank_name);
    }
    /* Read only now that the tensor is known to be live. */
    const int64_t *dims = which == DIMS_VIEW_SHAPE     ? tensor->view.shape
                        : which == DIMS_STORAGE_SHAPE ? tensor->storage
                                                      : tensor->view.strides;
    const int32_t rank = which == DIMS_STORAGE_SHAPE ? tensor->storage_rank : tensor->view.rank;
    int64_t *copy = NULL;
    if (rank > 0) {
        copy = emu_new_int64_array((size_t)rank);
        if (copy == NULL) {
            return emu_fail(ACLNN_ERR_INNER, "%s: out of host memory.", api);
        }
        memcpy(copy, dims, (size_t)rank * sizeof *copy);
    }
    *out = copy;
    *out_rank = (uint64_t)rank;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
    return copy_dims("aclGetViewShape", tensor, DIMS_VIEW_SHAPE, viewDims, viewDimsNum, "viewDims", "viewDimsNum");
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum)
{
    return copy_dims("aclGetStorageShape", tensor, DIMS_STORAGE_SHAPE, storageDims, storageDimsNum, "storageDims",
                     "storageDimsNum");
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum)
{
    return copy_dims("aclGetViewStrides", tensor, DIMS_VIEW_STRIDES, stridesValue, stridesNum, "stridesValue",
                     "stridesNum");
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    if (tensor == NULL || offset == NULL) {
        return null_argument("aclGetViewOffset", tensor == NULL ? "tensor" : "offset");
    }
    if (!emu_tensor_is_live(tensor)) {
        return emu_check_live("aclGetViewOffset", "tensor", tensor, EMU_HANDLE_TENSOR);
    }
    *offset = tensor->view.offset;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    if (tensor == NULL || format == NULL) {
        return null_argument("aclGetFormat", tensor == NULL ? "tensor" : "format");
    }
    if (!emu_tensor_is_live(tensor)) {
        return emu_check_live("aclGetFormat", "tensor", tensor, EMU_HANDLE_TENSOR);
    }
    *format = tensor->format;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    if (tensor == NULL || dataType == NULL) {
        return null_argument("aclGetDataType", tensor == NULL ? "tensor" : "dataType");
    }
    if (!emu_tensor_is_live(tensor)) {
        return emu_check_live("aclGetDataType", "tensor", tensor, EMU_HANDLE_TENSOR);
    }
    *dataType = tensor->view.dtype;
    return ACLNN_SUCCESS;
}

aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
    if (tensor == NULL) {
        return null_argument("aclSetRawTensorAddr", "tensor");
    }
    if (!emu_tensor_is_live(tensor)) {
        return emu_check_live("aclSetRawTensorAddr", "tensor", tensor, EMU_HANDLE_TENSOR);
    }
    tensor->view.data = addr;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
    if (tensor == NULL || addr == NULL) {
        return null_argument("aclGetRawTensorAddr", tensor == NULL ? "tensor" : "addr");
    }
    if (!emu_tensor_is_live(tensor)) {
        return emu_check_live("aclGetRawTensorAddr", "tensor", tensor, EMU_HANDLE_TENSOR);
    }
    *addr = tensor->view.data;
    return ACLNN_SUCCESS;
}

/* ---- view helpers ---- */

int64_t emu_view_numel(const emu_view *view)
{
    /* An empty view may have other dimensions whose product overflows
     * (build_tensor bounds the product of non-empty views only). */
    if (emu_view_is_empty(view)) {
        return 0;
    }
    int64_t n = 1;
    for (int32_t i = 0; i < view->rank; ++i) {
        n *= view->shape[i];
    }
    return n;
}

bool emu_view_is_empty(const emu_view *view)
{
    for (int32_t i = 0; i < view->rank; ++i) {
        if (view->shape[i] == 0) {
            return true;
        }
    }
    return false;
}

bool emu_view_is_contiguous(const emu_view *view)
{
    int64_t expected = 1;
    bool past_int64 = false; /* an empty view's dense stride may not fit */
    for (int32_t i = view->rank - 1; i >= 0; --i) {
        if (view->shape[i] != 1 && (past_int64 || view->strides[i] != expected)) {
            return false;
        }
        past_int64 = past_int64 || __builtin_mul_overflow(expected, view->shape[i], &expected);
    }
    return true;
}

bool emu_view_same_shape(const emu_view *a, const emu_view *b)
{
    if (a->rank != b->rank) {
        return false;
    }
    for (int32_t i = 0; i < a->rank; ++i) {
        if (a->shape[i] != b->shape[i]) {
            return false;
        }
    }
    return true;
}

const char *emu_shape_string(const emu_view *view, char *buf, size_t size)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, size, "[");
    for (int32_t i = 0; i < view->rank && used < size; ++i) {
        used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld", (long long)view->shape[i]);
    }
    if (used < size) {
        snprintf(buf + used, size - used, "]");
    }
    return buf;
}

size_t emu_view_extent_bytes(const emu_view *view)
{
    int64_t last = 0;
    for (int32_t i = 0; i < view->rank; ++i) {
        last += (view->shape[i] - 1) * view->strides[i]; /* bounded at creation */
    }
    size_t bytes = 0;
    if (__builtin_mul_overflow((size_t)last + 1, emu_dtype_size(view->dtype), &bytes)) {
        return SIZE_MAX;
    }
    return bytes;
}

bool emu_view_is_aligned(const emu_view *view)
{
    size_t item = emu_dtype_size(view->dtype);
    size_t align = item > 8 ? 8 : item;
    return align <= 1 || (align & (align - 1)) != 0 || (uintptr_t)emu_view_origin(view) % align == 0;
}

bool emu_views_share_bytes(const emu_view *a, const emu_view *b)
{
    if (a->data == NULL || b->data == NULL || emu_view_is_empty(a) || emu_view_is_empty(b)) {
        return false;
    }
    return emu_ranges_overlap(emu_view_origin(a), emu_view_extent_bytes(a), emu_view_origin(b),
                              emu_view_extent_bytes(b));
}

bool emu_views_identical(const emu_view *a, const emu_view *b)
{
    if (a->dtype != b->dtype || emu_view_origin(a) != emu_view_origin(b) || !emu_view_same_shape(a, b)) {
        return false;
    }
    for (int32_t i = 0; i < a->rank; ++i) {
        if (a->shape[i] != 1 && a->strides[i] != b->strides[i]) {
            return false;
        }
    }
    return true;
}

bool emu_view_may_self_overlap(const emu_view *view)
{
    if (emu_view_is_empty(view)) {
        return false;
    }
    int32_t order[EMU_MAX_DIMS];
    int32_t count = 0;
    for (int32_t i = 0; i < view->rank; ++i) {
        if (view->shape[i] == 1) {
            continue; /* a single index: its stride never matters */
        }
        int32_t at = count++;
        while (at > 0 && view->strides[order[at - 1]] > view->strides[i]) { /* insertion sort by stride */
            order[at] = order[at - 1];
            --at;
        }
        order[at] = i;
    }
    int64_t reach = 0; /* furthest element offset of the smaller dimensions */
    for (int32_t k = 0; k < count; ++k) {
        const int64_t stride = view->strides[order[k]];
        if (stride <= reach) {
            return true;
        }
        reach += (view->shape[order[k]] - 1) * stride; /* bounded at creation */
    }
    return false;
}

bool emu_broadcast_shape(const emu_view *a, const emu_view *b, int64_t *out, int32_t *out_rank)
{
    int32_t rank = a->rank > b->rank ? a->rank : b->rank;
    for (int32_t i = 0; i < rank; ++i) {
        int32_t ia = i - (rank - a->rank), ib = i - (rank - b->rank);
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            return false;
        }
        out[i] = da == 1 ? db : da;
    }
    *out_rank = rank;
    return true;
}

void emu_view_broadcast_to(emu_view *view, const int64_t *shape, int32_t rank)
{
    int64_t strides[EMU_MAX_DIMS];
    int32_t lead = rank - view->rank;
    for (int32_t i = 0; i < rank; ++i) {
        int32_t source = i - lead;
        bool stretched = source < 0 || (view->shape[source] == 1 && shape[i] != 1);
        strides[i] = stretched ? 0 : view->strides[source];
    }
    for (int32_t i = 0; i < rank; ++i) {
        view->shape[i] = shape[i];
        view->strides[i] = strides[i];
    }
    view->rank = rank;
}

/* Merges dimensions that are dense with respect to each other and drops
 * size-1 dimensions, so the copy loops run over as few, long rows as possible. */
static int32_t compact(const emu_view *view, int64_t *shape, int64_t *strides)
{
    int32_t rank = 0;
    for (int32_t i = 0; i < view->rank; ++i) {
        if (view->shape[i] == 1) {
            continue;
        }
        if (rank > 0 && strides[rank - 1] == view->strides[i] * view->shape[i]) {
            shape[rank - 1] *= view->shape[i];
            strides[rank - 1] = view->strides[i];
        } else {
            shape[rank] = view->shape[i];
            strides[rank] = view->strides[i];
            ++rank;
        }
    }
    return rank;
}

/* Visits every row (innermost dimension) of the view in row-major order. */
static void copy_rows(const emu_view *view, char *dense, bool to_dense)
{
    int64_t shape[EMU_MAX_DIMS], strides[EMU_MAX_DIMS], index[EMU_MAX_DIMS] = {0};
    int32_t rank = compact(view, shape, strides);
    size_t elem = emu_dtype_size(view->dtype);
    char *origin = emu_view_origin(view);
    if (rank == 0) {
        if (to_dense) {
            memcpy(dense, origin, elem);
        } else {
            memcpy(origin, dense, elem);
        }
        return;
    }
    int64_t row = shape[rank - 1];
    int64_t step = strides[rank - 1] * (int64_t)elem;
    for (;;) {
        int64_t start = 0;
        for (int32_t i = 0; i < rank - 1; ++i) {
            start += index[i] * strides[i];
        }
        char *strided = origin + start * (int64_t)elem;
        if (step == (int64_t)elem) {
            if (to_dense) {
                memcpy(dense, strided, (size_t)row * elem);
            } else {
                memcpy(strided, dense, (size_t)row * elem);
            }
        } else {
            for (int64_t j = 0; j < row; ++j) {
                if (to_dense) {
                    memcpy(dense + j * (int64_t)elem, strided + j * step, elem);
                } else {
                    memcpy(strided + j * step, dense + j * (int64_t)elem, elem);
                }
            }
        }
        dense += row * (int64_t)elem;
        int32_t d = rank - 2;
        while (d >= 0 && ++index[d] == shape[d]) {
            index[d] = 0;
            --d;
        }
        if (d < 0) {
            return;
        }
    }
}

void emu_view_gather(const emu_view *view, void *dense)
{
    if (!emu_view_is_empty(view)) {
        copy_rows(view, dense, true);
    }
}

void emu_view_scatter(const void *dense, const emu_view *view)
{
    if (!emu_view_is_empty(view)) {
        copy_rows(view, (char *)dense, false);
    }
}
