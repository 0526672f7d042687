"""The Python layer: DeviceTensor, silu / silu_backward on numpy, errors, streams, settings, CLI."""

import os
import pickle
import re
import subprocess
import sys
import threading

import aclnn_emu
import numpy as np
import pytest
from aclnn_emu import AclnnError, DeviceTensor, ffi, lib
from helpers import run_in_thread
from reference import assert_precision, np_dtype, silu_backward_ref, silu_ref, to_dtype

FLOATS = ["float32", "float16", "bfloat16"]
SIZES = [1, 15, 16, 17, 63, 64, 65, 1000, 4097]
ISA_RANK = {"scalar": 0, "avx2": 1, "avx512": 2, "avx512_bf16": 3}
X0 = -1.2784645427610737  # the zero of d silu / dx: relative error is ill-conditioned next to it


def make_x(rng, shape, name, lo=-8.0, hi=8.0, avoid_root=False):
    x = rng.uniform(lo, hi, size=shape)
    if avoid_root:
        near = np.abs(x - X0) < 0.02
        x[near] += 0.05
    return to_dtype(x, name)


def make_dy(rng, shape, name):
    return to_dtype(rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 2.0, size=shape), name)


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.dtype("u%d" % a.itemsize))


def kernel_isa_ok(cap):
    """The kernel the last launch ran is at most ``cap`` (when its name says its level)."""
    name = aclnn_emu.last_kernel()
    m = re.search(r"__(scalar|avx2|avx512_bf16|avx512)", name)
    return m is None or ISA_RANK[m.group(1)] <= ISA_RANK[cap]


# ----------------------------------------------------------------- basics


def test_package_basics():
    assert aclnn_emu.__version__ == "0.1.0"
    assert aclnn_emu.library_version() == aclnn_emu.__version__
    assert isinstance(aclnn_emu.lib.ACLNN_ERR_PARAM_INVALID, int)
    assert aclnn_emu.ffi.sizeof("aclDataType") == 4
    dev = ffi.new("int32_t *", -1)
    assert lib.aclrtGetDevice(dev) == 0 and dev[0] == 0
    assert "scalar" == aclnn_emu.available_isas()[0]
    assert aclnn_emu.available_isas()[-1] == aclnn_emu.detected_isa()
    assert aclnn_emu.get_isa() in aclnn_emu.available_isas()
    assert aclnn_emu.get_num_threads() >= 1


def test_wheel_metadata_has_license_readme_and_urls():
    from importlib.metadata import metadata

    meta = metadata("aclnn_emu")
    assert "Apache License" in (meta.get("License") or "") or meta.get("License-Expression") == "Apache-2.0" \
        or "LICENSE" in (meta.get_all("License-File") or []), dict(meta)
    assert "License :: OSI Approved :: Apache Software License" in meta.get_all("Classifier")
    assert meta.get("Description-Content-Type") == "text/markdown"
    assert "aclnn two-phase operator API" in meta.get_payload() or "aclnn two-phase" in (meta.get("Description") or "")
    assert any("github.com/hicann" in url for url in meta.get_all("Project-URL"))


def test_help_lists_every_numpy_function():
    import pydoc

    text = pydoc.render_doc(aclnn_emu, renderer=pydoc.plaintext)
    for name in ("silu", "silu_backward", "rotary_mul", "rotary_mul_backward", "moe_token_permute",
                 "moe_token_permute_grad", "fused_floyd_attention", "fused_floyd_attention_grad", "run",
                 "operators", "set_verbose"):
        assert "\n    %s(" % name in text, name


def test_every_public_callable_is_documented():
    for name in aclnn_emu.__all__:
        obj = getattr(aclnn_emu, name)
        if callable(obj) and not isinstance(obj, type(lib.aclInit)) and name not in ("ffi", "lib"):
            assert obj.__doc__, name
    for name in ("from_numpy", "empty", "numpy", "close"):
        assert getattr(DeviceTensor, name).__doc__, name


# ---------------------------------------------------------- DeviceTensor

ROUND_TRIP_DTYPES = FLOATS + ["int32"]


def _views(dtype):
    rng = np.random.default_rng(7)
    base = (rng.standard_normal((6, 10)) * 100).astype(np.float64)
    base = base.astype(np_dtype(dtype)) if dtype != "int32" else base.astype(np.int32)
    return {
        "contiguous": base,
        "transposed": base.T,
        "sliced_step": base[1:6:2, ::3],
        "offset": base.reshape(-1)[7:40],
        "offset_2d": base[2:, 3:],
        "zero_size": base[:, 4:4],
        "zero_d": base[2, 5].reshape(()).copy(),
        "scalar_view": base[3, 4, ...],
    }


def _c_view(handle):
    dims, n = ffi.new("int64_t **"), ffi.new("uint64_t *")
    assert lib.aclGetViewShape(handle, dims, n) == 0
    shape = tuple(dims[0][i] for i in range(n[0]))
    lib.aclnnEmuFreeArray(dims[0])
    assert lib.aclGetViewStrides(handle, dims, n) == 0
    strides = tuple(dims[0][i] for i in range(n[0]))
    lib.aclnnEmuFreeArray(dims[0])
    off = ffi.new("int64_t *")
    assert lib.aclGetViewOffset(handle, off) == 0
    dt = ffi.new("aclDataType *")
    assert lib.aclGetDataType(handle, dt) == 0
    return shape, strides, off[0], dt[0]


@pytest.mark.parametrize("dtype", ROUND_TRIP_DTYPES)
@pytest.mark.parametrize(
    "view", ["contiguous", "transposed", "sliced_step", "offset", "offset_2d", "zero_size", "zero_d", "scalar_view"]
)
def test_device_tensor_round_trip(dtype, view):
    a = _views(dtype)[view]
    with DeviceTensor.from_numpy(a) as t:
        assert t.shape == a.shape and t.dtype == a.dtype
        back = t.numpy()
        assert back.shape == a.shape and back.dtype == a.dtype
        np.testing.assert_array_equal(bits(back), bits(a))
        shape, strides, offset, code = _c_view(t.handle)
        assert shape == a.shape
        assert code == aclnn_emu.acl_dtype(a.dtype)
        if a.size:
            assert strides == tuple(s // a.itemsize for s in a.strides)
            assert (strides, offset) == (t.strides, t.offset)
        if view in ("offset", "offset_2d"):
            assert t.offset > 0  # the device block mirrors the base array
        if view == "zero_size":
            assert t.nbytes == 0 and t.data_ptr == ffi.NULL
        assert np.array_equal(np.asarray(t), a)
    assert t.closed


def test_device_tensor_copies_only_the_view_of_a_large_base():
    big = np.arange(1 << 16, dtype=np.float32)
    v = big[1000:1030:3]
    with DeviceTensor.from_numpy(v) as t:
        assert t.offset == 0 and t.storage_size == 28 and t.strides == (3,)
        np.testing.assert_array_equal(t.numpy(), v)


def test_device_tensor_from_an_operator_result_in_a_device_block():
    # Results of 2 MiB and more live in device blocks; copying one (or a view
    # of one) into a DeviceTensor must not claim it is host memory.
    x = np.linspace(-1, 1, 1 << 20).astype(np.float32)
    y = aclnn_emu.silu(x)
    assert y.nbytes >= 2 << 20
    for arr in (y, y[5:100001:7], y.reshape(1024, 1024).T):
        with DeviceTensor.from_numpy(arr) as t:
            np.testing.assert_array_equal(t.numpy(), arr)


def test_device_tensor_negative_strides_are_made_contiguous():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[::-1, ::-2]
    with DeviceTensor.from_numpy(a) as t:
        assert all(s >= 0 for s in t.strides)
        np.testing.assert_array_equal(t.numpy(), a)


def test_device_tensor_non_native_and_unaligned():
    a = np.arange(10, dtype=">f4")
    with DeviceTensor.from_numpy(a) as t:
        np.testing.assert_array_equal(t.numpy(), a)
        assert t.dtype == np.float32
    raw = np.zeros(4 * 10 + 1, np.uint8)
    u = raw[1:].view(np.float32)
    u[:] = np.arange(10)
    assert not u.flags.aligned
    with DeviceTensor.from_numpy(u) as t:
        np.testing.assert_array_equal(t.numpy(), u)


def test_device_tensor_empty_and_lifetime():
    t = DeviceTensor.empty((3, 4), np.float16)
    assert t.shape == (3, 4) and t.strides == (4, 1) and t.nbytes == 24
    assert t.numpy().shape == (3, 4)
    t.close()
    t.close()  # second close is a no-op
    with pytest.raises(ValueError):
        _ = t.handle
    with pytest.raises(TypeError):
        DeviceTensor()
    with pytest.raises(TypeError):
        DeviceTensor.empty((2,), np.complex256 if hasattr(np, "complex256") else object)
    z = DeviceTensor.empty((), np.float32)
    assert z.numpy().shape == ()
    del z  # __del__ frees it


def test_dtype_mapping():
    import ml_dtypes

    assert aclnn_emu.acl_dtype(np.float32) == lib.ACL_FLOAT
    assert aclnn_emu.acl_dtype(np.float16) == lib.ACL_FLOAT16
    assert aclnn_emu.acl_dtype(ml_dtypes.bfloat16) == lib.ACL_BF16
    assert aclnn_emu.acl_dtype(np.int64) == lib.ACL_INT64
    assert aclnn_emu.acl_dtype(np.bool_) == lib.ACL_BOOL
    assert aclnn_emu.acl_dtype(np.float64) == lib.ACL_DOUBLE
    assert aclnn_emu.numpy_dtype(lib.ACL_BF16) == np.dtype(ml_dtypes.bfloat16)
    with pytest.raises(TypeError):
        aclnn_emu.acl_dtype("U3")


# ------------------------------------------------------------- operators


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_silu_sizes(isa, dtype, n):
    rng = np.random.default_rng(n)
    x = make_x(rng, (n,), dtype)
    y = aclnn_emu.silu(x)
    assert y.dtype == x.dtype and y.shape == x.shape
    assert_precision(y, silu_ref(x), dtype)
    assert kernel_isa_ok(isa)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_silu_backward_sizes(isa, dtype, n):
    rng = np.random.default_rng(1000 + n)
    x = make_x(rng, (n,), dtype, avoid_root=True)
    dy = make_dy(rng, (n,), dtype)
    dx = aclnn_emu.silu_backward(dy, x)
    assert dx.dtype == x.dtype and dx.shape == x.shape
    assert_precision(dx, silu_backward_ref(dy, x), dtype)
    assert kernel_isa_ok(isa)


@pytest.mark.parametrize("dtype", FLOATS)
def test_transposed_3d_views(isa, dtype):
    rng = np.random.default_rng(3)
    x = make_x(rng, (5, 7, 9), dtype, avoid_root=True).transpose(2, 0, 1)  # (9, 5, 7)
    assert not x.flags.c_contiguous
    assert_precision(aclnn_emu.silu(x), silu_ref(x), dtype)
    dy = make_dy(rng, (5, 9, 7), dtype).transpose(1, 0, 2)  # (9, 5, 7), another layout
    dx = aclnn_emu.silu_backward(dy, x)
    assert dx.shape == x.shape
    assert_precision(dx, silu_backward_ref(dy, x), dtype)
    dyn = make_dy(rng, (9, 5, 7), dtype)[:, ::-1]  # negative stride: copied first
    assert_precision(aclnn_emu.silu_backward(dyn, x), silu_backward_ref(dyn, x), dtype)
    assert kernel_isa_ok(isa)


@pytest.mark.parametrize("dtype", FLOATS)
def test_special_values(isa, dtype):
    x = to_dtype(np.array([np.nan, np.inf, 0.0, -0.0, 1.0, -1.0, 30.0, -30.0] * 3), dtype)
    y = aclnn_emu.silu(x)
    assert np.isnan(y[0].astype(np.float32)) and float(y[1]) == np.inf
    assert_precision(y, silu_ref(x), dtype)
    xb = to_dtype(np.array([np.nan, np.inf, -np.inf, 0.0, 2.0, -2.0] * 3), dtype)
    dy = to_dtype(np.ones(xb.shape), dtype)
    dx = aclnn_emu.silu_backward(dy, xb).astype(np.float64)
    assert np.isnan(dx[:3]).all(), "NaN and +-inf inputs must give NaN (aclnn_silu_backward.h)"
    assert_precision(dx, silu_backward_ref(dy, xb), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_out_non_contiguous(dtype):
    rng = np.random.default_rng(11)
    x = make_x(rng, (6, 10), dtype, avoid_root=True)
    dy = make_dy(rng, (6, 10), dtype)
    sentinel = to_dtype(np.full((12, 10), 123.0), dtype)
    out = sentinel[::2]  # every other row
    r = aclnn_emu.silu_backward(dy, x, out=out)
    assert r is out
    assert_precision(out, silu_backward_ref(dy, x), dtype)
    assert (sentinel[1::2].astype(np.float32) == 123.0).all()
    outt = to_dtype(np.zeros((10, 6)), dtype).T  # transposed out
    aclnn_emu.silu(x, out=outt)
    assert_precision(outt, silu_ref(x), dtype)
    raw = np.zeros(np_dtype(dtype).itemsize * 60 + 1, np.uint8)
    unaligned = raw[1:].view(np_dtype(dtype)).reshape(6, 10)
    if not unaligned.flags.aligned:
        aclnn_emu.silu(x, out=unaligned)
        assert_precision(unaligned, silu_ref(x), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_out_contiguous_is_reused(dtype):
    rng = np.random.default_rng(12)
    out = to_dtype(np.zeros((4, 9)), dtype)
    for _ in range(3):
        x = make_x(rng, (4, 9), dtype, avoid_root=True)
        dy = make_dy(rng, (4, 9), dtype)
        assert aclnn_emu.silu_backward(dy, x, out=out) is out
        assert_precision(out, silu_backward_ref(dy, x), dtype)
        assert aclnn_emu.silu(x, out=out) is out
        assert_precision(out, silu_ref(x), dtype)
    x = make_x(rng, (4, 9), dtype)
    expected = silu_ref(x)
    assert aclnn_emu.silu(x, out=x) is x  # in place
    assert_precision(x, expected, dtype)


def test_large_results_reuse_freed_device_blocks():
    """Results of 2 MiB or more live in aclrtMalloc blocks: once dropped, the
    device cache gives their faulted-in pages to the next call's results."""
    import gc

    saved = lib.aclnnEmuGetDeviceCacheLimit()
    try:
        gc.collect()  # results of earlier tests held by reference cycles go now, not mid-test
        lib.aclnnEmuSetDeviceCacheLimit(0)
        lib.aclnnEmuSetDeviceCacheLimit(64 << 20)
        rng = np.random.default_rng(5)
        x = make_x(rng, (1024, 1024), "float32", avoid_root=True)  # 4 MiB
        dy = make_dy(rng, (1024, 1024), "float32")
        first = aclnn_emu.silu_backward(dy, x)
        assert not first.flags.owndata and first.flags.writeable and first.flags.c_contiguous
        address = first.__array_interface__["data"][0]
        expected = first.copy()
        assert_precision(first, silu_backward_ref(dy, x), "float32")
        view = first[3:5]
        del first
        gc.collect()
        assert lib.aclnnEmuGetDeviceCacheBytes() == 0  # the view keeps the block
        del view
        gc.collect()
        assert lib.aclnnEmuGetDeviceCacheBytes() == 4 << 20
        second = aclnn_emu.silu_backward(dy, x)
        assert second.__array_interface__["data"][0] == address
        assert lib.aclnnEmuGetDeviceCacheBytes() == 0
        assert np.array_equal(second, expected)
        assert pickle.loads(pickle.dumps(second)).tobytes() == expected.tobytes()
        # Small results are plain numpy arrays; with the cache off, large ones still work.
        assert aclnn_emu.silu(x[:8]).flags.owndata
        lib.aclnnEmuSetDeviceCacheLimit(0)
        del second
        gc.collect()
        assert lib.aclnnEmuGetDeviceCacheBytes() == 0
        assert np.array_equal(aclnn_emu.silu_backward(dy, x), expected)
    finally:
        lib.aclnnEmuSetDeviceCacheLimit(saved)


def test_out_errors():
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    ro = np.empty_like(x)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        aclnn_emu.silu(x, out=ro)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu(x, out=np.empty((3, 4), np.float16))
    assert e.value.code == 161002
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu(x, out=np.empty((4, 3), np.float32))
    assert e.value.code == 161002
    with pytest.raises(TypeError):
        aclnn_emu.silu(x, out=[0.0] * 12)


@pytest.mark.parametrize("dtype", FLOATS)
def test_thread_count_does_not_change_bits(dtype):
    rng = np.random.default_rng(5)
    n = (1 << 18) + 3
    x = make_x(rng, (n,), dtype)
    dy = make_dy(rng, (n,), dtype)
    previous = aclnn_emu.get_num_threads()
    try:
        results = []
        for t in (1, 2):
            aclnn_emu.set_num_threads(t)
            assert aclnn_emu.get_num_threads() == t
            results.append((aclnn_emu.silu(x), aclnn_emu.silu_backward(dy, x)))
    finally:
        aclnn_emu.set_num_threads(previous)
    np.testing.assert_array_equal(bits(results[0][0]), bits(results[1][0]))
    np.testing.assert_array_equal(bits(results[0][1]), bits(results[1][1]))


def test_threads_fixture(threads):
    assert aclnn_emu.get_num_threads() == threads
    x = np.linspace(-4, 4, 10001, dtype=np.float32)
    assert_precision(aclnn_emu.silu(x), silu_ref(x), "float32")


def test_inputs_in_many_forms():
    x = [[-1.0, 0.5], [2.0, -3.0]]
    y = aclnn_emu.silu(np.asarray(x, np.float32))
    np.testing.assert_allclose(aclnn_emu.silu(np.asarray(x, ">f4")), y)
    assert aclnn_emu.silu(np.zeros((0, 3), np.float32)).shape == (0, 3)
    assert aclnn_emu.silu_backward(np.zeros((2, 0), np.float16), np.zeros((2, 0), np.float16)).shape == (2, 0)
    z = aclnn_emu.silu(np.float32(2.0).reshape(()))
    assert z.shape == () and abs(float(z) - 2.0 / (1.0 + np.exp(-2.0))) < 1e-5
    ro = np.linspace(-2, 2, 9, dtype=np.float32)
    ro.flags.writeable = False
    np.testing.assert_allclose(aclnn_emu.silu(ro), silu_ref(ro), rtol=1e-5)


def test_device_tensor_operands():
    rng = np.random.default_rng(9)
    x = make_x(rng, (4, 33), "float32", avoid_root=True)
    dy = make_dy(rng, (4, 33), "float32")
    with DeviceTensor.from_numpy(x) as tx, DeviceTensor.from_numpy(dy) as tdy:
        y = aclnn_emu.silu(tx)
        assert isinstance(y, DeviceTensor)
        assert_precision(y.numpy(), silu_ref(x), "float32")
        y.close()
        with DeviceTensor.empty(x.shape, x.dtype) as out:
            assert aclnn_emu.silu_backward(tdy, tx, out=out) is out
            assert_precision(out.numpy(), silu_backward_ref(dy, x), "float32")
        mixed = aclnn_emu.silu_backward(dy, tx)  # numpy + DeviceTensor -> numpy
        assert isinstance(mixed, np.ndarray)
        assert_precision(mixed, silu_backward_ref(dy, x), "float32")
    xt = x.T
    with DeviceTensor.from_numpy(xt) as t:  # a strided device view
        assert_precision(aclnn_emu.silu(t).numpy(), silu_ref(xt), "float32")


def test_plan_cache_and_uncached_path_agree(monkeypatch):
    rng = np.random.default_rng(21)
    cases = []
    for shape in [(3,), (2, 3), (2, 3), (3, 2), (7, 1, 5)]:
        for dtype in FLOATS:
            cases.append((make_dy(rng, shape, dtype), make_x(rng, shape, dtype, avoid_root=True)))
    cached = [(aclnn_emu.silu(x), aclnn_emu.silu_backward(dy, x)) for dy, x in cases]
    cached_again = [(aclnn_emu.silu(x), aclnn_emu.silu_backward(dy, x)) for dy, x in cases]
    monkeypatch.setattr(aclnn_emu.ops, "PLAN_CACHE", False)
    fresh = [(aclnn_emu.silu(x), aclnn_emu.silu_backward(dy, x)) for dy, x in cases]
    for a, b, c in zip(cached, cached_again, fresh):
        for i in range(2):
            np.testing.assert_array_equal(bits(a[i]), bits(c[i]))
            np.testing.assert_array_equal(bits(b[i]), bits(c[i]))


def test_silu_backward_result_follows_the_ascend950_rules():
    """Ascend950 broadcasts gradOutput with self, and takes two dtypes with a float32 gradInput:
    the array silu_backward makes is shaped and typed for that, as it is when out= is given."""
    rng = np.random.default_rng(950)
    dy = make_dy(rng, (4, 3), "float32")
    x = make_x(rng, (1, 3), "float32", avoid_root=True)
    previous = aclnn_emu.soc_name()
    try:
        aclnn_emu.set_soc_name("Ascend950")
        dx = aclnn_emu.silu_backward(dy, x)
        assert dx.shape == (4, 3) and dx.dtype == np.float32
        assert_precision(dx, silu_backward_ref(dy, np.broadcast_to(x, (4, 3))), "float32")
        mixed = aclnn_emu.silu_backward(dy.astype(np.float16), x)
        assert mixed.shape == (4, 3) and mixed.dtype == np.float32
        assert_precision(mixed, silu_backward_ref(dy.astype(np.float16), np.broadcast_to(x, (4, 3))), "float32")
    finally:
        aclnn_emu.set_soc_name(previous)
    with pytest.raises(AclnnError) as e:  # the other products refuse both, naming the arguments
        aclnn_emu.silu_backward(dy, x)
    assert e.value.code == 161002 and "gradInput" in e.value.message


def test_host_memory_allowed_only_during_numpy_launches():
    x = np.linspace(-2, 2, 6, dtype=np.float32)
    for setting in (0, 1, 0):
        assert lib.aclnnEmuSetHostMemoryAllowed(setting) == 0
        aclnn_emu.silu(x)
        aclnn_emu.silu_backward(x, x, out=np.empty_like(x))
        aclnn_emu.silu(x.reshape(2, 3).T)
        assert lib.aclnnEmuGetHostMemoryAllowed() == setting
    # Raw calls on this thread still get the library's device-memory check.
    d = ffi.new("int64_t[]", [6])
    t = lib.aclCreateTensor(d, 1, lib.ACL_FLOAT, ffi.NULL, 0, lib.ACL_FORMAT_ND, d, 1, ffi.from_buffer(x))
    o = lib.aclCreateTensor(d, 1, lib.ACL_FLOAT, ffi.NULL, 0, lib.ACL_FORMAT_ND, d, 1, ffi.from_buffer(x))
    ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    try:
        rc = lib.aclnnSiluGetWorkspaceSize(t, o, ws, exe)
        msg = aclnn_emu.errors.last_error_message()
        assert rc == 161002, (rc, msg)
    finally:
        lib.aclDestroyTensor(t)
        lib.aclDestroyTensor(o)


@pytest.mark.parametrize("dtype", FLOATS)
def test_staged_path_without_zero_copy(monkeypatch, dtype):
    # The path taken when the library refuses numpy (host) memory as tensor data.
    monkeypatch.setattr(aclnn_emu.ops, "ZERO_COPY", False)
    rng = np.random.default_rng(17)
    x = make_x(rng, (3, 17), dtype, avoid_root=True)
    dy = make_dy(rng, (3, 17), dtype)
    assert_precision(aclnn_emu.silu_backward(dy, x), silu_backward_ref(dy, x), dtype)
    assert_precision(aclnn_emu.silu(x.T), silu_ref(x.T), dtype)
    out = to_dtype(np.zeros((17, 3)), dtype).T
    assert aclnn_emu.silu_backward(dy, x, out=out) is out
    assert_precision(out, silu_backward_ref(dy, x), dtype)
    with aclnn_emu.Stream() as s, DeviceTensor.from_numpy(x) as tx:
        assert_precision(aclnn_emu.silu(x, stream=s), silu_ref(x), dtype)
        assert_precision(aclnn_emu.silu_backward(dy, tx, stream=s), silu_backward_ref(dy, x), dtype)
        ty = aclnn_emu.silu(tx)
        assert isinstance(ty, DeviceTensor)
        assert_precision(ty.numpy(), silu_ref(x), dtype)
        ty.close()
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu_backward(dy.astype(np.float32), x.astype(np.float16))
    assert e.value.code == 161002


def test_settings_change_replans():
    import ml_dtypes

    x = np.linspace(-2, 2, 8).astype(ml_dtypes.bfloat16)
    aclnn_emu.silu_backward(x, x)  # plan cached for bf16 on the default product
    aclnn_emu.silu(x)
    previous = aclnn_emu.soc_name()
    try:
        aclnn_emu.set_soc_name("Ascend910")
        assert aclnn_emu.soc_name() == "Ascend910"
        with pytest.raises(AclnnError) as e:
            aclnn_emu.silu_backward(x, x)
        assert e.value.code == 161002
        with pytest.raises(AclnnError) as e:
            aclnn_emu.silu(x)
        assert e.value.code == 161002
    finally:
        aclnn_emu.set_soc_name(previous)
    aclnn_emu.silu_backward(x, x)


def test_concurrent_python_threads():
    rng = np.random.default_rng(4)
    data = [(make_dy(rng, (257,), "float32"), make_x(rng, (257,), "float32", avoid_root=True)) for _ in range(4)]
    errors = []

    def work(dy, x):
        try:
            for _ in range(200):
                assert_precision(aclnn_emu.silu_backward(dy, x), silu_backward_ref(dy, x), "float32")
                assert_precision(aclnn_emu.silu(x.T[::2]), silu_ref(x[::2]), "float32")
        except BaseException as exc:  # reported below
            errors.append(exc)

    ts = [threading.Thread(target=work, args=d) for d in data]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors[0]


# ----------------------------------------------------------------- errors


def test_dtype_mismatch_raises_161002_naming_the_argument():
    dy = np.ones((2, 3), np.float32)
    x = np.ones((2, 3), np.float16)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu_backward(dy, x)
    err = e.value
    assert err.code == 161002 == lib.ACLNN_ERR_PARAM_INVALID
    assert err.api == "aclnnSiluBackwardGetWorkspaceSize"
    assert err.message and ("gradOutput" in err.message or "self" in err.message), err.message
    assert "161002" in str(err) and "ACLNN_ERR_PARAM_INVALID" in str(err)
    assert err.name == "ACLNN_ERR_PARAM_INVALID"
    assert isinstance(err, RuntimeError)
    again = pickle.loads(pickle.dumps(err))
    assert (again.code, again.message, again.api) == (err.code, err.message, err.api)
    # The message was taken: nothing is left for the next reader.
    assert lib.aclGetRecentErrMsg() == ffi.NULL


def test_other_phase1_errors():
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu_backward(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))
    assert e.value.code == 161002
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu(np.ones(4, np.int32))
    assert e.value.code == 161002
    assert e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu(np.ones((1,) * 9, np.float32))
    assert e.value.code == 161002


def test_nullptr_errors_161001():
    ws = ffi.new("uint64_t *")
    exe = ffi.new("aclOpExecutor **")
    x = np.ones(4, np.float32)
    with DeviceTensor.from_numpy(x) as t, DeviceTensor.empty((4,), np.float32) as out:
        rc = lib.aclnnSiluBackwardGetWorkspaceSize(ffi.NULL, t.handle, out.handle, ws, exe)
        with pytest.raises(AclnnError) as e:
            aclnn_emu.check(rc, "aclnnSiluBackwardGetWorkspaceSize")
        assert e.value.code == 161001 == lib.ACLNN_ERR_PARAM_NULLPTR
        assert e.value.message
        rc = lib.aclnnSiluGetWorkspaceSize(t.handle, out.handle, ffi.NULL, exe)
        assert rc == 161001
        lib.aclGetRecentErrMsg()
    assert lib.aclnnSiluBackward(ffi.NULL, 0, ffi.NULL, ffi.NULL) == 161001
    assert lib.aclnnSilu(ffi.NULL, 0, ffi.NULL, ffi.NULL) == 161001
    lib.aclGetRecentErrMsg()
    aclnn_emu.check(0)  # no raise


def test_settings_errors():
    with pytest.raises(ValueError):
        aclnn_emu.set_isa_cap("sse9")
    with pytest.raises(AclnnError) as e:
        aclnn_emu.set_isa_cap(7)
    assert e.value.code == 100000
    with pytest.raises(AclnnError) as e:
        aclnn_emu.set_num_threads(-1)
    assert e.value.code == 100000
    with pytest.raises(AclnnError) as e:
        aclnn_emu.set_soc_name("Ascend999")
    assert e.value.code == 100000
    assert aclnn_emu.soc_name() in ("Ascend910B", "Ascend910_93", "Ascend910", "Ascend950")


def test_isa_fixture_caps(isa):
    assert aclnn_emu.get_isa() == isa
    x = np.linspace(-5, 5, 100, dtype=np.float32)
    aclnn_emu.silu(x)
    assert kernel_isa_ok(isa), aclnn_emu.last_kernel()


# ---------------------------------------------------------------- streams


def test_stream_context_manager():
    rng = np.random.default_rng(2)
    x = make_x(rng, (3, 50), "float16", avoid_root=True)
    dy = make_dy(rng, (3, 50), "float16")
    with aclnn_emu.Stream() as s:
        assert s.handle != ffi.NULL and not s.closed
        y = aclnn_emu.silu(x, stream=s)
        dx = aclnn_emu.silu_backward(dy, x, stream=s.handle)
        s.synchronize()
        assert s.query()
        with DeviceTensor.from_numpy(x) as tx:
            ty = aclnn_emu.silu(tx, stream=s)
            aclnn_emu.synchronize(s)
            assert_precision(ty.numpy(), silu_ref(x), "float16")
            ty.close()
    assert s.closed
    with pytest.raises(ValueError):
        _ = s.handle
    s.close()  # idempotent
    assert_precision(y, silu_ref(x), "float16")
    assert_precision(dx, silu_backward_ref(dy, x), "float16")
    aclnn_emu.synchronize()
    with pytest.raises(TypeError):
        aclnn_emu.silu(x, stream="default")


# -------------------------------------------------------------------- CLI


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "aclnn_emu", *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_cli_paths():
    cmake_dir = _cli("--cmake-dir")
    assert os.path.isdir(cmake_dir)
    assert os.path.isfile(os.path.join(cmake_dir, "aclnn_emuConfig.cmake"))
    inc = _cli("--include-dir")
    assert os.path.isfile(os.path.join(inc, "acl", "acl.h"))
    assert os.path.isfile(os.path.join(inc, "aclnnop", "aclnn_silu_backward.h"))
    libdir = _cli("--lib-dir")
    assert any(f.startswith("libaclnn_emu") for f in os.listdir(libdir))
    assert _cli("--prefix") == os.path.dirname(libdir)
    assert _cli("--version") == aclnn_emu.__version__
    # several flags: one path per line, in the order asked
    assert _cli("--cmake-dir", "--include-dir").splitlines() == [cmake_dir, inc]
    assert _cli("--include-dir", "--cmake-dir", "--lib-dir").splitlines() == [inc, cmake_dir, libdir]
    assert _cli("--libs", "--prefix").splitlines()[1] == os.path.dirname(libdir)


# ------------------------------------------------- threads, waits, inputs, verbose

def test_a_thread_without_a_device_gets_107002_from_raw_calls():
    # CANN's runtime: memory, copies and streams need the calling thread's context.
    def raw():
        p = ffi.new("void **")
        rc = lib.aclrtMalloc(p, 64, lib.ACL_MEM_MALLOC_HUGE_FIRST)
        return rc, aclnn_emu.errors.last_error_message()

    rc, msg = run_in_thread(raw)
    assert rc == lib.ACL_ERROR_RT_CONTEXT_NULL and "aclrtMalloc" in msg and "no current device" in msg, (rc, msg)


def test_package_objects_work_on_any_thread():
    # The package gives each thread it runs on its device, so Python code never sees 107002.
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    made_here = DeviceTensor.from_numpy(x)

    def work():
        with aclnn_emu.Stream() as s, DeviceTensor.from_numpy(x) as t:
            y = aclnn_emu.silu(t, stream=s)
            s.synchronize()
            return made_here.numpy(), y.numpy()

    back, y = run_in_thread(work)
    np.testing.assert_array_equal(back, x)
    np.testing.assert_allclose(y, x / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)
    made_here.close()


def test_waits_are_interruptible_with_ctrl_c():
    # A stream waiting for an event nobody records yet: synchronize() blocks,
    # and SIGINT turns into KeyboardInterrupt instead of being ignored.
    code = r"""
import os, signal, threading, time
import numpy as np
import aclnn_emu
s, ev = aclnn_emu.Stream(), aclnn_emu.Event()
ev.wait(s)
x = np.linspace(-1, 1, 8, dtype=np.float32)
results = []
for wait in (s.synchronize, lambda: aclnn_emu.synchronize(), lambda: aclnn_emu.synchronize(s),
             lambda: results.append(aclnn_emu.silu(x, stream=s)),
             lambda: results.append(aclnn_emu.silu_backward(x, x[::-1], stream=s))):
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    try:
        wait()
        print("returned")
    except KeyboardInterrupt:
        print("interrupted after %.1f s" % (time.monotonic() - start))
ev.record()           # the wait can end now
s.synchronize()
print("done", len(results), np.allclose(aclnn_emu.silu(x, stream=s), x / (1 + np.exp(-x)), rtol=1e-6))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.split("\n")
    assert [line.split(" after")[0] for line in lines[:5]] == ["interrupted"] * 5, out.stdout
    assert all(float(line.split()[2]) < 5 for line in lines[:5]), out.stdout
    assert lines[5] == "done 0 True", out.stdout


def test_an_event_synchronize_is_interruptible_too():
    code = r"""
import os, signal, threading
import aclnn_emu
s, gate, ev = aclnn_emu.Stream(), aclnn_emu.Event(), aclnn_emu.Event()
gate.wait(s)
ev.record(s)          # behind the wait: not reached until gate is recorded
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    ev.synchronize()
    print("returned")
except KeyboardInterrupt:
    print("interrupted")
gate.record()
ev.synchronize()
print("done")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == ["interrupted", "done"], out.stdout


def test_verbose_switch_and_a_quiet_import():
    code = r"""
import numpy as np, sys
import aclnn_emu
print("import done", flush=True)
assert aclnn_emu.get_verbose()            # ACLNN_EMU_VERBOSE=1 set it
aclnn_emu.set_verbose(False)
aclnn_emu.silu(np.ones(3, np.float32))
print("quiet call done", flush=True)
aclnn_emu.set_verbose(True)
assert aclnn_emu.get_verbose()
aclnn_emu.silu(np.ones(5, np.float32))
sys.stderr.flush()
"""
    env = dict(os.environ, ACLNN_EMU_VERBOSE="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    launches = [line for line in out.stderr.splitlines() if line.startswith("[aclnn_emu] aclnnSilu")]
    assert len(launches) == 1 and "ACL_FLOAT[5]" in launches[0], out.stderr  # not the import's probe, not [3]


def test_inputs_that_are_not_arrays_say_what_was_passed():
    with pytest.raises(TypeError, match=r"^silu: x: got None; expected a numpy array"):
        aclnn_emu.silu(None)
    with pytest.raises(TypeError, match=r"^silu_backward: grad_output: got None"):
        aclnn_emu.silu_backward(None, np.ones(2, np.float32))
    with pytest.raises(TypeError, match=r"silu: x: got .*Python objects"):
        aclnn_emu.silu(object())
    with pytest.raises(AclnnError) as info:
        aclnn_emu.silu([1.0, 2.0])
    assert info.value.code == lib.ACLNN_ERR_PARAM_INVALID
    assert "ACL_DOUBLE" in info.value.message and "silu: x was a Python list, which numpy made float64" \
        in info.value.message, info.value.message
    with pytest.raises(AclnnError, match="aclnnSilu: self was a Python tuple, which numpy made float64"):
        aclnn_emu.run("aclnnSilu", self=(1.0, 2.0), out=np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="aclnnAdd: missing argument other"):
        aclnn_emu.run("aclnnAdd", self=np.ones(2, np.float32), other=None, alpha=1.0, out=np.zeros(2, np.float32))
    # Lists of the right kind still work where the operator takes their dtype.
    np.testing.assert_array_equal(
        aclnn_emu.run("aclnnAdd", self=[1.0, 2.0], other=np.ones(2), alpha=1.0, out=np.zeros(2)), [2.0, 3.0])


# ---------------------------------------------- one rule for every numpy function

def _cases():
    """(name, call(args..., **kw), args): small valid inputs for each numpy function."""
    rng = np.random.default_rng(5)
    f32 = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float32)  # noqa: E731
    x4 = f32(1, 4, 2, 8)
    cos, sin = f32(1, 4, 1, 8), f32(1, 4, 1, 8)
    tokens, ids = f32(6, 4), rng.integers(0, 3, (6, 2)).astype(np.int32)
    q, k1, v1 = f32(1, 1, 16, 128, 32), f32(1, 1, 16, 128, 32), f32(1, 1, 16, 128, 32)
    k2, v2 = f32(1, 1, 128, 128, 32), f32(1, 1, 128, 128, 32)
    y, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, None, 0.1)
    _, sorted_idx = aclnn_emu.moe_token_permute(tokens, ids)
    return [
        ("silu", aclnn_emu.silu, (x4,), {}),
        ("silu_backward", aclnn_emu.silu_backward, (x4, x4), {}),
        ("rotary_position_embedding", aclnn_emu.rotary_position_embedding, (x4, cos, sin), {}),
        ("rotary_position_embedding_grad", aclnn_emu.rotary_position_embedding_grad, (x4, cos, sin, x4), {}),
        ("rotary_mul", aclnn_emu.rotary_mul, (x4, cos, sin), {}),
        ("rotary_mul_backward", aclnn_emu.rotary_mul_backward, (x4, cos, sin, x4), {}),
        ("moe_token_permute", aclnn_emu.moe_token_permute, (tokens, ids), {}),
        ("moe_token_permute_grad", aclnn_emu.moe_token_permute_grad, (f32(12, 4), sorted_idx, 2), {}),
        ("fused_floyd_attention", aclnn_emu.fused_floyd_attention, (q, k1, v1, k2, v2, None, 0.1), {}),
        ("fused_floyd_attention_grad", aclnn_emu.fused_floyd_attention_grad,
         (q, k1, v1, k2, v2, y, None, smax, ssum, y, 0.1), {}),
    ]


def _as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def _host(a):
    return a.numpy() if isinstance(a, DeviceTensor) else a


def test_every_numpy_function_takes_out_stream_and_device_tensors():
    for name, fn, args, kw in _cases():
        ref = _as_tuple(fn(*args, **kw))
        assert all(isinstance(r, np.ndarray) for r in ref), name
        # out=: written into and returned (a tuple for several results)
        outs = tuple(np.full_like(r, 7) for r in ref)
        got = _as_tuple(fn(*args, out=outs if len(outs) > 1 else outs[0], **kw))
        assert all(g is o for g, o in zip(got, outs)), name
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g, r, err_msg=name)
        # stream=: numpy results complete on return
        with aclnn_emu.Stream() as s:
            for g, r in zip(_as_tuple(fn(*args, stream=s, **kw)), ref):
                np.testing.assert_array_equal(g, r, err_msg=name)
        # DeviceTensors in -> DeviceTensors out
        dev = [DeviceTensor.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
        with aclnn_emu.Stream() as s:
            got = _as_tuple(fn(*dev, stream=s, **kw))
            s.synchronize()
            assert all(isinstance(g, DeviceTensor) for g in got), name
            for g, r in zip(got, ref):
                np.testing.assert_array_equal(g.numpy(), r, err_msg=name)
        # a wrong out is a TypeError naming the function and out
        with pytest.raises(TypeError, match=r"^%s: out must be" % name):
            fn(*args, out=(outs[0],) * (len(outs) + 1), **kw)


def test_big_endian_inputs_give_the_native_results():
    # Every numpy function converts non-native byte order (through the one machine).
    for name, fn, args, kw in _cases():
        ref = _as_tuple(fn(*args, **kw))
        swapped = [a.astype(a.dtype.newbyteorder(">")) if isinstance(a, np.ndarray) and a.dtype.itemsize > 1
                   else a for a in args]
        assert any(isinstance(a, np.ndarray) and not a.dtype.isnative for a in swapped), name
        for got, want in zip(_as_tuple(fn(*swapped, **kw)), ref):
            assert got.dtype == want.dtype and np.array_equal(bits(got), bits(want)), name
