"""Small helpers shared by the tests that drive the raw C API through cffi:
error messages, and tensor views inside guarded aclrtMalloc blocks."""
import threading

import ml_dtypes
import numpy as np
from aclnn_emu import ffi, lib

NULL = ffi.NULL
BF16 = np.dtype(ml_dtypes.bfloat16)
ACL_OF = {np.dtype(np.float32): 0, np.dtype(np.float16): 1, BF16: 27}


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


def kernel_level(isa):
    """The level in the names of the kernels an operator runs at ``isa``: avx512_bf16 has kernels of its
    own only for RoPE's bf16 rows; everything else runs the AVX-512 kernels there."""
    return "avx512" if isa == "avx512_bf16" else isa


def last_kernel():
    """The name of the kernel the calling thread's last phase 2 ran."""
    return ffi.string(lib.aclnnEmuGetLastKernel()).decode()


class Block:
    """A device block (aclrtMalloc) mirroring a 1-D numpy storage array."""

    def __init__(self, host):
        self.dtype = host.dtype
        self.size = host.size
        self.nbytes = host.nbytes
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, max(self.nbytes, 1), 0) == 0, take_msg()
        self.ptr = p[0]
        self.write(host)

    def write(self, host):
        assert host.dtype == self.dtype and host.size == self.size
        host = np.ascontiguousarray(host)
        if self.nbytes:
            assert lib.aclrtMemcpy(self.ptr, self.nbytes, ffi.from_buffer(host), self.nbytes, 1) == 0

    def read(self):
        host = np.empty(self.size, self.dtype)
        if self.nbytes:
            assert lib.aclrtMemcpy(ffi.from_buffer(host, require_writable=True), self.nbytes, self.ptr,
                                   self.nbytes, 2) == 0
        return host

    def free(self):
        if self.ptr is not None:
            assert lib.aclrtFree(self.ptr) == 0
            self.ptr = None


class DevView:
    """A tensor view inside a guarded device block; elements outside the view hold ``guard``.

    layout: "contig" (offset 0), "offset" (contiguous at an odd offset),
    "transposed" (reversed axes; a step-2 view for rank 1).
    """

    GUARD = 16

    def __init__(self, values, layout="contig", guard=-7.0, acl_dtype=None):
        values = np.asarray(values)
        self.shape, self.dtype = values.shape, values.dtype
        n, g = values.size, self.GUARD
        if layout == "contig":
            base = np.full(n + g, guard, self.dtype)
            view = base[:n].reshape(self.shape)
        elif layout == "offset":
            base = np.full(n + 2 * g + 5, guard, self.dtype)
            view = base[g + 5:g + 5 + n].reshape(self.shape)
        elif layout == "transposed" and values.ndim >= 2:
            base = np.full(n + 2 * g, guard, self.dtype)
            view = base[g:g + n].reshape(self.shape[::-1]).transpose()
        elif layout == "transposed":
            base = np.full(2 * n + 2 * g, guard, self.dtype)
            view = base[g:g + 2 * n:2]
        else:
            raise ValueError(layout)
        view[...] = values
        self.base = base
        item = self.dtype.itemsize
        self.offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
        self.strides = tuple(s // item for s in view.strides)
        idx = np.arange(base.size)
        inside = np.lib.stride_tricks.as_strided(idx[self.offset:], self.shape,
                                                 tuple(s * idx.itemsize for s in self.strides))
        self.mask = np.ones(base.size, bool)
        self.mask[inside.ravel()] = False
        self.block = Block(base)
        code = ACL_OF[self.dtype] if acl_dtype is None else acl_dtype
        self.tensor = make_tensor(self.shape, code, self.strides, self.offset, [base.size], self.block.ptr)

    def values(self):
        item = self.dtype.itemsize
        return np.lib.stride_tricks.as_strided(self.block.read()[self.offset:], self.shape,
                                               tuple(s * item for s in self.strides)).copy()

    def guards_intact(self):
        return np.array_equal(self.block.read()[self.mask], self.base[self.mask], equal_nan=True)

    def untouched(self):
        return np.array_equal(self.block.read(), self.base, equal_nan=True)

    def close(self):
        lib.aclDestroyTensor(self.tensor)
        self.block.free()


def make_tensor(shape, dtype, strides, offset, storage, data, fmt=2):
    dims = ffi.new("int64_t[]", list(shape)) if len(shape) else NULL
    st = ffi.new("int64_t[]", list(strides)) if strides is not None and len(shape) else NULL
    sd = ffi.new("int64_t[]", list(storage)) if len(storage) else NULL
    t = lib.aclCreateTensor(dims, len(shape), dtype, st, offset, fmt, sd, len(storage), data)
    assert t != NULL, take_msg()
    return t


def same_bits(a, b):
    """Equal shapes, dtypes and bytes."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def assert_thread_count_invariant(make_results):
    """make_results() with 1 and with 2 threads: the same bits."""
    import aclnn_emu

    previous = aclnn_emu.get_num_threads()
    try:
        aclnn_emu.set_num_threads(1)
        reference = make_results()
        aclnn_emu.set_num_threads(2)
        for a, b in zip(make_results(), reference):
            assert same_bits(a, b)
    finally:
        aclnn_emu.set_num_threads(previous)


def assert_isa_invariant(make_results):
    """make_results() at every ISA level the CPU has: the same bits."""
    import aclnn_emu

    previous = aclnn_emu.get_isa()
    try:
        reference = None
        for isa in aclnn_emu.available_isas():
            aclnn_emu.set_isa_cap(isa)
            results = make_results()
            if reference is None:
                reference = results
            for a, b in zip(results, reference):
                assert same_bits(a, b), isa
    finally:
        aclnn_emu.set_isa_cap(previous)


def run_in_thread(fn):
    """Run ``fn`` in a fresh thread; re-raise what it raised; return its result."""
    box = {}

    def target():
        try:
            box["result"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            box["error"] = e

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")
