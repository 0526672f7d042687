"""The matrix-multiply operators: Mm, BatchMatMul, Matmul, Mv and TriangularSolve.

Products are compared with float64 numpy references written here that
apply CANN's precision rules themselves (the compute dtype cubeMathType
picks, HF32 rounding, the dtype the kernel writes and the cast to out),
with CANN's standard (MERE < T, MARE < 10 T; T = 2^-13 fp32, 2^-10 fp16,
2^-7 bf16) on errors relative to |self| @ |mat2|, and exactly where the data
makes the product exact. Also: torch.matmul's shapes and broadcasting,
strided and transposed views, empty tensors, NaN/inf, thread counts and ISA
levels bit for bit, products, and the error codes with the argument each
message names.
"""

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import AclnnError

F32, F16, F64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [F32, F16, BF16]
T = {F32: 2.0**-13, F16: 2.0**-10, BF16: 2.0**-7, F64: 2.0**-30}
NULLPTR, INVALID, INNER_NULLPTR = 161001, 161002, 561103
KEEP, ALLOW_DOWN, USE_FP16, USE_HF32, USE_FP32_ADD = 0, 1, 2, 3, 4


def data(shape, dtype, lo=-1.0, hi=1.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def hf32(x):
    """fp32 to HF32: 11 mantissa bits, ties away from zero (the cube's SetHF32(true, 1))."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((((u >> 11) + 1) >> 1) << 12).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, r)


def rules(da, db, dout, cube, soc="Ascend910B"):
    """(compute dtype, HF32, kernel output dtype) as matmul_util's arch rules give them."""
    da, db, dout = np.dtype(da), np.dtype(db), np.dtype(dout)
    if soc == "Ascend910":
        return F16, False, F32 if dout == F32 else F16
    same_half = da == db and da in (F16, BF16)
    compute = da if same_half else (F16 if cube == USE_FP16 else F32)
    use_hf32 = compute == F32 and cube in (ALLOW_DOWN, USE_HF32)
    if cube == -1:
        return compute, use_hf32, F32
    kout = F32 if (soc != "Ascend950" and cube != USE_FP16 and dout == F32) else compute
    if same_half and dout == F32:
        kout = F32
    return compute, use_hf32, kout


def reference(a, b, cube, dout, product=np.matmul, soc="Ascend910B"):
    """float64 product of the operands as the cube sees them; the dtype the kernel writes."""
    compute, use_hf32, kout = rules(a.dtype, b.dtype, dout, cube, soc)

    def prep(x):
        x32 = x.astype(np.float32)
        if compute == F16:
            x32 = x32.astype(np.float16).astype(np.float32)
        if use_hf32 and x.dtype == F32:
            x32 = hf32(x32)
        return x32.astype(np.float64)

    with np.errstate(invalid="ignore"):
        return product(prep(a), prep(b)), kout


def assert_product(actual, a, b, cube, product=np.matmul, soc="Ascend910B"):
    """Errors relative to |a| @ |b|, within CANN's standard for the coarser of the kernel's and out's dtypes."""
    exact, kout = reference(a, b, cube, actual.dtype, product, soc)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = exact.astype(kout).astype(actual.dtype).astype(np.float64)
    got = actual.astype(np.float64)
    assert got.shape == expected.shape
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    inf = np.isinf(expected)
    assert np.array_equal(got[inf], expected[inf])
    with np.errstate(invalid="ignore"):
        scale = product(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    ok = ~np.isnan(expected) & ~inf
    err = np.abs(got[ok] - expected[ok]) / (np.broadcast_to(scale, expected.shape)[ok] + 1e-30)
    if err.size:
        t = max(T[np.dtype(kout)], T[actual.dtype])
        assert err.mean() < t and err.max() < 10 * t, (err.mean(), err.max())


def run_mm(api, a, b, out, cube=KEEP):
    second = "vec" if api == "aclnnMv" else "mat2"
    aclnn_emu.run(api, **{"self": a, second: b, "out": out, "cubeMathType": cube})
    return out


def raises(code, *words):
    """Context manager: an AclnnError with `code` whose message holds every word."""

    class _Check:
        def __enter__(self):
            self.ctx = pytest.raises(AclnnError)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.ctx.__exit__(*exc)
            assert self.info.value.code == code, (self.info.value.code, self.info.value.message)
            for w in words:
                assert w in self.info.value.message, (w, self.info.value.message)
            return handled

    return _Check()


@pytest.fixture
def soc():
    """Switches the emulated product for one test and back."""
    yield aclnn_emu.set_soc_name
    aclnn_emu.set_soc_name("Ascend910B")


# ---------------------------------------------------------------- Mm and the precision rules


@pytest.mark.parametrize("cube", [KEEP, ALLOW_DOWN, USE_FP16, USE_HF32, USE_FP32_ADD])
@pytest.mark.parametrize("da,db,dout", [(F32, F32, F32), (F16, F16, F16), (BF16, BF16, BF16), (F16, F16, F32),
                                        (BF16, BF16, F32), (F16, F32, F32), (F32, F16, F16), (BF16, F32, F32),
                                        (F16, BF16, BF16), (BF16, BF16, F16)], ids=str)
def test_mm_matches_float64(da, db, dout, cube):
    a, b = data((37, 53), da, seed=1), data((53, 29), db, seed=2)
    out = np.empty((37, 29), dout)
    assert_product(run_mm("aclnnMm", a, b, out, cube), a, b, cube)


def test_use_fp16_rounds_fp32_inputs_and_the_result_to_fp16():
    k = 2049
    a = np.full((2, k), 1 + 2.0**-13, np.float32)  # fp16 rounds it to 1
    b = np.ones((k, 3), np.float32)
    out = np.empty((2, 3), np.float32)
    run_mm("aclnnMm", a, b, out, USE_FP16)
    assert np.all(out == 2048.0)  # 2049 ones, written as fp16 (2049 is not an fp16 value), then cast
    run_mm("aclnnMm", a, b, out, KEEP)
    assert np.all(out == np.float32(k * (1 + 2.0**-13)))
    # ggml's form: fp16 weights against fp32 activations with USE_FP16.
    h = np.ones((k, 3), np.float16)
    run_mm("aclnnMm", np.ones((2, k), np.float32), h, out, USE_FP16)
    assert np.all(out == 2048.0)
    run_mm("aclnnMm", np.ones((2, k), np.float32), h, out, KEEP)  # fp32 compute, fp32 result
    assert np.all(out == 2049.0)


def test_fp16_inputs_with_an_fp32_out_keep_the_fp32_sum():
    k = 2049
    a, b = np.ones((2, k), np.float16), np.ones((k, 3), np.float16)
    for cube in (KEEP, USE_FP16):
        out = np.empty((2, 3), np.float32)
        assert np.all(run_mm("aclnnMm", a, b, out, cube) == 2049.0)
    out16 = np.empty((2, 3), np.float16)
    assert np.all(run_mm("aclnnMm", a, b, out16) == 2048.0)


def test_bf16_result_is_rounded_before_the_cast_to_fp16():
    a, b = np.ones((1, 257), BF16), np.ones((257, 1), BF16)
    out = np.empty((1, 1), np.float16)
    assert run_mm("aclnnMm", a, b, out)[0, 0] == 256.0  # bf16(257) = 256, then fp16
    out32 = np.empty((1, 1), np.float32)
    assert run_mm("aclnnMm", a, b, out32)[0, 0] == 257.0


def test_bf16_with_fp32_under_use_fp16_goes_through_fp16():
    a = np.full((1, 4), 2.0**17, BF16)  # beyond fp16's range
    out = np.empty((1, 2), np.float32)
    run_mm("aclnnMm", a, np.ones((4, 2), np.float32), out, USE_FP16)
    assert np.all(np.isinf(out))
    run_mm("aclnnMm", a, np.ones((4, 2), np.float32), out, KEEP)
    assert np.all(out == 4 * 2.0**17)


@pytest.mark.parametrize("cube", [ALLOW_DOWN, USE_HF32])
def test_hf32_keeps_11_mantissa_bits_ties_away_from_zero(cube):
    values = np.array([1 + 2.0**-12, 1 + 2.0**-11 + 2.0**-12, -(1 + 2.0**-12), 1 + 2.0**-13, 3.0], np.float32)
    a = values.reshape(-1, 1)
    b = np.ones((1, 1), np.float32)
    out = np.empty((5, 1), np.float32)
    run_mm("aclnnMm", a, b, out, cube)
    assert out[:, 0].tolist() == [1 + 2.0**-11, 1 + 2.0**-10, -(1 + 2.0**-11), 1.0, 3.0]
    run_mm("aclnnMm", a, b, out, KEEP)
    assert out[:, 0].tolist() == values.tolist()
    assert np.array_equal(hf32(values), np.array([1 + 2.0**-11, 1 + 2.0**-10, -(1 + 2.0**-11), 1.0, 3.0],
                                                 np.float32))


def test_products_follow_their_own_rules(soc):
    a = np.full((2, 4), 1 + 2.0**-13, np.float32)
    b = np.ones((4, 3), np.float32)
    out = np.empty((2, 3), np.float32)
    soc("Ascend910")  # the training series: no fp32 cube, no bf16
    run_mm("aclnnMm", a, b, out, ALLOW_DOWN)
    assert np.all(out == 4.0)  # fp32 went down to fp16
    with raises(INVALID, "cubeMathType 0"):
        run_mm("aclnnMm", a, b, out, KEEP)
    with raises(INVALID, "cubeMathType 3"):
        run_mm("aclnnMm", a, b, out, USE_HF32)
    with raises(INVALID, "self", "ACL_BF16"):
        run_mm("aclnnMm", a.astype(BF16), b, out, ALLOW_DOWN)
    soc("Ascend950")
    with raises(INVALID, "-1"):
        run_mm("aclnnMm", a, b, out, -1)
    h = np.ones((1, 2049), np.float16)
    o = np.empty((1, 1), np.float32)
    run_mm("aclnnMm", h, np.ones((2049, 1), np.float32), o, KEEP)  # fp32 compute, kernel writes fp32
    assert o[0, 0] == 2049.0
    soc("Ascend910B")
    run_mm("aclnnMm", np.ones((1, 2049), np.float16), np.ones((2049, 1), np.float16), np.empty((1, 1), np.float16),
           -1)  # FP16FP32_KEEP_DTYPE is accepted on Atlas A2


def test_cube_math_type_out_of_range_is_refused():
    a, b = data((2, 3), F32), data((3, 4), F32)
    for api in ["aclnnMm", "aclnnBatchMatMul", "aclnnMatmul"]:
        x, y = (a[None], b[None]) if api == "aclnnBatchMatMul" else (a, b)
        out = np.empty(np.matmul(x, y).shape, np.float32)
        with raises(INVALID, "cubeMathType is 5"):
            run_mm(api, x, y, out, 5)
        with raises(INVALID, "cubeMathType is -2"):
            run_mm(api, x, y, out, -2)
    with raises(INVALID, "cubeMathType is 7"):
        run_mm("aclnnMv", a, b[:, 0], np.empty(2, np.float32), 7)


# ---------------------------------------------------------------- shapes and layouts


@pytest.mark.parametrize("sa,sb", [((7,), (7,)), ((7,), (7, 5)), ((4, 7), (7,)), ((3, 4, 7), (7, 5)),
                                   ((4, 7), (2, 7, 5)), ((2, 1, 4, 7), (3, 7, 5)), ((7,), (2, 3, 7, 5)),
                                   ((2, 3, 4, 7), (7,)), ((1, 2, 1, 2, 4, 7), (2, 1, 2, 1, 7, 3)),
                                   ((5, 1, 3, 7), (1, 6, 7, 2))], ids=str)
@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_matmul_shapes_are_torch_matmuls(sa, sb, dtype):
    a, b = data(sa, dtype, seed=3), data(sb, dtype, seed=4)
    out = np.empty(np.matmul(a.astype(np.float64), b.astype(np.float64)).shape, dtype)
    assert_product(run_mm("aclnnMatmul", a, b, out, ALLOW_DOWN), a, b, ALLOW_DOWN)


def test_matmul_dot_promotes_and_ignores_cube_math_type():
    a = np.full(5, 1 + 2.0**-12, np.float32)
    out = np.empty((), np.float32)
    run_mm("aclnnMatmul", a, np.ones(5, np.float32), out, ALLOW_DOWN)  # no HF32 for a dot product
    assert out == np.float32(5 * (1 + 2.0**-12))
    run_mm("aclnnMatmul", np.ones(3, np.float16), np.ones(3, BF16), out, USE_FP16)
    assert out == 3.0


def test_matmul_out_may_be_any_contiguous_shape_of_the_same_size():
    a, b = data((2, 3, 4), F32), data((4, 5), F32)
    out = np.empty((6, 5), np.float32)
    run_mm("aclnnMatmul", a, b, out)
    assert_product(out.reshape(2, 3, 5), a, b, KEEP)
    with raises(INVALID, "out", "[2, 3, 5]"):
        run_mm("aclnnMatmul", a, b, np.empty((6, 4), np.float32))
    with raises(INVALID, "out", "contiguous"):
        run_mm("aclnnMatmul", a, b, np.empty((6, 10), np.float32)[:, ::2])


def test_batch_matmul_broadcasts_a_batch_of_one():
    for sa, sb in [((3, 4, 5), (3, 5, 6)), ((1, 4, 5), (3, 5, 6)), ((3, 4, 5), (1, 5, 6))]:
        a, b = data(sa, F32, seed=5), data(sb, F32, seed=6)
        out = np.empty((3, 4, 6), np.float32)
        assert_product(run_mm("aclnnBatchMatMul", a, b, out), a, b, KEEP)


def test_mv_is_a_matrix_vector_product():
    for dtype in FLOATS:
        a, v = data((67, 45), dtype, seed=7), data(45, dtype, seed=8)
        out = np.empty(67, dtype)
        assert_product(run_mm("aclnnMv", a, v, out, ALLOW_DOWN), a, v, ALLOW_DOWN)


def test_strided_and_transposed_operands_and_outputs():
    base = data((40, 300), F32, seed=9)
    a = base[1:39:2, 3:290:3]  # 19 x 96, strided both ways
    w = data((130, 96), F16, seed=10)
    b = w.T  # ggml's weights: the transposed view of a row-major matrix
    out_base = np.full((25, 300), -7.0, np.float32)
    out = out_base[2:21, 1:261:2]  # non-unit column stride
    run_mm("aclnnMm", a, b, out, USE_FP16)
    assert_product(out, a, b, USE_FP16)
    untouched = np.ones(out_base.shape, bool)
    untouched[2:21, 1:261:2] = False
    assert np.all(out_base[untouched] == -7.0)
    # Batched, with a transposed self and a broadcast (stride 0) mat2.
    s = data((3, 20, 12), BF16, seed=11).transpose(0, 2, 1)
    m = np.broadcast_to(data((1, 20, 33), BF16, seed=12), (3, 20, 33))
    o = np.empty((3, 12, 33), np.float32)
    assert_product(run_mm("aclnnBatchMatMul", s, m, o), s, m, KEEP)


def test_large_products_cross_the_gemm_blocks():
    a, b = data((200, 300), F32, seed=13), data((300, 520), F32, seed=14)
    out = np.empty((200, 520), np.float32)
    assert_product(run_mm("aclnnMm", a, b, out), a, b, KEEP)
    a3 = data((3, 70, 300), F16, seed=15)
    o3 = np.empty((3, 70, 520), np.float32)
    assert_product(run_mm("aclnnMatmul", a3, b, o3, USE_FP16), a3, b, USE_FP16)


# ---------------------------------------------------------------- empty tensors, NaN and inf


def test_empty_tensors():
    out = np.full((3, 4), 5.0, np.float32)
    run_mm("aclnnMm", np.empty((3, 0), np.float32), np.empty((0, 4), np.float32), out)
    assert np.all(out == 0.0)  # k = 0: a sum of nothing
    out16 = np.full((2, 3, 4), 5.0, np.float16)
    run_mm("aclnnMatmul", np.empty((2, 3, 0), np.float16), np.empty((0, 4), np.float16), out16)
    assert np.all(out16 == 0.0)
    ob = np.full((1, 3, 4), 5.0, np.float32)
    run_mm("aclnnBatchMatMul", np.ones((1, 3, 2), np.float32), np.empty((0, 2, 4), np.float32), ob)
    assert np.all(ob == 0.0)  # CANN's batch is the larger of 1 and 0
    ov = np.full(3, 5.0, np.float32)
    run_mm("aclnnMv", np.empty((3, 0), np.float32), np.empty(0, np.float32), ov)
    assert np.all(ov == 0.0)
    for api, a, b, o in [("aclnnMm", np.empty((0, 3), np.float32), np.ones((3, 4), np.float32),
                          np.empty((0, 4), np.float32)),
                         ("aclnnBatchMatMul", np.ones((0, 2, 3), np.float32), np.ones((0, 3, 4), np.float32),
                          np.empty((0, 2, 4), np.float32)),
                         ("aclnnMatmul", np.ones((2, 0, 3), np.float32), np.ones((3, 4), np.float32),
                          np.empty((2, 0, 4), np.float32)),
                         ("aclnnMv", np.ones((0, 3), np.float32), np.ones(3, np.float32), np.empty(0, np.float32))]:
        run_mm(api, a, b, o)  # nothing to write


def test_nan_and_inf_propagate():
    a = data((4, 6), F32, seed=16)
    a[0, 1] = np.nan
    a[1, 2] = np.inf
    a[2, 3] = -np.inf
    b = data((6, 5), F32, seed=17)
    b[3, 4] = 0.0  # -inf * 0 = NaN
    for cube in (KEEP, ALLOW_DOWN, USE_FP16):
        out = np.empty((4, 5), np.float32)
        assert_product(run_mm("aclnnMm", a, b, out, cube), a, b, cube)


# ---------------------------------------------------------------- determinism


def _bit_cases():
    r = np.random.default_rng(20)
    cases = []
    a, b = r.uniform(-1, 1, (150, 300)).astype(np.float32), r.uniform(-1, 1, (300, 270)).astype(np.float32)
    cases.append(("aclnnMm", a, b, np.empty((150, 270), np.float32), KEEP))
    cases.append(("aclnnMm", a, b, np.empty((150, 270), np.float16), ALLOW_DOWN))
    w = r.uniform(-1, 1, (270, 300)).astype(np.float16)
    cases.append(("aclnnMatmul", a.reshape(3, 50, 300), w.T, np.empty((3, 50, 270), np.float32), USE_FP16))
    cases.append(("aclnnBatchMatMul", a.astype(BF16).reshape(3, 50, 300)[:, :, :40],
                  b.astype(BF16)[:40].reshape(1, 40, 270), np.empty((3, 50, 270), BF16), KEEP))
    cases.append(("aclnnMv", a, b[:, 0], np.empty(150, np.float32), ALLOW_DOWN))
    return cases


def _run_bit_cases():
    outs = []
    for api, a, b, out, cube in _bit_cases():
        run_mm(api, a, b, out, cube)
        outs.append(out.view(np.uint8).copy())
    A = np.tril(np.random.default_rng(21).uniform(0.5, 1.5, (2, 90, 90))) + 3 * np.eye(90)
    B = np.random.default_rng(22).uniform(-1, 1, (2, 90, 130))
    for dtype in (np.float32, np.float64):
        X = np.empty(B.shape, dtype)
        aclnn_emu.run("aclnnTriangularSolve", self=B.astype(dtype), A=A.astype(dtype), upper=False, transpose=True,
                      unitriangular=False, xOut=X)
        outs.append(X.view(np.uint8).copy())
    return outs


def test_results_do_not_depend_on_the_thread_count():
    results = []
    try:
        for threads in (1, 2, 3):
            aclnn_emu.set_num_threads(threads)
            results.append(_run_bit_cases())
    finally:
        aclnn_emu.set_num_threads(0)
    for other in results[1:]:
        for x, y in zip(results[0], other):
            assert np.array_equal(x, y)


def test_every_isa_level_gives_the_same_bits():
    results = {}
    for isa in aclnn_emu.available_isas():
        aclnn_emu.set_isa_cap(isa)
        try:
            run_mm("aclnnMm", np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), np.empty((2, 2), np.float32))
            gemm = {"scalar": "scalar", "avx2": "avx2", "avx512": "avx512", "avx512_bf16": "avx512"}[isa]
            assert gemm in aclnn_emu.last_kernel()
            results[isa] = _run_bit_cases()
        finally:
            aclnn_emu.set_isa_cap("avx512_bf16")
    first = next(iter(results.values()))
    for isa, outs in results.items():
        for x, y in zip(first, outs):
            assert np.array_equal(x, y), isa


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
@pytest.mark.parametrize("layout", ["ggml", "rows", "nz"])
def test_few_rows_take_the_gemv_with_the_gemm_bits(dtype, layout):
    """Products of 1 to 4 rows read the weight in place (the GEMV kernels); each row's bits are those of the
    same row in a 5-row product (the blocked GEMM), on every ISA level, and close to float64."""
    for k, n in ((1, 3), (7, 17), (33, 40), (129, 531), (300, 67)):
        w = data((n, k), dtype, seed=k + n)  # a model's weight [out features, in features]
        x = data((5, k), dtype, seed=k * n)
        x[4, k // 2] = np.inf  # a non-finite row among the finite ones
        if layout == "ggml":
            mm = lambda a, out: run_mm("aclnnMm", a, w.T, out)
        elif layout == "rows":
            wr = np.ascontiguousarray(w.T)
            mm = lambda a, out: run_mm("aclnnMm", a, wr, out)
        else:
            if k == 1:
                continue
            nz = to_nz(w)
            mm = lambda a, out: run_raw("aclnnMm", a, nz, out, KEEP, ((k, n), (1, k)),
                                        aclnn_emu.lib.ACL_FORMAT_FRACTAL_NZ)
        for dout in {dtype, F32}:
            full = {}
            for isa in aclnn_emu.available_isas():
                aclnn_emu.set_isa_cap(isa)
                try:
                    ref = mm(x, np.empty((5, n), dout))
                    assert n < 8 or "gemv" not in aclnn_emu.last_kernel()  # (C^T = B^T A^T has 3 rows)
                    for m in (1, 2, 3, 4):
                        out = mm(np.ascontiguousarray(x[5 - m:]), np.empty((m, n), dout))
                        assert "gemv" in aclnn_emu.last_kernel()
                        assert out.view(np.uint8).tobytes() == ref[5 - m:].view(np.uint8).tobytes(), (isa, m, k, n)
                    full[isa] = ref.view(np.uint8).copy()
                finally:
                    aclnn_emu.set_isa_cap("avx512_bf16")
            assert all(np.array_equal(v, full["scalar"]) for v in full.values())
            assert_product(ref[:4], x[:4], w.T, KEEP)


def test_one_token_batches_and_mv_take_the_gemv():
    r = np.random.default_rng(30)
    w = r.uniform(-1, 1, (45, 70)).astype(np.float16)
    x = r.uniform(-1, 1, (3, 1, 70)).astype(np.float16)
    out = run_mm("aclnnMatmul", x, w.T, np.empty((3, 1, 45), np.float16))
    assert "gemv" in aclnn_emu.last_kernel()
    assert_product(out, x, w.T, KEEP)
    wb = r.uniform(-1, 1, (3, 45, 70)).astype(BF16)
    out = run_mm("aclnnBatchMatMul", x.astype(BF16), wb.transpose(0, 2, 1), np.empty((3, 1, 45), BF16))
    assert "gemv" in aclnn_emu.last_kernel()
    assert_product(out, x.astype(BF16), wb.transpose(0, 2, 1), KEEP)
    v = r.uniform(-1, 1, 45).astype(np.float32)
    out = run_mm("aclnnMv", w.T.astype(np.float32), v, np.empty(70, np.float32))
    assert "gemv" in aclnn_emu.last_kernel()
    assert_product(out, w.T.astype(np.float32), v, KEEP, product=np.matmul)


# ---------------------------------------------------------------- errors


def test_null_arguments_name_the_argument():
    ffi, lib = aclnn_emu.ffi, aclnn_emu.lib
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    N = ffi.NULL
    for call, name in [(lambda: lib.aclnnMmGetWorkspaceSize(N, N, N, 0, ws, ex), "out"),
                       (lambda: lib.aclnnBatchMatMulGetWorkspaceSize(N, N, N, 0, ws, ex), "self"),
                       (lambda: lib.aclnnMatmulGetWorkspaceSize(N, N, N, 0, ws, ex), "self"),
                       (lambda: lib.aclnnMvGetWorkspaceSize(N, N, N, 0, ws, ex), "self")]:
        assert call() == NULLPTR
        assert name in aclnn_emu.errors.last_error_message()
    # TriangularSolve reports a NULL tensor as CANN's op_api does: 561103.
    assert lib.aclnnTriangularSolveGetWorkspaceSize(N, N, False, False, False, N, N, ws, ex) == INNER_NULLPTR
    assert "self" in aclnn_emu.errors.last_error_message()


def test_dtype_and_shape_errors_name_the_argument():
    a, b = data((2, 3), F32), data((3, 4), F32)
    with raises(INVALID, "self", "ACL_INT32"):
        run_mm("aclnnMm", a.astype(np.int32), b, np.empty((2, 4), np.float32))
    with raises(INVALID, "out", "ACL_DOUBLE"):
        run_mm("aclnnMatmul", a, b, np.empty((2, 4), np.float64))
    with raises(INVALID, "mat2", "rank 3"):
        run_mm("aclnnMm", a, b[None], np.empty((2, 4), np.float32))
    with raises(INVALID, "k-axis"):
        run_mm("aclnnMm", a, b[:2], np.empty((2, 4), np.float32))
    with raises(INVALID, "out", "[2, 4]"):
        run_mm("aclnnMm", a, b, np.empty((4, 2), np.float32))
    with raises(INVALID, "out", "rank 2"):
        run_mm("aclnnBatchMatMul", a[None], b[None], np.empty((2, 4), np.float32))
    with raises(INVALID, "batches"):
        run_mm("aclnnBatchMatMul", np.ones((2, 2, 3), np.float32), np.ones((3, 3, 4), np.float32),
               np.empty((3, 2, 4), np.float32))
    with raises(INVALID, "out", "[3, 2, 4]"):
        run_mm("aclnnBatchMatMul", np.ones((1, 2, 3), np.float32), np.ones((3, 3, 4), np.float32),
               np.empty((1, 2, 4), np.float32))
    with raises(INVALID, "broadcast"):
        run_mm("aclnnMatmul", np.ones((2, 2, 3), np.float32), np.ones((3, 3, 4), np.float32),
               np.empty((3, 2, 4), np.float32))
    with raises(INVALID, "self", "at most 6"):
        run_mm("aclnnMatmul", np.ones((1,) * 6 + (2, 3), np.float32), b, np.empty((1,) * 6 + (2, 4), np.float32))
    with raises(INVALID, "self", "1 to 6"):
        run_mm("aclnnMatmul", np.ones((), np.float32), b, np.empty(4, np.float32))
    with raises(INVALID, "vec", "ACL_FLOAT16"):  # Mv: vec, out and self of one dtype
        run_mm("aclnnMv", a, b[:, 0].astype(np.float16), np.empty(2, np.float32))
    with raises(INVALID, "self", "vec"):
        run_mm("aclnnMv", a.astype(np.float16), b[:, 0], np.empty(2, np.float32))
    with raises(INVALID, "vec", "[3]"):
        run_mm("aclnnMv", a, np.ones(4, np.float32), np.empty(2, np.float32))
    with raises(INVALID, "out", "[2]"):
        run_mm("aclnnMv", a, b[:, 0], np.empty(3, np.float32))
    with raises(INVALID, "self", "rank 1"):
        run_mm("aclnnMv", b[:, 0], b[:, 0], np.empty(3, np.float32))


def test_out_sharing_memory_with_an_input_is_refused():
    x = data((4, 4), F32)
    with raises(INVALID, "out", "self"):
        run_mm("aclnnMm", x, np.eye(4, dtype=np.float32), x)
    with raises(INVALID, "out"):
        run_mm("aclnnMm", np.ones((4, 1), np.float32), np.ones((1, 4), np.float32),
               np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), (4, 4), (0, 4)))


def to_nz(w):
    """The FRACTAL_NZ storage of matrices w [..., rows, cols]: column blocks of C0 = 32 bytes, rows padded to 16."""
    c0 = 32 // w.itemsize
    rows, cols = w.shape[-2:]
    r16, cb = -(-rows // 16) * 16, -(-cols // c0)
    nz = np.zeros(w.shape[:-2] + (cb, r16, c0), w.dtype)
    padded = np.zeros(w.shape[:-2] + (r16, cb * c0), w.dtype)
    padded[..., :rows, :cols] = w
    nz[...] = np.moveaxis(padded.reshape(w.shape[:-2] + (r16, cb, c0)), -2, -3)
    return nz.reshape(-1)


def run_raw(api, self, mat2, out, cube, mat2_view=None, mat2_format=None, swap=False):
    """Phase 1 and 2 through the C API on host arrays; mat2 given by its storage, view and format."""
    ffi, lib = aclnn_emu.ffi, aclnn_emu.lib
    from aclnn_emu import tensor as tensors

    keep = []

    def make(arr, shape=None, strides=None, fmt=None):
        code = tensors.DTYPE_TO_ACL[arr.dtype]
        code = getattr(lib, code) if isinstance(code, str) else code
        shape = arr.shape if shape is None else shape
        strides = [x // arr.itemsize for x in arr.strides] if strides is None else strides
        dims, st, storage = ffi.new("int64_t[]", list(shape) or [1]), ffi.new("int64_t[]", list(strides) or [1]), \
            ffi.new("int64_t[]", [arr.size])
        keep.append((dims, st, storage))
        return lib.aclCreateTensor(dims, len(shape), code, st, 0, lib.ACL_FORMAT_ND if fmt is None else fmt,
                                   storage, 1, ffi.cast("void *", arr.ctypes.data))

    a_t, o_t = make(self), make(out)
    b_t = make(mat2, *(mat2_view or (None, None)), mat2_format)
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    lib.aclnnEmuSetHostMemoryAllowed(True)
    try:
        rc = getattr(lib, api + "GetWorkspaceSize")(*((b_t, a_t) if swap else (a_t, b_t)), o_t, cube, ws, ex)
        if rc != 0:
            raise AclnnError(rc, aclnn_emu.errors.last_error_message(), api)
        buf = np.empty(max(int(ws[0]), 1), np.uint8)
        assert getattr(lib, api)(ffi.cast("void *", buf.ctypes.data), ws[0], ex[0], ffi.NULL) == 0
    finally:
        lib.aclnnEmuSetHostMemoryAllowed(False)
        for t in (a_t, b_t, o_t):
            lib.aclDestroyTensor(t)
    return out


@pytest.mark.parametrize("dtype", [F16, F32, BF16], ids=str)
def test_fractal_nz_weights_are_read_as_trans_matmul_weight_writes_them(dtype):
    n, k = 37, 53
    w = data((n, k), dtype, seed=40)  # a model's weight [out features, in features]
    x = data((5, k), np.float32 if dtype != BF16 else BF16, seed=41)
    nz = to_nz(w)
    cube = USE_FP16 if dtype != BF16 else KEEP
    # ggml's call: mat2 is the transposed view [k, n] of the weight, stored as NZ.
    out = run_raw("aclnnMm", x, nz, np.empty((5, n), np.float32), cube, ((k, n), (1, k)), aclnn_emu.lib.ACL_FORMAT_FRACTAL_NZ)
    assert_product(out, x, w.T, cube)
    # A plain view [k, n] reads the NZ storage of that matrix; batches follow each other.
    wb = data((2, k, n), dtype, seed=42)
    xb = data((2, 5, k), dtype, seed=43)
    out = run_raw("aclnnBatchMatMul", xb, to_nz(wb), np.empty((2, 5, n), dtype), KEEP, ((2, k, n), (k * n, n, 1)),
                  aclnn_emu.lib.ACL_FORMAT_FRACTAL_NZ)
    assert_product(out, xb, wb, KEEP)


def test_fractal_nz_odd_views_and_mixed_halves_are_refused():
    w = data((4, 6), F16)
    nz_format = aclnn_emu.lib.ACL_FORMAT_FRACTAL_NZ
    with raises(INVALID, "FRACTAL_NZ", "strides (2, 7)"):
        run_raw("aclnnMm", np.ones((2, 6), np.float16), to_nz(w), np.empty((2, 4), np.float16), KEEP,
                ((6, 4), (2, 7)), nz_format)
    with raises(INVALID, "ACL_BF16", "ACL_FLOAT16"):
        run_raw("aclnnMatmul", np.ones((2, 6), BF16), to_nz(w), np.empty((2, 4), np.float32), KEEP, ((6, 4), (1, 6)),
                nz_format)
    with raises(INVALID, "'self' or 'out'"):  # a FRACTAL_NZ self: mat2 and self swapped in the call
        run_raw("aclnnMm", np.ones((4, 5), np.float16), to_nz(w), np.empty((6, 5), np.float16), KEEP,
                ((6, 4), (1, 6)), nz_format, swap=True)


# ---------------------------------------------------------------- TriangularSolve


def solve_reference(A, B, upper, transpose, unit):
    A = np.array(A, dtype=np.complex128 if np.iscomplexobj(A) else np.float64)
    tri = np.triu(A) if upper else np.tril(A)
    if unit:
        idx = np.arange(A.shape[-1])
        tri[..., idx, idx] = 1
    op = np.conj(np.swapaxes(tri, -1, -2)) if transpose else tri
    batch = np.broadcast_shapes(op.shape[:-2], B.shape[:-2])
    op = np.broadcast_to(op, batch + op.shape[-2:])
    B = np.broadcast_to(np.asarray(B).astype(op.dtype), batch + B.shape[-2:])
    return np.linalg.solve(op, B)


def triangular(shape, dtype, seed, upper):
    r = np.random.default_rng(seed)
    A = r.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        A = A + 1j * r.uniform(-1, 1, shape)
    A = A + 4 * np.eye(shape[-1])  # well conditioned
    A = np.triu(A) if upper else np.tril(A)
    return (A + 100 * (np.tril(np.ones(shape[-2:]), -1) if upper else np.triu(np.ones(shape[-2:]), 1))).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128], ids=str)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve_matches_float64(dtype, upper, transpose):
    A = triangular((2, 1, 9, 9), dtype, 30, upper)  # the other triangle holds junk that must be ignored
    r = np.random.default_rng(31)
    B = r.uniform(-1, 1, (3, 9, 70))
    if np.dtype(dtype).kind == "c":
        B = B + 1j * r.uniform(-1, 1, B.shape)
    B = B.astype(dtype)
    X = np.empty((2, 3, 9, 70), dtype)
    M = np.empty((2, 3, 9, 9), dtype)
    aclnn_emu.run("aclnnTriangularSolve", self=B, A=A, upper=upper, transpose=transpose, unitriangular=False, xOut=X,
                  mOut=M)
    assert np.array_equal(M, np.broadcast_to(A, M.shape))
    expected = solve_reference(A, B, upper, transpose, False)
    t = T[F32] if np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64)) else T[F64]
    err = np.abs(X - expected) / (np.abs(expected) + 1e-3)
    assert err.mean() < t and err.max() < 10 * t, (err.mean(), err.max())


def test_triangular_solve_unitriangular_and_views():
    A = triangular((5, 5), np.float32, 32, False)
    A[np.arange(5), np.arange(5)] = 7.0  # ignored: ones on the diagonal
    B = np.random.default_rng(33).uniform(-1, 1, (11, 5)).astype(np.float32).T  # transposed view
    xb = np.full((5, 33), -3.0, np.float32)
    X = xb[:, ::3]
    aclnn_emu.run("aclnnTriangularSolve", self=B, A=A, upper=False, transpose=False, unitriangular=True, xOut=X)
    expected = solve_reference(A, B, False, False, True)
    assert np.allclose(X, expected, rtol=1e-5, atol=1e-5)
    mask = np.ones(xb.shape, bool)
    mask[:, 0:33:3] = False
    assert np.all(xb[mask] == -3.0)
    # A diagonal inf still gives NaN under unitriangular (CANN forms A * (1 - eye) + eye).
    A[2, 2] = np.inf
    X2 = np.empty((5, 11), np.float32)
    aclnn_emu.run("aclnnTriangularSolve", self=B, A=A, upper=False, transpose=False, unitriangular=True, xOut=X2)
    assert np.all(np.isnan(X2[2:])) and not np.any(np.isnan(X2[:2]))
    # A zero on the diagonal: inf or NaN, as the documentation warns.
    A0 = np.eye(3, dtype=np.float32)
    A0[1, 1] = 0.0
    X3 = np.empty((3, 1), np.float32)
    aclnn_emu.run("aclnnTriangularSolve", self=np.ones((3, 1), np.float32), A=A0, upper=True, transpose=False,
                  unitriangular=False, xOut=X3)
    assert np.isinf(X3[1, 0]) and X3[2, 0] == 1.0


def test_triangular_solve_errors_and_empty():
    A, B = np.eye(3, dtype=np.float32), np.ones((3, 2), np.float32)
    run = aclnn_emu.run
    with raises(INVALID, "A", "ACL_DOUBLE"):
        run("aclnnTriangularSolve", self=B, A=A.astype(np.float64), upper=False, transpose=False,
            unitriangular=False, xOut=np.empty((3, 2), np.float32))
    with raises(INVALID, "self", "ACL_FLOAT16"):
        run("aclnnTriangularSolve", self=B.astype(np.float16), A=A.astype(np.float16), upper=False, transpose=False,
            unitriangular=False, xOut=np.empty((3, 2), np.float16))
    with raises(INVALID, "square"):
        run("aclnnTriangularSolve", self=B, A=np.ones((3, 4), np.float32), upper=False, transpose=False,
            unitriangular=False, xOut=np.empty((3, 2), np.float32))
    with raises(INVALID, "rows"):
        run("aclnnTriangularSolve", self=np.ones((4, 2), np.float32), A=A, upper=False, transpose=False,
            unitriangular=False, xOut=np.empty((4, 2), np.float32))
    with raises(INVALID, "xOut", "[3, 2]"):
        run("aclnnTriangularSolve", self=B, A=A, upper=False, transpose=False, unitriangular=False,
            xOut=np.empty((2, 3), np.float32))
    with raises(INVALID, "mOut", "[2, 3, 3]"):
        run("aclnnTriangularSolve", self=np.ones((2, 3, 2), np.float32), A=A, upper=False, transpose=False,
            unitriangular=False, xOut=np.empty((2, 3, 2), np.float32), mOut=np.empty((3, 3), np.float32))
    with raises(INVALID, "self", "rank 1"):
        run("aclnnTriangularSolve", self=np.ones(3, np.float32), A=A, upper=False, transpose=False,
            unitriangular=False, xOut=np.empty(3, np.float32))
    with raises(INVALID, "unitriangular", "ACL_DOUBLE"):
        run("aclnnTriangularSolve", self=B.astype(np.float64), A=A.astype(np.float64), upper=False,
            transpose=False, unitriangular=True, xOut=np.empty((3, 2), np.float64))
    with raises(INVALID, "xOut", "self"):
        run("aclnnTriangularSolve", self=B, A=A, upper=False, transpose=False, unitriangular=False, xOut=B)
    X = np.full((3, 0), 1.0, np.float32)
    run("aclnnTriangularSolve", self=np.ones((3, 0), np.float32), A=A, upper=False, transpose=False,
        unitriangular=False, xOut=X)
