#include "kernels/rope/rope.h"

/* The fp32 entries (the first four fields). */
#define EMU_ROPE_F32(isa)                                                                                      \
    {emu_f32_rope_half__##isa, emu_f32_rope_interleave__##isa, emu_f32_rope_quarter__##isa,                    \
     emu_f32_rope_interleave_half__##isa},                                                                     \
        {emu_f32_rope_half_grad__##isa, emu_f32_rope_interleave_grad__##isa, emu_f32_rope_quarter_grad__##isa, \
         emu_f32_rope_interleave_half_grad__##isa},                                                            \
        {"f32_rope_half__" #isa, "f32_rope_interleave__" #isa, "f32_rope_quarter__" #isa,                      \
         "f32_rope_interleave_half__" #isa},                                                                   \
        {"f32_rope_half_grad__" #isa, "f32_rope_interleave_grad__" #isa, "f32_rope_quarter_grad__" #isa,       \
         "f32_rope_interleave_half_grad__" #isa}

/* fp16/bf16 entries of modes 0-2 (interleave-half goes through kernels/convert). */
#define EMU_ROPE_H_FWD(t, isa) \
    {emu_##t##_rope_half__##isa, emu_##t##_rope_interleave__##isa, emu_##t##_rope_quarter__##isa, NULL}
#define EMU_ROPE_H_GRAD(t, form, isa)                                                                    \
    {emu_##t##_rope_half_grad##form##__##isa, emu_##t##_rope_interleave_grad##form##__##isa,              \
     emu_##t##_rope_quarter_grad##form##__##isa, NULL}
#define EMU_ROPE_H_NAMES(t, isa, suffix)                                                                      \
    {#t "_rope_half" suffix "__" #isa, #t "_rope_interleave" suffix "__" #isa, #t "_rope_quarter" suffix "__" \
     #isa, NULL}

static const emu_rope_kernels k_scalar = {EMU_ROPE_F32(scalar), {{NULL}}, {{NULL}}, {{NULL}}, {{NULL}},
                                          {{NULL}}, {{NULL}}, NULL, NULL, {NULL}, {{NULL}}, {{NULL}}};

#if defined(EMU_HAVE_X86_KERNELS)
/* The kernels of one level: fp32 and fp16 from `isa`, bf16 from `bf16isa`
 * (avx512_bf16 has bf16 kernels of its own only). */
#define EMU_ROPE_TABLE_H(isa, bf16isa)                                                                        \
    {EMU_ROPE_F32(isa),                                                                                       \
     {EMU_ROPE_H_FWD(f16, isa), EMU_ROPE_H_FWD(bf16, bf16isa)},                                               \
     {EMU_ROPE_H_GRAD(f16, , isa), EMU_ROPE_H_GRAD(bf16, , bf16isa)},                                         \
     {EMU_ROPE_H_NAMES(f16, isa, ""), EMU_ROPE_H_NAMES(bf16, bf16isa, "")},                                   \
     {EMU_ROPE_H_NAMES(f16, isa, "_grad"), EMU_ROPE_H_NAMES(bf16, bf16isa, "_grad")},                         \
     {EMU_ROPE_H_GRAD(f16, _cos16, isa), EMU_ROPE_H_GRAD(bf16, _cos16, bf16isa)},                             \
     {EMU_ROPE_H_NAMES(f16, isa, "_grad_cos16"), EMU_ROPE_H_NAMES(bf16, bf16isa, "_grad_cos16")},             \
     emu_rope_stream_copy__##isa,                                                                             \
     emu_rope_stream_fence__##isa,                                                                            \
     {emu_f32_rope_half_grad_nt__##isa, emu_f32_rope_interleave_grad_nt__##isa,                               \
      emu_f32_rope_quarter_grad_nt__##isa, NULL},                                                             \
     {EMU_ROPE_H_GRAD(f16, _nt, isa), EMU_ROPE_H_GRAD(bf16, _nt, bf16isa)},                                   \
     {EMU_ROPE_H_GRAD(f16, _nt_cos16, isa), EMU_ROPE_H_GRAD(bf16, _nt_cos16, bf16isa)}}

static const emu_rope_kernels k_avx2 = EMU_ROPE_TABLE_H(avx2, avx2);
static const emu_rope_kernels k_avx512 = EMU_ROPE_TABLE_H(avx512, avx512);
#if defined(EMU_HAVE_AVX512_BF16_KERNELS)
static const emu_rope_kernels k_avx512_bf16 = EMU_ROPE_TABLE_H(avx512, avx512_bf16);
#endif
#endif

const emu_rope_kernels* emu_rope_select(emu_isa isa) {
#if defined(EMU_HAVE_X86_KERNELS)
#if defined(EMU_HAVE_AVX512_BF16_KERNELS)
    if (isa >= EMU_ISA_AVX512_BF16) return &k_avx512_bf16;
#endif
    if (isa >= EMU_ISA_AVX512) return &k_avx512;
    if (isa >= EMU_ISA_AVX2) return &k_avx2;
#else
    (void)isa;
#endif
    return &k_scalar;
}
