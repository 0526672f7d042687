/*
 * ISA levels for the SIMD kernel layer. This is the only place that knows
 * how to detect CPU features; kernel families pick an implementation with
 * their own emu_*_select(emu_isa) given the level returned by
 * emu_isa_active().
 *
 * Levels (each implies the previous one):
 *   EMU_ISA_SCALAR  portable C, used on every architecture.
 *   EMU_ISA_AVX2    x86: AVX2 + FMA + F16C, and the OS saves YMM state.
 *   EMU_ISA_AVX512  x86: additionally AVX512F/BW/VL/DQ, and the OS saves
 *                   opmask/ZMM state.
 *   EMU_ISA_AVX512_BF16  x86: additionally AVX512_BF16 (bf16 conversions in
 *                   one instruction; Cooper Lake, Sapphire Rapids, Zen 4 and
 *                   later). Families without kernels of their own for it run
 *                   their AVX-512 ones.
 *
 * The active level is min(detected, cap). The cap starts as the value of the
 * environment variable ACLNN_EMU_ISA ("scalar", "avx2", "avx512",
 * "avx512_bf16", case-insensitive; unset means no cap, an unknown value prints one warning
 * to stderr and is ignored), read once on first use. emu_isa_set_cap()
 * overrides it at any time. All functions are thread-safe.
 */
#ifndef ACLNN_EMU_KERNELS_ISA_H
#define ACLNN_EMU_KERNELS_ISA_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { EMU_ISA_SCALAR = 0, EMU_ISA_AVX2 = 1, EMU_ISA_AVX512 = 2, EMU_ISA_AVX512_BF16 = 3 } emu_isa;

/* The highest level there is. */
#define EMU_ISA_MAX EMU_ISA_AVX512_BF16

/* Best level the CPU and OS support; detected once and cached. */
emu_isa emu_isa_detected(void);
/* min(detected, cap): the level kernels should be selected for. */
emu_isa emu_isa_active(void);
emu_isa emu_isa_get_cap(void);
/* A cap above the detected level is allowed; active is then the detected level.
 * Values outside the enum are clamped into it. */
void emu_isa_set_cap(emu_isa cap);
/* "scalar", "avx2", "avx512", "avx512_bf16"; "unknown" for out-of-range values. */
const char* emu_isa_name(emu_isa isa);
/* Case-insensitive inverse of emu_isa_name. Returns 0 on success, -1 otherwise
 * (then *out is left unchanged). */
int emu_isa_parse(const char* s, emu_isa* out);

#ifdef __cplusplus
}
#endif

#endif
