"""Builds the C library, its C tests and the samples with -Werror, and runs
them through ctest, so the one test command of the README covers the C side
too (kernels at every ISA level, the API contract, the sample's output)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def c_build(tmp_path_factory):
    if shutil.which("cmake") is None or shutil.which("cc") is None:
        pytest.skip("cmake and a C compiler are needed to build the C suite")
    build = tmp_path_factory.mktemp("c-build")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(
        ["cmake", "-S", str(ROOT), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
         "-DACLNN_EMU_WERROR=ON", "-DACLNN_EMU_BUILD_TESTS=ON", "-DACLNN_EMU_BUILD_SAMPLES=ON"],
        check=True, capture_output=True, text=True)
    result = subprocess.run(["cmake", "--build", str(build), "--parallel", "2"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return build


# Every ctest of tests/c, one per line.
CTESTS = [
    "kernels",
    "api",
    "api_verbose",
    "sample_silu_backward",
    "streams",
    "moe",
    "vmm",
    "elementwise",
    "rope_streaming",
    "sample_moe_token_permute_grad",
    "sample_moe_token_permute",
    "gemm",
    "gemv",
    "sample_rotary_position_embedding_grad",
    "sample_rotary_mul_grad",
    "sample_fused_floyd_attention_grad",
    "fuzz",
    "fuzz_runtime",
    "hardening",
    "executor_limits",
]


@pytest.mark.parametrize("test_name", CTESTS)
def test_ctest(c_build, test_name):
    env = dict(os.environ)
    result = subprocess.run(["ctest", "--output-on-failure", "-R", f"^{test_name}$"], cwd=c_build,
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "100% tests passed" in result.stdout


def test_every_ctest_is_listed(c_build):
    """A ctest added to tests/c but not to CTESTS would never run here."""
    result = subprocess.run(["ctest", "-N"], cwd=c_build, capture_output=True, text=True, check=True)
    registered = set(re.findall(r"Test\s+#\d+: (\S+)", result.stdout))
    assert registered == set(CTESTS)


def test_run_samples_target(c_build):
    """The README's first quick-start command builds and runs the samples."""
    result = subprocess.run(["cmake", "--build", str(c_build), "--target", "run_samples"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "out result[0] is: 0.927671" in result.stdout
    # each sample ends with its verdict against independently computed values
    verdicts = re.findall(r"^(\w+): OK, (\d+) of (\d+) printed values match", result.stdout, flags=re.M)
    assert len(verdicts) == 6 and all(n == m for _, n, m in verdicts), result.stdout[-4000:]
    assert "== all 6 samples OK" in result.stdout
