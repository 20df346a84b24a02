/* SIGINT/SIGTERM handling of `run` and `simulate` (signals.h). The handler
 * only stores the signal number (a lock-free atomic store) or, on a second
 * signal, writes a fixed message and _exit()s: both async-signal-safe
 * (POSIX.1-2017 2.4.3). */
#include "signals.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rtcosim/component.h"
#include "rtcosim/isolate.h"
#include "rtcosim/results.h"

atomic_int cli_stop_signal;

static struct sigaction previous_int, previous_term, previous_hup;
static int installed;

static const char *exit_at_once_what; /* cli_signals_exit_at_once */
static const char *abandon_what;      /* cli_signals_abandon_on_first */
static const char *abandon_output;    /* its file, and what stood there before */
static bool abandon_output_existed;
static dev_t abandon_output_dev;
static ino_t abandon_output_ino;
static void (*first_signal_hook)(void *); /* cli_signals_on_first */
static void *first_signal_arg;
static void put(const char *text);

#define GRACE_TEXT_(s) #s
#define GRACE_TEXT(s) GRACE_TEXT_(s)
static timer_t grace_timer; /* CLI_STOP_GRACE_S after the first signal, on the installing thread */
static bool grace_timer_armed_ok;
static void report_death(const char *event, bool any_thread);

/* The name of a stopping signal, async-signal-safe. */
static const char *stop_name(int signo)
{
    return signo == SIGINT ? "SIGINT" : signo == SIGHUP ? "SIGHUP" : "SIGTERM";
}

static void on_signal(int signo)
{
    if (abandon_what) {
        rtcosim_recorder_flush_all_signal_safe(); /* (the part file goes) */
        /* The part file may have been renamed whole just before: then a new
         * file (another inode) stands at the output (stat is async-signal-safe). */
        struct stat st;
        bool written = abandon_output && stat(abandon_output, &st) == 0 && S_ISREG(st.st_mode) &&
                       (!abandon_output_existed || st.st_dev != abandon_output_dev ||
                        st.st_ino != abandon_output_ino);
        put("rtcosim: ");
        put(abandon_what);
        put(": ended by ");
        put(stop_name(signo));
        if (written) {
            put(" after ");
            put(abandon_output);
            put(" was written whole\n");
        } else
            put(" before its file was complete: nothing written\n");
        _exit(128 + signo);
    }
    if (exit_at_once_what) {
        rtcosim_recorder_flush_all_signal_safe();
        put("rtcosim: ");
        put(exit_at_once_what);
        put(": ended by ");
        put(stop_name(signo));
        put(" (under mpirun: the job was stopped or another rank ended, see above); the rows"
            " computed so far are in the results file\n");
        _exit(128 + signo);
    }
    rtcosim_isolate_interrupt(); /* a host that does not answer no longer holds the run */
    int expected = 0;
    if (atomic_compare_exchange_strong(&cli_stop_signal, &expected, signo)) {
        if (first_signal_hook)
            first_signal_hook(first_signal_arg);
        if (grace_timer_armed_ok) { /* timer_settime is async-signal-safe (POSIX.1-2017 2.4.3) */
            struct itimerspec grace = {.it_value = {CLI_STOP_GRACE_S, 0}};
            timer_settime(grace_timer, 0, &grace, NULL);
        }
        return;
    }
    rtcosim_recorder_flush_all_signal_safe(); /* the rows computed so far */
    static const char message[] = "rtcosim: second signal: exiting at once\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(128 + signo);
}

/* The grace after the first signal ran out: still inside a component call
 * (on this thread or any other: a worker of --threads or --speculate), the
 * step will not come back by itself. Between calls the run is ending on
 * its own (results being written): left alone. */
static void on_stop_grace(int signo)
{
    (void)signo;
    const char *instance, *call;
    if (!rtcosim_component_any_call(&instance, &call))
        return;
    int stop = atomic_load(&cli_stop_signal);
    rtcosim_recorder_flush_all_signal_safe();
    rtcosim_isolate_kill_all();
    report_death(stop == SIGINT   ? "did not return within " GRACE_TEXT(CLI_STOP_GRACE_S) " s of SIGINT"
                 : stop == SIGHUP ? "did not return within " GRACE_TEXT(CLI_STOP_GRACE_S) " s of SIGHUP"
                                  : "did not return within " GRACE_TEXT(CLI_STOP_GRACE_S) " s of SIGTERM",
                 true);
    _exit(128 + (stop == SIGINT || stop == SIGHUP ? stop : SIGTERM));
}

void cli_sigaction_unless_ignored(int signo, const struct sigaction *sa, struct sigaction *old)
{
    struct sigaction now;
    if (sigaction(signo, NULL, &now) == 0 && now.sa_handler == SIG_IGN) {
        if (old)
            *old = now;
        return;
    }
    sigaction(signo, sa, old);
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
    rtcosim_isolate_clear_interrupt();
    /* (an ignored one stays ignored: `nohup rtcosim run ... &` runs on after
     * the terminal closes, a script's background job ignores Ctrl-C) */
    cli_sigaction_unless_ignored(SIGINT, &sa, &previous_int);
    cli_sigaction_unless_ignored(SIGTERM, &sa, &previous_term);
    /* a closed terminal ends the run as SIGTERM does, its results kept */
    cli_sigaction_unless_ignored(SIGHUP, &sa, &previous_hup);
    /* The grace timer signals this (the running) thread, whose component
     * call it looks at (the call marks are per thread). */
    struct sigaction grace;
    memset(&grace, 0, sizeof grace);
    grace.sa_handler = on_stop_grace;
    sigemptyset(&grace.sa_mask);
    grace.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &grace, NULL);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGALRM;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    grace_timer_armed_ok = timer_create(CLOCK_MONOTONIC, &ev, &grace_timer) == 0;
    installed = 1;
}

void cli_signals_exit_at_once(const char *what) { exit_at_once_what = what; }

void cli_signals_on_first(void (*hook)(void *), void *arg)
{
    first_signal_hook = NULL; /* never a hook with the wrong argument */
    first_signal_arg = arg;
    first_signal_hook = hook;
    /* A signal between cli_signals_install and here found no hook: without
     * this, that Ctrl-C was lost and the run went on to its stop time. */
    if (hook && atomic_load(&cli_stop_signal))
        hook(arg);
}

void cli_signals_abandon_on_first(const char *what, const char *output)
{
    struct stat st;
    abandon_output_existed = output && stat(output, &st) == 0;
    if (abandon_output_existed) {
        abandon_output_dev = st.st_dev;
        abandon_output_ino = st.st_ino;
    }
    abandon_output = output;
    atomic_signal_fence(memory_order_seq_cst); /* (the handler sees the output first) */
    abandon_what = what;
}

static sigset_t held_previous;

void cli_signals_hold(void)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, &held_previous);
}

void cli_signals_release(void) { pthread_sigmask(SIG_SETMASK, &held_previous, NULL); }

void cli_signals_restore(void)
{
    exit_at_once_what = NULL;
    abandon_what = NULL;
    abandon_output = NULL;
    first_signal_hook = NULL;
    if (!installed)
        return;
    sigaction(SIGINT, &previous_int, NULL);
    sigaction(SIGTERM, &previous_term, NULL);
    sigaction(SIGHUP, &previous_hup, NULL);
    if (grace_timer_armed_ok) {
        grace_timer_armed_ok = false;
        timer_delete(grace_timer);
    }
    signal(SIGALRM, SIG_DFL);
    installed = 0;
}

const char *cli_signal_name(int signo)
{
    static char buffer[32];
    if (signo == SIGINT)
        return "SIGINT";
    if (signo == SIGTERM)
        return "SIGTERM";
    if (signo == SIGHUP)
        return "SIGHUP";
    if (signo == CLI_STOP_LIVE_VIEW)
        return "the live view's stop";
    snprintf(buffer, sizeof buffer, "signal %d", signo);
    return buffer;
}

int cli_signal_exit_code(int signo) { return signo == CLI_STOP_LIVE_VIEW ? 0 : 128 + signo; }

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

/* "rtcosim: WHAT: component 'X' in CALL: EVENT; rows so far written" with
 * write(2) and strlen only (async-signal-safe). The call is this thread's
 * for a crash or exit() (they happen on the thread that made them), any
 * thread's for a call that does not return (the timer signals the main
 * thread). */
static void report_death(const char *event, bool any_thread)
{
    const char *instance = NULL, *call = NULL;
    bool in_call = any_thread ? rtcosim_component_any_call(&instance, &call)
                              : rtcosim_component_current_call(&instance, &call);
    put("rtcosim: ");
    put(guard_what ? guard_what : "run");
    put(": ");
    if (in_call) {
        put("component '");
        put(instance);
        put("' in ");
        put(call);
        put(": ");
        put(event);
    } else {
        put(event);
        put(" outside any component call");
    }
    put("; the rows computed so far are in the results file\n");
}

static char timeout_event[256];

static void on_step_timeout(int signo)
{
    (void)signo;
    rtcosim_recorder_flush_all_signal_safe();
    rtcosim_isolate_kill_all(); /* a hung isolated FMU ends with the run */
    report_death(timeout_event, true);
    _exit(CLI_EXIT_STEP_TIMEOUT);
}

static void on_fatal(int signo)
{
    rtcosim_recorder_flush_all_signal_safe();
    const char *event = signo == SIGSEGV   ? "crashed (SIGSEGV)"
                        : signo == SIGBUS  ? "crashed (SIGBUS)"
                        : signo == SIGFPE  ? "crashed (SIGFPE)"
                        : signo == SIGILL  ? "crashed (SIGILL)"
                                           : "aborted (SIGABRT)";
    report_death(event, false);
    signal(signo, SIG_DFL);
    raise(signo); /* die of it: the parent sees the real cause */
}

static void on_exit_during_run(void)
{
    if (!atomic_load(&guard_active))
        return;
    rtcosim_recorder_flush_all_signal_safe();
    rtcosim_isolate_kill_all();
    report_death("called exit()", false);
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

/* --- --step-timeout ---------------------------------------------------------- */

static atomic_llong last_beat_ms;
static atomic_int watchdog_quit;
static pthread_t watchdog_thread, watched_thread;
static bool watchdog_running;
static long long timeout_ms;
static void (*watchdog_describe)(char *, size_t);

void cli_watchdog_describe(void (*describe)(char *event, size_t size))
{
    watchdog_describe = describe;
}

static long long monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cli_watchdog_beat(void)
{
    if (watchdog_running)
        atomic_store_explicit(&last_beat_ms, monotonic_ms(), memory_order_relaxed);
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    long long period = timeout_ms / 4 < 50 ? (timeout_ms / 4 > 0 ? timeout_ms / 4 : 1) : 50;
    while (!atomic_load(&watchdog_quit)) {
        struct timespec pause = {(time_t)(period / 1000), (long)(period % 1000) * 1000000L};
        nanosleep(&pause, NULL);
        if (monotonic_ms() - atomic_load(&last_beat_ms) > timeout_ms && !atomic_load(&watchdog_quit)) {
            if (watchdog_describe) /* here, not in the handler: may read files */
                watchdog_describe(timeout_event, sizeof timeout_event);
            pthread_kill(watched_thread, SIGUSR2);
            return NULL;
        }
    }
    return NULL;
}

int cli_parse_step_timeout(const char *text, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (!*text || *end || !isfinite(v) || v <= 0 || v > 1e6)
        return cli_fail("--step-timeout: '%s' is not a number of seconds > 0", text);
    *out = v;
    return 0;
}

int cli_watchdog_start(double seconds)
{
    if (seconds <= 0)
        return 0;
    timeout_ms = (long long)ceil(seconds * 1000.0);
    snprintf(timeout_event, sizeof timeout_event,
             "did not return within %g s (--step-timeout)", seconds);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_step_timeout;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    watched_thread = pthread_self();
    atomic_store(&watchdog_quit, 0);
    watchdog_running = true;
    cli_watchdog_beat();
    int rc = pthread_create(&watchdog_thread, NULL, watchdog_main, NULL);
    if (rc) {
        watchdog_running = false;
        return cli_fail("--step-timeout: cannot start the watchdog thread: %s", strerror(rc));
    }
    return 0;
}

void cli_watchdog_stop(void)
{
    if (!watchdog_running)
        return;
    atomic_store(&watchdog_quit, 1);
    pthread_join(watchdog_thread, NULL);
    watchdog_running = false;
    signal(SIGUSR2, SIG_DFL);
}
