/* Start CPUs for a run's worker threads (thread_place.h says why). */
#include "util/thread_place.h"

void thread_place_plan(thread_place *p, unsigned threads, unsigned running)
{
    p->active = false;
    p->known = sched_getaffinity(0, sizeof p->all, &p->all) == 0;
    if (!p->known || threads < 2 || threads > sizeof p->cpu / sizeof p->cpu[0] ||
        (unsigned)CPU_COUNT(&p->all) < threads)
        return;
    /* the caller counts as running: more than the CPUs means other work is
     * there, and the kernel's own spreading is the better judge */
    if (running == 0 || running > (unsigned)CPU_COUNT(&p->all))
        return;
    int here = sched_getcpu();
    unsigned t = 1;
    for (int c = 0; c < CPU_SETSIZE && t < threads; c++)
        if (CPU_ISSET(c, &p->all) && c != here)
            p->cpu[t++] = c;
    p->cpu[0] = here;
    p->active = t == threads && here >= 0;
}

bool thread_place_attr(const thread_place *p, unsigned t, pthread_attr_t *attr)
{
    if (!p->active || t == 0)
        return false;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(p->cpu[t], &one);
    return pthread_attr_setaffinity_np(attr, sizeof one, &one) == 0;
}

void thread_place_release(const thread_place *p)
{
    if (p->active)
        pthread_setaffinity_np(pthread_self(), sizeof p->all, &p->all);
}

int thread_place_move_off(const thread_place *p, int here, const int *taken, unsigned n)
{
    if (!p->known)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (c == here || !CPU_ISSET(c, &p->all))
            continue;
        bool free = true;
        for (unsigned i = 0; i < n && free; i++)
            free = taken[i] != c;
        if (!free)
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0)
            return -1;
        pthread_setaffinity_np(pthread_self(), sizeof p->all, &p->all);
        return c;
    }
    return -1;
}
