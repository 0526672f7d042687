"""Virtual memory through raw ``lib`` calls, as ggml-cann's pool uses it:
reserve a range, map 2 MiB physical chunks back to back, copy and run
aclnnSilu on a tensor that spans two chunks, unmap, and see the device
checks refuse the unmapped range. tests/c/test_vmm.c covers every error path."""

import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import ffi, lib
from helpers import expect, take_msg

NULL = ffi.NULL
GRAN = 2 << 20
RT_PARAM_INVALID = 107000
ACLNN_PARAM_INVALID = 161002


def device_prop():
    prop = ffi.new("aclrtPhysicalMemProp *")
    prop.handleType = lib.ACL_MEM_HANDLE_TYPE_NONE
    prop.allocationType = lib.ACL_MEM_ALLOCATION_TYPE_PINNED
    prop.memAttr = lib.ACL_HBM_MEM_HUGE
    prop.location.type = lib.ACL_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = 0
    return prop


def silu_on_device(x, y, n):
    """aclnnSilu on the default stream; the status of the first phase that fails."""
    shape = ffi.new("int64_t[1]", [n])
    strides = ffi.new("int64_t[1]", [1])
    tx = lib.aclCreateTensor(shape, 1, lib.ACL_FLOAT, strides, 0, lib.ACL_FORMAT_ND, shape, 1, x)
    ty = lib.aclCreateTensor(shape, 1, lib.ACL_FLOAT, strides, 0, lib.ACL_FORMAT_ND, shape, 1, y)
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    try:
        rc = lib.aclnnSiluGetWorkspaceSize(tx, ty, ws, ex)
        if rc == 0:
            assert ws[0] == 0
            rc = lib.aclnnSilu(NULL, 0, ex[0], NULL)
        return rc
    finally:
        lib.aclDestroyTensor(tx)
        lib.aclDestroyTensor(ty)


@pytest.fixture(autouse=True)
def clean_messages():
    take_msg()
    yield
    take_msg()


def test_pool_round_trip():
    prop = device_prop()
    gran = ffi.new("size_t *")
    expect(0, lib.aclrtMemGetAllocationGranularity(prop, lib.ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, gran))
    assert gran[0] == GRAN

    pool_p = ffi.new("void **")
    expect(0, lib.aclrtReserveMemAddress(pool_p, 1 << 30, 0, NULL, 1))
    pool = ffi.cast("char *", pool_p[0])
    handles = []
    for i in range(2):
        h = ffi.new("aclrtDrvMemHandle *")
        expect(0, lib.aclrtMallocPhysical(h, GRAN, prop, 0))
        expect(0, lib.aclrtMapMem(pool + i * GRAN, GRAN, 0, h[0], 0))
        handles.append(h[0])

    # 1 MiB of floats on each side of the boundary between the two chunks.
    n = (2 << 20) // 4
    x = np.linspace(-6, 6, n, dtype=np.float32)
    dx = pool + (1 << 20)
    expect(0, lib.aclrtMemcpy(dx, x.nbytes, ffi.from_buffer(x), x.nbytes, lib.ACL_MEMCPY_HOST_TO_DEVICE))
    back = np.empty_like(x)
    expect(0, lib.aclrtMemcpy(ffi.from_buffer(back), back.nbytes, dx, x.nbytes, lib.ACL_MEMCPY_DEVICE_TO_HOST))
    np.testing.assert_array_equal(back, x)

    # y spans the second chunk and a third one mapped right after it.
    h = ffi.new("aclrtDrvMemHandle *")
    expect(0, lib.aclrtMallocPhysical(h, GRAN, prop, 0))
    expect(0, lib.aclrtMapMem(pool + 2 * GRAN, GRAN, 0, h[0], 0))
    handles.append(h[0])
    dy = pool + 3 * (1 << 20)
    expect(0, silu_on_device(dx, dy, n))
    y = np.empty_like(x)
    expect(0, lib.aclrtMemcpy(ffi.from_buffer(y), y.nbytes, dy, y.nbytes, lib.ACL_MEMCPY_DEVICE_TO_HOST))
    np.testing.assert_array_equal(y, aclnn_emu.silu(x))

    # Unmapped, the chunk is no longer device memory.
    expect(0, lib.aclrtUnmapMem(pool + 2 * GRAN))
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(ffi.from_buffer(y), 16, pool + 2 * GRAN, 16,
                                             lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy", "src")
    expect(ACLNN_PARAM_INVALID, silu_on_device(dx, dy, n), "aclnnSiluGetWorkspaceSize", "out")
    expect(RT_PARAM_INVALID, lib.aclrtReleaseMemAddress(pool), "aclrtReleaseMemAddress", "mapping")

    expect(0, lib.aclrtUnmapMem(pool))
    expect(0, lib.aclrtUnmapMem(pool + GRAN))
    for handle in handles:
        expect(0, lib.aclrtFreePhysical(handle))
    expect(0, lib.aclrtReleaseMemAddress(pool))
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(dx, 16, ffi.from_buffer(x), 16, lib.ACL_MEMCPY_HOST_TO_DEVICE),
           "aclrtMemcpy", "dst")


def test_errors_name_the_argument():
    prop = device_prop()
    h = ffi.new("aclrtDrvMemHandle *")
    expect(100000, lib.aclrtMallocPhysical(h, 0, prop, 0), "aclrtMallocPhysical", "size")
    expect(RT_PARAM_INVALID, lib.aclrtMallocPhysical(h, GRAN + 4096, prop, 0), "aclrtMallocPhysical", "size")
    expect(100000, lib.aclrtMapMem(NULL, GRAN, 0, NULL, 0), "aclrtMapMem", "virPtr")
    expect(100000, lib.aclrtUnmapMem(NULL), "aclrtUnmapMem", "virPtr")
    can = ffi.new("int32_t *")
    expect(100000, lib.aclrtDeviceCanAccessPeer(can, 0, 0), "aclrtDeviceCanAccessPeer", "peerDeviceId")
    expect(107001, lib.aclrtDeviceCanAccessPeer(can, 0, 1), "aclrtDeviceCanAccessPeer", "peerDeviceId")
    expect(100000, lib.aclrtDestroyStreamForce(NULL), "aclrtDestroyStreamForce", "stream")


def test_destroy_stream_force_drops_queued_work():
    stream = ffi.new("aclrtStream *")
    gate = ffi.new("aclrtEvent *")
    expect(0, lib.aclrtCreateStream(stream))
    expect(0, lib.aclrtCreateEvent(gate))
    block = ffi.new("void **")
    expect(0, lib.aclrtMalloc(block, 64, 0))
    expect(0, lib.aclrtMemset(block[0], 64, 0, 64))
    expect(0, lib.aclrtStreamWaitEvent(stream[0], gate[0]))  # never recorded
    expect(0, lib.aclrtMemsetAsync(block[0], 64, 0x55, 64, stream[0]))
    expect(0, lib.aclrtDestroyStreamForce(stream[0]))
    out = bytearray(64)
    expect(0, lib.aclrtMemcpy(ffi.from_buffer(out), 64, block[0], 64, lib.ACL_MEMCPY_DEVICE_TO_HOST))
    assert out == bytearray(64)
    expect(0, lib.aclrtFree(block[0]))
    expect(0, lib.aclrtDestroyEvent(gate[0]))
