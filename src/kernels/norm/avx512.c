/* The row kernels built for the avx512 level (see algo.h). */
#define EMU_NORM_ISA avx512
#include "kernels/norm/algo.h"
