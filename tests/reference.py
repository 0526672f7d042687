"""float64 numpy references and CANN's precision standard, independent of the C kernels."""

import ml_dtypes
import numpy as np

#: CANN's precision threshold T per output dtype: pass when MERE < T and MARE < 10 T.
THRESHOLDS = {
    "float16": 2.0**-10,
    "bfloat16": 2.0**-7,
    "float32": 2.0**-13,
}

_DTYPES = {
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
}


def np_dtype(name):
    """The numpy dtype for 'float32', 'float16' or 'bfloat16' (or a dtype given directly)."""
    if isinstance(name, str):
        return _DTYPES[name]
    return np.dtype(name)


def dtype_name(dtype):
    """'float32', 'float16' or 'bfloat16' for a dtype or name."""
    dt = np_dtype(dtype)
    for name, d in _DTYPES.items():
        if d == dt:
            return name
    raise KeyError("no precision standard for %s" % dt)


def to_dtype(arr, name):
    """``arr`` rounded (to nearest even) to 'float32', 'float16' or 'bfloat16'."""
    return np.asarray(arr).astype(np_dtype(name))


def _f64(a):
    return np.asarray(a).astype(np.float64)


def sigmoid_ref(x):
    """1 / (1 + exp(-x)) in float64; overflow of exp gives the right limit (0)."""
    x = _f64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def silu_ref(x):
    """x * sigmoid(x) in float64 (NaN for x = -inf, as the formula gives)."""
    x = _f64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x * sigmoid_ref(x)


def silu_backward_ref(dy, x):
    """dy * s * (1 + x * (1 - s)), s = sigmoid(x), in float64 (NaN for x = +-inf)."""
    dy = _f64(dy)
    x = _f64(x)
    s = sigmoid_ref(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return dy * s * (1.0 + x * (1.0 - s))


def precision_stats(actual, golden):
    """(MERE, MARE) over the elements where both are finite: mean and max of |a-g| / (|g| + 1e-7)."""
    a = _f64(actual)
    g = _f64(golden)
    finite = np.isfinite(a) & np.isfinite(g)
    if not finite.any():
        return 0.0, 0.0
    rel = np.abs(a[finite] - g[finite]) / (np.abs(g[finite]) + 1e-7)
    return float(rel.mean()), float(rel.max())


def assert_precision(actual, golden, dtype):
    """Assert CANN's standard: MERE < T and MARE < 10 T (T from :data:`THRESHOLDS`).

    NaN positions must match exactly, as must the positions and signs of
    infinities; only elements finite in both take part in the numbers.
    """
    name = dtype_name(dtype)
    threshold = THRESHOLDS[name]
    a = _f64(actual)
    g = _f64(golden)
    assert a.shape == g.shape, "shape %s != golden shape %s" % (a.shape, g.shape)
    nan_a, nan_g = np.isnan(a), np.isnan(g)
    if not np.array_equal(nan_a, nan_g):
        idx = np.argwhere(nan_a != nan_g)[:5].tolist()
        raise AssertionError("NaN positions differ at %s (actual %s, golden %s)" % (
            idx, [a[tuple(i)] for i in idx], [g[tuple(i)] for i in idx]))
    inf_a, inf_g = np.isinf(a), np.isinf(g)
    if not np.array_equal(inf_a, inf_g) or not np.array_equal(a[inf_a], g[inf_g]):
        idx = np.argwhere((inf_a != inf_g) | (inf_a & (a != g)))[:5].tolist()
        raise AssertionError("infinities differ at %s (actual %s, golden %s)" % (
            idx, [a[tuple(i)] for i in idx], [g[tuple(i)] for i in idx]))
    mere, mare = precision_stats(a, g)
    if not (mere < threshold and mare < 10 * threshold):
        finite = np.isfinite(a) & np.isfinite(g)
        rel = np.zeros(a.shape)
        rel[finite] = np.abs(a[finite] - g[finite]) / (np.abs(g[finite]) + 1e-7)
        worst = np.unravel_index(np.argmax(rel), a.shape) if a.ndim else ()
        raise AssertionError(
            "%s precision: MERE %.3g (limit %.3g), MARE %.3g (limit %.3g); worst at %s: actual %r golden %r"
            % (name, mere, threshold, mare, 10 * threshold, tuple(int(i) for i in worst), a[worst], g[worst])
        )
