/* Shared pieces of the indexing family (index.c, index_copy.c,
 * index_fill.c, index_image.c; defined in index_common.c): strided blocks
 * of elements moved, zeroed or filled byte for byte, index tensors read as
 * int64, element conversion between real dtypes, and phase-1 helpers.
 * Kernels are plain loops; the innermost dimension is a memcpy wherever
 * both sides are dense. */
#ifndef EMU_OPS_INDEX_COMMON_H_
#define EMU_OPS_INDEX_COMMON_H_

#include "meta/executor.h"
#include "ops/check.h"
#include "ops/ew.h"
#include "ops/opdef.h"

enum {
    EMU_IDX_MAX_RANK = 8,
    /* Elements one parallel chunk moves, about: large enough to amortise the hand-off. */
    EMU_IDX_GRAIN_ELEMENTS = 16384,
    EMU_IDX_WORKSPACE_ALIGN = 64,
};

/* A block of elements: `rank` dimensions (0: one element), strides in
 * bytes, for a destination and (for moves) a source. */
typedef struct {
    int32_t rank;
    int64_t shape[EMU_IDX_MAX_RANK];
    int64_t dst[EMU_IDX_MAX_RANK];
    int64_t src[EMU_IDX_MAX_RANK];
} emu_idx_block;

/* Appends a dimension to a block, dropping size-1 dimensions and merging it
 * into the previous one where both sides stay dense together. Dimensions
 * are appended outermost first. */
void emu_idx_block_push(emu_idx_block *block, int64_t size, int64_t dst_stride, int64_t src_stride);
int64_t emu_idx_block_numel(const emu_idx_block *block);

/* dst block = src block, elements of `elem` bytes (the same dtype). */
void emu_idx_block_copy(const emu_idx_block *block, char *dst, const char *src, size_t elem);
/* dst block = zero bytes (0 in every dtype). */
void emu_idx_block_zero(const emu_idx_block *block, char *dst, size_t elem);
/* dst block = the `elem` bytes at `value`. */
void emu_idx_block_fill(const emu_idx_block *block, char *dst, const void *value, size_t elem);

/* n elements from src (stride in bytes, dtype `from`) to dst (stride in
 * bytes, dtype `to`): a byte copy for the same dtype, else a conversion as
 * CANN's Cast does it (round to nearest even into floats, truncation toward
 * zero, saturating, into integers, non-zero to true). Complex dtypes only
 * copy (phase 1 refuses a conversion). */
void emu_idx_move(char *dst, int64_t dst_stride, aclDataType to, const char *src, int64_t src_stride,
                  aclDataType from, int64_t n);
/* Whether emu_idx_move converts between the two dtypes. */
bool emu_idx_can_convert(aclDataType from, aclDataType to);
/* `value` stored as one element of `dtype` (rounded as emu_round_to_dtype). */
void emu_idx_store_value(void *dst, aclDataType dtype, double value, int64_t value_int, bool exact_int);

/* The values of an index tensor (INT32 or INT64, any strides), row-major,
 * into dense int64. */
void emu_idx_read_indices(const emu_view *index, int64_t *out);

/* Reserves `bytes` (aligned) at the end of a workspace of *total bytes; returns the offset. */
uint64_t emu_idx_reserve(uint64_t *total, uint64_t bytes);

/* "[2, 3]" of an int array, into buf. */
const char *emu_idx_int_array_string(const int64_t *values, uint64_t size, char *buf, size_t buf_size);

/* emu_check_has_data and emu_check_device_memory. */
aclnnStatus emu_idx_check_memory(const char *api, const char *name, const aclTensor *tensor);
/* 161002 when `out` shares memory with `input` (NULL inputs pass). */
aclnnStatus emu_idx_check_separate(const char *api, const char *out_name, const aclTensor *out, const char *in_name,
                                   const aclTensor *input);

#endif /* EMU_OPS_INDEX_COMMON_H_ */
