#!/usr/bin/env python3
"""aclnn_emu.silu_backward against numpy and PyTorch, in one process.

For each shape and dtype it interleaves, repetition by repetition:

* the STREAM-like probe of ``bench/stream_probe.c`` (copy and triad, own
  pthreads, same thread count as the library), compiled here with cffi; if no
  C compiler is available only the numpy probe below is reported;
* ``aclnn_emu.silu_backward(dy, x, out=out)`` (numpy layer, preallocated out);
* numpy's float32 formula ``dy * s * (1 + x * (1 - s))``, ``s = 1/(1+exp(-x))``,
  with every buffer preallocated (one thread: numpy ufuncs do not thread);
* when ``import torch`` works: ``torch.ops.aten.silu_backward`` as usually
  called (allocating its output) and its ``grad_input=`` (out) overload.

and reports medians, GB/s of useful traffic (3 x numel x itemsize) and the
ratios side by side. A numpy copy into a preallocated array (one thread) is
reported as a second, clearly labelled bandwidth reference. Then it times the
per-call overhead on a [2,3] float32 tensor.

    python bench/bench_silu_backward.py [--threads N] [--reps R] [--shapes 8x4096x11008,4096x4096]
                                        [--dtypes fp32,fp16,bf16] [--stream-mib M] [--no-torch]

Speed is reported, never asserted. Results and commands: docs/benchmarks.md.
"""

import argparse
import gc
import importlib.util
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

import aclnn_emu

try:
    import ml_dtypes

    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # aclnn_emu depends on it; keep the script usable without
    BF16 = None

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {"fp32": np.dtype(np.float32), "fp16": np.dtype(np.float16), "bf16": BF16}
FILL_BLOCK = 1 << 20
CHECK_SAMPLES = 4096
TOLERANCE = {"fp32": 1e-5, "fp16": 2e-3, "bf16": 1.6e-2}

# --------------------------------------------------------------------------- probe


def build_stream_probe():
    """Compile stream_probe.c with cffi (API mode) into a temp dir; None if that fails."""
    try:
        import cffi
    except ImportError:
        return None, "cffi missing"
    ffi = cffi.FFI()
    ffi.cdef(
        """
        typedef struct stream_probe stream_probe;
        stream_probe *stream_probe_create(size_t bytes_per_array, int max_threads);
        double stream_probe_run(stream_probe *probe, int kind, int threads);
        int stream_probe_max_threads(const stream_probe *probe);
        double stream_probe_bytes(const stream_probe *probe, int kind);
        void stream_probe_destroy(stream_probe *probe);
        """
    )
    tmp = tempfile.mkdtemp(prefix="aclnn_emu_probe_")
    errors = []
    # GCC: keep the copy loop a loop (not a memcpy call); Clang: -fno-builtin does that.
    for flags in (["-fno-tree-loop-distribute-patterns"], ["-fno-builtin"]):
        ffi.set_source(
            "_aclnn_emu_stream_probe",
            '#include "stream_probe.h"',
            sources=[os.path.join(HERE, "stream_probe.c")],
            include_dirs=[HERE],
            define_macros=[("_GNU_SOURCE", "1")],
            extra_compile_args=["-O3", "-std=c11", "-pthread"] + flags,
            extra_link_args=["-pthread"],
        )
        try:
            path = ffi.compile(tmpdir=tmp, verbose=False)
        except Exception as exc:  # no compiler, or the flag is unknown
            errors.append(str(exc).splitlines()[-1] if str(exc) else type(exc).__name__)
            continue
        spec = importlib.util.spec_from_file_location("_aclnn_emu_stream_probe", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        shutil.rmtree(tmp, ignore_errors=True)  # the loaded module stays mapped
        return mod, " ".join(flags)
    shutil.rmtree(tmp, ignore_errors=True)
    return None, "; ".join(errors)


class Probe:
    COPY, TRIAD = 0, 1

    def __init__(self, mib, threads):
        self.mod, self.how = build_stream_probe()
        self.handle = None
        if self.mod is not None:
            self.handle = self.mod.lib.stream_probe_create(mib << 20, threads)
            if self.handle == self.mod.ffi.NULL or self.mod.lib.stream_probe_max_threads(self.handle) != threads:
                self.handle = None
                self.how = "stream_probe_create failed"
        # numpy reference: one thread, np.copyto into a preallocated array.
        n = (mib << 20) // 8
        self.np_src = np.ones(n, np.float64)
        self.np_dst = np.zeros(n, np.float64)

    @property
    def available(self):
        return self.handle is not None

    def run(self, kind, threads):
        if self.handle is None:
            return float("nan")
        return self.mod.lib.stream_probe_run(self.handle, kind, threads)

    def numpy_copy(self):
        t0 = time.perf_counter()
        np.copyto(self.np_dst, self.np_src)
        return 2 * self.np_src.nbytes / (time.perf_counter() - t0) / 1e9

    def close(self):
        if self.handle is not None:
            self.mod.lib.stream_probe_destroy(self.handle)
            self.handle = None


# --------------------------------------------------------------------------- machine load


def _load_now():
    """(busy seconds of the whole machine, steal seconds, this process's CPU seconds, wall), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:9]]
        hz = os.sysconf("SC_CLK_TCK")
        user, nice, system, _idle, _iowait, irq, softirq, steal = fields
        busy, stolen = (user + nice + system + irq + softirq) / hz, steal / hz
    except (OSError, ValueError):
        busy = stolen = float("nan")
    t = os.times()
    return busy, stolen, t.user + t.system, time.perf_counter()


def _load_between(a, b):
    """Cores used by other processes, and stolen by the hypervisor, between two samples."""
    wall = b[3] - a[3]
    if wall <= 0:
        return float("nan"), float("nan")
    return max(0.0, ((b[0] - a[0]) - (b[2] - a[2])) / wall), (b[1] - a[1]) / wall


def wait_for_quiet(max_seconds):
    """Wait (up to max_seconds) for a 250 ms window with other processes under 0.25 core."""
    start = time.perf_counter()
    while max_seconds > 0:
        a = _load_now()
        time.sleep(0.25)
        others, _ = _load_between(a, _load_now())
        if others < 0.25 or time.perf_counter() - start >= max_seconds:
            break


# --------------------------------------------------------------------------- data


def fill(arr, lo, hi, seed):
    """Fill with a block of FILL_BLOCK uniform values, repeated (like the C benchmark)."""
    flat = arr.reshape(-1)
    rng = np.random.default_rng(seed)
    block = rng.uniform(lo, hi, min(flat.size, FILL_BLOCK)).astype(np.float32).astype(arr.dtype)
    for start in range(0, flat.size, block.size):
        stop = min(start + block.size, flat.size)
        flat[start:stop] = block[: stop - start]


class NumpyFormula:
    """dy * s * (1 + x * (1 - s)), s = 1/(1+exp(-x)), in float32, preallocated buffers."""

    def __init__(self, shape, dtype):
        self.half = dtype != np.float32
        self.s = np.empty(shape, np.float32)
        self.t = np.empty(shape, np.float32) if self.half else None
        self.w = np.empty(shape, np.float32) if self.half else None  # x, then dy, widened

    def __call__(self, dy, x, out):
        s = self.s
        if self.half:
            x32, t = self.w, self.t
            np.copyto(x32, x, casting="unsafe")
        else:
            x32, t = x, out
        np.negative(x32, out=s)
        np.exp(s, out=s)
        s += 1.0
        np.reciprocal(s, out=s)
        np.subtract(1.0, s, out=t)
        t *= x32
        t += 1.0
        t *= s
        if self.half:
            np.copyto(x32, dy, casting="unsafe")
            t *= x32
            np.copyto(out, t, casting="unsafe")
        else:
            t *= dy  # t is out
        return out


def sampled_error(dy, x, out, idx):
    """Largest error at idx relative to |dy*s| * (1 + |x*(1-s)|), in float64."""
    g = dy.reshape(-1)[idx].astype(np.float64)
    v = x.reshape(-1)[idx].astype(np.float64)
    got = out.reshape(-1)[idx].astype(np.float64)
    s = 1.0 / (1.0 + np.exp(-v))
    want = g * s * (1.0 + v * (1.0 - s))
    floor = 6.103515625e-05 if out.dtype == np.float16 else 1e-30
    scale = np.abs(g * s) * (1.0 + np.abs(v * (1.0 - s))) + floor
    return float(np.max(np.abs(got - want) / scale))


# --------------------------------------------------------------------------- torch


def import_torch(enabled):
    if not enabled:
        return None, "disabled (--no-torch)"
    try:
        import torch
    except Exception as exc:  # not installed, or broken
        return None, "not available (%s)" % type(exc).__name__
    return torch, torch.__version__


def to_torch(torch, arr):
    """Zero-copy torch view of a numpy array (bfloat16 through a uint16 view)."""
    if BF16 is not None and arr.dtype == BF16:
        return torch.from_numpy(arr.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(arr)


# --------------------------------------------------------------------------- timing


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def median(values):
    return statistics.median(values) if values else float("nan")


def per_call_us(fn, number, repeat):
    """Median over `repeat` rounds of the mean time of `number` calls, in microseconds."""
    for _ in range(min(number, 1000)):
        fn()
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        rounds.append((time.perf_counter() - t0) / number * 1e6)
    return median(rounds)


def parse_shape(text):
    dims = tuple(int(d) for d in text.lower().split("x"))
    if not dims or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError("bad shape %r" % text)
    return dims


def fmt_shape(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# --------------------------------------------------------------------------- main


def run_case(args, probe, threads, torch, shape, name, dtype):
    numel = int(np.prod(shape))
    useful = 3.0 * numel * dtype.itemsize
    dy = np.empty(shape, dtype)
    x = np.empty(shape, dtype)
    out = np.empty(shape, dtype)  # shared by all contenders: every one writes all of it
    fill(dy, -2.0, 2.0, 12345)
    fill(x, -8.0, 8.0, 67890)
    out.fill(0)  # pre-fault
    formula = NumpyFormula(shape, dtype)
    idx = np.random.default_rng(7).integers(0, numel, CHECK_SAMPLES)

    contenders = [("aclnn_emu out=", lambda: aclnn_emu.silu_backward(dy, x, out=out))]
    contenders.append(("numpy formula", lambda: formula(dy, x, out)))
    if torch is not None:
        tdy, tx, tout = to_torch(torch, dy), to_torch(torch, x), to_torch(torch, out)
        aten = torch.ops.aten.silu_backward
        contenders.append(("torch out=", lambda: aten.grad_input(tdy, tx, grad_input=tout)))
        contenders.append(("torch alloc", lambda: aten(tdy, tx)))

    errors = {}
    for label, fn in contenders:  # warm-up and check
        result = fn()
        if label == "torch alloc":
            res = result.view(torch.uint16).numpy().view(dtype) if dtype == BF16 else result.numpy()
            errors[label] = sampled_error(dy, x, res, idx)
            del res
        else:
            errors[label] = sampled_error(dy, x, out, idx)
        del result
    kernel = aclnn_emu.last_kernel() if hasattr(aclnn_emu, "last_kernel") else ""

    times = {label: [] for label, _ in contenders}
    copy, triad, np_copy = [], [], []
    wait_for_quiet(args.quiet_wait)
    load0 = _load_now()
    for _ in range(args.reps):
        copy.append(probe.run(Probe.COPY, threads))
        for label, fn in contenders:
            times[label].append(timed(fn))
        triad.append(probe.run(Probe.TRIAD, threads))
        np_copy.append(probe.numpy_copy())
    others, steal = _load_between(load0, _load_now())
    med = {label: median(v) for label, v in times.items()}
    return {
        "shape": shape,
        "dtype": name,
        "useful": useful,
        "ms": {k: 1e3 * v for k, v in med.items()},
        "gbs": {k: useful / v / 1e9 for k, v in med.items()},
        "copy": median(copy),
        "copy_best": max(copy) if copy else float("nan"),
        "triad": median(triad),
        "np_copy": median(np_copy),
        "errors": errors,
        "kernel": kernel,
        "others": others,
        "steal": steal,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=0, help="threads for aclnn_emu, torch and the probe (0: all)")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per case (default 5)")
    ap.add_argument(
        "--shapes", default="8x4096x11008,4096x4096", help="comma-separated shapes, dims joined by x"
    )
    ap.add_argument("--dtypes", default="fp32,fp16,bf16")
    ap.add_argument("--stream-mib", type=int, default=256, help="MiB per probe array (default 256)")
    ap.add_argument("--overhead-iters", type=int, default=20000, help="calls per round on [2,3] (0 skips)")
    ap.add_argument("--no-torch", action="store_true", help="skip the torch columns")
    ap.add_argument("--quiet-wait", type=float, default=20.0,
                    help="before each case wait up to this many seconds for other processes to use < 0.25 core")
    args = ap.parse_args(argv)
    shapes = [parse_shape(s) for s in args.shapes.split(",") if s]
    names = [d for d in args.dtypes.split(",") if d]
    for d in names:
        if d not in DTYPES or DTYPES[d] is None:
            ap.error("dtype %r unavailable (fp32, fp16, bf16 with ml_dtypes)" % d)

    aclnn_emu.set_num_threads(args.threads)
    threads = aclnn_emu.get_num_threads()
    torch, torch_info = import_torch(not args.no_torch)
    if torch is not None:
        torch.set_num_threads(threads)

    print("# aclnn_emu.silu_backward vs numpy and torch (one process)\n")
    print("- command: %s %s" % (os.path.basename(sys.executable), " ".join(sys.argv)))
    print(
        "- python %s, numpy %s, aclnn_emu %s (library %s, ISA %s), torch %s"
        % (
            platform.python_version(),
            np.__version__,
            aclnn_emu.__version__,
            aclnn_emu.library_version(),
            aclnn_emu.get_isa(),
            torch_info,
        )
    )
    print("- threads: aclnn_emu %d, torch %s, STREAM probe %d, numpy 1" % (
        threads, torch.get_num_threads() if torch is not None else "-", threads))
    probe = Probe(args.stream_mib, threads)
    print(
        "- STREAM probe: %s; %d MiB per array; numpy copy = np.copyto on two %d MiB float64 arrays, 1 thread"
        % (("bench/stream_probe.c via cffi (%s)" % probe.how) if probe.available else
           "unavailable (%s): only the numpy copy is reported" % probe.how, args.stream_mib, args.stream_mib)
    )
    print("- useful bytes = 3 x numel x itemsize; GB/s = 1e9 B/s; medians of %d reps; each rep = copy probe, "
          "every contender once, triad probe, numpy copy" % args.reps)
    print("- GB/s at the median time; % of copy = vs the median of the case's copy probes; % of best copy = vs the"
          " fastest of them (what STREAM itself reports)")
    print("- 'x faster' = contender's median time / aclnn_emu's median time")
    print("- other load / steal: CPU used by other processes / stolen by the hypervisor during a case's reps, in cores"
          " (/proc/stat); each case first waits up to %.0f s for other load < 0.25 core\n" % args.quiet_wait)
    sys.stdout.flush()

    rows = []
    for shape in shapes:
        for name in names:
            rows.append(run_case(args, probe, threads, torch, shape, name, DTYPES[name]))
            gc.collect()  # free the case's buffers before the next one allocates
            r = rows[-1]
            print("  done %s %s: %s" % (fmt_shape(shape), name,
                  ", ".join("%s %.1f ms" % (k, v) for k, v in r["ms"].items())), file=sys.stderr)
    probe.close()

    emu = "aclnn_emu out="
    has_torch = torch is not None
    print("## Time (ms, median) and bandwidth\n")
    head = ["shape", "dtype", "aclnn_emu ms", "numpy ms"]
    if has_torch:
        head += ["torch out= ms", "torch alloc ms"]
    head += ["aclnn_emu GB/s", "copy GB/s (C probe)", "triad GB/s (C probe)", "numpy copy GB/s (1T)",
             "aclnn_emu % of copy", "% of best copy", "% of triad", "other load / steal (cores)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
    for r in rows:
        cells = [fmt_shape(r["shape"]), r["dtype"], "%.2f" % r["ms"][emu], "%.1f" % r["ms"]["numpy formula"]]
        if has_torch:
            cells += ["%.2f" % r["ms"]["torch out="], "%.2f" % r["ms"]["torch alloc"]]
        cells += ["%.1f" % r["gbs"][emu], "%.1f" % r["copy"], "%.1f" % r["triad"], "%.1f" % r["np_copy"],
                  "%.0f%%" % (100 * r["gbs"][emu] / r["copy"]), "%.0f%%" % (100 * r["gbs"][emu] / r["copy_best"]),
                  "%.0f%%" % (100 * r["gbs"][emu] / r["triad"]),
                  "%.2f / %.2f" % (r["others"], r["steal"])]
        print("| " + " | ".join(cells) + " |")

    print("\n## Ratios: how many times faster aclnn_emu is (same run, same buffers)\n")
    head = ["shape", "dtype", "vs numpy formula"]
    if has_torch:
        head += ["vs torch out=", "vs torch alloc", "torch out= % of copy", "torch alloc % of copy"]
    head += ["max rel err emu / numpy" + (" / torch" if has_torch else ""), "kernel"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 4) + ["---"] * 2) + "|")
    for r in rows:
        ms = r["ms"]
        cells = [fmt_shape(r["shape"]), r["dtype"], "%.1fx" % (ms["numpy formula"] / ms[emu])]
        if has_torch:
            cells += ["%.2fx" % (ms["torch out="] / ms[emu]), "%.2fx" % (ms["torch alloc"] / ms[emu]),
                      "%.0f%%" % (100 * r["gbs"]["torch out="] / r["copy"]),
                      "%.0f%%" % (100 * r["gbs"]["torch alloc"] / r["copy"])]
        errs = [r["errors"][emu], r["errors"]["numpy formula"]]
        if has_torch:
            errs += [r["errors"]["torch out="]]
        flag = "" if r["errors"][emu] <= TOLERANCE[r["dtype"]] else " MISMATCH"
        cells += [" / ".join("%.1e" % e for e in errs) + flag, r["kernel"]]
        print("| " + " | ".join(cells) + " |")
    sys.stdout.flush()

    if args.overhead_iters > 0:
        overhead(args, torch)
    return 0


def overhead(args, torch):
    n, rounds = args.overhead_iters, 15
    dy = np.ones((2, 3), np.float32)
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    out = np.empty_like(x)
    s = np.empty_like(x)
    rows = [
        ("aclnn_emu.silu_backward(dy, x)", lambda: aclnn_emu.silu_backward(dy, x)),
        ("aclnn_emu.silu_backward(dy, x, out=out)", lambda: aclnn_emu.silu_backward(dy, x, out=out)),
    ]
    lib, ffi = aclnn_emu.lib, aclnn_emu.ffi
    # The raw cffi pair on tensors created once over aclrtMalloc memory (as CANN host code does): the floor
    # the numpy layer builds on.
    dims = ffi.new("int64_t[]", [2, 3])
    blocks = []
    for a in (dy, x, out):
        p = ffi.new("void **")
        aclnn_emu.check(lib.aclrtMalloc(p, a.nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        aclnn_emu.check(lib.aclrtMemcpy(p[0], a.nbytes, ffi.from_buffer(a), a.nbytes,
                                        lib.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")
        blocks.append(p[0])
    handles = [lib.aclCreateTensor(dims, 2, lib.ACL_FLOAT, ffi.NULL, 0, lib.ACL_FORMAT_ND, dims, 2, b)
               for b in blocks]
    ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    get_ws, run = lib.aclnnSiluBackwardGetWorkspaceSize, lib.aclnnSiluBackward
    NULL = ffi.NULL

    def raw_pair():
        get_ws(handles[0], handles[1], handles[2], ws, exe)
        run(NULL, 0, exe[0], NULL)

    # Time the success path only: check both phases once.
    aclnn_emu.check(get_ws(handles[0], handles[1], handles[2], ws, exe), "aclnnSiluBackwardGetWorkspaceSize")
    aclnn_emu.check(run(NULL, 0, exe[0], NULL), "aclnnSiluBackward")
    rows.append(("raw cffi phase 1 + phase 2 (aclrtMalloc memory, tensors created once)", raw_pair))

    def numpy_formula():
        np.negative(x, out=s)
        np.exp(s, out=s)
        s.__iadd__(1.0)
        np.reciprocal(s, out=s)
        return dy * s * (1.0 + x * (1.0 - s))

    rows.append(("numpy float32 formula (7 ufunc calls)", numpy_formula))
    if torch is not None:
        tdy, tx, tout = torch.from_numpy(dy), torch.from_numpy(x), torch.from_numpy(out)
        aten = torch.ops.aten.silu_backward
        rows.append(("torch.ops.aten.silu_backward(dy, x)", lambda: aten(tdy, tx)))
        rows.append(("torch.ops.aten.silu_backward.grad_input(..., grad_input=out)",
                     lambda: aten.grad_input(tdy, tx, grad_input=tout)))
        tdx = tx.clone().requires_grad_(True)

        def autograd():
            y = torch.nn.functional.silu(tdx)
            (g,) = torch.autograd.grad(y, tdx, tdy)
            return g

        rows.append(("torch autograd: silu forward + backward", autograd))

    print("\n## Per-call overhead, [2,3] float32 (median of %d rounds of %d calls)\n" % (rounds, n))
    print("| call | us per call |\n|---|---:|")
    for label, fn in rows:
        print("| %s | %.2f |" % (label, per_call_us(fn, n, rounds)))
    for h in handles:
        lib.aclDestroyTensor(h)
    for b in blocks:
        lib.aclrtFree(b)
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
