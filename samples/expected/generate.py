#!/usr/bin/env python3
"""Writes the expected output of every sample in samples/ to samples/expected/<sample>.txt.

Each value is computed here, independently of aclnn_emu, in float64 with
numpy from the inputs the sample's .cpp builds (read each one to follow
along), then rounded to the dtype the operator writes where that matters
(fp16 overflow, bf16). Where CANN's documentation or the reference notes
give values, they are asserted against this computation.

An expected file is the sample's output, line for line, with every checked
value written as a placeholder (samples/check_sample.cmake reads them):

    {~ WANT LO HI}   a finite number in [LO, HI]; WANT is the float64 value
    {= TEXT}         exactly TEXT (integers, hashes, exact results)
    {inf N}          exactly N, a count of inf elements (named in the verdict)

Lines starting with '#' are comments; '#! source: ...' and '#! inf: ...'
give the wording of the verdict line.

Usage:  python3 samples/expected/generate.py          (rewrites the files)
        python3 samples/expected/generate.py --check  (exit 1 if a file differs)
Needs numpy; takes about half a minute and 1.2 GB (the FusedFloydAttentionGrad case).
"""
import argparse
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SOURCE = "values computed in float64 from the sample's inputs"

# Tolerances, by the dtype of the printed value.
REL_FP32 = 1e-5
REL_FP16 = 1e-3
HALF_DIGIT_F = 0.5e-6  # printf %f rounds to 6 decimals


def approx(want, rel=REL_FP32, abs_tol=0.0):
    want = float(want)
    tol = rel * abs(want) + float(abs_tol)
    return within(want, want - tol, want + tol)


def within(want, lo, hi):
    want, lo, hi = float(want), float(lo), float(hi)
    assert math.isfinite(want) and lo <= want <= hi, (want, lo, hi)
    return "{~ %r %r %r}" % (want, lo, hi)


def fixed(want, rel=REL_FP32):
    """A float32 value the sample prints with %f."""
    return approx(want, rel, HALF_DIGIT_F)


def exact(text):
    return "{= %s}" % text


def infs(count):
    return "{inf %d}" % count


def c_f(value):
    """printf("%f") of a float32 value (promoted to double, as a vararg is)."""
    return "%f" % float(np.float32(value))


def header(program, notes=(), inf_note=None, source=SOURCE):
    lines = ["# Expected output of samples/%s," % program,
             "# checked by samples/check_sample.cmake; written by samples/expected/generate.py",
             "# (edit that, not this file)."]
    lines += ["# " + note for note in notes]
    lines.append("#! source: " + source)
    if inf_note:
        lines.append("#! inf: " + inf_note)
    return lines


def to_bf16(values):
    """float64 -> bf16 bit patterns, round to nearest even (through float32)."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def from_bf16(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


# ---------------------------------------------------------------- SiluBackward
def silu_backward():
    grad_out = np.ones(6)
    x = np.array([1, 2, 3, 4, 5, 6], np.float64)
    sig = 1.0 / (1.0 + np.exp(-x))
    grad_in = grad_out * sig * (1.0 + x * (1.0 - sig))
    # The reference notes (cann_facts.md, "Expected outputs of the seed samples").
    documented = [0.92767051, 1.09078425, 1.08810411, 1.05266461, 1.02654743, 1.01232643]
    assert np.allclose(grad_in, documented, rtol=0, atol=1e-8), grad_in
    lines = header("silu_backward/test_aclnn_silu_grad.cpp",
                   ["fp32 [2,3], gradOutput 1, self 1..6: sigmoid(x) * (1 + x * (1 - sigmoid(x))).",
                    "The same six values as the reference notes on CANN's sample."])
    lines += ["out result[%d] is: %s" % (i, fixed(v)) for i, v in enumerate(grad_in)]
    return lines


# ---------------------------------------------------------------- MoeTokenPermute + Grad
def moe_token_permute():
    x = np.array([0.1] * 4 + [0.2] * 4 + [0.3] * 4, np.float32).astype(np.float64).reshape(3, 4)
    indices = np.array([1, 2, 0, 1, 0, 2], np.int64).reshape(3, 2)
    topk = indices.shape[1]
    flat = indices.reshape(-1)
    sorted_indices = np.argsort(np.argsort(flat, kind="stable"), kind="stable")  # slot -> permuted row
    permuted = np.zeros((flat.size, x.shape[1]))
    permuted[sorted_indices] = x[np.arange(flat.size) // topk]
    # backward fed the permuted rows: each token's topk copies summed
    grad = np.zeros_like(x)
    for t in range(x.shape[0]):
        for k in range(topk):
            grad[t] += permuted[sorted_indices[t * topk + k]]
    assert list(sorted_indices) == [2, 4, 0, 3, 1, 5]
    assert np.allclose(permuted[:, 0], [0.2, 0.3, 0.1, 0.2, 0.1, 0.3])
    assert np.allclose(grad[:, 0], [0.2, 0.4, 0.6])
    lines = header("moe_token_permute/test_aclnn_moe_token_permute.cpp",
                   ["x fp32 [3,4] rows 0.1/0.2/0.3, expert ids {1,2,0,1,0,2}; sortedIndicesOut =",
                    "argsort(argsort(ids)); the backward sums each token's two permuted rows."])
    lines += ["permuteTokensOut row %d is: %s" % (i, fixed(permuted[i, 0])) for i in range(flat.size)]
    lines += ["sortedIndicesOut[%d] is: %s" % (i, exact(int(v))) for i, v in enumerate(sorted_indices)]
    lines += ["tokens grad row %d is: %s" % (t, fixed(grad[t, 0])) for t in range(x.shape[0])]
    return lines


def moe_token_permute_grad():
    # The sample fills a BF16 [2,2] tensor, an INT32 [2] tensor and a BF16 [1,2]
    # output from std::vector<float>: the device reads the bytes of those floats.
    grad_bytes = np.array([1, 2, 3, 4], np.float32).tobytes()
    grad = from_bf16(np.frombuffer(grad_bytes[:2 * 4], np.uint16)).reshape(2, 2)  # [[0, 1], [0, 2]]
    sorted_indices = np.frombuffer(np.array([0, 1], np.float32).tobytes(), np.int32)  # [0, 1065353216]
    out_buffer = bytearray(np.zeros(2, np.float32).tobytes())  # outData {0, 0}: 8 bytes
    topk, rows = 2, grad.shape[0]
    tokens = sorted_indices.size // topk
    out = np.zeros((tokens, grad.shape[1]))
    for t in range(tokens):
        for k in range(topk):
            index = int(sorted_indices[t * topk + k])
            if index < rows:  # an index past the rows is skipped
                out[t] += grad[index]
    out_buffer[:out.size * 2] = to_bf16(out.reshape(-1)).tobytes()
    printed = np.frombuffer(bytes(out_buffer), np.float32)  # PrintOutResult reads 2 floats
    assert list(printed) == [1.0, 0.0]  # the reference notes: 1.000000 then 0.000000
    lines = header("moe_token_permute_grad/test_aclnn_moe_token_permute_grad.cpp",
                   ["BF16 and INT32 tensors filled from std::vector<float>, as in CANN's sample: the",
                    "operator reads bf16 rows [0, 1] and [0, 2] and indices {0, 1065353216} (skipped);",
                    "out = bf16 [0, 1], which the sample prints as floats: 1.0, then untouched 0.0."],
                   source="values computed in float64 from the bytes of the sample's inputs")
    lines += ["mean result[%d] is: %s" % (i, fixed(v)) for i, v in enumerate(printed)]
    return lines


# ---------------------------------------------------------------- RotaryPositionEmbeddingGrad
def rotary_position_embedding_grad():
    dy = np.array([
        74, 54, 84, 125, 23, 78, 37, 72, 27, 98, 34, 107, 29, 23, 54, 60, 70, 49, 119, 54, 29, 54,
        41, 99, 27, 62, 5, 46, 108, 39, 24, 123, 33, 82, 6, 40, 88, 24, 6, 116, 38, 119, 110, 5,
        30, 79, 87, 18, 29, 100, 90, 24, 21, 93, 63, 68, 34, 112, 119, 48, 74, 43, 85, 64, 14, 49,
        128, 59, 18, 37, 123, 76, 14, 63, 10, 39, 107, 124, 79, 16, 17, 76, 80, 47, 90, 41, 58, 82,
        75, 80, 69, 37, 74, 36, 54, 26, 32, 54, 13, 100, 105, 15, 13, 69, 122, 26, 94, 59, 29, 14,
        60, 8, 24, 17, 45, 33, 107, 122, 63, 111, 75, 128, 68, 31, 105, 6, 82, 99], np.float64)
    cos = np.array([
        41, 37, 17, 25, 49, 25, 22, 24, 110, 120, 107, 3, 82, 66, 75, 86, 85, 115, 110, 56, 52, 39,
        86, 23, 36, 71, 20, 73, 113, 25, 114, 56, 125, 80, 95, 82, 31, 63, 99, 62, 23, 55, 30, 99,
        42, 121, 15, 24, 97, 87, 81, 67, 43, 21, 13, 9, 33, 29, 117, 10, 114, 61, 98, 15, 78, 108,
        48, 97, 1, 3, 78, 109, 57, 46, 47, 56, 50, 66, 81, 77, 17, 128, 68, 121, 47, 91, 114, 125,
        51, 108, 31, 15, 47, 78, 109, 115, 113, 26, 53, 97, 1, 111, 103, 58, 106, 68, 11, 104, 22, 79,
        61, 127, 86, 39, 33, 123, 102, 39, 64, 41, 119, 120, 61, 29, 94, 68, 36, 12], np.float64)
    sin = np.array([
        46, 56, 56, 101, 66, 10, 96, 16, 86, 57, 102, 66, 12, 105, 76, 58, 90, 6, 79, 128, 126, 82,
        41, 3, 45, 7, 66, 4, 46, 22, 31, 26, 37, 63, 97, 84, 91, 90, 47, 77, 90, 34, 41, 83,
        91, 108, 120, 13, 90, 32, 85, 37, 119, 31, 51, 82, 122, 125, 7, 116, 121, 108, 38, 56, 100, 20,
        97, 119, 10, 4, 53, 13, 46, 82, 103, 119, 124, 80, 23, 67, 78, 56, 119, 122, 40, 58, 128, 27,
        30, 52, 71, 42, 123, 69, 4, 5, 116, 97, 38, 107, 8, 4, 65, 120, 40, 22, 60, 44, 48, 66,
        68, 125, 4, 93, 112, 112, 113, 90, 94, 23, 104, 39, 85, 84, 64, 128, 96, 119], np.float64)
    # mode 1 (interleave): y[2i] = x[2i]cos[2i] - x[2i+1]sin[2i], y[2i+1] = x[2i+1]cos[2i+1] + x[2i]sin[2i+1];
    # dx is its transpose applied to dy.
    dx = dy * cos
    dx[0::2] += dy[1::2] * sin[1::2]
    dx[1::2] -= dy[0::2] * sin[0::2]
    # The reference notes: dx[0..3] and the sum; every value an integer, so fp32 is exact.
    assert list(dx[:4]) == [6058, -1406, 14053, -1579] and dx.sum() == 479278
    assert np.all(dx == np.round(dx)) and np.abs(dx).max() < 2 ** 24
    lines = header("rotary_position_embedding_grad/test_aclnn_rotary_position_embedding_grad.cpp",
                   ["fp32 [1,1,1,128], mode 1 (interleave), x NULL: every dx is an integer, so exact."])
    lines += ["result[%d] is: %s" % (i, exact(c_f(v))) for i, v in enumerate(dx)]
    return lines


# ---------------------------------------------------------------- RotaryMulGrad
def lcg_fill(count, seed):
    """The sample's Fill(): seed = seed * 1664525 + 1013904223 (mod 2^32), e = (seed >> 8) / 2^23 - 1."""
    a, c, mask = 1664525, 1013904223, 0xFFFFFFFF
    block = min(count, 1 << 16)
    first = np.empty(block, np.uint64)
    s = seed
    for i in range(block):
        s = (s * a + c) & mask
        first[i] = s
    # The affine map of `block` steps, to jump a whole block at once.
    mul, add = 1, 0
    for _ in range(block):
        mul, add = (mul * a) & mask, (add * a + c) & mask
    out = np.empty(count, np.uint64)
    out[:block] = first
    for start in range(block, count, block):
        end = min(start + block, count)
        prev = out[start - block:end - block]
        out[start:end] = (prev * np.uint64(mul) + np.uint64(add)) & np.uint64(mask)
    # exact in float32 and in float64 alike
    return (out >> np.uint64(8)).astype(np.float64) / 8388608.0 - 1.0


def rotary_mul_grad():
    s8k, s2k = 8192, 2048
    cases = [("case1", (2, s8k, 5, 128), (1, s8k, 1, 128)),
             ("case2", (s8k, 2, 5, 128), (s8k, 1, 1, 128)),
             ("case3", (s2k, 4, 32, 64), (s2k, 4, 1, 64))]
    lines = header("rotary_mul_grad/test_rotary_mul_grad.cpp",
                   ["The sample's three cases, each with and without x; its inputs are its own LCG.",
                    "dx = r1*dy + rotate_half^T(r2*dy), dr1 = sum(dy*x), dr2 = sum(dy*rotate_half(x))",
                    "over the broadcast axes. A max rel error must be under the sample's own limit",
                    "(1e-6 dx, 1e-5 dr1/dr2); a checksum (sum of an output) within 1e-5 of itself plus",
                    "1e-8 of the sum of |values| (fp32 rounding of millions of values)."])

    def rotate_half(t):
        h = t.shape[-1] // 2
        return np.concatenate([-t[..., h:], t[..., :h]], axis=-1)

    def checksum(values):
        return approx(values.sum(), REL_FP32, 1e-8 * np.abs(values).sum())

    for name, x_shape, r_shape in cases:
        n, nr = int(np.prod(x_shape)), int(np.prod(r_shape))
        x = lcg_fill(n, 1).reshape(x_shape)
        dy = lcg_fill(n, 2).reshape(x_shape)
        r1 = lcg_fill(nr, 3).reshape(r_shape)
        r2 = lcg_fill(nr, 4).reshape(r_shape)
        axes = tuple(a for a in range(len(x_shape)) if r_shape[a] == 1 and x_shape[a] != 1)
        g2 = r2 * dy  # broadcast
        h = x_shape[-1] // 2
        dx = r1 * dy + np.concatenate([g2[..., h:], -g2[..., :h]], axis=-1)  # rotate_half^T
        dr1 = (dy * x).sum(axis=axes, keepdims=True)
        dr2 = (dy * rotate_half(x)).sum(axis=axes, keepdims=True)
        assert dr1.shape == r_shape
        for need_backward in (1, 0):
            prefix = "%s need_backward=%d: " % (name, need_backward)
            lines.append(prefix + "dx max rel error %s checksum %s" % (within(0, 0, 1e-6), checksum(dx)))
            if need_backward:
                lines.append(prefix + "dr1 max rel error %s checksum %s" % (within(0, 0, 1e-5), checksum(dr1)))
                lines.append(prefix + "dr2 max rel error %s checksum %s" % (within(0, 0, 1e-5), checksum(dr2)))
            lines.append(prefix + "PASS")
        del x, dy, dx, g2
    lines.append("RotaryMulGrad cases failed: %s" % exact(0))
    return lines


# ---------------------------------------------------------------- FusedFloydAttentionGrad
def fnv1a(data):
    h = 1469598103934665603
    for byte in data:
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def fused_floyd_attention_grad():
    B, H, N, M, K, D = 1, 1, 256, 256, 256, 128  # S1, S2, S3, D
    scale = 1.0 / math.sqrt(128)

    def fp16_tensor(shape):
        """A FLOAT16 tensor filled from std::vector<float>(size, 1.0): the first half of the bytes."""
        size = int(np.prod(shape))
        raw = np.full(size, 1.0, np.float32).view(np.uint16)[:size]  # 0x0000, 0x3F80, ...
        return raw.view(np.float16).astype(np.float64).reshape(shape)

    q = fp16_tensor((B, H, N, M, D))[0, 0]
    k1, v1 = fp16_tensor((B, H, N, K, D))[0, 0], fp16_tensor((B, H, N, K, D))[0, 0]
    k2, v2 = fp16_tensor((B, H, K, M, D))[0, 0], fp16_tensor((B, H, K, M, D))[0, 0]
    dy = fp16_tensor((B, H, N, M, D))[0, 0]
    attention_in = fp16_tensor((B, H, N, M, D))[0, 0]
    mask = np.zeros((N, K), bool)  # UINT8, all 0: nothing masked
    softmax_max = np.full((N, M), 3.0)  # FLOAT, read as it is
    softmax_sum = np.full((N, M), 3.0)

    def by_m(t):  # [K, M, D] -> [M, K, D]
        return t.transpose(1, 0, 2)

    s = scale * (q @ k1.transpose(0, 2, 1) + (q.transpose(1, 0, 2) @ by_m(k2).transpose(0, 2, 1)).transpose(1, 0, 2))
    s[np.broadcast_to(mask[:, None, :], s.shape)] = np.finfo(np.float32).min
    p = np.exp(s - softmax_max[..., None]) / softmax_sum[..., None]  # [N, M, K]
    del s
    dp = dy @ v1.transpose(0, 2, 1) + (dy.transpose(1, 0, 2) @ by_m(v2).transpose(0, 2, 1)).transpose(1, 0, 2)
    d_sum = (dy * attention_in).sum(-1)
    ds = p * (dp - d_sum[..., None])
    del dp
    ds_m = ds.transpose(1, 0, 2)  # [M, N, K]
    p_m = p.transpose(1, 0, 2)
    dy_m = dy.transpose(1, 0, 2)  # [M, N, D]
    with np.errstate(over="ignore"):
        outputs = [
            ("dq", scale * (ds @ k1 + (ds_m @ by_m(k2)).transpose(1, 0, 2))),
            ("dk1", scale * (ds.transpose(0, 2, 1) @ q)),
            ("dv1", p.transpose(0, 2, 1) @ dy),
            ("dk2", by_m(scale * (ds_m.transpose(0, 2, 1) @ q.transpose(1, 0, 2)))),
            ("dv2", by_m(p_m.transpose(0, 2, 1) @ dy_m)),
        ]
        outputs = [(name, value.astype(np.float16)) for name, value in outputs]  # the fp16 outputs
    del p, ds, ds_m, p_m
    lines = header("fused_floyd_attention_grad/test_aclnn_fused_floyd_attention_grad.cpp",
                   ["B=1, N=1, S1=S2=S3=256, D=128. The FLOAT16 tensors are filled from std::vector<float>",
                    "of 1.0, so the operator reads 0 and 1.875 alternating along D. S is about 39.8 and,",
                    "with softmaxMax = softmaxSum = 3.0, P = exp(S - 3)/3 is about 3e15: every odd-d",
                    "gradient exceeds fp16's 65504 and is +inf, as on the NPU; even-d ones are exactly 0.",
                    "Each output: element counts, the sum of the finite ones, the FNV-1a hash of its fp16",
                    "bytes, and the first 4 floats of its buffer as the sample reads it (fp16 pairs)."],
                   inf_note="fp16 overflow of the sample's own inputs")
    hashes = {}
    total_infs = 0
    for name, half in outputs:
        flat = half.reshape(-1)
        bits = flat.view(np.uint16)
        finite = flat[np.isfinite(flat)].astype(np.float64)
        n_inf = int(np.isinf(flat).sum())
        total_infs += n_inf
        data = bits.astype("<u2").tobytes()
        if data not in hashes:
            hashes[data] = fnv1a(data)
        line = "%s: %s values, %s zero, %s inf, %s nan, finite sum %s, fnv1a %s" % (
            name, exact(flat.size), exact(int((finite == 0).sum())), infs(n_inf),
            exact(int(np.isnan(flat).sum())),
            approx(finite.sum(), REL_FP32, REL_FP16 * np.abs(finite).sum()), exact(hashes[data]))
        lines.append(line)
        # PrintOutResult reads floats from the output's buffer: fp16 pairs as float32
        buffer = data + bytes(2 * flat.size)  # the rest of the buffer keeps its zeros
        for i, value in enumerate(np.frombuffer(buffer[:16], "<f4")):
            lines.append("mean result[%d] is: %s" % (i, fixed(value)))
    assert total_infs > 0
    return lines


SAMPLES = {
    "silu_backward": silu_backward,
    "moe_token_permute_grad": moe_token_permute_grad,
    "moe_token_permute": moe_token_permute,
    "rotary_position_embedding_grad": rotary_position_embedding_grad,
    "rotary_mul_grad": rotary_mul_grad,
    "fused_floyd_attention_grad": fused_floyd_attention_grad,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files instead of writing them")
    parser.add_argument("samples", nargs="*", default=list(SAMPLES), help="samples to generate (default: all)")
    args = parser.parse_args()
    stale = []
    for name in args.samples:
        text = "\n".join(SAMPLES[name]()) + "\n"
        path = HERE / (name + ".txt")
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print("wrote", path.relative_to(HERE.parent.parent))
    if stale:
        print("out of date (run samples/expected/generate.py):", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
