// The one C++ translation unit: arrays the caller may delete[].
#include <new>

#include "aclnn_emu/aclnn_emu.h"
#include "meta/shape_array.h"

extern "C" int64_t *emu_new_int64_array(size_t count)
{
    return new (std::nothrow) int64_t[count];
}

extern "C" void aclnnEmuFreeArray(int64_t *array)
{
    delete[] array;
}
