"""aclnnMoeTokenPermuteGrad and aclnnMoeTokenPermute: results against
float64 numpy references (and, for the grad, bit for bit against a float32
model of the documented summation order), index skipping proven by guard
rows, the forward -> backward round trip, strided views, empty tensors,
thread counts and ISA levels, and every phase-1 validation rule with its
code and the argument its message names (include/aclnnop/aclnn_moe_token_permute*.h)."""

import re

import aclnn_emu
import numpy as np
import pytest
from aclnn_emu import ffi, lib
from helpers import BF16, Block, kernel_level, last_kernel, make_tensor, take_msg
from reference import assert_precision

NULL = ffi.NULL
NULLPTR, INVALID, TILING = 161001, 161002, 561002
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
F32, F16, BF, F64, I32, I64, I8 = 0, 1, 27, 11, 3, 9, 2


@pytest.fixture(autouse=True)
def clean_messages():
    take_msg()
    yield
    take_msg()


# ------------------------------------------------------------------ references


def grad_ref(grad, idx, k):
    """float64 gather-sum: out[t] = sum_j grad[idx[t*k+j]] over indices in [0, rows)."""
    g = grad.astype(np.float64)
    rows, width = g.shape
    idx = np.asarray(idx, np.int64).reshape(-1, k)
    out = np.zeros((idx.shape[0], width))
    for j in range(k):
        col = idx[:, j]
        ok = (col >= 0) & (col < rows)
        out[ok] += g[col[ok]]
    return out


def grad_fp32_model(grad, idx, k):
    """The documented order in float32: first kept row, then one add per kept row, rounded once (RNE)."""
    g = grad.astype(np.float32)
    rows, width = g.shape
    idx = np.asarray(idx, np.int64).reshape(-1, k)
    out = np.zeros((idx.shape[0], width), np.float32)
    started = np.zeros(idx.shape[0], bool)
    for j in range(k):
        col = idx[:, j]
        ok = (col >= 0) & (col < rows)
        first = ok & ~started
        more = ok & started
        out[first] = g[col[first]]
        out[more] = out[more] + g[col[more]]
        started |= ok
    return out.astype(grad.dtype)


def permute_ref(tokens, indices, num_out):
    """numpy's stable argsort twice, and the copies, as the aclnn doc writes them."""
    flat = np.asarray(indices).reshape(-1).astype(np.int64)
    topk = indices.shape[1] if np.ndim(indices) == 2 else 1
    first = np.argsort(flat, kind="stable")
    sorted_out = np.argsort(first, kind="stable").astype(np.int32)
    n = flat.size
    kept = min(num_out, n) if num_out > 0 else max(num_out + n, 0)
    permuted = tokens[first[:kept] // topk] if n else tokens[:0]
    return permuted, sorted_out, kept


def case_id(case):
    return re.sub(r"[^\w.-]+", "_", repr(case)).strip("_")


def bits(a):
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def routing(rng, tokens, topk, experts, drop=0):
    """indices [tokens, topk] of distinct experts per token, the forward's sorted indices, and kept rows."""
    ids = np.argsort(rng.random((tokens, max(experts, topk))), axis=1)[:, :topk].astype(np.int32)
    first = np.argsort(ids.reshape(-1), kind="stable")
    sorted_idx = np.argsort(first, kind="stable").astype(np.int32)
    return ids, sorted_idx, tokens * topk - drop


def values(rng, shape, dtype, lo=0.5, hi=1.5, signs=False):
    v = rng.uniform(lo, hi, shape)
    if signs:
        v *= rng.choice([-1.0, 1.0], shape)
    return v.astype(DTYPES[dtype])


# ------------------------------------------------------------------ raw C calls


def phase2(run, ws_size, executor):
    work = NULL
    if ws_size:
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, ws_size, 0) == 0
        work = p[0]
    try:
        rc = run(work, ws_size, executor, NULL)
        assert rc == 0, (rc, take_msg())
    finally:
        if work != NULL:
            lib.aclrtFree(work)


def c_grad(tg, ti, k, to, padded=False):
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = lib.aclnnMoeTokenPermuteGradGetWorkspaceSize(tg, ti, k, padded, to, ws, ex)
    assert rc == 0, (rc, take_msg())
    phase2(lib.aclnnMoeTokenPermuteGrad, ws[0], ex[0])
    return ws[0]


def c_permute(tt, ti, num_out, tp, ts):
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = lib.aclnnMoeTokenPermuteGetWorkspaceSize(tt, ti, num_out, False, tp, ts, ws, ex)
    assert rc == 0, (rc, take_msg())
    phase2(lib.aclnnMoeTokenPermute, ws[0], ex[0])
    return ws[0]


INT_CODES = {np.dtype(np.int32): I32, np.dtype(np.int64): I64}


@pytest.fixture
def views(views):
    """conftest's guarded device views, with the aclDataType of integer arrays filled in."""

    def make(values, layout="contig", **kw):
        dt = np.asarray(values).dtype
        if dt in INT_CODES and "acl_dtype" not in kw:
            kw["acl_dtype"] = INT_CODES[dt]
        return views(values, layout, **kw)

    return make


@pytest.fixture
def restore_isa():
    previous = lib.aclnnEmuGetIsa()
    yield
    lib.aclnnEmuSetIsaCap(previous)


@pytest.fixture
def restore_threads():
    previous = lib.aclnnEmuGetNumThreads()
    yield
    lib.aclnnEmuSetNumThreads(previous)


# ------------------------------------------------------------------ grad precision

HIDDEN = [1, 7, 16, 17, 4096, 7168]
TOPK = [1, 2, 8, 64, 512, 1000]


@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grad_hidden_sizes(isa, dtype, hidden):
    rng = np.random.default_rng(hidden)
    tokens = 3 if hidden >= 4096 else 37
    _, sorted_idx, rows = routing(rng, tokens, 8, 16, drop=5)
    grad = values(rng, (rows, hidden), dtype)
    out = aclnn_emu.moe_token_permute_grad(grad, sorted_idx, 8)
    assert out.shape == (tokens, hidden) and out.dtype == grad.dtype
    assert_precision(out, grad_ref(grad, sorted_idx, 8), dtype)
    assert kernel_level(isa) in last_kernel(), last_kernel()


@pytest.mark.parametrize("topk", TOPK)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grad_topk(isa, dtype, topk):
    rng = np.random.default_rng(topk)
    tokens = max(2, 256 // topk)
    _, sorted_idx, rows = routing(rng, tokens, topk, topk + 3, drop=topk // 2)
    grad = values(rng, (rows, 17), dtype)
    out = aclnn_emu.moe_token_permute_grad(grad, sorted_idx, topk)
    assert_precision(out, grad_ref(grad, sorted_idx, topk), dtype)


@pytest.mark.parametrize("topk,hidden", [(512, 4096), (1000, 7168), (64, 7168)])
def test_grad_large_topk_wide_rows(topk, hidden):
    rng = np.random.default_rng(7)
    _, sorted_idx, rows = routing(rng, 1, topk, topk)
    grad = values(rng, (rows, hidden), "bfloat16")
    out = aclnn_emu.moe_token_permute_grad(grad, sorted_idx, topk)
    assert_precision(out, grad_ref(grad, sorted_idx, topk), "bfloat16")


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("hidden", [1, 17, 64, 77, 200])
def test_grad_bit_exact_order_with_signs(isa, dtype, hidden):
    """Mixed signs cancel (no relative bound holds there), so the order is
    checked instead: float32 sums in increasing k, one rounding at the end."""
    rng = np.random.default_rng(hidden + 1)
    _, sorted_idx, rows = routing(rng, 29, 6, 9, drop=7)
    sorted_idx[::5] = -3
    grad = values(rng, (rows, hidden), dtype, -4, 4)
    grad[0, 0] = -0.0
    out = aclnn_emu.moe_token_permute_grad(grad, sorted_idx, 6)
    np.testing.assert_array_equal(bits(out), bits(grad_fp32_model(grad, sorted_idx, 6)))


def test_grad_lone_negative_zero_and_no_rows():
    """A token with one kept row of -0.0 keeps -0.0; a token with none gets +0.0."""
    grad = np.array([[-0.0, 1.0], [2.0, -0.0]], np.float32)
    out = aclnn_emu.moe_token_permute_grad(grad, np.array([0, 5, 9, -1], np.int32), 2)
    assert np.signbit(out[0, 0]) and out[0, 1] == 1.0
    assert not np.signbit(out[1]).any() and (out[1] == 0).all()


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grad_duplicated_experts(dtype):
    """Repeated indices (inside one token and across tokens) each count once per occurrence."""
    rng = np.random.default_rng(3)
    grad = values(rng, (5, 33), dtype)
    idx = np.array([0, 0, 0, 4, 2, 2, 2, 2, 4, 4, 1, 0], np.int32)
    out = aclnn_emu.moe_token_permute_grad(grad, idx, 4)
    ref = grad_ref(grad, idx, 4)
    np.testing.assert_allclose(ref[0], 3 * grad[0].astype(np.float64) + grad[4].astype(np.float64))
    assert_precision(out, ref, dtype)


# ------------------------------------------------------------------ index skipping


class GuardedGrad:
    """permutedOutputGrad rows inside a block whose rows before and after hold NaN."""

    def __init__(self, grad, guard_rows=2):
        rows, width = grad.shape
        base = np.full(((rows + 2 * guard_rows) * width,), np.nan, grad.dtype)
        base[guard_rows * width:(guard_rows + rows) * width] = grad.reshape(-1)
        self.base = base
        self.block = Block(base)
        code = {np.dtype(np.float32): F32, np.dtype(np.float16): F16, BF16: BF}[grad.dtype]
        self.tensor = make_tensor((rows, width), code, (width, 1), guard_rows * width, [base.size], self.block.ptr)

    def close(self):
        lib.aclDestroyTensor(self.tensor)
        self.block.free()


@pytest.mark.parametrize("width", [5, 40, 200])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grad_skips_out_of_range_and_negative_indices_without_reading(views, isa, dtype, width):
    """Rows -2..-1 and rows..rows+1 are NaN guards: reading any skipped index would show."""
    rng = np.random.default_rng(11)
    rows, k = 6, 4
    grad = values(rng, (rows, width), dtype)
    idx = np.array([0, -1, 5, 6,  -2147483648, 2147483647, 3, 1,  -1, 6, 7, 100,  2, 2, -5, 4], np.int32)
    g = GuardedGrad(grad)
    try:
        vi = views(idx, guard=-9)
        vo = views(np.zeros((4, width), grad.dtype), guard=7.0)
        c_grad(g.tensor, vi.tensor, k, vo.tensor)
        out = vo.values()
        assert not np.isnan(out.astype(np.float64)).any()  # no guard row was read
        np.testing.assert_array_equal(bits(out), bits(grad_fp32_model(grad, idx, k)))
        assert (out[2] == 0).all()  # a token whose indices are all skipped
        assert vo.guards_intact() and vi.untouched()
        assert np.array_equal(g.block.read(), g.base, equal_nan=True)
    finally:
        g.close()


def test_grad_empty_grad_rows_give_zeros(views):
    """permutedOutputGrad [0, H] (every row dropped): every index is skipped, out is zero."""
    blk = Block(np.zeros(4, np.float32))
    t = make_tensor((0, 3), F32, (3, 1), 0, [4], blk.ptr)
    try:
        vi = views(np.array([0, 1, 2, 3], np.int32))
        vo = views(np.full((2, 3), 5.0, np.float32))
        c_grad(t, vi.tensor, 2, vo.tensor)
        assert (vo.values() == 0).all() and vo.guards_intact()
    finally:
        lib.aclDestroyTensor(t)
        blk.free()


@pytest.mark.parametrize("shapes", [((4, 3), (0,), 2, (0, 3)), ((4, 0), (6,), 3, (2, 0)), ((0, 0), (0,), 5, (0, 0))],
                         ids=["no-tokens", "no-hidden", "all-empty"])
def test_grad_empty_tensors(views, shapes):
    gshape, ishape, k, oshape = shapes
    vg = views(np.ones(gshape, np.float32))
    vi = views(np.zeros(ishape, np.int32))
    vo = views(np.zeros(oshape, np.float32), guard=3.0)
    assert c_grad(vg.tensor, vi.tensor, k, vo.tensor) == 0
    assert vo.untouched() and vg.untouched()


# ------------------------------------------------------------------ strided views

GRAD_LAYOUTS = [("transposed", "contig", "contig"), ("offset", "contig", "contig"), ("contig", "transposed", "contig"),
                ("contig", "contig", "transposed"), ("contig", "contig", "offset"),
                ("transposed", "transposed", "transposed"), ("offset", "offset", "offset")]


@pytest.mark.parametrize("layouts", GRAD_LAYOUTS, ids=["-".join(c) for c in GRAD_LAYOUTS])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grad_strided_views(views, dtype, layouts):
    rng = np.random.default_rng(5)
    _, sorted_idx, rows = routing(rng, 9, 3, 5, drop=4)
    grad = values(rng, (rows, 19), dtype, -2, 2)
    vg = views(grad, layouts[0], guard=np.nan)
    vi = views(sorted_idx, layouts[1], guard=-1)
    vo = views(np.zeros((9, 19), grad.dtype), layouts[2], guard=-13.0)
    c_grad(vg.tensor, vi.tensor, 3, vo.tensor)
    np.testing.assert_array_equal(bits(vo.values()), bits(grad_fp32_model(grad, sorted_idx, 3)))
    assert vo.guards_intact() and vg.untouched() and vi.untouched()


def test_grad_overlapping_output_rows_are_staged(views):
    """out rows with stride 0 overlap: written through the workspace, the last row wins."""
    grad = np.arange(12, dtype=np.float32).reshape(4, 3)
    blk = Block(np.zeros(3 + 16, np.float32))
    t = make_tensor((2, 3), F32, (0, 1), 0, [19], blk.ptr)
    try:
        vg, vi = views(grad), views(np.array([0, 1, 2, 3], np.int32))
        assert c_grad(vg.tensor, vi.tensor, 2, t) > 0
        np.testing.assert_array_equal(blk.read()[:3], grad[2] + grad[3])
        assert (blk.read()[3:] == 0).all()
    finally:
        lib.aclDestroyTensor(t)
        blk.free()


def test_outputs_sharing_memory_are_rejected(views):
    """An output overlapping an input or the other output: 161002 naming both, nothing written."""
    tokens = np.arange(8, dtype=np.float16).reshape(2, 4)
    vt, vi = views(tokens), views(np.array([[1], [0]], np.int32))
    vs = views(np.zeros(2, np.int32))
    made = []

    def alias(view, shape, dtype, offset):
        t = make_tensor(shape, dtype, None, offset, [view.block.size], view.block.ptr)
        made.append(t)
        return t

    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    try:
        out_on_tokens = alias(vt, (2, 4), lib.ACL_FLOAT16, 1)
        rc = lib.aclnnMoeTokenPermuteGetWorkspaceSize(vt.tensor, vi.tensor, 0, False, out_on_tokens, vs.tensor, ws, ex)
        msg = take_msg()
        assert rc == INVALID and "permuteTokensOut" in msg and "shares memory with tokens" in msg, (rc, msg)
        vp = views(np.zeros((2, 4), np.float16))
        sorted_on_ids = alias(vi, (2,), lib.ACL_INT32, 0)
        rc = lib.aclnnMoeTokenPermuteGetWorkspaceSize(vt.tensor, vi.tensor, 0, False, vp.tensor, sorted_on_ids, ws, ex)
        msg = take_msg()
        assert rc == INVALID and "sortedIndicesOut" in msg and "indices" in msg, (rc, msg)
        grad = views(np.ones((2, 4), np.float32))
        sorted_idx = views(np.array([0, 1], np.int32))
        out_on_grad = alias(grad, (2, 4), lib.ACL_FLOAT, 0)
        rc = lib.aclnnMoeTokenPermuteGradGetWorkspaceSize(grad.tensor, sorted_idx.tensor, 1, False, out_on_grad, ws, ex)
        msg = take_msg()
        assert rc == INVALID and "shares memory with permutedOutputGrad" in msg, (rc, msg)
        assert vt.untouched() and grad.untouched() and vi.untouched()
    finally:
        for t in made:
            lib.aclDestroyTensor(t)


def test_rebinding_an_output_onto_an_input_is_refused_at_launch(views):
    """Phase 1 refuses overlapping outputs; an address rebound later is refused by phase 2 (no memcpy on
    overlapping rows), and the executor runs again once rebound apart."""
    tokens = np.arange(8, dtype=np.float16).reshape(2, 4)
    vt, vi = views(tokens), views(np.array([[1], [0]], np.int32))
    vp, vs = views(np.zeros((2, 4), np.float16)), views(np.zeros(2, np.int32))
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    assert lib.aclnnMoeTokenPermuteGetWorkspaceSize(vt.tensor, vi.tensor, 0, False, vp.tensor, vs.tensor, ws, ex) == 0
    assert lib.aclSetAclOpExecutorRepeatable(ex[0]) == 0
    p = ffi.new("void **")
    assert lib.aclrtMalloc(p, max(ws[0], 1), 0) == 0
    try:
        assert lib.aclSetOutputTensorAddr(ex[0], 0, NULL, ffi.cast("char *", vt.block.ptr) + 2) == 0
        rc = lib.aclnnMoeTokenPermute(p[0], ws[0], ex[0], NULL)
        msg = take_msg()
        assert rc == INVALID and "permuteTokensOut (output 0) shares memory with tokens (input 0)" in msg, (rc, msg)
        assert vt.untouched()
        assert lib.aclSetOutputTensorAddr(ex[0], 0, NULL, vp.block.ptr) == 0
        assert lib.aclnnMoeTokenPermute(p[0], ws[0], ex[0], NULL) == 0, take_msg()
        np.testing.assert_array_equal(vp.values(), tokens[[1, 0]])
    finally:
        lib.aclDestroyAclOpExecutor(ex[0])
        lib.aclrtFree(p[0])


# ------------------------------------------------------------------ threads and ISAs


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grad_threads_bit_identical(restore_threads, dtype):
    rng = np.random.default_rng(21)
    _, sorted_idx, rows = routing(rng, 64, 8, 32, drop=40)
    grad = values(rng, (rows, 4096), dtype, -3, 3)
    outs = []
    for t in (1, 2):
        assert lib.aclnnEmuSetNumThreads(t) == 0
        outs.append(aclnn_emu.moe_token_permute_grad(grad, sorted_idx, 8))
    np.testing.assert_array_equal(bits(outs[0]), bits(outs[1]))
    np.testing.assert_array_equal(bits(outs[0]), bits(grad_fp32_model(grad, sorted_idx, 8)))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grad_isa_levels_bit_identical(restore_isa, dtype):
    rng = np.random.default_rng(22)
    _, sorted_idx, rows = routing(rng, 16, 5, 12, drop=9)
    grad = values(rng, (rows, 211), dtype, -3, 3)
    grad[3, ::7] = np.inf
    sorted_idx[::4] = -1
    sorted_idx[1::9] = rows + 1
    results = {}
    for name in aclnn_emu.available_isas():
        assert lib.aclnnEmuSetIsaCap(aclnn_emu.available_isas().index(name)) == 0
        results[name] = aclnn_emu.moe_token_permute_grad(grad, sorted_idx, 5)
        assert kernel_level(name) in last_kernel() and "moe_gather_sum" in last_kernel()
    for name, out in results.items():
        np.testing.assert_array_equal(bits(out), bits(results["scalar"]), err_msg=name)


# ------------------------------------------------------------------ forward


@pytest.mark.parametrize("num_out", [0, 1, 7, 24, 1000, -1, -5, -24, -1000])
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_permute_matches_numpy(isa, idtype, num_out):
    rng = np.random.default_rng(abs(num_out) + 3)
    tokens = values(rng, (8, 5, 3), "float32", -1, 1)
    indices = rng.integers(0, 6, (8, 3)).astype(idtype)
    permuted, sorted_out = aclnn_emu.moe_token_permute(tokens, indices, num_out)
    ref_p, ref_s, kept = permute_ref(tokens, indices, num_out)
    assert permuted.shape == (kept, 5, 3)
    np.testing.assert_array_equal(sorted_out, ref_s)
    np.testing.assert_array_equal(bits(permuted), bits(ref_p))


def test_permute_official_example():
    x = np.repeat(np.array([[0.1], [0.2], [0.3]], np.float32), 4, axis=1)
    p, s = aclnn_emu.moe_token_permute(x, np.array([[1, 2], [0, 1], [0, 2]], np.int32))
    np.testing.assert_array_equal(s, [2, 4, 0, 3, 1, 5])
    np.testing.assert_array_equal(p[:, 0], np.float32([0.2, 0.3, 0.1, 0.2, 0.1, 0.3]))


def test_permute_inverse_not_forward_map():
    """sortedIndicesOut is argsort(argsort(ids)), not argsort(ids) (they differ for this routing)."""
    ids = np.array([[3, 0], [2, 1], [0, 3]], np.int32)
    first = np.argsort(ids.reshape(-1), kind="stable")
    assert not np.array_equal(first, np.argsort(first))
    _, s = aclnn_emu.moe_token_permute(np.ones((3, 2), np.float32), ids)
    np.testing.assert_array_equal(s, np.argsort(first))


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_permute_negative_and_huge_ids_sort_by_value(idtype):
    info = np.iinfo(idtype)
    ids = np.array([[info.max, -1], [0, info.min], [5, 1 << 20], [-1, info.max], [info.min, 0]], idtype)
    tokens = np.arange(10, dtype=np.float32).reshape(5, 2)
    p, s = aclnn_emu.moe_token_permute(tokens, ids)
    ref_p, ref_s, _ = permute_ref(tokens, ids, 0)
    np.testing.assert_array_equal(s, ref_s)
    np.testing.assert_array_equal(p, ref_p)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_permute_large_random_and_1d_indices(isa, dtype):
    rng = np.random.default_rng(9)
    tokens = values(rng, (300, 129), dtype, -1, 1)
    for indices in (rng.integers(0, 64, (300, 8)).astype(np.int32), rng.integers(-9, 9, 300).astype(np.int64)):
        p, s = aclnn_emu.moe_token_permute(tokens, indices, -17)
        ref_p, ref_s, _ = permute_ref(tokens, indices, -17)
        np.testing.assert_array_equal(s, ref_s)
        np.testing.assert_array_equal(bits(p), bits(ref_p))


PERMUTE_LAYOUTS = [("transposed", "contig", "contig", "contig"), ("contig", "transposed", "contig", "contig"),
                   ("offset", "offset", "offset", "offset"), ("contig", "contig", "transposed", "transposed"),
                   ("transposed", "transposed", "transposed", "offset")]


@pytest.mark.parametrize("layouts", PERMUTE_LAYOUTS, ids=["-".join(c) for c in PERMUTE_LAYOUTS])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_permute_strided_views(views, dtype, layouts):
    rng = np.random.default_rng(4)
    tokens = values(rng, (7, 6), dtype, -1, 1)
    indices = rng.integers(0, 4, (7, 3)).astype(np.int32)
    ref_p, ref_s, kept = permute_ref(tokens, indices, 15)
    vt, vi = views(tokens, layouts[0], guard=np.nan), views(indices, layouts[1], guard=77)
    vp = views(np.zeros((kept, 6), tokens.dtype), layouts[2], guard=-3.0)
    vs = views(np.zeros(21, np.int32), layouts[3], guard=-8)
    c_permute(vt.tensor, vi.tensor, 15, vp.tensor, vs.tensor)
    np.testing.assert_array_equal(vs.values(), ref_s)
    np.testing.assert_array_equal(bits(vp.values()), bits(ref_p))
    assert vp.guards_intact() and vs.guards_intact() and vt.untouched() and vi.untouched()


@pytest.mark.parametrize("shapes", [((0, 4), (0, 2), 0, (0, 4), (0,)), ((3, 0), (3, 2), 0, (6, 0), (6,)),
                                    ((3, 4), (3, 0), 0, (0, 4), (0,)), ((3, 4), (3, 2), -6, (0, 4), (6,))],
                         ids=["no-tokens", "no-hidden", "no-topk", "all-dropped"])
def test_permute_empty(views, shapes):
    tshape, ishape, num_out, pshape, sshape = shapes
    vt, vi = views(np.ones(tshape, np.float32)), views(np.array(np.arange(np.prod(ishape)).reshape(ishape) % 3,
                                                                  np.int32))
    vp, vs = views(np.zeros(pshape, np.float32), guard=1.0), views(np.full(sshape, -4, np.int32), guard=-8)
    c_permute(vt.tensor, vi.tensor, num_out, vp.tensor, vs.tensor)
    ref = permute_ref(np.ones(tshape, np.float32), np.arange(np.prod(ishape)).reshape(ishape) % 3, num_out)
    np.testing.assert_array_equal(vs.values(), ref[1])
    assert vp.untouched() and vs.guards_intact()


def test_permute_threads_and_isas_agree(restore_threads, restore_isa):
    rng = np.random.default_rng(30)
    tokens = values(rng, (512, 700), "bfloat16", -1, 1)
    indices = rng.integers(0, 32, (512, 8)).astype(np.int32)
    results = []
    for name in aclnn_emu.available_isas():
        assert lib.aclnnEmuSetIsaCap(aclnn_emu.available_isas().index(name)) == 0
        for t in (1, 2):
            assert lib.aclnnEmuSetNumThreads(t) == 0
            results.append(aclnn_emu.moe_token_permute(tokens, indices, 3000))
            assert kernel_level(name) in last_kernel()
    ref_p, ref_s, _ = permute_ref(tokens, indices, 3000)
    for p, s in results:
        np.testing.assert_array_equal(s, ref_s)
        np.testing.assert_array_equal(bits(p), bits(ref_p))


# ------------------------------------------------------------------ round trip


@pytest.mark.parametrize("num_out", [0, 100, -37, 1])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_round_trip_gradient(dtype, num_out):
    """d/dtokens of sum(permuted * w) through moe_token_permute_grad equals a
    scatter-add (Megatron's formulation) of w through the forward map."""
    rng = np.random.default_rng(abs(num_out) + 1)
    T, k, H = 40, 4, 24
    tokens = values(rng, (T, H), dtype, -1, 1)
    indices = rng.integers(0, 7, (T, k)).astype(np.int32)
    permuted, sorted_idx = aclnn_emu.moe_token_permute(tokens, indices, num_out)
    w = values(rng, permuted.shape, dtype)
    grad = aclnn_emu.moe_token_permute_grad(w, sorted_idx, k)
    first = np.argsort(indices.reshape(-1), kind="stable")[:permuted.shape[0]]
    ref = np.zeros((T, H))
    np.add.at(ref, first // k, w.astype(np.float64))
    dropped = np.setdiff1d(np.arange(T), first // k)
    assert (grad[dropped] == 0).all()
    kept = np.unique(first // k)
    assert_precision(grad[kept], ref[kept], dtype)
    # the forward itself: permuted rows are the tokens' rows
    np.testing.assert_array_equal(bits(permuted), bits(tokens[first // k]))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_round_trip_gradient_of_3d_tokens(dtype):
    """The forward takes [T, A, B] tokens (rows are all dimensions after the
    first); its gradient takes the [R, A, B] gradient of that same call and
    gives [T, A, B], the same numbers as the 2-D [T, A * B] call."""
    rng = np.random.default_rng(3)
    T, k, A, B = 12, 2, 3, 8
    tokens = values(rng, (T, A, B), dtype, -1, 1)
    indices = rng.integers(0, 5, (T, k)).astype(np.int32)
    permuted, sorted_idx = aclnn_emu.moe_token_permute(tokens, indices)
    assert permuted.shape == (T * k, A, B)
    w = values(rng, permuted.shape, dtype, signs=True)
    grad = aclnn_emu.moe_token_permute_grad(w, sorted_idx, k)
    assert grad.shape == (T, A, B) and grad.dtype == w.dtype
    flat = aclnn_emu.moe_token_permute_grad(w.reshape(T * k, A * B), sorted_idx, k)
    np.testing.assert_array_equal(bits(grad.reshape(T, A * B)), bits(flat))
    assert_precision(grad.reshape(T, A * B), grad_ref(w.reshape(T * k, A * B).astype(np.float64), sorted_idx, k),
                     dtype)


def test_grad_3d_gradient_into_a_2d_out(views):
    # out may also be the flat [T, A * B] rows; other shapes stay refused (561002, naming out).
    assert GradArgs(views, gshape=(8, 2, 2), oshape=(2, 4)).call()[0] == 0
    assert GradArgs(views, gshape=(8, 2, 2), oshape=(2, 2, 2)).call()[0] == 0
    expect_grad(GradArgs(views, gshape=(8, 2, 2), oshape=(2, 2, 1, 2)), TILING, "out")
    expect_grad(GradArgs(views, gshape=(8, 2, 2), oshape=(2, 1, 4)), TILING, "out")


# ------------------------------------------------------------------ validation: grad


class GradArgs:
    def __init__(self, views, gshape=(8, 4), gcode=F32, ishape=(8,), icode=I32, oshape=(2, 4), ocode=F32):
        self.vg = views(np.zeros(gshape, np.float32), acl_dtype=gcode)
        self.vi = views(np.zeros(ishape, np.int32), acl_dtype=icode)
        self.vo = views(np.full(oshape, 2.0, np.float32), acl_dtype=ocode)

    def call(self, k=4, padded=False, g=True, i=True, o=True, ws=True, ex=True):
        wsp = ffi.new("uint64_t *") if ws else NULL
        exp = ffi.new("aclOpExecutor **") if ex else NULL
        rc = lib.aclnnMoeTokenPermuteGradGetWorkspaceSize(self.vg.tensor if g else NULL, self.vi.tensor if i else NULL,
                                                          k, padded, self.vo.tensor if o else NULL, wsp, exp)
        msg = take_msg()
        if exp != NULL:
            assert exp[0] == NULL or rc == 0
        assert self.vo.untouched()
        return rc, msg


def expect_grad(args, code, word, **kw):
    rc, msg = args.call(**kw)
    assert rc == code, (rc, msg)
    assert "aclnnMoeTokenPermuteGradGetWorkspaceSize" in msg and word in msg, msg


def test_grad_validation_nulls(views):
    a = GradArgs(views)
    expect_grad(a, NULLPTR, "workspaceSize", ws=False, g=False)
    expect_grad(a, NULLPTR, "executor", ex=False)
    expect_grad(a, NULLPTR, "permutedOutputGrad", g=False)
    expect_grad(a, NULLPTR, "sortedIndices", i=False)
    expect_grad(a, NULLPTR, "out", o=False)
    assert a.call()[0] == 0


@pytest.mark.parametrize("case", [
    ({"gcode": F64}, "permutedOutputGrad"), ({"gcode": I32}, "permutedOutputGrad"),
    ({"icode": I64}, "sortedIndices"), ({"icode": F32}, "sortedIndices"),
    ({"ocode": F16}, "out"), ({"gcode": BF, "ocode": F32}, "out"), ({"ocode": I8}, "out")],
    ids=case_id)
def test_grad_validation_dtypes(views, case):
    kw, word = case
    expect_grad(GradArgs(views, **kw), INVALID, word)


def test_grad_validation_attributes(views):
    a = GradArgs(views)
    expect_grad(a, INVALID, "paddedMode", padded=True)
    expect_grad(a, INVALID, "numTopk", k=0)
    expect_grad(a, INVALID, "numTopk", k=-1)
    expect_grad(a, INVALID, "numTopk", k=3)  # 8 indices
    assert GradArgs(views, ishape=(1024,), oshape=(1, 4)).call(k=1024)[0] == 0  # > 512 accepted


@pytest.mark.parametrize("case", [
    ({"gshape": (8, 4, 2)}, "out"), ({"gshape": (32,)}, "permutedOutputGrad"),
    ({"ishape": (2, 4)}, "sortedIndices"), ({"oshape": (2, 5)}, "out"), ({"oshape": (3, 4)}, "out"),
    ({"oshape": (8,)}, "out"), ({"oshape": (2, 4, 1)}, "out")],
    ids=case_id)
def test_grad_validation_shapes(views, case):
    kw, word = case
    expect_grad(GradArgs(views, **kw), TILING, word)


def test_grad_validation_device_memory(views):
    a = GradArgs(views)
    host = np.zeros(8, np.int32)
    t = make_tensor((8,), I32, None, 0, [8], ffi.from_buffer(host))
    try:
        rc = lib.aclnnMoeTokenPermuteGradGetWorkspaceSize(a.vg.tensor, t, 4, False, a.vo.tensor,
                                                          ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"))
        assert rc == INVALID
        assert "sortedIndices" in take_msg()
    finally:
        lib.aclDestroyTensor(t)
    t = make_tensor((8,), I32, None, 0, [8], NULL)
    try:
        rc = lib.aclnnMoeTokenPermuteGradGetWorkspaceSize(a.vg.tensor, t, 4, False, a.vo.tensor,
                                                          ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"))
        assert rc == INVALID
        assert "sortedIndices" in take_msg()
    finally:
        lib.aclDestroyTensor(t)


def test_python_grad_errors_name_the_argument():
    with pytest.raises(aclnn_emu.AclnnError) as e:
        aclnn_emu.moe_token_permute_grad(np.zeros((4, 2), np.float32), np.zeros(4, np.int64), 2)
    assert e.value.code == INVALID and "sortedIndices" in str(e.value)
    with pytest.raises(aclnn_emu.AclnnError) as e:
        aclnn_emu.moe_token_permute_grad(np.zeros((4, 2), np.float32), np.zeros(4, np.int32), 3)
    assert e.value.code == INVALID and "numTopk" in str(e.value)
    with pytest.raises(aclnn_emu.AclnnError) as e:
        aclnn_emu.moe_token_permute_grad(np.zeros((4, 2), np.float32), np.zeros(4, np.int32), 2, padded_mode=True)
    assert e.value.code == INVALID and "paddedMode" in str(e.value)


# ------------------------------------------------------------------ validation: forward


class PermuteArgs:
    def __init__(self, views, tshape=(4, 3), tcode=F32, ishape=(4, 2), icode=I32, pshape=(8, 3), pcode=F32,
                 sshape=(8,), scode=I32):
        self.vt = views(np.zeros(tshape, np.float32), acl_dtype=tcode)
        self.vi = views(np.zeros(ishape, np.int32), acl_dtype=icode)
        self.vp = views(np.full(pshape, 2.0, np.float32), acl_dtype=pcode)
        self.vs = views(np.full(sshape, 3, np.int32), acl_dtype=scode)

    def call(self, num_out=0, padded=False, null=None, ws=True, ex=True):
        ts = [self.vt.tensor, self.vi.tensor, self.vp.tensor, self.vs.tensor]
        if null is not None:
            ts[null] = NULL
        wsp = ffi.new("uint64_t *") if ws else NULL
        exp = ffi.new("aclOpExecutor **") if ex else NULL
        rc = lib.aclnnMoeTokenPermuteGetWorkspaceSize(ts[0], ts[1], num_out, padded, ts[2], ts[3], wsp, exp)
        msg = take_msg()
        assert self.vp.untouched() and self.vs.untouched()
        return rc, msg


def expect_permute(args, code, word, **kw):
    rc, msg = args.call(**kw)
    assert rc == code, (rc, msg)
    assert "aclnnMoeTokenPermuteGetWorkspaceSize" in msg and word in msg, msg


def test_permute_validation_nulls(views):
    a = PermuteArgs(views)
    expect_permute(a, NULLPTR, "workspaceSize", ws=False, null=0)
    expect_permute(a, NULLPTR, "executor", ex=False)
    for i, name in enumerate(["tokens", "indices", "permuteTokensOut", "sortedIndicesOut"]):
        expect_permute(a, NULLPTR, name, null=i)
    assert a.call()[0] == 0


@pytest.mark.parametrize("case", [
    ({"tcode": F64}, "tokens"), ({"tcode": I8}, "tokens"), ({"icode": F32}, "indices"), ({"icode": 6}, "indices"),
    ({"pcode": F16}, "permuteTokensOut"), ({"tcode": BF, "pcode": F32}, "permuteTokensOut"),
    ({"scode": I64}, "sortedIndicesOut")],
    ids=case_id)
def test_permute_validation_dtypes(views, case):
    kw, word = case
    expect_permute(PermuteArgs(views, **kw), INVALID, word)


def test_permute_validation_padded_mode(views):
    expect_permute(PermuteArgs(views), INVALID, "paddedMode", padded=True)


@pytest.mark.parametrize("case", [
    ({"tshape": (4,)}, "tokens", 0), ({"ishape": (4, 2, 1)}, "indices", 0), ({"ishape": (5, 2)}, "indices", 0),
    ({"tshape": (1, 3), "ishape": (1, 513), "pshape": (513, 3), "sshape": (513,)}, "indices", 0),
    ({"pshape": (7, 3)}, "permuteTokensOut", 0), ({"pshape": (8, 4)}, "permuteTokensOut", 0),
    ({"pshape": (24,)}, "permuteTokensOut", 0), ({"pshape": (8, 3)}, "permuteTokensOut", 5),
    ({"pshape": (8, 3)}, "permuteTokensOut", -1), ({"sshape": (9,)}, "sortedIndicesOut", 0),
    ({"sshape": (4, 2)}, "sortedIndicesOut", 0)],
    ids=case_id)
def test_permute_validation_shapes(views, case):
    kw, word, num_out = case
    expect_permute(PermuteArgs(views, **kw), TILING, word, num_out=num_out)


def test_permute_accepts_topk_512_and_rows_of_any_rank(views):
    assert PermuteArgs(views, (1, 3), F32, (1, 512), I32, (512, 3), F32, (512,)).call()[0] == 0
    assert PermuteArgs(views, (4, 3, 2), F32, (4, 2), I32, (8, 6), F32, (8,)).call()[0] == 0
    assert PermuteArgs(views, (4, 3), F32, (4, 2), I32, (5, 3), F32, (8,)).call(num_out=-3)[0] == 0


def test_permute_too_many_slots(views):
    """T * topK >= 16777215 is a tiling error (no data is touched: the views are tiny)."""
    blk = Block(np.zeros(16, np.int32))
    dims = [(16777215 // 3 + 1, 3), (16777215 // 3 + 1, 4), (3 * (16777215 // 3 + 1), 4), ((16777215 // 3 + 1) * 3,)]
    try:
        ts = [make_tensor(d, c, [0] * len(d), 0, [16], blk.ptr) for d, c in zip(dims, [F32, I32, F32, I32])]
        rc = lib.aclnnMoeTokenPermuteGetWorkspaceSize(ts[0], ts[1], 0, False, ts[2], ts[3], ffi.new("uint64_t *"),
                                                      ffi.new("aclOpExecutor **"))
        msg = take_msg()
        assert rc == TILING and "indices" in msg and "16777215" in msg, msg
    finally:
        for t in ts:
            lib.aclDestroyTensor(t)
        blk.free()


@pytest.mark.parametrize("case", [
    ([(0, 2 ** 62, 4), (0, 2), (0, 2 ** 62, 4), (0,)], "tokens"),     # 2^64 elements: wrapped to 0 before
    ([(0, 2 ** 61), (0, 2), (0, 2 ** 61), (0,)], "tokens"),            # 2^63 bytes of fp32
    ([(0, 3), (0, 2), (0, 2 ** 62, 8), (0,)], "permuteTokensOut")],
    ids=["elements", "bytes", "output"])
def test_permute_rows_too_large_for_memory(case):
    """Tensors without rows may have any row size; one that no memory could hold is a tiling error, not an
    integer overflow (found by test_fuzz under UBSan, trial 1160)."""
    dims, word = case
    blk = Block(np.zeros(16, np.int32))
    ts = []
    try:
        ts = [make_tensor(d, c, [0] * len(d), 0, [16], blk.ptr) for d, c in zip(dims, [F32, I32, F32, I32])]
        rc = lib.aclnnMoeTokenPermuteGetWorkspaceSize(ts[0], ts[1], 0, False, ts[2], ts[3], ffi.new("uint64_t *"),
                                                      ffi.new("aclOpExecutor **"))
        msg = take_msg()
        assert rc == TILING and word in msg, msg
        assert word != "tokens" or "2^63 - 1 bytes" in msg, msg
    finally:
        for t in ts:
            lib.aclDestroyTensor(t)
        blk.free()


# ------------------------------------------------------------------ numpy layer


def test_python_functions_take_any_numpy_layout():
    """Non-contiguous and non-native-order arrays are copied to C order first; results are unchanged."""
    rng = np.random.default_rng(40)
    tokens = values(rng, (9, 12), "float32", -1, 1)
    indices = rng.integers(0, 5, (9, 2)).astype(np.int64)
    p_ref, s_ref = aclnn_emu.moe_token_permute(tokens, indices, 11)
    p, s = aclnn_emu.moe_token_permute(np.asfortranarray(tokens), indices.T.copy().T, 11)
    np.testing.assert_array_equal(p, p_ref)
    np.testing.assert_array_equal(s, s_ref)
    assert p.shape == (11, 12) and s.dtype == np.int32 and p.flags.c_contiguous
    g = values(rng, (11, 24), "float32")[:, ::2]
    big_endian = s.astype(">i4")
    out = aclnn_emu.moe_token_permute_grad(g, big_endian, 2)
    np.testing.assert_array_equal(out, aclnn_emu.moe_token_permute_grad(np.ascontiguousarray(g), s, 2))
    assert_precision(out, grad_ref(g, s, 2), "float32")


def test_python_plan_cache_keys_on_arguments():
    """The same shapes with another numTopk or numOutTokens must not reuse a plan."""
    grad = np.arange(24, dtype=np.float32).reshape(6, 4)
    idx = np.arange(6, dtype=np.int32)
    a = aclnn_emu.moe_token_permute_grad(grad, idx, 2)
    b = aclnn_emu.moe_token_permute_grad(grad, idx, 3)
    assert a.shape == (3, 4) and b.shape == (2, 4)
    np.testing.assert_array_equal(b[1], grad[3] + grad[4] + grad[5])
    tokens = np.ones((3, 2), np.float32)
    ids = np.array([[1, 0], [0, 1], [1, 1]], np.int32)
    assert aclnn_emu.moe_token_permute(tokens, ids, 2)[0].shape == (2, 2)
    assert aclnn_emu.moe_token_permute(tokens, ids, -1)[0].shape == (5, 2)
