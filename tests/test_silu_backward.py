"""aclnnSiluBackward (and aclnnSilu) through raw ``lib`` calls on device
memory: results against the float64 references of tests/reference.py with
CANN's precision standard, at every ISA level and thread count, on strided
views; and every phase-1 validation error in the order of CANN's A2/A3
implementation (include/aclnnop/aclnn_silu_backward.h, cann_facts.md 3e)."""

import aclnn_emu
import numpy as np
import pytest
from aclnn_emu import ffi, lib
from helpers import BF16, Block, kernel_level, last_kernel, make_tensor, take_msg
from reference import assert_precision, silu_backward_ref, silu_ref

NULL = ffi.NULL
NULLPTR = 161001
INVALID = 161002

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
ROOT = -1.2784645427610738  # silu'(x) = 0 here; relative errors are unbounded next to it
SIZES = [1, 15, 16, 17, 63, 64, 65, 1000, 4097, 100003]


# ------------------------------------------------------------------ helpers


@pytest.fixture(autouse=True)
def clean_messages():
    take_msg()
    yield
    take_msg()


def run_backward(vdy, vx, vdx):
    """Both phases; returns gradInput's values."""
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = lib.aclnnSiluBackwardGetWorkspaceSize(vdy.tensor, vx.tensor, vdx.tensor, ws, ex)
    assert rc == 0, take_msg()
    work = NULL
    if ws[0]:
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, ws[0], 0) == 0
        work = p[0]
    try:
        rc = lib.aclnnSiluBackward(work, ws[0], ex[0], NULL)
        assert rc == 0, take_msg()
    finally:
        if work != NULL:
            lib.aclrtFree(work)
    return vdx.values()


def run_forward(vx, vy):
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = lib.aclnnSiluGetWorkspaceSize(vx.tensor, vy.tensor, ws, ex)
    assert rc == 0, take_msg()
    work = NULL
    if ws[0]:
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, ws[0], 0) == 0
        work = p[0]
    try:
        assert lib.aclnnSilu(work, ws[0], ex[0], NULL) == 0, take_msg()
    finally:
        if work != NULL:
            lib.aclrtFree(work)
    return vy.values()


def backward_inputs(shape, dtype, seed=0):
    """dy in +-[0.25, 2], x in [-8, 8] away from the root of silu' (where the
    relative metric is ill-conditioned), both rounded to ``dtype``."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-8, 8, shape)
    near = np.abs(x - ROOT) < 0.05
    x[near] += 0.1
    dy = rng.uniform(0.25, 2, shape) * rng.choice([-1.0, 1.0], shape)
    return dy.astype(dtype), x.astype(dtype)


def forward_inputs(shape, dtype, seed=0):
    """x in [-8, 8] with |x| >= 0.01 (silu is ~x/2 there; tiny outputs would
    fall into fp16 subnormals, outside the relative metric's reach)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.01, 8, shape) * rng.choice([-1.0, 1.0], shape)
    return x.astype(dtype)


@pytest.fixture
def restore_threads():
    previous = lib.aclnnEmuGetNumThreads()
    yield
    lib.aclnnEmuSetNumThreads(previous)


@pytest.fixture
def restore_isa():
    previous = lib.aclnnEmuGetIsa()
    yield
    lib.aclnnEmuSetIsaCap(previous)


@pytest.fixture
def restore_soc():
    previous = ffi.string(lib.aclrtGetSocName())
    yield
    assert lib.aclnnEmuSetSocName(previous) == 0
    assert ffi.string(lib.aclrtGetSocName()) == previous


# -------------------------------------------------------------- precision

@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_backward_precision(views, isa, dtype, size):
    dy, x = backward_inputs((size,), DTYPES[dtype], seed=size)
    vdy, vx, vdx = views(dy), views(x), views(np.zeros_like(x))
    out = run_backward(vdy, vx, vdx)
    assert_precision(out, silu_backward_ref(dy, x), dtype)
    assert vdx.guards_intact()
    assert kernel_level(isa) in last_kernel(), last_kernel()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_forward_precision(views, isa, dtype, size):
    x = forward_inputs((size,), DTYPES[dtype], seed=size)
    vx, vy = views(x), views(np.zeros_like(x))
    out = run_forward(vx, vy)
    assert_precision(out, silu_ref(x), dtype)
    assert vy.guards_intact()
    assert kernel_level(isa) in last_kernel(), last_kernel()


def test_sample_values_exact_enough(views):
    """The CANN sample's data (fp32 [2,3], dy = 1, x = 1..6) against cann_facts' expected outputs."""
    dy = np.ones((2, 3), np.float32)
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    out = run_backward(views(dy), views(x), views(np.zeros_like(x)))
    expected = [0.92767051, 1.09078425, 1.08810411, 1.05266461, 1.02654743, 1.01232643]
    np.testing.assert_allclose(out.ravel(), expected, rtol=2e-7, atol=0)


# ------------------------------------------------------------------ views

LAYOUT_CASES = [
    ("transposed", "contig", "contig"),
    ("contig", "transposed", "contig"),
    ("contig", "contig", "transposed"),
    ("offset", "contig", "contig"),
    ("contig", "offset", "contig"),
    ("contig", "contig", "offset"),
    ("transposed", "offset", "transposed"),
    ("transposed", "transposed", "transposed"),
    ("offset", "offset", "offset"),
]


@pytest.mark.parametrize("layouts", LAYOUT_CASES, ids=["-".join(c) for c in LAYOUT_CASES])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape", [(37, 29), (3, 5, 7), (301,)], ids=["2d", "3d", "1d"])
def test_backward_strided_views(views, dtype, layouts, shape):
    dy, x = backward_inputs(shape, DTYPES[dtype], seed=7)
    vdy, vx = views(dy, layouts[0], guard=11.0), views(x, layouts[1], guard=12.0)
    vdx = views(np.zeros_like(x), layouts[2], guard=-13.0)
    out = run_backward(vdy, vx, vdx)
    assert_precision(out, silu_backward_ref(dy, x), dtype)
    assert vdx.guards_intact()
    assert vdy.untouched() and vx.untouched()  # inputs are never written


@pytest.mark.parametrize("layouts", [("transposed", "contig"), ("contig", "transposed"), ("offset", "offset"),
                                     ("transposed", "transposed")], ids=lambda c: "-".join(c))
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_forward_strided_views(views, dtype, layouts):
    x = forward_inputs((19, 23), DTYPES[dtype], seed=3)
    vx, vy = views(x, layouts[0]), views(np.zeros_like(x), layouts[1], guard=99.0)
    out = run_forward(vx, vy)
    assert_precision(out, silu_ref(x), dtype)
    assert vy.guards_intact() and vx.untouched()


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("layout", ["contig", "transposed", "offset"])
def test_backward_rank_8(views, dtype, layout):
    shape = (2, 1, 3, 2, 1, 2, 3, 2)
    dy, x = backward_inputs(shape, DTYPES[dtype], seed=8)
    vdy, vx, vdx = views(dy, layout), views(x, "transposed"), views(np.zeros_like(x), layout)
    out = run_backward(vdy, vx, vdx)
    assert_precision(out, silu_backward_ref(dy, x), dtype)
    assert vdx.guards_intact()


def test_backward_rank_0(views):
    """A 0-d tensor is one element (not empty)."""
    dy, x = np.array(2.0, np.float32), np.array(1.5, np.float32)
    ts = []
    blocks = [Block(np.array([v], np.float32)) for v in (dy, x, 0.0)]
    try:
        ts = [make_tensor((), 0, None, 0, (), b.ptr) for b in blocks]
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        assert lib.aclnnSiluBackwardGetWorkspaceSize(ts[0], ts[1], ts[2], ws, ex) == 0, take_msg()
        assert ws[0] == 0
        assert lib.aclnnSiluBackward(NULL, 0, ex[0], NULL) == 0
        np.testing.assert_allclose(blocks[2].read()[0], silu_backward_ref(dy, x), rtol=1e-6)
    finally:
        for t in ts:
            lib.aclDestroyTensor(t)
        for b in blocks:
            b.free()


# ---------------------------------------------------------- special values

# -12 rather than -20: silu(-20) ~ -4e-8 is below fp16's resolution (its nearest
# fp16 value is 50% off), which no relative standard can judge.
SPECIAL_X = [np.nan, np.inf, -np.inf, 0.0, -0.0, 100.0, -100.0, 1.0, -1.0, 20.0, -12.0, 87.0, -80.0, 3.5]
SPECIAL_DY = [1.0, -2.5, 0.0, -0.0, np.nan, np.inf, -np.inf, 100.0, -100.0]


def special_grid(dtype):
    """Every (dy, x) pair, except an infinite dy with self < -87.3 (tested on its own below)."""
    pairs = [(d, x) for d in SPECIAL_DY for x in SPECIAL_X if not (np.isinf(d) and x < -87.3)]
    dy = np.array([p[0] for p in pairs], dtype)
    x = np.array([p[1] for p in pairs], dtype)
    return dy, x


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_backward_special_values(views, isa, dtype):
    dy, x = special_grid(DTYPES[dtype])
    for layout in ("contig", "transposed"):
        vdy, vx, vdx = views(dy, layout), views(x, layout), views(np.zeros_like(x), layout)
        out = run_backward(vdy, vx, vdx)
        ref = silu_backward_ref(dy, x)
        assert np.isnan(ref[np.isinf(x.astype(np.float64))]).all()  # the header's "self = +-inf gives NaN"
        assert_precision(out, ref, dtype)  # NaN positions and infinities exactly, the rest within the standard
        assert vdx.guards_intact()


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_forward_special_values(views, isa, dtype):
    x = np.array(SPECIAL_X + [-87.5, -88.0, -90.0, 88.0, 89.0], DTYPES[dtype])
    out = run_forward(views(x), views(np.zeros_like(x)))
    ref = silu_ref(x)
    assert np.isnan(out[np.isnan(x.astype(np.float64)) | (x.astype(np.float64) == -np.inf)]).all()
    assert_precision(out, ref, dtype)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_backward_infinite_grad_with_very_negative_self(views, dtype):
    """dy = +-inf with self = -88 / -100: sigmoid(self) is tiny but not zero
    (6e-39 and 4e-44 are fp32 subnormals), so the formula gives -+inf, not NaN."""
    dy = np.array([np.inf, -np.inf, np.inf, -np.inf, np.inf], DTYPES[dtype])
    x = np.array([-88.0, -88.0, -100.0, -100.0, -87.0], DTYPES[dtype])
    out = run_backward(views(dy), views(x), views(np.zeros_like(x)))
    ref = silu_backward_ref(dy, x)
    assert np.isinf(ref).all()
    assert_precision(out, ref, dtype)


# ------------------------------------------------- threads and ISA levels

@pytest.mark.parametrize("dtype", list(DTYPES))
def test_thread_count_does_not_change_bits(views, restore_threads, dtype):
    n = 262147  # > 200000: eight chunks of the 32768-element grain
    dy, x = backward_inputs((n,), DTYPES[dtype], seed=11)
    x[::997] = np.nan
    x[5::1009] = -np.inf
    outs = {}
    for t in (1, 2):
        assert lib.aclnnEmuSetNumThreads(t) == 0
        assert lib.aclnnEmuGetNumThreads() == t
        vdx = views(np.zeros_like(x))
        outs[t] = run_backward(views(dy), views(x, "transposed"), vdx)
        assert vdx.guards_intact()
    bits = {t: o.view(np.uint32 if dtype == "float32" else np.uint16) for t, o in outs.items()}
    np.testing.assert_array_equal(bits[1], bits[2])
    assert_precision(outs[2], silu_backward_ref(dy, x), dtype)


def test_set_num_threads_errors(restore_threads):
    assert lib.aclnnEmuSetNumThreads(-1) == 100000
    assert "numThreads" in take_msg()
    assert lib.aclnnEmuSetNumThreads(1025) == 100000
    assert "numThreads" in take_msg()
    assert lib.aclnnEmuSetNumThreads(0) == 0
    assert lib.aclnnEmuGetNumThreads() >= 1


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_isa_levels_agree_bit_for_bit(views, restore_isa, dtype):
    dy, x = backward_inputs((4099,), DTYPES[dtype], seed=5)
    sdy, sx = special_grid(DTYPES[dtype])
    dy, x = np.concatenate([dy, sdy]), np.concatenate([x, sx])
    results = {}
    for name in aclnn_emu.available_isas():
        assert lib.aclnnEmuSetIsaCap(aclnn_emu.available_isas().index(name)) == 0
        grad = run_backward(views(dy), views(x), views(np.zeros_like(x)))
        assert kernel_level(name) in last_kernel()
        fwd = run_forward(views(x), views(np.zeros_like(x)))
        results[name] = (grad, fwd)
    names = list(results)
    for name in names[1:]:
        for a, b in zip(results[names[0]], results[name]):
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            np.testing.assert_array_equal(np.isnan(a64), np.isnan(b64))
            keep = ~np.isnan(a64)
            np.testing.assert_array_equal(a64[keep], b64[keep])  # bit-identical, ±0 aside
            np.testing.assert_array_equal(np.signbit(a64[keep]), np.signbit(b64[keep]))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_large_gradient_streams_with_the_same_bits(views, restore_isa, dtype):
    """Once dy, x and dx together move 32 MiB or more, dx is written with
    non-temporal stores where the ISA has them; the values are those of
    every other level and of the plain stores (a strided dx is staged and
    keeps plain stores)."""
    bits = np.uint32 if dtype == "float32" else np.uint16
    threshold = -(-(32 << 20) // (3 * DTYPES[dtype].itemsize))  # elements for which the three reach 32 MiB
    n = threshold + 13  # just over the threshold, not a multiple of 16
    dy, x = backward_inputs((n,), DTYPES[dtype], seed=17)
    vdy, vx, results = views(dy), views(x), {}
    for name in aclnn_emu.available_isas():
        assert lib.aclnnEmuSetIsaCap(aclnn_emu.available_isas().index(name)) == 0
        vdx = views(np.zeros_like(x), "offset")  # dx starts off a 32-byte boundary
        results[name] = run_backward(vdy, vx, vdx).view(bits)
        assert vdx.guards_intact()
        assert ("streaming" in last_kernel()) == (name != "scalar"), last_kernel()
    vdx = views(np.zeros_like(x), "transposed")
    results["staged dx"] = run_backward(vdy, vx, vdx).view(bits)
    assert vdx.guards_intact() and "streaming" not in last_kernel()
    for name, got in results.items():
        np.testing.assert_array_equal(got, results["scalar"], err_msg=name)
    sample = slice(None, None, 101)
    assert_precision(results["scalar"].view(DTYPES[dtype])[sample], silu_backward_ref(dy[sample], x[sample]), dtype)
    below = threshold - 1
    run_backward(views(dy[:below]), views(x[:below]), views(np.zeros_like(x[:below])))
    assert "streaming" not in last_kernel()
    run_backward(views(dy[:threshold]), views(x[:threshold]), views(np.zeros_like(x[:threshold])))
    assert ("streaming" in last_kernel()) == (aclnn_emu.get_isa() != "scalar"), last_kernel()


def test_last_kernel_names_the_isa(views, restore_isa):
    x = np.linspace(-3, 3, 100, dtype=np.float32)
    detected = lib.aclnnEmuGetDetectedIsa()
    for level in range(detected + 1):
        name = kernel_level(ffi.string(lib.aclnnEmuIsaName(level)).decode())
        assert lib.aclnnEmuSetIsaCap(level) == 0
        assert lib.aclnnEmuGetIsa() == level
        run_backward(views(x), views(x), views(np.zeros_like(x)))
        kernel = last_kernel()
        assert name in kernel and "silu_grad" in kernel, kernel
        for other in ("scalar", "avx2", "avx512"):
            if other != name:
                assert other not in kernel, kernel
        for dt in (np.float16, BF16):
            xs = x.astype(dt)
            run_backward(views(xs), views(xs), views(np.zeros_like(xs)))
            assert name in last_kernel() and ("bf16" if dt == BF16 else "f16") in last_kernel()
        run_forward(views(x), views(np.zeros_like(x)))
        assert name in last_kernel() and "silu" in last_kernel()
    # a cap above the detected level means "the best available"
    assert lib.aclnnEmuSetIsaCap(lib.ACLNN_EMU_ISA_AVX512_BF16) == 0
    assert lib.aclnnEmuGetIsa() == detected
    assert lib.aclnnEmuSetIsaCap(lib.ACLNN_EMU_ISA_AVX512_BF16 + 1) == 100000
    assert "cap" in take_msg()
    assert ffi.string(lib.aclnnEmuIsaName(7)) == b"unknown"


def test_last_kernel_is_per_thread(views):
    import threading

    x = np.ones(8, np.float32)
    run_backward(views(x), views(x), views(np.zeros_like(x)))
    seen = {}
    t = threading.Thread(target=lambda: seen.setdefault("k", last_kernel()))
    t.start()
    t.join()
    assert seen["k"] == "" and last_kernel() != ""


# ------------------------------------------------------------- validation

def phase1_raw(dy, x, dx, ws=True, ex=True):
    wsp = ffi.new("uint64_t *", 4242) if ws else NULL
    exp = ffi.new("aclOpExecutor **") if ex else NULL
    rc = lib.aclnnSiluBackwardGetWorkspaceSize(dy, x, dx, wsp, exp)
    return rc, take_msg(), wsp, exp


class Trio:
    """gradOutput, self and gradInput views with guards, built from (shape, dtype code) triples."""

    def __init__(self, views, specs, layout="offset"):
        self.v = []
        for shape, code in specs:
            v = views(np.full(shape, 0.5, np.float32), layout, guard=-9.0, acl_dtype=code)
            self.v.append(v)

    @property
    def tensors(self):
        return [v.tensor for v in self.v]

    def untouched(self):
        return all(v.untouched() for v in self.v)


F32, F16, BF, F64, I32, C64 = 0, 1, 27, 11, 3, 16


def expect_fail(trio, code, *words, ws=True, ex=True, tensors=None):
    dy, x, dx = trio.tensors if tensors is None else tensors
    rc, msg, wsp, exp = phase1_raw(dy, x, dx, ws, ex)
    assert rc == code, (rc, msg)
    assert msg and "aclnnSiluBackwardGetWorkspaceSize" in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    if exp != NULL:
        assert exp[0] == NULL  # no executor handed out
    assert trio.untouched()  # nothing written anywhere, the output block included
    return msg


def test_null_out_pointers_come_first(views):
    trio = Trio(views, [((4,), F32)] * 3)
    expect_fail(trio, NULLPTR, "workspaceSize", ws=False)
    expect_fail(trio, NULLPTR, "executor", ex=False)
    # check 1 comes before check 2: with NULL tensors too, the out-pointers are named
    expect_fail(trio, NULLPTR, "workspaceSize", ws=False, ex=False, tensors=[NULL, NULL, NULL])
    expect_fail(trio, NULLPTR, "executor", ex=False, tensors=[NULL, NULL, NULL])


def test_null_tensors(views):
    trio = Trio(views, [((4,), F32)] * 3)
    dy, x, dx = trio.tensors
    expect_fail(trio, NULLPTR, "gradOutput", tensors=[NULL, x, dx])
    expect_fail(trio, NULLPTR, "self", tensors=[dy, NULL, dx])
    expect_fail(trio, NULLPTR, "gradInput", tensors=[dy, x, NULL])
    expect_fail(trio, NULLPTR, "gradOutput", tensors=[NULL, NULL, NULL])
    expect_fail(trio, NULLPTR, "self", tensors=[dy, NULL, NULL])
    # check 2 before check 3: a NULL wins over a bad dtype elsewhere
    bad = Trio(views, [((4,), F64)] * 3)
    expect_fail(bad, NULLPTR, "gradInput", tensors=[bad.tensors[0], bad.tensors[1], NULL])


UNSUPPORTED = [(F64, "ACL_DOUBLE"), (I32, "ACL_INT32"), (C64, "ACL_COMPLEX64"), (9, "ACL_INT64"), (12, "ACL_BOOL"),
               (2, "ACL_INT8"), (35, "ACL_FLOAT8_E5M2"), (33, "ACL_COMPLEX32")]


@pytest.mark.parametrize("code,name", UNSUPPORTED, ids=[n for _, n in UNSUPPORTED])
@pytest.mark.parametrize("position", [0, 1, 2], ids=["gradOutput", "self", "gradInput"])
def test_unsupported_dtype(views, code, name, position):
    specs = [((3, 4), F32)] * 3
    specs[position] = ((3, 4), code)
    trio = Trio(views, specs)
    expect_fail(trio, INVALID, ["gradOutput", "self", "gradInput"][position], name)


def test_all_tensors_unsupported_names_gradoutput(views):
    trio = Trio(views, [((3,), F64)] * 3)
    expect_fail(trio, INVALID, "gradOutput", "ACL_DOUBLE")


# CANN's CheckDtypeValid compares gradOutput with gradInput first, then self
# with gradInput, so the first mismatch names that tensor.
@pytest.mark.parametrize("codes,word", [
    ((F32, F16, F32), "self"),
    ((F16, F32, F32), "gradOutput"),
    ((F32, F32, F16), "gradOutput"),
    ((F16, F16, BF), "gradOutput"),
    ((BF, F16, F16), "gradOutput"),
    ((F32, F16, BF), "gradOutput"),
    ((BF, F16, BF), "self"),
])
def test_mixed_dtypes(views, codes, word):
    trio = Trio(views, [((2, 3), c) for c in codes])
    expect_fail(trio, INVALID, word)


def test_dtype_check_before_mixed_check(views):
    # gradOutput f32, self f16 (mixed) but gradInput double: check 3 reports the double first
    trio = Trio(views, [((5,), F32), ((5,), F16), ((5,), F64)])
    expect_fail(trio, INVALID, "gradInput", "ACL_DOUBLE")


def test_rank_9(views):
    r9 = (1, 2, 1, 2, 1, 2, 1, 1, 2)
    expect_fail(Trio(views, [(r9, F32)] * 3), INVALID, "gradOutput", "rank", "9")
    # only one of them rank 9 (the others rank 8): CANN checks the rank of the
    # two inputs before any shape, and gradInput only through the shape check
    r8 = (1, 2, 1, 2, 1, 2, 1, 2)
    for position, words in enumerate([("gradOutput", "rank"), ("self", "rank"), ("gradOutput", "shape")]):
        specs = [(r8, F32)] * 3
        specs[position] = (r9, F32)
        trio = Trio(views, specs)
        expect_fail(trio, INVALID, *words)


def test_rank_8_is_accepted(views):
    trio = Trio(views, [((1, 2, 1, 2, 1, 2, 1, 2), F32)] * 3)
    rc, msg, wsp, exp = phase1_raw(*trio.tensors)
    assert rc == 0, msg
    assert lib.aclnnSiluBackward(NULL, 0, exp[0], NULL) == 0


@pytest.mark.parametrize("shapes,word", [
    (((1, 16, 1, 1), (1, 1, 4, 4), (1, 16, 4, 4)), "gradOutput"),  # broadcastable: still rejected on A2
    (((1, 16, 4, 4), (1, 1, 4, 4), (1, 16, 4, 4)), "self"),
    (((4, 4), (4, 4), (16,)), "gradOutput"),
    (((2, 3), (2, 3), (3, 2)), "gradOutput"),
    (((2, 3), (3, 2), (2, 3)), "self"),
    (((2, 3), (2, 3), (2, 3, 1)), "gradOutput"),
    (((6,), (6,), (1, 6)), "gradOutput"),
    (((0, 3), (0, 3), (3, 0)), "gradOutput"),  # empty tensors are validated too
])
def test_shape_mismatch(views, shapes, word):
    trio = Trio(views, [(s, F32) for s in shapes])
    msg = expect_fail(trio, INVALID, word)
    assert "shape" in msg


def test_shape_mismatch_ut013(views):
    """CANN's UT 013: gradOutput {1,16,1,1}, self {1,1,4,4} -> 161002."""
    trio = Trio(views, [((1, 16, 1, 1), F32), ((1, 1, 4, 4), F32), ((1, 1, 4, 4), F32)])
    expect_fail(trio, INVALID, "gradOutput", "[1, 16, 1, 1]", "[1, 1, 4, 4]")


def test_bf16_on_ascend910(views, restore_soc):
    assert lib.aclnnEmuSetSocName(b"Ascend910") == 0
    assert ffi.string(lib.aclrtGetSocName()) == b"Ascend910"
    trio = Trio(views, [((3, 5), BF)] * 3)
    expect_fail(trio, INVALID, "ACL_BF16", "Ascend910")
    # check 4 (mixed) comes before check 5 (bf16 on 910)
    mixed = Trio(views, [((3, 5), BF), ((3, 5), BF), ((3, 5), F16)])
    msg = expect_fail(mixed, INVALID, "gradInput")
    assert "Ascend910" not in msg
    # check 5 comes before check 6 (rank)
    r9 = Trio(views, [((1,) * 9, BF)] * 3)
    expect_fail(r9, INVALID, "ACL_BF16")
    # fp16 and fp32 are fine on Ascend910
    for code, dt in ((F16, np.float16), (F32, np.float32)):
        ok = Trio(views, [((3, 5), code)] * 3)
        rc, msg, _, exp = phase1_raw(*ok.tensors)
        assert rc == 0, msg
        assert lib.aclDestroyAclOpExecutor(exp[0]) == 0
    # and bf16 is fine again on the A2/A3 products
    for soc in (b"Ascend910B", b"Ascend910_93"):
        assert lib.aclnnEmuSetSocName(soc) == 0
        dy, x = backward_inputs((3, 5), BF16)
        out = run_backward(views(dy), views(x), views(np.zeros_like(x)))
        assert_precision(out, silu_backward_ref(dy, x), "bfloat16")


def test_ascend950_rules(views, restore_soc):
    """cann_facts "Decisions" and 3e step 4/7: on Ascend 950 (regbase),
    broadcast(gradOutput, self) == gradInput is accepted, and gradOutput and
    self may differ in dtype when gradInput is FP32."""
    assert lib.aclnnEmuSetSocName(b"Ascend950") == 0
    rng = np.random.default_rng(950)
    dy = rng.uniform(0.5, 2, (1, 16, 1, 1)).astype(np.float32)
    x = rng.uniform(-4, 4, (1, 1, 4, 4)).astype(np.float32)
    vdx = views(np.zeros((1, 16, 4, 4), np.float32))
    out = run_backward(views(dy), views(x), vdx)
    assert_precision(out, silu_backward_ref(np.broadcast_to(dy, out.shape), np.broadcast_to(x, out.shape)),
                     "float32")
    assert vdx.guards_intact()

    dy16, xbf = backward_inputs((4, 6), np.float16)[0], backward_inputs((4, 6), BF16, seed=1)[1]
    out = run_backward(views(dy16), views(xbf), views(np.zeros((4, 6), np.float32)))
    assert_precision(out, silu_backward_ref(dy16, xbf), "float32")
    # ... but not into a non-FP32 gradInput
    trio = Trio(views, [((4, 6), F16), ((4, 6), BF), ((4, 6), F16)])
    expect_fail(trio, INVALID)


def test_formats_are_not_checked(views):
    """CANN's UT 011/012: mixed ND / NCHW / NC1HWC0 formats pass phase 1."""
    dy, x = backward_inputs((2, 3, 4, 5), np.float32)
    out = views(np.zeros_like(x))
    vdy, vx = views(dy), views(x)
    blocks = (vdy, vx, out)
    ts = [make_tensor(v.shape, 0, v.strides, v.offset, [v.base.size], v.block.ptr, fmt)
          for v, fmt in zip(blocks, (lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_NC1HWC0, lib.ACL_FORMAT_NHWC))]
    try:
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        assert lib.aclnnSiluBackwardGetWorkspaceSize(ts[0], ts[1], ts[2], ws, ex) == 0, take_msg()
        assert lib.aclnnSiluBackward(NULL, 0, ex[0], NULL) == 0
        assert_precision(out.values(), silu_backward_ref(dy, x), "float32")
    finally:
        for t in ts:
            lib.aclDestroyTensor(t)


def test_silu_forward_validation(views):
    x = views(np.ones((2, 3), np.float32))
    y = views(np.zeros((2, 3), np.float32))
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    cases = [
        ((x.tensor, y.tensor, NULL, ex), NULLPTR, "workspaceSize"),
        ((x.tensor, y.tensor, ws, NULL), NULLPTR, "executor"),
        ((NULL, y.tensor, ws, ex), NULLPTR, "self"),
        ((x.tensor, NULL, ws, ex), NULLPTR, "out"),
    ]
    for args, code, word in cases:
        assert lib.aclnnSiluGetWorkspaceSize(*args) == code
        msg = take_msg()
        assert "aclnnSiluGetWorkspaceSize" in msg and word in msg, msg
    bad = views(np.zeros((2, 3), np.float32), acl_dtype=F64)
    assert lib.aclnnSiluGetWorkspaceSize(bad.tensor, y.tensor, ws, ex) == INVALID
    assert "ACL_DOUBLE" in take_msg()
    half = views(np.zeros((2, 3), np.float16))
    assert lib.aclnnSiluGetWorkspaceSize(x.tensor, half.tensor, ws, ex) == INVALID
    assert "out" in take_msg()
    other = views(np.zeros((3, 2), np.float32))
    assert lib.aclnnSiluGetWorkspaceSize(x.tensor, other.tensor, ws, ex) == INVALID
    assert "shape" in take_msg()
    r9 = views(np.zeros((1,) * 9, np.float32))
    assert lib.aclnnSiluGetWorkspaceSize(r9.tensor, r9.tensor, ws, ex) == INVALID
    assert "rank" in take_msg()
    assert y.untouched()


def test_valid_calls_never_write_outside_the_output(views):
    """Every layout of the output, each dtype: the block outside the view is intact."""
    for dt in DTYPES.values():
        for layout in ("contig", "offset", "transposed"):
            dy, x = backward_inputs((9, 7), dt, seed=1)
            vdx = views(np.zeros_like(x), layout, guard=1234.0)
            run_backward(views(dy), views(x), vdx)
            assert vdx.guards_intact()


def test_view_past_the_end_of_its_device_block_is_rejected():
    """cann_facts "Decisions": tensor data outside device memory from
    aclrtMalloc (here: a gradInput view running past the end of its block)
    is a clear 161002 naming the tensor, from phase 1 or phase 2, instead of
    silent corruption. The block is 100 bytes; the view needs 112 (the
    allocator's rounding keeps the test itself from corrupting the heap)."""
    n = 28
    blocks = []
    ts = []
    try:
        for nbytes in (n * 4, n * 4, 100):
            p = ffi.new("void **")
            assert lib.aclrtMalloc(p, nbytes, 0) == 0
            blocks.append(p[0])
        host = np.ones(n, np.float32)
        for b in blocks[:2]:
            assert lib.aclrtMemcpy(b, n * 4, ffi.from_buffer(host), n * 4, 1) == 0
        ts = [make_tensor((n,), 0, None, 0, (n,), b) for b in blocks]
        rc, msg, wsp, exp = phase1_raw(*ts)
        if rc == 0:
            rc = lib.aclnnSiluBackward(NULL, 0, exp[0], NULL)
            msg = take_msg()
        assert rc == INVALID, (rc, msg)
        assert msg and "gradInput" in msg, msg
    finally:
        for t in ts:
            lib.aclDestroyTensor(t)
        for b in blocks:
            lib.aclrtFree(b)
