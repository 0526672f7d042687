/* Parallel loops over fixed-size chunks.
 *
 * [0, n) is cut into chunks of `grain` items at fixed boundaries that do
 * not depend on the thread count; threads claim whole chunks. A kernel that
 * writes each output from its own chunk alone is therefore bit-identical
 * for every thread count. */
#ifndef EMU_COMMON_PARALLEL_H_
#define EMU_COMMON_PARALLEL_H_

#include <stddef.h>

typedef void (*emu_range_fn)(void *ctx, size_t begin, size_t end);

/* Runs fn(ctx, begin, end) over every chunk of [0, n), using up to
 * emu_num_threads() threads (the caller's included). Safe to call from
 * several threads at once (for example the workers of two streams): a caller
 * that finds the pool busy with another loop runs all its chunks itself, at
 * the same boundaries, so its results are the same bit for bit. */
void emu_parallel_for(size_t n, size_t grain, emu_range_fn fn, void *ctx);

#endif /* EMU_COMMON_PARALLEL_H_ */
