#!/usr/bin/env python3
"""The element-wise operator layer against the copy probe and PyTorch CPU, in one process.

One row per operator family and dtype, on large tensors (64M elements by
default): unary (Exp, Gelu), binary with broadcasting (Add of [N/1024,1024] +
[1024]), binary on two full tensors (Mul), Cast fp32 -> fp16 and fp16 -> fp32,
and InplaceCopy of a transposed view ([S,S].T into a contiguous [S,S],
S = sqrt(N)). For each row it interleaves, repetition by repetition:

* the copy probe of ``bench/stream_probe.c`` (own pthreads, same thread count,
  ordinary stores), then the triad probe;
* ``aclnn_emu.run("aclnn<Op>", ..., out=out)`` (the generic numpy path: phase 1,
  phase 2, synchronize; its per-call Python overhead, tens of microseconds, is
  negligible at this size);
* when ``import torch`` works, PyTorch CPU doing the same into a preallocated
  output, on the same memory (zero-copy ``torch.from_numpy`` views):
  ``torch.exp(x, out=o)``, ``torch.ops.aten.gelu.out(x, approximate='tanh', out=o)``
  (``torch.nn.functional.gelu`` has no ``out=``; this is the aten overload it
  dispatches to), ``torch.add(a, b, out=o)``, ``torch.mul(a, b, out=o)``,
  ``o.copy_(x)`` for a cast and ``o.copy_(x.T)`` for the transpose.

Every timing is the best of --reps repetitions (default 3); "% of copy" divides
the operator's GB/s at its best time by the best copy probe of the same row.
Bytes counted STREAM-style, without write-allocate: every input element read
once (the broadcast [1024] operand once) and every output element written once.
Each row is first checked against a float64 reference on sampled elements
(the error is relative to the reference; PyTorch's tanh-form GELU loses the tiny
negative tail to cancellation, hence its error of 1 there).

    python bench/bench_elementwise.py [--threads N] [--reps R] [--size 64M] [--dtypes fp32,fp16,bf16]
                                      [--ops exp,gelu,add,mul,cast,transpose] [--no-torch]

Extra families for diagnosis, off by default: gelu_erf (aclnnGeluV2 approximate=0,
an erfc body), tanh, sin (libm bodies), cast_bf16 (fp32 <-> bf16).
Speed is reported, never asserted. Results and commands: docs/benchmarks.md.
"""

import argparse
import gc
import math
import os
import platform
import sys

import numpy as np

import aclnn_emu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_silu_backward import (  # noqa: E402  (shared probe, load and timing helpers)
    BF16,
    Probe,
    _load_between,
    _load_now,
    fill,
    import_torch,
    timed,
    to_torch,
    wait_for_quiet,
)

DTYPES = {"fp32": np.dtype(np.float32), "fp16": np.dtype(np.float16), "bf16": BF16}
DEFAULT_OPS = "exp,gelu,add,mul,cast,transpose"
EXTRA_OPS = ("gelu_erf", "tanh", "sin", "cast_bf16")
CHECK_SAMPLES = 4096
# Largest sampled error allowed, relative to max(|reference|, floor): the output type's rounding plus a few ulp.
TOLERANCE = {"fp32": 1e-5, "fp16": 1e-3, "bf16": 8e-3}
ERFC = np.vectorize(math.erfc, otypes=[np.float64])


def parse_size(text):
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    n = int(text[:-1] if text[-1:] in "KMG" else text) * scale
    if n < 1024 or n % 1024:
        raise argparse.ArgumentTypeError("--size must be a multiple of 1024 elements")
    return n


def name_of(dtype):
    return next(k for k, v in DTYPES.items() if v == dtype)


class Case:
    """One row: the arrays, the aclnn call, the torch call, the reference on samples."""

    def __init__(self, op, label, shape, in_dtype, out_dtype, useful, aclnn, torch_fn, torch_label, reference,
                 out, dtype_label):
        self.op, self.label, self.shape = op, label, shape
        self.in_dtype, self.out_dtype, self.useful = in_dtype, out_dtype, useful
        self.aclnn, self.torch_fn, self.torch_label = aclnn, torch_fn, torch_label
        self.reference, self.out, self.dtype_label = reference, out, dtype_label


def gelu_tanh64(v):
    return 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))


def make_cases(op, dtype, n, torch):
    """The Case objects of one family and dtype ([] where the family has no such dtype)."""
    cases = []
    s = math.isqrt(n)
    unary = {
        "exp": ("aclnnExp", {}, (-10.0, 10.0), np.exp,
                lambda t, x, o: t.exp(x, out=o), "torch.exp(x, out=o)"),
        "gelu": ("aclnnGelu", {}, (-6.0, 6.0), gelu_tanh64,
                 lambda t, x, o: t.ops.aten.gelu.out(x, approximate="tanh", out=o),
                 "aten.gelu.out(x, approximate='tanh', out=o)"),
        "gelu_erf": ("aclnnGeluV2", {"approximate": 0}, (-6.0, 6.0),
                     lambda v: 0.5 * v * ERFC(-v / math.sqrt(2.0)),
                     lambda t, x, o: t.ops.aten.gelu.out(x, approximate="none", out=o),
                     "aten.gelu.out(x, out=o)"),
        "tanh": ("aclnnTanh", {}, (-5.0, 5.0), np.tanh, lambda t, x, o: t.tanh(x, out=o), "torch.tanh(x, out=o)"),
        "sin": ("aclnnSin", {}, (-10.0, 10.0), np.sin, lambda t, x, o: t.sin(x, out=o), "torch.sin(x, out=o)"),
    }
    if op in unary:
        api, attrs, (lo, hi), ref, tfn, tlabel = unary[op]
        x = np.empty((n // 1024, 1024), dtype)
        out = np.empty_like(x)
        fill(x, lo, hi, 1)
        out.fill(0)
        names = ("x", "y") if api == "aclnnGeluV2" else ("self", "out")

        def aclnn():
            aclnn_emu.run(api, **{names[0]: x, names[1]: out}, **attrs)

        tcall = None
        if torch is not None:
            tx, to = to_torch(torch, x), to_torch(torch, out)
            tcall = lambda: tfn(torch, tx, to)  # noqa: E731
        label = {"aclnnGelu": "Gelu (tanh)", "aclnnGeluV2": "GeluV2 (erf)"}.get(api, api.replace("aclnn", ""))
        cases.append(Case(op, label, x.shape, dtype, dtype, 2.0 * x.nbytes, aclnn, tcall, tlabel,
                          lambda idx: ref(x.reshape(-1)[idx].astype(np.float64)), out, name_of(dtype)))
    elif op in ("add", "mul"):
        a = np.empty((n // 1024, 1024), dtype)
        b = np.empty((1024,) if op == "add" else a.shape, dtype)
        out = np.empty_like(a)
        fill(a, -4.0, 4.0, 2)
        fill(b, -4.0, 4.0, 3)
        out.fill(0)
        if op == "add":
            aclnn = lambda: aclnn_emu.run("aclnnAdd", self=a, other=b, alpha=1.0, out=out)  # noqa: E731
            ref = lambda idx: a.reshape(-1)[idx].astype(np.float64) + b[idx % 1024].astype(np.float64)  # noqa: E731
            label, tlabel, useful = "Add (broadcast [1024])", "torch.add(a, b, out=o)", 2.0 * a.nbytes + b.nbytes
        else:
            aclnn = lambda: aclnn_emu.run("aclnnMul", self=a, other=b, out=out)  # noqa: E731
            ref = lambda idx: a.reshape(-1)[idx].astype(np.float64) * b.reshape(-1)[idx].astype(np.float64)  # noqa: E731
            label, tlabel, useful = "Mul (same shape)", "torch.mul(a, b, out=o)", 3.0 * a.nbytes
        tcall = None
        if torch is not None:
            ta, tb, to = to_torch(torch, a), to_torch(torch, b), to_torch(torch, out)
            tfn = torch.add if op == "add" else torch.mul
            tcall = lambda: tfn(ta, tb, out=to)  # noqa: E731
        shape = "%s + [%d]" % (list(a.shape), b.shape[0]) if op == "add" else list(a.shape)
        cases.append(Case(op, label, shape, dtype, dtype, useful, aclnn, tcall, tlabel, ref, out, name_of(dtype)))
    elif op in ("cast", "cast_bf16"):
        if dtype != np.float32:
            return []
        half = np.dtype(np.float16) if op == "cast" else BF16
        for src_dt, dst_dt in ((np.dtype(np.float32), half), (half, np.dtype(np.float32))):
            x = np.empty((n // 1024, 1024), src_dt)
            out = np.empty(x.shape, dst_dt)
            fill(x, -100.0, 100.0, 4)
            out.fill(0)

            def aclnn(x=x, out=out, dst_dt=dst_dt):
                aclnn_emu.run("aclnnCast", self=x, dtype=dst_dt, out=out)

            tcall = None
            if torch is not None:
                tx, to = to_torch(torch, x), to_torch(torch, out)
                tcall = (lambda tx=tx, to=to: to.copy_(tx))
            label = "Cast %s->%s" % (name_of(src_dt), name_of(dst_dt))
            ref = (lambda idx, x=x, dst_dt=dst_dt: x.reshape(-1)[idx].astype(dst_dt).astype(np.float64))
            cases.append(Case(op, label, list(x.shape), src_dt, dst_dt, float(x.nbytes + out.nbytes), aclnn, tcall,
                              "o.copy_(x)", ref, out, "%s->%s" % (name_of(src_dt), name_of(dst_dt))))
    elif op == "transpose":
        x = np.empty((s, s), dtype)
        out = np.empty_like(x)
        fill(x, -4.0, 4.0, 5)
        out.fill(0)
        aclnn = lambda: aclnn_emu.run("aclnnInplaceCopy", selfRef=out, src=x.T)  # noqa: E731
        tcall = None
        if torch is not None:
            tx, to = to_torch(torch, x), to_torch(torch, out)
            tcall = lambda: to.copy_(tx.T)  # noqa: E731
        ref = lambda idx: x[idx % s, idx // s].astype(np.float64)  # noqa: E731
        cases.append(Case(op, "InplaceCopy (src = x.T)", "[%d,%d].T" % (s, s), dtype, dtype, 2.0 * x.nbytes, aclnn,
                          tcall, "o.copy_(x.T)", ref, out, name_of(dtype)))
    else:
        raise ValueError(op)
    return cases


def sampled_error(case, idx):
    want = case.reference(idx)
    got = case.out.reshape(-1)[idx].astype(np.float64)
    floor = 1e-3 if case.out.dtype != np.float32 else 1e-30
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), floor)))


def run_case(args, probe, threads, case):
    numel = case.out.size
    idx = np.random.default_rng(7).integers(0, numel, CHECK_SAMPLES)
    case.out.fill(0)
    case.aclnn()  # warm-up and check
    kernel = aclnn_emu.last_kernel()
    err = sampled_error(case, idx)
    contenders = [("aclnn", case.aclnn)]
    torch_err = float("nan")
    if case.torch_fn is not None:
        case.out.fill(0)
        case.torch_fn()
        torch_err = sampled_error(case, idx)
        contenders.append(("torch", case.torch_fn))
    times = {label: [] for label, _ in contenders}
    copy, triad = [], []
    wait_for_quiet(args.quiet_wait)
    load0 = _load_now()
    for _ in range(args.reps):
        copy.append(probe.run(Probe.COPY, threads))
        for label, fn in contenders:
            times[label].append(timed(fn))
        triad.append(probe.run(Probe.TRIAD, threads))
    others, steal = _load_between(load0, _load_now())
    best = {label: min(v) for label, v in times.items()}
    tol = TOLERANCE[name_of(case.out.dtype)]
    return {
        "label": case.label,
        "dtype_label": case.dtype_label,
        "shape": case.shape if isinstance(case.shape, str) else "[%s]" % ",".join(str(d) for d in case.shape),
        "torch_label": case.torch_label,
        "kernel": kernel,
        "ms": {k: 1e3 * v for k, v in best.items()},
        "gbs": {k: case.useful / v / 1e9 for k, v in best.items()},
        "copy": max(copy),
        "triad": max(triad),
        "err": err,
        "torch_err": torch_err,
        "ok": err <= tol,
        "others": others,
        "steal": steal,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=0, help="threads for aclnn_emu, torch and the probe (0: all)")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions per row; the best is reported (default 3)")
    ap.add_argument("--size", type=parse_size, default=parse_size("64M"),
                    help="elements per tensor, a multiple of 1024, e.g. 64M (default) or 4M for a quick run; "
                         "the transpose uses the largest square that fits")
    ap.add_argument("--dtypes", default="fp32,fp16,bf16", help="for the families with a dtype of their own")
    ap.add_argument("--ops", default=DEFAULT_OPS,
                    help="families, comma-separated (default %s; extra: %s)" % (DEFAULT_OPS, ",".join(EXTRA_OPS)))
    ap.add_argument("--stream-mib", type=int, default=256, help="MiB per probe array (default 256)")
    ap.add_argument("--no-torch", action="store_true", help="skip the torch columns")
    ap.add_argument("--quiet-wait", type=float, default=20.0,
                    help="before each row wait up to this many seconds for other processes to use < 0.25 core")
    args = ap.parse_args(argv)
    ops = [o for o in args.ops.split(",") if o]
    for o in ops:
        if o not in DEFAULT_OPS.split(",") and o not in EXTRA_OPS:
            ap.error("unknown family %r" % o)
    names = [d for d in args.dtypes.split(",") if d]
    for d in names:
        if d not in DTYPES or DTYPES[d] is None:
            ap.error("dtype %r unavailable (fp32, fp16, bf16 with ml_dtypes)" % d)

    aclnn_emu.set_num_threads(args.threads)
    threads = aclnn_emu.get_num_threads()
    torch, torch_info = import_torch(not args.no_torch)
    if torch is not None:
        torch.set_num_threads(threads)
    probe = Probe(args.stream_mib, threads)

    print("# Element-wise operators vs the copy probe and PyTorch (one process)\n")
    print("- command: %s %s" % (os.path.basename(sys.executable), " ".join(sys.argv)))
    print("- python %s, numpy %s, aclnn_emu %s (library %s, ISA %s), torch %s" % (
        platform.python_version(), np.__version__, aclnn_emu.__version__, aclnn_emu.library_version(),
        aclnn_emu.get_isa(), torch_info))
    print("- threads: aclnn_emu %d, torch %s, probe %d; %d elements per tensor; best of %d reps" % (
        threads, torch.get_num_threads() if torch is not None else "-", threads, args.size, args.reps))
    print("- probe: %s, %d MiB per array; copy counts 2 arrays, triad 3 (no write-allocate)" % (
        ("bench/stream_probe.c via cffi (%s)" % probe.how) if probe.available else "unavailable (%s)" % probe.how,
        args.stream_mib))
    print("- GB/s = bytes read + written (each input element once, each output element once) / best time;"
          " % of copy = vs the best copy probe of the row; 'vs torch' = torch's best time / aclnn_emu's\n")
    sys.stdout.flush()

    rows = []
    for op in ops:
        dtypes = [DTYPES[d] for d in names] if op not in ("cast", "cast_bf16") else [np.dtype(np.float32)]
        for dtype in dtypes:
            cases = make_cases(op, dtype, args.size, torch)
            while cases:
                case = cases.pop(0)
                r = run_case(args, probe, threads, case)
                rows.append(r)
                print("  done %s %s: aclnn %.2f ms%s, copy %.1f GB/s" % (
                    r["label"], r["dtype_label"], r["ms"]["aclnn"],
                    (", torch %.2f ms" % r["ms"]["torch"]) if "torch" in r["ms"] else "", r["copy"]),
                    file=sys.stderr)
                del case
                gc.collect()  # free the row's buffers before the next one allocates
    probe.close()

    has_torch = torch is not None
    head = ["op", "dtype", "shape", "aclnn_emu ms", "GB/s", "% of copy"]
    if has_torch:
        head += ["torch ms", "torch % of copy", "vs torch"]
    head += ["copy GB/s", "kernel", "max rel err (emu / torch)", "load / steal"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 3 + ["---:"] * (len(head) - 7) + ["---"] * 4) + "|")
    for r in rows:
        cells = [r["label"], r["dtype_label"], r["shape"], "%.2f" % r["ms"]["aclnn"], "%.1f" % r["gbs"]["aclnn"],
            "%.0f%%" % (100 * r["gbs"]["aclnn"] / r["copy"])]
        if has_torch:
            cells += ["%.2f" % r["ms"]["torch"], "%.0f%%" % (100 * r["gbs"]["torch"] / r["copy"]),
                      "%.2fx" % (r["ms"]["torch"] / r["ms"]["aclnn"])]
        cells += ["%.1f" % r["copy"], r["kernel"],
                  "%.1e / %.1e%s" % (r["err"], r["torch_err"], "" if r["ok"] else " MISMATCH"),
                  "%.2f / %.2f" % (r["others"], r["steal"])]
        print("| " + " | ".join(cells) + " |")
    if has_torch:
        print("\nPyTorch calls: " + "; ".join(sorted({"%s: %s" % (r["label"], r["torch_label"])
                                                      for r in rows})))
    sys.stdout.flush()
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
