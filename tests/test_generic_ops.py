"""aclnn_emu.run(): operators by name on the numpy layer's one machine.

run() shares the machine of the numpy functions (aclnn_emu.ops._launch): it
takes DeviceTensors as well as numpy arrays, runs on ``stream=`` (a Stream or
a raw aclrtStream), stages arrays whose byte order or layout aclnn cannot
describe (outputs and in-place tensors are computed in a copy and copied
back), takes tensor lists of both and leaves optional outputs out, and
refuses read-only outputs with a message that names the argument as the
header does. The operators with a plan cache (silu and the other
numpy functions) are served from it through run() too, and the cache keeps
the checks phase 1 would make.
"""

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import AclnnError, DeviceTensor, Event, Stream, lib

INVALID = 161002


def data(shape, dtype=np.float32, seed=0, lo=-3.0, hi=3.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def silu_ref(x):
    x = np.asarray(x, np.float64)
    return x / (1 + np.exp(-x))


# ------------------------------------------------------------ DeviceTensor


def test_device_tensors_in_and_out():
    a, b = data((3, 5), seed=1), data((5,), seed=2)
    with DeviceTensor.from_numpy(a) as ta, DeviceTensor.empty((3, 5), np.float32) as out:
        assert aclnn_emu.run("aclnnAdd", self=ta, other=b, alpha=2.0, out=out) is out  # device + numpy in
        np.testing.assert_allclose(out.numpy(), a + 2 * b, rtol=1e-6)
        host_out = np.empty((3, 5), np.float32)
        aclnn_emu.run("aclnnMul", self=ta, other=ta, out=host_out)  # device in, numpy out
        np.testing.assert_allclose(host_out, a * a, rtol=1e-6)
        aclnn_emu.run("aclnnInplaceExp", selfRef=out)  # a device tensor written in place
        np.testing.assert_allclose(out.numpy(), np.exp(a + 2 * b), rtol=1e-5)
    # a strided device view (transposed) as input and as output
    base = data((4, 6), seed=3)
    with DeviceTensor.from_numpy(base.T) as t, DeviceTensor.from_numpy(np.zeros((4, 6), np.float32).T) as o:
        aclnn_emu.run("aclnnNeg", self=t, out=o)
        assert o.strides == (1, 6)
        np.testing.assert_array_equal(o.numpy(), -base.T)


def test_device_tensors_through_a_repeatable_operator():
    x = data((2, 7), seed=4)
    with DeviceTensor.from_numpy(x) as tx, DeviceTensor.empty(x.shape, x.dtype) as ty:
        aclnn_emu.run("aclnnSilu", self=tx, out=ty)
        np.testing.assert_allclose(ty.numpy(), silu_ref(x), rtol=1e-5)
        np.testing.assert_array_equal(ty.numpy(), aclnn_emu.silu(x))


# ----------------------------------------------------------------- streams


def test_stream_as_object_and_raw_handle():
    x = data((8, 9), seed=5)
    with Stream() as s:
        out = np.empty_like(x)
        aclnn_emu.run("aclnnExp", self=x, out=out, stream=s.handle)  # a raw aclrtStream
        np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)  # numpy results are complete on return
        out2 = np.empty_like(x)
        aclnn_emu.run("aclnnSilu", self=x, out=out2, stream=s)
        np.testing.assert_array_equal(out2, aclnn_emu.silu(x))
    with pytest.raises(TypeError):
        aclnn_emu.run("aclnnExp", self=x, out=np.empty_like(x), stream="default")


def test_device_tensors_on_a_stream_are_queued():
    x = data((16, 33), seed=6)
    with Stream() as s, Event() as gate, DeviceTensor.from_numpy(x) as tx, DeviceTensor.empty(x.shape) as ty:
        gate.wait(s)  # hold the stream
        try:
            aclnn_emu.run("aclnnSigmoid", self=tx, out=ty, stream=s)  # returns at once: all on the device
            assert not s.query()
        finally:
            gate.record()  # the default stream records at once: the stream runs
        s.synchronize()
        np.testing.assert_allclose(ty.numpy(), 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-5)


# ----------------------------------------------------------------- staging


def test_big_endian_and_unaligned_arrays_are_staged():
    x = data((3, 11), seed=7)
    expected = np.exp(x.astype(np.float64))
    big = x.astype(">f4")
    out_big = np.zeros((3, 11), ">f4")
    assert aclnn_emu.run("aclnnExp", self=big, out=out_big) is out_big
    assert out_big.dtype == np.dtype(">f4")
    np.testing.assert_allclose(out_big, expected, rtol=1e-5)
    raw = np.zeros(4 * 33 + 1, np.uint8)
    unaligned = raw[1:].view(np.float32).reshape(3, 11)
    assert not unaligned.flags.aligned
    aclnn_emu.run("aclnnExp", self=big, out=unaligned)
    np.testing.assert_array_equal(unaligned, out_big)
    # in place on a big-endian, negatively strided view: copied in, computed, copied back
    base = x.astype(">f4")
    view = base[::-1]
    aclnn_emu.run("aclnnInplaceExp", selfRef=view)
    np.testing.assert_allclose(base, expected, rtol=1e-5)


def test_staging_through_device_memory(monkeypatch):
    # The path taken when the library refuses numpy (host) memory as tensor data.
    monkeypatch.setattr(aclnn_emu.ops, "ZERO_COPY", False)
    a = data((4, 6), seed=8)
    out = np.zeros((6, 4), np.float32).T  # strided output
    aclnn_emu.run("aclnnAdd", self=a, other=a[:1], alpha=(3, np.float32), out=out)
    np.testing.assert_allclose(out, a + 3 * a[:1], rtol=1e-6)
    inplace = a.astype(">f4")
    aclnn_emu.run("aclnnInplaceMuls", selfRef=inplace, other=2.0)
    np.testing.assert_array_equal(inplace, 2 * a)


# ------------------------------------------------------------------ errors


def test_read_only_output_is_refused_naming_the_argument():
    x = data((2, 3), seed=9)
    for api, name in [("aclnnExp", "out"), ("aclnnSign", "result"), ("aclnnSilu", "out"),
                      ("aclnnSiluBackward", "gradInput")]:
        ro = np.zeros((2, 3), np.float32)
        ro.flags.writeable = False
        args = {aclnn_emu.operators()[api][0][0]: x, name: ro}
        if api == "aclnnSiluBackward":
            args["self"] = x
        with pytest.raises(ValueError) as e:
            aclnn_emu.run(api, **args)
        assert "%s: %s is read-only" % (api, name) in str(e.value), str(e.value)
        assert not ro.any()
    ro = x.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="aclnnInplaceExp: selfRef is read-only"):
        aclnn_emu.run("aclnnInplaceExp", selfRef=ro)
    with pytest.raises(ValueError, match="silu_backward: out is read-only"):
        aclnn_emu.silu_backward(x, x, out=ro)


def test_argument_errors_name_the_argument():
    x = data((2, 3), seed=10)
    with pytest.raises(TypeError, match="aclnnAdd: missing argument alpha"):
        aclnn_emu.run("aclnnAdd", self=x, other=x, out=np.empty_like(x))
    with pytest.raises(TypeError, match="unexpected arguments beta"):
        aclnn_emu.run("aclnnExp", self=x, out=np.empty_like(x), beta=1.0)
    with pytest.raises(TypeError, match="aclnnExp: out must be a numpy array or a DeviceTensor, not list"):
        aclnn_emu.run("aclnnExp", self=x, out=[0.0] * 6)
    with pytest.raises(TypeError, match="aclnnMuls: other must be a number"):
        aclnn_emu.run("aclnnMuls", self=x, other="2", out=np.empty_like(x))
    with pytest.raises(TypeError, match="aclnnExp: self: aclnn_emu has no aclDataType"):
        aclnn_emu.run("aclnnExp", self=np.array(["a"]), out=np.empty(1, np.float32))
    with pytest.raises(AclnnError) as e:  # the library's own message, naming the header's argument
        aclnn_emu.run("aclnnExp", self=x, out=np.empty((3, 2), np.float32))
    assert e.value.code == INVALID and "out" in e.value.message


# ------------------------------------------------------ the shared plan cache


def test_repeatable_operator_by_name_matches_its_function():
    x = data((5, 8), seed=11)
    dy = data((5, 8), seed=12)
    out = np.empty_like(x)
    for _ in range(3):  # first call plans, the others reuse the plan
        aclnn_emu.run("aclnnSiluBackward", gradOutput=dy, self=x, gradInput=out)
        np.testing.assert_array_equal(out, aclnn_emu.silu_backward(dy, x))
        cos, sin = data((1, 1, 8, 8), seed=13), data((1, 1, 8, 8), seed=14)
        xr = data((1, 2, 8, 8), seed=15)
        yr = np.empty_like(xr)
        aclnn_emu.run("aclnnRotaryPositionEmbedding", x=xr, cos=cos, sin=sin, mode=0, out=yr)
        np.testing.assert_array_equal(yr, aclnn_emu.rotary_position_embedding(xr, cos, sin, 0))


def test_cached_plans_still_refuse_a_partial_overlap():
    """A plan made for separate buffers is not reused for an output that partly overlaps its input."""
    buf = np.linspace(-1, 1, 65, dtype=np.float32)
    before = buf.copy()
    aclnn_emu.silu(buf[:64], out=np.empty(64, np.float32))  # plans (64,) float32
    aclnn_emu.run("aclnnSilu", self=buf[:64], out=np.empty(64, np.float32))
    with pytest.raises(AclnnError) as e:
        aclnn_emu.silu(buf[:64], out=buf[1:])
    assert e.value.code == INVALID and "overlap" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnSilu", self=buf[:64], out=buf[1:])
    assert e.value.code == INVALID and "overlap" in e.value.message
    assert np.array_equal(buf, before)
    aclnn_emu.silu(buf[:64], out=buf[:64])  # exactly in place is fine
    np.testing.assert_allclose(buf[:64], silu_ref(before[:64]), rtol=1e-5)


def test_bf16_plans_follow_a_product_changed_behind_their_back():
    x = np.linspace(-2, 2, 8).astype(ml_dtypes.bfloat16)
    aclnn_emu.silu(x)
    aclnn_emu.silu(x)  # served from the plan cache
    previous = aclnn_emu.soc_name()
    try:
        assert lib.aclnnEmuSetSocName(b"Ascend910") == 0  # raw call: no invalidate_plans()
        with pytest.raises(AclnnError) as e:
            aclnn_emu.silu(x)
        assert e.value.code == INVALID and "ACL_BF16" in e.value.message
    finally:
        aclnn_emu.set_soc_name(previous)
    np.testing.assert_allclose(aclnn_emu.silu(x).astype(np.float64), silu_ref(x), rtol=2**-7)


def test_numpy_scalars_keep_their_dtype():
    x = np.array([1.5, -2.0, 0.25], np.float32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnMuls", self=x, other=np.float32(2.0), out=out)
    np.testing.assert_array_equal(out, 2 * x)
    i = np.array([3, -4], np.int32)
    oi = np.empty_like(i)
    aclnn_emu.run("aclnnMuls", self=i, other=np.int32(3), out=oi)  # an INT32 scalar keeps integer arithmetic
    np.testing.assert_array_equal(oi, [9, -12])


# ------------------------------------------------------ lists and optional outputs


def test_tensor_lists_take_device_tensors_and_staged_arrays():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = np.empty((6, 3, 4), np.float32)
    with DeviceTensor.from_numpy(a + 100) as t:
        aclnn_emu.run("aclnnCat", tensors=[a.astype(">f4"), t, a[:, :, ::-1]], dim=0, out=out)
    np.testing.assert_array_equal(out, np.concatenate([a, a + 100, a[:, :, ::-1]]))
    with pytest.raises(TypeError, match=r"aclnnCat: tensors\[1\]: aclnn_emu has no aclDataType"):
        aclnn_emu.run("aclnnCat", tensors=[a, np.array(["a"])], dim=0, out=out)


def test_optional_outputs_may_be_left_out():
    x = data((3, 8), seed=16)
    out = np.empty_like(x)
    expected = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    assert aclnn_emu.run("aclnnLayerNorm", input=x, normalizedShape=[8], eps=1e-5, out=out) is out
    np.testing.assert_allclose(out, expected, atol=1e-5)
    mean, rstd = np.empty((3, 1), np.float32), np.empty((3, 1), np.float32)
    result = aclnn_emu.run("aclnnLayerNorm", input=x, normalizedShape=[8], eps=1e-5, out=out,
                           meanOutOptional=mean, rstdOutOptional=rstd)
    assert len(result) == 3 and all(r is e for r, e in zip(result, (out, mean, rstd)))
    np.testing.assert_allclose(mean, x.mean(-1, keepdims=True), atol=1e-6)
