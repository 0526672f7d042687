#include "kernels/moe/moe.h"

static const emu_moe_kernels k_scalar = {emu_moe_gather_sum_f32__scalar, emu_moe_gather_sum_f16__scalar,
                                         emu_moe_gather_sum_bf16__scalar, emu_moe_copy_row__scalar, "scalar"};

#if defined(EMU_HAVE_X86_KERNELS)
static const emu_moe_kernels k_avx2 = {emu_moe_gather_sum_f32__avx2, emu_moe_gather_sum_f16__avx2,
                                       emu_moe_gather_sum_bf16__avx2, emu_moe_copy_row__avx2, "avx2"};

static const emu_moe_kernels k_avx512 = {emu_moe_gather_sum_f32__avx512, emu_moe_gather_sum_f16__avx512,
                                         emu_moe_gather_sum_bf16__avx512, emu_moe_copy_row__avx512, "avx512"};
#endif

const emu_moe_kernels* emu_moe_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
