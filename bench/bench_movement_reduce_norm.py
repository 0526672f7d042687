#!/usr/bin/env python3
"""Data movement, reductions and norms against the copy probe and PyTorch CPU, in one process.

One row per operator and dtype, on large tensors (64M elements by default, as
[rows, cols] = [16384, 4096]):

* ``permute``: aclnnPermute of a square [S,S] with dims (1,0), S = sqrt(N);
* ``permute3d``: aclnnPermute [B,S,D] -> [S,B,D], dims (1,0,2), with B = 16 and
  D = 128 (the head-major to sequence-major shuffle of attention);
* ``copy_t``: aclnnInplaceCopy of a transposed view (the row of
  ``bench_elementwise.py``, reused);
* ``sum_last`` and ``sum_first``: aclnnReduceSum of [R,C] over dims [1] and
  [0], keepDims false, in the input's dtype;
* ``softmax``: aclnnSoftmax over the last axis;
* ``rms_norm``: aclnnRmsNorm, gamma over the last axis, epsilon 1e-6, outputs
  y and an fp32 rstd of [R,1];
* ``layer_norm``: aclnnLayerNorm, normalizedShape [C], weight and bias.

For each row it interleaves, repetition by repetition, the copy probe of
``bench/stream_probe.c`` (own pthreads, same thread count), the aclnn_emu call
(``aclnn_emu.run``, outputs preallocated) and, when ``import torch`` works,
PyTorch CPU on the same memory (zero-copy views) and the same dtype:
``o.copy_(x.permute(...))``, ``torch.sum(x, dim, out=o)``,
``aten._softmax.out``, ``aten.native_layer_norm.out`` and
``torch.nn.functional.rms_norm`` (no ``out=`` form: it allocates its output).

Every timing is the best of --reps repetitions (default 3). GB/s counts each
operator's minimum traffic, STREAM-style without write-allocate: every input
element read once and every output element written once (gamma, weight, bias,
rstd and reduced outputs included); "% of copy" divides it by the best copy
probe of the same row; "vs torch" is PyTorch's best time over aclnn_emu's
(above 1: aclnn_emu is faster). The target is >= 60% of copy and >= 1.00x.

Before timing, each row's output (and PyTorch's) is checked once against a
float64 numpy reference: permutes exactly, the others on sampled rows (all
columns for the first-axis sum), the error relative to the largest reference
magnitude compared, so that a broken run cannot report a fast number.

    python bench/bench_movement_reduce_norm.py [--threads N] [--reps R] [--size 64M | --rows R] [--cols C]
        [--dtypes fp32,fp16,bf16] [--ops permute,permute3d,copy_t,sum_last,sum_first,softmax,rms_norm,layer_norm]
        [--no-torch]

Speed is reported, never asserted.
"""

import argparse
import gc
import os
import platform
import sys

import numpy as np

import aclnn_emu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_elementwise  # noqa: E402  (the InplaceCopy-of-a-transpose row and its reference)
from bench_elementwise import DTYPES, name_of, parse_size  # noqa: E402
from bench_silu_backward import Probe, fill, import_torch, timed, to_torch, wait_for_quiet  # noqa: E402
from bench_silu_backward import _load_between, _load_now  # noqa: E402  (cores used by others during a row)

ALL_OPS = ("permute", "permute3d", "copy_t", "sum_last", "sum_first", "softmax", "rms_norm", "layer_norm")
PERMUTE3D_B, PERMUTE3D_D = 16, 128
CHECK_ROWS = 64
# Largest error allowed, relative to the largest |reference| compared: the output type's rounding, loosely.
TOLERANCE = {"fp32": 1e-4, "fp16": 4e-3, "bf16": 3e-2}
TARGET_OF_COPY = 0.60


class Row:
    """One operator and dtype: the calls, the outputs they write, and the check of those outputs."""

    def __init__(self, label, shape, dtype, useful, aclnn, outputs, check, torch_fn=None, torch_label="",
                 torch_into=None):
        self.label, self.shape, self.dtype, self.useful = label, shape, dtype, useful
        self.aclnn, self.outputs, self.check = aclnn, outputs, check
        self.torch_fn, self.torch_label = torch_fn, torch_label
        # For the check: torch_fn, or where that allocates its result, a call that copies it into the outputs.
        self.torch_into = torch_into or torch_fn

    def release(self):
        """Drop the calls and checks (and with them the row's arrays)."""
        self.aclnn = self.torch_fn = self.torch_into = self.check = None
        self.outputs = []

    def checked(self, fn):
        """Zero the outputs, run fn once, return the error of what it wrote."""
        for o in self.outputs:
            o.fill(0)
        fn()
        return self.check()


def f64(a):
    return np.asarray(a, dtype=np.float64)


def normwise(got, want):
    return float(np.max(np.abs(f64(got) - want)) / max(float(np.max(np.abs(want))), 1e-30))


def sample_rows(rows):
    return np.unique(np.linspace(0, rows - 1, min(rows, CHECK_ROWS)).astype(np.int64))


def rows_check(out, x, ref):
    """Error of out against ref(x) on sampled rows (ref works on a float64 [k, C] block)."""
    r = sample_rows(x.shape[0])
    return lambda: normwise(out[r], ref(f64(x[r])))


def exact_check(out, want_of):
    """0 when out[r] equals want_of(r) bit for bit on sampled leading indices, else 1."""
    r = sample_rows(out.shape[0])
    return lambda: 0.0 if np.array_equal(out[r].view(np.uint8), np.ascontiguousarray(want_of(r)).view(np.uint8)) \
        else 1.0


def column_sums(x, block=512):
    acc = np.zeros(x.shape[1], np.float64)
    for start in range(0, x.shape[0], block):
        acc += f64(x[start:start + block]).sum(axis=0)
    return acc


def torch_peer(torch, fn, *arrays):
    """fn(torch, *views) bound to zero-copy torch views of arrays, or None without torch."""
    if torch is None:
        return None
    views = [to_torch(torch, a) for a in arrays]
    return lambda: fn(torch, *views)


def make_rows(op, dtype, rows, cols, torch):
    n = rows * cols
    dname = name_of(dtype)
    if op == "permute":
        s = int(np.sqrt(n))
        x = np.empty((s, s), dtype)
        fill(x, -4.0, 4.0, 11)
        out = np.empty_like(x)
        return [Row("Permute (1,0)", "[%d,%d]" % (s, s), dname, 2.0 * x.nbytes,
                    lambda: aclnn_emu.run("aclnnPermute", self=x, dims=[1, 0], out=out), [out],
                    exact_check(out, lambda r: x[:, r].T),
                    torch_peer(torch, lambda t, tx, to: to.copy_(tx.permute(1, 0)), x, out),
                    "o.copy_(x.permute(1, 0))")]
    if op == "permute3d":
        b, d = PERMUTE3D_B, PERMUTE3D_D
        s = n // (b * d)
        x = np.empty((b, s, d), dtype)
        fill(x, -4.0, 4.0, 12)
        out = np.empty((s, b, d), dtype)
        return [Row("Permute (1,0,2)", "[%d,%d,%d]" % (b, s, d), dname, 2.0 * x.nbytes,
                    lambda: aclnn_emu.run("aclnnPermute", self=x, dims=[1, 0, 2], out=out), [out],
                    exact_check(out, lambda r: x[:, r, :].transpose(1, 0, 2)),
                    torch_peer(torch, lambda t, tx, to: to.copy_(tx.permute(1, 0, 2)), x, out),
                    "o.copy_(x.permute(1, 0, 2))")]
    if op == "copy_t":
        rows_out = []
        for case in bench_elementwise.make_cases("transpose", dtype, n, torch):
            idx = np.random.default_rng(7).integers(0, case.out.size, bench_elementwise.CHECK_SAMPLES)
            rows_out.append(Row(case.label, case.shape, dname, case.useful, case.aclnn, [case.out],
                                lambda c=case, i=idx: bench_elementwise.sampled_error(c, i), case.torch_fn,
                                case.torch_label))
        return rows_out
    x = np.empty((rows, cols), dtype)
    fill(x, -4.0, 4.0, 13)
    shape = "[%d,%d]" % (rows, cols)
    if op in ("sum_last", "sum_first"):
        axis = 1 if op == "sum_last" else 0
        out = np.empty(x.shape[1 - axis], dtype)
        if axis == 1:
            check = rows_check(out, x, lambda v: v.sum(axis=1))
        else:
            check = lambda: normwise(out, column_sums(x))  # noqa: E731
        return [Row("ReduceSum dims [%d]" % axis, shape, dname, float(x.nbytes + out.nbytes),
                    lambda: aclnn_emu.run("aclnnReduceSum", self=x, dims=[axis], keepDims=False, dtype=dtype,
                                          out=out), [out], check,
                    torch_peer(torch, lambda t, tx, to: t.sum(tx, axis, out=to), x, out),
                    "torch.sum(x, %d, out=o)" % axis)]
    out = np.empty_like(x)
    if op == "softmax":
        def ref(v):
            e = np.exp(v - v.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        return [Row("Softmax dim -1", shape, dname, 2.0 * x.nbytes,
                    lambda: aclnn_emu.run("aclnnSoftmax", self=x, dim=-1, out=out), [out], rows_check(out, x, ref),
                    torch_peer(torch, lambda t, tx, to: t.ops.aten._softmax.out(tx, -1, False, out=to), x, out),
                    "aten._softmax.out(x, -1, False, out=o)")]
    gamma = np.empty(cols, dtype)
    fill(gamma, 0.5, 2.0, 14)
    if op == "rms_norm":
        rstd = np.empty((rows, 1), np.float32)

        def ref(v):
            return v / np.sqrt(np.mean(v * v, axis=1, keepdims=True) + 1e-6) * f64(gamma)

        def torch_rms(t, tx, tg):
            return t.nn.functional.rms_norm(tx, (cols,), tg, 1e-6)

        return [Row("RmsNorm", shape, dname, 2.0 * x.nbytes + gamma.nbytes + rstd.nbytes,
                    lambda: aclnn_emu.run("aclnnRmsNorm", x=x, gamma=gamma, epsilon=1e-6, yOut=out, rstdOut=rstd),
                    [out, rstd], rows_check(out, x, ref), torch_peer(torch, torch_rms, x, gamma),
                    "F.rms_norm(x, (C,), g, 1e-6) (allocates y)",
                    torch_peer(torch, lambda t, tx, tg, to: to.copy_(torch_rms(t, tx, tg)), x, gamma, out))]
    if op == "layer_norm":
        bias = np.empty(cols, dtype)
        fill(bias, -1.0, 1.0, 15)

        def ref(v):
            c = v - v.mean(axis=1, keepdims=True)
            return c / np.sqrt(np.mean(c * c, axis=1, keepdims=True) + 1e-5) * f64(gamma) + f64(bias)

        stats = None
        if torch is not None:  # PyTorch's out form also writes mean and rstd ([R,1], in x's dtype on CPU)
            stats = [to_torch(torch, np.empty((rows, 1), dtype)) for _ in range(2)]

        def torch_ln(t, tx, tw, tb, to):
            t.ops.aten.native_layer_norm.out(tx, [cols], tw, tb, 1e-5, out0=to, out1=stats[0], out2=stats[1])

        return [Row("LayerNorm", shape, dname, 2.0 * x.nbytes + gamma.nbytes + bias.nbytes,
                    lambda: aclnn_emu.run("aclnnLayerNorm", input=x, normalizedShape=[cols], weightOptional=gamma,
                                          biasOptional=bias, eps=1e-5, out=out), [out], rows_check(out, x, ref),
                    torch_peer(torch, torch_ln, x, gamma, bias, out),
                    "aten.native_layer_norm.out(x, [C], w, b, 1e-5, out0=o, ...)")]
    raise ValueError(op)


def measure(args, probe, threads, row):
    """Check, then time best-of-reps interleaved with the copy probe; a dict for the table."""
    err = row.checked(row.aclnn)
    kernel = aclnn_emu.last_kernel()
    contenders = {"aclnn": row.aclnn}
    torch_err = float("nan")
    if row.torch_fn is not None:
        torch_err = row.checked(row.torch_into)
        contenders["torch"] = row.torch_fn
    best = dict.fromkeys(contenders, float("inf"))
    copy = []
    wait_for_quiet(args.quiet_wait)
    before = _load_now()
    for _ in range(args.reps):
        copy.append(probe.run(Probe.COPY, threads))
        for who, fn in contenders.items():
            best[who] = min(best[who], timed(fn))
    others, steal = _load_between(before, _load_now())
    gbs = {who: row.useful / t / 1e9 for who, t in best.items()}
    return dict(row=row, kernel=kernel, err=err, torch_err=torch_err, ok=err <= TOLERANCE[row.dtype],
                ms={who: 1e3 * t for who, t in best.items()}, gbs=gbs, copy=max(copy), load=(others, steal))


def table(results, has_torch):
    head = ["op", "shape", "dtype", "aclnn_emu ms", "GB/s", "% of copy"]
    if has_torch:
        head += ["torch ms", "vs torch"]
    head += ["copy GB/s", "kernel", "err (emu / torch)" if has_torch else "err", "load / steal", "note"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if "ms" in h or "GB" in h or "%" in h
                                                             or h == "vs torch" else "---" for h in head) + "|"]
    for m in results:
        row, frac = m["row"], m["gbs"]["aclnn"] / m["copy"]
        note = [] if frac >= TARGET_OF_COPY else ["< 60% of copy"]
        cells = [row.label, row.shape, row.dtype, "%.2f" % m["ms"]["aclnn"], "%.1f" % m["gbs"]["aclnn"],
                 "%.0f%%" % (100 * frac)]
        if has_torch:
            ratio = m["ms"]["torch"] / m["ms"]["aclnn"] if "torch" in m["ms"] else float("nan")
            cells += ["%.2f" % m["ms"].get("torch", float("nan")), "%.2fx" % ratio]
            note += ["slower than torch"] if ratio < 1 else []
        note += [] if m["ok"] else ["MISMATCH"]
        err = "%.1e / %.1e" % (m["err"], m["torch_err"]) if has_torch else "%.1e" % m["err"]
        cells += ["%.1f" % m["copy"], m["kernel"], err,
                  "%.2f / %.2f" % m["load"], ", ".join(note)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = ap.add_argument
    add("--ops", default=",".join(ALL_OPS), help="operators, comma-separated (default: all of %s)" % ", ".join(ALL_OPS))
    add("--dtypes", default="fp32,fp16,bf16", help="comma-separated (default fp32,fp16,bf16)")
    add("--size", type=parse_size, default=parse_size("64M"), help="elements per tensor (default 64M; 4M is quick)")
    add("--rows", type=int, default=0, help="rows of the [R,C] tensors (default: size / cols)")
    add("--cols", type=int, default=4096, help="last-axis length of the [R,C] tensors (default 4096)")
    add("--reps", type=int, default=3, help="timed repetitions per row, best reported (default 3)")
    add("--threads", type=int, default=0, help="threads for aclnn_emu, torch and the probe (0: all cores)")
    add("--stream-mib", type=int, default=256, help="MiB per copy-probe array (default 256)")
    add("--no-torch", action="store_true", help="leave PyTorch out (also automatic when it does not import)")
    add("--quiet-wait", type=float, default=20.0,
        help="before each row wait up to this many seconds for other processes to use < 0.25 core")
    args = ap.parse_args(argv)
    args.ops = [o for o in args.ops.split(",") if o]
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    bad = [o for o in args.ops if o not in ALL_OPS] + [d for d in args.dtypes if DTYPES.get(d) is None]
    if bad:
        ap.error("unknown or unavailable: %s" % ", ".join(bad))
    if args.rows:
        args.size = args.rows * args.cols
    elif args.size % args.cols:
        ap.error("--size must be a multiple of --cols")
    args.rows = args.size // args.cols
    return args


def main(argv=None):
    args = parse_args(argv)
    torch, torch_info = import_torch(not args.no_torch)
    aclnn_emu.set_num_threads(args.threads)
    threads = aclnn_emu.get_num_threads()
    if torch is not None:
        torch.set_num_threads(threads)
    probe = Probe(args.stream_mib, threads)
    how = ("bench/stream_probe.c (%s)" % probe.how) if probe.available else "unavailable (%s)" % probe.how
    loadavg = lambda: " ".join("%.2f" % v for v in os.getloadavg())  # noqa: E731
    print("\n".join([
        "# Data movement, reductions and norms vs the copy probe and PyTorch (one process)\n",
        "- command: %s %s" % (os.path.basename(sys.executable), " ".join(sys.argv)),
        "- python %s, numpy %s, aclnn_emu %s (library %s, ISA %s), torch %s" % (
            platform.python_version(), np.__version__, aclnn_emu.__version__, aclnn_emu.library_version(),
            aclnn_emu.get_isa(), torch_info),
        "- threads %d (aclnn_emu, torch, probe); [R,C] = [%d,%d]; best of %d reps; load average before: %s" % (
            threads, args.rows, args.cols, args.reps, loadavg()),
        "- copy probe: %s, %d MiB per array, 2 arrays counted" % (how, args.stream_mib),
        "- GB/s = minimum bytes read + written / best time; 'vs torch' = torch's best time / aclnn_emu's; "
        "load = cores used by other processes / stolen during the row\n"]), flush=True)

    results = []
    for op in args.ops:
        for dname in args.dtypes:
            for row in make_rows(op, DTYPES[dname], args.rows, args.cols, torch):
                m = measure(args, probe, threads, row)
                results.append(m)
                print("  done %s %s %s: aclnn %.2f ms, %.0f%% of copy%s" % (
                    row.label, row.shape, dname, m["ms"]["aclnn"], 100 * m["gbs"]["aclnn"] / m["copy"],
                    (", torch %.2f ms" % m["ms"]["torch"]) if "torch" in m["ms"] else ""), file=sys.stderr)
                row.release()
            gc.collect()  # free the row's buffers before the next one allocates
    probe.close()

    print(table(results, torch is not None))
    if torch is not None:
        print("\nPyTorch calls: " + "; ".join(dict.fromkeys("%s: %s" % (m["row"].label, m["row"].torch_label)
                                                            for m in results)))
    print("- load average after: %s" % loadavg())
    sys.stdout.flush()
    return 0 if all(m["ok"] for m in results) else 1


if __name__ == "__main__":
    sys.exit(main())
