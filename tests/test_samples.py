"""CANN's SiluBackward sample, built against the INSTALLED package, twice:
as the standalone CMake project in samples/ (find_package(aclnn_emu) through
``python -m aclnn_emu --cmake-dir``) and with a plain compiler line linking
``-lascendcl -lnnopbase -lopapi`` as CANN's docs do. Both must print the
six values of cann_facts.md ("Expected outputs of the seed samples").

Then the sample checker (samples/check_sample.cmake, which `run_samples` runs):
its verdict on right and on altered sample output, and on the real samples."""

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "silu_backward" / "test_aclnn_silu_grad.cpp"
# cann_facts: 0.92767051, 1.09078425, 1.08810411, 1.05266461, 1.02654743, 1.01232643, printed with %f
EXPECTED = ["0.927671", "1.090784", "1.088104", "1.052665", "1.026548", "1.012326"]


def cli(flag):
    """``python -m aclnn_emu <flag>``, run from outside the source tree so the installed package answers."""
    out = subprocess.run([sys.executable, "-m", "aclnn_emu", flag], capture_output=True, text=True, cwd="/",
                         check=True)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1, out.stdout
    return lines[0]


@pytest.fixture(scope="module")
def installed():
    paths = {flag: cli("--" + flag) for flag in ("cmake-dir", "include-dir", "lib-dir", "prefix")}
    assert os.path.isfile(os.path.join(paths["cmake-dir"], "aclnn_emuConfig.cmake"))
    assert os.path.isfile(os.path.join(paths["include-dir"], "acl", "acl.h"))
    assert os.path.isfile(os.path.join(paths["include-dir"], "aclnnop", "aclnn_silu_backward.h"))
    for name in ("ascendcl", "nnopbase", "opapi"):
        assert os.path.isfile(os.path.join(paths["lib-dir"], "lib%s.so" % name)), name
    # the installed package, not the source tree
    assert not paths["prefix"].startswith(str(ROOT / "python"))
    return paths


def check_output(result):
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    values = re.findall(r"out result\[(\d+)\] is: (\S+)", result.stdout)
    assert [int(i) for i, _ in values] == list(range(6)), result.stdout
    assert [v for _, v in values] == EXPECTED, result.stdout


def run_sample(binary, lib_dir):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)  # the binary must find the library through its RPATH
    env.pop("ACLNN_EMU_SOC", None)
    result = subprocess.run([str(binary)], capture_output=True, text=True, env=env, timeout=60)
    ldd = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=env)
    if ldd.returncode == 0:
        resolved = [line for line in ldd.stdout.splitlines() if "aclnn_emu" in line]
        assert resolved and all(os.path.realpath(lib_dir) in os.path.realpath(line.split("=>")[-1].split()[0])
                                for line in resolved), ldd.stdout
    return result


@pytest.fixture(scope="module")
def samples_build(installed, tmp_path_factory):
    """samples/ configured and built as a standalone project against the installed package."""
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    build = tmp_path_factory.mktemp("samples-build")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = subprocess.run(
        ["cmake", "-S", str(ROOT / "samples"), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
         "-DCMAKE_PREFIX_PATH=" + installed["cmake-dir"]],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    compile_ = subprocess.run(["cmake", "--build", str(build), "--parallel", "2"], capture_output=True, text=True)
    assert compile_.returncode == 0, compile_.stdout[-3000:] + compile_.stderr[-3000:]
    return build


def test_sample_cmake_project_against_installed_package(installed, samples_build):
    cache = (samples_build / "CMakeCache.txt").read_text()
    found = re.search(r"^aclnn_emu_DIR:PATH=(.*)$", cache, re.M)
    assert found and os.path.realpath(found.group(1)) == os.path.realpath(installed["cmake-dir"]), found
    binary = samples_build / "test_aclnn_silu_grad"
    assert binary.is_file()
    check_output(run_sample(binary, installed["lib-dir"]))


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_sample_plain_compiler_line(installed, tmp_path):
    binary = tmp_path / "test_aclnn_silu_grad"
    lib_dir = installed["lib-dir"]
    cmd = ["g++", str(SAMPLE), "-I" + installed["include-dir"], "-L" + lib_dir, "-lascendcl", "-lnnopbase",
           "-lopapi", "-Wl,-rpath," + lib_dir, "-o", str(binary)]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    check_output(run_sample(binary, lib_dir))


# The two ways CANN's own sample CMakeLists find the toolkit (written here in
# their style): the aclnn docs' (ASCEND_CUSTOM_PATH; include/, include/aclnn,
# full paths into lib64/) and the older samples' (DDK_PATH headers,
# NPU_HOST_LIB library folder). The installed prefix serves as the toolkit.
_ASCEND_CUSTOM_PATH_STYLE = """
cmake_minimum_required(VERSION 3.14)
project(cann_style CXX)
add_executable(opapi_test {sample})
set(ASCEND_PATH $ENV{{ASCEND_CUSTOM_PATH}})
include_directories(${{ASCEND_PATH}}/include ${{ASCEND_PATH}}/include/aclnn)
target_link_libraries(opapi_test PRIVATE ${{ASCEND_PATH}}/lib64/libascendcl.so ${{ASCEND_PATH}}/lib64/libnnopbase.so
                      ${{ASCEND_PATH}}/lib64/libopapi.so)
"""
_DDK_PATH_STYLE = """
cmake_minimum_required(VERSION 3.14)
project(cann_style CXX)
set(INC_PATH $ENV{{DDK_PATH}})
set(LIB_PATH $ENV{{NPU_HOST_LIB}})
include_directories(${{INC_PATH}}/include)
link_directories(${{LIB_PATH}})
add_executable(opapi_test {sample})
target_link_libraries(opapi_test ascendcl acl_op_compiler nnopbase opapi)
"""


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
@pytest.mark.parametrize("style", ["ASCEND_CUSTOM_PATH", "DDK_PATH"])
def test_cann_style_cmakelists_take_the_prefix_as_the_toolkit(installed, tmp_path, style):
    prefix = installed["prefix"]
    project = tmp_path / "project"
    project.mkdir()
    text = _ASCEND_CUSTOM_PATH_STYLE if style == "ASCEND_CUSTOM_PATH" else _DDK_PATH_STYLE
    (project / "CMakeLists.txt").write_text(text.format(sample=SAMPLE.as_posix()))
    env = dict(os.environ, ASCEND_CUSTOM_PATH=prefix, DDK_PATH=prefix, NPU_HOST_LIB=os.path.join(prefix, "lib64"))
    build = tmp_path / "build"
    for cmd in (["cmake", "-S", str(project), "-B", str(build)], ["cmake", "--build", str(build)]):
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # as CANN's set_env.sh does for its lib64 (CMake's build RPATH would do too)
    run_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(prefix, "lib64"))
    run_env.pop("ACLNN_EMU_SOC", None)
    result = subprocess.run([str(build / "opapi_test")], capture_output=True, text=True, env=run_env, timeout=60)
    check_output(result)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_headers_compile_as_c11(installed, tmp_path):
    """The public headers are plain C11 too (acl_meta.h differs from CANN's C++-only one here)."""
    src = tmp_path / "probe.c"
    src.write_text('#include "acl/acl.h"\n#include "aclnnop/aclnn_silu_backward.h"\n#include "aclnnop/aclnn_silu.h"\n'
                   '#include "aclnn_emu/aclnn_emu.h"\n'
                   "int main(void) { uint32_t n = 0; return aclrtGetDeviceCount(&n) == ACL_SUCCESS && n == 1 ? 0 : 1; }\n")
    binary = tmp_path / "probe"
    lib_dir = installed["lib-dir"]
    built = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", str(src), "-I" + installed["include-dir"],
                            "-L" + lib_dir, "-lascendcl", "-Wl,-rpath," + lib_dir, "-o", str(binary)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    assert subprocess.run([str(binary)]).returncode == 0


# ---------------------------------------------------------------- the sample checker
CHECKER = ROOT / "samples" / "check_sample.cmake"
EXPECTED_DIR = ROOT / "samples" / "expected"
SAMPLE_DIRS = ["silu_backward", "moe_token_permute_grad", "moe_token_permute", "rotary_position_embedding_grad",
               "rotary_mul_grad", "fused_floyd_attention_grad"]
SILU_OUTPUT = "".join("out result[%d] is: %s\n" % (i, v) for i, v in enumerate(EXPECTED))
# The Floyd sample's summary of each fp16 output (see its header comment): the
# even-d half exactly 0, the odd-d half +inf (0x7C00); the sample prints the first
# floats of the buffer, each an fp16 pair (0x0000, 0x7C00) read as a float.
FLOYD_PAIR = "%f" % struct.unpack("<f", struct.pack("<HH", 0x0000, 0x7C00))[0]
FLOYD_HASH = "6d1d35ca4b9d0383"  # FNV-1a of those bytes, 8388608 fp16 values


def floyd_output(nan_in=None):
    lines = []
    for name in ("dq", "dk1", "dv1", "dk2", "dv2"):
        infs, nans = (4194303, 1) if name == nan_in else (4194304, 0)
        lines.append("%s: 8388608 values, 4194304 zero, %d inf, %d nan, finite sum 0, fnv1a %s"
                     % (name, infs, nans, FLOYD_HASH))
        lines += ["mean result[%d] is: %s" % (i, FLOYD_PAIR) for i in range(4)]
    return "\n".join(lines) + "\n"


def check(name, output, tmp_path, exit_code=None):
    """The checker on saved output: (return code, its one printed line)."""
    saved = tmp_path / (name + ".out")
    saved.write_text(output)
    cmd = ["cmake", "-DNAME=" + name, "-DEXPECTED=%s/%s.txt" % (EXPECTED_DIR, name), "-DOUTPUT_FILE=%s" % saved]
    if exit_code is not None:
        cmd.append("-DEXIT_CODE=%d" % exit_code)
    result = subprocess.run(cmd + ["-P", str(CHECKER)], capture_output=True, text=True)
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout + result.stderr
    return result.returncode, lines[0]


needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


@needs_cmake
def test_checker_passes_the_documented_silu_values(tmp_path):
    rc, verdict = check("silu_backward", SILU_OUTPUT, tmp_path)
    assert rc == 0, verdict
    assert verdict.startswith("silu_backward: OK, 6 of 6 printed values match "), verdict


@needs_cmake
@pytest.mark.parametrize("index, printed", [(0, "0.927681"), (3, "1.100000"), (3, "nan"), (5, "-nan"), (2, "inf"),
                                            (4, "")])
def test_checker_fails_an_altered_value_and_names_it(tmp_path, index, printed):
    lines = SILU_OUTPUT.splitlines()
    lines[index] = "out result[%d] is: %s" % (index, printed)
    rc, verdict = check("silu_backward", "\n".join(lines) + "\n", tmp_path)
    assert rc != 0, verdict
    assert verdict.startswith("silu_backward: FAILED: value %d of 6 (line %d) is %s, expected %s"
                              % (index + 1, index + 1, printed or "missing", EXPECTED[index][:6])), verdict


@needs_cmake
@pytest.mark.parametrize("output, message", [
    (SILU_OUTPUT.replace("out result[5] is: 1.012326\n", ""), "the output has 5 lines, expected 6"),
    (SILU_OUTPUT + "out result[6] is: 1.000000\n", "1 line(s) more than the expected 6"),
    (SILU_OUTPUT.replace("result[2]", "result[7]"), "line 3 is `out result[7] is: 1.088104`"),
    ("", "the output has 0 lines, expected 6"),
], ids=["missing", "extra", "changed", "empty"])
def test_checker_fails_missing_extra_or_changed_lines(tmp_path, output, message):
    rc, verdict = check("silu_backward", output, tmp_path)
    assert rc != 0 and verdict.startswith("silu_backward: FAILED: " + message), verdict


@needs_cmake
def test_checker_fails_a_sample_that_exits_non_zero(tmp_path):
    """Run mode: the output passes through, then the verdict, even when every value is right."""
    program = tmp_path / "sample.sh"
    program.write_text("#!/bin/sh\nprintf '%s'\nexit 3\n" % SILU_OUTPUT)
    program.chmod(0o755)
    result = subprocess.run(["cmake", "-DNAME=silu_backward", "-DEXPECTED=%s/silu_backward.txt" % EXPECTED_DIR,
                             "-DPROGRAM=%s" % program, "-P", str(CHECKER)], capture_output=True, text=True)
    assert result.returncode != 0
    assert result.stdout.startswith(SILU_OUTPUT), result.stdout
    assert result.stdout[len(SILU_OUTPUT):] == "silu_backward: FAILED: the sample exited with status 3\n"


@needs_cmake
def test_checker_counts_the_floyd_infs(tmp_path):
    rc, verdict = check("fused_floyd_attention_grad", floyd_output(), tmp_path)
    assert rc == 0, verdict
    assert verdict == ("fused_floyd_attention_grad: OK, 50 of 50 printed values match values computed in float64 "
                       "from the sample's inputs; 20971520 output elements are inf as expected "
                       "(fp16 overflow of the sample's own inputs)")


@needs_cmake
def test_checker_fails_a_floyd_nan_in_place_of_an_inf(tmp_path):
    rc, verdict = check("fused_floyd_attention_grad", floyd_output(nan_in="dk2"), tmp_path)
    assert rc != 0
    assert verdict.startswith("fused_floyd_attention_grad: FAILED: value 33 of 50 (line 16) is 4194303, "
                              "expected exactly 4194304 (inf elements)"), verdict
    # a finite value where the fp16 output should be inf changes the pair read as a float
    finite = floyd_output().replace(FLOYD_PAIR, "%f" % struct.unpack("<f", struct.pack("<HH", 0, 0x7BFF))[0], 1)
    rc, verdict = check("fused_floyd_attention_grad", finite, tmp_path)
    assert rc != 0 and verdict.startswith("fused_floyd_attention_grad: FAILED: value 7 of 50 (line 2) is "), verdict


def render(template_line):
    """A template line as a passing output would print it: each placeholder's expected value."""
    line = re.sub(r"\{~ (\S+) \S+ \S+\}", lambda m: m.group(1), template_line)
    return re.sub(r"\{(?:=|inf) ([^}]*)\}", lambda m: m.group(1), line)


@needs_cmake
@pytest.mark.parametrize("name", SAMPLE_DIRS)
def test_every_sample_has_expected_values_the_checker_reads(tmp_path, name):
    sources = re.findall(r"^\s+(\w+)/\w+\.cpp$", (ROOT / "samples" / "CMakeLists.txt").read_text(), re.M)
    assert sources == SAMPLE_DIRS
    template = (EXPECTED_DIR / (name + ".txt")).read_text().splitlines()
    lines = [render(line) for line in template if not line.startswith("#")]
    assert lines and not any("{" in line for line in lines)
    rc, verdict = check(name, "\n".join(lines) + "\n", tmp_path)
    count = sum(len(re.findall(r"\{(?:~|=|inf) ", line)) for line in template)
    assert rc == 0 and verdict.startswith("%s: OK, %d of %d printed values match " % (name, count, count)), verdict


@pytest.mark.slow  # test_c_suite runs the same target from the source tree in the default suite
def test_run_samples_ends_each_sample_with_an_ok_verdict(samples_build):
    """`run_samples` (5 to 20 s; the Floyd sample needs 1.3 GB): every sample's output, then its OK verdict."""
    result = subprocess.run(["cmake", "--build", str(samples_build), "--target", "run_samples"],
                            capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    sections = re.split(r"^== (\w+) \(\w+\)\n", result.stdout, flags=re.M)
    assert sections[1::2] == SAMPLE_DIRS, result.stdout[-4000:]
    for name, body in zip(sections[1::2], sections[2::2]):
        lines = body.splitlines()
        if name == SAMPLE_DIRS[-1]:
            assert lines[-1] == "== all 6 samples OK", body[-2000:]
            lines.pop()
        assert len(lines) > 1, body
        assert re.fullmatch(r"%s: OK, (\d+) of \1 printed values match .+" % name, lines[-1]), body[-2000:]
    assert "20971520 output elements are inf as expected (fp16 overflow of the sample's own inputs)" in result.stdout


@pytest.mark.slow
def test_expected_files_are_what_the_generator_writes():
    """samples/expected/*.txt are reproducible: generate.py --check recomputes them (about 30 s, 1.2 GB)."""
    pytest.importorskip("numpy")
    result = subprocess.run([sys.executable, str(EXPECTED_DIR / "generate.py"), "--check"],
                            capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr
