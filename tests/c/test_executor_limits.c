/* EMU_MAX_OP_TENSORS: an executor has that many tensor slots, and
 * emu_executor_create refuses an operator with more inputs and outputs
 * (NULL and a message naming the phase-1 API and the counts) instead of
 * letting emu_executor_bind write past the table. No operator binds more
 * than 15 tensors today (FusedFloydAttentionGrad), so no public call can
 * reach the limit: this program is linked with the runtime, meta and common
 * sources themselves (tests/c/CMakeLists.txt) and calls the internal
 * functions. Without the check in emu_executor_create the 17-slot create
 * succeeds and the checks below fail (and binding slot 16 writes past the
 * table, which ASan reports). Prints "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "meta/executor.h"

static int passed, failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            ++passed;                                                                \
        } else {                                                                     \
            ++failed;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

int main(void)
{
    /* Exactly full: accepted, every slot bindable. */
    aclOpExecutor *full = emu_executor_create("aclnnTestGetWorkspaceSize", "aclnnTest", 10, EMU_MAX_OP_TENSORS - 10);
    CHECK(full != NULL);
    if (full != NULL) {
        int64_t shape[1] = {0};
        aclTensor *t = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, NULL);
        for (int i = 0; i < EMU_MAX_OP_TENSORS; ++i) {
            emu_executor_bind(full, i, t);
        }
        emu_executor_bind(full, EMU_MAX_OP_TENSORS, t); /* out of range: ignored */
        CHECK(full->present[EMU_MAX_OP_TENSORS - 1]);
        aclDestroyTensor(t);
        emu_executor_discard(full);
    }
    /* One more than the slots: refused, with a message naming the counts. */
    aclOpExecutor *over = emu_executor_create("aclnnTestGetWorkspaceSize", "aclnnTest", 10, EMU_MAX_OP_TENSORS - 9);
    CHECK(over == NULL);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "aclnnTestGetWorkspaceSize") != NULL && strstr(msg, "10 inputs and 7 outputs") &&
          strstr(msg, "16 tensor slots") != NULL);
    if (over != NULL) {
        int64_t shape[1] = {0};
        aclTensor *t = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, NULL);
        emu_executor_bind(over, EMU_MAX_OP_TENSORS, t); /* past the table without the check */
        aclDestroyTensor(t);
        emu_executor_discard(over);
    }
    /* Negative counts are refused too. */
    CHECK(emu_executor_create("aclnnTestGetWorkspaceSize", "aclnnTest", -1, 1) == NULL);
    (void)aclGetRecentErrMsg();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
