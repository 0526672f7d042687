/* The sum kernels built for the avx2 level (see algo.h). */
#define EMU_REDUCE_ISA avx2
#include "kernels/reduce/algo.h"
