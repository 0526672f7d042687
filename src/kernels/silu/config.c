#include "kernels/silu/algo.h"

#define EMU_SILU_TABLE(isa, u)                                                                   \
    {emu_f32_silu__##isa##_##u, emu_f32_silu_grad__##isa##_##u, "f32_silu__" #isa "_" #u,            \
     "f32_silu_grad__" #isa "_" #u,                                                                  \
     {emu_f16_silu__##isa##_##u, emu_f16_silu_grad__##isa##_##u, "f16_silu__" #isa "_" #u,           \
      "f16_silu_grad__" #isa "_" #u},                                                                \
     {emu_bf16_silu__##isa##_##u, emu_bf16_silu_grad__##isa##_##u, "bf16_silu__" #isa "_" #u,        \
      "bf16_silu_grad__" #isa "_" #u}}

static const emu_silu_kernels k_scalar = EMU_SILU_TABLE(scalar, u1);

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_silu_kernels k_avx2 = EMU_SILU_TABLE(avx2, u16);
static const emu_silu_kernels k_avx512 = EMU_SILU_TABLE(avx512, u32);
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
