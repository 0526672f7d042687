/* The sum kernels built for the scalar level (see algo.h). */
#define EMU_REDUCE_ISA scalar
#include "kernels/reduce/algo.h"
