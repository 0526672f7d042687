/* Internal: byte copies with non-temporal stores, for the kernel families
 * that write outputs larger than the last-level cache (rope, moe). Include
 * only from files built with AVX2 flags (the AVX-512 form also needs
 * AVX-512F). Only bytes move, so the output is the source's, bit for bit.
 * The caller issues the _mm_sfence that makes the stores visible. */
#ifndef ACLNN_EMU_KERNELS_STREAM_COPY_X86_H
#define ACLNN_EMU_KERNELS_STREAM_COPY_X86_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* `bytes` from src to dst (no overlap): a plain copy up to dst's first
 * 32-byte boundary, four 32-byte non-temporal stores per step (with one
 * per step the loop's own instructions were a third of the copy's), then
 * single ones, then a plain copy of the rest. `prefetch` > 0 asks for src
 * that many bytes ahead: for rows that are not in cache; a source already
 * in L1 (a kernel's scratch block) gains nothing from it. */
static inline void emu_stream_copy_avx2(void* dst, const void* src, size_t bytes, size_t prefetch) {
    const unsigned char* s = src;
    unsigned char* d = dst;
    size_t i = (size_t)(-(uintptr_t)d & 31u);
    if (i > bytes) i = bytes;
    memcpy(d, s, i);
    for (; i + 128 <= bytes; i += 128) {
        if (prefetch > 0) {
            _mm_prefetch((const char*)(s + i + prefetch), _MM_HINT_T0);
            _mm_prefetch((const char*)(s + i + prefetch + 64), _MM_HINT_T0);
        }
        const __m256i b0 = _mm256_loadu_si256((const __m256i*)(s + i));
        const __m256i b1 = _mm256_loadu_si256((const __m256i*)(s + i + 32));
        const __m256i b2 = _mm256_loadu_si256((const __m256i*)(s + i + 64));
        const __m256i b3 = _mm256_loadu_si256((const __m256i*)(s + i + 96));
        _mm256_stream_si256((__m256i*)(d + i), b0);
        _mm256_stream_si256((__m256i*)(d + i + 32), b1);
        _mm256_stream_si256((__m256i*)(d + i + 64), b2);
        _mm256_stream_si256((__m256i*)(d + i + 96), b3);
    }
    for (; i + 32 <= bytes; i += 32) {
        _mm256_stream_si256((__m256i*)(d + i), _mm256_loadu_si256((const __m256i*)(s + i)));
    }
    memcpy(d + i, s + i, bytes - i);
}

#if defined(__AVX512F__)
/* The same with 64-byte lines: aligned to 64, four lines per step. */
static inline void emu_stream_copy_avx512(void* dst, const void* src, size_t bytes, size_t prefetch) {
    const unsigned char* s = src;
    unsigned char* d = dst;
    size_t i = (size_t)(-(uintptr_t)d & 63u);
    if (i > bytes) i = bytes;
    memcpy(d, s, i);
    for (; i + 256 <= bytes; i += 256) {
        if (prefetch > 0) {
            for (size_t line = 0; line < 256; line += 64) {
                _mm_prefetch((const char*)(s + i + prefetch + line), _MM_HINT_T0);
            }
        }
        const __m512i b0 = _mm512_loadu_si512((const void*)(s + i));
        const __m512i b1 = _mm512_loadu_si512((const void*)(s + i + 64));
        const __m512i b2 = _mm512_loadu_si512((const void*)(s + i + 128));
        const __m512i b3 = _mm512_loadu_si512((const void*)(s + i + 192));
        _mm512_stream_si512((void*)(d + i), b0);
        _mm512_stream_si512((void*)(d + i + 64), b1);
        _mm512_stream_si512((void*)(d + i + 128), b2);
        _mm512_stream_si512((void*)(d + i + 192), b3);
    }
    for (; i + 64 <= bytes; i += 64) {
        _mm512_stream_si512((void*)(d + i), _mm512_loadu_si512((const void*)(s + i)));
    }
    memcpy(d + i, s + i, bytes - i);
}
#endif

#endif
