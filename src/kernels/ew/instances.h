/* Internal: instantiates every body of list.h as a loop and fills the
 * kernel table of one ISA level. The including file defines EMU_EW_ISA
 * (the level's name, e.g. avx2) and is built with that level's flags. */
#include <math.h>
#include <stdint.h>
#include <tgmath.h>

#include "kernels/ew/ew.h"
#include "kernels/ew/exp.h"

#define EMU_EW_CAT_(a, b) a##b
#define EMU_EW_CAT(a, b) EMU_EW_CAT_(a, b)
#define EMU_EW_STR_(a) #a
#define EMU_EW_STR(a) EMU_EW_STR_(a)
#define EMU_EW_FN(name, type) EMU_EW_CAT(emu_ew_##type##_##name##__, EMU_EW_ISA)

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
        for (size_t i = 0; i < n; ++i) {                                                                \
            const T x = xs[i], y = ys[i], z = zs[i];                                                    \
            (void)x;                                                                                    \
            (void)y;                                                                                    \
            (void)z;                                                                                    \
            out[i] = (T)(expr);                                                                         \
        }                                                                                               \
        (void)p_;                                                                                       \
    }

#define P(k) p_[k]
#define EXP emu_ew_expf
#define EMU_EW_F32_LOOP(name, arity, expr) EMU_EW_LOOP(name, arity, expr, f32, float, f, EXP)
EMU_EW_FLOAT_KERNELS(EMU_EW_F32_LOOP)
#undef EXP
#define EXP exp
#define EMU_EW_F64_LOOP(name, arity, expr) EMU_EW_LOOP(name, arity, expr, f64, double, d, EXP)
EMU_EW_FLOAT_KERNELS(EMU_EW_F64_LOOP)
#undef EXP
#define EMU_EW_I64_LOOP(name, arity, expr) EMU_EW_LOOP(name, arity, expr, i64, int64_t, i, EXP)
EMU_EW_INT_KERNELS(EMU_EW_I64_LOOP)
#undef P

#define EMU_EW_F32_ENTRY(name, arity, expr) [EMU_EWK_##name] = EMU_EW_FN(name, f32),
#define EMU_EW_F64_ENTRY(name, arity, expr) [EMU_EWK_##name] = EMU_EW_FN(name, f64),
#define EMU_EW_I64_ENTRY(name, arity, expr) [EMU_EWK_##name] = EMU_EW_FN(name, i64),

const emu_ew_kernels EMU_EW_CAT(emu_ew_kernels__, EMU_EW_ISA) = {
    .f32 = {EMU_EW_FLOAT_KERNELS(EMU_EW_F32_ENTRY)},
    .f64 = {EMU_EW_FLOAT_KERNELS(EMU_EW_F64_ENTRY)},
    .i64 = {EMU_EW_INT_KERNELS(EMU_EW_I64_ENTRY)},
    .isa_name = EMU_EW_STR(EMU_EW_ISA),
};
