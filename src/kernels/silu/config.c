#include "kernels/silu/algo.h"

/* `streaming` is "_streaming" where the ISA has the non-temporal form of
 * the gradient and empty where that form is the plain kernel. */
#define EMU_SILU_ENTRIES(type, isa, u, streaming)                                                    \
    .silu = emu_##type##_silu__##isa##_##u, .silu_grad = emu_##type##_silu_grad__##isa##_##u,        \
    .silu_grad_streaming = emu_##type##_silu_grad##streaming##__##isa##_##u,                         \
    .silu_name = #type "_silu__" #isa "_" #u, .silu_grad_name = #type "_silu_grad__" #isa "_" #u,    \
    .silu_grad_streaming_name = #type "_silu_grad" #streaming "__" #isa "_" #u

#define EMU_SILU_TABLE(isa, u, streaming)                                                            \
    {EMU_SILU_ENTRIES(f32, isa, u, streaming), .f16 = {EMU_SILU_ENTRIES(f16, isa, u, streaming)},    \
     .bf16 = {EMU_SILU_ENTRIES(bf16, isa, u, streaming)}}

static const emu_silu_kernels k_scalar = EMU_SILU_TABLE(scalar, u1, );

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_silu_kernels k_avx2 = EMU_SILU_TABLE(avx2, u16, _streaming);
static const emu_silu_kernels k_avx512 = EMU_SILU_TABLE(avx512, u32, _streaming);
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
