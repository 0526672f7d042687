/* AVX-512 RoPE kernels: 16 lanes, the bodies of simd_body.h, and the fp16
 * and bf16 kernels with the conversions fused in. */
#include "kernels/rope/avx512_vocab.h"

#define ISA_SUFFIX(name) name##__avx512
#include "kernels/rope/simd_body.h"

#define HALF_LOAD f16_load16
#define HALF_STORE f16_store16
#define HALF_STREAM f16_stream16
#define HALF_TO_F32 emu_f16_to_f32
#define HALF_FROM_F32 emu_f32_to_f16
#define HALF_NAME(name, form) emu_f16_##name##form##__avx512
#include "kernels/rope/half_instances.h"

#define BF16_KERNEL_NAME(name, form) emu_bf16_##name##form##__avx512
#include "kernels/rope/avx512_bf16_rows.h"

#include "kernels/stream_copy_x86.h"

void emu_rope_stream_copy__avx512(size_t bytes, const void* src, void* dst) {
    emu_stream_copy_avx512(dst, src, bytes, 0);
}

void emu_rope_stream_fence__avx512(void) { _mm_sfence(); }
