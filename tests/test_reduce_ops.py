"""The reduction operators (src/ops/reduce*.c) through aclnn_emu.run.

ReduceSum, Mean, MeanV2, Norm, ArgMax, Argsort, Cumsum and CumsumV2 against
float64 numpy references written here, with CANN's precision standard (MERE
< T, MARE < 10 T; T = 2^-13 fp32, 2^-10 fp16, 2^-7 bf16) or exactly where
the data makes the result exact. Also: the dtype casts CANN applies first,
non-contiguous views, empty and 0-d tensors, NaN/inf, ties, the error codes
with the argument each message names, and bit-identical results for any
thread count and ISA level.
"""

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import AclnnError

BF16 = np.dtype(ml_dtypes.bfloat16)
F32, F16, F64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
FLOATS = [F32, F16, BF16]
T = {F32: 2.0**-13, F16: 2.0**-10, BF16: 2.0**-7, F64: 2.0**-30}
NULLPTR, INVALID = 161001, 161002


def data(shape, dtype, lo=-4.0, hi=4.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def assert_close(actual, expected, dtype):
    """CANN's standard against the float64 reference rounded to the output dtype."""
    actual = np.asarray(actual).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = np.asarray(expected, dtype=np.float64).astype(dtype).astype(np.float64)
    assert actual.shape == expected.shape
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    finite = np.isfinite(expected)
    assert np.array_equal(actual[~finite & ~np.isnan(expected)], expected[~finite & ~np.isnan(expected)])
    err = np.abs(actual[finite] - expected[finite]) / (np.abs(expected[finite]) + 1e-7)
    if err.size:
        t = T[np.dtype(dtype)]
        assert err.mean() < t and err.max() < 10 * t, (err.mean(), err.max())


def reduced_shape(x, dims, keep):
    if x.ndim == 0:
        return ()
    try:
        return np.sum(np.zeros(x.shape), axis=tuple(dims) if dims else None, keepdims=keep).shape
    except (np.exceptions.AxisError, ValueError):
        return (1,)  # invalid dims: the operator refuses them


def reduce_sum(x, dims, keep=False, dtype=None, out=None):
    dtype = np.dtype(dtype or x.dtype)
    shape = reduced_shape(x, dims, keep)
    out = np.full(shape, 7, dtype) if out is None else out
    return aclnn_emu.run("aclnnReduceSum", self=x, dims=dims, keepDims=keep, dtype=dtype, out=out)


def mean(x, dims, keep=False, dtype=None, out_dtype=None):
    dtype = np.dtype(dtype or x.dtype)
    shape = reduced_shape(x, dims, keep)
    out = np.full(shape, 7, out_dtype or dtype)
    return aclnn_emu.run("aclnnMean", self=x, dim=dims, keepDim=keep, dtype=dtype, out=out)


def norm(x, p, dims, keep=False, out_dtype=None):
    shape = reduced_shape(x, dims, keep)
    out = np.full(shape, 7, out_dtype or x.dtype)
    return aclnn_emu.run("aclnnNorm", self=x, pScalar=p, dim=dims, keepdim=keep, out=out)


# ---------------------------------------------------------------- ReduceSum


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dims,keep", [([1], True), ([0, 2], False), ([], False), ([-1], False), ([2, 0], True)])
def test_reduce_sum_floats(dtype, dims, keep):
    x = data((6, 7, 37), dtype, 0.1, 1.0)
    expected = x.astype(np.float64).sum(axis=tuple(dims) if dims else None, keepdims=keep)
    assert_close(reduce_sum(x, dims, keep), expected, dtype)


def test_reduce_sum_non_contiguous_views_and_out():
    base = data((8, 10, 12), F32, 0.1, 1.0)
    x = base.transpose(2, 0, 1)[::2, 1:, ::3]  # (6, 7, 4), strided in every dimension
    expected = x.astype(np.float64).sum(1)
    out_base = np.zeros((6, 8), F32)
    reduce_sum(x, [1], out=out_base[:, ::2])  # a strided output
    assert_close(out_base[:, ::2], expected, F32)
    assert np.all(out_base[:, 1::2] == 0)  # nothing written outside the view
    out_t = np.zeros((4, 6), F32)
    reduce_sum(x, [1], out=out_t.T)  # a transposed output
    assert_close(out_t.T, expected, F32)
    assert_close(reduce_sum(x, [0, 2]), x.astype(np.float64).sum((0, 2)), F32)


def test_reduce_sum_many_blocks_is_accurate():
    x = data((3, 70000), F32, 0.0, 1.0, seed=3)  # 18 blocks of 4096 per output
    assert_close(reduce_sum(x, [1]), x.astype(np.float64).sum(1), F32)
    assert_close(reduce_sum(x, []), x.astype(np.float64).sum(), F32)
    col = data((9000, 5), F32, 0.0, 1.0, seed=4)  # reduced dimension outermost
    assert_close(reduce_sum(col, [0]), col.astype(np.float64).sum(0), F32)


def test_reduce_sum_casts_to_dtype_first():
    x = data((4, 50), F32, -3, 3)
    # to FLOAT16: each element rounded, summed in fp32, the sum rounded
    assert_close(reduce_sum(x, [1], dtype=F16), x.astype(F16).astype(np.float64).sum(1), F16)
    # to INT32: truncation toward zero, then an exact integer sum
    assert np.array_equal(reduce_sum(x, [1], dtype=np.int32), np.trunc(x).astype(np.int32).sum(1))
    h = x.astype(F16)
    assert_close(reduce_sum(h, [0, 1], dtype=F32), h.astype(np.float64).sum(), F32)
    i = np.arange(-50, 50, dtype=np.int32).reshape(4, 25) * 1000
    assert np.array_equal(reduce_sum(i, [1], dtype=np.int64), i.astype(np.int64).sum(1))


def test_reduce_sum_integers_wrap_and_bool():
    x = np.full((3, 100), 100, np.int8)  # 10000 wraps to 16 in int8
    assert np.array_equal(reduce_sum(x, [1]), np.full(3, 16, np.int8))
    b = np.array([[True, False, True], [False, False, False]])
    assert np.array_equal(reduce_sum(b, [1], dtype=np.int64), [2, 0])
    # dtype BOOL: any
    assert np.array_equal(reduce_sum(b, [1], dtype=np.bool_), [True, False])
    assert np.array_equal(reduce_sum(np.array([[0.0, np.nan], [0.0, -0.0]], F32), [1], dtype=np.bool_), [True, False])
    d = data((5, 33), F64)
    np.testing.assert_allclose(reduce_sum(d, [1]), d.sum(1), rtol=1e-14)


def test_reduce_sum_nan_inf():
    x = np.array([[1, np.inf, 2], [np.nan, 1, 1], [np.inf, -np.inf, 0]], F32)
    r = reduce_sum(x, [1])
    assert r[0] == np.inf and np.isnan(r[1]) and np.isnan(r[2])


def test_reduce_sum_empty_and_0d():
    out = np.full(3, 7, F32)
    reduce_sum(np.zeros((0, 3), F32), [0], out=out)  # CANN fills out with 0
    assert np.array_equal(out, np.zeros(3))
    out = np.full((0,), 7, F32)
    reduce_sum(np.zeros((3, 0), F32), [0], out=out)
    scalar = np.array(2.5, F32)
    assert reduce_sum(scalar, []) == 2.5
    assert reduce_sum(scalar, [0], dtype=np.int32) == 2
    assert reduce_sum(scalar, [-1], keep=True) == 2.5


def test_count_equal_as_ggml_calls_it():
    """EqTensor into int32, then ReduceSum over every dimension into int64, keepDims."""
    a = np.random.default_rng(1).integers(0, 4, (1, 1, 1, 500)).astype(np.int32)
    out = np.empty((1, 1, 1, 1), np.int64)
    reduce_sum(a, [0, 1, 2, 3], keep=True, dtype=np.int64, out=out)
    assert out.item() == a.sum()


# ---------------------------------------------------------------- Mean, MeanV2


@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_floats(dtype):
    x = data((5, 6, 33), dtype, -1, 3)
    assert_close(mean(x, [2]), x.astype(np.float64).mean(2), dtype)
    assert_close(mean(x, [0, 2], keep=True), x.astype(np.float64).mean((0, 2), keepdims=True), dtype)
    assert_close(mean(x, []), x.astype(np.float64).mean(), dtype)


def test_mean_dtype_and_out_casts():
    h = data((4, 40), F16, 0, 2)
    assert_close(mean(h, [1], dtype=F32), h.astype(np.float64).mean(1), F32)
    x = data((4, 40), F32, 0, 2)
    r = mean(x, [1], dtype=F32, out_dtype=F16)  # computed in FLOAT, cast to out's FLOAT16
    assert r.dtype == F16
    assert_close(r, x.astype(np.float64).mean(1), F16)
    i = np.array([[1, 2, 2], [-1, -2, -2], [7, 7, 7]], np.int32)
    assert np.array_equal(mean(i, [1]), [1, -1, 7])  # the integer sum divided, truncating


def test_mean_empty_is_nan_and_strided():
    out = np.full(3, 7, F32)
    aclnn_emu.run("aclnnMean", self=np.zeros((0, 3), F32), dim=[0], keepDim=False, dtype=F32, out=out)
    assert np.all(np.isnan(out))
    x = data((10, 12), F32)[::3, 1::2]
    assert_close(mean(x, [0]), x.astype(np.float64).mean(0), F32)


def test_mean_v2():
    x = data((3, 4, 5), F32)
    out = np.empty((3, 5), F32)
    aclnn_emu.run("aclnnMeanV2", self=x, dim=[1], keepDim=False, noopWithEmptyAxes=False, out=out)
    assert_close(out, x.astype(np.float64).mean(1), F32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnMeanV2", self=x, dim=[], keepDim=False, noopWithEmptyAxes=True, out=out)
    assert np.array_equal(out, x)  # no axes: a copy
    out = np.empty((), F32)
    aclnn_emu.run("aclnnMeanV2", self=x, dim=[], keepDim=False, noopWithEmptyAxes=False, out=out)
    assert_close(out, x.astype(np.float64).mean(), F32)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnMeanV2", self=x, dim=[1], keepDim=False, noopWithEmptyAxes=False,
                      out=np.empty((3, 5), F16))
    assert e.value.code == INVALID and "out" in e.value.message


# ---------------------------------------------------------------- Norm


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf"), float("-inf"), 0.5, 4.0])
def test_norm(dtype, p):
    x = data((4, 5, 40), dtype, -2, 2, seed=5)
    x[0, 0, :3] = 0
    a = np.abs(x.astype(np.float64))
    if p == 0:
        expected = (a != 0).sum(2)
    elif np.isinf(p):
        expected = a.max(2) if p > 0 else a.min(2)
    else:
        expected = (a**p).sum(2) ** (1 / p)
    assert_close(norm(x, p, [2]), expected, dtype)


def test_norm_as_ggml_l2_norm_calls_it():
    x = data((3, 4, 5, 64), F32, -1, 1)
    out = np.empty((3, 4, 5, 1), F32)
    aclnn_emu.run("aclnnNorm", self=x, pScalar=2.0, dim=[3], keepdim=True, out=out)
    assert_close(out, np.sqrt((x.astype(np.float64) ** 2).sum(3, keepdims=True)), F32)


def test_norm_casts_and_edges():
    x = data((6, 8), F32, -3, 3)
    assert_close(norm(x, 2.0, [0, 1]), np.sqrt((x.astype(np.float64) ** 2).sum()), F32)
    assert_close(norm(x, 2.0, [1], out_dtype=F16), np.linalg.norm(x.astype(np.float64), axis=1), F16)
    i = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)  # cast to FLOAT first
    assert_close(norm(i, 1.0, [1], out_dtype=F32), np.abs(i).sum(1), F32)
    assert_close(norm(x.astype(F64), 2.0, [1], out_dtype=F32), np.linalg.norm(x.astype(np.float64), axis=1), F32)
    out = np.full((3,), 7, F32)
    aclnn_emu.run("aclnnNorm", self=np.zeros((0, 3), F32), pScalar=2.0, dim=[0], keepdim=False, out=out)
    assert np.array_equal(out, np.zeros(3))  # empty: 0
    n = np.array([[1, np.nan, 2], [1, np.inf, 2]], F32)
    r = norm(n, 2.0, [1])
    assert np.isnan(r[0]) and r[1] == np.inf
    assert np.isnan(norm(n, float("inf"), [1])[0])
    assert norm(np.array(-3.0, F32), 2.0, []) == 3.0  # one element: |x|
    r = norm(x, (2, np.int64), [1])  # an integer p scalar
    assert_close(r, np.linalg.norm(x.astype(np.float64), axis=1), F32)


# ---------------------------------------------------------------- ArgMax


def argmax(x, dim, keep=False, out_dtype=np.int64):
    try:
        shape = np.argmax(x, axis=dim, keepdims=keep).shape if x.ndim else ((1,) if keep else ())
    except np.exceptions.AxisError:
        shape = (1,)  # an invalid dim: the operator refuses it
    out = np.full(shape, -7, out_dtype)
    return aclnn_emu.run("aclnnArgMax", self=x, dim=dim, keepdim=keep, out=out)


@pytest.mark.parametrize("dtype", FLOATS + [F64, np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32),
                                            np.dtype(np.int64)])
def test_argmax(dtype):
    x = (data((6, 7, 300), np.float64, 0 if dtype == np.uint8 else -100, 100, seed=2)).astype(dtype)
    for dim, keep in [(2, False), (0, True), (-2, False)]:
        assert np.array_equal(argmax(x, dim, keep), np.argmax(x, axis=dim, keepdims=keep))


def test_argmax_ties_nan_and_views():
    x = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [0, np.nan, 5, np.nan], [-np.inf, -np.inf, -np.inf, -np.inf]], F32)
    assert np.array_equal(argmax(x, 1), [1, 0, 1, 0])  # first maximum; NaN is the maximum
    assert np.array_equal(argmax(x, 1, out_dtype=np.int32), [1, 0, 1, 0])
    big = data((3, 10000), F32, seed=7)  # rows longer than one load block
    big[1, 9999] = 10
    assert np.array_equal(argmax(big, 1), np.argmax(big, 1))
    v = data((40, 30), F32)[::3, 2::4]
    assert np.array_equal(argmax(v, 0), np.argmax(v, 0))
    assert argmax(np.array(4.0, F32), 0) == 0
    assert np.array_equal(argmax(np.array(4.0, F32), 0, keep=True), [0])
    out = np.full((0,), 3, np.int64)
    aclnn_emu.run("aclnnArgMax", self=np.zeros((0, 4), F32), dim=1, keepdim=False, out=out)


# ---------------------------------------------------------------- Argsort


def argsort_reference(x, dim, descending):
    """Python's stable sort: NaN above +inf, -0 equal to +0."""
    moved = np.moveaxis(x, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])

    def key(v):
        v = float(v) if x.dtype.kind == "f" else int(v)
        nan = v != v
        return (not nan, 0 if nan else -v) if descending else (nan, 0 if nan else v)

    order = [sorted(range(len(r)), key=lambda i: key(r[i])) for r in rows]
    return np.moveaxis(np.array(order).reshape(moved.shape), -1, dim)


def argsort(x, dim, descending):
    out = np.full(x.shape, -1, np.int64)
    return aclnn_emu.run("aclnnArgsort", self=x, dim=dim, descending=descending, out=out)


@pytest.mark.parametrize("dtype", FLOATS + [np.dtype(np.int8), np.dtype(np.int32), np.dtype(np.int64)])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_is_stable(dtype, descending):
    x = np.random.default_rng(3).integers(-5, 5, (7, 50)).astype(dtype)  # many ties
    for dim in (1, 0):
        assert np.array_equal(argsort(x, dim, descending), argsort_reference(x, dim, descending))


@pytest.mark.parametrize("n", [1, 2, 31, 33, 1000, 5000])
def test_argsort_lengths(n):
    x = data((3, n), F32, seed=n)
    for descending in (False, True):
        assert np.array_equal(argsort(x, 1, descending), argsort_reference(x, 1, descending))


def test_argsort_nan_zero_extremes_views():
    x = np.array([np.nan, 1.0, -0.0, np.inf, 0.0, -np.inf, np.nan, -1.0], F32)
    assert np.array_equal(argsort(x, 0, False), [5, 7, 2, 4, 1, 3, 0, 6])
    assert np.array_equal(argsort(x, 0, True), [0, 6, 3, 1, 2, 4, 7, 5])
    big = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, -1, 1], np.int64)
    assert np.array_equal(argsort(big, 0, False), [1, 3, 2, 4, 0])
    v = data((20, 30), F32)[2::3, ::-2]
    out_base = np.full((30, 20), -1, np.int64)
    out = out_base.T[: v.shape[0], : v.shape[1]]
    aclnn_emu.run("aclnnArgsort", self=v, dim=0, descending=False, out=out)
    assert np.array_equal(out, np.argsort(v, axis=0, kind="stable"))
    assert argsort(np.array(3.0, F32), 0, False) == 0
    argsort(np.zeros((0, 3), F32), 1, False)


def test_argsort_as_ggml_calls_it():
    x = data((2, 3, 60), F32)
    out = np.empty(x.shape, np.int64)
    aclnn_emu.run("aclnnArgsort", self=x, dim=-1, descending=True, out=out)
    assert np.array_equal(out, np.argsort(-x, axis=-1, kind="stable"))


# ---------------------------------------------------------------- Cumsum, CumsumV2


def test_cumsum_fp32_is_sequential():
    x = data((4, 5000), F32, -1, 1)  # rows longer than one block
    out = np.empty_like(x)
    aclnn_emu.run("aclnnCumsum", self=x, dim=1, dtype=F32, out=out)
    assert np.array_equal(out, np.cumsum(x, axis=1, dtype=np.float32))  # numpy adds in order, in fp32


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_cumsum_half(dtype):
    x = data((6, 40), dtype, 0, 1)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnCumsum", self=x, dim=-1, dtype=dtype, out=out)
    expected = np.cumsum(x.astype(np.float32), axis=1, dtype=np.float32)  # fp32 running sum, each output rounded
    assert np.array_equal(out, expected.astype(dtype))


def test_cumsum_casts_views_ints():
    x = data((5, 6, 7), F32)
    out = np.empty((5, 6, 7), F16)
    aclnn_emu.run("aclnnCumsum", self=x, dim=0, dtype=F16, out=out)  # self cast to FLOAT16 first
    assert_close(out, np.cumsum(x.astype(F16).astype(np.float64), axis=0), F16)
    v = x[:, ::2, 1:]
    out_base = np.zeros((5, 3, 12), F32)
    out = out_base[:, :, ::2]
    aclnn_emu.run("aclnnCumsum", self=v, dim=1, dtype=F32, out=out)
    assert np.array_equal(out, np.cumsum(v, axis=1, dtype=np.float32))
    assert np.all(out_base[:, :, 1::2] == 0)
    i = np.full((2, 300), 100, np.int8)
    out = np.empty_like(i)
    aclnn_emu.run("aclnnCumsum", self=i, dim=1, dtype=np.int8, out=out)
    assert np.array_equal(out, np.cumsum(i, axis=1, dtype=np.int8))  # wraps as int8 arithmetic does
    b = np.array([True, False, True, True])
    out = np.empty(4, np.int32)
    aclnn_emu.run("aclnnCumsum", self=b, dim=0, dtype=np.int32, out=out)
    assert np.array_equal(out, [1, 1, 2, 3])
    out = np.empty((), F32)
    aclnn_emu.run("aclnnCumsum", self=np.array(2.0, F32), dim=0, dtype=F32, out=out)
    assert out == 2.0
    aclnn_emu.run("aclnnCumsum", self=np.zeros((0, 3), F32), dim=1, dtype=F32, out=np.zeros((0, 3), F32))


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_v2(exclusive, reverse):
    x = data((3, 4500), F32)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnCumsumV2", self=x, dim=1, exclusive=exclusive, reverse=reverse, out=out)
    y = x[:, ::-1] if reverse else x
    c = np.cumsum(y, axis=1, dtype=np.float32)
    if exclusive:
        c = np.concatenate([np.zeros((3, 1), F32), c[:, :-1]], axis=1)
    assert np.array_equal(out, c[:, ::-1] if reverse else c)


# ---------------------------------------------------------------- determinism


def run_all():
    x = data((5, 20000), F32, 0, 1, seed=11)
    h = x.astype(F16)
    outs = [reduce_sum(x, [1]), reduce_sum(x, []), reduce_sum(h, [1]), reduce_sum(x.T, [0]),
            mean(h, [1]), mean(x, [0, 1]), norm(x, 2.0, [1]), norm(h, 0.5, [0, 1])]
    out = np.empty_like(x)
    aclnn_emu.run("aclnnCumsum", self=x, dim=1, dtype=F32, out=out)
    outs.append(out)
    return [o.reshape(-1).view(np.uint8).copy() for o in outs]


@pytest.mark.parametrize("dtype", [F32, F16, F64])
def test_strided_and_dense_layouts_give_the_same_bits(dtype):
    """Outputs dense in memory (reduced elements strided) run another loop over the same fixed order."""
    rng = np.random.default_rng(6)
    for shape, dims, perm in [((5000, 300), [0], (1, 0)), ((5, 70, 3, 260), [1, 2], (0, 3, 1, 2))]:
        x = rng.random(shape).astype(dtype)
        dense = np.ascontiguousarray(x.transpose(perm))
        moved = list(range(x.ndim - len(dims), x.ndim))
        assert np.array_equal(reduce_sum(x, dims).view(np.uint8), reduce_sum(dense, moved).view(np.uint8))
        assert np.array_equal(mean(x, dims).view(np.uint8), mean(dense, moved).view(np.uint8))
        if dtype != F64:
            assert np.array_equal(norm(x, 0.5, dims).view(np.uint8), norm(dense, 0.5, moved).view(np.uint8))


def test_bit_identical_for_any_thread_count():
    threads = aclnn_emu.get_num_threads()
    try:
        aclnn_emu.set_num_threads(1)
        one = run_all()
        aclnn_emu.set_num_threads(2)
        two = run_all()
    finally:
        aclnn_emu.set_num_threads(threads)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


def test_every_isa_level_gives_the_same_bits():
    results = {}
    for isa in aclnn_emu.available_isas():
        aclnn_emu.set_isa_cap(isa)
        try:
            results[isa] = run_all()
        finally:
            aclnn_emu.set_isa_cap("avx512_bf16")
    first = next(iter(results.values()))
    for isa, outs in results.items():
        for a, b in zip(first, outs):
            assert np.array_equal(a, b), isa


def fixed_order_sum_last(x):
    """The documented order of a last-axis fp32 sum, in numpy: per block of 4096, element i into lane
    i % 32 in order, the lanes folded by halving; the block results summed the same way."""

    def lanes(v):  # v: [rows, n] float32
        v = np.concatenate([v, np.zeros((v.shape[0], -v.shape[1] % 32), np.float32)], axis=1)
        acc = np.zeros((v.shape[0], 32), np.float32)
        for group in v.reshape(v.shape[0], -1, 32).transpose(1, 0, 2):
            acc = acc + group
        for w in (16, 8, 4, 2, 1):
            acc = acc[:, :w] + acc[:, w : 2 * w]
        return acc[:, 0]

    v = x.astype(np.float32)  # exact for fp16 and bf16
    with np.errstate(invalid="ignore"):  # inf - inf
        if v.shape[1] <= 4096:
            return lanes(v)
        blocks = [lanes(v[:, b : b + 4096]) for b in range(0, v.shape[1], 4096)]
        return lanes(np.stack(blocks, axis=1))


@pytest.mark.parametrize("dtype", FLOATS)
def test_last_axis_sums_keep_the_fixed_order_at_every_isa_level(isa, dtype):
    """fp16 and bf16 rows are widened and summed in one pass by per-ISA kernels: every level, for every
    row length (whole and partial groups of 32 lanes, several blocks), gives the bits of the fixed order;
    with NaN or with +-inf (NaNs of one bit pattern), -0 and fp16 subnormals among the elements."""
    rng = np.random.default_rng(21)
    for n in (1, 2, 15, 31, 32, 33, 47, 64, 95, 100, 1000, 1023, 4095, 4096, 4097, 5000, 9001):
        # magnitudes from 2^-12 to 2^8, so that the sums round and another order shows in the bits
        x = (rng.uniform(-4, 4, (3, n)) * 2.0 ** rng.integers(-12, 7, (3, n))).astype(dtype)
        x[0, ::7] = 0.0
        x[0, 1::7] = -0.0
        if dtype == F16:
            x[2, ::5] = np.float16(3e-6)  # subnormal
        for special in ([np.nan], [np.inf, -np.inf]):
            y = x.copy()
            y[1, rng.integers(0, n, 3)] = rng.choice(special, 3)
            exact = fixed_order_sum_last(y)
            expected = exact.astype(dtype)
            # dtype FLOAT: the fp32 sum itself, before a rounding to fp16 / bf16 could hide its low bits
            for got, want in ((reduce_sum(y, [1]), expected), (reduce_sum(y, [1], dtype=F32), exact)):
                assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (n, special)
            # not dense: a view of every other element
            wide = np.repeat(y, 2, axis=1)
            assert np.array_equal(reduce_sum(wide[:, ::2], [1]).view(np.uint8), expected.view(np.uint8)), n


def test_first_axis_half_sums_give_the_same_bits_at_every_isa_level():
    """The column loop widens fp16 / bf16 runs as it adds them: the same bits at every level."""
    rng = np.random.default_rng(22)
    xs = [rng.uniform(-4, 4, (n, c)).astype(t) for t in FLOATS for n, c in ((33, 5), (300, 256), (4097, 300))]

    def run():
        return [r.view(np.uint8).copy() for x in xs for r in (reduce_sum(x, [0]), reduce_sum(x, [0], dtype=F32))]

    results = {}
    previous = aclnn_emu.get_isa()
    try:
        for level in aclnn_emu.available_isas():
            aclnn_emu.set_isa_cap(level)
            results[level] = run()
    finally:
        aclnn_emu.set_isa_cap(previous)
    first = next(iter(results.values()))
    for level, outs in results.items():
        for a, b in zip(first, outs):
            assert np.array_equal(a, b), level


# ---------------------------------------------------------------- errors


def test_errors_name_the_argument():
    x = data((2, 3), F32)
    cases = [
        (lambda: reduce_sum(x, [1], out=np.empty(2, F16)), "out"),                  # out != dtype
        (lambda: reduce_sum(x, [2]), "dims[0]"),                                        # out of range
        (lambda: reduce_sum(x, [1, -1]), "dims"),                                       # twice
        (lambda: reduce_sum(x, [1], out=np.empty(3, F32)), "out has shape"),
        (lambda: reduce_sum(x, [1], keep=True, out=np.empty(2, F32)), "out has shape"),
        (lambda: reduce_sum(np.ones((1,) * 9, F32), [0]), "rank 9"),
        (lambda: reduce_sum(x.astype(np.uint16), [0], dtype=F32), "self"),
        (lambda: mean(x.astype(np.bool_), [1], dtype=F32), "self"),
        (lambda: mean(x, [1], dtype=np.int32), "dtype"),                             # FLOAT cannot cast to INT32
        (lambda: mean(x, [1], dtype=F32, out_dtype=np.int32), "out"),
        (lambda: mean(x, [5]), "dim[0]"),
        (lambda: norm(x, 2.0, [0, 0]), "dim"),
        (lambda: aclnn_emu.run("aclnnNorm", self=x, pScalar=2.0, dim=[1], keepdim=False,
                               out=np.empty(3, F32)), "out has shape"),
        (lambda: argmax(x, 2), "dim"),
        (lambda: argmax(x, 1, out_dtype=F32), "out"),
        (lambda: argmax(x.astype(np.bool_), 1), "self"),
        (lambda: aclnn_emu.run("aclnnArgMax", self=x, dim=1, keepdim=True, out=np.empty(2, np.int64)), "shape"),
        (lambda: aclnn_emu.run("aclnnArgsort", self=x, dim=1, descending=False, out=np.empty((2, 3), np.int32)),
         "out"),
        (lambda: aclnn_emu.run("aclnnArgsort", self=x, dim=-3, descending=False, out=np.empty((2, 3), np.int64)),
         "dim"),
        (lambda: aclnn_emu.run("aclnnArgsort", self=x, dim=1, descending=False, out=np.empty((3, 2), np.int64)),
         "shape"),
        (lambda: aclnn_emu.run("aclnnArgsort", self=x.astype(BF16)[:, :1], dim=1, descending=False,
                               out=np.empty((2, 1), np.int64)), "BF16"),
        (lambda: aclnn_emu.run("aclnnArgsort", self=x.astype(F64), dim=1, descending=False,
                               out=np.empty((2, 3), np.int64)), "self"),
        (lambda: aclnn_emu.run("aclnnCumsum", self=x, dim=1, dtype=F16, out=np.empty((2, 3), F32)), "dtype"),
        (lambda: aclnn_emu.run("aclnnCumsum", self=x, dim=1, dtype=np.bool_, out=np.empty((2, 3), np.bool_)),
         "out"),
        (lambda: aclnn_emu.run("aclnnCumsum", self=x, dim=2, dtype=F32, out=np.empty((2, 3), F32)), "dim"),
        (lambda: aclnn_emu.run("aclnnCumsum", self=x, dim=1, dtype=F32, out=np.empty((3, 2), F32)), "shape"),
        (lambda: aclnn_emu.run("aclnnCumsumV2", self=x, dim=1, exclusive=False, reverse=False,
                               out=np.empty((2, 3), F16)), "out"),
    ]
    for call, needle in cases:
        with pytest.raises(AclnnError) as e:
            call()
        assert e.value.code == INVALID, (needle, e.value.message)
        assert needle in e.value.message, (needle, e.value.message)


def test_norm_bool_out_has_no_common_dtype():
    x = data((2, 3), F32)
    # FLOAT and BOOL promote to FLOAT: accepted on A2/A3, where any dtype is cast
    assert np.array_equal(norm(x, 2.0, [1], out_dtype=np.bool_), [True, True])


def test_out_sharing_memory_with_self_is_refused():
    x = data((4, 4), F32)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.run("aclnnCumsum", self=x, dim=1, dtype=F32, out=x)
    assert e.value.code == INVALID and "shares memory" in e.value.message
    with pytest.raises(AclnnError) as e:
        reduce_sum(x, [1], out=x[:, 0])
    assert e.value.code == INVALID and "out" in e.value.message


def test_products():
    x = data((2, 5), BF16)
    try:
        aclnn_emu.set_soc_name("Ascend910")  # training series: no BF16
        with pytest.raises(AclnnError) as e:
            reduce_sum(x, [1])
        assert e.value.code == INVALID and "self" in e.value.message
        aclnn_emu.set_soc_name("Ascend950")
        with pytest.raises(AclnnError) as e:  # Ascend950 checks Norm's dtypes
            norm(x.astype(np.int32), 2.0, [1], out_dtype=F32)
        assert e.value.code == INVALID and "self" in e.value.message
        u = np.array([[3, 1, 2]], np.uint16)
        assert np.array_equal(argsort(u, 1, False), [[1, 2, 0]])  # UINT16 on Ascend950 only
        assert np.array_equal(argsort(x[:, :1], 1, False), [[0], [0]])  # BF16 with one element on Ascend950
    finally:
        aclnn_emu.set_soc_name("Ascend910B")


def test_null_arguments_return_161001_with_the_name():
    ffi, lib = aclnn_emu.ffi, aclnn_emu.lib
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    dims = lib.aclCreateIntArray(ffi.new("int64_t[]", [0]), 1)
    try:
        for call, name in [
            (lambda: lib.aclnnReduceSumGetWorkspaceSize(ffi.NULL, dims, False, 0, ffi.NULL, ws, ex), "self"),
            (lambda: lib.aclnnMeanGetWorkspaceSize(ffi.NULL, dims, False, 0, ffi.NULL, ws, ex), "self"),
            (lambda: lib.aclnnNormGetWorkspaceSize(ffi.NULL, ffi.NULL, dims, False, ffi.NULL, ffi.NULL, ex),
             "workspaceSize"),
            (lambda: lib.aclnnArgMaxGetWorkspaceSize(ffi.NULL, 0, False, ffi.NULL, ws, ex), "self"),
            (lambda: lib.aclnnArgsortGetWorkspaceSize(ffi.NULL, 0, False, ffi.NULL, ws, ex), "self"),
            (lambda: lib.aclnnCumsumGetWorkspaceSize(ffi.NULL, 0, 0, ffi.NULL, ws, ex), "self"),
            (lambda: lib.aclnnCumsumV2GetWorkspaceSize(ffi.NULL, 0, False, False, ffi.NULL, ws, ex), "self"),
        ]:
            assert call() == NULLPTR
            assert name in aclnn_emu.errors.last_error_message()
    finally:
        lib.aclDestroyIntArray(dims)
    x = data((2, 2), F32)
    self_handle, keep = aclnn_emu.tensor.wrap_array(x)
    try:
        assert lib.aclnnReduceSumGetWorkspaceSize(self_handle, ffi.NULL, False, 0, ffi.NULL, ws, ex) == NULLPTR
        assert "dims" in aclnn_emu.errors.last_error_message()
    finally:
        lib.aclDestroyTensor(self_handle)


def test_a_one_element_result_may_have_any_one_element_shape():
    """CANN's CheckShapeAndScalarSame: reducing everything into out [1] (as ggml's CROSS_ENTROPY_LOSS does) or
    [1, 1] is as good as []; a one-element out is still refused where the result has more elements."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for shape in [(), (1,), (1, 1)]:
        out = np.full(shape, -1.0, np.float32)
        reduce_sum(x, [0, 1], False, np.float32, out)
        assert out.reshape(()) == 66.0
    with pytest.raises(aclnn_emu.AclnnError) as e:
        reduce_sum(x, [0], False, np.float32, np.empty((1,), np.float32))
    assert e.value.code == 161002 and "out" in e.value.message
