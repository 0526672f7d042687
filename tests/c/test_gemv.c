/* The GEMV kernels (src/kernels/gemv) against the fp32 GEMM's contract:
 * for every weight kind and layout, row count 1..4, sizes that are and are
 * not multiples of the vector widths, and every ISA level this CPU has,
 * C must equal bit for bit the scalar GEMM run on B widened (or
 * dequantized, by the formula of aclnnWeightQuantBatchMatmulV2's staged
 * path, written out here again) to a dense fp32 matrix. NaN results only
 * need to be NaN (which NaN payload an fma propagates is the ISA's). */
#define TEST_RNG_SEED 0x6e3f1d2c5b4a3928ull
#include <math.h>

#include "kernels/convert/convert.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemv/gemv.h"
#include "test_util.h"

/* What quant_matmul_run.c's dequant_block computes for one element. */
static float dequant_ref(float q, uint16_t s, const uint16_t* o, int f16) {
    const float sv = f16 ? emu_f16_to_f32(s) : emu_bf16_to_f32(s);
    float v = q;
    if (o != NULL) {
        v += f16 ? emu_f16_to_f32(*o) : emu_bf16_to_f32(*o);
        if (f16) v = emu_f16_to_f32(emu_f32_to_f16(v));
    }
    v *= sv;
    return f16 ? emu_f16_to_f32(emu_f32_to_f16(v)) : emu_bf16_to_f32(emu_f32_to_bf16(v));
}

static int same(float x, float y) { return (isnan(x) && isnan(y)) || fbits(x) == fbits(y); }

typedef struct {
    emu_gemv_kind kind;
    int layout; /* 0: [n, k] runs along k; 1: NZ-like blocks along k; 2: rows of B along n */
    int64_t m, n, k, blk, group;
    int offset, dq_f16, specials;
} gcase;

static const char* kind_name(emu_gemv_kind k) {
    static const char* names[] = {"f32", "f16", "bf16", "i8", "i4"};
    return names[k];
}

static int run_case(const gcase* cs, const emu_gemv_kernels* const* impls, int n_impls) {
    const int64_t m = cs->m, n = cs->n, k = cs->k;
    const int quant = cs->kind == EMU_GEMV_I8 || cs->kind == EMU_GEMV_I4;
    emu_gemv_args g = {.m = m, .n0 = 0, .n = n, .k = k, .kind = cs->kind, .k_inner = cs->layout != 2};
    /* Storage: [n, k] (layout 0, rows a little apart),
     * k blocks of blk (layout 1: rows16 * blk apart), or [k, n] rows (layout 2). */
    const int64_t rows16 = (n + 15) / 16 * 16;
    int64_t elems;
    if (cs->layout == 0) {
        g.stride = k + 2 + (k % 2);
        g.blk = k;
        elems = n * g.stride;
    } else if (cs->layout == 1) {
        g.stride = cs->blk;
        g.blk = cs->blk;
        g.blk_stride = rows16 * cs->blk;
        elems = (k + cs->blk - 1) / cs->blk * g.blk_stride;
    } else {
        g.stride = n + 2 + (n % 2); /* even: INT4 runs start on whole bytes */
        elems = k * g.stride;
    }
    const size_t esize = cs->kind == EMU_GEMV_F32 ? 4 : cs->kind == EMU_GEMV_I8 || cs->kind == EMU_GEMV_I4 ? 1 : 2;
    unsigned char* b = xmalloc((size_t)elems * esize + 1);
    memset(b, 0, (size_t)elems * esize + 1);
    float* a = xmalloc((size_t)(m * k) * sizeof(float));
    float* dense = xmalloc((size_t)(k * n) * sizeof(float)); /* B as fp32, [k, n] */
    const int64_t groups = quant ? (k + cs->group - 1) / cs->group : 1;
    uint16_t* scale = xmalloc((size_t)(groups * n) * sizeof(uint16_t));
    uint16_t* offset = xmalloc((size_t)(groups * n) * sizeof(uint16_t));
    for (int64_t i = 0; i < m * k; ++i) a[i] = rnd_uniform(-1.0f, 1.0f);
    if (cs->specials && m * k > 3) {
        a[m * k / 2] = INFINITY;
        a[1] = 3.0e-39f; /* subnormal */
    }
    for (int64_t i = 0; i < groups * n; ++i) {
        const float s = rnd_uniform(0.001f, 0.05f), o = rnd_uniform(-3.0f, 3.0f);
        scale[i] = cs->dq_f16 ? emu_f32_to_f16(s) : emu_f32_to_bf16(s);
        offset[i] = cs->dq_f16 ? emu_f32_to_f16(o) : emu_f32_to_bf16(o);
    }
    if (quant && cs->specials) scale[n / 2] = cs->dq_f16 ? 0x7C00 : 0x7F80; /* inf */
    g.group = quant ? cs->group : 1;
    g.sc_n = groups; /* ggml's transposed scale: [groups, n] with strides (1, groups) */
    g.sc_g = 1;
    g.of_n = groups;
    g.of_g = 1;
    g.dq_f16 = cs->dq_f16;
    for (int64_t p = 0; p < k; ++p) {
        for (int64_t j = 0; j < n; ++j) {
            const int64_t idx = g.k_inner ? j * g.stride + (p / g.blk) * g.blk_stride + p % g.blk : p * g.stride + j;
            float v = rnd_uniform(-2.0f, 2.0f);
            if (cs->specials && p == k / 2 && j == n / 3) v = cs->kind == EMU_GEMV_BF16 ? NAN : -INFINITY;
            switch (cs->kind) {
            case EMU_GEMV_F32: ((float*)b)[idx] = v; dense[p * n + j] = v; break;
            case EMU_GEMV_F16: {
                const uint16_t h = emu_f32_to_f16(v);
                ((uint16_t*)b)[idx] = h;
                dense[p * n + j] = emu_f16_to_f32(h);
                break;
            }
            case EMU_GEMV_BF16: {
                const uint16_t h = emu_f32_to_bf16(v);
                ((uint16_t*)b)[idx] = h;
                dense[p * n + j] = emu_bf16_to_f32(h);
                break;
            }
            case EMU_GEMV_I8:
            case EMU_GEMV_I4: {
                const int q = cs->kind == EMU_GEMV_I8 ? (int)(rnd64() % 256) - 128 : (int)(rnd64() % 16) - 8;
                if (cs->kind == EMU_GEMV_I8) {
                    ((int8_t*)b)[idx] = (int8_t)q;
                } else {
                    b[idx >> 1] |= (uint8_t)((q & 15) << ((idx & 1) * 4));
                }
                const int64_t si = (p / cs->group) + j * groups;
                dense[p * n + j] = dequant_ref((float)q, scale[si], cs->offset ? &offset[si] : NULL, cs->dq_f16);
                break;
            }
            }
        }
    }
    g.a = a;
    g.a_row_stride = k;
    g.a_col_stride = 1;
    g.b = b;
    g.scale = scale;
    g.offset = cs->offset ? offset : NULL;

    float* want = xmalloc((size_t)(m * n) * sizeof(float));
    float* got = xmalloc((size_t)(m * n) * sizeof(float));
    /* The GEMM wants its scratch 64-byte aligned. */
    unsigned char* scratch_raw = xmalloc(emu_sgemm_scratch_bytes() + 64);
    float* scratch = (float*)(((uintptr_t)scratch_raw + 63) / 64 * 64);
    const emu_sgemm_args sg = {.m = m, .n = n, .k = k, .a = a, .a_row_stride = k, .a_col_stride = 1, .b = dense,
                               .b_row_stride = n, .b_col_stride = 1, .c = want, .c_row_stride = n};
    emu_f32_gemm__scalar(&sg, scratch);
    int ok = emu_gemv_supported(&g);
    for (int i = 0; i < n_impls && ok; ++i) {
        g.c = got;
        g.c_row_stride = n;
        for (int64_t e = 0; e < m * n; ++e) got[e] = -12345.0f;
        impls[i]->gemv(&g);
        for (int64_t e = 0; e < m * n && ok; ++e) {
            if (!same(got[e], want[e])) {
                printf("  %s: C[%lld][%lld] = %a, expected %a\n", impls[i]->name, (long long)(e / n),
                       (long long)(e % n), got[e], want[e]);
                ok = 0;
            }
        }
        if (ok && n > 32) { /* the columns from 32 alone, as a task of the operators computes them */
            emu_gemv_args part = g;
            part.n0 = 32;
            part.n = n - 32;
            part.c = got;
            for (int64_t e = 0; e < m * n; ++e) got[e] = -12345.0f;
            impls[i]->gemv(&part);
            for (int64_t r = 0; r < m && ok; ++r)
                for (int64_t j = 32; j < n && ok; ++j) ok = same(got[r * n + j - 32], want[r * n + j]);
            if (!ok) printf("  %s: columns from 32 differ\n", impls[i]->name);
        }
    }
    free(scratch_raw);
    free(want);
    free(got);
    free(a);
    free(b);
    free(dense);
    free(scale);
    free(offset);
    return ok;
}

int main(void) {
    const emu_isa detected = emu_isa_detected();
    const emu_gemv_kernels* impls[4];
    int n_impls = 0;
    for (int isa = EMU_ISA_SCALAR; isa <= (int)detected && isa <= EMU_ISA_AVX512; ++isa)
        impls[n_impls++] = emu_gemv_select((emu_isa)isa);
    printf("gemv kernels checked:");
    for (int i = 0; i < n_impls; ++i) printf(" %s", impls[i]->name);
    printf("\n");

    static const int64_t ks[] = {1, 2, 7, 16, 33, 64, 100, 262};
    static const int64_t ns[] = {1, 5, 16, 17, 40, 67, 130};
    int cases = 0, failed = 0;
    for (int kind = EMU_GEMV_F32; kind <= EMU_GEMV_I4; ++kind) {
        for (int layout = 0; layout < 3; ++layout) {
            for (int64_t m = 1; m <= EMU_GEMV_MAX_M; ++m) {
                for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
                    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ++ni) {
                        gcase cs = {.kind = (emu_gemv_kind)kind, .layout = layout, .m = m, .n = ns[ni], .k = ks[ki]};
                        const int quant = kind >= EMU_GEMV_I8;
                        if (kind == EMU_GEMV_I4 && ((layout != 2 && cs.k % 2) || (layout == 2 && cs.n % 2))) continue;
                        cs.blk = kind == EMU_GEMV_F32 ? 8 : kind == EMU_GEMV_I8 || kind == EMU_GEMV_I4 ? 32 : 16;
                        if (layout == 1 && ki % 2) cs.blk = 2 * cs.blk; /* also blocks longer than a vector */
                        cs.group = quant && cs.k > 32 && (ki + ni) % 2 ? 32 : cs.k;
                        cs.offset = (int)((ki + ni + (size_t)m) % 2);
                        cs.dq_f16 = (int)((ki / 2 + ni + (size_t)layout) % 2);
                        cs.specials = (ni + ki) % 5 == 0;
                        ++cases;
                        if (!run_case(&cs, impls, n_impls)) {
                            ++failed;
                            printf("  case: %s layout %d m %lld n %lld k %lld blk %lld group %lld offset %d f16 %d "
                                   "specials %d\n", kind_name(cs.kind), layout, (long long)m, (long long)cs.n,
                                   (long long)cs.k, (long long)cs.blk, (long long)cs.group, cs.offset, cs.dq_f16,
                                   cs.specials);
                        }
                    }
                }
            }
        }
    }
    check(failed == 0, "gemv: %d of %d cases equal the scalar GEMM's bits on every ISA level", cases - failed, cases);
    return g_failed ? 1 : 0;
}
