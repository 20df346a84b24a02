/* SIGINT/SIGTERM for the commands that run a simulation: the first signal
 * asks the run to stop at the next step boundary (frame in real time) so that
 * results, report and summary are written; a second one exits at once. When
 * the calling thread is still inside a component call CLI_STOP_GRACE_S
 * seconds after the first signal (an FMU looping in its step, which a lone
 * SIGTERM from a supervisor could not end), the buffered rows are written
 * with one line naming the component and its call, and the process exits
 * (128 + signal). */
#ifndef RTCOSIM_CLI_SIGNALS_H
#define RTCOSIM_CLI_SIGNALS_H

#define CLI_STOP_GRACE_S 5

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

/* The number of the first SIGINT/SIGTERM received, 0 before; or
 * CLI_STOP_LIVE_VIEW when the live view's stop came first (run_serve.c). */
extern atomic_int cli_stop_signal;
#define CLI_STOP_LIVE_VIEW 1024

/* Install the handlers of SIGINT, SIGTERM and SIGHUP (a closed terminal
 * stops the run as SIGTERM does; the previous ones are restored by
 * cli_signals_restore). */
void cli_signals_install(void);
/* sigaction(signo, sa, old), unless signo is ignored (SIG_IGN inherited:
 * nohup's SIGHUP, SIGINT of a job a script started with &), which stays
 * so, as the caller asked of its parent; *old is the disposition either way. */
void cli_sigaction_unless_ignored(int signo, const struct sigaction *sa, struct sigaction *old);
void cli_signals_restore(void);
/* After cli_signals_install: the first signal already writes the buffered
 * rows and a line naming `what`, then exits (128 + signal). For a run over
 * MPI ranks, where mpirun sends SIGTERM when another rank died and this one
 * may be waiting for it in an exchange that never returns. */
void cli_signals_exit_at_once(const char *what);
/* After cli_signals_install, for a command whose output is worth nothing
 * until whole (a plot): the first signal removes the part files and exits
 * (128 + signal) with "rtcosim: WHAT: ended by SIGINT before its file was
 * complete: nothing written", or, when the signal came just after OUTPUT
 * was renamed whole into place, "... ended by SIGINT after OUTPUT was
 * written whole". */
void cli_signals_abandon_on_first(const char *what, const char *output);
/* Hold SIGINT, SIGTERM and SIGHUP back on this thread while a file that a
 * stop would cut short is written (a CAN log written at the end); released,
 * a signal that came meanwhile acts (with the handlers then in place). */
void cli_signals_hold(void);
void cli_signals_release(void);
/* After cli_signals_install: the first signal also calls hook(arg) in the
 * handler (so hook must be async-signal-safe, e.g. one atomic store): for a
 * run that does not look at cli_stop_signal itself (the event kernel). A
 * signal that came since cli_signals_install calls it here at once; hook may
 * be called twice for one signal (it must be idempotent). */
void cli_signals_on_first(void (*hook)(void *), void *arg);
/* While a run is in progress (between cli_run_guard_begin and _end): a fatal
 * signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) writes the buffered rows
 * and one line naming `what` (the input file), the component and its call,
 * then the process dies of that signal; a component calling exit() gets the
 * same line and exit code 1 instead of its own status. */
void cli_run_guard_begin(const char *what);
void cli_run_guard_end(void);

/* --step-timeout: a watchdog thread that, when no step boundary was reached
 * (cli_watchdog_beat) for `seconds`, interrupts the calling thread (stuck in
 * a component call: it cannot be returned from safely) with SIGUSR2, whose
 * handler writes the buffered rows and one line naming the component and its
 * call, then exits with CLI_EXIT_STEP_TIMEOUT. seconds <= 0: none. */
int cli_watchdog_start(double seconds);
void cli_watchdog_beat(void);
void cli_watchdog_stop(void);
/* Before the watchdog fires, describe(event) may rewrite the event text
 * ("did not return within S s ...") from the watchdog's thread, e.g. to name
 * the MPI rank that is stopped. NULL: no description. */
void cli_watchdog_describe(void (*describe)(char *event, size_t size));
/* Parse a --step-timeout value (seconds > 0); 0 or cli_fail's code. */
int cli_parse_step_timeout(const char *text, double *out);

/* "SIGINT" / "SIGTERM" / "signal N" / "the live view's stop". */
const char *cli_signal_name(int signo);
/* The exit code of a run ended by signal signo: 128 + signo (130, 143);
 * 0 for the live view's stop (asked for, like reaching the stop time). */
int cli_signal_exit_code(int signo);

#endif
