/* CANN's FRACTAL_NZ layout of matrix weights, as aclnnTransMatmulWeight
 * (trans_matmul_weight.c) writes it and the weight-reading operators read it.
 *
 * A tensor of shape [..., rows, cols] (its ND view shape when it was
 * transformed) is stored as [..., ceil(cols / C0), ceil(rows / 16), 16, C0]
 * with C0 = 32 bytes of elements (16 for 2-byte dtypes, 32 for 1-byte ones,
 * 64 for INT4): column blocks of C0, each holding every row (padded to a
 * multiple of 16) as a run of C0 elements. Padding is zero. Element (r, c)
 * of a matrix lies at
 *     (c / C0) * rows16 * C0 + r * C0 + c % C0,   rows16 = align(rows, 16)
 * elements from the matrix's start, and matrix b of the batch at
 * b * align(rows, 16) * align(cols, C0).
 *
 * Which matrix: an operator given a FRACTAL_NZ weight whose view is
 * contiguous reads the NZ storage of that [rows, cols] = view shape; one
 * whose view is the transpose of the last two dimensions (strides (1, rows)
 * for shape [cols, rows]) reads the storage of the untransposed
 * [rows, cols] matrix, as CANN's matmul op_api does (the original shape is
 * the view shape with its last two dimensions swapped). */
#ifndef EMU_OPS_NZ_LAYOUT_H_
#define EMU_OPS_NZ_LAYOUT_H_

#include <stdint.h>

#include "meta/tensor.h"

enum { EMU_NZ_ROWS = 16, EMU_NZ_BLOCK_BYTES = 32 };

/* C0 of a dtype (0 for a dtype with no element size). */
static inline int64_t emu_nz_c0(aclDataType dtype)
{
    if (dtype == ACL_INT4) {
        return 2 * EMU_NZ_BLOCK_BYTES;
    }
    const int64_t size = (int64_t)emu_dtype_size(dtype);
    return size > 0 ? EMU_NZ_BLOCK_BYTES / size : 0;
}

static inline int64_t emu_nz_align(int64_t x, int64_t to)
{
    return (x + to - 1) / to * to;
}

/* Elements one [rows, cols] matrix takes in NZ storage. */
static inline int64_t emu_nz_matrix_elems(int64_t rows, int64_t cols, int64_t c0)
{
    return emu_nz_align(rows, EMU_NZ_ROWS) * emu_nz_align(cols, c0);
}

/* Index of element (r, c) in the NZ storage of a matrix with rows16 =
 * align(rows, 16) rows. */
static inline int64_t emu_nz_index(int64_t r, int64_t c, int64_t rows16, int64_t c0)
{
    return (c / c0) * rows16 * c0 + r * c0 + c % c0;
}

/* Copies `batch` NZ matrices of [rows, cols] elements of `elem_size` bytes
 * (C0 = 32 / elem_size) at `nz` to dense row-major matrices at `nd`. For
 * operators that read FRACTAL_NZ weights. */
void emu_nz_to_nd(const void *nz, void *nd, int64_t batch, int64_t rows, int64_t cols, int64_t elem_size);

#endif /* EMU_OPS_NZ_LAYOUT_H_ */
