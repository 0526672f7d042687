"""Phase 2 re-checks device memory for every operator: a block freed between
phase 1 and phase 2 gives 161002, and the message names the operator and the
argument by its CANN name. One entry per operator: how to build valid
arguments (as DevViews, in CANN order) and how to call phase 1."""
import numpy as np
import pytest

from aclnn_emu import ffi, lib
from helpers import DevView, expect, take_msg

NULL = ffi.NULL
PARAM_INVALID = 161002
INT32 = 3
BOOL = 12
RNG = np.random.default_rng(7)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _phase1(api, args):
    ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = getattr(lib, api + "GetWorkspaceSize")(*args, ws, exe)
    assert rc == 0, take_msg()
    return ws[0], exe[0]


def _silu_backward():
    views = [("gradOutput", DevView(_f32(4, 8))), ("self", DevView(_f32(4, 8))), ("gradInput", DevView(_f32(4, 8)))]
    return views, [v.tensor for _, v in views]


def _moe_grad():
    grad = DevView(_f32(6, 16))
    idx = DevView(np.array([0, 3, 5, 1, 2, 4], np.int32), acl_dtype=INT32)
    out = DevView(_f32(3, 16))
    views = [("permutedOutputGrad", grad), ("sortedIndices", idx), ("out", out)]
    return views, [grad.tensor, idx.tensor, 2, False, out.tensor]


def _moe():
    tokens = DevView(_f32(3, 8))
    idx = DevView(np.array([[1, 2], [0, 1], [0, 2]], np.int32), acl_dtype=INT32)
    out = DevView(_f32(6, 8))
    sorted_out = DevView(np.zeros(6, np.int32), acl_dtype=INT32)
    views = [("tokens", tokens), ("indices", idx), ("permuteTokensOut", out), ("sortedIndicesOut", sorted_out)]
    return views, [tokens.tensor, idx.tensor, 0, False, out.tensor, sorted_out.tensor]


def _rope_grad():
    names = ["dy", "cos", "sin", "xOptional", "dxOut", "dcosOut", "dsinOut"]
    shapes = [(1, 4, 2, 8), (1, 4, 1, 8), (1, 4, 1, 8), (1, 4, 2, 8), (1, 4, 2, 8), (1, 4, 1, 8), (1, 4, 1, 8)]
    views = [(n, DevView(_f32(*shape))) for n, shape in zip(names, shapes)]
    t = [v.tensor for _, v in views]
    return views, [*t[:4], 0, *t[4:]]


def _rope():
    names, shapes = ["x", "cos", "sin", "out"], [(1, 4, 2, 8), (1, 4, 1, 8), (1, 4, 1, 8), (1, 4, 2, 8)]
    views = [(n, DevView(_f32(*shape))) for n, shape in zip(names, shapes)]
    t = [v.tensor for _, v in views]
    return views, [*t[:3], 0, t[3]]


def _floyd_shapes(b=1, h=1, n=16, m=128, k=128, d=32):
    q, kv1, kv2 = (b, h, n, m, d), (b, h, n, k, d), (b, h, k, m, d)
    return q, kv1, kv2, (b, 1, n, 1, k), (b, h, n, m, 8)


def _floyd_views(names, shapes):
    """(name, DevView) per tensor: a bool mask of zeros, small fp32 values elsewhere."""
    return [(name, DevView(np.zeros(shape, np.bool_), acl_dtype=BOOL) if name == "attenMaskOptional"
             else DevView(_f32(*shape) * 0.1)) for name, shape in zip(names, shapes)]


def _floyd_grad():
    q, kv1, kv2, mask, soft = _floyd_shapes()
    names = ["query", "key1", "value1", "key2", "value2", "dy", "attenMaskOptional", "softmaxMax", "softmaxSum",
             "attentionIn", "dqOut", "dk1Out", "dv1Out", "dk2Out", "dv2Out"]
    shapes = [q, kv1, kv1, kv2, kv2, q, mask, soft, soft, q, q, kv1, kv1, kv2, kv2]
    views = _floyd_views(names, shapes)
    t = [v.tensor for _, v in views]
    return views, [*t[:10], 0.125, *t[10:]]


def _floyd():
    q, kv1, kv2, mask, soft = _floyd_shapes()
    names = ["query", "key1", "value1", "key2", "value2", "attenMaskOptional", "softmaxMaxOut", "softmaxSumOut",
             "attentionOutOut"]
    shapes = [q, kv1, kv1, kv2, kv2, mask, soft, soft, q]
    views = _floyd_views(names, shapes)
    t = [v.tensor for _, v in views]
    return views, [*t[:6], 0.125, *t[6:]]


OPERATORS = {
    "aclnnFusedFloydAttentionGrad": _floyd_grad,
    "aclnnFusedFloydAttention": _floyd,
    "aclnnRotaryPositionEmbeddingGrad": _rope_grad,
    "aclnnRotaryPositionEmbedding": _rope,
    "aclnnSiluBackward": _silu_backward,
    "aclnnMoeTokenPermuteGrad": _moe_grad,
    "aclnnMoeTokenPermute": _moe,
}

CASES = [(api, k) for api, build in OPERATORS.items() for k in range(len(build()[0]))]


@pytest.mark.parametrize("api,which", CASES)
def test_freed_block_is_named_in_phase2(api, which):
    views, args = OPERATORS[api]()
    try:
        size, exe = _phase1(api, args)
        workspace = NULL
        if size:  # allocated first, so that it cannot reuse the freed block's address
            p = ffi.new("void **")
            assert lib.aclrtMalloc(p, size, 0) == 0
            workspace = p[0]
        name, view = views[which]
        view.block.free()
        expect(PARAM_INVALID, getattr(lib, api)(workspace, size, exe, NULL), api, name + " (", "not in device memory")
        if workspace != NULL:
            lib.aclrtFree(workspace)
        expect(0, lib.aclDestroyAclOpExecutor(exe))  # a failed launch does not consume the executor
    finally:
        for _, v in views:
            v.close()
