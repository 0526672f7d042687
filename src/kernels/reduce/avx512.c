/* The sum kernels built for the avx512 level (see algo.h). */
#define EMU_REDUCE_ISA avx512
#include "kernels/reduce/algo.h"
