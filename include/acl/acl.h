/**
 * @file acl/acl.h
 * @brief AscendCL entry header: initialisation, error messages and the runtime.
 *
 * Include this (and the aclnnop/aclnn_<op>.h headers of the operators used)
 * and link ascendcl, nnopbase and opapi, as with CANN.
 */
#ifndef ACL_ACL_H_
#define ACL_ACL_H_

#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/**
 * Initialises AscendCL. Reference counted: each successful or repeated call
 * must be matched by aclFinalize.
 * @param configPath a JSON configuration file, or NULL. The emulator checks
 *        that a given file can be read and otherwise ignores its content.
 * @return ACL_SUCCESS; ACL_ERROR_REPEAT_INITIALIZE (100002) when already
 *         initialised (the reference count still goes up, as in CANN);
 *         ACL_ERROR_INVALID_FILE (100003) for a path that cannot be read.
 */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);

/**
 * Finalises AscendCL (drops the reference count to zero).
 * @return ACL_SUCCESS; ACL_ERROR_REPEAT_FINALIZE (100037) when not initialised.
 */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/**
 * Drops one reference taken by aclInit; when it reaches zero, finalises as
 * aclFinalize does (queued work finishes; ACLNN_EMU_REPORT_LEAKS=1 reports).
 * @param refCount out (may be NULL): the references left.
 * @return ACL_SUCCESS; ACL_ERROR_REPEAT_FINALIZE (100037) when not initialised.
 */
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);

/**
 * Reports the AscendCL version this emulation follows.
 * @return ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (100000) for NULL outputs.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);

/**
 * Takes the calling thread's most recent error message.
 * Every failing ACL and aclnn call leaves one sentence naming the API, the
 * argument, what was expected and what was given. Reading clears it.
 * @return the message, valid until the next call of this function on the
 *         same thread; NULL when there is none.
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_H_ */
