/* SIGINT/SIGTERM handling of `run` and `simulate` (signals.h). The handler
 * only stores the signal number (a lock-free atomic store) or, on a second
 * signal, writes a fixed message and _exit()s: both async-signal-safe
 * (POSIX.1-2017 2.4.3). */
#include "signals.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtcosim/component.h"
#include "rtcosim/results.h"

atomic_int cli_stop_signal;

static struct sigaction previous_int, previous_term;
static int installed;

static void on_signal(int signo)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&cli_stop_signal, &expected, signo))
        return;
    rtcosim_recorder_flush_all_signal_safe(); /* the rows computed so far */
    static const char message[] = "rtcosim: second signal: exiting at once\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(128 + signo);
}

void cli_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESTART: an interrupted write or sleep goes on; the run sees the
     * flag at its next step boundary. */
    sa.sa_flags = SA_RESTART;
    atomic_store(&cli_stop_signal, 0);
    sigaction(SIGINT, &sa, &previous_int);
    sigaction(SIGTERM, &sa, &previous_term);
    installed = 1;
}

void cli_signals_restore(void)
{
    if (!installed)
        return;
    sigaction(SIGINT, &previous_int, NULL);
    sigaction(SIGTERM, &previous_term, NULL);
    installed = 0;
}

const char *cli_signal_name(int signo)
{
    static char buffer[32];
    if (signo == SIGINT)
        return "SIGINT";
    if (signo == SIGTERM)
        return "SIGTERM";
    snprintf(buffer, sizeof buffer, "signal %d", signo);
    return buffer;
}

int cli_signal_exit_code(int signo) { return 128 + signo; }

/* --- Fatal signals and exit() inside a component call ---------------------- */

static const char *guard_what;
static atomic_int guard_active;
static bool atexit_registered;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void put(const char *text)
{
    ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
    (void)ignored;
}

/* "rtcosim: WHAT: component 'X' EVENT in CALL; rows so far written" with
 * write(2) and strlen only (async-signal-safe). */
static void report_death(const char *event)
{
    const char *instance = NULL, *call = NULL;
    bool in_call = rtcosim_component_current_call(&instance, &call);
    put("rtcosim: ");
    put(guard_what ? guard_what : "run");
    put(": ");
    if (in_call) {
        put("component '");
        put(instance);
        put("' ");
        put(event);
        put(" in ");
        put(call);
    } else {
        put(event);
        put(" outside any component call");
    }
    put("; the rows computed so far are in the results file\n");
}

static void on_fatal(int signo)
{
    rtcosim_recorder_flush_all_signal_safe();
    const char *event = signo == SIGSEGV   ? "crashed (SIGSEGV)"
                        : signo == SIGBUS  ? "crashed (SIGBUS)"
                        : signo == SIGFPE  ? "crashed (SIGFPE)"
                        : signo == SIGILL  ? "crashed (SIGILL)"
                                           : "aborted (SIGABRT)";
    report_death(event);
    signal(signo, SIG_DFL);
    raise(signo); /* die of it: the parent sees the real cause */
}

static void on_exit_during_run(void)
{
    if (!atomic_load(&guard_active))
        return;
    rtcosim_recorder_flush_all_signal_safe();
    report_death("called exit()");
    _exit(1);
}

void cli_run_guard_begin(const char *what)
{
    guard_what = what;
    if (!atexit_registered)
        atexit_registered = atexit(on_exit_during_run) == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        sigaction(fatal_signals[i], &sa, NULL);
    atomic_store(&guard_active, 1);
}

void cli_run_guard_end(void)
{
    atomic_store(&guard_active, 0);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        signal(fatal_signals[i], SIG_DFL);
}
