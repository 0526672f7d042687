/* Declarations as in hicann/ops-math conversion/trans_data/op_api/aclnn_trans_matmul_weight.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_trans_matmul_weight.h
 * @brief aclnnTransMatmulWeight: matmul weights rearranged for the matmul kernels.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_TRANS_MATMUL_WEIGHT_H_
#define ACLNNOP_ACLNN_TRANS_MATMUL_WEIGHT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Reports in @p weightTensorSize the number of elements a matmul weight of @p tensorShape and @p dataType takes
 * once aclnnTransMatmulWeight has padded it (not a phase: no executor).
 */
ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape, aclDataType dataType,
                                                       uint64_t *weightTensorSize);

/** As aclnnCalculateMatmulWeightSizeV2, for a FLOAT16 or BFLOAT16 weight (not a phase: no executor). */
ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape, uint64_t *weightTensorSize);

/**
 * Phase 1 of aclnnTransMatmulWeight: checks the arguments and plans mmWeightRef rearranged, in place, into the
 * layout the matmul kernels prefer.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnTransMatmulWeight.
 */
ACLNN_API aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(
    aclTensor *mmWeightRef, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of aclnnTransMatmulWeight: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnTransMatmulWeight(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TRANS_MATMUL_WEIGHT_H_ */
