// RotaryMulGrad (torch_npu.npu_rotary_mul backward) has no aclnn API of its
// own: torch_npu runs it as aclnnRotaryPositionEmbeddingGrad in half mode
// (mode 0), passing x only when the gradients of r1/r2 are needed
// (need_backward). This program runs the three typical cases of the
// RotaryMulGrad guide that way, both with and without dr1/dr2, and checks
// each result against a double-precision host reference:
//   dx  = r1*dy + rotate_half^T(r2*dy),  dr1 = sum(dy*x),  dr2 = sum(dy*rotate_half(x))
// over the broadcast axes of r1/r2. It prints the largest relative error
// and a checksum per output.
//   test_rotary_mul_grad [S divisor]   (default 1: the guide's full shapes;
//   the ctest divides the sequence axis by 16 to stay quick under sanitizers
//   and emulators)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_rotary_position_embedding_grad.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...)         \
    do {                                \
        printf(message, ##__VA_ARGS__); \
    } while (0)

struct Case {
    const char* name;
    std::vector<int64_t> xShape;
    std::vector<int64_t> rShape;
};

static int64_t GetShapeSize(const std::vector<int64_t>& shape)
{
    int64_t size = 1;
    for (auto d : shape) {
        size *= d;
    }
    return size;
}

static int CreateAclTensor(const std::vector<float>& host, const std::vector<int64_t>& shape, void** deviceAddr,
                           aclTensor** tensor)
{
    auto size = GetShapeSize(shape) * sizeof(float);
    auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, size, host.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    *tensor = aclCreateTensor(shape.data(), shape.size(), aclDataType::ACL_FLOAT, strides.data(), 0,
                              aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), *deviceAddr);
    return 0;
}

// Deterministic pseudo-random values in [-1, 1).
static void Fill(std::vector<float>& v, uint32_t seed)
{
    for (auto& e : v) {
        seed = seed * 1664525u + 1013904223u;
        e = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
    }
}

// Index of the r1/r2 element that x element i (row-major in xShape) reads.
static int64_t BroadcastIndex(int64_t i, const std::vector<int64_t>& xShape, const std::vector<int64_t>& rShape)
{
    int64_t index = 0, rStride = 1;
    for (int64_t axis = static_cast<int64_t>(xShape.size()) - 1; axis >= 0; axis--) {
        int64_t coord = i % xShape[axis];
        i /= xShape[axis];
        if (rShape[axis] != 1) {
            index += coord * rStride;
        }
        rStride *= rShape[axis];
    }
    return index;
}

struct Errors {
    double dx, dr1, dr2;
    double sumDx, sumDr1, sumDr2;
};

static void Reference(const Case& c, const std::vector<float>& x, const std::vector<float>& r1,
                      const std::vector<float>& r2, const std::vector<float>& dy, std::vector<double>& dx,
                      std::vector<double>& dr1, std::vector<double>& dr2)
{
    const int64_t n = GetShapeSize(c.xShape), d = c.xShape.back(), h = d / 2;
    dx.assign(n, 0.0);
    dr1.assign(GetShapeSize(c.rShape), 0.0);
    dr2.assign(GetShapeSize(c.rShape), 0.0);
    for (int64_t row = 0; row < n; row += d) {
        const int64_t rRow = BroadcastIndex(row, c.xShape, c.rShape);
        for (int64_t j = 0; j < d; j++) {
            const int64_t i = row + j, r = rRow + j, partner = j < h ? j + h : j - h;
            const double g = dy[i];
            // out[j] = r1[j]x[j] - r2[j]x[j+h] (j < h), out[j] = r1[j]x[j] + r2[j]x[j-h] (j >= h).
            const double cross = static_cast<double>(r2[rRow + partner]) * dy[row + partner];
            dx[i] = static_cast<double>(r1[r]) * g + (j < h ? cross : -cross);
            dr1[r] += g * x[i];
            dr2[r] += g * (j < h ? -static_cast<double>(x[row + partner]) : static_cast<double>(x[row + partner]));
        }
    }
}

static double MaxRelError(const std::vector<float>& got, const std::vector<double>& want, double* checksum)
{
    double scale = 0.0, worst = 0.0;
    *checksum = 0.0;
    for (double w : want) {
        scale = std::fmax(scale, std::fabs(w));
    }
    for (size_t i = 0; i < got.size(); i++) {
        worst = std::fmax(worst, std::fabs(got[i] - want[i]) / scale);
        *checksum += got[i];
    }
    return worst;
}

static int RunCase(const Case& c, bool needBackward, aclrtStream stream)
{
    const int64_t n = GetShapeSize(c.xShape), nr = GetShapeSize(c.rShape);
    std::vector<float> x(n), dy(n), r1(nr), r2(nr), zeros(n, 0.0f), rZeros(nr, 0.0f);
    Fill(x, 1);
    Fill(dy, 2);
    Fill(r1, 3);
    Fill(r2, 4);
    void *xAddr = nullptr, *dyAddr = nullptr, *r1Addr = nullptr, *r2Addr = nullptr;
    void *dxAddr = nullptr, *dr1Addr = nullptr, *dr2Addr = nullptr;
    aclTensor *xT = nullptr, *dyT = nullptr, *r1T = nullptr, *r2T = nullptr, *dxT = nullptr, *dr1T = nullptr,
              *dr2T = nullptr;
    int ret = CreateAclTensor(x, c.xShape, &xAddr, &xT);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(dy, c.xShape, &dyAddr, &dyT);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(r1, c.rShape, &r1Addr, &r1T);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(r2, c.rShape, &r2Addr, &r2T);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(zeros, c.xShape, &dxAddr, &dxT);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(rZeros, c.rShape, &dr1Addr, &dr1T);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(rZeros, c.rShape, &dr2Addr, &dr2T);
    CHECK_RET(ret == 0, return ret);

    // torch_npu: grad, r1, r2, x (only if need_backward), mode 0 ("half").
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    ret = aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(dyT, r1T, r2T, needBackward ? xT : nullptr, 0, dxT, dr1T,
                                                           dr2T, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnRotaryPositionEmbeddingGradGetWorkspaceSize failed. ERROR: %d %s\n", ret,
                        aclGetRecentErrMsg());
              return ret);
    void* workspace = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnRotaryPositionEmbeddingGrad(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRotaryPositionEmbeddingGrad failed. ERROR: %d\n", ret);
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<float> dx(n), dr1(nr), dr2(nr);
    aclrtMemcpy(dx.data(), n * sizeof(float), dxAddr, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(dr1.data(), nr * sizeof(float), dr1Addr, nr * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(dr2.data(), nr * sizeof(float), dr2Addr, nr * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    std::vector<double> wantDx, wantDr1, wantDr2;
    Reference(c, x, r1, r2, dy, wantDx, wantDr1, wantDr2);
    double sumDx = 0.0, sumDr1 = 0.0, sumDr2 = 0.0;
    double errDx = MaxRelError(dx, wantDx, &sumDx);
    LOG_PRINT("%s need_backward=%d: dx max rel error %.3e checksum %.6e\n", c.name, needBackward ? 1 : 0, errDx,
              sumDx);
    bool ok = errDx < 1e-6;
    if (needBackward) {
        double errDr1 = MaxRelError(dr1, wantDr1, &sumDr1);
        double errDr2 = MaxRelError(dr2, wantDr2, &sumDr2);
        LOG_PRINT("%s need_backward=1: dr1 max rel error %.3e checksum %.6e\n", c.name, errDr1, sumDr1);
        LOG_PRINT("%s need_backward=1: dr2 max rel error %.3e checksum %.6e\n", c.name, errDr2, sumDr2);
        ok = ok && errDr1 < 1e-5 && errDr2 < 1e-5;
    } else {
        // Without x the gradients of r1/r2 are not computed: their buffers keep their zeros.
        for (int64_t i = 0; i < nr; i++) {
            ok = ok && dr1[i] == 0.0f && dr2[i] == 0.0f;
        }
    }
    LOG_PRINT("%s need_backward=%d: %s\n", c.name, needBackward ? 1 : 0, ok ? "PASS" : "FAIL");

    aclDestroyTensor(xT);
    aclDestroyTensor(dyT);
    aclDestroyTensor(r1T);
    aclDestroyTensor(r2T);
    aclDestroyTensor(dxT);
    aclDestroyTensor(dr1T);
    aclDestroyTensor(dr2T);
    for (void* p : {xAddr, dyAddr, r1Addr, r2Addr, dxAddr, dr1Addr, dr2Addr, workspace}) {
        if (p != nullptr) {
            aclrtFree(p);
        }
    }
    return ok ? 0 : 1;
}

int main(int argc, char** argv)
{
    const int64_t divisor = argc > 1 ? std::atoll(argv[1]) : 1;
    if (divisor < 1 || 2048 % divisor != 0) {
        LOG_PRINT("usage: %s [S divisor, a divisor of 2048]\n", argv[0]);
        return 2;
    }
    // 1. device/stream initialisation
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
    ret = aclrtCreateStream(&stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);

    // 2. the typical cases of the RotaryMulGrad guide (x and dy, r1 and r2)
    const int64_t s8k = 8192 / divisor, s2k = 2048 / divisor;
    const Case cases[] = {
        {"case1", {2, s8k, 5, 128}, {1, s8k, 1, 128}},
        {"case2", {s8k, 2, 5, 128}, {s8k, 1, 1, 128}},
        {"case3", {s2k, 4, 32, 64}, {s2k, 4, 1, 64}},
    };
    int failures = 0;
    for (const Case& c : cases) {
        for (bool needBackward : {true, false}) {
            failures += RunCase(c, needBackward, stream) != 0;
        }
    }
    LOG_PRINT("RotaryMulGrad cases failed: %d\n", failures);

    // 3. release
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return failures;
}
