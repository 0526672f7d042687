#include "kernels/silu/algo.h"

/* One half type's kernels; `streaming` is "_streaming" where the ISA has
 * that form of the gradient and empty where it reuses the plain one. */
#define EMU_SILU_HALF(type, isa, u, streaming)                                                       \
    {emu_##type##_silu__##isa##_##u, emu_##type##_silu_grad__##isa##_##u,                            \
     emu_##type##_silu_grad##streaming##__##isa##_##u, #type "_silu__" #isa "_" #u,                  \
     #type "_silu_grad__" #isa "_" #u, #type "_silu_grad" #streaming "__" #isa "_" #u}

#define EMU_SILU_TABLE(isa, u, streaming)                                                        \
    {emu_f32_silu__##isa##_##u, emu_f32_silu_grad__##isa##_##u, "f32_silu__" #isa "_" #u,            \
     "f32_silu_grad__" #isa "_" #u, EMU_SILU_HALF(f16, isa, u, streaming),                           \
     EMU_SILU_HALF(bf16, isa, u, streaming)}

static const emu_silu_kernels k_scalar = EMU_SILU_TABLE(scalar, u1, );

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_silu_kernels k_avx2 = EMU_SILU_TABLE(avx2, u16, _streaming);
static const emu_silu_kernels k_avx512 = EMU_SILU_TABLE(avx512, u32, );
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
