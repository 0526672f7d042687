"""aclnn_emu.torch_npu (torch_npu's operators on CPU torch tensors) and DeviceTensor's DLPack export.

References: the RotaryMulGrad guide's own formula (``x1, x2 = chunk(x, 2, -1);
out = r1 * x + r2 * cat((-x2, x1), -1)``) and, for MoE token permutation, the
small-op formulation (``index_select`` by the stable argsort of the flattened
indices; ``index_add`` back), both run by PyTorch autograd in float64 on the
inputs rounded to the tested dtype. Results must lie within the dtype's
rounding plus fp32 accumulation of the exact value, relative to the sum of
the absolute values of the terms (the same formulas on |inputs|).

The tests that need torch skip without it (``pip install ".[torch]"``);
the DLPack tests with numpy as the consumer run anyway.
"""

import os
import subprocess
import sys
import textwrap
import warnings

import ml_dtypes
import numpy as np
import pytest

import aclnn_emu
from aclnn_emu import AclnnError, DeviceTensor

try:
    import torch
except ImportError:  # the torch tests skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch (pip install '.[torch]')")
# torch's own modules (imported by opcheck and Inductor) still use it.
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")

INVALID = 161002
SHAPE = 561002
BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture(scope="module")
def tn():
    pytest.importorskip("torch")
    from aclnn_emu import torch_npu

    return torch_npu


if torch is not None:
    DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
    EPS = {torch.float32: 2.0**-23, torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}
else:
    DTYPES, EPS = {"fp32": None, "fp16": None, "bf16": None}, {}

# The guide's three typical cases ([2, 8192, 5, 128], [8192, 2, 5, 128],
# [2048, 4, 32, 64]) with S scaled down to 64.
SEED_CASES = {
    "case1_BSND": ((2, 64, 5, 128), (1, 64, 1, 128)),
    "case2_SBND": ((64, 2, 5, 128), (64, 1, 1, 128)),
    "case3_SB": ((64, 4, 32, 64), (64, 4, 1, 64)),
}


def rand(shape, dtype, seed, requires_grad=False):
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    return t.requires_grad_(requires_grad)


def assert_within(actual, golden, magnitude, dtype, terms, what=""):
    """|actual - golden| <= (eps(dtype) + terms * 2^-23) * magnitude, elementwise."""
    a = actual.detach().double()
    g = golden.detach().double()
    m = magnitude.detach().double()
    assert a.shape == g.shape, (what, a.shape, g.shape)
    assert torch.isfinite(a).all(), what
    bound = (EPS[dtype] + terms * 2.0**-23) * m + 1e-30
    excess = (a - g).abs() - bound
    if excess.numel() and excess.max() > 0:
        i = int(excess.argmax())
        pytest.fail("%s: element %d is %r, expected %r within %r" % (
            what, i, a.flatten()[i].item(), g.flatten()[i].item(), bound.flatten()[i].item()))


# --------------------------------------------------------------- rotary_mul


def rotary_mul_formula(x, r1, r2, sign=-1.0):
    """The guide's forward: ``r1 * x + r2 * cat((-x2, x1), -1)`` (sign=+1: the magnitude bound on |inputs|)."""
    x1, x2 = torch.chunk(x, 2, -1)
    x_new = torch.cat((sign * x2, x1), dim=-1)
    return r1 * x + r2 * x_new


def formula_and_grads(formula, inputs, dy, sign=-1.0):
    """(output, grads) of ``formula`` in float64 by PyTorch autograd."""
    leaves = [t.detach().double().requires_grad_() for t in inputs]
    out = formula(*leaves, sign=sign)
    grads = torch.autograd.grad(out, leaves, dy.detach().double())
    return out.detach(), grads


def reference(formula, inputs, dy):
    """Golden output and grads, and their magnitude bounds (the formula on |inputs| with |dy|)."""
    golden = formula_and_grads(formula, inputs, dy)
    magnitude = formula_and_grads(formula, [t.detach().abs() for t in inputs], dy.abs(), sign=1.0)
    return golden, magnitude


@needs_torch
@pytest.mark.parametrize("r_grad", [True, False], ids=["r_requires_grad", "r_no_grad"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", list(SEED_CASES))
def test_rotary_mul_matches_formula(tn, monkeypatch, case, dtype, r_grad):
    dtype = DTYPES[dtype]
    x_shape, r_shape = SEED_CASES[case]
    x = rand(x_shape, dtype, 1, requires_grad=True)
    r1 = rand(r_shape, dtype, 2, requires_grad=r_grad)
    r2 = rand(r_shape, dtype, 3, requires_grad=r_grad)
    dy = rand(x_shape, dtype, 4)
    calls = []

    def spy(dy_, cos, sin, x_=None, mode=0):
        calls.append((x_ is not None, mode))
        return aclnn_emu.rotary_position_embedding_grad(dy_, cos, sin, x_, mode)

    monkeypatch.setattr(tn, "_rope_grad", spy)
    out = tn.npu_rotary_mul(x, r1, r2)
    out.backward(dy)
    (g_out, g_grads), (m_out, m_grads) = reference(rotary_mul_formula, (x, r1, r2), dy)
    assert out.dtype == dtype and out.shape == x.shape
    assert_within(out, g_out, m_out, dtype, 2, "output")
    assert_within(x.grad, g_grads[0], m_grads[0], dtype, 2, "dx")
    # RotaryMulGrad's need_backward: x is passed (dr1, dr2 computed) only when r1/r2 require grad.
    assert calls == [(r_grad, 0)]
    if r_grad:
        terms = x.numel() // r1.numel()
        assert r1.grad.dtype == dtype and r1.grad.shape == r1.shape
        assert_within(r1.grad, g_grads[1], m_grads[1], dtype, terms, "dr1")
        assert_within(r2.grad, g_grads[2], m_grads[2], dtype, terms, "dr2")
    else:
        assert r1.grad is None and r2.grad is None


@needs_torch
def test_rotary_mul_r_only_needs_grad(tn):
    """x without requires_grad, r1 with: dr1 and dr2 computed, x gets no gradient."""
    x = rand((2, 8, 2, 64), torch.float32, 1)
    r1 = rand((1, 8, 1, 64), torch.float32, 2, requires_grad=True)
    r2 = rand((1, 8, 1, 64), torch.float32, 3)
    dy = rand(x.shape, torch.float32, 4)
    tn.npu_rotary_mul(x, r1, r2).backward(dy)
    (_, g), (_, m) = reference(rotary_mul_formula, (x, r1, r2), dy)
    assert x.grad is None and r2.grad is None
    assert_within(r1.grad, g[1], m[1], torch.float32, 2, "dr1")


@needs_torch
def test_rotary_mul_casts_r_to_input_dtype(tn):
    """r1/r2 in float32 with an fp16 input: computed in fp16 (torch_npu's cast), gradients back in float32."""
    x = rand((2, 8, 2, 64), torch.float16, 1, requires_grad=True)
    r1 = rand((1, 8, 1, 64), torch.float32, 2, requires_grad=True)
    r2 = rand((1, 8, 1, 64), torch.float32, 3, requires_grad=True)
    dy = rand(x.shape, torch.float16, 4)
    out = tn.npu_rotary_mul(x, r1, r2)
    out.backward(dy)
    assert out.dtype == torch.float16 and r1.grad.dtype == torch.float32
    (g_out, g), (m_out, m) = reference(rotary_mul_formula, (x, r1.half(), r2.half()), dy)
    assert_within(out, g_out, m_out, torch.float16, 2, "output")
    assert_within(r1.grad, g[1], m[1], torch.float16, 4, "dr1")


@needs_torch
def test_rotary_mul_interleave_matches_rope_mode_1(tn):
    x = rand((1, 4, 2, 64), torch.float32, 1, requires_grad=True)
    r1 = rand((1, 4, 1, 64), torch.float32, 2, requires_grad=True)
    r2 = rand((1, 4, 1, 64), torch.float32, 3, requires_grad=True)
    out = tn.npu_rotary_mul(x, r1, r2, rotary_mode="interleave")
    x1, x2 = x[..., 0::2], x[..., 1::2]
    ref = r1 * x + r2 * torch.stack((-x2, x1), -1).flatten(-2)
    torch.testing.assert_close(out, ref)
    dy = rand(x.shape, torch.float32, 4)
    got = torch.autograd.grad(out, (x, r1, r2), dy)
    want = torch.autograd.grad(ref, (x, r1, r2), dy)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b)


# -------------------------------------------------------- rope, silu, floyd


def rope_half(x, cos, sin, sign=-1.0):
    return rotary_mul_formula(x, cos, sin, sign)


@needs_torch
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_rotary_position_embedding_matches_formula(tn, dtype):
    dtype = DTYPES[dtype]
    x = rand((2, 3, 16, 64), dtype, 1, requires_grad=True)  # BNSD
    cos = rand((1, 1, 16, 64), dtype, 2, requires_grad=True)
    sin = rand((1, 1, 16, 64), dtype, 3, requires_grad=True)
    dy = rand(x.shape, dtype, 4)
    out = tn.npu_rotary_position_embedding(x, cos, sin, mode=0)
    out.backward(dy)
    (g_out, g), (m_out, m) = reference(rope_half, (x, cos, sin), dy)
    assert_within(out, g_out, m_out, dtype, 2, "output")
    for t, gg, mm, what in zip((x, cos, sin), g, m, ("dx", "dcos", "dsin")):
        assert_within(t.grad, gg, mm, dtype, 6, what)


@needs_torch
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_silu_matches_torch(tn, dtype):
    dtype = DTYPES[dtype]
    x = (rand((5, 33), dtype, 1) * 4).requires_grad_()
    dy = rand(x.shape, dtype, 2)
    out = tn.npu_silu(x)
    out.backward(dy)
    xd = x.detach().double().requires_grad_()
    ref = torch.nn.functional.silu(xd)
    (dref,) = torch.autograd.grad(ref, xd, dy.double())
    tol = {"atol": 1e-6, "rtol": 1e-5} if dtype == torch.float32 else {"atol": 4 * EPS[dtype], "rtol": 2 * EPS[dtype]}
    torch.testing.assert_close(out.double(), ref.detach(), **tol)
    torch.testing.assert_close(x.grad.double(), dref, **tol)
    assert tn.silu is tn.npu_silu


FLOYD_SHAPE = (1, 1, 16, 128, 128, 32)  # B, H, N, M, K, D: the smallest legal shape


def floyd_inputs(dtype, seed=0, requires_grad=True):
    B, H, N, M, K, D = FLOYD_SHAPE
    shapes = [(B, H, N, M, D), (B, H, N, K, D), (B, H, N, K, D), (B, H, K, M, D), (B, H, K, M, D)]
    return [rand(s, dtype, seed + i, requires_grad) for i, s in enumerate(shapes)]


def floyd_formula(q, k1, v1, k2, v2, mask, scale):
    s = scale * (torch.einsum("bhnmd,bhnkd->bhnmk", q, k1) + torch.einsum("bhnmd,bhkmd->bhnmk", q, k2))
    if mask is not None:
        s = s.masked_fill(mask, torch.finfo(torch.float32).min)
    p = torch.softmax(s, -1)
    return torch.einsum("bhnmk,bhnkd->bhnmd", p, v1) + torch.einsum("bhnmk,bhkmd->bhnmd", p, v2)


@needs_torch
@pytest.mark.parametrize("masked", [False, True], ids=["no_mask", "mask"])
def test_fused_floyd_attention_matches_formula(tn, masked):
    q, k1, v1, k2, v2 = floyd_inputs(torch.float32, seed=10)
    B, H, N, M, K, D = FLOYD_SHAPE
    mask = None
    if masked:
        mask = torch.rand((B, 1, N, 1, K), generator=torch.Generator().manual_seed(3)) < 0.3
    dy = rand(q.shape, torch.float32, 20)
    out = tn.fused_floyd_attention(q, k1, v1, k2, v2, mask, 0.125)
    out.backward(dy)
    leaves = [t.detach().double().requires_grad_() for t in (q, k1, v1, k2, v2)]
    ref = floyd_formula(*leaves, mask, 0.125)
    grads = torch.autograd.grad(ref, leaves, dy.double())
    torch.testing.assert_close(out.double(), ref.detach(), atol=2e-5, rtol=1e-4)
    for t, g in zip((q, k1, v1, k2, v2), grads):
        torch.testing.assert_close(t.grad.double(), g, atol=1e-4, rtol=1e-3)


# ---------------------------------------------------------------- gradcheck


def gradcheck(fn, inputs, **kw):
    """torch.autograd.gradcheck on float32 inputs (the kernels have no double)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "not a double precision floating point"
        return torch.autograd.gradcheck(fn, inputs, **kw)


@needs_torch
def test_gradcheck_fp32(tn):
    x = rand((2, 3, 2, 8), torch.float32, 1, True)
    r1 = rand((1, 3, 1, 8), torch.float32, 2, True)
    r2 = rand((1, 3, 1, 8), torch.float32, 3, True)
    tol = {"eps": 1e-2, "atol": 2e-3, "rtol": 2e-3}
    assert gradcheck(lambda a, b, c: tn.npu_rotary_mul(a, b, c), (x, r1, r2), **tol)
    assert gradcheck(lambda a, b, c: tn.npu_rotary_mul(a, b, c, "interleave"), (x, r1, r2), **tol)
    for mode in (0, 1):
        assert gradcheck(lambda a, b, c: tn.npu_rotary_position_embedding(a, b, c, mode), (x, r1, r2), **tol)
    assert gradcheck(tn.npu_silu, (rand((3, 7), torch.float32, 4, True),), eps=1e-3, atol=2e-3, rtol=2e-3)
    tokens = rand((5, 6), torch.float32, 5, True)
    indices = torch.tensor([[0, 2], [1, 0], [3, 3], [2, 1], [0, 1]])
    assert gradcheck(lambda t: tn.npu_moe_token_permute(t, indices)[0], (tokens,), **tol)
    assert gradcheck(lambda t: tn.npu_moe_token_permute(t, indices, num_out_tokens=-3)[0], (tokens,), **tol)


@needs_torch
def test_gradcheck_fp32_floyd(tn):
    inputs = [(t * 0.5).detach().requires_grad_() for t in floyd_inputs(torch.float32, seed=30)]
    assert gradcheck(lambda *a: tn.fused_floyd_attention(*a, None, 0.25), inputs, eps=1e-2, atol=5e-3, rtol=1e-2,
                     fast_mode=True)


@needs_torch
def test_opcheck_custom_ops(tn):
    """torch.library.opcheck: schemas, fake kernels, autograd registrations, AOT dispatch."""
    ops = torch.ops.aclnn_emu
    x = rand((2, 4, 2, 64), torch.float32, 1, True)
    r1 = rand((1, 4, 1, 64), torch.float32, 2, True)
    r2 = rand((1, 4, 1, 64), torch.float32, 3, True)
    dy = rand(x.shape, torch.float32, 4)
    tokens = rand((6, 16), torch.float32, 5, True)
    indices = torch.randint(0, 4, (6, 2), generator=torch.Generator().manual_seed(6))
    _, sorted_indices = tn.npu_moe_token_permute(tokens, indices)
    q, k1, v1, k2, v2 = floyd_inputs(torch.float32, seed=40)
    out, smax, ssum = ops.fused_floyd_attention(q, k1, v1, k2, v2, None, 0.5)
    cases = [
        (ops.rotary_mul, (x, r1, r2, 0)),
        (ops.rotary_mul_backward, (dy, x, r1, r2, 0, True)),
        (ops.rotary_mul_backward, (dy, x, r1, r2, 1, False)),
        (ops.rotary_position_embedding, (x, r1, r2, 1)),
        (ops.rotary_position_embedding_grad, (dy, x, r1, r2, 0, True)),
        (ops.moe_token_permute, (tokens, indices, 0, False)),
        (ops.moe_token_permute, (tokens, indices, 7, False)),
        (ops.moe_token_permute_grad, (rand((12, 16), torch.float32, 7), sorted_indices, 2, False, [6, 16])),
        (ops.silu, (x,)),
        (ops.silu_backward, (dy, x)),
        (ops.fused_floyd_attention, (q, k1, v1, k2, v2, None, 0.5)),
        (ops.fused_floyd_attention_grad, (rand(q.shape, torch.float32, 8), q, k1, v1, k2, v2, None, smax, ssum,
                                          out, 0.5)),
    ]
    for op, args in cases:
        if "backward" in str(op) or "grad" in str(op):  # the backward ops have no gradient of their own
            args = tuple(a.detach() if isinstance(a, torch.Tensor) else a for a in args)
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_autograd_registration",
                                                    "test_faketensor", "test_aot_dispatch_dynamic"))


# ---------------------------------------------------------------------- MoE


def moe_reference(tokens, indices, num_out_tokens):
    """The small-op formulation: rows of ``tokens`` by the stable argsort of the flattened indices."""
    topk = indices.shape[1] if indices.dim() == 2 else 1
    flat = indices.reshape(-1)
    order = torch.argsort(flat, stable=True)
    n = num_out_tokens or 0
    kept = min(n, flat.numel()) if n > 0 else max(n + flat.numel(), 0)
    rows = (order // topk)[:kept]
    return rows, torch.argsort(order).to(torch.int32)


@needs_torch
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("topk,num_out,index_dtype", [
    (2, None, "int64"), (2, 5, "int32"), (2, -3, "int64"), (3, 0, "int32"), (1, None, "int64"), ("1-D", None, "int32"),
])
def test_moe_token_permute_matches_small_ops(tn, dtype, topk, num_out, index_dtype):
    dtype = DTYPES[dtype]
    T, H, E = 9, 24, 4
    g = torch.Generator().manual_seed(1)
    shape = (T,) if topk == "1-D" else (T, topk)
    indices = torch.randint(0, E, shape, generator=g).to(getattr(torch, index_dtype))
    tokens = rand((T, H), dtype, 2, requires_grad=True)
    permuted, sorted_indices = tn.npu_moe_token_permute(tokens, indices, num_out_tokens=num_out)
    rows, sorted_ref = moe_reference(tokens, indices, num_out)
    ref_tokens = tokens.detach().double().requires_grad_()
    ref = ref_tokens.index_select(0, rows)
    assert permuted.dtype == dtype and sorted_indices.dtype == torch.int32
    assert torch.equal(permuted.double(), ref.detach())  # a pure copy
    assert torch.equal(sorted_indices, sorted_ref)
    assert not sorted_indices.requires_grad
    dy = rand(permuted.shape, dtype, 3)
    permuted.backward(dy)
    ref.backward(dy.double())  # autograd of index_select: index_add
    index_add = torch.zeros(T, H, dtype=torch.float64).index_add_(0, rows, dy.double())
    assert torch.equal(ref_tokens.grad, index_add)
    magnitude = torch.zeros(T, H, dtype=torch.float64).index_add_(0, rows, dy.double().abs())
    assert tokens.grad.dtype == dtype
    assert_within(tokens.grad, index_add, magnitude, dtype, 3, "dtokens")


# ------------------------------------------------ layouts, empty tensors


@needs_torch
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_non_contiguous_inputs_are_not_copied(tn, monkeypatch, dtype):
    dtype = DTYPES[dtype]
    S, D = 16, 64
    base = rand((2, 5, S, 2 * D), dtype, 1)
    x = base.transpose(1, 2)[..., D:].requires_grad_()  # BSND view of BNSD memory, offset D
    r1 = rand((1, S, 1, 3 * D), dtype, 2)[..., ::3].requires_grad_()  # last-axis stride 3
    r2 = rand((S, 1, 1, D), dtype, 3).transpose(0, 1).requires_grad_()
    assert not (x.is_contiguous() or r1.is_contiguous())
    seen = []

    def spy(a, c, s, mode=0, **kw):
        seen.append((a, c, s))
        return aclnn_emu.rotary_position_embedding(a, c, s, mode, **kw)

    monkeypatch.setattr(tn, "_rope", spy)
    out = tn.npu_rotary_mul(x, r1, r2)
    for t, a in zip((x, r1, r2), seen[0]):  # the operator got the tensors' own memory and strides
        assert a.__array_interface__["data"][0] == t.data_ptr()
        assert a.strides == tuple(s * t.element_size() for s in t.stride())
    xc, r1c, r2c = (t.detach().contiguous().requires_grad_() for t in (x, r1, r2))
    ref = tn.npu_rotary_mul(xc, r1c, r2c)
    assert torch.equal(out, ref)
    out.sum().backward()  # an expanded (stride 0) gradient
    ref.backward(torch.ones_like(ref))
    for a, b in ((x, xc), (r1, r1c), (r2, r2c)):
        assert torch.equal(a.grad, b.grad)


@needs_torch
def test_non_contiguous_moe_and_silu(tn):
    T, H = 7, 16
    tokens = rand((T, 2 * H), torch.bfloat16, 1)[:, 1::2].requires_grad_()
    indices = torch.randint(0, 3, (2, T), generator=torch.Generator().manual_seed(2)).T
    p, s = tn.npu_moe_token_permute(tokens, indices)
    tc = tokens.detach().contiguous().requires_grad_()
    pc, sc = tn.npu_moe_token_permute(tc, indices.contiguous())
    assert torch.equal(p, pc) and torch.equal(s, sc)
    p.sum().backward()
    pc.backward(torch.ones_like(pc))
    assert torch.equal(tokens.grad, tc.grad)
    x = rand((12, 10), torch.float16, 3).T.requires_grad_()
    y = tn.npu_silu(x)
    xc = x.detach().contiguous().requires_grad_()
    yc = tn.npu_silu(xc)
    assert torch.equal(y, yc)
    y.backward(torch.ones_like(y).T.contiguous().T)
    yc.backward(torch.ones_like(yc))
    assert torch.equal(x.grad, xc.grad)


@needs_torch
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_zero_size_tensors(tn, dtype):
    dtype = DTYPES[dtype]
    x = torch.zeros((0, 4, 2, 64), dtype=dtype, requires_grad=True)
    r1 = rand((1, 4, 1, 64), dtype, 1, True)
    r2 = rand((1, 4, 1, 64), dtype, 2, True)
    out = tn.npu_rotary_mul(x, r1, r2)
    assert out.shape == x.shape and out.dtype == dtype
    out.sum().backward()
    assert x.grad.shape == x.shape
    assert torch.equal(r1.grad, torch.zeros_like(r1)) and torch.equal(r2.grad, torch.zeros_like(r2))
    tokens = torch.zeros((0, 8), dtype=dtype, requires_grad=True)
    p, s = tn.npu_moe_token_permute(tokens, torch.zeros((0, 2), dtype=torch.int64))
    assert p.shape == (0, 8) and s.shape == (0,)
    p.sum().backward()
    assert tokens.grad.shape == (0, 8)
    tokens = rand((3, 8), dtype, 3, True)
    p, s = tn.npu_moe_token_permute(tokens, torch.tensor([[0, 1], [1, 0], [2, 2]]), num_out_tokens=-6)
    assert p.shape == (0, 8) and s.shape == (6,)
    p.sum().backward()
    assert torch.equal(tokens.grad, torch.zeros_like(tokens))
    e = torch.zeros((3, 0), dtype=dtype, requires_grad=True)
    y = tn.npu_silu(e)
    y.sum().backward()
    assert y.shape == (3, 0) and e.grad.shape == (3, 0)


# -------------------------------------------------------------------- errors


def raises(code, argument, fn):
    with pytest.raises(AclnnError) as info:
        fn()
    e = info.value
    assert e.code == code, str(e)
    assert e.argument == argument, str(e)
    assert (": %s " % argument) in e.message, e.message
    return e


@needs_torch
def test_errors_name_the_python_argument(tn):
    x = rand((2, 8, 2, 64), torch.float32, 1)
    r = rand((1, 8, 1, 64), torch.float32, 2)
    e = raises(INVALID, "input", lambda: tn.npu_rotary_mul(x.int(), r, r))
    assert e.message.startswith("npu_rotary_mul: input has dtype torch.int32")
    raises(INVALID, "r1", lambda: tn.npu_rotary_mul(x, r.to(torch.int64), r))
    raises(INVALID, "r2", lambda: tn.npu_rotary_mul(x, r, r.double()))
    e = raises(SHAPE, "r2", lambda: tn.npu_rotary_mul(x, r, r[..., :32]))
    assert "the shape of r1" in e.message and "aclnnRotaryPositionEmbeddingGetWorkspaceSize: sin" in e.message
    raises(SHAPE, "r1", lambda: tn.npu_rotary_mul(x, r[:, :4], r[:, :4]))
    raises(INVALID, "rotary_mode", lambda: tn.npu_rotary_mul(x, r, r, rotary_mode="quarter"))
    raises(INVALID, "cos", lambda: tn.npu_rotary_position_embedding(x, r.half(), r))
    raises(SHAPE, "mode", lambda: tn.npu_rotary_position_embedding(x, r, r, mode=7))
    tokens = rand((6, 8), torch.float32, 3)
    idx = torch.randint(0, 4, (6, 2), generator=torch.Generator().manual_seed(4))
    raises(INVALID, "tokens", lambda: tn.npu_moe_token_permute(tokens.int(), idx))
    raises(INVALID, "indices", lambda: tn.npu_moe_token_permute(tokens, idx.float()))
    raises(SHAPE, "indices", lambda: tn.npu_moe_token_permute(tokens, idx[:5]))
    raises(INVALID, "padded_mode", lambda: tn.npu_moe_token_permute(tokens, idx, padded_mode=True))
    raises(INVALID, "input", lambda: tn.npu_silu(torch.ones(3, dtype=torch.int32)))
    q, k1, v1, k2, v2 = floyd_inputs(torch.float32, requires_grad=False)
    raises(INVALID, "v1", lambda: tn.fused_floyd_attention(q, k1, v1.half(), k2, v2))
    raises(SHAPE, "k2", lambda: tn.fused_floyd_attention(q, k1, v1, k2[..., :64, :], v2))
    raises(INVALID, "atten_mask", lambda: tn.fused_floyd_attention(q, k1, v1, k2, v2, torch.zeros(1, 1, 16, 1, 128)))
    with pytest.raises(TypeError, match="npu_rotary_mul: r2 must be a torch.Tensor"):
        tn.npu_rotary_mul(x, r, r.numpy())


@needs_torch
def test_backward_errors_name_the_python_argument(tn):
    """A gradient of the wrong shape reaches RotaryMulGrad, which names it."""
    x = rand((2, 8, 2, 64), torch.float32, 1, True)
    r = rand((1, 8, 1, 64), torch.float32, 2, True)
    out = tn.npu_rotary_mul(x, r, r)
    bad = rand((2, 8, 2, 64), torch.float32, 3)[..., :32]
    with pytest.raises(AclnnError) as info:
        tn._rotary_mul_backward_kernel(bad, x, r, r, 0, True)
    assert info.value.code == SHAPE and info.value.argument in ("grad", "input", "r1", "r2")
    out.sum().backward()


# ------------------------------------------------------ torch.compile, export


def compile_cases(tn):
    x = rand((2, 8, 2, 64), torch.float32, 1, True)
    r1 = rand((1, 8, 1, 64), torch.float32, 2, True)
    r2 = rand((1, 8, 1, 64), torch.float32, 3, True)
    tokens = rand((6, 16), torch.float32, 4, True)
    idx = torch.randint(0, 4, (6, 2), generator=torch.Generator().manual_seed(5))
    q = floyd_inputs(torch.float32, seed=50)
    return {
        "rotary_mul": (lambda a, b, c: tn.npu_rotary_mul(a, b, c), (x, r1, r2), "rotary_mul"),
        "rotary_position_embedding": (lambda a, b, c: tn.npu_rotary_position_embedding(a, b, c, 1), (x, r1, r2),
                                      "rotary_position_embedding"),
        "moe_token_permute": (lambda t, i: tn.npu_moe_token_permute(t, i, num_out_tokens=10)[0], (tokens, idx),
                              "moe_token_permute"),
        "silu": (tn.npu_silu, (x,), "silu"),
        "fused_floyd_attention": (lambda *a: tn.fused_floyd_attention(*a, scale_value=0.3), tuple(q),
                                  "fused_floyd_attention"),
    }


def grads_of(fn, args):
    out = fn(*args)
    leaves = [a for a in args if a.requires_grad]
    return out, torch.autograd.grad(out, leaves, torch.ones_like(out))


@needs_torch
@pytest.mark.parametrize("name", ["rotary_mul", "rotary_position_embedding", "moe_token_permute", "silu",
                                  "fused_floyd_attention"])
def test_compile_fullgraph(tn, name):
    """torch.compile(fullgraph=True): one custom op forward, its backward op in the backward graph."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    fn, args, op = compile_cases(tn)[name]
    graphs = {}

    def keep(kind):
        def compiler(gm, example_inputs):
            graphs[kind] = [n.target for n in gm.graph.nodes if n.op == "call_function"]
            return make_boxed_func(gm.forward)
        return compiler

    torch._dynamo.reset()
    captured = torch.compile(fn, fullgraph=True, backend=aot_autograd(fw_compiler=keep("fw"), bw_compiler=keep("bw")))
    out, grads = grads_of(captured, args)
    forward_op = getattr(torch.ops.aclnn_emu, op).default
    backward_op = getattr(torch.ops.aclnn_emu, {"rotary_position_embedding": "rotary_position_embedding_grad",
                                                "moe_token_permute": "moe_token_permute_grad",
                                                "fused_floyd_attention": "fused_floyd_attention_grad"}.get(
                                                    op, op + "_backward")).default
    assert graphs["fw"].count(forward_op) == 1, graphs["fw"]
    assert graphs["bw"].count(backward_op) == 1, graphs["bw"]
    want, want_grads = grads_of(fn, args)
    assert torch.equal(out, want)
    for a, b in zip(grads, want_grads):
        assert torch.equal(a, b)
    # The default backend (Inductor) too.
    out, grads = grads_of(torch.compile(fn, fullgraph=True), args)
    assert torch.equal(out, want)
    for a, b in zip(grads, want_grads):
        assert torch.equal(a, b)


@needs_torch
def test_export_keeps_single_ops(tn):
    class Block(torch.nn.Module):
        def forward(self, x, r1, r2, tokens, indices):
            permuted, _ = tn.npu_moe_token_permute(tokens, indices)
            return tn.npu_silu(tn.npu_rotary_mul(x, r1, r2)), permuted

    x = rand((2, 8, 2, 64), torch.float32, 1)
    r1 = rand((1, 8, 1, 64), torch.float32, 2)
    r2 = rand((1, 8, 1, 64), torch.float32, 3)
    tokens = rand((6, 16), torch.float32, 4)
    indices = torch.randint(0, 4, (6, 2), generator=torch.Generator().manual_seed(5))
    args = (x, r1, r2, tokens, indices)
    ep = torch.export.export(Block(), args)
    targets = [n.target for n in ep.graph.nodes if n.op == "call_function"]
    ops = torch.ops.aclnn_emu
    assert ops.rotary_mul.default in targets and ops.silu.default in targets
    assert ops.moe_token_permute.default in targets
    assert not [t for t in targets if "aten" in str(t) and "getitem" not in str(t)], targets
    got, want = ep.module()(*args), Block()(*args)
    assert all(torch.equal(a, b) for a, b in zip(got, want))


@needs_torch
def test_meta_tensors_give_shapes(tn):
    x = torch.empty((2, 8, 2, 64), device="meta", dtype=torch.bfloat16)
    r = torch.empty((1, 8, 1, 64), device="meta", dtype=torch.bfloat16)
    assert tn.npu_rotary_mul(x, r, r).shape == x.shape
    t = torch.empty((6, 16), device="meta")
    p, s = tn.npu_moe_token_permute(t, torch.empty((6, 2), device="meta", dtype=torch.int64), num_out_tokens=-2)
    assert p.shape == (10, 16) and s.shape == (12,) and s.dtype == torch.int32


# ------------------------------------------------------- import torch_npu


def run_python(code, pythonpath=None):
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    else:
        env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.fixture
def real_torch_npu(tmp_path):
    """A directory holding a stand-in for a real torch_npu (marked REAL)."""
    pkg = tmp_path / "site" / "torch_npu"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("REAL = True\n")
    return str(tmp_path / "site")


@needs_torch
def test_install_registers_torch_npu_only_without_a_real_one(real_torch_npu):
    out = run_python("""
        import sys
        import aclnn_emu.torch_npu as emu
        assert "torch_npu" not in sys.modules
        assert emu.install() is True and emu.install() is True
        import torch_npu
        from torch_npu import npu_rotary_mul
        assert torch_npu is emu and npu_rotary_mul is emu.npu_rotary_mul
        emu.uninstall()
        assert "torch_npu" not in sys.modules
        print("ok")
    """)
    assert out == "ok"
    out = run_python("""
        import aclnn_emu.torch_npu as emu
        assert emu.install() is False
        import torch_npu
        assert torch_npu.REAL and torch_npu is not emu
        assert emu.install() is False
        print("ok")
    """, [real_torch_npu])
    assert out == "ok"


@needs_torch
def test_shim_directory_never_shadows_a_real_torch_npu(real_torch_npu):
    shim = run_python("import aclnn_emu._torch_npu_shim as s; print(s.PATH)")
    assert run_python("import sys; from aclnn_emu import _torch_npu_shim as s; print(s.PATH)") == shim
    out = run_python("""
        import torch, torch_npu
        import aclnn_emu.torch_npu as emu
        assert torch_npu is emu
        x = torch.ones(1, 2, 1, 64)
        print(float(torch_npu.npu_rotary_mul(x, x, x).sum()))
    """, [shim])
    assert out == "128.0"
    out = run_python("import torch_npu; print(torch_npu.REAL)", [shim, real_torch_npu])
    assert out == "True"
    # A directory named torch_npu without __init__.py (a namespace package) is not a torch_npu.
    namespace = os.path.join(os.path.dirname(real_torch_npu), "namespace")
    os.makedirs(os.path.join(namespace, "torch_npu"))
    out = run_python("import torch_npu; print(torch_npu.__name__)", [shim, namespace])
    assert out == "aclnn_emu.torch_npu"
    r = subprocess.run([sys.executable, "-m", "aclnn_emu._torch_npu_shim"], capture_output=True, text=True)
    assert r.stdout.strip() == shim


# ------------------------------------------------------------------ DLPack


def test_device_tensor_dlpack_numpy():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    view = a[1:, ::2].T
    with DeviceTensor.from_numpy(view) as d:
        assert d.__dlpack_device__() == (1, 0)  # kDLCPU
        n = np.from_dlpack(d)
        np.testing.assert_array_equal(n, view)
        assert n.strides == (2 * 4, 6 * 4)
        n[0, 0] = -1.0  # the device block itself
        assert d.numpy()[0, 0] == -1.0
        with pytest.raises(BufferError):
            d.__dlpack__(stream=1)
        del n


def test_device_tensor_dlpack_keeps_the_tensor_alive():
    n = np.from_dlpack(DeviceTensor.from_numpy(np.arange(6, dtype=np.float16)))
    np.testing.assert_array_equal(n, np.arange(6, dtype=np.float16))


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int32])
def test_device_tensor_to_torch_without_copy(dtype):
    base = np.arange(40, dtype=np.float32).reshape(5, 8).astype(dtype)
    view = base[1:, 2:7].T  # strides and an offset
    d = DeviceTensor.from_numpy(view)
    t = torch.from_dlpack(d)
    expected = torch.from_numpy(np.ascontiguousarray(view).astype(np.float32))
    assert t.shape == view.shape
    assert t.stride() == tuple(s // view.itemsize for s in view.strides)
    assert torch.equal(t.float(), expected)
    if dtype == BF16:
        assert t.dtype == torch.bfloat16
    t[1, 2] = 99
    assert float(d.numpy()[1, 2]) == 99.0
    del d  # the torch tensor keeps the device block
    assert float(t[1, 2]) == 99.0
    empty = torch.from_dlpack(DeviceTensor.from_numpy(np.zeros((0, 3), dtype)))
    assert empty.shape == (0, 3)


@needs_torch
def test_device_tensor_results_to_torch():
    """A DeviceTensor result of the numpy layer goes to torch without a copy, after its stream work."""
    x = DeviceTensor.from_numpy(np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4))
    y = aclnn_emu.silu(x)
    t = torch.from_dlpack(y)
    torch.testing.assert_close(t, torch.nn.functional.silu(torch.from_dlpack(x)))


@needs_torch
def test_numpy_functions_take_dlpack_objects_without_a_copy():
    """The numpy functions accept any object with __dlpack__ (CPU torch tensors here, bf16 included), reading
    its memory where it is."""
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        t = torch.linspace(-3, 3, 24).reshape(4, 6).to(dtype)
        arr = aclnn_emu.ops._as_array(t)
        assert arr.__array_interface__["data"][0] == t.data_ptr()
        assert arr.shape == (4, 6) and arr.itemsize == t.element_size()
        y = aclnn_emu.silu(t)
        expected = aclnn_emu.silu(arr.copy())
        assert y.dtype == expected.dtype and np.array_equal(y.view(np.uint8), expected.view(np.uint8))
