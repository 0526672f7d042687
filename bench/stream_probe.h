/* A STREAM-like memory bandwidth probe with its own pthreads.
 *
 * Three arrays of doubles, first touched by the threads that use them, on
 * 2 MiB-aligned memory with MADV_HUGEPAGE (as aclrtMalloc with a HUGE
 * policy), so the probe and the kernels it is compared with see the same
 * kind of pages. Bytes are counted the STREAM way (no write-allocate):
 *   copy   c[i] = a[i]            2 arrays
 *   triad  a[i] = b[i] + q*c[i]   3 arrays
 *   memcpy memcpy(c, a) by slice  2 arrays (glibc may use non-temporal
 *          stores here: an upper reference, not the target)
 *
 * The copy and triad loops must stay plain loops with ordinary stores:
 * build this file with -fno-tree-loop-distribute-patterns (GCC) or
 * -fno-builtin (Clang) so the compiler does not turn the copy into a
 * memcpy call. Depends on nothing but libc and pthreads, so the Python
 * benchmark can compile it with cffi.
 */
#ifndef ACLNN_EMU_BENCH_STREAM_PROBE_H_
#define ACLNN_EMU_BENCH_STREAM_PROBE_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stream_probe stream_probe;

enum { STREAM_PROBE_COPY = 0, STREAM_PROBE_TRIAD = 1, STREAM_PROBE_MEMCPY = 2 };

/* Allocates three arrays of bytes_per_array bytes each (rounded down to
 * whole 64-byte lines), starts max_threads - 1 helper threads and touches
 * the arrays in parallel. NULL when memory or threads run out. */
stream_probe *stream_probe_create(size_t bytes_per_array, int max_threads);

/* Runs one pass of `kind` on `threads` threads (1..max_threads; the
 * caller's thread is one of them) and returns the bandwidth in GB/s
 * (1e9 bytes/s) counted the STREAM way; a negative value for bad arguments. */
double stream_probe_run(stream_probe *probe, int kind, int threads);

/* Threads the probe can use: max_threads, or fewer when the system
 * refused to start them all. */
int stream_probe_max_threads(const stream_probe *probe);

/* Seconds the last stream_probe_run took. */
double stream_probe_last_seconds(const stream_probe *probe);

/* Bytes one pass of `kind` counts. */
double stream_probe_bytes(const stream_probe *probe, int kind);

/* "copy", "triad", "memcpy". */
const char *stream_probe_kind_name(int kind);

/* Stops the helper threads and frees the arrays. NULL is a no-op. */
void stream_probe_destroy(stream_probe *probe);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_EMU_BENCH_STREAM_PROBE_H_ */
