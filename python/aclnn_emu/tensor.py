"""numpy <-> aclTensor: dtype mapping, zero-copy views of numpy arrays, and :class:`DeviceTensor`."""

import threading
import weakref

import ml_dtypes
import numpy as np

from ._aclnn_emu_cffi import ffi, lib
from .errors import AclnnError, check, last_error_message

__all__ = ["DeviceTensor", "acl_dtype", "numpy_dtype", "DTYPE_TO_ACL", "ACL_TO_DTYPE", "ensure_thread_device"]

_thread = threading.local()


def ensure_thread_device():
    """Give the calling thread its current device (``aclrtSetDevice(0)``) once.

    aclrt state is per thread, as in CANN: memory, copies and streams fail
    with 107002 on a thread without a device. The package sets it for every
    thread that uses it, so Python code never has to.
    """
    if not getattr(_thread, "device", False):
        check(lib.aclrtSetDevice(0), "aclrtSetDevice")
        _thread.device = True

_PAIRS = [
    (np.float32, "ACL_FLOAT"),
    (np.float16, "ACL_FLOAT16"),
    (ml_dtypes.bfloat16, "ACL_BF16"),
    (np.float64, "ACL_DOUBLE"),
    (np.int8, "ACL_INT8"),
    (np.int16, "ACL_INT16"),
    (np.int32, "ACL_INT32"),
    (np.int64, "ACL_INT64"),
    (np.uint8, "ACL_UINT8"),
    (np.uint16, "ACL_UINT16"),
    (np.uint32, "ACL_UINT32"),
    (np.uint64, "ACL_UINT64"),
    (np.bool_, "ACL_BOOL"),
    (np.complex64, "ACL_COMPLEX64"),
    (np.complex128, "ACL_COMPLEX128"),
    (getattr(ml_dtypes, "float8_e5m2", None), "ACL_FLOAT8_E5M2"),
    (getattr(ml_dtypes, "float8_e4m3fn", None), "ACL_FLOAT8_E4M3FN"),
    (getattr(ml_dtypes, "float8_e8m0fnu", None), "ACL_FLOAT8_E8M0"),
]

#: numpy dtype (native byte order) -> aclDataType value.
DTYPE_TO_ACL = {np.dtype(t): getattr(lib, name) for t, name in _PAIRS if t is not None}
#: aclDataType value -> numpy dtype.
ACL_TO_DTYPE = {v: k for k, v in DTYPE_TO_ACL.items()}


def acl_dtype(dtype):
    """The ``aclDataType`` value for a numpy dtype (or anything ``np.dtype`` accepts).

    Raises ``TypeError`` for dtypes aclnn has no type for (and for non-native byte order).
    """
    dt = np.dtype(dtype)
    try:
        return DTYPE_TO_ACL[dt]
    except KeyError:
        raise TypeError("aclnn_emu has no aclDataType for numpy dtype %s" % dt) from None


def numpy_dtype(acl_type):
    """The numpy dtype for an ``aclDataType`` value (``KeyError`` when there is none)."""
    return ACL_TO_DTYPE[int(acl_type)]


_ND = lib.ACL_FORMAT_ND
_NULL = ffi.NULL
_create_tensor = lib.aclCreateTensor
_destroy_tensor = lib.aclDestroyTensor
_free = lib.aclrtFree


def _ptr(arr):
    return arr.__array_interface__["data"][0]


def _contiguous_strides(shape):
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(strides))


_i64_cache = {}


def int64_array(values):
    """A cached, read-only ``int64_t[]`` holding ``values`` (a tuple of ints); shared, never written."""
    a = _i64_cache.get(values)
    if a is None:
        if len(_i64_cache) > 4096:
            _i64_cache.clear()
        a = _i64_cache[values] = ffi.new("int64_t[]", values)
    return a


def _i64(values):
    if not values:
        return _NULL
    if type(values) is not tuple:
        values = tuple(int(v) for v in values)
    return int64_array(values)


def create_tensor(shape, code, strides, offset, storage, data):
    """``aclCreateTensor`` with Python sequences; raises :class:`AclnnError` when it returns NULL.

    ``strides`` may be ``None`` (contiguous). ``storage`` is the storage shape.
    """
    dims = _i64(shape)
    st = _NULL if strides is None else _i64(strides)
    sd = _i64(storage)
    h = _create_tensor(dims, len(shape), code, st, int(offset), _ND, sd, len(storage), data)
    if h == _NULL:
        raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), "aclCreateTensor")
    return h


def normalize_array(arr):
    """Return ``arr`` or a copy of it that aclnn can describe without copying again.

    A copy is made (C order) when the byte order is not native, the data is not
    aligned to the item size, a stride is negative or not a multiple of the item
    size. Raises ``TypeError`` for dtypes without an ``aclDataType``.
    """
    dt = arr.dtype
    if not dt.isnative:
        arr = arr.astype(dt.newbyteorder("="))
        dt = arr.dtype
    if dt not in DTYPE_TO_ACL:
        raise TypeError("aclnn_emu has no aclDataType for numpy dtype %s" % dt)
    flags = arr.flags
    if not flags.aligned or (not flags.c_contiguous and any(s < 0 or s % arr.itemsize for s in arr.strides)):
        if arr.size:
            arr = arr.copy(order="C")
    return arr


def view_layout(arr, max_base_bytes=None):
    """Describe a normalized, non-empty array as ``(base_ptr, storage_elems, offset, strides)``.

    ``base_ptr`` is the start of the memory block the view lives in: the root
    ndarray of its ``.base`` chain when that is one contiguous block holding the
    view (and is at most ``max_base_bytes`` long, when given), otherwise the
    first byte of the view itself. ``offset`` and ``strides`` are in elements,
    as aclCreateTensor wants them.
    """
    item = arr.itemsize
    ptr = _ptr(arr)
    strides = tuple(s // item for s in arr.strides)
    span = item + sum((n - 1) * s for n, s in zip(arr.shape, arr.strides))
    base_ptr, base_bytes = ptr, span
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is not arr and (root.flags.c_contiguous or root.flags.f_contiguous):
        rptr, rbytes = _ptr(root), root.nbytes
        fits = rptr <= ptr and ptr + span <= rptr + rbytes and (ptr - rptr) % item == 0
        if fits and (max_base_bytes is None or rbytes <= max_base_bytes):
            base_ptr, base_bytes = rptr, rbytes
    return base_ptr, base_bytes // item, (ptr - base_ptr) // item, strides


def wrap_array(arr, writable=False):
    """Create an ``aclTensor`` over a normalized numpy array's own memory (zero copy).

    Returns ``(handle, keepalive)``; the caller destroys the handle and keeps
    ``keepalive`` referenced until the C side is done with the memory.
    """
    code = acl_dtype(arr.dtype)
    shape = arr.shape
    if arr.size == 0:
        return create_tensor(shape, code, _contiguous_strides(shape), 0, shape, _NULL), None
    if arr.flags.c_contiguous:
        buf = ffi.from_buffer(arr, require_writable=writable)
        d = _i64(shape)
        n = len(shape)
        h = _create_tensor(d, n, code, _NULL, 0, _ND, d, n, buf)
        if h == _NULL:
            raise AclnnError(lib.ACLNN_ERR_PARAM_INVALID, last_error_message(), "aclCreateTensor")
        return h, buf
    if writable and not arr.flags.writeable:
        raise ValueError("output array is read-only")
    base_ptr, storage, offset, strides = view_layout(arr)
    h = create_tensor(shape, code, strides, offset, (storage,), ffi.cast("void *", base_ptr))
    return h, arr


_live = weakref.WeakSet()

_KDLCPU = 1
_BF16 = np.dtype(ml_dtypes.bfloat16)


class _HostBlock:
    """The base of a DeviceTensor's numpy host view: its memory, and a reference keeping the tensor alive."""

    __slots__ = ("owner", "__array_interface__")

    def __init__(self, owner, interface):
        self.owner = owner
        self.__array_interface__ = interface


def _mark_bfloat16(capsule):
    """Relabel a DLPack capsule of uint16 data as bfloat16 (kDLBfloat, 16 bits), in place."""
    import ctypes

    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = api.PyCapsule_GetName(capsule)
    # DLManagedTensor starts with its DLTensor; DLManagedTensorVersioned has
    # version, manager_ctx, deleter and flags (32 bytes) before it. In
    # DLTensor the DLDataType {uint8 code, uint8 bits, uint16 lanes} is at 20.
    offset = {b"dltensor": 0, b"dltensor_versioned": 32}.get(name)
    if offset is None:
        raise BufferError("unexpected DLPack capsule %r" % (name,))
    dtype = ctypes.c_uint8 * 2
    code_bits = dtype.from_address(api.PyCapsule_GetPointer(capsule, name) + offset + 20)
    if (code_bits[0], code_bits[1]) != (1, 16):  # kDLUInt, 16 bits
        raise BufferError("unexpected DLPack dtype code %d bits %d" % (code_bits[0], code_bits[1]))
    code_bits[0] = 4  # kDLBfloat


class DeviceTensor:
    """An ``aclTensor`` over device memory (``aclrtMalloc``) that this object owns.

    Make one with :meth:`from_numpy` (copies the array's memory block and keeps
    its view: shape, strides, offset) or :meth:`empty`; read it back with
    :meth:`numpy`. Release with :meth:`close` or a ``with`` block; the
    destructor releases it too.

    Attributes: ``shape`` (tuple), ``dtype`` (numpy dtype), ``strides`` and
    ``offset`` (in elements, as aclnn counts them), ``storage_size`` (elements
    of the device block).
    """

    __slots__ = ("_handle", "_data", "_nbytes", "shape", "dtype", "strides", "offset", "storage_size", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError("use DeviceTensor.from_numpy() or DeviceTensor.empty()")

    @classmethod
    def _make(cls, shape, dtype, strides, offset, storage_shape, nbytes):
        self = object.__new__(cls)
        self._handle = None
        self._data = _NULL
        self._nbytes = 0
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)
        storage_elems = 1
        for n in storage_shape:
            storage_elems *= int(n)
        self.storage_size = storage_elems
        code = acl_dtype(self.dtype)
        if nbytes:
            ensure_thread_device()
            p = ffi.new("void **")
            check(lib.aclrtMalloc(p, nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
            self._data = p[0]
            self._nbytes = nbytes
        try:
            self._handle = create_tensor(self.shape, code, self.strides, self.offset, storage_shape, self._data)
        except BaseException:
            self.close()
            raise
        _live.add(self)
        return self

    @classmethod
    def empty(cls, shape, dtype=np.float32):
        """An uninitialised contiguous device tensor of ``shape`` and ``dtype``."""
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in shape):
            raise ValueError("negative dimension in shape %r" % (shape,))
        dt = np.dtype(dtype)
        size = 1
        for n in shape:
            size *= n
        return cls._make(shape, dt, _contiguous_strides(shape), 0, shape, size * dt.itemsize)

    @classmethod
    def from_numpy(cls, arr):
        """Copy a numpy array to device memory, keeping its view.

        The device block covers the array's base memory block (or just the
        view's extent when the base is not one block holding it), and the
        tensor's strides and offset reproduce the numpy view, so transposed and
        sliced arrays stay views. Negative strides, unaligned data and
        non-native byte order are made contiguous first. Zero-size arrays get
        no device memory (NULL data).
        """
        arr = normalize_array(np.asarray(arr))
        if arr.size == 0:
            return cls._make(arr.shape, arr.dtype, _contiguous_strides(arr.shape), 0, arr.shape, 0)
        # Copy the whole base block unless it dwarfs the view.
        base_ptr, storage, offset, strides = view_layout(arr, max_base_bytes=2 * arr.nbytes + (1 << 16))
        nbytes = storage * arr.itemsize
        self = cls._make(arr.shape, arr.dtype, strides, offset, (storage,), nbytes)
        try:
            src = ffi.cast("void *", base_ptr)
            # DEFAULT, not HOST_TO_DEVICE: the array may itself be an operator's
            # result living in a device block (results of 2 MiB and more do).
            check(lib.aclrtMemcpy(self._data, nbytes, src, nbytes, lib.ACL_MEMCPY_DEFAULT), "aclrtMemcpy")
        except BaseException:
            self.close()
            raise
        return self

    def _storage_to_host(self):
        host = np.empty(self.storage_size, self.dtype)
        if self._nbytes:
            ensure_thread_device()
            check(
                lib.aclrtMemcpy(
                    ffi.from_buffer(host, require_writable=True),
                    self._nbytes,
                    self._data,
                    self._nbytes,
                    lib.ACL_MEMCPY_DEVICE_TO_HOST,
                ),
                "aclrtMemcpy",
            )
        return host

    def numpy(self):
        """Copy the tensor back to a new numpy array of the same shape and dtype (the view's elements)."""
        _ = self.handle  # raises when closed
        if self.size == 0:
            return np.empty(self.shape, self.dtype)
        host = self._storage_to_host()
        item = self.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            host[self.offset :], self.shape, tuple(s * item for s in self.strides), writeable=False
        )
        if self.storage_size == self.size and self.offset == 0:
            out = np.ndarray(self.shape, self.dtype, host, 0, view.strides)
            return out
        return view.copy(order="K")

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export the tensor by DLPack without a copy: ``torch.from_dlpack(t)``, ``np.from_dlpack(t)``.

        Emulated device memory is host memory, so the capsule (device kDLCPU)
        points into the device block, with this tensor's shape, strides and
        offset; the consumer's tensor keeps this object alive. Work queued on
        streams is finished first (``aclrtSynchronizeDevice``). Do not
        :meth:`close` the tensor while a consumer still uses the memory.
        ``stream`` must be None (a CPU device has no streams); the other
        keywords are numpy's (``copy=True`` exports a copy).
        """
        if stream is not None:
            raise BufferError("a DeviceTensor is CPU memory for DLPack: stream must be None, not %r" % (stream,))
        view = self._host_view()
        check(lib.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice")
        kwargs = {}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        if self.dtype != _BF16:
            return view.__dlpack__(**kwargs)
        # numpy does not export ml_dtypes' bfloat16: export the bits as uint16
        # and mark the capsule's dtype kDLBfloat (same size and layout).
        capsule = view.view(np.uint16).__dlpack__(**kwargs)
        _mark_bfloat16(capsule)
        return capsule

    def __dlpack_device__(self):
        """``(kDLCPU, 0)``: emulated device memory is host memory."""
        return (_KDLCPU, 0)

    def _host_view(self):
        """A writable numpy view of the device block (no copy) that keeps this tensor alive."""
        _ = self.handle  # raises when closed
        dt = np.dtype(np.uint16) if self.dtype == _BF16 else self.dtype
        if self.size == 0 or self._data == _NULL:
            return np.empty(self.shape, self.dtype)
        item = self.dtype.itemsize
        keeper = _HostBlock(self, {
            "version": 3,
            "data": (int(ffi.cast("uintptr_t", self._data)) + self.offset * item, False),
            "shape": self.shape,
            "strides": tuple(s * item for s in self.strides),
            "typestr": dt.str,
        })
        view = np.asarray(keeper)
        return view.view(self.dtype) if dt != self.dtype else view

    @property
    def handle(self):
        """The ``aclTensor *`` (cffi pointer) to pass to raw ``lib`` calls; raises after :meth:`close`."""
        h = self._handle
        if h is None:
            raise ValueError("the DeviceTensor is closed")
        return h

    @property
    def data_ptr(self):
        """The device block (``void *``); NULL for zero-size tensors."""
        return self._data

    @property
    def nbytes(self):
        """Bytes of device memory owned."""
        return self._nbytes

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self.shape)

    @property
    def size(self):
        """Number of elements of the view."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def closed(self):
        """True once :meth:`close` ran."""
        return self._handle is None and self._data == _NULL

    def close(self):
        """Destroy the descriptor and free the device memory (once; later calls do nothing)."""
        h, self._handle = self._handle, None
        data, self._data = self._data, _NULL
        self._nbytes = 0
        if h is not None:
            _destroy_tensor(h)
        if data != _NULL:
            check(_free(data), "aclrtFree")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def __del__(self):
        try:
            if getattr(self, "_handle", None) is not None or getattr(self, "_data", _NULL) != _NULL:
                self.close()
        except Exception:  # interpreter shutdown or library already finalized
            pass

    def __repr__(self):
        state = "closed" if self.closed else "strides=%s, offset=%d" % (self.strides, self.offset)
        return "DeviceTensor(shape=%s, dtype=%s, %s)" % (self.shape, self.dtype, state)


def close_all():
    """Release every live :class:`DeviceTensor` (used at exit, before aclFinalize)."""
    for t in list(_live):
        try:
            t.close()
        except Exception:
            pass
