/* The element-wise kernels built for the avx512 level (see instances.h). */
#define EMU_EW_ISA avx512
#include "kernels/ew/instances.h"
