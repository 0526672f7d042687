/* AVX-512 RoPE kernels: 16 lanes, the bodies of simd_body.h. */
#include <immintrin.h>

#define VEC __m512
#define VW 16
#define V_LOAD _mm512_loadu_ps
#define V_STORE _mm512_storeu_ps
#define V_FMA _mm512_fmadd_ps
#define V_FMSUB _mm512_fmsub_ps
#define V_FNMA _mm512_fnmadd_ps
#define V_MUL _mm512_mul_ps
#define V_XOR _mm512_xor_ps
#define V_SWAP_PAIRS(v) _mm512_permute_ps((v), 0xB1)
#define V_SIGN_ODD                                                                                         \
    _mm512_setr_ps(0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, \
                   0.0f, -0.0f)
#define V_SIGN_EVEN                                                                                        \
    _mm512_setr_ps(-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, \
                   -0.0f, 0.0f)
#define ISA_SUFFIX(name) name##__avx512

#include "kernels/rope/simd_body.h"
