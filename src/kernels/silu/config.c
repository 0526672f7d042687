#include "kernels/silu/algo.h"

static const emu_silu_kernels k_scalar = {
    emu_f32_silu__scalar_u1, emu_f32_silu_grad__scalar_u1,
    "f32_silu__scalar_u1", "f32_silu_grad__scalar_u1"};

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_silu_kernels k_avx2 = {
    emu_f32_silu__avx2_u16, emu_f32_silu_grad__avx2_u16,
    "f32_silu__avx2_u16", "f32_silu_grad__avx2_u16"};

static const emu_silu_kernels k_avx512 = {
    emu_f32_silu__avx512_u32, emu_f32_silu_grad__avx512_u32,
    "f32_silu__avx512_u32", "f32_silu_grad__avx512_u32"};
#endif

const emu_silu_kernels* emu_silu_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
