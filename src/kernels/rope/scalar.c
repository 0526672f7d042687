/* Portable RoPE kernels: one pair of elements at a time (see algo.h). */
#include "kernels/rope/algo.h"

void emu_f32_rope_half__scalar(size_t rows, size_t d, const float* x, const float* cos, const float* sin, float* y) {
    const size_t h = d / 2;
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        for (size_t j = 0; j < h; ++j) emu_rope_pair_fwd(x, cos, sin, y, j, j + h);
    }
}

void emu_f32_rope_interleave__scalar(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                     float* y) {
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        for (size_t j = 0; j < d; j += 2) emu_rope_pair_fwd(x, cos, sin, y, j, j + 1);
    }
}

void emu_f32_rope_quarter__scalar(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                  float* y) {
    const size_t q = d / 4;
    for (size_t r = 0; r < rows; ++r, x += d, y += d) {
        for (size_t j = 0; j < q; ++j) {
            emu_rope_pair_fwd(x, cos, sin, y, j, j + q);
            emu_rope_pair_fwd(x, cos, sin, y, j + 2 * q, j + 3 * q);
        }
    }
}

void emu_f32_rope_interleave_half__scalar(size_t rows, size_t d, const float* x, const float* cos, const float* sin,
                                          float* y) {
    emu_rope_ih_fwd(rows, d, x, cos, sin, y, emu_f32_rope_half__scalar);
}

void emu_f32_rope_half_grad__scalar(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                    const float* sin, float* dx, float* acc_cos, float* acc_sin) {
    const size_t h = d / 2;
    for (size_t r = 0; r < rows; ++r, dy += d, dx += d, x = x != NULL ? x + d : NULL) {
        for (size_t j = 0; j < h; ++j) emu_rope_pair_grad(dy, x, cos, sin, dx, acc_cos, acc_sin, j, j + h);
    }
}

void emu_f32_rope_interleave_grad__scalar(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                          const float* sin, float* dx, float* acc_cos, float* acc_sin) {
    for (size_t r = 0; r < rows; ++r, dy += d, dx += d, x = x != NULL ? x + d : NULL) {
        for (size_t j = 0; j < d; j += 2) emu_rope_pair_grad(dy, x, cos, sin, dx, acc_cos, acc_sin, j, j + 1);
    }
}

void emu_f32_rope_quarter_grad__scalar(size_t rows, size_t d, const float* dy, const float* x, const float* cos,
                                       const float* sin, float* dx, float* acc_cos, float* acc_sin) {
    const size_t q = d / 4;
    for (size_t r = 0; r < rows; ++r, dy += d, dx += d, x = x != NULL ? x + d : NULL) {
        for (size_t j = 0; j < q; ++j) {
            emu_rope_pair_grad(dy, x, cos, sin, dx, acc_cos, acc_sin, j, j + q);
            emu_rope_pair_grad(dy, x, cos, sin, dx, acc_cos, acc_sin, j + 2 * q, j + 3 * q);
        }
    }
}

void emu_f32_rope_interleave_half_grad__scalar(size_t rows, size_t d, const float* dy, const float* x,
                                               const float* cos, const float* sin, float* dx, float* acc_cos,
                                               float* acc_sin) {
    emu_rope_ih_grad(rows, d, dy, x, cos, sin, dx, acc_cos, acc_sin, emu_f32_rope_half_grad__scalar);
}
