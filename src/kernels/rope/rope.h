/*
 * Rotary position embedding (RoPE) forward and backward on contiguous fp32
 * rows of d elements that share one cos row and one sin row.
 *
 * Modes (CANN's numbering). Every mode pairs element e with a partner p(e);
 * the first element of a pair has sign s = +1, the second s = -1:
 *   0 half:            pairs (j, j + d/2)
 *   1 interleave:      pairs (2j, 2j + 1)
 *   2 quarter:         pairs (j, j + d/4) and (j + d/2, j + 3d/4)
 *   3 interleave-half: x is first de-interleaved, xd = cat(x[0::2], x[1::2]);
 *                      then half mode on xd (forward y stays in half order;
 *                      backward dx is interleaved back).
 * Forward:   y[e]  = x[e]*cos[e] - s*x[p(e)]*sin[e]
 * Backward:  dx[e] = cos[e]*dy[e] + s*sin[p(e)]*dy[p(e)]
 *            acc_cos[e] += dy[e]*x[e]
 *            acc_sin[e] -= s*dy[e]*x[p(e)]     (dy * rotate(x))
 * (mode 3: x replaced by xd in the accumulations; dx[2j] = t[j],
 *  dx[2j+1] = t[j + d/2] where t is the half-mode dx.)
 *
 * Arithmetic: dx and y are fma(p, q, +-(r*s)) (the second product rounded,
 * the first fused with the sum), accumulators take fma(dy, +-x, acc); every
 * ISA evaluates exactly these operations (fmaf in the scalar kernels, no
 * other contraction), so scalar, AVX2 and AVX-512 results are bit-identical.
 * Accumulators receive the rows in order 0..rows-1.
 *
 * `rows` consecutive rows (row stride d) use the same cos/sin row. d must
 * be even (a multiple of 4 in quarter mode) and at most EMU_ROPE_MAX_D.
 * x may be NULL in the backward: then acc_cos/acc_sin are not touched.
 * Kernels never read or write outside rows*d (inputs/outputs) and d (cos,
 * sin, accumulators) elements.
 */
#ifndef ACLNN_EMU_KERNELS_ROPE_H
#define ACLNN_EMU_KERNELS_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EMU_ROPE_MODES = 4, EMU_ROPE_MAX_D = 1024 };

typedef void (*emu_rope_fwd_fn)(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                float* y);
typedef void (*emu_rope_grad_fn)(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                 const float* sin, float* dx, float* acc_cos, float* acc_sin);

/* The same on fp16 (index 0) or bf16 (index 1) rows of dy/x/dx/y,
 * converted inside the kernel exactly as kernels/convert does; cos, sin and
 * the accumulators stay fp32. Results equal widening, the fp32 kernel and
 * narrowing, bit for bit. */
typedef void (*emu_rope_fwd_h_fn)(size_t rows, size_t d, const uint16_t* x, const float* cos, const float* sin,
                                  uint16_t* y);
typedef void (*emu_rope_grad_h_fn)(size_t rows, size_t d, const uint16_t* dy, const uint16_t* x, const float* cos,
                                   const float* sin, uint16_t* dx, float* acc_cos, float* acc_sin);
/* The gradient with cos and sin in the rows' type too ("cos16"), converted
 * as they are loaded; same results. half_instances.h says when each form
 * is the faster. */
typedef void (*emu_rope_grad_h16_fn)(size_t rows, size_t d, const uint16_t* dy, const uint16_t* x,
                                     const uint16_t* cos, const uint16_t* sin, uint16_t* dx, float* acc_cos,
                                     float* acc_sin);

typedef struct {
    emu_rope_fwd_fn fwd[EMU_ROPE_MODES];
    emu_rope_grad_fn grad[EMU_ROPE_MODES];
    const char* fwd_name[EMU_ROPE_MODES];  /* e.g. "f32_rope_half__avx2" */
    const char* grad_name[EMU_ROPE_MODES]; /* e.g. "f32_rope_half_grad__avx2" */
    /* [0] fp16, [1] bf16; NULL where an ISA/mode has none (scalar, interleave-half):
     * the caller converts through kernels/convert and uses the fp32 kernel. */
    emu_rope_fwd_h_fn fwd_h[2][EMU_ROPE_MODES];
    emu_rope_grad_h_fn grad_h[2][EMU_ROPE_MODES];
    const char* fwd_h_name[2][EMU_ROPE_MODES];
    const char* grad_h_name[2][EMU_ROPE_MODES];
    /* The cos16 gradients, NULL where grad_h is. */
    emu_rope_grad_h16_fn grad_h16[2][EMU_ROPE_MODES];
    const char* grad_h16_name[2][EMU_ROPE_MODES];
    /* Copies `bytes` from an L1-resident buffer to dst with non-temporal
     * stores where dst is aligned (plain stores at the unaligned ends), so
     * that a large output is written without first being read into the
     * cache; `fence` orders those stores before the caller's later writes
     * and the pool's join. NULL where an ISA has none (scalar). */
    void (*stream_copy)(size_t bytes, const void* src, void* dst);
    void (*stream_fence)(void);
    /* The gradients of modes 0-2 again, writing dx with non-temporal stores
     * (the caller issues stream_fence): dx, and the first element of every
     * half (half mode), quarter (quarter mode) or row (interleave) must sit
     * on a 64-byte boundary, so that every store is a whole aligned vector.
     * NULL where an ISA has none (scalar, interleave-half). */
    emu_rope_grad_fn grad_nt[EMU_ROPE_MODES];
    emu_rope_grad_h_fn grad_h_nt[2][EMU_ROPE_MODES];
    emu_rope_grad_h16_fn grad_h16_nt[2][EMU_ROPE_MODES];
} emu_rope_kernels;

/* Best implementation whose level is <= isa (pass emu_isa_active()). Never NULL. */
const emu_rope_kernels* emu_rope_select(emu_isa isa);

/* Implementations, one set per ISA (mode order: half, interleave, quarter, interleave-half). */
#define EMU_ROPE_DECLARE(isa)                                                                              \
    void emu_f32_rope_half__##isa(size_t, size_t, const float*, const float*, const float*, float*);       \
    void emu_f32_rope_interleave__##isa(size_t, size_t, const float*, const float*, const float*, float*); \
    void emu_f32_rope_quarter__##isa(size_t, size_t, const float*, const float*, const float*, float*);    \
    void emu_f32_rope_interleave_half__##isa(size_t, size_t, const float*, const float*, const float*,     \
                                             float*);                                                      \
    void emu_f32_rope_half_grad__##isa(size_t, size_t, const float*, const float*, const float*,           \
                                       const float*, float*, float*, float*);                              \
    void emu_f32_rope_interleave_grad__##isa(size_t, size_t, const float*, const float*, const float*,     \
                                             const float*, float*, float*, float*);                        \
    void emu_f32_rope_quarter_grad__##isa(size_t, size_t, const float*, const float*, const float*,        \
                                          const float*, float*, float*, float*);                           \
    void emu_f32_rope_interleave_half_grad__##isa(size_t, size_t, const float*, const float*, const float*, \
                                                  const float*, float*, float*, float*);

/* fp16/bf16 implementations (t = f16 or bf16) of modes 0-2: fp32 cos/sin
 * (form empty) or cos16 gradients (EMU_ROPE_DECLARE_H16). */
#define EMU_ROPE_DECLARE_H(t, isa)                                                                              \
    void emu_##t##_rope_half__##isa(size_t, size_t, const uint16_t*, const float*, const float*, uint16_t*);    \
    void emu_##t##_rope_interleave__##isa(size_t, size_t, const uint16_t*, const float*, const float*,         \
                                          uint16_t*);                                                          \
    void emu_##t##_rope_quarter__##isa(size_t, size_t, const uint16_t*, const float*, const float*, uint16_t*); \
    EMU_ROPE_DECLARE_H_GRAD(t, , isa, float)                                                                   \
    EMU_ROPE_DECLARE_H_GRAD(t, _cos16, isa, uint16_t)                                                          \
    EMU_ROPE_DECLARE_H_GRAD(t, _nt, isa, float)                                                                \
    EMU_ROPE_DECLARE_H_GRAD(t, _nt_cos16, isa, uint16_t)
#define EMU_ROPE_DECLARE_H_GRAD(t, form, isa, table)                                                           \
    void emu_##t##_rope_half_grad##form##__##isa(size_t, size_t, const uint16_t*, const uint16_t*,             \
                                                 const table*, const table*, uint16_t*, float*, float*);       \
    void emu_##t##_rope_interleave_grad##form##__##isa(size_t, size_t, const uint16_t*, const uint16_t*,       \
                                                       const table*, const table*, uint16_t*, float*, float*); \
    void emu_##t##_rope_quarter_grad##form##__##isa(size_t, size_t, const uint16_t*, const uint16_t*,          \
                                                    const table*, const table*, uint16_t*, float*, float*);

EMU_ROPE_DECLARE_H(f16, avx2)
EMU_ROPE_DECLARE_H(bf16, avx2)
EMU_ROPE_DECLARE_H(f16, avx512)
EMU_ROPE_DECLARE_H(bf16, avx512)
EMU_ROPE_DECLARE_H(bf16, avx512_bf16)

void emu_rope_stream_copy__avx2(size_t bytes, const void* src, void* dst);
void emu_rope_stream_copy__avx512(size_t bytes, const void* src, void* dst);
void emu_rope_stream_fence__avx2(void);
void emu_rope_stream_fence__avx512(void);

EMU_ROPE_DECLARE(scalar)
EMU_ROPE_DECLARE(avx2)
EMU_ROPE_DECLARE(avx512)

/* fp32 gradients with non-temporal dx stores (SIMD levels). */
#define EMU_ROPE_DECLARE_NT(isa)                                                                               \
    void emu_f32_rope_half_grad_nt__##isa(size_t, size_t, const float*, const float*, const float*,           \
                                          const float*, float*, float*, float*);                              \
    void emu_f32_rope_interleave_grad_nt__##isa(size_t, size_t, const float*, const float*, const float*,     \
                                                const float*, float*, float*, float*);                        \
    void emu_f32_rope_quarter_grad_nt__##isa(size_t, size_t, const float*, const float*, const float*,        \
                                             const float*, float*, float*, float*);

EMU_ROPE_DECLARE_NT(avx2)
EMU_ROPE_DECLARE_NT(avx512)

#ifdef __cplusplus
}
#endif

#endif
