"""The installed package is laid out like a CANN toolkit.

CANN's own CMake files, ggml-cann's among them, take ``CANN_INSTALL_DIR =
python -m aclnn_emu --prefix`` as it is: headers in ``<prefix>/include`` (and
``include/aclnn``; a missing ``acllib/include`` does no harm), the link names
``ascendcl nnopbase opapi acl_op_compiler`` in ``<prefix>/lib64`` as plain
files (a wheel holds no symlinks), and programs linked that way run without
LD_LIBRARY_PATH. ``include/aclnnop`` is on the include path of the CMake
target and of ``--cflags``, for CANN's examples that write
``#include "aclnn_xxx.h"``.
"""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

LINK_NAMES = ("ascendcl", "nnopbase", "opapi", "acl_op_compiler", "opapi_math", "opapi_nn", "opapi_transformer")

# Uses a declaration of aclnnop/aclnn_silu.h included without its folder, and
# the runtime: a NULL argument must give 161001 (ACLNN_ERR_PARAM_NULLPTR).
PROBE = textwrap.dedent("""\
    #include <stdio.h>
    #include "acl/acl.h"
    #include "aclnn_silu.h"
    int main(void) {
        uint64_t ws = 0;
        aclOpExecutor *exe = NULL;
        if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
        aclnnStatus st = aclnnSiluGetWorkspaceSize(NULL, NULL, &ws, &exe);
        printf("soc %s status %d\\n", aclrtGetSocName(), (int)st);
        aclrtResetDevice(0);
        aclFinalize();
        return st == 161001 ? 0 : 1;
    }
    """)


def cli(*flags):
    """``python -m aclnn_emu <flags>``, run outside the source tree so that the installed package answers."""
    out = subprocess.run([sys.executable, "-m", "aclnn_emu", *flags], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.fixture(scope="module")
def prefix():
    return cli("--prefix")


def clean_env():
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)  # found through the binary alone
    env.pop("ACLNN_EMU_SOC", None)
    return env


def run_probe(binary, prefix):
    """Run a built probe without LD_LIBRARY_PATH; ldd must resolve the library to the package's lib/."""
    env = clean_env()
    ldd = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=env)
    if ldd.returncode == 0:
        assert "not found" not in ldd.stdout, ldd.stdout
        lines = [line for line in ldd.stdout.splitlines() if "aclnn_emu" in line]
        assert lines, ldd.stdout
        real_lib = os.path.realpath(os.path.join(prefix, "lib", "libaclnn_emu.so"))
        for line in lines:
            path = line.split("=>")[-1].split()[0]
            assert os.path.realpath(path) == real_lib, ldd.stdout
    result = subprocess.run([str(binary)], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "soc Ascend910B status 161001" in result.stdout, result.stdout


def test_prefix_is_cann_shaped(prefix):
    assert os.path.isabs(prefix)
    assert cli("--include-dir") == os.path.join(prefix, "include")
    assert cli("--lib-dir") == os.path.join(prefix, "lib")
    for header in ("acl/acl.h", "aclnn/aclnn_base.h", "aclnnop/aclnn_silu.h"):
        assert os.path.isfile(os.path.join(prefix, "include", header)), header
    for folder in ("lib", "lib64"):
        for name in LINK_NAMES:
            path = os.path.join(prefix, folder, "lib%s.so" % name)
            assert os.path.isfile(path) and not os.path.islink(path), path
            with open(path, "rb") as f:
                head = f.read(4096)
            # a linker script pulling in the library (or the ELF itself)
            assert head.startswith(b"\x7fELF") or b"INPUT(" in head, path
    assert os.path.isfile(os.path.join(prefix, "lib", "libaclnn_emu.so"))


def test_cflags_and_libs(prefix):
    inc = os.path.join(prefix, "include")
    assert cli("--cflags").split() == ["-I" + inc, "-I" + os.path.join(inc, "aclnnop")]
    libs = cli("--libs").split()
    assert "-L" + os.path.join(prefix, "lib") in libs and "-lascendcl" in libs


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_compile_line_through_lib64_without_rpath(prefix, tmp_path):
    """-L<prefix>/lib64 and CANN's link names, no -rpath: runs without LD_LIBRARY_PATH."""
    src = tmp_path / "probe.c"
    src.write_text(PROBE)
    binary = tmp_path / "probe"
    cmd = ["gcc", "-std=c11", "-Wall", "-Werror", str(src), *cli("--cflags").split(),
           "-L" + os.path.join(prefix, "lib64"), "-lascendcl", "-lnnopbase", "-lopapi", "-lacl_op_compiler",
           "-o", str(binary)]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    run_probe(binary, prefix)


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("g++") is None, reason="cmake or g++ missing")
def test_cmake_as_ggml_cann_does(prefix, tmp_path):
    """ggml-cann's CMake recipe: CANN_INSTALL_DIR, its three include dirs (acllib/include is not there),
    link dir lib64, the four link names, on a shared library that an executable links (as libggml-cann.so
    is linked by test-backend-ops: the executable's link must find the library again)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "backend.cpp").write_text(PROBE.replace("int main(void)", 'extern "C" int probe(void)'))
    (src / "main.cpp").write_text('extern "C" int probe(void);\nint main() { return probe(); }\n')
    (src / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.18)
        project(cann_probe CXX)
        set(CANN_INCLUDE_DIRS ${CANN_INSTALL_DIR}/include ${CANN_INSTALL_DIR}/include/aclnn
                              ${CANN_INSTALL_DIR}/acllib/include)
        add_library(backend SHARED backend.cpp)
        target_link_libraries(backend PRIVATE ascendcl nnopbase opapi acl_op_compiler)
        target_include_directories(backend PRIVATE ${CANN_INCLUDE_DIRS} ${CANN_INSTALL_DIR}/include/aclnnop)
        target_link_directories(backend PRIVATE ${CANN_INSTALL_DIR}/lib64)
        add_executable(probe main.cpp)
        target_link_libraries(probe PRIVATE backend)
        """))
    build = tmp_path / "build"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    env = clean_env()
    configure = subprocess.run(["cmake", "-S", str(src), "-B", str(build), *generator,
                                "-DCANN_INSTALL_DIR=" + prefix], capture_output=True, text=True, env=env)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    compiled = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True, env=env)
    assert compiled.returncode == 0, compiled.stdout[-3000:] + compiled.stderr[-3000:]
    run_probe(build / "probe", prefix)


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("g++") is None, reason="cmake or g++ missing")
def test_find_package_puts_aclnnop_on_the_include_path(prefix, tmp_path):
    """find_package(aclnn_emu): the target (and aclnn_emu_INCLUDE_DIRS) give #include "aclnn_silu.h"."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "probe.cpp").write_text(PROBE)
    (src / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.18)
        project(find_probe CXX)
        find_package(aclnn_emu REQUIRED)
        list(LENGTH aclnn_emu_INCLUDE_DIRS n)
        if(NOT n EQUAL 2 OR NOT EXISTS "${aclnn_emu_INCLUDE_DIR}/aclnnop/aclnn_silu.h")
          message(FATAL_ERROR "aclnn_emu_INCLUDE_DIRS: ${aclnn_emu_INCLUDE_DIRS}")
        endif()
        add_executable(probe probe.cpp)
        target_link_libraries(probe PRIVATE ascendcl nnopbase opapi acl_op_compiler)
        """))
    build = tmp_path / "build"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    env = clean_env()
    configure = subprocess.run(["cmake", "-S", str(src), "-B", str(build), *generator,
                                "-DCMAKE_PREFIX_PATH=" + cli("--cmake-dir")], capture_output=True, text=True, env=env)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    compiled = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True, env=env)
    assert compiled.returncode == 0, compiled.stdout[-3000:] + compiled.stderr[-3000:]
    run_probe(build / "probe", prefix)
