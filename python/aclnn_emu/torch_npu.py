"""torch_npu's operator interface on CPU ``torch.Tensor``\\ s, run by aclnn_emu.

Model code written for Ascend calls ``torch_npu.npu_rotary_mul(q, cos, sin)``
and gets RotaryMulGrad from ``.backward()``. This module gives those names and
signatures on CPU tensors, each differentiable, its backward running our grad
operator:

=========================================================== =============================================
function                                                    forward / backward (aclnn)
=========================================================== =============================================
``npu_rotary_mul(input, r1, r2, rotary_mode='half')``       RotaryPositionEmbedding mode 0 ('half') or 1
                                                            ('interleave') / RotaryMulGrad (the Grad op,
                                                            x passed only when r1 or r2 requires grad)
``npu_rotary_position_embedding(x, cos, sin, mode=0)``      RotaryPositionEmbedding / ...Grad
``npu_moe_token_permute(tokens, indices,                    MoeTokenPermute / MoeTokenPermuteGrad;
num_out_tokens=None, padded_mode=False)``                   returns ``(permuted_tokens, sorted_indices)``
``npu_silu(input)`` (old torch_npu's name; alias ``silu``)  Silu / SiluBackward
``fused_floyd_attention(q, k1, v1, k2, v2, atten_mask=None, FusedFloydAttention / ...Grad (our name:
scale_value=1.0)``                                          torch_npu has no Python API for it)
=========================================================== =============================================

Tensors: CPU, float32, float16 or bfloat16 (indices int32/int64, masks
bool/uint8), any strides and storage offset. They are not copied: a tensor's
memory is handed to the operator as a numpy view (bfloat16 through a uint16
view and ``ml_dtypes.bfloat16``), the view's strides and offset kept; results
are numpy arrays wrapped by ``torch.from_numpy``. ``npu_rotary_mul`` casts r1
and r2 to ``input``'s dtype, as torch_npu does (their gradients are cast back).

Errors raise :class:`aclnn_emu.AclnnError` with the aclnn code (161002 for
dtypes and arguments, 561002 for shapes); its message starts with the Python
function and names the Python argument (also in the exception's ``argument``
attribute), followed by the C function and argument the library named.

Each operator is also a ``torch.library`` custom op in the ``aclnn_emu``
namespace (``torch.ops.aclnn_emu.rotary_mul``, ``rotary_mul_backward``, ...)
with a fake kernel and an autograd formula, so ``torch.compile(fullgraph=True)``
and ``torch.export`` keep each one as a single op (the backward op appears in
the backward graph). Called eagerly on plain CPU tensors, the functions skip
the dispatcher and run a ``torch.autograd.Function`` (or, when nothing needs a
gradient, the kernel alone): same kernels, less overhead per call.

``import torch_npu`` without the real package (opt-in, never shadowing a real
torch_npu):

* in Python, before the model code imports it: ``aclnn_emu.torch_npu.install()``
  (returns False and changes nothing when a real torch_npu is importable);
* for unmodified scripts: put the directory printed by
  ``python -m aclnn_emu._torch_npu_shim`` on ``PYTHONPATH``; its ``torch_npu``
  loads the real package when one is installed further along ``sys.path``,
  and this module otherwise.

Only the operators above exist; ``torch_npu.npu`` (devices, streams) and the
other torch_npu APIs do not.
"""

import importlib.machinery
import re
import sys
from typing import Optional, Tuple

import ml_dtypes
import numpy as np
import torch
from torch import Tensor

import aclnn_emu as _ae

from ._aclnn_emu_cffi import lib as _lib
from .errors import AclnnError

__all__ = [
    "npu_rotary_mul",
    "npu_rotary_position_embedding",
    "npu_moe_token_permute",
    "npu_silu",
    "silu",
    "fused_floyd_attention",
    "install",
    "uninstall",
]

INVALID = int(_lib.ACLNN_ERR_PARAM_INVALID)  # 161002

# The numpy layer's functions (looked up here so that tests can wrap them).
_rope = _ae.rotary_position_embedding
_rope_grad = _ae.rotary_position_embedding_grad
_moe_permute = _ae.moe_token_permute
_moe_permute_grad = _ae.moe_token_permute_grad
_silu = _ae.silu
_silu_backward = _ae.silu_backward
_floyd = _ae.fused_floyd_attention
_floyd_grad = _ae.fused_floyd_attention_grad

_FLOATS = (torch.float32, torch.float16, torch.bfloat16)
_BF16 = np.dtype(ml_dtypes.bfloat16)
_U16 = np.dtype(np.uint16)
_bfloat16 = torch.bfloat16
_uint16 = torch.uint16

# ----------------------------------------------------------------- conversion


def _to_numpy(t):
    """The tensor's memory as a numpy view (strides and offset kept; no copy)."""
    if t.requires_grad:
        t = t.detach()
    if t.dtype is _bfloat16:
        return t.view(_uint16).numpy().view(_BF16)
    return t.numpy()


def _from_numpy(a):
    """A tensor over a numpy result's memory (no copy)."""
    if a.dtype == _BF16:
        return torch.from_numpy(a.view(_U16)).view(_bfloat16)
    return torch.from_numpy(a)


# --------------------------------------------------------------------- errors


def _error(func, argument, text, code=INVALID):
    e = AclnnError(code, "%s: %s %s" % (func, argument, text), func)
    e.argument = argument
    return e


def _check_float(func, name, t):
    if not isinstance(t, Tensor):
        raise TypeError("%s: %s must be a torch.Tensor, not %s" % (func, name, type(t).__name__))
    if t.dtype not in _FLOATS:
        raise _error(func, name, "has dtype %s; expected torch.float32, torch.float16 or torch.bfloat16" % t.dtype)
    if not t.is_cpu:
        raise _error(func, name, "is on device %s; aclnn_emu runs on CPU tensors" % t.device)


def _check_tensor(func, name, t):
    if not isinstance(t, Tensor):
        raise TypeError("%s: %s must be a torch.Tensor, not %s" % (func, name, type(t).__name__))
    if not t.is_cpu:
        raise _error(func, name, "is on device %s; aclnn_emu runs on CPU tensors" % t.device)


_NOT_IN_TEXT = frozenset(("out", "y"))  # names mapped only where they lead the message
_C_MESSAGE = re.compile(r"^(aclnn\w+): (\w+) (.*)$", re.S)


def _translated(func, names, e):
    """``e`` (from the numpy layer) with the Python function and argument names in front."""
    m = _C_MESSAGE.match(e.message)
    if m is None:
        out = AclnnError(e.code, "%s: %s" % (func, e.message), e.api)
        out.argument = None
        return out
    api, cname, rest = m.groups()
    argument = names.get(cname, cname)

    def python_name(word):
        w = word.group(1)
        return w if w in _NOT_IN_TEXT else names.get(w, w)

    rest = re.sub(r"\b(\w+)\b", python_name, rest)
    out = AclnnError(e.code, "%s: %s %s (%s: %s)" % (func, argument, rest, api, cname), e.api)
    out.argument = argument
    return out


def _call(func, names, fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except AclnnError as e:
        raise _translated(func, names, e) from None


# ------------------------------------------------------------------- kernels
#
# Plain CPU tensors in, new tensors out. The custom ops below and the eager
# autograd Functions both run these.

_RM = "npu_rotary_mul"
_RM_NAMES = {"x": "input", "cos": "r1", "sin": "r2", "dy": "grad", "y": "output", "out": "output"}
_RPE = "npu_rotary_position_embedding"
_RPE_NAMES = {"dy": "grad", "y": "output", "out": "output"}
_ROTARY_MODES = {"half": 0, "interleave": 1}


def _rotary_mode(rotary_mode):
    mode = _ROTARY_MODES.get(rotary_mode) if isinstance(rotary_mode, str) else None
    if mode is None:
        raise _error(_RM, "rotary_mode", "is %r; expected 'half' or 'interleave'" % (rotary_mode,))
    return mode


def _rotary_mul_kernel(input, r1, r2, mode):
    _check_float(_RM, "input", input)
    _check_float(_RM, "r1", r1)
    _check_float(_RM, "r2", r2)
    x = _to_numpy(input)
    c = _to_numpy(r1)
    s = _to_numpy(r2)
    if c.dtype != x.dtype:
        c = c.astype(x.dtype)
    if s.dtype != x.dtype:
        s = s.astype(x.dtype)
    try:
        y = _rope(x, c, s, mode)
    except AclnnError as e:
        raise _translated(_RM, _RM_NAMES, e) from None
    return _from_numpy(y)


def _rotary_mul_backward_kernel(grad, input, r1, r2, mode, need_backward):
    """RotaryMulGrad: ``(dx, dr1, dr2)``; dr1/dr2 are empty (0,) tensors when not ``need_backward``."""
    _check_float(_RM, "grad", grad)
    _check_float(_RM, "input", input)
    _check_float(_RM, "r1", r1)
    _check_float(_RM, "r2", r2)
    x = _to_numpy(input)
    dt = x.dtype
    dy, c, s = (a if a.dtype == dt else a.astype(dt) for a in map(_to_numpy, (grad, r1, r2)))
    dx, dc, ds = _call(_RM, _RM_NAMES, _rope_grad, dy, c, s, x if need_backward else None, mode)
    dx = _from_numpy(dx)
    if not need_backward:
        return dx, r1.new_empty((0,)), r2.new_empty((0,))
    return dx, _from_numpy(dc).to(r1.dtype), _from_numpy(ds).to(r2.dtype)


def _rope_kernel(x, cos, sin, mode):
    _check_float(_RPE, "x", x)
    _check_float(_RPE, "cos", cos)
    _check_float(_RPE, "sin", sin)
    return _from_numpy(_call(_RPE, _RPE_NAMES, _rope, _to_numpy(x), _to_numpy(cos), _to_numpy(sin), mode))


def _rope_backward_kernel(grad, x, cos, sin, mode, need_backward):
    _check_float(_RPE, "grad", grad)
    _check_float(_RPE, "x", x)
    _check_float(_RPE, "cos", cos)
    _check_float(_RPE, "sin", sin)
    dx, dc, ds = _call(_RPE, _RPE_NAMES, _rope_grad, _to_numpy(grad), _to_numpy(cos), _to_numpy(sin),
                       _to_numpy(x) if need_backward else None, mode)
    if not need_backward:
        return _from_numpy(dx), cos.new_empty((0,)), sin.new_empty((0,))
    return _from_numpy(dx), _from_numpy(dc), _from_numpy(ds)


_MOE = "npu_moe_token_permute"
_MOE_NAMES = {"numOutTokens": "num_out_tokens", "paddedMode": "padded_mode", "permutedOutputGrad": "grad",
              "sortedIndices": "sorted_indices", "permuteTokensOut": "permuted_tokens",
              "sortedIndicesOut": "sorted_indices", "numTopk": "num_topk"}


def _moe_kept(slots, num_out_tokens):
    return min(num_out_tokens, slots) if num_out_tokens > 0 else max(num_out_tokens + slots, 0)


def _moe_permute_kernel(tokens, indices, num_out_tokens, padded_mode):
    _check_float(_MOE, "tokens", tokens)
    _check_tensor(_MOE, "indices", indices)
    p, s = _call(_MOE, _MOE_NAMES, _moe_permute, _to_numpy(tokens), indices.detach().numpy(), num_out_tokens,
                 padded_mode=padded_mode)
    return _from_numpy(p), _from_numpy(s)


def _moe_permute_backward_kernel(grad, sorted_indices, num_topk, padded_mode, tokens_shape):
    _check_float(_MOE, "grad", grad)
    g = _to_numpy(grad)
    g = g.reshape(g.shape[0], -1) if g.ndim != 2 else g
    out = _call(_MOE, _MOE_NAMES, _moe_permute_grad, g, sorted_indices.numpy(), num_topk, padded_mode=padded_mode)
    return _from_numpy(out).view(tokens_shape)


_SILU = "npu_silu"
_SILU_NAMES = {"self": "input", "gradOutput": "grad", "gradInput": "grad_input", "out": "output"}


def _silu_kernel(input):
    _check_float(_SILU, "input", input)
    try:
        y = _silu(_to_numpy(input))
    except AclnnError as e:
        raise _translated(_SILU, _SILU_NAMES, e) from None
    return _from_numpy(y)


def _silu_backward_kernel(grad, input):
    _check_float(_SILU, "grad", grad)
    _check_float(_SILU, "input", input)
    g, x = _to_numpy(grad), _to_numpy(input)
    if g.dtype != x.dtype:
        g = g.astype(x.dtype)
    return _from_numpy(_call(_SILU, _SILU_NAMES, _silu_backward, g, x))


_FFA = "fused_floyd_attention"
_FFA_NAMES = {"query": "q", "key1": "k1", "value1": "v1", "key2": "k2", "value2": "v2",
              "attenMaskOptional": "atten_mask", "attenMask": "atten_mask", "scaleValueOptional": "scale_value",
              "scaleValue": "scale_value", "dy": "grad", "attentionIn": "output", "attentionOutOut": "output"}
_FFA_ARGS = ("q", "k1", "v1", "k2", "v2")


def _floyd_kernel(q, k1, v1, k2, v2, atten_mask, scale_value):
    for name, t in zip(_FFA_ARGS, (q, k1, v1, k2, v2)):
        _check_float(_FFA, name, t)
    mask = None
    if atten_mask is not None:
        _check_tensor(_FFA, "atten_mask", atten_mask)
        mask = atten_mask.detach().numpy()
    out, smax, ssum = _call(_FFA, _FFA_NAMES, _floyd, *map(_to_numpy, (q, k1, v1, k2, v2)), mask, scale_value)
    return _from_numpy(out), _from_numpy(smax), _from_numpy(ssum)


def _floyd_backward_kernel(grad, q, k1, v1, k2, v2, atten_mask, softmax_max, softmax_sum, output, scale_value):
    _check_float(_FFA, "grad", grad)
    mask = None if atten_mask is None else atten_mask.detach().numpy()
    args = [_to_numpy(t) for t in (q, k1, v1, k2, v2)]
    g = _to_numpy(grad)
    if g.dtype != args[0].dtype:
        g = g.astype(args[0].dtype)
    grads = _call(_FFA, _FFA_NAMES, _floyd_grad, *args, g, mask, softmax_max.numpy(), softmax_sum.numpy(),
                  _to_numpy(output), scale_value)
    return tuple(_from_numpy(a) for a in grads)


# ---------------------------------------------------------- autograd formulas
#
# One backward per operator, shared by the custom op (``bw`` is the backward
# custom op) and the eager autograd Function (``bw`` is the backward kernel).


def _rotary_mul_setup(ctx, inputs, output):
    input, r1, r2, mode = inputs
    ctx.mode = mode
    ctx.save_for_backward(input, r1, r2)


def _rotary_mul_grads(ctx, grad, bw):
    input, r1, r2 = ctx.saved_tensors
    need = ctx.needs_input_grad
    need_backward = bool(need[1] or need[2])  # torch_npu: x is passed only when r1 or r2 requires grad
    dx, dr1, dr2 = bw(grad, input, r1, r2, ctx.mode, need_backward)
    return (dx if need[0] else None, dr1 if need[1] else None, dr2 if need[2] else None, None)


def _rope_setup(ctx, inputs, output):
    x, cos, sin, mode = inputs
    ctx.mode = mode
    ctx.save_for_backward(x, cos, sin)


_rope_grads = _rotary_mul_grads  # same inputs and outputs


def _moe_setup(ctx, inputs, output):
    tokens, indices, num_out_tokens, padded_mode = inputs
    ctx.mark_non_differentiable(output[1])
    ctx.save_for_backward(output[1])
    ctx.num_topk = indices.shape[1] if indices.dim() == 2 else 1
    ctx.padded_mode = padded_mode
    ctx.tokens_shape = tuple(tokens.shape)


def _moe_grads(ctx, grad, grad_sorted_indices, bw):
    (sorted_indices,) = ctx.saved_tensors
    if not ctx.needs_input_grad[0]:
        return None, None, None, None
    return bw(grad, sorted_indices, ctx.num_topk, ctx.padded_mode, ctx.tokens_shape), None, None, None


def _silu_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def _silu_grads(ctx, grad, bw):
    (input,) = ctx.saved_tensors
    return bw(grad, input)


def _floyd_setup(ctx, inputs, output):
    q, k1, v1, k2, v2, atten_mask, scale_value = inputs
    out, smax, ssum = output
    ctx.mark_non_differentiable(smax, ssum)
    ctx.scale_value = scale_value
    ctx.save_for_backward(q, k1, v1, k2, v2, atten_mask, smax, ssum, out)


def _floyd_grads(ctx, grad, grad_max, grad_sum, bw):
    q, k1, v1, k2, v2, mask, smax, ssum, out = ctx.saved_tensors
    grads = bw(grad, q, k1, v1, k2, v2, mask, smax, ssum, out, ctx.scale_value)
    need = ctx.needs_input_grad
    return tuple(g if need[i] else None for i, g in enumerate(grads)) + (None, None)


# -------------------------------------------------------------- custom ops

@torch.library.custom_op("aclnn_emu::rotary_mul", mutates_args=())
def _op_rotary_mul(input: Tensor, r1: Tensor, r2: Tensor, mode: int) -> Tensor:
    return _rotary_mul_kernel(input, r1, r2, mode)


@torch.library.custom_op("aclnn_emu::rotary_mul_backward", mutates_args=())
def _op_rotary_mul_backward(grad: Tensor, input: Tensor, r1: Tensor, r2: Tensor, mode: int,
                            need_backward: bool) -> Tuple[Tensor, Tensor, Tensor]:
    return _rotary_mul_backward_kernel(grad, input, r1, r2, mode, need_backward)


@torch.library.custom_op("aclnn_emu::rotary_position_embedding", mutates_args=())
def _op_rope(x: Tensor, cos: Tensor, sin: Tensor, mode: int) -> Tensor:
    return _rope_kernel(x, cos, sin, mode)


@torch.library.custom_op("aclnn_emu::rotary_position_embedding_grad", mutates_args=())
def _op_rope_backward(grad: Tensor, x: Tensor, cos: Tensor, sin: Tensor, mode: int,
                      need_backward: bool) -> Tuple[Tensor, Tensor, Tensor]:
    return _rope_backward_kernel(grad, x, cos, sin, mode, need_backward)


@torch.library.custom_op("aclnn_emu::moe_token_permute", mutates_args=())
def _op_moe(tokens: Tensor, indices: Tensor, num_out_tokens: int, padded_mode: bool) -> Tuple[Tensor, Tensor]:
    return _moe_permute_kernel(tokens, indices, num_out_tokens, padded_mode)


@torch.library.custom_op("aclnn_emu::moe_token_permute_grad", mutates_args=())
def _op_moe_backward(grad: Tensor, sorted_indices: Tensor, num_topk: int, padded_mode: bool,
                     tokens_shape: list[int]) -> Tensor:
    return _moe_permute_backward_kernel(grad, sorted_indices, num_topk, padded_mode, tokens_shape)


@torch.library.custom_op("aclnn_emu::silu", mutates_args=())
def _op_silu(input: Tensor) -> Tensor:
    return _silu_kernel(input)


@torch.library.custom_op("aclnn_emu::silu_backward", mutates_args=())
def _op_silu_backward(grad: Tensor, input: Tensor) -> Tensor:
    return _silu_backward_kernel(grad, input)


@torch.library.custom_op("aclnn_emu::fused_floyd_attention", mutates_args=())
def _op_floyd(q: Tensor, k1: Tensor, v1: Tensor, k2: Tensor, v2: Tensor, atten_mask: Optional[Tensor],
              scale_value: float) -> Tuple[Tensor, Tensor, Tensor]:
    return _floyd_kernel(q, k1, v1, k2, v2, atten_mask, scale_value)


@torch.library.custom_op("aclnn_emu::fused_floyd_attention_grad", mutates_args=())
def _op_floyd_backward(grad: Tensor, q: Tensor, k1: Tensor, v1: Tensor, k2: Tensor, v2: Tensor,
                       atten_mask: Optional[Tensor], softmax_max: Tensor, softmax_sum: Tensor, output: Tensor,
                       scale_value: float) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    return _floyd_backward_kernel(grad, q, k1, v1, k2, v2, atten_mask, softmax_max, softmax_sum, output,
                                  scale_value)


# Fake kernels: shapes and dtypes of the results (contiguous, as the kernels
# make them), with the dtype checks of the real ones.


@_op_rotary_mul.register_fake
def _(input, r1, r2, mode):
    for name, t in (("input", input), ("r1", r1), ("r2", r2)):
        if t.dtype not in _FLOATS:
            raise _error(_RM, name, "has dtype %s; expected torch.float32, torch.float16 or torch.bfloat16" % t.dtype)
    return input.new_empty(input.shape)


@_op_rotary_mul_backward.register_fake
def _(grad, input, r1, r2, mode, need_backward):
    if not need_backward:
        return input.new_empty(input.shape), r1.new_empty((0,)), r2.new_empty((0,))
    return input.new_empty(input.shape), r1.new_empty(r1.shape), r2.new_empty(r2.shape)


@_op_rope.register_fake
def _(x, cos, sin, mode):
    for name, t in (("x", x), ("cos", cos), ("sin", sin)):
        if t.dtype not in _FLOATS:
            raise _error(_RPE, name, "has dtype %s; expected torch.float32, torch.float16 or torch.bfloat16" % t.dtype)
    return x.new_empty(x.shape)


@_op_rope_backward.register_fake
def _(grad, x, cos, sin, mode, need_backward):
    if not need_backward:
        return grad.new_empty(grad.shape), cos.new_empty((0,)), sin.new_empty((0,))
    return grad.new_empty(grad.shape), cos.new_empty(cos.shape), sin.new_empty(sin.shape)


@_op_moe.register_fake
def _(tokens, indices, num_out_tokens, padded_mode):
    if tokens.dtype not in _FLOATS:
        raise _error(_MOE, "tokens",
                     "has dtype %s; expected torch.float32, torch.float16 or torch.bfloat16" % tokens.dtype)
    if indices.dim() == 2:
        slots = indices.shape[0] * indices.shape[1]
    elif indices.dim() == 1:
        slots = indices.shape[0]
    else:
        slots = indices.numel()
    n = num_out_tokens
    kept = torch.sym_min(n, slots) if n > 0 else torch.sym_max(n + slots, 0)
    rows = tuple(tokens.shape[1:]) if tokens.dim() >= 2 else (1,)
    return tokens.new_empty((kept,) + rows), indices.new_empty((slots,), dtype=torch.int32)


@_op_moe_backward.register_fake
def _(grad, sorted_indices, num_topk, padded_mode, tokens_shape):
    return grad.new_empty(tokens_shape)


@_op_silu.register_fake
def _(input):
    if input.dtype not in _FLOATS:
        raise _error(_SILU, "input",
                     "has dtype %s; expected torch.float32, torch.float16 or torch.bfloat16" % input.dtype)
    return input.new_empty(input.shape)


@_op_silu_backward.register_fake
def _(grad, input):
    return input.new_empty(input.shape)


@_op_floyd.register_fake
def _(q, k1, v1, k2, v2, atten_mask, scale_value):
    for name, t in zip(_FFA_ARGS, (q, k1, v1, k2, v2)):
        if t.dtype not in _FLOATS:
            raise _error(_FFA, name, "has dtype %s; expected torch.float32, torch.float16 or torch.bfloat16" % t.dtype)
    stats = tuple(q.shape[:4]) + (8,)
    return q.new_empty(q.shape), q.new_empty(stats, dtype=torch.float32), q.new_empty(stats, dtype=torch.float32)


@_op_floyd_backward.register_fake
def _(grad, q, k1, v1, k2, v2, atten_mask, softmax_max, softmax_sum, output, scale_value):
    return tuple(q.new_empty(t.shape) for t in (q, k1, v1, k2, v2))


_op_rotary_mul.register_autograd(lambda ctx, grad: _rotary_mul_grads(ctx, grad, _op_rotary_mul_backward),
                                 setup_context=_rotary_mul_setup)
_op_rope.register_autograd(lambda ctx, grad: _rope_grads(ctx, grad, _op_rope_backward), setup_context=_rope_setup)
_op_moe.register_autograd(lambda ctx, grad, grad_idx: _moe_grads(ctx, grad, grad_idx, _op_moe_backward),
                          setup_context=_moe_setup)
_op_silu.register_autograd(lambda ctx, grad: _silu_grads(ctx, grad, _op_silu_backward), setup_context=_silu_setup)
_op_floyd.register_autograd(lambda ctx, g, gm, gs: _floyd_grads(ctx, g, gm, gs, _op_floyd_backward),
                            setup_context=_floyd_setup)


# ------------------------------------------------------- eager autograd path


def _function(name, kernel, setup, grads, backward_kernel):
    """A torch.autograd.Function running ``kernel`` forward and ``grads`` with ``backward_kernel`` backward."""

    def forward(ctx, *inputs):
        output = kernel(*inputs)
        setup(ctx, inputs, output)
        return output

    def backward(ctx, *grad_outputs):
        return grads(ctx, *grad_outputs, backward_kernel)

    return type(name, (torch.autograd.Function,), {
        "forward": staticmethod(forward),
        "backward": staticmethod(torch.autograd.function.once_differentiable(backward)),
    })


_RotaryMul = _function("RotaryMul", _rotary_mul_kernel, _rotary_mul_setup, _rotary_mul_grads,
                       _rotary_mul_backward_kernel)
_RotaryPositionEmbedding = _function("RotaryPositionEmbedding", _rope_kernel, _rope_setup, _rope_grads,
                                     _rope_backward_kernel)
_MoeTokenPermute = _function("MoeTokenPermute", _moe_permute_kernel, _moe_setup, _moe_grads,
                             _moe_permute_backward_kernel)
_Silu = _function("Silu", _silu_kernel, _silu_setup, _silu_grads, _silu_backward_kernel)
_FusedFloydAttention = _function("FusedFloydAttention", _floyd_kernel, _floyd_setup, _floyd_grads,
                                 _floyd_backward_kernel)

_PLAIN = (Tensor, torch.nn.Parameter)
_is_compiling = torch.compiler.is_compiling
_dispatch_modes = torch._C._len_torch_dispatch_stack
_transforms_active = getattr(torch._C._functorch, "are_transforms_active", None) or (lambda: False)
_grad_enabled = torch.is_grad_enabled


def _route(func, names, *tensors):
    """0: call the custom op (tracing, fake/meta tensors, subclasses, modes); 1: the kernel; 2: the Function."""
    if _is_compiling() or _dispatch_modes() or _transforms_active():
        return 0
    needs_grad = False
    for i, t in enumerate(tensors):
        if t is None:
            continue
        if type(t) not in _PLAIN or not t.is_cpu:
            if not isinstance(t, Tensor):
                raise TypeError("%s: %s must be a torch.Tensor, not %s" % (func, names[i], type(t).__name__))
            return 0
        needs_grad = needs_grad or t.requires_grad
    return 2 if needs_grad and _grad_enabled() else 1


# ------------------------------------------------------------------- the API


def npu_rotary_mul(input, r1, r2, rotary_mode="half"):
    """torch_npu's ``npu_rotary_mul``: ``r1 * input + r2 * rotate(input)``.

    ``rotate`` is ``cat((-x2, x1), -1)`` of ``x1, x2 = chunk(input, 2, -1)``
    for ``rotary_mode='half'``, the pairwise rotation for ``'interleave'``.
    ``input`` is 4-D (BNSD, BSND or SBND); r1 (cos) and r2 (sin) broadcast
    to it (e.g. [1, S, 1, D]) and are cast to its dtype.

    Backward (RotaryMulGrad): dx always, dr1/dr2 (sums over the broadcast
    axes, in r1/r2's dtype) only when r1 or r2 requires grad: torch_npu's
    ``need_backward``.
    """
    mode = _rotary_mode(rotary_mode)
    route = _route(_RM, ("input", "r1", "r2"), input, r1, r2)
    if route == 1:
        return _rotary_mul_kernel(input, r1, r2, mode)
    if route == 2:
        return _RotaryMul.apply(input, r1, r2, mode)
    return _op_rotary_mul(input, r1, r2, mode)


def npu_rotary_position_embedding(x, cos, sin, mode=0):
    """torch_npu's ``npu_rotary_position_embedding`` (aclnnRotaryPositionEmbedding).

    ``mode``: 0 half, 1 interleave (2 quarter and 3 interleave-half on
    Ascend950 only). ``x`` 3-D (TND) or 4-D (BNSD, BSND, SBND); cos and sin
    of x's dtype, broadcasting to it. Backward: aclnnRotaryPositionEmbeddingGrad
    (dcos/dsin only when cos or sin requires grad).
    """
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise _error(_RPE, "mode", "is %r; expected an int (0 half, 1 interleave, 2 quarter, 3 interleave-half)"
                     % (mode,))
    route = _route(_RPE, ("x", "cos", "sin"), x, cos, sin)
    if route == 1:
        return _rope_kernel(x, cos, sin, mode)
    if route == 2:
        return _RotaryPositionEmbedding.apply(x, cos, sin, mode)
    return _op_rope(x, cos, sin, mode)


def npu_moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """torch_npu's ``npu_moe_token_permute``: ``(permuted_tokens, sorted_indices)``.

    ``tokens`` [T, H]; ``indices`` [T, topK] (or [T]) int32/int64 expert ids.
    Each token is repeated once per chosen expert and the rows grouped by
    expert (a stable sort of ``indices.flatten()``);
    ``permuted_tokens[sorted_indices[i]] = tokens[i // topK]``.
    ``num_out_tokens``: None or 0 keeps every row, > 0 that many, < 0 drops
    that many from the end. ``sorted_indices`` (int32) has no gradient.
    Backward: aclnnMoeTokenPermuteGrad.
    """
    n = 0 if num_out_tokens is None else int(num_out_tokens)
    padded_mode = bool(padded_mode)
    route = _route(_MOE, ("tokens", "indices"), tokens, indices)
    if route == 1:
        return _moe_permute_kernel(tokens, indices, n, padded_mode)
    if route == 2:
        return _MoeTokenPermute.apply(tokens, indices, n, padded_mode)
    return _op_moe(tokens, indices, n, padded_mode)


def npu_silu(input):
    """SiLU, ``input * sigmoid(input)`` (aclnnSilu); backward aclnnSiluBackward. Old torch_npu's name."""
    route = _route(_SILU, ("input",), input)
    if route == 1:
        return _silu_kernel(input)
    if route == 2:
        return _Silu.apply(input)
    return _op_silu(input)


silu = npu_silu


def fused_floyd_attention(q, k1, v1, k2, v2, atten_mask=None, scale_value=1.0):
    """Floyd attention (aclnnFusedFloydAttention); backward aclnnFusedFloydAttentionGrad. Our name.

    ``S[n,m,k] = scale_value * (q[n,m]·k1[n,k] + q[n,m]·k2[k,m])`` per (b, h),
    masked scores set to the lowest float, ``P = softmax_k(S)``,
    ``out[n,m] = sum_k P * (v1[n,k] + v2[k,m])``. q [B,H,N,M,D]; k1, v1
    [B,H,N,K,D]; k2, v2 [B,H,K,M,D]; N % 16, M % 128, K % 128 == 0, D in
    {32, 64, 128}; ``atten_mask`` None or bool/uint8 [B,1,N,1,K] (True masks).

    Returns the attention output (like ``q``).
    """
    scale_value = float(scale_value)
    route = _route(_FFA, _FFA_ARGS + ("atten_mask",), q, k1, v1, k2, v2, atten_mask)
    if route == 1:
        return _floyd_kernel(q, k1, v1, k2, v2, atten_mask, scale_value)[0]
    if route == 2:
        return _FusedFloydAttention.apply(q, k1, v1, k2, v2, atten_mask, scale_value)[0]
    return _op_floyd(q, k1, v1, k2, v2, atten_mask, scale_value)[0]


# ------------------------------------------------------- import torch_npu


def _real_torch_npu_spec():
    """The spec of an importable torch_npu that is not ours (None when there is none).

    Looks where ``import`` would (``sys.meta_path``: import hooks, then
    ``sys.path``), skipping the directory of ``python -m aclnn_emu._torch_npu_shim``.
    """
    import os

    shim = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_npu_shim")
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != shim]
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find("torch_npu", path if finder is importlib.machinery.PathFinder else None)
        except Exception:  # a broken hook is not a torch_npu
            continue
        # (a namespace package, origin None, is a directory named torch_npu, not a torch_npu)
        if spec is not None and spec.origin and not spec.origin.startswith(shim + os.sep):
            return spec
    return None


def install():
    """Make ``import torch_npu`` give this module, unless a real torch_npu exists.

    Returns True when ``sys.modules['torch_npu']`` is this module (now or
    already), False when a real torch_npu is imported or importable (then
    nothing is changed: it is never shadowed). Call it before the model code
    imports torch_npu; :func:`uninstall` undoes it.
    """
    current = sys.modules.get("torch_npu")
    me = sys.modules[__name__]
    if current is not None:
        return current is me
    if _real_torch_npu_spec() is not None:
        return False
    sys.modules["torch_npu"] = me
    return True


def uninstall():
    """Remove this module from ``sys.modules['torch_npu']`` (if :func:`install` put it there)."""
    if sys.modules.get("torch_npu") is sys.modules[__name__]:
        del sys.modules["torch_npu"]
