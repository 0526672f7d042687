/* An fp32 FMA throughput probe: the machine's compute peak, measured.
 *
 * Each thread runs a loop of independent vector fma chains (12 ymm or 24 zmm
 * chains on x86, 8 scalar fmaf chains elsewhere), enough to hide
 * the fma latency on every current core, with no loads or stores in the
 * loop. The widest vector ISA the CPU has (AVX-512F, else AVX2+FMA) is used,
 * chosen at run time; the file needs no ISA flags. Threads are plain
 * pthreads started per run, so the probe depends on nothing but libc.
 * Flops count 2 per fma lane.
 */
#ifndef ACLNN_EMU_BENCH_FMA_PROBE_H_
#define ACLNN_EMU_BENCH_FMA_PROBE_H_

#ifdef __cplusplus
extern "C" {
#endif

/* GFLOP/s (1e9 fp32 flops per second) of `threads` threads running the fma
 * loop at once for about `seconds` each; the best of `tries` runs. Negative
 * for bad arguments or when threads cannot be started. */
double fma_probe_gflops(int threads, double seconds, int tries);

/* The same on the calling thread alone, timed by its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID) rather than the wall clock, so time the thread
 * spends descheduled (other processes on a shared machine) does not count. */
double fma_probe_gflops_cpu(double seconds, int tries);

/* "avx512", "avx2" or "scalar": the code the probe runs on this CPU. */
const char *fma_probe_isa(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_EMU_BENCH_FMA_PROBE_H_ */
