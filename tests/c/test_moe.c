/* MoeTokenPermute(Grad) from C, built with the library's sanitizers in CI:
 * skipped indices next to poisoned guard rows, huge and negative ids,
 * strided and overlapping views (staged through the workspace), empty
 * tensors, multi-threaded runs and the phase-1 errors. Values are checked
 * against plain loops (exact: the data are small integers). Prints
 * "N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_moe_token_permute.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"

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

static void *device(size_t bytes, const void *host)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "aclrtMalloc failed\n");
        exit(2);
    }
    if (host != NULL && bytes) {
        aclrtMemcpy(p, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    }
    return p;
}

static aclTensor *tensor(int rank, const int64_t *shape, const int64_t *strides, int64_t offset, aclDataType dtype,
                         int64_t storage, void *data)
{
    return aclCreateTensor(shape, (uint64_t)rank, dtype, strides, offset, ACL_FORMAT_ND, &storage, 1, data);
}

/* Runs both phases of the grad; returns phase 1's status. */
static int run_grad(aclTensor *g, aclTensor *idx, int64_t k, aclTensor *out)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int rc = aclnnMoeTokenPermuteGradGetWorkspaceSize(g, idx, k, false, out, &ws, &ex);
    if (rc != 0) {
        return rc;
    }
    void *work = ws ? device(ws, NULL) : NULL;
    CHECK(aclnnMoeTokenPermuteGrad(work, ws, ex, NULL) == 0);
    if (work) {
        aclrtFree(work);
    }
    return 0;
}

static void test_grad_skips_and_overlap(void)
{
    enum { ROWS = 5, H = 70, K = 3, T = 4, GUARD = 2 };
    float host[(ROWS + 2 * GUARD) * H];
    for (int i = 0; i < (ROWS + 2 * GUARD) * H; ++i) {
        host[i] = NAN; /* guard rows around the view */
    }
    for (int r = 0; r < ROWS; ++r) {
        for (int c = 0; c < H; ++c) {
            host[(GUARD + r) * H + c] = (float)(r * 100 + c);
        }
    }
    int32_t idx[T * K] = {0, -1, 4, 5, 2147483647, 1, -2147483647 - 1, -2, 7, 3, 3, 2};
    void *gd = device(sizeof host, host), *id = device(sizeof idx, idx);
    float *od = device(T * H * sizeof(float), NULL);
    int64_t gs[2] = {ROWS, H}, is[1] = {T * K}, os[2] = {T, H};
    aclTensor *g = tensor(2, gs, NULL, GUARD * H, ACL_FLOAT, (ROWS + 2 * GUARD) * H, gd);
    aclTensor *i = tensor(1, is, NULL, 0, ACL_INT32, T * K, id);
    aclTensor *o = tensor(2, os, NULL, 0, ACL_FLOAT, T * H, od);
    for (int threads = 1; threads <= 2; ++threads) {
        aclnnEmuSetNumThreads(threads);
        CHECK(run_grad(g, i, K, o) == 0);
        float out[T * H];
        aclrtMemcpy(out, sizeof out, od, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
        int exact = 1;
        for (int t = 0; t < T; ++t) {
            for (int c = 0; c < H; ++c) {
                double want = 0;
                for (int j = 0; j < K; ++j) {
                    int32_t r = idx[t * K + j];
                    want += r >= 0 && r < ROWS ? r * 100 + c : 0;
                }
                exact &= out[t * H + c] == (float)want;
            }
        }
        CHECK(exact);
    }
    aclDestroyTensor(o);
    /* out rows with stride 0 overlap: staged, then scattered in order (last row wins). */
    int64_t overlap[2] = {0, 1};
    o = tensor(2, os, overlap, 0, ACL_FLOAT, H, od);
    CHECK(run_grad(g, i, K, o) == 0);
    float row[H];
    aclrtMemcpy(row, sizeof row, od, sizeof row, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(row[0] == (float)(300 + 300 + 200) && row[H - 1] == (float)(3 * 100 + 3 * 100 + 200 + 3 * (H - 1)));
    /* a transposed grad view is staged too */
    int64_t tshape[2] = {ROWS, H}, tstrides[2] = {1, ROWS};
    float th[ROWS * H];
    for (int r = 0; r < ROWS; ++r) {
        for (int c = 0; c < H; ++c) {
            th[c * ROWS + r] = (float)(r * 100 + c);
        }
    }
    void *td = device(sizeof th, th);
    aclTensor *gt = tensor(2, tshape, tstrides, 0, ACL_FLOAT, ROWS * H, td);
    aclDestroyTensor(o);
    o = tensor(2, os, NULL, 0, ACL_FLOAT, T * H, od);
    CHECK(run_grad(gt, i, K, o) == 0);
    float out[T * H];
    aclrtMemcpy(out, sizeof out, od, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK(out[0] == (float)(0 + 400) && out[H + 1] == (float)(101) && out[3 * H + 5] == (float)(305 + 305 + 205));
    /* errors */
    uint64_t ws;
    aclOpExecutor *ex;
    CHECK(aclnnMoeTokenPermuteGradGetWorkspaceSize(NULL, i, K, false, o, &ws, &ex) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclnnMoeTokenPermuteGradGetWorkspaceSize(g, i, K, true, o, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclnnMoeTokenPermuteGradGetWorkspaceSize(g, i, 5, false, o, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclnnMoeTokenPermuteGradGetWorkspaceSize(g, i, 2, false, o, &ws, &ex) == ACLNN_ERR_INNER_TILING_ERROR);
    CHECK(strstr(aclGetRecentErrMsg(), "out") != NULL);
    aclDestroyTensor(gt);
    aclDestroyTensor(g);
    aclDestroyTensor(i);
    aclDestroyTensor(o);
    aclrtFree(td);
    aclrtFree(gd);
    aclrtFree(id);
    aclrtFree(od);
}

static void test_permute(void)
{
    enum { T = 6, K = 2, H = 37, N = T * K };
    int64_t ids[N] = {INT64_MAX, -5, 0, INT64_MIN, 3, 3, -5, 0, INT64_MAX, 1, 2, 2};
    float tokens[H * T]; /* transposed storage: element (t, c) at c * T + t */
    for (int t = 0; t < T; ++t) {
        for (int c = 0; c < H; ++c) {
            tokens[c * T + t] = (float)(t * 1000 + c);
        }
    }
    /* the stable ascending order, by insertion sort */
    int order[N];
    for (int j = 0; j < N; ++j) {
        int at = j;
        while (at > 0 && ids[order[at - 1]] > ids[j]) {
            order[at] = order[at - 1];
            --at;
        }
        order[at] = j;
    }
    void *td = device(sizeof tokens, tokens), *id = device(sizeof ids, ids);
    enum { KEPT = N - 4 };
    float *pd = device(KEPT * H * sizeof(float), NULL);
    int32_t *sd = device(2 * N * sizeof(int32_t), NULL);
    int64_t tshape[2] = {T, H}, tstr[2] = {1, T}, ishape[2] = {T, K}, pshape[2] = {KEPT, H}, sshape[1] = {N};
    int64_t sstr[1] = {2};
    aclTensor *tt = tensor(2, tshape, tstr, 0, ACL_FLOAT, T * H, td);
    aclTensor *it = tensor(2, ishape, NULL, 0, ACL_INT64, N, id);
    aclTensor *pt = tensor(2, pshape, NULL, 0, ACL_FLOAT, KEPT * H, pd);
    aclTensor *st = tensor(1, sshape, sstr, 0, ACL_INT32, 2 * N, sd);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnMoeTokenPermuteGetWorkspaceSize(tt, it, -4, false, pt, st, &ws, &ex) == 0);
    void *work = ws ? device(ws, NULL) : NULL;
    CHECK(aclnnMoeTokenPermute(work, ws, ex, NULL) == 0);
    float perm[KEPT * H];
    int32_t sorted[2 * N];
    aclrtMemcpy(perm, sizeof perm, pd, sizeof perm, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(sorted, sizeof sorted, sd, sizeof sorted, ACL_MEMCPY_DEVICE_TO_HOST);
    int ok = 1;
    for (int j = 0; j < N; ++j) {
        ok &= sorted[2 * order[j]] == j;
    }
    CHECK(ok);
    ok = 1;
    for (int j = 0; j < KEPT; ++j) {
        for (int c = 0; c < H; ++c) {
            ok &= perm[j * H + c] == (float)((order[j] / K) * 1000 + c);
        }
    }
    CHECK(ok);
    /* errors: padded mode, topK over 512 is the device's tiling limit */
    CHECK(aclnnMoeTokenPermuteGetWorkspaceSize(tt, it, -4, true, pt, st, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclnnMoeTokenPermuteGetWorkspaceSize(tt, it, 0, false, pt, st, &ws, &ex) == ACLNN_ERR_INNER_TILING_ERROR);
    CHECK(strstr(aclGetRecentErrMsg(), "permuteTokensOut") != NULL);
    CHECK(aclnnMoeTokenPermuteGetWorkspaceSize(tt, NULL, 0, false, pt, st, &ws, &ex) == ACLNN_ERR_PARAM_NULLPTR);
    if (work) {
        aclrtFree(work);
    }
    aclDestroyTensor(tt);
    aclDestroyTensor(it);
    aclDestroyTensor(pt);
    aclDestroyTensor(st);
    aclrtFree(td);
    aclrtFree(id);
    aclrtFree(pd);
    aclrtFree(sd);
}

static void test_empty(void)
{
    void *d = device(64, NULL);
    int64_t g0[2] = {0, 3}, i0[1] = {0}, o0[2] = {0, 3};
    aclTensor *g = tensor(2, g0, NULL, 0, ACL_BF16, 0, NULL);
    aclTensor *i = tensor(1, i0, NULL, 0, ACL_INT32, 0, NULL);
    aclTensor *o = tensor(2, o0, NULL, 0, ACL_BF16, 0, NULL);
    CHECK(run_grad(g, i, 4, o) == 0);
    aclDestroyTensor(g);
    aclDestroyTensor(i);
    aclDestroyTensor(o);
    int64_t t0[2] = {0, 5}, x0[2] = {0, 2}, p0[2] = {0, 5}, s0[1] = {0};
    aclTensor *tt = tensor(2, t0, NULL, 0, ACL_FLOAT16, 0, NULL);
    aclTensor *it = tensor(2, x0, NULL, 0, ACL_INT32, 0, NULL);
    aclTensor *pt = tensor(2, p0, NULL, 0, ACL_FLOAT16, 0, NULL);
    aclTensor *st = tensor(1, s0, NULL, 0, ACL_INT32, 0, d);
    uint64_t ws = 1;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnMoeTokenPermuteGetWorkspaceSize(tt, it, 0, false, pt, st, &ws, &ex) == 0 && ws == 0);
    CHECK(aclnnMoeTokenPermute(NULL, 0, ex, NULL) == 0);
    aclDestroyTensor(tt);
    aclDestroyTensor(it);
    aclDestroyTensor(pt);
    aclDestroyTensor(st);

    /* Empty views whose other dimensions multiply past INT64_MAX (UBSan in
     * CI; found by an extended test_fuzz campaign): a sortedIndices of the
     * wrong rank, and rows no memory could hold. */
    int64_t gh[2] = {4, 8}, ih[3] = {INT64_MAX, 2, 0}, oh[2] = {2, 8};
    aclTensor *gg = tensor(2, gh, NULL, 0, ACL_FLOAT, 32, d);
    aclTensor *ii = tensor(3, ih, NULL, 0, ACL_INT32, 0, d);
    aclTensor *oo = tensor(2, oh, NULL, 0, ACL_FLOAT, 16, d);
    CHECK(run_grad(gg, ii, 2, oo) == ACLNN_ERR_INNER_TILING_ERROR);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "sortedIndices") != NULL);
    aclDestroyTensor(gg);
    aclDestroyTensor(ii);
    aclDestroyTensor(oo);
    int64_t th[3] = {0, INT64_MAX, 4}, xh[1] = {0};
    tt = tensor(3, th, NULL, 0, ACL_FLOAT, 0, NULL);
    it = tensor(1, xh, NULL, 0, ACL_INT32, 0, NULL);
    pt = tensor(3, th, NULL, 0, ACL_FLOAT, 0, NULL);
    st = tensor(1, xh, NULL, 0, ACL_INT32, 0, NULL);
    CHECK(aclnnMoeTokenPermuteGetWorkspaceSize(tt, it, 0, false, pt, st, &ws, &ex) == ACLNN_ERR_INNER_TILING_ERROR);
    msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "tokens") != NULL);
    aclDestroyTensor(tt);
    aclDestroyTensor(it);
    aclDestroyTensor(pt);
    aclDestroyTensor(st);
    aclrtFree(d);
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        return 2;
    }
    test_grad_skips_and_overlap();
    test_permute();
    test_empty();
    aclrtResetDevice(0);
    aclFinalize();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
