/* The parent side of --isolate: a component kind "isolated" whose every call
 * is a request on the shared-memory channel to the child hosting the FMU.
 * When the child is gone (crash, exit, abort, kill) the call fails with
 * RTCOSIM_EFATAL naming the component, the FMI call, the time and how the
 * child ended; the component is then dead and every later call fails. */
#include <errno.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "archive/archive.h"
#include "isolate/channel.h"
#include "util/spin_wait.h"
#include "rtcosim/isolate.h"
#include "rtcosim/log.h"

typedef struct isolated {
    rtcosim_component *inner; /* the parent's load: description only */
    channel *ch;
    int fd;
    pid_t pid;
    bool dead, fmi3;
    char name[256];
    char *temp_dir; /* the child's extraction parent: removed here, whatever its end */
    /* String ([0]) and Binary ([1]) values of the last get of that type: a
     * copy of the host's records, which the returned pointers point into
     * (valid until the next get of the type: a row's batches of both types
     * are taken before it is written); grown, never shrunk */
    unsigned char *records[2];
    size_t records_cap[2];
    /* model exchange: what the host's integrator calls back (channel.h) */
    rtcosim_me_event_observer observer;
    void *observer_context;
    rtcosim_me_input_source source;
    void *source_context;
} isolated;

/* The live hosts, for rtcosim_isolate_kill_all (async-signal-safe: atomics,
 * kill, waitpid). */
enum { MAX_HOSTS = 1024 };
static _Atomic pid_t live_hosts[MAX_HOSTS];
static atomic_uint host_count; /* for the spin policy */

static void register_host(pid_t pid)
{
    atomic_fetch_add(&host_count, 1);
    for (size_t i = 0; i < MAX_HOSTS; i++) {
        pid_t none = 0;
        if (atomic_compare_exchange_strong(&live_hosts[i], &none, pid))
            return;
    }
}

static void unregister_host(pid_t pid)
{
    atomic_fetch_sub(&host_count, 1);
    for (size_t i = 0; i < MAX_HOSTS; i++) {
        pid_t p = pid;
        if (atomic_compare_exchange_strong(&live_hosts[i], &p, 0))
            return;
    }
}

void rtcosim_isolate_kill_all(void)
{
    for (size_t i = 0; i < MAX_HOSTS; i++) {
        pid_t pid = atomic_exchange(&live_hosts[i], 0);
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
    }
}

/* How long a call may go unanswered (RTCOSIM_ISOLATE_DEFAULT_TIMEOUT_S by
 * default; 0: no limit) and the interrupt that ends every wait. */
static _Atomic int64_t call_timeout_ns = (int64_t)RTCOSIM_ISOLATE_DEFAULT_TIMEOUT_S * 1000000000;
static _Atomic int interrupted;
enum { QUIT_TIMEOUT_NS = 2000 * 1000 * 1000 };

void rtcosim_isolate_set_timeout(double seconds)
{
    atomic_store(&call_timeout_ns, seconds > 0 ? (int64_t)(seconds * 1e9) : 0);
}

void rtcosim_isolate_interrupt(void) { atomic_store(&interrupted, 1); }
void rtcosim_isolate_clear_interrupt(void) { atomic_store(&interrupted, 0); }

/* util/spin_wait's policy, as the event kernel and the master's pool use it:
 * spin only while a CPU is free for the spinner. The parent and every host
 * that spins between requests are runnable at once; with more of them than
 * CPUs everyone sleeps on the futex at once instead (and, per call, neither
 * side spins while the other last ran on its own CPU: channel.c). */
static bool spin_allowed(void)
{
    static unsigned cpus;
    if (!cpus)
        cpus = spin_wait_cpus();
    return atomic_load_explicit(&host_count, memory_order_relaxed) + 1 <= cpus;
}

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static const char *call_name(const isolated *iso, channel_op op)
{
    static const char *const names[][2] = {
        [OP_PING] = {"ping", "ping"},
        [OP_LOAD] = {"loading the FMU", "loading the FMU"},
        [OP_INSTANTIATE] = {"fmi2Instantiate", "fmi3InstantiateCoSimulation"},
        [OP_SETUP] = {"fmi2SetupExperiment", "fmi3EnterInitializationMode"},
        [OP_ENTER_INIT] = {"fmi2EnterInitializationMode", "fmi3EnterInitializationMode"},
        [OP_EXIT_INIT] = {"fmi2ExitInitializationMode", "fmi3ExitInitializationMode"},
        [OP_DO_STEP] = {"fmi2DoStep", "fmi3DoStep"},
        [OP_GET] = {"fmi2Get*", "fmi3Get*"},
        [OP_SET] = {"fmi2Set*", "fmi3Set*"},
        [OP_TERMINATE] = {"fmi2Terminate", "fmi3Terminate"},
        [OP_QUIT] = {"fmi2FreeInstance", "fmi3FreeInstance"},
        [OP_GET_STATE] = {"fmi2GetFMUstate", "fmi3GetFMUState"},
        [OP_SET_STATE] = {"fmi2SetFMUstate", "fmi3SetFMUState"},
        [OP_FREE_STATE] = {"fmi2FreeFMUstate", "fmi3FreeFMUState"},
        [OP_STATE_SIZE] = {"fmi2SerializedFMUstateSize", "fmi3SerializedFMUStateSize"},
        [OP_SERIALIZE] = {"fmi2SerializeFMUstate", "fmi3SerializeFMUState"},
        [OP_DESERIALIZE] = {"fmi2DeSerializeFMUstate", "fmi3DeserializeFMUState"},
        [OP_ME_GET_FMU_STATE] = {"fmi2SerializeFMUstate", "fmi3SerializeFMUState"},
        [OP_ME_SET_FMU_STATE] = {"fmi2SetFMUstate", "fmi3SetFMUState"},
        [OP_ME_CALLBACKS] = {"setting up the integrator", "setting up the integrator"},
        [OP_ME_INPUT_EVENT] = {"fmi2EnterEventMode", "fmi3EnterEventMode"},
        [OP_CALLBACK_DONE] = {"a callback", "a callback"},
        [OP_ENTER_EVENT_MODE] = {"fmi2EnterEventMode", "fmi3EnterEventMode"},
        [OP_UPDATE_DISCRETE_STATES] = {"fmi2NewDiscreteStates", "fmi3UpdateDiscreteStates"},
        [OP_ENTER_STEP_MODE] = {"fmi2EnterStepMode", "fmi3EnterStepMode"},
        [OP_GET_INTERVAL] = {"fmi3GetIntervalDecimal", "fmi3GetIntervalDecimal"},
    };
    return names[op][iso->fmi3];
}

/* One request and its answer; `named`: the request errors name (a
 * callback's end goes on with the request that called back). */
static rtcosim_status call_once(isolated *iso, channel_op op, channel_op named,
                                rtcosim_error *err)
{
    if (iso->dead)
        return rtcosim_error_set(err, RTCOSIM_EFATAL,
                                 "component '%s': its host process has ended (isolated)",
                                 iso->name);
    iso->ch->op = op;
    int ws = 0;
    bool spin = spin_allowed();
    atomic_store_explicit(&iso->ch->child_may_spin, spin, memory_order_relaxed);
    int64_t timeout = atomic_load_explicit(&call_timeout_ns, memory_order_relaxed);
    if (op == OP_QUIT && (timeout == 0 || timeout > QUIT_TIMEOUT_NS))
        timeout = QUIT_TIMEOUT_NS; /* ending a run: a host that does not quit at once is killed */
    channel_result r = channel_call(iso->ch, iso->pid, &ws, timeout, &interrupted, spin);
    if (r == CHANNEL_TIMEOUT || r == CHANNEL_INTERRUPTED) {
        /* The host does not answer (hung, or stopped: SIGSTOP): end it, so
         * that the run can end and remove what it made. */
        bool stopped = WIFSTOPPED(ws);
        long pid = (long)iso->pid;
        iso->dead = true;
        kill(iso->pid, SIGKILL);
        waitpid(iso->pid, NULL, 0);
        unregister_host(iso->pid);
        iso->pid = -1;
        char when[64] = "";
        if (named == OP_DO_STEP)
            snprintf(when, sizeof when, " at t = %.9g s", (double)iso->ch->t / 1e9);
        if (r == CHANNEL_INTERRUPTED)
            return rtcosim_error_set(err, RTCOSIM_ECANCELED,
                                     "component '%s' in %s%s: interrupted while its host process "
                                     "was working; host ended (isolated)",
                                     iso->name, call_name(iso, named), when);
        return rtcosim_error_set(err, RTCOSIM_EFATAL,
                                 "component '%s' in %s%s: its host process (pid %ld)%s did not "
                                 "answer within %.9g s (--isolate-timeout) and was killed; the "
                                 "component is lost (isolated)",
                                 iso->name, call_name(iso, named), when, pid,
                                 stopped ? " is stopped (SIGSTOP or a debugger) and" : "",
                                 (double)timeout / 1e9);
    }
    if (r == CHANNEL_ENDED) {
        iso->dead = true;
        char how[96];
        if (WIFSIGNALED(ws))
            snprintf(how, sizeof how, "crashed (%s)", sigabbrev_np(WTERMSIG(ws))
                                                          ? sigabbrev_np(WTERMSIG(ws))
                                                          : "signal");
        else if (WIFEXITED(ws))
            snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(ws));
        else
            snprintf(how, sizeof how, "ended");
        if (WIFSIGNALED(ws) && sigabbrev_np(WTERMSIG(ws)))
            snprintf(how, sizeof how, "crashed (SIG%s)", sigabbrev_np(WTERMSIG(ws)));
        char when[64] = "";
        if (named == OP_DO_STEP)
            snprintf(when, sizeof when, " at t = %.9g s", (double)iso->ch->t / 1e9);
        return rtcosim_error_set(err, RTCOSIM_EFATAL,
                                 "component '%s' in %s%s: its host process (pid %ld) %s; the "
                                 "component is lost (isolated: rtcosim goes on)",
                                 iso->name, call_name(iso, named), when, (long)iso->pid, how);
    }
    if (iso->ch->status != RTCOSIM_OK)
        return rtcosim_error_set(err, (rtcosim_status)iso->ch->status, "%s", iso->ch->message);
    return RTCOSIM_OK;
}

/* The callback a host's answer asks for: the parent's observer or input
 * source, whose own requests (gets, sets) the host serves meanwhile. */
static rtcosim_status run_callback(isolated *iso, uint32_t kind, double time, rtcosim_error *err)
{
    switch (kind) {
    case CALLBACK_EVENT_BEFORE:
    case CALLBACK_EVENT_AFTER:
        if (iso->observer)
            return iso->observer(iso->observer_context, time, kind == CALLBACK_EVENT_AFTER, err);
        return RTCOSIM_OK;
    case CALLBACK_INPUTS:
        return iso->source ? iso->source(iso->source_context, time, err) : RTCOSIM_OK;
    }
    return rtcosim_error_set(err, RTCOSIM_EFATAL, "component '%s': its host asked for an unknown"
                             " callback %u (isolated)", iso->name, kind);
}

/* A request, with the callbacks its answer asks for on the way. */
static rtcosim_status call(isolated *iso, channel_op op, rtcosim_error *err)
{
    rtcosim_status st = call_once(iso, op, op, err);
    while (st == RTCOSIM_OK && iso->ch->callback != CALLBACK_NONE) {
        uint32_t kind = iso->ch->callback;
        double time = iso->ch->callback_time;
        rtcosim_error own;
        rtcosim_error_clear(&own);
        rtcosim_status cs = run_callback(iso, kind, time, &own);
        if (iso->dead) /* (a request of the callback found the host gone) */
            return rtcosim_error_set(err, cs != RTCOSIM_OK ? cs : RTCOSIM_EFATAL, "%s",
                                     own.message);
        iso->ch->status = cs;
        snprintf(iso->ch->message, sizeof iso->ch->message, "%s",
                 cs == RTCOSIM_OK ? "" : own.message[0] ? own.message : rtcosim_strerror(cs));
        st = call_once(iso, OP_CALLBACK_DONE, op, err);
    }
    return st;
}

static rtcosim_status iso_instantiate(void *self, const char *name, rtcosim_error *err)
{
    isolated *iso = self;
    snprintf(iso->name, sizeof iso->name, "%s", name);
    snprintf(iso->ch->path, sizeof iso->ch->path, "%s", name);
    return call(iso, OP_INSTANTIATE, err);
}

static rtcosim_status iso_setup(void *self, double tolerance, rtcosim_time_ns start,
                                rtcosim_time_ns stop, rtcosim_error *err)
{
    isolated *iso = self;
    iso->ch->tolerance = tolerance;
    iso->ch->start = start;
    iso->ch->stop = stop;
    return call(iso, OP_SETUP, err);
}

static rtcosim_status iso_enter_init(void *self, rtcosim_error *err)
{
    return call(self, OP_ENTER_INIT, err);
}

static rtcosim_status iso_exit_init(void *self, rtcosim_error *err)
{
    return call(self, OP_EXIT_INIT, err);
}

static rtcosim_status iso_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                  rtcosim_step_result *result, rtcosim_error *err)
{
    isolated *iso = self;
    iso->ch->t = t;
    iso->ch->h = h;
    iso->ch->result = *result;
    rtcosim_status st = call(iso, OP_DO_STEP, err);
    if (!iso->dead)
        *result = iso->ch->result;
    return st;
}

/* The value references into the channel; value_bytes: what fixed-size
 * values then take (String and Binary values: their records', below). */
static rtcosim_status place(isolated *iso, rtcosim_type type, const uint32_t *vrs, size_t n,
                            size_t *value_bytes, rtcosim_error *err)
{
    size_t limit = channel_data_bytes();
    size_t offset = align8(n * sizeof(uint32_t));
    *value_bytes = channel_has_records(type) ? 0 : n * rtcosim_type_size(type);
    if (n > limit / sizeof(uint32_t) || offset + *value_bytes > limit)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "component '%s': %zu values do not fit the isolation channel",
                                 iso->name, n);
    iso->ch->type = type;
    iso->ch->n = n;
    memcpy(iso->ch->data, vrs, n * sizeof(uint32_t));
    return RTCOSIM_OK;
}

/* The String or Binary values the host answered: copied out of the shared
 * mapping first (the FMU beside it may still write there), then checked. */
static rtcosim_status take_records(isolated *iso, rtcosim_type type, size_t n, void *values,
                                   rtcosim_error *err)
{
    size_t offset = align8(n * sizeof(uint32_t));
    uint64_t bytes = iso->ch->record_bytes;
    if (bytes > channel_data_bytes() - offset)
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "component '%s': the host answered %llu"
                                 " bytes of %s values, past the isolation channel", iso->name,
                                 (unsigned long long)bytes, rtcosim_type_name(type));
    int k = type == RTCOSIM_TYPE_BINARY;
    if (bytes > iso->records_cap[k]) {
        size_t cap = iso->records_cap[k] ? iso->records_cap[k] : 256;
        while (cap < bytes)
            cap *= 2;
        unsigned char *grown = realloc(iso->records[k], cap);
        if (!grown)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "component '%s': out of memory",
                                     iso->name);
        iso->records[k] = grown;
        iso->records_cap[k] = cap;
    }
    if (bytes)
        memcpy(iso->records[k], iso->ch->data + offset, (size_t)bytes);
    char why[128];
    if (!channel_records_unpack(iso->records[k], (size_t)bytes, type, n, values, why,
                                sizeof why))
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "component '%s': malformed %s values from"
                                 " the host: %s", iso->name, rtcosim_type_name(type), why);
    return RTCOSIM_OK;
}

static rtcosim_status iso_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                              void *values, rtcosim_error *err)
{
    isolated *iso = self;
    size_t bytes = 0;
    rtcosim_status st = place(iso, type, vrs, n, &bytes, err);
    if (st == RTCOSIM_OK)
        st = call(iso, OP_GET, err);
    if (st == RTCOSIM_OK && channel_has_records(type))
        return take_records(iso, type, n, values, err);
    if (st == RTCOSIM_OK)
        memcpy(values, iso->ch->data + align8(n * sizeof(uint32_t)), bytes);
    return st;
}

static rtcosim_status iso_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                              const void *values, rtcosim_error *err)
{
    isolated *iso = self;
    size_t bytes = 0;
    rtcosim_status st = place(iso, type, vrs, n, &bytes, err);
    if (st != RTCOSIM_OK)
        return st;
    unsigned char *at = iso->ch->data + align8(n * sizeof(uint32_t));
    if (channel_has_records(type)) {
        size_t room = channel_data_bytes() - align8(n * sizeof(uint32_t));
        size_t need = channel_records_size(type, values, n, room);
        if (need == SIZE_MAX)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "component '%s': %zu %s values do"
                                     " not fit the isolation channel (%zu bytes)", iso->name, n,
                                     rtcosim_type_name(type), room);
        channel_records_pack(at, type, values, n);
        iso->ch->record_bytes = need;
    } else {
        memcpy(at, values, bytes);
    }
    return call(iso, OP_SET, err);
}

/* A bool the host wrote, read as its byte: the host's FMU shares the
 * mapping, and a byte other than 0 or 1 is no bool. */
static bool host_flag(const bool *b)
{
    unsigned char byte;
    memcpy(&byte, b, 1);
    return byte != 0;
}

static rtcosim_status iso_enter_event_mode(void *self, rtcosim_error *err)
{
    return call(self, OP_ENTER_EVENT_MODE, err);
}

static rtcosim_status iso_update_discrete_states(void *self, rtcosim_event_update *update,
                                                 rtcosim_error *err)
{
    isolated *iso = self;
    rtcosim_status st = call(iso, OP_UPDATE_DISCRETE_STATES, err);
    if (st != RTCOSIM_OK)
        return st;
    const rtcosim_event_update *u = &iso->ch->update;
    *update = (rtcosim_event_update){
        .discrete_states_need_update = host_flag(&u->discrete_states_need_update),
        .terminate_requested = host_flag(&u->terminate_requested),
        .nominals_changed = host_flag(&u->nominals_changed),
        .values_changed = host_flag(&u->values_changed),
        .next_event_time_defined = host_flag(&u->next_event_time_defined),
        .next_event_time = u->next_event_time};
    return RTCOSIM_OK;
}

static rtcosim_status iso_enter_step_mode(void *self, rtcosim_error *err)
{
    return call(self, OP_ENTER_STEP_MODE, err);
}

static rtcosim_status iso_terminate(void *self, rtcosim_error *err)
{
    return call(self, OP_TERMINATE, err);
}

/* A snapshot is the child's slot number (1-based) carried as the pointer:
 * nothing to allocate in the parent, so get/set per step stays allocation
 * free once the child has its slot. */
static uint32_t state_id(rtcosim_state state) { return (uint32_t)(uintptr_t)state; }

static rtcosim_status iso_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    isolated *iso = self;
    iso->ch->state_id = state_id(*state);
    rtcosim_status st = call(iso, OP_GET_STATE, err);
    if (st == RTCOSIM_OK)
        *state = (rtcosim_state)(uintptr_t)iso->ch->state_id;
    return st;
}

static rtcosim_status iso_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    isolated *iso = self;
    iso->ch->state_id = state_id(state);
    return call(iso, OP_SET_STATE, err);
}

static void iso_free_state(void *self, rtcosim_state state)
{
    isolated *iso = self;
    if (iso->dead)
        return; /* the child's snapshots went with it */
    iso->ch->state_id = state_id(state);
    rtcosim_error ignored;
    call(iso, OP_FREE_STATE, &ignored);
}

static rtcosim_status iso_state_size(void *self, rtcosim_state state, size_t *size,
                                     rtcosim_error *err)
{
    isolated *iso = self;
    iso->ch->state_id = state_id(state);
    rtcosim_status st = call(iso, OP_STATE_SIZE, err);
    if (st == RTCOSIM_OK)
        *size = (size_t)iso->ch->n;
    return st;
}

static rtcosim_status iso_serialize(void *self, rtcosim_state state, uint8_t *buffer, size_t size,
                                    rtcosim_error *err)
{
    isolated *iso = self;
    if (size > channel_data_bytes())
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "component '%s': a state of %zu bytes does not fit the isolation "
                                 "channel",
                                 iso->name, size);
    iso->ch->state_id = state_id(state);
    iso->ch->n = size;
    rtcosim_status st = call(iso, OP_SERIALIZE, err);
    if (st == RTCOSIM_OK)
        memcpy(buffer, iso->ch->data, size);
    return st;
}

static rtcosim_status iso_deserialize(void *self, const uint8_t *buffer, size_t size,
                                      rtcosim_state *state, rtcosim_error *err)
{
    isolated *iso = self;
    if (size > channel_data_bytes())
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "component '%s': a state of %zu bytes does not fit the isolation "
                                 "channel",
                                 iso->name, size);
    memcpy(iso->ch->data, buffer, size);
    iso->ch->n = size;
    iso->ch->state_id = state_id(*state);
    rtcosim_status st = call(iso, OP_DESERIALIZE, err);
    if (st == RTCOSIM_OK)
        *state = (rtcosim_state)(uintptr_t)iso->ch->state_id;
    return st;
}

static void stop_child(isolated *iso)
{
    if (iso->pid > 0 && !iso->dead) {
        rtcosim_error ignored;
        if (call(iso, OP_QUIT, &ignored) == RTCOSIM_OK)
            waitpid(iso->pid, NULL, 0);
    }
    if (iso->pid > 0 && !iso->dead) { /* did not answer: make sure it ends */
        kill(iso->pid, SIGKILL);
        waitpid(iso->pid, NULL, 0);
    }
    if (iso->pid > 0)
        unregister_host(iso->pid);
    iso->pid = -1;
}

static void iso_destroy(void *self)
{
    isolated *iso = self;
    stop_child(iso);
    channel_unmap(iso->ch);
    if (iso->fd >= 0)
        close(iso->fd);
    if (iso->temp_dir) {
        rtcosim_archive_remove_dir(iso->temp_dir);
        free(iso->temp_dir);
    }
    rtcosim_component_free(iso->inner);
    free(iso->records[0]);
    free(iso->records[1]);
    free(iso);
}

static const rtcosim_component_ops isolated_ops = {
    .kind = "isolated",
    .instantiate = iso_instantiate,
    .setup = iso_setup,
    .enter_init = iso_enter_init,
    .exit_init = iso_exit_init,
    .do_step = iso_do_step,
    .get = iso_get,
    .set = iso_set,
    .get_state = iso_get_state,
    .set_state = iso_set_state,
    .free_state = iso_free_state,
    .serialized_state_size = iso_state_size,
    .serialize_state = iso_serialize,
    .deserialize_state = iso_deserialize,
    .terminate = iso_terminate,
    .destroy = iso_destroy,
    .enter_event_mode = iso_enter_event_mode,
    .update_discrete_states = iso_update_discrete_states,
    .enter_step_mode = iso_enter_step_mode,
};

/* Start `host_exe host-fmu FD` sharing a fresh channel. */
static rtcosim_status spawn(isolated *iso, const char *host_exe, rtcosim_error *err)
{
    iso->ch = channel_create(&iso->fd);
    if (!iso->ch)
        return rtcosim_error_set(err, RTCOSIM_EIO, "isolate: cannot create the shared memory: %s",
                                 strerror(errno));
    char fd_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", iso->fd);
    iso->pid = fork();
    if (iso->pid < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "isolate: cannot start the host process: %s",
                                 strerror(errno));
    if (iso->pid == 0) {
        execl(host_exe, host_exe, "host-fmu", fd_text, (char *)NULL);
        _exit(127);
    }
    register_host(iso->pid);
    return RTCOSIM_OK;
}

/* A private directory for the child's FMU extraction: a child that crashes
 * cannot remove its own, so the parent removes this one on free. */
static rtcosim_status make_temp_dir(isolated *iso, rtcosim_error *err)
{
    const char *parent = getenv("TMPDIR");
    if (!parent || !*parent)
        parent = "/tmp";
    size_t size = strlen(parent) + 32;
    iso->temp_dir = malloc(size);
    if (!iso->temp_dir)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "isolate: out of memory");
    snprintf(iso->temp_dir, size, "%s/rtcosim-host-XXXXXX", parent);
    if (size > sizeof iso->ch->temp_dir || !mkdtemp(iso->temp_dir)) {
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EIO,
                                              "isolate: cannot create a temporary directory in "
                                              "%s: %s", parent, strerror(errno));
        free(iso->temp_dir);
        iso->temp_dir = NULL;
        return st;
    }
    rtcosim_archive_mark_owner(iso->temp_dir); /* swept by a later run if we are killed */
    snprintf(iso->ch->temp_dir, sizeof iso->ch->temp_dir, "%s", iso->temp_dir);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_isolate_wrap(rtcosim_component *inner, const char *fmu_path,
                                    const char *host_exe, bool model_exchange,
                                    rtcosim_component **out, rtcosim_error *err)
{
    rtcosim_fmu_options fo = {.interface_type = model_exchange ? RTCOSIM_FMI_MODEL_EXCHANGE
                                                               : RTCOSIM_FMI_CO_SIMULATION};
    return rtcosim_isolate_wrap_options(inner, fmu_path, host_exe, &fo, out, err);
}

rtcosim_status rtcosim_isolate_wrap_options(rtcosim_component *inner, const char *fmu_path,
                                            const char *host_exe, const rtcosim_fmu_options *fo,
                                            rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    isolated *iso = calloc(1, sizeof *iso);
    if (!iso) {
        rtcosim_component_free(inner);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "isolate: out of memory");
    }
    iso->inner = inner;
    iso->fd = -1;
    iso->fmi3 = strcmp(rtcosim_component_kind(inner), "fmi3") == 0;
    snprintf(iso->name, sizeof iso->name, "%s", rtcosim_component_model_name(inner));
    rtcosim_status st = spawn(iso, host_exe, err);
    if (st == RTCOSIM_OK) {
        if (strlen(fmu_path) >= sizeof iso->ch->path)
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: path too long", fmu_path);
        else {
            snprintf(iso->ch->path, sizeof iso->ch->path, "%s", fmu_path);
            /* the host loads the FMU as this process did: every option,
             * and the interface it was loaded with (a fallback taken) */
            const rtcosim_fmu_info *info = rtcosim_fmu_info_of(inner);
            iso->ch->options = *fo;
            iso->ch->options.temp_dir = NULL; /* (a pointer of this process) */
            if (info)
                iso->ch->options.interface_type = info->interface_type;
            iso->ch->options.model_exchange_fallback = false; /* the interface is settled */
            iso->ch->log_level = (int32_t)rtcosim_log_get_level();
            st = make_temp_dir(iso, err);
            if (st == RTCOSIM_OK)
                st = call(iso, OP_LOAD, err);
        }
    }
    if (st != RTCOSIM_OK) {
        iso_destroy(iso);
        return st;
    }
    return rtcosim_component_create(&isolated_ops, iso, rtcosim_component_description(inner), out,
                                    err);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

rtcosim_status rtcosim_isolate_roundtrip(const char *host_exe, size_t iterations,
                                         double *median_us, double *p99_us, rtcosim_error *err)
{
    if (iterations == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: no iterations");
    isolated iso = {.fd = -1};
    snprintf(iso.name, sizeof iso.name, "ping");
    double *samples = malloc(iterations * sizeof *samples);
    rtcosim_status st = samples ? spawn(&iso, host_exe, err)
                                : rtcosim_error_set(err, RTCOSIM_ENOMEM, "isolate: out of memory");
    for (size_t i = 0; st == RTCOSIM_OK && i < iterations; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        st = call(&iso, OP_PING, err);
        clock_gettime(CLOCK_MONOTONIC, &b);
        samples[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
    }
    if (st == RTCOSIM_OK) {
        qsort(samples, iterations, sizeof *samples, compare_double);
        *median_us = samples[iterations / 2];
        *p99_us = samples[(size_t)((double)(iterations - 1) * 0.99)];
    }
    stop_child(&iso);
    channel_unmap(iso.ch);
    if (iso.fd >= 0)
        close(iso.fd);
    free(samples);
    return st;
}

bool rtcosim_isolate_is_model_exchange(const rtcosim_component *c)
{
    if (!c || strcmp(rtcosim_component_kind(c), "isolated") != 0)
        return false;
    const isolated *iso = rtcosim_component_impl(c);
    return iso->ch && iso->ch->options.interface_type == RTCOSIM_FMI_MODEL_EXCHANGE;
}

const rtcosim_fmu_info *rtcosim_isolate_fmu_info(const rtcosim_component *c)
{
    if (!c || strcmp(rtcosim_component_kind(c), "isolated") != 0)
        return NULL;
    const isolated *iso = rtcosim_component_impl(c);
    return rtcosim_fmu_info_of(iso->inner);
}

/* ---- model exchange: fmusim's state files through the host ---- */

static isolated *me_isolated(rtcosim_component *c, rtcosim_error *err)
{
    if (!rtcosim_isolate_is_model_exchange(c)) {
        rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: not an isolated model-exchange FMU",
                          c ? rtcosim_component_model_name(c) : "(null)");
        return NULL;
    }
    return rtcosim_component_impl(c);
}

rtcosim_status rtcosim_isolate_me_get_fmu_state(rtcosim_component *c, uint8_t **bytes,
                                                size_t *size, rtcosim_error *err)
{
    isolated *iso = me_isolated(c, err);
    if (!iso)
        return RTCOSIM_EINVAL;
    *bytes = NULL;
    *size = 0;
    rtcosim_status st = call(iso, OP_ME_GET_FMU_STATE, err);
    if (st != RTCOSIM_OK)
        return st;
    size_t n = (size_t)iso->ch->n;
    uint8_t *out = malloc(n ? n : 1);
    if (!out)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "component '%s': out of memory",
                                 iso->name);
    memcpy(out, iso->ch->data, n);
    *bytes = out;
    *size = n;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_isolate_me_set_fmu_state(rtcosim_component *c, const uint8_t *bytes,
                                                size_t size, rtcosim_error *err)
{
    isolated *iso = me_isolated(c, err);
    if (!iso)
        return RTCOSIM_EINVAL;
    if (size > channel_data_bytes())
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "component '%s': a state of %zu bytes does not fit the isolation "
                                 "channel (%zu bytes)",
                                 iso->name, size, channel_data_bytes());
    memcpy(iso->ch->data, bytes, size);
    iso->ch->n = size;
    return call(iso, OP_ME_SET_FMU_STATE, err);
}

/* ---- model exchange: the integrator's callbacks through the host ---- */

static rtcosim_status me_callbacks(isolated *iso, rtcosim_error *err)
{
    iso->ch->n = (iso->observer ? 1u : 0u) | (iso->source ? 2u : 0u);
    return call(iso, OP_ME_CALLBACKS, err);
}

rtcosim_status rtcosim_isolate_me_observe_events(rtcosim_component *c,
                                                 rtcosim_me_event_observer observer,
                                                 void *context, rtcosim_error *err)
{
    isolated *iso = me_isolated(c, err);
    if (!iso)
        return RTCOSIM_EINVAL;
    iso->observer = observer;
    iso->observer_context = context;
    return me_callbacks(iso, err);
}

rtcosim_status rtcosim_isolate_me_input_source(rtcosim_component *c,
                                               rtcosim_me_input_source source, void *context,
                                               rtcosim_error *err)
{
    isolated *iso = me_isolated(c, err);
    if (!iso)
        return RTCOSIM_EINVAL;
    iso->source = source;
    iso->source_context = context;
    return me_callbacks(iso, err);
}

rtcosim_status rtcosim_isolate_me_enter_input_event(rtcosim_component *c, rtcosim_error *err)
{
    isolated *iso = me_isolated(c, err);
    return iso ? call(iso, OP_ME_INPUT_EVENT, err) : RTCOSIM_EINVAL;
}

/* ---- FMI 3.0 clocks through the host ---- */

const rtcosim_fmu_clocks *rtcosim_isolate_clocks_of(const rtcosim_component *c)
{
    if (!c || strcmp(rtcosim_component_kind(c), "isolated") != 0)
        return NULL;
    const isolated *iso = rtcosim_component_impl(c);
    return rtcosim_fmu_clocks_of(iso->inner); /* (the description this process read) */
}

rtcosim_status rtcosim_isolate_get_interval(rtcosim_component *c, size_t clock, double *interval,
                                            rtcosim_interval_qualifier *qualifier,
                                            rtcosim_error *err)
{
    if (!c || strcmp(rtcosim_component_kind(c), "isolated") != 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: not an isolated component");
    isolated *iso = rtcosim_component_impl(c);
    iso->ch->n = clock;
    rtcosim_status st = call(iso, OP_GET_INTERVAL, err);
    if (st == RTCOSIM_OK) {
        *interval = iso->ch->interval;
        *qualifier = (rtcosim_interval_qualifier)iso->ch->qualifier;
    }
    return st;
}
