#!/usr/bin/env python3
"""aclnnRotaryPositionEmbeddingGrad against the machine's bandwidth and PyTorch autograd, in one process.

Cases: the three typical RotaryMulGrad cases of the CANN guide (half mode,
x [2,8192,5,128] with r1/r2 [1,8192,1,128]; [8192,2,5,128] with
[8192,1,1,128]; [2048,4,32,64] with [2048,4,1,64]) and interleave mode on
BSND [4,4096,32,128] with [1,4096,1,128]; fp32, fp16 and bf16; with x (dx,
dcos, dsin: "with dr") and without (dx only), as torch_npu's need_backward.

For each case it interleaves, repetition by repetition:

* the STREAM-like probe of ``bench/stream_probe.c`` (copy and triad, own
  pthreads, the library's thread count), compiled with cffi (as
  bench_silu_backward.py does);
* ``aclnn_emu C``: phase 1 + phase 2 of aclnnRotaryPositionEmbeddingGrad
  through the raw binding on device buffers from aclrtMalloc, as a CANN
  program allocates them (64-byte aligned, pre-faulted by the copy in);
* ``aclnn_emu py``: ``rotary_mul_backward`` (the numpy layer, which
  allocates its outputs, as a user calls it);
* when ``import torch`` works: PyTorch eager autograd of the same forward
  (``r1*x + r2*cat(-x2, x1)``, interleave: ``r1*x + r2*stack(-x2, x1)``),
  timing ``torch.autograd.grad`` of a recorded graph (the forward is not
  timed).

Useful bytes are those that must move: dy, cos, sin read and dx written,
plus x read and dcos, dsin written with dr. Reported: medians, GB/s, % of
the copy and triad probes run around the case, and the speed-up over torch.
Every case is first checked against a float64 reference on sampled rows.

    python bench/bench_rotary_position_embedding_grad.py [--reps R] [--threads N] [--dtypes fp32,fp16,bf16]
                                                         [--cases 1,2,3,i] [--no-torch] [--stream-mib M]

Speed is reported, never asserted. Results and commands: docs/benchmarks.md.
"""

import argparse
import os
import platform
import sys

import numpy as np

import aclnn_emu
from aclnn_emu import ffi, lib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_silu_backward import (  # noqa: E402  (shared probe, load and timing helpers)
    BF16,
    Probe,
    _load_between,
    _load_now,
    import_torch,
    median,
    timed,
    to_torch,
    wait_for_quiet,
)

DTYPES = {"fp32": np.dtype(np.float32), "fp16": np.dtype(np.float16), "bf16": BF16}
ACL = {"fp32": lib.ACL_FLOAT, "fp16": lib.ACL_FLOAT16, "bf16": lib.ACL_BF16}
TOLERANCE = {"fp32": 1e-5, "fp16": 2e-3, "bf16": 1.6e-2}
CASES = {
    "1": ("case1 half", 0, (2, 8192, 5, 128), (1, 8192, 1, 128)),
    "2": ("case2 half", 0, (8192, 2, 5, 128), (8192, 1, 1, 128)),
    "3": ("case3 half", 0, (2048, 4, 32, 64), (2048, 4, 1, 64)),
    "i": ("interleave BSND", 1, (4, 4096, 32, 128), (1, 4096, 1, 128)),
}


def fill(arr, seed):
    rng = np.random.default_rng(seed)
    block = rng.uniform(-1, 1, min(arr.size, 1 << 20)).astype(np.float32).astype(arr.dtype)
    flat = arr.reshape(-1)
    for at in range(0, flat.size, block.size):
        n = min(block.size, flat.size - at)
        flat[at:at + n] = block[:n]


class Device:
    """A device copy of a host array (aclrtMalloc + aclrtMemcpy) and its contiguous aclTensor."""

    def __init__(self, arr, code):
        self.arr = arr
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, arr.nbytes, 0) == 0, ffi.string(lib.aclGetRecentErrMsg())
        self.ptr = p[0]
        assert lib.aclrtMemcpy(self.ptr, arr.nbytes, ffi.from_buffer(arr), arr.nbytes, 1) == 0
        dims = ffi.new("int64_t[]", arr.shape)
        self.tensor = lib.aclCreateTensor(dims, arr.ndim, code, ffi.NULL, 0, lib.ACL_FORMAT_ND, dims, arr.ndim,
                                          self.ptr)
        assert self.tensor != ffi.NULL

    def read(self):
        """The device contents, copied back into the host array."""
        dst = ffi.from_buffer(self.arr, require_writable=True)
        assert lib.aclrtMemcpy(dst, self.arr.nbytes, self.ptr, self.arr.nbytes, 2) == 0
        return self.arr

    def close(self):
        lib.aclDestroyTensor(self.tensor)
        lib.aclrtFree(self.ptr)


def check(dy, x, r1, r2, dx, dr1, dr2, mode, tol):
    """Sampled rows of dx (and the whole of dr1/dr2 on a few cos rows) against float64."""
    d = dy.shape[-1]
    rows = dy.reshape(-1, d)
    rng = np.random.default_rng(1)
    cosb = np.broadcast_to(r1, dy.shape).reshape(-1, d)
    sinb = np.broadcast_to(r2, dy.shape).reshape(-1, d)
    worst = 0.0
    for r in rng.integers(0, rows.shape[0], 64):
        g, c, s = (a[r].astype(np.float64) for a in (rows, cosb, sinb))
        if mode == 0:
            h = d // 2
            want = np.concatenate([c[:h] * g[:h] + s[h:] * g[h:], c[h:] * g[h:] - s[:h] * g[:h]])
        else:
            want = np.empty(d)
            want[0::2] = c[0::2] * g[0::2] + s[1::2] * g[1::2]
            want[1::2] = c[1::2] * g[1::2] - s[0::2] * g[0::2]
        got = dx.reshape(-1, d)[r].astype(np.float64)
        worst = max(worst, np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
    if x is not None:
        axes = tuple(i for i in range(4) if r1.shape[i] == 1 and dy.shape[i] != 1)
        sl = tuple(slice(None) if i in axes or i == 3 else slice(0, 2) for i in range(4))
        g64, x64 = dy[sl].astype(np.float64), x[sl].astype(np.float64)
        if mode == 0:
            h = d // 2
            rot = np.concatenate([-x64[..., h:], x64[..., :h]], -1)
        else:
            rot = np.empty_like(x64)
            rot[..., 0::2], rot[..., 1::2] = -x64[..., 1::2], x64[..., 0::2]
        for got, want in ((dr1, (g64 * x64).sum(axes, keepdims=True)), (dr2, (g64 * rot).sum(axes, keepdims=True))):
            part = got[tuple(slice(0, w) for w in want.shape)].astype(np.float64)
            worst = max(worst, np.max(np.abs(part - want)) / (np.max(np.abs(want)) + 1e-30))
    return worst <= tol, worst


def torch_contender(torch, mode, dy, x, r1, r2, with_dr):
    tdy, tx, t1, t2 = (to_torch(torch, a) for a in (dy, x, r1, r2))
    tx = tx.detach().requires_grad_(True)
    t1 = t1.detach().requires_grad_(with_dr)
    t2 = t2.detach().requires_grad_(with_dr)
    if mode == 0:
        x1, x2 = torch.chunk(tx, 2, -1)
        rot = torch.cat((-x2, x1), -1)
    else:
        rot = torch.stack((-tx[..., 1::2], tx[..., 0::2]), -1).reshape(tx.shape)
    y = t1 * tx + t2 * rot
    inputs = (tx, t1, t2) if with_dr else (tx,)
    return lambda: torch.autograd.grad(y, inputs, tdy, retain_graph=True)


def run_case(args, probe, threads, torch, key, dname, with_dr):
    label, mode, xs, rs = CASES[key]
    dt = DTYPES[dname]
    dy, x, dx = np.empty(xs, dt), np.empty(xs, dt), np.zeros(xs, dt)
    r1, r2, dr1, dr2 = np.empty(rs, dt), np.empty(rs, dt), np.zeros(rs, dt), np.zeros(rs, dt)
    for i, a in enumerate((dy, x, r1, r2)):
        fill(a, i + 1)
    item = dt.itemsize
    useful = (2 * dy.size + 2 * r1.size) * item + ((dy.size + 2 * r1.size) * item if with_dr else 0)
    code = ACL[dname]
    devices = [Device(a, code) for a in (dy, r1, r2, x, dx, dr1, dr2)]
    hdy, h1, h2, hx, hdx, hd1, hd2 = (dev.tensor for dev in devices)
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")

    def c_call():
        rc = lib.aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(hdy, h1, h2, hx if with_dr else ffi.NULL, mode,
                                                                  hdx, hd1, hd2, ws, ex)
        assert rc == 0, ffi.string(lib.aclGetRecentErrMsg())
        assert ws[0] == 0
        assert lib.aclnnRotaryPositionEmbeddingGrad(ffi.NULL, 0, ex[0], ffi.NULL) == 0

    def py_call():
        return aclnn_emu.rotary_position_embedding_grad(dy, r1, r2, x if with_dr else None, mode)

    contenders = [("aclnn_emu C", c_call), ("aclnn_emu py", py_call)]
    if torch is not None:
        contenders.append(("torch autograd", torch_contender(torch, mode, dy, x, r1, r2, with_dr)))
    c_call()
    kernel = aclnn_emu.last_kernel()
    dx, dr1, dr2 = (dev.read() for dev in devices[4:])
    ok, err = check(dy, x if with_dr else None, r1, r2, dx, dr1, dr2, mode, TOLERANCE[dname])
    times = {name: [] for name, _ in contenders}
    copy, triad = [], []
    for name, fn in contenders:  # warm-up
        fn()
    wait_for_quiet(args.quiet_wait)
    load0 = _load_now()
    for _ in range(args.reps):
        copy.append(probe.run(Probe.COPY, threads))
        for name, fn in contenders:
            times[name].append(timed(fn))
        triad.append(probe.run(Probe.TRIAD, threads))
    others, steal = _load_between(load0, _load_now())
    for dev in devices:
        dev.close()
    med = {k: median(v) for k, v in times.items()}
    return {"label": label, "shape": xs, "dtype": dname, "dr": with_dr, "useful": useful, "ok": ok, "err": err,
            "ms": {k: 1e3 * v for k, v in med.items()}, "gbs": {k: useful / v / 1e9 for k, v in med.items()},
            "copy": median(copy), "triad": median(triad), "kernel": kernel, "others": others, "steal": steal}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--threads", type=int, default=0, help="library and probe threads (0: all usable cores)")
    p.add_argument("--dtypes", default="fp32,fp16,bf16")
    p.add_argument("--cases", default="1,2,3,i")
    p.add_argument("--stream-mib", type=int, default=256)
    p.add_argument("--quiet-wait", type=float, default=3.0)
    p.add_argument("--no-torch", action="store_true")
    args = p.parse_args(argv)
    aclnn_emu.set_num_threads(args.threads)
    threads = aclnn_emu.get_num_threads()
    torch, torch_note = import_torch(not args.no_torch)
    if torch is not None:
        torch.set_num_threads(threads)
    probe = Probe(args.stream_mib, threads)
    print("# aclnnRotaryPositionEmbeddingGrad benchmark: %s, %d thread(s), isa %s, torch %s, probe %s" % (
        platform.machine(), threads, aclnn_emu.get_isa(), torch_note, probe.how if probe.available else "none"))
    print("| case | shape | dtype | dr | C ms | C GB/s | % copy | % triad | py ms | torch ms | C vs torch | "
          "check | other load | kernel |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|")
    failures = 0
    for key in args.cases.split(","):
        for dname in args.dtypes.split(","):
            for with_dr in (True, False):
                r = run_case(args, probe, threads, torch, key, dname, with_dr)
                failures += not r["ok"]
                c_ms, c_gbs = r["ms"]["aclnn_emu C"], r["gbs"]["aclnn_emu C"]
                t_ms = r["ms"].get("torch autograd", float("nan"))
                print("| %s | %s | %s | %s | %.2f | %.1f | %.0f%% | %.0f%% | %.2f | %.1f | %.1fx | %s %.1e | %.2f | %s |" % (
                    r["label"], "x".join(map(str, r["shape"])), dname, "yes" if r["dr"] else "no", c_ms, c_gbs,
                    100 * c_gbs / r["copy"], 100 * c_gbs / r["triad"], r["ms"]["aclnn_emu py"], t_ms,
                    t_ms / c_ms, "ok" if r["ok"] else "FAIL", r["err"], r["others"], r["kernel"]), flush=True)
    probe.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
