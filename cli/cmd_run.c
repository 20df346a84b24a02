/* `rtcosim run SYSTEM.ssd|.ssp`: builds the master from an SSP system
 * description (command-line settings over the file's rtcosim annotation),
 * runs it, streams the observed outputs to CSV and prints a short summary.
 * With --real-time it runs paced to the wall clock through system_rt.h, with
 * a non-real-time part, estimates and a timing/estimation report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "signals.h"
#include "rtcosim/fmu.h"
#include "run_distribute.h"
#include "run_isolate.h"
#include "run_speculate.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/dcp.h"
#include "rtcosim/results.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim run SYSTEM.ssd|SYSTEM.ssp [options]\n\n"
            "Runs an SSP 1.0 system. Settings on the command line override the system's\n"
            "org.rtcosim.master annotation.\n\n"
            "options:\n"
            "  --start-time S          start time (default: DefaultExperiment or 0)\n"
            "  --stop-time S           stop time (default: DefaultExperiment)\n"
            "  --step-size S           macro step H (else: org.rtcosim.master stepSize, OSP\n"
            "                          FixedStepMaster stepSize, ssd:DefaultExperiment stepSize,\n"
            "                          smallest component default-experiment step; the summary\n"
            "                          says which)\n"
            "  --order O               jacobi | gauss-seidel\n"
            "  --coupling C            input extrapolation: zoh | foh | soh\n"
            "  --correction C          none | energy (= dead-time) | dead-time | integrator\n"
            "  --step-input S          mean | start: what a component that cannot take input\n"
            "                          derivatives receives of a foh/soh estimate over its step\n"
            "                          [t, t+H]: the estimate's mean over the step (default: the\n"
            "                          same impulse, no lag) or its value at t (a sampled input;\n"
            "                          lags a ramp by H/2). zoh passes the held sample bit for\n"
            "                          bit either way\n"
            "  --step-control          adaptive macro step\n"
            "  --threads N|auto        step components on up to N threads (auto: the CPUs):\n"
            "                          Jacobi all at once, Gauss-Seidel one dependency level\n"
            "                          at a time; balanced by measured step cost, one thread\n"
            "                          while that is faster (see the summary's threads line)\n"
            "  --parameter-set F.ssv   apply a parameter set (names component.variable); repeatable\n"
            "  --start-value NAME V    start value of component.variable; repeatable\n"
            "  --output-file F.csv     write the observed variables (fmusim CSV)\n"
            "  --distribute            under `mpirun -np N`: each component on one rank (round\n"
            "                          robin in system order, or --place COMP=RANK); outputs\n"
            "                          cross ranks once per macro step (Jacobi: one exchange\n"
            "                          of every value read on another rank; Gauss-Seidel: sent\n"
            "                          along the order to the ranks reading them); rank 0\n"
            "                          writes the results, bit-identical to one process; a\n"
            "                          failing or dying rank ends all, naming component and\n"
            "                          rank; a component asking to terminate ends all ranks\n"
            "                          in the same step, as in one process\n"
            "  --output-variable NAME  observe component.variable (repeatable; default: every\n"
            "                          output; in real time those the paced thread sees)\n"
            "  --output-interval S     write every S seconds (a multiple of H; default: every step)\n"
            "  --step-timeout S        end the run (rows so far written, exit code 5) when one\n"
            "                          macro step (or the initialization) takes longer than S s\n"
            "  --log-level L           error | warning | info | debug | trace\n"
            "  -q, --quiet             no progress line (shown on a terminal: percent of the\n"
            "                          simulated interval, speed, estimated time left)\n"
            "  --allow-outside         let a .ssp reference FMUs and parameter sets outside the\n"
            "                          package (absolute, file://, ../); refused by default\n"
            "  --strict                refuse FMUs whose modelDescription.xml breaks a rule that\n"
            "                          is otherwise only a warning (see rtcosim simulate --help)\n"
            "  --dcp C=HOST:PORT       component C runs on a DCP slave there (rtcosim dcp-slave),\n"
            "                          over UDP/IPv4; C=tcp://HOST:PORT over TCP/IPv4;\n"
            "                          driven in NRT lock step; repeatable. With --real-time C\n"
            "                          must be --non-realtime: the remote slave is the partner,\n"
            "                          stepped on the partner thread, never waited for\n"
            "  --dcp-mode srt|nrt      real-time runs: how the remote partner runs (default srt:\n"
            "                          DCP soft real time, the slave steps on its own clock and\n"
            "                          streams its outputs; nrt: lock step per partner step;\n"
            "                          a slave that refuses SRT falls back to nrt with an info\n"
            "                          line; --virtual-clock runs use nrt)\n"
            "  --isolate [C[,C..]]     run every FMU component (or those named; a list follows\n"
            "                          the system, or --isolate=C,..) in a child process\n"
            "                          (rtcosim host-fmu): a crash, abort or exit there is an\n"
            "                          error naming component, FMI call and time, rows kept;\n"
            "                          results are bit-identical (also with --speculate)\n\n"
            "A component that asks to end the run (FMI terminateSimulation, or a discarded step\n"
            "with fmi2Terminated / terminateSimulation) ends it normally: the run stops at the\n"
            "last time every component reached, the summary names the component, exit code 0.\n\n"
            "speculation (fixed steps, coupling without correction; see master_speculate.h):\n"
            "  --speculate             each component (on --threads threads, default one each up\n"
            "                          to the processor count) predicts the inputs it\n"
            "                          lacks, runs ahead and rolls back partially on arrival;\n"
            "                          components that cannot save state run conservatively\n"
            "  --threshold Tc          cumulative input error allowed in kept steps (default 0:\n"
            "                          results bit-identical to the plain run)\n"
            "  --horizon M             steps a component may run ahead (default 16)\n"
            "  --speculate-stats F.csv per-component statistics (rollback depths, prediction error)\n"
            "  --reference             also run plain and report the committed results' error\n\n"
            "real time (settings also from the org.rtcosim.realtime annotation, see system.h):\n"
            "  --real-time             pace the run to the wall clock (frame = macro step H)\n"
            "  --rt-factor K           run at K times real time (default 1)\n"
            "  --overrun P             soft | catch-up | skip | fail (default soft)\n"
            "  --non-realtime C[,C..]  components that run on their own thread, on virtual time\n"
            "                          tv; repeatable. Their FMUs run isolated (as with\n"
            "                          --isolate): one that crashes, aborts or exits makes the\n"
            "                          partner lost (exit code 3), the real-time part goes on\n"
            "  --no-isolate            run the partner's FMUs in process instead (also over\n"
            "                          the annotation's rc:Master isolate=\"all\" or \"C,..\")\n"
            "  --exchange-every N      exchange with the non-real-time part every N frames\n"
            "  --exchange-pattern P    frames between exchanges, repeated: 2,1 = after 2, then 1\n"
            "  --estimator E           zoh | foh | soh | map:FILE, with modifiers (e.g.\n"
            "                          foh,max=10,horizon=0.005; see estimate.h)\n"
            "  --partner-timeout S     declare the non-real-time part lost after S s without data\n"
            "  --rt-report DIR         write summary/frames/overruns/estimates CSV files there\n"
            "  --no-calibrate          skip the check that the real-time part fits its frame\n"
            "  --inject-delay C:SPEC   make component C slow (testing): mean=F,late=F,min=F,\n"
            "                          max=F,seed=N,schedule=S/S/..,fail=N,hang=N; repeatable\n"
            "  --rt-option NAME VALUE  any executor option (priority, cpu, partner-cpu,\n"
            "                          lock-memory, busy-wait, tv-includes-step; see realtime.h)\n\n"
            "SIGINT/SIGTERM (Ctrl-C) end the run at the next step (real time: frame): the\n"
            "results so far, the report and the summary are written, temporary files removed;\n"
            "a second signal exits at once. A lost partner whose thread does not return from\n"
            "its component call within --partner-timeout after the run is abandoned.\n\n"
            "exit codes: 0 ran to the end (or a component asked to end it); 1 error; 2 bad\n"
            "command line; 3 real time: the non-real-time partner was lost (the real-time\n"
            "part ran on estimates; results complete); 4 real time: a deadline was missed\n"
            "under --overrun fail; 5 --step-timeout passed; 130 / 143 ended by SIGINT /\n"
            "SIGTERM (results so far kept).\n"
            "A component that crashes gets the rows so far written and a line naming it and\n"
            "its FMI call before the process dies of the signal; exit() in one gives 1.\n");
}

typedef struct run_output {
    rtcosim_recorder *recorder;
    rtcosim_value *row;
    size_t count;
    cli_progress progress;
} run_output;

static rtcosim_status record_row(void *context, rtcosim_time_ns t, const double *values,
                                 size_t count, rtcosim_error *err)
{
    run_output *out = context;
    cli_progress_update(&out->progress, t);
    cli_watchdog_beat();
    int signo = atomic_load_explicit(&cli_stop_signal, memory_order_relaxed);
    if (signo)
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "interrupted by %s",
                                 cli_signal_name(signo));
    if (!out->recorder)
        return RTCOSIM_OK;
    /* Every row is pushed (the recorder counts them for its decimation);
     * values are only gathered for the rows it keeps. */
    if (rtcosim_recorder_wants_row(out->recorder))
        for (size_t i = 0; i < count && i < out->count; i++)
            out->row[i].f64 = values[i];
    return rtcosim_recorder_push_row(out->recorder, t, out->row, err);
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_time_option(const char *option, const char *text, rtcosim_time_ns *out)
{
    rtcosim_error err;
    if (rtcosim_time_parse_seconds(text, out, &err) != RTCOSIM_OK)
        return cli_fail("%s: %s", option, err.message);
    return 0;
}

typedef struct run_args {
    const char *system;
    bool has_start, has_stop, has_interval;
    rtcosim_time_ns start, stop, interval;
    rtcosim_system_build_options build;
    rtcosim_fmu_options fmu_options; /* build.fmu points here when given */
    rtcosim_dcp_bindings *dcp; /* --dcp */
    const char **parameter_sets;
    size_t parameter_set_count;
    const char **start_names, **start_values;
    size_t start_count;
    const char **observe;
    size_t observe_count;
    const char *output_file;
    double step_timeout; /* s; 0: none */
    bool allow_outside;  /* a .ssp may reference files outside the package */
    /* Real time. */
    bool real_time, virtual_clock, no_calibrate, quiet;
    const char *dcp_mode; /* --dcp-mode: "srt", "nrt" or NULL */
    bool threads_auto; /* --threads auto */
    bool given_factor, given_overrun, given_timeout; /* over the annotation */
    rtcosim_rt_options rt;
    char non_realtime[4096];
    char exchange[256];
    const char *estimator;
    rtcosim_system_rt_delay *delays;
    rtcosim_time_ns **schedules;
    size_t delay_count;
    cli_speculate speculate;
    cli_distribute distribute; /* --distribute over the ranks of mpirun, --place COMP=RANK */
    bool isolate, no_isolate;  /* --isolate [C,..], --no-isolate */
    run_isolation *isolation;  /* the selection (mutable: the build's wrap context) */
} run_args;

static int parse_args(int argc, char **argv, run_args *a)
{
    rtcosim_ssd_master_settings *o = &a->build.overrides;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (strcmp(opt, "--step-control") == 0) {
            o->has_step_control = o->step_control = true;
            continue;
        }
        if (strcmp(opt, "--quiet") == 0 || strcmp(opt, "-q") == 0) {
            a->quiet = true;
            continue;
        }
        if (strcmp(opt, "--distribute") == 0) {
            a->distribute.enabled = true;
            continue;
        }
        if (strcmp(opt, "--allow-outside") == 0) {
            a->allow_outside = true;
            continue;
        }
        if (strcmp(opt, "--strict") == 0) {
            a->fmu_options.strict = true;
            a->build.fmu = &a->fmu_options;
            continue;
        }
        if (cli_speculate_flag(&a->speculate, opt))
            continue;
        if (strcmp(opt, "--real-time") == 0 || strcmp(opt, "--virtual-clock") == 0 ||
            strcmp(opt, "--no-calibrate") == 0) {
            a->real_time = a->real_time || strcmp(opt, "--real-time") == 0;
            a->virtual_clock = a->virtual_clock || strcmp(opt, "--virtual-clock") == 0;
            a->no_calibrate = a->no_calibrate || strcmp(opt, "--no-calibrate") == 0;
            continue;
        }
        if (strcmp(opt, "--isolate") == 0 || strncmp(opt, "--isolate=", 10) == 0) {
            /* A list follows when given as --isolate=C,.. or after the system. */
            const char *list = opt[9] == '=' ? opt + 10 : NULL;
            if (!list && a->system && val && val[0] != '-')
                list = argv[++i];
            a->isolate = true;
            if (!list)
                a->isolation->all = true;
            else if (run_isolation_add(a->isolation, list))
                return 1;
            continue;
        }
        if (strcmp(opt, "--no-isolate") == 0) {
            a->no_isolate = true;
            continue;
        }
        if (opt[0] != '-' || opt[1] != '-') {
            if (a->system)
                return cli_fail("run: more than one system given ('%s' and '%s')", a->system, opt);
            a->system = opt;
            continue;
        }
        if (!val)
            return cli_fail("run: %s needs a value (see rtcosim run --help)", opt);
        i++;
        int spec = cli_speculate_option(&a->speculate, opt, val);
        if (spec < 0)
            return 1;
        if (spec > 0) {
        } else if (strcmp(opt, "--start-time") == 0) {
            rc = parse_time_option(opt, val, &a->start);
            a->has_start = true;
        } else if (strcmp(opt, "--stop-time") == 0) {
            rc = parse_time_option(opt, val, &a->stop);
            a->has_stop = true;
        } else if (strcmp(opt, "--dcp") == 0) {
            rtcosim_error err;
            if (rtcosim_dcp_bindings_add(&a->dcp, val, &err) != RTCOSIM_OK)
                rc = cli_fail("%s", err.message);
        } else if (strcmp(opt, "--dcp-mode") == 0) {
            if (strcmp(val, "srt") != 0 && strcmp(val, "nrt") != 0)
                rc = cli_fail("--dcp-mode: wants srt or nrt, got '%s'", val);
            a->dcp_mode = val;
        } else if (strcmp(opt, "--step-size") == 0) {
            rc = parse_time_option(opt, val, &o->step_size_ns);
            o->has_step_size = true;
            if (rc == 0 && o->step_size_ns <= 0)
                rc = cli_fail("--step-size must be positive");
        } else if (strcmp(opt, "--output-interval") == 0) {
            rc = parse_time_option(opt, val, &a->interval);
            a->has_interval = true;
            if (rc == 0 && a->interval <= 0)
                rc = cli_fail("--output-interval must be positive");
        } else if (strcmp(opt, "--order") == 0) {
            if (strcmp(val, "jacobi") == 0)
                o->order = RTCOSIM_SSD_ORDER_JACOBI;
            else if (strcmp(val, "gauss-seidel") == 0)
                o->order = RTCOSIM_SSD_ORDER_GAUSS_SEIDEL;
            else
                rc = cli_fail("--order: unknown order '%s' (jacobi, gauss-seidel)", val);
        } else if (strcmp(opt, "--coupling") == 0) {
            if (strcmp(val, "zoh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_ZOH;
            else if (strcmp(val, "foh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_FOH;
            else if (strcmp(val, "soh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_SOH;
            else
                rc = cli_fail("--coupling: unknown coupling '%s' (zoh, foh, soh)", val);
        } else if (strcmp(opt, "--correction") == 0) {
            if (strcmp(val, "none") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_NONE;
            else if (strcmp(val, "energy") == 0 || strcmp(val, "dead-time") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_DEAD_TIME;
            else if (strcmp(val, "integrator") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_INTEGRATOR;
            else
                rc = cli_fail("--correction: unknown correction '%s' (none, energy, dead-time, "
                              "integrator)", val);
        } else if (strcmp(opt, "--step-input") == 0) {
            if (strcmp(val, "mean") == 0)
                o->step_input = RTCOSIM_SSD_STEP_INPUT_MEAN;
            else if (strcmp(val, "start") == 0)
                o->step_input = RTCOSIM_SSD_STEP_INPUT_START;
            else
                rc = cli_fail("--step-input: unknown step input '%s' (mean, start)", val);
        } else if (strcmp(opt, "--threads") == 0) {
            char *end = NULL;
            long n = strtol(val, &end, 10);
            a->threads_auto = strcmp(val, "auto") == 0;
            if (a->threads_auto)
                o->threads = 0;
            else if (!*val || *end || n < 1 || n > 256)
                rc = cli_fail("--threads: '%s' is not a thread count (1..256 or auto)", val);
            else
                o->threads = (int)n;
        } else if (strcmp(opt, "--parameter-set") == 0) {
            a->parameter_sets[a->parameter_set_count++] = val;
        } else if (strcmp(opt, "--start-value") == 0) {
            if (i + 1 >= argc)
                return cli_fail("--start-value needs NAME and VALUE");
            a->start_names[a->start_count] = val;
            a->start_values[a->start_count++] = argv[++i];
        } else if (strcmp(opt, "--output-file") == 0) {
            a->output_file = val;
        } else if (strcmp(opt, "--place") == 0) {
            a->distribute.places[a->distribute.place_count++] = val;
        } else if (strcmp(opt, "--step-timeout") == 0) {
            rc = cli_parse_step_timeout(val, &a->step_timeout);
        } else if (strcmp(opt, "--output-variable") == 0) {
            a->observe[a->observe_count++] = val;
        } else if (strcmp(opt, "--rt-factor") == 0 || strcmp(opt, "--overrun") == 0 ||
                   strcmp(opt, "--partner-timeout") == 0) {
            rtcosim_error err;
            const char *name = opt + 2; /* the executor's option of the same name */
            a->given_factor = a->given_factor || strcmp(opt, "--rt-factor") == 0;
            a->given_overrun = a->given_overrun || strcmp(opt, "--overrun") == 0;
            a->given_timeout = a->given_timeout || strcmp(opt, "--partner-timeout") == 0;
            if (rtcosim_rt_option_set(&a->rt, name, val, &err) != RTCOSIM_OK)
                rc = cli_fail("%s", err.message); /* names the option already */
        } else if (strcmp(opt, "--rt-option") == 0) {
            rtcosim_error err;
            if (i + 1 >= argc)
                return cli_fail("--rt-option needs NAME and VALUE");
            const char *value = argv[++i];
            if (rtcosim_rt_option_set(&a->rt, val, value, &err) != RTCOSIM_OK)
                rc = cli_fail("--rt-option: %s", err.message);
        } else if (strcmp(opt, "--non-realtime") == 0) {
            size_t used = strlen(a->non_realtime);
            if (used + strlen(val) + 2 > sizeof a->non_realtime)
                rc = cli_fail("--non-realtime: too many names");
            else
                snprintf(a->non_realtime + used, sizeof a->non_realtime - used, "%s%s",
                         used ? "," : "", val);
        } else if (strcmp(opt, "--exchange-every") == 0 ||
                   strcmp(opt, "--exchange-pattern") == 0) {
            char *end = NULL;
            if (strcmp(opt, "--exchange-every") == 0 && (strtol(val, &end, 10) < 1 || *end))
                rc = cli_fail("--exchange-every: '%s' is not a frame count (1, 2, ...)", val);
            /* The executor spells a pattern 2-1; the CLI accepts 2,1 too. */
            snprintf(a->exchange, sizeof a->exchange, "%s", val);
            for (char *p = a->exchange; *p; p++)
                if (*p == ',')
                    *p = '-';
        } else if (strcmp(opt, "--estimator") == 0) {
            a->estimator = val;
        } else if (strcmp(opt, "--rt-report") == 0) {
            a->rt.report_dir = val;
        } else if (strcmp(opt, "--inject-delay") == 0) {
            rtcosim_error err;
            rtcosim_system_rt_delay *d = &a->delays[a->delay_count];
            if (rtcosim_system_rt_delay_parse(val, d, &a->schedules[a->delay_count], &err) !=
                RTCOSIM_OK)
                rc = cli_fail("--inject-delay: %s", err.message);
            else
                a->delay_count++;
        } else if (strcmp(opt, "--log-level") == 0) {
            rtcosim_log_level level;
            if (rtcosim_log_level_parse(val, &level) != 0)
                rc = cli_fail("--log-level: unknown level '%s'", val);
            else
                rtcosim_log_set_level(level);
        } else {
            rc = cli_fail("run: unknown option '%s' (see rtcosim run --help)", opt);
        }
        if (rc)
            return rc;
    }
    if (!a->system) {
        usage(stderr);
        return cli_fail("run: no system file given");
    }
    if (a->isolate && a->no_isolate)
        return cli_fail("run: --isolate and --no-isolate cannot be combined");
    if (a->real_time && a->step_timeout > 0)
        return cli_fail("run: --step-timeout is for offline runs (real time: --partner-timeout)");
    if (!a->real_time && (a->non_realtime[0] || a->exchange[0] || a->estimator ||
                          a->rt.report_dir || a->delay_count || a->virtual_clock))
        return cli_fail("run: real-time options need --real-time");
    if (a->dcp_mode && !a->real_time)
        return cli_fail("run: --dcp-mode needs --real-time");
    if (a->dcp_mode && strcmp(a->dcp_mode, "srt") == 0 && a->virtual_clock)
        return cli_fail("run: --dcp-mode srt steps the slave on its wall clock: not with "
                        "--virtual-clock");
    if (a->speculate.given && !a->speculate.enabled)
        return cli_fail("run: --threshold, --horizon, --speculate-stats and --reference need "
                        "--speculate");
    if (a->speculate.enabled && a->real_time)
        return cli_fail("run: --speculate and --real-time cannot be combined");
    if (a->distribute.place_count && !a->distribute.enabled)
        return cli_fail("run: --place needs --distribute");
    if (a->distribute.enabled && (a->real_time || a->speculate.enabled || a->dcp))
        return cli_fail("run: --distribute cannot be combined with --real-time, --speculate or"
                        " --dcp");
    if (a->distribute.enabled && (a->threads_auto || o->threads > 1))
        return cli_fail("run: --distribute steps each rank's components on one thread (no"
                        " --threads)");
    if (a->distribute.enabled)
        o->threads = 1; /* the proxies broadcast from the master's thread only */
    a->speculate.threads = o->threads > 0 ? (unsigned)o->threads : 0;
    return 0;
}

static void print_columns(const rtcosim_system_rt *srt)
{
    const double *final = rtcosim_system_rt_last_values(srt);
    size_t n = rtcosim_system_rt_column_count(srt);
    for (size_t i = 0; i < n && i < 12; i++)
        printf("  %-32s %.9g\n", rtcosim_system_rt_column_name(srt, i), final[i]);
    if (n > 12)
        printf("  ... and %zu more\n", n - 12);
}

/* --real-time: the executor's options from the command line, the system's
 * part split and the results file; prints the timing and estimation summary. */
static rtcosim_time_ns read_rt_progress(void *progress)
{
    return atomic_load_explicit((_Atomic rtcosim_time_ns *)progress, memory_order_relaxed);
}

static int run_real_time(const run_args *a, const rtcosim_system_desc *desc, rtcosim_time_ns start,
                         rtcosim_time_ns stop)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_system_rt_options so;
    rtcosim_system_rt_options_init(&so);
    so.rt = a->rt;
    /* The system's rc:RealTime settings, then the command line over them. */
    const rtcosim_ssd_realtime_settings *ann = rtcosim_system_desc_realtime(desc);
    if (ann->has_rt_factor && !a->given_factor)
        so.rt.rt_factor = ann->rt_factor;
    if (ann->has_overrun && !a->given_overrun)
        so.rt.overrun = (rtcosim_overrun_policy)ann->overrun;
    if (ann->has_partner_timeout && !a->given_timeout)
        so.rt.partner_timeout = ann->partner_timeout;
    so.rt.calibrate = !a->no_calibrate && (!ann->has_calibrate || ann->calibrate);
    so.rt.start_time = start;
    so.rt.stop_time = stop;
    so.rt.non_realtime = a->non_realtime[0] ? a->non_realtime : ann->non_realtime;
    const char *exchange = a->exchange[0] ? a->exchange : ann->exchange;
    const char *estimator = a->estimator ? a->estimator : ann->estimator;
    so.build = a->build;
    /* The partner's FMUs run isolated unless --no-isolate: one that crashes,
     * aborts or exits makes the partner lost, not the run. */
    run_isolation *iso = a->isolation;
    if (!a->no_isolate && so.rt.non_realtime)
        for (const char *p = so.rt.non_realtime; *p;) {
            size_t n = strcspn(p, ",");
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)n, p);
            int k = rtcosim_system_desc_find_component(desc, name);
            if (k >= 0 && rtcosim_system_desc_component(desc, (size_t)k)->path &&
                !run_isolation_selects(iso, name) && run_isolation_add(iso, name))
                return CLI_EXIT_ERROR;
            p += n + (p[n] == ',');
        }
    if (run_isolation_active(iso) && run_isolation_prepare(iso, desc))
        return CLI_EXIT_ERROR;
    if (run_isolation_active(iso)) {
        so.build.wrap = run_isolation_wrap;
        so.build.wrap_context = iso;
    }
    so.build.observe = a->observe;
    so.build.observe_count = a->observe_count;
    so.start_names = (const char *const *)a->start_names;
    so.start_values = (const char *const *)a->start_values;
    so.start_count = a->start_count;
    so.output_file = a->output_file;
    so.output_interval = a->has_interval ? a->interval : 0;
    so.delays = a->delays;
    so.delay_count = a->delay_count;
    so.threads_auto = a->threads_auto;
    if (exchange && rtcosim_exchange_pattern_parse(exchange, &so.rt.exchange, &err) != RTCOSIM_OK)
        return cli_fail("--exchange-pattern: %s", err.message);
    if (estimator && rtcosim_estimator_spec_parse(estimator, &so.rt.estimator, &err) != RTCOSIM_OK)
        return cli_fail("--estimator: %s", err.message);
    if (cli_check_output_dir("--rt-report", so.rt.report_dir))
        return CLI_EXIT_ERROR;
    rtcosim_clock *pacing = NULL, *partner = NULL;
    if (a->virtual_clock &&
        (rtcosim_clock_create_virtual(0, &pacing, &err) != RTCOSIM_OK ||
         rtcosim_clock_create_virtual(0, &partner, &err) != RTCOSIM_OK)) {
        rtcosim_clock_free(pacing);
        return cli_fail_error(&err);
    }
    so.rt.clock = pacing;
    so.rt.partner_clock = partner;
    so.rt.stop_request = &cli_stop_signal;
    static _Atomic rtcosim_time_ns rt_progress;
    atomic_store(&rt_progress, start);
    so.rt.progress = &rt_progress;
    rtcosim_system_rt *srt = NULL;
    rtcosim_dcp_bindings *own_dcp = NULL;
    int rc = 0;
    /* The non-real-time part's components bound to remote slaves (--dcp) or
     * from a .dcpx: empty bindings still make the latter SRT partners. */
    rtcosim_dcp_bindings *dcp = a->dcp;
    if (!dcp && rtcosim_dcp_bindings_create(&own_dcp, &err) != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    dcp = dcp ? dcp : own_dcp;
    so.partner_wrap = rtcosim_dcp_bindings_wrap;
    so.partner_wrap_context = dcp;
    rtcosim_dcp_bindings_hold_lost_outputs(dcp, true);
    rtcosim_dcp_bindings_soft_real_time(dcp, !a->virtual_clock &&
                                                 (!a->dcp_mode || strcmp(a->dcp_mode, "srt") == 0));
    so.partner_prepare = rtcosim_dcp_bindings_partner_prepare;
    double wall_start = wall_seconds();
    if (rtcosim_system_rt_create(desc, &so, &srt, &err) != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    const char *unused = rtcosim_dcp_bindings_unused(a->dcp);
    if (unused) {
        rc = rtcosim_system_desc_find_component(desc, unused) < 0
                 ? cli_fail("--dcp: the system has no component '%s'", unused)
                 : cli_fail("--dcp %s: in a real-time run only a non-real-time component "
                            "(--non-realtime %s) may be a remote slave", unused, unused);
        goto done;
    }
    rtcosim_time_ns H = rtcosim_system_rt_macro_step(srt);
    printf("system '%s': real-time part: %s; non-real-time part: %s; H = %.9g s%s\n",
           rtcosim_system_desc_name(desc), rtcosim_system_rt_part_names(srt, false),
           *rtcosim_system_rt_part_names(srt, true) ? rtcosim_system_rt_part_names(srt, true)
                                                    : "none",
           rtcosim_time_to_seconds(H), a->virtual_clock ? " (virtual clock)" : "");
    for (size_t i = 0; i < rtcosim_dcp_bindings_count(a->dcp); i++) {
        /* The mode the slave was registered in (a slave that refuses SRT runs NRT). */
        const char *name = rtcosim_dcp_bindings_component(a->dcp, i);
        const rtcosim_component *c = rtcosim_master_component(rtcosim_system_rt_part(srt, true), name);
        if (c && strcmp(rtcosim_component_kind(c), "dcp") == 0)
            printf("dcp: %s runs %s\n", name,
                   rtcosim_dcp_remote_op_mode(c) == RTCOSIM_DCP_OP_SRT
                       ? "in soft real time (SRT: on the slave's clock, outputs streamed)"
                       : "in NRT lock step (one exchange per partner step)");
    }
    fflush(stdout);
    cli_progress_watch progress = {0};
    cli_progress_watch_start(&progress, a->quiet, start, stop, read_rt_progress, &rt_progress);
    rtcosim_status st = rtcosim_system_rt_run(srt, &err);
    cli_progress_watch_stop(&progress);
    double wall = wall_seconds() - wall_start;
    const rtcosim_rt *rt = rtcosim_system_rt_executor(srt);
    if (rtcosim_rt_get_summary(rt)->frames == 0 && st != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    rtcosim_rt_print_summary(rt, stdout);
    printf("ran %.9g s of simulated time in %.3f s wall\n",
           rtcosim_time_to_seconds(rtcosim_rt_get_summary(rt)->stopped_at - start), wall);
    const rtcosim_master *partner_part = rtcosim_system_rt_part(srt, true);
    rtcosim_master_parallel par;
    if (partner_part && rtcosim_master_get_parallel(partner_part, &par, NULL) == RTCOSIM_OK &&
        (par.threads > 1 || par.automatic)) {
        char line[300];
        rtcosim_master_describe_parallel(partner_part, line, sizeof line);
        printf("non-real-time part %s; the real-time part steps on the paced thread alone\n",
               line);
    }
    /* What failed to be written is not announced as written. */
    bool results_failed = st != RTCOSIM_OK && a->output_file &&
                          strncmp(err.message, a->output_file, strlen(a->output_file)) == 0;
    bool report_failed = st != RTCOSIM_OK && so.rt.report_dir &&
                         strncmp(err.message, so.rt.report_dir, strlen(so.rt.report_dir)) == 0;
    if (a->output_file && !results_failed)
        printf("wrote %llu rows of %zu variables to %s\n",
               (unsigned long long)rtcosim_system_rt_rows_written(srt),
               rtcosim_system_rt_column_count(srt), a->output_file);
    if (so.rt.report_dir && !report_failed)
        printf("real-time report in %s/ (summary.csv, frames.csv, overruns.csv%s, timing.svg)\n",
               so.rt.report_dir,
               *rtcosim_system_rt_part_names(srt, true) ? ", estimates.csv, estimators.csv" : "");
    print_columns(srt);
    const rtcosim_rt_summary *sum = rtcosim_rt_get_summary(rt);
    int signo = atomic_load(&cli_stop_signal);
    if (st != RTCOSIM_OK) {
        rc = cli_fail("%s: %s (results so far kept)", a->system, err.message);
        if (st == RTCOSIM_ETIMEOUT && so.rt.overrun == RTCOSIM_OVERRUN_FAIL)
            rc = CLI_EXIT_DEADLINE;
    } else if (sum->interrupted && signo) {
        fprintf(stderr, "rtcosim: %s: interrupted by %s at te = %.6f s (results so far kept)\n",
                a->system, cli_signal_name(signo), rtcosim_time_to_seconds(sum->stopped_at));
        rc = cli_signal_exit_code(signo);
    } else if (sum->partner_lost) {
        fprintf(stderr, "rtcosim: %s: the non-real-time partner was lost at te = %.6f s (%s); "
                        "the real-time part ran on estimates\n",
                a->system, rtcosim_time_to_seconds(sum->partner_lost_at), sum->partner_lost_reason);
        rc = CLI_EXIT_PARTNER_LOST;
    }
    if (sum->partner_abandoned) {
        /* Its thread is still inside a component call: no teardown (unloading
         * the library under it, atexit handlers) while it runs. */
        rtcosim_system_rt_free(srt);
        fflush(NULL);
        _exit(rc);
    }
done:
    rtcosim_system_rt_free(srt);
    rtcosim_clock_free(pacing);
    rtcosim_clock_free(partner);
    rtcosim_dcp_bindings_free(own_dcp);
    return rc;
}

/* The master of the system with the command line's settings and start
 * values, initialized from start to stop; *step_origin (if given) says where
 * the macro step came from. `remote` binds the --dcp components to their
 * slaves (a slave serves one session, so the --reference master runs them
 * locally). */
static int make_master(const run_args *a, const rtcosim_system_desc *desc, rtcosim_time_ns start,
                       rtcosim_time_ns stop, rtcosim_ssd_step_origin *step_origin, bool remote,
                       rtcosim_master **out)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_system_build_options build = a->build;
    build.step_origin = step_origin;
    build.observe = a->observe;
    build.observe_count = a->observe_count;
    if (remote && a->dcp) {
        build.wrap = rtcosim_dcp_bindings_wrap;
        build.wrap_context = a->dcp;
    }
    if (a->distribute.dist) {
        build.wrap = rtcosim_distribution_wrap;
        build.wrap_context = a->distribute.dist;
    }
    if (run_isolation_active(a->isolation)) {
        /* Isolated first, then (if --dcp names it) bound to its slave. */
        a->isolation->next = build.wrap;
        a->isolation->next_context = build.wrap_context;
        build.wrap = run_isolation_wrap;
        build.wrap_context = a->isolation;
    }
    if (rtcosim_system_build_master(desc, &build, out, &err) != RTCOSIM_OK ||
        (a->distribute.dist &&
         rtcosim_distribution_check_placed(a->distribute.dist, &err) != RTCOSIM_OK) ||
        (remote && rtcosim_dcp_bindings_check_used(a->dcp, &err) != RTCOSIM_OK))
        return cli_fail_error(&err);
    for (size_t i = 0; i < a->start_count; i++)
        if (rtcosim_master_set_start_value(*out, a->start_names[i], a->start_values[i], &err) != RTCOSIM_OK)
            return cli_fail("--start-value: %s", err.message);
    if (a->threads_auto &&
        rtcosim_master_set_threads(*out, RTCOSIM_MASTER_THREADS_AUTO, &err) != RTCOSIM_OK)
        return cli_fail("--threads: %s", err.message);
    if (rtcosim_master_initialize(*out, start, stop, &err) != RTCOSIM_OK)
        return cli_fail("%s: %s", a->system, err.message);
    return 0;
}

static int run_system(const run_args *a)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_system_desc *desc = NULL;
    rtcosim_master *m = NULL, *reference = NULL;
    run_output out = {0};
    int rc = 0;
    /* Results must never overwrite an input: the system, its parameter sets. */
    {
        const char **inputs = calloc(a->parameter_set_count + 1, sizeof *inputs);
        if (!inputs)
            return cli_fail("out of memory");
        inputs[0] = a->system;
        for (size_t i = 0; i < a->parameter_set_count; i++)
            inputs[i + 1] = a->parameter_sets[i];
        int bad = cli_check_output_not_input("--output-file", a->output_file, inputs,
                                             a->parameter_set_count + 1);
        free(inputs);
        if (bad)
            return bad;
    }
    const rtcosim_system_load_options load = {.allow_outside = a->allow_outside};
    if (rtcosim_system_desc_load_with(a->system, &load, &desc, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    for (size_t i = 0; i < a->parameter_set_count; i++)
        if (rtcosim_system_desc_apply_parameter_set(desc, a->parameter_sets[i], &err) != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    /* What the reader noted (ignored annotations, SSV warnings), once the
     * parameter sets of the command line are read too. */
    for (size_t i = 0; i < rtcosim_system_desc_info_count(desc); i++)
        fprintf(stderr, "info: %s\n", rtcosim_system_desc_info(desc, i));
    rtcosim_time_ns start = 0, stop = 0;
    if (a->has_start)
        start = a->start;
    else
        rtcosim_system_desc_start_time(desc, &start);
    if (a->has_stop)
        stop = a->stop;
    else if (!rtcosim_system_desc_stop_time(desc, &stop)) {
        rc = cli_fail("%s: no stop time (give --stop-time or ssd:DefaultExperiment stopTime)",
                      a->system);
        goto done;
    }
    if (stop < start) {
        rc = cli_fail("%s: stop time %.9g s is before start time %.9g s", a->system,
                      rtcosim_time_to_seconds(stop), rtcosim_time_to_seconds(start));
        goto done;
    }

    /* The annotation's choice (rc:Master isolate) unless the command line made one. */
    const char *annotated_isolate = rtcosim_system_desc_master(desc)->isolate;
    if (annotated_isolate && !a->isolate && !a->no_isolate) {
        if (strcmp(annotated_isolate, "all") == 0)
            a->isolation->all = true;
        else if (run_isolation_add(a->isolation, annotated_isolate)) {
            rc = CLI_EXIT_ERROR;
            goto done;
        }
    }
    if (run_isolation_active(a->isolation) && run_isolation_prepare(a->isolation, desc)) {
        rc = CLI_EXIT_ERROR;
        goto done;
    }
    if (a->real_time) {
        rc = run_real_time(a, desc, start, stop);
        goto done;
    }
    rtcosim_ssd_step_origin step_origin = RTCOSIM_STEP_FROM_NONE;
    if ((rc = make_master(a, desc, start, stop, &step_origin, true, &m)) != 0 ||
        (a->speculate.reference &&
         (rc = make_master(a, desc, start, stop, NULL, false, &reference)) != 0))
        goto done;
    const rtcosim_ssd_master_settings *annotated = rtcosim_system_desc_master(desc);
    bool adaptive = a->build.overrides.has_step_control
                        ? a->build.overrides.step_control
                        : annotated->has_step_control && annotated->step_control;
    rtcosim_time_ns macro = rtcosim_master_next_step(m);
    uint32_t every = 1;
    if (a->has_interval && adaptive) {
        rc = cli_fail("--output-interval needs a fixed macro step (step control is on)");
        goto done;
    }
    if (a->has_interval) {
        if (a->interval % macro != 0) {
            rc = cli_fail("--output-interval %.9g s is not a multiple of the macro step %.9g s",
                          rtcosim_time_to_seconds(a->interval), rtcosim_time_to_seconds(macro));
            goto done;
        }
        every = (uint32_t)(a->interval / macro);
    }

    out.count = rtcosim_master_observed_count(m);
    out.row = calloc(out.count ? out.count : 1, sizeof *out.row);
    rtcosim_column *columns = calloc(out.count ? out.count : 1, sizeof *columns);
    if (!out.row || !columns) {
        free(columns);
        rc = cli_fail("out of memory");
        goto done;
    }
    for (size_t i = 0; i < out.count; i++)
        columns[i] = (rtcosim_column){rtcosim_master_observed_name(m, i), RTCOSIM_TYPE_FLOAT64};
    if (a->output_file) {
        rtcosim_recorder_options ro = {.path = a->output_file, .columns = columns,
                                       .column_count = out.count, .record_every = every};
        rtcosim_status st = rtcosim_recorder_open(&ro, &out.recorder, &err);
        free(columns);
        if (st != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    } else {
        free(columns);
    }

    double wall_start = wall_seconds(), wall;
    rtcosim_status st;
    cli_progress_init(&out.progress, a->quiet, start, stop);
    cli_watchdog_beat();
    if (a->speculate.enabled) {
        st = cli_run_speculative(m, reference, &a->speculate, stop, record_row, &out, &wall, &err);
    } else {
        st = rtcosim_master_run(m, stop, record_row, &out, &err);
        wall = wall_seconds() - wall_start;
    }
    cli_progress_finish(&out.progress);
    int signo = atomic_load(&cli_stop_signal);
    if (st == RTCOSIM_ECANCELED && signo) {
        /* Ended at a step boundary by a signal: results so far, summary. */
        fprintf(stderr, "rtcosim: %s: interrupted by %s at t = %.9g s (results so far kept)\n",
                a->system, cli_signal_name(signo), rtcosim_time_to_seconds(rtcosim_master_time(m)));
        st = RTCOSIM_OK;
        rc = cli_signal_exit_code(signo);
    }
    if (st != RTCOSIM_OK) {
        rc = cli_fail("%s: at t = %.9g s: %s", a->system,
                      rtcosim_time_to_seconds(rtcosim_master_time(m)), err.message);
        goto done;
    }
    /* The final point is always written, even between output intervals. */
    if (out.recorder && (rc || (every > 1 && rtcosim_master_step_count(m) % every != 0))) {
        const double *v = rtcosim_master_observed_values(m);
        for (size_t i = 0; i < out.count; i++)
            out.row[i].f64 = v[i];
        rtcosim_recorder_push_row_always(out.recorder, rtcosim_master_time(m), out.row, &err);
    }
    rtcosim_recorder_stats stats = {0};
    if (out.recorder) {
        st = rtcosim_recorder_close(out.recorder, &stats, &err);
        out.recorder = NULL;
        if (st != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    }

    double simulated = rtcosim_time_to_seconds(rtcosim_master_time(m) - start);
    printf("system '%s': %zu components, %zu connections, H = %.9g s%s (from %s)\n",
           rtcosim_system_desc_name(desc), rtcosim_master_component_count(m),
           rtcosim_master_connection_count(m), rtcosim_time_to_seconds(macro),
           adaptive ? " at start (adaptive)" : "", rtcosim_ssd_step_origin_name(step_origin));
    printf("ran %.9g s in %llu steps, %.3f s wall (%.1fx real time)\n", simulated,
           (unsigned long long)rtcosim_master_step_count(m), wall,
           wall > 0 ? simulated / wall : 0.0);
    rtcosim_master_parallel par;
    if (rtcosim_master_get_parallel(m, &par, NULL) == RTCOSIM_OK && (par.threads > 1 || par.automatic)) {
        char line[300];
        rtcosim_master_describe_parallel(m, line, sizeof line);
        printf("%s\n", line);
    }
    cli_distribute_summary(&a->distribute, m);
    const char *ended_by = NULL;
    bool on_discard = false;
    if (rtcosim_master_terminated(m, &ended_by, &on_discard) &&
        rtcosim_master_time(m) < stop)
        printf("ended at %.9g s, before the stop time %.9g s: component '%s' asked to terminate%s\n",
               rtcosim_time_to_seconds(rtcosim_master_time(m)), rtcosim_time_to_seconds(stop),
               ended_by, on_discard ? " after discarding its step (FMI Discard)" : "");
    if (a->output_file)
        printf("wrote %llu rows of %zu variables to %s\n",
               (unsigned long long)stats.rows_written, out.count, a->output_file);
    const double *final = rtcosim_master_observed_values(m);
    for (size_t i = 0; i < out.count && i < 12; i++)
        printf("  %-32s %.9g\n", rtcosim_master_observed_name(m, i), final[i]);
    if (out.count > 12)
        printf("  ... and %zu more\n", out.count - 12);

done:
    if (out.recorder)
        rtcosim_recorder_close(out.recorder, NULL, NULL);
    free(out.row);
    rtcosim_master_free(m);
    rtcosim_master_free(reference);
    rtcosim_system_desc_free(desc);
    return rc;
}

static int run_cmd(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    static run_isolation isolation;
    run_args a = {.isolation = &isolation};
    rtcosim_rt_options_init(&a.rt);
    a.delays = calloc((size_t)argc, sizeof *a.delays);
    a.schedules = calloc((size_t)argc, sizeof *a.schedules);
    a.parameter_sets = calloc((size_t)argc, sizeof *a.parameter_sets);
    a.start_names = calloc((size_t)argc, sizeof *a.start_names);
    a.start_values = calloc((size_t)argc, sizeof *a.start_values);
    a.observe = calloc((size_t)argc, sizeof *a.observe);
    a.distribute.places = calloc((size_t)argc, sizeof *a.distribute.places);
    int rc;
    if (!a.parameter_sets || !a.start_names || !a.start_values || !a.observe || !a.delays ||
        !a.schedules || !a.distribute.places)
        rc = cli_fail("out of memory");
    else if ((rc = parse_args(argc, argv, &a)) != 0)
        rc = CLI_EXIT_USAGE;
    else if ((rc = cli_distribute_open(&a.distribute, a.system, &a.output_file, &a.quiet)) == 0) {
        cli_signals_install();
        if (a.distribute.enabled) /* mpirun's SIGTERM after another rank died */
            cli_signals_exit_at_once(a.distribute.what);
        /* over ranks, a death report names the rank too */
        cli_run_guard_begin(a.distribute.enabled ? a.distribute.what : a.system);
        rc = cli_watchdog_start(a.step_timeout);
        if (rc == 0)
            rc = run_system(&a);
        cli_watchdog_stop();
        cli_run_guard_end();
        cli_signals_restore();
        cli_distribute_end(&a.distribute, rc);
    }
    cli_distribute_close(&a.distribute);
    free(a.distribute.places);
    rtcosim_dcp_bindings_free(a.dcp);
    free(a.parameter_sets);
    free(a.start_names);
    free(a.start_values);
    free(a.observe);
    for (size_t i = 0; a.schedules && i < a.delay_count; i++)
        free(a.schedules[i]);
    free(a.schedules);
    free(a.delays);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_run = {"run", "run an SSP system (.ssd or .ssp)", run_cmd};
