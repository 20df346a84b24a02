/* The component call in progress on each thread, for the messages of a
 * fatal signal, a watchdog or a stop that a call does not return from.
 * Every lifecycle wrapper marks the call it makes; so does a layer that
 * calls its implementation on a path of its own (the model-exchange FMU
 * state files, fmi/me_state.c), so that a crash inside is reported in that
 * call. Each thread's marks live in a process-wide table of slots (claimed
 * on a thread's first call, given back when it exits), so that a handler
 * running on one thread can name the call another thread is stuck in: the
 * grace after SIGTERM fires on the main thread while a worker thread of
 * --threads or --speculate hangs in an FMU. Internal header. */
#ifndef RTCOSIM_CORE_COMPONENT_CALL_H
#define RTCOSIM_CORE_COMPONENT_CALL_H

#include <stdatomic.h>

#include "rtcosim/component.h"

typedef struct component_call_mark {
    const rtcosim_component *c;
    rtcosim_component_call call;
} component_call_mark;

/* One thread's innermost call; written by its thread only, read by any
 * (two relaxed loads: a reader racing a change may pair a component with
 * the call it made just before, which only a message shows). */
typedef struct component_call_slot {
    _Atomic(const rtcosim_component *) c;
    _Atomic int call;
    atomic_int used;
} component_call_slot;

extern _Thread_local component_call_slot *component_call_mine
    __attribute__((visibility("hidden")));
component_call_slot *component_call_claim(void) __attribute__((visibility("hidden")));

/* Marks `which` of c as the call in progress on this thread; returns the
 * mark it replaced, for component_call_leave. A thread's first mark claims
 * its slot; the path after is two loads and two stores. */
static inline component_call_mark component_call_enter_inline(const rtcosim_component *c,
                                                       rtcosim_component_call which)
{
    component_call_slot *s = component_call_mine;
    if (__builtin_expect(s == NULL, 0))
        s = component_call_claim();
    component_call_mark saved = {
        atomic_load_explicit(&s->c, memory_order_relaxed),
        (rtcosim_component_call)atomic_load_explicit(&s->call, memory_order_relaxed)};
    atomic_store_explicit(&s->call, (int)which, memory_order_relaxed);
    atomic_store_explicit(&s->c, c, memory_order_relaxed);
    return saved;
}

static inline void component_call_leave_inline(component_call_mark saved)
{
    component_call_slot *s = component_call_mine; /* claimed by the enter */
    atomic_store_explicit(&s->c, saved.c, memory_order_relaxed);
    atomic_store_explicit(&s->call, (int)saved.call, memory_order_relaxed);
}

/* The same as functions, for layers and tests outside the lifecycle
 * wrappers (which use the inline forms). */
component_call_mark component_call_enter(const rtcosim_component *c,
                                         rtcosim_component_call which);
void component_call_leave(component_call_mark saved);

/* The call of a mark in the component's terms ("fmi2DoStep", "fmi3DoStep",
 * "do_step" for other kinds), and its instance name; false for no call. */
bool component_call_describe(const component_call_slot *s, const char **instance,
                             const char **call) __attribute__((visibility("hidden")));

/* Slot i of the table (every thread's marks), NULL past its end: for a
 * handler that looks for a call in progress anywhere. */
const component_call_slot *component_call_slot_at(size_t i) __attribute__((visibility("hidden")));

#endif
