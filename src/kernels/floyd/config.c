#include "kernels/floyd/algo.h"

static const emu_floyd_kernels k_scalar = {
    emu_f32_floyd_scores_max__scalar, emu_f32_floyd_exp_sum__scalar, emu_f32_floyd_softmax__scalar,
    emu_f32_floyd_softmax_grad__scalar, emu_f32_floyd_dot__scalar, "f32_floyd__scalar"};

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_floyd_kernels k_avx2 = {
    emu_f32_floyd_scores_max__avx2, emu_f32_floyd_exp_sum__avx2, emu_f32_floyd_softmax__avx2,
    emu_f32_floyd_softmax_grad__avx2, emu_f32_floyd_dot__avx2, "f32_floyd__avx2_u16"};

static const emu_floyd_kernels k_avx512 = {
    emu_f32_floyd_scores_max__avx512, emu_f32_floyd_exp_sum__avx512, emu_f32_floyd_softmax__avx512,
    emu_f32_floyd_softmax_grad__avx512, emu_f32_floyd_dot__avx512, "f32_floyd__avx512_u16"};
#endif

const emu_floyd_kernels* emu_floyd_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
