/* Internal layout of aclTensor and the plain-data view the op layer uses. */
#ifndef EMU_META_TENSOR_H_
#define EMU_META_TENSOR_H_

#include "common/emu.h"

enum { EMU_MAX_DIMS = 32 };

/* What a kernel plan needs of a tensor: dtype, shape, strides and offset in
 * elements, and the storage address. Copied into executors at phase 1. */
typedef struct {
    aclDataType dtype;
    int32_t rank;
    int64_t shape[EMU_MAX_DIMS];
    int64_t strides[EMU_MAX_DIMS];
    int64_t offset;
    void *data;
} emu_view;

struct aclTensor {
    emu_view view;
    aclFormat format;
    int32_t storage_rank;
    int64_t storage[EMU_MAX_DIMS];
};

int64_t emu_view_numel(const emu_view *view);
bool emu_view_is_empty(const emu_view *view); /* some dimension is 0 (a 0-d tensor is not empty) */
/* Row-major dense from data + offset (dimensions of size 1 may have any stride). */
bool emu_view_is_contiguous(const emu_view *view);
bool emu_view_same_shape(const emu_view *a, const emu_view *b);
/* Writes "[2, 3]" into buf. */
const char *emu_shape_string(const emu_view *view, char *buf, size_t size);
/* Bytes from the first to the last element of a non-empty view, inclusive
 * (SIZE_MAX if that does not fit). */
size_t emu_view_extent_bytes(const emu_view *view);
/* False when distinct indices provably address distinct elements (sorted by
 * stride, each dimension steps over the whole reach of the smaller ones);
 * true for stride-0 broadcasts and other views that may alias themselves. */
bool emu_view_may_self_overlap(const emu_view *view);
/* Two views of exactly the same elements (origin, dtype, shape, strides). */
bool emu_views_identical(const emu_view *a, const emu_view *b);
/* Both views have memory and elements, and their extents (first to last
 * byte) overlap. */
bool emu_views_share_bytes(const emu_view *a, const emu_view *b);
/* The first element's address is a multiple of the element size (of 8 for
 * larger elements): the kernels load elements as their C types. */
bool emu_view_is_aligned(const emu_view *view);
/* First element of the view; NULL for NULL data (an empty view may have
 * NULL data and an offset, and NULL + offset is undefined in C). */
static inline void *emu_view_origin(const emu_view *view)
{
    if (view->data == NULL) {
        return NULL;
    }
    return (char *)view->data + view->offset * (int64_t)emu_dtype_size(view->dtype);
}

/* NumPy-style broadcast of two shapes into `out` (rank in *out_rank);
 * false when a dimension pair is neither equal nor has a 1. */
bool emu_broadcast_shape(const emu_view *a, const emu_view *b, int64_t *out, int32_t *out_rank);
/* Rewrites `view` as a view of `shape`: leading dimensions added and
 * size-1 dimensions stretched, both with stride 0. `shape` must be a
 * broadcast of the view's shape. */
void emu_view_broadcast_to(emu_view *view, const int64_t *shape, int32_t rank);

/* Copies the elements of a strided view to a dense buffer, row-major, and back. */
void emu_view_gather(const emu_view *view, void *dense);
void emu_view_scatter(const void *dense, const emu_view *view);

#endif /* EMU_META_TENSOR_H_ */
