/* The element-wise kernels built for the scalar level (see instances.h). */
#define EMU_EW_ISA scalar
#include "kernels/ew/instances.h"
