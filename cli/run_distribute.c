/* `rtcosim run --distribute` (run_distribute.h): the MPI transport and the
 * placement of components on ranks, the summary line, and ending the job
 * when a failure did not reach every rank. */
#include "run_distribute.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "signals.h"
#include "archive/archive.h"
#include "rtcosim/mpi.h"

static const cli_distribute *watched; /* for describe_stall */

/* The watchdog's text when this rank waited too long: name the ranks on this
 * machine that are stopped (SIGSTOP, a debugger) or gone, from /proc. */
static void describe_stall(char *event, size_t size)
{
    char named[200] = "";
    size_t used = 0;
    for (int r = 0; watched && r < watched->transport.size; r++) {
        long pid = rtcosim_mpi_peer_pid(r);
        if (r == watched->transport.rank || pid <= 0)
            continue;
        char path[64], stat[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
        if (f)
            fclose(f);
        stat[n] = '\0';
        const char *paren = strrchr(stat, ')'); /* "pid (comm) S ..." */
        char state = paren && paren[1] == ' ' ? paren[2] : '?';
        const char *what = !f ? "is gone" : state == 'T' || state == 't' ? "is stopped"
                           : state == 'Z' ? "is gone" : NULL;
        if (what && used < sizeof named)
            used += (size_t)snprintf(named + used, sizeof named - used, "%srank %d (pid %ld) %s",
                                     used ? ", " : "", r, pid, what);
    }
    double seconds = 0;
    sscanf(event, "did not return within %lf", &seconds);
    if (used)
        snprintf(event, size, "waited %g s (--step-timeout) for the other ranks: %s", seconds,
                 named);
    else
        snprintf(event, size, "waited %g s (--step-timeout) for the other ranks (none of them "
                 "on this machine is stopped)", seconds);
}

/* A rank ended at once (mpirun's SIGTERM, the step watchdog, SIGKILL after
 * another rank failed) cannot remove its FMU extraction directories
 * (rtcosim-fmu-*, with owner marks). A small child started before MPI, in a
 * session of its own and holding none of the job's output, waits for this
 * process to end (its pipe's write end closes with it), then removes the
 * rtcosim-* directories whose owner is dead: this rank's. */
static void start_sweeper(void)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    pid_t rank = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int null = open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3 && null >= 0; fd++)
            dup2(null, fd);
        for (int fd = 3; fd < 1024; fd++)
            if (fd != p[0])
                close(fd);
        char c;
        while (read(p[0], &c, 1) < 0 && errno == EINTR) {
        }
        /* until the rank is reaped (a zombie still answers kill 0) */
        for (int i = 0; i < 1000 && !(kill(rank, 0) != 0 && errno == ESRCH); i++)
            usleep(10000);
        const char *tmp = getenv("TMPDIR");
        rtcosim_archive_remove_stale(tmp && *tmp ? tmp : "/tmp");
        _exit(0);
    }
    close(p[0]);
    if (pid < 0)
        close(p[1]);
    else
        fcntl(p[1], F_SETFD, FD_CLOEXEC); /* open until this process ends */
}

int cli_distribute_open(cli_distribute *d, const char *system, const char **output_file,
                        bool *quiet)
{
    if (!d->enabled)
        return 0;
    rtcosim_error err = {0};
    if (!rtcosim_mpi_launched())
        return cli_fail("run: --distribute needs a start under mpirun (mpirun -np N rtcosim run"
                        " ... --distribute)");
    start_sweeper(); /* before MPI_Init: no fork inside an MPI process */
    if (rtcosim_mpi_transport_open(&d->transport, &err) != RTCOSIM_OK ||
        rtcosim_distribution_create(&d->transport, &d->dist, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    snprintf(d->what, sizeof d->what, "%s on rank %d", system, d->transport.rank);
    watched = d;
    cli_watchdog_describe(describe_stall);
    for (size_t i = 0; i < d->place_count; i++) {
        const char *eq = strrchr(d->places[i], '=');
        char *end = NULL, name[256];
        long rank = eq ? strtol(eq + 1, &end, 10) : -1;
        if (!eq || !end || *end || end == eq + 1 || (size_t)(eq - d->places[i]) >= sizeof name)
            return cli_fail("--place needs COMPONENT=RANK, got '%s'", d->places[i]);
        memcpy(name, d->places[i], (size_t)(eq - d->places[i]));
        name[eq - d->places[i]] = 0;
        if (rtcosim_distribution_place(d->dist, name, rank > 1 << 20 ? -1 : (int)rank, &err) !=
            RTCOSIM_OK)
            return cli_fail_error(&err);
    }
    if (d->transport.rank != 0) {
        *output_file = NULL;
        *quiet = true;
        if (!freopen("/dev/null", "w", stdout))
            return cli_fail("run: cannot silence rank %d's output", d->transport.rank);
    }
    return 0;
}

void cli_distribute_summary(const cli_distribute *d, const rtcosim_master *m)
{
    if (!d->dist)
        return;
    uint64_t calls = 0;
    double in_exchange = 0;
    uint64_t steps = rtcosim_master_step_count(m);
    rtcosim_distribution_stats(d->dist, &calls, &in_exchange);
    printf("distributed over %d ranks:", d->transport.size);
    for (size_t i = 0; i < rtcosim_distribution_count(d->dist); i++) {
        const char *name = rtcosim_distribution_name(d->dist, i);
        printf(" %s=%d", name, rtcosim_distribution_rank_of(d->dist, name));
    }
    printf("; %llu exchanges (%.2f per macro step), rank 0 spent %.3f us per macro step in"
           " them\n", (unsigned long long)calls, steps ? (double)calls / (double)steps : 0.0,
           steps ? in_exchange * 1e6 / (double)steps : 0.0);
}

void cli_distribute_end(cli_distribute *d, int rc)
{
    if (rc != 0 && d->dist && !rtcosim_distribution_failure_shared(d->dist)) {
        fflush(NULL);
        rtcosim_mpi_abort(rc);
    }
}

void cli_distribute_close(cli_distribute *d)
{
    if (!d->enabled || d->transport.size == 0)
        return;
    rtcosim_distribution_free(d->dist);
    d->dist = NULL;
    rtcosim_mpi_transport_close(&d->transport);
}
