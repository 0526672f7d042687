#!/usr/bin/env python3
"""llama.cpp's CANN backend (ggml-cann) and its ``test-backend-ops``, built against the installed aclnn_emu.

    python3 tests/ggml/ggml_backend_ops.py                      # the element-wise ops (the default)
    python3 tests/ggml/ggml_backend_ops.py --ops ADD,MUL --env GGML_CANN_MEM_POOL=leg
    python3 tests/ggml/ggml_backend_ops.py --ops expected       # tests/ggml/expected_pass.txt only
    python3 tests/ggml/ggml_backend_ops.py --ops expected --together   # the same ops in one process
    python3 tests/ggml/ggml_backend_ops.py --ops all --write-docs docs/ggml_backend_ops.md

1. Gets the pinned llama.cpp, vendored in the ``llama-cpp-python==0.3.36``
   source distribution, with ``pip download`` (the package index is the only
   network it needs), into a cache folder (``--cache-dir``, else
   ``$ACLNN_EMU_GGML_CACHE``, else ``~/.cache/aclnn_emu/ggml``), and unpacks
   it there. llama.cpp is never copied into this repository.
2. Configures ggml-cann with ``CANN_INSTALL_DIR=$(python -m aclnn_emu
   --prefix)`` (the Python running this script, or ``--python``) and builds
   ``test-backend-ops`` in a build folder of the cache, one per prefix. The
   build is incremental: a header of ours that changed recompiles what
   includes it (the compiler's dependency files track them); when the
   installed library changed, ggml-cann is relinked. ``--also-build
   llama-simple`` builds more targets of the same tree (llama.cpp's examples
   are configured; tests/ggml/tiny_model.py builds llama-simple this way).
3. Runs ``test-backend-ops test -b CANN0 -o OP`` once per op, each in its own
   process (ggml aborts the process at the first failing aclnn call), with a
   timeout, and keeps each output in ``<build>/logs/``.
4. Prints a table per op: passed / failed / not supported / crashed, the
   counts of cases, and the first failure or the crash's reason (the aclnn
   call and aclGetRecentErrMsg() that ggml prints before it aborts);
   ``--write-docs FILE`` puts it, as Markdown, between the marker comments of
   FILE.
5. Exits 1 if an op of ``tests/ggml/expected_pass.txt`` that ran failed (a
   FAIL case), crashed or timed out, 2 if the build failed (with a summary of
   the missing headers, undeclared names and undefined references), 0
   otherwise. An expected op with no case to run (ADD1: the pinned
   test-backend-ops has none) or none that ggml-cann supports is named in a
   note, not counted as a failure.

Standard library only.
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

LLAMA_CPP_PYTHON = "llama-cpp-python"
VERSION = "0.3.36"
SDIST = "llama_cpp_python-%s.tar.gz" % VERSION
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
SOC_TYPE = "Ascend910B3"
TARGET = "test-backend-ops"

HERE = Path(__file__).resolve().parent
EXPECTED_FILE = HERE / "expected_pass.txt"
DOCS_BEGIN = "<!-- ggml-backend-ops:begin (written by tests/ggml/ggml_backend_ops.py --write-docs) -->"
DOCS_END = "<!-- ggml-backend-ops:end -->"

# The element-wise ggml ops (UNARY and GLU by their own names): the default list.
DEFAULT_OPS = (
    "ABS NEG GELU GELU_ERF GELU_QUICK SILU TANH RELU SIGMOID HARDSIGMOID HARDSWISH EXP ELU SGN STEP SOFTPLUS "
    "REGLU GEGLU GEGLU_ERF SWIGLU GEGLU_QUICK "
    "ADD ADD1 SUB MUL DIV SQR SQRT LOG SIN COS SCALE CLAMP LEAKY_RELU CPY CONT DUP SET FILL ACC"
).split()

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# A case line; ggml may print a failing case's diagnosis ("[OP] NaN at index 0 ...") before it on the same line.
CASE = re.compile(r"^(?:.*\s)?(?P<op>[A-Z][A-Z0-9_]*)\((?P<params>\S*)\):(?: (?P<rest>.*))?$")
PASSED = re.compile(r"^\s*(\d+)/(\d+) tests passed")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ source


def cache_dir(args):
    if args.cache_dir:
        return Path(args.cache_dir).expanduser().resolve()
    env = os.environ.get("ACLNN_EMU_GGML_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    return Path.home() / ".cache" / "aclnn_emu" / "ggml"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def get_sdist(cache, python):
    """The cached sdist, downloaded with pip the first time (and again if it is damaged)."""
    path = cache / SDIST
    if path.is_file() and sha256(path) == SDIST_SHA256:
        return path
    if path.exists():
        log("%s: checksum mismatch, downloading it again" % path)
        path.unlink()
    cache.mkdir(parents=True, exist_ok=True)
    base = [python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--dest", str(cache),
            "%s==%s" % (LLAMA_CPP_PYTHON, VERSION)]
    # --no-build-isolation needs scikit-build-core in this Python; without it pip installs the
    # build backend into a temporary environment first (slower, same file).
    for cmd in (base + ["--no-build-isolation"], base):
        log("$ " + shlex.join(cmd))
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode == 0 and path.is_file():
            break
        if "--no-build-isolation" in cmd and "scikit_build_core" in result.stdout:
            log("(scikit-build-core is not installed here: again with build isolation, slower)")
        else:
            log(result.stdout[-2000:])
    else:
        raise SystemExit("could not download %s==%s" % (LLAMA_CPP_PYTHON, VERSION))
    digest = sha256(path)
    if digest != SDIST_SHA256:
        raise SystemExit("%s: sha256 %s, expected %s" % (path, digest, SDIST_SHA256))
    return path


def unpack(sdist, cache):
    """vendor/llama.cpp of the sdist, unpacked once (a marker file says the unpacking finished)."""
    top = cache / "src"
    root = top / ("llama_cpp_python-%s" % VERSION)
    source = root / "vendor" / "llama.cpp"
    marker = root / ".unpacked"
    if marker.is_file() and (source / "ggml" / "src" / "ggml-cann" / "CMakeLists.txt").is_file():
        return source
    log("unpacking %s" % sdist)
    shutil.rmtree(root, ignore_errors=True)
    top.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(top, filter="data")
        else:  # Python < 3.8.17 / 3.11.4: the sdist comes from the index, checked against its hash
            tar.extractall(top)
    marker.write_text(SDIST_SHA256 + "\n")
    return source


# ------------------------------------------------------------------ build


def aclnn_emu_prefix(python):
    result = subprocess.run([python, "-m", "aclnn_emu", "--prefix"], capture_output=True, text=True, cwd="/")
    if result.returncode != 0:
        raise SystemExit("`%s -m aclnn_emu --prefix` failed (is aclnn_emu installed?):\n%s"
                         % (python, result.stderr.strip()))
    return result.stdout.strip()


def fingerprint(prefix):
    """What the build depends on outside CMake's knowledge: the library (size, mtime, name) and the headers' list."""
    lib = Path(prefix) / "lib" / "libaclnn_emu.so"
    st = lib.stat()
    headers = sorted(str(p.relative_to(prefix)) for p in (Path(prefix) / "include").rglob("*.h"))
    return {"library": [str(lib), st.st_size, st.st_mtime_ns],
            "headers": hashlib.sha256("\n".join(headers).encode()).hexdigest()}


def configure_args(source, build, prefix, generator, extra):
    args = ["cmake", "-S", str(source), "-B", str(build)]
    if generator:
        args += ["-G", generator]
    args += ["-DCMAKE_BUILD_TYPE=Release", "-DGGML_CANN=ON", "-DCANN_INSTALL_DIR=" + prefix, "-DSOC_TYPE=" + SOC_TYPE,
             "-DGGML_NATIVE=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=ON",
             "-DLLAMA_BUILD_EXAMPLES=ON", "-DLLAMA_BUILD_SERVER=OFF", "-DLLAMA_BUILD_TOOLS=OFF",
             "-DLLAMA_BUILD_APP=OFF"]
    return args + list(extra)


def summarize_build_errors(text):
    """The distinct blockers in a compiler/linker log: missing headers, undeclared names, undefined references."""
    missing = sorted(set(re.findall(r"fatal error: ([^:\s]+): No such file or directory", text)))
    undeclared = sorted(set(re.findall(r"error: [‘'`\"]?([A-Za-z_][A-Za-z0-9_:]*)[’'\"]? "
                                       r"(?:was not declared in this scope|has not been declared"
                                       r"|does not name a type|is not a member of)", text)))
    undeclared += sorted(set(re.findall(r"error: use of undeclared identifier '([A-Za-z_0-9]+)'", text)))
    undefined = sorted(set(re.findall(r"undefined reference to [`‘']([^'’]+)['’]", text)))
    other = []
    for line in text.splitlines():
        if re.search(r"\berror\b", line) and not re.search(
                r"No such file or directory|was not declared|has not been declared|does not name a type"
                r"|is not a member of|undefined reference|undeclared identifier|ld returned|Error \d|"
                r"subcommand failed|build stopped|FAILED:", line):
            other.append(line.strip())
    lines = []
    if missing:
        lines.append("missing headers (%d): %s" % (len(missing), " ".join(missing)))
    if undeclared:
        lines.append("undeclared names (%d): %s" % (len(undeclared), " ".join(undeclared)))
    if undefined:
        lines.append("undefined references (%d): %s" % (len(undefined), " ".join(undefined)))
    seen = set()
    other = [x for x in other if not (x in seen or seen.add(x))]
    if other:
        lines.append("other errors (%d distinct), first ones:" % len(other))
        lines += ["  " + x[:300] for x in other[:15]]
    return lines


def build(args, source, prefix, targets=None):
    """Configure (when needed) and build ``targets`` (default: test-backend-ops and those of --also-build);
    returns the path of the first one's binary and the build folder, or exits 2."""
    if targets is None:
        targets = [TARGET] + [t for t in getattr(args, "also_build", []) if t != TARGET]
    generator = "Ninja" if shutil.which("ninja") else None
    key = hashlib.sha256(("%s|%s|%s" % (prefix, generator, VERSION)).encode()).hexdigest()[:10]
    chosen = args.build_dir or os.environ.get("ACLNN_EMU_GGML_BUILD_DIR")
    build_dir = Path(chosen).expanduser().resolve() if chosen else cache_dir(args) / ("build-" + key)
    build_dir.mkdir(parents=True, exist_ok=True)
    state_file = build_dir / "aclnn_emu_state.json"
    state = json.loads(state_file.read_text()) if state_file.is_file() else {}
    cfg = configure_args(source, build_dir, prefix, generator, args.cmake_arg)
    binaries = [build_dir / "bin" / t for t in targets]
    binary = binaries[0]
    if args.no_build:
        for b in binaries:
            if not b.is_file():
                raise SystemExit("--no-build: %s does not exist" % b)
        return binary, build_dir

    started = time.time()
    if state.get("configure") != cfg or not (build_dir / "CMakeCache.txt").is_file():
        log("$ " + shlex.join(cfg))
        result = subprocess.run(cfg, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        (build_dir / "configure.log").write_text(result.stdout)
        if result.returncode != 0:
            log(result.stdout[-5000:])
            log("configure failed (log: %s)" % (build_dir / "configure.log"))
            sys.exit(2)
        state = {"configure": cfg}
        state_file.write_text(json.dumps(state, indent=1))

    now = fingerprint(prefix)
    if state.get("fingerprint") != now:
        # ggml-cann links CANN's names (-lascendcl ...), files CMake does not track: relink it (cheap).
        for lib in build_dir.glob("bin/libggml-cann.so*"):
            lib.unlink()
    cmd = ["cmake", "--build", str(build_dir), "--target", *targets, "-j", str(args.jobs)]
    # keep going past the first error, so that one build lists every blocker
    cmd += ["--", "-k", "0"] if generator == "Ninja" else ["--", "-k"]
    build_log = build_dir / "build.log"
    log("$ %s  (output in %s)" % (shlex.join(cmd), build_log))
    with open(build_log, "w") as f:
        returncode = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    output = build_log.read_text(errors="replace")
    if returncode != 0 or not all(b.is_file() for b in binaries):
        log(output[-3000:])
        log("build failed after %.0f s (log: %s); blockers:" % (time.time() - started, build_log))
        for line in summarize_build_errors(output):
            log("  " + line)
        sys.exit(2)
    state["fingerprint"] = now
    state_file.write_text(json.dumps(state, indent=1))
    log("built %s in %.0f s" % (" ".join(str(b) for b in binaries), time.time() - started))
    return binary, build_dir


# ------------------------------------------------------------------ run


def crash_reason(text, returncode):
    """One line: the aclnn call and message ggml printed (to stderr) before aborting, or what else ended the
    process; None when ``text`` says nothing about it."""
    lines = [ANSI.sub("", line).rstrip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        m = re.search(r"CANN error: (.*)", line)
        if m:
            msg = m.group(1).strip()
            where = stmt = ""
            for follow in lines[i + 1:i + 4]:
                w = re.search(r"in function (\S+) at (\S+)", follow)
                if w:
                    where = "%s (%s)" % (w.group(1), os.path.basename(w.group(2)))
                elif follow.strip() and not stmt and not re.match(r"\S+:\d+: ", follow.strip()):
                    stmt = follow.strip()  # the failing call, as written in ggml-cann
            call = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", stmt)
            call = call.group(1) if call else stmt
            return ("%s: %s [in %s]" % (call, msg or "(empty aclGetRecentErrMsg)", where)).strip()
    for i, line in enumerate(lines):
        # GGML_ABORT / GGML_ASSERT: "<file>:<line>: <message>", often after a log line "<function>: <detail>"
        m = re.search(r"(/[^\s:]+\.(?:c|cc|cpp|h|hpp)):(\d+): (.*)", line)
        if m:
            reason = "%s (%s:%s)" % (m.group(3).strip(), os.path.basename(m.group(1)), m.group(2))
            for prev in reversed(lines[max(0, i - 3):i]):
                d = re.search(r"(?:^|\s)([a-z][a-z0-9]*_[a-z0-9_]+): (.+)$", prev)
                if d:
                    reason = "%s: %s [%s]" % (d.group(1), d.group(2).strip(), reason)
                    break
            return reason[:400]
    for pattern in (r".*: error while loading shared libraries: .*",
                    r".*undefined symbol: .*", r"terminate called .*", r"what\(\): .*", r".*: (?:fatal )?error: .*",
                    r".*[Ss]egmentation fault.*", r".*Aborted.*"):
        for line in lines:
            m = re.search(pattern, line)
            if m:
                return m.group(0).strip()[:400]
    return None


def fallback_reason(stdout, stderr, returncode):
    if returncode is not None and returncode < 0:
        return "killed by signal %d" % -returncode
    tail = [ANSI.sub("", line).strip() for line in (stderr + "\n" + stdout).splitlines() if line.strip()]
    return (tail[-1] if tail else "no output")[:400]


def parse_output(stdout, stderr, returncode, timed_out, backend):
    """Counts of OK / FAIL / not supported cases (from stdout), the N/M line, and whether (and why) the
    process crashed (from stderr, where ggml logs; read apart, as the two interleave unpredictably)."""
    res = {"ok": 0, "fail": 0, "unsupported": 0, "skipped": 0, "passed_line": None, "first_failure": None,
           "crashed": False, "reason": None, "returncode": returncode, "timed_out": timed_out,
           "backend_found": False, "last_case": None}
    open_case = None
    for raw in stdout.splitlines():
        line = ANSI.sub("", raw).rstrip()
        if re.match(r"^Backend \d+/\d+: %s$" % re.escape(backend), line):
            res["backend_found"] = True
        m = PASSED.match(line)
        if m:
            res["passed_line"] = "%s/%s" % (m.group(1), m.group(2))
            continue
        m = CASE.match(line)
        if not m:
            continue
        rest = (m.group("rest") or "").strip()
        case = "%s(%s)" % (m.group("op"), m.group("params"))
        res["last_case"] = case
        if rest.endswith("OK"):
            res["ok"] += 1
            open_case = None
        elif rest.endswith("FAIL"):
            res["fail"] += 1
            open_case = None
            if res["first_failure"] is None:
                why = rest[:-4].strip() or "FAIL"
                res["first_failure"] = "%s: %s" % (case, why)
        elif rest.startswith("not supported"):
            res["unsupported"] += 1
            open_case = None
        elif rest.startswith("skipping"):
            res["skipped"] += 1
            open_case = None
        else:
            open_case = case  # started, never finished: where the process died
    if timed_out:
        res["crashed"] = True
        res["reason"] = "timed out" + (" in %s" % open_case if open_case else "")
    elif returncode not in (0, 1) or res["passed_line"] is None and res["backend_found"]:
        res["crashed"] = True
        reason = (crash_reason(stderr, returncode) or crash_reason(stdout, returncode)
                  or fallback_reason(stdout, stderr, returncode))
        res["reason"] = reason + (" (case %s)" % open_case if open_case else "")
    elif not res["backend_found"]:
        res["crashed"] = True
        res["reason"] = "backend %s not found: %s" % (
            backend, crash_reason(stderr, returncode) or fallback_reason(stdout, stderr, returncode))
    return res


def status_of(res):
    if res["crashed"]:
        return "crashed"
    if res["fail"]:
        return "failed"
    if res["passed_line"] and res["passed_line"].split("/")[0] != res["passed_line"].split("/")[1]:
        return "failed"  # a failing case the parser did not recognise still shows in "N/M tests passed"
    if res["ok"]:
        return "passed"
    if res["unsupported"]:
        return "not supported"
    return "no cases"


def run_op(binary, op, args, env, logs, label=None):
    """One test-backend-ops process for `op` (one op, or a comma-separated list run together under `label`)."""
    cmd = [str(binary), "test", "-b", args.backend, "-o", op]
    started = time.time()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=args.timeout,
                              cwd=str(binary.parent))
        out, err, rc, timed_out = proc.stdout, proc.stderr, proc.returncode, False
    except subprocess.TimeoutExpired as e:
        out, err, rc, timed_out = e.stdout or b"", e.stderr or b"", None, True
    out = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
    err = err.decode("utf-8", "replace") if isinstance(err, bytes) else err
    env_tag = "".join("-%s=%s" % kv for kv in sorted(args.env_pairs.items()))
    log_path = logs / re.sub(r"[^A-Za-z0-9_.=-]", "_", "%s-%s%s.log" % (args.backend, label or op, env_tag))
    log_path.write_text("$ %s\n--- exit %s\n--- stdout\n%s\n--- stderr\n%s" % (shlex.join(cmd), rc, out, err))
    res = parse_output(out, err, rc, timed_out, args.backend)
    res.update(op=label or op, status=status_of(res), seconds=round(time.time() - started, 1), log=str(log_path))
    return res


def op_list(spec, binary, expected):
    if not spec:
        return list(DEFAULT_OPS)
    ops = []
    for item in re.split(r"[,\s]+", spec.strip()):
        if not item:
            continue
        if item == "expected":
            ops += expected
        elif item == "default":
            ops += DEFAULT_OPS
        elif item == "all":
            out = subprocess.run([str(binary), "--list-ops"], capture_output=True, text=True).stdout
            ops += [line.strip() for line in out.splitlines()[1:] if re.fullmatch(r"\s+[A-Z0-9_]+", line)]
        else:
            ops.append(item)
    seen = set()
    return [op for op in ops if not (op in seen or seen.add(op))]


def read_expected(path):
    if not path.is_file():
        return []
    ops = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ops.append(line)
    return ops


# ------------------------------------------------------------------ report


def reason_of(res):
    if res["crashed"]:
        return res["reason"] or ""
    return res["first_failure"] or ""


def print_table(results):
    head = ("op", "result", "OK", "FAIL", "not supp.", "N/M passed", "first failure / crash")
    rows = [(r["op"], r["status"], str(r["ok"]), str(r["fail"]), str(r["unsupported"]), r["passed_line"] or "-",
             reason_of(r)[:160]) for r in results]
    widths = [max(len(head[i]), *(len(row[i]) for row in rows)) if rows else len(head[i]) for i in range(6)]
    fmt = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    print(fmt % head)
    for row in rows:
        print(fmt % row)
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print("\n" + ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())))


def markdown(results, args):
    def cell(s):
        return s.replace("|", "\\|").replace("\n", " ")

    env = " ".join("%s=%s" % kv for kv in sorted(args.env_pairs.items()))
    lines = ["Run %s: `test-backend-ops test -b %s -o OP`%s, llama.cpp from %s==%s, aclnn_emu %s."
             % (datetime.date.today().isoformat(), args.backend, " with `%s`" % env if env else "",
                LLAMA_CPP_PYTHON, VERSION, aclnn_emu_version(args.python)), "",
             "| ggml op | result | OK | FAIL | not supported | first failure or crash |",
             "|---|---|---:|---:|---:|---|"]
    counts = {}
    for r in results:
        lines.append("| %s | %s | %d | %d | %d | %s |" % (r["op"], r["status"], r["ok"], r["fail"], r["unsupported"],
                                                           cell(reason_of(r)[:300])))
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    lines += ["", "In all: " + ", ".join("%d %s" % (n, st) for st, n in sorted(counts.items())) + "."]
    return "\n".join(lines) + "\n"


def aclnn_emu_version(python):
    out = subprocess.run([python, "-m", "aclnn_emu", "--version"], capture_output=True, text=True, cwd="/")
    return out.stdout.strip() or "?"


def write_docs(path, table):
    path = Path(path)
    block = "%s\n%s%s\n" % (DOCS_BEGIN, table, DOCS_END)
    if path.is_file():
        text = path.read_text()
        begin = text.find(DOCS_BEGIN.split(" (")[0])
        end = text.find(DOCS_END)
        if begin >= 0 and end > begin:
            rest = text[end + len(DOCS_END):]
            text = text[:begin] + block + (rest[1:] if rest.startswith("\n") else rest)
        else:
            text = text.rstrip("\n") + "\n\n" + block
    else:
        text = ("# llama.cpp's CANN backend on aclnn_emu\n\n"
                "`test-backend-ops` per ggml op, from `python3 tests/ggml/ggml_backend_ops.py --write-docs %s`.\n\n%s"
                % (path.as_posix(), block))  # a first version; the text around the markers is kept afterwards
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    log("wrote the table into %s" % path)


# ------------------------------------------------------------------ main


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", help="comma or space separated ggml ops; 'expected' (the expected-pass list), 'default' "
                                 "(the element-wise ops, the default), 'all' (every op test-backend-ops knows)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="environment for test-backend-ops, e.g. GGML_CANN_MEM_POOL=leg (repeatable)")
    p.add_argument("--backend", default="CANN0", help="the -b argument (CPU checks the harness alone)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per op (default 600)")
    p.add_argument("--cache-dir", help="for the sdist, the source and the builds (default $ACLNN_EMU_GGML_CACHE "
                                       "or ~/.cache/aclnn_emu/ggml)")
    p.add_argument("--build-dir", help="the build folder (default $ACLNN_EMU_GGML_BUILD_DIR, else one per aclnn_emu "
                                       "prefix in the cache)")
    p.add_argument("--python", default=sys.executable, help="the Python whose aclnn_emu is built against")
    p.add_argument("--jobs", "-j", type=int, default=2, help="build jobs (default 2)")
    p.add_argument("--cmake-arg", action="append", default=[], help="one more configure argument (repeatable)")
    p.add_argument("--also-build", action="append", default=[], metavar="TARGET",
                   help="one more target of the same build, e.g. llama-simple (repeatable)")
    p.add_argument("--no-build", action="store_true", help="use the built test-backend-ops as it is")
    p.add_argument("--build-only", action="store_true", help="stop after the build")
    p.add_argument("--expected", default=str(EXPECTED_FILE), help="the expected-pass list (one ggml op a line)")
    p.add_argument("--write-docs", metavar="FILE", help="write the table into FILE between its marker comments")
    p.add_argument("--json", metavar="FILE", help="write the per-op results as JSON")
    p.add_argument("--together", action="store_true",
                   help="run the ops in one test-backend-ops process (-o A,B,...), as the whole suite runs: what one "
                        "op leaves behind (pools, caches, streams) meets the next; one result row")
    args = p.parse_args(argv)

    args.env_pairs = {}
    for item in args.env:
        if "=" not in item:
            p.error("--env wants KEY=VALUE, got %r" % item)
        k, v = item.split("=", 1)
        args.env_pairs[k] = v

    cache = cache_dir(args)
    prefix = aclnn_emu_prefix(args.python)
    source = unpack(get_sdist(cache, args.python), cache)
    binary, build_dir = build(args, source, prefix)
    if args.build_only:
        return 0

    expected = read_expected(Path(args.expected))
    ops = op_list(args.ops, binary, expected)
    env = dict(os.environ)
    env.setdefault("GGML_NO_BACKTRACE", "1")  # ggml would otherwise attach gdb to print a backtrace
    env.update(args.env_pairs)
    logs = build_dir / "logs"
    logs.mkdir(exist_ok=True)
    if args.together:
        res = run_op(binary, ",".join(ops), args, env, logs, label="%d-ops-together" % len(ops))
        log("%d ops in one process: %s, OK %d FAIL %d not supported %d, %s passed, %.1f s %s"
            % (len(ops), res["status"], res["ok"], res["fail"], res["unsupported"], res["passed_line"] or "-",
               res["seconds"], reason_of(res)[:200]))
        if args.json:
            Path(args.json).write_text(json.dumps([res], indent=1))
        return 0 if res["status"] == "passed" else 1
    results = []
    for op in ops:
        res = run_op(binary, op, args, env, logs)
        log("%-14s %-13s OK %-4d FAIL %-4d not supported %-4d %5.1f s %s"
            % (op, res["status"], res["ok"], res["fail"], res["unsupported"], res["seconds"],
               reason_of(res)[:120]))
        results.append(res)

    print()
    print_table(results)
    if args.write_docs:
        write_docs(args.write_docs, markdown(results, args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))

    idle = [r for r in results if r["op"] in expected and r["status"] in ("no cases", "not supported")]
    if idle:
        print("\nnote: expected ops with nothing checked: " + ", ".join("%s (%s)" % (r["op"], r["status"])
                                                                     for r in idle))
    bad = [r for r in results if r["op"] in expected and r["status"] in ("crashed", "failed")]
    if bad:
        print("\nexpected to pass but did not: " + ", ".join("%s (%s)" % (r["op"], r["status"]) for r in bad))
        for r in bad:
            print("  %s: %s (log %s)" % (r["op"], reason_of(r), r["log"]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
