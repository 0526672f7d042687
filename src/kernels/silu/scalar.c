#include "kernels/convert/convert.h"
#include "kernels/silu/algo.h"

void emu_f32_silu__scalar_u1(size_t n, const float* x, float* y) {
    for (size_t i = 0; i < n; ++i) {
        float oms;
        const float s = emu_silu_sigmoid_(x[i], &oms);
        y[i] = x[i] * s;
    }
}

void emu_f32_silu_grad__scalar_u1(size_t n, const float* dy, const float* x, float* dx) {
    for (size_t i = 0; i < n; ++i) {
        float oms;
        const float s = emu_silu_sigmoid_(x[i], &oms);
        dx[i] = (dy[i] * s) * fmaf(x[i], oms, 1.0f);
    }
}

#define EMU_SILU_SCALAR_HALF(name, widen, narrow)                                                   \
    void emu_##name##_silu__scalar_u1(size_t n, const uint16_t* x, uint16_t* y) {                   \
        const uint16_t* table = emu_silu_##name##_table_();                                         \
        for (size_t i = 0; i < n; ++i) {                                                            \
            y[i] = table[x[i]];                                                                     \
        }                                                                                           \
    }                                                                                               \
    void emu_##name##_silu_grad__scalar_u1(size_t n, const uint16_t* dy, const uint16_t* x,         \
                                           uint16_t* dx) {                                          \
        const float* factor = emu_silu_grad_##name##_table_();                                      \
        for (size_t i = 0; i < n; ++i) {                                                            \
            dx[i] = narrow(widen(dy[i]) * factor[x[i]]);                                            \
        }                                                                                           \
    }

EMU_SILU_SCALAR_HALF(f16, emu_f16_to_f32, emu_f32_to_f16)
EMU_SILU_SCALAR_HALF(bf16, emu_bf16_to_f32, emu_f32_to_bf16)
