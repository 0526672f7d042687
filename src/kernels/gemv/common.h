/* Internal to src/kernels/gemv: element addressing and the element-by-element
 * reads every implementation shares (the SIMD ones use them for the
 * partial vectors at the edges, so edges and bodies read the same values). */
#ifndef ACLNN_EMU_KERNELS_GEMV_COMMON_H
#define ACLNN_EMU_KERNELS_GEMV_COMMON_H

#include "kernels/convert/convert.h"
#include "kernels/gemv/gemv.h"

/* Index of B's element (p, j) in elements of its kind (gemv.h). */
static inline int64_t emu_gemv_index(const emu_gemv_args* g, int64_t p, int64_t j) {
    return g->k_inner ? j * g->stride + (p / g->blk) * g->blk_stride + p % g->blk : p * g->stride + j;
}

/* The stored value at index i, widened to fp32 (quantized values as they are). */
static inline float emu_gemv_raw(const emu_gemv_args* g, int64_t i) {
    switch (g->kind) {
    case EMU_GEMV_F32:
        return ((const float*)g->b)[i];
    case EMU_GEMV_F16:
        return emu_f16_to_f32(((const uint16_t*)g->b)[i]);
    case EMU_GEMV_BF16:
        return emu_bf16_to_f32(((const uint16_t*)g->b)[i]);
    case EMU_GEMV_I8:
        return (float)((const int8_t*)g->b)[i];
    case EMU_GEMV_I4: {
        const uint8_t byte = ((const uint8_t*)g->b)[i >> 1];
        const unsigned v = (i & 1) ? byte >> 4 : byte & 15u;
        return (float)((int)(v ^ 8u) - 8);
    }
    }
    return 0.0f;
}

static inline bool emu_gemv_quantized(const emu_gemv_args* g) {
    return g->kind == EMU_GEMV_I8 || g->kind == EMU_GEMV_I4;
}

static inline float emu_gemv_half(const emu_gemv_args* g, uint16_t h) {
    return g->dq_f16 ? emu_f16_to_f32(h) : emu_bf16_to_f32(h);
}

static inline float emu_gemv_scale(const emu_gemv_args* g, int64_t group, int64_t j) {
    return emu_gemv_half(g, g->scale[group * g->sc_g + j * g->sc_n]);
}

static inline float emu_gemv_offset(const emu_gemv_args* g, int64_t group, int64_t j) {
    return g->offset != NULL ? emu_gemv_half(g, g->offset[group * g->of_g + j * g->of_n]) : 0.0f;
}

#endif
