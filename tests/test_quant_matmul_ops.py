"""Quantized weights: WeightQuantBatchMatmulV2 (INT8/INT4 weights), TransMatmulWeight and
CalculateMatmulWeightSize(V2) (the FRACTAL_NZ layout).

WeightQuantBatchMatmulV2 is compared with a float64 numpy reference written here that dequantizes
the weight as the kernel does (fp16: q + offset rounded to fp16, times the scale rounded to fp16;
bf16: in fp32, rounded once to bf16), with CANN's standard (MERE < T, MARE < 10 T on errors
relative to |x| @ |w|), and exactly where the data makes the product exact. INT4 tensors are built
by hand (numpy has no int4): shape, strides and offset in nibbles, the even nibble low.
"""

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import ffi, lib
from helpers import Block, expect, make_tensor, take_msg

F16, F32, BF16 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16)
T = {F16: 2.0**-10, BF16: 2.0**-7}
ACL = {F16: 1, F32: 0, BF16: 27, np.dtype(np.int8): 2, np.dtype(np.uint8): 4, np.dtype(np.int32): 3,
       np.dtype(np.uint64): 10}
INT4, INT8, UINT64, INT64 = 29, 2, 10, 9
ND, NZ = 2, 29
NULLPTR, INVALID, RUNTIME = 161001, 161002, 361001
WQ = "aclnnWeightQuantBatchMatmulV2"


def rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- device tensors


class Dev:
    """A tensor over a device block holding `storage` (a 1-D numpy array of the element bytes)."""

    def __init__(self, storage, shape, strides, offset=0, dtype=None, fmt=ND, storage_dims=None):
        self.block = Block(np.ascontiguousarray(storage).ravel())
        code = ACL[storage.dtype] if dtype is None else dtype
        dims = storage_dims if storage_dims is not None else [storage.size]
        self.tensor = make_tensor(shape, code, strides, offset, dims, self.block.ptr, fmt)

    def read(self):
        return self.block.read()

    def close(self):
        lib.aclDestroyTensor(self.tensor)
        self.block.free()


def dev(a, layout="contig", fmt=ND):
    """A numpy array as a device tensor: contiguous, or the transpose of its last two dimensions."""
    a = np.asarray(a)
    if layout == "transposed":
        base = np.ascontiguousarray(a.T)
        return Dev(base.ravel(), a.shape, (1, a.shape[0]), fmt=fmt)
    return Dev(a.ravel(), a.shape, None, fmt=fmt)


def pack_int4(nibbles):
    """Values in [-8, 7], in storage order, two to a byte (the even one low)."""
    v = (np.asarray(nibbles, np.int64).ravel() & 15).astype(np.uint8)
    if v.size % 2:
        v = np.append(v, np.uint8(0))
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8)


def int4_weight(q, layout="contig", lead=0):
    """q [k, n] as an INT4 tensor: contiguous or transposed (ggml's), after `lead` nibbles."""
    k, n = q.shape
    if layout == "transposed":
        storage = np.concatenate([np.zeros(lead, np.int64), q.T.ravel()])
        return Dev(pack_int4(storage), (k, n), (1, k), lead, INT4)
    storage = np.concatenate([np.zeros(lead, np.int64), q.ravel()])
    return Dev(pack_int4(storage), (k, n), (n, 1), lead, INT4)


def int8_weight(q, layout="contig"):
    return dev(q.astype(np.int8), layout)


def call(x, w, scale, offset=None, qscale=None, qoffset=None, bias=None, group=0, y=None, run=True):
    """Phase 1 (and 2); returns the status. Arguments are Dev objects or None."""
    t = lambda d: ffi.NULL if d is None else d.tensor
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = lib.aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(t(x), t(w), t(scale), t(offset), t(qscale), t(qoffset),
                                                           t(bias), group, t(y), ws, ex)
    if rc or not run:
        return rc
    p = ffi.new("void **")
    if ws[0]:
        assert lib.aclrtMalloc(p, ws[0], 0) == 0
    rc = lib.aclnnWeightQuantBatchMatmulV2(p[0] if ws[0] else ffi.NULL, ws[0], ex[0], ffi.NULL)
    if ws[0]:
        lib.aclrtFree(p[0])
    return rc


def dequant(q, scale, offset, group, dtype):
    """The weight as the kernel feeds it to the cube (values of x's dtype), as float64."""
    k, n = q.shape
    s = np.asarray(scale, np.float32).reshape(-1, scale.shape[-1])
    o = None if offset is None else np.asarray(offset, np.float32).reshape(s.shape)
    rows = (np.arange(k) // group) if group else np.zeros(k, np.int64)
    s = np.broadcast_to(s[rows], (k, n)) if s.shape[0] > 1 or group else np.broadcast_to(s[:1], (k, n))
    if o is not None:
        o = np.broadcast_to(o[rows], (k, n)) if o.shape[0] > 1 or group else np.broadcast_to(o[:1], (k, n))
    v = q.astype(np.float32)
    if dtype == F16:
        if o is not None:
            v = (v + o).astype(F16).astype(np.float32)
        return (v * s).astype(F16).astype(np.float64)
    if o is not None:
        v = v + o
    return (v * s).astype(BF16).astype(np.float64)


def check_close(y, ref, bound, dtype):
    err = np.abs(y.astype(np.float64) - ref) / np.maximum(bound, 1e-30)
    assert err.mean() < T[dtype] and err.max() < 10 * T[dtype], (err.mean(), err.max())


def run_case(dtype, wdtype, k, n, m, group=0, mode="channel", with_offset=True, with_bias=False, wlayout="contig",
             xlayout="contig", seed=0):
    r = rng(seed)
    lo, hi = (-8, 8) if wdtype == INT4 else (-128, 128)
    q = r.integers(lo, hi, (k, n))
    x = r.uniform(-1, 1, (m, k)).astype(dtype)
    groups = (k + group - 1) // group if group else 1
    sshape = {"tensor": (1,), "tensor2": (1, 1), "channel": (n,), "channel2": (1, n), "group": (groups, n)}[mode]
    scale = r.uniform(0.001, 0.02, sshape).astype(dtype)
    offset = r.uniform(-2, 2, sshape).astype(dtype) if with_offset else None
    bdtype = F16 if dtype == F16 else F32
    bias = r.uniform(-1, 1, (n,)).astype(bdtype) if with_bias else None
    slayout = "transposed" if wlayout == "transposed" and len(sshape) == 2 else "contig"
    devs = [dev(x, xlayout), int4_weight(q, wlayout) if wdtype == INT4 else int8_weight(q, wlayout),
            dev(scale, slayout), None if offset is None else dev(offset, slayout),
            None if bias is None else dev(bias), dev(np.zeros((m, n), dtype))]
    try:
        rc = call(devs[0], devs[1], devs[2], devs[3], bias=devs[4], group=group, y=devs[5])
        assert rc == 0, take_msg()
        y = devs[5].read().reshape(m, n)
    finally:
        for d in devs:
            if d is not None:
                d.close()
    w = dequant(q, scale, offset, group, dtype)
    xf = x.astype(np.float64)
    ref = xf @ w + (0 if bias is None else bias.astype(np.float64))
    bound = np.abs(xf) @ np.abs(w) + (0 if bias is None else np.abs(bias.astype(np.float64)))
    check_close(y, ref, bound, dtype)
    return y


# ---------------------------------------------------------------- WeightQuantBatchMatmulV2: results


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("wdtype", [INT8, INT4])
@pytest.mark.parametrize("mode,group", [("tensor", 0), ("tensor2", 0), ("channel", 0), ("channel2", 0),
                                        ("group", 32), ("group", 64)])
def test_modes(dtype, wdtype, mode, group):
    run_case(dtype, wdtype, k=160, n=48, m=5, group=group, mode=mode)


@pytest.mark.parametrize("wdtype", [INT8, INT4])
@pytest.mark.parametrize("wlayout", ["contig", "transposed"])
@pytest.mark.parametrize("xlayout", ["contig", "transposed"])
def test_layouts_offset_bias(wdtype, wlayout, xlayout):
    run_case(F16, wdtype, k=96, n=70, m=3, group=32, mode="group", wlayout=wlayout, xlayout=xlayout,
             with_bias=True)
    run_case(BF16, wdtype, k=96, n=70, m=3, group=0, mode="channel2", with_offset=False, wlayout=wlayout,
             xlayout=xlayout, with_bias=True)


def test_large_blocks():
    """More than one depth block (256), row tile (256) and column block (64)."""
    run_case(F16, INT4, k=544, n=130, m=260, group=32, mode="group", wlayout="transposed")


def test_exact_ggml_layout():
    """ggml-cann's call: x [m, k] fp16, INT4 weight [k, n] with strides (1, k), scale [k/32, n] with
    strides (1, k/32), no offset, group 32; integer data and power-of-two scales make it exact."""
    r = rng(3)
    m, k, n = 4, 128, 20
    q = r.integers(-8, 8, (k, n))
    x = r.integers(-4, 5, (m, k)).astype(F16)
    scale = (2.0 ** r.integers(-3, 2, (k // 32, n))).astype(F16)
    devs = [dev(x), int4_weight(q, "transposed"), dev(scale, "transposed"), dev(np.zeros((m, n), F16))]
    try:
        assert call(devs[0], devs[1], devs[2], group=32, y=devs[3]) == 0, take_msg()
        y = devs[3].read().reshape(m, n)
    finally:
        for d in devs:
            d.close()
    w = q * np.repeat(scale.astype(np.float64), 32, axis=0)
    assert np.array_equal(y.astype(np.float64), x.astype(np.float64) @ w)


def test_int4_odd_nibble_offset():
    r = rng(4)
    k, n, m = 64, 6, 2
    q = r.integers(-8, 8, (k, n))
    x = r.integers(-3, 4, (m, k)).astype(F16)
    scale = np.full((n,), 0.5, F16)
    outs = []
    for lead in (0, 1, 3):
        devs = [dev(x), int4_weight(q, "contig", lead=lead), dev(scale), dev(np.zeros((m, n), F16))]
        try:
            assert call(devs[0], devs[1], devs[2], y=devs[3]) == 0, take_msg()
            outs.append(devs[3].read())
        finally:
            for d in devs:
                d.close()
    assert np.array_equal(outs[0].astype(np.float64).reshape(m, n), x.astype(np.float64) @ (q * 0.5))
    assert all(np.array_equal(outs[0], o) for o in outs[1:])


def test_nan_inf():
    r = rng(5)
    k, n, m = 64, 8, 3
    q = r.integers(-100, 100, (k, n))
    x = r.uniform(-1, 1, (m, k)).astype(F16)
    x[1, 3] = np.nan
    scale = np.full((n,), 0.01, F16)
    scale[5] = np.inf
    devs = [dev(x), int8_weight(q), dev(scale), dev(np.zeros((m, n), F16))]
    try:
        assert call(devs[0], devs[1], devs[2], y=devs[3]) == 0, take_msg()
        y = devs[3].read().reshape(m, n).astype(np.float64)
    finally:
        for d in devs:
            d.close()
    assert np.isnan(y[1]).all()
    assert not np.isfinite(y[[0, 2], 5]).any()  # q * inf terms of both signs (or 0 * inf)
    finite = [j for j in range(n) if j != 5]
    assert np.isfinite(y[np.ix_([0, 2], finite)]).all()


def test_threads_and_isas_bit_identical():
    results = []
    previous = aclnn_emu.get_num_threads()
    try:
        for threads in (1, 2):
            aclnn_emu.set_num_threads(threads)
            for isa in aclnn_emu.available_isas():
                aclnn_emu.set_isa_cap(isa)
                results.append(run_case(F16, INT4, k=288, n=140, m=40, group=32, mode="group", wlayout="transposed",
                                        seed=9).view(np.uint16))
                results.append(run_case(BF16, INT8, k=96, n=70, m=300, group=0, mode="channel", seed=8)
                               .view(np.uint16))
    finally:
        aclnn_emu.set_num_threads(previous)
        aclnn_emu.set_isa_cap(aclnn_emu.available_isas()[-1])
    for i in range(2, len(results)):
        assert np.array_equal(results[i], results[i % 2])


def _wq_rows(x, w_fn, scale, offset, bias, group, dtype, slayout):
    """y for the rows x, the weight made by w_fn(); returns (y, kernel name)."""
    m, n = x.shape[0], scale.shape[-1]
    devs = [dev(x), w_fn(), dev(scale, slayout), None if offset is None else dev(offset, slayout),
            None if bias is None else dev(bias), dev(np.zeros((m, n), dtype))]
    try:
        assert call(devs[0], devs[1], devs[2], devs[3], bias=devs[4], group=group, y=devs[5]) == 0, take_msg()
        return devs[5].read().reshape(m, n), aclnn_emu.last_kernel()
    finally:
        for d in devs:
            if d is not None:
                d.close()


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("wdtype", [INT8, INT4])
@pytest.mark.parametrize("wlayout", ["contig", "transposed"])
def test_few_rows_dequantize_in_the_gemv_with_the_same_bits(dtype, wdtype, wlayout):
    """1 to 4 rows of x run the GEMV kernels, which dequantize in registers: each row's bits are those of the
    same row in a 5-row product (dequantized blocks and the GEMM), on every ISA level, and close to float64."""
    r = rng(11)
    lo, hi = (-8, 8) if wdtype == INT4 else (-128, 128)
    for k, n, group, with_offset in ((64, 6, 32, True), (96, 70, 0, False), (160, 34, 32, False),
                                     (288, 130, 64, True), (66, 18, 0, True)):
        q = r.integers(lo, hi, (k, n))
        x = r.uniform(-1, 1, (5, k)).astype(dtype)
        x[0, 3] = np.inf
        groups = (k + group - 1) // group if group else 1
        sshape = (groups, n) if group else (n,)
        scale = r.uniform(0.001, 0.02, sshape).astype(dtype)
        offset = r.uniform(-2, 2, sshape).astype(dtype) if with_offset else None
        bias = r.uniform(-1, 1, (n,)).astype(F16 if dtype == F16 else F32) if k % 3 == 0 else None
        w_fn = (lambda: int4_weight(q, wlayout)) if wdtype == INT4 else (lambda: int8_weight(q, wlayout))
        slayout = "transposed" if wlayout == "transposed" and group else "contig"  # ggml's scales go with W
        firsts = {}
        for isa in aclnn_emu.available_isas():
            aclnn_emu.set_isa_cap(isa)
            try:
                ref, kernel = _wq_rows(x, w_fn, scale, offset, bias, group, dtype, slayout)
                assert "gemv" not in kernel
                for m in (1, 2, 3, 4):
                    y, kernel = _wq_rows(np.ascontiguousarray(x[5 - m:]), w_fn, scale, offset, bias, group, dtype,
                                           slayout)
                    assert "gemv" in kernel
                    assert y.view(np.uint16).tobytes() == ref[5 - m:].view(np.uint16).tobytes(), (isa, m, k, n)
                firsts[isa] = ref.view(np.uint16).copy()
            finally:
                aclnn_emu.set_isa_cap(aclnn_emu.available_isas()[-1])
        assert all(np.array_equal(v, firsts["scalar"]) for v in firsts.values())
        w = dequant(q, scale, offset, group, dtype)
        xf = x[1:].astype(np.float64)
        b64 = 0 if bias is None else bias.astype(np.float64)
        bound = np.abs(xf) @ np.abs(w) + np.abs(b64)
        check_close(ref[1:], xf @ w + b64, bound, dtype)


# ---------------------------------------------------------------- WeightQuantBatchMatmulV2: errors


def error_case(code, words, k=64, n=8, m=2, x_dtype=F16, w=None, scale=None, offset=None, qscale=None, bias=None,
               group=0, y=None, xshape=None, nulls=()):
    r = rng(1)
    xs = xshape or (m, k)
    devs = {
        "x": dev(r.uniform(-1, 1, xs).astype(x_dtype)),
        "weight": w if w is not None else int8_weight(r.integers(-5, 5, (k, n))),
        "antiquantScale": scale if scale is not None else dev(np.full((n,), 0.1, x_dtype)),
        "antiquantOffsetOptional": offset,
        "quantScaleOptional": qscale,
        "biasOptional": bias,
        "y": y if y is not None else dev(np.zeros((m, n), x_dtype)),
    }
    args = {name: (None if name in nulls else d) for name, d in devs.items()}
    try:
        rc = call(args["x"], args["weight"], args["antiquantScale"], args["antiquantOffsetOptional"],
                  args["quantScaleOptional"], None, args["biasOptional"], group, args["y"], run=False)
        return expect(code, rc, *words)
    finally:
        for d in devs.values():
            if d is not None:
                d.close()


@pytest.mark.parametrize("name", ["x", "weight", "antiquantScale", "y"])
def test_null(name):
    error_case(NULLPTR, [name], nulls=(name,))


def test_dtypes():
    error_case(INVALID, ["x", "ACL_FLOAT"], x_dtype=F32, scale=dev(np.full((8,), 0.1, F32)))
    error_case(INVALID, ["weight", "ACL_INT4"], w=dev(np.zeros((64, 8), F16)))
    error_case(INVALID, ["weight", "ACL_INT32", "aclnn_emu"], w=dev(np.zeros((64, 8), np.int32)))
    error_case(INVALID, ["antiquantScale", "x's dtype"], scale=dev(np.full((8,), 0.1, BF16)))
    error_case(INVALID, ["antiquantOffsetOptional"], offset=dev(np.full((8,), 0.1, BF16)))
    error_case(INVALID, ["y", "x's dtype"], y=dev(np.zeros((2, 8), BF16)))
    error_case(INVALID, ["biasOptional", "ACL_FLOAT16"], bias=dev(np.zeros(8, F32)))
    error_case(INVALID, ["biasOptional", "ACL_FLOAT"], x_dtype=BF16, bias=dev(np.zeros(8, BF16)))
    error_case(INVALID, ["antiquantScale", "aclnn_emu"], scale=dev(np.zeros(8, np.uint64)))
    error_case(INVALID, ["quantScaleOptional"], qscale=dev(np.zeros(8, np.uint64)))


def test_shapes_and_groups():
    error_case(INVALID, ["x", "dimensions"], xshape=(1, 2, 64))
    error_case(INVALID, ["k", "equal"], xshape=(2, 32))
    error_case(INVALID, ["at least 1"], xshape=(0, 64), y=dev(np.zeros((0, 8), F16)))
    error_case(INVALID, ["y's n"], y=dev(np.zeros((2, 9), F16)))
    error_case(INVALID, ["antiquantGroupSize", "multiple of 32"], group=48, scale=dev(np.zeros((2, 8), F16)))
    error_case(INVALID, ["antiquantGroupSize", "k - 1"], group=64, scale=dev(np.zeros((1, 8), F16)))
    error_case(INVALID, ["antiquantGroupSize", "0 or more"], group=-32)
    error_case(INVALID, ["antiquantScale", "[2, 8]"], group=32, scale=dev(np.zeros((3, 8), F16)))
    error_case(INVALID, ["antiquantScale", "[1] or [8]"], scale=dev(np.zeros((5,), F16)))
    error_case(INVALID, ["antiquantOffsetOptional", "shape"], offset=dev(np.zeros((1, 8), F16)))
    error_case(INVALID, ["biasOptional", "[8]"], bias=dev(np.zeros((7,), F16)))
    error_case(INVALID, ["INT4", "even n"], n=7, w=int4_weight(np.zeros((64, 7), np.int64)),
               scale=dev(np.zeros((7,), F16)), y=dev(np.zeros((2, 7), F16)))
    error_case(INVALID, ["65535"], k=65536 + 32, m=1, w=int8_weight(np.zeros((65536 + 32, 8), np.int64)))


def test_layout_errors():
    r = rng(2)
    x = Dev(r.uniform(-1, 1, 64 * 4).astype(F16), (2, 64), (128, 2))  # a step-2 view
    devs = [x, int8_weight(np.zeros((64, 8), np.int64)), dev(np.zeros(8, F16)), dev(np.zeros((2, 8), F16))]
    try:
        expect(INVALID, call(*devs[:3], y=devs[3], run=False), "x", "contiguous")
    finally:
        for d in devs:
            d.close()
    y = Dev(np.zeros(40, F16), (2, 8), (16, 2))
    error_case(INVALID, ["y", "contiguous"], y=y)
    error_case(INVALID, ["antiquantScale", "ACL_FORMAT_ND"], scale=dev(np.zeros(8, F16), fmt=0))


def test_products():
    previous = aclnn_emu.soc_name()
    try:
        aclnn_emu.set_soc_name("Ascend910")
        error_case(RUNTIME, ["Ascend910"])
        aclnn_emu.set_soc_name("Ascend950")
        error_case(NULLPTR, ["quantScaleOptional"], qscale=dev(np.zeros(8, np.uint64)))
        aclnn_emu.set_soc_name("Ascend910_93")
        run_case(F16, INT4, k=64, n=8, m=2)
    finally:
        aclnn_emu.set_soc_name(previous)


# ---------------------------------------------------------------- TransMatmulWeight and the NZ layout


def nz_reference(a):
    """numpy FRACTAL_NZ of [..., rows, cols]: [..., cols/C0, rows16/16, 16, C0], zero padded."""
    c0 = 32 // a.dtype.itemsize
    *batch, rows, cols = a.shape
    r16, cc = -(-rows // 16) * 16, -(-cols // c0) * c0
    p = np.zeros((*batch, r16, cc), a.dtype)
    p[..., :rows, :cols] = a
    p = p.reshape(*batch, r16 // 16, 16, cc // c0, c0)
    return np.moveaxis(p, -2, -4).copy()  # [..., cols/C0, rows/16, 16, C0]


def calc_size(shape, dtype=1, v2=True):
    arr = lib.aclCreateIntArray(ffi.new("int64_t[]", list(shape)), len(shape))
    out = ffi.new("uint64_t *")
    try:
        rc = lib.aclnnCalculateMatmulWeightSizeV2(arr, dtype, out) if v2 else \
            lib.aclnnCalculateMatmulWeightSize(arr, out)
    finally:
        lib.aclDestroyIntArray(arr)
    return rc, out[0]


def trans(d, run=True):
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = lib.aclnnTransMatmulWeightGetWorkspaceSize(d.tensor, ws, ex)
    if rc or not run:
        return rc
    p = ffi.new("void **")
    if ws[0]:
        assert lib.aclrtMalloc(p, ws[0], 0) == 0
    rc = lib.aclnnTransMatmulWeight(p[0] if ws[0] else ffi.NULL, ws[0], ex[0], ffi.NULL)
    if ws[0]:
        lib.aclrtFree(p[0])
    return rc


def test_calculate_size():
    assert calc_size([20, 33], 1) == (0, 32 * 48)
    assert calc_size([20, 33], 27) == (0, 32 * 48)
    assert calc_size([20, 33], INT8) == (0, 32 * 64)
    assert calc_size([3, 20, 33], INT8) == (0, 3 * 32 * 64)
    assert calc_size([16, 32], 0) == (0, 16 * 32)  # not a 2-byte dtype: columns to 32
    assert calc_size([20, 33], v2=False) == (0, 32 * 48)
    expect(INVALID, calc_size([5], 1)[0], "tensorShape", "2 to 6")
    expect(INVALID, calc_size([4, 0], 1)[0], "tensorShape[1]", "zero")
    out = ffi.new("uint64_t *")
    expect(NULLPTR, lib.aclnnCalculateMatmulWeightSizeV2(ffi.NULL, 1, out), "tensorShape")
    arr = lib.aclCreateIntArray(ffi.new("int64_t[]", [2, 2]), 2)
    expect(NULLPTR, lib.aclnnCalculateMatmulWeightSizeV2(arr, 1, ffi.NULL), "weightTensorSize")
    lib.aclDestroyIntArray(arr)


@pytest.mark.parametrize("dtype,shape", [(F16, (20, 33)), (BF16, (16, 16)), (np.int8, (40, 70)),
                                         (np.uint8, (2, 17, 5)), (F16, (1, 1))])
def test_trans_matmul_weight_layout(dtype, shape):
    a = rng(6).uniform(-100, 100, shape).astype(dtype)
    rc, size = calc_size(list(shape), ACL[np.dtype(dtype)])
    assert rc == 0
    storage = np.full(size + 8, 7, dtype)  # room for the NZ storage, and guards after it
    storage[:a.size] = a.ravel()
    d = Dev(storage, shape, None, storage_dims=[a.size])
    try:
        assert trans(d) == 0, take_msg()
        got = d.read()
        ref = nz_reference(a)
        assert ref.size == size
        assert np.array_equal(got[:size].view(np.uint8), ref.ravel().view(np.uint8))
        assert np.array_equal(got[size:], storage[size:])
        fmt = ffi.new("aclFormat *")
        assert lib.aclGetFormat(d.tensor, fmt) == 0 and fmt[0] == NZ
        dims, num = ffi.new("int64_t **"), ffi.new("uint64_t *")
        assert lib.aclGetStorageShape(d.tensor, dims, num) == 0
        assert [dims[0][i] for i in range(num[0])] == list(ref.shape)
    finally:
        d.close()


def test_trans_matmul_weight_errors():
    expect(NULLPTR, trans(type("N", (), {"tensor": ffi.NULL})(), run=False), "mmWeightRef")
    for storage, shape, words in [(np.zeros(8, F32), (2, 4), ["mmWeightRef", "ACL_FLOAT"]),
                                  (np.zeros(8, F16), (8,), ["mmWeightRef", "2 to 6"])]:
        d = Dev(storage, shape, None)
        try:
            expect(INVALID, trans(d, run=False), *words)
        finally:
            d.close()
    d = Dev(np.zeros(8, F16), (2, 4), None, fmt=0)
    try:
        expect(INVALID, trans(d, run=False), "ACL_FORMAT_ND")
    finally:
        d.close()
    d = Dev(np.zeros(8, F16), (0, 4), None)  # empty: nothing to do
    try:
        assert trans(d) == 0
    finally:
        d.close()


@pytest.mark.parametrize("wlayout", ["contig", "transposed"])
def test_nz_weight_same_result(wlayout):
    """A weight made FRACTAL_NZ by TransMatmulWeight gives the same bits as the ND one."""
    r = rng(7)
    k, n, m = 96, 40, 3
    q = r.integers(-128, 128, (k, n))
    x = r.uniform(-1, 1, (m, k)).astype(F16)
    scale = r.uniform(0.001, 0.02, (k // 32, n)).astype(F16)
    outs = []
    for nz in (False, True):
        base = q if wlayout == "contig" else q.T  # the stored matrix
        rc, size = calc_size(list(base.shape), INT8)
        storage = np.zeros(size, np.int8)
        storage[:base.size] = base.ravel()
        strides = (n, 1) if wlayout == "contig" else (1, k)
        stored = Dev(storage, base.shape, None, storage_dims=[base.size])
        w = make_tensor((k, n), INT8, strides, 0, [size], stored.block.ptr, NZ if nz else ND)
        devs = [dev(x), dev(scale), dev(np.zeros((m, n), F16))]
        try:
            if nz:
                assert trans(stored) == 0, take_msg()
            assert call(devs[0], type("W", (), {"tensor": w})(), devs[1], group=32, y=devs[2]) == 0, take_msg()
            outs.append(devs[2].read())
        finally:
            lib.aclDestroyTensor(w)
            for d in devs + [stored]:
                d.close()
    assert np.array_equal(outs[0], outs[1])


# ---------------------------------------------------------------- from Python (the registry)


def test_run_from_python():
    r = rng(10)
    k, n, m = 64, 16, 3
    q = r.integers(-128, 128, (k, n)).astype(np.int8)
    x = r.integers(-3, 4, (m, k)).astype(F16)
    scale = np.full((1, n), 0.25, F16)
    offset = np.full((1, n), 1.0, F16)
    y = np.empty((m, n), F16)
    aclnn_emu.run(WQ, x=x, weight=q.T.copy().T, antiquantScale=scale, antiquantOffsetOptional=offset,
                  antiquantGroupSize=0, y=y)
    assert np.array_equal(y, (x.astype(np.float64) @ ((q + 1.0) * 0.25)).astype(F16))  # exact, rounded once
    with pytest.raises(aclnn_emu.AclnnError) as e:
        aclnn_emu.run(WQ, x=x, weight=q, antiquantScale=scale, antiquantGroupSize=16, y=y)
    assert e.value.code == INVALID and "antiquantGroupSize" in str(e.value)


def test_trans_from_python():
    a = rng(11).integers(-100, 100, (32, 64)).astype(np.int8)  # already aligned: NZ takes the same bytes
    w = a.copy()
    aclnn_emu.run("aclnnTransMatmulWeight", mmWeightRef=w)
    assert np.array_equal(w.ravel(), nz_reference(a).ravel())
    h = rng(12).uniform(-1, 1, (20, 33)).astype(F16)  # padded: the NZ storage would not fit the array
    with pytest.raises(aclnn_emu.AclnnError) as e:
        aclnn_emu.run("aclnnTransMatmulWeight", mmWeightRef=h)
    assert e.value.code == INVALID and "FRACTAL_NZ storage" in str(e.value)
