/* Phase-1 argument checks shared by the operators. Each returns
 * ACLNN_SUCCESS or sets one sentence naming the API and the argument and
 * returns the code. EMU_TRY chains them in the real validation order. */
#ifndef EMU_OPS_CHECK_H_
#define EMU_OPS_CHECK_H_

#include "meta/tensor.h"

#define EMU_TRY(expr)                         \
    do {                                      \
        aclnnStatus emu_try_status_ = (expr); \
        if (emu_try_status_ != ACLNN_SUCCESS) \
            return emu_try_status_;           \
    } while (0)

/* The first check of every argument: NULL is ACLNN_ERR_PARAM_NULLPTR
 * (161001). An aclnn handle (tensor, scalar, array, list) must also be live:
 * a destroyed one is ACLNN_ERR_PARAM_INVALID (161002) naming the argument,
 * found in the handle registry without reading the freed object. Other
 * pointers (workspaceSize, executor) are only checked for NULL. The handle
 * kind comes from the argument's static type. */
#define emu_check_not_null(api, name, pointer)                                                                \
    _Generic((pointer),                                                                                        \
        aclTensor *: emu_check_tensor_arg, const aclTensor *: emu_check_tensor_arg,                            \
        aclScalar *: emu_check_scalar_arg, const aclScalar *: emu_check_scalar_arg,                            \
        aclIntArray *: emu_check_int_array_arg, const aclIntArray *: emu_check_int_array_arg,                  \
        aclFloatArray *: emu_check_float_array_arg, const aclFloatArray *: emu_check_float_array_arg,          \
        aclBoolArray *: emu_check_bool_array_arg, const aclBoolArray *: emu_check_bool_array_arg,              \
        aclTensorList *: emu_check_tensor_list_arg, const aclTensorList *: emu_check_tensor_list_arg,          \
        aclScalarList *: emu_check_scalar_list_arg, const aclScalarList *: emu_check_scalar_list_arg,          \
        default: emu_check_pointer_not_null)(api, name, pointer)

aclnnStatus emu_check_pointer_not_null(const char *api, const char *name, const void *pointer);
aclnnStatus emu_check_tensor_arg(const char *api, const char *name, const aclTensor *tensor);
aclnnStatus emu_check_scalar_arg(const char *api, const char *name, const aclScalar *scalar);
aclnnStatus emu_check_int_array_arg(const char *api, const char *name, const aclIntArray *array);
aclnnStatus emu_check_float_array_arg(const char *api, const char *name, const aclFloatArray *array);
aclnnStatus emu_check_bool_array_arg(const char *api, const char *name, const aclBoolArray *array);
/* The list and every tensor in it. */
aclnnStatus emu_check_tensor_list_arg(const char *api, const char *name, const aclTensorList *list);
aclnnStatus emu_check_scalar_list_arg(const char *api, const char *name, const aclScalarList *list);
aclnnStatus emu_check_dtype_in(const char *api, const char *name, const aclTensor *tensor, const aclDataType *allowed,
                               int allowed_count);
aclnnStatus emu_check_same_dtype(const char *api, const char *name, const aclTensor *tensor, const char *ref_name,
                                 const aclTensor *ref);
aclnnStatus emu_check_max_rank(const char *api, const char *name, const aclTensor *tensor, int max_rank);
aclnnStatus emu_check_same_shape(const char *api, const char *name, const aclTensor *tensor, const char *ref_name,
                                 const aclTensor *ref, aclnnStatus code);
/* Most bytes of elements (element count x element size) an operator takes
 * in one tensor. A stride-0 view may have far more elements than memory
 * holds; staging it (or computing a result of its shape) would need that
 * many bytes of workspace, and the sum of several such sizes must not wrap
 * the 64-bit workspace size. */
#define EMU_MAX_TENSOR_BYTES ((uint64_t)1 << 58)

/* A non-empty tensor must point at memory (its data is not NULL), its
 * first element be aligned to the element size, and its elements fit in
 * EMU_MAX_TENSOR_BYTES. */
aclnnStatus emu_check_has_data(const char *api, const char *name, const aclTensor *tensor);
/* A non-empty tensor's view lies inside one live device block (unless the
 * thread allows host memory). */
aclnnStatus emu_check_device_memory(const char *api, const char *name, const aclTensor *tensor);
/* Every output tensors[first_output..count) shares no byte with any tensor
 * before it (the inputs and the earlier outputs): the results would depend
 * on the order of reads and writes, which CANN leaves undefined, so the
 * emulator reports 161002 instead. Extents are compared, so two views
 * interleaved in one buffer count as shared too. NULL tensors and empty or
 * address-less views pass. */
aclnnStatus emu_check_outputs_separate(const char *api, const char *const *names, const aclTensor *const *tensors,
                                       int first_output, int count);
/* BF16 is not supported by the Atlas training series (Ascend910). */
aclnnStatus emu_check_bf16_supported(const char *api, const char *name, const aclTensor *tensor);

#endif /* EMU_OPS_CHECK_H_ */
