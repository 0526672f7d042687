#include "kernels/ew/ew.h"

extern const emu_ew_kernels emu_ew_kernels__scalar;
#if defined(EMU_HAVE_X86_KERNELS)
extern const emu_ew_kernels emu_ew_kernels__avx2;
extern const emu_ew_kernels emu_ew_kernels__avx512;
#endif

const emu_ew_kernels *emu_ew_select(emu_isa isa)
{
#if defined(EMU_HAVE_X86_KERNELS)
    if (isa >= EMU_ISA_AVX512) {
        return &emu_ew_kernels__avx512;
    }
    if (isa >= EMU_ISA_AVX2) {
        return &emu_ew_kernels__avx2;
    }
#else
    (void)isa;
#endif
    return &emu_ew_kernels__scalar;
}

#define EMU_EW_NAME_ENTRY(name, arity, expr) #name,
static const char *const NAMES[EMU_EWK_COUNT] = {EMU_EW_FLOAT_KERNELS(EMU_EW_NAME_ENTRY)};
#define EMU_EW_ARITY_ENTRY(name, arity, expr) arity,
static const int ARITIES[EMU_EWK_COUNT] = {EMU_EW_FLOAT_KERNELS(EMU_EW_ARITY_ENTRY)};

const char *emu_ew_kernel_name(emu_ew_kernel kernel)
{
    return kernel >= 0 && kernel < EMU_EWK_COUNT ? NAMES[kernel] : "unknown";
}

int emu_ew_kernel_arity(emu_ew_kernel kernel)
{
    return kernel >= 0 && kernel < EMU_EWK_COUNT ? ARITIES[kernel] : 0;
}
