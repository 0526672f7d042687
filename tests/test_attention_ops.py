"""aclnnFusedInferAttentionScoreV2 in the forms llama.cpp's CANN backend uses.

attentionOut = softmax(scaleValue * Q.K^T + pseShift) . V per query head,
key/value head n // (numHeads / numKeyValueHeads), against a float64 numpy
reference written here, with CANN's precision standard for the output dtype
(MERE < T, MARE < 10 T; T = 2^-10 fp16, 2^-7 bf16) on errors relative to
|P|.|V|. Also: the BSH/BSND/BNSD/BNSD_BSND layouts, strided K/V (KV-cache
views, as ggml passes them), broadcast pseShift, -inf rows and the
innerPrecise row-invalid correction, empty tensors, thread counts and ISA
levels bit for bit, and every refusal with the argument its message names.

The registry lists inputLayout with the kind "string", which the generic
Python layer does not pass yet, so these tests call phase 1 through cffi.
"""

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import DeviceTensor, ffi, lib
from aclnn_emu.tensor import acl_dtype, create_tensor

F16, BF16 = np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
T = {F16: 2.0**-10, BF16: 2.0**-7}
NULLPTR, INVALID, TILING = 161001, 161002, 561002
API = "aclnnFusedInferAttentionScoreV2"
OPTIONAL = ["attenMaskOptional", "actualSeqLengthsOptional", "actualSeqLengthsKvOptional", "deqScale1Optional",
            "quantScale1Optional", "deqScale2Optional", "quantScale2Optional", "quantOffset2Optional",
            "antiquantScaleOptional", "antiquantOffsetOptional", "blockTableOptional", "queryPaddingSizeOptional",
            "kvPaddingSizeOptional", "keyAntiquantScaleOptional", "keyAntiquantOffsetOptional",
            "valueAntiquantScaleOptional", "valueAntiquantOffsetOptional", "keySharedPrefixOptional",
            "valueSharedPrefixOptional", "actualSharedPrefixLenOptional"]
INT_ARRAYS = {"actualSeqLengthsOptional", "actualSeqLengthsKvOptional", "actualSharedPrefixLenOptional"}


def tensor_list(tensors):
    """An aclTensorList of new aclTensors viewing `tensors` (aclDestroyTensorList destroys its items)."""
    items = [create_tensor(t.shape, acl_dtype(t.dtype), t.strides, t.offset, (t.storage_size,), t.data_ptr)
             for t in tensors]
    return lib.aclCreateTensorList(ffi.new("aclTensor *[]", items), len(items))


class Failed(Exception):
    def __init__(self, code, message):
        super().__init__("%d: %s" % (code, message))
        self.code, self.message = code, message


def fia(q, k, v, out, pse=None, num_heads=None, scale=1.0, layout="BSND", kv_heads=0, sparse=0, inner=0,
        block=0, amode=0, lse_flag=False, kmode=0, vmode=0, extra=None, kv_lists=None, nulls=()):
    """Phase 1 and 2 on device copies of the numpy views; returns attentionOut as numpy (Failed on a code)."""
    owned, handles = [], {}

    def dev(a):
        t = DeviceTensor.from_numpy(a)
        owned.append(t)
        return t

    tq, to = dev(q), dev(out)
    tk = [dev(a) for a in (kv_lists[0] if kv_lists else [k])]
    tv = [dev(a) for a in (kv_lists[1] if kv_lists else [v])]
    lists = [tensor_list(ts) for ts in (tk, tv)]
    args = {name: ffi.NULL for name in OPTIONAL}
    arrays = []
    for name, value in (extra or {}).items():
        if name in INT_ARRAYS:
            arr = lib.aclCreateIntArray(ffi.new("int64_t[]", value), len(value))
            arrays.append(arr)
            args[name] = arr
        else:
            args[name] = dev(value).handle
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    layout_c = ffi.new("char[]", layout.encode())
    handles = dict(query=tq.handle, key=lists[0], value=lists[1], pse=dev(pse).handle if pse is not None else ffi.NULL,
                   out=to.handle, layout=layout_c, ws=ws, ex=ex)
    for name in nulls:
        handles[name] = ffi.NULL
    try:
        rc = lib.aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
            handles["query"], handles["key"], handles["value"], handles["pse"], *[args[n] for n in OPTIONAL],
            q.shape[2] if num_heads is None else num_heads, scale, 65535, 65535, handles["layout"], kv_heads, sparse,
            inner, block, amode, lse_flag, kmode, vmode, handles["out"], ffi.NULL, handles["ws"], handles["ex"])
        if rc:
            raise Failed(rc, aclnn_emu.errors.last_error_message())
        work = DeviceTensor.empty((max(int(ws[0]), 1),), np.uint8)
        owned.append(work)
        rc = lib.aclnnFusedInferAttentionScoreV2(work.data_ptr if ws[0] else ffi.NULL, ws[0], ex[0], ffi.NULL)
        if rc:
            raise Failed(rc, aclnn_emu.errors.last_error_message())
        return to.numpy()
    finally:
        for lst in lists:
            lib.aclDestroyTensorList(lst)
        for arr in arrays:
            lib.aclDestroyIntArray(arr)
        for t in owned:
            t.close()


def data(shape, dtype, seed, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def reference(q, k, v, pse, scale, layout="BSND", num_heads=None):
    """float64 (out, |P|.|V|) in BSND from inputs in `layout`; rows with every score -inf give NaN."""
    def bsnd(a, heads):
        a = a.astype(np.float64)
        if layout == "BSH":
            return a.reshape(a.shape[0], a.shape[1], heads, -1)
        return a.transpose(0, 2, 1, 3) if layout in ("BNSD", "BNSD_BSND") else a
    nh = num_heads or q.shape[2]
    qq = bsnd(q, nh)
    d = qq.shape[3]
    kvh = (k.shape[2] // d) if layout == "BSH" else (k.shape[2] if layout == "BSND" else k.shape[1])
    kk, vv = bsnd(k, kvh), bsnd(v, kvh)
    g = nh // kvh
    kk, vv = np.repeat(kk, g, axis=2), np.repeat(vv, g, axis=2)
    s = np.einsum("bsnd,btnd->bnst", qq, kk) * np.float64(np.float32(scale))
    if pse is not None:
        s = s + pse.astype(np.float64)[:, :, :qq.shape[1], :kk.shape[1]]
    with np.errstate(invalid="ignore"):
        m = s.max(axis=-1, keepdims=True)
        p = np.exp(s - m)
        p = p / p.sum(axis=-1, keepdims=True)
    out = np.einsum("bnst,btnd->bsnd", p, vv)
    mag = np.einsum("bnst,btnd->bsnd", np.abs(p), np.abs(vv))
    return out, mag


def assert_precision(actual, golden, magnitude, dtype):
    dtype = np.dtype(dtype)
    a = actual.astype(np.float64)
    err = np.abs(a - golden) / np.maximum(magnitude, 1e-30)
    assert np.isfinite(a).all()
    assert err.mean() < T[dtype], err.mean()
    assert err.max() < 10 * T[dtype], err.max()


def out_like(shape, dtype):
    return np.full(shape, np.nan, dtype)


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("b,s,n,kvh,s2,d", [(1, 1, 4, 4, 33, 64), (2, 7, 8, 2, 96, 128), (1, 130, 4, 1, 17, 16),
                                            (3, 5, 6, 3, 1, 32), (1, 300, 2, 2, 2049, 64)])
def test_bsnd_matches_reference(dtype, b, s, n, kvh, s2, d):
    q, k, v = data((b, s, n, d), dtype, 1), data((b, s2, kvh, d), dtype, 2), data((b, s2, kvh, d), dtype, 3)
    pse = data((b, n, s, s2), dtype, 4, -2, 2)
    scale = 1 / np.sqrt(d)
    got = fia(q, k, v, out_like(q.shape, dtype), pse=pse, scale=scale, kv_heads=kvh)
    golden, mag = reference(q, k, v, pse, scale)
    assert_precision(got, golden, mag, dtype)


@pytest.mark.parametrize("layout", ["BSH", "BNSD", "BNSD_BSND"])
def test_other_layouts(layout):
    b, s, n, kvh, s2, d = 2, 3, 4, 2, 40, 32
    if layout == "BSH":
        q, k, v = data((b, s, n * d), F16, 1), data((b, s2, kvh * d), F16, 2), data((b, s2, kvh * d), F16, 3)
        out_shape = q.shape
    else:
        q, k, v = data((b, n, s, d), F16, 1), data((b, kvh, s2, d), F16, 2), data((b, kvh, s2, d), F16, 3)
        out_shape = q.shape if layout == "BNSD" else (b, s, n, d)
    got = fia(q, k, v, out_like(out_shape, F16), num_heads=n, scale=0.3, layout=layout, kv_heads=kvh)
    golden, mag = reference(q, k, v, None, 0.3, layout, n)
    if layout == "BSH":
        got = got.reshape(b, s, n, d)
    elif layout == "BNSD":
        got = got.transpose(0, 2, 1, 3)
    assert_precision(got, golden, mag, F16)


def test_ggml_views_strided_kv_and_broadcast_pse():
    """K/V as views of a larger cache with heads outermost, pseShift with a stride-0 head axis and one batch."""
    b, s, n, s2, d = 2, 9, 4, 50, 64
    q = data((b, s, n, d), F16, 1)
    cache_k, cache_v = data((b, n, 2 * s2, d), F16, 2), data((b, n, 2 * s2, d), F16, 3)
    k, v = cache_k[:, :, :s2].transpose(0, 2, 1, 3), cache_v[:, :, :s2].transpose(0, 2, 1, 3)
    mask = data((1, 1, s, s2), F16, 4)
    mask[0, 0, 2, 10:] = -np.inf
    pse = np.broadcast_to(mask, (1, n, s, s2))
    out = out_like((b, s, n, d), F16)
    got = fia(q, k, v, out, pse=pse, scale=0.125, kv_heads=n)
    golden, mag = reference(q, k, v, np.broadcast_to(mask, (b, n, s, s2)), 0.125)
    assert_precision(got, golden, mag, F16)
    # strided query and output (every other head of larger buffers)
    qbig, obig = data((b, s, 2 * n, d), F16, 5), out_like((b, s, 2 * n, d), F16)
    got = fia(qbig[:, :, ::2], k, v, obig[:, :, ::2], pse=pse, scale=0.125, kv_heads=n)
    golden, mag = reference(qbig[:, :, ::2], k, v, np.broadcast_to(mask, (b, n, s, s2)), 0.125)
    assert_precision(got, golden, mag, F16)


def test_larger_pse_and_v_view_of_k():
    b, s, n, s2, d = 1, 4, 2, 20, 32
    q, k = data((b, s, n, d), F16, 1), data((b, s2, n, 2 * d), F16, 2)
    pse = data((b, n, s + 3, s2 + 5), F16, 3)
    got = fia(q, k[..., :d], k[..., :d], out_like(q.shape, F16), pse=pse)  # V a view of K, as MLA does
    golden, mag = reference(q, k[..., :d], k[..., :d], pse, 1.0)
    assert_precision(got, golden, mag, F16)


@pytest.mark.parametrize("inner", [0, 1, 2, 3])
def test_fully_masked_rows(inner):
    b, s, n, s2, d = 1, 3, 2, 16, 16
    q, k, v = data((b, s, n, d), F16, 1), data((b, s2, n, d), F16, 2), data((b, s2, n, d), F16, 3)
    pse = data((b, n, s, s2), F16, 4)
    pse[0, 1, 1, :] = -np.inf
    got = fia(q, k, v, out_like(q.shape, F16), pse=pse, inner=inner).astype(np.float32)
    if inner & 2:
        assert (got[0, 1, 1] == 0).all()
    else:
        assert np.isnan(got[0, 1, 1]).all()
    got[0, 1, 1] = 0
    golden, mag = reference(q, k, v, pse, 1.0)
    golden[0, 1, 1], mag[0, 1, 1] = 0, 1
    assert_precision(got, golden, mag, F16)


def test_nan_and_inf_inputs():
    b, s, n, s2, d = 1, 2, 1, 8, 16
    q, k, v = data((b, s, n, d), F16, 1), data((b, s2, n, d), F16, 2), data((b, s2, n, d), F16, 3)
    v[0, 3, 0, 5] = np.nan
    got = fia(q, k, v, out_like(q.shape, F16)).astype(np.float32)
    assert np.isnan(got[..., 5]).all() and np.isfinite(np.delete(got, 5, axis=-1)).all()
    q[0, 1, 0, 0] = np.inf
    got = fia(q, k, data((b, s2, n, d), F16, 3), out_like(q.shape, F16)).astype(np.float32)
    assert np.isfinite(got[0, 0]).all() and np.isnan(got[0, 1]).all()


def test_empty_tensors():
    q, out = np.zeros((0, 3, 2, 16), F16), np.zeros((0, 3, 2, 16), F16)
    k = np.zeros((0, 5, 2, 16), F16)
    assert fia(q, k, k, out).shape == (0, 3, 2, 16)
    # key/value of length 0: attentionOut is zeros
    q = data((1, 2, 2, 16), F16, 1)
    k = np.zeros((1, 0, 2, 16), F16)
    got = fia(q, k, k, out_like(q.shape, F16))
    assert (got == 0).all()


@pytest.mark.parametrize("shape", [(1, 1, 8, 2, 300, 64), (2, 33, 4, 4, 70, 32)])
def test_threads_bit_identical(shape):
    b, s, n, kvh, s2, d = shape
    q, k, v = data((b, s, n, d), F16, 1), data((b, s2, kvh, d), F16, 2), data((b, s2, kvh, d), F16, 3)
    pse = data((b, n, s, s2), F16, 4)
    results = []
    previous = aclnn_emu.get_num_threads()
    try:
        for threads in (1, 2, 3):
            aclnn_emu.set_num_threads(threads)
            results.append(fia(q, k, v, out_like(q.shape, F16), pse=pse, scale=0.1, kv_heads=kvh))
    finally:
        aclnn_emu.set_num_threads(previous)
    assert all(r.tobytes() == results[0].tobytes() for r in results)


def test_every_isa_bit_identical_to_scalar(isa):
    b, s, n, kvh, s2, d = 2, 20, 4, 2, 77, 64
    q, k, v = data((b, s, n, d), BF16, 1), data((b, s2, kvh, d), BF16, 2), data((b, s2, kvh, d), BF16, 3)
    pse = data((b, n, s, s2), BF16, 4)
    here = fia(q, k, v, out_like(q.shape, BF16), pse=pse, scale=0.2, kv_heads=kvh)
    assert aclnn_emu.last_kernel().startswith("fused_infer_attention(")
    previous = aclnn_emu.get_isa()
    try:
        aclnn_emu.set_isa_cap("scalar")
        scalar = fia(q, k, v, out_like(q.shape, BF16), pse=pse, scale=0.2, kv_heads=kvh)
    finally:
        aclnn_emu.set_isa_cap(previous)
    assert here.tobytes() == scalar.tobytes()


def fails(code, words, *args, **kwargs):
    with pytest.raises(Failed) as info:
        fia(*args, **kwargs)
    assert info.value.code == code, info.value
    for word in words:
        assert word in info.value.message, (word, info.value.message)


def test_null_arguments():
    q, k = data((1, 2, 2, 16), F16, 1), data((1, 4, 2, 16), F16, 2)
    for name, word in [("query", "query"), ("key", "key"), ("value", "value"), ("out", "attentionOut"),
                       ("layout", "inputLayout"), ("ws", "workspaceSize"), ("ex", "executor")]:
        fails(NULLPTR, [word], q, k, k, out_like(q.shape, F16), nulls=(name,))


def test_dtype_errors():
    q, k = data((1, 2, 2, 16), F16, 1), data((1, 4, 2, 16), F16, 2)
    out = out_like(q.shape, F16)
    fails(INVALID, ["query", "ACL_FLOAT"], q.astype(np.float32), k, k, out)
    fails(INVALID, ["query", "ACL_INT8", "quantization"], q.astype(np.int8), k, k, out)
    fails(INVALID, ["key", "ACL_INT8", "antiquantization"], q, k.astype(np.int8), k, out)
    fails(INVALID, ["value", "ACL_BF16"], q, k, k.astype(BF16), out)
    fails(INVALID, ["pseShiftOptional", "ACL_FLOAT"], q, k, k, out, pse=np.zeros((1, 2, 2, 4), np.float32))
    fails(INVALID, ["pseShiftOptional", "query"], q, k, k, out, pse=np.zeros((1, 2, 2, 4), BF16))
    fails(INVALID, ["attentionOut", "ACL_INT8", "post quantization"], q, k, k, np.zeros(q.shape, np.int8))
    fails(INVALID, ["attentionOut"], q, k, k, out.astype(BF16))


def test_refused_features():
    q, k = data((1, 2, 2, 16), F16, 1), data((1, 4, 2, 16), F16, 2)
    out = out_like(q.shape, F16)
    for name in OPTIONAL:
        value = [4] if name in INT_ARRAYS else np.ones((1,), np.float32)
        fails(INVALID, [name, "not supported"], q, k, k, out, extra={name: value})
    for arg, name in [("block", "blockSize"), ("amode", "antiquantMode"), ("kmode", "keyAntiquantMode"),
                      ("vmode", "valueAntiquantMode"), ("lse_flag", "softmaxLseFlag")]:
        fails(INVALID, [name, "not supported"], q, k, k, out, **{arg: 1})
    fails(INVALID, ["sparseMode", "attenMaskOptional"], q, k, k, out, sparse=3)
    fails(TILING, ["sparseMode"], q, k, k, out, sparse=5)
    fails(TILING, ["innerPrecise"], q, k, k, out, inner=4)
    fails(INVALID, ["inputLayout", "TND"], q, k, k, out, layout="TND")
    fails(INVALID, ["key", "list of 2"], q, k, k, out, kv_lists=([k, k], [k]))


def test_shape_errors():
    q, k = data((1, 2, 2, 16), F16, 1), data((1, 4, 2, 16), F16, 2)
    out = out_like(q.shape, F16)
    fails(TILING, ["numHeads"], q, k, k, out, num_heads=3)
    fails(TILING, ["numKeyValueHeads"], q, k, k, out, kv_heads=3)
    fails(TILING, ["key"], q, k, k, out, kv_heads=1)
    fails(TILING, ["value", "shape of key"], q, k, k[:, :3], out)
    fails(TILING, ["key"], q, data((1, 4, 2, 32), F16, 2), data((1, 4, 2, 32), F16, 2), out)
    fails(TILING, ["pseShiftOptional", "[1, 2, 1, 4]"], q, k, k, out, pse=np.zeros((1, 2, 1, 4), F16))
    fails(TILING, ["pseShiftOptional"], q, k, k, out, pse=np.zeros((2, 2, 2, 4), F16))
    fails(TILING, ["attentionOut"], q, k, k, out_like((1, 2, 2, 8), F16))
    fails(TILING, ["rank of query"], q[0], k, k, out[0])
    q24, k24 = data((1, 2, 2, 24), F16, 1), data((1, 4, 2, 24), F16, 2)
    fails(TILING, ["multiple of 16"], q24, k24, k24, out_like(q24.shape, F16))
    q1 = q24[:, :1]
    assert fia(q1, k24, k24, out_like(q1.shape, F16)).shape == q1.shape  # decode: any D


def test_output_overlapping_an_input_is_refused():
    q, k = data((1, 2, 2, 16), F16, 1), data((1, 4, 2, 16), F16, 2)
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    with DeviceTensor.from_numpy(q) as tq, DeviceTensor.from_numpy(k) as tk:
        lst, lst2 = tensor_list([tk]), tensor_list([tk])
        try:
            rc = lib.aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
                tq.handle, lst, lst2, ffi.NULL, *[ffi.NULL] * len(OPTIONAL), 2, 1.0, 0, 0,
                ffi.new("char[]", b"BSND"), 0, 0, 0, 0, 0, False, 0, 0, tq.handle, ffi.NULL, ws, ex)
        finally:
            message = aclnn_emu.errors.last_error_message()
            lib.aclDestroyTensorList(lst)
            lib.aclDestroyTensorList(lst2)
    assert rc == INVALID
    assert "attentionOut" in message


def test_registry_signature():
    sig = dict(aclnn_emu.operators()[API])
    assert sig["key"] == "tensorlist" and sig["inputLayout"] == "string" and sig["attentionOut"] == "out"
    assert list(aclnn_emu.operators()[API])[-2:] == [("attentionOut", "out"), ("softmaxLse", "out?")]
