/* FMUs out of process (--isolate): a component whose every call runs in a
 * child process (rtcosim itself in its host mode) over a shared-memory
 * channel with a futex handshake. A crash, exit() or abort() of the child
 * is an error naming the component, the FMI call and the time; the parent
 * and the results it holds are unharmed. */
#ifndef RTCOSIM_ISOLATE_H
#define RTCOSIM_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/fmu.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/status.h"

/* Wrap `inner` (a component made by rtcosim_fmu_load from fmu_path, used
 * here for its description only: no FMI call is made on it) into a component
 * whose calls run in a child started as `host_exe host-fmu FD` (the rtcosim
 * executable), which loads fmu_path itself (model exchange when
 * model_exchange). Takes ownership of inner (also on failure). Supported:
 * the lifecycle, do_step, get/set of numeric and Boolean types, FMU state
 * get/set/free/serialize/deserialize (a snapshot is the child's slot number,
 * overwritten in place by get_state: no allocation per step). The child ignores SIGINT/SIGTERM (the parent ends the run) and
 * dies with its parent. */
rtcosim_status rtcosim_isolate_wrap(rtcosim_component *inner, const char *fmu_path,
                                    const char *host_exe, bool model_exchange,
                                    rtcosim_component **out, rtcosim_error *err);
/* The same with the loading options `inner` was loaded with: the host loads
 * the FMU with all of them (its own temp_dir aside) and with the interface
 * `inner` has (model exchange when a fallback took it, whatever
 * interface_type says). The host runs the model-exchange integrator (solver,
 * max_solver_step), and with FMI 3.0's Event Mode and early return
 * (event_mode_used, early_return_allowed and their _where_declared forms)
 * the component takes enter_event_mode, update_discrete_states and
 * enter_step_mode through it. */
rtcosim_status rtcosim_isolate_wrap_options(rtcosim_component *inner, const char *fmu_path,
                                            const char *host_exe, const rtcosim_fmu_options *fo,
                                            rtcosim_component **out, rtcosim_error *err);

/* Kill (SIGKILL) and reap every host process still running: for a run that
 * ends at once (--step-timeout, a fatal signal). Async-signal-safe. The hosts'
 * temporary directories carry owner marks: a later run removes them. */
void rtcosim_isolate_kill_all(void);

/* Whether c is an isolated FMU loaded for model exchange (its integrator
 * runs in the host process). */
bool rtcosim_isolate_is_model_exchange(const rtcosim_component *c);

/* The FMU facts of the FMU an isolated component hosts (its description's:
 * the same variable table, so output_indices hold), NULL for any other
 * component. Not rtcosim_fmu_info_of, which stays NULL for it: the FMU's
 * own calls do not reach an isolated component. */
const rtcosim_fmu_info *rtcosim_isolate_fmu_info(const rtcosim_component *c);
/* An isolated FMI 3.0 FMU's clocks (from the description this process read;
 * NULL for any other component) and a clock's interval asked of the host
 * (fmi3GetIntervalDecimal in Event Mode), as rtcosim_fmu_clocks_of and
 * rtcosim_fmu_get_interval give them in process. */
const rtcosim_fmu_clocks *rtcosim_isolate_clocks_of(const rtcosim_component *c);
rtcosim_status rtcosim_isolate_get_interval(rtcosim_component *c, size_t clock, double *interval,
                                            rtcosim_interval_qualifier *qualifier,
                                            rtcosim_error *err);

/* Model exchange through the host, as rtcosim_fmu_me_get_fmu_state and
 * rtcosim_fmu_me_set_fmu_state (fmusim's state files: the FMU's own
 * serialized state; the host's integrator restarts from the states in it);
 * a state must fit the channel (about 1 MiB). RTCOSIM_EINVAL naming the
 * component when it is not an isolated model-exchange FMU. */
rtcosim_status rtcosim_isolate_me_get_fmu_state(rtcosim_component *c, uint8_t **bytes,
                                                size_t *size, rtcosim_error *err);
rtcosim_status rtcosim_isolate_me_set_fmu_state(rtcosim_component *c, const uint8_t *bytes,
                                                size_t size, rtcosim_error *err);

/* Model exchange through the host, as rtcosim_fmu_me_observe_events,
 * rtcosim_fmu_me_input_source and rtcosim_fmu_me_enter_input_event do in
 * process: the observer and the input source run in this process, called
 * back from the host's integrator (each call a round trip, during which the
 * host serves the callback's own gets and sets), so that an isolated run
 * writes the rows at events and feeds continuous inputs at every solver time
 * as one in process does. NULL clears one. RTCOSIM_EINVAL naming the
 * component when it is not an isolated model-exchange FMU. */
rtcosim_status rtcosim_isolate_me_observe_events(rtcosim_component *c,
                                                 rtcosim_me_event_observer observer,
                                                 void *context, rtcosim_error *err);
rtcosim_status rtcosim_isolate_me_input_source(rtcosim_component *c,
                                               rtcosim_me_input_source source, void *context,
                                               rtcosim_error *err);
rtcosim_status rtcosim_isolate_me_enter_input_event(rtcosim_component *c, rtcosim_error *err);

/* How long one call of an isolated component may go unanswered before its
 * host is killed and the call fails with RTCOSIM_EFATAL naming the component,
 * the call and the time ("did not answer within S s"): a hung or stopped
 * (SIGSTOP) host ends the run, or makes a real-time partner lost, instead of
 * hanging it. Process-wide; seconds <= 0: no limit. */
#define RTCOSIM_ISOLATE_DEFAULT_TIMEOUT_S 60
void rtcosim_isolate_set_timeout(double seconds);
/* End every wait for a host at once (async-signal-safe: one atomic store; a
 * SIGINT/SIGTERM handler calls it): the waiting call kills its host and fails
 * with RTCOSIM_ECANCELED, so an interrupted run ends with its rows although a
 * host does not answer. rtcosim_isolate_clear_interrupt undoes it. */
void rtcosim_isolate_interrupt(void);
void rtcosim_isolate_clear_interrupt(void);

/* The child's loop (`rtcosim host-fmu FD`): serve requests on the channel
 * mapped from fd until told to quit. Returns the process exit code. */
int rtcosim_isolate_host(int fd);

/* Median round trip of an empty request to a child started from host_exe,
 * in microseconds, over `iterations` calls. */
rtcosim_status rtcosim_isolate_roundtrip(const char *host_exe, size_t iterations,
                                         double *median_us, double *p99_us, rtcosim_error *err);

#endif
