"""The aclrt* runtime and aclInit/aclFinalize through raw ``lib`` calls:
every error path with its code and its message (which must name the
argument), following include/acl/acl.h, include/acl/acl_rt.h and
cann_facts.md section 1.7."""

import gc
import os
import re
import subprocess
import sys
import threading

import pytest
from aclnn_emu import ffi, lib
from helpers import expect, run_in_thread, take_msg

NULL = ffi.NULL
INVALID_PARAM = 100000
RT_PARAM_INVALID = 107000
RT_INVALID_DEVICEID = 107001
RT_CONTEXT_NULL = 107002
RT_EVENT_TIMESTAMP_INVALID = 107006
REPEAT_INITIALIZE = 100002
INVALID_FILE = 100003
REPEAT_FINALIZE = 100037


# ------------------------------------------------------------------ helpers

def addr(p):
    return int(ffi.cast("uintptr_t", p))


@pytest.fixture(autouse=True)
def clean_messages():
    take_msg()
    yield
    take_msg()


@pytest.fixture
def dev():
    """Allocates device blocks with aclrtMalloc and frees what is left at the end."""
    blocks = []

    def malloc(size, policy=0):
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, size, policy) == 0, take_msg()
        blocks.append(p[0])
        return p[0]

    malloc.blocks = blocks
    yield malloc
    for b in blocks:
        lib.aclrtFree(b)  # already freed ones just return 100000
    take_msg()


@pytest.fixture
def stream():
    p = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(p) == 0
    yield p[0]
    lib.aclrtDestroyStream(p[0])
    take_msg()


def destroyed_stream():
    p = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(p) == 0
    assert lib.aclrtDestroyStream(p[0]) == 0
    return p[0]


# ------------------------------------------------------- aclInit/aclFinalize

def test_init_finalize_reference_counting():
    """The package holds the runtime with aclnnEmuRetainRuntime, which host
    code never sees: aclInit after the import is a first aclInit (0), repeats
    count references, and finalizing them all leaves the package working."""
    import numpy as np
    import aclnn_emu

    left = ffi.new("uint64_t *")
    expect(0, lib.aclInit(NULL))
    expect(REPEAT_INITIALIZE, lib.aclInit(NULL), "aclInit", "already")  # still counts a reference
    expect(0, lib.aclFinalizeReference(left))
    assert left[0] == 1
    expect(0, lib.aclFinalizeReference(left))
    assert left[0] == 0
    expect(REPEAT_FINALIZE, lib.aclFinalize(), "aclFinalize")
    expect(REPEAT_FINALIZE, lib.aclFinalizeReference(left), "aclFinalizeReference")
    expect(REPEAT_FINALIZE, lib.aclFinalizeReference(NULL), "aclFinalizeReference")

    # A fresh init, a repeated one, then aclFinalize drops the count to zero at once.
    expect(0, lib.aclInit(NULL))
    expect(REPEAT_INITIALIZE, lib.aclInit(NULL))
    expect(0, lib.aclFinalize())
    expect(REPEAT_FINALIZE, lib.aclFinalize())

    # The package's hold kept the runtime up through all of it.
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    with aclnn_emu.Stream() as s:
        y = aclnn_emu.silu(aclnn_emu.DeviceTensor.from_numpy(x), stream=s)
    np.testing.assert_allclose(y.numpy(), x / (1 + np.exp(-x)), rtol=1e-6)
    # Holds nest: one more and its release change nothing.
    expect(0, lib.aclnnEmuRetainRuntime())
    expect(0, lib.aclnnEmuReleaseRuntime())


def test_host_code_initialises_after_the_package_in_a_fresh_process():
    """Ported host code checking aclInit for 0 works after ``import aclnn_emu``;
    an extra release is refused with its code and names the function."""
    code = """
import aclnn_emu
from aclnn_emu import ffi, lib
assert lib.aclInit(ffi.NULL) == 0, lib.aclInit
assert lib.aclrtSetDevice(0) == 0
assert lib.aclrtResetDevice(0) == 0
assert lib.aclFinalize() == 0
assert lib.aclnnEmuReleaseRuntime() == 0            # the package's hold, released early
rc = lib.aclnnEmuReleaseRuntime()
msg = aclnn_emu.errors.last_error_message()
print(rc, msg)
assert lib.aclnnEmuRetainRuntime() == 0             # for the package's own release at exit
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    rc, _, msg = out.stdout.strip().partition(" ")
    assert int(rc) == REPEAT_FINALIZE and "aclnnEmuReleaseRuntime" in msg, out.stdout


def test_init_with_config_file(tmp_path):
    missing = tmp_path / "nope.json"
    rc = lib.aclInit(str(missing).encode())
    expect(INVALID_FILE, rc, "configPath", "nope.json")
    # A failed aclInit takes no reference: one aclInit + one aclFinalizeReference stays balanced.
    cfg = tmp_path / "acl.json"
    cfg.write_text("{}")
    rc = lib.aclInit(str(cfg).encode())
    assert rc in (0, REPEAT_INITIALIZE)
    take_msg()
    assert lib.aclFinalizeReference(NULL) == 0


def test_get_version():
    major, minor, patch = ffi.new("int32_t *"), ffi.new("int32_t *"), ffi.new("int32_t *")
    expect(0, lib.aclrtGetVersion(major, minor, patch))
    assert (major[0], minor[0], patch[0]) == (1, 17, 0)
    expect(INVALID_PARAM, lib.aclrtGetVersion(NULL, minor, patch), "majorVersion")
    expect(INVALID_PARAM, lib.aclrtGetVersion(major, NULL, patch), "minorVersion")
    expect(INVALID_PARAM, lib.aclrtGetVersion(major, minor, NULL), "patchVersion")


# ----------------------------------------------------------------- devices

def test_device_set_get_reset_in_fresh_thread():
    def body():
        dev_id = ffi.new("int32_t *", 77)
        expect(RT_CONTEXT_NULL, lib.aclrtGetDevice(dev_id), "aclrtGetDevice")
        assert dev_id[0] == 77
        expect(RT_INVALID_DEVICEID, lib.aclrtSetDevice(1), "deviceId", "1")
        expect(RT_INVALID_DEVICEID, lib.aclrtSetDevice(-1), "deviceId")
        expect(RT_CONTEXT_NULL, lib.aclrtGetDevice(dev_id))
        expect(0, lib.aclrtSetDevice(0))
        expect(0, lib.aclrtGetDevice(dev_id))
        assert dev_id[0] == 0
        expect(INVALID_PARAM, lib.aclrtGetDevice(NULL), "deviceId")
        expect(RT_INVALID_DEVICEID, lib.aclrtResetDevice(1), "deviceId")
        expect(0, lib.aclrtResetDevice(0))
        expect(RT_CONTEXT_NULL, lib.aclrtGetDevice(dev_id))

    run_in_thread(body)


def test_device_is_per_thread():
    # The main thread has device 0 (set by the package import).
    dev_id = ffi.new("int32_t *", -5)
    expect(0, lib.aclrtGetDevice(dev_id))
    assert dev_id[0] == 0
    run_in_thread(lambda: expect(RT_CONTEXT_NULL, lib.aclrtGetDevice(ffi.new("int32_t *"))))
    expect(0, lib.aclrtGetDevice(dev_id))


def test_device_count_run_mode_synchronize():
    count = ffi.new("uint32_t *")
    expect(0, lib.aclrtGetDeviceCount(count))
    assert count[0] == 1
    expect(INVALID_PARAM, lib.aclrtGetDeviceCount(NULL), "count")
    mode = ffi.new("aclrtRunMode *")
    expect(0, lib.aclrtGetRunMode(mode))
    assert mode[0] == lib.ACL_HOST
    expect(INVALID_PARAM, lib.aclrtGetRunMode(NULL), "runMode")
    expect(0, lib.aclrtSynchronizeDevice())


def _in_fresh_process(variable, env_value, expression):
    """``(printed value of expression, stderr)`` of a new interpreter that
    imports aclnn_emu with ``variable`` set to ``env_value`` (None: unset)."""
    env = dict(os.environ)
    env.pop(variable, None)
    if env_value is not None:
        env[variable] = env_value
    code = "import aclnn_emu; from aclnn_emu import ffi, lib; print(%s)" % expression
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/")
    assert out.returncode == 0, out.stderr
    return out.stdout.strip(), out.stderr


def _soc_in_fresh_process(env_value):
    return _in_fresh_process("ACLNN_EMU_SOC", env_value, "ffi.string(lib.aclrtGetSocName()).decode()")


def test_soc_name_default_and_environment():
    assert _soc_in_fresh_process(None)[0] == "Ascend910B"
    assert _soc_in_fresh_process("Ascend950")[0] == "Ascend950"
    assert _soc_in_fresh_process("Ascend910")[0] == "Ascend910"
    name, err = _soc_in_fresh_process("Ascend310P")  # unknown: ignored with a warning
    assert name == "Ascend910B"
    assert "ACLNN_EMU_SOC" in err


def test_soc_name_set():
    name = ffi.string(lib.aclrtGetSocName()).decode()
    try:
        for soc in ("Ascend910_93", "Ascend910", "Ascend950", "Ascend910B"):
            expect(0, lib.aclnnEmuSetSocName(soc.encode()))
            assert ffi.string(lib.aclrtGetSocName()).decode() == soc
        expect(INVALID_PARAM, lib.aclnnEmuSetSocName(b"Ascend310"), "socName", "Ascend310")
        expect(INVALID_PARAM, lib.aclnnEmuSetSocName(NULL), "socName")
        assert ffi.string(lib.aclrtGetSocName()).decode() == "Ascend910B"
    finally:
        lib.aclnnEmuSetSocName(name.encode())


# ---------------------------------------------------------------- contexts

def test_contexts_in_fresh_thread():
    def body():
        ctx = ffi.new("aclrtContext *")
        expect(RT_CONTEXT_NULL, lib.aclrtGetCurrentContext(ctx), "aclrtGetCurrentContext")
        expect(INVALID_PARAM, lib.aclrtGetCurrentContext(NULL), "context")
        expect(INVALID_PARAM, lib.aclrtCreateContext(NULL, 0), "context")
        expect(RT_INVALID_DEVICEID, lib.aclrtCreateContext(ctx, 1), "deviceId")
        expect(0, lib.aclrtCreateContext(ctx, 0))
        created = ctx[0]
        assert created != NULL
        cur = ffi.new("aclrtContext *")
        expect(0, lib.aclrtGetCurrentContext(cur))
        assert cur[0] == created
        dev_id = ffi.new("int32_t *", 9)
        expect(0, lib.aclrtGetDevice(dev_id))  # a context makes its device current
        assert dev_id[0] == 0

        second = ffi.new("aclrtContext *")
        expect(0, lib.aclrtCreateContext(second, 0))
        expect(0, lib.aclrtGetCurrentContext(cur))
        assert cur[0] == second[0]
        expect(0, lib.aclrtSetCurrentContext(created))
        expect(0, lib.aclrtGetCurrentContext(cur))
        assert cur[0] == created

        expect(INVALID_PARAM, lib.aclrtSetCurrentContext(NULL), "context")
        junk = ffi.new("char[64]")
        expect(INVALID_PARAM, lib.aclrtSetCurrentContext(junk), "context")
        expect(INVALID_PARAM, lib.aclrtDestroyContext(junk), "context")
        expect(INVALID_PARAM, lib.aclrtDestroyContext(NULL), "context")

        expect(0, lib.aclrtDestroyContext(second[0]))
        expect(INVALID_PARAM, lib.aclrtDestroyContext(second[0]), "context")
        expect(INVALID_PARAM, lib.aclrtSetCurrentContext(second[0]), "context")
        expect(0, lib.aclrtDestroyContext(created))
        expect(0, lib.aclrtResetDevice(0))

    run_in_thread(body)


def test_set_device_gives_a_default_context():
    def body():
        cur = ffi.new("aclrtContext *")
        expect(0, lib.aclrtSetDevice(0))
        expect(0, lib.aclrtGetCurrentContext(cur))
        assert cur[0] != NULL
        expect(0, lib.aclrtSetCurrentContext(cur[0]))
        expect(0, lib.aclrtResetDevice(0))

    run_in_thread(body)


# ----------------------------------------------------------------- memory

def test_malloc_errors_leave_devptr_untouched():
    p = ffi.new("void **", ffi.cast("void *", 0x1234))
    expect(INVALID_PARAM, lib.aclrtMalloc(NULL, 16, 0), "devPtr")
    expect(INVALID_PARAM, lib.aclrtMalloc(p, 0, 0), "size")
    assert addr(p[0]) == 0x1234
    for bad in (8, 99, 0x200, 0x10000, 0xFFFFFFFF):  # 0xFFFFFFFF: (int)-1
        expect(INVALID_PARAM, lib.aclrtMalloc(p, 16, bad), "policy")
        assert addr(p[0]) == 0x1234
    expect(INVALID_PARAM, lib.aclrtMallocAlign32(NULL, 16, 0), "devPtr")
    expect(INVALID_PARAM, lib.aclrtMallocAlign32(p, 0, 0), "size")
    assert addr(p[0]) == 0x1234


def test_malloc_alignment_policies_and_free(dev):
    p = ffi.new("void **")
    policies = list(range(8)) + [
        lib.ACL_MEM_MALLOC_HUGE_FIRST | lib.ACL_MEM_TYPE_HIGH_BAND_WIDTH,
        lib.ACL_MEM_MALLOC_NORMAL_ONLY | lib.ACL_MEM_TYPE_LOW_BAND_WIDTH,
        lib.ACL_MEM_MALLOC_HUGE_ONLY | lib.ACL_MEM_ACCESS_USER_SPACE_READONLY,
    ]
    for policy in policies:
        for size in (1, 3, 63, 64, 100, 4097, 3 << 20):
            expect(0, lib.aclrtMalloc(p, size, policy))
            assert addr(p[0]) % 64 == 0, (policy, size, hex(addr(p[0])))
            ffi.memmove(p[0], b"\xab" * min(size, 64), min(size, 64))  # usable
            expect(0, lib.aclrtFree(p[0]))
    expect(0, lib.aclrtMallocAlign32(p, 33, 0))
    assert addr(p[0]) % 64 == 0
    expect(0, lib.aclrtFree(p[0]))


def test_free_errors(dev):
    expect(INVALID_PARAM, lib.aclrtFree(NULL), "devPtr")
    block = dev(256)
    interior = ffi.cast("char *", block) + 64
    expect(INVALID_PARAM, lib.aclrtFree(interior), "devPtr")
    host = ffi.new("char[256]")
    expect(INVALID_PARAM, lib.aclrtFree(host), "devPtr")
    expect(0, lib.aclrtFree(block))
    expect(INVALID_PARAM, lib.aclrtFree(block), "devPtr")


def test_malloc_host_and_free_host(dev):
    p = ffi.new("void **", ffi.cast("void *", 0x40))
    expect(INVALID_PARAM, lib.aclrtMallocHost(NULL, 8), "hostPtr")
    expect(INVALID_PARAM, lib.aclrtMallocHost(p, 0), "size")
    assert addr(p[0]) == 0x40
    expect(0, lib.aclrtMallocHost(p, 100))
    host = p[0]
    assert addr(host) % 64 == 0
    ffi.memmove(host, b"x" * 100, 100)
    expect(INVALID_PARAM, lib.aclrtFreeHost(NULL), "hostPtr")
    expect(INVALID_PARAM, lib.aclrtFree(host), "devPtr")  # host memory is not a device block
    block = dev(64)
    expect(INVALID_PARAM, lib.aclrtFreeHost(block), "hostPtr")  # nor the other way round
    expect(INVALID_PARAM, lib.aclrtFreeHost(ffi.cast("char *", host) + 8), "hostPtr")
    expect(0, lib.aclrtFreeHost(host))
    expect(INVALID_PARAM, lib.aclrtFreeHost(host), "hostPtr")


def _bytes(ptr, n):
    return bytes(ffi.buffer(ptr, n))


def test_memset(dev):
    block = dev(128)
    expect(0, lib.aclrtMemset(block, 128, 0x11, 128))
    assert _bytes(block, 128) == b"\x11" * 128
    expect(0, lib.aclrtMemset(block, 128, 0x7F, 0))  # count 0 does nothing
    assert _bytes(block, 128) == b"\x11" * 128
    expect(0, lib.aclrtMemset(NULL, 0, 0, 0))  # count 0 succeeds before any check
    expect(0, lib.aclrtMemset(block, 64, 0x1AB, 32))  # (unsigned char)value
    assert _bytes(block, 128) == b"\xab" * 32 + b"\x11" * 96
    expect(INVALID_PARAM, lib.aclrtMemset(NULL, 128, 0, 16), "devPtr")
    expect(RT_PARAM_INVALID, lib.aclrtMemset(block, 16, 0, 17), "count", "maxCount")
    assert _bytes(block, 128) == b"\xab" * 32 + b"\x11" * 96


def test_memcpy(dev):
    block = dev(64)
    src = ffi.new("char[]", bytes(range(64)))
    out = ffi.new("char[64]")
    # host -> device under every kind that says so (DEFAULT infers it)
    for kind in (lib.ACL_MEMCPY_HOST_TO_DEVICE, lib.ACL_MEMCPY_DEFAULT, lib.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE):
        lib.aclrtMemset(block, 64, 0, 64)
        expect(0, lib.aclrtMemcpy(block, 64, src, 64, kind))
        assert _bytes(block, 64) == bytes(range(64)), kind
    # kinds that misstate where dst or src lives (see test_streams for more)
    lib.aclrtMemset(block, 64, 0, 64)
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(block, 64, src, 64, lib.ACL_MEMCPY_HOST_TO_HOST), "dst", "device block")
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(block, 64, src, 64, lib.ACL_MEMCPY_DEVICE_TO_HOST), "dst")
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(block, 64, src, 64, lib.ACL_MEMCPY_DEVICE_TO_DEVICE), "src",
           "not in device memory")
    assert _bytes(block, 64) == bytes(64)
    expect(0, lib.aclrtMemcpy(block, 64, src, 64, lib.ACL_MEMCPY_HOST_TO_DEVICE))
    expect(0, lib.aclrtMemcpy(out, 64, block, 64, lib.ACL_MEMCPY_DEVICE_TO_HOST))
    assert bytes(ffi.buffer(out)) == bytes(range(64))

    # count 0: success and nothing happens, whatever else is wrong
    lib.aclrtMemset(block, 64, 0x55, 64)
    expect(0, lib.aclrtMemcpy(block, 64, src, 0, lib.ACL_MEMCPY_HOST_TO_DEVICE))
    expect(0, lib.aclrtMemcpy(NULL, 0, NULL, 0, lib.ACL_MEMCPY_HOST_TO_DEVICE))
    assert _bytes(block, 64) == b"\x55" * 64

    expect(INVALID_PARAM, lib.aclrtMemcpy(NULL, 64, src, 8, 1), "dst")
    expect(INVALID_PARAM, lib.aclrtMemcpy(block, 64, NULL, 8, 1), "src")
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(block, 16, src, 17, 1), "count", "destMax")
    for kind in (lib.ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, lib.ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 8, 0xFFFFFFFF):
        expect(INVALID_PARAM, lib.aclrtMemcpy(block, 64, src, 8, kind), "kind")
    assert _bytes(block, 64) == b"\x55" * 64  # no failing call wrote anything


def test_async_copies_with_streams(dev, stream):
    block = dev(64)
    src = ffi.new("char[]", b"\x07" * 64)
    expect(0, lib.aclrtMemsetAsync(block, 64, 0x21, 64, stream))
    expect(0, lib.aclrtSynchronizeStream(stream))
    assert _bytes(block, 64) == b"\x21" * 64
    expect(0, lib.aclrtMemcpyAsync(block, 64, src, 32, lib.ACL_MEMCPY_HOST_TO_DEVICE, stream))
    expect(0, lib.aclrtSynchronizeStream(stream))
    assert _bytes(block, 64) == b"\x07" * 32 + b"\x21" * 32
    # NULL: the default stream
    expect(0, lib.aclrtMemsetAsync(block, 64, 0x22, 64, NULL))
    expect(0, lib.aclrtMemcpyAsync(block, 64, src, 64, lib.ACL_MEMCPY_HOST_TO_DEVICE, NULL))
    expect(0, lib.aclrtSynchronizeStream(NULL))
    assert _bytes(block, 64) == b"\x07" * 64

    # the synchronous codes apply to the async forms too
    expect(INVALID_PARAM, lib.aclrtMemsetAsync(NULL, 64, 0, 8, stream), "devPtr")
    expect(RT_PARAM_INVALID, lib.aclrtMemsetAsync(block, 8, 0, 9, stream), "maxCount")
    expect(INVALID_PARAM, lib.aclrtMemcpyAsync(NULL, 64, src, 8, 1, stream), "dst")
    expect(INVALID_PARAM, lib.aclrtMemcpyAsync(block, 64, NULL, 8, 1, stream), "src")
    expect(RT_PARAM_INVALID, lib.aclrtMemcpyAsync(block, 8, src, 9, 1, stream), "destMax")
    expect(INVALID_PARAM, lib.aclrtMemcpyAsync(block, 64, src, 8, 6, stream), "kind")
    expect(INVALID_PARAM, lib.aclrtMemcpyAsync(block, 64, src, 8, 7, stream), "kind")
    expect(0, lib.aclrtMemsetAsync(block, 64, 0, 0, stream))
    expect(0, lib.aclrtMemcpyAsync(block, 64, src, 0, 1, stream))

    gone = destroyed_stream()
    lib.aclrtMemset(block, 64, 0x33, 64)
    expect(INVALID_PARAM, lib.aclrtMemsetAsync(block, 64, 0, 64, gone), "stream")
    expect(INVALID_PARAM, lib.aclrtMemcpyAsync(block, 64, src, 64, 1, gone), "stream")
    junk = ffi.new("char[32]")
    expect(INVALID_PARAM, lib.aclrtMemsetAsync(block, 64, 0, 64, junk), "stream")
    assert _bytes(block, 64) == b"\x33" * 64


MIB = 1 << 20


def _cache_limit_in_fresh_process(env_value):
    limit, err = _in_fresh_process("ACLNN_EMU_DEVICE_CACHE_MIB", env_value, "lib.aclnnEmuGetDeviceCacheLimit()")
    return int(limit), err


def test_device_cache_limit_default_and_environment():
    usable = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                usable = min(usable, int(f.read().split()[0]))
        except (OSError, ValueError, IndexError):  # absent, or "max"
            pass
    default = min(1 << 30, usable // 8)
    assert default > 0
    assert _cache_limit_in_fresh_process(None)[0] == default
    assert _cache_limit_in_fresh_process("5")[0] == 5 * MIB
    assert _cache_limit_in_fresh_process("0")[0] == 0
    for bad in ("-1", "1.5", "lots", str(1 << 60)):
        limit, err = _cache_limit_in_fresh_process(bad)  # ignored with a warning
        assert limit == default
        assert "ACLNN_EMU_DEVICE_CACHE_MIB" in err


@pytest.fixture
def cache_limit():
    """Empties the device cache and restores its limit afterwards."""
    saved = lib.aclnnEmuGetDeviceCacheLimit()
    gc.collect()  # results of earlier tests held by reference cycles go now, not mid-test
    expect(0, lib.aclnnEmuSetDeviceCacheLimit(0))
    yield
    expect(0, lib.aclnnEmuSetDeviceCacheLimit(0))
    expect(0, lib.aclnnEmuSetDeviceCacheLimit(saved))


def test_freed_large_blocks_come_back_from_the_cache(cache_limit):
    p = ffi.new("void **")
    expect(0, lib.aclnnEmuSetDeviceCacheLimit(64 * MIB))
    assert lib.aclnnEmuGetDeviceCacheLimit() == 64 * MIB
    expect(0, lib.aclrtMalloc(p, 8 * MIB, lib.ACL_MEM_MALLOC_HUGE_FIRST))
    block = p[0]
    ffi.memmove(ffi.cast("char *", block) + 8 * MIB - 16, b"kept in cache 16", 16)
    expect(0, lib.aclrtFree(block))
    assert lib.aclnnEmuGetDeviceCacheBytes() == 8 * MIB
    # Freed to every check, though it is kept.
    expect(INVALID_PARAM, lib.aclrtFree(block), "devPtr")
    expect(RT_PARAM_INVALID, lib.aclrtMemset(block, 16, 0, 16), "devPtr", "not in device memory")
    # A request it holds without wasting half gets it back, old contents and all.
    expect(0, lib.aclrtMalloc(p, 5 * MIB, lib.ACL_MEM_MALLOC_HUGE_ONLY))
    assert p[0] == block and lib.aclnnEmuGetDeviceCacheBytes() == 0
    assert ffi.buffer(ffi.cast("char *", block) + 8 * MIB - 16, 16)[:] == b"kept in cache 16"
    expect(0, lib.aclrtFree(block))
    expect(0, lib.aclrtMalloc(p, 2 * MIB + 1, lib.ACL_MEM_MALLOC_HUGE_FIRST))  # would waste more than half
    assert p[0] != block and lib.aclnnEmuGetDeviceCacheBytes() == 8 * MIB
    expect(0, lib.aclrtFree(p[0]))  # reserved as 4 MiB (whole huge pages)
    assert lib.aclnnEmuGetDeviceCacheBytes() == 12 * MIB
    expect(0, lib.aclrtMalloc(p, MIB, 0))  # under 2 MiB: never kept
    expect(0, lib.aclrtFree(p[0]))
    assert lib.aclnnEmuGetDeviceCacheBytes() == 12 * MIB
    # Lowering the limit releases the oldest; a reset releases everything.
    expect(0, lib.aclnnEmuSetDeviceCacheLimit(4 * MIB))
    assert lib.aclnnEmuGetDeviceCacheBytes() == 4 * MIB
    # A block keeps the pages it was faulted in with: NORMAL_ONLY never gets a huge-page one.
    expect(0, lib.aclrtMalloc(p, 4 * MIB, lib.ACL_MEM_MALLOC_NORMAL_ONLY))
    assert lib.aclnnEmuGetDeviceCacheBytes() == 4 * MIB
    expect(0, lib.aclrtFree(p[0]))
    assert lib.aclnnEmuGetDeviceCacheBytes() == 4 * MIB  # the older huge-page block made room
    expect(0, lib.aclrtMalloc(p, 4 * MIB, lib.ACL_MEM_MALLOC_NORMAL_ONLY_P2P))
    assert lib.aclnnEmuGetDeviceCacheBytes() == 0
    expect(0, lib.aclrtFree(p[0]))
    expect(0, lib.aclrtSetDevice(0))
    expect(0, lib.aclrtResetDevice(0))
    assert lib.aclnnEmuGetDeviceCacheBytes() == 0
    expect(0, lib.aclrtSetDevice(0))


def test_get_mem_info():
    free, total = ffi.new("size_t *"), ffi.new("size_t *")
    for attr in range(12):
        expect(0, lib.aclrtGetMemInfo(attr, free, total))
        assert total[0] > 0 and 0 < free[0] <= total[0]
    expect(INVALID_PARAM, lib.aclrtGetMemInfo(0, NULL, total), "free")
    expect(INVALID_PARAM, lib.aclrtGetMemInfo(0, free, NULL), "total")
    expect(INVALID_PARAM, lib.aclrtGetMemInfo(12, free, total), "attr")
    expect(INVALID_PARAM, lib.aclrtGetMemInfo(0xFFFFFFFF, free, total), "attr")  # (int)-1


# ---------------------------------------------------------------- huge pages

THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"


def _thp_mode():
    try:
        text = open(THP_ENABLED).read()
    except OSError:
        return None
    m = re.search(r"\[(\w+)\]", text)
    return m.group(1) if m else None


def _anon_huge_kb(lo, hi):
    """AnonHugePages (kB) summed over the mappings of this process overlapping [lo, hi)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
            if m:
                start, end = int(m.group(1), 16), int(m.group(2), 16)
                inside = start < hi and end > lo
            elif inside and line.startswith("AnonHugePages:"):
                total += int(line.split()[1])
    return total


def _thp_pages_exact(lo, hi):
    """Huge pages backing [lo, hi) counted page by page (pagemap + kpageflags,
    root only), in kB; None where the kernel does not tell. smaps can only
    give whole mappings, which may reach past the block."""
    try:
        with open("/proc/self/pagemap", "rb") as pm, open("/proc/kpageflags", "rb") as kf:
            total = 0
            for a in range(lo, hi, 4096):
                pm.seek(a // 4096 * 8)
                entry = int.from_bytes(pm.read(8), "little")
                pfn = entry & ((1 << 55) - 1)
                if not entry >> 63:
                    continue
                if pfn == 0:
                    return None
                kf.seek(pfn * 8)
                if int.from_bytes(kf.read(8), "little") >> 22 & 1:  # KPF_THP
                    total += 4
            return total
    except OSError:
        return None


def test_huge_pages_follow_the_policy(dev, cache_limit):
    """Fresh blocks (the cache_limit fixture empties the device cache) get the pages their policy asks for."""
    mode = _thp_mode()
    if mode is None:
        pytest.skip("no %s: the kernel has no transparent huge pages" % THP_ENABLED)
    if mode == "never":
        pytest.skip("transparent huge pages are disabled ([never] in %s)" % THP_ENABLED)
    size = 64 << 20
    huge = dev(size, lib.ACL_MEM_MALLOC_HUGE_FIRST)
    expect(0, lib.aclrtMemset(huge, size, 1, size))
    normal = dev(size, lib.ACL_MEM_MALLOC_NORMAL_ONLY)
    expect(0, lib.aclrtMemset(normal, size, 1, size))
    huge_kb = _thp_pages_exact(addr(huge), addr(huge) + size)
    if huge_kb is None:
        huge_kb = _anon_huge_kb(addr(huge), addr(huge) + size)
    normal_kb = _thp_pages_exact(addr(normal), addr(normal) + size)
    if normal_kb is None:
        normal_kb = _anon_huge_kb(addr(normal), addr(normal) + size)
    assert huge_kb > 0, "HUGE_FIRST block has no huge pages (THP mode [%s])" % mode
    assert normal_kb == 0, "NORMAL_ONLY block has %d kB of huge pages" % normal_kb


HEAP_REUSE_CHILD = r"""
import ctypes, sys
sys.path.insert(0, sys.argv[1])
from test_runtime import _anon_huge_kb, _thp_pages_exact, addr
from aclnn_emu import ffi, lib

def huge_kb(p, size):
    kb = _thp_pages_exact(addr(p), addr(p) + size)
    return _anon_huge_kb(addr(p), addr(p) + size) if kb is None else kb

# Make malloc serve these requests from its heap and keep what is freed
# there, as glibc does by itself once its dynamic mmap threshold has risen.
libc = ctypes.CDLL(None)
assert libc.mallopt(-3, 32 << 20) == 1  # M_MMAP_THRESHOLD
assert libc.mallopt(-1, 1 << 30) == 1   # M_TRIM_THRESHOLD
size = 16 << 20
p = ffi.new("void **")
assert lib.aclnnEmuSetDeviceCacheLimit(0) == 0
assert lib.aclrtMalloc(p, size, lib.ACL_MEM_MALLOC_HUGE_FIRST) == 0
assert lib.aclrtMemset(p[0], size, 1, size) == 0
first = huge_kb(p[0], size)
assert lib.aclrtFree(p[0]) == 0
assert lib.aclrtMalloc(p, size, lib.ACL_MEM_MALLOC_NORMAL_ONLY) == 0
assert lib.aclrtMemset(p[0], size, 1, size) == 0
print(first, huge_kb(p[0], size))
"""


def test_normal_only_blocks_get_fresh_pages_whatever_malloc_does():
    """A NORMAL_ONLY block never inherits the huge pages of a freed HUGE_FIRST
    block, even where malloc would hand the same heap memory out again."""
    mode = _thp_mode()
    if mode in (None, "never"):
        pytest.skip("no transparent huge pages on this kernel (%s)" % mode)
    out = subprocess.run([sys.executable, "-c", HEAP_REUSE_CHILD, os.path.dirname(__file__)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first_kb, second_kb = map(int, out.stdout.split())
    assert first_kb > 0, "HUGE_FIRST block has no huge pages (THP mode [%s])" % mode
    assert second_kb == 0, "NORMAL_ONLY block has %d kB of huge pages" % second_kb


GUARD_CHILD = r"""
import ctypes
from aclnn_emu import ffi, lib
p = ffi.new("void **")
size = 2 << 20  # a whole number of huge pages: no rounding tail after the block
assert lib.aclrtMalloc(p, size, lib.ACL_MEM_MALLOC_HUGE_FIRST) == 0
base = int(ffi.cast("uintptr_t", p[0]))
ctypes.memset(base + size - 1, 7, 1)
print("last byte written", flush=True)
ctypes.memset(base + size, 7, 1)
print("past the block written", flush=True)
"""


def test_a_write_past_a_large_block_faults():
    """A page with no access follows every large block, so an overrun stops
    the program there instead of landing in whatever is mapped next."""
    out = subprocess.run([sys.executable, "-c", GUARD_CHILD], capture_output=True, text=True, timeout=120)
    assert "last byte written" in out.stdout
    assert "past the block written" not in out.stdout
    assert out.returncode == -11, (out.returncode, out.stderr)  # SIGSEGV


# ----------------------------------------------------------------- streams

def test_stream_lifecycle():
    p = ffi.new("aclrtStream *")
    expect(INVALID_PARAM, lib.aclrtCreateStream(NULL), "stream")
    expect(INVALID_PARAM, lib.aclrtCreateStreamWithConfig(NULL, 0, 0), "stream")
    expect(0, lib.aclrtCreateStream(p))
    s = p[0]
    assert s != NULL
    status = ffi.new("aclrtStreamStatus *", 77)
    expect(0, lib.aclrtStreamQuery(s, status))
    assert status[0] == lib.ACL_STREAM_STATUS_COMPLETE
    expect(INVALID_PARAM, lib.aclrtStreamQuery(s, NULL), "status")
    expect(0, lib.aclrtSynchronizeStream(s))
    expect(0, lib.aclrtSynchronizeStreamWithTimeout(s, -1))
    expect(0, lib.aclrtSynchronizeStreamWithTimeout(s, 0))
    expect(0, lib.aclrtSynchronizeStreamWithTimeout(s, 1000))
    expect(INVALID_PARAM, lib.aclrtSynchronizeStreamWithTimeout(s, -2), "timeout")
    expect(0, lib.aclrtDestroyStream(s))

    # every call on the destroyed stream
    expect(INVALID_PARAM, lib.aclrtDestroyStream(s), "stream")
    expect(INVALID_PARAM, lib.aclrtSynchronizeStream(s), "stream")
    expect(INVALID_PARAM, lib.aclrtSynchronizeStreamWithTimeout(s, -1), "stream")
    expect(INVALID_PARAM, lib.aclrtStreamQuery(s, status), "stream")
    expect(INVALID_PARAM, lib.aclrtDestroyStream(NULL), "stream")

    q = ffi.new("aclrtStream *")
    expect(0, lib.aclrtCreateStreamWithConfig(q, 3, lib.ACL_STREAM_FAST_LAUNCH | lib.ACL_STREAM_FAST_SYNC))
    expect(0, lib.aclrtSynchronizeStream(q[0]))
    expect(0, lib.aclrtDestroyStream(q[0]))


def test_default_stream_is_null():
    status = ffi.new("aclrtStreamStatus *", 77)
    expect(0, lib.aclrtStreamQuery(NULL, status))
    assert status[0] == lib.ACL_STREAM_STATUS_COMPLETE
    expect(0, lib.aclrtSynchronizeStream(NULL))
    expect(0, lib.aclrtSynchronizeStreamWithTimeout(NULL, -1))


def test_streams_are_distinct():
    handles = []
    for _ in range(8):
        p = ffi.new("aclrtStream *")
        expect(0, lib.aclrtCreateStream(p))
        handles.append(p[0])
    assert len({addr(h) for h in handles}) == 8
    for h in handles:
        expect(0, lib.aclrtDestroyStream(h))


# ------------------------------------------------------------------ events

def _event(flag=None):
    p = ffi.new("aclrtEvent *")
    rc = lib.aclrtCreateEvent(p) if flag is None else lib.aclrtCreateEventWithFlag(p, flag)
    assert rc == 0
    return p[0]


def test_event_create_and_errors():
    expect(INVALID_PARAM, lib.aclrtCreateEvent(NULL), "event")
    expect(INVALID_PARAM, lib.aclrtCreateEventWithFlag(NULL, lib.ACL_EVENT_SYNC), "event")
    expect(INVALID_PARAM, lib.aclrtCreateEventExWithFlag(NULL, lib.ACL_EVENT_TIME_LINE), "event")
    p = ffi.new("aclrtEvent *")
    expect(0, lib.aclrtCreateEventExWithFlag(p, lib.ACL_EVENT_TIME_LINE))
    expect(0, lib.aclrtDestroyEvent(p[0]))
    status = ffi.new("aclrtEventRecordedStatus *")
    for api, call in [
        ("aclrtRecordEvent", lambda: lib.aclrtRecordEvent(NULL, NULL)),
        ("aclrtResetEvent", lambda: lib.aclrtResetEvent(NULL, NULL)),
        ("aclrtQueryEventStatus", lambda: lib.aclrtQueryEventStatus(NULL, status)),
        ("aclrtSynchronizeEvent", lambda: lib.aclrtSynchronizeEvent(NULL)),
        ("aclrtDestroyEvent", lambda: lib.aclrtDestroyEvent(NULL)),
        ("aclrtStreamWaitEvent", lambda: lib.aclrtStreamWaitEvent(NULL, NULL)),
    ]:
        expect(INVALID_PARAM, call(), api, "event")


def test_event_record_query_and_destroy(stream):
    ev = _event()
    status = ffi.new("aclrtEventRecordedStatus *", 77)
    expect(0, lib.aclrtQueryEventStatus(ev, status))
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_NOT_READY  # never recorded
    expect(INVALID_PARAM, lib.aclrtQueryEventStatus(ev, NULL), "status")
    expect(0, lib.aclrtSynchronizeEvent(ev))  # unrecorded: returns at once
    expect(0, lib.aclrtRecordEvent(ev, stream))
    expect(0, lib.aclrtSynchronizeEvent(ev))
    expect(0, lib.aclrtQueryEventStatus(ev, status))
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE
    expect(0, lib.aclrtStreamWaitEvent(stream, ev))
    expect(0, lib.aclrtStreamWaitEvent(NULL, ev))
    expect(0, lib.aclrtResetEvent(ev, stream))
    expect(0, lib.aclrtSynchronizeStream(stream))  # the reset is queued on the stream
    expect(0, lib.aclrtQueryEventStatus(ev, status))
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_NOT_READY
    expect(0, lib.aclrtRecordEvent(ev, NULL))  # default stream: complete on return
    expect(0, lib.aclrtQueryEventStatus(ev, status))
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE

    gone = destroyed_stream()
    expect(INVALID_PARAM, lib.aclrtRecordEvent(ev, gone), "stream")
    expect(INVALID_PARAM, lib.aclrtResetEvent(ev, gone), "stream")
    expect(INVALID_PARAM, lib.aclrtStreamWaitEvent(gone, ev), "stream")

    expect(0, lib.aclrtDestroyEvent(ev))
    expect(INVALID_PARAM, lib.aclrtDestroyEvent(ev), "event")
    expect(INVALID_PARAM, lib.aclrtRecordEvent(ev, stream), "event")
    expect(INVALID_PARAM, lib.aclrtQueryEventStatus(ev, status), "event")
    expect(INVALID_PARAM, lib.aclrtSynchronizeEvent(ev), "event")
    expect(INVALID_PARAM, lib.aclrtStreamWaitEvent(stream, ev), "event")
    junk = ffi.new("char[64]")
    expect(INVALID_PARAM, lib.aclrtRecordEvent(junk, stream), "event")


def test_event_elapsed_time(stream, dev):
    e1, e2, e3 = _event(), _event(lib.ACL_EVENT_TIME_LINE), _event()
    ms = ffi.new("float *", -1.0)
    try:
        expect(RT_EVENT_TIMESTAMP_INVALID, lib.aclrtEventElapsedTime(ms, e1, e2), "startEvent", "recorded")
        assert ms[0] == -1.0
        expect(0, lib.aclrtRecordEvent(e1, stream))
        expect(0, lib.aclrtSynchronizeEvent(e1))
        expect(RT_EVENT_TIMESTAMP_INVALID, lib.aclrtEventElapsedTime(ms, e1, e2), "endEvent")
        block = dev(8 << 20)
        lib.aclrtMemsetAsync(block, 8 << 20, 1, 8 << 20, stream)  # some work between the records
        expect(0, lib.aclrtRecordEvent(e2, stream))
        lib.aclrtMemsetAsync(block, 8 << 20, 2, 8 << 20, stream)
        expect(0, lib.aclrtRecordEvent(e3, stream))
        expect(0, lib.aclrtSynchronizeStream(stream))

        t = {}
        for a, b, key in ((e1, e2, "12"), (e2, e3, "23"), (e1, e3, "13"), (e1, e1, "11")):
            expect(0, lib.aclrtEventElapsedTime(ms, a, b))
            t[key] = ms[0]
        assert t["12"] >= 0 and t["23"] >= 0 and t["11"] == 0
        assert t["13"] >= t["12"] and t["13"] >= t["23"]
        assert t["13"] == pytest.approx(t["12"] + t["23"], rel=1e-3, abs=1e-3)
        assert t["13"] < 60_000

        expect(INVALID_PARAM, lib.aclrtEventElapsedTime(NULL, e1, e2), "ms")
        expect(INVALID_PARAM, lib.aclrtEventElapsedTime(ms, NULL, e2), "startEvent")
        expect(INVALID_PARAM, lib.aclrtEventElapsedTime(ms, e1, NULL), "endEvent")
        expect(0, lib.aclrtResetEvent(e2, stream))
        expect(0, lib.aclrtSynchronizeStream(stream))
        expect(RT_EVENT_TIMESTAMP_INVALID, lib.aclrtEventElapsedTime(ms, e1, e2), "endEvent")
    finally:
        for e in (e1, e2, e3):
            lib.aclrtDestroyEvent(e)
    expect(INVALID_PARAM, lib.aclrtEventElapsedTime(ms, e1, e3), "startEvent")


# ------------------------------------------------------- aclGetRecentErrMsg

def test_recent_err_msg_null_when_nothing_failed():
    take_msg()
    assert lib.aclGetRecentErrMsg() == NULL
    count = ffi.new("uint32_t *")
    assert lib.aclrtGetDeviceCount(count) == 0  # a success leaves nothing either
    assert lib.aclGetRecentErrMsg() == NULL


def test_recent_err_msg_cleared_by_reading_and_newest_wins():
    assert lib.aclrtMalloc(NULL, 8, 0) == INVALID_PARAM
    p = lib.aclGetRecentErrMsg()
    assert p != NULL
    first = ffi.string(p).decode()
    assert "aclrtMalloc" in first and "devPtr" in first
    assert lib.aclGetRecentErrMsg() == NULL
    # two failures: the newer message is the one reported
    lib.aclrtFree(NULL)
    lib.aclrtSetDevice(5)
    msg = take_msg()
    assert "aclrtSetDevice" in msg and "deviceId" in msg
    assert take_msg() is None


def test_recent_err_msg_valid_until_next_read():
    lib.aclrtFree(NULL)
    p = lib.aclGetRecentErrMsg()
    text = ffi.string(p)
    lib.aclrtGetDeviceCount(NULL)  # a new failure does not overwrite the returned text
    assert ffi.string(p) == text
    assert b"count" in ffi.string(lib.aclGetRecentErrMsg())


def test_recent_err_msg_is_per_thread():
    take_msg()

    def fail_and_read():
        assert take_msg() is None  # nothing from other threads
        assert lib.aclrtGetDeviceCount(NULL) == INVALID_PARAM
        return take_msg()

    msg = run_in_thread(fail_and_read)
    assert msg and "count" in msg
    assert lib.aclGetRecentErrMsg() == NULL  # the worker's error is not ours

    # and the other way round: ours stays ours
    assert lib.aclrtMalloc(NULL, 1, 0) == INVALID_PARAM
    assert run_in_thread(take_msg) is None
    msg = take_msg()
    assert msg and "devPtr" in msg


def test_recent_err_msg_many_threads_keep_their_own():
    barrier = threading.Barrier(4)
    results = {}

    def worker(i):
        barrier.wait()
        lib.aclrtSetDevice(100 + i)
        barrier.wait()
        results[i] = take_msg()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert results[i] is not None and str(100 + i) in results[i], results
