// aclnnMoeTokenPermute followed by aclnnMoeTokenPermuteGrad, in the style of
// the CANN samples: x [3,4] FLOAT with rows 0.1 / 0.2 / 0.3 and the expert
// ids {1,2,0,1,0,2} of the official forward example. The forward prints the
// permuted rows (0.2 0.3 0.1 0.2 0.1 0.3) and sortedIndicesOut
// (2 4 0 3 1 5); the backward, fed the permuted rows as gradient, sums each
// token's two copies back: 0.2, 0.4, 0.6.
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)
#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream* stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                            shape.data(), shape.size(), *deviceAddr);
  return 0;
}

template <typename T>
int ReadBack(std::vector<T>& host, void* deviceAddr) {
  auto ret = aclrtMemcpy(host.data(), host.size() * sizeof(T), deviceAddr, host.size() * sizeof(T),
                         ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
  return 0;
}

int main() {
  // 1. device/stream initialisation
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. inputs and outputs
  std::vector<int64_t> xShape = {3, 4};
  std::vector<int64_t> idxShape = {3, 2};
  std::vector<int64_t> permutedShape = {6, 4};
  std::vector<int64_t> sortedShape = {6};
  std::vector<float> xHostData = {0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3};
  std::vector<int32_t> indicesHostData = {1, 2, 0, 1, 0, 2};
  std::vector<float> permutedHostData(24, 0);
  std::vector<int32_t> sortedHostData(6, 0);
  std::vector<float> gradHostData(12, 0);
  void* xAddr = nullptr;
  void* indicesAddr = nullptr;
  void* permutedAddr = nullptr;
  void* sortedAddr = nullptr;
  void* gradAddr = nullptr;
  aclTensor* x = nullptr;
  aclTensor* indices = nullptr;
  aclTensor* permuted = nullptr;
  aclTensor* sorted = nullptr;
  aclTensor* grad = nullptr;
  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT, &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(indicesHostData, idxShape, &indicesAddr, aclDataType::ACL_INT32, &indices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(permutedHostData, permutedShape, &permutedAddr, aclDataType::ACL_FLOAT, &permuted);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(sortedHostData, sortedShape, &sortedAddr, aclDataType::ACL_INT32, &sorted);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradHostData, xShape, &gradAddr, aclDataType::ACL_FLOAT, &grad);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. forward: aclnnMoeTokenPermute (numOutTokens 0 keeps every row)
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor;
  ret = aclnnMoeTokenPermuteGetWorkspaceSize(x, indices, 0, false, permuted, sorted, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermuteGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnMoeTokenPermute(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermute failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }

  // 4. backward: aclnnMoeTokenPermuteGrad with the permuted rows as gradient
  uint64_t gradWorkspaceSize = 0;
  aclOpExecutor* gradExecutor;
  ret = aclnnMoeTokenPermuteGradGetWorkspaceSize(permuted, sorted, 2, false, grad, &gradWorkspaceSize,
                                                 &gradExecutor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermuteGradGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void* gradWorkspaceAddr = nullptr;
  if (gradWorkspaceSize > 0) {
    ret = aclrtMalloc(&gradWorkspaceAddr, gradWorkspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnMoeTokenPermuteGrad(gradWorkspaceAddr, gradWorkspaceSize, gradExecutor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermuteGrad failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. results
  ret = ReadBack(permutedHostData, permutedAddr);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = ReadBack(sortedHostData, sortedAddr);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = ReadBack(gradHostData, gradAddr);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  for (int64_t i = 0; i < 6; i++) {
    LOG_PRINT("permuteTokensOut row %ld is: %f\n", i, permutedHostData[i * 4]);
  }
  for (int64_t i = 0; i < 6; i++) {
    LOG_PRINT("sortedIndicesOut[%ld] is: %d\n", i, sortedHostData[i]);
  }
  for (int64_t i = 0; i < 3; i++) {
    LOG_PRINT("tokens grad row %ld is: %f\n", i, gradHostData[i * 4]);
  }

  // 6. release tensors and device memory
  aclDestroyTensor(x);
  aclDestroyTensor(indices);
  aclDestroyTensor(permuted);
  aclDestroyTensor(sorted);
  aclDestroyTensor(grad);
  aclrtFree(xAddr);
  aclrtFree(indicesAddr);
  aclrtFree(permutedAddr);
  aclrtFree(sortedAddr);
  aclrtFree(gradAddr);
  if (gradWorkspaceSize > 0) {
    aclrtFree(gradWorkspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
