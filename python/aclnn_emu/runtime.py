"""Streams and the process-wide settings of aclnn_emu (ISA cap, threads, product)."""

from ._aclnn_emu_cffi import ffi, lib
from .errors import AclnnError, check, last_error_message
from .tensor import ensure_thread_device

__all__ = [
    "Stream",
    "Event",
    "synchronize",
    "set_isa_cap",
    "get_isa",
    "detected_isa",
    "available_isas",
    "set_num_threads",
    "get_num_threads",
    "set_soc_name",
    "soc_name",
    "last_kernel",
    "library_version",
    "stream_handle",
    "invalidate_plans",
    "set_verbose",
    "get_verbose",
]

#: Called (without arguments) on every settings change made through this module.
_settings_hooks = []


def invalidate_plans():
    """Drop the operator plans (repeatable executors) cached by the numpy layer.

    Each thread stops using its plans at its next launch. The settings helpers
    here call it; call it yourself after changing settings with raw ``lib``
    calls (``aclnnEmuSetSocName`` and friends).
    """
    for hook in _settings_hooks:
        hook()


#: Milliseconds per slice of a host-side wait: between slices Python runs its
#: signal handlers, so Ctrl-C (KeyboardInterrupt) stops a wait that might
#: never end (a stream waiting for an event no one records).
_WAIT_SLICE_MS = 100


def _wait_in_slices(timed_call, timeout_code, api):
    """Call ``timed_call(_WAIT_SLICE_MS)`` until it succeeds; raise for any error but its own timeout."""
    while True:
        code = timed_call(_WAIT_SLICE_MS)
        if code == 0:
            return
        message = last_error_message()
        # The timed calls say "after timeout" only when the slice ran out; a
        # stuck wait the library gave up reports the same code with its own story.
        if code != timeout_code or "after timeout" not in message:
            raise AclnnError(code, message, api)


def synchronize_stream_handle(handle):
    """``aclrtSynchronizeStream`` on a raw handle, in slices Ctrl-C can interrupt."""
    _wait_in_slices(lambda ms: lib.aclrtSynchronizeStreamWithTimeout(handle, ms),
                    lib.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "aclrtSynchronizeStream")


#: ISA level names in increasing order; the index is the ``aclnnEmuIsa`` value.
ISA_NAMES = ("scalar", "avx2", "avx512", "avx512_bf16")


class _RuntimeHandle:
    """An aclrt handle owned by a Python object: created in ``__init__``,
    destroyed by :meth:`close`, by ``with`` or when collected."""

    __slots__ = ("_handle", "__weakref__")
    _kind = ""  # "stream" or "event"
    _create = _destroy = None  # the lib functions

    def __init__(self):
        ensure_thread_device()
        p = ffi.new("aclrt%s *" % self._kind.capitalize())
        check(self._create(p), "aclrtCreate" + self._kind.capitalize())
        self._handle = p[0]

    @property
    def handle(self):
        """The raw handle (a cffi ``void *``); raises after :meth:`close`."""
        if self._handle is None:
            raise ValueError("the %s is closed" % self._kind)
        return self._handle

    @property
    def closed(self):
        """True once the handle was destroyed."""
        return self._handle is None

    def close(self):
        """Destroy the handle (queued work still runs). Safe to call twice."""
        h, self._handle = self._handle, None
        if h is not None:
            check(self._destroy(h), "aclrtDestroy" + self._kind.capitalize())

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def __del__(self):
        h = getattr(self, "_handle", None)
        if h is not None:
            self._handle = None
            try:
                self._destroy(h)
            except Exception:  # interpreter shutdown or library already finalized
                pass

    def __repr__(self):
        return "<aclnn_emu.%s %s>" % (type(self).__name__, "closed" if self._handle is None else self._handle)


class Stream(_RuntimeHandle):
    """An aclrt stream: an ordered queue for operator launches and async copies,
    run by its own worker thread (calls on it return at once).

    Use it as a context manager; on exit the stream is synchronized and
    destroyed::

        with aclnn_emu.Stream() as s:
            y = aclnn_emu.silu(x, stream=s)

    Pass it (or its :attr:`handle`) wherever an operator takes ``stream=``.
    """

    __slots__ = ()
    _kind = "stream"
    _create = lib.aclrtCreateStream
    _destroy = lib.aclrtDestroyStream

    def synchronize(self):
        """Block until all work queued on the stream is done (Ctrl-C interrupts the wait)."""
        synchronize_stream_handle(self.handle)

    def query(self):
        """True when all work queued on the stream is done (never blocks)."""
        status = ffi.new("aclrtStreamStatus *")
        check(lib.aclrtStreamQuery(self.handle, status), "aclrtStreamQuery")
        return status[0] == lib.ACL_STREAM_STATUS_COMPLETE

    def __exit__(self, exc_type, exc, tb):
        if self._handle is not None:
            try:
                self.synchronize()
            finally:
                self.close()
        return False


class Event(_RuntimeHandle):
    """An aclrt event: a marker recorded on a stream, to order streams and time work.

    ``record(stream)`` queues the marker; ``wait(stream)`` makes later work on
    ``stream`` wait for it (for an event not recorded yet: until it is, as in
    CANN); :meth:`elapsed_ms` gives the milliseconds between two completed
    events::

        start, end = aclnn_emu.Event(), aclnn_emu.Event()
        start.record(s); y = aclnn_emu.silu(x_dev, stream=s); end.record(s)
        end.synchronize(); print(start.elapsed_ms(end))
    """

    __slots__ = ()
    _kind = "event"
    _create = lib.aclrtCreateEvent
    _destroy = lib.aclrtDestroyEvent

    def record(self, stream=None):
        """Queue the marker on ``stream`` (None: the default stream, which records at once)."""
        check(lib.aclrtRecordEvent(self.handle, stream_handle(stream)), "aclrtRecordEvent")

    def wait(self, stream=None):
        """Make later work on ``stream`` wait until this event has completed."""
        check(lib.aclrtStreamWaitEvent(stream_handle(stream), self.handle), "aclrtStreamWaitEvent")

    def reset(self, stream=None):
        """Return the event to "not recorded" when ``stream`` reaches this call."""
        check(lib.aclrtResetEvent(self.handle, stream_handle(stream)), "aclrtResetEvent")

    def synchronize(self):
        """Block until the event's pending records have run (at once if it was never recorded; Ctrl-C interrupts)."""
        handle = self.handle
        _wait_in_slices(lambda ms: lib.aclrtSynchronizeEventWithTimeout(handle, ms),
                        lib.ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "aclrtSynchronizeEvent")

    def query(self):
        """True when the event is recorded and its records have run (never blocks)."""
        status = ffi.new("aclrtEventRecordedStatus *")
        check(lib.aclrtQueryEventStatus(self.handle, status), "aclrtQueryEventStatus")
        return status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_ms(self, end):
        """Milliseconds from this event to ``end``, both recorded and completed."""
        ms = ffi.new("float *")
        check(lib.aclrtEventElapsedTime(ms, self.handle, end.handle), "aclrtEventElapsedTime")
        return float(ms[0])


def stream_handle(stream):
    """The raw ``aclrtStream`` for ``stream``: a :class:`Stream`, a cffi pointer or ``None`` (default stream)."""
    if stream is None:
        return ffi.NULL
    if isinstance(stream, Stream):
        return stream.handle
    if isinstance(stream, ffi.CData):
        return stream
    raise TypeError("stream must be an aclnn_emu.Stream, a cffi aclrtStream or None, not %s" % type(stream).__name__)


def synchronize(stream=None):
    """Wait for queued work: on ``stream`` if given, otherwise on every stream of the device.

    Ctrl-C (KeyboardInterrupt) interrupts the wait; the work stays queued.
    """
    if stream is None:
        _wait_in_slices(lib.aclrtSynchronizeDeviceWithTimeout, lib.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                        "aclrtSynchronizeDevice")
    else:
        synchronize_stream_handle(stream_handle(stream))


def _isa_value(name_or_enum):
    if isinstance(name_or_enum, str):
        key = name_or_enum.strip().lower()
        if key not in ISA_NAMES:
            raise ValueError("unknown ISA %r; expected one of %s" % (name_or_enum, ", ".join(ISA_NAMES)))
        return ISA_NAMES.index(key)
    return int(name_or_enum)


def _isa_name(value):
    return ffi.string(lib.aclnnEmuIsaName(value)).decode()


def set_isa_cap(name_or_enum):
    """Cap the SIMD level kernels may use: a name of :data:`ISA_NAMES` or an ``ACLNN_EMU_ISA_*`` value.

    A cap above the detected level means "the best available". Overrides the
    ``ACLNN_EMU_ISA`` environment variable; process wide.
    """
    invalidate_plans()
    check(lib.aclnnEmuSetIsaCap(_isa_value(name_or_enum)), "aclnnEmuSetIsaCap")


def get_isa():
    """The level kernels use now, min(detected, cap), as a name such as ``"avx2"``."""
    return _isa_name(lib.aclnnEmuGetIsa())


def detected_isa():
    """The best level this CPU and OS support, as a name."""
    return _isa_name(lib.aclnnEmuGetDetectedIsa())


def available_isas():
    """Names of every level this machine can run, from ``"scalar"`` up to :func:`detected_isa`."""
    return [_isa_name(v) for v in range(int(lib.aclnnEmuGetDetectedIsa()) + 1)]


def set_num_threads(n):
    """Set the number of worker threads kernels use (``0``: all usable cores). Results do not depend on it."""
    invalidate_plans()
    check(lib.aclnnEmuSetNumThreads(int(n)), "aclnnEmuSetNumThreads")


def get_num_threads():
    """The number of threads kernels use now (>= 1)."""
    return int(lib.aclnnEmuGetNumThreads())


def set_soc_name(name):
    """Select the emulated product: ``"Ascend910B"``, ``"Ascend910_93"``, ``"Ascend910"`` or ``"Ascend950"``."""
    invalidate_plans()
    check(lib.aclnnEmuSetSocName(name.encode()), "aclnnEmuSetSocName")


def soc_name():
    """The emulated product's name, as ``aclrtGetSocName()`` reports it."""
    return ffi.string(lib.aclrtGetSocName()).decode()


def last_kernel():
    """The kernel the calling thread's last phase 2 ran (e.g. ``"f32_silu_grad__avx2_u16"``); ``""`` if none."""
    p = lib.aclnnEmuGetLastKernel()
    return "" if p == ffi.NULL else ffi.string(p).decode()


def library_version():
    """The C library's version string, ``"MAJOR.MINOR.PATCH"``."""
    return ffi.string(lib.aclnnEmuVersion()).decode()


def set_verbose(enabled):
    """Log every launch (operator, stream, dtypes, shapes, kernel, time) to stderr, or stop logging.

    The same switch as ``aclnnEmuSetVerbose`` and the ``ACLNN_EMU_VERBOSE``
    environment variable (read once, at load); process wide.
    """
    check(lib.aclnnEmuSetVerbose(1 if enabled else 0), "aclnnEmuSetVerbose")


def get_verbose():
    """Whether launches are logged (:func:`set_verbose`)."""
    return bool(lib.aclnnEmuGetVerbose())
