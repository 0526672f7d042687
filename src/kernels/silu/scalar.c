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
        for (size_t i = 0; i < n; ++i) {                                                            \
            const float xf = widen(x[i]);                                                           \
            float oms;                                                                              \
            y[i] = narrow(xf * emu_silu_sigmoid_(xf, &oms));                                        \
        }                                                                                           \
    }                                                                                               \
    void emu_##name##_silu_grad__scalar_u1(size_t n, const uint16_t* dy, const uint16_t* x,         \
                                           uint16_t* dx) {                                          \
        for (size_t i = 0; i < n; ++i) {                                                            \
            const float xf = widen(x[i]);                                                           \
            float oms;                                                                              \
            const float s = emu_silu_sigmoid_(xf, &oms);                                            \
            dx[i] = narrow((widen(dy[i]) * s) * fmaf(xf, oms, 1.0f));                               \
        }                                                                                           \
    }

EMU_SILU_SCALAR_HALF(f16, emu_f16_to_f32, emu_f32_to_f16)
EMU_SILU_SCALAR_HALF(bf16, emu_bf16_to_f32, emu_f32_to_bf16)
