/* The bf16 RoPE kernels of the avx512_bf16 level: avx512.c's, with bf16
 * narrowed by vcvtne2ps2bf16 (one instruction for two vectors, where the
 * integer rounding takes ten). fp32 and fp16 run avx512.c's kernels at this
 * level. */
#define ROPE_AVX512_BF16 1
#include "kernels/rope/algo.h"
#include "kernels/rope/avx512_vocab.h"

#define HALF_LOAD bf16_load16
#define HALF_STORE bf16_store16
#define HALF_STORE2 bf16_store32
#define HALF_STREAM bf16_stream16
#define HALF_STREAM2 bf16_stream32
#define HALF_TO_F32 emu_bf16_to_f32
#define HALF_FROM_F32 emu_f32_to_bf16
#define HALF_NAME(name, form) emu_bf16_##name##form##__avx512_bf16
#include "kernels/rope/half_instances.h"
