/* The row kernels built for the scalar level (see algo.h). */
#define EMU_NORM_ISA scalar
#include "kernels/norm/algo.h"
