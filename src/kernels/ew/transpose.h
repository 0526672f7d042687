/* Internal: the transposed copies of one ISA level, included by instances.h
 * (which defines EMU_EW_CAT and EMU_EW_ISA).
 *
 *   out[i * out_stride + j] = in[j * in_stride + i]   for i < rows, j < cols
 *
 * with strides in elements, for elements of 1, 2, 4 and 8 bytes. The
 * element-wise layer calls it for one tile of a transposed input: `cols`
 * rows of `in` (64, or 512 bytes of `out` per row), each read along `rows`
 * elements: short runs at a large stride. Such runs defeat the cache
 * twice: no hardware prefetcher follows them, and at power-of-two strides
 * the lines of one column all fall in one cache set, so a line read for one
 * block is gone before the next block wants the rest of it. Hence
 * sub-tiles, prefetched one ahead into L2 and packed into L1 where blocks
 * read less than a line of a row, and bands that write whole lines of
 * `out`.
 *
 * Where the level has SIMD registers a block is loaded as rows, transposed
 * in registers and stored as rows; the elements no block covers go one by
 * one. Bits are copied, never computed, so every level gives the same
 * result. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* A sub-tile: this many bytes of each row of `in` (4 lines). Where
 * sub-tiles are packed, a group of at most EMU_EW_PACKED_COLS rows of `in`
 * at a time, so that a packed sub-tile takes 16 KiB of L1. */
enum { EMU_EW_LINE_BYTES = 64, EMU_EW_SUBTILE_BYTES = 256, EMU_EW_PACKED_COLS = 64 };

#if defined(__AVX2__)
/* One line into L2 (not L1: it is used a sub-tile later, after the current
 * sub-tile's lines). */
#define EMU_EW_PREFETCH(address) _mm_prefetch((const char *)(address), _MM_HINT_T1)
#else
#define EMU_EW_PREFETCH(address) ((void)(address))
#endif

/* A B x B block one element at a time, for the levels without a register
 * form of T. */
#define EMU_EW_SCALAR_BLOCK(T, B)                                                                       \
    static inline void EMU_EW_CAT(emu_ew_block_##T##__, EMU_EW_ISA)(const T *in, ptrdiff_t in_stride, T *out, \
                                                                   ptrdiff_t out_stride)                 \
    {                                                                                                   \
        for (ptrdiff_t i = 0; i < (B); ++i) {                                                           \
            for (ptrdiff_t j = 0; j < (B); ++j) {                                                       \
                out[i * out_stride + j] = in[j * in_stride + i];                                        \
            }                                                                                           \
        }                                                                                               \
    }

#if defined(__AVX512F__)

/* 16 x 16 of 4 bytes, a line per row: rows in zmm registers; pairs of rows
 * interleaved as 32- then 64-bit units, then 128-bit quarters exchanged
 * between rows 4 and 8 apart. */
static inline void EMU_EW_CAT(emu_ew_block_uint32_t__, EMU_EW_ISA)(const uint32_t *in, ptrdiff_t in_stride,
                                                                  uint32_t *out, ptrdiff_t out_stride)
{
    __m512i r[16], t[16];
    for (int k = 0; k < 16; ++k) {
        r[k] = _mm512_loadu_si512((const void *)(in + k * in_stride));
    }
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_unpacklo_epi32(r[k], r[k + 1]);
        t[k + 1] = _mm512_unpackhi_epi32(r[k], r[k + 1]);
    }
    for (int k = 0; k < 16; k += 4) {
        r[k] = _mm512_unpacklo_epi64(t[k], t[k + 2]);
        r[k + 1] = _mm512_unpackhi_epi64(t[k], t[k + 2]);
        r[k + 2] = _mm512_unpacklo_epi64(t[k + 1], t[k + 3]);
        r[k + 3] = _mm512_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    for (int k = 0; k < 16; k += 8) {
        for (int m = 0; m < 4; ++m) {
            t[k + m] = _mm512_shuffle_i32x4(r[k + m], r[k + 4 + m], 0x88);
            t[k + 4 + m] = _mm512_shuffle_i32x4(r[k + m], r[k + 4 + m], 0xDD);
        }
    }
    for (int m = 0; m < 8; ++m) {
        _mm512_storeu_si512((void *)(out + m * out_stride), _mm512_shuffle_i32x4(t[m], t[m + 8], 0x88));
        _mm512_storeu_si512((void *)(out + (m + 8) * out_stride), _mm512_shuffle_i32x4(t[m], t[m + 8], 0xDD));
    }
}
#define EMU_EW_BLOCK_SIDE_32 16

#elif defined(__AVX2__)

/* 8 x 8 of 4 bytes: rows in ymm registers; pairs of rows interleaved as 32-
 * then 64-bit units, then 128-bit halves exchanged between rows 4 apart. */
static inline void EMU_EW_CAT(emu_ew_block_uint32_t__, EMU_EW_ISA)(const uint32_t *in, ptrdiff_t in_stride,
                                                                  uint32_t *out, ptrdiff_t out_stride)
{
    __m256i r[8], t[8], u[8];
    for (int k = 0; k < 8; ++k) {
        r[k] = _mm256_loadu_si256((const __m256i *)(in + k * in_stride));
    }
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_epi32(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_epi32(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);
        u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);
        u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);
        u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    for (int k = 0; k < 4; ++k) {
        _mm256_storeu_si256((__m256i *)(out + k * out_stride), _mm256_permute2x128_si256(u[k], u[k + 4], 0x20));
        _mm256_storeu_si256((__m256i *)(out + (k + 4) * out_stride), _mm256_permute2x128_si256(u[k], u[k + 4], 0x31));
    }
}
#define EMU_EW_BLOCK_SIDE_32 8

#else

EMU_EW_SCALAR_BLOCK(uint32_t, 8)
#define EMU_EW_BLOCK_SIDE_32 8

#endif

#if defined(__AVX512F__) && defined(__AVX512BW__)

/* 32 x 32 of 2 bytes, a line per row: rows in zmm registers. Within each
 * 128-bit quarter, rows are interleaved as 16-, 32- and 64-bit units (8 x 8
 * transposes of each group of 8 rows); then the quarters of the four groups
 * are transposed as a 4 x 4 of 128-bit units, in two exchanges. */
static inline void EMU_EW_CAT(emu_ew_block_uint16_t__, EMU_EW_ISA)(const uint16_t *in, ptrdiff_t in_stride,
                                                                  uint16_t *out, ptrdiff_t out_stride)
{
    __m512i r[32], t[32];
    for (int k = 0; k < 32; ++k) {
        r[k] = _mm512_loadu_si512((const void *)(in + k * in_stride));
    }
    for (int k = 0; k < 32; k += 2) {
        t[k] = _mm512_unpacklo_epi16(r[k], r[k + 1]);
        t[k + 1] = _mm512_unpackhi_epi16(r[k], r[k + 1]);
    }
    for (int k = 0; k < 32; k += 4) {
        r[k] = _mm512_unpacklo_epi32(t[k], t[k + 2]);
        r[k + 1] = _mm512_unpackhi_epi32(t[k], t[k + 2]);
        r[k + 2] = _mm512_unpacklo_epi32(t[k + 1], t[k + 3]);
        r[k + 3] = _mm512_unpackhi_epi32(t[k + 1], t[k + 3]);
    }
    /* t[8g + m]: quarter q holds row 8q + m of `out`, columns 8g..8g+7. */
    for (int g = 0; g < 32; g += 8) {
        for (int c = 0; c < 4; ++c) {
            t[g + 2 * c] = _mm512_unpacklo_epi64(r[g + c], r[g + c + 4]);
            t[g + 2 * c + 1] = _mm512_unpackhi_epi64(r[g + c], r[g + c + 4]);
        }
    }
    for (int m = 0; m < 8; ++m) {
        const __m512i even01 = _mm512_shuffle_i32x4(t[m], t[8 + m], 0x88);
        const __m512i odd01 = _mm512_shuffle_i32x4(t[m], t[8 + m], 0xDD);
        const __m512i even23 = _mm512_shuffle_i32x4(t[16 + m], t[24 + m], 0x88);
        const __m512i odd23 = _mm512_shuffle_i32x4(t[16 + m], t[24 + m], 0xDD);
        _mm512_storeu_si512((void *)(out + m * out_stride), _mm512_shuffle_i32x4(even01, even23, 0x88));
        _mm512_storeu_si512((void *)(out + (8 + m) * out_stride), _mm512_shuffle_i32x4(odd01, odd23, 0x88));
        _mm512_storeu_si512((void *)(out + (16 + m) * out_stride), _mm512_shuffle_i32x4(even01, even23, 0xDD));
        _mm512_storeu_si512((void *)(out + (24 + m) * out_stride), _mm512_shuffle_i32x4(odd01, odd23, 0xDD));
    }
}
#define EMU_EW_BLOCK_SIDE_16 32

#elif defined(__AVX2__)

/* 16 x 16 of 2 bytes: rows in ymm registers. Within each 128-bit lane,
 * rows are interleaved as 16-, 32- and 64-bit units (eight 8 x 8
 * transposes); then lanes are exchanged between rows 8 apart. */
static inline void EMU_EW_CAT(emu_ew_block_uint16_t__, EMU_EW_ISA)(const uint16_t *in, ptrdiff_t in_stride,
                                                                  uint16_t *out, ptrdiff_t out_stride)
{
    __m256i r[16], t[16];
    for (int k = 0; k < 16; ++k) {
        r[k] = _mm256_loadu_si256((const __m256i *)(in + k * in_stride));
    }
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm256_unpacklo_epi16(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_epi16(r[k], r[k + 1]);
    }
    for (int k = 0; k < 16; k += 4) {
        r[k] = _mm256_unpacklo_epi32(t[k], t[k + 2]);
        r[k + 1] = _mm256_unpackhi_epi32(t[k], t[k + 2]);
        r[k + 2] = _mm256_unpacklo_epi32(t[k + 1], t[k + 3]);
        r[k + 3] = _mm256_unpackhi_epi32(t[k + 1], t[k + 3]);
    }
    /* Rows 8g..8g+7 give t[8g + 2c] and t[8g + 2c + 1]: in each lane, rows
     * 2c and 2c + 1 of that lane's 8 x 8 transpose. */
    for (int g = 0; g < 16; g += 8) {
        for (int c = 0; c < 4; ++c) {
            t[g + 2 * c] = _mm256_unpacklo_epi64(r[g + c], r[g + c + 4]);
            t[g + 2 * c + 1] = _mm256_unpackhi_epi64(r[g + c], r[g + c + 4]);
        }
    }
    for (int c = 0; c < 8; ++c) {
        _mm256_storeu_si256((__m256i *)(out + c * out_stride), _mm256_permute2x128_si256(t[c], t[c + 8], 0x20));
        _mm256_storeu_si256((__m256i *)(out + (c + 8) * out_stride), _mm256_permute2x128_si256(t[c], t[c + 8], 0x31));
    }
}

#define EMU_EW_BLOCK_SIDE_16 16

#else

EMU_EW_SCALAR_BLOCK(uint16_t, 8)
#define EMU_EW_BLOCK_SIDE_16 8

#endif

#if defined(__AVX2__)

/* 4 x 4 of 8 bytes: rows in ymm registers. */
static inline void EMU_EW_CAT(emu_ew_block_uint64_t__, EMU_EW_ISA)(const uint64_t *in, ptrdiff_t in_stride,
                                                                  uint64_t *out, ptrdiff_t out_stride)
{
    __m256i r[4];
    for (int k = 0; k < 4; ++k) {
        r[k] = _mm256_loadu_si256((const __m256i *)(in + k * in_stride));
    }
    const __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
    _mm256_storeu_si256((__m256i *)(out + 0 * out_stride), _mm256_permute2x128_si256(t0, t2, 0x20));
    _mm256_storeu_si256((__m256i *)(out + 1 * out_stride), _mm256_permute2x128_si256(t1, t3, 0x20));
    _mm256_storeu_si256((__m256i *)(out + 2 * out_stride), _mm256_permute2x128_si256(t0, t2, 0x31));
    _mm256_storeu_si256((__m256i *)(out + 3 * out_stride), _mm256_permute2x128_si256(t1, t3, 0x31));
}
#define EMU_EW_BLOCK_SIDE_64 4

#else

EMU_EW_SCALAR_BLOCK(uint64_t, 8)
#define EMU_EW_BLOCK_SIDE_64 8

#endif

/* Single bytes have no register form here: blocks of 16 one by one. */
EMU_EW_SCALAR_BLOCK(uint8_t, 16)
#define EMU_EW_BLOCK_SIDE_8 16

/* The copy for T in B x B blocks, by groups of columns (all of them unless
 * packed) and in each by sub-tiles of SUB_ROWS rows (EMU_EW_SUBTILE_BYTES
 * of each row of `in`). Per sub-tile: the next one is prefetched; where a
 * block reads less than a line of each row of `in`, the sub-tile is first
 * copied to `packed` (its lines read once, whole: left where they are, they
 * would be read again by the next blocks, and at power-of-two strides all
 * of a column fall in one cache set and are evicted in between); then
 * bands of B rows of `out` are written, by blocks along the group and one
 * by one where the group leaves less than a block. The rows below the last
 * band go one by one. */
#define EMU_EW_TRANSPOSE_FN(T, B)                                                                       \
    static void EMU_EW_CAT(emu_ew_transpose_##T##__, EMU_EW_ISA)(size_t rows_, size_t cols_, const void *in_, \
                                                                 ptrdiff_t in_stride, void *out_,        \
                                                                 ptrdiff_t out_stride, size_t rows_next) \
    {                                                                                                   \
        enum { SUB_ROWS = EMU_EW_SUBTILE_BYTES / sizeof(T), PACK = (B) * sizeof(T) < EMU_EW_LINE_BYTES }; \
        _Alignas(64) T packed[PACK ? EMU_EW_PACKED_COLS * SUB_ROWS : 1];                                \
        const ptrdiff_t rows = (ptrdiff_t)rows_, cols = (ptrdiff_t)cols_;                               \
        const ptrdiff_t prefetch_end = rows + (ptrdiff_t)rows_next;                                     \
        const ptrdiff_t most_cols = PACK ? EMU_EW_PACKED_COLS : cols;                                   \
        for (ptrdiff_t group = 0; group < cols; group += most_cols) {                                   \
            const ptrdiff_t group_cols = cols - group < most_cols ? cols - group : most_cols;           \
            const ptrdiff_t block_cols = group_cols / (B) * (B);                                        \
            const T *in = (const T *)in_ + group * in_stride;                                           \
            T *out = (T *)out_ + group;                                                                 \
            for (ptrdiff_t first = 0; first < rows; first += SUB_ROWS) {                                \
                const ptrdiff_t end = first + SUB_ROWS < rows ? first + SUB_ROWS : rows;                \
                const ptrdiff_t next_end = end + SUB_ROWS < prefetch_end ? end + SUB_ROWS : prefetch_end; \
                for (ptrdiff_t j = 0; j < group_cols; ++j) {                                            \
                    for (ptrdiff_t i = end; i < next_end; i += EMU_EW_LINE_BYTES / (ptrdiff_t)sizeof(T)) { \
                        EMU_EW_PREFETCH(in + j * in_stride + i);                                        \
                    }                                                                                   \
                }                                                                                       \
                /* Element i of row j of `in` is from[j * from_stride + i - first]. */                 \
                const T *from = in + first;                                                             \
                ptrdiff_t from_stride = in_stride;                                                      \
                if (PACK && end - first == SUB_ROWS) {                                                  \
                    for (ptrdiff_t j = 0; j < group_cols; ++j) {                                        \
                        memcpy(packed + j * SUB_ROWS, from + j * from_stride, sizeof(T) * SUB_ROWS);    \
                    }                                                                                   \
                    from = packed;                                                                      \
                    from_stride = SUB_ROWS;                                                             \
                }                                                                                       \
                ptrdiff_t i = first;                                                                    \
                for (; i + (B) <= end; i += (B)) {                                                      \
                    for (ptrdiff_t j = 0; j < block_cols; j += (B)) {                                   \
                        EMU_EW_CAT(emu_ew_block_##T##__, EMU_EW_ISA)(from + j * from_stride + (i - first), \
                                                                    from_stride, out + i * out_stride + j, \
                                                                    out_stride);                        \
                    }                                                                                   \
                    for (ptrdiff_t band_row = i; band_row < i + (B); ++band_row) {                      \
                        for (ptrdiff_t j = block_cols; j < group_cols; ++j) {                           \
                            out[band_row * out_stride + j] = from[j * from_stride + (band_row - first)]; \
                        }                                                                               \
                    }                                                                                   \
                }                                                                                       \
                for (; i < end; ++i) {                                                                  \
                    for (ptrdiff_t j = 0; j < group_cols; ++j) {                                        \
                        out[i * out_stride + j] = from[j * from_stride + (i - first)];                  \
                    }                                                                                   \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
    }

EMU_EW_TRANSPOSE_FN(uint8_t, EMU_EW_BLOCK_SIDE_8)
EMU_EW_TRANSPOSE_FN(uint16_t, EMU_EW_BLOCK_SIDE_16)
EMU_EW_TRANSPOSE_FN(uint32_t, EMU_EW_BLOCK_SIDE_32)
EMU_EW_TRANSPOSE_FN(uint64_t, EMU_EW_BLOCK_SIDE_64)
