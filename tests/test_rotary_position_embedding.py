"""aclnnRotaryPositionEmbeddingGrad and aclnnRotaryPositionEmbedding.

Every mode x layout x broadcast form x dtype against float64 references
written from the seed's formulas (below, independent of the kernels): exact
on small-integer data (every fp32 intermediate is exact, so the result must
be the correctly rounded exact value), and CANN's precision standard on real
data. Then forward -> backward against a numerical gradient, every
validation rule with its code and the argument its message names, product
rules, non-contiguous inputs, empty tensors, D at its limits, thread counts,
ISA levels, and the Python rotary_mul functions (torch_npu's RotaryMulGrad
route)."""

import zlib

import aclnn_emu
import numpy as np
import pytest
from aclnn_emu import AclnnError, ffi, lib
from helpers import BF16, Block, DevView, expect, kernel_level, last_kernel, make_tensor, take_msg
from reference import assert_precision

NULL = ffi.NULL
NULLPTR, INVALID, TILING, NO_KERNEL = 161001, 161002, 561002, 561003
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
MODES = {0: "half", 1: "interleave", 2: "quarter", 3: "interleave-half"}

# ------------------------------------------------------------ references


def _pairs(a, mode):
    """(first, second) elements of each rotation pair along the last axis, per the seed's chunking."""
    d = a.shape[-1]
    if mode == 1:
        return a[..., 0::2], a[..., 1::2]
    if mode == 2:
        q = d // 4
        return np.concatenate([a[..., :q], a[..., 2 * q:3 * q]], -1), np.concatenate(
            [a[..., q:2 * q], a[..., 3 * q:]], -1)
    return a[..., :d // 2], a[..., d // 2:]


def _unpairs(first, second, mode):
    """Inverse of _pairs for modes 0-2."""
    if mode == 1:
        return np.stack([first, second], -1).reshape(first.shape[:-1] + (2 * first.shape[-1],))
    if mode == 2:
        q = first.shape[-1] // 2
        return np.concatenate([first[..., :q], second[..., :q], first[..., q:], second[..., q:]], -1)
    return np.concatenate([first, second], -1)


def _f64(a):
    return np.asarray(a).astype(np.float64)


def rope_forward_ref(x, cos, sin, mode):
    """y = x*cos + rotate(x)*sin (aclnnRotaryPositionEmbedding doc), float64."""
    x, cos, sin = _f64(x), _f64(cos), _f64(sin)
    if mode == 3:
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return np.concatenate([x1, x2], -1) * cos + np.concatenate([-x2, x1], -1) * sin
    x1, x2 = _pairs(x, mode)
    return x * cos + _unpairs(-x2, x1, mode) * sin


def _reduce_to(a, shape):
    """Sum over the axes where ``shape`` has 1 and ``a`` does not (the broadcast dims), keeping them."""
    axes = tuple(i for i, (n, m) in enumerate(zip(a.shape, shape)) if m == 1 and n != 1)
    return a.sum(axis=axes, keepdims=True) if axes else a


def rope_grad_ref(dy, cos, sin, x, mode):
    """(dx, dcos, dsin) from the seed's formulas, float64; dcos/dsin None without x."""
    dy, cosb, sinb = _f64(dy), *np.broadcast_arrays(_f64(cos), _f64(sin))
    cosb, sinb = np.broadcast_to(cosb, dy.shape), np.broadcast_to(sinb, dy.shape)
    if mode == 3:
        dy1, dy2 = _pairs(dy, 0)
        c1, c2 = _pairs(cosb, 0)
        s1, s2 = _pairs(sinb, 0)
        dx = _unpairs(c1 * dy1 + s2 * dy2, c2 * dy2 - s1 * dy1, 1)
    else:
        dy1, dy2 = _pairs(dy, mode)
        c1, c2 = _pairs(cosb, mode)
        s1, s2 = _pairs(sinb, mode)
        dx = _unpairs(c1 * dy1 + s2 * dy2, c2 * dy2 - s1 * dy1, mode)
    if x is None:
        return dx, None, None
    x = _f64(x)
    if mode == 3:
        x1, x2 = x[..., 0::2], x[..., 1::2]
        xc, xr = np.concatenate([x1, x2], -1), np.concatenate([-x2, x1], -1)
    else:
        x1, x2 = _pairs(x, mode)
        xc, xr = x, _unpairs(-x2, x1, mode)
    return dx, _reduce_to(dy * xc, np.shape(cos)), _reduce_to(dy * xr, np.shape(sin))


# ------------------------------------------------------------ shapes

B, S, N, T = 2, 3, 4, 5
# (form, dy leading shape, cos leading shape); D is appended.
HALF_FORMS = [
    ("BNSD/11SD", (B, N, S), (1, 1, S)),
    ("BNSD/B1SD", (B, N, S), (B, 1, S)),
    ("BNSD/BNSD", (B, N, S), (B, N, S)),
    ("BSND/1S1D", (B, S, N), (1, S, 1)),
    ("BSND/BS1D", (B, S, N), (B, S, 1)),
    ("BSND/BSND", (B, S, N), (B, S, N)),
    ("SBND/S11D", (S, B, N), (S, 1, 1)),
    ("SBND/SB1D", (S, B, N), (S, B, 1)),
    ("SBND/SBND", (S, B, N), (S, B, N)),
    ("TND/T1D", (T, N), (T, 1)),
    ("TND/TND", (T, N), (T, N)),
]
INTERLEAVE_FORMS = [f for f in HALF_FORMS if f[0] in ("BNSD/11SD", "BSND/1S1D", "SBND/S11D", "TND/T1D")]


def cases():
    """(soc, mode, form): each mode with every form its products document."""
    out = [("Ascend910B", 0, f) for f in HALF_FORMS] + [("Ascend910B", 1, f) for f in INTERLEAVE_FORMS]
    out += [("Ascend950", m, f) for m in range(4) for f in HALF_FORMS]
    return out


CASE_IDS = ["%s-%s-%s" % (soc, MODES[m], f[0]) for soc, m, f in cases()]


@pytest.fixture(autouse=True)
def clean_state():
    take_msg()
    previous = aclnn_emu.soc_name()
    yield
    if aclnn_emu.soc_name() != previous:
        aclnn_emu.set_soc_name(previous)
    take_msg()


def int_data(shape, rng, lo=-8, hi=8):
    return rng.integers(lo, hi + 1, shape).astype(np.float64)


def signed_sin(shape, mode, rng):
    """sin in +-[0.5, 1] with the first element of every pair negative: with dy, x, cos > 0
    no output is a difference of nearly equal terms, so relative errors stay meaningful."""
    sin = rng.uniform(0.5, 1.0, shape)
    d = shape[-1]
    first = np.zeros(d, bool)
    if mode == 1:
        first[0::2] = True
    elif mode == 2:
        q = d // 4
        first[:q] = first[2 * q:3 * q] = True
    else:
        first[:d // 2] = True
    sin[..., first] *= -1
    return sin


def assert_exact(actual, golden64, dtype):
    want = golden64.astype(np.float32).astype(dtype)  # golden is exactly representable in fp32
    assert actual.dtype == dtype and actual.shape == want.shape
    bad = np.argwhere(actual.astype(np.float64) != want.astype(np.float64))
    assert bad.size == 0, "first mismatches at %s: got %s want %s" % (
        bad[:3].tolist(), [actual[tuple(i)] for i in bad[:3]], [want[tuple(i)] for i in bad[:3]])


# -------------------------------------------------------- exact results


@pytest.mark.parametrize("with_x", [True, False], ids=["x", "no-x"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("soc,mode,form", cases(), ids=CASE_IDS)
def test_grad_exact(soc, mode, form, dtype, with_x):
    aclnn_emu.set_soc_name(soc)
    _, lead, cos_lead = form
    d = 16
    rng = np.random.default_rng(zlib.crc32(("%s%d%s%s" % (soc, mode, form[0], dtype)).encode()))
    dt = DTYPES[dtype]
    dy, x = int_data(lead + (d,), rng).astype(dt), int_data(lead + (d,), rng).astype(dt)
    cos, sin = int_data(cos_lead + (d,), rng).astype(dt), int_data(cos_lead + (d,), rng).astype(dt)
    dx, dcos, dsin = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x if with_x else None, mode)
    rdx, rdcos, rdsin = rope_grad_ref(dy, cos, sin, x if with_x else None, mode)
    assert_exact(dx, rdx, dt)
    if with_x:
        assert_exact(dcos, rdcos, dt)
        assert_exact(dsin, rdsin, dt)
    else:
        assert dcos is None and dsin is None
    assert MODES[mode].replace("-", "_") + "_grad" in last_kernel()


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("soc,mode,form", cases(), ids=CASE_IDS)
def test_forward_exact(soc, mode, form, dtype):
    aclnn_emu.set_soc_name(soc)
    _, lead, cos_lead = form
    rng = np.random.default_rng(7)
    dt = DTYPES[dtype]
    x = int_data(lead + (8,), rng).astype(dt)
    cos, sin = int_data(cos_lead + (8,), rng).astype(dt), int_data(cos_lead + (8,), rng).astype(dt)
    assert_exact(aclnn_emu.rotary_position_embedding(x, cos, sin, mode), rope_forward_ref(x, cos, sin, mode), dt)


# ------------------------------------------------------ real-valued data


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("soc,mode,form", cases(), ids=CASE_IDS)
def test_grad_precision(soc, mode, form, dtype):
    aclnn_emu.set_soc_name(soc)
    _, lead, cos_lead = form
    d = 24 if mode == 2 else 18  # lengths that leave SIMD tails
    rng = np.random.default_rng(11)
    dt = DTYPES[dtype]
    dy = rng.uniform(0.25, 2, lead + (d,)).astype(dt)
    x = rng.uniform(0.25, 2, lead + (d,)).astype(dt)
    cos = rng.uniform(0.5, 1, cos_lead + (d,)).astype(dt)
    sin = signed_sin(cos_lead + (d,), 0 if mode == 3 else mode, rng).astype(dt)
    dx, dcos, dsin = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
    rdx, rdcos, rdsin = rope_grad_ref(dy, cos, sin, x, mode)
    assert_precision(dx, rdx, dtype)
    assert_precision(dcos, rdcos, dtype)
    assert_precision(dsin, rdsin, dtype)
    # the same signs keep every forward output a sum of like-signed terms too
    assert_precision(aclnn_emu.rotary_position_embedding(x, cos, sin, mode), rope_forward_ref(x, cos, sin, mode),
                     dtype)


def at_scalar_level(dy, cos, sin, x, mode):
    """The reference every SIMD level must match bit for bit: the gradient with x, dx without x and the
    forward of x, at the scalar level."""
    previous = aclnn_emu.get_isa()
    aclnn_emu.set_isa_cap("scalar")
    try:
        return (aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode),
                aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, None, mode)[0],
                aclnn_emu.rotary_position_embedding(x, cos, sin, mode))
    finally:
        aclnn_emu.set_isa_cap(previous)


@pytest.mark.parametrize("mode", range(3))
def test_bf16_denormals_bit_identical_to_scalar(isa, mode):
    """bf16 rows whose results are fp32 denormals keep them, rounded as convert.h rounds any number:
    the avx512_bf16 level's conversion instruction would flush them to zero, so vectors holding one
    take the integer rounding (backward with and without x, and forward)."""
    aclnn_emu.set_soc_name("Ascend950")
    rng = np.random.default_rng(mode)
    lead, d = (2, 3, 4), 72  # two-vector steps, single vectors and a tail at every level

    def tiny(shape):  # bf16 denormals (exponent 0), both signs, and a few normal values among them
        bits = (rng.integers(1, 0x80, shape) | (rng.integers(0, 2, shape) << 15)).astype(np.uint16)
        bits.flat[::11] = 0x3F80
        return bits.view(BF16)

    dy, x = tiny(lead + (d,)), tiny(lead + (d,))
    cos = rng.uniform(0.5, 1, (1, 3, 1, d)).astype(BF16)
    sin = rng.uniform(0.5, 1, (1, 3, 1, d)).astype(BF16)
    got = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
    got_dx = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, None, mode)[0]
    got_y = aclnn_emu.rotary_position_embedding(x, cos, sin, mode)
    assert np.count_nonzero(got_dx.view(np.uint16) & 0x7F80 == 0) > got_dx.size // 2  # mostly denormal results
    want, want_dx, want_y = at_scalar_level(dy, cos, sin, x, mode)
    for a, b in zip(got + (got_dx, got_y), want + (want_dx, want_y)):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("mode", range(4))
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("d", [4, 8, 20, 36, 48, 72, 136])
def test_every_isa_matches_reference_and_scalar(isa, mode, dtype, d):
    """Each ISA level: CANN's standard against float64 and bit-identical to the scalar kernels."""
    aclnn_emu.set_soc_name("Ascend950")
    rng = np.random.default_rng(d)
    dt = DTYPES[dtype]
    lead, cos_lead = (2, 3, 4), (1, 3, 1)
    dy = rng.uniform(0.25, 2, lead + (d,)).astype(dt)
    x = rng.uniform(0.25, 2, lead + (d,)).astype(dt)
    cos = rng.uniform(0.5, 1, cos_lead + (d,)).astype(dt)
    sin = signed_sin(cos_lead + (d,), 0 if mode == 3 else mode, rng).astype(dt)
    got = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
    assert kernel_level(isa) in last_kernel()
    # SIMD levels convert fp16/bf16 inside the kernels (modes 0-2), the scalar level around them;
    # with x they read cos/sin in the rows' type too ("cos16"), without x widened to fp32
    fused = isa != "scalar" and dtype != "float32" and mode != 3
    assert last_kernel().startswith({"float16": "f16_", "bfloat16": "bf16_"}.get(dtype, "f32_") if fused else "f32_")
    assert ("_grad_cos16__" in last_kernel()) == fused
    for a, g in zip(got, rope_grad_ref(dy, cos, sin, x, mode)):
        assert_precision(a, g, dtype)
    dx_only = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, None, mode)[0]
    assert "cos16" not in last_kernel()
    assert_precision(dx_only, rope_grad_ref(dy, cos, sin, None, mode)[0], dtype)
    y = aclnn_emu.rotary_position_embedding(x, cos, sin, mode)
    want, want_dx_only, want_y = at_scalar_level(dy, cos, sin, x, mode)
    for a, b in zip(got + (dx_only, y), want + (want_dx_only, want_y)):
        assert a.tobytes() == b.tobytes()


# Bits of special values: (payload NaN, negative payload NaN, +inf, -inf, largest finite).
SPECIAL_BITS = {"float16": (0x7C01, 0xFD55, 0x7C00, 0xFC00, 0x7BFF),
                "bfloat16": (0x7F81, 0xFFA5, 0x7F80, 0xFF80, 0x7F7F)}


# Per d and mode: (pair partner's column offset, a column in the scalar tail). d = 52 gives AVX2
# every step (half: 26 pairs = 16 + 8 + 2); d = 104 gives AVX-512 its two-vector step in half
# mode (52 = 32 + 16 + 4) and quarter (26 = 16 + 10).
SPECIAL_LAYOUT = {52: {0: (26, 24), 1: (1, 48), 2: (13, 12)}, 104: {0: (52, 48), 1: (1, 96), 2: (26, 24)}}


@pytest.mark.parametrize("mode", range(3))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("d", sorted(SPECIAL_LAYOUT))
def test_special_values_bit_identical_to_scalar(isa, mode, dtype, d):
    """NaNs (quieted, payload and sign kept or flipped as C's unary minus does), infinities,
    inf - inf and overflow through the fused fp16/bf16 kernels of each ISA level (bf16: two
    vectors rounded and packed per store) and their scalar tails give the scalar level's
    bits, backward and forward. Each special sits in its own row and column, and its pair
    partner is ordinary except where inf - inf or an overflow is wanted, so no output mixes
    two NaN payloads (whose precedence x86 leaves to the instruction form)."""
    aclnn_emu.set_soc_name("Ascend950")
    rng = np.random.default_rng(3)
    dt = DTYPES[dtype]
    partner, tail = SPECIAL_LAYOUT[d][mode]
    lead, cos_lead = (2, 3, 4), (1, 3, 1)
    dy = rng.uniform(0.25, 2, lead + (d,)).astype(dt)
    x = rng.uniform(0.25, 2, lead + (d,)).astype(dt)
    cos = rng.uniform(0.5, 1, cos_lead + (d,)).astype(dt)
    sin = rng.uniform(0.5, 1, cos_lead + (d,)).astype(dt)
    bits = dy.view(np.uint16)
    nan, neg_nan, inf, neg_inf, big = SPECIAL_BITS[dtype]
    # (row in the flattened lead, column, bits, partner's bits or None)
    specials = [(0, 0, nan, None), (5, 2, neg_nan, None), (10, 4, inf, None), (15, 6, neg_inf, neg_inf),
                (20, 8, big, big), (23, 10, big, None), (7, tail, nan, None)]
    for row, col, value, other in specials:
        b, s, n = np.unravel_index(row, lead)
        bits[b, s, n, col] = value
        if other is not None:
            bits[b, s, n, col + partner] = other
    got = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, None, mode)[0]
    got_x = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
    got_y = aclnn_emu.rotary_position_embedding(dy, cos, sin, mode)  # the forward on the same specials
    previous = aclnn_emu.get_isa()
    aclnn_emu.set_isa_cap("scalar")
    try:
        want = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, None, mode)[0]
        want_x = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
        want_y = aclnn_emu.rotary_position_embedding(dy, cos, sin, mode)
    finally:
        aclnn_emu.set_isa_cap(previous)
    for a, b in zip((got, got_y) + got_x, (want, want_y) + want_x):
        assert a.tobytes() == b.tobytes()
    # Independently of the scalar level: the payload NaNs come out quieted with their payload,
    # their partners as NaNs of the other sign (dx[b] takes -sin[a]*dy[a]), inf - inf gives a
    # NaN, ordinary rows stay finite.
    out = got.view(np.uint16).reshape(-1, d)
    quiet = 0x0200 if dtype == "float16" else 0x0040
    assert out[0, 0] == nan | quiet and out[0, partner] == (nan | quiet) ^ 0x8000
    assert out[5, 2] == neg_nan | quiet and out[5, 2 + partner] == (neg_nan | quiet) ^ 0x8000
    assert out[7, tail] == nan | quiet and out[7, tail + partner] == (nan | quiet) ^ 0x8000
    assert np.isnan(got.reshape(-1, d)[15].astype(np.float32)).any()
    ordinary = np.delete(got.reshape(-1, d).astype(np.float32), [r for r, *_ in specials], 0)
    assert np.isfinite(ordinary).all()


# ------------------------------------------ forward -> backward consistency


@pytest.mark.parametrize("soc,mode,form", [
    ("Ascend910B", 0, HALF_FORMS[3]), ("Ascend910B", 1, HALF_FORMS[0]), ("Ascend950", 2, HALF_FORMS[7]),
    ("Ascend950", 3, HALF_FORMS[9]), ("Ascend950", 1, HALF_FORMS[1])], ids=lambda v: str(v))
def test_backward_matches_numerical_gradient(soc, mode, form):
    """L = sum(w * forward(x, cos, sin)) is linear in each argument, so central differences
    along random directions give the directional derivatives up to fp32 rounding."""
    aclnn_emu.set_soc_name(soc)
    _, lead, cos_lead = form
    rng = np.random.default_rng(5)
    d = 8
    x = rng.standard_normal(lead + (d,)).astype(np.float32)
    cos = rng.standard_normal(cos_lead + (d,)).astype(np.float32)
    sin = rng.standard_normal(cos_lead + (d,)).astype(np.float32)
    w = rng.standard_normal(lead + (d,)).astype(np.float32)

    def loss(x_, c_, s_):
        return float(np.sum(w.astype(np.float64) * aclnn_emu.rotary_position_embedding(x_, c_, s_, mode)))

    dx, dcos, dsin = aclnn_emu.rotary_position_embedding_grad(w, cos, sin, x, mode)
    h = 0.5
    for _ in range(6):
        for which, grad in ((0, dx), (1, dcos), (2, dsin)):
            args = [x, cos, sin]
            v = rng.standard_normal(args[which].shape).astype(np.float32)
            plus, minus = list(args), list(args)
            plus[which] = (args[which] + h * v).astype(np.float32)
            minus[which] = (args[which] - h * v).astype(np.float32)
            numeric = (loss(*plus) - loss(*minus)) / (2 * h)
            analytic = float(np.sum(grad.astype(np.float64) * v))
            assert numeric == pytest.approx(analytic, rel=1e-4, abs=1e-3), (which, numeric, analytic)


# ------------------------------------------------ determinism and threads


@pytest.mark.parametrize("with_x", [True, False])
@pytest.mark.parametrize("mode,lead,cos_lead", [
    (0, (2, 1024, 5), (1, 1024, 1)), (0, (1024, 2, 5), (1024, 1, 1)), (0, (2, 5, 1024), (1, 1, 1024)),
    (1, (3, 1024, 4), (1, 1024, 1)), (0, (2, 3, 2048), (1, 1, 1))])
def test_threads_bit_identical(mode, lead, cos_lead, with_x):
    """Shapes of 1-4 MiB: several parallel chunks (2^18 elements each), except with x on the
    last, whose single cos row is one chunk."""
    aclnn_emu.set_soc_name("Ascend950")
    rng = np.random.default_rng(3)
    d = 128
    dy = rng.standard_normal(lead + (d,)).astype(np.float32)
    x = rng.standard_normal(lead + (d,)).astype(np.float32)
    cos = rng.standard_normal(cos_lead + (d,)).astype(np.float32)
    sin = rng.standard_normal(cos_lead + (d,)).astype(np.float32)
    previous = aclnn_emu.get_num_threads()
    results = []
    try:
        for threads in (1, 2, 3):
            aclnn_emu.set_num_threads(threads)
            for _ in range(2):
                out = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x if with_x else None, mode)
                results.append(b"".join(a.tobytes() for a in out if a is not None))
    finally:
        aclnn_emu.set_num_threads(previous)
    assert all(r == results[0] for r in results)
    ref = rope_grad_ref(dy, cos, sin, x if with_x else None, mode)
    got = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x if with_x else None, mode)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-6, atol=1e-6)
    if with_x:
        # fp32 recursive summation of n terms: |error| <= n u sum|term| (u = 2^-24)
        n = dy.size // cos.size
        bound = n * 2.0**-24 * _reduce_to(np.abs(_f64(dy)), cos.shape) * np.abs(x).max() + 1e-12
        for a, g in zip(got[1:], ref[1:]):
            assert np.all(np.abs(a - g) <= bound)


@pytest.mark.parametrize("mode,dtype,d,with_x", [(0, "float32", 130, True), (1, "float16", 128, False),
                                                  (0, "bfloat16", 64, True)])
def test_streamed_output_bit_identical(mode, dtype, d, with_x):
    """A call that streams 32 MiB or more writes dx (and dcos/dsin) with non-temporal stores (SIMD
    levels): dx from the kernel itself where every run of pairs starts on a 64-byte boundary
    ("+nt"), else through an L1 buffer and a copy ("+stream"; d = 130 makes every copy start and
    end off a 32-byte boundary). The bytes must equal the scalar level's plain stores, for 1 and
    2 threads, and match the reference."""
    aclnn_emu.set_soc_name("Ascend950")
    dt = DTYPES[dtype]
    rows = -(-(32 << 20) // (d * dt.itemsize))
    lead = (2, rows // 8 + 1, 4)
    rng = np.random.default_rng(d)
    dy = rng.uniform(-2, 2, lead + (d,)).astype(dt)
    x = rng.uniform(-2, 2, lead + (d,)).astype(dt) if with_x else None
    cos = rng.uniform(-1, 1, (1, lead[1], 1, d)).astype(dt)
    sin = rng.uniform(-1, 1, (1, lead[1], 1, d)).astype(dt)
    assert dy.nbytes >= 32 << 20
    previous_isa, previous_threads = aclnn_emu.get_isa(), aclnn_emu.get_num_threads()
    results = []
    try:
        for isa, threads in ((previous_isa, 1), (previous_isa, 2), ("scalar", 2)):
            aclnn_emu.set_isa_cap(isa)
            aclnn_emu.set_num_threads(threads)
            out = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
            run = {0: d // 2, 1: d, 2: d // 4}[mode] * dt.itemsize
            direct = out[0].ctypes.data % 64 == 0 and run % 64 == 0
            assert last_kernel().endswith("+nt" if direct else "+stream") == (isa != "scalar")
            results.append(b"".join(a.tobytes() for a in out if a is not None))
    finally:
        aclnn_emu.set_isa_cap(previous_isa)
        aclnn_emu.set_num_threads(previous_threads)
    assert results[0] == results[1] == results[2]
    tail = slice(lead[1] - 3, lead[1])  # the last rows: written by the last copies of the last chunk
    ref = rope_grad_ref(dy[:, tail], cos[:, tail], sin[:, tail], None if x is None else x[:, tail], mode)
    assert_precision(out[0][:, tail], ref[0], dtype)


@pytest.mark.parametrize("with_x,rows,streams", [
    (True, (32 << 20) // 3 // 256 + 8, True),    # dy, x and dx: 32 MiB in all
    (False, (32 << 20) // 3 // 256 + 8, False),  # dy and dx only: 21 MiB
    (False, (32 << 20) // 2 // 256 + 8, True),   # dy and dx: 32 MiB
])
def test_stream_when_the_call_moves_32_mib(with_x, rows, streams):
    """The output streams once dy, dx and x (when given) together reach 32 MiB, twice the
    last-level cache the rule was measured on (no output of such a call is still cached for the
    next operator), and only at SIMD levels; the bytes do not depend on it."""
    aclnn_emu.set_soc_name("Ascend950")
    rng = np.random.default_rng(rows)
    lead = (rows // 8, 8)  # TND rows of d = 128 fp16 (256 bytes)
    dy = rng.uniform(-2, 2, lead + (128,)).astype(np.float16)
    x = rng.uniform(-2, 2, lead + (128,)).astype(np.float16) if with_x else None
    cos = rng.uniform(-1, 1, (lead[0], 1, 128)).astype(np.float16)
    sin = rng.uniform(-1, 1, (lead[0], 1, 128)).astype(np.float16)
    got = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, 0)
    simd = aclnn_emu.get_isa() != "scalar"
    assert last_kernel().endswith(("+stream", "+nt")) == (streams and simd)
    previous = aclnn_emu.get_isa()
    aclnn_emu.set_isa_cap("scalar")
    try:
        want = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, 0)
    finally:
        aclnn_emu.set_isa_cap(previous)
    for a, b in zip(got, want):
        assert (a is None and b is None) or a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype,mode,with_x", [("float16", 0, True), ("float32", 1, False), ("bfloat16", 2, True)])
def test_streamed_dx_direct_or_copied_same_bits_nothing_else_written(isa, views, dtype, mode, with_x):
    """Through the C API on device memory: a streamed dx at the start of its aclrtMalloc block is
    stored by the kernel itself ("+nt"); one at an odd offset in its block goes through an L1
    buffer and a copy ("+stream"). Both give the scalar level's bits and leave every byte around
    dx, dcos and dsin as it was."""
    aclnn_emu.set_soc_name("Ascend950")
    dt = DTYPES[dtype]
    d = 128
    seq = -(-(32 << 20) // ((3 if with_x else 2) * 8 * d * dt.itemsize))  # the call moves 32 MiB
    rng = np.random.default_rng(mode)
    dy = rng.uniform(-2, 2, (2, seq, 4, d)).astype(dt)
    x = rng.uniform(-2, 2, (2, seq, 4, d)).astype(dt)
    cos = rng.uniform(-1, 1, (1, seq, 1, d)).astype(dt)
    sin = rng.uniform(-1, 1, (1, seq, 1, d)).astype(dt)
    previous = aclnn_emu.get_isa()
    aclnn_emu.set_isa_cap("scalar")
    try:
        want = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x if with_x else None, mode)
    finally:
        aclnn_emu.set_isa_cap(previous)
    simd = isa != "scalar"
    inputs = [views(a) for a in (dy, cos, sin, x)]
    for layout, route in (("contig", "+nt"), ("offset", "+stream")):
        vdx, vdcos, vdsin = (views(np.zeros_like(a), layout) for a in (dy, cos, sin))
        run_grad(*inputs[:3], inputs[3] if with_x else None, mode, vdx, vdcos, vdsin)
        assert last_kernel().endswith(route) == simd
        assert vdx.values().tobytes() == want[0].tobytes()
        assert vdx.guards_intact()
        if with_x:
            assert vdcos.values().tobytes() == want[1].tobytes() and vdcos.guards_intact()
            assert vdsin.values().tobytes() == want[2].tobytes() and vdsin.guards_intact()
        else:
            assert vdcos.untouched() and vdsin.untouched()


# ------------------------------------------------------- D at the limits


@pytest.mark.parametrize("soc,mode,d", [
    ("Ascend910B", 0, 2), ("Ascend910B", 1, 2), ("Ascend950", 2, 4), ("Ascend950", 3, 2),
    ("Ascend910B", 0, 896), ("Ascend910B", 1, 896), ("Ascend910_93", 0, 896),
    ("Ascend950", 0, 1024), ("Ascend950", 1, 1024), ("Ascend950", 2, 1024), ("Ascend950", 3, 1024)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_d_limits(soc, mode, d, dtype):
    aclnn_emu.set_soc_name(soc)
    rng = np.random.default_rng(d)
    dt = DTYPES[dtype]
    lead, cos_lead = (2, 3, 2), (1, 3, 1)
    dy, x = int_data(lead + (d,), rng).astype(dt), int_data(lead + (d,), rng).astype(dt)
    cos, sin = int_data(cos_lead + (d,), rng).astype(dt), int_data(cos_lead + (d,), rng).astype(dt)
    got = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
    for a, g in zip(got, rope_grad_ref(dy, cos, sin, x, mode)):
        assert_exact(a, g, dt)
    assert_exact(aclnn_emu.rotary_position_embedding(x, cos, sin, mode), rope_forward_ref(x, cos, sin, mode), dt)


@pytest.mark.parametrize("soc,d", [("Ascend910B", 898), ("Ascend910_93", 898), ("Ascend950", 1026)])
def test_d_above_limit(soc, d):
    aclnn_emu.set_soc_name(soc)
    a = np.zeros((1, 2, 1, d), np.float32)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.rotary_position_embedding_grad(a, a, a, a, 0)
    assert e.value.code == TILING and "dy" in e.value.message and str(d) in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.rotary_position_embedding(a, a, a, 0)
    assert e.value.code == TILING and "x has shape" in e.value.message


# ----------------------------------------------- raw C API: device views


def _run(api, ws_fn, run_fn, *args):
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = ws_fn(*args, ws, ex)
    assert rc == 0, take_msg()
    work = NULL
    if ws[0]:
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, ws[0], 0) == 0
        work = p[0]
    try:
        assert run_fn(work, ws[0], ex[0], NULL) == 0, take_msg()
    finally:
        if work != NULL:
            lib.aclrtFree(work)
    return ws[0]


def run_grad(vdy, vcos, vsin, vx, mode, vdx, vdcos, vdsin):
    return _run("grad", lib.aclnnRotaryPositionEmbeddingGradGetWorkspaceSize, lib.aclnnRotaryPositionEmbeddingGrad,
                vdy.tensor, vcos.tensor, vsin.tensor, NULL if vx is None else vx.tensor, mode, vdx.tensor,
                vdcos.tensor, vdsin.tensor)


@pytest.mark.parametrize("layout", ["offset", "transposed"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [0, 1])
def test_non_contiguous_inputs(views, layout, dtype, mode):
    """Strided and offset dy, cos, sin and x give the contiguous result, read a kernel call's rows
    at a time (no workspace); nothing outside the outputs is written."""
    rng = np.random.default_rng(1)
    dt = DTYPES[dtype]
    d = 16
    dy = rng.standard_normal((2, 3, 4, d)).astype(dt)
    x = rng.standard_normal((2, 3, 4, d)).astype(dt)
    cos = rng.standard_normal((1, 3, 1, d)).astype(dt)
    sin = rng.standard_normal((1, 3, 1, d)).astype(dt)
    want = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
    vdx, vdcos, vdsin = views(np.zeros_like(dy)), views(np.zeros_like(cos)), views(np.zeros_like(sin))
    vdy, vx = views(dy, layout), views(x, layout)
    ws = run_grad(vdy, views(cos, layout), views(sin, layout), vx, mode, vdx, vdcos, vdsin)
    assert ws == 0
    for v, w in zip((vdx, vdcos, vdsin), want):
        assert v.values().tobytes() == w.tobytes()
        assert v.guards_intact()
    assert vdy.untouched() and vx.untouched()
    # numpy views take the general path of the Python function
    got = aclnn_emu.rotary_position_embedding_grad(dy.transpose(1, 0, 2, 3).copy().transpose(1, 0, 2, 3),
                                                   cos, sin[..., :].copy(), x, mode)
    for a, w in zip(got, want):
        assert a.tobytes() == w.tobytes()


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("lead,cos_lead,mode", [((3, 5, 2), (1, 5, 1), 0), ((2, 3, 4), (1, 3, 1), 1),
                                                ((1, 6, 3), (1, 6, 3), 0)])
def test_non_contiguous_inputs_every_isa(isa, views, lead, cos_lead, mode, dtype):
    """Strided dy, x, cos and sin at every ISA level (the fused kernels and the widen/narrow
    route), with blocks of several cos rows (three regions: two at a time over blocks of cos
    rows) or one: the bits of contiguous inputs, no workspace."""
    rng = np.random.default_rng(len(lead) + mode)
    dt = DTYPES[dtype]
    d = 16
    dy, x = (rng.standard_normal(lead + (d,)).astype(dt) for _ in range(2))
    cos, sin = (rng.standard_normal(cos_lead + (d,)).astype(dt) for _ in range(2))
    want = aclnn_emu.rotary_position_embedding_grad(dy, cos, sin, x, mode)
    for with_x in (True, False):
        vdx, vdcos, vdsin = views(np.zeros_like(dy)), views(np.zeros_like(cos)), views(np.zeros_like(sin))
        ws = run_grad(views(dy, "transposed"), views(cos, "transposed"), views(sin, "offset"),
                      views(x, "transposed") if with_x else None, mode, vdx, vdcos, vdsin)
        assert ws == 0
        assert vdx.values().tobytes() == want[0].tobytes()
        if with_x:
            assert vdcos.values().tobytes() == want[1].tobytes() and vdsin.values().tobytes() == want[2].tobytes()
    vout = views(np.zeros_like(dy))
    assert run_forward(views(dy, "transposed"), views(cos, "offset"), views(sin, "transposed"), mode, vout) == 0
    assert vout.values().tobytes() == aclnn_emu.rotary_position_embedding(dy, cos, sin, mode).tobytes()


def test_seed_sample_in_python(views):
    """The seed sample's call: mode 1, x NULL, dcos/dsin empty with NULL data; dx exact integers."""
    rng = np.random.default_rng(2)
    dy, cos, sin = (rng.integers(1, 129, (1, 1, 1, 128)).astype(np.float32) for _ in range(3))
    vdx = views(np.zeros_like(dy))
    empty = make_tensor([1, 1, 1, 0], 0, [0, 0, 0, 0], 0, [1, 1, 1, 0], NULL)
    try:
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        rc = lib.aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(views(dy).tensor, views(cos).tensor,
                                                                  views(sin).tensor, NULL, 1, vdx.tensor, empty,
                                                                  empty, ws, ex)
        expect(0, rc)
        assert ws[0] == 0
        expect(0, lib.aclnnRotaryPositionEmbeddingGrad(NULL, 0, ex[0], NULL))
    finally:
        lib.aclDestroyTensor(empty)
    assert_exact(vdx.values(), rope_grad_ref(dy, cos, sin, None, 1)[0], np.dtype(np.float32))


# ---------------------------------------------------- forward in place


def run_forward(vx, vcos, vsin, mode, vout):
    return _run("forward", lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize, lib.aclnnRotaryPositionEmbedding,
                vx.tensor, vcos.tensor, vsin.tensor, mode, vout.tensor)


def forward_inputs(lead, cos_lead, d, dtype, seed):
    rng = np.random.default_rng(seed)
    dt = DTYPES[dtype]
    x = rng.uniform(-4, 4, lead + (d,)).astype(dt)
    cos = rng.uniform(-1, 1, cos_lead + (d,)).astype(dt)
    sin = rng.uniform(-1, 1, cos_lead + (d,)).astype(dt)
    return x, cos, sin


@pytest.mark.parametrize("layout", ["contig", "offset"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("soc,mode,form", cases(), ids=CASE_IDS)
def test_forward_in_place_bit_identical(views, soc, mode, form, dtype, layout):
    """out exactly x (ggml-cann's call for contiguous fp32 ROPE): the out-of-place bits, no
    workspace, nothing else written; every mode and form of each product, x at the start of its
    block or at an odd offset in it. Then the same x strided (reversed axes) out of place."""
    aclnn_emu.set_soc_name(soc)
    _, lead, cos_lead = form
    x, cos, sin = forward_inputs(lead, cos_lead, 24 if mode != 2 else 32, dtype, zlib.crc32(form[0].encode()))
    want = aclnn_emu.rotary_position_embedding(x, cos, sin, mode)
    vx, vcos, vsin, vout = views(x, layout), views(cos), views(sin), views(np.zeros_like(x))
    assert run_forward(vx, vcos, vsin, mode, vout) == 0
    assert vout.values().tobytes() == want.tobytes() and vout.guards_intact()
    assert run_forward(vx, vcos, vsin, mode, vx) == 0  # the same aclTensor as x and out
    assert vx.values().tobytes() == want.tobytes() and vx.guards_intact()
    assert vcos.untouched() and vsin.untouched()
    # A second aclTensor of exactly x's view is in place too.
    vy = views(x, layout)
    same = make_tensor(vy.shape, ACL[dtype], vy.strides, vy.offset, [vy.base.size], vy.block.ptr)
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    try:
        expect(0, lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(vy.tensor, vcos.tensor, vsin.tensor, mode, same,
                                                                   ws, ex))
        assert ws[0] == 0
        expect(0, lib.aclnnRotaryPositionEmbedding(NULL, 0, ex[0], NULL))
    finally:
        lib.aclDestroyTensor(same)
    assert vy.values().tobytes() == want.tobytes() and vy.guards_intact()
    vs, vout = views(x, "transposed"), views(np.zeros_like(x))
    assert run_forward(vs, views(cos, "transposed"), views(sin, "offset"), mode, vout) == 0
    assert vout.values().tobytes() == want.tobytes() and vout.guards_intact() and vs.untouched()


ACL = {"float32": 0, "float16": 1, "bfloat16": 27}


@pytest.mark.parametrize("streamed", [False, True], ids=["stored", "streamed"])
@pytest.mark.parametrize("soc,mode,dtype,d", [("Ascend910B", 0, "float32", 128), ("Ascend910B", 1, "bfloat16", 64),
                                              ("Ascend910B", 0, "float16", 80), ("Ascend910B", 1, "float32", 20),
                                              ("Ascend950", 2, "bfloat16", 32), ("Ascend950", 3, "float16", 64),
                                              ("Ascend950", 3, "float32", 136)])
def test_forward_in_place_every_isa_and_threads(isa, views, soc, mode, dtype, d, streamed):
    """In place at every ISA level and thread count: the scalar level's out-of-place bits, on a
    small call (the kernels store into x's rows) and on one large enough to stream its output
    (x and out together 32 MiB: the fused kernels write an L1 buffer, copied out with
    non-temporal stores; interleave-half on fp16 widens, computes and narrows)."""
    aclnn_emu.set_soc_name(soc)
    dt = DTYPES[dtype]
    seq = -(-(32 << 20) // (2 * 2 * 8 * d * dt.itemsize)) if streamed else 5
    x, cos, sin = forward_inputs((2, seq, 8), (1, seq, 1), d, dtype, d)
    previous = aclnn_emu.get_isa()
    aclnn_emu.set_isa_cap("scalar")
    try:
        want = aclnn_emu.rotary_position_embedding(x, cos, sin, mode)
    finally:
        aclnn_emu.set_isa_cap(previous)
    vcos, vsin = views(cos), views(sin)
    before = aclnn_emu.get_num_threads()
    try:
        for threads in (1, 2):
            aclnn_emu.set_num_threads(threads)
            vx = DevView(x)  # closed here: two of 16 MiB or more per test are enough
            try:
                assert run_forward(vx, vcos, vsin, mode, vx) == 0
                fused = dtype == "float32" or (mode != 3 and isa != "scalar")
                assert last_kernel().endswith("+stream") == (streamed and fused and isa != "scalar")
                assert vx.values().tobytes() == want.tobytes() and vx.guards_intact()
            finally:
                vx.close()
    finally:
        aclnn_emu.set_num_threads(before)


def test_forward_partial_overlap_refused(views):
    """out sharing memory with x without being exactly its view: 161002 naming out, in phase 1;
    out on cos or sin stays refused when x is in place."""
    x, cos, sin = forward_inputs((2, 3, 4), (1, 3, 1), 8, "float32", 3)
    n = x.size
    big = views(np.zeros(2 * n + 64, np.float32))
    vcos, vsin = views(cos), views(sin)
    tensors = []

    def at(offset, shape=x.shape, strides=None):
        t = make_tensor(shape, 0, strides, offset, [2 * n + 64], big.block.ptr)
        tensors.append(t)
        return t

    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    try:
        for x_at, out_at in ((16, 24), (24, 16), (16, 16 + n - 1), (16 + n - 1, 16)):
            rc = lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(at(x_at), vcos.tensor, vsin.tensor, 0,
                                                                  at(out_at), ws, ex)
            expect(INVALID, rc, "aclnnRotaryPositionEmbeddingGetWorkspaceSize", "out shares memory with x",
                   "partial overlap")
        # In place with a strided x: out must be contiguous.
        strided = (x.shape[1] * x.shape[2] * 8, 8, 8 * x.shape[1], 1)
        rc = lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(at(0, strides=strided), vcos.tensor, vsin.tensor, 0,
                                                              at(0, strides=strided), ws, ex)
        expect(INVALID, rc, "out is a non-contiguous view")
        # out exactly x, and also on cos.
        cos_in_x = make_tensor(cos.shape, 0, None, 16, [2 * n + 64], big.block.ptr)
        tensors.append(cos_in_x)
        rc = lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(at(16), cos_in_x, vsin.tensor, 0, at(16), ws, ex)
        expect(INVALID, rc, "out shares memory with cos")
        rc = lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(at(16), vcos.tensor, vsin.tensor, 0, at(16), ws, ex)
        expect(0, rc)
        expect(0, lib.aclnnRotaryPositionEmbedding(NULL, 0, ex[0], NULL))
    finally:
        for t in tensors:
            lib.aclDestroyTensor(t)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("mode", [0, 1])
def test_forward_head_of_wider_rows_needs_no_workspace(views, mode, dtype):
    """ggml-cann's ROPE with n_dims < ne0: x is the first n_dims elements of each row of a wider
    tensor (row stride ne0), out a dense buffer from ggml's pool. The plan asks for no workspace
    (ggml frees that buffer's pool block before the call, so a workspace from the pool would be
    the same memory) and gives the bits of the dense x."""
    rng = np.random.default_rng(mode)
    dt = DTYPES[dtype]
    full = rng.uniform(-4, 4, (1, 2, 32, 80)).astype(dt)
    x = full[..., :20]
    cos = rng.uniform(-1, 1, (1, 2, 1, 20)).astype(dt)
    sin = rng.uniform(-1, 1, (1, 2, 1, 20)).astype(dt)
    want = aclnn_emu.rotary_position_embedding(np.ascontiguousarray(x), cos, sin, mode)
    vfull = views(full)
    head = make_tensor(x.shape, ACL[dtype], (2 * 32 * 80, 32 * 80, 80, 1), 0, [vfull.base.size], vfull.block.ptr)
    vout = views(np.zeros_like(want))
    try:
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        expect(0, lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(head, views(cos).tensor, views(sin).tensor, mode,
                                                                   vout.tensor, ws, ex))
        assert ws[0] == 0
        expect(0, lib.aclnnRotaryPositionEmbedding(NULL, 0, ex[0], NULL))
    finally:
        lib.aclDestroyTensor(head)
    assert vout.values().tobytes() == want.tobytes() and vout.guards_intact() and vfull.untouched()


# ------------------------------------------------------------- empty


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_empty_dy_gives_zero_cos_gradients(dtype):
    dt = DTYPES[dtype]
    dy = np.zeros((0, 3, 4, 8), dt)
    cos = np.ones((1, 3, 1, 8), dt)
    dx, dcos, dsin = aclnn_emu.rotary_position_embedding_grad(dy, cos, cos, dy, 0)
    assert dx.shape == (0, 3, 4, 8)
    assert np.array_equal(dcos.astype(np.float32), np.zeros((1, 3, 1, 8))) and not np.any(dsin.astype(np.float32))
    dx, dcos, dsin = aclnn_emu.rotary_position_embedding_grad(dy, cos, cos, None, 1)
    assert dx.shape == dy.shape and dcos is None
    assert aclnn_emu.last_kernel() == ""
    assert aclnn_emu.rotary_position_embedding(dy, cos, cos, 0).shape == dy.shape


def test_empty_d_axis():
    a = np.zeros((2, 3, 4, 0), np.float32)
    c = np.zeros((1, 3, 1, 0), np.float32)
    dx, dcos, dsin = aclnn_emu.rotary_position_embedding_grad(a, c, c, a, 0)
    assert dx.shape == a.shape and dcos.shape == c.shape


def test_empty_rejected_on_ascend950():
    aclnn_emu.set_soc_name("Ascend950")
    dy = np.zeros((0, 3, 4, 8), np.float32)
    cos = np.ones((1, 3, 1, 8), np.float32)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.rotary_position_embedding_grad(dy, cos, cos, dy, 0)
    assert e.value.code == TILING and "dy has shape [0, 3, 4, 8]" in e.value.message


def test_forward_empty_out_succeeds_before_other_checks():
    """CANN's forward returns success for an empty out before looking at anything else."""
    out = make_tensor([0, 2, 2, 4], 0, None, 0, [0, 2, 2, 4], NULL)
    bad = make_tensor([2, 2], 3, None, 0, [2, 2], NULL)  # INT32 rank 2: would fail every check
    try:
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        expect(0, lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(bad, NULL, NULL, 9, out, ws, ex))
        assert ws[0] == 0
        expect(0, lib.aclnnRotaryPositionEmbedding(NULL, 0, ex[0], NULL))
    finally:
        lib.aclDestroyTensor(out)
        lib.aclDestroyTensor(bad)


# ------------------------------------------------------- validation


class Args:
    """Device tensors for one phase-1 call; every field can be replaced before calling."""

    def __init__(self, dy=(2, 3, 4, 8), cos=(1, 3, 1, 8), sin=None, x="dy", dx="dy", dcos="cos", dsin="cos",
                 dtype=0, codes=None):
        self.blocks, self.tensors = [], []
        dtypes = codes or {}
        shapes = {"dy": dy, "cos": cos}
        self.dy = self.make(dy, dtypes.get("dy", dtype))
        self.cos = self.make(cos, dtypes.get("cos", dtype))
        self.sin = self.make(sin or cos, dtypes.get("sin", dtype))
        self.x = None if x is None else self.make(shapes.get(x, x), dtypes.get("x", dtype))
        self.dx = self.make(shapes.get(dx, dx), dtypes.get("dx", dtype))
        self.dcos = self.make(shapes.get(dcos, dcos), dtypes.get("dcos", dtype))
        self.dsin = self.make(shapes.get(dsin, dsin), dtypes.get("dsin", dtype))

    def make(self, shape, code, fmt=2, strides=None, data=True):
        n = int(np.prod(shape)) if len(shape) else 1
        block = Block(np.zeros(max(n, 1), np.float32))
        self.blocks.append(block)
        t = make_tensor(shape, code, strides, 0, [max(n, 1)], block.ptr if data else NULL, fmt)
        self.tensors.append(t)
        return t

    def grad(self, mode=0, **over):
        a = {k: over.get(k, getattr(self, k)) for k in ("dy", "cos", "sin", "x", "dx", "dcos", "dsin")}
        ws = over.get("ws", ffi.new("uint64_t *"))
        ex = over.get("ex", ffi.new("aclOpExecutor **"))
        rc = lib.aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(
            a["dy"], a["cos"], a["sin"], NULL if a["x"] is None else a["x"], mode, a["dx"], a["dcos"],
            a["dsin"], ws, ex)
        if rc == 0:
            lib.aclDestroyAclOpExecutor(ex[0])
        return rc

    def forward(self, mode=0, **over):
        a = {k: over.get(k, getattr(self, k)) for k in ("dy", "cos", "sin", "dx")}
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        rc = lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize(
            NULL if a["dy"] is None else a["dy"], NULL if a["cos"] is None else a["cos"],
            NULL if a["sin"] is None else a["sin"], mode, NULL if a["dx"] is None else a["dx"], ws, ex)
        if rc == 0:
            lib.aclDestroyAclOpExecutor(ex[0])
        return rc

    def close(self):
        for t in self.tensors:
            lib.aclDestroyTensor(t)
        for b in self.blocks:
            b.free()


@pytest.fixture
def args():
    made = []

    def make(**kw):
        a = Args(**kw)
        made.append(a)
        return a

    yield make
    for a in made:
        a.close()


def test_valid_call_succeeds(args):
    a = args()
    expect(0, a.grad())
    expect(0, a.grad(x=None))
    expect(0, a.forward())


@pytest.mark.parametrize("name", ["dy", "cos", "sin", "dx", "dcos", "dsin", "ws", "ex"])
def test_grad_null(args, name):
    a = args()
    words = {"dx": "dxOut", "dcos": "dcosOut", "dsin": "dsinOut", "ws": "workspaceSize", "ex": "executor"}
    expect(NULLPTR, a.grad(**{name: NULL}), words.get(name, name))


@pytest.mark.parametrize("name,word", [("dy", "x"), ("cos", "cos"), ("sin", "sin"), ("dx", "out")])
def test_forward_null(args, name, word):
    a = args()
    expect(NULLPTR, a.forward(**{name: None}), word + " is NULL")


def test_training_series_has_no_kernel(args):
    aclnn_emu.set_soc_name("Ascend910")
    a = args()
    expect(NO_KERNEL, a.grad(), "Ascend910")
    expect(NO_KERNEL, a.forward(), "Ascend910")


@pytest.mark.parametrize("field,word", [
    ("dy", "dy has dtype ACL_INT32"), ("cos", "cos has dtype ACL_INT32"), ("sin", "sin has dtype ACL_INT32"),
    ("x", "xOptional has dtype ACL_INT32"), ("dx", "dxOut has dtype ACL_INT32"),
    ("dcos", "dcosOut has dtype ACL_INT32"), ("dsin", "dsinOut has dtype ACL_INT32")])
def test_grad_unsupported_dtype(args, field, word):
    expect(INVALID, args(codes={field: 3}).grad(), word)


@pytest.mark.parametrize("field,word", [
    ("cos", "cos has dtype ACL_FLOAT16"), ("sin", "sin"), ("x", "xOptional"), ("dx", "dxOut"),
    ("dcos", "dcosOut"), ("dsin", "dsinOut")])
def test_grad_mixed_dtypes(args, field, word):
    expect(INVALID, args(codes={field: 1}).grad(), word, "the dtype of dy")


def test_forward_dtypes(args):
    expect(INVALID, args(codes={"cos": 1}).forward(), "cos has dtype ACL_FLOAT16", "the dtype of x")
    expect(INVALID, args(codes={"dy": 9}).forward(), "x has dtype ACL_INT64")
    expect(INVALID, args(codes={"dx": 27}).forward(), "out has dtype ACL_BF16")


def test_format_must_be_nd(args):
    a = args()
    nchw = a.make((1, 3, 1, 8), 0, fmt=0)
    expect(INVALID, a.grad(cos=nchw), "cos has format 0", "ACL_FORMAT_ND")
    expect(INVALID, a.forward(sin=nchw), "sin has format 0")


@pytest.mark.parametrize("soc,mode,ok", [
    ("Ascend910B", 0, True), ("Ascend910B", 1, True), ("Ascend910B", 2, False), ("Ascend910B", 3, False),
    ("Ascend910_93", 2, False), ("Ascend910_93", 3, False), ("Ascend950", 2, True), ("Ascend950", 3, True),
    ("Ascend950", 4, False), ("Ascend910B", -1, False), ("Ascend950", 1 << 40, False)])
def test_modes_per_product(args, soc, mode, ok):
    aclnn_emu.set_soc_name(soc)
    a = args()
    if ok:
        expect(0, a.grad(mode))
        expect(0, a.forward(mode))
    else:
        expect(TILING, a.grad(mode), "mode is %d" % mode)
        expect(TILING, a.forward(mode), "mode is %d" % mode)


@pytest.mark.parametrize("kw,word", [
    (dict(dy=(2, 3, 4, 2, 8), x=(2, 3, 4, 2, 8), dx=(2, 3, 4, 2, 8)), "dy has shape [2, 3, 4, 2, 8]"),
    (dict(dy=(24, 8), cos=(24, 8), x=(24, 8), dx=(24, 8)), "dy has shape [24, 8]"),
    (dict(cos=(3, 1, 8)), "cos has shape [3, 1, 8]"),
    (dict(sin=(1, 3, 2, 8)), "sin has shape [1, 3, 2, 8]"),
    (dict(dx=(2, 3, 4, 6)), "dxOut has shape [2, 3, 4, 6]"),
    (dict(cos=(1, 3, 1, 6), dcos=(1, 3, 1, 6), dsin=(1, 3, 1, 6)), "cos has shape [1, 3, 1, 6]"),
    (dict(dy=(2, 3, 4, 7), cos=(1, 3, 1, 7), x=(2, 3, 4, 7), dx=(2, 3, 4, 7)), "multiple of 2"),
    (dict(x=(2, 3, 4, 6)), "xOptional has shape [2, 3, 4, 6]"),
    (dict(dcos=(1, 3, 2, 8)), "dcosOut has shape [1, 3, 2, 8]"),
    (dict(dsin=(1, 1, 1, 8)), "dsinOut has shape [1, 1, 1, 8]"),
])
def test_grad_shape_rules(args, kw, word):
    expect(TILING, args(**kw).grad(), word)


def test_forward_shape_rules(args):
    expect(TILING, args(dx=(2, 3, 4, 6)).forward(), "out has shape [2, 3, 4, 6]")
    expect(TILING, args(cos=(1, 3, 2, 8)).forward(), "cos has shape [1, 3, 2, 8]")


def test_quarter_needs_multiple_of_four(args):
    aclnn_emu.set_soc_name("Ascend950")
    a = args(dy=(2, 3, 4, 6), cos=(1, 3, 1, 6))
    expect(TILING, a.grad(2), "multiple of 4 in quarter mode")
    expect(0, a.grad(0))


def test_dcos_shape_unchecked_without_x(args):
    """Without x the gradients of cos/sin are not computed; CANN's sample passes [1,1,1,0] tensors."""
    expect(0, args(x=None, dcos=(1, 1, 1, 0), dsin=(7,)).grad())


@pytest.mark.parametrize("soc,mode,dy,cos,ok", [
    # A2/A3 half mode, the tiling's patterns and their side conditions
    ("Ascend910B", 0, (2, 4, 3, 8), (2, 1, 3, 8), True),    # B1SD, B < S
    ("Ascend910B", 0, (3, 4, 2, 8), (3, 1, 2, 8), False),   # B1SD with B >= S
    ("Ascend910B", 0, (3, 2, 4, 8), (3, 2, 1, 8), True),    # BS1D with B >= S: still SB1D
    ("Ascend910B", 0, (2, 3, 4, 8), (1, 1, 1, 8), False),   # 111D
    ("Ascend910B", 0, (2, 3, 4, 8), (2, 1, 1, 8), True),    # S11D
    ("Ascend910B", 0, (2, 3, 4, 8), (1, 3, 4, 8), False),   # 1SND
    ("Ascend910B", 0, (2, 3, 4, 8), (2, 1, 4, 8), True),    # B1SD with B < S
    ("Ascend910B", 0, (5, 4, 8), (1, 4, 8), True),          # TND with [1, N, D]: read as B1SD, 1 < N
    ("Ascend910B", 0, (5, 4, 8), (1, 1, 8), True),          # TND with 11D: read as S11D
    ("Ascend910B", 0, (2, 3, 4, 8), (1, 3, 2, 8), False),   # not a broadcast
    # A2/A3 interleave mode
    ("Ascend910B", 1, (2, 3, 4, 8), (1, 3, 1, 8), True),
    ("Ascend910B", 1, (2, 3, 4, 8), (2, 3, 1, 8), False),   # BS1D
    ("Ascend910B", 1, (2, 3, 4, 8), (2, 3, 4, 8), False),   # no broadcast
    ("Ascend910B", 1, (5, 4, 8), (5, 4, 8), False),         # TND
    ("Ascend910B", 1, (40, 2, 25, 8), (1, 2, 1, 8), False),  # B*N = 1000
    ("Ascend910B", 1, (37, 2, 27, 8), (1, 2, 1, 8), True),   # B*N = 999
    ("Ascend910_93", 1, (1, 2, 1000, 8), (1, 2, 1, 8), False),
    # Ascend950: every axis 1 or equal
    ("Ascend950", 1, (2, 3, 4, 8), (2, 3, 4, 8), True),
    ("Ascend950", 0, (2, 3, 4, 8), (1, 1, 1, 8), True),
    ("Ascend950", 3, (2, 3, 4, 8), (1, 3, 4, 8), True),
    ("Ascend950", 2, (2, 3, 4, 8), (2, 3, 2, 8), False),
    ("Ascend950", 1, (40, 2, 25, 8), (1, 2, 1, 8), True),
])
def test_broadcast_patterns(args, soc, mode, dy, cos, ok):
    aclnn_emu.set_soc_name(soc)
    a = args(dy=dy, cos=cos)
    if ok:
        expect(0, a.grad(mode))
        expect(0, a.forward(mode))
    else:
        msg = expect(TILING, a.grad(mode))
        assert ("cos has shape" in msg) or ("B*N" in msg and "dy has shape" in msg), msg
        expect(TILING, a.forward(mode))


def test_non_contiguous_outputs_rejected(args):
    a = args()
    strided = a.make((2, 3, 4, 8), 0, strides=(96, 8, 24, 1))  # axes 1 and 2 swapped in memory
    expect(INVALID, a.grad(dx=strided), "dxOut is a non-contiguous view")
    cos_t = a.make((1, 3, 1, 8), 0, strides=(24, 1, 24, 3))
    expect(INVALID, a.grad(dcos=cos_t), "dcosOut is a non-contiguous view")
    expect(INVALID, a.forward(dx=strided), "out is a non-contiguous view")
    expect(0, a.grad(cos=cos_t))  # inputs may be strided


def test_missing_and_host_memory(args):
    a = args()
    no_data = a.make((2, 3, 4, 8), 0, data=False)
    expect(INVALID, a.grad(x=no_data), "xOptional has no device memory")
    expect(INVALID, a.grad(dx=no_data), "dxOut has no device memory")
    host = np.zeros((1, 3, 1, 8), np.float32)
    t = make_tensor((1, 3, 1, 8), 0, None, 0, [24], ffi.from_buffer(host))
    try:
        expect(INVALID, a.grad(sin=t), "sin")
    finally:
        lib.aclDestroyTensor(t)


def test_dcos_dsin_without_x_are_neither_checked_nor_written(args):
    """Without xOptional phase 1 ignores dcosOut/dsinOut (even in host memory), and so must phase 2."""
    a = args(x=None)
    host_dcos, host_dsin = np.full((1, 3, 1, 8), 7.0, np.float32), np.full((1, 3, 1, 8), 9.0, np.float32)
    dcos = make_tensor((1, 3, 1, 8), 0, None, 0, [24], ffi.from_buffer(host_dcos))
    dsin = make_tensor((1, 3, 1, 8), 0, None, 0, [24], ffi.from_buffer(host_dsin))
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    try:
        expect(0, lib.aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(a.dy, a.cos, a.sin, NULL, 0, a.dx, dcos, dsin,
                                                                       ws, ex))
        assert ws[0] == 0
        expect(0, lib.aclnnRotaryPositionEmbeddingGrad(NULL, 0, ex[0], NULL))
        assert (host_dcos == 7.0).all() and (host_dsin == 9.0).all()
    finally:
        lib.aclDestroyTensor(dcos)
        lib.aclDestroyTensor(dsin)


def test_outputs_sharing_memory_are_rejected(args):
    """An output overlapping an input or another output: 161002 naming both (CANN leaves it undefined)."""
    a = args()
    dy_shape, cos_shape = (2, 3, 4, 8), (1, 3, 1, 8)

    def alias(tensor_shape, block_of, offset=0):
        blk = a.blocks[a.tensors.index(block_of)]
        t = make_tensor(tensor_shape, 0, None, offset, [int(np.prod(tensor_shape)) + offset], blk.ptr)
        a.tensors.append(t)
        return t

    expect(INVALID, a.grad(dx=alias(dy_shape, a.dy)), "dxOut", "shares memory with dy")
    expect(INVALID, a.grad(dx=alias(dy_shape, a.x)), "dxOut", "xOptional")
    expect(INVALID, a.grad(dcos=alias(cos_shape, a.sin)), "dcosOut", "sin")
    expect(INVALID, a.grad(dsin=alias(cos_shape, a.dcos)), "dsinOut", "dcosOut")
    expect(0, a.forward(dx=alias(dy_shape, a.dy)))  # exactly x: in place
    expect(INVALID, a.forward(dx=alias(cos_shape, a.cos), dy=alias(cos_shape, a.dx)), "out", "cos")
    expect(0, a.grad(x=None, dcos=alias(cos_shape, a.dy), dsin=alias(cos_shape, a.dy)))  # never written


def test_phase2_errors(args):
    a = args()
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    expect(0, lib.aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(a.dy, a.cos, a.sin, a.x, 0, a.dx, a.dcos, a.dsin,
                                                                   ws, ex))
    expect(INVALID, lib.aclnnRotaryPositionEmbedding(NULL, 0, ex[0], NULL), "aclnnRotaryPositionEmbedding")
    expect(0, lib.aclnnRotaryPositionEmbeddingGrad(NULL, 0, ex[0], NULL))
    expect(INVALID, lib.aclnnRotaryPositionEmbeddingGrad(NULL, 0, ex[0], NULL), "consumed")
    expect(NULLPTR, lib.aclnnRotaryPositionEmbeddingGrad(NULL, 0, NULL, NULL), "executor")


def test_python_errors_carry_code_and_argument():
    x = np.zeros((2, 3, 4, 8), np.float32)
    with pytest.raises(AclnnError) as e:
        aclnn_emu.rotary_position_embedding_grad(x, np.zeros((1, 3, 1, 8), np.float16), x[:1, :, :1], x, 0)
    assert e.value.code == INVALID and "cos" in e.value.message
    with pytest.raises(AclnnError) as e:
        aclnn_emu.rotary_position_embedding(x, x[:1, :, :1], x[:1, :, :1], 7)
    assert e.value.code == TILING and "mode is 7" in e.value.message


# --------------------------------------------- RotaryMulGrad (torch_npu route)


def rotary_mul_ref(x, r1, r2):
    x = _f64(x)
    x1, x2 = np.split(x, 2, -1)
    return _f64(r1) * x + _f64(r2) * np.concatenate([-x2, x1], -1)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("xs,rs", [((2, 16, 5, 128), (1, 16, 1, 128)), ((16, 2, 5, 128), (16, 1, 1, 128)),
                                   ((8, 4, 32, 64), (8, 4, 1, 64))])
def test_rotary_mul_forward_and_backward(xs, rs, dtype):
    """The seed's three typical layouts (shortened S): forward and the torch-style backward
    (dx = r1*dy + rotate_half^T(r2*dy), dr1 = sum(x*dy), dr2 = sum(rotate_half(x)*dy))."""
    rng = np.random.default_rng(9)
    dt = DTYPES[dtype]
    x = rng.uniform(0.25, 2, xs).astype(dt)
    dy = rng.uniform(0.25, 2, xs).astype(dt)
    r1 = rng.uniform(0.5, 1, rs).astype(dt)
    r2 = signed_sin(rs, 0, rng).astype(dt)
    assert_precision(aclnn_emu.rotary_mul(x, r1, r2), rotary_mul_ref(x, r1, r2), dtype)
    dx, dr1, dr2 = aclnn_emu.rotary_mul_backward(x, r1, r2, dy)
    g = _f64(dy)
    h = xs[-1] // 2
    t = _f64(r2) * g
    want_dx = _f64(r1) * g + np.concatenate([t[..., h:], -t[..., :h]], -1)
    xf = _f64(x)
    axes = tuple(i for i in range(4) if rs[i] == 1 and xs[i] != 1)
    want_dr1 = (xf * g).sum(axis=axes, keepdims=True)
    want_dr2 = (np.concatenate([-xf[..., h:], xf[..., :h]], -1) * g).sum(axis=axes, keepdims=True)
    assert_precision(dx, want_dx, dtype)
    assert_precision(dr1, want_dr1, dtype)
    assert_precision(dr2, want_dr2, dtype)
    dx2, none1, none2 = aclnn_emu.rotary_mul_backward(x, r1, r2, dy, need_backward=False)
    assert none1 is None and none2 is None and dx2.tobytes() == dx.tobytes()


def test_rotary_mul_casts_r_to_x_dtype():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 4, 2, 8)).astype(np.float16)
    r1 = rng.standard_normal((1, 4, 1, 8))
    r2 = rng.standard_normal((1, 4, 1, 8))
    y = aclnn_emu.rotary_mul(x, r1, r2)
    assert y.dtype == np.float16
    assert y.tobytes() == aclnn_emu.rotary_mul(x, r1.astype(np.float16), r2.astype(np.float16)).tobytes()


def test_repeated_calls_reuse_plans():
    rng = np.random.default_rng(6)
    dy = rng.standard_normal((2, 4, 3, 8)).astype(np.float32)
    cos = rng.standard_normal((1, 4, 1, 8)).astype(np.float32)
    first = aclnn_emu.rotary_position_embedding_grad(dy, cos, cos, dy, 0)
    for _ in range(3):
        again = aclnn_emu.rotary_position_embedding_grad(dy, cos, cos, dy, 0)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(first, again))
    other = aclnn_emu.rotary_position_embedding_grad(dy * 2, cos, cos, dy, 0)
    assert np.array_equal(other[0], first[0] * 2)
