/* Per-thread error message store behind aclGetRecentErrMsg(). Two buffers:
 * `pending` collects the newest message; reading moves it to `returned`, so
 * the pointer handed out stays valid until the next read on the thread. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/emu.h"

enum { EMU_MSG_CAPACITY = 1024 };

static _Thread_local char pending[EMU_MSG_CAPACITY];
static _Thread_local char returned[EMU_MSG_CAPACITY];
static _Thread_local bool has_pending;

static void store(const char *fmt, va_list args)
{
    vsnprintf(pending, sizeof pending, fmt, args);
    has_pending = true;
}

void emu_set_message(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    store(fmt, args);
    va_end(args);
}

int emu_fail(int code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    store(fmt, args);
    va_end(args);
    return code;
}

const char *aclGetRecentErrMsg(void)
{
    if (!has_pending) {
        return NULL;
    }
    memcpy(returned, pending, sizeof returned);
    has_pending = false;
    pending[0] = '\0';
    return returned;
}
