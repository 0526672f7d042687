/* Arrays handed to callers by aclGetViewShape and friends. CANN allocates
 * them with C++ new[] and its users delete[] them, so ours come from new[]
 * too (shape_array.cpp); C callers free them with aclnnEmuFreeArray. */
#ifndef EMU_META_SHAPE_ARRAY_H_
#define EMU_META_SHAPE_ARRAY_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int64_t *emu_new_int64_array(size_t count); /* NULL when out of memory */

#ifdef __cplusplus
}
#endif

#endif /* EMU_META_SHAPE_ARRAY_H_ */
