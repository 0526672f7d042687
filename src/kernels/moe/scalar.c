/* Portable MoE leaves: fp32 accumulators in blocks of 64 elements, so each
 * gathered row is read in sequential runs. See moe.h for the contract. */
#include <string.h>

#include "kernels/convert/convert.h"
#include "kernels/moe/moe.h"

enum { BLOCK = 64 };

static inline float load_f32(const float* p) { return *p; }
static inline float load_f16(const uint16_t* p) { return emu_f16_to_f32(*p); }
static inline float load_bf16(const uint16_t* p) { return emu_bf16_to_f32(*p); }
static inline float store_f32(float v) { return v; }

static size_t first_kept(const int32_t* idx, size_t count, int64_t rows) {
    size_t j = 0;
    while (j < count && (idx[j] < 0 || idx[j] >= rows)) ++j;
    return j;
}

#define DEFINE_GATHER_SUM(name, T, LOAD, STORE)                                                              \
    void emu_moe_gather_sum_##name##__scalar(size_t width, const int32_t* idx, size_t count, int64_t rows,   \
                                             const void* base, int64_t row_bytes, void* out, bool stream) {  \
        (void)stream;                                                                                        \
        T* dst = (T*)out;                                                                                    \
        const size_t first = first_kept(idx, count, rows);                                                   \
        if (first == count) {                                                                                \
            for (size_t i = 0; i < width; ++i) dst[i] = STORE(0.0f);                                         \
            return;                                                                                          \
        }                                                                                                    \
        const T* r0 = (const T*)((const char*)base + (int64_t)idx[first] * row_bytes);                       \
        for (size_t at = 0; at < width; at += BLOCK) {                                                       \
            const size_t n = width - at < BLOCK ? width - at : BLOCK;                                        \
            float acc[BLOCK];                                                                                \
            for (size_t i = 0; i < n; ++i) acc[i] = LOAD(r0 + at + i);                                       \
            for (size_t j = first + 1; j < count; ++j) {                                                     \
                if (idx[j] < 0 || idx[j] >= rows) continue;                                                  \
                const T* r = (const T*)((const char*)base + (int64_t)idx[j] * row_bytes) + at;               \
                for (size_t i = 0; i < n; ++i) acc[i] += LOAD(r + i);                                        \
            }                                                                                                \
            for (size_t i = 0; i < n; ++i) dst[at + i] = STORE(acc[i]);                                      \
        }                                                                                                    \
    }

DEFINE_GATHER_SUM(f32, float, load_f32, store_f32)
DEFINE_GATHER_SUM(f16, uint16_t, load_f16, emu_f32_to_f16)
DEFINE_GATHER_SUM(bf16, uint16_t, load_bf16, emu_f32_to_bf16)

void emu_moe_copy_row__scalar(size_t bytes, const void* src, void* dst, bool stream) {
    (void)stream;
    memcpy(dst, src, bytes);
}
