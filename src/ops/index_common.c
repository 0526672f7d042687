/* The helpers of index_common.h: strided blocks, element conversion,
 * index reading and phase-1 checks shared by the indexing family. */
#include <stdio.h>
#include <string.h>

#include "kernels/convert/convert.h"
#include "ops/index_common.h"

void emu_idx_block_push(emu_idx_block *block, int64_t size, int64_t dst_stride, int64_t src_stride)
{
    if (size == 1) {
        return;
    }
    const int32_t last = block->rank - 1;
    if (last >= 0 && block->dst[last] == dst_stride * size && block->src[last] == src_stride * size) {
        block->shape[last] *= size;
        block->dst[last] = dst_stride;
        block->src[last] = src_stride;
        return;
    }
    block->shape[block->rank] = size;
    block->dst[block->rank] = dst_stride;
    block->src[block->rank] = src_stride;
    ++block->rank;
}

int64_t emu_idx_block_numel(const emu_idx_block *block)
{
    int64_t n = 1;
    for (int32_t d = 0; d < block->rank; ++d) {
        n *= block->shape[d];
    }
    return n;
}

typedef enum { BLOCK_COPY, BLOCK_ZERO, BLOCK_FILL } block_op;

/* The innermost row of a block: n elements at the row's strides. */
static void row_op(block_op op, char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, size_t elem)
{
    const int64_t e = (int64_t)elem;
    if (op == BLOCK_ZERO && ds == e) {
        memset(dst, 0, (size_t)(n * e));
        return;
    }
    if (op == BLOCK_COPY && ds == e && ss == e) {
        memcpy(dst, src, (size_t)(n * e));
        return;
    }
    static const unsigned char ZERO[16];
    if (op == BLOCK_ZERO) {
        src = (const char *)ZERO;
    }
    if (op != BLOCK_COPY) {
        ss = 0;
    }
#define ROW_LOOP(T)                                                                                         \
    for (int64_t j = 0; j < n; ++j) {                                                                       \
        memcpy(dst + j * ds, src + j * ss, sizeof(T));                                                      \
    }                                                                                                       \
    return;
    switch (elem) {
    case 1:
        ROW_LOOP(uint8_t)
    case 2:
        ROW_LOOP(uint16_t)
    case 4:
        ROW_LOOP(uint32_t)
    case 8:
        ROW_LOOP(uint64_t)
    default:
        for (int64_t j = 0; j < n; ++j) {
            memcpy(dst + j * ds, src + j * ss, elem);
        }
    }
#undef ROW_LOOP
}

static void block_apply(block_op op, const emu_idx_block *block, char *dst, const char *src, size_t elem)
{
    if (block->rank == 0) {
        row_op(op, dst, (int64_t)elem, src, (int64_t)elem, 1, elem);
        return;
    }
    const int32_t inner = block->rank - 1;
    int64_t counter[EMU_IDX_MAX_RANK] = {0};
    int64_t rows = 1;
    for (int32_t d = 0; d < inner; ++d) {
        rows *= block->shape[d];
    }
    for (int64_t r = 0; r < rows; ++r) {
        row_op(op, dst, block->dst[inner], src, block->src[inner], block->shape[inner], elem);
        for (int32_t d = inner - 1; d >= 0; --d) { /* next row: carry through the outer dimensions */
            dst += block->dst[d];
            src += op == BLOCK_COPY ? block->src[d] : 0;
            if (++counter[d] < block->shape[d]) {
                break;
            }
            counter[d] = 0;
            dst -= block->dst[d] * block->shape[d];
            src -= op == BLOCK_COPY ? block->src[d] * block->shape[d] : 0;
        }
    }
}

void emu_idx_block_copy(const emu_idx_block *block, char *dst, const char *src, size_t elem)
{
    block_apply(BLOCK_COPY, block, dst, src, elem);
}

void emu_idx_block_zero(const emu_idx_block *block, char *dst, size_t elem)
{
    block_apply(BLOCK_ZERO, block, dst, NULL, elem);
}

void emu_idx_block_fill(const emu_idx_block *block, char *dst, const void *value, size_t elem)
{
    block_apply(BLOCK_FILL, block, dst, value, elem);
}

static bool is_complex(aclDataType dtype)
{
    return dtype == ACL_COMPLEX32 || dtype == ACL_COMPLEX64 || dtype == ACL_COMPLEX128;
}

bool emu_idx_can_convert(aclDataType from, aclDataType to)
{
    return from == to || (!is_complex(from) && !is_complex(to) && emu_dtype_size(from) > 0 && emu_dtype_size(to) > 0);
}

static double load_real(const char *p, aclDataType dtype, int64_t *as_int, bool *exact_int)
{
    *exact_int = true;
#define LOAD_INT(T)                                                                                         \
    {                                                                                                       \
        T v;                                                                                                \
        memcpy(&v, p, sizeof v);                                                                            \
        *as_int = (int64_t)v;                                                                               \
        return (double)v;                                                                                   \
    }
    switch (dtype) {
    case ACL_INT8: LOAD_INT(int8_t)
    case ACL_UINT8: LOAD_INT(uint8_t)
    case ACL_INT16: LOAD_INT(int16_t)
    case ACL_UINT16: LOAD_INT(uint16_t)
    case ACL_INT32: LOAD_INT(int32_t)
    case ACL_UINT32: LOAD_INT(uint32_t)
    case ACL_INT64: LOAD_INT(int64_t)
    case ACL_BOOL: LOAD_INT(uint8_t)
    case ACL_UINT64: {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        *as_int = v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
        *exact_int = v <= (uint64_t)INT64_MAX;
        return (double)v;
    }
    default:
        break;
    }
#undef LOAD_INT
    *exact_int = false;
    *as_int = 0;
    uint16_t h;
    switch (dtype) {
    case ACL_FLOAT: {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    case ACL_DOUBLE: {
        double d;
        memcpy(&d, p, sizeof d);
        return d;
    }
    case ACL_FLOAT16:
        memcpy(&h, p, sizeof h);
        return emu_f16_to_f32(h);
    case ACL_BF16:
        memcpy(&h, p, sizeof h);
        return emu_bf16_to_f32(h);
    default:
        return 0.0;
    }
}

void emu_idx_store_value(void *dst, aclDataType dtype, double value, int64_t value_int, bool exact_int)
{
    uint16_t h;
    switch (dtype) {
    case ACL_FLOAT: {
        const float f = (float)value;
        memcpy(dst, &f, sizeof f);
        return;
    }
    case ACL_DOUBLE:
        memcpy(dst, &value, sizeof value);
        return;
    case ACL_FLOAT16:
        h = emu_f32_to_f16((float)value);
        memcpy(dst, &h, sizeof h);
        return;
    case ACL_BF16:
        h = emu_f32_to_bf16((float)value);
        memcpy(dst, &h, sizeof h);
        return;
    default:
        break;
    }
    /* Integers: exactly from an integer source, else truncated and saturated. */
    const double rounded = emu_round_to_dtype(value, dtype);
    const int64_t i = exact_int ? value_int : (int64_t)(rounded >= 9223372036854775807.0 ? INT64_MAX : rounded);
#define STORE_INT(T, lo, hi)                                                                                \
    {                                                                                                       \
        const T v = (T)(exact_int ? (i < (lo) ? (lo) : i > (hi) ? (hi) : i) : i);                          \
        memcpy(dst, &v, sizeof v);                                                                          \
        return;                                                                                             \
    }
    switch (dtype) {
    case ACL_INT8: STORE_INT(int8_t, INT8_MIN, INT8_MAX)
    case ACL_UINT8: STORE_INT(uint8_t, 0, UINT8_MAX)
    case ACL_INT16: STORE_INT(int16_t, INT16_MIN, INT16_MAX)
    case ACL_UINT16: STORE_INT(uint16_t, 0, UINT16_MAX)
    case ACL_INT32: STORE_INT(int32_t, INT32_MIN, INT32_MAX)
    case ACL_UINT32: STORE_INT(uint32_t, 0, (int64_t)UINT32_MAX)
    case ACL_INT64:
        memcpy(dst, &i, sizeof i);
        return;
    case ACL_BOOL: {
        const uint8_t v = exact_int ? value_int != 0 : value != 0;
        memcpy(dst, &v, sizeof v);
        return;
    }
    case ACL_UINT64: {
        const uint64_t v = exact_int ? (value_int < 0 ? 0 : (uint64_t)value_int)
                                     : (rounded >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)rounded);
        memcpy(dst, &v, sizeof v);
        return;
    }
    default:
        return;
    }
#undef STORE_INT
}

void emu_idx_move(char *dst, int64_t dst_stride, aclDataType to, const char *src, int64_t src_stride,
                  aclDataType from, int64_t n)
{
    if (from == to) {
        row_op(BLOCK_COPY, dst, dst_stride, src, src_stride, n, emu_dtype_size(to));
        return;
    }
    if (from == ACL_FLOAT && (to == ACL_FLOAT16 || to == ACL_BF16)) {
        for (int64_t j = 0; j < n; ++j) {
            float f;
            memcpy(&f, src + j * src_stride, sizeof f);
            const uint16_t h = to == ACL_FLOAT16 ? emu_f32_to_f16(f) : emu_f32_to_bf16(f);
            memcpy(dst + j * dst_stride, &h, sizeof h);
        }
        return;
    }
    for (int64_t j = 0; j < n; ++j) {
        int64_t as_int;
        bool exact_int;
        const double v = load_real(src + j * src_stride, from, &as_int, &exact_int);
        emu_idx_store_value(dst + j * dst_stride, to, v, as_int, exact_int);
    }
}

void emu_idx_read_indices(const emu_view *index, int64_t *out)
{
    const int64_t count = emu_view_numel(index);
    const char *base = emu_view_origin(index);
    const int64_t elem = (int64_t)emu_dtype_size(index->dtype);
    int64_t counter[EMU_MAX_DIMS] = {0};
    int64_t at = 0; /* bytes from the origin */
    for (int64_t k = 0; k < count; ++k) {
        if (index->dtype == ACL_INT64) {
            memcpy(&out[k], base + at, sizeof(int64_t));
        } else {
            int32_t v;
            memcpy(&v, base + at, sizeof v);
            out[k] = v;
        }
        for (int32_t d = index->rank - 1; d >= 0; --d) {
            at += index->strides[d] * elem;
            if (++counter[d] < index->shape[d]) {
                break;
            }
            counter[d] = 0;
            at -= index->strides[d] * elem * index->shape[d];
        }
    }
}

uint64_t emu_idx_reserve(uint64_t *total, uint64_t bytes)
{
    const uint64_t at = (*total + EMU_IDX_WORKSPACE_ALIGN - 1) / EMU_IDX_WORKSPACE_ALIGN * EMU_IDX_WORKSPACE_ALIGN;
    *total = at + bytes;
    return at;
}

const char *emu_idx_int_array_string(const int64_t *values, uint64_t size, char *buf, size_t buf_size)
{
    size_t used = (size_t)snprintf(buf, buf_size, "[");
    for (uint64_t i = 0; i < size && used < buf_size; ++i) {
        used += (size_t)snprintf(buf + used, buf_size - used, "%s%lld", i ? ", " : "", (long long)values[i]);
    }
    if (used < buf_size) {
        snprintf(buf + used, buf_size - used, "]");
    }
    return buf;
}

aclnnStatus emu_idx_check_memory(const char *api, const char *name, const aclTensor *tensor)
{
    EMU_TRY(emu_check_has_data(api, name, tensor));
    return emu_check_device_memory(api, name, tensor);
}

aclnnStatus emu_idx_check_separate(const char *api, const char *out_name, const aclTensor *out, const char *in_name,
                                   const aclTensor *input)
{
    if (input != NULL && emu_views_share_bytes(&out->view, &input->view)) {
        return emu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shares memory with %s; expected an output in memory of its "
                                                 "own.", api, out_name, in_name);
    }
    return ACLNN_SUCCESS;
}
