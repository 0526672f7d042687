#include "kernels/isa.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* -1 means "not computed yet". Both values are idempotent to compute, so a
 * race only means two threads do the same work and store the same result. */
static _Atomic int g_detected = -1;
static _Atomic int g_cap = -1;

#if defined(__x86_64__) || defined(__i386__)
static unsigned long long read_xcr0(void) {
    unsigned int eax, edx;
    /* Raw xgetbv so this file needs no -mxsave. */
    __asm__ __volatile__("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

static emu_isa detect_x86(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return EMU_ISA_SCALAR;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    const int fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
    if (!osxsave || !avx || !fma || !f16c) return EMU_ISA_SCALAR;

    const unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) return EMU_ISA_SCALAR; /* XMM + YMM state */

    if (__get_cpuid_max(0, NULL) < 7) return EMU_ISA_SCALAR;
    __cpuid_count(7, 0, a, b, c, d);
    if (!((b >> 5) & 1)) return EMU_ISA_SCALAR; /* AVX2 */

    const int f = (b >> 16) & 1, dq = (b >> 17) & 1;
    const int bw = (b >> 30) & 1, vl = (b >> 31) & 1;
    /* opmask, upper ZMM0-15, ZMM16-31 state */
    if (!(f && dq && bw && vl && (xcr0 & 0xE0) == 0xE0)) return EMU_ISA_AVX2;
    const unsigned int max_subleaf = a;
    if (max_subleaf >= 1) {
        __cpuid_count(7, 1, a, b, c, d);
        if ((a >> 5) & 1) return EMU_ISA_AVX512_BF16;
    }
    return EMU_ISA_AVX512;
}
#endif

emu_isa emu_isa_detected(void) {
    int v = atomic_load(&g_detected);
    if (v < 0) {
#if defined(__x86_64__) || defined(__i386__)
        v = (int)detect_x86();
#else
        v = (int)EMU_ISA_SCALAR;
#endif
        atomic_store(&g_detected, v);
    }
    return (emu_isa)v;
}

static int load_cap(void) {
    int v = atomic_load(&g_cap);
    if (v >= 0) return v;

    int from_env = (int)EMU_ISA_MAX; /* no cap */
    int bad = 0;
    const char* s = getenv("ACLNN_EMU_ISA");
    if (s && *s) {
        emu_isa parsed;
        if (emu_isa_parse(s, &parsed) == 0) from_env = (int)parsed;
        else bad = 1;
    }
    int expected = -1;
    /* Only the thread that installs the value warns, so the warning is printed once;
     * if emu_isa_set_cap() got there first, the explicit cap wins. */
    if (atomic_compare_exchange_strong(&g_cap, &expected, from_env)) {
        if (bad)
            fprintf(stderr,
                    "aclnn_emu: ignoring unknown ACLNN_EMU_ISA=\"%s\" "
                    "(expected scalar, avx2, avx512 or avx512_bf16)\n", s);
        return from_env;
    }
    return expected;
}

emu_isa emu_isa_get_cap(void) { return (emu_isa)load_cap(); }

void emu_isa_set_cap(emu_isa cap) {
    int v = (int)cap;
    if (v < (int)EMU_ISA_SCALAR) v = (int)EMU_ISA_SCALAR;
    if (v > (int)EMU_ISA_MAX) v = (int)EMU_ISA_MAX;
    atomic_store(&g_cap, v);
}

emu_isa emu_isa_active(void) {
    const emu_isa det = emu_isa_detected();
    const emu_isa cap = emu_isa_get_cap();
    return cap < det ? cap : det;
}

const char* emu_isa_name(emu_isa isa) {
    switch (isa) {
        case EMU_ISA_SCALAR: return "scalar";
        case EMU_ISA_AVX2: return "avx2";
        case EMU_ISA_AVX512: return "avx512";
        case EMU_ISA_AVX512_BF16: return "avx512_bf16";
    }
    return "unknown";
}

static int ieq(const char* a, const char* b) {
    for (; *a && *b; ++a, ++b) {
        char ca = *a, cb = *b;
        if (ca >= 'A' && ca <= 'Z') ca = (char)(ca - 'A' + 'a');
        if (ca != cb) return 0;
    }
    return *a == *b;
}

int emu_isa_parse(const char* s, emu_isa* out) {
    static const emu_isa all[] = {EMU_ISA_SCALAR, EMU_ISA_AVX2, EMU_ISA_AVX512, EMU_ISA_AVX512_BF16};
    if (!s || !out) return -1;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        if (ieq(s, emu_isa_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    }
    return -1;
}
