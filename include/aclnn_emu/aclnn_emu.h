/**
 * @file aclnn_emu/aclnn_emu.h
 * @brief aclnn_emu's own additions to the CANN surface.
 *
 * Nothing here exists in CANN: code that must also build against the real
 * stack should include this header only under its own guard. Every setting
 * is process wide and safe to change from any thread between operator
 * launches; operators already planned keep running correctly (kernels are
 * chosen when phase 2 runs).
 *
 * Environment variables read once, at the first use of the library:
 *  - ACLNN_EMU_ISA=scalar|avx2|avx512|avx512_bf16
 *                                       cap the SIMD level (default: best available);
 *  - ACLNN_EMU_NUM_THREADS=N            worker threads (default: all usable cores);
 *  - ACLNN_EMU_SOC=Ascend910B|Ascend910_93|Ascend910|Ascend950
 *                                       emulated product (default Ascend910B);
 *  - ACLNN_EMU_VERBOSE=1                log each operator launch to stderr when it
 *                                       runs: operator, stream, input and output
 *                                       dtypes and shapes, workspace, kernel,
 *                                       threads and time;
 *  - ACLNN_EMU_ALLOW_HOST_MEMORY=1      default of aclnnEmuSetHostMemoryAllowed;
 *  - ACLNN_EMU_DEVICE_CACHE_MIB=N       initial limit of aclnnEmuSetDeviceCacheLimit,
 *                                       in MiB (0: no cache);
 *  - ACLNN_EMU_SYNC=1                   run the work of every stream on the
 *                                       launching thread before the call returns
 *                                       (as the default stream always does), for
 *                                       debugging;
 *  - ACLNN_EMU_REPORT_LEAKS=1           aclFinalize prints to stderr the device
 *                                       blocks, tensors, executors, streams and
 *                                       events still alive;
 *  - ACLNN_EMU_FLOYD_TILE=NBxMBxKB      initial value of aclnnEmuSetFloydTile
 *                                       (for tuning; default: automatic).
 *
 * Streams: each stream from aclrtCreateStream has its own worker thread that
 * runs its work in launch order; operator phase 2, aclrtMemcpyAsync,
 * aclrtMemsetAsync and event records/waits return at once. The default
 * (NULL) stream runs work on the calling thread before returning. Kernels
 * share one thread pool; two streams running kernels at once are
 * bit-identical to one at a time (fixed chunk boundaries). aclrtFree waits
 * for queued work that uses the block; aclDestroyAclOpExecutor and the
 * aclSet*TensorAddr functions wait for queued launches of that executor.
 */
#ifndef ACLNN_EMU_ACLNN_EMU_H_
#define ACLNN_EMU_ACLNN_EMU_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACLNN_EMU_VERSION_MAJOR 0
#define ACLNN_EMU_VERSION_MINOR 1
#define ACLNN_EMU_VERSION_PATCH 0

/** The library version, "MAJOR.MINOR.PATCH". */
ACL_FUNC_VISIBILITY const char *aclnnEmuVersion(void);

/**
 * Holds the runtime up on behalf of a library layered over aclnn_emu (the
 * Python package calls it at import), without initialising AscendCL in host
 * code's eyes: a later aclInit by host code returns ACL_SUCCESS, and the
 * runtime is finalized when the last aclInit reference and the last hold are
 * both released. Streams, memory and operators work while either is held.
 * @return ACL_SUCCESS.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuRetainRuntime(void);

/**
 * Releases one aclnnEmuRetainRuntime hold; finalizes the runtime (as
 * aclFinalize does) when no hold and no aclInit reference is left.
 * @return ACL_SUCCESS; ACL_ERROR_REPEAT_FINALIZE (100037) when no hold is left.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuReleaseRuntime(void);

/** SIMD instruction set levels, ordered: a cap allows its level and all below. */
typedef enum aclnnEmuIsa {
    ACLNN_EMU_ISA_SCALAR = 0, /**< portable C, any CPU */
    ACLNN_EMU_ISA_AVX2 = 1,   /**< x86-64 AVX2 + FMA + F16C */
    ACLNN_EMU_ISA_AVX512 = 2, /**< x86-64 AVX-512 F/BW/VL/DQ */
    ACLNN_EMU_ISA_AVX512_BF16 = 3 /**< and AVX512_BF16 (bf16 conversions; operators
                                       without kernels for it run their AVX-512 ones) */
} aclnnEmuIsa;

/** The best level this CPU and OS support. */
ACL_FUNC_VISIBILITY aclnnEmuIsa aclnnEmuGetDetectedIsa(void);

/** The level kernels use now: min(detected, cap). */
ACL_FUNC_VISIBILITY aclnnEmuIsa aclnnEmuGetIsa(void);

/**
 * Caps the SIMD level (overrides ACLNN_EMU_ISA). A cap above the detected
 * level is allowed and means "the best available".
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for a value outside
 *         the enum.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuSetIsaCap(aclnnEmuIsa cap);

/** "scalar", "avx2", "avx512" or "avx512_bf16"; "unknown" for other values. */
ACL_FUNC_VISIBILITY const char *aclnnEmuIsaName(aclnnEmuIsa isa);

/**
 * Sets the number of threads kernels use (overrides ACLNN_EMU_NUM_THREADS).
 * Results are bit-identical for every thread count.
 * @param numThreads 1..1024, or 0 for all usable cores.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) outside 0..1024.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuSetNumThreads(int32_t numThreads);

/** The number of threads kernels use now (>= 1). */
ACL_FUNC_VISIBILITY int32_t aclnnEmuGetNumThreads(void);

/**
 * Selects the emulated product (overrides ACLNN_EMU_SOC); aclrtGetSocName()
 * reports it and product-specific operator rules follow it.
 * @param socName "Ascend910B" (Atlas A2, default), "Ascend910_93" (Atlas A3),
 *        "Ascend910" (Atlas training series) or "Ascend950".
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or another name.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuSetSocName(const char *socName);

/**
 * Turns the launch log on (1) or off (0) for the whole process, at any
 * time: one stderr line per operator launch when it runs (operator,
 * stream, input and output dtypes and shapes, workspace, kernel, threads,
 * time), plus notes on device-side undefined behaviour the emulator
 * tolerates (MoeTokenPermuteGrad indices out of range, a non-finite Floyd
 * scaleValue). Launches already running log as they started.
 * @param verbose 0 or 1; the initial value is 1 when ACLNN_EMU_VERBOSE is set
 *        and not "0".
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for other values.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuSetVerbose(int32_t verbose);

/** The setting of aclnnEmuSetVerbose (0 or 1). */
ACL_FUNC_VISIBILITY int32_t aclnnEmuGetVerbose(void);

/**
 * Overrides the tile FusedFloydAttention and FusedFloydAttentionGrad plan
 * in phase 1 (for tuning): nb rows of N, mb of M and kb keys per tile. A
 * tile that does not divide the call's N, M and K (kb also a multiple of the
 * kernel's lane count) is ignored for that call, which then chooses its own.
 * Results are the same for every tile up to rounding.
 * @param nb, mb, kb 1..2097151 each, or all three 0 for the automatic
 *        choice (the default; ACLNN_EMU_FLOYD_TILE=NBxMBxKB sets the initial
 *        value, read once).
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) otherwise.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuSetFloydTile(int64_t nb, int64_t mb, int64_t kb);

/**
 * The setting of aclnnEmuSetFloydTile (0, 0, 0: automatic).
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for a NULL pointer.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuGetFloydTile(int64_t *nb, int64_t *mb, int64_t *kb);

/**
 * The name of the kernel the calling thread's last phase 2 ran, for
 * example "f32_silu_grad__avx2_u16", or "" when none ran (empty tensors).
 * For launches on the default stream it is set when phase 2 returns; for a
 * created stream, when the calling thread's aclrtSynchronizeStream returns
 * (the kernel of the last operator that stream ran). Valid until the
 * thread's next phase 2 or synchronize.
 */
ACL_FUNC_VISIBILITY const char *aclnnEmuGetLastKernel(void);

/**
 * Lets the calling thread hand host memory (for example numpy buffers) to
 * operators as tensor data and workspace.
 *
 * By default (0) phase 1 checks that every non-empty tensor's view (offset,
 * strides, shape and element size) lies inside one live aclrtMalloc block,
 * aclSetInputTensorAddr/aclSetOutputTensorAddr check the new address the same
 * way, and phase 2 checks again that every tensor view and the workspace lie
 * inside live blocks (a block may have been freed since phase 1). A violation returns ACLNN_ERR_PARAM_INVALID
 * (161002) with a message naming the tensor, the pointer and the block; on
 * the device it would crash or corrupt memory. Set 1 to skip these checks on
 * this thread (NULL data for a non-empty tensor is still refused). An
 * executor planned while host memory is allowed keeps that permission: its
 * address setters and runs accept host memory on any thread.
 * @param allowed 0 or 1; the initial value comes from ACLNN_EMU_ALLOW_HOST_MEMORY.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for other values.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuSetHostMemoryAllowed(int32_t allowed);

/** The calling thread's setting of aclnnEmuSetHostMemoryAllowed (0 or 1). */
ACL_FUNC_VISIBILITY int32_t aclnnEmuGetHostMemoryAllowed(void);

/**
 * Limits the device-memory cache. Between aclInit and aclFinalize,
 * aclrtFree keeps freed blocks of 2 MiB or more, up to this many bytes in
 * all (the oldest go first), and aclrtMalloc hands one out again for a
 * request of at least half its size that it holds, made with the same kind
 * of policy (huge pages or not: a block keeps the pages it has). So a program that
 * allocates its workspace around every launch, as the CANN samples do,
 * does not pay the host's page faults on fresh memory each time (about
 * 0.15 s per GiB with huge pages, 0.7 s without).
 * A cached block is freed memory to every check of this library (operators
 * refuse tensors in it; under AddressSanitizer any access is reported) and
 * comes back with its old contents, as device memory from aclrtMalloc is
 * never cleared. The host still holds its pages: aclrtGetMemInfo reports
 * the host's own free figure. aclrtResetDevice and aclFinalize release the
 * cache, and so does an allocation that fails before it tries again.
 * Lowering the limit releases the oldest blocks at once; 0 turns the cache
 * off and releases everything.
 * @param bytes the initial value comes from ACLNN_EMU_DEVICE_CACHE_MIB
 *        (MiB); the default is 1 GiB or an eighth of the memory this
 *        process may use (the host's, or its cgroup's limit), whichever is
 *        less.
 * @return ACL_SUCCESS.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuSetDeviceCacheLimit(uint64_t bytes);

/** The limit of aclnnEmuSetDeviceCacheLimit, in bytes. */
ACL_FUNC_VISIBILITY uint64_t aclnnEmuGetDeviceCacheLimit(void);

/** Bytes of freed device blocks the cache holds now. */
ACL_FUNC_VISIBILITY uint64_t aclnnEmuGetDeviceCacheBytes(void);

/**
 * As aclrtMalloc with ACL_MEM_MALLOC_HUGE_FIRST, for a language binding that
 * hands the block out inside one of its own objects (the numpy layer's large
 * results) and frees it with aclrtFree when that object goes. The program
 * holds the object, not the pointer, so ACLNN_EMU_REPORT_LEAKS leaves such
 * blocks out of its list.
 * @return as aclrtMalloc.
 */
ACL_FUNC_VISIBILITY aclError aclnnEmuMallocResult(void **devPtr, size_t size);

/**
 * Frees an array returned by aclGetViewShape, aclGetStorageShape or
 * aclGetViewStrides (for C callers; C++ callers may delete[] it). NULL is a no-op.
 */
ACL_FUNC_VISIBILITY void aclnnEmuFreeArray(int64_t *array);

/**
 * Number of operators aclnn_emu implements. Every other operator declared
 * in include/aclnnop/ fails phase 1 with ACLNN_ERR_INNER_FIND_KERNEL_ERROR
 * (561003) and the message "aclnnXxx is declared but not implemented by
 * aclnn_emu.".
 */
ACL_FUNC_VISIBILITY uint32_t aclnnEmuGetOperatorCount(void);

/** Phase-2 name of implemented operator `index` ("aclnnAdd"); NULL past the end. */
ACL_FUNC_VISIBILITY const char *aclnnEmuGetOperatorName(uint32_t index);

/**
 * Arguments of implemented operator `index`'s phase 1 before workspaceSize
 * and executor, as comma-separated `name:kind` pairs; kind is tensor,
 * tensor? (may be NULL), out, inout (read and written: Inplace forms),
 * scalar, scalar? (may be NULL), int (int64_t), bool, double, dtype
 * (aclDataType), intarray (aclIntArray; intarray? may be NULL), boolarray,
 * floatarray, tensorlist (aclTensorList of inputs), string (char *) or
 * out? (an output that may be NULL). NULL past the end.
 */
ACL_FUNC_VISIBILITY const char *aclnnEmuGetOperatorSignature(uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_EMU_ACLNN_EMU_H_ */
