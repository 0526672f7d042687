"""llama.cpp's CANN backend as a client, through tests/ggml/ggml_backend_ops.py.

The tests marked ``ggml`` build ggml-cann and test-backend-ops against the
installed package (minutes the first time; the sdist, the source and the
build are cached in ~/.cache/aclnn_emu/ggml) and are deselected by default:

    python -m pytest -m ggml tests/ggml -q

The parser tests run with the rest of the suite.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ggml_backend_ops.py"
sys.path.insert(0, str(HERE))
import ggml_backend_ops as gbo  # noqa: E402

BUILD_TIMEOUT = 3600


def run_script(tmp_path, *args):
    out = tmp_path / "results.json"
    result = subprocess.run([sys.executable, str(SCRIPT), "--json", str(out), *args], capture_output=True, text=True,
                            timeout=BUILD_TIMEOUT)
    results = json.loads(out.read_text()) if out.is_file() else []
    return result, {r["op"]: r for r in results}


def explain(result):
    return "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (result.returncode, result.stdout[-6000:], result.stderr[-6000:])


@pytest.mark.ggml
def test_expected_ops_pass_on_cann(tmp_path):
    """Builds test-backend-ops and runs every op of expected_pass.txt on CANN0: each passes (ADD1 has no case
    in the pinned test-backend-ops: nothing to run)."""
    expected = gbo.read_expected(gbo.EXPECTED_FILE)
    result, results = run_script(tmp_path, "--ops", "expected")
    assert result.returncode == 0, explain(result)
    assert sorted(results) == sorted(expected), explain(result)
    not_passed = {op: r["status"] for op, r in results.items()
                  if r["status"] != "passed" and not (r["status"] == "no cases" and op == "ADD1")}
    assert not not_passed, explain(result)


@pytest.mark.ggml
def test_expected_ops_pass_together_in_one_process(tmp_path):
    """The same ops in one test-backend-ops process, as `test -b CANN0` runs a whole suite: the pools, caches
    and streams one op leaves behind meet the next, and every case still passes."""
    expected = gbo.read_expected(gbo.EXPECTED_FILE)
    result, results = run_script(tmp_path, "--ops", "expected", "--together")
    assert result.returncode == 0, explain(result)
    (res,) = results.values()
    assert res["status"] == "passed" and res["fail"] == 0 and res["ok"] > 3000, explain(result)
    assert res["passed_line"] == "%d/%d" % (res["ok"], res["ok"]), explain(result)
    assert res["op"] == "%d-ops-together" % len(expected)


@pytest.mark.ggml
def test_harness_on_cpu(tmp_path):
    """The harness itself: ADD on ggml's CPU backend passes and is parsed as passed."""
    result, results = run_script(tmp_path, "--backend", "CPU", "--ops", "ADD")
    assert result.returncode == 0, explain(result)
    add = results["ADD"]
    assert add["status"] == "passed" and add["ok"] > 0 and add["fail"] == 0, explain(result)
    assert add["passed_line"] == "%d/%d" % (add["ok"], add["ok"]), explain(result)


@pytest.mark.ggml
def test_add_with_the_legacy_pool(tmp_path):
    """ADD again with GGML_CANN_MEM_POOL=leg (plain aclrtMalloc instead of the virtual-memory pool)."""
    result, results = run_script(tmp_path, "--ops", "ADD", "--env", "GGML_CANN_MEM_POOL=leg")
    assert result.returncode == 0, explain(result)
    assert results["ADD"]["status"] == "passed", explain(result)


# ------------------------------------------------------------------ the parser, on captured output

OK_RUN = """\
Testing 2 devices

Backend 1/2: CANN0
  Device description: Ascend910B3
  Device memory: 65536 MB (65000 MB free)

  ADD(type=f32,ne=[1,1,8,1],nr=[1,1,1,1],nf=1): \x1b[1;32mOK\x1b[0m
  ADD(type=f16,ne=[1,1,8,1],nr=[1,1,1,1],nf=1): not supported [CANN0]
  ADD(type=f32,ne=[16,10,10,10],nr=[2,1,1,1],nf=1): [ADD] NMSE = 0.012345678 > 0.000000100 \x1b[1;31mFAIL\x1b[0m
  2/3 tests passed
  Backend CANN0: \x1b[1;31mFAIL\x1b[0m
Backend 2/2: CPU
  Skipping
1/2 backends passed
\x1b[1;31mFAIL\x1b[0m
"""

CRASH_STDOUT = """\
Testing 2 devices

Backend 1/2: CANN0
  Device description: Ascend910B3
  Device memory: 65536 MB (65000 MB free)

  ABS(type=f32,ne_a=[128,2,2,2],v=0): """

CRASH_STDERR = """\
CANN error: aclnnAbs is declared but not implemented by aclnn_emu
  current device: 0, in function ggml_cann_op_unary at /x/ggml/src/ggml-cann/aclnn_ops.h:1108
  aclnnAbsGetWorkspaceSize(acl_src.get(), ggml_cann_type_mapping(dst->type), &workspaceSize, &executor)
/x/ggml/src/ggml-cann/ggml-cann.cpp:70: CANN error
"""

ALLOC_STDERR = """\
ggml_tallocr_alloc: not enough space in the buffer to allocate sent_2 (needed 4096, available 4032)
/x/ggml/src/ggml-alloc.c:83: not enough space in the buffer
"""


def test_parse_cases_and_failures():
    res = gbo.parse_output(OK_RUN, "", 1, False, "CANN0")
    assert (res["ok"], res["fail"], res["unsupported"], res["passed_line"]) == (1, 1, 1, "2/3")
    assert not res["crashed"] and gbo.status_of(res) == "failed"
    assert res["first_failure"].startswith("ADD(type=f32,ne=[16,10,10,10],nr=[2,1,1,1],nf=1): [ADD] NMSE")


NAN_RUN = """\
Backend 1/2: CANN0
  MUL_MAT_ID(type_a=f32,type_b=f32,n_mats=4,n_used=2): \x1b[1;32mOK\x1b[0m
[MUL_MAT_ID] NaN at index 0 (CANN0=-nan CPU=-296045.156250)   MUL_MAT_ID(type_a=q8_0,type_b=f32,n_mats=8,amax=100000.000000): \x1b[1;31mFAIL\x1b[0m
  1/2 tests passed
"""


def test_parse_a_failure_printed_after_its_diagnosis():
    """ggml prints a NaN diagnosis before the failing case on the same line: still a FAIL."""
    res = gbo.parse_output(NAN_RUN, "", 1, False, "CANN0")
    assert (res["ok"], res["fail"], res["passed_line"]) == (1, 1, "1/2")
    assert gbo.status_of(res) == "failed"
    assert res["first_failure"].startswith("MUL_MAT_ID(type_a=q8_0")
    # Even a failure the case pattern missed shows in the N/M line.
    unrecognised = dict(res, fail=0)
    assert gbo.status_of(unrecognised) == "failed"


def test_parse_crash_reason():
    res = gbo.parse_output(CRASH_STDOUT, CRASH_STDERR, -6, False, "CANN0")
    assert res["crashed"] and gbo.status_of(res) == "crashed"
    assert res["reason"].startswith("aclnnAbsGetWorkspaceSize: aclnnAbs is declared but not implemented by aclnn_emu")
    assert "ggml_cann_op_unary" in res["reason"] and "case ABS(type=f32" in res["reason"]
    res = gbo.parse_output(CRASH_STDOUT, ALLOC_STDERR, -6, False, "CANN0")
    assert res["reason"].startswith("ggml_tallocr_alloc: not enough space in the buffer to allocate sent_2")
    assert "ggml-alloc.c:83" in res["reason"]
    res = gbo.parse_output(CRASH_STDOUT, "", -11, False, "CANN0")
    assert res["reason"].startswith("killed by signal 11")


def test_parse_timeout_and_missing_backend():
    res = gbo.parse_output(OK_RUN.split("  2/3")[0], "", None, True, "CANN0")
    assert res["crashed"] and res["reason"].startswith("timed out")
    res = gbo.parse_output("Testing 1 devices\n\nBackend 1/1: CPU\n  Skipping CPU backend\n1/1 backends passed\n", "",
                           0, False, "CANN0")
    assert res["crashed"] and "backend CANN0 not found" in res["reason"]


def test_docs_table_replaced_between_markers(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("# title\n\nintro\n\n%s\nold table\n%s\n\nafter\n" % (gbo.DOCS_BEGIN, gbo.DOCS_END))
    gbo.write_docs(doc, "| new |\n")
    text = doc.read_text()
    assert text == "# title\n\nintro\n\n%s\n| new |\n%s\n\nafter\n" % (gbo.DOCS_BEGIN, gbo.DOCS_END)


def test_expected_list_is_known_ops():
    for op in gbo.read_expected(gbo.EXPECTED_FILE):
        assert op.isupper() and " " not in op, op
