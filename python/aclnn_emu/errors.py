"""The exception raised for failing ACL / aclnn calls, and ``check``."""

from ._aclnn_emu_cffi import ffi, lib

__all__ = ["AclnnError", "check", "code_name"]

_NAMES = None


def code_name(code):
    """The symbolic name of a status code, e.g. ``161002 -> 'ACLNN_ERR_PARAM_INVALID'``.

    Returns ``None`` for codes the headers do not name.
    """
    global _NAMES
    if _NAMES is None:
        names = {}
        # Preference order where two names share a value: aclnn, then ACL, then runtime.
        for prefix in ("ACLNN_ERR_", "ACLNN_SUCCESS", "ACL_SUCCESS", "ACL_ERROR_RT_", "ACL_ERROR_"):
            for name in sorted(dir(lib)):
                if name.startswith(prefix) and name not in ("ACL_ERROR_NONE", "ACLNN_ERR_INNER_KEY_CONFILICT"):
                    value = getattr(lib, name)
                    if isinstance(value, int):
                        names.setdefault(value, name)
        _NAMES = names
    return _NAMES.get(code)


class AclnnError(RuntimeError):
    """A failing ACL or aclnn call.

    Attributes:
        code: the status code the C function returned (an ``int``, e.g. 161002).
        message: the sentence the library left for ``aclGetRecentErrMsg()``
            (``""`` when it left none).
        api: the name of the C function that failed, or ``None``.
    """

    def __init__(self, code, message="", api=None):
        self.code = int(code)
        self.message = message or ""
        self.api = api
        super().__init__(self.code, self.message, api)

    @property
    def name(self):
        """The symbolic name of :attr:`code` (``None`` when unknown)."""
        return code_name(self.code)

    def __str__(self):
        head = "%s failed" % self.api if self.api else "call failed"
        name = self.name
        code = "%d (%s)" % (self.code, name) if name else str(self.code)
        if self.message:
            return "%s with code %s: %s" % (head, code, self.message)
        return "%s with code %s" % (head, code)

    def __reduce__(self):
        return (type(self), (self.code, self.message, self.api))


_errmsg = lib.aclGetRecentErrMsg
_NULL = ffi.NULL
_string = ffi.string


def last_error_message():
    """Take (and clear) the calling thread's most recent C error message; ``""`` if none."""
    p = _errmsg()
    if p == _NULL:
        return ""
    return _string(p).decode("utf-8", "replace")


def check(code, api=None):
    """Raise :class:`AclnnError` when ``code`` is not 0; return ``None`` otherwise.

    The C message is read once, right here, on the failing thread.
    """
    if code:
        raise AclnnError(code, last_error_message(), api)
