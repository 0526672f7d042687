"""aclnnFusedFloydAttention and aclnnFusedFloydAttentionGrad.

Results against float64 numpy references written here from the formulas of
cann_facts §3b (independent of the kernels), on the smallest legal shapes:
every dtype, with and without a mask (BOOL and UINT8), fully masked rows,
several scales; forward -> backward against a numerical gradient of the
forward; every validation rule with its code and the argument it names;
non-contiguous views; 1 vs 2 threads and every ISA level bit-identical.

Precision: outputs that are sums of same-signed terms (the forward output
with positive values, softmax statistics, dv1/dv2 with positive dy) use
CANN's standard as it is (tests/reference.py). dq, dk1 and dk2 are sums of
dS = P * (dP - Dsum), which cancel by construction (each row of dS sums to
0), so an element can be far smaller than its terms; there the same
thresholds T (MERE < T, MARE < 10 T) apply to the error relative to the
size of the terms: |a - g| / sum |term|, the bound any fp32 evaluation has.
"""

import re

import aclnn_emu
import numpy as np
import pytest
from aclnn_emu import AclnnError, ffi, lib
from helpers import BF16, Block, make_tensor, take_msg
from reference import THRESHOLDS, assert_precision, dtype_name

NULLPTR = 161001
INVALID = 161002
SHAPE = 561002
LOWEST = -3.4028234663852886e38  # float lowest, CANN's masked score

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
SMALL = (1, 1, 16, 128, 128, 32)  # B, H, N, M, K, D


def set_floyd_tile(tile):
    """aclnnEmuSetFloydTile from "NBxMBxKB" (None: the automatic choice)."""
    nb, mb, kb = (0, 0, 0) if tile is None else (int(v) for v in tile.split("x"))
    assert aclnn_emu.lib.aclnnEmuSetFloydTile(nb, mb, kb) == 0


@pytest.fixture(autouse=True)
def automatic_floyd_tile():
    """Every test starts and ends with the automatic tile."""
    set_floyd_tile(None)
    yield
    set_floyd_tile(None)


@pytest.fixture(autouse=True)
def clean_messages():
    take_msg()
    yield
    take_msg()


# ------------------------------------------------------------------ references

def f64(a):
    return np.asarray(a).astype(np.float64)


def _t(a):
    """Swap the n and m (or k and m) axes: [b,h,x,y,z] -> [b,h,y,x,z]."""
    return a.transpose(0, 1, 3, 2, 4)


def pair_products(x, y1, y2):
    """out[n,m,k] = sum_d x[n,m,d]*y1[n,k,d] + sum_d x[n,m,d]*y2[k,m,d] (batched matmuls over n and over m)."""
    return x @ y1.swapaxes(-1, -2) + _t(_t(x) @ _t(y2).swapaxes(-1, -2))


def apply_weights(w, y1, y2):
    """out[n,m,:] = sum_k w[n,m,k] * (y1[n,k,:] + y2[k,m,:])."""
    return w @ y1 + _t(_t(w) @ _t(y2))


def reduce_over_m(w, x):
    """out[n,k,:] = sum_m w[n,m,k] * x[n,m,:]."""
    return w.swapaxes(-1, -2) @ x


def reduce_over_n(w, x):
    """out[k,m,:] = sum_n w[n,m,k] * x[n,m,:]."""
    return _t(_t(w).swapaxes(-1, -2) @ _t(x))


def scores_ref(q, k1, k2, mask, scale):
    s = scale * pair_products(q, k1, k2)
    if mask is not None:
        s = np.where(np.broadcast_to(mask != 0, s.shape), LOWEST, s)
    return s


def forward_ref(q, k1, v1, k2, v2, mask, scale):
    """(out, max, sum) in float64."""
    q, k1, v1, k2, v2 = map(f64, (q, k1, v1, k2, v2))
    s = scores_ref(q, k1, k2, mask, scale)
    mx = s.max(-1)
    e = np.exp(s - mx[..., None])
    sm = e.sum(-1)
    return apply_weights(e / sm[..., None], v1, v2), mx, sm


def backward_ref(q, k1, v1, k2, v2, dy, mask, mx, sm, o, scale):
    """(grads, magnitudes): the five gradients and the sums of |terms| bounding their rounding."""
    q, k1, v1, k2, v2, dy, o, mx, sm = map(f64, (q, k1, v1, k2, v2, dy, o, mx, sm))
    s = scores_ref(q, k1, k2, mask, scale)
    p = np.exp(s - mx[..., None]) / sm[..., None]
    dsum = (dy * o).sum(-1)
    ds = p * (pair_products(dy, v1, v2) - dsum[..., None])
    grads = (scale * apply_weights(ds, k1, k2), scale * reduce_over_m(ds, q), reduce_over_m(p, dy),
             scale * reduce_over_n(ds, q), reduce_over_n(p, dy))
    a = np.abs
    ds_mag = p * (pair_products(a(dy), a(v1), a(v2)) + (a(dy) * a(o)).sum(-1)[..., None])
    sa = abs(scale)
    mags = (sa * apply_weights(ds_mag, a(k1), a(k2)), sa * reduce_over_m(ds_mag, a(q)), reduce_over_m(p, a(dy)),
            sa * reduce_over_n(ds_mag, a(q)), reduce_over_n(p, a(dy)))
    return grads, mags


def assert_close_to_terms(actual, golden, magnitude, dtype, what=""):
    """MERE < T and MARE < 10 T for |a - g| / (sum of |terms| + 1e-30)."""
    t = THRESHOLDS[dtype_name(dtype)]
    a, g, m = f64(actual), f64(golden), f64(magnitude)
    assert np.isfinite(a).all(), what
    rel = np.abs(a - g) / (m + 1e-30)
    worst = np.unravel_index(np.argmax(rel), rel.shape)
    assert rel.mean() < t and rel.max() < 10 * t, (what, rel.mean(), rel.max(), worst, a[worst], g[worst], m[worst])


# ------------------------------------------------------------------ inputs


def make_inputs(shape, dtype, seed=0, positive_values=False, mask_kind=None, masked_rows=0):
    """q, k1, v1, k2, v2 rounded to dtype (values ~N(0,1); v in [0.1, 1] when positive_values) and a mask."""
    B, H, N, M, K, D = shape
    rng = np.random.default_rng(seed)
    dt = DTYPES[dtype] if isinstance(dtype, str) else dtype
    q = rng.standard_normal((B, H, N, M, D)).astype(dt)
    k1 = rng.standard_normal((B, H, N, K, D)).astype(dt)
    k2 = rng.standard_normal((B, H, K, M, D)).astype(dt)
    if positive_values:
        v1 = rng.uniform(0.1, 1.0, (B, H, N, K, D)).astype(dt)
        v2 = rng.uniform(0.1, 1.0, (B, H, K, M, D)).astype(dt)
    else:
        v1 = rng.standard_normal((B, H, N, K, D)).astype(dt)
        v2 = rng.standard_normal((B, H, K, M, D)).astype(dt)
    mask = None
    if mask_kind is not None:
        m = rng.random((B, 1, N, 1, K)) < 0.3
        m[:, :, :masked_rows] = True  # rows fully masked: a uniform softmax
        mask = m if mask_kind == "bool" else m.astype(np.uint8)
    return q, k1, v1, k2, v2, mask


def mask_kinds(dtype):
    # CANN registers the FLOAT grad only with a BOOL mask (the forward takes both).
    return [None, "bool"] if dtype == "float32" else [None, "bool", "uint8"]


# ------------------------------------------------------------------ forward


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("mask_kind", [None, "bool", "uint8"])
def test_forward_matches_reference(dtype, mask_kind):
    q, k1, v1, k2, v2, mask = make_inputs(SMALL, dtype, seed=1, positive_values=True, mask_kind=mask_kind,
                                          masked_rows=2)
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.125)
    ref_out, ref_max, ref_sum = forward_ref(q, k1, v1, k2, v2, mask, 0.125)
    assert out.dtype == q.dtype and out.shape == q.shape
    assert smax.dtype == np.float32 and smax.shape == q.shape[:4] + (8,)
    assert_precision(out, ref_out, dtype)
    for stat, ref in ((smax, ref_max), (ssum, ref_sum)):
        assert (stat == stat[..., :1]).all(), "the 8 copies differ"
        assert_precision(stat[..., 0], ref, "float32")
    if mask_kind is not None:  # fully masked rows: max is the masked score, sum is K, out the mean
        np.testing.assert_array_equal(smax[:, :, :2, :, 0], np.float32(LOWEST))
        np.testing.assert_array_equal(ssum[:, :, :2, :, 0], np.float32(SMALL[4]))


@pytest.mark.parametrize("shape,dtype", [((1, 2, 32, 128, 128, 64), "float32"), ((2, 1, 16, 128, 256, 64), "bfloat16"),
                                         ((1, 1, 16, 256, 128, 32), "float16")])
def test_forward_shapes(shape, dtype):
    q, k1, v1, k2, v2, mask = make_inputs(shape, dtype, seed=2, positive_values=True, mask_kind="bool")
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.3)
    ref_out, ref_max, ref_sum = forward_ref(q, k1, v1, k2, v2, mask, 0.3)
    assert_precision(out, ref_out, dtype)
    assert_precision(smax[..., 0], ref_max, "float32")
    assert_precision(ssum[..., 0], ref_sum, "float32")


def test_forward_full_mask_shape():
    """The [B,H,N,M,K] mask of CANN's forward sample: one row per (b, h, n, m)."""
    B, H, N, M, K, D = 1, 2, 16, 128, 128, 32
    q, k1, v1, k2, v2, _ = make_inputs((B, H, N, M, K, D), "float32", seed=3, positive_values=True)
    mask = np.random.default_rng(4).random((B, H, N, M, K)) < 0.5
    mask[0, 1, 3, 7] = True
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.2)
    ref_out, ref_max, ref_sum = forward_ref(q, k1, v1, k2, v2, mask, 0.2)
    assert_precision(out, ref_out, "float32")
    assert_precision(ssum[..., 0], ref_sum, "float32")
    assert ssum[0, 1, 3, 7, 0] == K


# ------------------------------------------------------------------ backward


def run_backward_case(shape, dtype, mask_kind, scale, seed, masked_rows=0):
    q, k1, v1, k2, v2, mask = make_inputs(shape, dtype, seed=seed, mask_kind=mask_kind, masked_rows=masked_rows)
    rng = np.random.default_rng(seed + 100)
    dt = q.dtype
    dy = rng.uniform(0.1, 1.0, q.shape).astype(dt)  # positive: dv1/dv2 have no cancellation
    out, mx, sm = forward_ref(q, k1, v1, k2, v2, mask, scale)
    # The statistics and output a forward would hand over, in their storage types.
    smax = np.repeat(mx[..., None], 8, -1).astype(np.float32)
    ssum = np.repeat(sm[..., None], 8, -1).astype(np.float32)
    o = out.astype(dt)
    grads = aclnn_emu.fused_floyd_attention_grad(q, k1, v1, k2, v2, dy, mask, smax, ssum, o, scale)
    ref, mags = backward_ref(q, k1, v1, k2, v2, dy, mask, smax[..., 0], ssum[..., 0], o, scale)
    names = ("dq", "dk1", "dv1", "dk2", "dv2")
    for name, g, like in zip(names, grads, (q, k1, v1, k2, v2)):
        assert g.dtype == dt and g.shape == like.shape, name
    for name, g, r, m in zip(names, grads, ref, mags):
        if name in ("dv1", "dv2"):
            assert_precision(g, r, dtype)
        else:
            assert_close_to_terms(g, r, m, dtype, name)
    return grads, ref


@pytest.mark.parametrize("dtype,mask_kind", [(d, m) for d in DTYPES for m in mask_kinds(d)])
def test_backward_matches_reference(dtype, mask_kind):
    run_backward_case(SMALL, dtype, mask_kind, 0.125, seed=5, masked_rows=1)


@pytest.mark.parametrize("shape,dtype", [((1, 2, 32, 256, 128, 64), "float32"), ((1, 1, 16, 128, 128, 128), "float16"),
                                         ((2, 1, 16, 256, 128, 32), "bfloat16"), ((1, 1, 32, 128, 256, 32), "float32"),
                                         ((1, 1, 16, 128, 384, 32), "float16")])
def test_backward_shapes(shape, dtype):
    run_backward_case(shape, dtype, "bool", 0.0884, seed=6)


@pytest.mark.parametrize("scale", [1.0, -0.37, 0.0117])
def test_backward_scales(scale):
    run_backward_case(SMALL, "float32", "bool", scale, seed=7)


def test_fully_masked_rows_follow_the_kernel_formula():
    """A fully masked row has P = 1/K and dS = (dP - Dsum)/K: CANN does not mask dS again."""
    grads, ref = run_backward_case(SMALL, "float32", "bool", 0.25, seed=8, masked_rows=16)
    assert np.abs(grads[0]).max() > 0  # every row masked, yet dq is not zero (the kernel's formula)


# ------------------------------------------------------- numerical gradient


@pytest.mark.parametrize("mask_kind", [None, "bool"])
def test_backward_matches_numerical_gradient(mask_kind):
    """fp32 forward -> backward: <grad, v> equals (f(x + e v) - f(x - e v)) / 2e, f = sum(out * w)."""
    shape = SMALL
    scale = 0.2
    q, k1, v1, k2, v2, mask = make_inputs(shape, "float32", seed=9, mask_kind=mask_kind)
    rng = np.random.default_rng(10)
    w = rng.standard_normal(q.shape).astype(np.float32)
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, scale)
    grads = aclnn_emu.fused_floyd_attention_grad(q, k1, v1, k2, v2, w, mask, smax, ssum, out, scale)
    inputs = [q, k1, v1, k2, v2]
    eps = 1e-2
    for i, g in enumerate(grads):
        v = rng.standard_normal(inputs[i].shape).astype(np.float32)
        values = []
        for sign in (1, -1):
            moved = list(inputs)
            moved[i] = (inputs[i] + sign * eps * v).astype(np.float32)
            o, _, _ = aclnn_emu.fused_floyd_attention(*moved, mask, scale)
            values.append(np.sum(f64(o) * f64(w)))
        numeric = (values[0] - values[1]) / (2 * eps)
        analytic = np.sum(f64(g) * f64(v))
        assert abs(numeric - analytic) <= 2e-3 * max(abs(analytic), 1.0), (i, numeric, analytic)


# ------------------------------------------------------- determinism and ISAs


def _run_both(dtype, shape=(1, 2, 32, 128, 128, 32)):
    q, k1, v1, k2, v2, mask = make_inputs(shape, dtype, seed=11, mask_kind="bool")
    dy = np.random.default_rng(12).standard_normal(q.shape).astype(q.dtype)
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.15)
    grads = aclnn_emu.fused_floyd_attention_grad(q, k1, v1, k2, v2, dy, mask, smax, ssum, out, 0.15)
    return (out, smax, ssum) + tuple(grads)


@pytest.mark.parametrize("dtype,tile,shape", [("float32", None, (1, 2, 64, 256, 128, 32)),
                                              ("bfloat16", None, (1, 2, 64, 256, 128, 32)),
                                              ("float32", "16x32x64", (1, 2, 64, 256, 128, 32)),
                                              ("float32", "16x32x64", (1, 1, 32, 128, 384, 32))])
def test_one_and_two_threads_bit_identical(dtype, tile, shape, monkeypatch):
    """Many tiles per anti-diagonal (with the tile 16x32x64: 4 x 8 tiles of 2 key blocks), so
    dk1/dv1 chain across m-tiles and dk2/dv2 across n-tiles while two threads take tiles in any order.
    K = 384 splits the keys into two uneven chunks (128 + 256) whose dq parts meet at the end."""
    if tile is not None:
        set_floyd_tile(tile)
    previous = aclnn_emu.get_num_threads()
    try:
        aclnn_emu.set_num_threads(1)
        one = _run_both(dtype, shape)
        aclnn_emu.set_num_threads(2)
        two = _run_both(dtype, shape)
    finally:
        aclnn_emu.set_num_threads(previous)
    for a, b in zip(one, two):
        assert a.tobytes() == b.tobytes()


def _grad_tile(kernel_name):
    """The "nbxmbxkb" the backward ran with, from its kernel name."""
    match = re.search(r"tile (\d+x\d+x\d+)\)$", kernel_name)
    assert match, kernel_name
    return match.group(1)


def test_backward_tile_rows_and_columns_do_not_change_the_bits(monkeypatch):
    """The backward picks its tile's n and m sizes from the thread count. That keeps the results independent of
    the thread count only because those sizes reorder the work but no sum; with the same 128 keys per block,
    every n x m tile must give the same bits (K = 256: two key chunks)."""
    q, k1, v1, k2, v2, mask = make_inputs((1, 1, 64, 256, 256, 32), "float32", seed=11, mask_kind="bool")
    dy = np.random.default_rng(12).standard_normal(q.shape).astype(q.dtype)
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.15)
    runs = []
    for tile in (None, "16x128x128", "64x128x128", "32x256x128", "64x256x128"):
        if tile is None:
            set_floyd_tile(None)
        else:
            set_floyd_tile(tile)
        aclnn_emu.invalidate_plans()
        runs.append(aclnn_emu.fused_floyd_attention_grad(q, k1, v1, k2, v2, dy, mask, smax, ssum, out, 0.15))
        assert tile is None or _grad_tile(aclnn_emu.last_kernel()) == tile
    set_floyd_tile(None)
    aclnn_emu.invalidate_plans()
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("shape,many_threads,tile", [((1, 1, 128, 256, 256, 32), 8, "64x128x128"),
                                               ((1, 3, 128, 256, 256, 32), 6, "128x128x128")])
def test_thread_count_picks_the_tile_and_keeps_the_bits(shape, many_threads, tile):
    """One thread takes the largest tile. More threads take smaller tiles when that lets more tiles run at once
    (first case: 2 tiles of 128 x 256 at a time, 4 of 64 x 128), or when the large tiles of every busy thread
    would exceed the 128 MiB budget (second case: 6 x 32 MiB). The gradients stay bit for bit the same."""
    previous = aclnn_emu.get_num_threads()
    try:
        aclnn_emu.set_num_threads(1)
        one = _run_both("float32", shape)
        one_tile = _grad_tile(aclnn_emu.last_kernel())
        aclnn_emu.set_num_threads(many_threads)
        many = _run_both("float32", shape)
        many_tile = _grad_tile(aclnn_emu.last_kernel())
    finally:
        aclnn_emu.set_num_threads(previous)
    assert (one_tile, many_tile) == ("128x256x128", tile)
    for a, b in zip(one, many):
        assert a.tobytes() == b.tobytes()


def test_small_tiles_match_the_reference(monkeypatch):
    """The tile sizes only change rounding: small tiles (many tiles, several key blocks) still match float64."""
    set_floyd_tile("16x32x32")
    aclnn_emu.invalidate_plans()
    run_backward_case((1, 1, 32, 256, 128, 32), "float32", "bool", 0.3, seed=19, masked_rows=3)
    q, k1, v1, k2, v2, mask = make_inputs((1, 1, 32, 256, 128, 32), "float32", seed=20, positive_values=True,
                                          mask_kind="bool", masked_rows=2)
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.3)
    ref_out, ref_max, ref_sum = forward_ref(q, k1, v1, k2, v2, mask, 0.3)
    assert_precision(out, ref_out, "float32")
    assert_precision(ssum[..., 0], ref_sum, "float32")


def test_every_isa_bit_identical_to_scalar(isa):
    here = _run_both("float16", shape=SMALL)
    assert aclnn_emu.last_kernel().startswith("floyd_attention_grad(")
    previous = aclnn_emu.get_isa()
    try:
        aclnn_emu.set_isa_cap("scalar")
        scalar = _run_both("float16", shape=SMALL)
    finally:
        aclnn_emu.set_isa_cap(previous)
    for a, b in zip(here, scalar):
        assert a.tobytes() == b.tobytes()


def test_exp_kernel_accuracy(isa):
    """Softmax statistics over extreme scores: exp overflow, underflow and the subnormal range."""
    B, H, N, M, K, D = SMALL
    q = np.zeros((B, H, N, M, D), np.float32)
    q[..., 0] = 1.0
    k1 = np.zeros((B, H, N, K, D), np.float32)
    k1[..., 0] = np.linspace(-120.0, 0.0, K, dtype=np.float32)  # scores from -120 to 0
    k2 = np.zeros((B, H, K, M, D), np.float32)
    v1 = np.ones((B, H, N, K, D), np.float32)
    v2 = np.zeros((B, H, K, M, D), np.float32)
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, None, 1.0)
    ref_out, ref_max, ref_sum = forward_ref(q, k1, v1, k2, v2, None, 1.0)
    assert_precision(ssum[..., 0], ref_sum, "float32")
    assert_precision(out, ref_out, "float32")


# ------------------------------------------------------------------ views


def strided(a, order):
    """The values of ``a`` in a view whose memory order is permuted by ``order`` (not C-contiguous)."""
    base = np.ascontiguousarray(np.transpose(a, order))
    return np.transpose(base, np.argsort(order))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_non_contiguous_inputs_give_the_same_bits(dtype):
    q, k1, v1, k2, v2, mask = make_inputs(SMALL, dtype, seed=13, mask_kind="bool")
    dy = np.random.default_rng(14).standard_normal(q.shape).astype(q.dtype)
    ref = _both_from(q, k1, v1, k2, v2, mask, dy)
    order = (0, 1, 3, 2, 4)
    wide_mask = np.zeros(mask.shape[:-1] + (2 * mask.shape[-1],), bool)
    wide_mask[..., ::2] = mask
    views = [strided(a, order) for a in (q, k1, v1, k2, v2)]
    dy_view = strided(dy, (4, 3, 2, 1, 0))
    assert not views[0].flags.c_contiguous and not wide_mask[..., ::2].flags.c_contiguous
    got = _both_from(*views, wide_mask[..., ::2], dy_view)
    for a, b in zip(ref, got):
        assert a.tobytes() == b.tobytes()


def _both_from(q, k1, v1, k2, v2, mask, dy):
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.1)
    grads = aclnn_emu.fused_floyd_attention_grad(q, k1, v1, k2, v2, dy, mask, smax, ssum, out, 0.1)
    return (out, smax, ssum) + tuple(grads)


# ------------------------------------------- raw C API: views, outputs, errors


class GradCall:
    """Valid fp16 tensors of the small shape in guarded device blocks, for raw phase-1/2 calls."""

    NAMES = ("query", "key1", "value1", "key2", "value2", "dy", "attenMaskOptional", "softmaxMax", "softmaxSum",
             "attentionIn", "dqOut", "dk1Out", "dv1Out", "dk2Out", "dv2Out")

    def __init__(self, views, dtype="float16", layout="contig", shape=SMALL):
        q, k1, v1, k2, v2, mask = make_inputs(shape, dtype, seed=15, mask_kind="bool")
        self.host = dict(query=q, key1=k1, value1=v1, key2=k2, value2=v2, attenMaskOptional=mask)
        rng = np.random.default_rng(16)
        out, mx, sm = forward_ref(q, k1, v1, k2, v2, mask, 0.1)
        self.host["dy"] = rng.standard_normal(q.shape).astype(q.dtype)
        self.host["softmaxMax"] = np.repeat(mx[..., None], 8, -1).astype(np.float32)
        self.host["softmaxSum"] = np.repeat(sm[..., None], 8, -1).astype(np.float32)
        self.host["attentionIn"] = out.astype(q.dtype)
        for name, like in (("dqOut", q), ("dk1Out", k1), ("dv1Out", v1), ("dk2Out", k2), ("dv2Out", v2)):
            self.host[name] = np.zeros_like(like)
        self.views = {}
        for name in self.NAMES:
            kw = {"acl_dtype": lib.ACL_BOOL} if name == "attenMaskOptional" else {}
            self.views[name] = views(self.host[name], layout, **kw)
        self.tensors = {name: v.tensor for name, v in self.views.items()}

    def phase1(self, scale=0.1, **override):
        t = dict(self.tensors)
        t.update(override)
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        args = [t[n] for n in self.NAMES[:10]] + [scale] + [t[n] for n in self.NAMES[10:]]
        rc = lib.aclnnFusedFloydAttentionGradGetWorkspaceSize(*args, t.get("workspaceSize", ws),
                                                             t.get("executor", ex))
        return rc, ws, ex

    def run(self, **override):
        rc, ws, ex = self.phase1(**override)
        assert rc == 0, take_msg()
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, max(ws[0], 1), 0) == 0
        try:
            assert lib.aclnnFusedFloydAttentionGrad(p[0], ws[0], ex[0], ffi.NULL) == 0, take_msg()
        finally:
            lib.aclrtFree(p[0])
        return [self.views[n].values() for n in self.NAMES[10:]]


def expect_code(code, rc, *words):
    msg = take_msg()
    assert rc == code, (rc, msg)
    assert msg and "aclnnFusedFloydAttention" in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


@pytest.mark.parametrize("layout", ["offset", "transposed"])
def test_raw_api_strided_outputs_and_guards(views, layout):
    """Every tensor (outputs too) as an offset or reversed-axes view: same values, nothing written outside."""
    dense = GradCall(views, layout="contig").run()
    call = GradCall(views, layout=layout)
    got = call.run()
    for a, b in zip(dense, got):
        assert a.tobytes() == b.tobytes()
    for v in call.views.values():
        assert v.guards_intact()


def test_grad_null_arguments(views):
    call = GradCall(views)
    for name in GradCall.NAMES + ("workspaceSize", "executor"):
        if name == "attenMaskOptional":
            continue
        rc, _, _ = call.phase1(**{name: ffi.NULL})
        expect_code(NULLPTR, rc, name)
    rc, _, ex = call.phase1(attenMaskOptional=ffi.NULL)  # optional
    assert rc == 0, take_msg()
    lib.aclDestroyAclOpExecutor(ex[0])


@pytest.mark.parametrize("soc", ["Ascend950", "Ascend910"])
def test_products_without_the_operator(views, soc):
    call = GradCall(views)
    previous = aclnn_emu.soc_name()
    aclnn_emu.set_soc_name(soc)
    try:
        rc, _, _ = call.phase1()
        expect_code(INVALID, rc, soc)
    finally:
        aclnn_emu.set_soc_name(previous)


CODES = {np.dtype(np.float32): lib.ACL_FLOAT, np.dtype(np.float16): lib.ACL_FLOAT16, BF16: lib.ACL_BF16,
         np.dtype(np.float64): lib.ACL_DOUBLE, np.dtype(bool): lib.ACL_BOOL, np.dtype(np.int8): lib.ACL_INT8,
         np.dtype(np.uint8): lib.ACL_UINT8}


def _tensor_like(views, host, dtype=None, shape=None, fmt=2):
    """A zero tensor in a device block, like ``host`` but with another dtype, shape or format."""
    arr = np.zeros(shape if shape is not None else host.shape, dtype if dtype is not None else host.dtype)
    code = CODES[arr.dtype]
    v = views(arr, acl_dtype=code)
    if fmt == 2:
        return v.tensor
    return make_tensor(arr.shape, code, v.strides, v.offset, [v.base.size], v.block.ptr, fmt)


def test_grad_dtype_errors(views):
    call = GradCall(views)
    rc, _, _ = call.phase1(query=_tensor_like(views, call.host["query"], np.float64))
    expect_code(INVALID, rc, "query", "ACL_DOUBLE")
    for name in ("key1", "value1", "key2", "value2", "dy", "attentionIn", "dqOut", "dk1Out", "dv1Out", "dk2Out",
                 "dv2Out"):
        rc, _, _ = call.phase1(**{name: _tensor_like(views, call.host[name], np.float32)})
        expect_code(INVALID, rc, name, "query")
    for name in ("softmaxMax", "softmaxSum"):
        rc, _, _ = call.phase1(**{name: _tensor_like(views, call.host[name], np.float16)})
        expect_code(INVALID, rc, name, "ACL_FLOAT")
    rc, _, _ = call.phase1(attenMaskOptional=_tensor_like(views, call.host["attenMaskOptional"], np.int8))
    expect_code(INVALID, rc, "attenMaskOptional", "ACL_INT8")
    rc, _, ex = call.phase1(attenMaskOptional=_tensor_like(views, call.host["attenMaskOptional"], np.uint8))
    assert rc == 0, take_msg()
    lib.aclDestroyAclOpExecutor(ex[0])
    # FLOAT tensors: CANN registers the FLOAT grad with a BOOL mask only.
    fcall = GradCall(views, dtype="float32")
    rc, _, _ = fcall.phase1(attenMaskOptional=_tensor_like(views, fcall.host["attenMaskOptional"], np.uint8))
    expect_code(INVALID, rc, "attenMaskOptional", "ACL_BOOL")


def test_grad_private_format(views):
    call = GradCall(views)
    nz = _tensor_like(views, call.host["key2"], fmt=lib.ACL_FORMAT_FRACTAL_NZ)
    rc, _, _ = call.phase1(key2=nz)
    lib.aclDestroyTensor(nz)
    expect_code(INVALID, rc, "key2", "format")


def _shape_cases():
    B, H, N, M, K, D = SMALL
    k1, k2 = (B, H, N, K, D), (B, H, K, M, D)
    stats = (B, H, N, M, 8)
    return [
        ({"query": (B, H, N, M)}, "query", "rank"),
        ({"key1": (B, H, N, K, D, 1)}, "key1", "rank"),
        ({"key2": (H, K, M, D)}, "key2", "rank"),
        ({"query": (B, H, 0, M, D)}, "query", "size 0"),
        ({"key1": (B, H, N, 0, D), "value1": (B, H, N, 0, D)}, "key1", "size 0"),
        ({"key1": (B, H, 2 * N, K, D)}, "key1", "[B, H, N, K, D]"),
        ({"key1": (B, 2, N, K, D)}, "key1", "[B, H, N, K, D]"),
        ({"key2": (B, H, 2 * K, M, D)}, "key2", "[B, H, K, M, D]"),
        ({"key2": (B, H, K, M, 2 * D)}, "key2", "[B, H, K, M, D]"),
        ({"query": (B, H, 8, M, D), "key1": (B, H, 8, K, D), "value1": (B, H, 8, K, D)}, "N", "multiple of 16"),
        ({"query": (B, H, N, 64, D), "key2": (B, H, K, 64, D), "value2": (B, H, K, 64, D)}, "M", "multiple of 128"),
        ({"key1": (B, H, N, 192, D), "value1": (B, H, N, 192, D), "key2": (B, H, 192, M, D),
          "value2": (B, H, 192, M, D)}, "K", "multiple of 128"),
        ({"query": (B, H, N, M, 48), "key1": (B, H, N, K, 48), "key2": (B, H, K, M, 48)}, "D", "32, 64 or 128"),
        ({"softmaxMax": (B, H, N, M, 4)}, "softmaxMax", "[B, H, N, M, 8]"),
        ({"softmaxSum": stats[:4] + (1,)}, "softmaxSum", "[B, H, N, M, 8]"),
        ({"attenMaskOptional": (B, 2, N, 1, K)}, "attenMaskOptional", "[B, 1, N, 1, K]"),
        ({"attenMaskOptional": (B, 1, N, M, K)}, "attenMaskOptional", "[B, 1, N, 1, K]"),
        ({"value1": (B, H, N, K, 64)}, "value1", "key1"),
        ({"value2": k1}, "value2", "key2"),
        ({"dy": (B, H, N, M, 64)}, "dy", "query"),
        ({"attentionIn": (B, H, N, M, 64)}, "attentionIn", "query"),
        ({"dqOut": k2}, "dqOut", "query"),
        ({"dk1Out": (B, H, N, K, 64)}, "dk1Out", "key1"),
        ({"dv1Out": k2}, "dv1Out", "key1"),
        ({"dk2Out": k1}, "dk2Out", "key2"),
        ({"dv2Out": (B, H, K, M, 64)}, "dv2Out", "key2"),
    ]


@pytest.mark.parametrize("case", range(len(_shape_cases())))
def test_grad_shape_errors(views, case):
    changes, name, words = _shape_cases()[case]
    call = GradCall(views)
    override = {}
    for arg, shape in changes.items():
        override[arg] = _tensor_like(views, call.host[arg], shape=shape)
    rc, _, _ = call.phase1(**override)
    expect_code(SHAPE, rc, name, words)


def test_grad_memory_errors(views):
    call = GradCall(views)
    host = call.host["dy"]
    no_data = make_tensor(host.shape, lib.ACL_FLOAT16, None, 0, host.shape, ffi.NULL)
    rc, _, _ = call.phase1(dy=no_data)
    expect_code(INVALID, rc, "dy")
    keep = np.zeros(host.shape, np.float16)
    on_host = make_tensor(host.shape, lib.ACL_FLOAT16, None, 0, host.shape, ffi.from_buffer(keep))
    rc, _, _ = call.phase1(dqOut=on_host)
    expect_code(INVALID, rc, "dqOut")
    lib.aclDestroyTensor(no_data)
    lib.aclDestroyTensor(on_host)


def test_grad_outputs_sharing_memory_are_rejected(views):
    """An output overlapping an input or another output: 161002 naming both (CANN leaves it undefined)."""
    call = GradCall(views)

    def on_block_of(name, like):
        host = call.host[like]
        return make_tensor(host.shape, lib.ACL_FLOAT16, None, 0, host.shape, call.views[name].block.ptr)

    made = [on_block_of("query", "dqOut"), on_block_of("dk1Out", "dv1Out"), on_block_of("value2", "dk2Out")]
    try:
        rc, _, _ = call.phase1(dqOut=made[0])
        expect_code(INVALID, rc, "dqOut", "shares memory with query")
        rc, _, _ = call.phase1(dv1Out=made[1])
        expect_code(INVALID, rc, "dv1Out", "shares memory with dk1Out")
        rc, _, _ = call.phase1(dk2Out=made[2])
        expect_code(INVALID, rc, "dk2Out", "value2")
    finally:
        for t in made:
            lib.aclDestroyTensor(t)


def test_grad_self_overlapping_output_is_written_in_row_order(views):
    """dv2Out with stride 0 on every axis but D: one writer, rows in order, so the last row wins for any
    thread count (two threads writing it back raced before)."""
    expected = GradCall(views).run()[4][0, 0, -1, -1]  # dv2[b, h, K-1, M-1, :]
    assert np.abs(expected.astype(np.float32)).max() > 0
    D = SMALL[-1]
    previous = aclnn_emu.get_num_threads()
    got = []
    try:
        for threads in (1, 2):
            aclnn_emu.set_num_threads(threads)
            call = GradCall(views)
            block = Block(np.zeros(D, np.float16))
            t = make_tensor(call.host["dv2Out"].shape, lib.ACL_FLOAT16, (0, 0, 0, 0, 1), 0, [D], block.ptr)
            try:
                call.run(dv2Out=t)
                got.append(block.read())
            finally:
                lib.aclDestroyTensor(t)
                block.free()
    finally:
        aclnn_emu.set_num_threads(previous)
    for row in got:
        assert row.tobytes() == expected.tobytes()


def test_forward_errors_through_python():
    q, k1, v1, k2, v2, mask = make_inputs(SMALL, "float32", seed=17, mask_kind="uint8")
    aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 1.0)  # FLOAT with UINT8: the forward takes it
    cases = [
        ((q.astype(np.float64), k1, v1, k2, v2, None), INVALID, "query"),
        ((q, k1.astype(np.float16), v1, k2, v2, None), INVALID, "key1"),
        ((q, k1, v1, k2, v2, mask.astype(np.int32)), INVALID, "attenMaskOptional"),
        ((q, k1, v1[..., :16], k2, v2, None), SHAPE, "value1"),
        ((q, k1, v1, k2, v2[:, :, :64], None), SHAPE, "value2"),
        ((q, k1, v1, k2, v2, mask[..., :64]), SHAPE, "attenMaskOptional"),
        ((q[:, :, :8], k1[:, :, :8], v1[:, :, :8], k2, v2, None), SHAPE, "N"),
        ((q, k1[:, :, :, :64], v1[:, :, :, :64], k2[:, :, :64], v2[:, :, :64], None), SHAPE, "K"),
    ]
    for args, code, word in cases:
        with pytest.raises(AclnnError) as err:
            aclnn_emu.fused_floyd_attention(*args, scale=1.0)
        assert err.value.code == code, (word, err.value)
        assert word in err.value.message and "aclnnFusedFloydAttention" in err.value.message, err.value.message


def test_grad_errors_through_python():
    q, k1, v1, k2, v2, mask = make_inputs(SMALL, "float16", seed=18, mask_kind="bool")
    out, smax, ssum = aclnn_emu.fused_floyd_attention(q, k1, v1, k2, v2, mask, 1.0)
    with pytest.raises(AclnnError) as err:
        aclnn_emu.fused_floyd_attention_grad(q, k1, v1, k2, v2, q, mask, smax[..., :4], ssum, out, 1.0)
    assert err.value.code == SHAPE and "softmaxMax" in err.value.message
    with pytest.raises(AclnnError) as err:
        aclnn_emu.fused_floyd_attention_grad(q, k1, v1, k2, v2, q.astype(np.float32), mask, smax, ssum, out, 1.0)
    assert err.value.code == INVALID and "dy" in err.value.message


def test_workspace_too_small_and_repeatable_executor(views):
    call = GradCall(views)
    rc, ws, ex = call.phase1()
    assert rc == 0 and ws[0] > 0
    p = ffi.new("void **")
    assert lib.aclrtMalloc(p, ws[0], 0) == 0
    try:
        assert lib.aclSetAclOpExecutorRepeatable(ex[0]) == 0
        rc = lib.aclnnFusedFloydAttentionGrad(p[0], ws[0] - 1, ex[0], ffi.NULL)
        expect_code(INVALID, rc, "workspaceSize")
        assert lib.aclnnFusedFloydAttentionGrad(p[0], ws[0], ex[0], ffi.NULL) == 0, take_msg()
        first = [call.views[n].values() for n in GradCall.NAMES[10:]]
        assert lib.aclnnFusedFloydAttentionGrad(p[0], ws[0], ex[0], ffi.NULL) == 0, take_msg()
        again = [call.views[n].values() for n in GradCall.NAMES[10:]]
        for a, b in zip(first, again):
            assert a.tobytes() == b.tobytes()
    finally:
        lib.aclDestroyAclOpExecutor(ex[0])
        lib.aclrtFree(p[0])
