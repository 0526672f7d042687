#include "kernels/gemm/gemm.h"

static const emu_gemm_kernels k_scalar = {emu_f32_gemm__scalar, "f32_gemm__scalar"};

size_t emu_sgemm_scratch_bytes(void) { return 64; }

const emu_gemm_kernels* emu_gemm_select(emu_isa isa) {
    (void)isa;
    return &k_scalar;
}
