/* Portable implementation: one chain per element of C, element by element. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/gemv/common.h"

#include "kernels/fma_once.h"

float emu_gemv_dequant(float q, float s, float o, bool has_o, bool f16) {
    float v = q;
    if (has_o) {
        v += o;
        if (f16) {
            v = emu_f16_to_f32(emu_f32_to_f16(v));
        }
    }
    v *= s;
    return f16 ? emu_f16_to_f32(emu_f32_to_f16(v)) : emu_bf16_to_f32(emu_f32_to_bf16(v));
}

bool emu_gemv_supported(const emu_gemv_args* g) {
    if (g->m < 1 || g->m > EMU_GEMV_MAX_M || (g->k_inner && g->blk < 1)) {
        return false;
    }
    if (g->kind == EMU_GEMV_I4) {
        /* SIMD loads take whole bytes: every run of a vector starts on an even nibble. */
        return g->k_inner ? g->stride % 2 == 0 && g->blk % 2 == 0 && g->blk_stride % 2 == 0
                          : g->stride % 2 == 0 && g->n0 % 2 == 0;
    }
    return true;
}

void emu_gemv__scalar(const emu_gemv_args* g) {
    const bool quant = emu_gemv_quantized(g);
    for (int64_t j = g->n0; j < g->n0 + g->n; ++j) {
        float acc[EMU_GEMV_MAX_M] = {0.0f};
        for (int64_t p = 0; p < g->k; ++p) {
            float w = emu_gemv_raw(g, emu_gemv_index(g, p, j));
            if (quant) {
                const int64_t group = p / g->group;
                w = emu_gemv_dequant(w, emu_gemv_scale(g, group, j), emu_gemv_offset(g, group, j), g->offset != NULL,
                                     g->dq_f16);
            }
            for (int64_t i = 0; i < g->m; ++i) {
                acc[i] = fma_once(g->a[i * g->a_row_stride + p * g->a_col_stride], w, acc[i]);
            }
        }
        for (int64_t i = 0; i < g->m; ++i) {
            g->c[i * g->c_row_stride + j - g->n0] = acc[i];
        }
    }
}
