/* The bf16 kernels over avx512_vocab.h's conversions, both forms of
 * half_instances.h: avx512.c includes this with the integer narrowing,
 * avx512_bf16.c with AVX512_BF16's (ROPE_AVX512_BF16). The includer defines
 * BF16_KERNEL_NAME(name, form); this file #undefs it. */
#define HALF_LOAD bf16_load16
#define HALF_STORE bf16_store16
#define HALF_STORE2 bf16_store32
#define HALF_STREAM bf16_stream16
#define HALF_STREAM2 bf16_stream32
#define HALF_TO_F32 emu_bf16_to_f32
#define HALF_FROM_F32 emu_f32_to_bf16
#define HALF_NAME(name, form) BF16_KERNEL_NAME(name, form)
#include "kernels/rope/half_instances.h"
#undef BF16_KERNEL_NAME
