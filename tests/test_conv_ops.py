"""Convolution and pooling: Convolution (1-D and 2-D, transposed or not),
AvgPool2d and MaxPool (src/ops/conv*.c, src/ops/pool.c), against float64
numpy references written here.

Convolution and AvgPool2d need CANN's tensor formats (NCL, NCHW), which
``aclnn_emu.run`` does not set, so they are called through ``call`` below.
Also: the forms ggml uses (transposed 1-D as CONV_TRANSPOSE_1D, depthwise
1-D with a strided output as SSM_CONV, pooling as POOL_2D), strides,
paddings, dilations, groups, output padding, bias, the cubeMathType
precisions, ceil mode, count_include_pad and divisor_override, empty
tensors, NaN, the products' dtype lists, the error codes with the argument
each message names, and bit-identity for 1 and 2 threads and every ISA.
"""

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from helpers import assert_isa_invariant, assert_thread_count_invariant, same_bits
from aclnn_emu import AclnnError, ffi, lib
from aclnn_emu.tensor import acl_dtype, normalize_array, view_layout
from reference import assert_precision

BF16 = np.dtype(ml_dtypes.bfloat16)
NULLPTR, INVALID = 161001, 161002
NCHW, ND, NCL = 0, 2, 47


def pos(shape, dtype=np.float32, seed=0):
    """Positive values (no cancellation, so relative errors stay meaningful)."""
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape).astype(dtype)


@pytest.fixture
def soc():
    """Switch the emulated product for one test; restores the previous one."""
    previous = aclnn_emu.soc_name()
    yield aclnn_emu.set_soc_name
    aclnn_emu.set_soc_name(previous)


class Fmt:
    """A tensor argument with an explicit format."""

    def __init__(self, arr, fmt):
        self.arr, self.fmt = arr, fmt


def call(api, fmt, *arguments):
    """Phase 1 and 2 of ``api``: numpy arrays are tensors in ``fmt`` (Fmt for another format), lists are
    aclIntArrays, None is NULL, other values pass as they are."""
    handles, destroy = [], []
    try:
        for value in arguments:
            f = fmt
            if isinstance(value, Fmt):
                value, f = value.arr, value.fmt
            if isinstance(value, np.ndarray):
                arr = normalize_array(value)
                assert arr is value, "pass a native, aligned array"
                shape = ffi.new("int64_t[]", list(arr.shape))
                if arr.size:
                    base, storage, offset, strides = view_layout(arr)
                else:
                    base, storage, offset, strides = 0, 0, 0, (1,) * arr.ndim
                h = lib.aclCreateTensor(shape, arr.ndim, acl_dtype(arr.dtype), ffi.new("int64_t[]", list(strides)),
                                        offset, f, ffi.new("int64_t[]", [storage]), 1, ffi.cast("void *", base))
                assert h != ffi.NULL
                destroy.append((lib.aclDestroyTensor, h))
                handles.append(h)
            elif isinstance(value, list):
                h = lib.aclCreateIntArray(ffi.new("int64_t[]", value), len(value))
                destroy.append((lib.aclDestroyIntArray, h))
                handles.append(h)
            elif value is None:
                handles.append(ffi.NULL)
            else:
                handles.append(value)
        ws = ffi.new("uint64_t *")
        ex = ffi.new("aclOpExecutor **")
        allowed = lib.aclnnEmuGetHostMemoryAllowed()
        lib.aclnnEmuSetHostMemoryAllowed(1)
        try:
            rc = getattr(lib, api + "GetWorkspaceSize")(*handles, ws, ex)
            if rc:
                raise AclnnError(rc, aclnn_emu.errors.last_error_message(), api + "GetWorkspaceSize")
            work = np.zeros(max(int(ws[0]), 1), np.uint8)
            rc = getattr(lib, api)(ffi.cast("void *", work.ctypes.data) if ws[0] else ffi.NULL, ws[0], ex[0],
                                   ffi.NULL)
            if rc:
                raise AclnnError(rc, aclnn_emu.errors.last_error_message(), api)
        finally:
            lib.aclnnEmuSetHostMemoryAllowed(allowed)
    finally:
        for fn, h in destroy:
            fn(h)


def conv(x, w, out, bias=None, stride=(1,), padding=(0,), dilation=(1,), transposed=False, output_padding=None,
         groups=1, cube=0, fmt=None):
    fmt = fmt if fmt is not None else (NCL if x.ndim == 3 else NCHW)
    op = list(output_padding) if output_padding is not None else [0] * (x.ndim - 2)
    call("aclnnConvolution", fmt, x, w, Fmt(bias, ND) if bias is not None else None, list(stride), list(padding),
         list(dilation), transposed, op, groups, out, cube)
    return out


def conv_error(*args, **kwargs):
    with pytest.raises(AclnnError) as e:
        conv(*args, **kwargs)
    return e.value


# ---------------------------------------------------------------- references


def conv_ref(x, w, bias, stride, pad, dilation, groups, transposed, out_pad=None):
    """Direct float64 convolution; x is (N, C, *S), 1-D or 2-D; pad: (front, back) per spatial dimension."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    sd = x.ndim - 2
    if sd == 1:
        x, w = x[:, :, None, :], w[:, :, None, :]
        stride, dilation, pad = (1,) + tuple(stride), (1,) + tuple(dilation), ((0, 0),) + tuple(pad)
        out_pad = (0,) + tuple(out_pad or (0,))
    n, cin, ih, iw = x.shape
    if not transposed:
        cout, cin_g, kh, kw = w.shape
        xp = np.zeros((n, cin, ih + pad[0][0] + pad[0][1], iw + pad[1][0] + pad[1][1]))
        xp[:, :, pad[0][0]:pad[0][0] + ih, pad[1][0]:pad[1][0] + iw] = x
        oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
        ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
        out = np.zeros((n, cout, oh, ow))
        cout_g = cout // groups
        for g in range(groups):
            for i in range(kh):
                for j in range(kw):
                    patch = xp[:, g * cin_g:(g + 1) * cin_g, i * dilation[0]:i * dilation[0] + stride[0] * (oh - 1) + 1:
                               stride[0], j * dilation[1]:j * dilation[1] + stride[1] * (ow - 1) + 1:stride[1]]
                    out[:, g * cout_g:(g + 1) * cout_g] += np.einsum("nchw,oc->nohw", patch,
                                                                     w[g * cout_g:(g + 1) * cout_g, :, i, j])
    else:
        _, cout_g, kh, kw = w.shape
        cin_g = cin // groups
        cout = cout_g * groups
        fh = (ih - 1) * stride[0] + dilation[0] * (kh - 1) + 1 + out_pad[0]
        fw = (iw - 1) * stride[1] + dilation[1] * (kw - 1) + 1 + out_pad[1]
        full = np.zeros((n, cout, fh, fw))
        for g in range(groups):
            for i in range(kh):
                for j in range(kw):
                    contrib = np.einsum("nchw,co->nohw", x[:, g * cin_g:(g + 1) * cin_g],
                                        w[g * cin_g:(g + 1) * cin_g, :, i, j])
                    full[:, g * cout_g:(g + 1) * cout_g, i * dilation[0]:i * dilation[0] + stride[0] * (ih - 1) + 1:
                         stride[0], j * dilation[1]:j * dilation[1] + stride[1] * (iw - 1) + 1:stride[1]] += contrib
        oh = fh - pad[0][0] - pad[0][1]
        ow = fw - pad[1][0] - pad[1][1]
        out = full[:, :, pad[0][0]:pad[0][0] + oh, pad[1][0]:pad[1][0] + ow]
    if bias is not None:
        out = out + bias.astype(np.float64)[None, :, None, None]
    return out[:, :, 0, :] if sd == 1 else out


def out_len(i, k, s, p_total, d):
    return (i + p_total - d * (k - 1) - 1) // s + 1


def tout_len(i, k, s, p, d, op=0):
    return (i - 1) * s - 2 * p + d * (k - 1) + op + 1


# ---------------------------------------------------------------- Convolution


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("stride,kernel,length", [(1, 3, 13), (2, 3, 13), (3, 1, 2), (1, 255, 4), (2, 2, 1)])
def test_transposed_1d_as_ggml(dtype, stride, kernel, length):
    cin, cout = 7, 9
    x, w = pos((1, cin, length), dtype), pos((cin, cout, kernel), dtype, 1)
    out = np.full((1, cout, tout_len(length, kernel, stride, 0, 1)), np.nan, dtype)
    conv(x, w, out, stride=[stride], padding=[0], transposed=True, output_padding=[0])
    assert_precision(out, conv_ref(x, w, None, [stride], [(0, 0)], [1], 1, True), np.dtype(dtype).name)


def test_depthwise_1d_with_strided_output_as_ssm_conv():
    n_s, nr, nc, n_t = 2, 33, 4, 9
    x = pos((n_s, nr, nc - 1 + n_t))
    w = pos((nr, nc), seed=1)[:, None, :]  # [C, 1, K]
    dst = np.full((n_s, n_t, nr), np.nan, np.float32)
    y = dst.transpose(0, 2, 1)  # NCL view of an NLC buffer
    conv(x, w, y, groups=nr)
    want = conv_ref(x, w, None, [1], [(0, 0)], [1], nr, False)
    assert_precision(y, want, "float32")


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_plain_1d_with_padding_dilation_stride_bias(groups):
    x, w, b = pos((2, 4, 20)), pos((8, 4 // groups, 3), seed=1), pos((8,), seed=2)
    for stride, pad, dil in [(1, [1], 1), (2, [2, 1], 2), (3, [0, 3], 1)]:
        p = (pad[0], pad[-1])
        out = np.zeros((2, 8, out_len(20, 3, stride, sum(p), dil)), np.float32)
        conv(x, w, out, bias=b, stride=[stride], padding=pad, dilation=[dil], groups=groups)
        assert_precision(out, conv_ref(x, w, b, [stride], [p], [dil], groups, False), "float32")


@pytest.mark.parametrize("transposed", [False, True])
def test_2d_forms(transposed):
    x = pos((2, 4, 7, 6))
    if not transposed:
        w = pos((6, 2, 3, 2), seed=1)
        out = np.zeros((2, 6, out_len(7, 3, 2, 2, 1), out_len(6, 2, 1, 2, 2)), np.float32)
        conv(x, w, out, stride=[2, 1], padding=[1, 1], dilation=[1, 2], groups=2)
        want = conv_ref(x, w, None, [2, 1], [(1, 1), (1, 1)], [1, 2], 2, False)
    else:
        w = pos((4, 3, 3, 2), seed=1)
        b = pos((6,), seed=2)
        out = np.zeros((2, 6, tout_len(7, 3, 2, 1, 1, 1), tout_len(6, 2, 1, 0, 2)), np.float32)
        conv(x, w, out, bias=b, stride=[2, 1], padding=[1, 0], dilation=[1, 2], transposed=True,
             output_padding=[1, 0], groups=2)
        want = conv_ref(x, w, b, [2, 1], [(1, 1), (0, 0)], [1, 2], 2, True, [1, 0])
    assert_precision(out, want, "float32")


def test_non_contiguous_input_and_weight():
    base = pos((1, 5, 2 * 11))
    x = base[:, :, ::2]
    w = pos((3, 5, 2), seed=1).transpose(1, 0, 2)  # (5, 3, 2) view for a transposed conv
    out = np.zeros((1, 3, tout_len(11, 2, 2, 0, 1)), np.float32)
    conv(x, w, out, stride=[2], transposed=True)
    assert_precision(out, conv_ref(np.ascontiguousarray(x), np.ascontiguousarray(w), None, [2], [(0, 0)], [1], 1,
                                   True), "float32")


def test_cube_math_type_precisions():
    x, w = pos((1, 3, 16)), pos((4, 3, 3), seed=1)
    exact = conv(x, w, np.zeros((1, 4, 14), np.float32))
    f16 = conv(x, w, np.zeros((1, 4, 14), np.float32), cube=2)
    want = conv_ref(x.astype(np.float16), w.astype(np.float16), None, [1], [(0, 0)], [1], 1, False)
    assert_precision(f16, want, "float32")
    assert not same_bits(exact, f16)
    hf32 = conv(x, w, np.zeros((1, 4, 14), np.float32), cube=3)
    assert_precision(hf32, exact, "float16")
    assert same_bits(hf32, conv(x, w, np.zeros((1, 4, 14), np.float32), cube=1))


def test_nan_propagates_and_empty_tensors_do_nothing():
    x, w = pos((1, 2, 5)), pos((2, 2, 2), seed=1)
    x[0, 1, 2] = np.nan
    out = conv(x, w, np.zeros((1, 2, 4), np.float32))
    assert np.isnan(out[:, :, 1:3]).all() and np.isfinite(out[:, :, [0, 3]]).all()
    empty = np.zeros((0, 2, 4), np.float32)
    conv(np.zeros((0, 2, 5), np.float32), w, empty)
    conv(x, np.zeros((0, 2, 2), np.float32), np.zeros((1, 0, 4), np.float32))


def test_convolution_errors_name_the_argument():
    x, w, out = pos((1, 2, 5)), pos((3, 2, 2), seed=1), np.zeros((1, 3, 4), np.float32)
    with pytest.raises(AclnnError) as e:
        call("aclnnConvolution", NCL, None, w, None, [1], [0], [1], False, [0], 1, out, 0)
    assert e.value.code == NULLPTR and "input" in str(e.value)
    with pytest.raises(AclnnError) as e:
        call("aclnnConvolution", NCL, x, w, None, [1], [0], [1], True, None, 1, out, 0)
    assert e.value.code == NULLPTR and "outputPadding" in str(e.value)
    cases = [
        (dict(x=x.astype(np.float64)), "input"),
        (dict(out=out.astype(np.float16), transposed=True, w=pos((2, 3, 2))), "output"),
        (dict(bias=np.zeros(2, np.float32)), "bias"),
        (dict(stride=[1, 1]), "stride"),
        (dict(padding=[0, 0, 0]), "padding"),
        (dict(fmt=ND), "NCL"),
        (dict(stride=[0]), "stride"),
        (dict(dilation=[0]), "dilation"),
        (dict(padding=[-1]), "padding"),
        (dict(groups=0), "groups"),
        (dict(groups=2), "groups"),
        (dict(w=pos((3, 2, 9))), "dilated kernel"),
        (dict(out=np.zeros((1, 3, 5), np.float32)), "output"),
        (dict(cube=5), "cubeMathType"),
        (dict(w=pos((2, 3, 300)), transposed=True, out=np.zeros((1, 3, 303), np.float32)), "255"),
        (dict(w=pos((2, 3, 2)), transposed=True, stride=[2], output_padding=[2], out=np.zeros((1, 3, 12),
                                                                                             np.float32)),
         "outputPadding"),
        (dict(x=pos((1, 2, 3, 3, 3)), w=pos((3, 2, 1, 1, 1)), out=np.zeros((1, 3, 3, 3, 3), np.float32),
              stride=[1, 1, 1], padding=[0, 0, 0], dilation=[1, 1, 1], fmt=30), "3-D"),
    ]
    for change, word in cases:
        a = dict(x=x, w=w, out=out)
        a.update(change)
        err = conv_error(a.pop("x"), a.pop("w"), a.pop("out"), **a)
        assert err.code == INVALID, (change, err)
        assert word in str(err), (change, str(err))


def test_training_series_dtypes_and_cube_math_type(soc):
    soc("Ascend910")
    x, w = pos((1, 2, 5)), pos((3, 2, 2), seed=1)
    assert conv_error(x, w, np.zeros((1, 3, 4), np.float32)).code == INVALID  # KEEP_DTYPE with fp32
    out = conv(x, w, np.zeros((1, 3, 4), np.float32), cube=1)  # through fp16
    want = conv_ref(x.astype(np.float16), w.astype(np.float16), None, [1], [(0, 0)], [1], 1, False)
    assert_precision(out, want, "float32")
    assert "ACL_BF16" in str(conv_error(x.astype(BF16), w.astype(BF16), np.zeros((1, 3, 4), BF16)))


# ---------------------------------------------------------------- pooling


def pool_ref(x, k, s, p, ceil, kind, count_include_pad=True, divisor=0):
    """PyTorch's max_pool2d / avg_pool2d in float64 over the last two dimensions; p = (top, bottom, left, right)."""
    x = x.astype(np.float64)
    h, w = x.shape[-2:]

    def size(i, kk, ss, a, b):
        o = -((-(i + a + b - kk)) // ss) + 1 if ceil else (i + a + b - kk) // ss + 1
        if ceil and (o - 1) * ss >= i + a:
            o -= 1
        return o

    oh, ow = size(h, k[0], s[0], p[0], p[1]), size(w, k[1], s[1], p[2], p[3])
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[2]
            h1, w1 = h0 + k[0], w0 + k[1]
            win = x[..., max(h0, 0):min(h1, h), max(w0, 0):min(w1, w)]
            if kind == "max":
                out[..., i, j] = win.max(axis=(-2, -1), initial=-np.inf)  # a window all padding: -inf
            else:
                padded = (min(h1, h + p[1]) - h0) * (min(w1, w + p[3]) - w0)
                d = divisor or (padded if count_include_pad else win.shape[-2] * win.shape[-1])
                out[..., i, j] = win.sum(axis=(-2, -1)) / d
    return out


def avg_pool(x, out, k, s, p, ceil=False, cip=True, divisor=0, cube=0):
    call("aclnnAvgPool2d", NCL if x.ndim == 3 else NCHW, x, list(k), list(s), list(p), ceil, cip, divisor, cube, out)
    return out


def max_pool(x, out, k, s, pads, ceil=0, dil=(1, 1), auto_pad=0):
    return aclnn_emu.run("aclnnMaxPool", self=x, kernelShape=list(k), strides=list(s), autoPad=auto_pad,
                         pads=list(pads), dilations=list(dil), ceilMode=ceil, out=out)


@pytest.mark.parametrize("k0,k1,s0,s1,p0,p1", [(1, 1, 1, 1, 0, 0), (3, 3, 1, 2, 1, 0), (3, 1, 2, 2, 1, 0),
                                               (3, 3, 2, 1, 1, 1)])
def test_pool_as_ggml(k0, k1, s0, s1, p0, p1):
    x = np.random.default_rng(0).uniform(-4, 4, (1, 3, 10, 10)).astype(np.float32)
    want = pool_ref(x, (k1, k0), (s1, s0), (p1, p1, p0, p0), False, "avg")
    out = avg_pool(x, np.zeros(want.shape, np.float32), (k1, k0), (s1, s0), (p1, p0))
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=2e-6)
    padded = np.pad(x, ((0, 0), (0, 0), (p1, p1), (p0, p0)), constant_values=-np.finfo(np.float32).max)
    want = pool_ref(padded, (k1, k0), (s1, s0), (0, 0, 0, 0), False, "max")
    out = max_pool(padded, np.zeros(want.shape, np.float32), (k1, k0), (s1, s0), [0, 0, 0, 0])
    assert same_bits(out, want.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
def test_avg_pool_modes(dtype):
    x = pos((2, 3, 9, 8), dtype)
    for k, s, p, ceil, cip, div in [((3, 2), (2, 2), (1, 1), True, True, 0), ((3, 3), (2, 3), (1, 0), True, False, 0),
                                    ((2, 2), (), (1, 1), False, False, 5), ((3,), (2,), (1,), True, True, 0)]:
        kk = (k[0], k[-1])
        ss = (s[0], s[-1]) if s else kk
        pp = (p[0], p[0], p[-1], p[-1])
        want = pool_ref(x, kk, ss, pp, ceil, "avg", cip, div)
        out = avg_pool(x, np.zeros(want.shape, dtype), k, s, p, ceil, cip, div)
        assert_precision(out, want, np.dtype(dtype).name)
    x3 = x[0, :, ::2, :]  # 3-D, non-contiguous
    want = pool_ref(x3, (2, 2), (1, 1), (1, 1, 1, 1), False, "avg")
    assert_precision(avg_pool(x3, np.zeros(want.shape, dtype), (2,), (1,), (1,)), want, np.dtype(dtype).name)


def test_avg_pool_use_fp16_and_cube_math_type_rules(soc):
    x = pos((1, 2, 6, 6))
    out = avg_pool(x, np.zeros((1, 2, 3, 3), np.float32), (2, 2), (2, 2), (0,), cube=2)
    want = pool_ref(x.astype(np.float16), (2, 2), (2, 2), (0,) * 4, False, "avg").astype(np.float16)
    assert same_bits(out, want.astype(np.float32))
    for cube in (1, 3, 7):
        with pytest.raises(AclnnError) as e:
            avg_pool(x, np.zeros((1, 2, 3, 3), np.float32), (2, 2), (2, 2), (0,), cube=cube)
        assert e.value.code == INVALID and "cubeMathType" in str(e.value)
    soc("Ascend910")
    with pytest.raises(AclnnError) as e:
        avg_pool(x, np.zeros((1, 2, 3, 3), np.float32), (2, 2), (2, 2), (0,), cube=0)
    assert e.value.code == INVALID and "cubeMathType" in str(e.value)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_max_pool_modes_and_nan(dtype):
    x = np.random.default_rng(3).uniform(-4, 4, (2, 3, 9, 8)).astype(dtype)
    x[0, 0, 4, 4] = np.nan
    for k, s, pads, ceil in [((3, 3), (2, 2), [1, 1, 1, 1], 1), ((2, 3), (1, 2), [0, 1, 2, 1], 0), ((2,), (), [1], 0),
                             ((3, 2), (2,), [1, 0], 1)]:
        kk, ss = (k[0], k[-1]), ((s[0], s[-1]) if s else (1, 1))
        if len(pads) == 1:
            pp = (pads[0],) * 4
        elif len(pads) == 2:
            pp = (pads[0], pads[0], pads[1], pads[1])
        else:  # [top, left, bottom, right]
            pp = (pads[0], pads[2], pads[1], pads[3])
        want = pool_ref(x, kk, ss, pp, bool(ceil), "max")
        out = max_pool(x, np.zeros(want.shape, dtype), k, s, pads, ceil)
        assert same_bits(out, want.astype(dtype))


def test_pool_empty_batch_and_errors():
    x = pos((0, 2, 4, 4))
    avg_pool(x, np.zeros((0, 2, 2, 2), np.float32), (2,), (), (0,))
    max_pool(x, np.zeros((0, 2, 3, 3), np.float32), (2,), (), [])
    good = pos((1, 2, 4, 4))
    for change, word in [(dict(k=(0,)), "kernelSize"), (dict(s=(0,)), "strides"), (dict(p=(2,)), "half"),
                         (dict(out=np.zeros((1, 2, 3, 3), np.float32)), "out"),
                         (dict(out=np.zeros((1, 2, 2, 2), np.float16)), "out"), (dict(p=(0, 0, 0)), "paddings"),
                         (dict(x=pos((1, 0, 4, 4)), out=np.zeros((1, 0, 2, 2), np.float32)), "self")]:
        a = dict(x=good, out=np.zeros((1, 2, 2, 2), np.float32), k=(2,), s=(), p=(0,))
        a.update(change)
        with pytest.raises(AclnnError) as e:
            avg_pool(a["x"], a["out"], a["k"], a["s"], a["p"])
        assert e.value.code == INVALID and word in str(e.value), (change, str(e.value))
    with pytest.raises(AclnnError) as e:
        call("aclnnAvgPool2d", NCHW, good, [2], None, [0], False, True, 0, 0, np.zeros((1, 2, 2, 2), np.float32))
    assert e.value.code == NULLPTR and "strides" in str(e.value)
    with pytest.raises(AclnnError) as e:
        call("aclnnAvgPool2d", ND, good, [2], [], [0], False, True, 0, 0, np.zeros((1, 2, 2, 2), np.float32))
    assert e.value.code == INVALID and "NCHW" in str(e.value)
    out = np.zeros((1, 2, 3, 3), np.float32)
    for change, word in [(dict(dil=(2,)), "dilations"), (dict(auto_pad=1), "autoPad"), (dict(pads=[1, 1, 1]), "pads"),
                         (dict(pads=[2, 0]), "pads"), (dict(k=(2, 2, 2)), "kernelShape")]:
        a = dict(k=(2,), s=(), pads=[])
        a.update(change)
        with pytest.raises(AclnnError) as e:
            max_pool(good, out, **a)
        assert e.value.code == INVALID and word in str(e.value), (change, str(e.value))
    with pytest.raises(AclnnError) as e:
        max_pool(good.astype(BF16), out.astype(BF16), (2,), (), [])
    assert e.value.code == INVALID and "self" in str(e.value)


# ---------------------------------------------------------------- determinism


def _all_results():
    x, w = pos((2, 6, 300)), pos((6, 4, 5), seed=1)
    a = conv(x, w, np.zeros((2, 4, tout_len(300, 5, 3, 0, 1)), np.float32), stride=[3], transposed=True)
    b = conv(x, pos((6, 1, 4), seed=2), np.zeros((2, 6, 297), np.float32), groups=6)
    c = conv(x.astype(np.float16), pos((5, 6, 3), np.float16, 3), np.zeros((2, 5, 298), np.float16), cube=0)
    img = pos((2, 3, 40, 37))
    d = avg_pool(img, np.zeros((2, 3, 21, 19), np.float32), (3,), (2,), (1,), True)
    e = max_pool(img, np.zeros((2, 3, 21, 19), np.float32), (3,), (2,), [1], 1)
    return [a, b, c, d, e]


def test_one_and_two_threads_give_the_same_bits():
    assert_thread_count_invariant(_all_results)


def test_every_isa_level_gives_the_same_bits():
    assert_isa_invariant(_all_results)
