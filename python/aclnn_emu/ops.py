"""Operators on numpy arrays and :class:`~aclnn_emu.DeviceTensor` objects.

Each operator runs the aclnn two-phase protocol: create the tensors, phase 1
(``aclnnXxxGetWorkspaceSize``), allocate the workspace it asks for, phase 2
(``aclnnXxx``), destroy the tensors.

numpy arrays are not copied: their memory is handed to the library as tensor
data (emulated device memory is host memory), with the numpy view's strides
and offset. Arrays whose layout aclnn cannot describe (negative strides,
unaligned data, non-native byte order) are copied first; an ``out`` array of
that kind is computed into a temporary and copied back.

The fast path (C-contiguous aligned numpy arrays, with or without ``out``)
reuses a per-thread plan (a repeatable executor) for each shape and dtype, so
a call costs a few microseconds.
"""

import math
import operator
import threading
import weakref

import numpy as np

from ._aclnn_emu_cffi import ffi, lib
from .errors import AclnnError, check, last_error_message
from .runtime import _settings_hooks, invalidate_plans, stream_handle
from .tensor import DTYPE_TO_ACL, DeviceTensor, int64_array, normalize_array, wrap_array

__all__ = ["silu", "silu_backward", "invalidate_plans", "release_workspaces"]
__all__ += ["moe_token_permute", "moe_token_permute_grad", "rotary_position_embedding", "rotary_position_embedding_grad", "rotary_mul", "rotary_mul_backward"]

_NULL = ffi.NULL
_ND = lib.ACL_FORMAT_ND
_ndarray = np.ndarray
_np_empty = np.empty
_dtype_class = np.dtype
_prod = math.prod
_new_ptr = ffi.new
_cast = ffi.cast
_gc = ffi.gc
_buffer = ffi.buffer
_malloc_result = lib.aclnnEmuMallocResult
_free = lib.aclrtFree
#: Result arrays of at least this many bytes live in device blocks, freed
#: when the last array using them goes: the device cache (aclnnEmuSetDevice-
#: CacheLimit) then hands those pages, already faulted in, to the next call's
#: results. Fresh host pages cost their first-touch faults (0.15-0.7 s per GiB
#: here), which took longer than the kernel on RoPE's shapes.
_BLOCK_RESULT_MIN = 2 << 20


def _empty(shape, dtype):
    """A new uninitialised array, in an aclrtMalloc block when it is large."""
    if not isinstance(dtype, _dtype_class):
        dtype = np.dtype(dtype)
    nbytes = dtype.itemsize * _prod(shape)
    if nbytes < _BLOCK_RESULT_MIN:
        return _np_empty(shape, dtype)
    ptr = _new_ptr("void **")
    if _malloc_result(ptr, nbytes) != 0:
        last_error_message()  # the host memory below reports its own failure
        return _np_empty(shape, dtype)
    block = _gc(_cast("char *", ptr[0]), _free)
    return np.frombuffer(_buffer(block, nbytes), dtype).reshape(shape)
_from_buffer = ffi.from_buffer
_create = lib.aclCreateTensor
_destroy = lib.aclDestroyTensor
_destroy_executor = lib.aclDestroyAclOpExecutor
_sync_stream = lib.aclrtSynchronizeStream
_codes_get = DTYPE_TO_ACL.get
# numpy buffers are host memory: each launch that hands them in allows that on
# its thread for the duration of the launch only, so raw ``lib`` callers keep
# the library's device-memory checks.
_get_host_ok = lib.aclnnEmuGetHostMemoryAllowed
_set_host_ok = lib.aclnnEmuSetHostMemoryAllowed


class _HostMemoryAllowed:
    """``with _HostMemoryAllowed():`` lets the library take numpy (host) memory
    on this thread inside the block, and restores the setting after it;
    ``needed=False`` leaves the setting alone."""

    __slots__ = ("_turned_on",)

    def __init__(self, needed=True):
        self._turned_on = needed and not _get_host_ok()

    def __enter__(self):
        if self._turned_on:
            _set_host_ok(1)

    def __exit__(self, *exc):
        if self._turned_on:
            _set_host_ok(0)

# ------------------------------------------------------------------ workspace

_workspaces = weakref.WeakSet()
_GRANULE = 1 << 12


class _Workspace:
    """A device block reused by one thread's launches; grows on demand."""

    __slots__ = ("ptr", "size", "__weakref__")

    def __init__(self):
        self.ptr = _NULL
        self.size = 0
        _workspaces.add(self)

    def get(self, nbytes):
        if nbytes > self.size:
            self.release()
            size = (nbytes + _GRANULE - 1) // _GRANULE * _GRANULE
            p = ffi.new("void **")
            check(lib.aclrtMalloc(p, size, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
            self.ptr, self.size = p[0], size
        return self.ptr

    def release(self):
        ptr, self.ptr, self.size = self.ptr, _NULL, 0
        if ptr != _NULL:
            lib.aclrtFree(ptr)

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown
            pass


def release_workspaces():
    """Free every thread's cached workspace (the next launch that needs one allocates again)."""
    for ws in list(_workspaces):
        try:
            ws.release()
        except Exception:
            pass


class _Plan(tuple):
    """``(executor, workspace_size, tensor...)``: a repeatable executor and the tensors it was planned with.

    Owns both; they are released when the plan is dropped from its cache.
    """

    __slots__ = ()

    def __del__(self):
        try:
            _destroy_executor(self[0])
            for t in self[2:]:
                _destroy(t)
        except Exception:  # interpreter shutdown
            pass


class _ThreadState(threading.local):
    def __init__(self):
        if threading.current_thread() is not threading.main_thread():
            lib.aclrtSetDevice(0)  # aclrt state is per thread, as in CANN
        self.scratch = (ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"))
        self.workspace = _Workspace()
        self.plans_silu = {}
        self.plans_silu_backward = {}
        self.plans_moe_token_permute = {}
        self.plans_moe_token_permute_grad = {}
        self.plans_rope_fwd_0 = {}
        self.plans_rope_fwd_1 = {}
        self.plans_rope_fwd_2 = {}
        self.plans_rope_fwd_3 = {}
        self.plans_rope_grad = {}
        self.plans_floyd = {}
        self.plans_floyd_grad = {}


_state = _ThreadState()

#: Set to False to plan every call from scratch (no repeatable executors).
PLAN_CACHE = True
#: Hand numpy memory to the library as tensor data (zero copy). When False
#: (set at import if the library refuses host memory), numpy operands are
#: staged through device memory: aclrtMalloc + aclrtMemcpy in and out.
ZERO_COPY = True
_MAX_PLANS = 64
#: Part of every plan key; bumped by runtime.invalidate_plans().
_gen = 0


def _bump_generation():
    global _gen
    _gen += 1


_settings_hooks.append(_bump_generation)


_BF16 = lib.ACL_BF16


def _cache(plans, key, plan, codes):
    # Whether BFLOAT16 is accepted depends on the product, which raw
    # lib.aclnnEmuSetSocName calls can change behind our back: such plans are
    # used once and not kept.
    if _BF16 in codes:
        return
    if len(plans) >= _MAX_PLANS:
        plans.clear()
    plans[key] = plan


def release_plans():
    """Release the calling thread's cached plans now (used at exit)."""
    _state.plans_silu.clear()
    _state.plans_silu_backward.clear()
    _state.plans_moe_token_permute.clear()
    _state.plans_moe_token_permute_grad.clear()
    for name in _ROPE_PLAN_ATTRS:
        getattr(_state, name).clear()
    _state.plans_floyd.clear()
    _state.plans_floyd_grad.clear()


# --------------------------------------------------------------- shape cache

_dims = int64_array


# ------------------------------------------------------------------ execution


def _fail(code, api, executor=None):
    msg = last_error_message()
    if executor is not None:
        _destroy_executor(executor)
        last_error_message()  # whatever the release left is not the caller's business
    raise AclnnError(code, msg, api)


def _workspace(nbytes, executor):
    """This thread's workspace of at least ``nbytes``; releases ``executor`` if allocation fails."""
    try:
        return _state.workspace.get(nbytes)
    except BaseException:
        if executor != _NULL:  # a cached plan's executor stays with its plan
            _destroy_executor(executor)
            last_error_message()
        raise


def _execute(get_ws, run, names, handles, stream, sync):
    ws_p, exe_p = _state.scratch
    rc = get_ws(*handles, ws_p, exe_p)
    if rc:
        _fail(rc, names[0])
    n = ws_p[0]
    exe = exe_p[0]
    ws = _workspace(n, exe) if n else _NULL
    if n and stream != _NULL:
        sync = True  # one workspace block serves this thread's launches on every stream
    rc = run(ws, n, exe, stream)
    if rc:
        _fail(rc, names[1], exe)
    if sync:
        check(_sync_stream(stream), "aclrtSynchronizeStream")


def _shape_dtype(obj):
    if isinstance(obj, DeviceTensor):
        return obj.shape, obj.dtype
    a = np.asarray(obj)
    return a.shape, (a.dtype if a.dtype.isnative else a.dtype.newbyteorder("="))


def _needs_staging(arr):
    return not arr.dtype.isnative or (
        arr.size and (not arr.flags.aligned or any(s < 0 or s % arr.itemsize for s in arr.strides))
    )


def _staged(get_ws, run, names, inputs, out, ref, stream):
    """As :func:`_general`, copying numpy operands through device memory (when ZERO_COPY is off)."""
    temps = []
    try:
        dev = []
        for a in inputs:
            if not isinstance(a, DeviceTensor):
                a = DeviceTensor.from_numpy(a)
                temps.append(a)
            dev.append(a)
        if isinstance(out, DeviceTensor):
            result = out
        elif out is None or isinstance(out, _ndarray):
            if out is not None and not out.flags.writeable:
                raise ValueError("out is read-only")
            shape, dtype = _shape_dtype(inputs[ref] if out is None else out)
            result = DeviceTensor.empty(shape, dtype)
            temps.append(result)
        else:
            raise TypeError("out must be a numpy array or a DeviceTensor, not %s" % type(out).__name__)
        _general(get_ws, run, names, dev, result, ref, stream)
        if result is out:
            return out
        if stream is not None:
            check(_sync_stream(stream_handle(stream)), "aclrtSynchronizeStream")
        if out is None:
            return result.numpy()
        out[...] = result.numpy()
        return out
    finally:
        for t in temps:
            t.close()


def _general(get_ws, run, names, inputs, out, ref, stream):
    """Any mix of numpy arrays and DeviceTensors, any views, ``out`` and ``stream``."""
    if not ZERO_COPY and not (
        all(isinstance(a, DeviceTensor) for a in inputs) and (out is None or isinstance(out, DeviceTensor))
    ):
        return _staged(get_ws, run, names, inputs, out, ref, stream)
    owned = []
    keep = []
    handles = []
    try:
        for a in inputs:
            if isinstance(a, DeviceTensor):
                handles.append(a.handle)
            else:
                arr = normalize_array(np.asarray(a))
                h, k = wrap_array(arr)
                owned.append(h)
                keep.append((arr, k))
                handles.append(h)
        all_device = all(isinstance(a, DeviceTensor) for a in inputs)
        copy_back = None
        if out is None:
            shape, dtype = _shape_dtype(inputs[ref])
            if all_device:
                result = DeviceTensor.empty(shape, dtype)
                handles.append(result.handle)
            else:
                result = _empty(shape, dtype)
                h, k = wrap_array(result, writable=True)
                owned.append(h)
                keep.append(k)
                handles.append(h)
        elif isinstance(out, DeviceTensor):
            result = out
            handles.append(out.handle)
        elif isinstance(out, _ndarray):
            if not out.flags.writeable:
                raise ValueError("out is read-only")
            result = target = out
            if _needs_staging(out):
                dt = out.dtype if out.dtype.isnative else out.dtype.newbyteorder("=")
                target = copy_back = _empty(out.shape, dt)
            h, k = wrap_array(target, writable=True)
            owned.append(h)
            keep.append(k)
            handles.append(h)
        else:
            raise TypeError("out must be a numpy array or a DeviceTensor, not %s" % type(out).__name__)
        s = stream_handle(stream)
        # Results handed back as host arrays must be complete on return.
        sync = stream is not None and not (all_device and isinstance(result, DeviceTensor))
        with _HostMemoryAllowed(bool(owned)):
            _execute(get_ws, run, names, handles, s, sync)
        if copy_back is not None:
            out[...] = copy_back
        return result
    finally:
        for h in owned:
            _destroy(h)


# ------------------------------------------------------------------ operators
#
# Fast path: C-contiguous, aligned numpy arrays (inputs and ``out``), any stream.
# The first call for a (shape, dtypes) plans with repeatable executor tensors
# (phase 1 + aclSetAclOpExecutorRepeatable) and caches the plan per thread;
# every call then binds the arrays' addresses (aclSetInputTensorAddr /
# aclSetOutputTensorAddr) and runs phase 2. Everything else goes through
# _general, which plans each call afresh.


def _repeatable_plan(rc, api, tensors):
    """After phase 1 returned ``rc``: its executor as a repeatable :class:`_Plan` holding ``tensors``.

    Raises on a phase-1 error; None when the executor cannot be made
    repeatable (then the caller still owns ``tensors``)."""
    if rc:
        _fail(rc, api)
    ws_p, exe_p = _state.scratch
    exe = exe_p[0]
    if exe == _NULL or lib.aclSetAclOpExecutorRepeatable(exe):
        if exe != _NULL:
            _destroy_executor(exe)
        last_error_message()  # clear it
        return None
    return _Plan((exe, ws_p[0]) + tuple(tensors))


def _make_plan(get_ws, api, ptrs, shapes, codes):
    """Phase 1 over contiguous tensors at ``ptrs``: a repeatable :class:`_Plan`, or None if it cannot repeat.

    Planned with host memory allowed, so the executor keeps that permission:
    later calls bind numpy buffers and run without toggling it."""
    tensors = []
    try:
        for p, shape, code in zip(ptrs, shapes, codes):
            d = _dims(shape)
            n = len(shape)
            t = _create(d, n, code, _NULL, 0, _ND, d, n, p)
            if t == _NULL:
                raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), "aclCreateTensor")
            tensors.append(t)
        ws_p, exe_p = _state.scratch
        with _HostMemoryAllowed():
            plan = _repeatable_plan(get_ws(*tensors, ws_p, exe_p), api, tensors)
        if plan is not None:
            tensors = ()  # the plan owns them now
        return plan
    finally:
        for t in tensors:
            _destroy(t)


_silu_ws = lib.aclnnSiluGetWorkspaceSize
_silu_run = lib.aclnnSilu
_SILU_NAMES = ("aclnnSiluGetWorkspaceSize", "aclnnSilu")
_set_in = lib.aclSetInputTensorAddr
_set_out = lib.aclSetOutputTensorAddr


def _bind_failed(rc):
    _fail(rc, "aclSetInputTensorAddr/aclSetOutputTensorAddr")


class _Op:
    """What the fast path needs of one operator: its two phases, their names, its plan cache."""

    __slots__ = ("get_ws", "run", "names", "plans_attr")

    def __init__(self, get_ws, run, names, plans_attr):
        self.get_ws, self.run, self.names, self.plans_attr = get_ws, run, names, plans_attr


_SILU = _Op(_silu_ws, _silu_run, _SILU_NAMES, "plans_silu")
_dtype_of = operator.attrgetter("dtype")
_shape_of = operator.attrgetter("shape")


def _run_cached(op, inputs, out, ref, stream):
    """Run ``op`` on ``inputs`` into ``out`` (or a new array shaped like ``inputs[ref]``).

    Fast path for C-contiguous, aligned numpy arrays: the first call for a
    (shapes, dtypes) plans a repeatable executor (phase 1 with host memory
    allowed, cached per thread); every call binds the arrays' buffers with
    aclSetInputTensorAddr / aclSetOutputTensorAddr and runs phase 2 only.
    Anything else goes through :func:`_general`, which plans each call afresh.
    """
    if not (PLAN_CACHE and ZERO_COPY and (out is None or type(out) is _ndarray)):
        return _general(op.get_ws, op.run, op.names, inputs, out, ref, stream)
    # One pass over the arrays: the fast path's checks, the plan key and the
    # buffers. Shapes and dtypes make the key (for the dtypes aclnn knows,
    # the dtype fixes the aclDataType), so codes are looked up on a miss only.
    # Plain appends: on this path they cost less than map() or comprehensions.
    key = []
    buffers = []
    try:
        for a in inputs:
            if type(a) is not _ndarray or not a.flags.aligned:
                return _general(op.get_ws, op.run, op.names, inputs, out, ref, stream)
            key.append(a.shape)
            key.append(a.dtype)
            buffers.append(_from_buffer(a))
        if out is None:
            like = inputs[ref]
            y = _np_empty(like.shape, like.dtype) if like.nbytes < _BLOCK_RESULT_MIN else _empty(like.shape, like.dtype)
            buffers.append(_from_buffer(y))
        else:
            if not out.flags.aligned:
                raise ValueError
            y = out
            key.append(out.shape)
            key.append(out.dtype)
            buffers.append(_from_buffer(out, require_writable=True))
    except ValueError:  # not C-contiguous or read-only: the general path sorts it out
        return _general(op.get_ws, op.run, op.names, inputs, out, ref, stream)
    key.append(_gen)
    key = tuple(key)
    plans = getattr(_state, op.plans_attr)
    plan = plans.get(key)
    if plan is None:
        arrays = inputs + (y,)
        codes = [_codes_get(a.dtype) for a in arrays]
        if None in codes:
            return _general(op.get_ws, op.run, op.names, inputs, out, ref, stream)
        plan = _make_plan(op.get_ws, op.names[0], buffers, [a.shape for a in arrays], codes)
        if plan is None:
            return _general(op.get_ws, op.run, op.names, inputs, y, ref, stream)
        _cache(plans, key, plan, codes)
    exe, w = plan[0], plan[1]
    tensors = plan[2:]
    last = len(buffers) - 1
    rc = 0
    for i in range(last):
        rc |= _set_in(exe, i, tensors[i], buffers[i])
    rc |= _set_out(exe, 0, tensors[last], buffers[last])
    if rc:
        _bind_failed(rc)
    s = _NULL if stream is None else stream_handle(stream)
    rc = op.run(_workspace(w, _NULL) if w else _NULL, w, exe, s)
    if rc:
        _fail(rc, op.names[1])
    if stream is not None:
        check(_sync_stream(s), "aclrtSynchronizeStream")
    return y


def silu(x, out=None, *, stream=None):
    """SiLU: ``out = x * sigmoid(x)`` (aclnnSilu).

    Args:
        x: a float32, float16 or bfloat16 numpy array (any view) or DeviceTensor.
        out: optional numpy array or DeviceTensor of the same shape and dtype
            (any strides) to write into.
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None
            (default stream). numpy results are synchronized before returning.

    Returns:
        ``out`` when given; otherwise a new numpy array, or a new DeviceTensor
        when ``x`` is a DeviceTensor.

    Raises:
        AclnnError: 161002 for an unsupported dtype or mismatched shapes/dtypes.
    """
    return _run_cached(_SILU, (x,), out, 0, stream)


_sbw_ws = lib.aclnnSiluBackwardGetWorkspaceSize
_sbw_run = lib.aclnnSiluBackward
_SBW_NAMES = ("aclnnSiluBackwardGetWorkspaceSize", "aclnnSiluBackward")
_SILU_BACKWARD = _Op(_sbw_ws, _sbw_run, _SBW_NAMES, "plans_silu_backward")


def silu_backward(grad_output, x, out=None, *, stream=None):
    """Gradient of SiLU: ``grad_output * s * (1 + x * (1 - s))``, ``s = sigmoid(x)`` (aclnnSiluBackward).

    Args:
        grad_output: the incoming gradient (numpy array or DeviceTensor).
        x: the forward input (``self`` in aclnn); same shape and dtype
            (float32, float16 or bfloat16) as ``grad_output``.
        out: optional numpy array or DeviceTensor (``gradInput``) to write into.
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.
            numpy results are synchronized before returning.

    Returns:
        ``out`` when given; otherwise a new numpy array (a DeviceTensor when
        both inputs are DeviceTensors) with ``x``'s shape and dtype.

    Raises:
        AclnnError: 161002 (with the C message naming the argument) for
        unsupported or mismatched dtypes and mismatched shapes.
    """
    return _run_cached(_SILU_BACKWARD, (grad_output, x), out, 1, stream)


# ---------------------------------------------------------- rotary embedding

_rope_ws = lib.aclnnRotaryPositionEmbeddingGetWorkspaceSize
_rope_run = lib.aclnnRotaryPositionEmbedding
_ROPE_NAMES = ("aclnnRotaryPositionEmbeddingGetWorkspaceSize", "aclnnRotaryPositionEmbedding")
_rope_grad_ws = lib.aclnnRotaryPositionEmbeddingGradGetWorkspaceSize
_rope_grad_run = lib.aclnnRotaryPositionEmbeddingGrad
_ROPE_GRAD_NAMES = ("aclnnRotaryPositionEmbeddingGradGetWorkspaceSize", "aclnnRotaryPositionEmbeddingGrad")
_ROPE_PLAN_ATTRS = ("plans_rope_fwd_0", "plans_rope_fwd_1", "plans_rope_fwd_2", "plans_rope_fwd_3",
                    "plans_rope_grad")


def _rope_forward_op(mode):
    """The forward with ``mode`` bound (aclnn takes it between sin and out); cached per mode."""
    def get_ws(x, cos, sin, out, ws, exe):
        return _rope_ws(x, cos, sin, mode, out, ws, exe)

    attr = "plans_rope_fwd_%d" % mode if mode in (0, 1, 2, 3) else None
    return _Op(get_ws, _rope_run, _ROPE_NAMES, attr)


_ROPE_FORWARD = {m: _rope_forward_op(m) for m in range(4)}


def rotary_position_embedding(x, cos, sin, mode=0, out=None, *, stream=None):
    """Rotary position embedding ``out = x * cos + rotate(x) * sin`` (aclnnRotaryPositionEmbedding).

    Args:
        x: float32, float16 or bfloat16 array, BNSD/BSND/SBND (4-D) or TND (3-D).
        cos, sin: arrays of ``x``'s dtype and rank, each axis but the last 1
            or equal to ``x``'s (the patterns the emulated product accepts).
        mode: 0 half, 1 interleave, 2 quarter, 3 interleave-half (2 and 3
            need ``set_soc_name("Ascend950")``).
        out: optional contiguous array of ``x``'s shape and dtype.
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.

    Returns:
        ``out``, or a new array (a DeviceTensor when ``x`` is one).

    Raises:
        AclnnError: 161002 for dtypes/formats, 561002 for mode, shapes and
        broadcast patterns (the message names the argument).
    """
    mode = operator.index(mode)
    op = _ROPE_FORWARD.get(mode)
    if op is None:  # let the library report the mode
        op = _rope_forward_op(mode)
        return _general(op.get_ws, op.run, op.names, (x, cos, sin), out, 0, None)
    return _run_cached(op, (x, cos, sin), out, 0, stream)


def rotary_position_embedding_grad(dy, cos, sin, x=None, mode=0):
    """Gradient of :func:`rotary_position_embedding` (aclnnRotaryPositionEmbeddingGrad).

    Args:
        dy: gradient of the forward output; float32, float16 or bfloat16,
            BNSD/BSND/SBND (4-D) or TND (3-D); any strides.
        cos, sin: the forward's cos and sin (any strides).
        x: the forward input, or None to skip the gradients of cos and sin.
        mode: 0 half, 1 interleave, 2 quarter, 3 interleave-half (2 and 3
            need ``set_soc_name("Ascend950")``).

    Returns:
        ``(dx, dcos, dsin)``: new arrays shaped like dy, cos and sin;
        ``dcos`` and ``dsin`` are None when ``x`` is None. dcos/dsin are sums
        over the broadcast axes in a fixed order (bit-identical for any
        thread count).

    Raises:
        AclnnError: with the C code and message (161001, 161002, 561002).
    """
    mode = operator.index(mode)
    arrays = [np.asarray(a) for a in ((dy, cos, sin) if x is None else (dy, cos, sin, x))]
    for a in arrays:
        if a.dtype not in DTYPE_TO_ACL:
            raise TypeError("aclnn_emu has no aclDataType for numpy dtype %s" % a.dtype)
    has_x = x is not None
    d, c, s = arrays[:3]
    dx = _empty(d.shape, d.dtype)
    if has_x:
        dcos, dsin = _empty(c.shape, c.dtype), _empty(s.shape, s.dtype)
    else:  # not computed: empty tensors, as in CANN's sample
        dcos = dsin = _empty((0,), d.dtype)
    _run_multi(_ROPE_GRAD, (dy, cos, sin, x), (dx, dcos, dsin), (mode,))
    return (dx, dcos, dsin) if has_x else (dx, None, None)


def _like(a, ref):
    """``a`` as an array of ``ref``'s dtype (torch_npu casts r1/r2 to x's dtype)."""
    a = np.asarray(a)
    return a if a.dtype == ref.dtype else a.astype(ref.dtype)


def rotary_mul(x, r1, r2):
    """torch_npu's ``npu_rotary_mul``: ``r1 * x + r2 * cat(-x2, x1)`` (half mode of aclnnRotaryPositionEmbedding).

    r1 and r2 (cos and sin) are cast to ``x``'s dtype, as torch_npu does.
    """
    x = np.asarray(x)
    return rotary_position_embedding(x, _like(r1, x), _like(r2, x), 0)


def rotary_mul_backward(x, r1, r2, dy, need_backward=True):
    """RotaryMulGrad, the backward of :func:`rotary_mul`, the way torch_npu runs it.

    There is no aclnn API for it: torch_npu calls aclnnRotaryPositionEmbeddingGrad
    in half mode (0), passing x only when the gradients of r1 and r2 are needed.

    Returns:
        ``(dx, dr1, dr2)``; dr1 and dr2 (sums of ``dy * x`` and
        ``dy * cat(-x2, x1)`` over the broadcast axes, shaped like r1/r2) are
        None when ``need_backward`` is false.
    """
    x = np.asarray(x)
    return rotary_position_embedding_grad(_like(dy, x), _like(r1, x), _like(r2, x), x if need_backward else None, 0)


def _accepts_host_memory():
    """Whether the library takes numpy (host) memory as tensor data; probed once at import."""
    x = np.zeros(1, np.float32)
    try:
        _general(_silu_ws, _silu_run, _SILU_NAMES, (x,), None, 0, None)
    except AclnnError as e:
        if e.code != lib.ACLNN_ERR_PARAM_INVALID:
            raise
        return False
    return True


ZERO_COPY = _accepts_host_memory()


# ------------------------------------------ operators with scalar arguments
#
# MoE and Floyd attention: outputs not shaped like an input, scalar
# arguments between the inputs and the outputs in phase 1, maybe an optional
# input. They share _run_multi (below the MoE functions).


def _contiguous(a):
    return np.ascontiguousarray(normalize_array(np.asarray(a)))




def moe_token_permute(tokens, indices, num_out_tokens=0, *, padded_mode=False):
    """MoE token permutation (aclnnMoeTokenPermute): each token once per chosen expert, grouped by expert.

    Args:
        tokens: [T, ...] float32, float16 or bfloat16 array.
        indices: [T, topK] or [T] int32/int64 expert ids.
        num_out_tokens: rows to keep: 0 keeps all ``T * topK``, > 0 keeps
            that many (at most all), < 0 drops that many from the end.
        padded_mode: must be False (aclnn rejects True).

    Returns:
        ``(permuted, sorted_indices)``: ``permuted`` [kept, ...] in tokens'
        dtype with ``permuted[sorted_indices[i]] = tokens[i // topK]`` for
        the kept rows, and ``sorted_indices`` [T * topK] int32, the inverse
        of the stable argsort of ``indices.ravel()``.

    Raises:
        AclnnError: 161002 for dtypes or padded mode, 561002 for shapes (the
        message names the argument).
    """
    tokens = _contiguous(tokens)
    indices = _contiguous(indices)
    topk = indices.shape[1] if indices.ndim == 2 else 1
    slots = indices.shape[0] * topk if indices.ndim in (1, 2) else indices.size
    n = int(num_out_tokens)
    kept = min(n, slots) if n > 0 else max(n + slots, 0)
    row_shape = tokens.shape[1:] if tokens.ndim >= 2 else (1,)
    permuted = _empty((kept,) + tuple(row_shape), tokens.dtype)
    sorted_indices = _empty((slots,), np.int32)
    _run_multi(_MOE_PERMUTE, (tokens, indices), (permuted, sorted_indices), (n, bool(padded_mode)))
    return permuted, sorted_indices


def moe_token_permute_grad(permuted_output_grad, sorted_indices, num_topk, *, padded_mode=False):
    """Gradient of :func:`moe_token_permute` (aclnnMoeTokenPermuteGrad).

    ``out[t] = sum over k < num_topk of permuted_output_grad[sorted_indices[t * num_topk + k]]``,
    summed in float32 in increasing k; indices outside ``[0, rows)`` (rows
    the forward dropped) are skipped.

    Args:
        permuted_output_grad: [R, H] float32, float16 or bfloat16 array.
        sorted_indices: [T * num_topk] int32 (the forward's ``sorted_indices``).
        num_topk: experts per token (>= 1, dividing ``len(sorted_indices)``).
        padded_mode: must be False.

    Returns:
        A new [T, H] array in ``permuted_output_grad``'s dtype.

    Raises:
        AclnnError: 161002 for dtypes, padded mode or num_topk; 561002 for shapes.
    """
    grad = _contiguous(permuted_output_grad)
    idx = _contiguous(sorted_indices)
    k = int(num_topk)
    tokens = idx.size // k if k >= 1 else 0
    width = grad.shape[1] if grad.ndim == 2 else 1
    out = _empty((tokens, width), grad.dtype)
    _run_multi(_MOE_PERMUTE_GRAD, (grad, idx), (out,), (k, bool(padded_mode)))
    return out


# ------------------------------------------------ the multi-output fast path
#
# Several outputs, maybe an optional input, and scalar arguments between
# inputs and outputs: the same protocol as _run_cached (a per-thread
# repeatable plan per shapes, dtypes and arguments, rebound to the arrays'
# buffers on every call) with a plan key and a binding that know about them.


class _MultiOp:
    """One multi-output operator: phases, names, plan cache, and which input may be None (or None)."""

    __slots__ = ("get_ws", "run", "names", "plans_attr", "optional")

    def __init__(self, get_ws, run, names, plans_attr, optional):
        self.get_ws, self.run, self.names, self.plans_attr = get_ws, run, names, plans_attr
        self.optional = optional


def _input_arrays(inputs):
    arrays = []
    for a in inputs:
        if a is None:
            arrays.append(None)
            continue
        if isinstance(a, DeviceTensor):
            a = a.numpy()
        arrays.append(normalize_array(np.asarray(a)))
    return arrays


def _make_multi_plan(op, inputs, outputs, args):
    """Phase 1 over the arrays (host memory allowed); a repeatable _Plan or None."""
    tensors = []
    try:
        handles = []
        for i, a in enumerate((*inputs, *outputs)):
            if a is None:
                handles.append(_NULL)
                continue
            h, _ = wrap_array(a, writable=i >= len(inputs))
            tensors.append(h)
            handles.append(h)
        ws_p, exe_p = _state.scratch
        n_in = len(inputs)
        with _HostMemoryAllowed():
            plan = _repeatable_plan(op.get_ws(*handles[:n_in], *args, *handles[n_in:], ws_p, exe_p), op.names[0],
                                    tensors)
        if plan is not None:
            tensors = ()  # the plan owns them now
        return plan
    finally:
        for t in tensors:
            _destroy(t)


def _run_multi_general(op, inputs, outputs, args, stream):
    """Plan and run once over any numpy views (no plan cache)."""
    owned = []
    keep = []
    try:
        handles = []
        for a, writable in [(a, False) for a in inputs] + [(a, True) for a in outputs]:
            if a is None:
                handles.append(_NULL)
                continue
            h, k = wrap_array(a, writable=writable)
            owned.append(h)
            keep.append(k)
            handles.append(h)
        n_in = len(inputs)
        with _HostMemoryAllowed():
            _execute(lambda *h: op.get_ws(*h[:n_in], *args, *h[n_in:]), op.run, op.names, handles,
                     stream_handle(stream), stream is not None)
    finally:
        for h in owned:
            _destroy(h)


def _run_multi(op, inputs, outputs, args, stream=None):
    """Run ``op`` as ``get_ws(*inputs, *args, *outputs)`` then phase 2; ``outputs`` (new C arrays) are filled."""
    inputs = _input_arrays(inputs)
    for i, a in enumerate(inputs):
        if a is None and i != op.optional:
            raise TypeError("%s: input %d must not be None" % (op.names[0], i))
    present = [a for a in inputs if a is not None]
    if not (PLAN_CACHE and ZERO_COPY) or not all(a.flags.c_contiguous and a.flags.aligned for a in present):
        _run_multi_general(op, inputs, outputs, args, stream)
        return tuple(outputs)
    codes = tuple(None if a is None else _codes_get(a.dtype) for a in inputs)
    key = (tuple(None if a is None else a.shape for a in inputs), codes, args, _gen)
    plans = getattr(_state, op.plans_attr)
    plan = plans.get(key)
    if plan is None:
        plan = _make_multi_plan(op, inputs, outputs, args)
        if plan is None:
            _run_multi_general(op, inputs, outputs, args, stream)
            return tuple(outputs)
        _cache(plans, key, plan, [c for c in codes if c is not None])
    exe, w = plan[0], plan[1]
    tensors = plan[2:]
    rc = 0
    t = 0
    for i, a in enumerate(inputs):
        if a is None:
            continue
        if a.size:  # an empty tensor's address is never used
            rc |= _set_in(exe, i, tensors[t], _from_buffer(a))
        t += 1
    for j, y in enumerate(outputs):
        if y.size:
            rc |= _set_out(exe, j, tensors[t], _from_buffer(y, require_writable=True))
        t += 1
    if rc:
        _bind_failed(rc)
    s = _NULL if stream is None else stream_handle(stream)
    rc = op.run(_workspace(w, _NULL) if w else _NULL, w, exe, s)
    if rc:
        _fail(rc, op.names[1])
    if stream is not None:
        check(_sync_stream(s), "aclrtSynchronizeStream")
    return tuple(outputs)


_MOE_PERMUTE = _MultiOp(lib.aclnnMoeTokenPermuteGetWorkspaceSize, lib.aclnnMoeTokenPermute,
                        ("aclnnMoeTokenPermuteGetWorkspaceSize", "aclnnMoeTokenPermute"), "plans_moe_token_permute",
                        None)
_MOE_PERMUTE_GRAD = _MultiOp(lib.aclnnMoeTokenPermuteGradGetWorkspaceSize, lib.aclnnMoeTokenPermuteGrad,
                             ("aclnnMoeTokenPermuteGradGetWorkspaceSize", "aclnnMoeTokenPermuteGrad"),
                             "plans_moe_token_permute_grad", None)


_ROPE_GRAD = _MultiOp(_rope_grad_ws, _rope_grad_run, _ROPE_GRAD_NAMES, "plans_rope_grad", 3)


_FLOYD = _MultiOp(lib.aclnnFusedFloydAttentionGetWorkspaceSize, lib.aclnnFusedFloydAttention,
                  ("aclnnFusedFloydAttentionGetWorkspaceSize", "aclnnFusedFloydAttention"), "plans_floyd", 5)
_FLOYD_GRAD = _MultiOp(lib.aclnnFusedFloydAttentionGradGetWorkspaceSize, lib.aclnnFusedFloydAttentionGrad,
                       ("aclnnFusedFloydAttentionGradGetWorkspaceSize", "aclnnFusedFloydAttentionGrad"),
                       "plans_floyd_grad", 6)


def _shape_of_input(a):
    return np.shape(a) if not isinstance(a, DeviceTensor) else a.shape


def _dtype_of_input(a):
    return a.dtype if isinstance(a, (np.ndarray, DeviceTensor)) else np.asarray(a).dtype


def fused_floyd_attention(q, k1, v1, k2, v2, mask=None, scale=1.0, *, stream=None):
    """Floyd attention forward (aclnnFusedFloydAttention).

    ``S[n,m,k] = scale * (q[n,m]·k1[n,k] + q[n,m]·k2[k,m])`` per (b, h), masked
    entries set to -3.4028235e38, ``P = softmax_k(S)``,
    ``out[n,m] = sum_k P * (v1[n,k] + v2[k,m])``.

    Args:
        q: [B,H,N,M,D]; k1, v1: [B,H,N,K,D]; k2, v2: [B,H,K,M,D]; all float32,
            float16 or bfloat16 (one dtype), any strides. N % 16 == 0,
            M % 128 == 0, K % 128 == 0, D in {32, 64, 128}.
        mask: None, or bool/uint8 [B,1,N,1,K] or [B,H,N,M,K]; True/non-zero masks.
        scale: the score scale (a float).
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.

    Returns:
        ``(out, softmax_max, softmax_sum)``: ``out`` like ``q``; the row max and
        row sum of exp(S - max) as float32 [B,H,N,M,8] (each value 8 times),
        the inputs of :func:`fused_floyd_attention_grad`.

    Raises:
        AclnnError: 161002 for dtypes, 561002 for shapes (the message names the argument).
    """
    B, H, N, M, _ = _shape_of_input(q) if len(_shape_of_input(q)) == 5 else (0,) * 5
    specs = [((B, H, N, M, 8), np.float32), ((B, H, N, M, 8), np.float32),
             (_shape_of_input(q), _dtype_of_input(q))]
    outputs = [_empty(shape, dtype) for shape, dtype in specs]
    smax, ssum, out = _run_multi(_FLOYD, (q, k1, v1, k2, v2, mask), outputs, (float(scale),), stream)
    return out, smax, ssum


def fused_floyd_attention_grad(q, k1, v1, k2, v2, dy, mask, softmax_max, softmax_sum, attention_in, scale=1.0, *,
                               stream=None):
    """Gradients of Floyd attention (aclnnFusedFloydAttentionGrad).

    Args:
        q, k1, v1, k2, v2, mask, scale: as for :func:`fused_floyd_attention`
            (mask None or [B,1,N,1,K]; with float32 tensors a mask must be bool).
        dy: gradient of the output, like ``q``.
        softmax_max, softmax_sum: float32 [B,H,N,M,8] from the forward.
        attention_in: the forward output, like ``q``.

    Returns:
        ``(dq, dk1, dv1, dk2, dv2)``, shaped and typed like q, k1, v1, k2, v2.
        Deterministic: identical bits for every thread count and SIMD level.

    Raises:
        AclnnError: 161002 for dtypes, 561002 for shapes (the message names the argument).
    """
    dt = _dtype_of_input(q)
    specs = [(_shape_of_input(q), dt), (_shape_of_input(k1), dt), (_shape_of_input(k1), dt),
             (_shape_of_input(k2), dt), (_shape_of_input(k2), dt)]
    outputs = [_empty(shape, dtype) for shape, dtype in specs]
    return _run_multi(_FLOYD_GRAD, (q, k1, v1, k2, v2, dy, mask, softmax_max, softmax_sum, attention_in), outputs,
                      (float(scale),), stream)


__all__ += ["fused_floyd_attention", "fused_floyd_attention_grad"]
