/* Scalars, int/float/bool arrays, and tensor/scalar lists. */
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
    return scalar;
}

/* Allocates header + size elements, copying them; NULL (with a message) on error. */
static void *create_array(const char *api, size_t header, const void *values, uint64_t size, size_t elem)
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
    return array;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    return create_array("aclCreateIntArray", offsetof(aclIntArray, values), value, size, sizeof(int64_t));
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
    return create_array("aclCreateFloatArray", offsetof(aclFloatArray, values), value, size, sizeof(float));
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
    return create_array("aclCreateBoolArray", offsetof(aclBoolArray, values), value, size, sizeof(bool));
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    return create_array("aclCreateTensorList", offsetof(aclTensorList, tensors), value, size,
                        sizeof(const aclTensor *));
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
    return create_array("aclCreateScalarList", offsetof(aclScalarList, scalars), value, size,
                        sizeof(const aclScalar *));
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    free((void *)scalar);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    free((void *)array);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray *array)
{
    free((void *)array);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
    free((void *)array);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    if (array != NULL) {
        for (uint64_t i = 0; i < array->size; ++i) {
            aclDestroyTensor(array->tensors[i]);
        }
        free((void *)array);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
    if (array != NULL) {
        for (uint64_t i = 0; i < array->size; ++i) {
            aclDestroyScalar(array->scalars[i]);
        }
        free((void *)array);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus report_size(const char *api, const char *name, const void *array, uint64_t *size)
{
    if (array == NULL || size == NULL) {
        return emu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL; expected a valid pointer.", api,
                        array == NULL ? name : "size");
    }
    memcpy(size, array, sizeof *size);
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size)
{
    return report_size("aclGetIntArraySize", "array", array, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size)
{
    return report_size("aclGetFloatArraySize", "array", array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size)
{
    return report_size("aclGetBoolArraySize", "array", array, size);
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size)
{
    return report_size("aclGetTensorListSize", "tensorList", tensorList, size);
}

aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size)
{
    return report_size("aclGetScalarListSize", "scalarList", scalarList, size);
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
