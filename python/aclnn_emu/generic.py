"""Every implemented operator from Python, driven by the library's own registry.

The C library lists the operators it implements with the arguments of their
phase 1 (``aclnnEmuGetOperatorName`` / ``aclnnEmuGetOperatorSignature``).
:func:`run` calls any of them by name on numpy arrays, with keyword arguments
named as in CANN's header::

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnAdd", self=x, other=np.ones(3, np.float32), alpha=2.0, out=out)
    aclnn_emu.run("aclnnInplaceExp", selfRef=x)      # in place
    aclnn_emu.operators()["aclnnClamp"]               # the argument list

Outputs (``out`` kinds) and in-place tensors (``inout``) are numpy arrays that
the operator writes into, with their strides and offset kept. Integer, bool
and float arrays (``intarray``, ``boolarray``, ``floatarray``) are Python
sequences; tensor lists (``tensorlist``) are sequences of numpy arrays. Scalars are
Python numbers or ``(value, numpy dtype)`` pairs (a bare float is an
``ACL_FLOAT`` scalar, an int ``ACL_INT64``, a bool ``ACL_BOOL``, as host code
usually makes them); ``dtype`` arguments take a numpy dtype. Failures raise
:class:`AclnnError` whose message names the argument as the header does.
"""

import numpy as np

from ._aclnn_emu_cffi import ffi, lib
from .errors import AclnnError, check, last_error_message
from .tensor import acl_dtype, normalize_array, wrap_array

__all__ = ["operators", "run"]

_SIGNATURES = None


def operators():
    """``{api name: [(argument, kind), ...]}`` for every operator the library implements."""
    global _SIGNATURES
    if _SIGNATURES is None:
        table = {}
        for i in range(lib.aclnnEmuGetOperatorCount()):
            name = ffi.string(lib.aclnnEmuGetOperatorName(i)).decode()
            signature = ffi.string(lib.aclnnEmuGetOperatorSignature(i)).decode()
            table[name] = [tuple(part.split(":")) for part in signature.split(",")]
        _SIGNATURES = table
    return _SIGNATURES


_SCALAR_DEFAULT = ((bool, np.bool_), (int, np.int64), (float, np.float32))


def _scalar(api, name, value):
    if isinstance(value, tuple):
        value, dtype = value
        dtype = np.dtype(dtype)
    else:
        dtype = next((np.dtype(d) for t, d in _SCALAR_DEFAULT if isinstance(value, t)), None)
        if dtype is None:
            raise TypeError("%s: %s must be a number or a (value, dtype) pair, not %s" % (api, name, type(value).__name__))
    holder = np.array([value], dtype=dtype)
    handle = lib.aclCreateScalar(ffi.from_buffer(holder), acl_dtype(dtype))
    if handle == ffi.NULL:
        raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), "aclCreateScalar")
    return handle


def _array(api, name, value, writable):
    if not isinstance(value, np.ndarray):
        raise TypeError("%s: %s must be a numpy array, not %s" % (api, name, type(value).__name__))
    arr = normalize_array(value)
    if writable and arr is not value:
        raise ValueError("%s: %s cannot be written in place (its layout needs a copy); pass a native, aligned array"
                         % (api, name))
    return arr


def run(api, stream=None, **arguments):
    """Runs operator ``api`` (phase 1, workspace, phase 2, synchronize) on numpy arrays.

    ``arguments`` are the phase-1 arguments by their header names (see
    :func:`operators`); optional tensors and scalars may be left out.
    """
    signature = operators().get(api)
    if signature is None:
        raise ValueError("%s is not implemented by aclnn_emu (see aclnn_emu.operators())" % api)
    unknown = set(arguments) - {name for name, _ in signature}
    if unknown:
        raise TypeError("%s got unexpected arguments %s; it takes %s"
                        % (api, ", ".join(sorted(unknown)), ", ".join(n for n, _ in signature)))
    handles, destroy, keep = [], [], []
    try:
        for name, kind in signature:
            present = name in arguments and arguments[name] is not None
            if not present and not kind.endswith("?"):
                raise TypeError("%s: missing argument %s" % (api, name))
            value = arguments.get(name)
            if kind in ("tensor", "tensor?", "out", "inout"):
                if not present:
                    handles.append(ffi.NULL)
                    continue
                arr = _array(api, name, value, kind in ("out", "inout"))
                handle, keepalive = wrap_array(arr, writable=kind in ("out", "inout"))
                destroy.append((lib.aclDestroyTensor, handle))
                keep.append(keepalive)
                handles.append(handle)
            elif kind in ("scalar", "scalar?"):
                if not present:
                    handles.append(ffi.NULL)
                    continue
                handle = _scalar(api, name, value)
                destroy.append((lib.aclDestroyScalar, handle))
                handles.append(handle)
            elif kind in ("intarray", "intarray?", "boolarray", "floatarray"):
                if not present:
                    handles.append(ffi.NULL)
                    continue
                values = list(value)
                if kind.startswith("intarray"):
                    handle = lib.aclCreateIntArray(ffi.new("int64_t[]", [int(v) for v in values]), len(values))
                    destroy.append((lib.aclDestroyIntArray, handle))
                elif kind == "boolarray":
                    handle = lib.aclCreateBoolArray(ffi.new("bool[]", [bool(v) for v in values]), len(values))
                    destroy.append((lib.aclDestroyBoolArray, handle))
                else:
                    handle = lib.aclCreateFloatArray(ffi.new("float[]", [float(v) for v in values]), len(values))
                    destroy.append((lib.aclDestroyFloatArray, handle))
                handles.append(handle)
            elif kind in ("tensorlist", "outlist"):
                tensors = []
                for k, item in enumerate(value):
                    arr = _array(api, "%s[%d]" % (name, k), item, kind == "outlist")
                    handle, keepalive = wrap_array(arr, writable=kind == "outlist")
                    keep.append(keepalive)
                    tensors.append(handle)
                # aclDestroyTensorList destroys the tensors it holds.
                handle = lib.aclCreateTensorList(ffi.new("aclTensor *[]", tensors), len(tensors))
                destroy.append((lib.aclDestroyTensorList, handle))
                handles.append(handle)
            elif kind == "dtype":
                handles.append(acl_dtype(value))
            elif kind == "bool":
                handles.append(bool(value))
            elif kind == "double":
                handles.append(float(value))
            else:
                handles.append(int(value))
        workspace_size = ffi.new("uint64_t *")
        executor = ffi.new("aclOpExecutor **")
        stream_handle = ffi.NULL if stream is None else stream.handle
        allowed = lib.aclnnEmuGetHostMemoryAllowed()
        lib.aclnnEmuSetHostMemoryAllowed(1)  # numpy memory is host memory
        try:
            rc = getattr(lib, api + "GetWorkspaceSize")(*handles, workspace_size, executor)
            if rc:
                raise AclnnError(rc, last_error_message(), api + "GetWorkspaceSize")
            workspace = ffi.NULL
            if workspace_size[0]:
                p = ffi.new("void **")
                check(lib.aclrtMalloc(p, workspace_size[0], lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
                workspace = ffi.gc(p[0], lib.aclrtFree)
            rc = getattr(lib, api)(workspace, workspace_size[0], executor[0], stream_handle)
            if rc:
                raise AclnnError(rc, last_error_message(), api)
            check(lib.aclrtSynchronizeStream(stream_handle), "aclrtSynchronizeStream")
        finally:
            lib.aclnnEmuSetHostMemoryAllowed(allowed)
    finally:
        for fn, handle in destroy:
            fn(handle)
    outputs = [arguments[name] for name, kind in signature if kind in ("out", "inout") and name in arguments]
    return outputs[0] if len(outputs) == 1 else tuple(outputs)
