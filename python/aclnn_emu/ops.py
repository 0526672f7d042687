"""Operators on numpy arrays and :class:`~aclnn_emu.DeviceTensor` objects: the one machine behind them.

Every operator -- the numpy functions below and :func:`aclnn_emu.run` -- is
an :class:`_Operator` (its two phases, its arguments in phase-1 order, which
are inputs, outputs and optional; read from the library's registry,
``aclnnEmuGetOperatorSignature``) run by :func:`_launch`: create the
tensors, phase 1 (``aclnnXxxGetWorkspaceSize``), the thread's workspace,
phase 2 (``aclnnXxx``) on the given stream, synchronize when numpy results
must be complete, destroy the tensors; failures raise :class:`AclnnError`
with the library's message.

numpy arrays are not copied: their memory is handed to the library as tensor
data (emulated device memory is host memory), with the numpy view's strides
and offset. Arrays whose layout aclnn cannot describe (negative strides,
unaligned data, non-native byte order) are copied first; an ``out`` array of
that kind is computed into a temporary and copied back.

The fast path (C-contiguous aligned numpy arrays, with or without ``out``)
reuses a per-thread plan (a repeatable executor) for each shape, dtype and
argument value, so a call costs a few microseconds; it serves the operators
whose executor slots are known (``_REPEATABLE``).
"""

import math
import operator
import struct
import threading
import weakref

import ml_dtypes
import numpy as np

from ._aclnn_emu_cffi import ffi, lib
from .errors import AclnnError, check, last_error_message
from .runtime import _settings_hooks, invalidate_plans, stream_handle, synchronize_stream_handle
from .tensor import (DTYPE_TO_ACL, DeviceTensor, acl_dtype, create_tensor, ensure_thread_device, int64_array,
                     normalize_array, wrap_array)

__all__ = ["silu", "silu_backward", "invalidate_plans", "release_workspaces"]
__all__ += ["moe_token_permute", "moe_token_permute_grad", "rotary_position_embedding", "rotary_position_embedding_grad", "rotary_mul", "rotary_mul_backward"]

_NULL = ffi.NULL
_BF16_DTYPE = np.dtype(ml_dtypes.bfloat16)
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



# ---------------------------------------------------------------- plan cache


class _Plan:
    """A repeatable executor, what it was planned with, and how a call rebinds it.

    ``binds``: ``(setter, index, tensor, position)`` for each tensor with
    elements; a call runs ``setter(exe, index, tensor, buffers[position])``.
    ``soc``: the product (``aclrtGetSocName()``) the plan is valid for when
    that depends on it, else None. Owns the executor and every handle of
    ``owned`` (``(destroy, handle)`` pairs); both are released when the plan
    is dropped from its cache.
    """

    __slots__ = ("exe", "ws", "soc", "binds", "owned")

    def __del__(self):
        try:
            _destroy_executor(self.exe)
            for destroy, handle in self.owned:
                destroy(handle)
        except Exception:  # interpreter shutdown, or a plan that was never completed
            pass


class _ThreadState(threading.local):
    def __init__(self):
        ensure_thread_device()  # aclrt state is per thread, as in CANN
        self.scratch = (ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"))
        self.workspace = _Workspace()
        #: {(api, shapes and dtypes, argument values, generation): _Plan}
        self.plans = {}


_state = _ThreadState()

#: What launches still queued on a stream point at when Ctrl-C interrupted the
#: wait for them (the stream runs them later): kept alive, never freed under them.
_left_running = []

#: Set to False to plan every call from scratch (no repeatable executors).
PLAN_CACHE = True
#: Hand numpy memory to the library as tensor data (zero copy). When False
#: (set at import if the library refuses host memory), numpy operands are
#: staged through device memory: aclrtMalloc + aclrtMemcpy in and out.
ZERO_COPY = True
#: Plans a thread keeps (all operators together); the cache is emptied when full.
_MAX_PLANS = 256
#: Part of every plan key; bumped by runtime.invalidate_plans().
_gen = 0


def _bump_generation():
    global _gen
    _gen += 1


_settings_hooks.append(_bump_generation)

_BF16 = lib.ACL_BF16
_soc_name = lib.aclrtGetSocName


def release_plans():
    """Release the calling thread's cached plans now (used at exit)."""
    _state.plans.clear()


_dims = int64_array


# ------------------------------------------------------- operator descriptions

_SIGNATURES = None


def _signatures():
    """``{api: [(argument, kind), ...]}`` for every operator the library implements (its registry, read once)."""
    global _SIGNATURES
    if _SIGNATURES is None:
        table = {}
        for i in range(lib.aclnnEmuGetOperatorCount()):
            name = ffi.string(lib.aclnnEmuGetOperatorName(i)).decode()
            signature = ffi.string(lib.aclnnEmuGetOperatorSignature(i)).decode()
            table[name] = [tuple(part.split(":")) for part in signature.split(",") if part]
        _SIGNATURES = table
    return _SIGNATURES


#: Registry kinds of input tensors (tensor lists are inputs too) and of tensors the operator writes
#: (``outlist``: a tensor list it writes).
_INPUT_KINDS = frozenset(("tensor", "tensor?", "tensorlist", "tensorlist?"))
_OUTPUT_KINDS = frozenset(("out", "out?", "inout", "inout?", "outlist", "outlist?"))
#: Value kinds whose Python values are their own plan key.
_PLAIN_VALUE_KINDS = frozenset(("int", "bool"))
#: Operators whose executor slots are known to be the inputs in signature
#: order (an absent optional input keeps its slot), then the outputs in
#: signature order: the plan cache rebinds their tensors by those indices.
#: Other operators plan every call (phase 1 + phase 2).
_REPEATABLE = frozenset((
    "aclnnSilu", "aclnnSiluBackward",
    "aclnnRotaryPositionEmbedding", "aclnnRotaryPositionEmbeddingGrad",
    "aclnnMoeTokenPermute", "aclnnMoeTokenPermuteGrad",
    "aclnnFusedFloydAttention", "aclnnFusedFloydAttentionGrad",
))


class _Operator:
    """One aclnn operator as the numpy layer runs it.

    ``inputs``, ``outputs`` (``out`` and ``inout`` kinds, ``out?`` may be
    NULL) and ``values`` (the other arguments) are ``(name, kind)`` pairs in
    phase-1 order; ``order``
    interleaves them back into phase 1's argument list. ``title`` and
    ``labels`` (header name -> Python name) are what Python-side error
    messages say: the API and its header names for :func:`aclnn_emu.run`,
    the function and its parameter names for the numpy functions.
    """

    __slots__ = ("api", "phase1", "get_ws", "run", "signature", "names", "required", "inputs", "outputs", "values",
                 "order", "in_names", "out_names", "value_names", "in_specs", "out_specs", "value_specs",
                 "repeatable",
                 "plain_values", "title", "labels")

    def __init__(self, api, signature, repeatable=False):
        self.api = api
        self.phase1 = api + "GetWorkspaceSize"
        self.get_ws = getattr(lib, self.phase1)
        self.run = getattr(lib, api)
        self.signature = tuple(tuple(arg) for arg in signature)
        self.names = frozenset(name for name, _ in self.signature)
        groups = ([], [], [])
        order = []
        for name, kind in self.signature:
            g = 0 if kind in _INPUT_KINDS else 1 if kind in _OUTPUT_KINDS else 2
            order.append((g, len(groups[g])))
            groups[g].append((name, kind))
        self.inputs, self.outputs, self.values = (tuple(g) for g in groups)
        self.order = tuple(order)
        self.required = tuple(name for name, kind in self.signature if not kind.endswith("?"))
        self.in_names, self.out_names, self.value_names = (tuple(name for name, _ in g) for g in groups)
        # (name, optional, a tensor list) and (name, kind without "?", optional): what each call asks of them
        self.in_specs = tuple((name, kind.endswith("?"), kind.startswith("tensorlist")) for name, kind in self.inputs)
        self.out_specs = tuple((name, kind.endswith("?"), kind.startswith("outlist")) for name, kind in self.outputs)
        self.value_specs = tuple((name, kind.rstrip("?"), kind.endswith("?")) for name, kind in self.values)
        self.repeatable = repeatable and not any("list" in kind for _, kind in self.signature)
        self.plain_values = all(kind in _PLAIN_VALUE_KINDS for _, kind in self.values)
        self.title = api
        self.labels = {}

    def renamed(self, title, labels):
        """This operator as a Python function presents it: ``title`` and ``labels`` in its messages."""
        other = object.__new__(_Operator)
        for name in _Operator.__slots__:
            setattr(other, name, getattr(self, name))
        other.title, other.labels = title, dict(labels)
        return other

    def label(self, name):
        return self.labels.get(name, name)

    def arrange(self, inputs, outputs, values):
        """Phase 1's arguments (before workspaceSize and executor) in signature order."""
        groups = (inputs, outputs, values)
        return [groups[g][i] for g, i in self.order]

    def __repr__(self):
        return "<aclnn_emu operator %s(%s)>" % (self.api, ", ".join("%s:%s" % arg for arg in self.signature))


_OPERATORS = {}


def _operator(api):
    """The :class:`_Operator` for ``api`` from the library's registry (ValueError when it is not implemented)."""
    op = _OPERATORS.get(api)
    if op is None:
        signature = _signatures().get(api)
        if signature is None:
            raise ValueError("%s is not implemented by aclnn_emu (see aclnn_emu.operators())" % api)
        op = _OPERATORS[api] = _Operator(api, signature, api in _REPEATABLE)
    return op


# ------------------------------------------------------- non-tensor arguments

_pack_double = struct.Struct("=d").pack
#: The aclScalar dtype of a bare Python number, as host code usually makes them (bool before int: a subclass).
_SCALAR_DEFAULT = ((bool, np.dtype(np.bool_)), (int, np.dtype(np.int64)), (float, np.dtype(np.float32)))
_destroy_scalar = lib.aclDestroyScalar


def _number_key(v):
    # 0.0 and -0.0, and NaNs, are told apart by their bits; 1, 1.0 and True by their type.
    if isinstance(v, (float, np.floating)):
        return type(v), _pack_double(float(v))
    return type(v), v


def _values_key(op, values):
    """A hashable plan key for ``values`` that tells apart every two values phase 1 would see differently."""
    key = []
    for (name, kind), v in zip(op.values, values):
        if v is None or kind in _PLAIN_VALUE_KINDS:
            key.append(v)
        elif kind == "double":
            key.append(_pack_double(float(v)))
        elif kind == "dtype":
            key.append(np.dtype(v))
        elif kind == "string":
            key.append(str(v))
        elif isinstance(v, tuple) and kind.startswith("scalar"):
            key.append((np.dtype(v[1]), _number_key(v[0])))
        elif kind.startswith("scalar"):
            key.append(_number_key(v))
        else:  # arrays
            key.append(tuple(_number_key(x) for x in v))
    return tuple(key)


def _scalar(op, name, value):
    """An aclScalar for a Python number, a numpy scalar or a ``(value, numpy dtype)`` pair."""
    if isinstance(value, tuple) and len(value) == 2:
        value, dtype = value
        dtype = np.dtype(dtype)
    else:
        dtype = None
        for t, d in _SCALAR_DEFAULT:
            if isinstance(value, t):
                dtype = d
                break
        if dtype is None and isinstance(value, np.generic):
            dtype = value.dtype
        if dtype is None:
            raise TypeError("%s: %s must be a number or a (value, dtype) pair, not %s"
                            % (op.title, op.label(name), type(value).__name__))
    try:
        code = acl_dtype(dtype)
    except TypeError as e:
        raise TypeError("%s: %s: %s" % (op.title, op.label(name), e)) from None
    holder = np.array([value], dtype=dtype)
    handle = lib.aclCreateScalar(_from_buffer(holder), code)
    if handle == _NULL:
        raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), "aclCreateScalar")
    return handle


_ARRAYS = {
    "intarray": ("int64_t[]", operator.index, lib.aclCreateIntArray, lib.aclDestroyIntArray, "aclCreateIntArray"),
    "boolarray": ("bool[]", bool, lib.aclCreateBoolArray, lib.aclDestroyBoolArray, "aclCreateBoolArray"),
    "floatarray": ("float[]", float, lib.aclCreateFloatArray, lib.aclDestroyFloatArray, "aclCreateFloatArray"),
}


def _keep_alive(_obj):
    """The 'destroy' of an owned object that needs none: holding it kept it alive."""


def _value_argument(op, name, base, optional, value, owned):
    """Phase 1's argument for a non-tensor ``value`` of kind ``base`` (``optional``: may be None);
    handles it creates go to ``owned`` as ``(destroy, handle)``."""
    if value is None:
        if optional and base in ("scalar",) + tuple(_ARRAYS):
            return _NULL
        raise TypeError("%s: missing argument %s" % (op.title, op.label(name)))
    try:
        if base == "int":
            return int(value)
        if base == "bool":
            return bool(value)
        if base == "double":
            return float(value)
        if base == "dtype":
            return acl_dtype(value)
        if base == "string":
            text = ffi.new("char[]", str(value).encode())
            owned.append((_keep_alive, text))  # phase 1 reads it: kept until the call is done
            return text
        if base == "scalar":
            handle = _scalar(op, name, value)
            owned.append((_destroy_scalar, handle))
            return handle
        if base in _ARRAYS:
            ctype, convert, create, destroy, api = _ARRAYS[base]
            items = [convert(v) for v in value]
            handle = create(ffi.new(ctype, items), len(items))
            if handle == _NULL:
                raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), api)
            owned.append((destroy, handle))
            return handle
    except (TypeError, ValueError) as e:
        if str(e).startswith(op.title + ":"):
            raise
        raise type(e)("%s: %s: %s" % (op.title, op.label(name), e)) from None
    raise TypeError("%s: %s is an argument of kind %r, which the Python layer cannot pass"
                    % (op.title, op.label(name), base))


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


def _execute(op, args, stream, sync):
    """Phase 1 on ``args``, the workspace, phase 2 on ``stream``; synchronize when ``sync``."""
    ws_p, exe_p = _state.scratch
    rc = op.get_ws(*args, ws_p, exe_p)
    if rc:
        _fail(rc, op.phase1)
    n = ws_p[0]
    exe = exe_p[0]
    ws = _workspace(n, exe) if n else _NULL
    if n and stream != _NULL:
        sync = True  # one workspace block serves this thread's launches on every stream
    rc = op.run(ws, n, exe, stream)
    if rc:
        _fail(rc, op.api, exe)
    if sync:
        synchronize_stream_handle(stream)


def _native(dtype):
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def _numpy_operand(op, label, a, writable, keep, temps, back, notes):
    """A numpy operand (an array-like when read only) for the library: ``(aclTensor, DeviceTensor or None)``.

    With ZERO_COPY, a new descriptor over the array's memory, or over a copy
    when its byte order or layout needs one (copied back after the run when
    ``writable``); the caller destroys it. Otherwise a DeviceTensor copy (in
    ``temps``; copied back when ``writable``) and its own handle. What a
    converted Python list or number became goes to ``notes`` (for errors).
    """
    if writable:
        if not isinstance(a, _ndarray):
            raise TypeError("%s: %s must be a numpy array or a DeviceTensor, not %s"
                            % (op.title, label, type(a).__name__))
        if not a.flags.writeable:
            raise ValueError("%s: %s is read-only; expected a writable numpy array or a DeviceTensor to write into"
                             % (op.title, label))
    try:
        arr = normalize_array(a if type(a) is _ndarray else _as_array(a, "%s: %s" % (op.title, label)))
    except TypeError as e:
        if str(e).startswith(op.title + ":"):
            raise
        raise TypeError("%s: %s: %s" % (op.title, label, e)) from None
    passed = getattr(a, "passed", "") or getattr(arr, "passed", "")
    if passed:
        notes.append(passed)
    if ZERO_COPY:
        if writable and arr is not a:  # staged
            back.append((a, arr))
        h, k = wrap_array(arr, writable)
        keep.append(k)
        return h, None
    t = DeviceTensor.from_numpy(a if writable else arr)  # an output's copy keeps its view
    temps.append(t)
    if writable:
        back.append((a, t))
    return t.handle, t


def _tensor_list(op, name, items, writable, owned, keep, temps, back, notes):
    """An aclTensorList over numpy arrays and DeviceTensors; returns ``(handle, numpy memory handed over)``.

    The list gets descriptors of its own (aclDestroyTensorList destroys them);
    ``writable``: the operator writes them (an ``outlist``)."""
    handles = []
    host = False
    label = op.label(name)
    try:
        for k, item in enumerate(items):
            if isinstance(item, DeviceTensor):
                t = item
            else:
                h, t = _numpy_operand(op, "%s[%d]" % (label, k), item, writable, keep, temps, back, notes)
                if t is None:
                    handles.append(h)
                    host = True
                    continue
            handles.append(create_tensor(t.shape, acl_dtype(t.dtype), t.strides, t.offset, (t.storage_size,),
                                         t.data_ptr))
        handle = lib.aclCreateTensorList(ffi.new("aclTensor *[]", handles), len(handles))
        if handle == _NULL:
            raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), "aclCreateTensorList")
    except BaseException:
        for h in handles:
            _destroy(h)
        raise
    owned.append((lib.aclDestroyTensorList, handle))
    return handle, host


def _general(op, inputs, outputs, values, stream):
    """Plan and run once: numpy arrays of any layout and byte order, DeviceTensors, None for absent inputs.

    numpy memory is handed over as it is (host memory allowed for this launch)
    unless its layout needs a copy; outputs of that kind are computed into a
    copy and copied back. Without ZERO_COPY every numpy operand goes through
    a DeviceTensor. Synchronizes a stream unless every tensor is a DeviceTensor.
    """
    owned = []  # (destroy, handle)
    keep = []  # the numpy buffers the handles point into
    temps = []  # DeviceTensors made for staging
    back = []  # (numpy output, its staged copy), copied back after the run
    notes = []  # what Python lists and numbers became, for the error message
    host = False  # numpy memory handed to the library
    device_only = True
    try:
        handles = ([], [])
        for specs, tensors, writable in ((op.in_specs, inputs, False), (op.out_specs, outputs, True)):
            for (name, optional, is_list), a in zip(specs, tensors):
                if a is None:
                    if not optional:
                        raise TypeError("%s: missing argument %s" % (op.title, op.label(name)))
                    h = _NULL
                elif is_list:
                    h, used_host = _tensor_list(op, name, a, writable, owned, keep, temps, back, notes)
                    host = host or used_host
                    device_only = device_only and all(isinstance(t, DeviceTensor) for t in a)
                elif isinstance(a, DeviceTensor):
                    h = a.handle
                else:
                    device_only = False
                    h, t = _numpy_operand(op, op.label(name), a, writable, keep, temps, back, notes)
                    if t is None:
                        owned.append((_destroy, h))
                        host = True
                handles[writable].append(h)
        in_handles, out_handles = handles
        args = op.arrange(in_handles, out_handles,
                          [_value_argument(op, name, base, optional, v, owned)
                           for (name, base, optional), v in zip(op.value_specs, values)])
        s = _NULL if stream is None else stream_handle(stream)
        turned_on = host and not _get_host_ok()
        if turned_on:
            _set_host_ok(1)
        try:  # results handed back as host arrays must be complete on return
            _execute(op, args, s, stream is not None and not device_only)
        except AclnnError as e:
            if not notes:
                raise
            raise AclnnError(e.code, "%s (%s)" % (e.message, "; ".join(notes)), e.api) from None
        except KeyboardInterrupt:
            _left_running.append((inputs, outputs, keep, temps))
            temps = []  # not closed: aclrtFree would wait for the queued launch
            raise
        finally:
            if turned_on:
                _set_host_ok(0)
        for y, staged in back:
            y[...] = staged if isinstance(staged, _ndarray) else staged.numpy()
    finally:
        for destroy, h in reversed(owned):
            destroy(h)
        for t in temps:
            t.close()


_set_in = lib.aclSetInputTensorAddr
_CHARS = ffi.typeof("char[]")
_set_out = lib.aclSetOutputTensorAddr
_may_share = np.may_share_memory


def _bind_failed(rc):
    _fail(rc, "aclSetInputTensorAddr/aclSetOutputTensorAddr")


def _independent(inputs, outputs):
    """No output shares memory with an input, unless it is that very array (in place).

    Phase 1 refuses partial overlaps; a cached plan never sees the new
    addresses, so such calls take the general path."""
    for y in outputs:
        yb = y.base
        for a in inputs:
            if a is None or a is y:
                continue
            if (yb is not None or a.base is not None) and _may_share(a, y):
                return False
    return True


def _make_plan(op, inputs, outputs, values, buffers):
    """Phase 1 over contiguous tensors at ``buffers``: a repeatable :class:`_Plan`, or None (general path).

    Planned with host memory allowed, so the executor keeps that permission:
    later calls bind numpy buffers and run without toggling it. Raises
    AclnnError when phase 1 fails."""
    arrays = (*inputs, *outputs)
    codes = []
    for a in arrays:
        code = None if a is None else _codes_get(a.dtype)
        if code is None and a is not None:
            return None  # no aclDataType (or not native): the general path sorts it out
        codes.append(code)
    for (name, optional, _), a in zip(op.in_specs, inputs):
        if a is None and not optional:
            raise TypeError("%s: missing argument %s" % (op.title, op.label(name)))
    owned = []
    try:
        handles = []
        for a, buf, code in zip(arrays, buffers, codes):
            if a is None:
                handles.append(_NULL)
                continue
            d = _dims(a.shape)
            n = len(a.shape)
            t = _create(d, n, code, _NULL, 0, _ND, d, n, buf)
            if t == _NULL:
                raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), "aclCreateTensor")
            owned.append((_destroy, t))
            handles.append(t)
        n_in = len(inputs)
        args = op.arrange(handles[:n_in], handles[n_in:],
                          [_value_argument(op, name, base, optional, v, owned)
                           for (name, base, optional), v in zip(op.value_specs, values)])
        ws_p, exe_p = _state.scratch
        with _HostMemoryAllowed():
            rc = op.get_ws(*args, ws_p, exe_p)
        if rc:
            _fail(rc, op.phase1)
        exe = exe_p[0]
        if exe == _NULL or lib.aclSetAclOpExecutorRepeatable(exe):
            if exe != _NULL:
                _destroy_executor(exe)
            last_error_message()  # clear it
            return None
        plan = _Plan()
        plan.exe, plan.ws, plan.owned = exe, ws_p[0], ()
        # Whether BFLOAT16 is accepted depends on the product, which raw
        # lib.aclnnEmuSetSocName calls can change behind invalidate_plans()'s back.
        plan.soc = _soc_name() if _BF16 in codes else None
        binds = [(_set_in, i, handles[i], i) for i, a in enumerate(inputs) if a is not None and a.size]
        binds += [(_set_out, j, handles[n_in + j], n_in + j) for j, y in enumerate(outputs) if y.size]
        plan.binds = tuple(binds)
        plan.owned, owned = tuple(owned), []  # the plan owns them now
        return plan
    finally:
        for destroy, h in reversed(owned):
            destroy(h)


def _launch(op, inputs, outputs, values=(), stream=None, fresh=False):
    """Run operator ``op``: the one path of every numpy function and of :func:`aclnn_emu.run`.

    ``inputs`` and ``outputs`` (numpy arrays or DeviceTensors, None for an
    absent optional input) and ``values`` (the other arguments) follow
    ``op.inputs``, ``op.outputs`` and ``op.values``. ``fresh``: the outputs
    are new arrays (numpy, unless every input is a DeviceTensor) whose shapes
    and dtypes the caller derived from the inputs and values alone, as each
    numpy function does for its own operator; they share no memory with an
    input and are left out of the plan key.

    Fast path: C-contiguous, aligned, native numpy arrays of a repeatable
    operator. The first call for a (shapes, dtypes, values) plans with
    repeatable executor tensors and caches the plan per thread; every call
    then binds the arrays' buffers (aclSetInputTensorAddr /
    aclSetOutputTensorAddr) and runs phase 2 only. Everything else goes
    through :func:`_general`, which plans each call afresh.
    """
    if not (op.repeatable and PLAN_CACHE and ZERO_COPY):
        return _general(op, inputs, outputs, values, stream)
    # One pass over the arrays: the fast path's checks, the plan key and the
    # buffers. Shapes and dtypes make the key (for the dtypes aclnn knows,
    # the dtype fixes the aclDataType), so codes are looked up on a miss only.
    key = [op.api]
    buffers = []
    fast = True
    try:
        for a in inputs:
            if type(a) is _ndarray and a.flags.aligned:
                key.append(a.shape)
                key.append(a.dtype)
                buffers.append(_from_buffer(a))
            elif a is None:
                key.append(None)
                buffers.append(None)
            else:
                fast = False
                break
        else:
            if fresh:
                # New C-contiguous numpy arrays (DeviceTensors only where an
                # input is one, which the loop above sent away), shaped from
                # the inputs and values: not part of the key.
                key.append(True)
                for y in outputs:
                    buffers.append(_from_buffer(y))
            else:
                for y in outputs:
                    if type(y) is not _ndarray or not y.flags.aligned:
                        fast = False
                        break
                    key.append(y.shape)
                    key.append(y.dtype)
                    buffers.append(_from_buffer(_CHARS, y, True))  # positional: half the cost of the keyword
    except (ValueError, TypeError):  # not C-contiguous, a read-only output, not a buffer: the general path
        fast = False
    if not (fast and (fresh or _independent(inputs, outputs))):
        return _general(op, inputs, outputs, values, stream)
    if values:
        if op.plain_values:
            key.append(values)
        else:
            try:
                key.append(_values_key(op, values))
            except (TypeError, ValueError):  # the general path names the argument
                return _general(op, inputs, outputs, values, stream)
    key.append(_gen)
    key = tuple(key)
    plans = _state.plans
    try:
        plan = plans.get(key)
    except TypeError:  # an unhashable value: the general path names the argument
        return _general(op, inputs, outputs, values, stream)
    if plan is None or (plan.soc is not None and plan.soc != _soc_name()):
        plan = _make_plan(op, inputs, outputs, values, buffers)
        if plan is None:
            return _general(op, inputs, outputs, values, stream)
        if len(plans) >= _MAX_PLANS:
            plans.clear()
        plans[key] = plan
    exe = plan.exe
    rc = 0
    for setter, index, tensor, position in plan.binds:
        rc |= setter(exe, index, tensor, buffers[position])
    if rc:
        _bind_failed(rc)
    w = plan.ws
    s = _NULL if stream is None else stream_handle(stream)
    rc = op.run(_workspace(w, _NULL) if w else _NULL, w, exe, s)
    if rc:
        _fail(rc, op.api)
    if stream is not None:
        try:
            synchronize_stream_handle(s)
        except KeyboardInterrupt:
            # The launch stays queued: its arrays and its plan outlive it (a
            # later call would wait, uninterruptibly, to rebind the plan).
            _left_running.append((inputs, outputs, plan))
            plans.pop(key, None)
            raise


# ------------------------------------------------------------------ operators
#
# Each function allocates the outputs it returns (shaped by the arguments),
# then hands everything to _launch with the operator's description.


class _FromPython(np.ndarray):
    """An array numpy made from a Python list, tuple or number; ``passed`` says so in error messages
    (numpy makes Python floats float64, which few aclnn operators take)."""

    passed = ""


def _as_array(a, label=None):
    """``a`` as a numpy array: objects with ``__dlpack__`` (a CPU torch tensor, for one) are taken without a
    copy, bf16 ones through a 16-bit integer view; other array-likes through ``np.asarray``.

    ``label`` ("silu: x") prefixes the TypeError for None or for what numpy can only hold as objects.
    """
    if a is None or (not hasattr(a, "__dlpack__") or isinstance(a, _ndarray)):
        arr = np.asarray(a)
        if arr.dtype == object:
            what = "None" if a is None else "a %s numpy can only hold as Python objects" % type(a).__name__
            raise TypeError("%sgot %s; expected a numpy array, a DeviceTensor or an array-like of numbers"
                            % (label + ": " if label else "", what))
        if not isinstance(a, (_ndarray, np.generic)) and not hasattr(a, "__array__"):
            arr = arr.view(_FromPython)
            arr.passed = "%s was a Python %s, which numpy made %s" % (label or "an argument", type(a).__name__,
                                                                     arr.dtype)
        return arr
    try:
        return np.from_dlpack(a)
    except (BufferError, TypeError, RuntimeError):
        if str(getattr(a, "dtype", "")) != "torch.bfloat16":
            raise
        import torch  # a torch tensor was passed: torch is there

        return np.from_dlpack(a.view(torch.int16)).view(_BF16_DTYPE)


def _operand(a, label=None):
    """``a`` as a numpy array or DeviceTensor (array-likes converted; ``label`` names it in errors)."""
    return a if isinstance(a, (_ndarray, DeviceTensor)) else _as_array(a, label)


def _result(shape, dtype, device=False):
    """A new output: a DeviceTensor when ``device``, else a numpy array (large ones in device blocks)."""
    return DeviceTensor.empty(shape, dtype) if device else _empty(shape, dtype)


def _all_device(*tensors):
    return all(isinstance(t, DeviceTensor) for t in tensors if t is not None)


def _out_tuple(title, out, count):
    """``out`` as a tuple of ``count`` outputs (one array, or a tuple or list of them); TypeError otherwise."""
    outs = (out,) if count == 1 and not isinstance(out, (tuple, list)) else tuple(out) \
        if isinstance(out, (tuple, list)) else None
    if outs is None or len(outs) != count:
        given = "a %s of %d" % (type(out).__name__, len(out)) if isinstance(out, (tuple, list)) \
            else type(out).__name__
        raise TypeError("%s: out must be %s, not %s" % (
            title, "a numpy array or DeviceTensor" if count == 1 else
            "a tuple of %d numpy arrays or DeviceTensors" % count, given))
    return outs


def _outputs(title, out, made, device):
    """The outputs of a numpy function, the one rule they all follow: ``out`` when given (an array or
    DeviceTensor to write into, any strides; a tuple of them, in the order the function returns its
    results, when it has several), else new results, DeviceTensors when every tensor input is one
    (``device``), numpy arrays otherwise. ``made``: ``[(shape, dtype)]`` of the results.

    Returns ``(outputs, fresh)``.
    """
    if out is None:
        return tuple(_result(shape, dtype, device) for shape, dtype in made), True
    return _out_tuple(title, out, len(made)), False


_SILU = _operator("aclnnSilu").renamed("silu", {"self": "x"})
_SILU_BACKWARD = _operator("aclnnSiluBackward").renamed(
    "silu_backward", {"gradOutput": "grad_output", "self": "x", "gradInput": "out"})


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
    if out is not None:
        _launch(_SILU, (x,), (out,), (), stream)
        return out
    if type(x) is _ndarray and x.dtype.isnative and x.nbytes < _BLOCK_RESULT_MIN:
        out = _np_empty(x.shape, x.dtype)
    else:
        x = _operand(x, "silu: x")
        out = _result(x.shape, _native(x.dtype), isinstance(x, DeviceTensor))
    _launch(_SILU, (x,), (out,), (), stream, True)
    return out


def _broadcast_shape(a, b):
    """The shape numpy broadcasting gives (Ascend950 accepts it), else ``b``'s (the library reports the mismatch)."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        return b


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
        both inputs are DeviceTensors) with ``x``'s shape and dtype (with
        ``set_soc_name("Ascend950")``, which accepts them: the broadcast
        shape of both, and float32 when their dtypes differ).

    Raises:
        AclnnError: 161002 (with the C message naming the argument) for
        unsupported or mismatched dtypes and mismatched shapes.
    """
    if out is not None:
        _launch(_SILU_BACKWARD, (grad_output, x), (out,), (), stream)
        return out
    dy = grad_output
    dtype = x.dtype if type(x) is _ndarray else None
    if (type(dy) is _ndarray and dy.dtype is dtype and dtype.isnative and x.shape == dy.shape
            and x.nbytes < _BLOCK_RESULT_MIN):
        out = _np_empty(x.shape, dtype)
    else:
        dy, x = _operand(dy, "silu_backward: grad_output"), _operand(x, "silu_backward: x")
        dtype = _native(x.dtype)
        if _native(dy.dtype) != dtype:
            dtype = np.dtype(np.float32)
        out = _result(_broadcast_shape(dy.shape, x.shape), dtype, _all_device(dy, x))
    _launch(_SILU_BACKWARD, (dy, x), (out,), (), stream, True)
    return out


# ---------------------------------------------------------- rotary embedding

_ROPE = _operator("aclnnRotaryPositionEmbedding").renamed("rotary_position_embedding", {})
_ROPE_GRAD = _operator("aclnnRotaryPositionEmbeddingGrad").renamed(
    "rotary_position_embedding_grad", {"xOptional": "x", "dxOut": "dx", "dcosOut": "dcos", "dsinOut": "dsin"})


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
        ``out``, or a new array (a DeviceTensor when ``x``, ``cos`` and
        ``sin`` are DeviceTensors).

    Raises:
        AclnnError: 161002 for dtypes/formats, 561002 for mode, shapes and
        broadcast patterns (the message names the argument).
    """
    mode = operator.index(mode)
    fresh = out is None
    if fresh:
        x = _operand(x, "rotary_position_embedding: x")
        out = _result(x.shape, _native(x.dtype), _all_device(x, cos, sin))
    _launch(_ROPE, (x, cos, sin), (out,), (mode,), stream, fresh)
    return out


def rotary_position_embedding_grad(dy, cos, sin, x=None, mode=0, *, out=None, stream=None):
    """Gradient of :func:`rotary_position_embedding` (aclnnRotaryPositionEmbeddingGrad).

    Args:
        dy: gradient of the forward output; float32, float16 or bfloat16,
            BNSD/BSND/SBND (4-D) or TND (3-D); any strides.
        cos, sin: the forward's cos and sin (any strides).
        x: the forward input, or None to skip the gradients of cos and sin.
        mode: 0 half, 1 interleave, 2 quarter, 3 interleave-half (2 and 3
            need ``set_soc_name("Ascend950")``).

        out: optional ``(dx, dcos, dsin)`` to write into (dcos and dsin may
            be None when ``x`` is None).
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.

    Returns:
        ``(dx, dcos, dsin)`` shaped like dy, cos and sin (``out`` when given;
        new DeviceTensors when every input is one);
        ``dcos`` and ``dsin`` are None when ``x`` is None. dcos/dsin are sums
        over the broadcast axes in a fixed order (bit-identical for any
        thread count).

    Raises:
        AclnnError: with the C code and message (161001, 161002, 561002).
    """
    mode = operator.index(mode)
    has_x = x is not None
    title = "rotary_position_embedding_grad: "
    dy, cos, sin = _operand(dy, title + "dy"), _operand(cos, title + "cos"), _operand(sin, title + "sin")
    if has_x:
        x = _operand(x, title + "x")
    for a in (dy, cos, sin, x) if has_x else (dy, cos, sin):
        if _native(a.dtype) not in DTYPE_TO_ACL:
            raise TypeError("aclnn_emu has no aclDataType for numpy dtype %s" % a.dtype)
    dtype = _native(dy.dtype)
    device = _all_device(dy, cos, sin, x)
    # Without x, dcos and dsin are not computed: empty tensors, as in CANN's sample.
    made = [(dy.shape, dtype), (cos.shape, _native(cos.dtype)), (sin.shape, _native(sin.dtype))] if has_x \
        else [(dy.shape, dtype), ((0,), dtype), ((0,), dtype)]
    if out is not None and not has_x and isinstance(out, (tuple, list)) and len(out) == 3:
        out = (out[0], _result((0,), dtype, device), _result((0,), dtype, device))
    (dx, dcos, dsin), fresh = _outputs("rotary_position_embedding_grad", out, made, device)
    _launch(_ROPE_GRAD, (dy, cos, sin, x), (dx, dcos, dsin), (mode,), stream, fresh)
    return (dx, dcos, dsin) if has_x else (dx, None, None)


def _like(a, ref, label):
    """``a`` in ``ref``'s dtype (torch_npu casts r1/r2 to x's dtype); a DeviceTensor must have it already."""
    a = _operand(a, label)
    if a.dtype == ref.dtype:
        return a
    if isinstance(a, DeviceTensor):
        raise TypeError("%s is a DeviceTensor of %s; expected %s, the dtype of x (DeviceTensors are not cast)"
                        % (label, a.dtype, ref.dtype))
    return a.astype(ref.dtype)


def rotary_mul(x, r1, r2, *, out=None, stream=None):
    """torch_npu's ``npu_rotary_mul``: ``r1 * x + r2 * cat(-x2, x1)`` (half mode of aclnnRotaryPositionEmbedding).

    r1 and r2 (cos and sin) are cast to ``x``'s dtype, as torch_npu does.
    """
    x = _operand(x, "rotary_mul: x")
    if out is not None:
        out = _out_tuple("rotary_mul", out, 1)[0]
    return rotary_position_embedding(x, _like(r1, x, "rotary_mul: r1"), _like(r2, x, "rotary_mul: r2"), 0,
                                     out=out, stream=stream)


def rotary_mul_backward(x, r1, r2, dy, need_backward=True, *, out=None, stream=None):
    """RotaryMulGrad, the backward of :func:`rotary_mul`, the way torch_npu runs it.

    There is no aclnn API for it: torch_npu calls aclnnRotaryPositionEmbeddingGrad
    in half mode (0), passing x only when the gradients of r1 and r2 are needed.

    Returns:
        ``(dx, dr1, dr2)``; dr1 and dr2 (sums of ``dy * x`` and
        ``dy * cat(-x2, x1)`` over the broadcast axes, shaped like r1/r2) are
        None when ``need_backward`` is false.
    """
    title = "rotary_mul_backward: "
    x = _operand(x, title + "x")
    if out is not None:
        out = _out_tuple("rotary_mul_backward", out, 3)
    return rotary_position_embedding_grad(_like(dy, x, title + "dy"), _like(r1, x, title + "r1"),
                                          _like(r2, x, title + "r2"), x if need_backward else None, 0,
                                          out=out, stream=stream)


def _accepts_host_memory():
    """Whether the library takes numpy (host) memory as tensor data; probed once at import."""
    x = np.zeros(1, np.float32)
    verbose = lib.aclnnEmuGetVerbose()
    lib.aclnnEmuSetVerbose(0)  # the probe is ours, not a launch of the user's to log
    try:
        _general(_SILU, (x,), (np.empty_like(x),), (), None)
    except AclnnError as e:
        if e.code != lib.ACLNN_ERR_PARAM_INVALID:
            raise
        return False
    finally:
        lib.aclnnEmuSetVerbose(verbose)
    return True


ZERO_COPY = _accepts_host_memory()


# ------------------------------------------ operators with scalar arguments
#
# MoE and Floyd attention: outputs not shaped like an input, scalar
# arguments between the inputs and the outputs in phase 1, maybe an optional
# input.


_MOE_PERMUTE = _operator("aclnnMoeTokenPermute").renamed(
    "moe_token_permute", {"numOutTokens": "num_out_tokens", "paddedMode": "padded_mode"})
_MOE_PERMUTE_GRAD = _operator("aclnnMoeTokenPermuteGrad").renamed(
    "moe_token_permute_grad", {"permutedOutputGrad": "permuted_output_grad", "sortedIndices": "sorted_indices",
                               "numTopk": "num_topk", "paddedMode": "padded_mode"})


def moe_token_permute(tokens, indices, num_out_tokens=0, *, padded_mode=False, out=None, stream=None):
    """MoE token permutation (aclnnMoeTokenPermute): each token once per chosen expert, grouped by expert.

    Args:
        tokens: [T, ...] float32, float16 or bfloat16 array.
        indices: [T, topK] or [T] int32/int64 expert ids.
        num_out_tokens: rows to keep: 0 keeps all ``T * topK``, > 0 keeps
            that many (at most all), < 0 drops that many from the end.
        padded_mode: must be False (aclnn rejects True).
        out: optional ``(permuted, sorted_indices)`` to write into.
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.

    Returns:
        ``(permuted, sorted_indices)`` (``out`` when given; new DeviceTensors
        when every input is one): ``permuted`` [kept, ...] in tokens'
        dtype with ``permuted[sorted_indices[i]] = tokens[i // topK]`` for
        the kept rows, and ``sorted_indices`` [T * topK] int32, the inverse
        of the stable argsort of ``indices.ravel()``.

    Raises:
        AclnnError: 161002 for dtypes or padded mode, 561002 for shapes (the
        message names the argument).
    """
    tokens = _operand(tokens, "moe_token_permute: tokens")
    indices = _operand(indices, "moe_token_permute: indices")
    ndim = len(indices.shape)
    topk = indices.shape[1] if ndim == 2 else 1
    slots = indices.shape[0] * topk if ndim in (1, 2) else int(np.prod(indices.shape))
    n = int(num_out_tokens)
    kept = min(n, slots) if n > 0 else max(n + slots, 0)
    row_shape = tokens.shape[1:] if len(tokens.shape) >= 2 else (1,)
    outs, fresh = _outputs("moe_token_permute", out,
                           [((kept,) + tuple(row_shape), _native(tokens.dtype)), ((slots,), np.dtype(np.int32))],
                           _all_device(tokens, indices))
    _launch(_MOE_PERMUTE, (tokens, indices), outs, (n, bool(padded_mode)), stream, fresh)
    return outs


def moe_token_permute_grad(permuted_output_grad, sorted_indices, num_topk, *, padded_mode=False, out=None,
                           stream=None):
    """Gradient of :func:`moe_token_permute` (aclnnMoeTokenPermuteGrad).

    ``out[t] = sum over k < num_topk of permuted_output_grad[sorted_indices[t * num_topk + k]]``,
    summed in float32 in increasing k; indices outside ``[0, rows)`` (rows
    the forward dropped) are skipped.

    Args:
        permuted_output_grad: [R, H...] float32, float16 or bfloat16 array
            (rows are all dimensions after the first, as for the forward's tokens).
        sorted_indices: [T * num_topk] int32 (the forward's ``sorted_indices``).
        num_topk: experts per token (>= 1, dividing ``len(sorted_indices)``).
        padded_mode: must be False.
        out: optional [T, H...] array or DeviceTensor to write into.
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.

    Returns:
        [T, H...] in ``permuted_output_grad``'s dtype (``out`` when given; a
        new DeviceTensor when both inputs are DeviceTensors).

    Raises:
        AclnnError: 161002 for dtypes, padded mode or num_topk; 561002 for shapes.
    """
    grad = _operand(permuted_output_grad, "moe_token_permute_grad: permuted_output_grad")
    idx = _operand(sorted_indices, "moe_token_permute_grad: sorted_indices")
    k = int(num_topk)
    tokens = int(np.prod(idx.shape)) // k if k >= 1 else 0
    shape = (tokens,) + tuple(grad.shape[1:]) if len(grad.shape) >= 2 else (tokens, 1)
    outs, fresh = _outputs("moe_token_permute_grad", out, [(shape, _native(grad.dtype))],
                           _all_device(grad, idx))
    _launch(_MOE_PERMUTE_GRAD, (grad, idx), outs, (k, bool(padded_mode)), stream, fresh)
    return outs[0]


_FLOYD_LABELS = {"query": "q", "key1": "k1", "value1": "v1", "key2": "k2", "value2": "v2",
                 "attenMaskOptional": "mask", "scaleValueOptional": "scale", "scaleValue": "scale",
                 "softmaxMax": "softmax_max", "softmaxSum": "softmax_sum", "attentionIn": "attention_in"}
_FLOYD = _operator("aclnnFusedFloydAttention").renamed("fused_floyd_attention", _FLOYD_LABELS)
_FLOYD_GRAD = _operator("aclnnFusedFloydAttentionGrad").renamed("fused_floyd_attention_grad", _FLOYD_LABELS)


def fused_floyd_attention(q, k1, v1, k2, v2, mask=None, scale=1.0, *, out=None, stream=None):
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
        out: optional ``(out, softmax_max, softmax_sum)`` to write into.
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.

    Returns:
        ``(out, softmax_max, softmax_sum)`` (``out`` when given; new
        DeviceTensors when every input is one): ``out`` like ``q``; the row max and
        row sum of exp(S - max) as float32 [B,H,N,M,8] (each value 8 times),
        the inputs of :func:`fused_floyd_attention_grad`.

    Raises:
        AclnnError: 161002 for dtypes, 561002 for shapes (the message names the argument).
    """
    q = _operand(q, "fused_floyd_attention: q")
    B, H, N, M = q.shape[:4] if len(q.shape) == 5 else (0,) * 4
    stats = ((B, H, N, M, 8), np.dtype(np.float32))
    (y, smax, ssum), fresh = _outputs("fused_floyd_attention", out,
                                      [(q.shape, _native(q.dtype)), stats, stats],
                                      _all_device(q, k1, v1, k2, v2, mask))
    _launch(_FLOYD, (q, k1, v1, k2, v2, mask), (smax, ssum, y), (float(scale),), stream, fresh)
    return y, smax, ssum


def fused_floyd_attention_grad(q, k1, v1, k2, v2, dy, mask, softmax_max, softmax_sum, attention_in, scale=1.0, *,
                               out=None, stream=None):
    """Gradients of Floyd attention (aclnnFusedFloydAttentionGrad).

    Args:
        q, k1, v1, k2, v2, mask, scale: as for :func:`fused_floyd_attention`
            (mask None or [B,1,N,1,K]; with float32 tensors a mask must be bool).
        dy: gradient of the output, like ``q``.
        softmax_max, softmax_sum: float32 [B,H,N,M,8] from the forward.
        attention_in: the forward output, like ``q``.
        out: optional ``(dq, dk1, dv1, dk2, dv2)`` to write into.
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None.

    Returns:
        ``(dq, dk1, dv1, dk2, dv2)``, shaped and typed like q, k1, v1, k2, v2
        (``out`` when given; new DeviceTensors when every input is one).
        Deterministic: identical bits for every thread count and SIMD level.

    Raises:
        AclnnError: 161002 for dtypes, 561002 for shapes (the message names the argument).
    """
    title = "fused_floyd_attention_grad: "
    q, k1, k2 = _operand(q, title + "q"), _operand(k1, title + "k1"), _operand(k2, title + "k2")
    dt = _native(q.dtype)
    inputs = (q, k1, v1, k2, v2, dy, mask, softmax_max, softmax_sum, attention_in)
    made = [(q.shape, dt), (k1.shape, dt), (k1.shape, dt), (k2.shape, dt), (k2.shape, dt)]
    outputs, fresh = _outputs("fused_floyd_attention_grad", out, made, _all_device(*inputs))
    _launch(_FLOYD_GRAD, inputs, outputs, (float(scale),), stream, fresh)
    return outputs


__all__ += ["fused_floyd_attention", "fused_floyd_attention_grad"]
