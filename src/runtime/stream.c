/* Streams and events. Work launched on a stream runs synchronously, in
 * launch order, before the launching call returns; a stream is therefore
 * always complete, and an event completes when it is recorded. */
#include <stdlib.h>

#include "common/emu.h"

typedef struct {
    uint32_t priority;
    uint32_t flags;
} emu_stream;

typedef struct {
    uint32_t flags;
    bool recorded;
    double timestamp_ms;
} emu_event;

bool emu_stream_is_valid(aclrtStream stream)
{
    return stream == NULL || emu_handle_is(stream, EMU_HANDLE_STREAM);
}

void emu_stream_launch(aclrtStream stream, emu_stream_work_fn work, void *ctx)
{
    (void)stream;
    work(ctx);
}

static aclError bad_stream(const char *api, aclrtStream stream)
{
    return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is not a live stream; expected NULL (the default "
                                             "stream) or a stream from aclrtCreateStream.", api, stream);
}

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    if (stream == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is NULL; expected a pointer to "
                                                 "aclrtStream.");
    }
    emu_stream *created = calloc(1, sizeof *created);
    if (created == NULL || !emu_handle_add(created, EMU_HANDLE_STREAM)) {
        free(created);
        return emu_fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateStream: out of host memory.");
    }
    created->priority = priority;
    created->flags = flag;
    *stream = created;
    return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream)
{
    return aclrtCreateStreamWithConfig(stream, 0, 0);
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    if (stream == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream is NULL; expected a stream from "
                                                 "aclrtCreateStream.");
    }
    if (!emu_handle_remove(stream, EMU_HANDLE_STREAM)) {
        return bad_stream("aclrtDestroyStream", stream);
    }
    free(stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return emu_stream_is_valid(stream) ? ACL_SUCCESS : bad_stream("aclrtSynchronizeStream", stream);
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    if (timeout < -1) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStreamWithTimeout: timeout is %d; expected -1 "
                                                 "(wait forever) or a number of milliseconds >= 0.", (int)timeout);
    }
    return emu_stream_is_valid(stream) ? ACL_SUCCESS : bad_stream("aclrtSynchronizeStreamWithTimeout", stream);
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    if (status == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is NULL; expected a pointer to "
                                                 "aclrtStreamStatus.");
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtStreamQuery", stream);
    }
    *status = ACL_STREAM_STATUS_COMPLETE;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void)
{
    return ACL_SUCCESS;
}

static aclError bad_event(const char *api, const char *name, aclrtEvent event)
{
    return emu_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p is %s; expected an event from aclrtCreateEvent.", api, name,
                    event, event == NULL ? "NULL" : "not a live event");
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    if (event == NULL || !emu_handle_is(event, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtStreamWaitEvent", "event", event);
    }
    return emu_stream_is_valid(stream) ? ACL_SUCCESS : bad_stream("aclrtStreamWaitEvent", stream);
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    if (event == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is NULL; expected a pointer to "
                                                 "aclrtEvent.");
    }
    emu_event *created = calloc(1, sizeof *created);
    if (created == NULL || !emu_handle_add(created, EMU_HANDLE_EVENT)) {
        free(created);
        return emu_fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateEvent: out of host memory.");
    }
    created->flags = flag;
    *event = created;
    return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
    return aclrtCreateEventWithFlag(event, ACL_EVENT_SYNC);
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return aclrtCreateEventWithFlag(event, flag);
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    if (event == NULL || !emu_handle_is(event, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtRecordEvent", "event", event);
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtRecordEvent", stream);
    }
    emu_event *marker = event;
    marker->recorded = true;
    marker->timestamp_ms = emu_now_ms();
    return ACL_SUCCESS;
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    if (event == NULL || !emu_handle_is(event, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtResetEvent", "event", event);
    }
    if (!emu_stream_is_valid(stream)) {
        return bad_stream("aclrtResetEvent", stream);
    }
    ((emu_event *)event)->recorded = false;
    return ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    if (status == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is NULL; expected a pointer to "
                                                 "aclrtEventRecordedStatus.");
    }
    if (event == NULL || !emu_handle_is(event, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtQueryEventStatus", "event", event);
    }
    *status = ((emu_event *)event)->recorded ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                             : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    if (event == NULL || !emu_handle_is(event, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtSynchronizeEvent", "event", event);
    }
    return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    if (ms == NULL) {
        return emu_fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is NULL; expected a pointer to float.");
    }
    if (startEvent == NULL || !emu_handle_is(startEvent, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtEventElapsedTime", "startEvent", startEvent);
    }
    if (endEvent == NULL || !emu_handle_is(endEvent, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtEventElapsedTime", "endEvent", endEvent);
    }
    const emu_event *start = startEvent;
    const emu_event *end = endEvent;
    if (!start->recorded || !end->recorded) {
        return emu_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "aclrtEventElapsedTime: %s was not recorded; "
                                                              "expected both events recorded with aclrtRecordEvent.",
                        !start->recorded ? "startEvent" : "endEvent");
    }
    *ms = (float)(end->timestamp_ms - start->timestamp_ms);
    return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event)
{
    if (event == NULL || !emu_handle_remove(event, EMU_HANDLE_EVENT)) {
        return bad_event("aclrtDestroyEvent", "event", event);
    }
    free(event);
    return ACL_SUCCESS;
}
