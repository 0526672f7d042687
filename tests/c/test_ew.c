/* The element-wise operator layer from C, so that CI runs it under ASan+UBSan,
 * TSan and on aarch64 (qemu): broadcasting, strided outputs with guard
 * elements, dtype conversion, integers, in-place and partial overlap, an
 * operator with two plans (GeGluV3), both stream kinds, 1 and 2 threads.
 * References are double-precision loops written here; values are checked
 * to a relative 1e-6 (fp32) or exactly where the data is exact.
 * Prints "N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_mul.h"

static int passed, failed;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (cond) {                                                                      \
            ++passed;                                                                    \
        } else {                                                                         \
            ++failed;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                                \
    } while (0)

static void *device(size_t bytes)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "aclrtMalloc failed\n");
        exit(2);
    }
    return p;
}

static aclTensor *tensor(int rank, const int64_t *shape, const int64_t *strides, int64_t offset, aclDataType dtype,
                         int64_t storage, void *data)
{
    return aclCreateTensor(shape, (uint64_t)rank, dtype, strides, offset, ACL_FORMAT_ND, &storage, 1, data);
}

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-6 * fabs(want) + 1e-30;
}

/* Given phase 1's status (its out-parameters are read after the call, so
 * they are passed by address), runs phase 2 on `stream` and waits. */
typedef aclnnStatus (*phase2_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);
static aclnnStatus run(aclnnStatus phase1, const uint64_t *workspace_size, aclOpExecutor *const *executor,
                       phase2_fn phase2, aclrtStream stream)
{
    if (phase1 != ACLNN_SUCCESS) {
        fprintf(stderr, "  phase 1: %s\n", aclGetRecentErrMsg());
        return phase1;
    }
    CHECK(*workspace_size == 0);
    const aclnnStatus status = phase2(NULL, 0, *executor, stream);
    CHECK(status == ACLNN_SUCCESS);
    if (status != ACLNN_SUCCESS) {
        fprintf(stderr, "  phase 2: %s\n", aclGetRecentErrMsg());
    }
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    return ACLNN_SUCCESS;
}

/* out[2,3,4] = a[2,1,4] + 0.5 * b[3,1], with out a strided view between guards. */
static void test_broadcast_add(aclrtStream stream)
{
    float a[8], b[3];
    for (int i = 0; i < 8; ++i) a[i] = (float)i - 3.25f;
    for (int i = 0; i < 3; ++i) b[i] = 2.0f * (float)i + 0.5f;
    const int64_t out_elems = 2 * 3 * 8; /* every other element along the last dim */
    float *da = device(sizeof a), *db = device(sizeof b), *dout = device((size_t)out_elems * sizeof(float));
    float guard[48];
    for (int i = 0; i < out_elems; ++i) guard[i] = -99.0f;
    aclrtMemcpy(da, sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(db, sizeof b, b, sizeof b, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(dout, sizeof guard, guard, sizeof guard, ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t sa[3] = {2, 1, 4}, sb[2] = {3, 1}, so[3] = {2, 3, 4}, out_strides[3] = {24, 8, 2};
    aclTensor *ta = tensor(3, sa, NULL, 0, ACL_FLOAT, 8, da), *tb = tensor(2, sb, NULL, 0, ACL_FLOAT, 3, db);
    aclTensor *to = tensor(3, so, out_strides, 0, ACL_FLOAT, out_elems, dout);
    float half = 0.5f;
    aclScalar *alpha = aclCreateScalar(&half, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(run(aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex), &ws, &ex, aclnnAdd, stream) == ACLNN_SUCCESS);
    float out[48];
    aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
            for (int k = 0; k < 4; ++k) {
                CHECK(out[i * 24 + j * 8 + 2 * k] == a[i * 4 + k] + 0.5f * b[j]);
                CHECK(out[i * 24 + j * 8 + 2 * k + 1] == -99.0f); /* the guards between the elements */
            }
        }
    }
    /* The output as the first input's broadcast partner of the wrong shape: 161002 naming out. */
    aclTensor *small = tensor(2, sb, NULL, 0, ACL_FLOAT, 3, db);
    CHECK(aclnnAddGetWorkspaceSize(ta, tb, alpha, small, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "out") != NULL);
    CHECK(aclnnAddGetWorkspaceSize(ta, NULL, alpha, to, &ws, &ex) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(strstr(aclGetRecentErrMsg(), "other") != NULL);
    aclDestroyScalar(alpha);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    aclDestroyTensor(small);
    aclrtFree(da);
    aclrtFree(db);
    aclrtFree(dout);
}

/* Exp over 3 blocks and a tail, in place and out of place; a partial overlap is refused. */
static void test_exp_in_place_and_overlap(aclrtStream stream)
{
    enum { N = 3 * 1024 + 37 };
    float *host = malloc(N * sizeof(float)), *got = malloc(N * sizeof(float));
    if (host == NULL || got == NULL) {
        exit(2);
    }
    for (int i = 0; i < N; ++i) host[i] = -20.0f + 40.0f * (float)i / N;
    float *d = device((N + 1) * sizeof(float));
    aclrtMemcpy(d, N * sizeof(float), host, N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t shape[1] = {N};
    aclTensor *x = tensor(1, shape, NULL, 0, ACL_FLOAT, N + 1, d);
    aclTensor *shifted = tensor(1, shape, NULL, 1, ACL_FLOAT, N + 1, d);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnExpGetWorkspaceSize(x, shifted, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "overlap") != NULL);
    CHECK(run(aclnnInplaceExpGetWorkspaceSize(x, &ws, &ex), &ws, &ex, aclnnInplaceExp, stream) == ACLNN_SUCCESS);
    aclrtMemcpy(got, N * sizeof(float), d, N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    int ok = 1;
    for (int i = 0; i < N; ++i) ok &= close_to(got[i], exp((double)host[i]));
    CHECK(ok);
    aclDestroyTensor(x);
    aclDestroyTensor(shifted);
    aclrtFree(d);
    free(host);
    free(got);
}

/* FLOAT -> FLOAT16 and INT32 -> FLOAT casts, then a transposed copy of int64. */
static void test_cast_and_copy(aclrtStream stream)
{
    const float f[6] = {1.0f, -2.5f, 65504.0f, 70000.0f, 1e-8f, 0.333333f};
    const uint16_t f16[6] = {0x3C00, 0xC100, 0x7BFF, 0x7C00, 0x0000, 0x3555};
    float *df = device(sizeof f);
    uint16_t *dh = device(6 * sizeof(uint16_t));
    aclrtMemcpy(df, sizeof f, f, sizeof f, ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t six[1] = {6};
    aclTensor *tf = tensor(1, six, NULL, 0, ACL_FLOAT, 6, df), *th = tensor(1, six, NULL, 0, ACL_FLOAT16, 6, dh);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(run(aclnnCastGetWorkspaceSize(tf, ACL_FLOAT16, th, &ws, &ex), &ws, &ex, aclnnCast, stream) == ACLNN_SUCCESS);
    uint16_t h[6];
    aclrtMemcpy(h, sizeof h, dh, sizeof h, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(memcmp(h, f16, sizeof h) == 0);

    int64_t src[12], dst[12];
    for (int i = 0; i < 12; ++i) src[i] = ((int64_t)1 << 60) + i; /* not exact in double: copied as bytes */
    int64_t *ds = device(sizeof src), *dd = device(sizeof dst);
    aclrtMemcpy(ds, sizeof src, src, sizeof src, ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t s34[2] = {3, 4}, s43[2] = {4, 3}, transposed[2] = {1, 4};
    aclTensor *ts = tensor(2, s43, transposed, 0, ACL_INT64, 12, ds), *td = tensor(2, s43, NULL, 0, ACL_INT64, 12, dd);
    (void)s34;
    CHECK(run(aclnnInplaceCopyGetWorkspaceSize(td, ts, &ws, &ex), &ws, &ex, aclnnInplaceCopy, stream) == ACLNN_SUCCESS);
    aclrtMemcpy(dst, sizeof dst, dd, sizeof dst, ACL_MEMCPY_DEVICE_TO_HOST);
    int ok = 1;
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) ok &= dst[i * 3 + j] == src[j * 4 + i];
    }
    CHECK(ok);
    aclDestroyTensor(tf);
    aclDestroyTensor(th);
    aclDestroyTensor(ts);
    aclDestroyTensor(td);
    aclrtFree(df);
    aclrtFree(dh);
    aclrtFree(ds);
    aclrtFree(dd);
}

/* GeGluV3 (two loops in one executor) and integer Mul, wrapping as int32 does. */
static void test_geglu_and_integers(aclrtStream stream)
{
    enum { ROWS = 3, HALF = 5 };
    float x[ROWS * 2 * HALF];
    for (int i = 0; i < ROWS * 2 * HALF; ++i) x[i] = (float)i * 0.37f - 4.0f;
    float *dx = device(sizeof x), *dout = device(sizeof x / 2), *dgelu = device(sizeof x / 2);
    aclrtMemcpy(dx, sizeof x, x, sizeof x, ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t sx[2] = {ROWS, 2 * HALF}, sh[2] = {ROWS, HALF};
    aclTensor *tx = tensor(2, sx, NULL, 0, ACL_FLOAT, ROWS * 2 * HALF, dx);
    aclTensor *to = tensor(2, sh, NULL, 0, ACL_FLOAT, ROWS * HALF, dout);
    aclTensor *tg = tensor(2, sh, NULL, 0, ACL_FLOAT, ROWS * HALF, dgelu);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(run(aclnnGeGluV3GetWorkspaceSize(tx, -1, 0, true, to, tg, &ws, &ex), &ws, &ex, aclnnGeGluV3, stream) ==
          ACLNN_SUCCESS);
    float out[ROWS * HALF], gelu[ROWS * HALF];
    aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(gelu, sizeof gelu, dgelu, sizeof gelu, ACL_MEMCPY_DEVICE_TO_HOST);
    int ok = 1;
    for (int r = 0; r < ROWS; ++r) {
        for (int c = 0; c < HALF; ++c) {
            const double a = x[r * 2 * HALF + c], b = x[r * 2 * HALF + HALF + c];
            const double g = 0.5 * a * erfc(-a / sqrt(2.0));
            ok &= close_to(gelu[r * HALF + c], g) && close_to(out[r * HALF + c], g * b);
        }
    }
    CHECK(ok);
    CHECK(aclnnGeGluV3GetWorkspaceSize(tx, 2, 0, true, to, tg, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "dim") != NULL);

    const int32_t ia[4] = {2147483647, -7, 40000, 3}, ib[4] = {2, 3, 40000, -1};
    int32_t *dia = device(sizeof ia), *dib = device(sizeof ib), *dic = device(sizeof ia);
    aclrtMemcpy(dia, sizeof ia, ia, sizeof ia, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(dib, sizeof ib, ib, sizeof ib, ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t four[1] = {4};
    aclTensor *ta = tensor(1, four, NULL, 0, ACL_INT32, 4, dia), *tb = tensor(1, four, NULL, 0, ACL_INT32, 4, dib);
    aclTensor *tc = tensor(1, four, NULL, 0, ACL_INT32, 4, dic);
    CHECK(run(aclnnMulGetWorkspaceSize(ta, tb, tc, &ws, &ex), &ws, &ex, aclnnMul, stream) == ACLNN_SUCCESS);
    int32_t ic[4];
    aclrtMemcpy(ic, sizeof ic, dic, sizeof ic, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 4; ++i) {
        CHECK(ic[i] == (int32_t)(uint32_t)((uint64_t)(int64_t)ia[i] * (uint64_t)(int64_t)ib[i]));
    }
    aclDestroyTensor(tx);
    aclDestroyTensor(to);
    aclDestroyTensor(tg);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tc);
    aclrtFree(dx);
    aclrtFree(dout);
    aclrtFree(dgelu);
    aclrtFree(dia);
    aclrtFree(dib);
    aclrtFree(dic);
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "runtime init failed\n");
        return 2;
    }
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
    for (int threads = 1; threads <= 2; ++threads) {
        aclnnEmuSetNumThreads(threads);
        aclrtStream streams[2] = {NULL, stream};
        for (int s = 0; s < 2; ++s) {
            test_broadcast_add(streams[s]);
            test_exp_in_place_and_overlap(streams[s]);
            test_cast_and_copy(streams[s]);
            test_geglu_and_integers(streams[s]);
        }
    }
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    aclrtResetDevice(0);
    aclFinalize();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
