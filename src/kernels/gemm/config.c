#include "kernels/gemm/blocked.h"

static const emu_gemm_kernels k_scalar = {emu_f32_gemm__scalar, "f32_gemm__scalar_4x4"};

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_gemm_kernels k_avx2 = {emu_f32_gemm__avx2, "f32_gemm__avx2_6x16"};
static const emu_gemm_kernels k_avx512 = {emu_f32_gemm__avx512, "f32_gemm__avx512_12x32"};
#endif

size_t emu_sgemm_scratch_bytes(void) { return EMU_GEMM_SCRATCH_FLOATS * sizeof(float); }

const emu_gemm_kernels* emu_gemm_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
