/* The SIMD RoPE kernels on fp32 rows, written once over a small vector
 * vocabulary that avx2.c and avx512.c define before including this file:
 *   VEC, VW (lanes), V_LOAD, V_STORE, V_STREAM (a non-temporal store to an
 *   aligned address), V_MUL, V_XOR, V_FMA (a*b + c, fused with one
 *   rounding), V_NEG (sign flip, NaNs included),
 *   V_SWAP_PAIRS (swap lanes 2j and 2j+1), V_SIGN_ODD / V_SIGN_EVEN
 *   (vectors of -0.0f in the odd / even lanes), and ISA_SUFFIX(name).
 * Modes 0-2 come from simd_typed_body.h; interleave-half runs the half
 * kernel on de-interleaved rows (algo.h). */
#include "kernels/rope/algo.h"

#define H_T float
#define H_LOAD V_LOAD
#define H_STORE V_STORE
#define H_STREAM V_STREAM
#define H_TO_F32(v) (v)
#define H_FROM_F32(v) (v)
#define H_NAME(name) ISA_SUFFIX(emu_f32_##name)
#include "kernels/rope/simd_typed_body.h"

void ISA_SUFFIX(emu_f32_rope_interleave_half)(size_t rows, size_t d, const float* x, const float* cos,
                                              const float* sin, float* y) {
    emu_rope_ih_fwd(rows, d, x, cos, sin, y, ISA_SUFFIX(emu_f32_rope_half));
}

void ISA_SUFFIX(emu_f32_rope_interleave_half_grad)(size_t rows, size_t d, const float* dy, const float* x,
                                                   const float* cos, const float* sin, float* dx, float* acc_cos,
                                                   float* acc_sin) {
    emu_rope_ih_grad(rows, d, dy, x, cos, sin, dx, acc_cos, acc_sin, ISA_SUFFIX(emu_f32_rope_half_grad));
}
