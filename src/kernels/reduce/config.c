#include "kernels/reduce/reduce.h"

extern const emu_reduce_kernels emu_reduce_kernels__scalar;
#if defined(EMU_HAVE_X86_KERNELS)
extern const emu_reduce_kernels emu_reduce_kernels__avx2;
extern const emu_reduce_kernels emu_reduce_kernels__avx512;
#endif

const emu_reduce_kernels *emu_reduce_select(emu_isa isa)
{
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) {
        return &emu_reduce_kernels__avx512;
    }
    if (isa >= EMU_ISA_AVX2) {
        return &emu_reduce_kernels__avx2;
    }
#else
    (void)isa;
#endif
    return &emu_reduce_kernels__scalar;
}
