/* Declarations as in hicann/ops-math math/triangular_solve/op_host/op_api/aclnn_triangular_solve.h @ c41933244c31. */
/**
 * @file aclnnop/aclnn_triangular_solve.h
 * @brief aclnnTriangularSolve: xOut solves A @ xOut = self for triangular A, mOut = a copy of A.
 *
 * Where aclnn_emu does not implement one of these APIs, it returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003) with the message
 * "aclnnXxx is declared but not implemented by aclnn_emu."
 */
#ifndef ACLNNOP_ACLNN_TRIANGULAR_SOLVE_H_
#define ACLNNOP_ACLNN_TRIANGULAR_SOLVE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnTriangularSolve: checks the arguments and plans xOut solves A @ xOut = self for triangular A,
 * mOut = a copy of A.
 * @param workspaceSize out: bytes of device workspace phase 2 needs.
 * @param executor out: the plan, consumed by aclnnTriangularSolve.
 */
ACLNN_API aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self, const aclTensor *A, bool upper,
                                                           bool transpose, bool unitriangular, aclTensor *xOut,
                                                           aclTensor *mOut, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

/** Phase 2 of aclnnTriangularSolve: runs the plan on @p stream (NULL: the default stream). */
ACLNN_API aclnnStatus aclnnTriangularSolve(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TRIANGULAR_SOLVE_H_ */
