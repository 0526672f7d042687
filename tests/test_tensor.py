"""aclTensor, aclScalar, the arrays and the lists through raw ``lib`` calls,
following include/aclnn/acl_meta.h and cann_facts.md section 1.8."""

import os

import pytest
from aclnn_emu import ffi, lib
from helpers import take_msg

NULL = ffi.NULL
NULLPTR = 161001
INVALID = 161002


@pytest.fixture(autouse=True)
def clean_messages():
    take_msg()
    yield
    take_msg()


def i64(values):
    return ffi.new("int64_t[]", list(values)) if len(values) else NULL


def contiguous(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return list(reversed(strides))


def create(shape, dtype=0, strides=None, offset=0, fmt=2, storage=None, data=NULL):
    """aclCreateTensor with Python lists (storage defaults to the view shape)."""
    storage = list(shape) if storage is None else storage
    return lib.aclCreateTensor(i64(shape), len(shape), dtype, NULL if strides is None else i64(strides), offset, fmt,
                               i64(storage), len(storage), data)


def get_array(getter, tensor):
    out = ffi.new("int64_t **")
    n = ffi.new("uint64_t *", 999)
    assert getter(tensor, out, n) == 0, take_msg()
    try:
        if n[0] == 0:
            assert out[0] == NULL
            return []
        return [out[0][i] for i in range(n[0])]
    finally:
        lib.aclnnEmuFreeArray(out[0])


def describe(t):
    """Every observable property of a tensor."""
    off, fmt, dt, data = ffi.new("int64_t *"), ffi.new("aclFormat *"), ffi.new("aclDataType *"), ffi.new("void **")
    assert lib.aclGetViewOffset(t, off) == 0
    assert lib.aclGetFormat(t, fmt) == 0
    assert lib.aclGetDataType(t, dt) == 0
    assert lib.aclGetRawTensorAddr(t, data) == 0
    return {
        "shape": get_array(lib.aclGetViewShape, t),
        "strides": get_array(lib.aclGetViewStrides, t),
        "storage": get_array(lib.aclGetStorageShape, t),
        "offset": off[0],
        "format": fmt[0],
        "dtype": dt[0],
        "data": int(ffi.cast("uintptr_t", data[0])),
    }


@pytest.fixture
def tensors():
    made = []

    def make(*args, **kwargs):
        t = create(*args, **kwargs)
        assert t != NULL, take_msg()
        made.append(t)
        return t

    yield make
    for t in made:
        assert lib.aclDestroyTensor(t) == 0


# ------------------------------------------------------------------ creation

@pytest.mark.parametrize("shape", [[5], [2, 3], [4, 1, 3], [2, 3, 4, 5], [1, 1, 1, 1, 1, 1, 1, 1],
                                   [2, 1, 3, 1, 2, 1, 2, 3]])
def test_null_strides_are_contiguous(tensors, shape):
    t = tensors(shape, lib.ACL_FLOAT)
    d = describe(t)
    assert d["shape"] == shape
    assert d["strides"] == contiguous(shape)
    assert d["storage"] == shape
    assert d["offset"] == 0


def test_zero_size_dims_have_contiguous_strides(tensors):
    # A 0 dimension counts as 1 when the contiguous strides are computed (as torch does: (4, 4, 1)).
    t = tensors([3, 0, 4], lib.ACL_FLOAT16)
    d = describe(t)
    assert d["shape"] == [3, 0, 4]
    assert d["strides"] == [4, 4, 1]
    t2 = tensors([0], lib.ACL_FLOAT, data=NULL)
    assert describe(t2)["shape"] == [0]
    assert describe(t2)["data"] == 0


def test_every_getter(tensors):
    buf = ffi.new("float[64]")
    t = tensors([3, 4], lib.ACL_BF16, strides=[1, 7], offset=5, fmt=lib.ACL_FORMAT_NCHW, storage=[40], data=buf)
    d = describe(t)
    assert d == {
        "shape": [3, 4],
        "strides": [1, 7],
        "storage": [40],
        "offset": 5,
        "format": lib.ACL_FORMAT_NCHW,
        "dtype": lib.ACL_BF16,
        "data": int(ffi.cast("uintptr_t", buf)),
    }


def test_odd_strides_and_offsets_are_kept(tensors):
    cases = [
        ([2, 3], [3, 1], 0),  # contiguous, explicit
        ([2, 3], [1, 2], 0),  # transposed
        ([4, 5], [13, 2], 7),  # gaps
        ([3, 3], [0, 1], 11),  # broadcast (stride 0)
        ([2, 2, 2], [1, 1, 1], 1 << 40),  # overlapping, huge offset
    ]
    for shape, strides, offset in cases:
        d = describe(tensors(shape, lib.ACL_FLOAT, strides=strides, offset=offset, storage=[1000]))
        assert (d["shape"], d["strides"], d["offset"], d["storage"]) == (shape, strides, offset, [1000])


def test_rank_8_and_rank_0(tensors):
    shape8 = [2, 1, 3, 1, 2, 2, 1, 2]
    t8 = tensors(shape8, lib.ACL_FLOAT)
    assert describe(t8)["shape"] == shape8
    # rank 0: NULL shape with count 0 is a 0-d (scalar) tensor; getters give NULL arrays of length 0
    t0 = lib.aclCreateTensor(NULL, 0, lib.ACL_FLOAT, NULL, 0, lib.ACL_FORMAT_ND, NULL, 0, ffi.new("float *"))
    assert t0 != NULL, take_msg()
    try:
        d = describe(t0)
        assert d["shape"] == [] and d["strides"] == [] and d["storage"] == []
    finally:
        lib.aclDestroyTensor(t0)


@pytest.mark.parametrize("rank", [9, 25, 32])
def test_ranks_up_to_32_are_stored(rank):
    """acl_meta.h: "viewDimsNum rank of the view, at most 32 (operators limit it further)"."""
    shape = [1 + (i % 3) for i in range(rank)]
    t = create(shape, lib.ACL_FLOAT, storage=[4] * rank)
    msg = take_msg()
    assert t != NULL, msg
    try:
        d = describe(t)
        assert d["shape"] == shape and d["strides"] == contiguous(shape) and d["storage"] == [4] * rank
    finally:
        lib.aclDestroyTensor(t)


@pytest.mark.parametrize("rank", [33, 40])
def test_ranks_above_32_are_refused(rank):
    shape = [1] * rank
    t = create(shape, lib.ACL_FLOAT, storage=[1])
    assert t == NULL
    assert "viewDimsNum" in take_msg()


def test_storage_shape_independent_of_view(tensors):
    t = tensors([2, 2], lib.ACL_FLOAT, storage=[3, 5, 7], fmt=lib.ACL_FORMAT_NC1HWC0)
    d = describe(t)
    assert d["storage"] == [3, 5, 7] and d["shape"] == [2, 2]
    assert d["format"] == lib.ACL_FORMAT_NC1HWC0


@pytest.mark.parametrize("dtype", [lib.ACL_FLOAT, lib.ACL_FLOAT16, lib.ACL_BF16, lib.ACL_DOUBLE, lib.ACL_INT32,
                                   lib.ACL_INT64, lib.ACL_BOOL, lib.ACL_COMPLEX64, lib.ACL_UINT1, lib.ACL_STRING,
                                   lib.ACL_DT_UNDEFINED])
def test_any_dtype_is_recorded(tensors, dtype):
    assert describe(tensors([2], dtype))["dtype"] == dtype


@pytest.mark.parametrize("fmt", [lib.ACL_FORMAT_UNDEFINED, lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_NHWC, lib.ACL_FORMAT_ND,
                                 lib.ACL_FRACTAL_Z_3D, lib.ACL_FORMAT_FRACTAL_NZ_C0_8])
def test_any_format_is_recorded(tensors, fmt):
    assert describe(tensors([2], lib.ACL_FLOAT, fmt=fmt))["format"] == fmt


@pytest.mark.parametrize("case,words", [
    (dict(view_null=True), ["viewDims"]),
    (dict(storage_null=True), ["storageDims"]),
    (dict(shape=[2, -1]), ["viewDims", "-1"]),
    (dict(storage=[-4]), ["storageDims", "-4"]),
    (dict(strides=[1, -3]), ["stride", "-3"]),
    (dict(offset=-1), ["offset", "-1"]),
])
def test_create_failures_return_null_with_message(case, words):
    shape = case.get("shape", [2, 3])
    storage = case.get("storage", [6])
    dims = NULL if case.get("view_null") else i64(shape)
    sdims = NULL if case.get("storage_null") else i64(storage)
    strides = i64(case["strides"]) if "strides" in case else NULL
    t = lib.aclCreateTensor(dims, len(shape), lib.ACL_FLOAT, strides, case.get("offset", 0), lib.ACL_FORMAT_ND, sdims,
                            len(storage), NULL)
    assert t == NULL
    msg = take_msg()
    assert msg and "aclCreateTensor" in msg
    for w in words:
        assert w in msg, (w, msg)


def test_offset_whose_byte_address_overflows_is_rejected():
    """offset * element size must fit in int64: wrapped, it would address another block."""
    last_ok = (1 << 61) - 2  # float elements: byte offset (2^61 - 1) * 4 = 2^63 - 4 still fits
    t = create([1], lib.ACL_FLOAT, offset=last_ok)
    assert t != NULL, take_msg()
    lib.aclDestroyTensor(t)
    for dtype, offset, shape, strides in [(lib.ACL_FLOAT, last_ok + 1, [1], None),
                                          (lib.ACL_FLOAT, (1 << 62) + 5, [4], None),
                                          (lib.ACL_DOUBLE, 1 << 60, [1], None),
                                          (lib.ACL_FLOAT16, 0, [2, 2], [1, (1 << 62) - 1])]:
        assert create(shape, dtype, strides=strides, offset=offset, storage=[1]) == NULL
        msg = take_msg()
        assert "aclCreateTensor" in msg and "offset" in msg and "2^63-1" in msg, msg
    t = create([2, 3], lib.ACL_FLOAT)
    try:
        before = describe(t)
        assert lib.aclInitTensor(t, i64([1]), 1, lib.ACL_FLOAT, NULL, 1 << 62, lib.ACL_FORMAT_ND, i64([1]), 1,
                                 NULL) == INVALID
        assert "aclInitTensor" in take_msg()
        assert describe(t) == before
    finally:
        lib.aclDestroyTensor(t)


# ------------------------------------------------------------------- getters

def test_getters_reject_null(tensors):
    t = tensors([2, 3], lib.ACL_FLOAT)
    arr, n = ffi.new("int64_t **"), ffi.new("uint64_t *")
    for name in ("aclGetViewShape", "aclGetStorageShape", "aclGetViewStrides"):
        fn = getattr(lib, name)
        assert fn(NULL, arr, n) == NULLPTR
        m = take_msg()
        assert name in m and "tensor" in m
        assert fn(t, NULL, n) == NULLPTR
        assert take_msg()
        assert fn(t, arr, NULL) == NULLPTR
        assert "Num" in take_msg()
    for name, out, word in (("aclGetViewOffset", ffi.new("int64_t *"), "offset"),
                            ("aclGetFormat", ffi.new("aclFormat *"), "format"),
                            ("aclGetDataType", ffi.new("aclDataType *"), "dataType"),
                            ("aclGetRawTensorAddr", ffi.new("void **"), "addr")):
        fn = getattr(lib, name)
        assert fn(NULL, out) == NULLPTR
        m = take_msg()
        assert name in m and "tensor" in m
        assert fn(t, NULL) == NULLPTR
        assert word in take_msg()
    assert lib.aclSetRawTensorAddr(NULL, NULL) == NULLPTR
    assert "tensor" in take_msg()


def test_getter_arrays_are_fresh_copies(tensors):
    t = tensors([2, 3], lib.ACL_FLOAT)
    a, b, n = ffi.new("int64_t **"), ffi.new("int64_t **"), ffi.new("uint64_t *")
    assert lib.aclGetViewShape(t, a, n) == 0
    assert lib.aclGetViewShape(t, b, n) == 0
    assert a[0] != b[0]
    a[0][0] = 99  # the caller owns its copy
    assert get_array(lib.aclGetViewShape, t) == [2, 3]
    lib.aclnnEmuFreeArray(a[0])
    lib.aclnnEmuFreeArray(b[0])
    lib.aclnnEmuFreeArray(NULL)  # no-op


def test_raw_address_set_get(tensors):
    t = tensors([4], lib.ACL_FLOAT)
    p = ffi.new("void **")
    assert lib.aclGetRawTensorAddr(t, p) == 0 and p[0] == NULL
    buf = ffi.new("float[4]")
    assert lib.aclSetRawTensorAddr(t, buf) == 0
    assert lib.aclGetRawTensorAddr(t, p) == 0 and p[0] == ffi.cast("void *", buf)
    assert lib.aclSetRawTensorAddr(t, NULL) == 0
    assert lib.aclGetRawTensorAddr(t, p) == 0 and p[0] == NULL
    # the view is untouched by address changes
    assert describe(t)["shape"] == [4]


# --------------------------------------------------------------- aclInitTensor

def test_init_tensor_success(tensors):
    t = tensors([2, 3], lib.ACL_FLOAT)
    buf = ffi.new("char[128]")
    rc = lib.aclInitTensor(t, i64([3, 2, 2]), 3, lib.ACL_FLOAT16, i64([1, 3, 6]), 2, lib.ACL_FORMAT_NHWC,
                           i64([12, 2]), 2, buf)
    assert rc == 0, take_msg()
    assert describe(t) == {"shape": [3, 2, 2], "strides": [1, 3, 6], "storage": [12, 2], "offset": 2,
                           "format": lib.ACL_FORMAT_NHWC, "dtype": lib.ACL_FLOAT16,
                           "data": int(ffi.cast("uintptr_t", buf))}
    # NULL strides: contiguous again
    assert lib.aclInitTensor(t, i64([5, 2]), 2, lib.ACL_FLOAT, NULL, 0, lib.ACL_FORMAT_ND, i64([10]), 1, NULL) == 0
    d = describe(t)
    assert d["shape"] == [5, 2] and d["strides"] == [2, 1] and d["data"] == 0
    # to rank 0
    assert lib.aclInitTensor(t, NULL, 0, lib.ACL_FLOAT, NULL, 0, lib.ACL_FORMAT_ND, NULL, 0, NULL) == 0
    assert describe(t)["shape"] == []


@pytest.mark.parametrize("kind,code,word", [
    ("negative_dim", INVALID, "viewDims"),
    ("negative_storage", INVALID, "storageDims"),
    ("negative_stride", INVALID, "stride"),
    ("negative_offset", INVALID, "offset"),
    ("null_dims", NULLPTR, "viewDims"),
    ("null_storage", NULLPTR, "storageDims"),
])
def test_init_tensor_failure_leaves_tensor_unchanged(tensors, kind, code, word):
    buf = ffi.new("float[32]")
    t = tensors([2, 3], lib.ACL_FLOAT, strides=[1, 2], offset=1, fmt=lib.ACL_FORMAT_NCHW, storage=[8], data=buf)
    before = describe(t)
    dims, ndims = i64([4, 4]), 2
    storage, nstorage = i64([16]), 1
    strides, offset = NULL, 0
    if kind == "negative_dim":
        dims = i64([4, -2])
    elif kind == "negative_storage":
        storage = i64([-16])
    elif kind == "negative_stride":
        strides = i64([4, -1])
    elif kind == "negative_offset":
        offset = -3
    elif kind == "null_dims":
        dims = NULL
    elif kind == "null_storage":
        storage = NULL
    rc = lib.aclInitTensor(t, dims, ndims, lib.ACL_FLOAT16, strides, offset, lib.ACL_FORMAT_ND, storage, nstorage,
                           NULL)
    assert rc == code
    msg = take_msg()
    assert msg and "aclInitTensor" in msg and word in msg, msg
    assert describe(t) == before


def test_init_tensor_null_tensor():
    assert lib.aclInitTensor(NULL, i64([2]), 1, lib.ACL_FLOAT, NULL, 0, lib.ACL_FORMAT_ND, i64([2]), 1,
                             NULL) == NULLPTR
    assert "tensor" in take_msg()


def test_destroy_null_is_ok():
    for fn in (lib.aclDestroyTensor, lib.aclDestroyScalar, lib.aclDestroyIntArray, lib.aclDestroyFloatArray,
               lib.aclDestroyBoolArray, lib.aclDestroyTensorList, lib.aclDestroyScalarList):
        assert fn(NULL) == 0


# ------------------------------------------------------------------ scalars

def test_scalars():
    values = [
        (lib.ACL_FLOAT, ffi.new("float *", 1.5)),
        (lib.ACL_FLOAT16, ffi.new("uint16_t *", 0x3C00)),
        (lib.ACL_BF16, ffi.new("uint16_t *", 0x3F80)),
        (lib.ACL_DOUBLE, ffi.new("double *", -2.25)),
        (lib.ACL_INT64, ffi.new("int64_t *", -(1 << 40))),
        (lib.ACL_INT32, ffi.new("int32_t *", 7)),
        (lib.ACL_INT8, ffi.new("int8_t *", -3)),
        (lib.ACL_UINT8, ffi.new("uint8_t *", 200)),
        (lib.ACL_BOOL, ffi.new("bool *", True)),
        (lib.ACL_COMPLEX128, ffi.new("double[2]", [1.0, -1.0])),
    ]
    for dtype, value in values:
        s = lib.aclCreateScalar(value, dtype)
        assert s != NULL, (dtype, take_msg())
        assert lib.aclDestroyScalar(s) == 0


def test_scalar_failures():
    assert lib.aclCreateScalar(NULL, lib.ACL_FLOAT) == NULL
    assert "value" in take_msg()
    v = ffi.new("double *", 1.0)
    for dtype in (lib.ACL_STRING, lib.ACL_DT_UNDEFINED, lib.ACL_INT4, lib.ACL_UINT1, lib.ACL_FLOAT4_E2M1):
        assert lib.aclCreateScalar(v, dtype) == NULL
        assert "dataType" in take_msg()


# ------------------------------------------------------------------- arrays

@pytest.mark.parametrize("kind", ["Int", "Float", "Bool"])
def test_arrays(kind):
    ctype = {"Int": "int64_t[]", "Float": "float[]", "Bool": "bool[]"}[kind]
    values = {"Int": [1, -2, 1 << 50], "Float": [0.5, -1.0, 3.25], "Bool": [True, False, True]}[kind]
    create_fn = getattr(lib, "aclCreate%sArray" % kind)
    size_fn = getattr(lib, "aclGet%sArraySize" % kind)
    destroy_fn = getattr(lib, "aclDestroy%sArray" % kind)
    size = ffi.new("uint64_t *", 99)

    arr = create_fn(ffi.new(ctype, values), len(values))
    assert arr != NULL
    assert size_fn(arr, size) == 0 and size[0] == 3
    assert destroy_fn(arr) == 0

    empty = create_fn(NULL, 0)  # NULL is fine with size 0
    assert empty != NULL
    assert size_fn(empty, size) == 0 and size[0] == 0
    assert destroy_fn(empty) == 0

    assert create_fn(NULL, 2) == NULL
    msg = take_msg()
    assert "value" in msg and "2" in msg

    assert size_fn(NULL, size) == NULLPTR
    assert "array" in take_msg()
    arr = create_fn(ffi.new(ctype, values), 1)
    assert size_fn(arr, NULL) == NULLPTR
    assert "size" in take_msg()
    destroy_fn(arr)


def test_arrays_copy_their_input():
    src = ffi.new("int64_t[]", [1, 2, 3])
    arr = lib.aclCreateIntArray(src, 3)
    src[0] = 100  # must not matter
    size = ffi.new("uint64_t *")
    assert lib.aclGetIntArraySize(arr, size) == 0 and size[0] == 3
    lib.aclDestroyIntArray(arr)


# -------------------------------------------------------------------- lists

def test_tensor_list_owns_its_tensors():
    members = [create([i + 1], lib.ACL_FLOAT) for i in range(3)]
    assert all(m != NULL for m in members)
    arr = ffi.new("aclTensor *[]", members + [NULL])  # NULL entries are allowed
    lst = lib.aclCreateTensorList(arr, 4)
    assert lst != NULL
    size = ffi.new("uint64_t *")
    assert lib.aclGetTensorListSize(lst, size) == 0 and size[0] == 4
    assert lib.aclDestroyTensorList(lst) == 0  # destroys the three tensors too (checked under ASan in the C suite)

    empty = lib.aclCreateTensorList(NULL, 0)
    assert empty != NULL
    assert lib.aclGetTensorListSize(empty, size) == 0 and size[0] == 0
    assert lib.aclDestroyTensorList(empty) == 0

    assert lib.aclCreateTensorList(NULL, 1) == NULL
    assert "value" in take_msg()
    assert lib.aclGetTensorListSize(NULL, size) == NULLPTR
    assert "tensorList" in take_msg()


def test_scalar_list_owns_its_scalars():
    members = [lib.aclCreateScalar(ffi.new("float *", float(i)), lib.ACL_FLOAT) for i in range(5)]
    arr = ffi.new("aclScalar *[]", members)
    lst = lib.aclCreateScalarList(arr, 5)
    assert lst != NULL
    size = ffi.new("uint64_t *")
    assert lib.aclGetScalarListSize(lst, size) == 0 and size[0] == 5
    assert lib.aclDestroyScalarList(lst) == 0

    assert lib.aclCreateScalarList(NULL, 3) == NULL
    assert "value" in take_msg()
    assert lib.aclGetScalarListSize(NULL, size) == NULLPTR
    assert "scalarList" in take_msg()
    empty = lib.aclCreateScalarList(NULL, 0)
    assert empty != NULL and lib.aclDestroyScalarList(empty) == 0


def _rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def test_list_destroys_members_no_leak():
    """A list destroys its members: repeated create/destroy rounds do not
    grow the resident set (leaking the descriptors would add ~48 MB)."""

    def one_round():
        members = [create([2, 2], lib.ACL_FLOAT) for _ in range(2000)]
        lst = lib.aclCreateTensorList(ffi.new("aclTensor *[]", members), len(members))
        assert lib.aclDestroyTensorList(lst) == 0

    for _ in range(3):
        one_round()
    before = _rss_kb()
    for _ in range(30):
        one_round()
    after = _rss_kb()
    # 30 rounds x 2000 descriptors of ~800 bytes each would be ~48 MB if leaked.
    assert after - before < 16 * 1024, (before, after)


# ------------------------------------------------- acl_base.h helper functions

DTYPE_SIZES = {
    "ACL_FLOAT": 4, "ACL_FLOAT16": 2, "ACL_BF16": 2, "ACL_DOUBLE": 8, "ACL_INT8": 1, "ACL_UINT8": 1,
    "ACL_INT16": 2, "ACL_UINT16": 2, "ACL_INT32": 4, "ACL_UINT32": 4, "ACL_INT64": 8, "ACL_UINT64": 8,
    "ACL_BOOL": 1, "ACL_COMPLEX64": 8, "ACL_COMPLEX128": 16, "ACL_COMPLEX32": 4, "ACL_HIFLOAT8": 1,
    "ACL_FLOAT8_E5M2": 1, "ACL_FLOAT8_E4M3FN": 1, "ACL_FLOAT8_E8M0": 1,
    # 0: undefined, strings, and the sub-byte types
    "ACL_DT_UNDEFINED": 0, "ACL_STRING": 0, "ACL_INT4": 0, "ACL_UINT1": 0, "ACL_FLOAT4_E2M1": 0,
    "ACL_FLOAT4_E1M2": 0,
}


def test_data_type_size():
    for name, size in DTYPE_SIZES.items():
        assert lib.aclDataTypeSize(getattr(lib, name)) == size, name
    for unknown in (5, 14, 28, 99, 1000):
        assert lib.aclDataTypeSize(unknown) == 0, unknown


def test_float16_conversions():
    import math

    for bits, value in ((0x0000, 0.0), (0x8000, -0.0), (0x3C00, 1.0), (0xC000, -2.0), (0x7BFF, 65504.0),
                        (0x0001, 2.0 ** -24), (0x0400, 2.0 ** -14), (0x3555, 0.333251953125)):
        assert lib.aclFloat16ToFloat(bits) == value
        assert lib.aclFloatToFloat16(value) == bits
    assert math.copysign(1.0, lib.aclFloat16ToFloat(0x8000)) == -1.0
    assert math.isinf(lib.aclFloat16ToFloat(0x7C00)) and math.isnan(lib.aclFloat16ToFloat(0x7E00))
    # round to nearest even: 1 + 2^-11 is a tie between 1 and 1 + 2^-10
    assert lib.aclFloatToFloat16(1.0 + 2.0 ** -11) == 0x3C00
    assert lib.aclFloatToFloat16(1.0 + 3 * 2.0 ** -11) == 0x3C02
    # saturation, as CANN: beyond the range and +-inf give +-65504, NaN gives 65504
    for value, bits in ((70000.0, 0x7BFF), (-70000.0, 0xFBFF), (math.inf, 0x7BFF), (-math.inf, 0xFBFF),
                        (math.nan, 0x7BFF), (65519.0, 0x7BFF), (1e30, 0x7BFF)):
        assert lib.aclFloatToFloat16(value) == bits, value
