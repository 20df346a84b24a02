/* The component call in progress, for a layer that calls its implementation
 * on a path of its own rather than through the lifecycle wrappers (the
 * model-exchange FMU state files, fmi/me_state.c): a crash inside is then
 * reported in that call, as through rtcosim_component_set_state. Internal
 * header. */
#ifndef RTCOSIM_CORE_COMPONENT_CALL_H
#define RTCOSIM_CORE_COMPONENT_CALL_H

#include "rtcosim/component.h"

typedef struct component_call_mark {
    const rtcosim_component *c;
    rtcosim_component_call call;
} component_call_mark;

/* Marks `which` of c as the call in progress on this thread; returns the
 * mark it replaced, for component_call_leave. */
component_call_mark component_call_enter(const rtcosim_component *c,
                                         rtcosim_component_call which);
void component_call_leave(component_call_mark saved);

#endif
