/* The table of per-thread call marks (component_call.h). */
#include "core/component_call.h"

#include <pthread.h>

enum { CALL_SLOTS = 256 };

static component_call_slot slots[CALL_SLOTS];
/* A thread that finds every slot taken keeps its marks here: they still
 * name its own crash, only other threads cannot see them. */
static _Thread_local component_call_slot private_slot;
_Thread_local component_call_slot *component_call_mine;

static pthread_key_t release_key;
static pthread_once_t release_once = PTHREAD_ONCE_INIT;
static int release_key_ok;

/* At the thread's exit (before its thread-local storage goes): the slot is
 * free again and shows no call. */
static void release(void *arg)
{
    component_call_slot *s = arg;
    atomic_store_explicit(&s->c, NULL, memory_order_relaxed);
    atomic_store_explicit(&s->call, RTCOSIM_CALL_NONE, memory_order_relaxed);
    atomic_store_explicit(&s->used, 0, memory_order_release);
}

static void make_key(void) { release_key_ok = pthread_key_create(&release_key, release) == 0; }

component_call_slot *component_call_claim(void)
{
    pthread_once(&release_once, make_key);
    component_call_slot *s = &private_slot;
    if (release_key_ok) {
        for (size_t i = 0; i < CALL_SLOTS; i++) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&slots[i].used, &expected, 1)) {
                if (pthread_setspecific(release_key, &slots[i]) == 0) {
                    s = &slots[i];
                } else {
                    atomic_store(&slots[i].used, 0);
                }
                break;
            }
        }
    }
    component_call_mine = s;
    return s;
}

const component_call_slot *component_call_slot_at(size_t i)
{
    return i < CALL_SLOTS ? &slots[i] : NULL;
}

component_call_mark component_call_enter(const rtcosim_component *c,
                                         rtcosim_component_call which)
{
    return component_call_enter_inline(c, which);
}

void component_call_leave(component_call_mark saved) { component_call_leave_inline(saved); }
