/*
 * cffi declarations of the public aclnn_emu headers (include/acl, include/aclnn,
 * include/aclnnop, include/aclnn_emu), in the headers' order.
 *
 * Rules: one declaration per line; enums keep their explicit values; integer
 * #defines and `static const int` constants are written without a value
 * (the C compiler supplies it in API mode). Each header has a section marker
 * "---- <path> ----"; _cffi_build.py #includes every aclnnop/ header named by
 * a marker. tests/test_cdef.py checks this file against the headers, both ways.
 */
/* ---- acl/error_codes/rt_error_codes.h ---- */
#define ACL_RT_SUCCESS ...
#define ACL_ERROR_RT_PARAM_INVALID ...
#define ACL_ERROR_RT_INVALID_DEVICEID ...
#define ACL_ERROR_RT_CONTEXT_NULL ...
#define ACL_ERROR_RT_STREAM_CONTEXT ...
#define ACL_ERROR_RT_MODEL_CONTEXT ...
#define ACL_ERROR_RT_STREAM_MODEL ...
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID ...
#define ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL ...
#define ACL_ERROR_RT_ADDR_UNALIGNED ...
#define ACL_ERROR_RT_FILE_OPEN ...
#define ACL_ERROR_RT_FILE_WRITE ...
#define ACL_ERROR_RT_STREAM_SUBSCRIBE ...
#define ACL_ERROR_RT_THREAD_SUBSCRIBE ...
#define ACL_ERROR_RT_GROUP_NOT_SET ...
#define ACL_ERROR_RT_GROUP_NOT_CREATE ...
#define ACL_ERROR_RT_STREAM_NO_CB_REG ...
#define ACL_ERROR_RT_INVALID_MEMORY_TYPE ...
#define ACL_ERROR_RT_INVALID_HANDLE ...
#define ACL_ERROR_RT_INVALID_MALLOC_TYPE ...
#define ACL_ERROR_RT_WAIT_TIMEOUT ...
#define ACL_ERROR_RT_TASK_TIMEOUT ...
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT ...
#define ACL_ERROR_RT_MEMORY_ALLOCATION ...
#define ACL_ERROR_RT_MEMORY_FREE ...
#define ACL_ERROR_RT_AICORE_OVER_FLOW ...
#define ACL_ERROR_RT_NO_DEVICE ...
#define ACL_ERROR_RT_RESOURCE_ALLOC_FAIL ...
#define ACL_ERROR_RT_NO_PERMISSION ...
#define ACL_ERROR_RT_NO_EVENT_RESOURCE ...
#define ACL_ERROR_RT_NO_STREAM_RESOURCE ...
#define ACL_ERROR_RT_NO_NOTIFY_RESOURCE ...
#define ACL_ERROR_RT_NO_MODEL_RESOURCE ...
#define ACL_ERROR_RT_NO_CDQ_RESOURCE ...
#define ACL_ERROR_RT_DEVICE_OOM ...
#define ACL_ERROR_RT_INTERNAL_ERROR ...
#define ACL_ERROR_RT_TS_ERROR ...
#define ACL_ERROR_RT_STREAM_TASK_FULL ...
#define ACL_ERROR_RT_STREAM_TASK_EMPTY ...
#define ACL_ERROR_RT_STREAM_NOT_COMPLETE ...
#define ACL_ERROR_RT_END_OF_SEQUENCE ...
#define ACL_ERROR_RT_EVENT_NOT_COMPLETE ...
#define ACL_ERROR_RT_CONTEXT_RELEASE_ERROR ...
#define ACL_ERROR_RT_SOC_VERSION ...
#define ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT ...
#define ACL_ERROR_RT_LOST_HEARTBEAT ...
#define ACL_ERROR_RT_MODEL_EXECUTE ...
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT ...

/* ---- acl/acl_base.h ---- */
#define ACL_TENSOR_SHAPE_RANGE_NUM ...
#define ACL_TENSOR_VALUE_RANGE_NUM ...
#define ACL_UNKNOWN_RANK ...
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;
typedef void *aclrtLabel;
typedef void *aclrtMbuf;
typedef int aclError;
typedef uint16_t aclFloat16;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclTensorDesc aclTensorDesc;
static const int ACL_ERROR_NONE;
static const int ACL_SUCCESS;
static const int ACL_ERROR_INVALID_PARAM;
static const int ACL_ERROR_UNINITIALIZE;
static const int ACL_ERROR_REPEAT_INITIALIZE;
static const int ACL_ERROR_INVALID_FILE;
static const int ACL_ERROR_WRITE_FILE;
static const int ACL_ERROR_INVALID_FILE_SIZE;
static const int ACL_ERROR_PARSE_FILE;
static const int ACL_ERROR_FILE_MISSING_ATTR;
static const int ACL_ERROR_FILE_ATTR_INVALID;
static const int ACL_ERROR_INVALID_DUMP_CONFIG;
static const int ACL_ERROR_INVALID_PROFILING_CONFIG;
static const int ACL_ERROR_INVALID_MODEL_ID;
static const int ACL_ERROR_DESERIALIZE_MODEL;
static const int ACL_ERROR_PARSE_MODEL;
static const int ACL_ERROR_READ_MODEL_FAILURE;
static const int ACL_ERROR_MODEL_SIZE_INVALID;
static const int ACL_ERROR_MODEL_MISSING_ATTR;
static const int ACL_ERROR_MODEL_INPUT_NOT_MATCH;
static const int ACL_ERROR_MODEL_OUTPUT_NOT_MATCH;
static const int ACL_ERROR_MODEL_NOT_DYNAMIC;
static const int ACL_ERROR_OP_TYPE_NOT_MATCH;
static const int ACL_ERROR_OP_INPUT_NOT_MATCH;
static const int ACL_ERROR_OP_OUTPUT_NOT_MATCH;
static const int ACL_ERROR_OP_ATTR_NOT_MATCH;
static const int ACL_ERROR_OP_NOT_FOUND;
static const int ACL_ERROR_OP_LOAD_FAILED;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE;
static const int ACL_ERROR_FORMAT_NOT_MATCH;
static const int ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED;
static const int ACL_ERROR_KERNEL_NOT_FOUND;
static const int ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED;
static const int ACL_ERROR_KERNEL_ALREADY_REGISTERED;
static const int ACL_ERROR_INVALID_QUEUE_ID;
static const int ACL_ERROR_REPEAT_SUBSCRIBE;
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE;
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE;
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT;
static const int ACL_ERROR_REPEAT_FINALIZE;
static const int ACL_ERROR_NOT_STATIC_AIPP;
static const int ACL_ERROR_COMPILING_STUB_MODE;
static const int ACL_ERROR_GROUP_NOT_SET;
static const int ACL_ERROR_GROUP_NOT_CREATE;
static const int ACL_ERROR_PROF_ALREADY_RUN;
static const int ACL_ERROR_PROF_NOT_RUN;
static const int ACL_ERROR_DUMP_ALREADY_RUN;
static const int ACL_ERROR_DUMP_NOT_RUN;
static const int ACL_ERROR_PROF_REPEAT_SUBSCRIBE;
static const int ACL_ERROR_PROF_API_CONFLICT;
static const int ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG;
static const int ACL_ERROR_INVALID_OPP_PATH;
static const int ACL_ERROR_OP_UNSUPPORTED_DYNAMIC;
static const int ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED;
static const int ACL_ERROR_UNSUPPORTED_JPEG;
static const int ACL_ERROR_INVALID_BUNDLE_MODEL_ID;
static const int ACL_ERROR_BAD_ALLOC;
static const int ACL_ERROR_API_NOT_SUPPORT;
static const int ACL_ERROR_INVALID_DEVICE;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED;
static const int ACL_ERROR_RESOURCE_NOT_MATCH;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE;
static const int ACL_ERROR_FEATURE_UNSUPPORTED;
static const int ACL_ERROR_PROF_MODULES_UNSUPPORTED;
static const int ACL_ERROR_STORAGE_OVER_LIMIT;
static const int ACL_ERROR_INTERNAL_ERROR;
static const int ACL_ERROR_FAILURE;
static const int ACL_ERROR_GE_FAILURE;
static const int ACL_ERROR_RT_FAILURE;
static const int ACL_ERROR_DRV_FAILURE;
static const int ACL_ERROR_PROFILING_FAILURE;
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41
} aclDataType;
typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54
} aclFormat;
size_t aclDataTypeSize(aclDataType dataType);
float aclFloat16ToFloat(aclFloat16 value);
aclFloat16 aclFloatToFloat16(float value);

/* ---- acl/acl_rt.h ---- */
#define ACL_EVENT_SYNC ...
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS ...
#define ACL_EVENT_TIME_LINE ...
#define ACL_EVENT_DEVICE_USE_ONLY ...
#define ACL_EVENT_EXTERNAL ...
#define ACL_STREAM_FAST_LAUNCH ...
#define ACL_STREAM_FAST_SYNC ...
#define ACL_STREAM_PERSISTENT ...
#define ACL_STREAM_HUGE ...
typedef enum aclrtRunMode {
    ACL_DEVICE = 0,
    ACL_HOST = 1
} aclrtRunMode;
typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7
} aclrtMemcpyKind;
typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
    ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;
typedef enum aclrtMemAttr {
    ACL_DDR_MEM = 0,
    ACL_HBM_MEM = 1,
    ACL_DDR_MEM_HUGE = 2,
    ACL_DDR_MEM_NORMAL = 3,
    ACL_HBM_MEM_HUGE = 4,
    ACL_HBM_MEM_NORMAL = 5,
    ACL_DDR_MEM_P2P_HUGE = 6,
    ACL_DDR_MEM_P2P_NORMAL = 7,
    ACL_HBM_MEM_P2P_HUGE = 8,
    ACL_HBM_MEM_P2P_NORMAL = 9,
    ACL_HBM_MEM_HUGE1G = 10,
    ACL_HBM_MEM_P2P_HUGE1G = 11
} aclrtMemAttr;
typedef enum aclrtEventStatus {
    ACL_EVENT_STATUS_COMPLETE = 0,
    ACL_EVENT_STATUS_NOT_READY = 1,
    ACL_EVENT_STATUS_RESERVED = 2
} aclrtEventStatus;
typedef enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;
typedef enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;
typedef enum aclrtCallbackBlockType {
    ACL_CALLBACK_NO_BLOCK = 0,
    ACL_CALLBACK_BLOCK = 1
} aclrtCallbackBlockType;
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDevice(int32_t *deviceId);
aclError aclrtGetDeviceCount(uint32_t *count);
aclError aclrtSynchronizeDevice(void);
const char *aclrtGetSocName(void);
aclError aclrtGetRunMode(aclrtRunMode *runMode);
aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
aclError aclrtDestroyContext(aclrtContext context);
aclError aclrtSetCurrentContext(aclrtContext context);
aclError aclrtGetCurrentContext(aclrtContext *context);
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
aclError aclrtCreateEvent(aclrtEvent *event);
aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMallocHost(void **hostPtr, size_t size);
aclError aclrtFreeHost(void *hostPtr);
aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream stream);
aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);

/* ---- acl/acl.h ---- */
#define ACL_MAJOR_VERSION ...
#define ACL_MINOR_VERSION ...
#define ACL_PATCH_VERSION ...
aclError aclInit(const char *configPath);
aclError aclFinalize(void);
aclError aclFinalizeReference(uint64_t *refCount);
aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);
const char *aclGetRecentErrMsg(void);

/* ---- aclnn/acl_meta.h ---- */
#define ACLNN_SUCCESS ...
#define ACLNN_ERR_PARAM_NULLPTR ...
#define ACLNN_ERR_PARAM_INVALID ...
#define ACLNN_ERR_RUNTIME_ERROR ...
#define ACLNN_ERR_INNER ...
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR ...
#define ACLNN_ERR_INNER_TILING_ERROR ...
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR ...
#define ACLNN_ERR_INNER_CREATE_EXECUTOR ...
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR ...
#define ACLNN_ERR_INNER_NULLPTR ...
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE ...
#define ACLNN_ERR_INNER_KEY_CONFILICT ...
#define ACLNN_ERR_INNER_KEY_CONFLICT ...
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE ...
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND ...
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED ...
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND ...
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID ...
#define ACLNN_ERR_INNER_JSON_DTYPE_INVALID ...
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND ...
#define ACLNN_ERR_INNER_OP_FILE_INVALID ...
#define ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND ...
#define ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH ...
#define ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE ...
#define ACLNN_ERR_INNER_INPUT_JSON_IS_NULL ...
#define ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID ...
#define ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID ...
typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalarList aclScalarList;
typedef int32_t aclnnStatus;
aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData);
aclScalar *aclCreateScalar(void *value, aclDataType dataType);
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size);
aclnnStatus aclDestroyTensor(const aclTensor *tensor);
aclnnStatus aclDestroyScalar(const aclScalar *scalar);
aclnnStatus aclDestroyIntArray(const aclIntArray *array);
aclnnStatus aclDestroyFloatArray(const aclFloatArray *array);
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);
aclnnStatus aclDestroyTensorList(const aclTensorList *array);
aclnnStatus aclDestroyScalarList(const aclScalarList *array);
aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum);
aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum);
aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum);
aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size);
aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size);
aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size);
aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size);
aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size);
aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData);
aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr);
aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr);

/* ---- aclnn/aclnn_base.h ---- */
aclnnStatus aclnnInit(const char *configPath);
aclnnStatus aclnnFinalize(void);
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);
aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);

/* ---- aclnnop/aclnn_silu.h ---- */
aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnSilu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* ---- aclnnop/aclnn_silu_backward.h ---- */
aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnSiluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, const aclrtStream stream);

/* ---- aclnnop/aclnn_moe_token_permute.h ---- */
aclnnStatus aclnnMoeTokenPermuteGetWorkspaceSize(const aclTensor *tokens, const aclTensor *indices, int64_t numOutTokens, bool paddedMode, const aclTensor *permuteTokensOut, const aclTensor *sortedIndicesOut, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnMoeTokenPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* ---- aclnnop/aclnn_moe_token_permute_grad.h ---- */
aclnnStatus aclnnMoeTokenPermuteGradGetWorkspaceSize(const aclTensor *permutedOutputGrad, const aclTensor *sortedIndices, int64_t numTopk, bool paddedMode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnMoeTokenPermuteGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
/* ---- aclnnop/aclnn_rotary_position_embedding.h ---- */
aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x, const aclTensor *cos, const aclTensor *sin, int64_t mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* ---- aclnnop/aclnn_rotary_position_embedding_grad.h ---- */
aclnnStatus aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *cos, const aclTensor *sin, const aclTensor *xOptional, int64_t mode, const aclTensor *dxOut, const aclTensor *dcosOut, const aclTensor *dsinOut, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnRotaryPositionEmbeddingGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
/* ---- aclnnop/aclnn_fused_floyd_attention.h ---- */
aclnnStatus aclnnFusedFloydAttentionGetWorkspaceSize(const aclTensor *query, const aclTensor *key1, const aclTensor *value1, const aclTensor *key2, const aclTensor *value2, const aclTensor *attenMaskOptional, double scaleValueOptional, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnFusedFloydAttention(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, const aclrtStream stream);

/* ---- aclnnop/aclnn_fused_floyd_attention_grad.h ---- */
aclnnStatus aclnnFusedFloydAttentionGradGetWorkspaceSize(const aclTensor *query, const aclTensor *key1, const aclTensor *value1, const aclTensor *key2, const aclTensor *value2, const aclTensor *dy, const aclTensor *attenMaskOptional, const aclTensor *softmaxMax, const aclTensor *softmaxSum, const aclTensor *attentionIn, double scaleValue, const aclTensor *dqOut, const aclTensor *dk1Out, const aclTensor *dv1Out, const aclTensor *dk2Out, const aclTensor *dv2Out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnFusedFloydAttentionGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* ---- aclnn_emu/aclnn_emu.h ---- */
#define ACLNN_EMU_VERSION_MAJOR ...
#define ACLNN_EMU_VERSION_MINOR ...
#define ACLNN_EMU_VERSION_PATCH ...
const char *aclnnEmuVersion(void);
typedef enum aclnnEmuIsa {
    ACLNN_EMU_ISA_SCALAR = 0,
    ACLNN_EMU_ISA_AVX2 = 1,
    ACLNN_EMU_ISA_AVX512 = 2,
    ACLNN_EMU_ISA_AVX512_BF16 = 3
} aclnnEmuIsa;
aclnnEmuIsa aclnnEmuGetDetectedIsa(void);
aclnnEmuIsa aclnnEmuGetIsa(void);
aclError aclnnEmuSetIsaCap(aclnnEmuIsa cap);
const char *aclnnEmuIsaName(aclnnEmuIsa isa);
aclError aclnnEmuSetNumThreads(int32_t numThreads);
int32_t aclnnEmuGetNumThreads(void);
aclError aclnnEmuSetSocName(const char *socName);
const char *aclnnEmuGetLastKernel(void);
aclError aclnnEmuSetHostMemoryAllowed(int32_t allowed);
int32_t aclnnEmuGetHostMemoryAllowed(void);
aclError aclnnEmuSetDeviceCacheLimit(uint64_t bytes);
uint64_t aclnnEmuGetDeviceCacheLimit(void);
uint64_t aclnnEmuGetDeviceCacheBytes(void);
aclError aclnnEmuMallocResult(void **devPtr, size_t size);
void aclnnEmuFreeArray(int64_t *array);
