/* The op-definition layer: what every operator declares once, and the
 * phase-1 pieces that read those declarations (dtype tables per product,
 * CANN's type promotion and cast rules, scalars, in-place aliasing).
 *
 * Element-wise operators are declared with an emu_ew_def (ew.h) and need
 * no code of their own beyond their public entry points; other operators
 * use the same checks and the registry of implemented operators. */
#ifndef EMU_OPS_OPDEF_H_
#define EMU_OPS_OPDEF_H_

#include "meta/tensor.h"

/* ---- dtype sets ----
 * A bit per aclDataType value (all are below 64). */
typedef uint64_t emu_dtype_set;
#define EMU_DT(dtype) ((emu_dtype_set)1 << (dtype))
#define EMU_DTS_HALF (EMU_DT(ACL_FLOAT16) | EMU_DT(ACL_BF16))
#define EMU_DTS_FLOAT (EMU_DT(ACL_FLOAT) | EMU_DTS_HALF)
#define EMU_DTS_INT                                                                                         \
    (EMU_DT(ACL_INT8) | EMU_DT(ACL_UINT8) | EMU_DT(ACL_INT16) | EMU_DT(ACL_INT32) | EMU_DT(ACL_INT64))
#define EMU_DTS_REAL (EMU_DTS_FLOAT | EMU_DT(ACL_DOUBLE) | EMU_DTS_INT)

/* The dtypes one tensor of an operator accepts, per emulated product, as
 * CANN's op_api support lists are: Atlas A2/A3 (Ascend910B, Ascend910_93),
 * the training series (Ascend910) and Ascend950. */
typedef struct {
    emu_dtype_set a2_a3;
    emu_dtype_set training;
    emu_dtype_set a5;
} emu_dtype_table;
/* The common case: the training series lacks BF16, Ascend950 has A2's list. */
#define EMU_DTYPES(set) {(set), (set) & ~EMU_DT(ACL_BF16), (set)}

emu_dtype_set emu_dtypes_for_product(const emu_dtype_table *table);
bool emu_dtype_in(aclDataType dtype, emu_dtype_set set);
bool emu_dtype_is_float(aclDataType dtype);    /* FLOAT, FLOAT16, BF16, DOUBLE */
bool emu_dtype_is_integral(aclDataType dtype); /* the integer types and BOOL */
/* "ACL_FLOAT, ACL_FLOAT16 or ACL_BF16" into buf. */
const char *emu_dtype_set_string(emu_dtype_set set, char *buf, size_t size);
/* 161002 naming api, the argument and the accepted list when the tensor's
 * dtype is not in the product's list. */
aclnnStatus emu_check_dtype_table(const char *api, const char *name, aclDataType dtype,
                                  const emu_dtype_table *table);

/* ---- promotion and casting (CANN's op_api common rules, PyTorch's table) ----
 * ACL_DT_UNDEFINED when the pair has no common type. */
aclDataType emu_promote_types(aclDataType a, aclDataType b);
/* The dtype of tensor (op) scalar: the tensor's, unless the scalar is of a
 * higher category (bool < integer < floating), then that category's
 * default (INT64, FLOAT). */
aclDataType emu_promote_with_scalar(aclDataType tensor, aclDataType scalar);
/* Whether a result of dtype `from` may be written to a tensor of `to`:
 * not floating to integral, not a non-bool to BOOL. */
bool emu_can_cast(aclDataType from, aclDataType to);

/* ---- scalars ---- */
aclDataType emu_scalar_dtype(const aclScalar *scalar);
double emu_scalar_to_double(const aclScalar *scalar);
int64_t emu_scalar_to_int64(const aclScalar *scalar);

/* ---- arrays and lists: their values, their count in *size ---- */
const int64_t *emu_int_array_values(const aclIntArray *array, uint64_t *size);
const bool *emu_bool_array_values(const aclBoolArray *array, uint64_t *size);
const float *emu_float_array_values(const aclFloatArray *array, uint64_t *size);
const aclTensor *const *emu_tensor_list_items(const aclTensorList *list, uint64_t *size);

/* `value` as it reads once stored in `dtype` (CANN converts a scalar to a
 * tensor of the dtype it computes in): rounded to FLOAT16/BF16/FLOAT,
 * truncated (saturating) into integers, 0 or 1 for BOOL. */
double emu_round_to_dtype(double value, aclDataType dtype);

/* ---- in-place ---- */
/* `out` either is exactly `input` (an in-place call) or shares no byte with
 * it; a partial overlap would make the result depend on the order in which
 * the kernel reads and writes, so it is refused with 161002. */
aclnnStatus emu_check_exact_alias(const char *api, const char *out_name, const aclTensor *out,
                                  const char *in_name, const aclTensor *input);
/* An output whose distinct indices may address one element (a stride-0
 * dimension) is refused with 161002. */
aclnnStatus emu_check_output_not_self_overlapping(const char *api, const char *name, const aclTensor *out);

/* ---- the registry of implemented operators ----
 * Every operator that aclnn_emu implements is listed in src/ops/registry.c
 * with its phase-2 name and a signature that Python reads to call it. */
typedef struct {
    const char *api;       /* "aclnnAdd" */
    const char *signature; /* see registry.c */
} emu_op_info;
const emu_op_info *emu_op_registry(size_t *count);

#endif /* EMU_OPS_OPDEF_H_ */
