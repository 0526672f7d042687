#include "kernels/convert/ukernels.h"

static const emu_convert_kernels k_scalar = {
    emu_f16_to_f32__scalar, emu_bf16_to_f32__scalar,
    emu_f32_to_f16__scalar, emu_f32_to_bf16__scalar, NULL, NULL, "scalar"};

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_convert_kernels k_avx2 = {
    emu_f16_to_f32__avx2, emu_bf16_to_f32__avx2,
    emu_f32_to_f16__avx2, emu_f32_to_bf16__avx2,
    emu_f32_to_f16_stream__avx2, emu_f32_to_bf16_stream__avx2, "avx2"};

static const emu_convert_kernels k_avx512 = {
    emu_f16_to_f32__avx512, emu_bf16_to_f32__avx512,
    emu_f32_to_f16__avx512, emu_f32_to_bf16__avx512,
    emu_f32_to_f16_stream__avx512, emu_f32_to_bf16_stream__avx512, "avx512"};
#endif

const emu_convert_kernels* emu_convert_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
