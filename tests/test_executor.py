"""The aclnn two-phase contract (include/aclnn/aclnn_base.h, cann_facts.md
section 2 and "Decisions"), exercised with aclnnSiluBackward through raw
``lib`` calls on device memory from aclrtMalloc."""

import ml_dtypes
import numpy as np
import pytest
from aclnn_emu import ffi, lib
from helpers import Block, expect, last_kernel, make_tensor, take_msg
from reference import silu_backward_ref, silu_ref

NULL = ffi.NULL
NULLPTR = 161001
INVALID = 161002
INNER = 561000
INNER_NULLPTR = 561103



# ------------------------------------------------------------------ helpers

@pytest.fixture
def workspaces():
    blocks = []

    def alloc(size):
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, max(size, 1), 0) == 0
        blocks.append(p[0])
        return p[0]

    yield alloc
    for b in blocks:
        lib.aclrtFree(b)


def phase1(dy, x, dx):
    ws, ex = ffi.new("uint64_t *", 12345), ffi.new("aclOpExecutor **")
    rc = lib.aclnnSiluBackwardGetWorkspaceSize(dy.tensor, x.tensor, dx.tensor, ws, ex)
    assert rc == 0, take_msg()
    return ws[0], ex[0]


def rng_inputs(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    dy = rng.uniform(0.5, 2.0, shape).astype(dtype)
    x = rng.uniform(-6, 6, shape).astype(dtype)
    return dy, x


def close_f32(actual, dy, x):
    np.testing.assert_allclose(actual.astype(np.float64), silu_backward_ref(dy, x), rtol=1e-5, atol=1e-6)


@pytest.fixture(autouse=True)
def clean_messages():
    take_msg()
    yield
    take_msg()


# --------------------------------------------------------------- single use

def test_executor_is_single_use(views):
    dy, x = rng_inputs((4, 5))
    vdy, vx, vdx = views(dy), views(x), views(np.zeros_like(x))
    size, ex = phase1(vdy, vx, vdx)
    assert size == 0
    expect(0, lib.aclnnSiluBackward(NULL, 0, ex, NULL))
    close_f32(vdx.values(), dy, x)
    msg = expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ex, NULL), "aclnnSiluBackward", "consumed")
    assert "aclSetAclOpExecutorRepeatable" in msg  # says how to run an executor many times
    # the consumed executor is not live for the management functions either
    expect(INNER, lib.aclDestroyAclOpExecutor(ex), "executor")
    expect(INNER, lib.aclSetAclOpExecutorRepeatable(ex), "executor")
    expect(INVALID, lib.aclSetInputTensorAddr(ex, 0, NULL, vdy.block.ptr), "executor")


def test_null_executor():
    expect(NULLPTR, lib.aclnnSiluBackward(NULL, 0, NULL, NULL), "executor")
    expect(NULLPTR, lib.aclnnSilu(NULL, 0, NULL, NULL), "executor")


def test_workspace_grows_with_non_contiguous_views(views):
    shape = (6, 7)
    n = 42
    dy, x = rng_inputs(shape)
    cases = [
        (("contig", "contig", "contig"), lambda s: s == 0),
        (("transposed", "contig", "contig"), lambda s: s == n * 4),
        (("contig", "transposed", "contig"), lambda s: s == n * 4),
        (("contig", "contig", "transposed"), lambda s: s == n * 4),
        (("transposed", "contig", "transposed"), lambda s: s >= 2 * n * 4),
        (("transposed", "transposed", "transposed"), lambda s: s >= 3 * n * 4),
        (("offset", "offset", "offset"), lambda s: s == 0),  # an offset alone stays contiguous
    ]
    sizes = {}
    for layouts, ok in cases:
        vdy, vx, vdx = views(dy, layouts[0]), views(x, layouts[1]), views(np.zeros_like(x), layouts[2])
        size, ex = phase1(vdy, vx, vdx)
        sizes[layouts] = size
        assert ok(size), (layouts, size)
        expect(0, lib.aclDestroyAclOpExecutor(ex))
    assert sizes[("transposed", "contig", "transposed")] > sizes[("transposed", "contig", "contig")]
    assert sizes[("transposed", "transposed", "transposed")] > sizes[("transposed", "contig", "transposed")]


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_workspace_counts_item_size(views, dtype):
    dy, x = rng_inputs((3, 11), dtype)
    vdy, vx, vdx = views(dy, "transposed"), views(x), views(np.zeros_like(x))
    size, ex = phase1(vdy, vx, vdx)
    assert size == 33 * 2
    expect(0, lib.aclDestroyAclOpExecutor(ex))


def test_null_workspace_then_small_workspace_then_success(views, workspaces):
    dy, x = rng_inputs((8, 9))
    vdy, vx, vdx = views(dy, "transposed"), views(x), views(np.zeros_like(x))
    size, ex = phase1(vdy, vx, vdx)
    assert size == 72 * 4
    ws = workspaces(size)
    # NULL workspace with a size > 0
    expect(NULLPTR, lib.aclnnSiluBackward(NULL, size, ex, NULL), "workspace", str(size))
    # too small
    expect(INVALID, lib.aclnnSiluBackward(ws, size - 1, ex, NULL), "workspaceSize", str(size - 1), str(size))
    expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ex, NULL), "workspaceSize")
    # nothing ran
    assert np.all(vdx.values() == 0) and vdx.guards_intact()
    # after the argument errors the executor is as it was and still runs
    expect(0, lib.aclnnSiluBackward(ws, size, ex, NULL))
    close_f32(vdx.values(), dy, x)
    assert vdx.guards_intact()
    expect(INVALID, lib.aclnnSiluBackward(ws, size, ex, NULL), "consumed")


def test_larger_workspace_is_fine(views, workspaces):
    dy, x = rng_inputs((5, 3))
    vdy, vx, vdx = views(dy), views(x, "transposed"), views(np.zeros_like(x), "transposed")
    size, ex = phase1(vdy, vx, vdx)
    ws = workspaces(size + 4096)
    expect(0, lib.aclnnSiluBackward(ws, size + 4096, ex, NULL))
    close_f32(vdx.values(), dy, x)
    assert vdx.guards_intact()


def test_executor_of_another_operator(views):
    x = rng_inputs((4, 4))[1]
    vx, vy = views(x), views(np.zeros_like(x))
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    expect(0, lib.aclnnSiluGetWorkspaceSize(vx.tensor, vy.tensor, ws, ex))
    expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ex[0], NULL), "aclnnSiluBackward", "aclnnSilu")
    assert np.all(vy.values() == 0)
    # still usable by its own phase 2
    expect(0, lib.aclnnSilu(NULL, 0, ex[0], NULL))
    np.testing.assert_allclose(vy.values(), silu_ref(x), rtol=1e-5, atol=1e-6)


def test_phase2_on_a_dead_stream_keeps_the_executor(views):
    dy, x = rng_inputs((3, 3))
    vdy, vx, vdx = views(dy), views(x), views(np.zeros_like(x))
    _, ex = phase1(vdy, vx, vdx)
    p = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(p) == 0
    assert lib.aclrtDestroyStream(p[0]) == 0
    expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ex, p[0]), "stream")
    assert np.all(vdx.values() == 0)
    s = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(s) == 0
    try:
        expect(0, lib.aclnnSiluBackward(NULL, 0, ex, s[0]))
        expect(0, lib.aclrtSynchronizeStream(s[0]))
    finally:
        lib.aclrtDestroyStream(s[0])
    close_f32(vdx.values(), dy, x)


def test_destroy_unrun_single_use_executor(views):
    dy, x = rng_inputs((2, 2))
    vdy, vx, vdx = views(dy), views(x), views(np.zeros_like(x))
    _, ex = phase1(vdy, vx, vdx)
    expect(0, lib.aclDestroyAclOpExecutor(ex))
    expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ex, NULL), "executor")
    expect(INNER, lib.aclDestroyAclOpExecutor(ex), "executor")
    assert np.all(vdx.values() == 0)


# --------------------------------------------------------------- repeatable

def test_repeatable_executor_with_rebound_addresses(views, workspaces):
    shape = (6, 5)
    rounds = [rng_inputs(shape, seed=s) for s in range(3)]
    # The plan: transposed self so the run also goes through the workspace.
    vdy, vx, vdx = views(rounds[0][0]), views(rounds[0][1], "transposed"), views(np.zeros(shape, np.float32))
    size, ex = phase1(vdy, vx, vdx)
    assert size > 0
    ws = workspaces(size)
    expect(0, lib.aclSetAclOpExecutorRepeatable(ex))
    try:
        # Round 0: the addresses of phase 1.
        expect(0, lib.aclnnSiluBackward(ws, size, ex, NULL))
        close_f32(vdx.values(), *rounds[0])
        first = vdx.values()

        outputs = [vdx]
        for dy, x in rounds[1:]:
            ndy, nx = views(dy), views(x, "transposed")  # same views, new blocks
            ndx = views(np.zeros(shape, np.float32))
            expect(0, lib.aclSetInputTensorAddr(ex, 0, vdy.tensor, ndy.block.ptr))
            expect(0, lib.aclSetInputTensorAddr(ex, 1, NULL, nx.block.ptr))  # tensor may be NULL
            expect(0, lib.aclSetOutputTensorAddr(ex, 0, vdx.tensor, ndx.block.ptr))
            expect(0, lib.aclnnSiluBackward(ws, size, ex, NULL))
            close_f32(ndx.values(), dy, x)
            assert ndx.guards_intact()
            outputs.append(ndx)
            # the tensors given were re-pointed too
            got = ffi.new("void **")
            assert lib.aclGetRawTensorAddr(vdy.tensor, got) == 0 and got[0] == ndy.block.ptr
            assert lib.aclGetRawTensorAddr(vdx.tensor, got) == 0 and got[0] == ndx.block.ptr
            # the first output block was not written again
            np.testing.assert_array_equal(outputs[0].values(), first)
        assert not np.array_equal(outputs[1].values(), outputs[2].values())

        # aclSetTensorAddr counts inputs then outputs; the capital-A aliases work too
        expect(0, lib.aclSetTensorAddr(ex, 2, NULL, vdx.block.ptr))
        expect(0, lib.AclSetInputTensorAddr(ex, 0, NULL, vdy.block.ptr))
        expect(0, lib.AclSetInputTensorAddr(ex, 1, NULL, vx.block.ptr))
        expect(0, lib.AclSetOutputTensorAddr(ex, 0, NULL, vdx.block.ptr))
        expect(0, lib.AclSetTensorAddr(ex, 2, NULL, vdx.block.ptr))
        expect(0, lib.aclnnSiluBackward(ws, size, ex, NULL))
        close_f32(vdx.values(), *rounds[0])

        # indices out of range
        expect(INVALID, lib.aclSetInputTensorAddr(ex, 2, NULL, vdy.block.ptr), "index", "2")
        expect(INVALID, lib.aclSetOutputTensorAddr(ex, 1, NULL, vdx.block.ptr), "index", "1")
        expect(INVALID, lib.aclSetTensorAddr(ex, 3, NULL, vdx.block.ptr), "index", "3")
        expect(INVALID, lib.aclSetInputTensorAddr(ex, 1 << 62, NULL, vdy.block.ptr), "index")
        expect(NULLPTR, lib.aclSetInputTensorAddr(NULL, 0, NULL, vdy.block.ptr), "executor")
        expect(NULLPTR, lib.aclSetOutputTensorAddr(NULL, 0, NULL, vdy.block.ptr), "executor")
        expect(NULLPTR, lib.aclSetTensorAddr(NULL, 0, NULL, vdy.block.ptr), "executor")
        # a repeatable executor survives argument errors and may be marked again
        expect(0, lib.aclSetAclOpExecutorRepeatable(ex))
        expect(0, lib.aclnnSiluBackward(ws, size, ex, NULL))
    finally:
        rc = lib.aclDestroyAclOpExecutor(ex)
    assert rc == 0
    expect(INVALID, lib.aclnnSiluBackward(ws, size, ex, NULL), "executor")
    expect(INVALID, lib.aclSetInputTensorAddr(ex, 0, NULL, vdy.block.ptr), "executor")
    expect(INNER, lib.aclDestroyAclOpExecutor(ex), "executor")


def test_rebinding_keeps_the_phase1_view(views):
    """A rebound address is read with the view phase 1 saw, whatever the tensor says later."""
    dy, x = rng_inputs((4, 3))
    vdy, vx, vdx = views(dy), views(x), views(np.zeros_like(x))
    _, ex = phase1(vdy, vx, vdx)
    expect(0, lib.aclSetAclOpExecutorRepeatable(ex))
    # Change the caller's descriptor after phase 1: the executor keeps its own copy.
    dims = ffi.new("int64_t[]", [2, 2])
    assert lib.aclInitTensor(vx.tensor, dims, 2, 1, NULL, 0, 2, dims, 2, NULL) == 0
    try:
        expect(0, lib.aclnnSiluBackward(NULL, 0, ex, NULL))
        close_f32(vdx.values(), dy, x)
    finally:
        assert lib.aclDestroyAclOpExecutor(ex) == 0


def test_workspace_overlapping_a_view_is_refused(views, workspaces):
    """A workspace that shares bytes with a tensor would be overwritten mid-run: 161002 naming both."""
    dy, x = rng_inputs((4, 8))
    vdy, vx, vdx = views(dy), views(x, "transposed"), views(np.zeros_like(x))  # transposed x: staged
    size, ex = phase1(vdy, vx, vdx)
    assert size > 0
    try:
        expect(INVALID, lib.aclnnSiluBackward(vx.block.ptr, size, ex, NULL), "workspace", "self (input 1)")
        expect(INVALID, lib.aclnnSiluBackward(vdx.block.ptr, size, ex, NULL), "workspace", "gradInput (output 0)")
        expect(0, lib.aclnnSiluBackward(workspaces(size), size, ex, NULL))  # not consumed by the refusals
        close_f32(vdx.values(), dy, x)
    finally:
        lib.aclDestroyAclOpExecutor(ex)


def test_misaligned_addresses_are_refused(views, workspaces):
    """Kernels load elements as their C types: a first element off its alignment is 161002, naming the tensor."""
    dy, x = rng_inputs((2, 3))
    vdy, vx, vdx = views(dy), views(x), views(np.zeros_like(x))
    dims = ffi.new("int64_t[]", [2, 3])
    odd = lib.aclCreateTensor(dims, 2, 0, NULL, 0, 2, dims, 2, ffi.cast("char *", vx.block.ptr) + 2)
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    try:
        expect(INVALID, lib.aclnnSiluBackwardGetWorkspaceSize(vdy.tensor, odd, vdx.tensor, ws, ex), "self",
               "not a multiple of its 4-byte element size")
        good, _, gx, gdx = repeatable_small(views)
        expect(INVALID, lib.aclSetInputTensorAddr(good, 1, NULL, ffi.cast("char *", gx.block.ptr) + 1),
               "aclSetInputTensorAddr", "self (input 1)", "not a multiple")
        expect(0, lib.aclnnSiluBackward(NULL, 0, good, NULL))  # the old address is kept
        close_f32(gdx.values(), *rng_inputs((2, 3)))
        expect(0, lib.aclDestroyAclOpExecutor(good))
    finally:
        lib.aclDestroyTensor(odd)


def _phase1_of_broadcasts(op):
    """Phase 1 of `op` on stride-0 views of far more elements than memory (one device block of 64 bytes)."""
    F32, I32 = 0, 3
    blk = Block(np.zeros(16, np.float32))
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    tensors = []

    def t(shape, dtype=F32, at=0):
        tensors.append(make_tensor(shape, dtype, [0] * len(shape), 0, [16], ffi.cast("char *", blk.ptr) + at))
        return tensors[-1]

    try:
        if op == "silu":
            shape = (2 ** 62 + 16,)  # 2^64 + 64 bytes: the staging size wrapped to 64
            return lib.aclnnSiluGetWorkspaceSize(t(shape), t(shape, at=32), ws, ex), take_msg()
        if op == "moe_grad":
            grad = t((4, 2 ** 60 + 4))
            return lib.aclnnMoeTokenPermuteGradGetWorkspaceSize(grad, t((4,), I32), 1, False, t((4, 2 ** 60 + 4)),
                                                                ws, ex), take_msg()
        nmd, nkd, kmd = (2 ** 43, 1, 16, 128, 32), (2 ** 43, 1, 16, 128, 32), (2 ** 43, 1, 128, 128, 32)
        stats = (2 ** 43, 1, 16, 128, 8)
        return lib.aclnnFusedFloydAttentionGetWorkspaceSize(t(nmd), t(nkd), t(nkd), t(kmd), t(kmd), NULL, 1.0,
                                                            t(stats), t(stats), t(nmd), ws, ex), take_msg()
    finally:
        for tensor in tensors:
            lib.aclDestroyTensor(tensor)
        blk.free()


@pytest.mark.parametrize("op,name", [("silu", "self"), ("moe_grad", "permutedOutputGrad"), ("floyd", "query")])
def test_views_too_large_to_stage_are_refused(op, name):
    """A stride-0 view may have more elements than memory. Staging it needs that many bytes of workspace, whose
    size wrapped past 2^64 to a few bytes, and phase 2 then wrote past the workspace (ASan). Phase 1 now refuses
    more than 2^58 bytes of elements in one tensor: 161002 naming it."""
    rc, msg = _phase1_of_broadcasts(op)
    assert rc == INVALID and name in msg and "2^58" in msg, (rc, msg)


def repeatable_small(views):
    """A repeatable executor of a [2, 3] fp32 SiluBackward: (executor, dy, x, gradInput views)."""
    dy, x = rng_inputs((2, 3))
    vdy, vx, vdx = views(dy), views(x), views(np.zeros_like(x))
    _, ex = phase1(vdy, vx, vdx)
    expect(0, lib.aclSetAclOpExecutorRepeatable(ex))
    return ex, vdy, vx, vdx


def test_setters_name_the_argument(views):
    ex, _, _, _ = repeatable_small(views)
    host = np.zeros(6, np.float32)
    try:
        expect(INVALID, lib.aclSetOutputTensorAddr(ex, 0, NULL, ffi.from_buffer(host)), "gradInput (output 0)",
               "aclnnSiluBackward")
        expect(INVALID, lib.aclSetInputTensorAddr(ex, 0, NULL, NULL), "gradOutput (input 0)", "addr is NULL")
    finally:
        lib.aclDestroyAclOpExecutor(ex)


def test_destroyed_executor_message_says_so(views):
    ex, _, _, _ = repeatable_small(views)
    expect(0, lib.aclDestroyAclOpExecutor(ex))
    expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ex, NULL), "consumed by an earlier run or destroyed")


def test_management_functions_reject_null():
    expect(INNER_NULLPTR, lib.aclSetAclOpExecutorRepeatable(NULL), "executor")
    expect(INNER_NULLPTR, lib.aclDestroyAclOpExecutor(NULL), "executor")


def test_garbage_executor_pointer_does_not_crash():
    garbage = ffi.cast("aclOpExecutor *", ffi.new("char[4096]", b"\xff" * 4096))
    expect(INNER, lib.aclSetAclOpExecutorRepeatable(garbage), "executor")
    expect(INNER, lib.aclDestroyAclOpExecutor(garbage), "executor")
    expect(INVALID, lib.aclnnSiluBackward(NULL, 0, garbage, NULL), "executor")
    expect(INVALID, lib.aclnnSilu(NULL, 0, garbage, NULL), "executor")
    expect(INVALID, lib.aclSetInputTensorAddr(garbage, 0, NULL, NULL), "executor")
    expect(INVALID, lib.aclSetOutputTensorAddr(garbage, 0, NULL, NULL), "executor")
    # other live handles are not executors either
    s = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(s) == 0
    try:
        expect(INNER, lib.aclDestroyAclOpExecutor(ffi.cast("aclOpExecutor *", s[0])), "executor")
        expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ffi.cast("aclOpExecutor *", s[0]), NULL), "executor")
    finally:
        assert lib.aclrtDestroyStream(s[0]) == 0


# ------------------------------------------------------------ empty tensors

@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 5), (2, 0, 3)])
@pytest.mark.parametrize("layout", ["contig", "transposed"])
def test_empty_tensors(views, shape, layout):
    # run something first, so an unchanged "last kernel" would show
    dy, x = rng_inputs((2, 2))
    a, b, c = views(dy), views(x), views(np.zeros_like(x))
    _, ex = phase1(a, b, c)
    expect(0, lib.aclnnSiluBackward(NULL, 0, ex, NULL))
    assert last_kernel() != ""

    z = np.zeros(shape, np.float32)
    vdy, vx, vdx = views(z, layout, guard=3.0), views(z, layout, guard=4.0), views(z, layout, guard=5.0)
    size, ex = phase1(vdy, vx, vdx)
    assert size == 0
    expect(0, lib.aclnnSiluBackward(NULL, 0, ex, NULL))
    assert last_kernel() == ""
    for v in (vdy, vx, vdx):
        assert v.guards_intact()
    expect(INVALID, lib.aclnnSiluBackward(NULL, 0, ex, NULL), "consumed")


def test_empty_tensors_with_null_data():
    dims = ffi.new("int64_t[]", [4, 0])
    ts = [lib.aclCreateTensor(dims, 2, 0, NULL, 0, 2, dims, 2, NULL) for _ in range(3)]
    try:
        ws, ex = ffi.new("uint64_t *", 7), ffi.new("aclOpExecutor **")
        expect(0, lib.aclnnSiluBackwardGetWorkspaceSize(ts[0], ts[1], ts[2], ws, ex))
        assert ws[0] == 0
        expect(0, lib.aclnnSiluBackward(NULL, 0, ex[0], NULL))
        assert last_kernel() == ""
    finally:
        for t in ts:
            lib.aclDestroyTensor(t)
