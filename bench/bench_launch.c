/* The cost of launching, and of the launch-time device-memory check.
 *
 * A repeatable aclnnSiluBackward executor on three 8-element fp32 tensors
 * (3 views + no workspace: a "few-tensor operator") is launched again and
 * again on the default stream, alternating batches:
 *   - checked:   the normal path; phase 2 checks every view's full extent
 *                against the live device blocks;
 *   - unchecked: the same with aclnnEmuSetHostMemoryAllowed(1) on this
 *                thread, which skips exactly that check.
 * The median difference per launch is the check's cost. It is measured with
 * 16 and with 10,000 other live device blocks (the lookup is a binary
 * search). Finally the cost of queueing a launch on a created stream (host
 * side: return of phase 2), with a synchronize per batch.
 *
 *   bench_launch [--launches N] [--batches B]
 *
 * Speed is reported, never asserted.
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_silu_backward.h"

enum { ELEMENTS = 8, MAX_BATCHES = 101, EXTRA_BLOCKS = 10000 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return values[count / 2];
}

static aclTensor *vector_tensor(void *data)
{
    int64_t shape[1] = {ELEMENTS};
    int64_t strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

/* ns per launch of `launches` phase-2 calls. */
static double time_batch(aclOpExecutor *executor, aclrtStream stream, int launches, int allow_host)
{
    aclnnEmuSetHostMemoryAllowed(allow_host);
    double start = now_ns();
    for (int i = 0; i < launches; ++i) {
        if (aclnnSiluBackward(NULL, 0, executor, stream) != 0) {
            fprintf(stderr, "launch failed: %s\n", aclGetRecentErrMsg());
            exit(1);
        }
    }
    if (stream != NULL) {
        aclrtSynchronizeStream(stream);
    }
    double elapsed = now_ns() - start;
    aclnnEmuSetHostMemoryAllowed(0);
    return elapsed / launches;
}

static void measure(aclOpExecutor *executor, int launches, int batches, const char *label)
{
    double checked[MAX_BATCHES], unchecked[MAX_BATCHES], difference[MAX_BATCHES];
    for (int b = 0; b < batches; ++b) {
        checked[b] = time_batch(executor, NULL, launches, 0);
        unchecked[b] = time_batch(executor, NULL, launches, 1);
        difference[b] = checked[b] - unchecked[b];
    }
    double d = median(difference, batches);
    printf("%-28s launch %7.1f ns checked, %7.1f ns unchecked; check %6.1f ns per launch\n", label,
           median(checked, batches), median(unchecked, batches), d);
}

int main(int argc, char **argv)
{
    int launches = 20000, batches = 21;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--launches") == 0) {
            launches = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--batches") == 0) {
            batches = atoi(argv[i + 1]);
        }
    }
    if (launches < 1 || batches < 1 || batches > MAX_BATCHES) {
        fprintf(stderr, "usage: bench_launch [--launches N>0] [--batches 1..%d]\n", MAX_BATCHES);
        return 2;
    }
    aclInit(NULL);
    aclrtSetDevice(0);
    aclnnEmuSetNumThreads(1); /* 8 elements: one chunk anyway */

    void *blocks[3];
    aclTensor *tensors[3];
    for (int i = 0; i < 3; ++i) {
        if (aclrtMalloc(&blocks[i], ELEMENTS * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY) != 0) {
            return 1;
        }
        aclrtMemset(blocks[i], ELEMENTS * sizeof(float), 0, ELEMENTS * sizeof(float));
        tensors[i] = vector_tensor(blocks[i]);
    }
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    if (aclnnSiluBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], &workspace_size, &executor) != 0 ||
        workspace_size != 0 || aclSetAclOpExecutorRepeatable(executor) != 0) {
        fprintf(stderr, "phase 1 failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    printf("aclnnSiluBackward, 3 fp32 tensors of %d elements, %d launches x %d batches (medians)\n", ELEMENTS,
           launches, batches);
    measure(executor, launches, batches, "16 live blocks:");

    void **extra = malloc(EXTRA_BLOCKS * sizeof *extra);
    for (int i = 0; extra != NULL && i < EXTRA_BLOCKS; ++i) {
        aclrtMalloc(&extra[i], 64, ACL_MEM_MALLOC_NORMAL_ONLY);
    }
    measure(executor, launches, batches, "10,016 live blocks:");
    for (int i = 0; extra != NULL && i < EXTRA_BLOCKS; ++i) {
        aclrtFree(extra[i]);
    }
    free(extra);

    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);
    double queued[MAX_BATCHES];
    for (int b = 0; b < batches; ++b) {
        queued[b] = time_batch(executor, stream, launches, 0);
    }
    printf("%-28s %7.1f ns per launch (queue + worker + synchronize per batch)\n", "created stream:",
           median(queued, batches));
    /* The pattern of the CANN samples: launch, then synchronize at once. */
    for (int b = 0; b < batches; ++b) {
        queued[b] = time_batch(executor, stream, 1, 0);
    }
    printf("%-28s %7.1f ns per launch (queue + synchronize after every launch)\n", "created stream, sync each:",
           median(queued, batches));
    aclrtDestroyStream(stream);

    aclDestroyAclOpExecutor(executor);
    for (int i = 0; i < 3; ++i) {
        aclDestroyTensor(tensors[i]);
        aclrtFree(blocks[i]);
    }
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
