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
