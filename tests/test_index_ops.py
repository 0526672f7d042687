"""The indexing operators: GatherV2, IndexSelect, IndexCopy, IndexFillTensor,
UpsampleNearest2d and Im2col (src/ops/index*.c), against numpy references
written here.

All of them move elements (Im2col may also cast), so results are compared
exactly. Also: every dtype family they take, index dtypes int32/int64,
negative and out-of-range indices (zeros for the gathers, skipped slices for
IndexCopy, 161002 for IndexFillTensor), non-contiguous views, empty and 0-d
tensors, NaN/inf passing through untouched, the products' dtype lists, the
error codes with the argument each message names, and bit-identity for 1 and
2 threads and every ISA level.
"""

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from helpers import assert_isa_invariant, assert_thread_count_invariant, same_bits
from aclnn_emu import AclnnError, ffi, lib
from aclnn_emu.tensor import acl_dtype, normalize_array, view_layout

BF16 = np.dtype(ml_dtypes.bfloat16)
NULLPTR, INVALID, TILING = 161001, 161002, 561002
FORMAT_NCHW, FORMAT_NHWC, FORMAT_ND = 0, 1, 2
DTYPES = [np.float32, np.float16, BF16, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_,
          np.complex64, np.complex128]


def values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-4, 4, shape) + 1j * rng.uniform(-4, 4, shape)).astype(dtype)
    return rng.uniform(-4, 4, shape).astype(dtype)


def error(api, **arguments):
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run(api, **arguments)
    return e.value


@pytest.fixture
def soc():
    """Switch the emulated product for one test; restores the previous one."""
    previous = aclnn_emu.soc_name()
    yield aclnn_emu.set_soc_name
    aclnn_emu.set_soc_name(previous)


# ---------------------------------------------------------------- references


def gather_ref(self, dim, index, negative):
    """out = self with dim replaced by index's shape; out-of-range indices give zeros."""
    n = self.shape[dim]
    idx = np.asarray(index, np.int64).reshape(-1) if np.ndim(index) else np.asarray(index, np.int64).reshape(1)
    if negative:
        idx = np.where(idx < 0, idx + n, idx)
    valid = (idx >= 0) & (idx < n)
    taken = np.take(self, np.where(valid, idx, 0), axis=dim)
    mask_shape = [1] * self.ndim
    mask_shape[dim] = idx.size
    taken = np.where(valid.reshape(mask_shape), taken, np.zeros((), self.dtype))
    index_shape = np.shape(index) if np.ndim(index) else (1,)
    return taken.reshape(self.shape[:dim] + index_shape + self.shape[dim + 1:])


def index_copy_ref(self, dim, index, source):
    """Slices in order, the last one wins; out-of-range indices are skipped."""
    out = self.copy()
    src = np.moveaxis(source.reshape(self.shape[:dim] + (-1,) + self.shape[dim + 1:]) if source.ndim else
                      source.reshape(1), dim if source.ndim else 0, 0)
    dst = np.moveaxis(out, dim, 0) if out.ndim else out.reshape(1)
    for j, k in enumerate(np.asarray(index).reshape(-1)):
        if 0 <= k < dst.shape[0]:
            dst[k] = src[j]
    return out


def upsample_ref(x, oh, ow, nhwc=False):
    """Nearest neighbour as CANN's kernel computes it: floor(dst * (float)in/out), in float32."""
    if nhwc:
        x = np.moveaxis(x, 3, 1)
    ih, iw = x.shape[2], x.shape[3]
    sh, sw = np.float32(ih) / np.float32(oh), np.float32(iw) / np.float32(ow)
    rows = np.minimum(np.floor(np.arange(oh, dtype=np.float32) * sh).astype(np.int64), ih - 1)
    cols = np.minimum(np.floor(np.arange(ow, dtype=np.float32) * sw).astype(np.int64), iw - 1)
    out = x[:, :, rows][:, :, :, cols]
    return np.moveaxis(out, 1, 3) if nhwc else out


def im2col_ref(x, k, d, p, s):
    """PyTorch's unfold, by direct loops."""
    squeeze = x.ndim == 3
    if squeeze:
        x = x[None]
    n, c, h, w = x.shape
    oh = (h + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (w + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    padded = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), x.dtype)
    padded[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
    out = np.zeros((n, c, k[0], k[1], oh, ow), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i, j] = padded[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0],
                                     j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]
    out = out.reshape(n, c * k[0] * k[1], oh * ow)
    return out[0] if squeeze else out


# ---------------------------------------------------------------- a caller with tensor formats


def run_formatted(api, fmt, *arguments):
    """Phase 1 and 2 of ``api`` with every tensor in format ``fmt``: numpy arrays are tensors, lists are
    aclIntArrays (run() makes ND tensors, and UpsampleNearest2d takes only NCHW or NHWC)."""
    handles, destroy, keep = [], [], []
    try:
        for value in arguments:
            if isinstance(value, np.ndarray):
                arr = normalize_array(value)
                assert arr is value, "pass a native, aligned array"
                shape = ffi.new("int64_t[]", list(arr.shape))
                if arr.size:
                    base, storage, offset, strides = view_layout(arr)
                else:
                    base, storage, offset, strides = 0, 0, 0, (1,) * arr.ndim
                h = lib.aclCreateTensor(shape, arr.ndim, acl_dtype(arr.dtype), ffi.new("int64_t[]", list(strides)),
                                        offset, fmt, ffi.new("int64_t[]", [storage]), 1, ffi.cast("void *", base))
                assert h != ffi.NULL
                destroy.append((lib.aclDestroyTensor, h))
                keep.append(arr)
            else:
                h = lib.aclCreateIntArray(ffi.new("int64_t[]", list(value)), len(value))
                destroy.append((lib.aclDestroyIntArray, h))
            handles.append(h)
        ws = ffi.new("uint64_t *")
        ex = ffi.new("aclOpExecutor **")
        allowed = lib.aclnnEmuGetHostMemoryAllowed()
        lib.aclnnEmuSetHostMemoryAllowed(1)
        try:
            rc = getattr(lib, api + "GetWorkspaceSize")(*handles, ws, ex)
            if rc:
                raise AclnnError(rc, aclnn_emu.errors.last_error_message(), api + "GetWorkspaceSize")
            assert ws[0] == 0
            rc = getattr(lib, api)(ffi.NULL, 0, ex[0], ffi.NULL)
            if rc:
                raise AclnnError(rc, aclnn_emu.errors.last_error_message(), api)
        finally:
            lib.aclnnEmuSetHostMemoryAllowed(allowed)
    finally:
        for fn, h in destroy:
            fn(h)


# ---------------------------------------------------------------- GatherV2


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_v2_every_dtype(dtype):
    x = values((4, 5, 3), dtype)
    index = np.array([[3, 0], [-1, 2], [4, -4]], np.int64)
    out = np.empty((4, 3, 2, 3), dtype)
    aclnn_emu.run("aclnnGatherV2", self=x, dim=1, index=index, out=out)
    assert same_bits(out, gather_ref(x, 1, index, negative=True))


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather_v2_dims_and_index_shapes(dim, index_dtype):
    x = values((3, 4, 5), np.float32, seed=1)
    n = x.shape[dim]
    for index in [np.array(n - 1, index_dtype), np.arange(-n, n, dtype=index_dtype),
                  np.array([[0, n - 1, 1], [-1, 0, 0]], index_dtype)]:
        d = dim % 3
        want = gather_ref(x, d, index, negative=True)
        out = np.full(want.shape, np.nan, np.float32)
        aclnn_emu.run("aclnnGatherV2", self=x, dim=dim, index=index, out=out)
        assert same_bits(out, want)


def test_gather_v2_out_of_range_indices_give_zeros():
    x = values((6, 4), np.float16)
    index = np.array([7, -7, 6, -6, 2, 2**40, -(2**40)], np.int64)
    out = np.full((7, 4), np.nan, np.float16)
    aclnn_emu.run("aclnnGatherV2", self=x, dim=0, index=index, out=out)
    assert same_bits(out, np.stack([np.zeros(4, np.float16)] * 3 + [x[0], x[2]] + [np.zeros(4, np.float16)] * 2))


def test_gather_v2_strided_views_and_special_values():
    base = values((6, 10, 8), np.float32, seed=2)
    base[0, 0, 0], base[1, 2, 4], base[3, 4, 6] = np.nan, np.inf, -np.inf
    x = base[::2, ::2, ::2]  # (3, 5, 4), every stride doubled
    index_base = np.array([4, 9, 0, 9, 2, 9, 4, 9], np.int32)
    index = index_base[::2]  # a strided index
    out_base = np.full((3, 8, 4), 7.0, np.float32)
    out = out_base[:, ::2, :]
    aclnn_emu.run("aclnnGatherV2", self=x, dim=1, index=index, out=out)
    assert same_bits(out, gather_ref(x, 1, index, negative=True))
    assert (out_base[:, 1::2] == 7).all()
    xt = values((5, 7), np.int64).T  # transposed
    out = np.empty((7, 3), np.int64)
    aclnn_emu.run("aclnnGatherV2", self=xt, dim=1, index=np.array([4, 0, 2], np.int64), out=out)
    assert same_bits(out, xt[:, [4, 0, 2]])


def test_gather_v2_zero_dim_self_and_empty_tensors():
    x = np.array(2.5, np.float32)
    out = np.full((), np.nan, np.float32)
    aclnn_emu.run("aclnnGatherV2", self=x, dim=0, index=np.array([0], np.int64), out=out)
    assert out == 2.5
    aclnn_emu.run("aclnnGatherV2", self=x, dim=-1, index=np.array(-1, np.int64), out=out)
    assert out == 2.5
    aclnn_emu.run("aclnnGatherV2", self=x, dim=0, index=np.array([1], np.int64), out=out)
    assert out == 0
    # Empty index: nothing to do. Empty self along dim: CANN writes nothing either.
    out = np.empty((3, 0), np.float32)
    aclnn_emu.run("aclnnGatherV2", self=values((3, 4), np.float32), dim=1, index=np.empty(0, np.int64), out=out)
    out = np.full((2, 4), 9.0, np.float32)
    aclnn_emu.run("aclnnGatherV2", self=np.empty((0, 4), np.float32), dim=0, index=np.array([0, 1]), out=out)
    assert (out == 9).all()


def test_gather_v2_errors_name_the_argument(soc):
    x = values((3, 4), np.float32)
    e = error("aclnnGatherV2", self=x, dim=0, index=np.array([0]), out=np.empty((1, 4), np.float16))
    assert e.code == INVALID and "out" in e.message and "ACL_FLOAT16" in e.message
    e = error("aclnnGatherV2", self=x.astype(np.uint16), dim=0, index=np.array([0]), out=np.empty((1, 4), np.uint16))
    assert e.code == INVALID and "self" in e.message
    e = error("aclnnGatherV2", self=x, dim=0, index=np.array([0], np.int16), out=np.empty((1, 4), np.float32))
    assert e.code == INVALID and "index" in e.message and "ACL_INT16" in e.message
    e = error("aclnnGatherV2", self=x, dim=2, index=np.array([0]), out=np.empty((1, 4), np.float32))
    assert e.code == INVALID and "dim" in e.message
    e = error("aclnnGatherV2", self=x, dim=1, index=np.array([0, 1]), out=np.empty((3, 3), np.float32))
    assert e.code == INVALID and "out" in e.message and "[3, 2]" in e.message
    e = error("aclnnGatherV2", self=np.ones((1,) * 9, np.float32), dim=0, index=np.array([0]),
              out=np.ones((1,) * 9, np.float32))
    assert e.code == INVALID and "self" in e.message and "rank 9" in e.message
    e = error("aclnnGatherV2", self=x, dim=0, index=np.array([0]), out=x[:1])
    assert e.code == INVALID and "out" in e.message and "self" in e.message
    soc("Ascend910")
    e = error("aclnnGatherV2", self=x.astype(BF16), dim=0, index=np.array([0]), out=np.empty((1, 4), BF16))
    assert e.code == INVALID and "ACL_BF16" in e.message
    soc("Ascend950")
    out = np.empty((1, 4), np.uint16)
    aclnn_emu.run("aclnnGatherV2", self=x.astype(np.uint16), dim=0, index=np.array([2]), out=out)
    assert same_bits(out, x[2:3].astype(np.uint16))


def test_null_arguments_return_161001_with_the_name():
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    x = values((2, 2), np.float32)
    from aclnn_emu.tensor import wrap_array
    t, keep = wrap_array(x)
    try:
        calls = [
            (lambda: lib.aclnnGatherV2GetWorkspaceSize(t, 0, ffi.NULL, t, ws, ex), "index"),
            (lambda: lib.aclnnIndexSelectGetWorkspaceSize(t, 0, t, ffi.NULL, ws, ex), "out"),
            (lambda: lib.aclnnIndexCopyGetWorkspaceSize(t, 0, t, ffi.NULL, t, ws, ex), "source"),
            (lambda: lib.aclnnInplaceIndexCopyGetWorkspaceSize(ffi.NULL, 0, t, t, ws, ex), "selfRef"),
            (lambda: lib.aclnnIndexFillTensorGetWorkspaceSize(t, 0, ffi.NULL, ffi.NULL, t, ws, ex), "index"),
            (lambda: lib.aclnnInplaceIndexFillTensorGetWorkspaceSize(t, 0, ffi.NULL, ffi.NULL, ffi.NULL, ex),
             "workspaceSize"),
            (lambda: lib.aclnnUpsampleNearest2dGetWorkspaceSize(t, ffi.NULL, t, ws, ex), "outputSize"),
            (lambda: lib.aclnnIm2colGetWorkspaceSize(t, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, t, ws, ex),
             "kernelSize"),
            (lambda: lib.aclnnGatherV2GetWorkspaceSize(t, 0, t, t, ws, ffi.NULL), "executor"),
        ]
        for call, name in calls:
            assert call() == NULLPTR
            assert name in aclnn_emu.errors.last_error_message()
    finally:
        lib.aclDestroyTensor(t)


# ---------------------------------------------------------------- IndexSelect


@pytest.mark.parametrize("dtype", DTYPES + [np.uint16, np.uint32, np.uint64])
def test_index_select_every_dtype(dtype):
    x = values((5, 6), dtype)
    index = np.array([5, 0, 0, 3], np.int32)
    out = np.empty((5, 4), dtype)
    aclnn_emu.run("aclnnIndexSelect", self=x, dim=1, index=index, out=out)
    assert same_bits(out, x[:, [5, 0, 0, 3]])


def test_index_select_negative_and_out_of_range_give_zeros():
    x = values((4, 3), np.float32)
    out = np.full((4, 3), np.nan, np.float32)
    aclnn_emu.run("aclnnIndexSelect", self=x, dim=0, index=np.array([-1, 4, 1, -4], np.int64), out=out)
    assert same_bits(out, np.stack([np.zeros(3, np.float32)] * 2 + [x[1], np.zeros(3, np.float32)]))


def test_index_select_shapes_views_and_scalars():
    x = values((3, 8, 4), BF16, seed=3)[:, ::2]  # (3, 4, 4), strided
    out = np.empty((3, 4, 1), BF16)
    aclnn_emu.run("aclnnIndexSelect", self=x, dim=-1, index=np.array(2, np.int64), out=out)
    assert same_bits(out, x[:, :, [2]])
    out = np.full((), np.nan, np.float32)
    aclnn_emu.run("aclnnIndexSelect", self=np.array(3.0, np.float32), dim=0, index=np.array([0]), out=out)
    assert out == 3
    out = np.empty((0, 4), np.float32)
    aclnn_emu.run("aclnnIndexSelect", self=values((3, 4), np.float32), dim=0, index=np.empty(0, np.int32), out=out)


def test_index_select_errors(soc):
    x = values((3, 4), np.float32)
    e = error("aclnnIndexSelect", self=x, dim=0, index=np.zeros((2, 2), np.int64), out=np.empty((4, 4), np.float32))
    assert e.code == INVALID and "index" in e.message and "rank 2" in e.message
    e = error("aclnnIndexSelect", self=x, dim=-3, index=np.array([0]), out=np.empty((1, 4), np.float32))
    assert e.code == INVALID and "dim" in e.message
    e = error("aclnnIndexSelect", self=x, dim=0, index=np.array([0, 1]), out=np.empty((3, 4), np.float32))
    assert e.code == INVALID and "out" in e.message
    e = error("aclnnIndexSelect", self=np.array(1.0, np.float32), dim=0, index=np.array([0]),
              out=np.empty((1,), np.float32))
    assert e.code == INVALID and "0-d" in e.message
    e = error("aclnnIndexSelect", self=x, dim=0, index=np.array([0]), out=np.empty((1, 4), np.int32))
    assert e.code == INVALID and "out" in e.message
    soc("Ascend910")
    e = error("aclnnIndexSelect", self=x.astype(BF16), dim=0, index=np.array([0]), out=np.empty((1, 4), BF16))
    assert e.code == INVALID and "self" in e.message and "ACL_BF16" in e.message


# ---------------------------------------------------------------- IndexCopy


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.float64, np.int8, np.uint8, np.int16,
                                   np.int32, np.int64, np.bool_, np.complex64, np.complex128])
def test_inplace_index_copy_every_dtype(dtype):
    x = values((6, 5), dtype)
    source = values((3, 5), dtype, seed=9)
    index = np.array([4, 0, 2], np.int64)
    want = index_copy_ref(x, 0, index, source)
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=index, source=source)
    assert same_bits(x, want)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_index_copy_dims_duplicates_and_out_of_range(dim):
    x = values((4, 5, 6), np.float32, seed=4)
    n = x.shape[dim]
    index = np.array([1, n - 1, 1, n, -1, 0, 1], np.int32)  # 1 three times: the last wins; n and -1 are skipped
    shape = list(x.shape)
    shape[dim] = index.size
    source = values(tuple(shape), np.float32, seed=5)
    want = index_copy_ref(x, dim % 3, index, source)
    out = np.full_like(x, np.nan)
    aclnn_emu.run("aclnnIndexCopy", selfRef=x, dim=dim, index=index, source=source, outRef=out)
    assert same_bits(out, want)
    x_before = x.copy()
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=x, dim=dim, index=index, source=source)
    assert same_bits(x, want)
    assert not same_bits(x, x_before)


def test_index_copy_views_scalars_and_empty():
    base = np.zeros((8, 10), np.float16)
    dst = base[::2, 1::2]  # (4, 5), strided
    src_base = values((5, 6), np.float16)
    source = src_base[:, ::3].T  # (2, 5), transposed and strided
    want = index_copy_ref(dst.copy(), 0, np.array([3, 1]), source)
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=dst, dim=0, index=np.array([3, 1]), source=source)
    assert same_bits(dst, want)
    assert (base[1::2] == 0).all() and (base[:, ::2] == 0).all()
    x = np.zeros(4, np.int32)  # 1-d selfRef, 0-d source and index
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array(2, np.int64),
                  source=np.array(7, np.int32))
    assert list(x) == [0, 0, 7, 0]
    s = np.array(1.0, np.float32)  # 0-d selfRef
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=s, dim=-1, index=np.array([0]), source=np.array([5.0], np.float32))
    assert s == 5
    x = values((3, 4), np.float32)
    before = x.copy()
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.empty(0, np.int64),
                  source=np.empty((0, 4), np.float32))
    assert same_bits(x, before)


def test_index_copy_errors(soc):
    x = values((4, 3), np.float32)
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([0], np.int64),
              source=np.ones((1, 3), np.float16))
    assert e.code == INVALID and "source" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([0], np.float32),
              source=np.ones((1, 3), np.float32))
    assert e.code == INVALID and "index" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([[0]]), source=np.ones((1, 3), np.float32))
    assert e.code == INVALID and "index" in e.message and "rank 2" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([0, 1]), source=np.array(1.0, np.float32))
    assert e.code == INVALID and "source" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([0]), source=np.ones((1, 3, 1), np.float32))
    assert e.code == INVALID and "rank" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=2, index=np.array([0]), source=np.ones((1, 3), np.float32))
    assert e.code == INVALID and "dim" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([0]), source=np.ones((1, 2), np.float32))
    assert e.code == INVALID and "source" in e.message and "[1, 2]" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([0, 1]), source=np.ones((3, 3), np.float32))
    assert e.code == INVALID and "index" in e.message and "3" in e.message
    e = error("aclnnIndexCopy", selfRef=x, dim=0, index=np.array([0]), source=np.ones((1, 3), np.float32),
              outRef=np.empty((4, 4), np.float32))
    assert e.code == INVALID and "outRef" in e.message
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([0]), source=x[1:2])
    assert e.code == INVALID and "source" in e.message
    big = np.zeros(20, np.float32)
    e = error("aclnnIndexCopy", selfRef=big[:12].reshape(4, 3), dim=0, index=np.array([0]),
              source=np.ones((1, 3), np.float32), outRef=big[1:13].reshape(4, 3))
    assert e.code == INVALID and "outRef" in e.message and "selfRef" in e.message
    soc("Ascend950")
    x = np.zeros((3, 2), np.uint32)
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([1]), source=np.ones((1, 2), np.uint32))
    assert x[1].tolist() == [1, 1]
    soc("Ascend910B")
    e = error("aclnnInplaceIndexCopy", selfRef=x, dim=0, index=np.array([1]), source=np.ones((1, 2), np.uint32))
    assert e.code == INVALID and "selfRef" in e.message and "ACL_UINT32" in e.message


# ---------------------------------------------------------------- IndexFillTensor


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int32, np.int64, np.bool_])
def test_index_fill_every_dtype(dtype):
    x = values((3, 4, 5), dtype)
    want = x.copy()
    want[:, [0, 3, 2]] = np.array(1.5).astype(dtype)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnIndexFillTensor", self=x, dim=1, index=[0, -1, 2], value=1.5, out=out)
    assert same_bits(out, want)
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=x, dim=1, index=[0, -1, 2, 0], value=1.5)
    assert same_bits(x, want)


def test_index_fill_dims_views_and_special_values():
    base = values((6, 8), np.float32)
    base[0, 0] = np.nan
    x = base[::2, ::2]  # (3, 4)
    for dim in (0, 1, -1, -2):
        want = np.moveaxis(x.copy(), dim, 0)
        want[[0, 2]] = -np.inf
        want = np.moveaxis(want, 0, dim)
        out = np.empty((3, 4), np.float32)
        aclnn_emu.run("aclnnIndexFillTensor", self=x, dim=dim, index=[0, 2], value=float("-inf"), out=out)
        assert same_bits(out, want)
    s = np.array(2.0, np.float16)
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=s, dim=0, index=[-1], value=(3, np.int64))
    assert s == 3
    # No index: out is a copy of self; an in-place call touches nothing.
    out = np.empty((3, 4), np.float32)
    aclnn_emu.run("aclnnIndexFillTensor", self=x, dim=0, index=[], value=1.0, out=out)
    assert same_bits(out, x)
    empty = np.empty((0, 3), np.float32)
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=empty, dim=5, index=[9], value=1.0)


def test_index_fill_value_goes_through_float_on_a2(soc):
    x = np.zeros(3, np.int64)
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=x, dim=0, index=[1], value=(2**24 + 1, np.int64))
    assert x.tolist() == [0, 2**24, 0]
    soc("Ascend950")
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=x, dim=0, index=[1], value=(2**24 + 1, np.int64))
    assert x.tolist() == [0, 2**24 + 1, 0]
    x = np.zeros(3, np.int8)
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=x, dim=0, index=[2], value=(-5, np.int64))
    assert x.tolist() == [0, 0, -5]


def test_index_fill_long_dimensions():
    x = np.zeros((2, 20000), np.float16)  # longer than the bitmap: runs of positions
    index = list(range(100, 300)) + [19999, -20000, 5000, 5001]
    want = x.copy()
    want[:, index] = 1
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=x, dim=1, index=index, value=1.0)
    assert same_bits(x, want)
    e = error("aclnnInplaceIndexFillTensor", selfRef=x, dim=1, index=list(range(0, 20000, 2)), value=1.0)
    assert e.code == TILING and "index" in e.message


def test_index_fill_errors(soc):
    x = values((3, 4), np.float32)
    e = error("aclnnInplaceIndexFillTensor", selfRef=x, dim=0, index=[3], value=1.0)
    assert e.code == INVALID and "index[0]" in e.message
    e = error("aclnnInplaceIndexFillTensor", selfRef=x, dim=1, index=[0, -5], value=1.0)
    assert e.code == INVALID and "index[1]" in e.message
    e = error("aclnnInplaceIndexFillTensor", selfRef=x, dim=2, index=[0], value=1.0)
    assert e.code == INVALID and "dim" in e.message
    e = error("aclnnIndexFillTensor", self=x, dim=0, index=[0], value=1.0, out=np.empty((4, 3), np.float32))
    assert e.code == INVALID and "out" in e.message
    e = error("aclnnIndexFillTensor", self=x, dim=0, index=[0], value=1.0, out=np.empty((3, 4), np.float16))
    assert e.code == INVALID and "out" in e.message
    e = error("aclnnInplaceIndexFillTensor", selfRef=x.astype(np.int8), dim=0, index=[0], value=1.0)
    assert e.code == INVALID and "selfRef" in e.message and "ACL_INT8" in e.message
    e = error("aclnnInplaceIndexFillTensor", selfRef=x, dim=0, index=[0], value=(1 + 2j, np.complex64))
    assert e.code == INVALID and "value" in e.message
    soc("Ascend950")
    y = np.zeros((2, 2), np.float64)
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=y, dim=1, index=[1], value=(0.1, np.float64))
    assert y[:, 1].tolist() == [0.1, 0.1]


# ---------------------------------------------------------------- UpsampleNearest2d


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.float64, np.uint8])
@pytest.mark.parametrize("sizes", [((3, 4), (6, 8)), ((3, 7), (7, 3)), ((5, 5), (5, 5)), ((7, 11), (13, 2)),
                                   ((1, 1), (3, 2))])
def test_upsample_nearest_nchw(dtype, sizes):
    (ih, iw), (oh, ow) = sizes
    x = values((2, 3, ih, iw), dtype)
    out = np.empty((2, 3, oh, ow), dtype)
    run_formatted("aclnnUpsampleNearest2d", FORMAT_NCHW, x, [oh, ow], out)
    assert same_bits(out, upsample_ref(x, oh, ow))


def test_upsample_nearest_nhwc_views_and_scale_rounding():
    x = values((2, 5, 6, 3), np.float32)
    out = np.empty((2, 9, 14, 3), np.float32)
    run_formatted("aclnnUpsampleNearest2d", FORMAT_NHWC, x, [9, 14], out)
    assert same_bits(out, upsample_ref(x, 9, 14, nhwc=True))
    base = values((2, 3, 8, 10), np.float32)
    base[0, 0, 0, 0] = np.nan
    x = base.transpose(0, 1, 3, 2)[:, :, ::2]  # (2, 3, 5, 8): transposed and strided
    out_base = np.zeros((2, 3, 11, 40), np.float32)
    out = out_base[:, :, :, ::2]
    run_formatted("aclnnUpsampleNearest2d", FORMAT_NCHW, x, [11, 20], out)
    assert same_bits(out, upsample_ref(x, 11, 20))
    assert (out_base[..., 1::2] == 0).all()
    # floor(dst * (in/out)) in float32 differs from dst * in // out where the scale rounds down.
    x = np.arange(49, dtype=np.float32).reshape(1, 1, 1, 49)
    out = np.empty((1, 1, 1, 100), np.float32)
    run_formatted("aclnnUpsampleNearest2d", FORMAT_NCHW, x, [1, 100], out)
    assert same_bits(out, upsample_ref(x, 1, 100))
    out = np.empty((0, 3, 4, 4), np.float32)
    run_formatted("aclnnUpsampleNearest2d", FORMAT_NCHW, np.empty((0, 3, 2, 2), np.float32), [4, 4], out)


def test_upsample_errors(soc):
    x = values((1, 2, 3, 4), np.float32)

    def fails(fmt, *args):
        with pytest.raises(AclnnError) as e:
            run_formatted("aclnnUpsampleNearest2d", fmt, *args)
        return e.value

    e = fails(FORMAT_ND, x, [6, 8], np.empty((1, 2, 6, 8), np.float32))
    assert e.code == INVALID and "self" in e.message and "format" in e.message
    e = fails(FORMAT_NCHW, x, [6, 8, 1], np.empty((1, 2, 6, 8), np.float32))
    assert e.code == INVALID and "outputSize" in e.message
    e = fails(FORMAT_NCHW, x[0], [6, 8], np.empty((1, 2, 6, 8), np.float32))
    assert e.code == INVALID and "self" in e.message and "rank 3" in e.message
    e = fails(FORMAT_NCHW, x, [0, 8], np.empty((1, 2, 0, 8), np.float32))
    assert e.code == INVALID and "outputSize" in e.message
    e = fails(FORMAT_NCHW, x, [6, 8], np.empty((1, 3, 6, 8), np.float32))
    assert e.code == INVALID and "N and C" in e.message
    e = fails(FORMAT_NCHW, x, [6, 8], np.empty((1, 2, 6, 9), np.float32))
    assert e.code == INVALID and "outputSize" in e.message
    e = fails(FORMAT_NCHW, x, [6, 8], np.empty((1, 2, 6, 8), np.float16))
    assert e.code == INVALID and "out" in e.message
    e = fails(FORMAT_NCHW, x.astype(np.int32), [6, 8], np.empty((1, 2, 6, 8), np.int32))
    assert e.code == INVALID and "self" in e.message and "ACL_INT32" in e.message
    soc("Ascend910")
    e = fails(FORMAT_NCHW, x.astype(BF16), [6, 8], np.empty((1, 2, 6, 8), BF16))
    assert e.code == INVALID and "ACL_BF16" in e.message


# ---------------------------------------------------------------- Im2col


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("k,d,p,s", [((3, 3), (1, 1), (1, 1), (1, 1)), ((2, 3), (2, 1), (0, 2), (2, 3)),
                                     ((1, 1), (1, 1), (0, 0), (1, 1)), ((3, 1), (1, 3), (3, 0), (1, 2)),
                                     ((4, 4), (1, 1), (1, 1), (5, 5))])
def test_im2col_matches_unfold(dtype, k, d, p, s):
    x = values((2, 3, 7, 9), dtype)
    want = im2col_ref(x, k, d, p, s)
    out = np.full(want.shape, np.nan, dtype)
    aclnn_emu.run("aclnnIm2col", self=x, kernelSize=k, dilation=d, padding=p, stride=s, out=out)
    assert same_bits(out, want)
    x3 = x[1]
    out3 = np.full(want.shape[1:], np.nan, dtype)
    aclnn_emu.run("aclnnIm2col", self=x3, kernelSize=k, dilation=d, padding=p, stride=s, out=out3)
    assert same_bits(out3, want[1])


def test_im2col_views_cast_and_empty():
    base = values((2, 6, 10, 7), np.float32)
    base[0, 0, 0, 0] = np.inf
    x = base[:, ::2].transpose(0, 1, 3, 2)  # (2, 3, 7, 10), not contiguous
    want = im2col_ref(x, (3, 2), (1, 2), (1, 1), (2, 1))
    out = np.empty(want.shape, np.float16)  # cast on the way out, as CANN's Cast does
    aclnn_emu.run("aclnnIm2col", self=x, kernelSize=(3, 2), dilation=(1, 2), padding=(1, 1), stride=(2, 1), out=out)
    assert same_bits(out, want.astype(np.float16))
    out_base = np.zeros((2,) + want.shape[1:] + (2,), np.float32)
    out = out_base[..., 0]
    aclnn_emu.run("aclnnIm2col", self=x, kernelSize=(3, 2), dilation=(1, 2), padding=(1, 1), stride=(2, 1), out=out)
    assert same_bits(out, want) and (out_base[..., 1] == 0).all()
    out = np.empty((0, 27, 4), np.float32)
    aclnn_emu.run("aclnnIm2col", self=np.empty((0, 3, 2, 2), np.float32), kernelSize=(3, 3), dilation=(1, 1),
                  padding=(1, 1), stride=(1, 1), out=out)


def test_im2col_errors(soc):
    x = values((1, 2, 5, 5), np.float32)
    args = dict(kernelSize=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1))
    out = np.empty((1, 8, 16), np.float32)
    for name, bad in [("kernelSize", (2,)), ("dilation", (1, 1, 1)), ("padding", ()), ("stride", (1, 1, 1, 1))]:
        e = error("aclnnIm2col", self=x, **dict(args, **{name: bad}), out=out)
        assert e.code == INVALID and name in e.message
    for name, bad in [("kernelSize", (0, 2)), ("dilation", (1, 0)), ("padding", (-1, 0)), ("stride", (0, 1))]:
        e = error("aclnnIm2col", self=x, **dict(args, **{name: bad}), out=out)
        assert e.code == INVALID and name in e.message
    e = error("aclnnIm2col", self=x[0, 0], **args, out=out)
    assert e.code == INVALID and "rank 2" in e.message
    e = error("aclnnIm2col", self=np.empty((1, 0, 5, 5), np.float32), **args, out=out)
    assert e.code == INVALID and "self" in e.message
    e = error("aclnnIm2col", self=x, **dict(args, kernelSize=(6, 1)), out=out)
    assert e.code == INVALID and "kernel" in e.message
    e = error("aclnnIm2col", self=x, **args, out=np.empty((1, 8, 15), np.float32))
    assert e.code == INVALID and "out" in e.message and "[1, 8, 16]" in e.message
    e = error("aclnnIm2col", self=x.astype(np.float64), **args, out=out.astype(np.float64))
    assert e.code == INVALID and "self" in e.message and "ACL_DOUBLE" in e.message
    e = error("aclnnIm2col", self=x, **args, out=np.empty((1, 8, 16), np.int32))
    assert e.code == INVALID and "out" in e.message
    soc("Ascend910")
    e = error("aclnnIm2col", self=x, **args, out=out)
    assert e.code == INVALID and "self" in e.message
    soc("Ascend950")
    xi = np.arange(50, dtype=np.int32).reshape(1, 2, 5, 5)
    outi = np.empty((1, 8, 16), np.int32)
    aclnn_emu.run("aclnnIm2col", self=xi, **args, out=outi)
    assert same_bits(outi, im2col_ref(xi, (2, 2), (1, 1), (0, 0), (1, 1)))


# ---------------------------------------------------------------- threads and ISA levels


def _all_results():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 33, 40)).astype(np.float32)
    index = rng.integers(-70, 70, 500).astype(np.int64)
    results = []
    out = np.empty((64, 500, 40), np.float32)
    aclnn_emu.run("aclnnGatherV2", self=x, dim=1, index=np.clip(index, -33, 32), out=out)
    results.append(out)
    out = np.empty((500, 33, 40), np.float32)
    aclnn_emu.run("aclnnIndexSelect", self=x, dim=0, index=index, out=out)
    results.append(out)
    y = x.copy()
    aclnn_emu.run("aclnnInplaceIndexCopy", selfRef=y, dim=0, index=index % 64,
                  source=rng.standard_normal((500, 33, 40)).astype(np.float32))
    results.append(y)
    y = x.copy()
    aclnn_emu.run("aclnnInplaceIndexFillTensor", selfRef=y, dim=2, index=list(range(0, 40, 3)), value=2.0)
    results.append(y)
    out = np.empty((64, 33, 80, 100), np.float32)
    run_formatted("aclnnUpsampleNearest2d", FORMAT_NCHW, x.reshape(64, 33, 40, 1)[:, :, :, [0] * 7],
                  [80, 100], out)
    results.append(out)
    out = np.empty((64, 33 * 9, 40), np.float32)
    aclnn_emu.run("aclnnIm2col", self=x.reshape(64, 33, 5, 8), kernelSize=(3, 3), dilation=(1, 1), padding=(1, 1),
                  stride=(1, 1), out=out)
    results.append(out)
    return results


def test_one_and_two_threads_give_the_same_bits():
    assert_thread_count_invariant(_all_results)


def test_every_isa_level_gives_the_same_bits():
    assert_isa_invariant(_all_results)
