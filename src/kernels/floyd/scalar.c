/* Portable reference of the Floyd element-wise kernels (see algo.h). */
#include "kernels/floyd/algo.h"

float emu_floyd_exp(float x) { return emu_floyd_exp_(x); }

float emu_f32_floyd_scores_max__scalar(size_t n, float* s, const uint8_t* mask, float scale) {
    float lane[EMU_FLOYD_LANES];
    for (int j = 0; j < EMU_FLOYD_LANES; ++j) lane[j] = -INFINITY;
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        for (int j = 0; j < EMU_FLOYD_LANES; ++j) {
            const float x = emu_floyd_score_(s[i + j], mask, i + j, scale);
            s[i + j] = x;
            lane[j] = emu_floyd_max_(x, lane[j]);
        }
    }
    return emu_floyd_combine_max_(lane);
}

float emu_f32_floyd_exp_sum__scalar(size_t n, float* s, float max) {
    float lane[EMU_FLOYD_LANES] = {0};
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        for (int j = 0; j < EMU_FLOYD_LANES; ++j) {
            const float e = emu_floyd_exp_(s[i + j] - max);
            s[i + j] = e;
            lane[j] = lane[j] + e;
        }
    }
    return emu_floyd_combine_sum_(lane);
}

void emu_f32_floyd_softmax__scalar(size_t n, float* s, const uint8_t* mask, float scale, float max, float sum) {
    for (size_t i = 0; i < n; ++i) s[i] = emu_floyd_exp_(emu_floyd_score_(s[i], mask, i, scale) - max) / sum;
}

void emu_f32_floyd_softmax_grad__scalar(size_t n, const float* p, float* dp, float dsum, float scale) {
    for (size_t i = 0; i < n; ++i) dp[i] = scale * (p[i] * (dp[i] - dsum));
}

float emu_f32_floyd_dot__scalar(size_t n, const float* x, const float* y) {
    float lane[EMU_FLOYD_LANES] = {0};
    for (size_t i = 0; i < n; i += EMU_FLOYD_LANES) {
        for (int j = 0; j < EMU_FLOYD_LANES; ++j) lane[j] = fmaf(x[i + j], y[i + j], lane[j]);
    }
    return emu_floyd_combine_sum_(lane);
}
