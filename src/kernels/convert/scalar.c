#include "kernels/convert/ukernels.h"

void emu_f16_to_f32__scalar(size_t n, const uint16_t* src, float* dst) {
    for (size_t i = 0; i < n; ++i) dst[i] = emu_f16_to_f32(src[i]);
}

void emu_bf16_to_f32__scalar(size_t n, const uint16_t* src, float* dst) {
    for (size_t i = 0; i < n; ++i) dst[i] = emu_bf16_to_f32(src[i]);
}

void emu_f32_to_f16__scalar(size_t n, const float* src, uint16_t* dst) {
    for (size_t i = 0; i < n; ++i) dst[i] = emu_f32_to_f16(src[i]);
}

void emu_f32_to_bf16__scalar(size_t n, const float* src, uint16_t* dst) {
    for (size_t i = 0; i < n; ++i) dst[i] = emu_f32_to_bf16(src[i]);
}
