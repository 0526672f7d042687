"""Small helpers shared by the tests that drive the raw C API through cffi."""
from aclnn_emu import ffi, lib

NULL = ffi.NULL


def take_msg():
    """Take (and clear) the calling thread's recent error message; None if there is none."""
    p = lib.aclGetRecentErrMsg()
    return None if p == NULL else ffi.string(p).decode()


def expect(code, rc, *words):
    """Assert ``rc == code`` and, for a failure, that its message holds every word; return the message."""
    msg = take_msg()
    assert rc == code, (rc, msg)
    if code != 0:
        assert msg, "no message left for code %d" % code
        for word in words:
            assert word in msg, (word, msg)
    return msg


def last_kernel():
    """The name of the kernel the calling thread's last phase 2 ran."""
    return ffi.string(lib.aclnnEmuGetLastKernel()).decode()
