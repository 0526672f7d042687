/*
 * Sum kernels of the reductions (src/ops/reduce_sum_run.c): additions into
 * fixed lanes over fp32, fp16 or bf16 data read straight from the tensor,
 * each element widened to fp32 in registers as kernels/convert widens it,
 * so a half-type row is read once and summed in the same pass. Compiled
 * once per ISA level from the same bodies (algo.h).
 *
 * Bit-identity: each kernel performs, per accumulator element, the same
 * fp32 additions in the same order as the plain loops written in its
 * comment (the files are built with -ffp-contract=off, and the widening is
 * exact), so every level gives the same bits for any data. (Except a
 * NaN's payload where two NaNs of different payloads meet in one lane: C
 * leaves the operand order of a + b to the compiler, so which payload
 * survives may differ between levels; NaN stays NaN.)
 */
#ifndef ACLNN_EMU_KERNELS_REDUCE_REDUCE_H
#define ACLNN_EMU_KERNELS_REDUCE_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EMU_REDUCE_LANES = 32 };

typedef struct {
    /* acc[i % 32] += x[i] for i < n, in order of i (x widened to fp32). */
    void (*lanes_add_f32)(float *acc, const float *x, size_t n);
    void (*lanes_add_f16)(float *acc, const uint16_t *x, size_t n);
    void (*lanes_add_bf16)(float *acc, const uint16_t *x, size_t n);
    /* acc[j] += x[j] for j < n (x widened to fp32). */
    void (*add_f32)(float *acc, const float *x, size_t n);
    void (*add_f16)(float *acc, const uint16_t *x, size_t n);
    void (*add_bf16)(float *acc, const uint16_t *x, size_t n);
    const char *isa_name;
} emu_reduce_kernels;

/* Best implementation whose level is <= isa. Never NULL. */
const emu_reduce_kernels *emu_reduce_select(emu_isa isa);

#ifdef __cplusplus
}
#endif

#endif
