#include "common/emu.h"

typedef struct {
    aclDataType dtype;
    const char *name;
    size_t size;
} dtype_info;

static const dtype_info DTYPES[] = {
    {ACL_FLOAT, "ACL_FLOAT", 4},
    {ACL_FLOAT16, "ACL_FLOAT16", 2},
    {ACL_INT8, "ACL_INT8", 1},
    {ACL_INT32, "ACL_INT32", 4},
    {ACL_UINT8, "ACL_UINT8", 1},
    {ACL_INT16, "ACL_INT16", 2},
    {ACL_UINT16, "ACL_UINT16", 2},
    {ACL_UINT32, "ACL_UINT32", 4},
    {ACL_INT64, "ACL_INT64", 8},
    {ACL_UINT64, "ACL_UINT64", 8},
    {ACL_DOUBLE, "ACL_DOUBLE", 8},
    {ACL_BOOL, "ACL_BOOL", 1},
    {ACL_STRING, "ACL_STRING", 0},
    {ACL_COMPLEX64, "ACL_COMPLEX64", 8},
    {ACL_COMPLEX128, "ACL_COMPLEX128", 16},
    {ACL_BF16, "ACL_BF16", 2},
    {ACL_INT4, "ACL_INT4", 0},
    {ACL_UINT1, "ACL_UINT1", 0},
    {ACL_COMPLEX32, "ACL_COMPLEX32", 4},
    {ACL_HIFLOAT8, "ACL_HIFLOAT8", 1},
    {ACL_FLOAT8_E5M2, "ACL_FLOAT8_E5M2", 1},
    {ACL_FLOAT8_E4M3FN, "ACL_FLOAT8_E4M3FN", 1},
    {ACL_FLOAT8_E8M0, "ACL_FLOAT8_E8M0", 1},
    {ACL_FLOAT6_E3M2, "ACL_FLOAT6_E3M2", 1},
    {ACL_FLOAT6_E2M3, "ACL_FLOAT6_E2M3", 1},
    {ACL_FLOAT4_E2M1, "ACL_FLOAT4_E2M1", 0},
    {ACL_FLOAT4_E1M2, "ACL_FLOAT4_E1M2", 0},
};

static const dtype_info *find(aclDataType dtype)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; ++i) {
        if (DTYPES[i].dtype == dtype) {
            return &DTYPES[i];
        }
    }
    return NULL;
}

const char *emu_dtype_name(aclDataType dtype)
{
    const dtype_info *info = find(dtype);
    return info ? info->name : (dtype == ACL_DT_UNDEFINED ? "ACL_DT_UNDEFINED" : "an unknown dtype");
}

size_t emu_dtype_size(aclDataType dtype)
{
    const dtype_info *info = find(dtype);
    return info ? info->size : 0;
}

size_t aclDataTypeSize(aclDataType dataType)
{
    return emu_dtype_size(dataType);
}
