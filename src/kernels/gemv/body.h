/* The SIMD algorithm of gemv.h, included by avx2.c and avx512.c after they
 * define the vector width V, the vector type vf and these operations:
 *   vzero(), vset1(x), vfma(a, b, c) = a*b + c rounded once, vadd, vmul,
 *   vloadu(const float*), vstoreu(float*, vf),
 *   load_f16 / load_bf16 (V halves), load_i8 (V bytes), load_i4 (V/2
 *   bytes, low nibble first): V weight values widened to fp32;
 *   round_f16(v), round_bf16(v): v rounded to nearest even (convert.h's
 *   rules) and widened back;
 *   transpose(vf t[V]): t[r] lane c becomes t[c] lane r.
 *
 * Each element's chain is the scalar one: its lane of one accumulator
 * takes one vfma per p in increasing p. Weight rows (k_inner) or runs of
 * a row (otherwise) past the edges of B are never read: lanes past n read
 * a copy of the last column and are not stored, and depth runs shorter
 * than V are read element by element into a zeroed buffer. */
#include <string.h>

#include "kernels/gemv/common.h"

#define GEMV_INLINE static inline __attribute__((always_inline))

/* V raw values of the weight from index i (whole vectors only). */
GEMV_INLINE vf load_raw(const void* b, emu_gemv_kind kind, int64_t i) {
    switch (kind) {
    case EMU_GEMV_F32:
        return vloadu((const float*)b + i);
    case EMU_GEMV_F16:
        return load_f16((const uint16_t*)b + i);
    case EMU_GEMV_BF16:
        return load_bf16((const uint16_t*)b + i);
    case EMU_GEMV_I8:
        return load_i8((const int8_t*)b + i);
    case EMU_GEMV_I4:
        return load_i4((const uint8_t*)b + (i >> 1));
    }
    return vzero();
}

/* len < V raw values from index i, the rest zero. */
static vf load_raw_part(const emu_gemv_args* g, int64_t i, int64_t len) {
    float buf[V];
    for (int64_t l = 0; l < V; ++l) buf[l] = l < len ? emu_gemv_raw(g, i + l) : 0.0f;
    return vloadu(buf);
}

/* Scale and offset of group `group` for the V columns from j (lanes past
 * `cols` repeat the last column). */
static void load_antiquant(const emu_gemv_args* g, int64_t group, int64_t j, int64_t cols, vf* s, vf* o) {
    float sb[V], ob[V];
    for (int64_t l = 0; l < V; ++l) {
        const int64_t c = j + (l < cols ? l : cols - 1);
        sb[l] = emu_gemv_scale(g, group, c);
        ob[l] = emu_gemv_offset(g, group, c);
    }
    *s = vloadu(sb);
    *o = vloadu(ob);
}

/* emu_gemv_dequant on V lanes. */
GEMV_INLINE vf dequant(vf q, vf s, vf o, bool has_o, bool f16) {
    vf v = q;
    if (has_o) {
        v = vadd(v, o);
        if (f16) v = round_f16(v);
    }
    v = vmul(v, s);
    return f16 ? round_f16(v) : round_bf16(v);
}

GEMV_INLINE float a_at(const emu_gemv_args* g, int64_t i, int64_t p) {
    return g->a[i * g->a_row_stride + p * g->a_col_stride];
}

GEMV_INLINE void store_rows(const emu_gemv_args* g, const vf* acc, int64_t jb, int64_t cols) {
    for (int64_t i = 0; i < g->m; ++i) {
        float* dst = g->c + i * g->c_row_stride + jb;
        if (cols == V) {
            vstoreu(dst, acc[i]);
        } else {
            float buf[V];
            vstoreu(buf, acc[i]);
            memcpy(dst, buf, (size_t)cols * sizeof(float));
        }
    }
}

/* B stored as [n, k] runs along p (k_inner): V weight rows at a time, each
 * depth run of V values widened, the V×V square transposed so that vector p
 * holds B[p, j..j+V), then one fma per row of A and p. */
GEMV_INLINE void k_inner_kind(const emu_gemv_args* g, const emu_gemv_kind kind, const int m) {
    const bool quant = kind == EMU_GEMV_I8 || kind == EMU_GEMV_I4, has_o = g->offset != NULL;
    for (int64_t jb = 0; jb < g->n; jb += V) {
        const int64_t j = g->n0 + jb, cols = g->n - jb < V ? g->n - jb : V;
        int64_t row[V];
        for (int64_t r = 0; r < V; ++r) row[r] = (j + (r < cols ? r : cols - 1)) * g->stride;
        vf acc[EMU_GEMV_MAX_M];
        for (int i = 0; i < m; ++i) acc[i] = vzero();
        vf s = vzero(), o = vzero();
        int64_t group = -1;
        for (int64_t pb = 0; pb < g->k; pb += g->blk) {
            const int64_t blen = g->k - pb < g->blk ? g->k - pb : g->blk;
            const int64_t boff = pb / g->blk * g->blk_stride;
            for (int64_t q = 0; q < blen; q += V) {
                const int64_t len = blen - q < V ? blen - q : V;
                vf t[V];
                if (len == V) {
                    for (int r = 0; r < V; ++r) t[r] = load_raw(g->b, kind, row[r] + boff + q);
                } else {
                    for (int r = 0; r < V; ++r) t[r] = load_raw_part(g, row[r] + boff + q, len);
                }
                transpose(t);
                const int64_t p0 = pb + q;
                for (int64_t l = 0; l < len; ++l) {
                    vf w = t[l];
                    if (quant) {
                        const int64_t gi = (p0 + l) / g->group;
                        if (gi != group) {
                            group = gi;
                            load_antiquant(g, group, j, cols, &s, &o);
                        }
                        w = dequant(w, s, o, has_o, g->dq_f16);
                    }
                    for (int i = 0; i < m; ++i) acc[i] = vfma(vset1(a_at(g, i, p0 + l)), w, acc[i]);
                }
            }
        }
        store_rows(g, acc, jb, cols);
    }
}

/* B's rows contiguous along j: U vectors of columns at a time (independent
 * chains to cover the fma latency), one weight run per p. */
enum { U = 4 };

GEMV_INLINE void rows_kind(const emu_gemv_args* g, const emu_gemv_kind kind, const int m) {
    const bool quant = kind == EMU_GEMV_I8 || kind == EMU_GEMV_I4, has_o = g->offset != NULL;
    for (int64_t jb = 0; jb < g->n; jb += U * V) {
        const int64_t j = g->n0 + jb, width = g->n - jb < U * V ? g->n - jb : U * V;
        const int nv = (int)((width + V - 1) / V);
        vf acc[EMU_GEMV_MAX_M][U], s[U], o[U];
        for (int i = 0; i < m; ++i)
            for (int u = 0; u < U; ++u) acc[i][u] = vzero();
        int64_t group = -1;
        for (int64_t p = 0; p < g->k; ++p) {
            if (quant && p / g->group != group) {
                group = p / g->group;
                for (int u = 0; u < nv; ++u) {
                    const int64_t cols = width - u * V < V ? width - u * V : V;
                    load_antiquant(g, group, j + u * V, cols, &s[u], &o[u]);
                }
            }
            vf a[EMU_GEMV_MAX_M];
            for (int i = 0; i < m; ++i) a[i] = vset1(a_at(g, i, p));
            for (int u = 0; u < nv; ++u) {
                const int64_t cols = width - u * V < V ? width - u * V : V;
                const int64_t at = p * g->stride + j + u * V;
                vf w = cols == V ? load_raw(g->b, kind, at) : load_raw_part(g, at, cols);
                if (quant) w = dequant(w, s[u], o[u], has_o, g->dq_f16);
                for (int i = 0; i < m; ++i) acc[i][u] = vfma(a[i], w, acc[i][u]);
            }
        }
        for (int u = 0; u < nv; ++u) {
            const int64_t cols = width - u * V < V ? width - u * V : V;
            vf col[EMU_GEMV_MAX_M];
            for (int i = 0; i < m; ++i) col[i] = acc[i][u];
            store_rows(g, col, jb + u * V, cols);
        }
    }
}

/* One instance per kind and row count, so the loops carry no switches. */
#define GEMV_BY_M(fn, kind)                       \
    do {                                          \
        switch (g->m) {                           \
        case 1: fn(g, kind, 1); break;            \
        case 2: fn(g, kind, 2); break;            \
        case 3: fn(g, kind, 3); break;            \
        default: fn(g, kind, 4); break;           \
        }                                         \
    } while (0)

#define GEMV_DEFINE_KIND(name, kind)                                  \
    static void name(const emu_gemv_args* g) {                        \
        if (g->k_inner) {                                             \
            GEMV_BY_M(k_inner_kind, kind);                            \
        } else {                                                      \
            GEMV_BY_M(rows_kind, kind);                               \
        }                                                             \
    }

GEMV_DEFINE_KIND(gemv_f32, EMU_GEMV_F32)
GEMV_DEFINE_KIND(gemv_f16, EMU_GEMV_F16)
GEMV_DEFINE_KIND(gemv_bf16, EMU_GEMV_BF16)
GEMV_DEFINE_KIND(gemv_i8, EMU_GEMV_I8)
GEMV_DEFINE_KIND(gemv_i4, EMU_GEMV_I4)

static void gemv_any(const emu_gemv_args* g) {
    if (g->m < 1 || g->n < 1) return;
    switch (g->kind) {
    case EMU_GEMV_F32: gemv_f32(g); break;
    case EMU_GEMV_F16: gemv_f16(g); break;
    case EMU_GEMV_BF16: gemv_bf16(g); break;
    case EMU_GEMV_I8: gemv_i8(g); break;
    case EMU_GEMV_I4: gemv_i4(g); break;
    }
}
