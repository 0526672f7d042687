"""CANN's own example programs for the element-wise operators, compiled unchanged.

CANN publishes an example program per operator (hicann/ops-math
``math/<op>/examples/test_aclnn_*.cpp`` and ``conversion/<op>/examples/``,
hicann/ops-nn ``activation/<op>/examples/``). They are CANN's code under
CANN's license, which does not allow redistributing them for processors other
than Huawei's, so this repository does not ship them: point
``ACLNN_EMU_CANN_EXAMPLES`` at a folder holding them (checkouts of the two
repositories will do; files are found by name) and run

    ACLNN_EMU_CANN_EXAMPLES=~/src/cann python -m pytest -m cann_examples tests/test_cann_examples.py

The tests are deselected by default (marker ``cann_examples``); selected
without the folder they fail, saying what is missing. Each example is built
unchanged against the INSTALLED package (a CMake project written here, linking
``ascendcl nnopbase opapi`` as CANN's examples do) and must find the library
through its RPATH, exit 0, and print values that match a numpy float64
reference computed here from the example's own input data (copied by hand
below, one entry per example):

* ``exact``: the inputs make the result exact (integer-valued data, selects,
  a single correctly rounded fp32 product or cast); the printed text must be
  the reference, rounded to the output dtype, printed with the example's format.
* ``fp32``: CANN's precision standard: MERE = mean(|a-g| / (|g| + 1e-7)) < T
  and MARE = max(...) < 10 T, T = 2^-13. ``%f`` keeps 6 decimals, so ``a`` is
  the value in [printed - 5e-7, printed + 5e-7] nearest to ``g`` (the
  printing's own rounding is not counted as the operator's error). Non-finite
  values must match exactly.

Where an example prints bytes of another dtype (an INT32 result copied into a
``std::vector<float>``) or a buffer the operator never wrote, the reference is
what those bytes say, as for the MoE sample.
"""

import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from test_samples import installed, run_sample  # noqa: F401  (installed is a fixture)

T_FP32 = 2.0 ** -13
HALF_DECIMAL = 0.5e-6 * (1 + 1e-9)  # %f rounds to 6 decimals


def f32(values):
    """A sample's ``std::vector<float>``, as float64 (the fp32 values the device reads)."""
    return np.asarray(values, dtype=np.float32).astype(np.float64)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    return np.array([0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def as_float_bytes(int32_values):
    """INT32 results read back into a std::vector<float> and printed with %f."""
    return np.asarray(int32_values, dtype=np.int32).view(np.float32).astype(np.float64)


def _references():
    cases = {}

    def case(name, source, mode, *blocks, fmt="%f"):
        """``blocks``: (label, reference values) in the order the sample prints them."""
        cases[name] = dict(source=source, mode=mode, fmt=fmt,
                           blocks=[(label, np.asarray(ref, dtype=np.float64).ravel()) for label, ref in blocks])

    seq8 = f32([0, 1, 2, 3, 4, 5, 6, 7])
    other8 = f32([1, 1, 1, 2, 2, 2, 3, 3])
    alpha = f32(1.2)

    # --- hicann/ops-math -------------------------------------------------------------------------
    # abs/test_aclnn_abs.cpp: self FLOAT [4,2]
    case("test_aclnn_abs", "abs/test_aclnn_abs.cpp", "exact",
         ("mean result", np.abs(f32([1, -1, -1, -2, 2, -2, -3, 3]))))
    # add/test_aclnn_add.cpp: self {0..7}, other {1,1,1,2,2,2,3,3}, alpha 1.2f; out = self + alpha*other
    case("test_aclnn_add", "add/test_aclnn_add.cpp", "fp32", ("result", seq8 + alpha * other8))
    # add/test_aclnn_inplace_add.cpp: the same data, written into self
    case("test_aclnn_inplace_add", "add/test_aclnn_inplace_add.cpp", "fp32", ("result", seq8 + alpha * other8))
    # cast/test_aclnn_cast.cpp: DOUBLE {0.1, 1.1, ..., 7.1} cast to FLOAT
    case("test_aclnn_cast", "cast/test_aclnn_cast.cpp", "exact",
         ("result", np.array([0.1, 1.1, 2.1, 3.1, 4.1, 5.1, 6.1, 7.1]).astype(np.float32)))
    # clip_by_value_v2/test_aclnn_clamp.cpp: self {0,1,0,3,0,5,0,7}, min 2, max 5
    clamp_x = f32([0, 1, 0, 3, 0, 5, 0, 7])
    case("test_aclnn_clamp", "clip_by_value_v2/test_aclnn_clamp.cpp", "exact", ("result", np.clip(clamp_x, 2, 5)))
    # clip_by_value_v2/test_aclnn_clamp_min.cpp: the same self, min 2
    case("test_aclnn_clamp_min", "clip_by_value_v2/test_aclnn_clamp_min.cpp", "exact",
         ("result", np.maximum(clamp_x, 2)))
    # clip_by_value_v2/test_aclnn_clamp_max.cpp: INT32 self {0..7}, INT32 max 4; the INT32 result is
    # copied into a std::vector<float> and printed with %f: the bytes of 0..4 are 0 and denormals.
    clamp_max_int = np.minimum(np.arange(8, dtype=np.int32), 4)
    case("test_aclnn_clamp_max", "clip_by_value_v2/test_aclnn_clamp_max.cpp", "exact",
         ("result", as_float_bytes(clamp_max_int)))
    # clip_by_value_v2/test_aclnn_inplace_clamp_max.cpp: the same, in place
    case("test_aclnn_inplace_clamp_max", "clip_by_value_v2/test_aclnn_inplace_clamp_max.cpp", "exact",
         ("result", as_float_bytes(clamp_max_int)))
    # cos/test_aclnn_cos.cpp: self {0.1..0.8}; Cos into out, then InplaceCos on self
    cos_x = f32([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    case("test_aclnn_cos", "cos/test_aclnn_cos.cpp", "fp32", ("result", np.cos(cos_x)), ("result", np.cos(cos_x)))
    # div/test_aclnn_div.cpp: self {0..7} / other {1,1,1,2,2,2,3,3}; Div, then InplaceDiv on self
    case("test_aclnn_div", "div/test_aclnn_div.cpp", "fp32", ("result", seq8 / other8), ("result", seq8 / other8))
    # equal/test_aclnn_eq_tensor.cpp: DOUBLE {0..7} == DOUBLE {0,1,9,9,9,9,9,9}, BOOL out printed %d
    case("test_aclnn_eq_tensor", "equal/test_aclnn_eq_tensor.cpp", "exact",
         ("result", np.arange(8.0) == np.array([0, 1, 9, 9, 9, 9, 9, 9.0])), fmt="%d")
    # equal/test_aclnn_inplace_eq_tensor.cpp: FLOAT self {0..7} == other {1,1,3,3,5,5,7,7}, into self
    case("test_aclnn_inplace_eq_tensor", "equal/test_aclnn_inplace_eq_tensor.cpp", "exact",
         ("result", seq8 == f32([1, 1, 3, 3, 5, 5, 7, 7])))
    # exp/test_aclnn_exp.cpp: self {0,1,2,3}; Exp into out, then InplaceExp on self
    x4 = f32([0, 1, 2, 3])
    case("test_aclnn_exp", "exp/test_aclnn_exp.cpp", "fp32", ("result", np.exp(x4)), ("inplaceResult", np.exp(x4)))
    # fill/test_aclnn_fill_scalar.cpp: self [2,2] zeros, value 1.0f
    case("test_aclnn_fill_scalar", "fill/test_aclnn_fill_scalar.cpp", "exact", ("result", np.ones(4)))
    # greater/test_aclnn_gt_scalar.cpp: self {0..7} > 3.5f, BOOL out printed %d
    case("test_aclnn_gt_scalar", "greater/test_aclnn_gt_scalar.cpp", "exact", ("result", seq8 > 3.5), fmt="%d")
    # greater/test_aclnn_inplace_gt_scalar.cpp: the same, into the FLOAT self
    case("test_aclnn_inplace_gt_scalar", "greater/test_aclnn_inplace_gt_scalar.cpp", "exact",
         ("result", seq8 > 3.5))
    # log/test_aclnn_log.cpp and log/test_aclnn_inplace_log.cpp: self {0..7} (log 0 = -inf)
    with np.errstate(divide="ignore"):
        log8 = np.log(seq8)
    case("test_aclnn_log", "log/test_aclnn_log.cpp", "fp32", ("result", log8))
    case("test_aclnn_inplace_log", "log/test_aclnn_inplace_log.cpp", "fp32", ("result", log8))
    # mul/test_aclnn_mul.cpp and mul/test_aclnn_inplace_mul.cpp: {0..7} * {1,1,1,2,2,2,3,3}
    case("test_aclnn_mul", "mul/test_aclnn_mul.cpp", "exact", ("result", seq8 * other8))
    case("test_aclnn_inplace_mul", "mul/test_aclnn_inplace_mul.cpp", "exact", ("result", seq8 * other8))
    # muls/test_aclnn_muls.cpp and muls/test_aclnn_inplace_muls.cpp: {0..7} * 1.2f, one fp32 rounding
    # (7 * 1.2f prints 8.400001)
    case("test_aclnn_muls", "muls/test_aclnn_muls.cpp", "exact", ("result", seq8 * alpha))
    case("test_aclnn_inplace_muls", "muls/test_aclnn_inplace_muls.cpp", "exact", ("result", seq8 * alpha))
    # neg/test_aclnn_neg.cpp and neg/test_aclnn_inplace_neg.cpp: self {0..7}
    case("test_aclnn_neg", "neg/test_aclnn_neg.cpp", "exact", ("result", -seq8))
    case("test_aclnn_inplace_neg", "neg/test_aclnn_inplace_neg.cpp", "exact", ("resultData", -seq8))
    # sign/test_aclnn_sign.cpp: self {1..8}
    case("test_aclnn_sign", "sign/test_aclnn_sign.cpp", "exact", ("result", np.sign(f32([1, 2, 3, 4, 5, 6, 7, 8]))))
    # sin/test_aclnn_sin.cpp: self {0..7}; Sin into out, then InplaceSin on self
    case("test_aclnn_sin", "sin/test_aclnn_sin.cpp", "fp32", ("result", np.sin(seq8)), ("inplaceResult", np.sin(seq8)))
    # sqrt/test_aclnn_sqrt.cpp: self {0,1,2,3}; Sqrt, then InplaceSqrt
    case("test_aclnn_sqrt", "sqrt/test_aclnn_sqrt.cpp", "fp32",
         ("aclnnSqrt result", np.sqrt(x4)), ("aclnnInplaceSqrt result", np.sqrt(x4)))
    # sub/test_aclnn_sub.cpp: self {0..7}, other all 2, alpha 1.2f; Sub, then InplaceSub on self
    sub = seq8 - alpha * f32([2] * 8)
    case("test_aclnn_sub", "sub/test_aclnn_sub.cpp", "fp32", ("result", sub), ("result", sub))
    # tanh/test_aclnn_tanh.cpp: self {0,1,2,3}; Tanh, then InplaceTanh
    case("test_aclnn_tanh", "tanh/test_aclnn_tanh.cpp", "fp32",
         ("aclnnTanh result", np.tanh(x4)), ("aclnnInplaceTanh result", np.tanh(x4)))
    # view_copy/test_aclnn_view_copy.cpp: selfRef {0..7} := src {1,1,1,2,2,2,3,3}
    case("test_aclnn_view_copy", "view_copy/test_aclnn_view_copy.cpp", "exact", ("result", other8))
    # zero_op/test_aclnn_zero.cpp: selfRef {0..7} zeroed
    case("test_aclnn_zero", "zero_op/test_aclnn_zero.cpp", "exact", ("result", np.zeros(8)))

    # --- hicann/ops-nn ---------------------------------------------------------------------------
    # elu/test_aclnn_elu.cpp and elu/test_aclnn_inplace_elu.cpp: self {-2,-1,0,1}, alpha = scale = inputScale = 1
    elu_x = f32([-2, -1, 0, 1])
    elu = np.where(elu_x > 0, elu_x, np.expm1(elu_x))
    case("test_aclnn_elu", "elu/test_aclnn_elu.cpp", "fp32", ("result", elu))
    case("test_aclnn_inplace_elu", "elu/test_aclnn_inplace_elu.cpp", "fp32", ("result", elu))
    # ge_glu_v2/test_aclnn_ge_glu.cpp: self [2,2] {0,1,2,3}, dim -1, approximate 1 (tanh):
    # out = A * gelu(B) with A the first and B the second half; then outGelu = gelu(B)
    a, b = f32([0, 2]), f32([1, 3])
    case("test_aclnn_ge_glu", "ge_glu_v2/test_aclnn_ge_glu.cpp", "fp32",
         ("result", a * gelu_tanh(b)), ("result", gelu_tanh(b)))
    # ge_glu_v2/test_aclnn_ge_glu_v3.cpp: the same data, activateLeft false (gelu on the right half)
    case("test_aclnn_ge_glu_v3", "ge_glu_v2/test_aclnn_ge_glu_v3.cpp", "fp32",
         ("result", a * gelu_tanh(b)), ("result", gelu_tanh(b)))
    # gelu/test_aclnn_gelu.cpp: aclnnGelu is the tanh form (aclnnGelu.md)
    gelu_x = f32([1.3, 2.5, 6.7, -4, -1.4, -1.6, -8, -16.9])
    case("test_aclnn_gelu", "gelu/test_aclnn_gelu.cpp", "fp32", ("result", gelu_tanh(gelu_x)))
    # gelu_v2/test_aclnn_gelu_v2.cpp: the same x, approximate 0 ("none"): the erf form
    case("test_aclnn_gelu_v2", "gelu_v2/test_aclnn_gelu_v2.cpp", "fp32", ("result", gelu_erf(gelu_x)))
    # hard_sigmoid/test_aclnn_hard_sigmoid.cpp and ..._inplace_hard_sigmoid.cpp: self {-4,-3,-2,0,1,2,4,5}
    hs_x = f32([-4, -3, -2, 0, 1, 2, 4, 5])
    case("test_aclnn_hard_sigmoid", "hard_sigmoid/test_aclnn_hard_sigmoid.cpp", "fp32",
         ("result", np.clip(hs_x + 3, 0, 6) / 6))
    case("test_aclnn_inplace_hard_sigmoid", "hard_sigmoid/test_aclnn_inplace_hard_sigmoid.cpp", "fp32",
         ("result", np.clip(hs_x + 3, 0, 6) / 6))
    # hard_swish/test_aclnn_hard_swish.cpp: the same x; Hardswish, then InplaceHardswish on self
    hswish = hs_x * np.clip(hs_x + 3, 0, 6) / 6
    case("test_aclnn_hard_swish", "hard_swish/test_aclnn_hard_swish.cpp", "fp32", ("result", hswish), ("result", hswish))
    # leaky_relu/test_aclnn_leaky_relu.cpp and ..._inplace_leaky_relu.cpp: self {1,2,3,4}, slope 0.01f
    lr_x = f32([1, 2, 3, 4])
    case("test_aclnn_leaky_relu", "leaky_relu/test_aclnn_leaky_relu.cpp", "exact",
         ("result", np.where(lr_x > 0, lr_x, f32(0.01) * lr_x)))
    case("test_aclnn_inplace_leaky_relu", "leaky_relu/test_aclnn_inplace_leaky_relu.cpp", "exact",
         ("result", np.where(lr_x > 0, lr_x, f32(0.01) * lr_x)))
    # relu/test_aclnn_relu.cpp and relu/test_aclnn_inplace_relu.cpp: self {0,1,2,3}
    case("test_aclnn_relu", "relu/test_aclnn_relu.cpp", "exact", ("aclnnRelu result", np.maximum(x4, 0)))
    case("test_aclnn_inplace_relu", "relu/test_aclnn_inplace_relu.cpp", "exact",
         ("aclnnInplaceRelu result", np.maximum(x4, 0)))
    # sigmoid/test_aclnn_sigmoid.cpp and sigmoid/test_aclnn_inplace_sigmoid.cpp: self {0,1,2,3}
    case("test_aclnn_sigmoid", "sigmoid/test_aclnn_sigmoid.cpp", "fp32", ("result", sigmoid(x4)))
    case("test_aclnn_inplace_sigmoid", "sigmoid/test_aclnn_inplace_sigmoid.cpp", "fp32", ("inplaceResult", sigmoid(x4)))
    # softplus_v2/test_aclnn_softplus.cpp: self {0..7}, beta 1, threshold 5: x where beta*x > threshold
    case("test_aclnn_softplus", "softplus_v2/test_aclnn_softplus.cpp", "fp32",
         ("result", np.where(seq8 > 5, seq8, np.log1p(np.exp(seq8)))))
    # swi_glu/test_aclnn_swi_glu.cpp: x [2,32] = 0..63, dim -1: out = silu(A) * B, A the first half
    swi_x = f32(np.arange(64)).reshape(2, 32)
    swi_a, swi_b = swi_x[:, :16], swi_x[:, 16:]
    case("test_aclnn_swi_glu", "swi_glu/test_aclnn_swi_glu.cpp", "fp32", ("result", swi_a * sigmoid(swi_a) * swi_b))
    # threshold/test_aclnn_threshold.cpp: self {0,1,2,3,4.1,5,6,7}, threshold 4.1f, value 10:
    # x > threshold ? x : value (4.1f itself is not above it)
    th_x = f32([0, 1, 2, 3, 4.1, 5, 6, 7])
    case("test_aclnn_threshold", "threshold/test_aclnn_threshold.cpp", "exact",
         ("result", np.where(th_x > f32(4.1), th_x, 10.0)))
    # threshold/test_aclnn_inplace_threshold.cpp: runs InplaceThreshold on self but prints the `out`
    # buffer, which nothing writes: its zeros from outHostData.
    case("test_aclnn_inplace_threshold", "threshold/test_aclnn_inplace_threshold.cpp", "exact",
         ("aclnnInplaceThreshold result", np.zeros(8)))
    return cases


CASES = _references()
LINE = re.compile(r"^(.*?)\[(\d+)\] is: (\S+)$")


def parse_blocks(stdout):
    """Lines ``<label>[i] is: <value>``, grouped into blocks (a block restarts at index 0)."""
    blocks = []
    for line in stdout.splitlines():
        match = LINE.match(line.strip())
        if not match:
            continue
        label, index, value = match.group(1).strip(), int(match.group(2)), match.group(3)
        if index == 0:
            blocks.append((label, []))
        assert blocks and blocks[-1][0] == label and len(blocks[-1][1]) == index, stdout
        blocks[-1][1].append(value)
    return blocks


def check_values(case, printed, stdout):
    refs = np.concatenate([ref for _, ref in case["blocks"]])
    assert len(printed) == len(refs), stdout
    if case["fmt"] == "%d":
        assert [int(v) for v in printed] == [int(r) for r in refs], stdout
        return
    if case["mode"] == "exact":
        expected = [float("%f" % np.float32(r)) for r in refs]  # the fp32 output, printed as the sample does
        assert [float(v) for v in printed] == expected, stdout
        return
    got = np.array([float(v) for v in printed])
    finite = np.isfinite(refs)
    assert np.array_equal(got[~finite], refs[~finite]), stdout
    assert np.isfinite(got[finite]).all(), stdout
    g, p = refs[finite], got[finite]
    a = np.clip(g, p - HALF_DECIMAL, p + HALF_DECIMAL)  # the value nearest to g that prints as p
    rel = np.abs(a - g) / (np.abs(g) + 1e-7)
    assert rel.mean() < T_FP32 and rel.max() < 10 * T_FP32, (rel.mean(), rel.max(), stdout)


EXAMPLES_ENV = "ACLNN_EMU_CANN_EXAMPLES"

pytestmark = pytest.mark.cann_examples


def find_example(root, source):
    """The published file for ``source`` (``<op>/test_aclnn_<x>.cpp``) under ``root``, by name."""
    name = Path(source).name
    found = [p for p in root.rglob(name) if "experimental" not in p.parts]
    preferred = [p for p in found if "examples" in p.parts and Path(source).parts[0] in p.parts]
    return (preferred or found or [None])[0]


@pytest.fixture(scope="module")
def examples_root():
    root = os.environ.get(EXAMPLES_ENV)
    if not root or not Path(root).is_dir():
        pytest.fail("%s is not set to a folder holding CANN's example programs (checkouts of hicann/ops-math and "
                    "hicann/ops-nn will do); these tests need them" % EXAMPLES_ENV)
    return Path(root)


@pytest.fixture(scope="module")
def built(installed, examples_root, tmp_path_factory):  # noqa: F811
    assert shutil.which("cmake"), "cmake is needed to build CANN's examples"
    project = tmp_path_factory.mktemp("cann-examples-src")
    lines = ["cmake_minimum_required(VERSION 3.18)", "project(cann_examples LANGUAGES CXX)",
             "find_package(aclnn_emu REQUIRED)"]
    for name, case in sorted(CASES.items()):
        source = find_example(examples_root, case["source"])
        assert source is not None, "%s not found under %s" % (case["source"], examples_root)
        lines.append("add_executable(%s %s)" % (name, source.as_posix()))
        lines.append("target_link_libraries(%s PRIVATE ascendcl nnopbase opapi)" % name)
    (project / "CMakeLists.txt").write_text("\n".join(lines) + "\n")
    build = tmp_path_factory.mktemp("cann-examples")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = subprocess.run(
        ["cmake", "-S", str(project), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
         "-DCMAKE_PREFIX_PATH=" + installed["cmake-dir"]], capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    compile_ = subprocess.run(["cmake", "--build", str(build), "--parallel", "2"], capture_output=True, text=True)
    assert compile_.returncode == 0, compile_.stdout[-3000:] + compile_.stderr[-3000:]
    return build


@pytest.mark.parametrize("name", sorted(CASES))
def test_cann_example(built, installed, name):  # noqa: F811
    case = CASES[name]
    result = run_sample(built / name, installed["lib-dir"])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    blocks = parse_blocks(result.stdout)
    assert [label for label, _ in blocks] == [label for label, _ in case["blocks"]], result.stdout
    assert [len(values) for _, values in blocks] == [len(ref) for _, ref in case["blocks"]], result.stdout
    check_values(case, [v for _, values in blocks for v in values], result.stdout)
