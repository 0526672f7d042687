/* The element-wise kernels built for the avx2 level (see instances.h). */
#define EMU_EW_ISA avx2
#include "kernels/ew/instances.h"
