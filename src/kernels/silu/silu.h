/*
 * SiLU forward and backward on contiguous fp32 arrays.
 *   silu:      y  = x * sigmoid(x)
 *   silu_grad: dx = dy * s * (1 + x * (1 - s)),  s = sigmoid(x)
 *
 * Algorithm (identical operation by operation in every ISA, see algo.h, so
 * all implementations are bit-identical for every non-NaN result; the files
 * are compiled with -ffp-contract=off and use real IEEE division):
 *   t   = exp(-|x|) in [0, 1]: own polynomial exp (Cephes expf range
 *         reduction and coefficients), scaled by 2^(n+64) * 2^-64 so that
 *         results below FLT_MIN round correctly into the subnormal range;
 *   q   = 1 / (1 + t);
 *   s   = x >= 0 ? q : t*q;   1 - s = x >= 0 ? t*q : q
 *   (neither form cancels, overflows or computes inf*0 for finite x).
 *   y   = x * s;   dx = (dy * s) * fma(x, 1 - s, 1).
 *
 * Accuracy (against long double / double references):
 * silu is within 3.61 ULP for every float x in [-87, 88.7] (exhaustive).
 * silu_grad is within ~4.2 ULP of the size of its terms,
 * |dy*s| * (1 + |x*(1-s)|), but 1 + x*(1 - s) crosses zero near
 * x = -1.2785, so its *relative* error grows without bound as x approaches
 * that point (inherent to evaluating the factor in float).
 * For -103.9 < x < -87.3, sigmoid is a subnormal (fewer significant bits,
 * as in any float evaluation); below -103.9 it rounds to 0, as the exact
 * value does in float.
 *
 * Specials (what x*sigmoid(x) gives in float arithmetic):
 *   silu(+inf) = +inf, silu(-inf) = NaN (-inf * 0), silu(NaN) = NaN;
 *   silu_grad(+-inf) = NaN (inf * 0), silu_grad with x or dy NaN = NaN.
 * NaN payloads/signs are not guaranteed to match across ISAs.
 * Kernels never read or write past n; n == 0 is allowed.
 */
#ifndef ACLNN_EMU_KERNELS_SILU_H
#define ACLNN_EMU_KERNELS_SILU_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*emu_silu_fn)(size_t n, const float* x, float* y);
typedef void (*emu_silu_grad_fn)(size_t n, const float* dy, const float* x, float* dx);

/* fp16 or bf16 in and out. A 16-bit x has 65536 values, so these look up
 * what depends on x in tables built once per process by the scalar fp32
 * algorithm above (table.c), which turns an arithmetic-bound loop into a
 * memory-bound one:
 *   y  = narrow(silu_f32(x))                       -- as the fp32 kernel, rounded;
 *   dx = narrow(dy * g(x)), g(x) = s * (1 + x * (1 - s)) rounded to fp32,
 * i.e. dy times silu_grad_f32(1, x). dx differs from narrowing the fp32
 * kernel's (dy * s) * (...) by at most the one fp32 rounding of g, which
 * can only matter where g is an fp32 subnormal (|x| > 87, bf16 only).
 * narrow() rounds to nearest even (convert.h). Identical on every ISA. */
typedef void (*emu_silu_half_fn)(size_t n, const uint16_t* x, uint16_t* y);
typedef void (*emu_silu_grad_half_fn)(size_t n, const uint16_t* dy, const uint16_t* x, uint16_t* dx);

typedef struct {
    emu_silu_half_fn silu;
    emu_silu_grad_half_fn silu_grad;
    /* The same results as silu_grad, with dx written by non-temporal stores:
     * for outputs much larger than the last-level cache, where it saves the
     * read of every dx line before it is written and keeps dx from evicting
     * the table. Where an ISA has no such form, this is silu_grad itself. */
    emu_silu_grad_half_fn silu_grad_streaming;
    const char* silu_name;                /* e.g. "f16_silu__avx2_u16" */
    const char* silu_grad_name;           /* e.g. "bf16_silu_grad__avx2_u16" */
    const char* silu_grad_streaming_name; /* e.g. "bf16_silu_grad_streaming__avx2_u16" */
} emu_silu_half_kernels;

typedef struct {
    emu_silu_fn silu;
    emu_silu_grad_fn silu_grad;
    /* silu_grad with non-temporal stores, as in emu_silu_half_kernels. */
    emu_silu_grad_fn silu_grad_streaming;
    const char* silu_name;                /* e.g. "f32_silu__avx2_u16" */
    const char* silu_grad_name;           /* e.g. "f32_silu_grad__avx2_u16" */
    const char* silu_grad_streaming_name; /* e.g. "f32_silu_grad_streaming__avx2_u16" */
    emu_silu_half_kernels f16, bf16;
} emu_silu_kernels;

/* Best implementation whose level is <= isa (pass emu_isa_active()). Never NULL. */
const emu_silu_kernels* emu_silu_select(emu_isa isa);

#ifdef __cplusplus
}
#endif

#endif
