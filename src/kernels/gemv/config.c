#include "kernels/gemv/gemv.h"

static const emu_gemv_kernels k_scalar = {emu_gemv__scalar, "gemv__scalar"};

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_gemv_kernels k_avx2 = {emu_gemv__avx2, "gemv__avx2_8"};
static const emu_gemv_kernels k_avx512 = {emu_gemv__avx512, "gemv__avx512_16"};
#endif

const emu_gemv_kernels* emu_gemv_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
