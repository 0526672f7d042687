"""Every enum value and status code of the public headers, as seen through
``aclnn_emu.lib``, against literal numbers transcribed from
/work/shared/reference/cann_facts.md (sections 1.3-1.6 and 1.9).

The numbers below are typed in from the facts file, not read from the
headers, so a header that drifts from CANN fails here. For the enums the
test also checks completeness: the set of member names cffi knows for the
type must be exactly the set transcribed.
"""

import pytest
from aclnn_emu import ffi, lib

# --- cann_facts 1.3: aclDataType ------------------------------------------
ACL_DATA_TYPE = {
    "ACL_DT_UNDEFINED": -1,
    "ACL_FLOAT": 0,
    "ACL_FLOAT16": 1,
    "ACL_INT8": 2,
    "ACL_INT32": 3,
    "ACL_UINT8": 4,
    "ACL_INT16": 6,
    "ACL_UINT16": 7,
    "ACL_UINT32": 8,
    "ACL_INT64": 9,
    "ACL_UINT64": 10,
    "ACL_DOUBLE": 11,
    "ACL_BOOL": 12,
    "ACL_STRING": 13,
    "ACL_COMPLEX64": 16,
    "ACL_COMPLEX128": 17,
    "ACL_BF16": 27,
    "ACL_INT4": 29,
    "ACL_UINT1": 30,
    "ACL_COMPLEX32": 33,
    "ACL_HIFLOAT8": 34,
    "ACL_FLOAT8_E5M2": 35,
    "ACL_FLOAT8_E4M3FN": 36,
    "ACL_FLOAT8_E8M0": 37,
    "ACL_FLOAT6_E3M2": 38,
    "ACL_FLOAT6_E2M3": 39,
    "ACL_FLOAT4_E2M1": 40,
    "ACL_FLOAT4_E1M2": 41,
}
# "values 5, 14, 15, 18-26, 28, 31, 32 are unused"
UNUSED_DATA_TYPE_VALUES = {5, 14, 15, *range(18, 27), 28, 31, 32}

# --- cann_facts 1.4: aclFormat --------------------------------------------
ACL_FORMAT = {
    "ACL_FORMAT_UNDEFINED": -1,
    "ACL_FORMAT_NCHW": 0,
    "ACL_FORMAT_NHWC": 1,
    "ACL_FORMAT_ND": 2,
    "ACL_FORMAT_NC1HWC0": 3,
    "ACL_FORMAT_FRACTAL_Z": 4,
    "ACL_FORMAT_NC1HWC0_C04": 12,
    "ACL_FORMAT_HWCN": 16,
    "ACL_FORMAT_NDHWC": 27,
    "ACL_FORMAT_FRACTAL_NZ": 29,
    "ACL_FORMAT_NCDHW": 30,
    "ACL_FORMAT_NDC1HWC0": 32,
    "ACL_FRACTAL_Z_3D": 33,  # no FORMAT_ in this name, as in CANN
    "ACL_FORMAT_NC": 35,
    "ACL_FORMAT_NCL": 47,
    "ACL_FORMAT_FRACTAL_NZ_C0_16": 50,
    "ACL_FORMAT_FRACTAL_NZ_C0_32": 51,
    "ACL_FORMAT_FRACTAL_NZ_C0_2": 52,
    "ACL_FORMAT_FRACTAL_NZ_C0_4": 53,
    "ACL_FORMAT_FRACTAL_NZ_C0_8": 54,
}

# --- cann_facts 1.5: aclError codes (static const int in acl_base.h) --------
ACL_ERRORS = {
    "ACL_SUCCESS": 0,
    "ACL_ERROR_NONE": 0,
    # 100000 series: parameter errors
    "ACL_ERROR_INVALID_PARAM": 100000,
    "ACL_ERROR_UNINITIALIZE": 100001,
    "ACL_ERROR_REPEAT_INITIALIZE": 100002,
    "ACL_ERROR_INVALID_FILE": 100003,
    "ACL_ERROR_WRITE_FILE": 100004,
    "ACL_ERROR_INVALID_FILE_SIZE": 100005,
    "ACL_ERROR_PARSE_FILE": 100006,
    "ACL_ERROR_FILE_MISSING_ATTR": 100007,
    "ACL_ERROR_FILE_ATTR_INVALID": 100008,
    "ACL_ERROR_INVALID_DUMP_CONFIG": 100009,
    "ACL_ERROR_INVALID_PROFILING_CONFIG": 100010,
    "ACL_ERROR_INVALID_MODEL_ID": 100011,
    "ACL_ERROR_DESERIALIZE_MODEL": 100012,
    "ACL_ERROR_PARSE_MODEL": 100013,
    "ACL_ERROR_READ_MODEL_FAILURE": 100014,
    "ACL_ERROR_MODEL_SIZE_INVALID": 100015,
    "ACL_ERROR_MODEL_MISSING_ATTR": 100016,
    "ACL_ERROR_MODEL_INPUT_NOT_MATCH": 100017,
    "ACL_ERROR_MODEL_OUTPUT_NOT_MATCH": 100018,
    "ACL_ERROR_MODEL_NOT_DYNAMIC": 100019,
    "ACL_ERROR_OP_TYPE_NOT_MATCH": 100020,
    "ACL_ERROR_OP_INPUT_NOT_MATCH": 100021,
    "ACL_ERROR_OP_OUTPUT_NOT_MATCH": 100022,
    "ACL_ERROR_OP_ATTR_NOT_MATCH": 100023,
    "ACL_ERROR_OP_NOT_FOUND": 100024,
    "ACL_ERROR_OP_LOAD_FAILED": 100025,
    "ACL_ERROR_UNSUPPORTED_DATA_TYPE": 100026,
    "ACL_ERROR_FORMAT_NOT_MATCH": 100027,
    "ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED": 100028,
    "ACL_ERROR_KERNEL_NOT_FOUND": 100029,
    "ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED": 100030,
    "ACL_ERROR_KERNEL_ALREADY_REGISTERED": 100031,
    "ACL_ERROR_INVALID_QUEUE_ID": 100032,
    "ACL_ERROR_REPEAT_SUBSCRIBE": 100033,
    "ACL_ERROR_STREAM_NOT_SUBSCRIBE": 100034,
    "ACL_ERROR_THREAD_NOT_SUBSCRIBE": 100035,
    "ACL_ERROR_WAIT_CALLBACK_TIMEOUT": 100036,
    "ACL_ERROR_REPEAT_FINALIZE": 100037,
    "ACL_ERROR_NOT_STATIC_AIPP": 100038,
    "ACL_ERROR_COMPILING_STUB_MODE": 100039,
    "ACL_ERROR_GROUP_NOT_SET": 100040,
    "ACL_ERROR_GROUP_NOT_CREATE": 100041,
    "ACL_ERROR_PROF_ALREADY_RUN": 100042,
    "ACL_ERROR_PROF_NOT_RUN": 100043,
    "ACL_ERROR_DUMP_ALREADY_RUN": 100044,
    "ACL_ERROR_DUMP_NOT_RUN": 100045,
    # "PROF_REPEAT_SUBSCRIBE=148046 ... INVALID_BUNDLE_MODEL_ID=148053"
    "ACL_ERROR_PROF_REPEAT_SUBSCRIBE": 148046,
    "ACL_ERROR_PROF_API_CONFLICT": 148047,
    "ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG": 148048,
    "ACL_ERROR_INVALID_OPP_PATH": 148049,
    "ACL_ERROR_OP_UNSUPPORTED_DYNAMIC": 148050,
    "ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED": 148051,
    "ACL_ERROR_UNSUPPORTED_JPEG": 148052,
    "ACL_ERROR_INVALID_BUNDLE_MODEL_ID": 148053,
    # 200000 series: resource errors
    "ACL_ERROR_BAD_ALLOC": 200000,
    "ACL_ERROR_API_NOT_SUPPORT": 200001,
    "ACL_ERROR_INVALID_DEVICE": 200002,
    "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED": 200003,
    "ACL_ERROR_RESOURCE_NOT_MATCH": 200004,
    "ACL_ERROR_INVALID_RESOURCE_HANDLE": 200005,
    "ACL_ERROR_FEATURE_UNSUPPORTED": 200006,
    "ACL_ERROR_PROF_MODULES_UNSUPPORTED": 200007,
    # 300000
    "ACL_ERROR_STORAGE_OVER_LIMIT": 300000,
    # 500000 series: internal errors
    "ACL_ERROR_INTERNAL_ERROR": 500000,
    "ACL_ERROR_FAILURE": 500001,
    "ACL_ERROR_GE_FAILURE": 500002,
    "ACL_ERROR_RT_FAILURE": 500003,
    "ACL_ERROR_DRV_FAILURE": 500004,
    "ACL_ERROR_PROFILING_FAILURE": 500005,
}

# --- cann_facts 1.5: runtime codes named there (rt_error_codes.h) ---------
RT_ERRORS = {
    "ACL_RT_SUCCESS": 0,
    "ACL_ERROR_RT_PARAM_INVALID": 107000,
    "ACL_ERROR_RT_INVALID_DEVICEID": 107001,
    "ACL_ERROR_RT_CONTEXT_NULL": 107002,
    "ACL_ERROR_RT_STREAM_CONTEXT": 107003,
    "ACL_ERROR_RT_FEATURE_NOT_SUPPORT": 207000,
    "ACL_ERROR_RT_MEMORY_ALLOCATION": 207001,
    "ACL_ERROR_RT_MEMORY_FREE": 207002,
    "ACL_ERROR_RT_NO_DEVICE": 207004,
    "ACL_ERROR_RT_DEVICE_OOM": 207018,
    "ACL_ERROR_RT_INTERNAL_ERROR": 507000,
    "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT": 507046,
}

# --- cann_facts 1.9: aclnn status codes -----------------------------------
ACLNN_STATUS = {
    "ACLNN_SUCCESS": 0,
    "ACLNN_ERR_PARAM_NULLPTR": 161001,
    "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001,
    "ACLNN_ERR_INNER": 561000,
    "ACLNN_ERR_INNER_INFERSHAPE_ERROR": 561001,
    "ACLNN_ERR_INNER_TILING_ERROR": 561002,
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003,
    "ACLNN_ERR_INNER_CREATE_EXECUTOR": 561101,
    "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": 561102,
    "ACLNN_ERR_INNER_NULLPTR": 561103,
    "ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE": 561104,
    "ACLNN_ERR_INNER_KEY_CONFILICT": 561105,
    "ACLNN_ERR_INNER_KEY_CONFLICT": 561105,
    "ACLNN_ERR_INNER_INVALID_IMPL_MODE": 561106,
    "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND": 561107,
    "ACLNN_ERR_INNER_LOAD_JSON_FAILED": 561108,
    "ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND": 561109,
    "ACLNN_ERR_INNER_JSON_FORMAT_INVALID": 561110,
    "ACLNN_ERR_INNER_JSON_DTYPE_INVALID": 561111,
    "ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND": 561112,
    "ACLNN_ERR_INNER_OP_FILE_INVALID": 561113,
    "ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND": 561114,
    "ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH": 561115,
    "ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE": 561116,
    "ACLNN_ERR_INNER_INPUT_JSON_IS_NULL": 561117,
    "ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID": 561118,
    "ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID": 561119,
}

# --- cann_facts 1.6: runtime enums -----------------------------------------
ACLRT_MEM_MALLOC_POLICY = {
    "ACL_MEM_MALLOC_HUGE_FIRST": 0,
    "ACL_MEM_MALLOC_HUGE_ONLY": 1,
    "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
    "ACL_MEM_MALLOC_HUGE_FIRST_P2P": 3,
    "ACL_MEM_MALLOC_HUGE_ONLY_P2P": 4,
    "ACL_MEM_MALLOC_NORMAL_ONLY_P2P": 5,
    "ACL_MEM_MALLOC_HUGE1G_ONLY": 6,
    "ACL_MEM_MALLOC_HUGE1G_ONLY_P2P": 7,
    "ACL_MEM_TYPE_LOW_BAND_WIDTH": 0x0100,
    "ACL_MEM_TYPE_HIGH_BAND_WIDTH": 0x1000,
    "ACL_MEM_ACCESS_USER_SPACE_READONLY": 0x100000,
}

ACLRT_MEMCPY_KIND = {
    "ACL_MEMCPY_HOST_TO_HOST": 0,
    "ACL_MEMCPY_HOST_TO_DEVICE": 1,
    "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3,
    "ACL_MEMCPY_DEFAULT": 4,
    "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE": 5,
    "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE": 6,
    "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE": 7,
}

ACLRT_RUN_MODE = {"ACL_DEVICE": 0, "ACL_HOST": 1}
ACLRT_EVENT_RECORDED_STATUS = {"ACL_EVENT_RECORDED_STATUS_NOT_READY": 0, "ACL_EVENT_RECORDED_STATUS_COMPLETE": 1}
ACLRT_EVENT_STATUS = {"ACL_EVENT_STATUS_COMPLETE": 0, "ACL_EVENT_STATUS_NOT_READY": 1, "ACL_EVENT_STATUS_RESERVED": 2}
ACLRT_STREAM_STATUS = {"ACL_STREAM_STATUS_COMPLETE": 0, "ACL_STREAM_STATUS_NOT_READY": 1,
                       "ACL_STREAM_STATUS_RESERVED": 0xFFFF}
ACLRT_CALLBACK_BLOCK_TYPE = {"ACL_CALLBACK_NO_BLOCK": 0, "ACL_CALLBACK_BLOCK": 1}
# Only the first two members are given in the facts; the rest are checked by value below.
ACLRT_MEM_ATTR_KNOWN = {"ACL_DDR_MEM": 0, "ACL_HBM_MEM": 1}

OTHER_MACROS = {
    "ACL_EVENT_SYNC": 0x1,
    "ACL_EVENT_TIME_LINE": 0x8,
    "ACL_STREAM_FAST_LAUNCH": 0x1,
    "ACL_MAJOR_VERSION": 1,
    "ACL_MINOR_VERSION": 17,
}

ENUM_TYPES = [
    ("aclDataType", ACL_DATA_TYPE),
    ("aclFormat", ACL_FORMAT),
    ("aclrtMemMallocPolicy", ACLRT_MEM_MALLOC_POLICY),
    ("aclrtMemcpyKind", ACLRT_MEMCPY_KIND),
    ("aclrtRunMode", ACLRT_RUN_MODE),
    ("aclrtEventRecordedStatus", ACLRT_EVENT_RECORDED_STATUS),
    ("aclrtEventStatus", ACLRT_EVENT_STATUS),
    ("aclrtStreamStatus", ACLRT_STREAM_STATUS),
    ("aclrtCallbackBlockType", ACLRT_CALLBACK_BLOCK_TYPE),
]

ALL_VALUES = {}
for _table in (ACL_DATA_TYPE, ACL_FORMAT, ACL_ERRORS, RT_ERRORS, ACLNN_STATUS, ACLRT_MEM_MALLOC_POLICY,
               ACLRT_MEMCPY_KIND, ACLRT_RUN_MODE, ACLRT_EVENT_RECORDED_STATUS, ACLRT_EVENT_STATUS,
               ACLRT_STREAM_STATUS, ACLRT_CALLBACK_BLOCK_TYPE, ACLRT_MEM_ATTR_KNOWN, OTHER_MACROS):
    ALL_VALUES.update(_table)


def test_every_transcribed_value_matches_lib():
    """All names in one pass, so a failure lists every mismatch at once."""
    missing = sorted(name for name in ALL_VALUES if not hasattr(lib, name))
    wrong = sorted((name, getattr(lib, name), want) for name, want in ALL_VALUES.items()
                   if hasattr(lib, name) and getattr(lib, name) != want)
    assert not missing, "names missing from aclnn_emu.lib: %s" % missing
    assert not wrong, "(name, lib value, cann_facts value) that differ: %s" % wrong


@pytest.mark.parametrize("name,value", sorted(ALL_VALUES.items()))
def test_value(name, value):
    assert getattr(lib, name) == value


@pytest.mark.parametrize("type_name,table", ENUM_TYPES, ids=[t for t, _ in ENUM_TYPES])
def test_enum_members_are_exactly_the_cann_ones(type_name, table):
    members = dict(ffi.typeof(type_name).relements)
    assert members == table


def test_data_type_unused_values_are_unused():
    used = set(ffi.typeof("aclDataType").relements.values())
    assert not (used & UNUSED_DATA_TYPE_VALUES)


def test_mem_attr_members():
    members = dict(ffi.typeof("aclrtMemAttr").relements)
    for name, value in ACLRT_MEM_ATTR_KNOWN.items():
        assert members[name] == value
    # The runtime header numbers the attributes 0..11 without gaps.
    assert sorted(members.values()) == list(range(12))


def test_acl_error_names_are_all_transcribed():
    """No ACL_ERROR_* status (outside the runtime's ACL_ERROR_RT_* set) and no
    ACLNN_* status exists in lib without a value from the facts."""
    # ACL_ERROR_RT_FAILURE (500003) is an acl_base.h code despite its prefix.
    names = {n for n in dir(lib)
             if n.startswith("ACL_ERROR_") and (not n.startswith("ACL_ERROR_RT_") or n == "ACL_ERROR_RT_FAILURE")}
    assert names == {n for n in ACL_ERRORS if n.startswith("ACL_ERROR_")}
    aclnn = {n for n in dir(lib) if n.startswith("ACLNN_") and not n.startswith("ACLNN_EMU_")}
    assert aclnn == set(ACLNN_STATUS)


def test_rt_codes_are_in_their_series():
    for name in dir(lib):
        if name.startswith("ACL_ERROR_RT_") and name != "ACL_ERROR_RT_FAILURE":
            value = getattr(lib, name)
            assert value // 1000 in (107, 207, 507), (name, value)


def test_types_are_plain_ints():
    for name in ALL_VALUES:
        assert isinstance(getattr(lib, name), int), name
