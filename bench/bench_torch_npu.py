#!/usr/bin/env python3
"""aclnn_emu.torch_npu against the same model code in PyTorch eager, in one process.

Forward + backward, interleaved repetition by repetition, same thread count:

* ``npu_rotary_mul(q, cos, sin)`` (RotaryPositionEmbedding + RotaryMulGrad)
  against the model code the RotaryMulGrad guide replaces,
  ``q * cos + rotate_half(q) * sin`` with ``rotate_half(x) = cat((-x2, x1), -1)``,
  on the guide's three typical cases at full size, with cos/sin as buffers
  (no gradient: RotaryMulGrad's ``need_backward`` false, the usual training
  case) and as parameters (dcos/dsin too);
* ``npu_moe_token_permute(tokens, indices)`` (MoeTokenPermute + ...Grad)
  against its small-op formulation, ``tokens.index_select(0, argsort(indices.flatten(), stable) // topk)``
  (backward: autograd's ``index_add``);

then the per-call overhead on tiny tensors: ``npu_silu`` against
``torch.nn.functional.silu`` (the same op in PyTorch eager), with and without
autograd, and ``npu_rotary_mul`` against the eager formula.

    python bench/bench_torch_npu.py [--threads N] [--reps R] [--dtypes fp32,fp16,bf16]
                                    [--moe 4096x8x4096] [--skip-rope] [--skip-moe] [--skip-overhead]

Speed is reported, never asserted. Results and commands: docs/benchmarks.md.
"""

import argparse
import os
import statistics
import sys
import time

import torch

import aclnn_emu
from aclnn_emu import torch_npu

CASES = [  # the RotaryMulGrad guide's typical cases: x, r1/r2
    ("case 1 BSND", (2, 8192, 5, 128), (1, 8192, 1, 128)),
    ("case 2 SBND", (8192, 2, 5, 128), (8192, 1, 1, 128)),
    ("case 3", (2048, 4, 32, 64), (2048, 4, 1, 64)),
]
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 6e-2}


def median(values):
    return statistics.median(values)


def rotate_half(x):
    x1, x2 = torch.chunk(x, 2, -1)
    return torch.cat((-x2, x1), dim=-1)


def eager_rope(q, cos, sin):
    """The model code npu_rotary_mul replaces."""
    return (q * cos) + (rotate_half(q) * sin)


def moe_eager(tokens, indices):
    """The small-op formulation of npu_moe_token_permute."""
    topk = indices.shape[1]
    order = torch.argsort(indices.flatten(), stable=True)
    return tokens.index_select(0, order // topk), torch.argsort(order).to(torch.int32)


def forward_backward(fn, leaves, dy):
    for t in leaves:
        t.grad = None
    out = fn()
    out.backward(dy)
    return out


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare(label, contenders, reps):
    """Interleave the contenders' repetitions; print a markdown row per contender."""
    times = {name: [] for name, _ in contenders}
    for _, fn in contenders:
        fn()  # warm-up (plans, page faults)
    for _ in range(reps):
        for name, fn in contenders:
            times[name].append(timed(fn))
    ours = median(times[contenders[0][0]])
    for name, _ in contenders:
        ms = median(times[name]) * 1e3
        print("| %s | %s | %.1f | %.2f |" % (label, name, ms, median(times[name]) / ours))
    sys.stdout.flush()


def max_rel_error(a, b):
    a, b = a.detach().double(), b.detach().double()
    return float(((a - b).abs() / (b.abs() + 1.0)).max())


def rope_cases(args):
    print("\n## npu_rotary_mul forward + backward vs the eager model code (median of %d)\n" % args.reps)
    print("| case, dtype, cos/sin | contender | ms | x fused |\n|---|---|---:|---:|")
    for name, x_shape, r_shape in CASES:
        for dname in args.dtypes:
            dtype = DTYPES[dname]
            g = torch.Generator().manual_seed(0)
            q = torch.randn(x_shape, generator=g).to(dtype).requires_grad_()
            dy = torch.randn(x_shape, generator=g).to(dtype)
            for r_grad in (False, True):
                cos = torch.randn(r_shape, generator=g).to(dtype).requires_grad_(r_grad)
                sin = torch.randn(r_shape, generator=g).to(dtype).requires_grad_(r_grad)
                leaves = [q, cos, sin]
                fused = forward_backward(lambda: torch_npu.npu_rotary_mul(q, cos, sin), leaves, dy)
                fused_grads = [t.grad for t in leaves if t.requires_grad]
                eager = forward_backward(lambda: eager_rope(q, cos, sin), leaves, dy)
                errors = [max_rel_error(fused, eager)] + [
                    max_rel_error(a, t.grad) / (dy.numel() // t.numel()) for a, t in zip(fused_grads, leaves)]
                assert max(errors) < TOLERANCE[dtype], (name, dname, errors)
                del fused, eager, fused_grads
                label = "%s %s, %s %s" % (name, "x".join(map(str, x_shape)), dname,
                                          "params (dcos, dsin)" if r_grad else "buffers")
                compare(label, [
                    ("npu_rotary_mul", lambda: forward_backward(lambda: torch_npu.npu_rotary_mul(q, cos, sin), leaves,
                                                                dy)),
                    ("eager q*cos + rotate_half(q)*sin", lambda: forward_backward(lambda: eager_rope(q, cos, sin),
                                                                                  leaves, dy)),
                ], args.reps)
            del q, dy, cos, sin, leaves


def moe_cases(args):
    T, topk, H = args.moe
    print("\n## npu_moe_token_permute forward + backward vs index_select / index_add (T=%d, topk=%d, H=%d; "
          "median of %d)\n" % (T, topk, H, args.reps))
    print("| dtype | contender | ms | x fused |\n|---|---|---:|---:|")
    for dname in args.dtypes:
        dtype = DTYPES[dname]
        g = torch.Generator().manual_seed(1)
        tokens = torch.randn((T, H), generator=g).to(dtype).requires_grad_()
        indices = torch.argsort(torch.rand((T, 64), generator=g), 1)[:, :topk].to(torch.int32)
        dy = torch.randn((T * topk, H), generator=g).to(dtype)
        fused = forward_backward(lambda: torch_npu.npu_moe_token_permute(tokens, indices)[0], [tokens], dy)
        fused_grad = tokens.grad
        eager = forward_backward(lambda: moe_eager(tokens, indices.long())[0], [tokens], dy)
        assert torch.equal(fused, eager)
        assert max_rel_error(fused_grad, tokens.grad) < TOLERANCE[dtype] * topk
        del fused, eager, fused_grad
        compare(dname, [
            ("npu_moe_token_permute", lambda: forward_backward(
                lambda: torch_npu.npu_moe_token_permute(tokens, indices)[0], [tokens], dy)),
            ("eager argsort + index_select (autograd index_add)", lambda: forward_backward(
                lambda: moe_eager(tokens, indices.long())[0], [tokens], dy)),
        ], args.reps)
        del tokens, indices, dy


def per_call_us(fn, number, repeat=15):
    for _ in range(min(number, 2000)):
        fn()
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        rounds.append((time.perf_counter() - t0) / number * 1e6)
    return median(rounds)


def overhead(args):
    n = args.overhead_iters
    x = torch.linspace(-3, 3, 32).reshape(4, 8)
    xg = x.clone().requires_grad_()
    dy = torch.ones_like(x)
    q = torch.randn(1, 2, 1, 64)
    r = torch.randn(1, 2, 1, 64)
    qg = q.clone().requires_grad_()
    dq = torch.ones_like(q)
    xn = x.numpy()

    def grad_of(f, leaf, g):
        return lambda: torch.autograd.grad(f(leaf), leaf, g)

    rows = [
        ("silu forward, [4,8] fp32", [
            ("torch.nn.functional.silu(x)", lambda: torch.nn.functional.silu(x)),
            ("torch_npu.npu_silu(x)", lambda: torch_npu.npu_silu(x)),
            ("aclnn_emu.silu(numpy x) (the numpy layer underneath)", lambda: aclnn_emu.silu(xn)),
        ]),
        ("silu forward + backward (autograd.grad), [4,8] fp32", [
            ("torch.nn.functional.silu", grad_of(torch.nn.functional.silu, xg, dy)),
            ("torch_npu.npu_silu", grad_of(torch_npu.npu_silu, xg, dy)),
        ]),
        ("rotary_mul forward, x [1,2,1,64] fp32", [
            ("eager q*cos + rotate_half(q)*sin (5 ops)", lambda: eager_rope(q, r, r)),
            ("torch_npu.npu_rotary_mul", lambda: torch_npu.npu_rotary_mul(q, r, r)),
        ]),
        ("rotary_mul forward + backward, x [1,2,1,64] fp32", [
            ("eager q*cos + rotate_half(q)*sin", grad_of(lambda t: eager_rope(t, r, r), qg, dq)),
            ("torch_npu.npu_rotary_mul", grad_of(lambda t: torch_npu.npu_rotary_mul(t, r, r), qg, dq)),
        ]),
    ]
    print("\n## Per-call overhead on tiny tensors (median of 15 rounds of %d calls)\n" % n)
    print("| what | call | us per call |\n|---|---|---:|")
    for what, calls in rows:
        for label, fn in calls:
            print("| %s | %s | %.2f |" % (what, label, per_call_us(fn, n)))
    sys.stdout.flush()


def parse_moe(text):
    dims = tuple(int(d) for d in text.lower().split("x"))
    if len(dims) != 3:
        raise argparse.ArgumentTypeError("--moe wants TxTOPKxH, e.g. 4096x8x4096")
    return dims


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=0, help="threads for both (default: every usable core)")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--dtypes", default="fp32,fp16,bf16")
    p.add_argument("--moe", type=parse_moe, default=(4096, 8, 4096), help="T x topk x H (default 4096x8x4096)")
    p.add_argument("--overhead-iters", type=int, default=5000)
    p.add_argument("--skip-rope", action="store_true")
    p.add_argument("--skip-moe", action="store_true")
    p.add_argument("--skip-overhead", action="store_true")
    args = p.parse_args(argv)
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    threads = args.threads or len(os.sched_getaffinity(0))
    aclnn_emu.set_num_threads(threads)
    torch.set_num_threads(threads)
    print("aclnn_emu %s (isa %s), torch %s, %d thread(s) each" % (aclnn_emu.__version__, aclnn_emu.get_isa(),
                                                                   torch.__version__, threads))
    if not args.skip_rope:
        rope_cases(args)
    if not args.skip_moe:
        moe_cases(args)
    if not args.skip_overhead:
        overhead(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
