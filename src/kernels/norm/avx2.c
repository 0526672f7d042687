/* The row kernels built for the avx2 level (see algo.h). */
#define EMU_NORM_ISA avx2
#include "kernels/norm/algo.h"
