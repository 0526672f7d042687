#!/usr/bin/env python3
"""aclnnFusedInferAttentionScoreV2 against PyTorch's scaled_dot_product_attention, in one process.

Shapes as llama.cpp's CANN backend calls it: fp16 Q/K/V in BSND, K/V of
numKeyValueHeads heads (GQA), an fp16 pseShift mask [1, N, S, S2] with a
stride-0 head axis, scale 1/sqrt(D), innerPrecise 2 for prefill and 0 for
decode. PyTorch runs F.scaled_dot_product_attention on the same data in
[B, N, S, D] with the same additive mask and enable_gqa=True, in fp16 (the
same dtype) and in fp32 (its fast path). Medians of --reps timed calls after
one untimed call; our calls are phase 1 + phase 2 on device tensors made
once (the workspace is allocated once). GFLOP/s counts the two products,
4 * B * N * S * S2 * D. "check" is the largest difference from PyTorch's
fp32 result relative to its largest |value|.

    python bench/bench_attention.py [--threads N] [--reps R] [--no-torch]

Speed is reported, never asserted.
"""

import argparse
import statistics
import time

import numpy as np

import aclnn_emu
from aclnn_emu import DeviceTensor, ffi, lib
from aclnn_emu.tensor import acl_dtype, create_tensor

# (label, B, S, N, KVN, S2, D)
SHAPES = [
    ("decode 4k ctx", 1, 1, 32, 8, 4096, 128),
    ("decode 512 ctx", 4, 1, 32, 8, 512, 128),
    ("prefill 512", 1, 512, 32, 8, 512, 128),
    ("ggml test default", 1, 8, 32, 32, 96, 128),
    ("prefill 128, D 64", 2, 128, 16, 16, 1024, 64),
]
OPTIONAL = 20  # the NULL optional arguments between pseShiftOptional and numHeads


def timed(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


class Ours:
    def __init__(self, q, k, v, mask, num_heads, kv_heads):
        self.dev = [DeviceTensor.from_numpy(a) for a in (q, k, v)]
        self.pse = DeviceTensor.from_numpy(np.broadcast_to(mask, (1, num_heads) + mask.shape[2:]))
        self.out = DeviceTensor.empty(q.shape, np.float16)
        self.num_heads, self.kv_heads = num_heads, kv_heads
        self.scale = 1.0 / np.sqrt(q.shape[3])
        self.inner = 0 if q.shape[1] == 1 else 2
        self.layout = ffi.new("char[]", b"BSND")
        self.ws, self.ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        self.work = None

    def _list(self, t):
        h = create_tensor(t.shape, acl_dtype(t.dtype), t.strides, t.offset, (t.storage_size,), t.data_ptr)
        return lib.aclCreateTensorList(ffi.new("aclTensor *[]", [h]), 1)

    def __call__(self):
        kl, vl = self._list(self.dev[1]), self._list(self.dev[2])
        try:
            rc = lib.aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
                self.dev[0].handle, kl, vl, self.pse.handle, *[ffi.NULL] * OPTIONAL, self.num_heads, self.scale,
                65535, 65535, self.layout, self.kv_heads, 0, self.inner, 0, 0, False, 0, 0, self.out.handle,
                ffi.NULL, self.ws, self.ex)
            assert rc == 0, aclnn_emu.errors.last_error_message()
            if self.work is None or self.work.nbytes < self.ws[0]:
                self.work = DeviceTensor.empty((max(int(self.ws[0]), 1),), np.uint8)
            rc = lib.aclnnFusedInferAttentionScoreV2(self.work.data_ptr, self.ws[0], self.ex[0], ffi.NULL)
            assert rc == 0, aclnn_emu.errors.last_error_message()
        finally:
            lib.aclDestroyTensorList(kl)
            lib.aclDestroyTensorList(vl)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=0, help="threads for both (0: the library's default)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-torch", action="store_true")
    args = ap.parse_args()
    if args.threads:
        aclnn_emu.set_num_threads(args.threads)
    threads = aclnn_emu.get_num_threads()
    torch = None
    if not args.no_torch:
        try:
            import torch
            import torch.nn.functional as F

            torch.set_num_threads(threads)
        except ImportError:
            torch = None
    print("threads %d, isa %s, torch %s" % (threads, aclnn_emu.get_isa(), torch.__version__ if torch else "absent"))
    head = "%-20s %-24s %12s %10s" % ("shape", "B,S,N,KVN,S2,D", "ours ms", "GFLOP/s")
    if torch:
        head += " %14s %14s %10s %10s" % ("torch f16 ms", "torch f32 ms", "vs f16", "check")
    print(head)
    rng = np.random.default_rng(0)
    for label, B, S, N, KVN, S2, D in SHAPES:
        q = rng.uniform(-1, 1, (B, S, N, D)).astype(np.float16)
        k = rng.uniform(-1, 1, (B, S2, KVN, D)).astype(np.float16)
        v = rng.uniform(-1, 1, (B, S2, KVN, D)).astype(np.float16)
        mask = rng.uniform(-1, 1, (1, 1, S, S2)).astype(np.float16)
        ours = Ours(q, k, v, mask, N, KVN)
        t_ours = timed(ours, args.reps)
        flops = 4.0 * B * N * S * S2 * D
        line = "%-20s %-24s %12.2f %10.1f" % (label, "%d,%d,%d,%d,%d,%d" % (B, S, N, KVN, S2, D), t_ours * 1e3,
                                               flops / t_ours / 1e9)
        if torch:
            def tt(dtype):
                tq = torch.from_numpy(q.astype(np.float32)).permute(0, 2, 1, 3).to(dtype).contiguous()
                tk = torch.from_numpy(k.astype(np.float32)).permute(0, 2, 1, 3).to(dtype).contiguous()
                tv = torch.from_numpy(v.astype(np.float32)).permute(0, 2, 1, 3).to(dtype).contiguous()
                tm = torch.from_numpy(mask.astype(np.float32)).to(dtype)
                fn = lambda: F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, scale=ours.scale,
                                                            enable_gqa=KVN != N)
                with torch.no_grad():
                    return timed(fn, args.reps), fn().float().permute(0, 2, 1, 3).numpy()
            t16, _ = tt(torch.float16)
            t32, ref = tt(torch.float32)
            got = ours.out.numpy().astype(np.float32)
            check = float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30))
            line += " %14.2f %14.2f %9.2fx %10.2e" % (t16 * 1e3, t32 * 1e3, t16 / t_ours, check)
        print(line, flush=True)


if __name__ == "__main__":
    main()
