"""Asynchronous streams, events, launch-time device-memory checks and the
diagnostics, through the raw C API.

Asynchrony is shown without timing: a stream is held by aclrtStreamWaitEvent
on an event that is not recorded yet (CANN's events are flags: the wait
lasts until a record completes), so its work cannot have run until the host
records the event."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from aclnn_emu import ffi, lib
from helpers import NULL, expect, last_kernel, take_msg
from reference import assert_precision, silu_backward_ref, silu_ref
from test_runtime import clean_messages, dev  # noqa: F401  (shared fixtures)

INVALID_PARAM = 100000
RT_PARAM_INVALID = 107000
RT_EVENT_TIMESTAMP_INVALID = 107006
RT_EVENT_NOT_COMPLETE = 507006
RT_STREAM_SYNC_TIMEOUT = 507046
PARAM_NULLPTR = 161001
PARAM_INVALID = 161002
F32 = 0


def _new_stream():
    p = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(p) == 0
    return p[0]


@pytest.fixture
def streams():
    made = []

    def make():
        s = _new_stream()
        made.append(s)
        return s

    yield make
    for s in made:
        lib.aclrtDestroyStream(s)
    take_msg()


@pytest.fixture
def events():
    made = []

    def make():
        p = ffi.new("aclrtEvent *")
        assert lib.aclrtCreateEvent(p) == 0
        made.append(p[0])
        return p[0]

    yield make
    for e in made:
        lib.aclrtDestroyEvent(e)
    take_msg()


def vector(ptr, n, dtype=F32, strides=None, offset=0, storage=None):
    dims = ffi.new("int64_t[]", [n])
    st = ffi.new("int64_t[]", [1 if strides is None else strides])
    sd = ffi.new("int64_t[]", [n if storage is None else storage])
    t = lib.aclCreateTensor(dims, 1, dtype, st, offset, 2, sd, 1, ptr)
    assert t != NULL, take_msg()
    return t


def plan_silu(x, y, n, **kw):
    """Phase 1 of aclnnSilu on device pointers; returns (executor, workspace size)."""
    tx, ty = vector(x, n, **kw), vector(y, n, **kw)
    ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    try:
        expect(0, lib.aclnnSiluGetWorkspaceSize(tx, ty, ws, exe))
    finally:
        lib.aclDestroyTensor(tx)
        lib.aclDestroyTensor(ty)
    return exe[0], ws[0]


def host_f32(values):
    a = np.ascontiguousarray(values, np.float32)
    return a, ffi.from_buffer(a, require_writable=True)


def copy_in(dst, arr, stream):
    return lib.aclrtMemcpyAsync(dst, arr.nbytes, ffi.from_buffer(arr), arr.nbytes, lib.ACL_MEMCPY_HOST_TO_DEVICE,
                                stream)


def copy_out(arr, src, stream):
    return lib.aclrtMemcpyAsync(ffi.from_buffer(arr, require_writable=True), arr.nbytes, src, arr.nbytes,
                                lib.ACL_MEMCPY_DEVICE_TO_HOST, stream)


def stream_done(stream):
    status = ffi.new("aclrtStreamStatus *")
    expect(0, lib.aclrtStreamQuery(stream, status))
    return status[0] == lib.ACL_STREAM_STATUS_COMPLETE


N = 4096
X = np.linspace(-8, 8, N, dtype=np.float32)


# ------------------------------------------------------------------ ordering

def test_copy_op_copy_on_one_stream(dev, streams):
    s = streams()
    x, y = dev(4 * N), dev(4 * N)
    out = np.full(N, np.nan, np.float32)
    expect(0, copy_in(x, X, s))
    exe, ws = plan_silu(x, y, N)
    assert ws == 0
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))
    expect(0, copy_out(out, y, s))
    expect(0, lib.aclrtSynchronizeStream(s))
    assert stream_done(s)
    assert_precision(out, silu_ref(X), np.float32)
    assert "silu" in last_kernel()  # reported by the synchronize on this thread


def test_results_are_not_there_before_synchronize(dev, streams, events):
    s, gate = streams(), events()
    x, y = dev(4 * N), dev(4 * N)
    out = np.full(N, np.nan, np.float32)
    expect(0, lib.aclrtStreamWaitEvent(s, gate))  # holds s until gate is recorded
    expect(0, copy_in(x, X, s))
    exe, _ = plan_silu(x, y, N)
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))
    expect(0, copy_out(out, y, s))
    end = events()
    expect(0, lib.aclrtRecordEvent(end, s))

    assert not stream_done(s)
    assert np.isnan(out).all()  # queued, not run
    status = ffi.new("aclrtEventRecordedStatus *")
    expect(0, lib.aclrtQueryEventStatus(end, status))
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_NOT_READY
    ms = ffi.new("float *", -1.0)
    expect(RT_EVENT_NOT_COMPLETE, lib.aclrtEventElapsedTime(ms, end, end), "startEvent", "aclrtSynchronizeEvent")
    assert ms[0] == -1.0
    expect(RT_STREAM_SYNC_TIMEOUT, lib.aclrtSynchronizeStreamWithTimeout(s, 20), "timeout", "20 ms")
    assert np.isnan(out).all()

    expect(0, lib.aclrtRecordEvent(gate, NULL))  # the default stream records at once: s runs
    expect(0, lib.aclrtSynchronizeEvent(end))
    expect(0, lib.aclrtQueryEventStatus(end, status))
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert_precision(out, silu_ref(X), np.float32)
    expect(0, lib.aclrtSynchronizeStream(s))
    assert stream_done(s)


def test_two_streams_ordered_by_an_event(dev, streams, events):
    producer, consumer = streams(), streams()
    ready, gate = events(), events()
    x, y = dev(4 * N), dev(4 * N)
    out = np.full(N, np.nan, np.float32)
    expect(0, lib.aclrtMemset(x, 4 * N, 0, 4 * N))  # silu(0) = 0 if the order were wrong
    # The consumer is queued first and must still see the producer's copy.
    expect(0, lib.aclrtStreamWaitEvent(consumer, ready))
    exe, _ = plan_silu(x, y, N)
    expect(0, lib.aclnnSilu(NULL, 0, exe, consumer))
    expect(0, copy_out(out, y, consumer))
    expect(0, lib.aclrtStreamWaitEvent(producer, gate))
    expect(0, copy_in(x, X, producer))
    expect(0, lib.aclrtRecordEvent(ready, producer))
    assert not stream_done(consumer) and not stream_done(producer)
    assert np.isnan(out).all()
    expect(0, lib.aclrtRecordEvent(gate, NULL))
    expect(0, lib.aclrtSynchronizeStream(consumer))
    assert stream_done(producer)  # the consumer could only finish after it
    assert_precision(out, silu_ref(X), np.float32)


def test_elapsed_time_positive_and_monotonic(dev, streams, events):
    s = streams()
    n = 1 << 18
    x, y = dev(4 * n), dev(4 * n)
    expect(0, lib.aclrtMemset(x, 4 * n, 0x3F, 4 * n))
    marks = [events() for _ in range(4)]
    expect(0, lib.aclrtRecordEvent(marks[0], s))
    for m in marks[1:]:
        exe, _ = plan_silu(x, y, n)
        expect(0, lib.aclnnSilu(NULL, 0, exe, s))
        expect(0, lib.aclrtRecordEvent(m, s))
    expect(0, lib.aclrtSynchronizeStream(s))
    ms = ffi.new("float *")
    times = []
    for m in marks[1:]:
        expect(0, lib.aclrtEventElapsedTime(ms, marks[0], m))
        times.append(ms[0])
    assert times[0] > 0
    assert times == sorted(times) and times[-1] > times[0]
    expect(0, lib.aclrtEventElapsedTime(ms, marks[3], marks[1]))
    assert ms[0] < 0  # end before start: negative, as end minus start


def test_event_reset_then_wait_holds_until_next_record(streams, events, dev):
    s, ev = streams(), events()
    block = dev(64)
    expect(0, lib.aclrtRecordEvent(ev, NULL))
    expect(0, lib.aclrtResetEvent(ev, NULL))
    expect(0, lib.aclrtStreamWaitEvent(s, ev))  # reset: waits for the next record
    expect(0, lib.aclrtMemsetAsync(block, 64, 7, 64, s))
    assert not stream_done(s)
    expect(0, lib.aclrtRecordEvent(ev, NULL))
    expect(0, lib.aclrtSynchronizeStream(s))
    assert bytes(ffi.buffer(ffi.cast("char *", block), 64)) == b"\x07" * 64


def test_destroyed_event_with_a_queued_record(streams, events):
    s, gate = streams(), events()
    p = ffi.new("aclrtEvent *")
    expect(0, lib.aclrtCreateEvent(p))
    expect(0, lib.aclrtStreamWaitEvent(s, gate))
    expect(0, lib.aclrtRecordEvent(p[0], s))
    expect(0, lib.aclrtDestroyEvent(p[0]))  # the queued record keeps it alive
    expect(INVALID_PARAM, lib.aclrtRecordEvent(p[0], s), "event")
    expect(0, lib.aclrtRecordEvent(gate, NULL))
    expect(0, lib.aclrtSynchronizeStream(s))


# ------------------------------------------------- memory still used by work

def _held_stream(streams, events):
    s, gate = streams(), events()
    expect(0, lib.aclrtStreamWaitEvent(s, gate))
    return s, gate


def _in_thread(fn):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("rc", fn()))
    t.start()
    return t, box


def test_free_waits_for_queued_work_that_uses_the_block(dev, streams, events):
    s, gate = _held_stream(streams, events)
    p = ffi.new("void **")
    expect(0, lib.aclrtMalloc(p, 4 * N, 0))
    x = p[0]
    y = dev(4 * N)
    out = np.full(N, np.nan, np.float32)
    expect(0, copy_in(x, X, s))
    exe, _ = plan_silu(x, y, N)
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))
    expect(0, copy_out(out, y, s))
    t, box = _in_thread(lambda: lib.aclrtFree(x))
    t.join(0.3)
    assert t.is_alive()  # aclrtFree waits: the stream has not run yet
    other = dev(64)
    expect(0, lib.aclrtFree(other))  # a block no queued work uses is freed at once
    expect(0, lib.aclrtRecordEvent(gate, NULL))
    t.join()
    assert box["rc"] == 0
    expect(0, lib.aclrtSynchronizeStream(s))
    assert_precision(out, silu_ref(X), np.float32)


def test_destroying_a_repeatable_executor_waits_for_its_launches(dev, streams, events):
    s, gate = _held_stream(streams, events)
    x, y = dev(4 * N), dev(4 * N)
    out = np.full(N, np.nan, np.float32)
    expect(0, copy_in(x, X, s))
    exe, _ = plan_silu(x, y, N)
    expect(0, lib.aclSetAclOpExecutorRepeatable(exe))
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))  # repeatable: queued twice
    expect(0, copy_out(out, y, s))
    t, box = _in_thread(lambda: lib.aclDestroyAclOpExecutor(exe))
    t.join(0.3)
    assert t.is_alive()
    expect(0, lib.aclrtRecordEvent(gate, NULL))
    t.join()
    assert box["rc"] == 0
    expect(0, lib.aclrtSynchronizeStream(s))
    assert_precision(out, silu_ref(X), np.float32)
    expect(161002, lib.aclnnSilu(NULL, 0, exe, s), "executor")


def test_rebinding_waits_and_each_launch_keeps_its_addresses(dev, streams, events):
    s, gate = _held_stream(streams, events)
    x, y1, y2 = dev(4 * N), dev(4 * N), dev(4 * N)
    out1, out2 = np.full(N, np.nan, np.float32), np.full(N, np.nan, np.float32)
    expect(0, copy_in(x, X, s))
    exe, _ = plan_silu(x, y1, N)
    expect(0, lib.aclSetAclOpExecutorRepeatable(exe))
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))
    t, box = _in_thread(lambda: lib.aclSetOutputTensorAddr(exe, 0, NULL, y2))
    t.join(0.3)
    assert t.is_alive()  # the queued launch still needs y1
    expect(0, lib.aclrtRecordEvent(gate, NULL))
    t.join()
    assert box["rc"] == 0
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))
    expect(0, copy_out(out1, y1, s))
    expect(0, copy_out(out2, y2, s))
    expect(0, lib.aclrtSynchronizeStream(s))
    assert_precision(out1, silu_ref(X), np.float32)
    assert_precision(out2, silu_ref(X), np.float32)
    expect(0, lib.aclDestroyAclOpExecutor(exe))


def test_single_use_executor_is_consumed_at_launch(dev, streams, events):
    s, gate = _held_stream(streams, events)
    x, y = dev(64), dev(64)
    exe, _ = plan_silu(x, y, 16)
    expect(0, lib.aclnnSilu(NULL, 0, exe, s))
    expect(PARAM_INVALID, lib.aclnnSilu(NULL, 0, exe, s), "consumed", "aclSetAclOpExecutorRepeatable")
    expect(0, lib.aclrtRecordEvent(gate, NULL))
    expect(0, lib.aclrtSynchronizeStream(s))


# ------------------------------------------- launch-time device-memory checks

@pytest.mark.parametrize("which", ["self (input 0)", "out (output 0)"])
def test_block_freed_between_phase1_and_phase2(dev, which):
    x, y = dev(64), dev(64)
    exe, _ = plan_silu(x, y, 16)
    expect(0, lib.aclrtFree(x if which.startswith("self") else y))
    msg = expect(PARAM_INVALID, lib.aclnnSilu(NULL, 0, exe, NULL), "aclnnSilu", which, "not in device memory")
    assert "%x" % int(ffi.cast("uintptr_t", x if which.startswith("self") else y)) in msg
    expect(0, lib.aclDestroyAclOpExecutor(exe))  # not consumed by the failed launch


def test_silu_backward_names_the_freed_tensor(dev):
    dy, x, dx = dev(64), dev(64), dev(64)
    tensors = [vector(p, 16) for p in (dy, x, dx)]
    ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    expect(0, lib.aclnnSiluBackwardGetWorkspaceSize(*tensors, ws, exe))
    for t in tensors:
        lib.aclDestroyTensor(t)
    expect(0, lib.aclrtFree(dy))
    expect(PARAM_INVALID, lib.aclnnSiluBackward(NULL, 0, exe[0], NULL), "aclnnSiluBackward", "gradOutput (input 0)",
           "not in device memory")
    expect(0, lib.aclDestroyAclOpExecutor(exe[0]))


def test_block_shrunk_between_phase1_and_phase2(dev):
    """The block is freed and a smaller one lands at the same address: the view runs past it."""
    x, y = dev(4096), dev(4096)
    exe, _ = plan_silu(x, y, 1024)
    expect(0, lib.aclrtFree(y))
    p = ffi.new("void **")
    smaller = None
    for _ in range(64):  # the allocator usually hands the same address back
        expect(0, lib.aclrtMalloc(p, 64, 0))
        if p[0] == y:
            smaller = p[0]
            break
        lib.aclrtFree(p[0])
    if smaller is None:
        expect(PARAM_INVALID, lib.aclnnSilu(NULL, 0, exe, NULL), "out (output 0)", "not in device memory")
    else:
        expect(PARAM_INVALID, lib.aclnnSilu(NULL, 0, exe, NULL), "out (output 0)", "past the end", "64 bytes")
        lib.aclrtFree(smaller)
    expect(0, lib.aclDestroyAclOpExecutor(exe))


def test_workspace_freed_or_host(dev):
    n = 64
    x, y = dev(4 * 2 * n), dev(4 * 2 * n)
    exe, ws = plan_silu(x, y, n, strides=2, storage=2 * n)  # strided views are staged in the workspace
    assert ws > 0
    host = np.zeros(ws, np.uint8)
    expect(PARAM_INVALID, lib.aclnnSilu(ffi.from_buffer(host), ws, exe, NULL), "workspace", "not in device memory")
    small = dev(ws)
    expect(0, lib.aclrtFree(small))
    expect(PARAM_INVALID, lib.aclnnSilu(small, ws, exe, NULL), "workspace")
    expect(PARAM_NULLPTR, lib.aclnnSilu(NULL, ws, exe, NULL), "workspace")
    good = dev(ws)
    expect(0, lib.aclnnSilu(good, ws, exe, NULL))


# ----------------------------------------------------------- memcpy kinds

def test_memcpy_kind_must_match_where_pointers_live(dev, streams):
    s = streams()
    block, other = dev(64), dev(64)
    host = np.zeros(64, np.uint8)
    h = ffi.from_buffer(host, require_writable=True)
    K = lib
    cases = [
        (block, other, K.ACL_MEMCPY_HOST_TO_DEVICE, "src", "device block"),  # src is device memory
        (h, h, K.ACL_MEMCPY_HOST_TO_DEVICE, "dst", "not in device memory"),
        (h, h, K.ACL_MEMCPY_DEVICE_TO_HOST, "src", "not in device memory"),
        (block, block, K.ACL_MEMCPY_DEVICE_TO_HOST, "dst", "device block"),
        (h, block, K.ACL_MEMCPY_DEVICE_TO_DEVICE, "dst", "not in device memory"),
        (block, h, K.ACL_MEMCPY_DEVICE_TO_DEVICE, "src", "not in device memory"),
        (block, h, K.ACL_MEMCPY_HOST_TO_HOST, "dst", "device block"),
        (h, block, K.ACL_MEMCPY_HOST_TO_HOST, "src", "device block"),
        (h, h, K.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, "dst", "not in device memory"),
    ]
    for dst, src, kind, name, words in cases:
        expect(RT_PARAM_INVALID, lib.aclrtMemcpy(dst, 64, src, 64, kind), "aclrtMemcpy", name, words)
        expect(RT_PARAM_INVALID, lib.aclrtMemcpyAsync(dst, 64, src, 64, kind, s), "aclrtMemcpyAsync", name)
    # a device side must fit in its block
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(ffi.cast("char *", block) + 32, 64, other, 64,
                                             K.ACL_MEMCPY_DEVICE_TO_DEVICE), "dst", "past the end")
    expect(RT_PARAM_INVALID, lib.aclrtMemset(h, 64, 0, 64), "aclrtMemset", "devPtr", "not in device memory")
    expect(RT_PARAM_INVALID, lib.aclrtMemsetAsync(ffi.cast("char *", block) + 8, 64, 0, 64, s), "past the end")
    # the right kinds, and DEFAULT with anything
    expect(0, lib.aclrtMemcpy(block, 64, h, 64, K.ACL_MEMCPY_HOST_TO_DEVICE))
    expect(0, lib.aclrtMemcpy(other, 64, block, 64, K.ACL_MEMCPY_DEVICE_TO_DEVICE))
    expect(0, lib.aclrtMemcpy(h, 64, other, 64, K.ACL_MEMCPY_DEVICE_TO_HOST))
    expect(0, lib.aclrtMemcpy(h, 64, h, 64, K.ACL_MEMCPY_HOST_TO_HOST))
    for dst, src in ((block, h), (h, block), (block, other), (h, h)):
        expect(0, lib.aclrtMemcpy(dst, 64, src, 64, K.ACL_MEMCPY_DEFAULT))
    freed = dev(64)
    expect(0, lib.aclrtFree(freed))
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy(freed, 64, h, 64, K.ACL_MEMCPY_HOST_TO_DEVICE), "dst")


# ------------------------------------------------------------- threads

def test_threads_each_with_a_stream_run_concurrently():
    threads, launches = 4, 20
    failures = []
    barrier = threading.Barrier(threads)

    def worker(i):
        try:
            assert lib.aclrtSetDevice(0) == 0  # raw calls: each thread sets its device, as in CANN
            s = _new_stream()
            p = ffi.new("void **")
            blocks = []
            for _ in range(2):
                assert lib.aclrtMalloc(p, 4 * N, 0) == 0
                blocks.append(p[0])
            x, y = blocks
            data = (X * (1 + i / 8)).astype(np.float32)
            barrier.wait()
            for k in range(launches):
                out = np.full(N, np.nan, np.float32)
                assert copy_in(x, data, s) == 0
                tx, ty = vector(x, N), vector(y, N)
                ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
                assert lib.aclnnSiluGetWorkspaceSize(tx, ty, ws, exe) == 0
                assert lib.aclnnSilu(NULL, 0, exe[0], s) == 0
                lib.aclDestroyTensor(tx)
                lib.aclDestroyTensor(ty)
                assert copy_out(out, y, s) == 0
                # an error on this thread leaves its message here only
                assert lib.aclrtMalloc(NULL, 100 + i, 0) == INVALID_PARAM
                assert lib.aclrtSynchronizeStream(s) == 0
                assert_precision(out, silu_ref(data), np.float32)
                msg = take_msg()
                assert msg is not None and "devPtr" in msg
            for b in blocks:
                assert lib.aclrtFree(b) == 0
            assert lib.aclrtDestroyStream(s) == 0
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append((i, e))

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not failures, failures


# ------------------------------------------------ environment: fresh processes

def _run_python(code, **env):
    full = dict(os.environ)
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=60)


_LEAKY = """
from aclnn_emu import ffi, lib
lib.aclInit(ffi.NULL)  # the package holds a reference: this one fails, harmlessly
p = ffi.new("void **")
assert lib.aclrtMalloc(p, 256, 0) == 0
dims = ffi.new("int64_t[]", [4])
x = lib.aclCreateTensor(dims, 1, 0, ffi.NULL, 0, 2, dims, 1, p[0])
y = lib.aclCreateTensor(dims, 1, 0, ffi.NULL, 0, 2, dims, 1, p[0])
ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
assert lib.aclnnSiluGetWorkspaceSize(x, y, ws, exe) == 0
lib.aclDestroyTensor(y)
s = ffi.new("aclrtStream *")
assert lib.aclrtCreateStream(s) == 0
while lib.aclFinalize() == 0:
    pass
print("finalized")
"""


def test_leak_report_at_finalize():
    result = _run_python(_LEAKY, ACLNN_EMU_REPORT_LEAKS="1")
    assert result.returncode == 0, result.stderr
    err = result.stderr
    assert "1 device block(s), 1 tensor(s), 1 executor(s), 1 stream(s), 0 event(s) still alive" in err, err
    assert "256 bytes" in err and "ACL_FLOAT[4]" in err, err
    assert "aclnnSilu" in err and "phase 1 without phase 2" in err, err
    quiet = _run_python(_LEAKY)
    assert quiet.returncode == 0 and "still alive" not in quiet.stderr


def test_leak_report_leaves_out_the_numpy_layers_results():
    """Large results live in device blocks, but the program holds arrays, not pointers."""
    code = """
import numpy as np, aclnn_emu
kept = aclnn_emu.silu(np.ones((1024, 1024), np.float32))  # 4 MiB, alive at exit
assert not kept.flags.owndata
"""
    result = _run_python(code, ACLNN_EMU_REPORT_LEAKS="1")
    assert result.returncode == 0, result.stderr
    assert "0 device block(s), 0 tensor(s), 0 executor(s)" in result.stderr, result.stderr


def test_finalize_reference_to_zero_finalizes_too():
    """The last reference dropped by aclFinalizeReference finalises as aclFinalize does: leak report included."""
    code = _LEAKY.replace("while lib.aclFinalize() == 0:\n    pass",
                          "left = ffi.new(\"uint64_t *\", 99)\n"
                          "while lib.aclFinalizeReference(left) == 0 and left[0] > 0:\n    pass\n"
                          "assert left[0] == 0")
    assert code != _LEAKY
    result = _run_python(code, ACLNN_EMU_REPORT_LEAKS="1")
    assert result.returncode == 0, result.stderr
    assert "finalized" in result.stdout
    assert "1 device block(s), 1 tensor(s), 1 executor(s), 1 stream(s), 0 event(s) still alive" in result.stderr


def test_verbose_launch_log():
    code = """
import numpy as np, aclnn_emu
aclnn_emu.silu(np.ones((2, 3), np.float16))
"""
    result = _run_python(code, ACLNN_EMU_VERBOSE="1")
    assert result.returncode == 0, result.stderr
    line = [ln for ln in result.stderr.splitlines()
            if ln.startswith("[aclnn_emu] aclnnSilu") and "ACL_FLOAT16" in ln]
    assert line, result.stderr
    assert "default stream" in line[0] and "ACL_FLOAT16[2, 3]" in line[0] and "silu" in line[0].split("kernel")[1]
    assert " ms" in line[0]


def test_sync_mode_runs_stream_work_on_the_calling_thread():
    code = """
import threading, numpy as np
from aclnn_emu import ffi, lib
s, e = ffi.new("aclrtStream *"), ffi.new("aclrtEvent *")
assert lib.aclrtCreateStream(s) == 0 and lib.aclrtCreateEvent(e) == 0
p = ffi.new("void **")
assert lib.aclrtMalloc(p, 64, 0) == 0
recorded = []
def record():
    recorded.append(True)
    assert lib.aclrtRecordEvent(e[0], ffi.NULL) == 0
threading.Timer(0.05, record).start()
assert lib.aclrtStreamWaitEvent(s[0], e[0]) == 0  # blocks this thread in sync mode
assert recorded  # only the record could have released it
assert lib.aclrtMemsetAsync(p[0], 64, 9, 64, s[0]) == 0
assert bytes(ffi.buffer(ffi.cast("char *", p[0]), 64)) == b"\\x09" * 64  # done on return
print("ok")
"""
    result = _run_python(code, ACLNN_EMU_SYNC="1")
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr


# ------------------------------------------------------------------ fuzzing
#
# Phase 1 of every operator, driven from one table: each entry lists the
# operator's arguments in order (tensors with their role and usual dtypes,
# and attributes with a hypothesis strategy), the codes it may return, and
# optionally a strategy for mutually consistent shapes (so that phase 1
# succeeds often enough to run phase 2 too). Every tensor gets its own
# guarded buffer; after a successful phase 1, phase 2 runs on the default
# stream, and every byte outside the outputs' elements must be unchanged.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

DOCUMENTED_CODES = {0, PARAM_NULLPTR, PARAM_INVALID, 561002}
ITEM_SIZE = {0: 4, 1: 2, 27: 2, 2: 1, 3: 4, 4: 1, 9: 8, 11: 8, 12: 1, 29: 1, 100: 1, -1: 1}
FLOATS = (0, 1, 27)
GUARD = 64


class T:
    """A tensor argument: name, "in" or "out", the dtypes the operator accepts."""

    def __init__(self, name, role, dtypes=FLOATS):
        self.name, self.role, self.dtypes = name, role, dtypes


class A:
    """A scalar attribute argument drawn from a hypothesis strategy."""

    def __init__(self, name, strategy):
        self.name, self.strategy = name, strategy


class FuzzOp:
    def __init__(self, name, args, codes=DOCUMENTED_CODES, shapes=None):
        self.name, self.args, self.codes, self.shapes = name, args, codes, shapes
        self.get_ws = getattr(lib, name + "GetWorkspaceSize")
        self.run = getattr(lib, name)


INT32, INT64 = 3, 9


@st.composite
def _moe_grad_shapes(draw):
    """permutedOutputGrad [rows, H], sortedIndices [T * topk], out [T, H]."""
    rows, hidden, tokens = (draw(st.integers(0, 6)) for _ in range(3))
    topk = draw(st.integers(1, 4))
    return [[rows, hidden], [tokens * topk], [tokens, hidden]], {"numTopk": topk, "paddedMode": False}


@st.composite
def _moe_shapes(draw):
    """tokens [T, H], indices [T, topk], permuteTokensOut [kept, H], sortedIndicesOut [T * topk]."""
    tokens, hidden, topk = (draw(st.integers(0, 5)) for _ in range(3))
    num_out = draw(st.integers(-tokens * topk, tokens * topk))
    kept = num_out if num_out > 0 else tokens * topk + num_out if num_out < 0 else tokens * topk
    return ([[tokens, hidden], [tokens, topk], [kept, hidden], [tokens * topk]],
            {"numOutTokens": num_out, "paddedMode": False})


@st.composite
def _rope_shapes(draw, grad):
    """dy (or x) [B,S,N,D] with cos/sin in one of the BSND forms; grad: + x, dx, dcos, dsin."""
    b, s_, n = (draw(st.integers(0, 3)) for _ in range(3))
    d = draw(st.sampled_from([2, 4, 8, 6, 3]))
    main = [b, s_, n, d]
    cos = draw(st.sampled_from([[1, s_, 1, d], [b, s_, 1, d], main]))
    mode = draw(st.sampled_from([0, 1]))
    if grad:
        return [main, cos, cos, main, main, cos, cos], {"mode": mode}
    return [main, cos, cos, main], {"mode": mode}


@st.composite
def _floyd_shapes(draw, grad):
    """Q-like [B,H,N,M,D], K1/V1 [B,H,N,K,D], K2/V2 [B,H,K,M,D], mask [B,1,N,1,K], softmax [B,H,N,M,8]."""
    b, h = draw(st.sampled_from([1, 1, 2])), draw(st.sampled_from([1, 2]))
    n = draw(st.sampled_from([16, 16, 16, 8, 0]))
    m, k = (draw(st.sampled_from([128, 128, 128, 64])) for _ in range(2))
    d = draw(st.sampled_from([32, 32, 64, 48]))
    q, kv1, kv2 = [b, h, n, m, d], [b, h, n, k, d], [b, h, k, m, d]
    mask, soft = [b, 1, n, 1, k], [b, h, n, m, 8]
    scale = {"scaleValue": draw(st.sampled_from([0.125, 1.0, -0.5]))}
    if grad:
        return [q, kv1, kv1, kv2, kv2, q, mask, soft, soft, q, q, kv1, kv1, kv2, kv2], scale
    return [q, kv1, kv1, kv2, kv2, mask, soft, soft, q], scale


MASKS = (12, 4)  # ACL_BOOL, ACL_UINT8
_FLOYD_INPUTS = [T("query", "in"), T("key1", "in"), T("value1", "in"), T("key2", "in"), T("value2", "in")]
_SCALE = A("scaleValue", st.floats(-4, 4, allow_nan=False))

FUZZ_OPERATORS = [
    FuzzOp("aclnnSilu", [T("self", "in"), T("out", "out")]),
    FuzzOp("aclnnSiluBackward", [T("gradOutput", "in"), T("self", "in"), T("gradInput", "out")]),
    FuzzOp("aclnnMoeTokenPermuteGrad",
           [T("permutedOutputGrad", "in"), T("sortedIndices", "in", (INT32,)), A("numTopk", st.integers(-1, 7)),
            A("paddedMode", st.booleans()), T("out", "out")], shapes=_moe_grad_shapes()),
    FuzzOp("aclnnMoeTokenPermute",
           [T("tokens", "in"), T("indices", "in", (INT32, INT64)), A("numOutTokens", st.integers(-8, 8)),
            A("paddedMode", st.booleans()), T("permuteTokensOut", "out"), T("sortedIndicesOut", "out", (INT32,))],
           shapes=_moe_shapes()),
    FuzzOp("aclnnRotaryPositionEmbeddingGrad",
           [T("dy", "in"), T("cos", "in"), T("sin", "in"), T("xOptional", "in"), A("mode", st.integers(-1, 4)),
            T("dxOut", "out"), T("dcosOut", "out"), T("dsinOut", "out")], shapes=_rope_shapes(True)),
    FuzzOp("aclnnRotaryPositionEmbedding",
           [T("x", "in"), T("cos", "in"), T("sin", "in"), A("mode", st.integers(-1, 4)), T("out", "out")],
           shapes=_rope_shapes(False)),
    FuzzOp("aclnnFusedFloydAttentionGrad",
           [*_FLOYD_INPUTS, T("dy", "in"), T("attenMaskOptional", "in", MASKS), T("softmaxMax", "in", (0,)),
            T("softmaxSum", "in", (0,)), T("attentionIn", "in"), _SCALE, T("dqOut", "out"), T("dk1Out", "out"),
            T("dv1Out", "out"), T("dk2Out", "out"), T("dv2Out", "out")], shapes=_floyd_shapes(True)),
    FuzzOp("aclnnFusedFloydAttention",
           [*_FLOYD_INPUTS, T("attenMaskOptional", "in", MASKS), _SCALE, T("softmaxMaxOut", "out", (0,)),
            T("softmaxSumOut", "out", (0,)), T("attentionOutOut", "out")], shapes=_floyd_shapes(False)),
]

_shape = st.lists(st.integers(0, 5), min_size=0, max_size=4)


def _rarely(draw, n):
    """True about once in n + 1 draws (hypothesis favours boundary integers, so
    "integers(0, n) == 0" would fire far more often than that)."""
    return draw(st.sampled_from([False] * n + [True]))


@st.composite
def _tensor_case(draw, spec, shape, dtype, clean=False):
    """One tensor's description; clean: valid for the operator (the shape and
    dtype it was given, contiguous, in device memory) so that faults come
    only from the other tensors."""
    if clean:
        return dict(shape=list(shape), dtype=dtype if dtype in spec.dtypes else spec.dtypes[0], strides=None,
                    offset=draw(st.integers(0, 6)), memory="exact", short=1)
    if _rarely(draw, 19):
        return None  # NULL tensor
    if _rarely(draw, 3):
        shape = draw(_shape)  # independent shape
    elif _rarely(draw, 9):
        shape = [1] * draw(st.integers(9, 10))  # above every max rank
    choice = draw(st.integers(0, 7))
    if choice == 0:
        dtype = draw(st.sampled_from(list(ITEM_SIZE)))  # anything, valid or not
    elif choice == 1 or dtype not in spec.dtypes:
        dtype = draw(st.sampled_from(spec.dtypes))
    if draw(st.booleans()):
        strides = None  # contiguous
    else:
        strides = [draw(st.integers(-1, 4) if _rarely(draw, 9) else st.integers(0, 4)) for _ in shape]
    offset = draw(st.integers(0, 6))
    memory = draw(st.sampled_from(["exact"] * 7 + ["short", "host", "null"]))
    return dict(shape=list(shape), dtype=dtype, strides=strides, offset=offset, memory=memory,
                short=draw(st.integers(1, 64)))


@st.composite
def fuzz_cases(draw, op):
    shapes = draw(op.shapes) if op.shapes is not None else None
    hints = {}
    if isinstance(shapes, tuple):  # (shapes, attribute values consistent with them)
        shapes, hints = shapes
    shared = draw(_shape)  # one shape and dtype for all tensors, unless a tensor draws its own
    dtype = draw(st.sampled_from(FLOATS))
    cases, attrs, k = [], [], 0
    tensor_count = sum(isinstance(arg, T) for arg in op.args)
    # Half of the cases put every fault-prone draw on one tensor (the others
    # clean), so operators with many tensors also reach phase 2 and single
    # faults meet the validation order; the other half may fault anywhere.
    only = draw(st.integers(0, tensor_count - 1)) if draw(st.booleans()) else None
    for arg in op.args:
        if isinstance(arg, A):
            consistent = arg.name in hints and not _rarely(draw, 3)
            attrs.append(hints[arg.name] if consistent else draw(arg.strategy))
            continue
        clean = only is not None and k != only
        cases.append(draw(_tensor_case(arg, shapes[k] if shapes is not None else shared, dtype, clean)))
        k += 1
    return cases, attrs, _rarely(draw, 9)  # the last: a NULL out-pointer


def _elements(shape, strides, offset):
    """Element offsets of a view (in elements) as a flat array."""
    idx = np.zeros([1], np.int64) + offset
    for dim, stride in zip(shape, strides):
        idx = (idx[:, None] + np.arange(dim, dtype=np.int64)[None, :] * stride).ravel()
    return idx


class Buffer:
    """A tensor's storage: device block (or host memory) with GUARD bytes each side, filled with a pattern."""

    def __init__(self, case, rng):
        shape = case["shape"]
        item = ITEM_SIZE[case["dtype"]]
        strides = case["strides"]
        if strides is None:
            strides = list(np.cumprod([1] + shape[::-1][:-1])[::-1]) if shape else []
        self.strides = [int(s) for s in strides]
        numel = int(np.prod(shape)) if shape else 1
        if numel and min(self.strides, default=0) >= 0:
            extent = (case["offset"] + sum((d - 1) * s for d, s in zip(shape, self.strides)) + 1) * item
        else:
            extent = case["offset"] * item + item
        self.view_bytes = extent
        if case["memory"] == "short":
            size = GUARD + max(extent - case["short"], 1)
            self.tail = 0
        else:
            size = GUARD + extent + GUARD
            self.tail = GUARD
        self.size = size
        self.pattern = rng.integers(0, 256, size, dtype=np.uint8)
        self.host = None
        self.block = None
        if case["memory"] == "host":
            self.host = self.pattern.copy()
            self.ptr = ffi.cast("char *", ffi.from_buffer(self.host)) + GUARD
        elif case["memory"] == "null":
            self.ptr = NULL
        else:
            p = ffi.new("void **")
            assert lib.aclrtMalloc(p, size, 0) == 0
            self.block = p[0]
            lib.aclrtMemcpy(self.block, size, ffi.from_buffer(self.pattern), size, lib.ACL_MEMCPY_HOST_TO_DEVICE)
            self.ptr = ffi.cast("char *", self.block) + GUARD
        self.item = item
        self.case = case

    def contents(self):
        if self.host is not None:
            return self.host.copy()
        if self.block is None:
            return self.pattern.copy()
        out = np.empty(self.size, np.uint8)
        lib.aclrtMemcpy(ffi.from_buffer(out, require_writable=True), self.size, self.block, self.size,
                        lib.ACL_MEMCPY_DEVICE_TO_HOST)
        return out

    def writable_bytes(self):
        """Byte positions (in the buffer) of the view's elements."""
        c = self.case
        if not c["shape"] or int(np.prod(c["shape"])) > 0:
            elems = _elements(c["shape"], self.strides, c["offset"])
        else:
            elems = np.zeros(0, np.int64)
        starts = GUARD + elems * self.item
        return (starts[:, None] + np.arange(self.item)[None, :]).ravel()

    def free(self):
        if self.block is not None:
            lib.aclrtFree(self.block)


FUZZ_EXAMPLES = 300
fuzz_counts = {}


@pytest.mark.parametrize("op", FUZZ_OPERATORS, ids=lambda op: op.name)
def test_fuzz_phase1(op):
    rng = np.random.default_rng(1)

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(fuzz_cases(op))
    def check(example):
        cases, attrs, null_out = example
        buffers, tensors = [], []
        try:
            specs = [a for a in op.args if isinstance(a, T)]
            for spec, case in zip(specs, cases):
                if case is None:
                    buffers.append(None)
                    tensors.append(NULL)
                    continue
                buf = Buffer(case, rng)
                buffers.append(buf)
                shape = case["shape"]
                dims = ffi.new("int64_t[]", shape) if shape else NULL
                strides = ffi.new("int64_t[]", buf.strides) if shape else NULL
                t = lib.aclCreateTensor(dims, len(shape), case["dtype"], strides, case["offset"], 2, dims,
                                        len(shape), buf.ptr)
                tensors.append(t)  # NULL when aclCreateTensor refuses the description
            args, it_t, it_a = [], iter(tensors), iter(attrs)
            for a in op.args:
                args.append(next(it_t) if isinstance(a, T) else next(it_a))
            ws_p = ffi.new("uint64_t *", 12345)
            exe_p = ffi.new("aclOpExecutor **")
            rc = op.get_ws(*args, NULL if null_out else ws_p, exe_p)
            fuzz_counts.setdefault(op.name, {}).setdefault(rc, 0)
            fuzz_counts[op.name][rc] += 1
            msg = take_msg()
            assert rc in op.codes, (rc, msg)
            if rc != 0:
                assert msg and op.name in msg, (rc, msg)
                assert ws_p[0] == 12345 and exe_p[0] == NULL  # outputs untouched on failure
                expected = [b.pattern if b is not None else None for b in buffers]
                for b, want in zip(buffers, expected):
                    if b is not None:
                        assert np.array_equal(b.contents(), want)
                return
            assert not null_out
            workspace = NULL
            if ws_p[0]:
                p = ffi.new("void **")
                assert lib.aclrtMalloc(p, ws_p[0], 0) == 0
                workspace = p[0]
            rc2 = op.run(workspace, ws_p[0], exe_p[0], NULL)
            if workspace != NULL:
                lib.aclrtFree(workspace)
            assert rc2 == 0, take_msg()
            for spec, b in zip(specs, buffers):
                if b is None:
                    continue
                now = b.contents()
                keep = np.ones(b.size, bool)
                if spec.role == "out":
                    keep[b.writable_bytes()] = False
                assert np.array_equal(now[keep], b.pattern[keep]), "%s: bytes outside its view changed" % spec.name
        finally:
            for t in tensors:
                if t != NULL:
                    lib.aclDestroyTensor(t)
            for b in buffers:
                if b is not None:
                    b.free()
            take_msg()

    check()
    counts = fuzz_counts[op.name]
    print("fuzz %s: %d cases, codes %s" % (op.name, sum(counts.values()), dict(sorted(counts.items()))))
    assert sum(counts.values()) >= FUZZ_EXAMPLES
    assert counts.get(0, 0) > 0 and len(counts) >= 3, counts  # successes and several error codes were reached


# ------------------------------------------------------------ Python layer

def test_python_event_and_stream_with_device_tensors():
    import aclnn_emu
    from aclnn_emu import DeviceTensor, Event, Stream

    x = np.linspace(-5, 5, 1000, dtype=np.float32)
    with Stream() as s, Event() as gate, Event() as start, Event() as end, DeviceTensor.from_numpy(x) as tx:
        gate.wait(s)  # hold the stream
        start.record(s)
        ty = aclnn_emu.silu(tx, stream=s)  # all device tensors: queued, not synchronized
        end.record(s)
        assert not s.query() and not end.query()
        with pytest.raises(aclnn_emu.AclnnError) as err:
            start.elapsed_ms(end)
        assert err.value.code == RT_EVENT_NOT_COMPLETE
        gate.record()  # the default stream records at once: the stream runs
        end.synchronize()
        assert end.query() and start.elapsed_ms(end) >= 0
        s.synchronize()
        assert_precision(ty.numpy(), silu_ref(x), np.float32)
        ty.close()
    # numpy results on a stream are complete on return (the numpy layer synchronizes)
    with Stream() as s:
        dx = aclnn_emu.silu_backward(np.ones_like(x), x, stream=s)
        assert_precision(dx, silu_backward_ref(np.ones_like(x), x), np.float32)


def test_python_strided_device_tensors_on_two_streams():
    """Staged (strided) launches use the thread's one workspace block: launches on
    different streams must not overlap in it."""
    import aclnn_emu
    from aclnn_emu import DeviceTensor, Stream

    rng = np.random.default_rng(5)
    with Stream() as s1, Stream() as s2:
        for k in range(6):
            x = rng.standard_normal((64, 300)).astype(np.float32)
            with DeviceTensor.from_numpy(x.T) as tx:  # a transposed view: staged in the workspace
                ty = aclnn_emu.silu(tx, stream=s1 if k % 2 else s2)
                (s1 if k % 2 else s2).synchronize()
                assert_precision(ty.numpy(), silu_ref(x.T), np.float32)
                ty.close()


def test_streams_work_in_a_forked_child():
    code = """
import os
from aclnn_emu import ffi, lib
s = ffi.new("aclrtStream *")
assert lib.aclrtCreateStream(s) == 0
p = ffi.new("void **")
assert lib.aclrtMalloc(p, 64, 0) == 0
assert lib.aclrtMemsetAsync(p[0], 64, 1, 64, s[0]) == 0  # the parent's worker exists now
assert lib.aclrtSynchronizeStream(s[0]) == 0
pid = os.fork()
if pid == 0:
    ok = lib.aclrtMemsetAsync(p[0], 64, 2, 64, s[0]) == 0 and lib.aclrtSynchronizeStream(s[0]) == 0
    ok = ok and bytes(ffi.buffer(ffi.cast("char *", p[0]), 64)) == b"\\x02" * 64
    ok = ok and lib.aclrtDestroyStream(s[0]) == 0
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0
assert bytes(ffi.buffer(ffi.cast("char *", p[0]), 64)) == b"\\x01" * 64  # the child's copy was its own
print("ok")
"""
    result = _run_python(code)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr
