/*
 * MoE token permutation leaves on contiguous rows.
 *
 * gather_sum (MoeTokenPermuteGrad): one output row of `width` elements is
 *   out = sum over j < count, in increasing j, of row(idx[j]),
 *   row(i) = (const char *)base + i * row_bytes,
 * where indices outside [0, rows) are skipped and never read. The sum runs
 * in fp32: fp16/bf16 elements are widened exactly, the first kept row is
 * the starting value (so a lone -0.0 stays -0.0), every further row is one
 * IEEE fp32 add, and the result is rounded once to the row dtype (round to
 * nearest even, see kernels/convert/convert.h). No kept row gives +0.0.
 * Every ISA performs exactly these operations per element, in this order,
 * so all implementations are bit-identical (NaN payloads aside).
 *
 * copy_row (MoeTokenPermute): `bytes` bytes from src to dst (no overlap).
 *
 * `stream` asks for non-temporal stores where the ISA and the alignment of
 * `out`/`dst` allow them (the values stored are the same either way); the
 * caller passes it for outputs far larger than the caches. Kernels end
 * with a store fence when they streamed.
 */
#ifndef ACLNN_EMU_KERNELS_MOE_H
#define ACLNN_EMU_KERNELS_MOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*emu_moe_gather_sum_fn)(size_t width, const int32_t* idx, size_t count, int64_t rows,
                                      const void* base, int64_t row_bytes, void* out, bool stream);
typedef void (*emu_moe_copy_row_fn)(size_t bytes, const void* src, void* dst, bool stream);

typedef struct {
    emu_moe_gather_sum_fn gather_sum_f32, gather_sum_f16, gather_sum_bf16;
    emu_moe_copy_row_fn copy_row;
    const char* isa_name; /* "scalar", "avx2", "avx512" */
} emu_moe_kernels;

/* Best implementation whose level is <= isa (pass emu_isa_active()). Never NULL. */
const emu_moe_kernels* emu_moe_select(emu_isa isa);

#define EMU_MOE_DECLARE(isa)                                                                                   \
    void emu_moe_gather_sum_f32__##isa(size_t width, const int32_t* idx, size_t count, int64_t rows,          \
                                       const void* base, int64_t row_bytes, void* out, bool stream);          \
    void emu_moe_gather_sum_f16__##isa(size_t width, const int32_t* idx, size_t count, int64_t rows,          \
                                       const void* base, int64_t row_bytes, void* out, bool stream);          \
    void emu_moe_gather_sum_bf16__##isa(size_t width, const int32_t* idx, size_t count, int64_t rows,         \
                                        const void* base, int64_t row_bytes, void* out, bool stream);         \
    void emu_moe_copy_row__##isa(size_t bytes, const void* src, void* dst, bool stream);

EMU_MOE_DECLARE(scalar)
#if defined(EMU_HAVE_X86_KERNELS)
EMU_MOE_DECLARE(avx2)
EMU_MOE_DECLARE(avx512)
#endif

#undef EMU_MOE_DECLARE

#ifdef __cplusplus
}
#endif

#endif
