"""The element-wise operators of the op-definition layer, through aclnn_emu.run.

Each result is compared with a float64 numpy reference written here, with
CANN's precision standard (MERE < T, MARE < 10 T; T = 2^-13 fp32, 2^-10 fp16,
2^-7 bf16), or exactly where the data makes the result exact. Also: numpy
broadcasting, strided inputs and outputs, transposed inputs (the tiled walk,
bit for bit against contiguous inputs), empty tensors, NaN/inf, the in-place
forms, partial overlap, every ISA level bit for bit, and the error codes with
the argument each message names.
"""

import math

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import AclnnError
from helpers import assert_isa_invariant, assert_thread_count_invariant, same_bits

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.dtype(np.float32), np.dtype(np.float16), BF16]
T = {np.dtype(np.float32): 2.0**-13, np.dtype(np.float16): 2.0**-10, BF16: 2.0**-7, np.dtype(np.float64): 2.0**-30}
NULLPTR, INVALID, NOT_IMPLEMENTED = 161001, 161002, 561003

erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def gelu_erf(x):
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def assert_close(actual, expected, dtype):
    """CANN's standard: mean and max relative error against the float64 reference."""
    actual = np.asarray(actual).astype(np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape
    # The reference rounded to the output dtype is what a perfect kernel returns.
    with np.errstate(over="ignore"):
        expected = expected.astype(dtype).astype(np.float64)
    finite = np.isfinite(expected)
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    assert np.array_equal(actual[~finite & ~np.isnan(expected)], expected[~finite & ~np.isnan(expected)])
    err = np.abs(actual[finite] - expected[finite]) / (np.abs(expected[finite]) + 1e-7)
    if err.size:
        t = T[np.dtype(dtype)]
        assert err.mean() < t and err.max() < 10 * t, (err.mean(), err.max())


def data(shape, dtype, lo=-4.0, hi=4.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


# name, api, reference, input range
UNARY = [
    ("abs", "aclnnAbs", np.abs, (-4, 4)),
    ("neg", "aclnnNeg", np.negative, (-4, 4)),
    ("exp", "aclnnExp", np.exp, (-10, 10)),
    ("log", "aclnnLog", np.log, (0.01, 100)),
    ("sqrt", "aclnnSqrt", np.sqrt, (0, 100)),
    ("sin", "aclnnSin", np.sin, (-10, 10)),
    ("cos", "aclnnCos", np.cos, (-10, 10)),
    ("tanh", "aclnnTanh", np.tanh, (-5, 5)),
    ("sigmoid", "aclnnSigmoid", sigmoid, (-10, 10)),
    ("relu", "aclnnRelu", lambda x: np.maximum(x, 0), (-4, 4)),
    ("gelu", "aclnnGelu", gelu_tanh, (-5, 5)),
    ("hardsigmoid", "aclnnHardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1), (-5, 5)),
    ("hardswish", "aclnnHardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, (-5, 5)),
    ("sign", "aclnnSign", np.sign, (-4, 4)),
]


def in_name(api):
    return "input" if api == "aclnnCos" else "self"


def out_name(api):
    return "result" if api == "aclnnSign" else "out"


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name,api,ref,rng", UNARY, ids=[u[0] for u in UNARY])
def test_unary_matches_float64(name, api, ref, rng, dtype):
    x = data((3, 37), dtype, *rng)
    out = np.empty_like(x)
    aclnn_emu.run(api, **{in_name(api): x, out_name(api): out})
    assert_close(out, ref(x.astype(np.float64)), dtype)


@pytest.mark.parametrize("name,api,ref,rng", UNARY, ids=[u[0] for u in UNARY])
def test_unary_strided_input_and_output(name, api, ref, rng):
    base = data((6, 40), np.float32, *rng)
    x = base[::2, 1:39:3]  # non-contiguous, with an offset
    out_base = np.full((5, 45), -7.0, np.float32)
    out = out_base[1:4, 0 : 3 * x.shape[1] : 3]
    aclnn_emu.run(api, **{in_name(api): x, out_name(api): out})
    assert_close(out, ref(x.astype(np.float64)), np.float32)
    untouched = np.ones(out_base.shape, bool)
    untouched[1:4, 0 : 3 * x.shape[1] : 3] = False
    assert np.all(out_base[untouched] == -7.0)  # nothing written outside the view


def test_unary_in_place_forms():
    for api, ref in [("aclnnInplaceExp", np.exp), ("aclnnInplaceSin", np.sin), ("aclnnInplaceTanh", np.tanh),
                     ("aclnnInplaceSigmoid", sigmoid), ("aclnnInplaceRelu", lambda v: np.maximum(v, 0)),
                     ("aclnnInplaceNeg", np.negative), ("aclnnInplaceSqrt", None)]:
        x = data((4, 33), np.float32, 0.1, 3)
        expected = (ref or np.sqrt)(x.astype(np.float64))
        name = aclnn_emu.operators()[api][0][0]
        aclnn_emu.run(api, **{name: x})
        assert_close(x, expected, np.float32)


def test_gelu_v2_approximate_selects_the_formula():
    x = data((257,), np.float32, -5, 5)
    y = np.empty_like(x)
    aclnn_emu.run("aclnnGeluV2", x=x, approximate=0, y=y)
    assert_close(y, gelu_erf(x.astype(np.float64)), np.float32)
    aclnn_emu.run("aclnnGeluV2", x=x, approximate=1, y=y)
    assert_close(y, gelu_tanh(x.astype(np.float64)), np.float32)
    # The two differ: the test would notice one formula standing in for the other.
    assert np.abs(gelu_erf(x.astype(np.float64)) - gelu_tanh(x.astype(np.float64))).max() > 1e-4


def test_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 100.0, -100.0, 1e-30], np.float32)
    for api, ref in [("aclnnExp", np.exp), ("aclnnTanh", np.tanh), ("aclnnSigmoid", sigmoid), ("aclnnAbs", np.abs)]:
        out = np.empty_like(x)
        with np.errstate(all="ignore"):
            expected = ref(x.astype(np.float64))
        aclnn_emu.run(api, self=x, out=out)
        assert_close(out, expected, np.float32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnRelu", self=x, out=out)
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == 0 and np.array_equal(out[5:], np.float32([100, 0, 1e-30]))


def test_exp_subnormal_and_overflow_edges():
    x = np.array([88.72, 88.73, 89.0, -87.3, -100.0, -103.9, -104.5, -200.0], np.float32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnExp", self=x, out=out)
    with np.errstate(over="ignore"):
        expected = np.exp(x.astype(np.float64)).astype(np.float32)
    assert np.array_equal(np.isinf(out), np.isinf(expected))
    finite = np.isfinite(expected)
    # Subnormal results are exact to one unit of the subnormal spacing.
    err = np.abs(out[finite].astype(np.float64) - expected[finite])
    assert np.all(err <= np.maximum(np.abs(expected[finite]) * 2e-7, 1.5e-45))


def test_empty_tensors_succeed_and_touch_nothing():
    x = np.empty((0, 5), np.float32)
    out = np.empty((0, 5), np.float32)
    aclnn_emu.run("aclnnExp", self=x, out=out)
    aclnn_emu.run("aclnnAdd", self=x, other=np.ones(5, np.float32), alpha=1.0, out=out)


# ---------------------------------------------------------------- with scalars


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_scalar_activations(dtype):
    x = data((5, 29), dtype, -6, 6)
    x64 = x.astype(np.float64)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnElu", self=x, alpha=0.5, scale=2.0, inputScale=1.5, out=out)
    assert_close(out, np.where(x64 > 0, 2 * x64, 2 * 0.5 * (np.exp(1.5 * x64) - 1)), dtype)
    aclnn_emu.run("aclnnSoftplus", self=x, beta=2.0, threshold=5.0, out=out)
    assert_close(out, np.where(2 * x64 > 5, x64, np.log1p(np.exp(2 * x64)) / 2), dtype)
    aclnn_emu.run("aclnnLeakyRelu", self=x, negativeSlope=0.25, out=out)
    assert_close(out, np.where(x64 > 0, x64, 0.25 * x64), dtype)
    aclnn_emu.run("aclnnGtScalar", self=x, other=0.5, out=out)
    assert np.array_equal(out.astype(np.float64), (x64 > 0.5).astype(np.float64))
    aclnn_emu.run("aclnnClamp", self=x, clipValueMin=-1.0, clipValueMax=2.0, out=out)
    assert np.array_equal(out, np.clip(x64, -1, 2).astype(dtype))
    aclnn_emu.run("aclnnThreshold", self=x, threshold=1.0, value=-3.0, out=out)
    assert np.array_equal(out, np.where(x64 > 1, x64, -3).astype(dtype))


def test_clamp_rules():
    x = np.array([-5, -1, 0, 1, 5, np.nan], np.float32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnClamp", self=x, clipValueMax=1.0, out=out)  # min absent
    assert np.array_equal(out[:5], [-5, -1, 0, 1, 1]) and np.isnan(out[5])
    aclnn_emu.run("aclnnClamp", self=x, clipValueMin=3.0, clipValueMax=1.0, out=out)  # min > max: min wins
    assert np.all(out[:5] == 3)
    aclnn_emu.run("aclnnClampMin", self=x, clipValueMin=0.0, out=out)
    assert np.array_equal(out[:5], [0, 0, 0, 1, 5])
    aclnn_emu.run("aclnnInplaceClampMax", selfRef=x, clipValueMax=0.5)
    assert np.array_equal(x[:5], [-5, -1, 0, 0.5, 0.5])
    i = np.array([-7, 3, 9], np.int32)
    oi = np.empty_like(i)
    aclnn_emu.run("aclnnClamp", self=i, clipValueMin=(-2, np.int32), clipValueMax=(5, np.int32), out=oi)
    assert np.array_equal(oi, [-2, 3, 5])
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnClamp", self=x, out=out)
    assert e.value.code == NULLPTR and "clipValueMin" in e.value.message


def test_elu_with_infinite_alpha_uses_cann_limit_form():
    x = np.array([-2.0, -0.5, 0.5, 3.0], np.float32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnElu", self=x, alpha=float("inf"), scale=2.0, inputScale=1.0, out=out)
    assert np.array_equal(out, [-np.inf, -np.inf, 1.0, 6.0])


def test_threshold_rounds_scalars_to_the_tensor_dtype():
    # 0.1 is not an fp16 value: CANN compares with fp16(0.1), so that exact value is not above it.
    t16 = float(np.float16(0.1))
    x = np.array([t16, np.nextafter(np.float16(t16), np.float16(1))], np.float16)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnThreshold", self=x, threshold=0.1, value=-1.0, out=out)
    assert np.array_equal(out, [np.float16(-1), x[1]])


# ---------------------------------------------------------------- binary


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_binary_with_broadcasting(dtype):
    a = data((2, 3, 1, 17), dtype, -3, 3, seed=1)
    b = data((4, 1), dtype, 0.5, 3, seed=2)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    out = np.empty((2, 3, 4, 17), dtype)
    for api, ref, extra in [("aclnnAdd", a64 + 1.5 * b64, {"alpha": 1.5}), ("aclnnSub", a64 - 2 * b64, {"alpha": 2.0}),
                            ("aclnnMul", a64 * b64, {}), ("aclnnDiv", a64 / b64, {})]:
        aclnn_emu.run(api, self=a, other=b, out=out, **extra)
        assert_close(out, ref, dtype)


def test_binary_promotion_and_integer_division():
    a = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    b = np.full((4,), 4, np.int32)
    f = np.empty((3, 4), np.float32)
    aclnn_emu.run("aclnnDiv", self=a, other=b, out=f)  # true division in FLOAT
    assert np.array_equal(f, (a / 4).astype(np.float32))
    i = np.empty((3, 4), np.int32)
    aclnn_emu.run("aclnnAdd", self=a, other=b, alpha=(3, np.int32), out=i)  # exact integer arithmetic
    assert np.array_equal(i, a + 3 * b)
    big = np.array([2**62, -(2**62)], np.int64)
    o64 = np.empty_like(big)
    aclnn_emu.run("aclnnAdd", self=big, other=np.array([1, -1], np.int64), alpha=(1, np.int64), out=o64)
    assert np.array_equal(o64, [2**62 + 1, -(2**62) - 1])
    mixed = np.empty((3, 4), np.float32)
    aclnn_emu.run("aclnnMul", self=a, other=np.float32([0.5, 1, 2, 4]), out=mixed)
    assert np.array_equal(mixed, a * np.float32([0.5, 1, 2, 4]))
    with pytest.raises(AclnnError) as e:  # FLOAT result into an INT32 out
        aclnn_emu.run("aclnnMul", self=a, other=np.float32([0.5, 1, 2, 4]), out=i)
    assert e.value.code == INVALID and "out" in e.value.message


def test_scalar_forms():
    x = data((3, 10), np.float32, -2, 2)
    x64 = x.astype(np.float64)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnAdds", self=x, other=1.25, alpha=2.0, out=out)
    assert_close(out, x64 + 2.5, np.float32)
    aclnn_emu.run("aclnnSubs", self=x, other=1.25, alpha=1.0, out=out)
    assert_close(out, x64 - 1.25, np.float32)
    aclnn_emu.run("aclnnMuls", self=x, other=-3.0, out=out)
    assert_close(out, x64 * -3, np.float32)
    aclnn_emu.run("aclnnDivs", self=x, other=4.0, out=out)
    assert_close(out, x64 / 4, np.float32)
    e = np.abs(x) + 0.5
    aclnn_emu.run("aclnnPowScalarTensor", self=2.0, exponent=e, out=out)
    assert_close(out, 2.0 ** e.astype(np.float64), np.float32)
    # A FLOAT scale on an FLOAT16 tensor is rounded to FLOAT16 first, as CANN does.
    h = np.float16([1.0, 3.0, 1000.0])
    oh = np.empty_like(h)
    aclnn_emu.run("aclnnMuls", self=h, other=0.1, out=oh)
    assert np.array_equal(oh, (h.astype(np.float32) * np.float32(np.float16(0.1))).astype(np.float16))


def test_eq_tensor_and_in_place_binary():
    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    b = np.array([1, 0, 6], np.float32)
    out = np.empty((2, 3), np.bool_)
    aclnn_emu.run("aclnnEqTensor", self=a, other=b.reshape(1, 3), out=out)
    assert np.array_equal(out, a == b)
    x = a.copy()
    aclnn_emu.run("aclnnInplaceMul", selfRef=x, other=b)
    assert np.array_equal(x, a * b)
    aclnn_emu.run("aclnnInplaceAdd", selfRef=x, other=np.float32([1]), alpha=1.0)
    assert np.array_equal(x, a * b + 1)
    with pytest.raises(AclnnError) as e:  # other cannot broadcast into selfRef's shape
        aclnn_emu.run("aclnnInplaceAdd", selfRef=b.copy(), other=a, alpha=1.0)
    assert e.value.code == INVALID and "selfRef" in e.value.message


def test_squaring_with_both_inputs_on_one_buffer_and_out_on_it_too():
    x = data((4, 9), np.float32)
    expected = x.astype(np.float64) ** 2
    aclnn_emu.run("aclnnMul", self=x, other=x, out=x)  # ggml's SQR, in place
    assert_close(x, expected, np.float32)


def test_partial_overlap_is_refused():
    buf = np.linspace(-1, 1, 65, dtype=np.float32)
    before = buf.copy()
    for api, args in [("aclnnExp", {"self": buf[:64], "out": buf[1:]}),
                      ("aclnnSilu", {"self": buf[:64], "out": buf[1:]}),  # validated by the same layer
                      ("aclnnAdd", {"self": buf[1:], "other": buf[:64], "alpha": 1.0, "out": buf[:64]})]:
        with pytest.raises(AclnnError) as e:
            aclnn_emu.run(api, **args)
        assert e.value.code == INVALID and "out" in e.value.message and "overlap" in e.value.message
    # SiluBackward too, on every ISA level (its tuned kernels never see the call)
    for isa in aclnn_emu.available_isas():
        aclnn_emu.set_isa_cap(isa)
        try:
            with pytest.raises(AclnnError) as e:
                aclnn_emu.run("aclnnSiluBackward", gradOutput=buf[:64], self=buf[:64], gradInput=buf[1:])
        finally:
            aclnn_emu.set_isa_cap("avx512_bf16")
        assert e.value.code == INVALID and "gradInput" in e.value.message and "overlap" in e.value.message
    assert np.array_equal(buf, before)
    # exactly in place is fine
    dy = np.full(64, 0.5, np.float32)
    aclnn_emu.run("aclnnSiluBackward", gradOutput=dy, self=buf[:64], gradInput=buf[:64])
    s = 1 / (1 + np.exp(-before[:64].astype(np.float64)))
    np.testing.assert_allclose(buf[:64], 0.5 * s * (1 + before[:64] * (1 - s)), rtol=1e-5)


# ---------------------------------------------------------------- copy, cast, fill


def test_cast_between_dtypes():
    x = np.array([-2.7, -0.5, 0.5, 1.5, 2.5, 3e9, np.nan, 65519.0], np.float32)
    out = np.empty(x.shape, np.float16)
    aclnn_emu.run("aclnnCast", self=x, dtype=np.float16, out=out)
    with np.errstate(all="ignore"):
        assert np.array_equal(out, x.astype(np.float16), equal_nan=True)  # round to nearest even, inf past 65504
    i = np.empty(x.shape, np.int32)
    aclnn_emu.run("aclnnCast", self=x, dtype=np.int32, out=i)
    assert np.array_equal(i, [-2, 0, 0, 1, 2, 2**31 - 1, 0, 65519])  # truncation, saturation, NaN -> 0
    b = np.empty(x.shape, np.bool_)
    aclnn_emu.run("aclnnCast", self=x, dtype=np.bool_, out=b)
    assert np.array_equal(b, x != 0)
    bf = np.empty(x.shape, BF16)
    aclnn_emu.run("aclnnCast", self=x, dtype=BF16, out=bf)
    assert np.array_equal(bf.view(np.uint16)[:6], x[:6].astype(BF16).view(np.uint16))
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnCast", self=x, dtype=np.float16, out=i)
    assert e.value.code == INVALID and "dtype" in e.value.message


def test_inplace_copy_broadcasts_and_converts_into_a_strided_view():
    dst_base = np.zeros((4, 10), np.float16)
    dst = dst_base[:, 2:8:2]  # (4, 3), strided, offset
    src = np.array([1.5, -2.25, 3.0], np.float32)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=dst, src=src)
    assert np.array_equal(dst, np.broadcast_to(src, (4, 3)).astype(np.float16))
    mask = np.ones(dst_base.shape, bool)
    mask[:, 2:8:2] = False
    assert np.all(dst_base[mask] == 0)
    t = np.arange(12, dtype=np.int64).reshape(3, 4)
    dt = np.empty((4, 3), np.int64)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=dt, src=t.T)  # transposed view, same dtype: exact bytes
    assert np.array_equal(dt, t.T)


def test_zero_and_fill():
    x = np.ones((3, 5), np.int32)
    aclnn_emu.run("aclnnInplaceFillScalar", selfRef=x, value=7.9)
    assert np.all(x == 7)  # converted to INT32 first
    aclnn_emu.run("aclnnInplaceZero", selfRef=x)
    assert np.all(x == 0)
    h = np.ones((2, 3), np.float16)[:, ::2]
    aclnn_emu.run("aclnnInplaceFillScalar", selfRef=h, value=0.1)
    assert np.all(h == np.float16(0.1))


# ---------------------------------------------------------------- gated units


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_swiglu_and_geglu(dtype):
    x = data((2, 3, 16), dtype, -4, 4)
    a, b = x[..., :8].astype(np.float64), x[..., 8:].astype(np.float64)
    out = np.empty((2, 3, 8), dtype)
    aclnn_emu.run("aclnnSwiGlu", x=x, dim=-1, out=out)
    assert_close(out, a * sigmoid(a) * b, dtype)
    gelu_out = np.empty_like(out)
    aclnn_emu.run("aclnnGeGluV3", self=x, dim=2, approximate=1, activateLeft=True, out=out, outGelu=gelu_out)
    assert_close(gelu_out, gelu_tanh(a), dtype)
    assert_close(out, gelu_tanh(a) * b, dtype)
    aclnn_emu.run("aclnnGeGluV3", self=x, dim=-1, approximate=0, activateLeft=False, out=out, outGelu=gelu_out)
    assert_close(gelu_out, gelu_erf(b), dtype)
    assert_close(out, a * gelu_erf(b), dtype)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnSwiGlu", x=data((2, 5), dtype), dim=1, out=np.empty((2, 2), dtype))
    assert e.value.code == INVALID and "even" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnGeGluV3", self=x, dim=3, approximate=0, activateLeft=True, out=out, outGelu=gelu_out)
    assert e.value.code == INVALID and "dim" in e.value.message


# ---------------------------------------------------------------- ISA levels and errors


def test_every_isa_level_gives_the_same_bits():
    x = data((5, 1031), np.float32, -20, 20)  # blocks of 1024 and a ragged tail
    h = x.astype(np.float16)
    results = {}
    for isa in aclnn_emu.available_isas():
        aclnn_emu.set_isa_cap(isa)
        try:
            outs = []
            for api in ["aclnnExp", "aclnnSigmoid", "aclnnTanh", "aclnnGelu", "aclnnSin", "aclnnHardswish"]:
                for arr in (x, h):
                    out = np.empty_like(arr)
                    aclnn_emu.run(api, **{in_name(api): arr, "out": out})
                    outs.append(out.view(np.uint8).copy())
            o = np.empty_like(x)
            aclnn_emu.run("aclnnAdd", self=x, other=x[:1], alpha=0.5, out=o)
            outs.append(o.view(np.uint8).copy())
            assert aclnn_emu.last_kernel().endswith(isa if isa != "avx512_bf16" else "avx512")
            results[isa] = outs
        finally:
            aclnn_emu.set_isa_cap("avx512_bf16")
    first = next(iter(results.values()))
    for isa, outs in results.items():
        for a, b in zip(first, outs):
            assert np.array_equal(a, b), isa


def test_null_and_dtype_errors_name_the_argument():
    x = data((2, 3), np.float32)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnAbs", self=x, out=np.empty((2, 3), np.float16))
    assert e.value.code == INVALID and "out" in e.value.message and "ACL_FLOAT16" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnGelu", self=x.astype(np.int32), out=np.empty((2, 3), np.int32))
    assert e.value.code == INVALID and "self" in e.value.message and "ACL_INT32" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnExp", self=x, out=np.empty((3, 2), np.float32))
    assert e.value.code == INVALID and "shape" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnNeg", self=x, out=np.empty((2, 3), np.int32))  # FLOAT cannot cast to INT32
    assert e.value.code == INVALID and "out" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnAdd", self=x, other=np.ones((4,), np.float32), alpha=1.0, out=x)
    assert e.value.code == INVALID and "broadcast" in e.value.message
    nine = np.ones((1,) * 9, np.float32)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnExp", self=nine, out=nine.copy())
    assert e.value.code == INVALID and "rank 9" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnAdd", self=x, other=x, alpha=1.0, out=np.empty((2, 3), np.bool_))
    assert e.value.code == INVALID


def test_null_arguments_return_161001_with_the_name():
    ffi, lib = aclnn_emu.ffi, aclnn_emu.lib
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    for call, name in [(lambda: lib.aclnnExpGetWorkspaceSize(ffi.NULL, ffi.NULL, ws, ex), "self"),
                       (lambda: lib.aclnnAddGetWorkspaceSize(ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ws, ex), "self"),
                       (lambda: lib.aclnnInplaceCopyGetWorkspaceSize(ffi.NULL, ffi.NULL, ws, ex), "selfRef"),
                       (lambda: lib.aclnnDivGetWorkspaceSize(ffi.NULL, ffi.NULL, ffi.NULL, ws, ex), "out")]:
        assert call() == NULLPTR
        assert name in aclnn_emu.errors.last_error_message()


def test_registry_lists_only_implemented_operators():
    ops = aclnn_emu.operators()
    assert ops["aclnnAdd"] == [("self", "tensor"), ("other", "tensor"), ("alpha", "scalar"), ("out", "out")]
    ffi, lib = aclnn_emu.ffi, aclnn_emu.lib
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    for api, signature in ops.items():
        args = [ffi.NULL if kind not in ("int", "bool", "double", "dtype") else 0 for _, kind in signature]
        rc = getattr(lib, api + "GetWorkspaceSize")(*args, ws, ex)
        assert rc not in (0, NOT_IMPLEMENTED), api
    with pytest.raises(ValueError):
        aclnn_emu.run("aclnnGroupedMatmulV3")


# ---------------------------------------------------------------- vectorizable fp32 math (src/kernels/ew/fmath.h)
# fp32 Tanh, Sin, Cos, Log and the erf-form GELU (GeluV2 approximate=0, GeGluV3 approximate=0) run fmath.h's
# vectorizable forms (fp64 keeps libm); Sin and Cos send |x| > 2^22 and inf to libm's sinf/cosf, element by
# element. Measured here in ulp of the float64 reference over the whole float range (exhaustively over every
# float when written: tanh 1.4, sin/cos 2.4 up to 2^22, GELU-erf 3.8, log 0.9 ulp); special values; the same bits
# on every ISA level and thread count, NaN payloads included.

from helpers import assert_isa_invariant, assert_thread_count_invariant  # noqa: E402

ERFC = np.vectorize(math.erfc, otypes=[np.float64])
FM_MAX_ULP = {"tanh": 2.0, "sin": 3.0, "cos": 3.0, "log": 1.0, "gelu_erf": 4.0}
FM_SINCOS_MAX = 2.0**22  # above: libm


def fm_gelu_erf(x):
    return 0.5 * x * ERFC(-x / math.sqrt(2.0))


FM_OPS = {  # name: (api, input name, output name, float64 reference)
    "tanh": ("aclnnTanh", "self", "out", np.tanh),
    "sin": ("aclnnSin", "self", "out", np.sin),
    "cos": ("aclnnCos", "input", "out", np.cos),
    "log": ("aclnnLog", "self", "out", np.log),
    "gelu_erf": ("aclnnGeluV2", "x", "y", fm_gelu_erf),
}


def fm_run(name, x):
    api, in_arg, out_arg, _ = FM_OPS[name]
    out = np.empty_like(x)
    kw = {"approximate": 0} if name == "gelu_erf" else {}
    aclnn_emu.run(api, **{in_arg: x, out_arg: out}, **kw)
    return out


def fm_random_floats(n, lo_bits, hi_bits, seed, signed=True):
    """Floats with bit patterns uniform in [lo_bits, hi_bits): every binade in the range equally often."""
    rng = np.random.default_rng(seed)
    x = rng.integers(lo_bits, hi_bits, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return x * np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32) if signed else x


def fm_ulp_error(actual, reference):
    """Max error in ulp of the reference (normal results), and in units of 2^-149 (subnormal results)."""
    actual = actual.astype(np.float64)
    finite = np.isfinite(reference)
    assert np.array_equal(np.isnan(actual), np.isnan(reference))
    assert np.array_equal(actual[~finite & ~np.isnan(reference)], reference[~finite & ~np.isnan(reference)])
    a, r = actual[finite], reference[finite]
    normal = np.abs(r) >= 2.0**-126
    ulp = np.where(normal, np.ldexp(1.0, np.frexp(r)[1] - 24), 2.0**-149)
    err = np.abs(a - r) / ulp
    return (err[normal].max() if normal.any() else 0.0), (err[~normal].max() if (~normal).any() else 0.0)


def fm_inputs(name):
    all_finite = (1, 0x7F800000)  # every positive finite float's bits
    if name == "tanh":
        parts = [fm_random_floats(1 << 17, *all_finite, 1), data((1 << 16,), np.float32, -10, 10, 2)]
    elif name in ("sin", "cos"):
        k = np.arange(1, 40000, dtype=np.float64)
        parts = [fm_random_floats(1 << 17, 1, 0x4A800000, 3),  # |x| < 2^22
                 data((1 << 16,), np.float32, -1e5, 1e5, 4),
                 (k * (math.pi / 2)).astype(np.float32),  # the floats nearest multiples of pi/2
                 (k * 1e4 * (math.pi / 2)).astype(np.float32),
                 fm_random_floats(1 << 14, 0x4A800000, 0x7F800000, 5)]  # the libm range
    elif name == "log":
        parts = [fm_random_floats(1 << 17, *all_finite, 6, signed=False),  # subnormals included
                 data((1 << 16,), np.float32, 0.5, 2.0, 7)]
    else:  # gelu_erf: the far negative tail keeps its relative precision down to the subnormals
        parts = [fm_random_floats(1 << 17, *all_finite, 8), data((1 << 16,), np.float32, -14.5, 8, 9),
                 data((1 << 14,), np.float32, -0.8, 0.8, 10)]
    return np.concatenate(parts)


@pytest.mark.parametrize("name", list(FM_OPS))
def test_fp32_math_is_within_a_few_ulp_over_the_float_range(name):
    x = fm_inputs(name)
    with np.errstate(all="ignore"):
        reference = FM_OPS[name][3](x.astype(np.float64))
        reference = np.where(np.abs(reference) > np.finfo(np.float32).max, np.sign(reference) * np.inf, reference)
    normal_ulp, subnormal_units = fm_ulp_error(fm_run(name, x), reference)
    assert normal_ulp <= FM_MAX_ULP[name], normal_ulp
    assert subnormal_units <= FM_MAX_ULP[name], subnormal_units
    # and CANN's standard on the usual inputs, in every storage dtype
    x = data((4, 999), np.float32, *{"log": (1e-3, 1e3), "tanh": (-6, 6)}.get(name, (-8, 8)), seed=11)
    for dtype in FLOATS:
        xd = x.astype(dtype)
        with np.errstate(all="ignore"):
            assert_close(fm_run(name, xd), FM_OPS[name][3](xd.astype(np.float64)), dtype)


def test_fp32_math_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, inf, -inf, nan, 1e-30, -1e-30, 1e-45, -1e-45, 20.0, -20.0, 1e30, -1e30], np.float32)

    def bits_equal(actual, expected):
        return np.array_equal(np.asarray(expected, np.float32).view(np.uint32), actual.view(np.uint32))

    t = fm_run("tanh", x)
    assert bits_equal(t[[0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12]], [0.0, -0.0, 1, -1, 1e-30, -1e-30, 1e-45, -1e-45,
                                                                   1, -1, 1, -1])
    assert np.isnan(t[4])
    s = fm_run("sin", x)
    assert bits_equal(s[[0, 1, 5, 6, 7, 8]], [0.0, -0.0, 1e-30, -1e-30, 1e-45, -1e-45])
    assert np.isnan(s[2:5]).all() and s[11] == np.float32(np.sin(np.float64(np.float32(1e30)))) and s[12] == -s[11]
    c = fm_run("cos", x)
    assert bits_equal(c[[0, 1, 5, 6, 7, 8]], [1.0] * 6) and np.isnan(c[2:5]).all() and c[11] == c[12]
    with np.errstate(all="ignore"):
        lg = fm_run("log", x)
    assert bits_equal(lg[[0, 1, 2]], [-inf, -inf, inf]) and np.isnan(lg[[3, 4, 6, 8, 10, 12]]).all()
    assert bits_equal(fm_run("log", np.float32([1.0, 2.0**-149, 2.0**127])),
                      np.float32([0.0, -149 * math.log(2), 127 * math.log(2)]))
    # GELU, erf form: 0.5 x erfc(-x/sqrt 2) as the fp64 (libm) body, so -inf gives NaN (-inf * 0)
    g = fm_run("gelu_erf", x)
    assert bits_equal(g[[0, 1, 2, 5, 6, 9, 10, 11, 12]], [0.0, -0.0, inf, 5e-31, -5e-31, 20, -0.0, 1e30, -0.0])
    assert np.isnan(g[[3, 4]]).all()
    tail = np.float32([-13.0, -13.2, -13.5, -14.0])  # results 1.0e-37, 2.2e-38 (normal), then subnormal
    ref = fm_gelu_erf(tail.astype(np.float64))
    assert np.all(np.abs(fm_run("gelu_erf", tail) - ref) <= np.maximum(np.abs(ref) * 5e-7, 4 * 2.0**-149))
    for name in ("tanh", "sin", "cos", "gelu_erf", "log"):  # a NaN input's own NaN comes back, quieted
        payloads = np.array([0x7FC00001, 0xFFC12345, 0x7F800001], np.uint32).view(np.float32)
        out = fm_run(name, payloads)
        assert np.array_equal(out.view(np.uint32), np.array([0x7FC00001, 0xFFC12345, 0x7FC00001], np.uint32)), name


def fm_mixed_input(n=5 * 1031, seed=12):
    """Ordinary values with NaNs (several payloads and signs), infinities, zeros, subnormals and huge values
    (the libm range of sin and cos) sprinkled over blocks and ragged tails."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-20, 20, n).astype(np.float32)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-45, 3e7, -1e20, 1e38, 5e6],
                        np.float32)
    where = rng.choice(n, 400, replace=False)
    x[where] = specials[rng.integers(0, len(specials), where.size)]
    x[where[:20]] = np.array([0x7FC00001 + i * 0x101 for i in range(20)], np.uint32).view(np.float32)
    x[1031:2062] = rng.uniform(-1e4, 1e4, 1031).astype(np.float32)  # a block without the libm range
    return x


def fm_all_results():
    x = fm_mixed_input()
    outs = []
    with np.errstate(all="ignore"):
        for name in FM_OPS:
            for dtype in (np.float32, np.float16):
                outs.append(fm_run(name, x.astype(dtype)))
        halves = x[: 4 * 1031].reshape(2, 2, 1031)
        for approximate in (0, 1):
            out = np.empty((2, 1, 1031), np.float32)
            gelu = np.empty_like(out)
            aclnn_emu.run("aclnnGeGluV3", self=halves, dim=1, approximate=approximate, activateLeft=True, out=out,
                          outGelu=gelu)
            outs += [out, gelu]
        y = x.copy()
        aclnn_emu.run("aclnnInplaceSin", selfRef=y)  # in place, through the libm fallback
        outs.append(y)
    return outs


def test_fp32_math_same_bits_on_every_isa_level_and_thread_count():
    assert_isa_invariant(fm_all_results)
    assert_thread_count_invariant(fm_all_results)
    x = fm_mixed_input()
    y = x.copy()
    aclnn_emu.run("aclnnInplaceSin", selfRef=y)
    assert np.array_equal(y.view(np.uint32), fm_run("sin", x).view(np.uint32))  # in place = out of place
    aclnn_emu.set_isa_cap("scalar")
    try:
        fm_run("sin", x)
        assert aclnn_emu.last_kernel().endswith("scalar")
    finally:
        aclnn_emu.set_isa_cap("avx512_bf16")


def test_fp64_math_keeps_libm():
    x = np.concatenate([np.linspace(-20, 20, 1001), [1e10, -3e15, 1e300]])
    for name, ref in (("sin", np.sin), ("cos", np.cos), ("log", np.log)):
        arg = np.abs(x) + 1e-3 if name == "log" else x
        out = fm_run(name, arg)
        assert aclnn_emu.last_kernel().startswith("ew_%s_f64" % name)
        np.testing.assert_allclose(out, ref(arg), rtol=2e-16, atol=0)


# ---------------------------------------------------------------- transposed inputs: the tiled walk
# Where the output is dense along its last dimension and an input steps a cache line or more along it
# while being dense along another dimension, the loop walks tiles and transposes them (kernel names
# end in "_tiled__<isa>"). The results must be the bits of the untiled loop: the same operator on a
# contiguous copy of the input.

TILED_SHAPES = [(2, 3), (1, 40), (40, 1), (16, 16), (17, 33), (64, 64), (65, 63), (100, 300), (600, 130),
                (1000, 33), (5, 1031)]


def tiled_case(x):
    """Whether copying x.T (x contiguous, 2-D) into a contiguous array takes the tiled walk."""
    return x.shape[0] > 1 and x.shape[1] > 1 and x.shape[1] * x.itemsize >= 64


def bits_of_contiguous(api, out_like, **operands):
    """What `api` writes into a fresh array like out_like from contiguous copies of the operands."""
    out = np.zeros_like(out_like)
    dense = {k: np.ascontiguousarray(v) if isinstance(v, np.ndarray) else v for k, v in operands.items()}
    aclnn_emu.run(api, **dense, **{"out": out} if api != "aclnnInplaceCopy" else {"selfRef": out})
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.float64, np.int8, np.int64, np.bool_], ids=str)
@pytest.mark.parametrize("shape", TILED_SHAPES, ids=str)
def test_copy_of_a_transposed_view_is_exact(dtype, shape):
    x = data(shape, np.float32, -100, 100, seed=sum(shape)).astype(dtype)
    out = np.zeros(shape[::-1], dtype)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=out, src=x.T)
    assert same_bits(out, np.ascontiguousarray(x.T))
    assert aclnn_emu.last_kernel().split("__")[0].endswith("_tiled") == tiled_case(x)


@pytest.mark.parametrize("perm", [(0, 2, 1), (2, 0, 1), (1, 2, 0), (2, 1, 0)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint8], ids=str)
def test_copy_of_a_permuted_3d_view_is_exact(perm, dtype):
    x = data((7, 45, 70), np.float32, -100, 100, seed=3).astype(dtype)
    src = x.transpose(perm)
    out = np.zeros(src.shape, dtype)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=out, src=src)
    assert same_bits(out, np.ascontiguousarray(src))
    assert "_tiled__" in aclnn_emu.last_kernel()


def test_copy_of_a_transposed_view_into_strided_and_offset_outputs():
    x = data((90, 70), np.float32, seed=4)
    base = np.zeros((75, 100), np.float32)
    out = base[3:73, 5:95]  # rows 100 apart, offset: dense along the last dimension only
    aclnn_emu.run("aclnnInplaceCopy", selfRef=out, src=x.T)
    assert np.array_equal(out, x.T)
    assert "_tiled__" in aclnn_emu.last_kernel()
    mask = np.ones(base.shape, bool)
    mask[3:73, 5:95] = False
    assert np.all(base[mask] == 0)
    # a sliced source (rows 130 apart, offset) and a batch dimension broadcast into the output
    big = data((100, 130), np.float32, seed=5)
    src = big[4:94, 10:80]
    out3 = np.zeros((3, 70, 90), np.float32)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=out3, src=src.T)
    assert np.array_equal(out3, np.broadcast_to(src.T, out3.shape))
    assert "_tiled__" in aclnn_emu.last_kernel()
    # a transposed output is not tiled (its last dimension is not dense) but still exact
    out_t = np.zeros((70, 90), np.float32)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=out_t.T, src=x)
    assert np.array_equal(out_t.T, x)


@pytest.mark.parametrize("src_dtype,out_dtype", [(np.float32, np.float16), (np.float32, BF16), (np.float16, np.float32),
                                                 (BF16, np.float16), (np.float32, np.int8), (np.int32, np.float32),
                                                 (np.float64, np.float32), (np.float32, np.bool_)], ids=str)
@pytest.mark.parametrize("shape", [(3, 70), (65, 63), (300, 200), (1000, 33)], ids=str)
def test_cast_of_a_transposed_view_matches_the_contiguous_cast(src_dtype, out_dtype, shape):
    x = data(shape, np.float32, -300, 300, seed=6)
    if np.dtype(src_dtype).kind in "iu":
        x = x.astype(np.int64).astype(src_dtype)
    else:
        x[0, :3] = [np.nan, np.inf, -np.inf]
        x = x.astype(src_dtype)
    out = np.zeros(shape[::-1], out_dtype)
    aclnn_emu.run("aclnnCast", self=x.T, dtype=out_dtype, out=out)
    assert "_tiled__" in aclnn_emu.last_kernel()
    assert same_bits(out, bits_of_contiguous("aclnnCast", out, self=x.T, dtype=out_dtype))
    inplace = np.zeros_like(out)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=inplace, src=x.T)
    assert same_bits(inplace, out)
    if out_dtype == np.float16 and src_dtype == np.float32:
        with np.errstate(all="ignore"):
            assert same_bits(out, np.ascontiguousarray(x.T).astype(np.float16))  # round to nearest even


def test_binary_and_unary_operators_on_transposed_inputs_match_contiguous_inputs():
    x = data((300, 200), np.float32, seed=7)
    y = data((200, 300), np.float32, seed=8)
    for api, operands in [("aclnnAdd", dict(self=x.T, other=y, alpha=0.5)),  # one transposed input
                          ("aclnnMul", dict(self=x.T, other=x.T)),  # both
                          ("aclnnAdd", dict(self=y, other=x.T.astype(np.float16), alpha=1.0)),  # promoted
                          ("aclnnExp", dict(self=x.T))]:
        out = np.zeros((200, 300), np.float32)
        aclnn_emu.run(api, **operands, out=out)
        assert "_tiled__" in aclnn_emu.last_kernel(), api
        assert same_bits(out, bits_of_contiguous(api, out, **operands)), api
    h, row = x.astype(np.float16), data((300,), np.float16, seed=12)  # a broadcast row: stride 0 along `across`
    out = np.zeros((200, 300), np.float16)
    aclnn_emu.run("aclnnMul", self=h.T, other=row, out=out)
    assert "_tiled__" in aclnn_emu.last_kernel()
    assert same_bits(out, bits_of_contiguous("aclnnMul", out, self=h.T, other=row))


def test_empty_and_single_element_transposed_views():
    for shape in [(0, 5), (5, 0), (1, 1)]:
        x = np.ones(shape, np.float32)
        out = np.full(shape[::-1], 7, np.float32)
        aclnn_emu.run("aclnnInplaceCopy", selfRef=out, src=x.T)
        assert np.array_equal(out, x.T)


def tiled_results():
    """Tiled copies, casts and a binary operator, large enough for several parallel chunks."""
    x = data((700, 300), np.float32, seed=9)
    results = []
    for dtype in (np.float32, np.float16, BF16, np.uint8, np.float64):
        out = np.zeros((300, 700), dtype)
        aclnn_emu.run("aclnnInplaceCopy", selfRef=out, src=x.astype(dtype).T)
        results.append(out)
    for out_dtype in (np.float16, np.float32):
        out = np.zeros((300, 700), out_dtype)
        aclnn_emu.run("aclnnCast", self=x.astype(np.float16 if out_dtype == np.float32 else np.float32).T,
                      dtype=out_dtype, out=out)
        results.append(out)
    out = np.zeros((300, 700), np.float32)
    aclnn_emu.run("aclnnAdd", self=x.T, other=data((300, 700), np.float32, seed=10), alpha=2.0, out=out)
    results.append(out)
    p = data((9, 70, 80), np.float16, seed=11)
    out = np.zeros((80, 9, 70), np.float16)
    aclnn_emu.run("aclnnInplaceCopy", selfRef=out, src=p.transpose(2, 0, 1))
    results.append(out)
    return results


def test_tiled_walk_is_the_same_for_every_thread_count():
    assert_thread_count_invariant(tiled_results)


def test_tiled_walk_is_the_same_at_every_isa_level():
    assert_isa_invariant(tiled_results)


# ---------------------------------------------------------------- launches larger than the last-level cache
# A launch that streams 32 MiB or more (inputs and output) writes its dense output blocks with
# non-temporal stores where the ISA level has them, block by block from an L1 buffer, with plain stores
# at partial cache lines. The bits must be those of numpy's float32 arithmetic rounded once to the
# output dtype, at every ISA level, with the output misaligned, in place, and through casts.

BIG = 3 * 1024 * 1024 + 7  # fp32 input, input and output: 36 MiB


def rounded(values, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(values, np.float32).astype(dtype)


def big_results():
    rng = np.random.default_rng(5)
    x32 = rng.standard_normal(BIG, np.float32)
    y32 = rng.standard_normal(BIG, np.float32)
    x32[:3] = [np.nan, np.inf, -np.inf]
    outs = []
    with np.errstate(all="ignore"):
        # a misaligned output: one element past the allocation's start
        store = np.zeros(BIG + 1, np.float32)
        out = store[1:]
        aclnn_emu.run("aclnnMul", self=x32, other=y32, out=out)
        assert same_bits(out, x32 * y32)
        outs.append(out.copy())
        # a same-dtype copy (raw bytes)
        copy = np.zeros(BIG + 3, np.float32)[3:]
        aclnn_emu.run("aclnnInplaceCopy", selfRef=copy, src=x32)
        assert same_bits(copy, x32)
        # into half types: computed in fp32, converted, then streamed
        for half in (np.dtype(np.float16), BF16):
            x, y = x32.astype(half), (y32 * 4).astype(half)
            big = np.concatenate([x, y, x])  # 3 x 6 MiB of inputs plus the output: above the threshold
            out = np.zeros_like(big)
            other = np.concatenate([y, x, y])
            aclnn_emu.run("aclnnAdd", self=big, other=other, alpha=1.0, out=out)
            assert same_bits(out, rounded(big.astype(np.float32) + other.astype(np.float32), half))
            outs.append(out)
            # a cast of 24 MiB into 12 MiB, misaligned: narrowed and streamed in one pass
            wide = np.concatenate([x32, y32 * 1e4])
            cast = np.zeros(2 * BIG + 1, half)[1:]
            aclnn_emu.run("aclnnCast", self=wide, dtype=half, out=cast)
            assert same_bits(cast, rounded(wide, half))
            outs.append(cast)
        # in place
        z = x32.copy()
        aclnn_emu.run("aclnnInplaceMuls", selfRef=z, other=3.0)
        assert same_bits(z, x32 * np.float32(3.0))
        outs.append(z)
    return outs


def test_outputs_larger_than_the_cache_keep_their_bits_on_every_isa_level():
    assert_isa_invariant(big_results)


# ---------------------------------------------------------------- half-type operands read again by every row
# A small fp16/bf16 input that the output reads many times (a [C] bias over [R, C]) is converted to fp32
# once per launch, its whole span with any gaps, and read at its own strides from there: reversed,
# with gaps, and broadcast along either dimension.


@pytest.mark.parametrize("half", [np.dtype(np.float16), BF16], ids=str)
def test_broadcast_half_operands_converted_once_keep_their_bits(half):
    rng = np.random.default_rng(9)
    x = rng.uniform(-8, 8, (37, 301)).astype(half)
    wide = rng.uniform(-8, 8, 2 * 301 + 5).astype(half)
    column = rng.uniform(-8, 8, (37, 3)).astype(half)
    cases = [
        (x, wide[:301]),           # a contiguous row
        (x, wide[301:0:-1]),       # reversed
        (x, wide[1::2][:301]),     # every other element: the span has gaps
        (x, column[:, 1:2]),       # one value per row, broadcast along the row
        (wide[:301], x),           # the small operand first
    ]

    def results():
        outs = []
        for a, b in cases:
            out = np.zeros(np.broadcast_shapes(a.shape, b.shape), half)
            aclnn_emu.run("aclnnAdd", self=a, other=b, alpha=1.5, out=out)
            with np.errstate(all="ignore"):
                expected = a.astype(np.float32) + np.float32(1.5) * b.astype(np.float32)
            assert same_bits(out, rounded(expected, half))
            outs.append(out)
        return outs

    assert_isa_invariant(results)
    assert_thread_count_invariant(results)


def test_rows_of_many_dimensions_are_walked_in_order():
    # Short rows under several outer dimensions, split over threads at arbitrary items: every
    # row must land at its own place (the walk steps the outer indices instead of dividing).
    x = np.arange(5 * 7 * 3 * 9, dtype=np.float32).reshape(5, 7, 3, 9)
    for dims in ([2, 1, 3, 0], [1, 0, 2, 3], [3, 2, 1, 0], [0, 2, 1, 3]):
        expected = np.ascontiguousarray(x.transpose(dims))

        def results():
            out = np.zeros(expected.shape, np.float32)
            aclnn_emu.run("aclnnPermute", self=x, dims=dims, out=out)
            assert same_bits(out, expected), dims
            return [out]

        assert_thread_count_invariant(results)
        assert_isa_invariant(results)
    y = np.arange(16 * 300 * 128, dtype=np.float32).reshape(16, 300, 128)
    out = np.zeros((300, 16, 128), np.float32)
    aclnn_emu.run("aclnnPermute", self=y, dims=[1, 0, 2], out=out)
    assert same_bits(out, np.ascontiguousarray(y.transpose(1, 0, 2)))
