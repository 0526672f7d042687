#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/convert/convert.h"
#include "ops/opdef.h"

emu_dtype_set emu_dtypes_for_product(const emu_dtype_table *table)
{
    switch (emu_soc_get()) {
    case EMU_SOC_ASCEND910:
        return table->training;
    case EMU_SOC_ASCEND950:
        return table->a5;
    default:
        return table->a2_a3;
    }
}

bool emu_dtype_in(aclDataType dtype, emu_dtype_set set)
{
    return dtype >= 0 && dtype < 64 && (set & EMU_DT(dtype)) != 0;
}

bool emu_dtype_is_float(aclDataType dtype)
{
    return emu_dtype_in(dtype, EMU_DTS_FLOAT | EMU_DT(ACL_DOUBLE));
}

bool emu_dtype_is_integral(aclDataType dtype)
{
    return emu_dtype_in(dtype, EMU_DTS_INT | EMU_DT(ACL_BOOL) | EMU_DT(ACL_UINT16) | EMU_DT(ACL_UINT32) |
                                   EMU_DT(ACL_UINT64));
}

const char *emu_dtype_set_string(emu_dtype_set set, char *buf, size_t size)
{
    int total = 0;
    for (int d = 0; d < 64; ++d) {
        total += (set & EMU_DT(d)) != 0;
    }
    size_t used = 0;
    buf[0] = '\0';
    int seen = 0;
    for (int d = 0; d < 64 && used < size; ++d) {
        if ((set & EMU_DT(d)) == 0) {
            continue;
        }
        const char *sep = seen == 0 ? "" : (seen == total - 1 ? " or " : ", ");
        used += (size_t)snprintf(buf + used, size - used, "%s%s", sep, emu_dtype_name((aclDataType)d));
        ++seen;
    }
    return buf;
}

aclnnStatus emu_check_dtype_table(const char *api, const char *name, aclDataType dtype,
                                  const emu_dtype_table *table)
{
    const emu_dtype_set set = emu_dtypes_for_product(table);
    if (emu_dtype_in(dtype, set)) {
        return ACLNN_SUCCESS;
    }
    char list[512];
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has dtype %s; expected %s on %s.", api, name,
                    emu_dtype_name(dtype), emu_dtype_set_string(set, list, sizeof list), aclrtGetSocName());
}

/* Promotion follows CANN's op_api table, which is PyTorch's: within a
 * category the wider type wins; integers meet floats at the float; uint8
 * with a signed type widens to the next signed type; FLOAT16 with BF16
 * gives FLOAT. */
typedef enum { KIND_BOOL, KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT, KIND_COMPLEX, KIND_OTHER } dtype_kind;

static dtype_kind kind_of(aclDataType dtype)
{
    switch (dtype) {
    case ACL_BOOL:
        return KIND_BOOL;
    case ACL_UINT8:
        return KIND_UNSIGNED;
    case ACL_INT8:
    case ACL_INT16:
    case ACL_INT32:
    case ACL_INT64:
        return KIND_SIGNED;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_FLOAT:
    case ACL_DOUBLE:
        return KIND_FLOAT;
    case ACL_COMPLEX64:
    case ACL_COMPLEX128:
        return KIND_COMPLEX;
    default:
        return KIND_OTHER;
    }
}

/* Width order inside the integer and float kinds. */
static int rank_of(aclDataType dtype)
{
    switch (dtype) {
    case ACL_UINT8:
    case ACL_INT8:
        return 1;
    case ACL_INT16:
    case ACL_FLOAT16:
    case ACL_BF16:
        return 2;
    case ACL_INT32:
    case ACL_FLOAT:
    case ACL_COMPLEX64:
        return 4;
    case ACL_INT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX128:
        return 8;
    default:
        return 0;
    }
}

aclDataType emu_promote_types(aclDataType a, aclDataType b)
{
    if (a == b) {
        return a;
    }
    dtype_kind ka = kind_of(a), kb = kind_of(b);
    if (ka == KIND_OTHER || kb == KIND_OTHER) {
        return ACL_DT_UNDEFINED;
    }
    if (ka == KIND_BOOL) {
        return b;
    }
    if (kb == KIND_BOOL) {
        return a;
    }
    if (ka == KIND_COMPLEX || kb == KIND_COMPLEX) {
        int width = 0;
        width = rank_of(a) > width ? rank_of(a) : width;
        width = rank_of(b) > width ? rank_of(b) : width;
        return width == 8 ? ACL_COMPLEX128 : ACL_COMPLEX64;
    }
    if (ka == KIND_FLOAT && kb == KIND_FLOAT) {
        if (rank_of(a) == 2 && rank_of(b) == 2) {
            return ACL_FLOAT; /* FLOAT16 with BF16 */
        }
        return rank_of(a) > rank_of(b) ? a : b;
    }
    if (ka == KIND_FLOAT) {
        return a;
    }
    if (kb == KIND_FLOAT) {
        return b;
    }
    /* two different integer types */
    if (ka == KIND_UNSIGNED || kb == KIND_UNSIGNED) {
        aclDataType other = ka == KIND_UNSIGNED ? b : a;
        return other == ACL_INT8 ? ACL_INT16 : other;
    }
    return rank_of(a) > rank_of(b) ? a : b;
}

aclDataType emu_promote_with_scalar(aclDataType tensor, aclDataType scalar)
{
    dtype_kind kt = kind_of(tensor), ks = kind_of(scalar);
    int category_t = kt == KIND_BOOL ? 0 : (kt == KIND_FLOAT ? 2 : (kt == KIND_COMPLEX ? 3 : 1));
    int category_s = ks == KIND_BOOL ? 0 : (ks == KIND_FLOAT ? 2 : (ks == KIND_COMPLEX ? 3 : 1));
    if (category_s <= category_t) {
        return tensor;
    }
    switch (category_s) {
    case 1:
        return ACL_INT64;
    case 2:
        return ACL_FLOAT;
    default:
        return ACL_COMPLEX64;
    }
}

bool emu_can_cast(aclDataType from, aclDataType to)
{
    dtype_kind kf = kind_of(from), kt = kind_of(to);
    if (kf == KIND_COMPLEX && kt != KIND_COMPLEX) {
        return false;
    }
    if (kf == KIND_FLOAT && (kt == KIND_SIGNED || kt == KIND_UNSIGNED)) {
        return false;
    }
    if (kf != KIND_BOOL && kt == KIND_BOOL) {
        return false;
    }
    return true;
}

aclnnStatus emu_check_exact_alias(const char *api, const char *out_name, const aclTensor *out,
                                  const char *in_name, const aclTensor *input)
{
    if (input == NULL || out == NULL || !emu_views_share_bytes(&out->view, &input->view) ||
        emu_views_identical(&out->view, &input->view)) {
        return ACLNN_SUCCESS;
    }
    return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shares memory with %s but is not the same view (a partial "
                                             "overlap); expected exactly the view of %s (in place) or memory of "
                                             "its own.", api, out_name, in_name, in_name);
}

aclnnStatus emu_check_output_not_self_overlapping(const char *api, const char *name, const aclTensor *out)
{
    if (emu_view_may_self_overlap(&out->view)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s has strides under which two of its elements may share "
                                                 "memory (a stride-0 or overlapping view); expected an output "
                                                 "whose elements are distinct.", api, name);
    }
    return ACLNN_SUCCESS;
}

double emu_round_to_dtype(double value, aclDataType dtype)
{
    switch (dtype) {
    case ACL_FLOAT:
        return (float)value;
    case ACL_FLOAT16:
        return emu_f16_to_f32(emu_f32_to_f16((float)value));
    case ACL_BF16:
        return emu_bf16_to_f32(emu_f32_to_bf16((float)value));
    case ACL_BOOL:
        return value != 0;
    default:
        break;
    }
    if (!emu_dtype_is_integral(dtype) || value != value) {
        return value != value && emu_dtype_is_integral(dtype) ? 0 : value;
    }
    const double bits = (double)(8 * emu_dtype_size(dtype));
    const bool is_unsigned = dtype == ACL_UINT8 || dtype == ACL_UINT16 || dtype == ACL_UINT32 || dtype == ACL_UINT64;
    const double hi = is_unsigned ? ldexp(1.0, (int)bits) : ldexp(1.0, (int)bits - 1);
    const double lo = is_unsigned ? 0.0 : -hi;
    if (value < lo) {
        return lo;
    }
    if (value >= hi) {
        return hi - 1; /* inexact above 2^53: the nearest double */
    }
    return trunc(value);
}
