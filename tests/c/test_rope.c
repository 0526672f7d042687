/* RotaryPositionEmbeddingGrad from C on calls large enough to stream their
 * outputs (32 MiB through the cache), at every ISA level, built with the
 * library's sanitizers in CI. dx at the start of its aclrtMalloc block is
 * stored non-temporally by the kernel itself ("+nt"); dx at an odd element
 * offset goes through an L1 buffer and a copy ("+stream"), and so do
 * dcos/dsin at such offsets. Every output must equal the scalar level's
 * bits, and the guard elements around every output keep their values.
 * Prints "N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_rotary_position_embedding_grad.h"

static int passed, failed;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (cond) {                                                               \
            ++passed;                                                             \
        } else {                                                                  \
            ++failed;                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
        }                                                                         \
    } while (0)

enum { GUARD = 64, GUARD_BYTE = 0xA5, D = 128 };

/* A device block holding `elems` elements of `item` bytes at element `offset`, GUARD elements of
 * GUARD_BYTE on each side. */
typedef struct {
    unsigned char *block;
    size_t item, elems, offset, bytes;
} guarded;

static guarded make_guarded(size_t elems, size_t item, size_t offset, const void *values)
{
    guarded g = {NULL, item, elems, offset, (elems + offset + GUARD) * item};
    if (aclrtMalloc((void **)&g.block, g.bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "aclrtMalloc of %zu bytes failed\n", g.bytes);
        exit(2);
    }
    memset(g.block, GUARD_BYTE, g.bytes);
    if (values != NULL) {
        memcpy(g.block + offset * item, values, elems * item);
    }
    return g;
}

static void *data(const guarded *g) { return g->block + g->offset * g->item; }

static int guards_intact(const guarded *g)
{
    const size_t end = (g->offset + g->elems) * g->item;
    for (size_t i = 0; i < g->bytes; ++i) {
        if ((i < g->offset * g->item || i >= end) && g->block[i] != GUARD_BYTE) {
            return 0;
        }
    }
    return 1;
}

static aclTensor *tensor(const int64_t shape[4], aclDataType dtype, const guarded *g)
{
    const int64_t strides[4] = {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
    const int64_t storage = (int64_t)(g->offset + g->elems + GUARD);
    return aclCreateTensor(shape, 4, dtype, strides, (int64_t)g->offset, ACL_FORMAT_ND, &storage, 1, g->block);
}

/* Deterministic values in [-2, 2) in the dtype's bits (fp32, or the top half of an fp32 for bf16,
 * or an fp16 built from sign, exponent 14..16 and mantissa). */
static void fill(void *dst, size_t n, aclDataType dtype, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        const float v = (float)((int32_t)(s >> 8) - (1 << 23)) / (float)(1 << 22);
        uint32_t bits;
        memcpy(&bits, &v, sizeof bits);
        if (dtype == ACL_FLOAT) {
            ((float *)dst)[i] = v;
        } else if (dtype == ACL_BF16) {
            ((uint16_t *)dst)[i] = (uint16_t)(bits >> 16);
        } else {
            ((uint16_t *)dst)[i] = (uint16_t)((s >> 31) << 15 | (14u + (s >> 29) % 3u) << 10 | ((s >> 9) & 0x3FFu));
        }
    }
}

typedef struct {
    guarded dx, dcos, dsin;
    char kernel[96];
} outputs;

/* One call at the active ISA level, outputs at element `offset` of their blocks. */
static outputs run(const int64_t xs[4], const int64_t cs[4], aclDataType dtype, size_t item, const void *dy,
                   const void *x, const void *cos, const void *sin, size_t offset)
{
    const size_t n = (size_t)(xs[0] * xs[1] * xs[2] * xs[3]), c = (size_t)(cs[0] * cs[1] * cs[2] * cs[3]);
    guarded in[4] = {make_guarded(n, item, 0, dy), make_guarded(c, item, 0, cos), make_guarded(c, item, 0, sin),
                     make_guarded(n, item, 0, x != NULL ? x : dy)};
    outputs out = {make_guarded(n, item, offset, NULL), make_guarded(c, item, offset, NULL),
                   make_guarded(c, item, offset, NULL), ""};
    aclTensor *t[7] = {tensor(xs, dtype, &in[0]), tensor(cs, dtype, &in[1]), tensor(cs, dtype, &in[2]),
                       tensor(xs, dtype, &in[3]), tensor(xs, dtype, &out.dx), tensor(cs, dtype, &out.dcos),
                       tensor(cs, dtype, &out.dsin)};
    uint64_t ws = 1;
    aclOpExecutor *ex = NULL;
    aclnnStatus rc = aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(t[0], t[1], t[2], x != NULL ? t[3] : NULL, 0,
                                                                       t[4], t[5], t[6], &ws, &ex);
    CHECK(rc == 0 && ws == 0, "phase 1: %d, workspace %llu: %s", (int)rc, (unsigned long long)ws,
          aclGetRecentErrMsg());
    if (rc == 0) {
        CHECK(aclnnRotaryPositionEmbeddingGrad(NULL, 0, ex, NULL) == 0, "phase 2: %s", aclGetRecentErrMsg());
        snprintf(out.kernel, sizeof out.kernel, "%s", aclnnEmuGetLastKernel());
    }
    for (int i = 0; i < 7; ++i) {
        aclDestroyTensor(t[i]);
    }
    for (int i = 0; i < 4; ++i) {
        aclrtFree(in[i].block);
    }
    return out;
}

static void free_outputs(outputs *o)
{
    aclrtFree(o->dx.block);
    aclrtFree(o->dcos.block);
    aclrtFree(o->dsin.block);
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void check_case(const char *label, aclDataType dtype, size_t item, int with_x, int64_t seq)
{
    const int64_t xs[4] = {2, seq, 4, D}, cs[4] = {1, seq, 1, D};
    const size_t n = (size_t)(2 * seq * 4 * D), c = (size_t)(seq * D);
    void *dy = malloc(n * item), *x = malloc(n * item), *cos = malloc(c * item), *sin = malloc(c * item);
    if (!dy || !x || !cos || !sin) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    fill(dy, n, dtype, 1);
    fill(x, n, dtype, 2);
    fill(cos, c, dtype, 3);
    fill(sin, c, dtype, 4);
    const aclnnEmuIsa detected = aclnnEmuGetDetectedIsa();
    aclnnEmuSetIsaCap(ACLNN_EMU_ISA_SCALAR);
    outputs want = run(xs, cs, dtype, item, dy, with_x ? x : NULL, cos, sin, 0);
    for (int level = ACLNN_EMU_ISA_SCALAR; level <= (int)detected; ++level) {
        aclnnEmuSetIsaCap((aclnnEmuIsa)level);
        for (size_t offset = 0; offset <= 21; offset += 21) {
            outputs got = run(xs, cs, dtype, item, dy, with_x ? x : NULL, cos, sin, offset);
            const char *route = level == ACLNN_EMU_ISA_SCALAR ? "" : offset == 0 ? "+nt" : "+stream";
            const int streams = ends_with(got.kernel, "+nt") || ends_with(got.kernel, "+stream");
            CHECK(*route ? ends_with(got.kernel, route) : !streams,
                  "%s, level %d, offset %zu: kernel %s, expected the route \"%s\"", label, level, offset, got.kernel,
                  route);
            CHECK(memcmp(data(&got.dx), data(&want.dx), n * item) == 0, "%s, level %d, offset %zu: dx differs", label,
                  level, offset);
            CHECK(guards_intact(&got.dx), "%s, level %d, offset %zu: guards around dx", label, level, offset);
            if (with_x) {
                CHECK(memcmp(data(&got.dcos), data(&want.dcos), c * item) == 0 &&
                          memcmp(data(&got.dsin), data(&want.dsin), c * item) == 0,
                      "%s, level %d, offset %zu: dcos/dsin differ", label, level, offset);
                CHECK(guards_intact(&got.dcos) && guards_intact(&got.dsin),
                      "%s, level %d, offset %zu: guards around dcos/dsin", label, level, offset);
            } else {
                CHECK(guards_intact(&got.dcos) && guards_intact(&got.dsin) &&
                          ((unsigned char *)data(&got.dcos))[0] == GUARD_BYTE,
                      "%s, level %d, offset %zu: dcos/dsin written without x", label, level, offset);
            }
            free_outputs(&got);
        }
    }
    aclnnEmuSetIsaCap(detected);
    free_outputs(&want);
    free(dy);
    free(x);
    free(cos);
    free(sin);
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "runtime start failed\n");
        return 2;
    }
    /* Sizes just past 32 MiB of dy + dx (+ x): 3 * 2 * 2 * seq * 4 * 128 bytes for fp16 with x. */
    check_case("fp16 with x", ACL_FLOAT16, 2, 1, (32 << 20) / (3 * 2 * 2 * 4 * D) + 1);
    check_case("bf16 with x", ACL_BF16, 2, 1, (32 << 20) / (3 * 2 * 2 * 4 * D) + 1);
    check_case("fp32 without x", ACL_FLOAT, 4, 0, (32 << 20) / (2 * 4 * 2 * 4 * D) + 1);
    aclrtResetDevice(0);
    aclFinalize();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
