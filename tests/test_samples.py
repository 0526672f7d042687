"""CANN's SiluBackward sample, built against the INSTALLED package, twice:
as the standalone CMake project in samples/ (find_package(aclnn_emu) through
``python -m aclnn_emu --cmake-dir``) and with a plain compiler line linking
``-lascendcl -lnnopbase -lopapi`` as CANN's docs do. Both must print the
six values of cann_facts.md ("Expected outputs of the seed samples")."""

import os
import re
import shutil
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


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_sample_cmake_project_against_installed_package(installed, tmp_path):
    build = tmp_path / "build"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = subprocess.run(
        ["cmake", "-S", str(ROOT / "samples"), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
         "-DCMAKE_PREFIX_PATH=" + installed["cmake-dir"]],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    cache = (build / "CMakeCache.txt").read_text()
    found = re.search(r"^aclnn_emu_DIR:PATH=(.*)$", cache, re.M)
    assert found and os.path.realpath(found.group(1)) == os.path.realpath(installed["cmake-dir"]), found
    compile_ = subprocess.run(["cmake", "--build", str(build), "--parallel", "2"], capture_output=True, text=True)
    assert compile_.returncode == 0, compile_.stdout[-3000:] + compile_.stderr[-3000:]
    binary = build / "test_aclnn_silu_grad"
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
