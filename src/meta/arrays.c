/* Scalars, int/float/bool arrays, and tensor/scalar lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/convert/convert.h"
#include "meta/tensor.h"
#include "ops/opdef.h"

struct aclScalar {
    aclDataType dtype;
    _Alignas(16) unsigned char value[16];
};

struct aclIntArray {
    uint64_t size;
    int64_t values[];
};

struct aclFloatArray {
    uint64_t size;
    float values[];
};

struct aclBoolArray {
    uint64_t size;
    bool values[];
};

struct aclTensorList {
    uint64_t size;
    const aclTensor *tensors[];
};

struct aclScalarList {
    uint64_t size;
    const aclScalar *scalars[];
};

aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    size_t size = emu_dtype_size(dataType);
    if (value == NULL) {
        emu_set_message("aclCreateScalar: value is NULL; expected a pointer to one element of the dtype.");
        return NULL;
    }
    if (size == 0 || size > sizeof(((aclScalar *)0)->value)) {
        emu_set_message("aclCreateScalar: dataType is %s; expected a dtype with a fixed element size.",
                        emu_dtype_name(dataType));
        return NULL;
    }
    aclScalar *scalar = calloc(1, sizeof *scalar);
    if (scalar == NULL) {
        emu_set_message("aclCreateScalar: out of host memory.");
        return NULL;
    }
    scalar->dtype = dataType;
    memcpy(scalar->value, value, size);
    if (!emu_handle_add(scalar, EMU_HANDLE_SCALAR)) {
        free(scalar);
        emu_set_message("aclCreateScalar: out of host memory while registering the scalar.");
        return NULL;
    }
    return scalar;
}

/* Allocates header + size elements, copying them; NULL (with a message) on error. */
static void *create_array(const char *api, emu_handle_kind kind, size_t header, const void *values, uint64_t size,
                          size_t elem)
{
    if (values == NULL && size > 0) {
        emu_set_message("%s: value is NULL but size is %llu; expected an array of that length.", api,
                        (unsigned long long)size);
        return NULL;
    }
    if (size > (SIZE_MAX - header) / elem) {
        emu_set_message("%s: size is %llu; too large for host memory.", api, (unsigned long long)size);
        return NULL;
    }
    unsigned char *array = malloc(header + (size_t)size * elem);
    if (array == NULL) {
        emu_set_message("%s: out of host memory.", api);
        return NULL;
    }
    memcpy(array, &size, sizeof size);
    if (size > 0) {
        memcpy(array + header, values, (size_t)size * elem);
    }
    /* Registered, so that a destroyed array is reported instead of freed
     * twice or read; one the registry cannot hold is not handed out. */
    if (!emu_handle_add(array, kind)) {
        free(array);
        emu_set_message("%s: out of host memory while registering the result.", api);
        return NULL;
    }
    return array;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    return create_array("aclCreateIntArray", EMU_HANDLE_INT_ARRAY, offsetof(aclIntArray, values), value, size,
                        sizeof(int64_t));
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
    return create_array("aclCreateFloatArray", EMU_HANDLE_FLOAT_ARRAY, offsetof(aclFloatArray, values), value, size,
                        sizeof(float));
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
    return create_array("aclCreateBoolArray", EMU_HANDLE_BOOL_ARRAY, offsetof(aclBoolArray, values), value, size,
                        sizeof(bool));
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    return create_array("aclCreateTensorList", EMU_HANDLE_TENSOR_LIST, offsetof(aclTensorList, tensors), value, size,
                        sizeof(const aclTensor *));
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
    return create_array("aclCreateScalarList", EMU_HANDLE_SCALAR_LIST, offsetof(aclScalarList, scalars), value, size,
                        sizeof(const aclScalar *));
}

/* Every destroy: NULL is a no-op returning 0 (as CANN's nnopbase); a handle
 * that is not a live object of its kind (destroyed already, never created,
 * or another kind) is not touched and gives ACLNN_ERR_PARAM_INVALID
 * (161002) with a message. CANN deletes it anyway (a double free; its debug
 * mode only logs "possible double-free"). */
static aclnnStatus destroy_handle(const char *api, const char *name, const void *handle, emu_handle_kind kind)
{
    if (handle == NULL) {
        return ACLNN_SUCCESS;
    }
    if (!emu_handle_remove(handle, kind)) {
        return emu_check_live(api, name, handle, kind);
    }
    free((void *)handle);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    return destroy_handle("aclDestroyScalar", "scalar", scalar, EMU_HANDLE_SCALAR);
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    return destroy_handle("aclDestroyIntArray", "array", array, EMU_HANDLE_INT_ARRAY);
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray *array)
{
    return destroy_handle("aclDestroyFloatArray", "array", array, EMU_HANDLE_FLOAT_ARRAY);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
    return destroy_handle("aclDestroyBoolArray", "array", array, EMU_HANDLE_BOOL_ARRAY);
}

/* A list owns its elements (CANN's destroy deletes each). An element that
 * appears earlier in the list is destroyed once; an element that is not a
 * live handle (destroyed already) is left alone. Either is reported, for
 * the first such element, with 161002 after every other element and the
 * list itself have been destroyed: nothing leaks and nothing is freed twice. */
static aclnnStatus destroy_list(const char *api, const void *list, emu_handle_kind list_kind,
                                const void *const *items, uint64_t size, emu_handle_kind item_kind,
                                aclnnStatus (*destroy_item)(const void *))
{
    if (list == NULL) {
        return ACLNN_SUCCESS;
    }
    if (!emu_handle_remove(list, list_kind)) {
        return emu_check_live(api, "array", list, list_kind);
    }
    aclnnStatus status = ACLNN_SUCCESS;
    for (uint64_t i = 0; i < size; ++i) {
        if (items[i] == NULL) {
            continue;
        }
        uint64_t first = 0;
        while (first < i && items[first] != items[i]) {
            ++first;
        }
        if (first < i) {
            if (status == ACLNN_SUCCESS) {
                status = emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: array[%llu] is array[%llu] again (%s %p); the list "
                                                           "owns its elements, so it was destroyed once; expected "
                                                           "each element in one list once (the rest of the list is "
                                                           "destroyed).", api, (unsigned long long)i,
                                  (unsigned long long)first, emu_handle_kind_name(item_kind), items[i]);
            }
            continue;
        }
        if (!emu_handle_is(items[i], item_kind)) {
            if (status == ACLNN_SUCCESS) {
                char name[48];
                snprintf(name, sizeof name, "array[%llu]", (unsigned long long)i);
                status = emu_check_live(api, name, items[i], item_kind);
            }
            continue;
        }
        aclnnStatus item_status = destroy_item(items[i]);
        if (status == ACLNN_SUCCESS) {
            status = item_status; /* another thread destroyed it meanwhile */
        }
    }
    free((void *)list);
    return status;
}

static aclnnStatus destroy_tensor_item(const void *item)
{
    return aclDestroyTensor(item);
}

static aclnnStatus destroy_scalar_item(const void *item)
{
    return aclDestroyScalar(item);
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    return destroy_list("aclDestroyTensorList", array, EMU_HANDLE_TENSOR_LIST,
                        array != NULL ? (const void *const *)array->tensors : NULL,
                        array != NULL && emu_handle_is(array, EMU_HANDLE_TENSOR_LIST) ? array->size : 0,
                        EMU_HANDLE_TENSOR, destroy_tensor_item);
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
    return destroy_list("aclDestroyScalarList", array, EMU_HANDLE_SCALAR_LIST,
                        array != NULL ? (const void *const *)array->scalars : NULL,
                        array != NULL && emu_handle_is(array, EMU_HANDLE_SCALAR_LIST) ? array->size : 0,
                        EMU_HANDLE_SCALAR, destroy_scalar_item);
}

static aclnnStatus report_size(const char *api, const char *name, const void *array, emu_handle_kind kind,
                               uint64_t *size)
{
    if (array == NULL || size == NULL) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL; expected a valid pointer.", api,
                        array == NULL ? name : "size");
    }
    if (!emu_handle_is(array, kind)) {
        return emu_check_live(api, name, array, kind);
    }
    memcpy(size, array, sizeof *size);
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size)
{
    return report_size("aclGetIntArraySize", "array", array, EMU_HANDLE_INT_ARRAY, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size)
{
    return report_size("aclGetFloatArraySize", "array", array, EMU_HANDLE_FLOAT_ARRAY, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size)
{
    return report_size("aclGetBoolArraySize", "array", array, EMU_HANDLE_BOOL_ARRAY, size);
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size)
{
    return report_size("aclGetTensorListSize", "tensorList", tensorList, EMU_HANDLE_TENSOR_LIST, size);
}

aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size)
{
    return report_size("aclGetScalarListSize", "scalarList", scalarList, EMU_HANDLE_SCALAR_LIST, size);
}

/* ---- scalar values for the op layer (declared in ops/opdef.h) ---- */

aclDataType emu_scalar_dtype(const aclScalar *scalar)
{
    return scalar->dtype;
}

double emu_scalar_to_double(const aclScalar *scalar)
{
    const void *v = scalar->value;
    switch (scalar->dtype) {
    case ACL_FLOAT: return *(const float *)v;
    case ACL_FLOAT16: return emu_f16_to_f32(*(const uint16_t *)v);
    case ACL_BF16: return emu_bf16_to_f32(*(const uint16_t *)v);
    case ACL_DOUBLE: return *(const double *)v;
    case ACL_INT8: return *(const int8_t *)v;
    case ACL_UINT8: return *(const uint8_t *)v;
    case ACL_INT16: return *(const int16_t *)v;
    case ACL_UINT16: return *(const uint16_t *)v;
    case ACL_INT32: return *(const int32_t *)v;
    case ACL_UINT32: return *(const uint32_t *)v;
    case ACL_INT64: return (double)*(const int64_t *)v;
    case ACL_UINT64: return (double)*(const uint64_t *)v;
    case ACL_BOOL: return *(const bool *)v ? 1.0 : 0.0;
    default: return 0.0;
    }
}

int64_t emu_scalar_to_int64(const aclScalar *scalar)
{
    const void *v = scalar->value;
    switch (scalar->dtype) {
    case ACL_INT64: return *(const int64_t *)v;
    case ACL_UINT64: return (int64_t)*(const uint64_t *)v;
    default: {
        /* Floating values truncate toward zero, saturating; NaN gives 0. */
        const double d = emu_scalar_to_double(scalar);
        if (d != d) {
            return 0;
        }
        if (d >= 9223372036854775807.0) {
            return INT64_MAX;
        }
        if (d <= -9223372036854775808.0) {
            return INT64_MIN;
        }
        return (int64_t)d;
    }
    }
}

/* ---- array and list contents for the op layer (declared in ops/opdef.h) ---- */

const int64_t *emu_int_array_values(const aclIntArray *array, uint64_t *size)
{
    *size = array->size;
    return array->values;
}

const bool *emu_bool_array_values(const aclBoolArray *array, uint64_t *size)
{
    *size = array->size;
    return array->values;
}

const float *emu_float_array_values(const aclFloatArray *array, uint64_t *size)
{
    *size = array->size;
    return array->values;
}

const aclTensor *const *emu_tensor_list_items(const aclTensorList *list, uint64_t *size)
{
    *size = list->size;
    return list->tensors;
}

aclnnStatus emu_check_tensor_list_live(const char *api, const char *name, const aclTensorList *list)
{
    aclnnStatus status = emu_check_live(api, name, list, EMU_HANDLE_TENSOR_LIST);
    for (uint64_t i = 0; status == ACLNN_SUCCESS && list != NULL && i < list->size; ++i) {
        if (list->tensors[i] != NULL && !emu_tensor_is_live(list->tensors[i])) {
            char element[112];
            snprintf(element, sizeof element, "%.80s[%llu]", name, (unsigned long long)i);
            status = emu_check_live(api, element, list->tensors[i], EMU_HANDLE_TENSOR);
        }
    }
    return status;
}
