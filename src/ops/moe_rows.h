/* Row layouts shared by the MoE operators: a tensor is read or written in
 * place, one row (all dimensions after the first) at a time, when each row
 * is dense; otherwise the op stages it through the workspace. */
#ifndef EMU_OPS_MOE_ROWS_H_
#define EMU_OPS_MOE_ROWS_H_

#include "meta/tensor.h"

enum {
    EMU_MOE_WORKSPACE_ALIGN = 64,
    /* Outputs at least this large bypass the caches (non-temporal stores):
     * they cannot stay cached anyway, and it saves the read-for-ownership. */
    EMU_MOE_STREAM_BYTES = 16 << 20,
};

/* Product of the dimensions after the first (1 for rank <= 1), or -1 when
 * it exceeds INT64_MAX, which only a tensor without rows can have. */
static inline int64_t emu_moe_row_elems(const emu_view *view)
{
    for (int d = 1; d < view->rank; ++d) {
        if (view->shape[d] == 0) {
            return 0;
        }
    }
    int64_t n = 1;
    for (int d = 1; d < view->rank; ++d) {
        if (__builtin_mul_overflow(n, view->shape[d], &n)) {
            return -1;
        }
    }
    return n;
}

/* Whether rows can be used in place: each row dense row-major, the row
 * stride not negative and, for outputs, rows that do not overlap (so that
 * threads writing different rows never write the same element). */
static inline bool emu_moe_rows_in_place(const emu_view *view, bool output)
{
    int64_t expected = 1;
    for (int d = view->rank - 1; d >= 1; --d) {
        if (view->shape[d] != 1 && view->strides[d] != expected) {
            return false;
        }
        expected *= view->shape[d];
    }
    if (view->rank == 0 || view->shape[0] <= 1) {
        return true;
    }
    return view->strides[0] >= (output ? expected : 0);
}

/* Reserves `bytes` (64-byte aligned) at the end of a workspace of *total bytes. */
static inline uint64_t emu_moe_reserve(uint64_t *total, uint64_t bytes)
{
    uint64_t at = (*total + EMU_MOE_WORKSPACE_ALIGN - 1) / EMU_MOE_WORKSPACE_ALIGN * EMU_MOE_WORKSPACE_ALIGN;
    *total = at + bytes;
    return at;
}

#endif /* EMU_OPS_MOE_ROWS_H_ */
