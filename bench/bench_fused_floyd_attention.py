#!/usr/bin/env python3
"""aclnn_emu.fused_floyd_attention(_grad) against PyTorch autograd, in one process.

For each shape B x H x N x M x K x D and dtype it times (medians reported):

* the fp32 FMA peak: ``bench/fma_probe.c`` compiled here with cffi, run with
  the library's thread count right before the case;
  (our repetitions run first, then PyTorch's, whose OpenMP workers keep
  spinning after each call);
* ``aclnn_emu.fused_floyd_attention_grad`` on numpy arrays (cached plan), the
  forward's outputs as its inputs, and ``aclnn_emu.fused_floyd_attention``;
* PyTorch: the same forward written with einsum (S = scale*(QK1^T + QK2^T)
  batched over n and over m, softmax, PV1 + PV2) in the same dtype, and its
  autograd backward - what a PyTorch user would write. The two are timed
  apart, as ours are: the backward is ``torch.autograd.grad`` of out with
  grad dy on one recorded graph (``retain_graph=True``), so its time holds
  no forward; the forward is the recorded forward alone. ("x torch" compares
  backward with backward and forward with forward.)

GFLOP/s count 16*B*H*N*M*K*D flops for the backward (four products at 2 flops per multiply-add)
and 8*B*H*N*M*K*D for the forward. Results are checked against each other
(relative to the size of the gradients) before timing.

    python bench/bench_fused_floyd_attention.py [--threads N] [--reps R] [--dtypes fp32,bf16,fp16]
                                               [--shapes 1x1x256x256x256x128,1x2x64x128x128x64] [--no-torch]

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
DTYPES = {"fp32": np.dtype(np.float32), "bf16": BF16, "fp16": np.dtype(np.float16)}


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


def torch_forward(torch, tensors, scale):
    """The forward as a PyTorch user writes it; with tensors that require grad it records the graph."""
    q, k1, v1, k2, v2 = tensors
    s = scale * (torch.einsum("bhnmd,bhnkd->bhnmk", q, k1) + torch.einsum("bhnmd,bhkmd->bhnmk", q, k2))
    p = torch.softmax(s, dim=-1)
    return torch.einsum("bhnmk,bhnkd->bhnmd", p, v1) + torch.einsum("bhnmk,bhkmd->bhnmd", p, v2)


def torch_backward(torch, out, tensors, dy):
    """Only the backward: the graph of ``out`` is kept for the next repetition."""
    return torch.autograd.grad(out, tensors, dy, retain_graph=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dtypes", default="fp32,bf16,fp16")
    ap.add_argument("--shapes", default="1x1x256x256x256x128,1x2x64x128x128x64")
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
    print("Floyd attention: %d thread(s), ISA %s, kernel FMA probe %s, torch %s, %d rep(s), medians"
          % (threads, aclnn_emu.get_isa(), probe.ffi.string(probe.lib.fma_probe_isa()).decode() if probe else "n/a",
             torch.__version__ if torch else "n/a", args.reps))
    print("%-22s %-5s %8s | %9s %8s %6s | %9s %8s | %8s %7s | %9s %6s | %9s %8s" % (
        "B x H x N x M x K x D", "dtype", "peak", "bwd ms", "GFLOP/s", "%peak", "torch bwd", "GFLOP/s", "x torch",
        "check", "fwd ms", "%peak", "torch fwd", "x torch"))
    for text in args.shapes.split(","):
        B, H, N, M, K, D = map(int, text.split("x"))
        flops = float(B * H * N * M * K * D)
        scale = 1.0 / np.sqrt(D)
        for name in args.dtypes.split(","):
            dt = DTYPES[name]
            rng = np.random.default_rng(0)
            shapes = [(B, H, N, M, D), (B, H, N, K, D), (B, H, N, K, D), (B, H, K, M, D), (B, H, K, M, D)]
            arrays = [rng.uniform(-1, 1, s).astype(dt) for s in shapes]
            dy = rng.uniform(-1, 1, shapes[0]).astype(dt)
            out, smax, ssum = aclnn_emu.fused_floyd_attention(*arrays, None, scale)
            grads = aclnn_emu.fused_floyd_attention_grad(*arrays, dy, None, smax, ssum, out, scale)
            peak = probe.lib.fma_probe_gflops(threads, 0.2, 3) if probe else float("nan")
            ours, fwd, theirs, theirs_fwd = [], [], [], []
            if torch is not None:
                tdt = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[name]
                tt = [torch.from_numpy(a.astype(np.float32)).to(tdt).requires_grad_() for a in arrays]
                tdy = torch.from_numpy(dy.astype(np.float32)).to(tdt)
                tout = torch_forward(torch, tt, scale)
                ref = torch_backward(torch, tout, tt, tdy)
                worst = 0.0
                for g, r in zip(grads, ref):
                    r = r.float().numpy()
                    worst = max(worst, float(np.abs(g.astype(np.float32) - r).max() / (np.abs(r).max() + 1e-30)))
                del ref
                time.sleep(0.5)  # the check just ran PyTorch: let its workers stop spinning first
            # Ours first, then PyTorch: its OpenMP workers spin for a while after each call and
            # would take the cores from the next timed call if the two were interleaved.
            for _ in range(args.reps):
                t0 = time.perf_counter()
                aclnn_emu.fused_floyd_attention_grad(*arrays, dy, None, smax, ssum, out, scale)
                ours.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                aclnn_emu.fused_floyd_attention(*arrays, None, scale)
                fwd.append(time.perf_counter() - t0)
            for _ in range(args.reps if torch is not None else 0):
                t0 = time.perf_counter()
                torch_backward(torch, tout, tt, tdy)
                theirs.append(time.perf_counter() - t0)
            for _ in range(args.reps if torch is not None else 0):
                t0 = time.perf_counter()
                extra = torch_forward(torch, tt, scale)
                theirs_fwd.append(time.perf_counter() - t0)
                del extra
            time.sleep(0.5)  # let PyTorch's workers go idle before the next case's probe
            b = statistics.median(ours)
            f = statistics.median(fwd)
            t = statistics.median(theirs) if theirs else float("nan")
            tf = statistics.median(theirs_fwd) if theirs_fwd else float("nan")
            print("%-22s %-5s %8.1f | %9.1f %8.1f %5.1f%% | %9.1f %8.1f | %7.2fx %7.1e | %9.1f %5.1f%% | %9.1f %7.2fx" % (
                text, name, peak, 1e3 * b, 16 * flops / b / 1e9, 100 * 16 * flops / b / 1e9 / peak, 1e3 * t,
                16 * flops / t / 1e9, t / b, worst if torch is not None else float("nan"), 1e3 * f,
                100 * 8 * flops / f / 1e9 / peak, 1e3 * tf, tf / f), flush=True)
            tt = tdy = tout = None

if __name__ == "__main__":
    main()
