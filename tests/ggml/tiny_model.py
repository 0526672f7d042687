#!/usr/bin/env python3
"""A tiny Llama model, end to end on llama.cpp's CANN backend (aclnn_emu) against llama.cpp's CPU backend.

    python3 tests/ggml/tiny_model.py                        # f16, q8_0 and q4_0: CANN0 against the CPU
    python3 tests/ggml/tiny_model.py --types f16 --fa on    # with flash attention (FusedInferAttentionScoreV2)
    python3 tests/ggml/tiny_model.py --env GGML_CANN_WEIGHT_NZ=off --json results.json

1. Builds ``llama-simple`` (and so libllama, ggml and ggml-cann) of the pinned
   llama.cpp of the ``llama-cpp-python==0.3.36`` sdist against the installed
   aclnn_emu, with tests/ggml/ggml_backend_ops.py (same cache, same build
   folder as test-backend-ops), and compiles tests/ggml/tiny_model_run.cpp
   against that libllama: llama-simple decodes greedily but prints neither
   logits nor token ids; tiny_model_run does the same decoding and writes both.
2. Writes a tiny Llama-architecture model (32000-token SentencePiece
   vocabulary, 256 wide, 2 layers, 4 query and 2 key/value heads of 64,
   feed-forward 512) with the ``gguf`` package of the same sdist
   (``vendor/llama.cpp/gguf-py``, gguf 0.19.0; an installed ``gguf`` is the
   fallback), in f16, q8_0 and q4_0 (gguf's numpy port of ggml's reference
   quantization). Its tokenizer is copied from
   the vocab-only ``models/ggml-vocab-llama-spm.gguf`` of the sdist. The
   weights are random, from a fixed seed; the output matrix is the token
   embedding matrix with its rows permuted (token t's row moved to the row of
   a random successor s(t)), so that the next token is s(last token) with a
   margin of several logits over the runner-up, while the attention and
   feed-forward layers (random, of the same order as the embedding) move
   every logit: no fp16 rounding or int8 activation quantization can flip a
   greedy choice, and the logits still depend on every operator.
3. Runs tiny_model_run per dtype on ``CANN0`` (every layer and the output
   there, ``-ngl 999``) and on the CPU backend alone (no device given to the
   model): the prompt's logits at every position, then 32 greedy tokens.
   Flash attention is off unless ``--fa on``.
4. Compares: the 32 tokens equal; the NMSE of the prompt's logits (all
   positions), and of the 31 decode steps' logits, against the CPU's, at most
   5e-4 (test-backend-ops' measure: sum((cann - cpu)^2) / sum(cpu^2)); the
   prompt's logits of each backend against a float64 numpy forward of the same
   (dequantized) weights, CANN0's at most 5e-4 too; tokens per second of the
   decode steps on each (``--repeat N``: the best of N runs; on a busy
   machine ``--threads 1 --env ACLNN_EMU_NUM_THREADS=1`` gives steadier
   figures). A CANN run that aborts is reported with the aclnn call and the
   message ggml printed (``aclGetRecentErrMsg()``).

Exits 1 if a dtype did not match (or crashed), 2 if the build failed.
``--simple`` also runs llama-simple -ngl 0 and -ngl 99 on the f16 model (the
two commands of the README) and compares the text they print.

numpy and the standard library.
"""

import argparse
import hashlib
import inspect
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ggml_backend_ops as gbo  # noqa: E402

DRIVER_SOURCE = HERE / "tiny_model_run.cpp"
DRIVER = "tiny-model-run"
SIMPLE = "llama-simple"
VOCAB = "models/ggml-vocab-llama-spm.gguf"
PROMPT = "The capital of France is Paris, and the capital of Italy is"
N_PREDICT = 32
NMSE_MAX = 5e-4
TYPES = ("f16", "q8_0", "q4_0")

# the model (the files are named by a hash of these and of the code that writes them: a change writes new ones)
SEED = 21
N_EMBD = 256
N_LAYER = 2
N_HEAD = 4
N_HEAD_KV = 2
N_FF = 512
N_CTX_TRAIN = 512
RMS_EPS = 1e-5
ROPE_BASE = 10000.0
FIRST_TEXT_TOKEN = 259  # <unk> <s> </s> and the 256 byte tokens come first in the SentencePiece vocabulary


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ the model


def import_gguf(source):
    """The gguf package of the sdist's llama.cpp (the same commit as the C code), else an installed one."""
    vendored = Path(source) / "gguf-py"
    if (vendored / "gguf" / "__init__.py").is_file() and str(vendored) not in sys.path:
        sys.path.insert(0, str(vendored))
    try:
        import yaml  # noqa: F401
    except ImportError:
        # gguf.metadata imports PyYAML when gguf is imported, to read model cards (never used here); without
        # PyYAML (CI's fresh venv), a stand-in that refuses to be used
        def unavailable(*args, **kwargs):
            raise ImportError("PyYAML is not installed (gguf reads model cards with it)")
        stub = types.ModuleType("yaml")
        stub.safe_load = stub.load = stub.safe_dump = stub.dump = unavailable
        sys.modules["yaml"] = stub
    import gguf
    return gguf


def model_tag():
    """A short hash of the model's definition: its constants and the code of make_weights and write_model."""
    text = repr((SEED, N_EMBD, N_LAYER, N_HEAD, N_HEAD_KV, N_FF, N_CTX_TRAIN, RMS_EPS, ROPE_BASE, FIRST_TEXT_TOKEN,
                 VOCAB)) + inspect.getsource(make_weights) + inspect.getsource(write_model)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def model_path(model_dir, dtype):
    return Path(model_dir) / ("tiny-llama-%s-%s.gguf" % (model_tag(), dtype))


def make_weights(n_vocab, seed=SEED):
    """name -> float32 array (numpy shape: rows x columns, i.e. ggml's ne reversed)."""
    rng = np.random.default_rng(seed)
    d, hd = N_EMBD, N_EMBD // N_HEAD

    def normal(rows, cols, gain):
        return (rng.standard_normal((rows, cols)) * (gain / np.sqrt(cols))).astype(np.float32)

    def norm_weight(n):
        return (1.0 + 0.25 * rng.uniform(-1.0, 1.0, n)).astype(np.float32)

    w = {}
    embd = rng.standard_normal((n_vocab, d)).astype(np.float32)
    w["token_embd.weight"] = embd
    for i in range(N_LAYER):
        p = "blk.%d." % i
        w[p + "attn_norm.weight"] = norm_weight(d)
        w[p + "attn_q.weight"] = normal(N_HEAD * hd, d, 1.5)
        w[p + "attn_k.weight"] = normal(N_HEAD_KV * hd, d, 1.5)
        w[p + "attn_v.weight"] = normal(N_HEAD_KV * hd, d, 1.0)
        w[p + "attn_output.weight"] = normal(d, N_HEAD * hd, 1.0)
        w[p + "ffn_norm.weight"] = norm_weight(d)
        w[p + "ffn_gate.weight"] = normal(N_FF, d, 1.0)
        w[p + "ffn_up.weight"] = normal(N_FF, d, 1.0)
        w[p + "ffn_down.weight"] = normal(d, N_FF, 1.0)
    w["output_norm.weight"] = norm_weight(d)
    # the output row of token s(t) is token t's embedding: after t, s(t) scores about sqrt(d) / |h| * |e_t|
    # against about 4.5 (the largest of 32000 unit normals) for the rest. The special and byte tokens are
    # never chosen (zero rows, logit 0).
    text = np.arange(FIRST_TEXT_TOKEN, n_vocab)
    successor = rng.permutation(text)
    output = np.zeros((n_vocab, d), np.float32)
    output[successor] = embd[text] / np.sqrt(d)
    w["output.weight"] = output
    return w


def write_model(path, dtype, source, seed=SEED, weights=None):
    """Writes the tiny model in ``dtype`` (f16, q8_0, q4_0; the 1-D norm weights stay f32) to ``path``
    (``weights``: those of make_weights, when they are made already)."""
    gguf = import_gguf(source)
    vocab = gguf.GGUFReader(str(Path(source) / VOCAB))
    tokens = vocab.fields["tokenizer.ggml.tokens"].contents()
    n_vocab = len(tokens)
    qtype = {"f16": gguf.GGMLQuantizationType.F16, "q8_0": gguf.GGMLQuantizationType.Q8_0,
             "q4_0": gguf.GGMLQuantizationType.Q4_0}[dtype]
    ftype = {"f16": gguf.LlamaFileType.MOSTLY_F16, "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
             "q4_0": gguf.LlamaFileType.MOSTLY_Q4_0}[dtype]

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    writer = gguf.GGUFWriter(str(tmp), "llama")
    writer.add_name("aclnn_emu tiny llama (random weights)")
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_layer_norm_rms_eps(RMS_EPS)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_rope_freq_base(ROPE_BASE)
    writer.add_vocab_size(n_vocab)
    writer.add_file_type(int(ftype))
    # the tokenizer, as it is in the vocab-only file
    for key, field in vocab.fields.items():
        if not key.startswith("tokenizer."):
            continue
        types = field.types
        if types[0] == gguf.GGUFValueType.ARRAY:
            writer.add_key_value(key, field.contents(), types[0], sub_type=types[-1])
        else:
            writer.add_key_value(key, field.contents(), types[0])

    for name, data in (weights if weights is not None else make_weights(n_vocab, seed)).items():
        if data.ndim == 1:
            writer.add_tensor(name, data)
        elif qtype == gguf.GGMLQuantizationType.F16:
            writer.add_tensor(name, data.astype(np.float16))
        else:
            writer.add_tensor(name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(tmp, path)
    return path


def ensure_models(model_dir, types, source):
    paths = {}
    weights = None
    for dtype in types:
        path = model_path(model_dir, dtype)
        if not path.is_file():
            started = time.time()
            if weights is None:
                gguf = import_gguf(source)
                n_vocab = len(gguf.GGUFReader(str(Path(source) / VOCAB)).fields["tokenizer.ggml.tokens"].data)
                weights = make_weights(n_vocab)
            write_model(path, dtype, source, weights=weights)
            log("wrote %s (%.1f MB) in %.1f s" % (path, path.stat().st_size / 1e6, time.time() - started))
        paths[dtype] = path
    return paths


def reference_logits(path, source, tokens):
    """The model's logits for ``tokens`` (positions 0, 1, ...), computed in float64 with numpy from the weights
    as stored (dequantized by gguf): what both backends approximate. llama.cpp's Llama graph: RMS norm, RoPE
    on adjacent pairs (LLAMA_ROPE_TYPE_NORM), causal attention with query head h reading key/value head
    h // (N_HEAD / N_HEAD_KV), SwiGLU feed-forward."""
    gguf = import_gguf(source)
    w = {}
    for t in gguf.GGUFReader(str(path)).tensors:
        a = np.asarray(gguf.quants.dequantize(t.data, t.tensor_type), np.float64)
        w[t.name] = a.reshape([int(n) for n in reversed(t.shape)]) if len(t.shape) > 1 else a.reshape(-1)
    d, hd, group = N_EMBD, N_EMBD // N_HEAD, N_HEAD // N_HEAD_KV
    n = len(tokens)
    pos = np.arange(n, dtype=np.float64)
    angle = pos[:, None] * ROPE_BASE ** (-np.arange(0, hd, 2) / hd)[None, :]
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]

    def rms_norm(x, weight):
        return x / np.sqrt(np.mean(x * x, -1, keepdims=True) + RMS_EPS) * weight

    def rope(x):
        y = np.empty_like(x)
        y[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
        y[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
        return y

    causal = np.triu(np.full((n, n), -np.inf), 1)
    x = w["token_embd.weight"][list(tokens)]
    for i in range(N_LAYER):
        p = "blk.%d." % i
        h = rms_norm(x, w[p + "attn_norm.weight"])
        q = rope((h @ w[p + "attn_q.weight"].T).reshape(n, N_HEAD, hd))
        k = rope((h @ w[p + "attn_k.weight"].T).reshape(n, N_HEAD_KV, hd))
        v = (h @ w[p + "attn_v.weight"].T).reshape(n, N_HEAD_KV, hd)
        heads = np.empty((n, N_HEAD, hd))
        for j in range(N_HEAD):
            score = q[:, j] @ k[:, j // group].T / np.sqrt(hd) + causal
            prob = np.exp(score - score.max(-1, keepdims=True))
            heads[:, j] = (prob / prob.sum(-1, keepdims=True)) @ v[:, j // group]
        x = x + heads.reshape(n, d) @ w[p + "attn_output.weight"].T
        h = rms_norm(x, w[p + "ffn_norm.weight"])
        gate, up = h @ w[p + "ffn_gate.weight"].T, h @ w[p + "ffn_up.weight"].T
        x = x + (gate / (1.0 + np.exp(-gate)) * up) @ w[p + "ffn_down.weight"].T
    return rms_norm(x, w["output_norm.weight"]) @ w["output.weight"].T


# ------------------------------------------------------------------ build


def build_driver(source, build_dir, force=False):
    """tiny_model_run, compiled against the build's libllama (rebuilt when its source or libllama is newer)."""
    bin_dir = Path(build_dir) / "bin"
    binary = bin_dir / DRIVER
    libllama = bin_dir / "libllama.so"
    if (not force and binary.is_file()
            and binary.stat().st_mtime >= max(DRIVER_SOURCE.stat().st_mtime, libllama.stat().st_mtime)):
        return binary
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or "c++"
    cmd = [cxx, "-O2", "-std=c++17", str(DRIVER_SOURCE), "-I", str(Path(source) / "include"),
           "-I", str(Path(source) / "ggml" / "include"), "-L", str(bin_dir), "-lllama", "-lggml", "-lggml-base",
           "-Wl,-rpath," + str(bin_dir), "-o", str(binary)]
    log("$ " + shlex.join(cmd))
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        log(result.stdout[-5000:])
        raise SystemExit(2)
    return binary


def build_all(args):
    """(source, build folder, tiny_model_run, llama-simple): the build of ggml_backend_ops.py, llama-simple
    as its target."""
    cache = gbo.cache_dir(args)
    prefix = gbo.aclnn_emu_prefix(args.python)
    source = gbo.unpack(gbo.get_sdist(cache, args.python), cache)
    simple, build_dir = gbo.build(args, source, prefix, targets=[SIMPLE])
    driver = build_driver(source, build_dir)
    return source, build_dir, driver, simple


# ------------------------------------------------------------------ runs


def nmse(ref, out):
    """test-backend-ops' NMSE: sum((out - ref)^2) / sum(ref^2), in float64."""
    ref = np.asarray(ref, np.float64)
    out = np.asarray(out, np.float64)
    den = float(np.sum(ref * ref))
    return float(np.sum((out - ref) ** 2)) / den if den > 0 else float(np.sum((out - ref) ** 2))


def run_driver(driver, model, device, logits_path, args, env):
    """One tiny_model_run process; its JSON result with the logits read back (or the crash's reason)."""
    cmd = [str(driver), "-m", str(model), "-dev", device, "-fa", args.fa, "-n", str(args.n_predict),
           "-o", str(logits_path), "-p", args.prompt]
    if args.threads:
        cmd += ["-t", str(args.threads)]
    started = time.time()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=args.timeout)
        out, err, rc, timed_out = proc.stdout, proc.stderr, proc.returncode, False
    except subprocess.TimeoutExpired as e:
        out, err, rc, timed_out = e.stdout or b"", e.stderr or b"", None, True
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")
    res = {"device": device, "cmd": shlex.join(cmd), "returncode": rc, "seconds": round(time.time() - started, 2),
           "ok": False, "reason": None}
    log_file = Path(str(logits_path) + ".log")
    log_file.write_text("$ %s\n--- exit %s\n--- stdout\n%s\n--- stderr\n%s" % (res["cmd"], rc, out, err))
    res["log"] = str(log_file)
    line = next((x for x in reversed(out.splitlines()) if x.startswith("{")), None)
    if timed_out:
        res["reason"] = "timed out after %.0f s" % args.timeout
    elif rc != 0 or line is None:
        res["reason"] = (gbo.crash_reason(err, rc) or gbo.crash_reason(out, rc)
                         or gbo.fallback_reason(out, err, rc))
    else:
        res.update(json.loads(line))
        rows = len(res["prompt_tokens"]) + res["decode_steps"]
        logits = np.fromfile(logits_path, np.float32)
        if logits.size != rows * res["n_vocab"]:
            res["reason"] = "%s: %d floats, expected %d" % (logits_path, logits.size, rows * res["n_vocab"])
        else:
            res["logits"] = logits.reshape(rows, res["n_vocab"])
            res["ok"] = True
            res["tokens_per_s"] = res["decode_steps"] / res["decode_s"] if res["decode_s"] > 0 else None
    return res


def compare(cpu, cann, reference=None):
    """The verdict on one dtype: tokens, NMSE of the prompt's and the decode steps' logits, speed; with
    ``reference`` (the prompt's float64 logits), each backend's NMSE against it too."""
    v = {"cpu_ok": cpu["ok"], "cann_ok": cann["ok"], "cpu_reason": cpu["reason"], "cann_reason": cann["reason"],
         "cpu_log": cpu.get("log"), "cann_log": cann.get("log")}
    if cpu["ok"]:
        v.update(cpu_tokens=cpu["tokens"], cpu_min_margin=min(cpu["margins"]), cpu_tokens_per_s=cpu["tokens_per_s"],
                 prompt_tokens=cpu["prompt_tokens"])
    if cann["ok"]:
        v.update(cann_tokens=cann["tokens"], cann_min_margin=min(cann["margins"]),
                 cann_tokens_per_s=cann["tokens_per_s"])
    if cpu["ok"] and cann["ok"]:
        n_prompt = len(cpu["prompt_tokens"])
        same = cpu["tokens"] == cann["tokens"]
        first = next((i for i, (a, b) in enumerate(zip(cpu["tokens"], cann["tokens"])) if a != b), None)
        v.update(same_prompt_tokens=cpu["prompt_tokens"] == cann["prompt_tokens"], same_tokens=same,
                 first_different=first,
                 prompt_nmse=nmse(cpu["logits"][:n_prompt], cann["logits"][:n_prompt]),
                 # the decode steps' logits compare only as long as both fed the same tokens
                 decode_nmse=nmse(cpu["logits"][n_prompt:n_prompt + (first if first is not None else 10 ** 9)],
                                  cann["logits"][n_prompt:n_prompt + (first if first is not None else 10 ** 9)]),
                 max_abs_diff=float(np.max(np.abs(cpu["logits"][:n_prompt] - cann["logits"][:n_prompt]))))
        if v["cann_tokens_per_s"] and v["cpu_tokens_per_s"]:
            v["speed_ratio"] = v["cann_tokens_per_s"] / v["cpu_tokens_per_s"]
    for name, run in (("cpu", cpu), ("cann", cann)):
        if reference is not None and run["ok"]:
            v[name + "_reference_nmse"] = nmse(reference, run["logits"][:len(reference)])
    v["passed"] = bool(cpu["ok"] and cann["ok"] and v["same_prompt_tokens"] and v["same_tokens"]
                       and v["prompt_nmse"] <= NMSE_MAX and v["decode_nmse"] <= NMSE_MAX
                       and v.get("cann_reference_nmse", 0.0) <= NMSE_MAX)
    return v


def run_simple(simple, model, ngl, args, env):
    cmd = [str(simple), "-m", str(model), "-n", str(args.n_predict), "-ngl", str(ngl), args.prompt]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=args.timeout)
        out, err, rc = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"), proc.returncode
    except subprocess.TimeoutExpired:
        return {"cmd": shlex.join(cmd), "ok": False, "reason": "timed out", "text": None}
    res = {"cmd": shlex.join(cmd), "returncode": rc, "ok": rc == 0, "text": out if rc == 0 else None,
           "reason": None if rc == 0 else (gbo.crash_reason(err, rc) or gbo.fallback_reason(out, err, rc))}
    speed = [x for x in err.splitlines() if "speed:" in x]
    res["speed"] = speed[-1].strip() if speed else None
    return res


def fmt(x, spec):
    return "-" if x is None else spec % x


def print_table(verdicts):
    head = ("dtype", "result", "tokens", "prompt NMSE", "decode NMSE", "CPU/f64 NMSE", "CANN0/f64 NMSE",
            "min margin", "CPU tok/s", "CANN0 tok/s", "ratio", "why not")
    rows = []
    for dtype, v in verdicts.items():
        why = "" if v["passed"] else (
            ("CANN0: " + v["cann_reason"]) if not v["cann_ok"] else ("CPU: " + v["cpu_reason"]) if not v["cpu_ok"]
            else "first different token at %s" % v["first_different"] if not v["same_tokens"] else "NMSE")
        rows.append((dtype, "passed" if v["passed"] else "FAILED",
                     "-" if "same_tokens" not in v else ("same" if v["same_tokens"] else "differ"),
                     fmt(v.get("prompt_nmse"), "%.2e"), fmt(v.get("decode_nmse"), "%.2e"),
                     fmt(v.get("cpu_reference_nmse"), "%.2e"), fmt(v.get("cann_reference_nmse"), "%.2e"),
                     fmt(v.get("cpu_min_margin"), "%.2f"), fmt(v.get("cpu_tokens_per_s"), "%.1f"),
                     fmt(v.get("cann_tokens_per_s"), "%.1f"), fmt(v.get("speed_ratio"), "%.2f"), why[:200]))
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head) - 1)]
    f = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    print(f % head)
    for r in rows:
        print(f % r)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--types", default=",".join(TYPES), help="comma separated: f16,q8_0,q4_0 (default all)")
    p.add_argument("--fa", default="off", choices=("off", "on", "auto"), help="flash attention (default off)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="environment of the CANN0 runs, e.g. GGML_CANN_WEIGHT_NZ=off (repeatable)")
    p.add_argument("--prompt", default=PROMPT)
    p.add_argument("--n-predict", type=int, default=N_PREDICT)
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="CPU backend threads (default: the usable cores, as many as aclnn_emu uses)")
    p.add_argument("--timeout", type=float, default=300, help="seconds per run (default 300)")
    p.add_argument("--repeat", type=int, default=1, help="runs of each for the tokens per second (the fastest)")
    p.add_argument("--model-dir", help="where the models go (default <build>/tiny-model)")
    p.add_argument("--simple", action="store_true", help="also llama-simple -ngl 0 / -ngl 99 on the f16 model")
    p.add_argument("--cache-dir", help="as for ggml_backend_ops.py")
    p.add_argument("--build-dir", help="as for ggml_backend_ops.py")
    p.add_argument("--python", default=sys.executable, help="the Python whose aclnn_emu is built against")
    p.add_argument("--jobs", "-j", type=int, default=2, help="build jobs (default 2)")
    p.add_argument("--cmake-arg", action="append", default=[], help="one more configure argument (repeatable)")
    p.add_argument("--no-build", action="store_true", help="use the built binaries as they are")
    p.add_argument("--json", metavar="FILE", help="write the verdicts as JSON")
    args = p.parse_args(argv)
    types = [t for t in args.types.split(",") if t]
    for t in types:
        if t not in TYPES:
            p.error("unknown type %r (one of %s)" % (t, ", ".join(TYPES)))
    extra_env = {}
    for item in args.env:
        if "=" not in item:
            p.error("--env wants KEY=VALUE, got %r" % item)
        k, v = item.split("=", 1)
        extra_env[k] = v

    source, build_dir, driver, simple = build_all(args)
    model_dir = Path(args.model_dir) if args.model_dir else build_dir / "tiny-model"
    models = ensure_models(model_dir, types, source)
    runs = model_dir / "runs"
    runs.mkdir(parents=True, exist_ok=True)

    env = dict(os.environ)
    env.setdefault("GGML_NO_BACKTRACE", "1")  # ggml would otherwise attach gdb to print a backtrace
    cann_env = dict(env, **extra_env)
    verdicts = {}
    for dtype in types:
        tag = "%s-fa%s" % (dtype, args.fa)
        cpu = run_driver(driver, models[dtype], "none", runs / ("%s-cpu.f32" % tag), args, env)
        cann = run_driver(driver, models[dtype], "CANN0", runs / ("%s-cann0.f32" % tag), args, cann_env)
        for _ in range(args.repeat - 1):  # timing only: the fastest decode of each, runs taken in turn
            for run, device, e in ((cpu, "none", env), (cann, "CANN0", cann_env)):
                if run["ok"]:
                    again = run_driver(driver, models[dtype], device, runs / ("%s-again.f32" % tag), args, e)
                    if again["ok"]:
                        run["tokens_per_s"] = max(run["tokens_per_s"], again["tokens_per_s"])
        tokens = cpu["prompt_tokens"] if cpu["ok"] else cann["prompt_tokens"] if cann["ok"] else None
        reference = reference_logits(models[dtype], source, tokens) if tokens else None
        v = compare(cpu, cann, reference)
        v.update(model=str(models[dtype]), cpu_cmd=cpu["cmd"], cann_cmd=cann["cmd"], cpu_seconds=cpu["seconds"],
                 cann_seconds=cann["seconds"], env=extra_env, flash_attn=args.fa)
        verdicts[dtype] = v
        log("%-5s %s: CPU %s, CANN0 %s%s" % (
            dtype, "passed" if v["passed"] else "FAILED", "ok" if cpu["ok"] else cpu["reason"],
            "ok" if cann["ok"] else cann["reason"],
            "" if "prompt_nmse" not in v else ", tokens %s, prompt NMSE %.2e, decode NMSE %.2e" % (
                "same" if v["same_tokens"] else "differ from %d" % v["first_different"], v["prompt_nmse"],
                v["decode_nmse"])))

    simple_runs = None
    if args.simple and "f16" in models:
        simple_runs = {"cpu": run_simple(simple, models["f16"], 0, args, env),
                       "cann": run_simple(simple, models["f16"], 99, args, cann_env)}
        s = simple_runs
        s["same_text"] = bool(s["cpu"]["ok"] and s["cann"]["ok"] and s["cpu"]["text"] == s["cann"]["text"])
        for k in ("cpu", "cann"):
            log("llama-simple %s: %s" % (k, s[k]["speed"] if s[k]["ok"] else s[k]["reason"]))

    print()
    print("prompt: %r, %d greedy tokens, flash attention %s%s" % (
        args.prompt, args.n_predict, args.fa, (", CANN0 with " + " ".join("%s=%s" % kv for kv in extra_env.items()))
        if extra_env else ""))
    print_table(verdicts)
    if simple_runs:
        print("\nllama-simple (f16): %s" % ("same text on CANN0 (-ngl 99) as on the CPU (-ngl 0)"
                                           if simple_runs["same_text"] else "DIFFERENT: %s" % {
                                               k: simple_runs[k]["reason"] or simple_runs[k]["text"]
                                               for k in ("cpu", "cann")}))
    print("\nby hand (llama-simple lets llama.cpp choose flash attention):")
    for ngl, where in ((0, "the CPU"), (99, "CANN0")):
        print("  %s  # %s" % (shlex.join([str(simple), "-m", str(models[types[0]]), "-n", str(args.n_predict),
                                          "-ngl", str(ngl), args.prompt]), where))
    if args.json:
        Path(args.json).write_text(json.dumps({"verdicts": verdicts, "simple": simple_runs}, indent=1))
    return 0 if all(v["passed"] for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
