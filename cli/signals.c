/* SIGINT/SIGTERM handling of `run` and `simulate` (signals.h). The handler
 * only stores the signal number (a lock-free atomic store) or, on a second
 * signal, writes a fixed message and _exit()s: both async-signal-safe
 * (POSIX.1-2017 2.4.3). */
#include "signals.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
