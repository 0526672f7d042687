#!/usr/bin/env python3
"""aclnnMoeTokenPermuteGrad and aclnnMoeTokenPermute against the machine's
memory bandwidth and PyTorch, in one process.

For each hidden size and dtype (T tokens, topk experts each, every slot kept)
it interleaves, repetition by repetition: the STREAM-like probe of
``bench/stream_probe.c`` (copy and triad, same thread count), the aclnn phase 2
of a repeatable executor on aclrtMalloc memory, and, when ``import torch``
works, PyTorch CPU formulations with preallocated outputs where torch has them:

* grad: ``index_select(g, 0, idx, out=buf)`` then ``buf.view(T,k,H).sum(1, out=out)``
  (the definition), the same allocating (as usually written), and
  ``out.zero_(); out.index_add_(0, token_of_row, g)`` (scatter: torch's fastest);
* forward: ``first = argsort(ids, stable)``, ``argsort(first)``,
  ``index_select(tokens, 0, first // k, out=perm)``.

Bytes counted (no write-allocate, as STREAM): grad = the T*k gathered rows
read once + the output written once + the int32 indices; forward = the T*k
token rows read + the T*k permuted rows written + ids read + sortedIndicesOut
written. Reported: median ms, GB/s, % of the copy and triad probes measured
in the same run, and torch's time over ours.

    python bench/bench_moe_token_permute.py [--threads N] [--reps R] [--tokens 8192] [--topk 8]
                                            [--hidden 4096,7168] [--dtypes bf16,fp32] [--no-torch]

Speed is reported, never asserted. Results and commands: docs/benchmarks.md.
"""

import argparse
import os
import sys

import numpy as np

import aclnn_emu
from aclnn_emu import ffi, lib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_silu_backward import BF16, Probe, import_torch, median, timed, to_torch, wait_for_quiet  # noqa: E402

DTYPES = {"fp32": (np.dtype(np.float32), lib.ACL_FLOAT), "bf16": (BF16, lib.ACL_BF16)}


def fill(arr, rng):
    """Uniform values in [-1, 1), row block by row block (no full-size float64 temporary)."""
    flat = arr.reshape(arr.shape[0], -1)
    for start in range(0, flat.shape[0], 1024):
        block = flat[start:start + 1024]
        block[...] = rng.uniform(-1, 1, block.shape).astype(np.float32).astype(arr.dtype)


class DeviceArray:
    """An aclrtMalloc block holding a copy of a numpy array, and its aclTensor."""

    def __init__(self, shape, dtype, code):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        nbytes = int(np.prod(self.shape)) * self.dtype.itemsize
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, max(nbytes, 1), 0) == 0
        self.ptr = p[0]
        # Emulated device memory is host memory: a numpy view of it fills it and
        # hands the same bytes to torch, with no second copy of a large tensor.
        self.host = np.frombuffer(ffi.buffer(self.ptr, nbytes), self.dtype).reshape(self.shape)
        dims = ffi.new("int64_t[]", list(self.shape))
        self.tensor = lib.aclCreateTensor(dims, len(self.shape), code, ffi.NULL, 0, lib.ACL_FORMAT_ND, dims,
                                          len(self.shape), self.ptr)

    @classmethod
    def of(cls, host, code):
        a = cls(host.shape, host.dtype, code)
        a.host[...] = host
        return a

    def read(self):
        return self.host.copy()

    def close(self):
        self.host = None
        lib.aclDestroyTensor(self.tensor)
        lib.aclrtFree(self.ptr)


class Planned:
    """Phase 1 once (repeatable executor); calling it runs phase 2 only."""

    def __init__(self, get_ws, run, *args):
        ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        rc = get_ws(*args, ws, ex)
        assert rc == 0, ffi.string(lib.aclGetRecentErrMsg())
        assert lib.aclSetAclOpExecutorRepeatable(ex[0]) == 0
        self.exe, self.size, self.run_fn = ex[0], ws[0], run
        self.work = ffi.NULL
        if self.size:
            p = ffi.new("void **")
            assert lib.aclrtMalloc(p, self.size, 0) == 0
            self.work = p[0]

    def __call__(self):
        assert self.run_fn(self.work, self.size, self.exe, ffi.NULL) == 0

    def close(self):
        lib.aclDestroyAclOpExecutor(self.exe)
        if self.work != ffi.NULL:
            lib.aclrtFree(self.work)


def bandwidth_case(args, probe, threads, label, useful_bytes, contenders):
    times = {name: [] for name, _ in contenders}
    copy, triad = [], []
    for _, fn in contenders:
        fn()  # warm-up
    wait_for_quiet(args.quiet_wait)
    for _ in range(args.reps):
        copy.append(probe.run(Probe.COPY, threads))
        for name, fn in contenders:
            times[name].append(timed(fn))
        triad.append(probe.run(Probe.TRIAD, threads))
    c, t = median(copy), median(triad)
    ours = median(times[contenders[0][0]])
    print("\n%s: %.0f MB moved; probe copy %.1f GB/s, triad %.1f GB/s" % (label, useful_bytes / 1e6, c, t))
    print("  %-34s %9s %8s %8s %8s %10s" % ("contender", "ms", "GB/s", "%copy", "%triad", "x aclnn"))
    for name, _ in contenders:
        ms = median(times[name]) * 1e3
        gbs = useful_bytes / (ms * 1e-3) / 1e9
        print("  %-34s %9.2f %8.2f %7.0f%% %7.0f%% %10.2f" % (name, ms, gbs, 100 * gbs / c, 100 * gbs / t,
                                                              median(times[name]) / ours))
    return ours


def run(args):
    torch, torch_info = import_torch(not args.no_torch)
    threads = args.threads or os.cpu_count()
    assert lib.aclnnEmuSetNumThreads(threads) == 0
    if torch is not None:
        torch.set_num_threads(threads)
    probe = Probe(args.stream_mib, threads)
    print("aclnn_emu %s, isa %s, %d thread(s); torch %s; probe %s" % (
        aclnn_emu.__version__, aclnn_emu.get_isa(), threads, torch_info, probe.how))
    T, k = args.tokens, args.topk
    rng = np.random.default_rng(1)
    experts = 64
    ids = np.argsort(rng.random((T, experts)), axis=1)[:, :k].astype(np.int32)
    first = np.argsort(ids.reshape(-1), kind="stable")
    sorted_idx = np.argsort(first, kind="stable").astype(np.int32)
    for hidden in args.hidden:
        for dname in args.dtypes:
            dtype, code = DTYPES[dname]
            item = dtype.itemsize
            # ---------------------------------------------------------- grad
            g = DeviceArray((T * k, hidden), dtype, code)
            fill(g.host, rng)
            g_host = g.host
            idx = DeviceArray.of(sorted_idx, lib.ACL_INT32)
            out = DeviceArray((T, hidden), dtype, code)
            out.host[...] = 0
            grad = Planned(lib.aclnnMoeTokenPermuteGradGetWorkspaceSize, lib.aclnnMoeTokenPermuteGrad, g.tensor,
                           idx.tensor, k, False, out.tensor)
            grad()
            check = rng.integers(0, T, 64)
            got = out.read()[check].astype(np.float64)
            want = g_host.astype(np.float64)[sorted_idx.reshape(T, k)[check]].sum(1)
            err = float(np.max(np.abs(got - want) / (np.abs(want) + 1e-2)))
            print("\n[%s H=%d] grad kernel %s, sampled max rel. error %.2g, workspace %d B" % (
                dname, hidden, aclnn_emu.last_kernel(), err, grad.size))
            contenders = [("aclnn grad (phase 2)", grad)]
            if torch is not None:
                tg = to_torch(torch, g_host)
                tidx = torch.from_numpy(sorted_idx.astype(np.int64))
                tbuf = torch.empty_like(tg)
                tout = torch.empty((T, hidden), dtype=tg.dtype)
                rows_token = torch.from_numpy((first // k).astype(np.int64))
                contenders += [
                    ("torch index_select+sum out=", lambda: torch.sum(
                        torch.index_select(tg, 0, tidx, out=tbuf).view(T, k, hidden), 1, out=tout)),
                    ("torch index_select+sum alloc", lambda: tg.index_select(0, tidx).view(T, k, hidden).sum(1)),
                    ("torch zero_+index_add_ (scatter)", lambda: tout.zero_().index_add_(0, rows_token, tg)),
                ]
            useful = (T * k * hidden + T * hidden) * item + T * k * 4
            bandwidth_case(args, probe, threads, "MoeTokenPermuteGrad T=%d k=%d H=%d %s" % (T, k, hidden, dname),
                           useful, contenders)
            grad.close()
            del g_host, contenders
            for a in (g, idx, out):
                a.close()
            # ---------------------------------------------------------- forward
            x = DeviceArray((T, hidden), dtype, code)
            fill(x.host, rng)
            x_host = x.host
            tid = DeviceArray.of(ids, lib.ACL_INT32)
            perm = DeviceArray((T * k, hidden), dtype, code)
            perm.host[...] = 0
            sout = DeviceArray.of(np.zeros(T * k, np.int32), lib.ACL_INT32)
            fwd = Planned(lib.aclnnMoeTokenPermuteGetWorkspaceSize, lib.aclnnMoeTokenPermute, x.tensor, tid.tensor, 0,
                          False, perm.tensor, sout.tensor)
            fwd()
            assert np.array_equal(sout.read(), sorted_idx)
            rows = rng.integers(0, T * k, 64)
            assert np.array_equal(perm.read()[rows].view(np.uint8), x_host[first[rows] // k].view(np.uint8))
            print("\n[%s H=%d] forward kernel %s, checked, workspace %d B" % (dname, hidden, aclnn_emu.last_kernel(),
                                                                            fwd.size))
            contenders = [("aclnn permute (phase 2)", fwd)]
            if torch is not None:
                tx = to_torch(torch, x_host)
                tids = torch.from_numpy(ids.reshape(-1))
                tperm = torch.empty((T * k, hidden), dtype=tx.dtype)

                def torch_forward():
                    f = torch.argsort(tids, stable=True)
                    torch.argsort(f, stable=True)
                    torch.index_select(tx, 0, torch.div(f, k, rounding_mode="floor"), out=tperm)

                contenders.append(("torch argsort x2+index_select out=", torch_forward))
            useful = 2 * T * k * hidden * item + 2 * T * k * 4
            bandwidth_case(args, probe, threads, "MoeTokenPermute T=%d k=%d H=%d %s" % (T, k, hidden, dname), useful,
                           contenders)
            fwd.close()
            del x_host, contenders
            for a in (x, tid, perm, sout):
                a.close()
    probe.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=0, help="threads for aclnn, torch and the probe (0: all cores)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--topk", type=int, default=8)
    ap.add_argument("--hidden", type=lambda s: [int(v) for v in s.split(",")], default=[4096, 7168])
    ap.add_argument("--dtypes", type=lambda s: s.split(","), default=["bf16", "fp32"])
    ap.add_argument("--stream-mib", type=int, default=512)
    ap.add_argument("--quiet-wait", type=float, default=10.0)
    ap.add_argument("--no-torch", action="store_true")
    run(ap.parse_args())


if __name__ == "__main__":
    main()
