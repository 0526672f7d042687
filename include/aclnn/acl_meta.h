/**
 * @file aclnn/acl_meta.h
 * @brief aclnn metadata objects: tensors, scalars, arrays and lists.
 *
 * An aclTensor describes a view of device memory: view shape, strides and
 * offset (both counted in elements), data type, format and storage shape.
 * Creating or destroying a descriptor never allocates or frees the memory
 * it points to. Every function here is thread-safe for distinct objects.
 *
 * Unlike CANN's header (C++ only), this one is valid C11 and C++11.
 */
#ifndef ACLNN_ACL_META_H_
#define ACLNN_ACL_META_H_

#ifdef __cplusplus
#include <cstdint>
#include <cstdlib>
#else
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#endif

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalarList aclScalarList;

typedef int32_t aclnnStatus;

#ifndef ACLNN_META
#define ACLNN_META
#ifdef __cplusplus
constexpr aclnnStatus OK = 0;
#endif
#endif

/** Success. */
#define ACLNN_SUCCESS 0
/** A required pointer argument is NULL. */
#define ACLNN_ERR_PARAM_NULLPTR 161001
/** An argument has an unsupported value, dtype or format, or the
 *  workspace/executor handed to phase 2 is not acceptable. */
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
/** A shape constraint of the operator is violated. */
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
/** A NULL executor was handed to an executor management function. */
#define ACLNN_ERR_INNER_NULLPTR 561103
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE 561104
#define ACLNN_ERR_INNER_KEY_CONFILICT 561105
#define ACLNN_ERR_INNER_KEY_CONFLICT 561105
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE 561106
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND 561107
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED 561108
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND 561109
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID 561110
#define ACLNN_ERR_INNER_JSON_DTYPE_INVALID 561111
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND 561112
#define ACLNN_ERR_INNER_OP_FILE_INVALID 561113
#define ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND 561114
#define ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH 561115
#define ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE 561116
#define ACLNN_ERR_INNER_INPUT_JSON_IS_NULL 561117
#define ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID 561118
#define ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID 561119

/* ---------------------------------------------------------------- tensors */

/**
 * Creates a tensor descriptor.
 * @param viewDims view shape (may be NULL only when @p viewDimsNum is 0: a 0-d tensor).
 * @param viewDimsNum rank of the view, at most 32 (operators limit it further).
 * @param dataType element type.
 * @param stride strides in elements, one per view dimension, or NULL for
 *        the contiguous strides of the view shape.
 * @param offset view offset from @p tensorData, in elements.
 * @param format layout tag (ACL_FORMAT_ND for plain arrays).
 * @param storageDims storage shape (may be NULL only when @p storageDimsNum is 0).
 * @param tensorData start of the storage in device memory; NULL is accepted
 *        (for tensors that are never read or written, such as empty ones).
 * @return the descriptor, owned by the caller (aclDestroyTensor); NULL when
 *         a shape pointer is NULL with a non-zero count, a rank exceeds 32,
 *         a dimension, stride or offset is negative, the view holds more
 *         elements than int64 can index, its last element lies past byte
 *         2^63-1 from @p tensorData, or memory runs out (a message is left
 *         for aclGetRecentErrMsg).
 */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t *stride, int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData);

/**
 * Creates a scalar holding a copy of the value at @p value.
 * @return the scalar (aclDestroyScalar); NULL for a NULL @p value or a
 *         dtype without a fixed size.
 */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);

/** Creates an array holding a copy of @p value[0..size). NULL @p value is
 *  accepted only with size 0. Returns NULL on bad arguments or no memory. */
ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
/** As aclCreateIntArray, for floats. */
ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
/** As aclCreateIntArray, for bools. */
ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);

/**
 * Creates a list of tensors. The list takes ownership of the tensors:
 * aclDestroyTensorList destroys them too. NULL entries are allowed.
 * @return the list; NULL when @p value is NULL with size > 0 or memory runs out.
 */
ACL_FUNC_VISIBILITY aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
/** As aclCreateTensorList, for scalars (owned by the list). */
ACL_FUNC_VISIBILITY aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size);

/** Destroys a descriptor (not the memory it points to). NULL is a no-op.
 *  @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);
/** Destroys a scalar. NULL is a no-op. @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);
/** Destroys an array. NULL is a no-op. @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *array);
/** Destroys an array. NULL is a no-op. @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyFloatArray(const aclFloatArray *array);
/** Destroys an array. NULL is a no-op. @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);
/** Destroys a list and the tensors in it. NULL is a no-op. @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList *array);
/** Destroys a list and the scalars in it. NULL is a no-op. @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalarList(const aclScalarList *array);

/**
 * Copies the view shape out.
 * @param viewDims out: a new array of @p viewDimsNum entries, allocated with
 *        C++ new[] so that C++ callers may delete[] it, as with CANN; C
 *        callers free it with aclnnEmuFreeArray() (aclnn_emu/aclnn_emu.h).
 *        NULL for a 0-d tensor.
 * @return ACLNN_SUCCESS; ACLNN_ERR_PARAM_NULLPTR (161001) for a NULL argument.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum);
/** As aclGetViewShape, for the storage shape. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                                   uint64_t *storageDimsNum);
/** As aclGetViewShape, for the view strides (in elements). */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                                  uint64_t *stridesNum);
/** Reports the view offset in elements. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
/** Reports the format. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
/** Reports the data type. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
/** Reports the number of entries. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size);
/** Reports the number of entries. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size);
/** Reports the number of entries. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size);
/** Reports the number of entries. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size);
/** Reports the number of entries. @return ACLNN_SUCCESS; 161001 for NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size);

/**
 * Re-initialises an existing descriptor in place with the same arguments
 * as aclCreateTensor.
 * @return ACLNN_SUCCESS; ACLNN_ERR_PARAM_NULLPTR (161001) for a NULL tensor
 *         or a NULL shape pointer with a non-zero count;
 *         ACLNN_ERR_PARAM_INVALID (161002) for negative dims, strides or
 *         offset, or a view reaching past byte 2^63-1. On failure the
 *         tensor is unchanged.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum,
                                              aclDataType dataType, const int64_t *stride, int64_t offset,
                                              aclFormat format, const int64_t *storageDims,
                                              uint64_t storageDimsNum, void *tensorData);

/**
 * Points the descriptor at new storage.
 * @return ACLNN_SUCCESS; ACLNN_ERR_PARAM_NULLPTR (161001) for a NULL tensor.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr);

/**
 * Reports the storage address of the descriptor.
 * @return ACLNN_SUCCESS; ACLNN_ERR_PARAM_NULLPTR (161001) for a NULL argument.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_ACL_META_H_ */
