/**
 * @file acl/acl_rt.h
 * @brief AscendCL runtime API: devices, contexts, streams, events, memory.
 *
 * aclnn_emu emulates one device (id 0) on the host CPU. "Device memory" is
 * host memory handed out by aclrtMalloc (or mapped by aclrtMapMem) and
 * recorded in an allocation table, so the library can tell a device block
 * from any other pointer. Work queued
 * on a stream runs before the queuing call returns (synchronous execution);
 * results are therefore ready at once, and code that synchronizes the stream
 * as CANN requires behaves exactly as on the device.
 *
 * Every failing call returns its code and leaves one sentence for
 * aclGetRecentErrMsg() naming the API, the argument, what was expected and
 * what was given.
 */
#ifndef ACL_ACL_RT_H_
#define ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_EVENT_SYNC 0x00000001u
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002u
#define ACL_EVENT_TIME_LINE 0x00000008u
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010u
#define ACL_EVENT_EXTERNAL 0x00000020u

#define ACL_STREAM_FAST_LAUNCH 0x00000001u
#define ACL_STREAM_FAST_SYNC 0x00000002u
#define ACL_STREAM_PERSISTENT 0x00000004u
#define ACL_STREAM_HUGE 0x00000008u

/** Where the calling process runs. aclnn_emu always reports ACL_HOST. */
typedef enum aclrtRunMode {
    ACL_DEVICE = 0,
    ACL_HOST = 1
} aclrtRunMode;

/** Direction of a copy. Kinds 6 and 7 are rejected by aclrtMemcpy. */
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

/**
 * Allocation policy of aclrtMalloc. The HUGE policies back the block with
 * transparent huge pages where the kernel offers them (first-touch page
 * faults are then about 5x cheaper); NORMAL_ONLY uses ordinary pages. The
 * flag bits (LOW/HIGH band width, read-only) are accepted and ignored.
 */
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

/** Memory kind asked about by aclrtGetMemInfo. */
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

/** Where physical memory lives (aclrtMallocPhysical). UNREGISTERED and MANAGED are refused. */
typedef enum aclrtMemLocationType {
    ACL_MEM_LOCATION_TYPE_HOST = 0,
    ACL_MEM_LOCATION_TYPE_DEVICE = 1,
    ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2,
    ACL_MEM_LOCATION_TYPE_MANAGED = 3,
    ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4
} aclrtMemLocationType;

/** A device (type DEVICE, id = device id) or the host (id unused, or the NUMA node). */
typedef struct aclrtMemLocation {
    uint32_t id;
    aclrtMemLocationType type;
} aclrtMemLocation;

/** How physical memory is allocated: only PINNED exists. */
typedef enum aclrtMemAllocationType {
    ACL_MEM_ALLOCATION_TYPE_PINNED = 0
} aclrtMemAllocationType;

/** The handle kind of physical memory; aclrtMallocPhysical accepts only NONE. */
typedef enum aclrtMemHandleType {
    ACL_MEM_HANDLE_TYPE_NONE = 0,
    ACL_MEM_HANDLE_TYPE_POSIX = 2
} aclrtMemHandleType;

/** Properties of physical memory, for aclrtMallocPhysical and aclrtMemGetAllocationGranularity. */
typedef struct aclrtPhysicalMemProp {
    aclrtMemHandleType handleType;
    aclrtMemAllocationType allocationType;
    aclrtMemAttr memAttr;
    aclrtMemLocation location;
    uint64_t reserve;
} aclrtPhysicalMemProp;

/** Which granularity aclrtMemGetAllocationGranularity reports (both are the same here). */
typedef enum aclrtMemGranularityOptions {
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
    ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1,
    ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF
} aclrtMemGranularityOptions;

/** Physical memory from aclrtMallocPhysical. */
typedef void *aclrtDrvMemHandle;

/* ---------------------------------------------------------------- devices */

/**
 * Makes @p deviceId the current device of the calling thread.
 * @param deviceId must be 0: aclnn_emu emulates exactly one device.
 * @return ACL_SUCCESS; ACL_ERROR_RT_INVALID_DEVICEID (107001) for any other id.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);

/**
 * Releases the device set by aclrtSetDevice. Streams and memory stay valid
 * until destroyed or freed (the emulator keeps no per-device resources).
 * @return ACL_SUCCESS; ACL_ERROR_RT_INVALID_DEVICEID (107001) for an id other than 0.
 */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);

/**
 * Reports the current device of the calling thread.
 * @param deviceId out: 0 once aclrtSetDevice(0) was called by this thread.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL;
 *         ACL_ERROR_RT_CONTEXT_NULL (107002) when no device was set.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);

/**
 * Reports the number of devices: always 1.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);

/**
 * Waits until all work queued on every stream is done (a stream waiting for
 * an event that is never recorded makes this wait forever, as on a device).
 * @return ACL_SUCCESS.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/**
 * aclrtSynchronizeDevice with a limit: waits at most `timeout` milliseconds
 * (-1: no limit) for the work of every stream.
 * @return ACL_SUCCESS; ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046) when work is
 *         still queued at the limit; ACL_ERROR_RT_PARAM_INVALID (107000) for a
 *         timeout below -1.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);

/**
 * Name of the emulated product ("Ascend910B" by default; set with the
 * environment variable ACLNN_EMU_SOC or aclnnEmuSetSocName()). Product-
 * specific operator rules follow this name.
 * @return a static string; never NULL.
 */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

/**
 * Reports where the process runs.
 * @param runMode out: always ACL_HOST.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);

/**
 * Reports whether @p deviceId can exchange data with @p peerDeviceId. The
 * checks run in CANN's order; since aclnn_emu emulates one device, no pair
 * of distinct valid ids exists and every call fails.
 * @param canAccessPeer out: 1 or 0 (never written here).
 * @param deviceId, peerDeviceId device ids in [0, aclrtGetDeviceCount), different from each other.
 * @return ACL_ERROR_INVALID_PARAM (100000) when the two ids are equal;
 *         ACL_ERROR_RT_INVALID_DEVICEID (107001) for an id other than 0;
 *         ACL_ERROR_RT_PARAM_INVALID (107000) for NULL @p canAccessPeer.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);

/**
 * Lets the current device reach @p peerDeviceId (one direction). With one
 * emulated device there is no peer: every call fails.
 * @param flags reserved, must be 0.
 * @return ACL_ERROR_FEATURE_UNSUPPORTED (200006) for @p flags other than 0;
 *         ACL_ERROR_RT_CONTEXT_NULL (107002) when the thread has no current
 *         device; ACL_ERROR_INVALID_PARAM (100000) when @p peerDeviceId is the
 *         current device; ACL_ERROR_RT_INVALID_DEVICEID (107001) otherwise.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);

/**
 * Undoes aclrtDeviceEnablePeerAccess. Same codes, without the @p flags check.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);

/* --------------------------------------------------------------- contexts */

/**
 * Creates a context on @p deviceId (must be 0) and makes it current.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL @p context;
 *         ACL_ERROR_RT_INVALID_DEVICEID (107001) for another device id;
 *         ACL_ERROR_BAD_ALLOC (200000) when out of memory.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);

/**
 * Destroys a context made by aclrtCreateContext.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or an unknown handle.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);

/**
 * Makes @p context current for the calling thread.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or an unknown handle.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);

/**
 * Reports the current context of the calling thread.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL;
 *         ACL_ERROR_RT_CONTEXT_NULL (107002) when the thread has none.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/* ---------------------------------------------------------------- streams */

/**
 * Creates a stream: an ordered queue of work (operator launches, async
 * copies and memsets, event records and waits) run by the stream's own
 * worker thread; the launching call returns at once and the results are
 * defined after aclrtSynchronizeStream (or an event). NULL may be used
 * wherever a stream is expected and means the default stream, whose work
 * aclnn_emu runs on the calling thread before the call returns (it does not
 * wait for other streams). With the environment variable ACLNN_EMU_SYNC=1
 * every stream behaves like the default stream.
 * @param stream out: the new stream; release it with aclrtDestroyStream.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL;
 *         ACL_ERROR_BAD_ALLOC (200000) when out of memory.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);

/**
 * As aclrtCreateStream; @p priority and @p flag (ACL_STREAM_*) are
 * accepted and have no effect on the host.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);

/**
 * Lets the stream finish its queued work, then destroys it.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or a
 *         handle that is not a live stream.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);

/**
 * Destroys a stream without waiting for its queued work, as CANN's forced
 * destroy does: tasks that have not started are dropped (their executors,
 * copies and markers released without running), a task already running is
 * waited for (a running aclrtStreamWaitEvent gives up at once). A dropped
 * aclrtRecordEvent leaves the event's recorded flag as it was but no longer
 * pending, so nothing waits for it forever. An aclrtSynchronizeDevice or
 * aclrtFree waiting in another thread for the dropped work returns.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or a
 *         handle that is not a live stream.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);

/**
 * Blocks until all work queued on @p stream (NULL: the default stream) is done.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for a handle that
 *         is not a live stream.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/**
 * As aclrtSynchronizeStream, giving up after @p timeout milliseconds
 * (-1: wait forever).
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for a bad handle or
 *         a timeout below -1; ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046) on timeout.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);

/**
 * Reports whether all work queued on @p stream is done.
 * @param status out: ACL_STREAM_STATUS_COMPLETE or ACL_STREAM_STATUS_NOT_READY.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL @p status
 *         or a bad stream handle.
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);

/**
 * Makes later work on @p stream wait until @p event has completed: until its
 * pending records have run, or, for an event that is not recorded (never, or
 * since aclrtResetEvent), until its next record runs. On the default stream
 * the calling thread waits.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for a NULL or unknown
 *         event or an unknown stream.
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/* ----------------------------------------------------------------- events */

/**
 * Creates an event: a marker that can be recorded on a stream.
 * @param event out: release it with aclrtDestroyEvent.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL;
 *         ACL_ERROR_BAD_ALLOC (200000) when out of memory.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);

/** As aclrtCreateEvent with ACL_EVENT_* flags (recorded, otherwise no effect). */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);

/** As aclrtCreateEventWithFlag. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);

/**
 * Records @p event on @p stream: it completes when the work queued before
 * it is done, and takes a timestamp then. Queued markers keep the event
 * alive after aclrtDestroyEvent until they have run.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for a NULL or unknown
 *         event or an unknown stream.
 */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);

/**
 * Returns @p event to the not-recorded state when @p stream reaches this call.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for bad handles.
 */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);

/**
 * Reports whether the work before the last record of @p event is done.
 * @param status out: ACL_EVENT_RECORDED_STATUS_COMPLETE or _NOT_READY
 *        (NOT_READY also for an event that was never recorded).
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or bad handles.
 */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);

/**
 * Blocks until @p event has completed (at once for an unrecorded event).
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or an unknown event.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);

/**
 * aclrtSynchronizeEvent with a limit: waits at most `timeout` milliseconds
 * (-1: no limit) for the event's record to complete.
 * @return ACL_SUCCESS; ACL_ERROR_RT_EVENT_SYNC_TIMEOUT (507047) at the limit;
 *         ACL_ERROR_RT_PARAM_INVALID (107000) for a timeout below -1 or a
 *         handle that is not a live event.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);

/**
 * Milliseconds between two completed events.
 * @param ms out: end minus start, in milliseconds (microsecond resolution).
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or unknown
 *         handles; ACL_ERROR_RT_EVENT_NOT_COMPLETE (507006) when a record of
 *         either event is still queued; ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
 *         (107006) when either event is not recorded.
 */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);

/**
 * Destroys an event.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or an unknown event.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);

/* ----------------------------------------------------------------- memory */

/**
 * Allocates @p size bytes of device memory, aligned to at least 64 bytes.
 * The block is recorded in the device allocation table until aclrtFree.
 * @param devPtr out: the block; left untouched on failure.
 * @param policy ACL_MEM_MALLOC_*: the HUGE policies ask for transparent huge pages.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL @p devPtr,
 *         @p size 0 or an unknown policy; ACL_ERROR_RT_MEMORY_ALLOCATION
 *         (207001) when the host is out of memory.
 */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);

/** As aclrtMalloc (every block is at least 64-byte aligned anyway). */
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);

/**
 * Frees a block from aclrtMalloc. Work still queued on any stream that uses
 * the block (operator tensors and workspaces, copies, memsets) is waited for
 * first, so the block is never freed under a running kernel. Blocks of
 * 2 MiB or more may be kept for a later aclrtMalloc (see
 * aclnnEmuSetDeviceCacheLimit); either way the block is freed to every
 * check from this call on.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL, or for a
 *         pointer that is not the start of a live device block (never
 *         allocated, already freed, host memory, or memory mapped with
 *         aclrtMapMem, which aclrtUnmapMem releases).
 */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);

/**
 * Allocates @p size bytes of page-locked host memory (64-byte aligned).
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or size 0;
 *         ACL_ERROR_RT_MEMORY_ALLOCATION (207001) when out of memory.
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);

/**
 * Frees memory from aclrtMallocHost.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL or a
 *         pointer that aclrtMallocHost did not return.
 */
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);

/**
 * Sets @p count bytes at @p devPtr to (unsigned char)@p value.
 * @param maxCount the size of the destination; @p count must not exceed it.
 * @return ACL_SUCCESS (also for count 0, which does nothing);
 *         ACL_ERROR_INVALID_PARAM (100000) for NULL @p devPtr;
 *         ACL_ERROR_RT_PARAM_INVALID (107000) when count > maxCount or the
 *         @p count bytes are not inside one live aclrtMalloc block.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);

/** aclrtMemset queued on @p stream (NULL: the default stream); same codes,
 *  plus ACL_ERROR_INVALID_PARAM for an unknown stream. */
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);

/**
 * Copies @p count bytes from @p src to @p dst.
 * @param destMax the size of the destination; @p count must not exceed it.
 * @param kind ACL_MEMCPY_HOST_TO_HOST .. ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE.
 * @return ACL_SUCCESS (also for count 0, which does nothing);
 *         ACL_ERROR_INVALID_PARAM (100000) for NULL @p dst or @p src or a kind
 *         outside 0..5; ACL_ERROR_RT_PARAM_INVALID (107000) when count > destMax
 *         or @p kind misstates where a pointer lives: a device side must have
 *         @p count bytes inside one live aclrtMalloc block (or one run of
 *         aclrtMapMem mappings), a host side must not point into one (ACL_MEMCPY_DEFAULT accepts either, but a side
 *         that starts in a device block must still fit in it).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);

/** aclrtMemcpy queued on @p stream (NULL: the default stream); same codes,
 *  plus ACL_ERROR_INVALID_PARAM for an unknown stream. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);

/**
 * Reports the free and total device memory: the host's available and total
 * physical memory.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL outputs or
 *         an unknown attribute.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);

/* --------------------------------------------------------- virtual memory
 *
 * Reserve an address range, allocate physical memory, map it into the range,
 * use it, unmap, free, release: the way ggml-cann's memory pool grows one
 * contiguous device range. Everything here is real: a reservation is an
 * inaccessible (PROT_NONE) host mapping, physical memory is an anonymous
 * shared memory file, and aclrtMapMem maps that file over the reserved pages.
 * Mapped memory is device memory to every check (operators, aclrtMemcpy
 * kinds, aclrtMemset): the mappings that follow each other without a gap
 * inside one reservation count as one block, so a tensor may span two of
 * them; unmapped or released addresses are not device memory. The
 * granularity is 2 MiB (CANN's huge page; 1 GiB for the HUGE1G attributes).
 * What is still reserved, mapped or allocated at aclFinalize is listed by
 * the leak report (ACLNN_EMU_REPORT_LEAKS=1), as aclrtMalloc blocks are.
 */

/**
 * Reserves a range of virtual addresses, inaccessible until aclrtMapMem.
 * @param virPtr out: the start of the range; left untouched on failure.
 * @param size bytes, not 0; rounded up to the granularity (2 MiB).
 * @param alignment 0 (the granularity) or a power of two: the start is
 *        aligned to it, and always to the granularity.
 * @param expectPtr NULL (any address) or the start wanted: aligned to the
 *        alignment (to 1 GiB when @p size is over 1 GiB), and free.
 * @param flags 0 (normal pages) or 1 (huge pages); no difference here.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL @p virPtr,
 *         @p size 0 or @p flags above 1; ACL_ERROR_RT_PARAM_INVALID (107000)
 *         for an alignment that is not a power of two or a misaligned
 *         @p expectPtr; ACL_ERROR_RT_MEMORY_ALLOCATION (207001) when the
 *         addresses are not available (@p expectPtr in use, or too large).
 */
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                    uint64_t flags);

/**
 * Releases a range from aclrtReserveMemAddress.
 * @param virPtr the start of the range, as returned.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL;
 *         ACL_ERROR_RT_PARAM_INVALID (107000) for an address that is not the
 *         start of a live reservation, or a reservation that still has
 *         mappings (aclrtUnmapMem them first).
 */
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr);

/**
 * Allocates @p size bytes of physical memory, to be mapped with aclrtMapMem
 * (zero-filled, committed page by page at first touch).
 * @param handle out: the memory; left untouched on failure.
 * @param size a multiple of the granularity of @p prop (see
 *        aclrtMemGetAllocationGranularity), not 0.
 * @param prop handleType ACL_MEM_HANDLE_TYPE_NONE, allocationType
 *        ACL_MEM_ALLOCATION_TYPE_PINNED, location HOST, HOST_NUMA or DEVICE
 *        (id 0), memAttr an HBM attribute (HUGE, NORMAL, HUGE1G), or for a
 *        host location a DDR one (DDR_MEM_HUGE, _NORMAL, _P2P_HUGE, _P2P_NORMAL).
 * @param flags reserved, must be 0.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL @p handle or
 *         @p prop, @p size 0, @p flags not 0 or a @p prop field CANN refuses;
 *         ACL_ERROR_RT_INVALID_DEVICEID (107001) for a device location other
 *         than 0; ACL_ERROR_RT_PARAM_INVALID (107000) for a size that is not a
 *         multiple of the granularity or a location type out of range;
 *         ACL_ERROR_RT_MEMORY_ALLOCATION (207001) for more than the host's
 *         memory or when the host is out of memory.
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                                 const aclrtPhysicalMemProp *prop, uint64_t flags);

/**
 * Frees physical memory from aclrtMallocPhysical.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL;
 *         ACL_ERROR_RT_INVALID_HANDLE (107017) for a handle that is not live
 *         (never allocated or already freed); ACL_ERROR_RT_PARAM_INVALID
 *         (107000) while the memory is still mapped.
 */
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);

/**
 * Maps all of @p handle's memory at @p virPtr, inside one reservation. One
 * handle may be mapped at several places; they share its bytes.
 * @param virPtr where: a multiple of the handle's granularity, with
 *        @p size bytes inside one reservation and not mapped yet.
 * @param size the handle's size, as given to aclrtMallocPhysical.
 * @param offset into the physical memory: must be 0.
 * @param flags reserved, must be 0.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL @p virPtr or
 *         @p handle, @p size 0 or @p flags not 0; ACL_ERROR_RT_INVALID_HANDLE
 *         (107017) for a handle that is not live; ACL_ERROR_RT_PARAM_INVALID
 *         (107000) for an @p offset other than 0, a @p size other than the
 *         handle's, a misaligned @p virPtr, a range outside (or running out
 *         of) every reservation or overlapping a mapping;
 *         ACL_ERROR_RT_MEMORY_ALLOCATION (207001) when the host refuses the mapping.
 */
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                         uint64_t flags);

/**
 * Unmaps the mapping that starts at @p virPtr: its addresses are reserved
 * and inaccessible again, and no longer device memory. Work still queued on
 * any stream that uses them is waited for first, as aclrtFree does.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL;
 *         ACL_ERROR_RT_PARAM_INVALID (107000) for an address where no
 *         mapping starts.
 */
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr);

/**
 * Reports the granularity of physical memory with properties @p prop: the
 * unit of aclrtMallocPhysical sizes and aclrtMapMem addresses. Both options
 * give 2 MiB, CANN's huge page (1 GiB for ACL_HBM_MEM_HUGE1G).
 * @param prop memAttr and location are checked as aclrtMallocPhysical does
 *        (handleType and allocationType are not looked at).
 * @param option ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED.
 * @param granularity out: bytes; left untouched on failure.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL @p prop or
 *         @p granularity or a memAttr CANN refuses; ACL_ERROR_RT_PARAM_INVALID
 *         (107000) for another @p option or a location type out of range;
 *         ACL_ERROR_RT_INVALID_DEVICEID (107001) for a device location other than 0.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                              aclrtMemGranularityOptions option,
                                                              size_t *granularity);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_RT_H_ */
