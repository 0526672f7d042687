/* Internal: the per-ISA array kernels behind emu_convert_select(). The
 * x86 ones exist only when EMU_HAVE_X86_KERNELS is defined. */
#ifndef ACLNN_EMU_KERNELS_CONVERT_UKERNELS_H
#define ACLNN_EMU_KERNELS_CONVERT_UKERNELS_H

#include "kernels/convert/convert.h"

#define EMU_CVT_DECLARE(isa)                                                         \
    void emu_f16_to_f32__##isa(size_t n, const uint16_t* src, float* dst);          \
    void emu_bf16_to_f32__##isa(size_t n, const uint16_t* src, float* dst);         \
    void emu_f32_to_f16__##isa(size_t n, const float* src, uint16_t* dst);          \
    void emu_f32_to_bf16__##isa(size_t n, const float* src, uint16_t* dst);

EMU_CVT_DECLARE(scalar)
#if defined(EMU_HAVE_X86_KERNELS)
EMU_CVT_DECLARE(avx2)
EMU_CVT_DECLARE(avx512)
void emu_f32_to_f16_stream__avx2(size_t n, const float* src, uint16_t* dst);
void emu_f32_to_bf16_stream__avx2(size_t n, const float* src, uint16_t* dst);
void emu_f32_to_f16_stream__avx512(size_t n, const float* src, uint16_t* dst);
void emu_f32_to_bf16_stream__avx512(size_t n, const float* src, uint16_t* dst);
#endif

#undef EMU_CVT_DECLARE

#endif
