/**
 * @file aclnn/aclnn_base.h
 * @brief The aclnn two-phase contract: executors, workspace and addresses.
 *
 * Every operator has two functions:
 *  - phase 1, `aclnnXxxGetWorkspaceSize(inputs..., outputs..., &workspaceSize, &executor)`,
 *    validates the arguments (NULL -> 161001, dtype/format -> 161002,
 *    shape -> 561002), plans the kernels and reports the workspace the plan
 *    needs (non-contiguous tensors are staged through it). aclnn_emu also
 *    refuses, with 161002, a non-empty tensor whose first element is not
 *    aligned to its element size (the device would fault);
 *  - phase 2, `aclnnXxx(workspace, workspaceSize, executor, stream)`, checks
 *    the executor and the workspace and runs the plan on the stream.
 *
 * An executor is single use: phase 2 consumes and releases it. An executor
 * made repeatable with aclSetAclOpExecutorRepeatable right after phase 1 can
 * run any number of times (with new addresses bound by aclSetInputTensorAddr
 * and aclSetOutputTensorAddr) and is released with aclDestroyAclOpExecutor.
 *
 * Phase 2 codes, common to all operators:
 *  - executor NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  - workspace NULL with workspaceSize > 0 -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  - workspaceSize below what phase 1 asked for -> ACLNN_ERR_PARAM_INVALID (161002);
 *  - an executor already consumed by an earlier phase 2 (undefined behaviour
 *    on CANN) -> ACLNN_ERR_PARAM_INVALID (161002);
 *  - aclnn_emu only (undefined behaviour on CANN), each 161002: a tensor
 *    view or the workspace outside live device memory; a workspace sharing
 *    bytes with a tensor view; an output that addresses rebound since phase
 *    1 made share bytes with an input or another output (operators other
 *    than the element-wise Silu pair, which may run in place).
 * After a phase-2 argument error the executor is left as it was, so the call
 * can be repeated with a correct workspace, or the executor released with
 * aclDestroyAclOpExecutor.
 */
#ifndef ACLNN_ACLNN_BASE_H_
#define ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Initialises the operator library. Optional: operators work without it.
 * @param configPath ignored (may be NULL).
 * @return ACLNN_SUCCESS.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);

/** Finalises the operator library. @return ACLNN_SUCCESS. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

/**
 * Makes @p executor repeatable. Call it right after phase 1, before phase 2.
 * @return ACLNN_SUCCESS; ACLNN_ERR_INNER_NULLPTR (561103) for NULL;
 *         ACLNN_ERR_INNER (561000) for a pointer that is not a live executor.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);

/**
 * Releases an executor. Meant for repeatable executors; a single-use
 * executor that will not be run may be released this way too. Launches of
 * the executor still queued on a stream run first: the call waits for them.
 * @return ACLNN_SUCCESS; ACLNN_ERR_INNER_NULLPTR (561103) for NULL;
 *         ACLNN_ERR_INNER (561000) for a pointer that is not a live executor.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

/**
 * Binds new device memory to input @p index of the operator (the order of
 * the phase-1 tensor arguments, optional inputs counted) before the next
 * phase 2. The view (shape, strides, offset, dtype) stays what phase 1 saw.
 * Launches of the executor still queued on a stream keep the addresses they
 * were launched with: the call waits for them to run first.
 * @param tensor the tensor given in phase 1 for that input, or NULL; when
 *        given, its address is updated too (as aclSetRawTensorAddr).
 * @param addr the new storage address.
 * @return ACLNN_SUCCESS; ACLNN_ERR_PARAM_NULLPTR (161001) for a NULL
 *         executor; ACLNN_ERR_PARAM_INVALID (161002) for an index out of
 *         range, an executor that is not live, or (aclnn_emu only) an
 *         address that puts the view's first element off its element
 *         alignment, or the view outside device memory.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                      void *addr);

/** As aclSetInputTensorAddr, for output @p index. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                       void *addr);

/** As aclSetInputTensorAddr with @p index counted over inputs then outputs. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                 void *addr);

/** Alias of aclSetInputTensorAddr (CANN exports both spellings). */
ACL_FUNC_VISIBILITY aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                      void *addr);
/** Alias of aclSetOutputTensorAddr. */
ACL_FUNC_VISIBILITY aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                       void *addr);
/** Alias of aclSetTensorAddr. */
ACL_FUNC_VISIBILITY aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                 void *addr);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_ACLNN_BASE_H_ */
