/* SiLU of every fp16 and every bf16 value, built once per process.
 *
 * A 16-bit input has only 65536 values, so the half-type kernels look their
 * x-dependent part up instead of evaluating exp and a division per element:
 * what limited them was arithmetic, not memory. Each table is filled by the
 * scalar fp32 algorithm (algo.h), so every ISA reads the same numbers. */
#include <pthread.h>

#include "kernels/convert/convert.h"
#include "kernels/silu/algo.h"

enum { EMU_SILU_TABLE_SIZE = 65536 };

typedef struct {
    /* +1 entry: a 32-bit gather at index 65535 of a 16-bit table reads
     * two bytes past the last entry. */
    uint16_t silu[EMU_SILU_TABLE_SIZE + 1];
    _Alignas(64) float grad_factor[EMU_SILU_TABLE_SIZE];
} silu_table;

static silu_table g_f16_table, g_bf16_table;
static pthread_once_t g_f16_once = PTHREAD_ONCE_INIT, g_bf16_once = PTHREAD_ONCE_INIT;

static void fill(silu_table* table, float (*widen)(uint16_t), uint16_t (*narrow)(float)) {
    for (uint32_t bits = 0; bits < EMU_SILU_TABLE_SIZE; ++bits) {
        const float x = widen((uint16_t)bits);
        float oms;
        const float s = emu_silu_sigmoid_(x, &oms);
        table->silu[bits] = narrow(x * s);
        table->grad_factor[bits] = s * fmaf(x, oms, 1.0f);
    }
    table->silu[EMU_SILU_TABLE_SIZE] = 0;
}

static void fill_f16(void) { fill(&g_f16_table, emu_f16_to_f32, emu_f32_to_f16); }
static void fill_bf16(void) { fill(&g_bf16_table, emu_bf16_to_f32, emu_f32_to_bf16); }

const uint16_t* emu_silu_f16_table_(void) {
    pthread_once(&g_f16_once, fill_f16);
    return g_f16_table.silu;
}

const float* emu_silu_grad_f16_table_(void) {
    pthread_once(&g_f16_once, fill_f16);
    return g_f16_table.grad_factor;
}

const uint16_t* emu_silu_bf16_table_(void) {
    pthread_once(&g_bf16_once, fill_bf16);
    return g_bf16_table.silu;
}

const float* emu_silu_grad_bf16_table_(void) {
    pthread_once(&g_bf16_once, fill_bf16);
    return g_bf16_table.grad_factor;
}
