#!/usr/bin/env python3
"""aclnnMm against the FMA peak and against PyTorch CPU, in one process.

Two parts, medians of --reps timed calls after one untimed call:

* fp32 N x N x N (default 2048^3): aclnnMm with cubeMathType 0 (KEEP_DTYPE,
  a true fp32 product) against ``bench/fma_probe.c`` compiled here with cffi
  and run with the library's thread count right before the case ("%peak" is
  our median GFLOP/s over the probe's, "best %pk" our fastest call's), and
  torch.matmul(out=) on the same arrays.
* ggml-like shapes: a 4096 x 4096 weight W (row-major, as a model stores it)
  times T tokens x (T x 4096), out = x @ W^T (mat2 is the transposed view of
  W, as ggml-cann passes it), in fp32, fp16 and bf16 (inputs and out of that
  dtype, cubeMathType 0: fp16 and bf16 are widened to fp32, summed in fp32 and
  rounded once), against torch.matmul(x, W.t(), out=out) in the same dtype.

Our calls go through aclnn_emu.run (phase 1 and phase 2, workspace from the
device cache). Our repetitions run first, then PyTorch's: its OpenMP workers
keep spinning for a while after each call and would take the cores from the
next timed call if the two were interleaved. "check" is the largest
difference between the two results relative to the largest |value|.

    python bench/bench_matmul.py [--threads N] [--reps R] [--size 2048] [--tokens 1,16,128,512]
                                 [--dtypes fp32,fp16,bf16] [--no-torch]

Speed is reported, never asserted. Results and commands: docs/benchmarks.md.
"""

import argparse
import importlib.util
import os
import shutil
import statistics
import tempfile
import time

import numpy as np

import aclnn_emu

try:
    import ml_dtypes

    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    BF16 = None

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {"fp32": np.dtype(np.float32), "fp16": np.dtype(np.float16), "bf16": BF16}


def build_fma_probe():
    """Compile fma_probe.c with cffi into a temp dir; None if that fails."""
    try:
        import cffi
    except ImportError:
        return None
    ffi = cffi.FFI()
    ffi.cdef("double fma_probe_gflops(int threads, double seconds, int tries); const char *fma_probe_isa(void);")
    tmp = tempfile.mkdtemp(prefix="aclnn_emu_fma_")
    ffi.set_source("_aclnn_emu_fma_probe", '#include "fma_probe.h"', sources=[os.path.join(HERE, "fma_probe.c")],
                   include_dirs=[HERE], define_macros=[("_GNU_SOURCE", "1")],
                   extra_compile_args=["-O2", "-std=c11", "-pthread"], extra_link_args=["-pthread", "-lm"])
    try:
        path = ffi.compile(tmpdir=tmp, verbose=False)
        spec = importlib.util.spec_from_file_location("_aclnn_emu_fma_probe", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    except Exception:
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def timed(fn, reps):
    """(median, best) seconds of reps calls after an untimed one."""
    fn()  # plan, first touch of the output, workspace from the device cache
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def torch_dtype(torch, name):
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[name]


def case(label, name, a, b, out, flops, reps, torch, peak):
    """Times ours then PyTorch's on a @ b; prints one row."""
    ours, best = timed(lambda: aclnn_emu.run("aclnnMm", self=a, mat2=b, out=out, cubeMathType=0), reps)
    theirs, check = float("nan"), float("nan")
    if torch is not None:
        ta = torch.from_numpy(a.astype(np.float32)).to(torch_dtype(torch, name))
        tb = torch.from_numpy(np.ascontiguousarray(b.T).astype(np.float32)).to(torch_dtype(torch, name)).t()
        tout = torch.empty(out.shape, dtype=torch_dtype(torch, name))
        # PyTorch's fp16 matmul can take seconds per call: fewer repetitions when it does.
        t0 = time.perf_counter()
        torch.matmul(ta, tb, out=tout)
        first = time.perf_counter() - t0
        treps = reps if first < 1.0 else 1
        times = []
        for _ in range(treps):
            t0 = time.perf_counter()
            torch.matmul(ta, tb, out=tout)
            times.append(time.perf_counter() - t0)
        theirs = statistics.median(times)
        ref = tout.float().numpy()
        check = float(np.abs(out.astype(np.float32) - ref).max() / (np.abs(ref).max() + 1e-30))
        time.sleep(0.5)  # let PyTorch's workers go idle before the next case's probe
    gf, gf_best = flops / ours / 1e9, flops / best / 1e9
    print("%-24s %-5s %7.1f | %9.2f %8.1f %6.1f%% %7.1f%% | %9.2f %8.1f | %7.2fx %8.1e" % (
        label, name, peak, 1e3 * ours, gf, 100 * gf / peak, 100 * gf_best / peak, 1e3 * theirs,
        flops / theirs / 1e9, theirs / ours, check), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--tokens", default="1,16,128,512")
    ap.add_argument("--dtypes", default="fp32,fp16,bf16")
    ap.add_argument("--no-torch", action="store_true")
    args = ap.parse_args()
    if args.threads:
        aclnn_emu.set_num_threads(args.threads)
    threads = aclnn_emu.get_num_threads()
    torch = None
    if not args.no_torch:
        try:
            import torch

            torch.set_num_threads(threads)
        except ImportError:
            torch = None
    probe = build_fma_probe()
    print("matmul: %d thread(s), ISA %s, FMA probe %s, torch %s, %d rep(s), medians"
          % (threads, aclnn_emu.get_isa(), probe.ffi.string(probe.lib.fma_probe_isa()).decode() if probe else "n/a",
             torch.__version__ if torch else "n/a", args.reps))
    print("%-24s %-5s %7s | %9s %8s %7s %8s | %9s %8s | %8s %8s" % (
        "m x n x k", "dtype", "peak", "ours ms", "GFLOP/s", "%peak", "best %pk", "torch ms", "GFLOP/s", "x torch",
        "check"))
    rng = np.random.default_rng(0)

    def peak():
        return probe.lib.fma_probe_gflops(threads, 0.2, 3) if probe else float("nan")

    n = args.size
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    out = np.empty((n, n), np.float32)
    case("%dx%dx%d" % (n, n, n), "fp32", a, b, out, 2.0 * n * n * n, args.reps, torch, peak())
    del a, b, out

    hidden = 4096
    for name in args.dtypes.split(","):
        dt = DTYPES[name]
        w = rng.uniform(-1, 1, (hidden, hidden)).astype(dt)  # [out features, in features]
        for t in map(int, args.tokens.split(",")):
            x = rng.uniform(-1, 1, (t, hidden)).astype(dt)
            out = np.empty((t, hidden), dt)
            case("%dx%dx%d (x @ W^T)" % (t, hidden, hidden), name, x, w.T, out, 2.0 * t * hidden * hidden,
                 args.reps, torch, peak())


if __name__ == "__main__":
    main()
