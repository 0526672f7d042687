#include "kernels/rope/rope.h"

#define EMU_ROPE_TABLE(isa)                                                                                    \
    {                                                                                                          \
        {emu_f32_rope_half__##isa, emu_f32_rope_interleave__##isa, emu_f32_rope_quarter__##isa,                \
         emu_f32_rope_interleave_half__##isa},                                                                 \
        {emu_f32_rope_half_grad__##isa, emu_f32_rope_interleave_grad__##isa, emu_f32_rope_quarter_grad__##isa, \
         emu_f32_rope_interleave_half_grad__##isa},                                                            \
        {"f32_rope_half__" #isa, "f32_rope_interleave__" #isa, "f32_rope_quarter__" #isa,                      \
         "f32_rope_interleave_half__" #isa},                                                                   \
        {"f32_rope_half_grad__" #isa, "f32_rope_interleave_grad__" #isa, "f32_rope_quarter_grad__" #isa,       \
         "f32_rope_interleave_half_grad__" #isa},                                                              \
    }

static const emu_rope_kernels k_scalar = EMU_ROPE_TABLE(scalar);

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_rope_kernels k_avx2 = EMU_ROPE_TABLE(avx2);
static const emu_rope_kernels k_avx512 = EMU_ROPE_TABLE(avx512);
#endif

const emu_rope_kernels* emu_rope_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
