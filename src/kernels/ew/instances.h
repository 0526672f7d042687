/* Internal: instantiates every body of list.h as a loop and fills the
 * kernel table of one ISA level. The including file defines EMU_EW_ISA
 * (the level's name, e.g. avx2) and is built with that level's flags. */
#include <math.h>
#include <stdint.h>
#include <tgmath.h>

#include "kernels/ew/ew.h"
#include "kernels/ew/exp.h"
#include "kernels/ew/fmath.h"

#define EMU_EW_CAT_(a, b) a##b
#define EMU_EW_CAT(a, b) EMU_EW_CAT_(a, b)
#define EMU_EW_STR_(a) #a
#define EMU_EW_STR(a) EMU_EW_STR_(a)
#define EMU_EW_FN(name, type) EMU_EW_CAT(emu_ew_##type##_##name##__, EMU_EW_ISA)

/* A rare scalar fallback inside a body: EMU_EW_RARE(ok, fast, slow) is
 * `fast` where `ok` holds and `slow` elsewhere (e.g. libm's sinf for huge
 * |x|). Each loop below makes three passes of the body, told apart by the
 * constant pass_: CHECK ANDs every element's `ok` into ok_ (the rest of the
 * body is dead code there, and bodies without EMU_EW_RARE leave the whole
 * pass and the SLOW branch to dead-code elimination); FAST, the vectorized
 * loop, runs when every element passed; else SLOW picks per element. An
 * element's value depends on it alone, so blocks and threads never change
 * the bits, and `fast` must give the same bits in either pass (it does: the
 * same operations, vectorized or not). */
enum { EMU_EW_PASS_CHECK, EMU_EW_PASS_FAST, EMU_EW_PASS_SLOW };
#define EMU_EW_RARE(ok, fast, slow)                                                                     \
    (pass_ == EMU_EW_PASS_CHECK ? (ok_ &= (ok), (T)0)                                                   \
                                : (pass_ == EMU_EW_PASS_FAST || (ok)) ? (fast) : (slow))

#define EMU_EW_PASS(pass, stmt)                                                                         \
    {                                                                                                   \
        const int pass_ = (pass);                                                                       \
        (void)pass_;                                                                                    \
        for (size_t i = 0; i < n; ++i) {                                                                \
            const T x = xs[i], y = ys[i], z = zs[i];                                                    \
            (void)x;                                                                                    \
            (void)y;                                                                                    \
            (void)z;                                                                                    \
            stmt;                                                                                       \
        }                                                                                               \
    }

/* One loop per body and compute type. `out` may be exactly in[0] or in[1]:
 * each element is read before it is written. Bodies of arity 0 (fill) read
 * `out` in place of an input and ignore it. */
#define EMU_EW_LOOP(name, arity, expr, type, T_, PARAMS_, EXP_)                                         \
    static void EMU_EW_FN(name, type)(size_t n, const T_ *const *in, T_ *out, const emu_ew_params *params) \
    {                                                                                                   \
        typedef T_ T;                                                                                   \
        const T p_[EMU_EW_MAX_PARAMS] = {params->PARAMS_[0], params->PARAMS_[1], params->PARAMS_[2],   \
                                         params->PARAMS_[3]};                                           \
        const T *xs = (arity) > 0 ? in[0] : out, *ys = (arity) > 1 ? in[1] : xs, *zs = (arity) > 2 ? in[2] : xs; \
        int ok_ = 1;                                                                                    \
        EMU_EW_PASS(EMU_EW_PASS_CHECK, (void)(expr))                                                    \
        if (ok_) {                                                                                      \
            EMU_EW_PASS(EMU_EW_PASS_FAST, out[i] = (T)(expr))                                           \
        } else {                                                                                        \
            EMU_EW_PASS(EMU_EW_PASS_SLOW, out[i] = (T)(expr))                                           \
        }                                                                                               \
        (void)p_;                                                                                       \
    }

#define P(k) p_[k]
#define EXP emu_ew_expf
#define LOG emu_ew_logf
#define TANH emu_ew_tanhf
#define SIN(x) EMU_EW_RARE(!(fabsf(x) > EMU_FM_SINCOS_MAX), emu_ew_sinf(x), sinf(x))
#define COS(x) EMU_EW_RARE(!(fabsf(x) > EMU_FM_SINCOS_MAX), emu_ew_cosf(x), cosf(x))
#define GELU_ERF emu_ew_gelu_erff
#define EMU_EW_F32_LOOP(name, arity, expr) EMU_EW_LOOP(name, arity, expr, f32, float, f, EXP)
EMU_EW_FLOAT_KERNELS(EMU_EW_F32_LOOP)
#undef EXP
#undef LOG
#undef TANH
#undef SIN
#undef COS
#undef GELU_ERF
#define EXP exp
#define LOG log
#define TANH tanh
#define SIN sin
#define COS cos
#define GELU_ERF(x) (0.5 * (x) * erfc((x) * -0.7071067811865476))
#define EMU_EW_F64_LOOP(name, arity, expr) EMU_EW_LOOP(name, arity, expr, f64, double, d, EXP)
EMU_EW_FLOAT_KERNELS(EMU_EW_F64_LOOP)
#undef EXP
#undef LOG
#undef TANH
#undef SIN
#undef COS
#undef GELU_ERF
#define EMU_EW_I64_LOOP(name, arity, expr) EMU_EW_LOOP(name, arity, expr, i64, int64_t, i, EXP)
EMU_EW_INT_KERNELS(EMU_EW_I64_LOOP)
#undef P

#include "kernels/ew/transpose.h"

#if defined(__AVX2__)
#include "kernels/stream_copy_x86.h"
static void EMU_EW_CAT(emu_ew_stream_copy__, EMU_EW_ISA)(size_t bytes, const void *src, void *dst)
{
#if defined(__AVX512F__)
    emu_stream_copy_avx512(dst, src, bytes, 0);
#else
    emu_stream_copy_avx2(dst, src, bytes, 0);
#endif
}
static void EMU_EW_CAT(emu_ew_stream_fence__, EMU_EW_ISA)(void) { _mm_sfence(); }
#define EMU_EW_STREAM_COPY EMU_EW_CAT(emu_ew_stream_copy__, EMU_EW_ISA)
#define EMU_EW_STREAM_FENCE EMU_EW_CAT(emu_ew_stream_fence__, EMU_EW_ISA)
#else
/* No non-temporal stores in portable C: the driver keeps plain stores. */
#define EMU_EW_STREAM_COPY NULL
#define EMU_EW_STREAM_FENCE NULL
#endif

#define EMU_EW_F32_ENTRY(name, arity, expr) [EMU_EWK_##name] = EMU_EW_FN(name, f32),
#define EMU_EW_F64_ENTRY(name, arity, expr) [EMU_EWK_##name] = EMU_EW_FN(name, f64),
#define EMU_EW_I64_ENTRY(name, arity, expr) [EMU_EWK_##name] = EMU_EW_FN(name, i64),

const emu_ew_kernels EMU_EW_CAT(emu_ew_kernels__, EMU_EW_ISA) = {
    .f32 = {EMU_EW_FLOAT_KERNELS(EMU_EW_F32_ENTRY)},
    .f64 = {EMU_EW_FLOAT_KERNELS(EMU_EW_F64_ENTRY)},
    .i64 = {EMU_EW_INT_KERNELS(EMU_EW_I64_ENTRY)},
    .transpose = {EMU_EW_CAT(emu_ew_transpose_uint8_t__, EMU_EW_ISA),
                  EMU_EW_CAT(emu_ew_transpose_uint16_t__, EMU_EW_ISA),
                  EMU_EW_CAT(emu_ew_transpose_uint32_t__, EMU_EW_ISA),
                  EMU_EW_CAT(emu_ew_transpose_uint64_t__, EMU_EW_ISA)},
    .stream_copy = EMU_EW_STREAM_COPY,
    .stream_fence = EMU_EW_STREAM_FENCE,
    .isa_name = EMU_EW_STR(EMU_EW_ISA),
};
