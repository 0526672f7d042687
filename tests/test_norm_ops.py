"""The norm and softmax operators: RmsNorm, AddRmsNorm, LayerNorm (+WithImplMode),
GroupNorm, Softmax and SoftmaxCrossEntropyWithLogits.

Each result is compared with a float64 numpy reference written here, with
CANN's precision standard (MERE < T, MARE < 10 T; T = 2^-13 fp32, 2^-10 fp16,
2^-7 bf16; the relative error of values near zero is taken against 2^-10,
as normalized outputs cancel there). Also: strided inputs and outputs, the
statistics outputs, empty tensors, NaN/inf, in place, overlapping statistics
outputs, bit-identity for 1 and 2 threads and every ISA level, the product
rules, and every error code with the argument its message names.
"""

import math

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import AclnnError, ffi, lib

BF16 = np.dtype(ml_dtypes.bfloat16)
F32, F16, F64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
FLOATS = [F32, F16, BF16]
T = {F32: 2.0**-13, F16: 2.0**-10, BF16: 2.0**-7, F64: 2.0**-40}
NULLPTR, INVALID, TILING, NO_KERNEL = 161001, 161002, 561002, 561003
ACL = {F32: 0, F16: 1, np.dtype(np.int32): 3, np.dtype(np.int64): 9, F64: 11, BF16: 27}


def assert_close(actual, expected, dtype, floor=2.0**-10):
    """CANN's standard against the float64 reference rounded to the output dtype."""
    actual = np.asarray(actual).astype(np.float64)
    with np.errstate(over="ignore"):
        expected = np.asarray(expected, np.float64).astype(dtype).astype(np.float64)
    assert actual.shape == expected.shape
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    finite = np.isfinite(expected)
    assert np.array_equal(actual[~finite & ~np.isnan(expected)], expected[~finite & ~np.isnan(expected)])
    err = np.abs(actual[finite] - expected[finite]) / np.maximum(np.abs(expected[finite]), floor)
    if err.size:
        t = T[np.dtype(dtype)]
        assert err.mean() < t and err.max() < 10 * t, (err.mean(), err.max())


def data(shape, dtype, lo=-4.0, hi=4.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def f64(a):
    return np.asarray(a).astype(np.float64)


def raises(code, *words):
    """pytest.raises for an AclnnError of `code` whose message holds every word."""

    class _Check:
        def __enter__(self):
            self.ctx = pytest.raises(AclnnError)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            suppressed = self.ctx.__exit__(*exc)
            error = self.info.value
            assert error.code == code, (error.code, error.message)
            for word in words:
                assert word in error.message, (word, error.message)
            return suppressed

    return _Check()


# ---- a caller for the operators with optional outputs (registry kind "out?") ----
# The numpy layer does not pass that kind yet: this drives the C API directly,
# with numpy memory as tensor data (strides and offsets kept).

def _tensor(arr, owned):
    arr = np.asarray(arr)
    item = arr.dtype.itemsize
    strides = [s // item for s in arr.strides]
    extent = 1 + sum((n - 1) * s for n, s in zip(arr.shape, strides)) if arr.size else 0
    dims = ffi.new("int64_t[]", list(arr.shape)) if arr.ndim else ffi.NULL
    st = ffi.new("int64_t[]", strides) if arr.ndim else ffi.NULL
    storage = ffi.new("int64_t[]", [max(extent, 1)])
    ptr = ffi.cast("void *", arr.__array_interface__["data"][0]) if arr.size else ffi.NULL
    handle = lib.aclCreateTensor(dims, arr.ndim, ACL[arr.dtype], st, 0, 2, storage, 1, ptr)
    assert handle != ffi.NULL
    owned.append((lib.aclDestroyTensor, handle))
    return handle


def call(api, **kw):
    """Phase 1, workspace, phase 2 of `api` with the registry's signature; AclnnError on failure."""
    owned, args = [], []
    try:
        for name, kind in aclnn_emu.operators()[api]:
            value = kw.get(name)
            if kind in ("tensor", "tensor?", "out", "out?"):
                args.append(ffi.NULL if value is None else _tensor(value, owned))
            elif kind == "intarray":
                h = lib.aclCreateIntArray(ffi.new("int64_t[]", list(value)), len(value))
                owned.append((lib.aclDestroyIntArray, h))
                args.append(h)
            elif kind == "double":
                args.append(float(value))
            else:
                args.append(int(value))
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        allowed = lib.aclnnEmuGetHostMemoryAllowed()
        lib.aclnnEmuSetHostMemoryAllowed(1)
        try:
            rc = getattr(lib, api + "GetWorkspaceSize")(*args, ws, ex)
            if rc:
                raise AclnnError(rc, aclnn_emu.errors.last_error_message(), api + "GetWorkspaceSize")
            workspace = ffi.NULL
            if ws[0]:
                p = ffi.new("void **")
                assert lib.aclrtMalloc(p, ws[0], 0) == 0
                workspace = p[0]
            try:
                rc = getattr(lib, api)(workspace, ws[0], ex[0], ffi.NULL)
                if rc:
                    raise AclnnError(rc, aclnn_emu.errors.last_error_message(), api)
            finally:
                if workspace != ffi.NULL:
                    lib.aclrtFree(workspace)
        finally:
            lib.aclnnEmuSetHostMemoryAllowed(allowed)
    finally:
        for destroy, h in reversed(owned):
            destroy(h)


@pytest.fixture
def soc():
    """Set the emulated product; restores Ascend910B."""
    yield aclnn_emu.set_soc_name
    aclnn_emu.set_soc_name("Ascend910B")


# ---- references ----

def rms_ref(x, gamma, eps):
    x = f64(x)
    axes = tuple(range(x.ndim - np.ndim(gamma), x.ndim))
    rstd = 1 / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + eps)
    return x * rstd * f64(gamma), rstd


def layer_ref(x, k, weight, bias, eps):
    x = f64(x)
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    y = (x - mean) * rstd
    if weight is not None:
        y = y * f64(weight)
    if bias is not None:
        y = y + f64(bias)
    return y, mean, rstd


def group_ref(x, group, gamma, beta, eps):
    x = f64(x)
    n, c = x.shape[:2]
    g = x.reshape(n, group, -1)
    mean = g.mean(axis=2, keepdims=True)
    rstd = 1 / np.sqrt(((g - mean) ** 2).mean(axis=2, keepdims=True) + eps)
    y = ((g - mean) * rstd).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if gamma is not None:
        y = y * f64(gamma).reshape(shape)
    if beta is not None:
        y = y + f64(beta).reshape(shape)
    return y, mean[:, :, 0], rstd[:, :, 0]


def softmax_ref(x, dim):
    x = f64(x)
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


# ---- RmsNorm ----

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("gamma_rank", [1, 2])
def test_rms_norm_matches_float64(dtype, gamma_rank):
    x = data((3, 5, 37), dtype)
    gamma = data(x.shape[3 - gamma_rank:], dtype, 0.5, 2, seed=1)
    y = np.empty_like(x)
    rstd = np.empty(x.shape[:3 - gamma_rank] + (1,) * gamma_rank, np.float32)
    aclnn_emu.run("aclnnRmsNorm", x=x, gamma=gamma, epsilon=1e-6, yOut=y, rstdOut=rstd)
    want_y, want_rstd = rms_ref(x, gamma, 1e-6)
    assert_close(y, want_y, dtype)
    assert_close(rstd, want_rstd, np.float32)
    assert aclnn_emu.last_kernel() == "rms_norm"


@pytest.mark.parametrize("dtype", [F16, BF16], ids=str)
def test_rms_norm_half_input_with_fp32_gamma(dtype, soc):
    x = data((4, 64), dtype)
    gamma = data((64,), np.float32, 0.5, 2, seed=1)
    y, rstd = np.empty_like(x), np.empty((4, 1), np.float32)
    aclnn_emu.run("aclnnRmsNorm", x=x, gamma=gamma, epsilon=1e-5, yOut=y, rstdOut=rstd)
    assert_close(y, rms_ref(x, gamma, 1e-5)[0], dtype)
    soc("Ascend910")  # the training series pairs x with gamma of its own dtype only
    with raises(INVALID, "gamma", "ACL_FLOAT"):
        aclnn_emu.run("aclnnRmsNorm", x=x.astype(np.float16), gamma=gamma, epsilon=1e-5,
                      yOut=np.empty((4, 64), np.float16), rstdOut=rstd)


def test_rms_norm_strided_views_and_ggml_rstd_shape():
    base = data((3, 4, 2, 50), np.float32)
    x = base[:, 1:, 0, 3:43]  # [3, 3, 40], strided with an offset
    gamma = data((80,), np.float32, seed=2)[::2]
    out_base = np.full((3, 3, 90), -7.0, np.float32)
    y = out_base[:, :, 5:85:2]
    rstd = np.empty((3, 3), np.float32)  # ggml-cann: x's leading dimensions only
    aclnn_emu.run("aclnnRmsNorm", x=x, gamma=gamma, epsilon=1e-6, yOut=y, rstdOut=rstd)
    want_y, want_rstd = rms_ref(x, gamma, 1e-6)
    assert_close(y, want_y, np.float32)
    assert_close(rstd, want_rstd[..., 0], np.float32)
    mask = np.ones(out_base.shape, bool)
    mask[:, :, 5:85:2] = False
    assert np.all(out_base[mask] == -7.0)


def test_rms_norm_in_place_special_values_and_empty():
    x = data((4, 33), np.float32)
    x[1, 3] = np.nan
    x[2, 0] = np.inf
    want = rms_ref(np.nan_to_num(x, nan=0, posinf=0), np.ones(33), 0.0)[0]
    gamma = np.ones(33, np.float32)
    rstd = np.empty((4, 1), np.float32)
    aclnn_emu.run("aclnnRmsNorm", x=x, gamma=gamma, epsilon=0.0, yOut=x, rstdOut=rstd)  # in place
    assert np.isnan(x[1]).all() and np.isnan(rstd[1, 0])
    assert rstd[2, 0] == 0 and np.isnan(x[2, 0])  # inf * 0
    assert_close(x[[0, 3]], want[[0, 3]], np.float32)
    empty = np.empty((0, 8), np.float32)
    aclnn_emu.run("aclnnRmsNorm", x=empty, gamma=np.ones(8, np.float32), epsilon=1e-6, yOut=empty.copy(),
                  rstdOut=np.empty((0, 1), np.float32))
    assert aclnn_emu.last_kernel() == ""


def test_rms_norm_errors():
    x, g = data((2, 8), np.float32), np.ones(8, np.float32)
    y, r = np.empty((2, 8), np.float32), np.empty((2, 1), np.float32)
    run = lambda **kw: aclnn_emu.run("aclnnRmsNorm", **{**dict(x=x, gamma=g, epsilon=1e-6, yOut=y, rstdOut=r), **kw})
    with raises(INVALID, "x", "ACL_INT32"):
        run(x=x.astype(np.int32))
    with raises(INVALID, "rstdOut", "ACL_FLOAT16"):
        run(rstdOut=r.astype(np.float16))
    with raises(INVALID, "yOut", "dtype of x"):
        run(yOut=np.empty((2, 8), np.float16))
    with raises(INVALID, "gamma"):
        run(gamma=g.astype(np.float16))  # fp32 x takes fp32 gamma only
    with raises(TILING, "gamma", "trailing"):
        run(gamma=np.ones(4, np.float32))
    with raises(TILING, "gamma"):
        run(gamma=np.ones((3, 2, 8), np.float32))  # rank above x's
    with raises(TILING, "yOut"):
        run(yOut=np.empty((8, 2), np.float32))
    with raises(TILING, "rstdOut"):
        run(rstdOut=np.empty((2, 2), np.float32))
    with raises(TILING, "rstdOut"):
        run(rstdOut=np.empty((1, 1), np.float32))
    with raises(TILING, "epsilon"):
        run(epsilon=-1.0)
    buf = data((17,), np.float32)
    with raises(INVALID, "yOut", "x"):
        run(x=buf[:16].reshape(2, 8), yOut=buf[1:].reshape(2, 8))  # overlaps x without being x
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    assert lib.aclnnRmsNormGetWorkspaceSize(ffi.NULL, ffi.NULL, 1e-6, ffi.NULL, ffi.NULL, ws, ex) == NULLPTR
    assert "x is NULL" in aclnn_emu.errors.last_error_message()


# ---- AddRmsNorm ----

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_add_rms_norm_matches_float64(dtype):
    x1, x2 = data((6, 40), dtype), data((6, 40), dtype, seed=3)
    gamma = data((40,), dtype, 0.5, 2, seed=4)
    y, x, rstd = np.empty_like(x1), np.empty_like(x1), np.empty((6, 1), np.float32)
    call("aclnnAddRmsNorm", x1=x1, x2=x2, gamma=gamma, epsilon=1e-6, yOut=y, rstdOut=rstd, xOut=x)
    summed = (x1.astype(np.float32) + x2.astype(np.float32)).astype(dtype)
    assert np.array_equal(x.view(np.uint8), summed.view(np.uint8))  # x1 + x2 rounded once
    want_y, want_rstd = rms_ref(summed, gamma, 1e-6)  # normalized from the rounded sum, as the device does
    assert_close(y, want_y, dtype)
    assert_close(rstd, want_rstd, np.float32)
    assert aclnn_emu.last_kernel() == "add_rms_norm"


@pytest.mark.parametrize("dtype", [F16, BF16], ids=str)
def test_add_rms_norm_pre_and_post_modes(dtype):
    x1, x2 = data((2, 3, 48), dtype), data((2, 3, 48), dtype, seed=5)
    gamma = data((1, 48), dtype, 0.5, 2, seed=6)
    summed = (x1.astype(np.float32) + x2.astype(np.float32)).astype(dtype)
    want = rms_ref(summed, gamma[0], 1e-6)[0]
    y, x = np.empty_like(x1), np.empty_like(x1)
    call("aclnnAddRmsNorm", x1=x1, x2=x2, gamma=gamma, epsilon=1e-6, yOut=y, xOut=x)  # pre-norm
    assert_close(y, want, dtype)
    assert np.array_equal(x.view(np.uint8), summed.view(np.uint8))
    y2 = np.empty_like(x1)
    call("aclnnAddRmsNorm", x1=x1, x2=x2, gamma=gamma, epsilon=1e-6, yOut=y2)  # post-norm
    assert np.array_equal(y.view(np.uint8), y2.view(np.uint8))
    with raises(TILING, "gamma", "[1, D]"):
        call("aclnnAddRmsNorm", x1=x1, x2=x2, gamma=gamma[0], epsilon=1e-6, yOut=y2)
    with raises(INVALID, "x1", "ACL_FLOAT"):
        f = x1.astype(np.float32)
        call("aclnnAddRmsNorm", x1=f, x2=f, gamma=gamma.astype(np.float32), epsilon=1e-6, yOut=f.copy())


def test_add_rms_norm_in_place_and_errors(soc):
    x1, x2 = data((4, 16), np.float32), data((4, 16), np.float32, seed=7)
    gamma, rstd = np.ones(16, np.float32), np.empty((4, 1), np.float32)
    want = rms_ref(x1.astype(np.float64) + x2, gamma, 1e-6)[0]
    s = x1 + x2
    call("aclnnAddRmsNorm", x1=x1, x2=x2, gamma=gamma, epsilon=1e-6, yOut=x1, rstdOut=rstd, xOut=x2)
    assert_close(x1, want, np.float32)
    assert np.array_equal(x2, s)
    y, x = np.empty_like(x1), np.empty_like(x1)
    args = dict(x1=x1, x2=x2, gamma=gamma, epsilon=1e-6, yOut=y, rstdOut=rstd, xOut=x)
    with raises(NULLPTR, "xOut"):
        call("aclnnAddRmsNorm", **{**args, "xOut": None})  # rstdOut without xOut
    with raises(INVALID, "x2", "dtype of x1"):
        call("aclnnAddRmsNorm", **{**args, "x2": x2.astype(np.float16)})
    with raises(INVALID, "gamma", "dtype of x1"):
        call("aclnnAddRmsNorm", **{**args, "gamma": gamma.astype(np.float16)})
    with raises(INVALID, "rstdOut"):
        call("aclnnAddRmsNorm", **{**args, "rstdOut": rstd.astype(np.float16)})
    with raises(INVALID, "x2", "shape"):
        call("aclnnAddRmsNorm", **{**args, "x2": np.ones((4, 8), np.float32)})
    with raises(INVALID, "rstdOut"):
        call("aclnnAddRmsNorm", **{**args, "rstdOut": np.empty((4,), np.float32)})
    with raises(TILING, "gamma"):
        call("aclnnAddRmsNorm", **{**args, "gamma": np.ones(8, np.float32)})
    with raises(TILING, "epsilon"):
        call("aclnnAddRmsNorm", **{**args, "epsilon": -1.0})
    with raises(INVALID, "yOut", "xOut"):
        call("aclnnAddRmsNorm", **{**args, "yOut": x})
    soc("Ascend910")
    with raises(NO_KERNEL, "Ascend910"):
        call("aclnnAddRmsNorm", **args)


# ---- LayerNorm ----

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("affine", ["none", "weight", "both", "fp32"])
def test_layer_norm_matches_float64(dtype, affine):
    x = data((3, 4, 6, 11), dtype, -3, 5)
    wdt = np.float32 if affine == "fp32" else dtype
    weight = None if affine == "none" else data((6, 11), wdt, 0.5, 2, seed=1)
    bias = data((6, 11), wdt, -1, 1, seed=2) if affine in ("both", "fp32") else None
    out = np.empty_like(x)
    mean, rstd = np.empty((3, 4, 1, 1), dtype), np.empty((3, 4, 1, 1), np.float32)
    call("aclnnLayerNorm", input=x, normalizedShape=[6, 11], weightOptional=weight, biasOptional=bias, eps=1e-5,
         out=out, meanOutOptional=mean, rstdOutOptional=rstd)
    want, want_mean, want_rstd = layer_ref(x, 2, weight, bias, 1e-5)
    assert_close(out, want, dtype)
    assert_close(mean, want_mean, dtype)
    assert_close(rstd, want_rstd, np.float32)
    assert aclnn_emu.last_kernel() == "layer_norm"


def test_layer_norm_long_rows_strided_and_in_place():
    x = data((3, 2600), np.float32, 1, 5)  # rows of several 1024-element blocks, away from zero mean
    weight = data((5200,), np.float32, seed=1)[::2]
    bias = data((2600,), np.float32, seed=2)
    out_base = np.full((3, 2610), -7.0, np.float32)
    out = out_base[:, 10:]
    call("aclnnLayerNorm", input=x, normalizedShape=[2600], weightOptional=weight, biasOptional=bias, eps=1e-6,
         out=out)
    want = layer_ref(x, 1, weight, bias, 1e-6)[0]
    assert_close(out, want, np.float32)
    assert np.all(out_base[:, :10] == -7.0)
    t = data((7, 5), np.float32).T  # [5, 7], transposed
    want_t = layer_ref(t, 1, None, None, 1e-5)[0]
    call("aclnnLayerNormWithImplMode", input=t, normalizedShape=[7], eps=1e-5, out=t, implMode=1)
    assert_close(t, want_t, np.float32)


def test_layer_norm_empty_and_statistics_of_empty_rows():
    x = np.empty((3, 0), np.float32)
    mean, rstd = np.full((3, 1), 5.0, np.float32), np.full((3, 1), 5.0, np.float32)
    call("aclnnLayerNorm", input=x, normalizedShape=[0], eps=1e-5, out=x.copy(), meanOutOptional=mean,
         rstdOutOptional=rstd)
    assert np.all(mean == 0) and np.all(np.isnan(rstd))
    x = np.empty((0, 4), np.float32)
    call("aclnnLayerNorm", input=x, normalizedShape=[4], eps=1e-5, out=x.copy())
    assert aclnn_emu.last_kernel() == ""


def test_layer_norm_special_values():
    x = data((3, 20), np.float32)
    x[0, 4] = np.nan
    x[1, 2] = np.inf
    out = np.empty_like(x)
    call("aclnnLayerNorm", input=x, normalizedShape=[20], eps=1e-5, out=out)
    assert np.isnan(out[0]).all() and np.isnan(out[1]).all()
    assert_close(out[2], layer_ref(x[2:], 1, None, None, 1e-5)[0][0], np.float32)


def test_layer_norm_errors(soc):
    x = data((2, 3, 4), np.float32)
    args = dict(input=x, normalizedShape=[4], eps=1e-5, out=np.empty_like(x))
    with raises(INVALID, "input", "ACL_INT32"):
        call("aclnnLayerNorm", **{**args, "input": x.astype(np.int32)})
    with raises(INVALID, "weightOptional", "dtype of input"):
        call("aclnnLayerNorm", **{**args, "weightOptional": np.ones(4, np.float16)})
    with raises(INVALID, "biasOptional", "weightOptional"):
        h = x.astype(np.float16)
        call("aclnnLayerNorm", **{**args, "input": h, "out": h.copy(), "weightOptional": np.ones(4, np.float32),
                                  "biasOptional": np.ones(4, np.float16)})
    with raises(INVALID, "out"):
        call("aclnnLayerNorm", **{**args, "out": np.empty_like(x, dtype=np.float64)})
    with raises(INVALID, "normalizedShape", "8"):
        call("aclnnLayerNorm", **{**args, "normalizedShape": []})
    with raises(INVALID, "normalizedShape[0]"):
        call("aclnnLayerNorm", **{**args, "normalizedShape": [5]})
    with raises(INVALID, "input", "rank"):
        call("aclnnLayerNorm", **{**args, "normalizedShape": [1, 2, 3, 4]})
    with raises(INVALID, "weightOptional", "rank"):
        call("aclnnLayerNorm", **{**args, "weightOptional": np.ones((1, 4), np.float32)})
    with raises(INVALID, "biasOptional", "normalizedShape"):
        call("aclnnLayerNorm", **{**args, "biasOptional": np.ones((3,), np.float32)})
    with raises(INVALID, "out", "shape"):
        call("aclnnLayerNorm", **{**args, "out": np.empty((2, 12), np.float32)})
    with raises(INVALID, "meanOutOptional"):
        call("aclnnLayerNorm", **{**args, "meanOutOptional": np.empty((2, 2), np.float32)})
    with raises(INVALID, "implMode"):
        call("aclnnLayerNormWithImplMode", **args, implMode=3)
    with raises(INVALID, "keep fp16"):
        call("aclnnLayerNormWithImplMode", **args, implMode=2)
    buf = data((25,), np.float32)
    with raises(INVALID, "out", "input"):  # overlaps input without being it
        call("aclnnLayerNorm", **{**args, "input": buf[:24].reshape(2, 3, 4), "out": buf[1:].reshape(2, 3, 4)})
    soc("Ascend950")  # checks [A..., 1...] for the statistics
    with raises(INVALID, "meanOutOptional"):
        call("aclnnLayerNorm", **{**args, "meanOutOptional": np.empty((6,), np.float32)})
    call("aclnnLayerNorm", **{**args, "meanOutOptional": np.empty((2, 3, 1), np.float32)})
    soc("Ascend910")
    with raises(INVALID, "input", "ACL_BF16"):
        call("aclnnLayerNorm", **{**args, "input": x.astype(BF16), "out": x.astype(BF16)})
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    assert lib.aclnnLayerNormGetWorkspaceSize(ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, 1e-5, ffi.NULL, ffi.NULL,
                                              ffi.NULL, ws, ex) == NULLPTR
    assert "input is NULL" in aclnn_emu.errors.last_error_message()


# ---- GroupNorm ----

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("affine", [False, True])
def test_group_norm_matches_float64(dtype, affine):
    x = data((2, 6, 5, 7), dtype, -2, 6)
    gamma = data((6,), dtype, 0.5, 2, seed=1) if affine else None
    beta = data((6,), dtype, -1, 1, seed=2) if affine else None
    out, mean, rstd = np.empty_like(x), np.empty((2, 3), dtype), np.empty((2, 3), dtype)
    aclnn_emu.run("aclnnGroupNorm", self=x, gamma=gamma, beta=beta, N=2, C=6, HxW=35, group=3, eps=1e-5, out=out,
                  meanOut=mean, rstdOut=rstd)
    want, want_mean, want_rstd = group_ref(x, 3, gamma, beta, 1e-5)
    assert_close(out, want, dtype)
    assert_close(mean, want_mean, dtype)
    assert_close(rstd, want_rstd, dtype)
    assert aclnn_emu.last_kernel() == "group_norm"


def test_group_norm_large_groups_strided_rank2_and_in_place():
    x = data((1, 8, 40, 40), np.float32)  # groups of 3200 elements: several blocks, channel boundaries inside
    mean, rstd = np.empty((1, 4), np.float32), np.empty((1, 4), np.float32)
    gamma = data((16,), np.float32, seed=1)[::2]
    want = group_ref(x, 4, gamma, None, 1e-6)[0]
    aclnn_emu.run("aclnnGroupNorm", self=x, gamma=gamma, N=1, C=8, HxW=1600, group=4, eps=1e-6, out=x, meanOut=mean,
                  rstdOut=rstd)
    assert_close(x, want, np.float32)
    y = data((6, 4), np.float32).T  # [4, 6]: N = 4, C = 6, no spatial dimensions
    out = np.empty((4, 6), np.float32)
    aclnn_emu.run("aclnnGroupNorm", self=y, N=4, C=6, HxW=1, group=2, eps=1e-5, out=out,
                  meanOut=np.empty((4, 2), np.float32), rstdOut=np.empty((4, 2), np.float32))
    assert_close(out, group_ref(y, 2, None, None, 1e-5)[0], np.float32)


def test_group_norm_overlapping_statistics_as_ggml_passes_them():
    # ggml-cann gives meanOut and rstdOut overlapping views; CANN copies out all
    # of mean, then all of rstd: rstd wins where they overlap.
    x = data((2, 4, 3, 3), np.float32)
    buf = np.full(12, -7.0, np.float32)
    mean, rstd = buf[:8].reshape(2, 4), buf[2:10].reshape(2, 4)
    out = np.empty_like(x)
    call("aclnnGroupNorm", self=x, N=2, C=4, HxW=9, group=4, eps=1e-6, out=out, meanOut=mean, rstdOut=rstd)
    want, want_mean, want_rstd = group_ref(x, 4, None, None, 1e-6)
    assert_close(out, want, np.float32)
    assert_close(buf[:2], want_mean.ravel()[:2], np.float32)
    assert_close(buf[2:10], want_rstd.ravel(), np.float32)
    assert np.all(buf[10:] == -7.0)


def test_group_norm_empty():
    x = np.empty((2, 4, 0), np.float32)
    mean, rstd = np.full((2, 2), 3.0, np.float32), np.full((2, 2), 3.0, np.float32)
    aclnn_emu.run("aclnnGroupNorm", self=x, N=2, C=4, HxW=0, group=2, eps=1e-5, out=x.copy(), meanOut=mean,
                  rstdOut=rstd)
    assert np.all(mean == 0) and np.all(np.isnan(rstd))


def test_group_norm_errors(soc):
    x = data((2, 4, 3), np.float32)
    s = np.empty((2, 2), np.float32)
    args = dict(self=x, N=2, C=4, HxW=3, group=2, eps=1e-5, out=np.empty_like(x), meanOut=s, rstdOut=s.copy())
    run = lambda **kw: aclnn_emu.run("aclnnGroupNorm", **{**args, **kw})
    with raises(INVALID, "self", "ACL_INT32"):
        run(self=x.astype(np.int32), out=x.astype(np.int32))
    with raises(INVALID, "gamma", "dtype of self"):
        run(gamma=np.ones(4, np.float16))
    with raises(INVALID, "rstdOut", "dtype of self"):
        run(rstdOut=np.empty((2, 2), np.float16))
    with raises(INVALID, "group"):
        run(group=0)
    with raises(INVALID, "divisible"):
        run(group=3)
    with raises(INVALID, "eps"):
        run(eps=0.0)
    with raises(INVALID, "self", "rank"):
        run(self=x[0, 0], out=x[0, 0].copy())
    with raises(INVALID, "meanOut", "[N, group]"):
        run(meanOut=np.empty((2, 4), np.float32))
    with raises(INVALID, "self", "HxW"):
        run(HxW=4)
    with raises(INVALID, "self"):
        run(C=2, group=1, meanOut=np.empty((2, 1), np.float32), rstdOut=np.empty((2, 1), np.float32))
    with raises(INVALID, "beta", "[C]"):
        run(beta=np.ones(3, np.float32))
    with raises(INVALID, "out", "shape"):
        run(out=np.empty((2, 12), np.float32))
    soc("Ascend910")
    with raises(INVALID, "self", "ACL_BF16"):
        run(self=x.astype(BF16), out=x.astype(BF16), meanOut=s.astype(BF16), rstdOut=s.astype(BF16))
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    t = aclnn_emu.DeviceTensor.from_numpy(x)
    try:
        assert lib.aclnnGroupNormGetWorkspaceSize(t.handle, ffi.NULL, ffi.NULL, 2, 4, 3, 2, 1e-5, t.handle,
                                                  ffi.NULL, ffi.NULL, ws, ex) == NULLPTR
        assert "meanOut is NULL" in aclnn_emu.errors.last_error_message()
    finally:
        t.close()


# ---- Softmax ----

@pytest.mark.parametrize("dtype", FLOATS + [F64], ids=str)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_matches_float64(dtype, dim):
    x = data((5, 7, 33), dtype, -10, 10)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnSoftmax", self=x, dim=dim, out=out)
    assert_close(out, softmax_ref(x, dim), dtype)
    assert aclnn_emu.last_kernel() == ("softmax_f64" if dtype == F64 else "softmax")


def test_softmax_is_stable_and_handles_special_values():
    x = np.array([[1000.0, 999.0, 998.0, -1000.0],
                  [-np.inf, 0.0, 1.0, -np.inf],
                  [np.nan, 0.0, 1.0, 2.0],
                  [np.inf, 0.0, 1.0, 2.0],
                  [-np.inf] * 4], np.float32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnSoftmax", self=x, dim=1, out=out)
    assert_close(out[:2], softmax_ref(x[:2], 1), np.float32)
    assert np.isnan(out[2:]).all()  # NaN, inf - inf, and a row of -inf only


def test_softmax_output_dtype_is_a_cast_of_the_kernel_result():
    x = data((3, 50), np.float16, -5, 5)
    out = np.empty((3, 50), np.float32)
    aclnn_emu.run("aclnnSoftmax", self=x, dim=1, out=out)
    assert np.array_equal(out, out.astype(np.float16).astype(np.float32))  # fp16 values, widened
    assert_close(out, softmax_ref(x, 1), np.float16)
    out16 = np.empty((3, 50), np.float16)
    aclnn_emu.run("aclnnSoftmax", self=x.astype(np.float32), dim=1, out=out16)
    assert_close(out16, softmax_ref(x, 1), np.float16)


def test_softmax_strided_in_place_scalar_and_empty():
    base = data((4, 9, 30), np.float32)
    x = base[1:, ::2, 3:28].transpose(2, 0, 1)  # [25, 3, 5], strided everywhere
    want = softmax_ref(x, 0)
    out_base = np.full((30, 3, 5), -7.0, np.float32)
    aclnn_emu.run("aclnnSoftmax", self=x, dim=0, out=out_base[2:27])
    assert_close(out_base[2:27], want, np.float32)
    assert np.all(out_base[:2] == -7.0) and np.all(out_base[27:] == -7.0)
    aclnn_emu.run("aclnnSoftmax", self=x, dim=-3, out=x)  # in place
    assert_close(x, want, np.float32)
    s = np.array(3.0, np.float32)
    o = np.empty((), np.float32)
    aclnn_emu.run("aclnnSoftmax", self=s, dim=-1, out=o)
    assert o == 1.0
    e = np.empty((0, 3), np.float32)
    aclnn_emu.run("aclnnSoftmax", self=e, dim=5, out=np.empty((2,), np.int32))  # empty: no other check
    assert aclnn_emu.last_kernel() == ""


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_softmax_over_a_strided_dimension_gives_the_bits_of_a_contiguous_one(dtype):
    x = data((70, 45), dtype, -6, 6)  # dim 0: rows side by side, computed 16 at a time
    a, b = np.empty_like(x), np.empty((45, 70), dtype)
    aclnn_emu.run("aclnnSoftmax", self=x, dim=0, out=a)
    aclnn_emu.run("aclnnSoftmax", self=np.ascontiguousarray(x.T), dim=1, out=b)
    assert np.array_equal(np.ascontiguousarray(a.T).view(np.uint8), b.view(np.uint8))


def test_softmax_errors(soc):
    x = data((2, 3), np.float32)
    with raises(INVALID, "self", "ACL_INT32"):
        aclnn_emu.run("aclnnSoftmax", self=x.astype(np.int32), dim=0, out=np.empty_like(x))
    with raises(INVALID, "out", "ACL_INT64"):
        aclnn_emu.run("aclnnSoftmax", self=x, dim=0, out=np.empty((2, 3), np.int64))
    with raises(INVALID, "dim", "[-2, 1]"):
        aclnn_emu.run("aclnnSoftmax", self=x, dim=2, out=np.empty_like(x))
    with raises(INVALID, "out", "shape"):
        aclnn_emu.run("aclnnSoftmax", self=x, dim=0, out=np.empty((3, 2), np.float32))
    nine = np.ones((1,) * 9, np.float32)
    with raises(INVALID, "rank 9"):
        aclnn_emu.run("aclnnSoftmax", self=nine, dim=0, out=nine.copy())
    buf = data((7,), np.float32)
    with raises(INVALID, "out", "self"):
        aclnn_emu.run("aclnnSoftmax", self=buf[:6].reshape(2, 3), dim=0, out=buf[1:].reshape(2, 3))
    soc("Ascend910")
    with raises(INVALID, "self", "ACL_BF16"):
        aclnn_emu.run("aclnnSoftmax", self=x.astype(BF16), dim=0, out=np.empty_like(x))
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    assert lib.aclnnSoftmaxGetWorkspaceSize(ffi.NULL, 0, ffi.NULL, ws, ex) == NULLPTR
    assert "self is NULL" in aclnn_emu.errors.last_error_message()


# ---- SoftmaxCrossEntropyWithLogits ----

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_softmax_cross_entropy_matches_float64(dtype):
    features = data((6, 37), dtype, -8, 8)
    labels = np.random.default_rng(1).dirichlet(np.ones(37), 6).astype(dtype)
    loss, backprop = np.empty((6,), dtype), np.empty_like(features)
    aclnn_emu.run("aclnnSoftmaxCrossEntropyWithLogits", features=features, labels=labels, loss=loss,
                  backprop=backprop)
    p = softmax_ref(features, 1)
    assert_close(loss, -(f64(labels) * np.log(p)).sum(axis=1), dtype)
    assert_close(backprop, p - f64(labels), dtype, floor=2.0**-6)
    assert aclnn_emu.last_kernel() == "softmax_cross_entropy_with_logits"


def test_softmax_cross_entropy_large_logits_strided_and_errors(soc):
    base = data((5, 80), np.float32, -1, 1)
    features = base[::2, ::2] * 1000  # large logits: stable through the row max
    labels = np.eye(40, dtype=np.float32)[[3, 7, 39]]
    loss, backprop = np.empty((3,), np.float32), np.empty((3, 40), np.float32)
    aclnn_emu.run("aclnnSoftmaxCrossEntropyWithLogits", features=features, labels=labels, loss=loss,
                  backprop=backprop)
    x = f64(features)
    lse = x.max(axis=1) + np.log(np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1))
    assert_close(loss, lse - x[np.arange(3), [3, 7, 39]], np.float32)
    args = dict(features=features, labels=labels, loss=loss, backprop=backprop)
    run = lambda **kw: aclnn_emu.run("aclnnSoftmaxCrossEntropyWithLogits", **{**args, **kw})
    with raises(INVALID, "features", "ACL_DOUBLE"):
        run(features=f64(features))
    with raises(INVALID, "loss", "dtype of features"):
        run(loss=loss.astype(np.float16))
    with raises(INVALID, "labels", "dtype of features"):
        run(labels=labels.astype(np.float16))
    with raises(INVALID, "labels", "rank 1"):
        run(labels=labels[0])
    with raises(INVALID, "labels", "shape"):
        run(labels=labels[:, :20])
    with raises(INVALID, "loss", "[3]"):
        run(loss=np.empty((3, 1), np.float32))
    with raises(INVALID, "backprop", "shape"):
        run(backprop=np.empty((3, 20), np.float32))
    empty = np.empty((0, 40), np.float32)
    run(features=empty, labels=empty.copy(), loss=np.empty((0,), np.float32), backprop=empty.copy())
    assert aclnn_emu.last_kernel() == ""
    soc("Ascend910")
    with raises(INVALID, "features", "ACL_BF16"):
        run(features=features.astype(BF16))


# ---- determinism ----

def _all_results():
    """Every operator on inputs with ragged lane tails, several chunks and long rows; the bytes of each output."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-3, 3, (300, 203)).astype(np.float32)
    h = x.astype(np.float16)
    outs = []

    def keep(*arrays):
        outs.extend(a.view(np.uint8).copy() for a in arrays)

    for arr in (x, h):
        y, r = np.empty_like(arr), np.empty((300, 1), np.float32)
        aclnn_emu.run("aclnnRmsNorm", x=arr, gamma=arr[0], epsilon=1e-6, yOut=y, rstdOut=r)
        keep(y, r)
        y, m, r = np.empty_like(arr), np.empty((300, 1), np.float32), np.empty((300, 1), np.float32)
        call("aclnnLayerNorm", input=arr, normalizedShape=[203], weightOptional=arr[1], biasOptional=arr[2],
             eps=1e-5, out=y, meanOutOptional=m, rstdOutOptional=r)
        keep(y, m, r)
        y, xo = np.empty_like(arr), np.empty_like(arr)
        call("aclnnAddRmsNorm", x1=arr, x2=np.roll(arr, 1, axis=0), gamma=arr[3], epsilon=1e-6, yOut=y,
             rstdOut=np.empty((300, 1), np.float32), xOut=xo)
        keep(y, xo)
        for dim in (0, 1):
            y = np.empty_like(arr)
            aclnn_emu.run("aclnnSoftmax", self=arr * 4, dim=dim, out=y)
            keep(y)
        loss, bp = np.empty((300,), arr.dtype), np.empty_like(arr)
        aclnn_emu.run("aclnnSoftmaxCrossEntropyWithLogits", features=arr, labels=np.abs(arr[::-1]), loss=loss,
                      backprop=bp)
        keep(loss, bp)
    g = x[:, :200].reshape(6, 50, 200)
    y, m, r = np.empty_like(g), np.empty((6, 5), np.float32), np.empty((6, 5), np.float32)
    aclnn_emu.run("aclnnGroupNorm", self=g, gamma=x[5, :50], beta=x[6, :50], N=6, C=50, HxW=200, group=5, eps=1e-5,
                  out=y, meanOut=m, rstdOut=r)
    keep(y, m, r)
    long = rng.uniform(-3, 3, (4, 5000)).astype(np.float32)
    y = np.empty_like(long)
    call("aclnnLayerNorm", input=long, normalizedShape=[5000], eps=1e-5, out=y)
    keep(y)
    # exp(x - max) over its whole range: overflow clamp, subnormal results, underflow to 0, NaN and inf rows.
    wide = rng.uniform(-150, 10, (40, 203)).astype(np.float32)
    wide[0] = np.linspace(-200, 0, 203)
    wide[1, 5], wide[2, 7], wide[3, :] = np.nan, np.inf, -np.inf
    for arr in (wide, wide.astype(np.float16)):
        y = np.empty_like(arr)
        aclnn_emu.run("aclnnSoftmax", self=arr, dim=1, out=y)
        keep(y)
    return outs


def test_bit_identical_for_any_thread_count_and_isa():
    previous_isa, previous_threads = aclnn_emu.get_isa(), aclnn_emu.get_num_threads()
    results = {}
    try:
        for isa in aclnn_emu.available_isas():
            for threads in (1, 2):
                aclnn_emu.set_isa_cap(isa)
                aclnn_emu.set_num_threads(threads)
                results[isa, threads] = _all_results()
    finally:
        aclnn_emu.set_isa_cap(previous_isa)
        aclnn_emu.set_num_threads(previous_threads)
    first = next(iter(results.values()))
    for key, outs in results.items():
        for k, (a, b) in enumerate(zip(first, outs)):
            assert np.array_equal(a, b), (key, k)


def test_dense_fp32_rows_in_place_give_the_bits_of_a_separate_output():
    """Dense fp32 rows are read and written in place, without copies through scratch; out = input must give
    the same bits as a separate out, for rows shorter and longer than LayerNorm's block."""
    for cols in (203, 4096, 5000):
        x = data((5, cols), np.float32, 1, 7)
        w, b = data((cols,), np.float32, seed=1), data((cols,), np.float32, seed=2)
        want, got = np.empty_like(x), x.copy()
        call("aclnnLayerNorm", input=x, normalizedShape=[cols], weightOptional=w, biasOptional=b, eps=1e-5, out=want)
        call("aclnnLayerNorm", input=got, normalizedShape=[cols], weightOptional=w, biasOptional=b, eps=1e-5, out=got)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        want, got = np.empty_like(x), x.copy()
        aclnn_emu.run("aclnnSoftmax", self=x, dim=-1, out=want)
        aclnn_emu.run("aclnnSoftmax", self=got, dim=-1, out=got)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_registry_signatures():
    ops = aclnn_emu.operators()
    assert ops["aclnnLayerNorm"][1] == ("normalizedShape", "intarray")
    assert ops["aclnnAddRmsNorm"][-1] == ("xOut", "out?")
    for api in ["aclnnRmsNorm", "aclnnAddRmsNorm", "aclnnLayerNorm", "aclnnLayerNormWithImplMode",
                "aclnnGroupNorm", "aclnnSoftmax", "aclnnSoftmaxCrossEntropyWithLogits"]:
        assert api in ops
