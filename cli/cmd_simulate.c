/* `rtcosim simulate FMU [options]`: runs one FMU from start to stop time with
 * fmusim-compatible options, inputs from CSV and results to CSV. Every bad
 * input ends in one line `rtcosim: <file>: <problem>` and exit code 1. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "signals.h"
#include "rtcosim/csv.h"
#include "rtcosim/fmu.h"
#include "rtcosim/isolate.h"
#include "run_isolate.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "rtcosim/simulate.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: rtcosim simulate FMU [options]\n"
        "\n"
        "Simulate one FMU (FMI 1.0, 2.0 or 3.0, co-simulation or model exchange) and write its\n"
        "results (CSV, MAT or MDF 4 by the output file's extension).\n"
        "Options follow fmusim (the Modelica Reference FMUs' simulator).\n"
        "\n"
        "  --interface-type cs|me|se   FMI interface to use (default cs; an FMU with model\n"
        "                              exchange only: me, with an info line); me integrates\n"
        "                              the FMU's continuous states in rtcosim; se (FMI 3.0\n"
        "                              scheduled execution) activates the model partitions:\n"
        "                              periodic input clocks at start + shift + k * interval,\n"
        "                              triggered ones where their --input-file column is 1,\n"
        "                              countdown ones when the FMU announces an interval; at\n"
        "                              one time in priority order (smaller value first); a row\n"
        "                              shows the outputs after every partition of its time,\n"
        "                              a Clock column whether it ticked since the last row\n"
        "  --clock-interval NAME SECONDS  se: the interval of a fixed or tunable input clock\n"
        "                              that declares one (fmi3SetIntervalDecimal in\n"
        "                              Initialization Mode; repeatable)\n"
        "  --solver cvode|euler        model exchange: CVODE (BDF, root finding on the event\n"
        "                              indicators; default) or fixed-step explicit Euler\n"
        "  --max-solver-step SECONDS   model exchange: largest solver step (Euler default: the\n"
        "                              output interval)\n"
        "  --start-time SECONDS        start time (default: the FMU's default experiment, else 0)\n"
        "  --stop-time SECONDS         stop time (default: default experiment, else start + 1)\n"
        "  --output-interval SECONDS   communication step and output interval (default: the\n"
        "  --step-size SECONDS         default experiment's stepSize, else (stop - start) / 500;\n"
        "                              --step-size is the same option, as in run)\n"
        "  --tolerance TOL             relative tolerance passed to the FMU and, for model\n"
        "                              exchange, CVODE's (default: default experiment, else\n"
        "                              none; CVODE then uses 1e-6)\n"
        "  --start-value NAME VALUE    set a parameter or input before initialization (repeatable);\n"
        "                              an FMI 3.0 array takes all its elements as one list,\n"
        "                              row-major: --start-value u \"0.5 -1 4\"; Binary in hex;\n"
        "                              NAME=VALUE works too: --start-value e=0.5\n"
        "  --input-file CSV            inputs: header \"time\",name,...; continuous Float inputs\n"
        "                              are interpolated linearly, all others held; Binary\n"
        "                              cells in hex, two digits per byte (as fmusim; results\n"
        "                              write Binary so too); or a .mat result file\n"
        "                              (Dymola layout: its variables as the columns); or an\n"
        "                              .mf4 or .mdf measurement (ASAM MDF 4 or 3: its\n"
        "                              numeric channels,\n"
        "                              several groups on the union of their times)\n"
        "  -o, --output-file FILE      results file, .csv, .mat or .mf4 (default: <FMU\n"
        "                              name>_out.csv in the current directory, e.g.\n"
        "                              Dahlquist_out.csv for Dahlquist.fmu); '-' writes CSV to\n"
        "                              standard output; .mat is the Modelica/Dymola result\n"
        "                              layout (Aclass, name, description with [unit],\n"
        "                              dataInfo, data_1, data_2); .mf4 is ASAM MDF 4.10 (as\n"
        "                              CANape, CANoe and asammdf read it)\n"
        "  --csv-units                 a second CSV row with each variable's unit\n"
        "  --input-column INPUT=COLUMN the input file's column COLUMN drives INPUT\n"
        "                              (repeatable); given, the file's other columns are\n"
        "                              left alone (a measurement's many channels)\n"
        "  --output-variable NAME      record this variable (repeatable; default: all outputs;\n"
        "                              a NAME with *, ? or [...] is a pattern: 'v*')\n"
        "  --record-every N            record every N-th communication point (and the last)\n"
        "  --writer-thread             format and write results on a thread of their own,\n"
        "                              the stepping thread formatting part of the rows while\n"
        "                              it is behind (the default where the process may use\n"
        "                              two CPUs or more and one is free at the start; the\n"
        "                              same file, faster with output at every step; not\n"
        "                              with String or Binary outputs, written whole)\n"
        "  --no-writer-thread          format and write on the stepping thread\n"
        "  --isolate                   run the FMU in a child process (rtcosim host-fmu): a\n"
        "                              crash, exit() or abort() in it is an error naming the\n"
        "                              FMI call and time, the rows so far kept (no String or\n"
        "                              Binary variables; costs a few us per call)\n"
        "  --isolate-timeout SECONDS   an isolated call unanswered this long (the FMU hung, its\n"
        "                              host stopped) kills the host and ends the run with the\n"
        "                              rows so far (exit 1; default 60; 0: no limit)\n"
        "  --step-timeout SECONDS      end the run (rows so far written, exit code 5) when one\n"
        "                              step (or the initialization) takes longer than this\n"
        "  --log-level LEVEL           error, warning (default), info, debug or trace (fmusim's\n"
        "                              ok: info)\n"
        "  --log-file FILE             log messages to FILE instead of standard error\n"
        "  --log-fmi-calls             log every FMI call (implies --log-level debug)\n"
        "  --fmi-log-file FILE         every FMI call, one per line, to FILE (the other\n"
        "                              messages stay at their level)\n"
        "  --fmu-logging               show the FMU's own log messages as they come (without:\n"
        "                              the last ones are added to a failing call's error)\n"
        "  --event-mode-used           FMI 3.0 co-simulation: instantiate with eventModeUsed;\n"
        "                              at each event (eventHandlingNeeded, or the nextEventTime\n"
        "                              the FMU announced, where the step is shortened to end)\n"
        "                              a row before the event, the fmi3UpdateDiscreteStates\n"
        "                              iteration, and a row after it at the same time, as\n"
        "                              fmusim writes them (the FMU must declare hasEventMode);\n"
        "                              a discrete input of --input-file changing is an event\n"
        "                              too, its new value set in Event Mode\n"
        "  --early-return-allowed      FMI 3.0 co-simulation: instantiate with\n"
        "                              earlyReturnAllowed; a step that returns early is\n"
        "                              recorded at its lastSuccessfulTime and the next step\n"
        "                              starts there\n"
        "  -q, --quiet                 no progress line (shown on a terminal: percent of the\n"
        "                              simulated interval, speed, estimated time left)\n"
        "  --apply-default-start-values  set every variable settable before initialization\n"
        "                              (not constant, initial exact or approx) to the start\n"
        "                              value its description declares, as FMPy's option (for\n"
        "                              FMUs that rely on the importer for them); --start-value\n"
        "                              still wins\n"
        "  --strict                    refuse an FMU whose modelDescription.xml breaks a rule of\n"
        "                              the standard that does not stop a correct run, and a start\n"
        "                              value or input outside the variable's declared min/max\n"
        "                              (by default a warning naming the variable and its range;\n"
        "                              fmusim accepts both)\n"
        "  --help                      show this text\n"
        "\n"
        "  --initial-fmu-state-file FILE  start from the FMU state in FILE (the FMU's own\n"
        "                              serialized state, as fmusim writes it): the FMU is\n"
        "                              initialized, then takes it (model exchange: the integrator\n"
        "                              restarts from its states); give --start-time too; only\n"
        "                              start values of inputs and tunable parameters\n"
        "  --final-fmu-state-file FILE  save the FMU's serialized state after the last step\n"
        "\n"
        "  --set-stop-time             tell the FMU the stop time (fmi2SetupExperiment,\n"
        "                              fmi3EnterInitializationMode); as in fmusim, it is not\n"
        "                              told without (a state saved from such a run can go on)\n"
        "\n"
        "fmusim's --logging-on is --fmu-logging; --record-intermediate-values is refused as not\n"
        "supported.\n"
        "\n"
        "Results: one row per communication point, first column time in seconds; numbers are\n"
        "the shortest decimal text that reads back to the identical value. FMI 3.0 arrays are\n"
        "one column per element, name[i,j] (1-based, row-major); input files use the same\n"
        "names.\n"
        "\n"
        "An FMU that asks to end the run (FMI 3.0 terminateSimulation, or a discarded step\n"
        "with FMI 2.0 fmi2Terminated / FMI 3.0 terminateSimulation) ends it normally at its\n"
        "last successful time: the rows so far are kept, a warning says why, exit code 0.\n"
        "Any other failing step exits with 1 (the rows before it are kept).\n"
        "\n"
        "SIGINT/SIGTERM/SIGHUP (Ctrl-C, a closed terminal) end the run after the current\n"
        "step: the rows so far are written, the extracted FMU removed, exit code 130 / 143\n"
        "/ 129 (one the process started with ignored stays ignored: nohup's SIGHUP, the\n"
        "SIGINT of a script's background job); a second signal exits at once, as does a\n"
        "step still running 5 s after the first (the rows so far written, the FMU and its\n"
        "call named). An FMU that crashes (SIGSEGV, SIGABRT, ...) gets its\n"
        "rows so far written and a line naming it and its FMI call before the process dies\n"
        "of that signal; one that calls exit() is reported and the exit code is 1.\n"
        "Exit codes: 0 ran to the end; 1 error; 2 bad command line; 5 --step-timeout passed;\n"
        "130 / 143 signal.\n");
}

typedef struct simulate_args {
    const char *fmu;
    const char *start, *stop, *interval, *tolerance, *input_file, *output_file, *max_solver_step;
    rtcosim_fmi_interface interface_type;
    bool interface_given;
    rtcosim_me_solver solver;
    bool solver_given;
    rtcosim_start_value *start_values;
    size_t start_value_count;
    rtcosim_start_value *clock_intervals; /* --clock-interval NAME SECONDS */
    size_t clock_interval_count;
    const char **output_variables;
    size_t output_variable_count;
    /* --input-column INPUT=COLUMN: the input file's column for each input */
    const char **input_names, **input_columns;
    size_t input_column_count;
    uint32_t record_every;
    double step_timeout; /* s; 0: none */
    bool isolate;        /* host the FMU in a child process */
    int writer_thread; /* 1 on, 0 off, -1 rtcosim_recorder_writer_thread_pays() decides */
    bool csv_units, log_fmi_calls, fmu_logging, quiet, strict, default_starts;
    const char *log_file, *fmi_log_file; /* fmusim's --log-file, --fmi-log-file */
    const char *initial_state_file, *final_state_file; /* fmusim's FMU state files */
    bool set_stop_time;  /* tell the FMU the stop time (fmusim's --set-stop-time) */
    bool event_mode_used, early_return_allowed;
} simulate_args;

/* Where log lines go (fmusim's --log-file and --fmi-log-file): messages to
 * the log file (else stderr) up to the level asked for; FMI call lines, one
 * per line, to the FMI log file when there is one. */
typedef struct sim_log {
    FILE *log, *fmi;
    rtcosim_log_level level;
} sim_log;

static void sim_log_handler(void *context, rtcosim_log_level level, const char *category,
                            const char *message)
{
    const sim_log *s = context;
    if (s->fmi && level == RTCOSIM_LOG_DEBUG && strcmp(category, "fmi") == 0) {
        fprintf(s->fmi, "%s\n", message);
        return;
    }
    if (level <= s->level)
        rtcosim_log_stderr_handler(s->log, level, category, message);
}

/* Open the log files asked for and route the log through them. */
static int open_logs(const simulate_args *a, sim_log *s)
{
    s->level = rtcosim_log_get_level();
    const char *paths[2] = {a->log_file, a->fmi_log_file};
    FILE **files[2] = {&s->log, &s->fmi};
    const char *options[2] = {"--log-file", "--fmi-log-file"};
    for (int k = 0; k < 2; k++)
        if (paths[k] && !(*files[k] = fopen(paths[k], "w")))
            return cli_fail("simulate: %s: cannot open '%s': %s", options[k], paths[k],
                            strerror(errno));
    if (s->log || s->fmi) {
        if (s->fmi)
            rtcosim_log_set_level(RTCOSIM_LOG_DEBUG); /* the call lines; others filtered */
        rtcosim_log_set_handler(sim_log_handler, s);
    }
    return 0;
}

/* Back to stderr; a file that could not be written is an error. */
static int close_logs(const simulate_args *a, sim_log *s)
{
    int rc = 0;
    if (s->log || s->fmi) {
        rtcosim_log_set_handler(rtcosim_log_stderr_handler, NULL);
        rtcosim_log_set_level(s->level);
    }
    const char *paths[2] = {a->log_file, a->fmi_log_file};
    FILE *files[2] = {s->log, s->fmi};
    for (int k = 0; k < 2; k++)
        if (files[k] && (ferror(files[k]) | fclose(files[k])) != 0)
            rc = cli_fail("simulate: cannot write '%s': %s", paths[k], strerror(errno));
    s->log = s->fmi = NULL;
    return rc;
}

/* The value of an option that takes one (argv[*i + 1]); NULL when missing. */
static const char *option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static int parse_args(int argc, char **argv, simulate_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **slot = NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(arg, "--start-time") == 0) {
            slot = &a->start;
        } else if (strcmp(arg, "--stop-time") == 0) {
            slot = &a->stop;
        } else if (strcmp(arg, "--output-interval") == 0 || strcmp(arg, "--step-size") == 0) {
            slot = &a->interval;
        } else if (strcmp(arg, "--tolerance") == 0) {
            slot = &a->tolerance;
        } else if (strcmp(arg, "--input-file") == 0) {
            slot = &a->input_file;
        } else if (strcmp(arg, "--output-file") == 0 || strcmp(arg, "-o") == 0) {
            slot = &a->output_file;
        } else if (strcmp(arg, "--interface-type") == 0) {
            const char *type = option_value(argc, argv, &i);
            if (!type)
                return cli_fail("simulate: option --interface-type needs a value (cs, me or se)");
            if (strcmp(type, "me") == 0)
                a->interface_type = RTCOSIM_FMI_MODEL_EXCHANGE;
            else if (strcmp(type, "se") == 0)
                a->interface_type = RTCOSIM_FMI_SCHEDULED_EXECUTION;
            else if (strcmp(type, "cs") == 0)
                a->interface_type = RTCOSIM_FMI_CO_SIMULATION;
            else
                return cli_fail("simulate: --interface-type: '%s' is not cs, me or se", type);
            a->interface_given = true;
            continue;
        } else if (strcmp(arg, "--solver") == 0) {
            const char *name = option_value(argc, argv, &i);
            if (!name)
                return cli_fail("simulate: option --solver needs a value (cvode or euler)");
            if (strcmp(name, "cvode") == 0)
                a->solver = RTCOSIM_ME_SOLVER_CVODE;
            else if (strcmp(name, "euler") == 0)
                a->solver = RTCOSIM_ME_SOLVER_EULER;
            else
                return cli_fail("simulate: --solver: '%s' is not cvode or euler", name);
            a->solver_given = true;
            continue;
        } else if (strcmp(arg, "--max-solver-step") == 0) {
            slot = &a->max_solver_step;
        } else if (strcmp(arg, "--start-value") == 0) {
            /* NAME VALUE or NAME=VALUE (as fmusim's and FMPy's start values) */
            const char *eq = i + 1 < argc ? strchr(argv[i + 1], '=') : NULL;
            if (eq && eq != argv[i + 1]) {
                argv[i + 1][eq - argv[i + 1]] = '\0';
                a->start_values[a->start_value_count].name = argv[i + 1];
                a->start_values[a->start_value_count++].value = eq + 1;
                i += 1;
                continue;
            }
            if (i + 2 >= argc)
                return cli_fail("simulate: option --start-value needs NAME VALUE or NAME=VALUE");
            if (strncmp(argv[i + 2], "--", 2) == 0)
                return cli_fail("simulate: --start-value %s: the value '%s' is an option; write "
                                "--start-value NAME VALUE or NAME=VALUE", argv[i + 1], argv[i + 2]);
            a->start_values[a->start_value_count].name = argv[i + 1];
            a->start_values[a->start_value_count++].value = argv[i + 2];
            i += 2;
            continue;
        } else if (strcmp(arg, "--clock-interval") == 0) {
            if (i + 2 >= argc)
                return cli_fail("simulate: option --clock-interval needs a clock NAME and SECONDS");
            a->clock_intervals[a->clock_interval_count].name = argv[i + 1];
            a->clock_intervals[a->clock_interval_count++].value = argv[i + 2];
            i += 2;
            continue;
        } else if (strcmp(arg, "--input-column") == 0) {
            char *name = NULL;
            int rc = cli_input_column("simulate", "an input of the FMU",
                                      option_value(argc, argv, &i), &name,
                                      &a->input_columns[a->input_column_count]);
            if (rc)
                return rc;
            a->input_names[a->input_column_count++] = name;
            continue;
        } else if (strcmp(arg, "--output-variable") == 0) {
            const char *name = option_value(argc, argv, &i);
            if (!name)
                return cli_fail("simulate: option --output-variable needs a variable name");
            a->output_variables[a->output_variable_count++] = name;
            continue;
        } else if (strcmp(arg, "--record-every") == 0) {
            const char *text = option_value(argc, argv, &i);
            char *end = NULL;
            unsigned long n = text ? strtoul(text, &end, 10) : 0;
            if (!text)
                return cli_fail("simulate: option --record-every needs a number");
            if (*text == '-' || *end || n < 1 || n > UINT32_MAX)
                return cli_fail("simulate: --record-every: '%s' is not a whole number from 1 to %u",
                                text, UINT32_MAX);
            a->record_every = (uint32_t)n;
            continue;
        } else if (strcmp(arg, "--log-level") == 0) {
            const char *text = option_value(argc, argv, &i);
            rtcosim_log_level level;
            if (!text)
                return cli_fail("simulate: option --log-level needs a level");
            if (strcmp(text, "ok") == 0) /* fmusim's level for every message */
                level = RTCOSIM_LOG_INFO;
            else if (rtcosim_log_level_parse(text, &level) != 0)
                return cli_fail("simulate: --log-level: '%s' is not error, warning, info, debug, "
                                "trace or ok (fmusim's: info)", text);
            rtcosim_log_set_level(level);
            continue;
        } else if (strcmp(arg, "--log-fmi-calls") == 0) {
            a->log_fmi_calls = true;
            continue;
        } else if (strcmp(arg, "--strict") == 0) {
            a->strict = true;
            continue;
        } else if (strcmp(arg, "--apply-default-start-values") == 0) {
            a->default_starts = true;
            continue;
        } else if (strcmp(arg, "--fmu-logging") == 0 || strcmp(arg, "--logging-on") == 0) {
            a->fmu_logging = true;
            continue;
        } else if (strcmp(arg, "--set-stop-time") == 0) {
            a->set_stop_time = true;
            continue;
        } else if (strcmp(arg, "--log-file") == 0) {
            slot = &a->log_file;
        } else if (strcmp(arg, "--fmi-log-file") == 0) {
            slot = &a->fmi_log_file;
            a->log_fmi_calls = true;
        } else if (strcmp(arg, "--record-intermediate-values") == 0) {
            return cli_fail("simulate: --record-intermediate-values is not supported: rtcosim "
                            "does not record FMI 3.0 intermediate updates");
        } else if (strcmp(arg, "--initial-fmu-state-file") == 0) {
            slot = &a->initial_state_file;
        } else if (strcmp(arg, "--final-fmu-state-file") == 0) {
            slot = &a->final_state_file;
        } else if (strcmp(arg, "--event-mode-used") == 0) {
            a->event_mode_used = true;
            continue;
        } else if (strcmp(arg, "--early-return-allowed") == 0) {
            a->early_return_allowed = true;
            continue;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            a->quiet = true;
            continue;
        } else if (strcmp(arg, "--writer-thread") == 0) {
            a->writer_thread = 1;
            continue;
        } else if (strcmp(arg, "--no-writer-thread") == 0) {
            a->writer_thread = 0;
            continue;
        } else if (strcmp(arg, "--csv-units") == 0) {
            a->csv_units = true;
            continue;
        } else if (strcmp(arg, "--isolate") == 0) {
            a->isolate = true;
            continue;
        } else if (strcmp(arg, "--isolate-timeout") == 0) {
            const char *value = option_value(argc, argv, &i);
            if (!value)
                return cli_fail("simulate: option --isolate-timeout needs a value");
            if (run_isolation_parse_timeout(value))
                return 1;
            continue;
        } else if (strcmp(arg, "--step-timeout") == 0) {
            const char *value = option_value(argc, argv, &i);
            if (!value)
                return cli_fail("simulate: option --step-timeout needs a value");
            if (cli_parse_step_timeout(value, &a->step_timeout))
                return 1;
            continue;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_unknown_option("simulate", arg, usage);
        } else {
            int rc = cli_positional("simulate", "FMU", &a->fmu, argv, i);
            if (rc)
                return rc;
            continue;
        }
        if (!(*slot = option_value(argc, argv, &i)))
            return cli_fail("simulate: option %s needs a value", arg);
    }
    if (!a->fmu)
        return cli_fail("simulate: no FMU given (usage: rtcosim simulate FMU [options])");
    /* (without --interface-type: checked once the FMU's interface is known) */
    if (a->clock_interval_count && a->interface_given &&
        a->interface_type != RTCOSIM_FMI_SCHEDULED_EXECUTION)
        return cli_fail("simulate: --clock-interval needs --interface-type se");
    if (a->isolate && a->interface_type == RTCOSIM_FMI_SCHEDULED_EXECUTION)
        return cli_fail("simulate: --isolate does not support --interface-type se");
    if ((a->solver_given || a->max_solver_step) && a->interface_given &&
        a->interface_type != RTCOSIM_FMI_MODEL_EXCHANGE)
        return cli_fail("simulate: --solver and --max-solver-step need --interface-type me");
    return 0;
}

static int parse_time_option(const char *option, const char *text, rtcosim_time_ns *out)
{
    rtcosim_error err;
    if (rtcosim_time_parse_seconds(text, out, &err) != RTCOSIM_OK)
        return cli_fail("simulate: %s: %s", option, err.message);
    return 0;
}

/* "path/Dahlquist.fmu" -> "Dahlquist_out.csv" */
static void default_output_file(const char *fmu, char *out, size_t size)
{
    const char *base = strrchr(fmu, '/');
    base = base ? base + 1 : fmu;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".fmu") == 0)
        len -= 4;
    snprintf(out, size, "%.*s_out.csv", (int)len, base);
}

/* Times from the options; what is not given comes from the FMU's default
 * experiment or fmusim's fallbacks (rtcosim_simulate_defaults). */
static int resolve_times(const simulate_args *a, const rtcosim_component *c,
                         rtcosim_simulate_options *o)
{
    o->start_time = o->stop_time = o->output_interval = RTCOSIM_SIMULATE_UNSET;
    o->tolerance = -1;
    if (a->start && parse_time_option("--start-time", a->start, &o->start_time))
        return 1;
    if (a->stop && parse_time_option("--stop-time", a->stop, &o->stop_time))
        return 1;
    if (a->interval) {
        if (parse_time_option("--output-interval", a->interval, &o->output_interval))
            return 1;
        if (o->output_interval <= 0)
            return cli_fail("simulate: --output-interval: %s s is not positive", a->interval);
    }
    if (a->tolerance) {
        char *end = NULL;
        o->tolerance = strtod(a->tolerance, &end);
        if (end == a->tolerance || *end || !(o->tolerance > 0) || o->tolerance > 1)
            return cli_fail("simulate: --tolerance: '%s' is not a number in (0, 1]", a->tolerance);
    }
    rtcosim_simulate_defaults(c, o);
    if (o->stop_time < o->start_time) {
        char start[RTCOSIM_FORMAT_MAX], stop[RTCOSIM_FORMAT_MAX];
        rtcosim_format_time(o->start_time, start);
        rtcosim_format_time(o->stop_time, stop);
        return cli_fail("%s: stop time %s s is before start time %s s", a->fmu, stop, start);
    }
    return 0;
}

/* Prefix a run error with the FMU unless it already names a file of the run. */
static int fail_run(const simulate_args *a, const char *output_file, const rtcosim_error *err)
{
    const char *files[] = {a->fmu, a->input_file, output_file};
    for (size_t i = 0; i < 3; i++)
        if (files[i] && strncmp(err->message, files[i], strlen(files[i])) == 0)
            return cli_fail_error(err);
    return cli_fail("%s: %s", a->fmu, err->message);
}

/* After every step: the progress line, and the stop a signal asked for. */
static rtcosim_status show_progress(void *context, rtcosim_time_ns t, rtcosim_error *err)
{
    cli_progress_update(context, t);
    cli_watchdog_beat();
    int signo = atomic_load_explicit(&cli_stop_signal, memory_order_relaxed);
    if (signo)
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "interrupted by %s",
                                 cli_signal_name(signo));
    return RTCOSIM_OK;
}

/* How the component asked to stop, in the words of its FMI version. */
static const char *termination_reason(const rtcosim_component *c, const rtcosim_simulate_result *r)
{
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    bool fmi2 = info && info->fmi_version == RTCOSIM_FMI_2;
    if (info && info->interface_type == RTCOSIM_FMI_MODEL_EXCHANGE)
        return info->fmi_version == RTCOSIM_FMI_1 ? "fmiEventUpdate set terminateSimulation"
               : fmi2 ? "fmi2NewDiscreteStates or fmi2CompletedIntegratorStep set terminateSimulation"
                      : "fmi3UpdateDiscreteStates or fmi3CompletedIntegratorStep set terminateSimulation";
    if (r->terminated_on_discard)
        return fmi2 ? "fmi2DoStep returned fmi2Discard and fmi2GetBooleanStatus(fmi2Terminated) is true"
                    : "fmi3DoStep returned fmi3Discard with terminateSimulation";
    return fmi2 ? "the FMU requested termination" : "fmi3DoStep set terminateSimulation";
}

/* --input-column: only the mapped columns of the input file, each under
 * its input's name (a measurement records many more channels than the FMU
 * has inputs, under its own names). */
static int select_input_columns(const simulate_args *a, rtcosim_csv *input)
{
    if (!a->input_file)
        return cli_fail("simulate: --input-column maps columns of --input-file, which is not "
                        "given");
    rtcosim_error err;
    if (rtcosim_csv_select_columns(input, a->input_column_count, a->input_columns,
                                   a->input_names, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    return 0;
}

static int run_simulate(int argc, char **argv)
{
    simulate_args a = {.record_every = 1, .writer_thread = -1};
    sim_log logs = {0};
    a.start_values = calloc((size_t)argc, sizeof *a.start_values);
    a.clock_intervals = calloc((size_t)argc, sizeof *a.clock_intervals);
    a.output_variables = calloc((size_t)argc, sizeof *a.output_variables);
    a.input_names = calloc((size_t)argc, sizeof *a.input_names);
    a.input_columns = calloc((size_t)argc, sizeof *a.input_columns);
    rtcosim_component *c = NULL;
    rtcosim_csv *input = NULL;
    int rc = 1;
    if (!a.start_values || !a.clock_intervals || !a.output_variables || !a.input_names ||
        !a.input_columns) {
        cli_fail("simulate: out of memory");
        goto done;
    }
    if ((rc = parse_args(argc, argv, &a)) != 0) {
        rc = rc < 0 ? 0 : CLI_EXIT_USAGE;
        goto done;
    }
    rc = 1;
    {
        /* nothing written may be an input or another output, checked before
         * the logs are opened (truncated) */
        char default_file[4096];
        default_output_file(a.fmu, default_file, sizeof default_file);
        const char *results = a.output_file ? a.output_file : default_file;
        const cli_output outs[] = {{"--output-file", strcmp(results, "-") ? results : NULL},
                                   {"--log-file", a.log_file},
                                   {"--fmi-log-file", a.fmi_log_file},
                                   {"--final-fmu-state-file", a.final_state_file}};
        const char *ins[] = {a.fmu, a.input_file, a.initial_state_file};
        if (cli_check_outputs(outs, 4, ins, 3) != 0 ||
            cli_check_output_file("--final-fmu-state-file", a.final_state_file) != 0)
            goto done;
    }
    if (open_logs(&a, &logs) != 0)
        goto done;
    if (a.log_fmi_calls && rtcosim_log_get_level() < RTCOSIM_LOG_DEBUG)
        rtcosim_log_set_level(RTCOSIM_LOG_DEBUG);
    rtcosim_error err;
    rtcosim_fmu_options fo = {.log_fmi_calls = a.log_fmi_calls,
                              .fmu_logging_on = a.fmu_logging,
                              .interface_type = a.interface_type,
                              .model_exchange_fallback = !a.interface_given,
                              .solver = a.solver,
                              .strict = a.strict,
                              .event_mode_used = a.event_mode_used,
                              .early_return_allowed = a.early_return_allowed,
                              .apply_default_start_values = a.default_starts};
    if (a.max_solver_step) {
        if (parse_time_option("--max-solver-step", a.max_solver_step, &fo.max_solver_step))
            goto done;
        if (fo.max_solver_step <= 0) {
            cli_fail("simulate: --max-solver-step: %s s is not positive", a.max_solver_step);
            goto done;
        }
    }
    size_t len = strlen(a.fmu);
    if (len > 4 && (strcasecmp(a.fmu + len - 4, ".ssd") == 0 ||
                    strcasecmp(a.fmu + len - 4, ".ssp") == 0)) {
        cli_fail("%s: an SSP system, not an FMU: run it with rtcosim run '%s'", a.fmu, a.fmu);
        goto done;
    }
    if (rtcosim_fmu_load(a.fmu, &fo, &c, &err) != RTCOSIM_OK) {
        fail_run(&a, NULL, &err);
        goto done;
    }
    /* As FMPy: an FMU without co-simulation is simulated with model exchange. */
    bool model_exchange = rtcosim_fmu_info_of(c)->interface_type == RTCOSIM_FMI_MODEL_EXCHANGE;
    if (!a.interface_given && model_exchange)
        fprintf(stderr, "info: %s supports model exchange only: simulating it with model exchange\n",
                a.fmu);
    if (!a.interface_given &&
        rtcosim_fmu_info_of(c)->interface_type == RTCOSIM_FMI_SCHEDULED_EXECUTION)
        fprintf(stderr, "info: %s supports scheduled execution only: simulating it with "
                        "scheduled execution\n", a.fmu);
    if (a.clock_interval_count &&
        rtcosim_fmu_info_of(c)->interface_type != RTCOSIM_FMI_SCHEDULED_EXECUTION) {
        cli_fail("simulate: --clock-interval needs scheduled execution (--interface-type se; "
                 "%s is loaded for %s)", a.fmu, model_exchange ? "model exchange" : "co-simulation");
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if ((a.solver_given || a.max_solver_step) && !model_exchange) {
        cli_fail("simulate: --solver and --max-solver-step need --interface-type me");
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if (a.isolate) {
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        rtcosim_component *inner = c;
        c = NULL;
        if (n <= 0) {
            rtcosim_component_free(inner);
            cli_fail("simulate: --isolate: cannot find the rtcosim executable");
            goto done;
        }
        exe[n] = '\0';
        /* the host loads it with the same options and interface */
        if (rtcosim_isolate_wrap_options(inner, a.fmu, exe, &fo, &c, &err) != RTCOSIM_OK) {
            fail_run(&a, NULL, &err);
            goto done;
        }
    }
    rtcosim_simulate_options o = {.start_values = a.start_values,
                                  .start_value_count = a.start_value_count,
                                  .clock_intervals = a.clock_intervals,
                                  .clock_interval_count = a.clock_interval_count,
                                  .output_variables = a.output_variables,
                                  .output_variable_count = a.output_variable_count,
                                  .record_every = a.record_every,
                                  .writer_thread = a.writer_thread < 0 ? rtcosim_recorder_writer_thread_pays()
                                                                       : a.writer_thread,
                                  .csv_units = a.csv_units,
                                  .strict_ranges = a.strict,
                                  .initial_state_file = a.initial_state_file,
                                  .final_state_file = a.final_state_file,
                                  .stop_time_not_set = !a.set_stop_time};
    if (resolve_times(&a, c, &o))
        goto done;
    /* Binary inputs' cells stay text (hex, as fmusim reads them); a MAT
     * result file holds numbers */
    rtcosim_simulate_column_map map = {c, a.input_names, a.input_columns, a.input_column_count};
    if (a.input_file &&
        rtcosim_csv_read_input_file(a.input_file, rtcosim_simulate_mapped_text_column, &map,
                                    &input, &err) != RTCOSIM_OK) {
        cli_fail_error(&err);
        goto done;
    }
    if (a.input_column_count && select_input_columns(&a, input) != 0)
        goto done;
    o.input = input;
    char default_file[4096];
    default_output_file(a.fmu, default_file, sizeof default_file);
    o.output_file = a.output_file ? a.output_file : default_file;
    if (strcmp(o.output_file, "-") == 0)
        o.output_file = "/dev/stdout";
    const char *inputs[] = {a.fmu, a.input_file};
    if (cli_check_output_not_input("--output-file", o.output_file, inputs, 2))
        goto done;
    rtcosim_simulate_result result = {0};
    cli_progress progress;
    /* Not when the results go to the terminal themselves. */
    cli_progress_init(&progress, a.quiet || strcmp(o.output_file, "/dev/stdout") == 0,
                      o.start_time, o.stop_time);
    o.progress = show_progress;
    o.progress_context = &progress;
    cli_signals_install();
    cli_run_guard_begin(a.fmu);
    if (cli_watchdog_start(a.step_timeout)) {
        cli_run_guard_end();
        cli_signals_restore();
        goto done;
    }
    rtcosim_status st = rtcosim_simulate(c, &o, &result, &err);
    cli_watchdog_stop();
    cli_run_guard_end();
    cli_signals_restore();
    cli_progress_finish(&progress);
    int signo = atomic_load(&cli_stop_signal);
    if (st == RTCOSIM_ECANCELED && signo) {
        fprintf(stderr, "rtcosim: %s: interrupted by %s at t = %.9g s; %llu rows written to %s\n",
                a.fmu, cli_signal_name(signo), rtcosim_time_to_seconds(result.end_time),
                (unsigned long long)result.rows_written, o.output_file);
        rc = cli_signal_exit_code(signo);
        goto done;
    }
    if (st != RTCOSIM_OK) {
        fail_run(&a, o.output_file, &err);
        goto done;
    }
    rtcosim_log(RTCOSIM_LOG_INFO, "simulate", "%s: %llu steps to t = %.9g s, %llu rows written to %s",
                a.fmu, (unsigned long long)result.steps, rtcosim_time_to_seconds(result.end_time),
                (unsigned long long)result.rows_written, o.output_file);
    /* An end the FMU asked for is a normal end (exit 0), but it is not the
     * requested stop time: say so by default, naming the FMI mechanism. */
    if (result.terminated_by_component)
        rtcosim_log(RTCOSIM_LOG_WARNING, "simulate",
                    "%s: the FMU asked to end the simulation at t = %.9g s, before the stop time "
                    "%.9g s (%s); %llu rows written to %s",
                    a.fmu, rtcosim_time_to_seconds(result.end_time),
                    rtcosim_time_to_seconds(o.stop_time), termination_reason(c, &result),
                    (unsigned long long)result.rows_written, o.output_file);
    rc = 0;
done:
    rtcosim_csv_free(input);
    rtcosim_component_free(c);
    if (close_logs(&a, &logs) != 0 && rc == 0)
        rc = 1;
    free(a.start_values);
    free(a.clock_intervals);
    free(a.output_variables);
    for (size_t i = 0; a.input_names && i < a.input_column_count; i++)
        free((char *)a.input_names[i]);
    free(a.input_names);
    free(a.input_columns);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_simulate = {
    "simulate", "simulate one FMU and write its results as CSV, MAT or MDF 4 (fmusim options)",
    run_simulate};
