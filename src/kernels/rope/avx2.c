/* AVX2 RoPE kernels: 8 lanes, the bodies of simd_body.h. */
#include <immintrin.h>

#define VEC __m256
#define VW 8
#define V_LOAD _mm256_loadu_ps
#define V_STORE _mm256_storeu_ps
#define V_FMA _mm256_fmadd_ps
#define V_FMSUB _mm256_fmsub_ps
#define V_FNMA _mm256_fnmadd_ps
#define V_MUL _mm256_mul_ps
#define V_XOR _mm256_xor_ps
#define V_SWAP_PAIRS(v) _mm256_permute_ps((v), 0xB1)
#define V_SIGN_ODD _mm256_setr_ps(0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f)
#define V_SIGN_EVEN _mm256_setr_ps(-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f)
#define ISA_SUFFIX(name) name##__avx2

#include "kernels/rope/simd_body.h"
