/* The fp16 or bf16 kernels of one ISA, in both forms, from simd_typed_body.h.
 * The includer defines HALF_LOAD, HALF_STORE, HALF_STREAM, optionally
 * HALF_STORE2 and HALF_STREAM2, HALF_TO_F32, HALF_FROM_F32 (simd_typed_body.h's
 * H_* meanings) and HALF_NAME(name, form), the kernel's name for form "" or
 * "_cos16"; this file #undefs them at its end.
 *
 * Two forms, because where cos and sin are widened decides the speed:
 * - cos/sin as fp32 rows (every kernel): the caller widens one cos row and
 *   its rows then reuse it, so each row's loop converts only dy and x. Best
 *   where the kernel's own work is small, the gradient without x and the
 *   forward: reading fp16 tables in the loop instead measured 10-30% slower,
 *   up to 1.4x in cache.
 * - cos/sin in the rows' own type ("_cos16", gradients only): for the
 *   gradient with x. Its caller keeps a block of accumulator rows in L1;
 *   widening that block's cos/sin rows first was a burst of misses that no
 *   prefetch hid, and reading them in the kernel's loop, among dy's and x's
 *   loads, made the fp16 gradient with x 10-40% faster out of cache. */

#define H_T uint16_t
#define H_LOAD HALF_LOAD
#define H_STORE HALF_STORE
#define H_STREAM HALF_STREAM
#ifdef HALF_STORE2
#define H_STORE2 HALF_STORE2
#endif
#ifdef HALF_STREAM2
#define H_STREAM2 HALF_STREAM2
#endif
#define H_TO_F32 HALF_TO_F32
#define H_FROM_F32 HALF_FROM_F32
#define H_NAME(name) HALF_NAME(name, )
#define H_KEEP_PARAMS
#include "kernels/rope/simd_typed_body.h"

#define H_NAME(name) HALF_NAME(name, _cos16)
#define H_COS16
#include "kernels/rope/simd_typed_body.h"

#undef HALF_LOAD
#undef HALF_STORE
#undef HALF_STORE2
#undef HALF_STREAM
#undef HALF_STREAM2
#undef HALF_TO_F32
#undef HALF_FROM_F32
#undef HALF_NAME
