/* The bf16 RoPE kernels of the avx512_bf16 level: avx512.c's, with bf16
 * narrowed by vcvtne2ps2bf16 (one instruction for two vectors, where the
 * integer rounding takes ten). fp32 and fp16 run avx512.c's kernels at this
 * level. */
#define ROPE_AVX512_BF16 1
#include "kernels/rope/algo.h"
#include "kernels/rope/avx512_vocab.h"

#define BF16_KERNEL_NAME(name, form) emu_bf16_##name##form##__avx512_bf16
#include "kernels/rope/avx512_bf16_rows.h"
