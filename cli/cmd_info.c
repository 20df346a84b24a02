/* `rtcosim info FMU`: what an FMU is (FMI version, names, token, tool,
 * capabilities, default experiment) and its variables as an aligned table,
 * so that a user can pick names for --start-value and --output-variable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "info_system.h"
#include "rtcosim/can_log.h"
#include "rtcosim/dcp.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"
#include "rtcosim/results.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: rtcosim info FMU [--strict]\n"
                 "       rtcosim info SYSTEM.ssd|SYSTEM.ssp|OspSystemStructure.xml|DIR\n"
                 "                    [--parameter-set NAME]\n"
                 "       rtcosim info SLAVE.dcpx\n"
                 "       rtcosim info F.dbc|F.arxml\n"
                 "       rtcosim info LOG.blf|LOG.asc|LOG.log|LOG.trc|LOG.mf4 [--dbc F.dbc]\n"
                 "       rtcosim info MEASUREMENT.mf4|.mdf\n"
                 "       rtcosim info RESULTS.csv|.mat\n\n"
                 "An ASAM MDF 4 or MDF 3 measurement (.mf4, .mdf: CANape, CANoe, INCA, MDA,\n"
                 "asammdf, rtcosim -o): its\n"
                 "version, writer and start, and per channel group its records and time span,\n"
                 "per numeric channel its unit, minimum, maximum and invalid samples: the\n"
                 "names a stimulus (--input-file F.mf4) or a plot takes.\n"
                 "A results file (rtcosim's CSV, a Modelica/Dymola .mat, as plot reads them):\n"
                 "its rows, time span and step, and per column its unit, minimum, maximum\n"
                 "and cells that are no number.\n"
                 "A CAN database (.dbc, or AUTOSAR 4 .arxml): its messages (id, name, length, transmitter, cycle\n"
                 "time) and every signal's layout, scaling, range, unit and multiplexing.\n"
                 "A CAN log (Vector BLF, Vector ASC, candump -l, an ASAM MDF 4 bus log): its\n"
                 "frames and buses, its\n"
                 "time span, and per identifier the frames, data length, mean period and\n"
                 "the shortest and longest gap (with --dbc, the messages' names).\n\n"
                 "A DCP slave description (.dcpx): the slave's name, uuid, operating modes,\n"
                 "the time resolution the master configures, its UDP and TCP control\n"
                 "addresses and its variables (String and Binary ones with their maxSize),\n"
                 "as `rtcosim run` reads them for a component whose source it is.\n\n"
                 "A system (.ssd, .ssp, libcosim's OspSystemStructure.xml, or a directory\n"
                 "holding one): its components with their connectors (declared, or taken from\n"
                 "the model when the file declares none or no type), step size hints, bound\n"
                 "parameters (value, file and line), connections with their transformations,\n"
                 "the macro step and where it came from, and the execution order the master\n"
                 "derives from the FMUs' descriptions (nothing is instantiated; a system of\n"
                 "FMUs built for another platform is ordered too, with a warning naming each\n"
                 "FMU component that cannot run here; --strict makes that an error).\n"
                 "--parameter-set NAME applies only the bindings whose set has that name\n"
                 "(libcosim's choice; see rtcosim run --help).\n\n"
                 "Print the model facts of an FMU (FMI 1.0, 2.0 or 3.0) and its variables:\n"
                 "name, value reference, type, causality, variability, initial, start, unit\n"
                 "and description. FMI 3.0 arrays are listed as their elements name[i,j]\n"
                 "(1-based, row-major), each with a value reference of rtcosim's own above the\n"
                 "FMU's (the FMU itself is called with the array's reference).\n\n"
                 "A modelDescription.xml that breaks a rule of the standard whose violation does\n"
                 "not stop a correct run is accepted with a warning naming the variable (as\n"
                 "fmusim accepts the Reference FMUs); --strict refuses it instead.\n\n"
                 "The interfaces the FMU declares are listed; for model exchange its continuous\n"
                 "states and event indicators, read by loading it through that interface too: a\n"
                 "model exchange part that would not load (what simulate --interface-type me\n"
                 "refuses) is a warning, an error with --strict.\n\n"
                 "The platforms the FMU holds binaries for (binaries/ folders, and sources) and\n"
                 "the binary loaded are shown. An FMU whose binary cannot be used here (built\n"
                 "for another platform, a library that does not load or lacks an FMI function)\n"
                 "is described from its modelDescription.xml with a warning saying why, as\n"
                 "FMPy's info does; --strict makes that an error.\n\n"
                 "FMI 1.0: the interface (model exchange, co-simulation stand-alone or tool) and\n"
                 "the number of negatedAlias variables are shown; a negated alias is listed with\n"
                 "a value reference of rtcosim's own (it reads and writes minus its base).\n\n"
                 "FMI 3.0 terminals (terminalsAndIcons/terminalsAndIcons.xml) are listed with\n"
                 "their kind, matching rule and members (memberName -> variable), nested ones\n"
                 "indented; the layered standards the FMU declares (every\n"
                 "extra/<folder>/fmi-ls-manifest.xml, e.g. FMI-LS-BUS) with their version.\n"
                 "Malformed XML in either file is an error naming the file.\n\n"
                 "FMI 3.0 clocks are listed with their type (intervalVariability), interval,\n"
                 "shift, priority and flags, then the clocked variables with their clocks and\n"
                 "Binary variables with maxSize and mimeType. An FMU for scheduled execution\n"
                 "only (chapter 5) is described through that interface.\n");
}

/* Text of a start value (strings quoted); empty without one. */
static void format_start(const rtcosim_variable *v, char *buf, size_t size)
{
    char num[RTCOSIM_FORMAT_MAX];
    buf[0] = '\0';
    if (!v->has_start)
        return;
    switch (v->type) {
    case RTCOSIM_TYPE_FLOAT64: rtcosim_format_double(v->start.f64, num); break;
    case RTCOSIM_TYPE_FLOAT32: rtcosim_format_float(v->start.f32, num); break;
    case RTCOSIM_TYPE_INT8:
    case RTCOSIM_TYPE_INT16:
    case RTCOSIM_TYPE_INT32:
    case RTCOSIM_TYPE_INT64: rtcosim_format_int64(v->start.i64, num); break;
    case RTCOSIM_TYPE_UINT8:
    case RTCOSIM_TYPE_UINT16:
    case RTCOSIM_TYPE_UINT32:
    case RTCOSIM_TYPE_UINT64: rtcosim_format_uint64(v->start.u64, num); break;
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK: snprintf(num, sizeof num, "%s", v->start.b ? "true" : "false"); break;
    case RTCOSIM_TYPE_STRING: snprintf(buf, size, "\"%s\"", v->start.s ? v->start.s : ""); return;
    default: snprintf(buf, size, "(%zu bytes)", v->start.bin.size); return;
    }
    snprintf(buf, size, "%s", num);
}

enum { COL_NAME, COL_VR, COL_TYPE, COL_CAUSALITY, COL_VARIABILITY, COL_INITIAL, COL_START,
       COL_UNIT, COL_DESCRIPTION, COL_COUNT };

typedef struct cells {
    char vr[16], start[128];
    const char *text[COL_COUNT];
} cells;

static void fill_cells(const rtcosim_variable *v, cells *c)
{
    snprintf(c->vr, sizeof c->vr, "%u", v->value_reference);
    format_start(v, c->start, sizeof c->start);
    c->text[COL_NAME] = v->name;
    c->text[COL_VR] = c->vr;
    c->text[COL_TYPE] = rtcosim_type_name(v->type);
    c->text[COL_CAUSALITY] = rtcosim_causality_name(v->causality);
    c->text[COL_VARIABILITY] = rtcosim_variability_name(v->variability);
    c->text[COL_INITIAL] = v->initial == RTCOSIM_INITIAL_NONE ? "" : rtcosim_initial_name(v->initial);
    c->text[COL_START] = c->start;
    c->text[COL_UNIT] = v->unit ? v->unit : "";
    c->text[COL_DESCRIPTION] = v->description ? v->description : "";
}

void cli_info_print_variable_table(const rtcosim_variable *vars, size_t n)
{
    static const char *const headings[COL_COUNT] = {"name", "vr", "type", "causality", "variability",
                                                    "initial", "start", "unit", "description"};
    size_t width[COL_COUNT];
    for (int k = 0; k < COL_COUNT; k++)
        width[k] = strlen(headings[k]);
    cells row;
    for (size_t i = 0; i < n; i++) {
        fill_cells(&vars[i], &row);
        for (int k = 0; k < COL_COUNT; k++)
            if (strlen(row.text[k]) > width[k])
                width[k] = strlen(row.text[k]);
    }
    printf("\nvariables (%zu):\n", n);
    for (int k = 0; k + 1 < COL_COUNT; k++)
        printf("%-*s  ", (int)width[k], headings[k]);
    printf("%s\n", headings[COL_COUNT - 1]);
    for (size_t i = 0; i < n; i++) {
        fill_cells(&vars[i], &row);
        for (int k = 0; k < COL_COUNT; k++) {
            if (k == COL_VR)
                printf("%*s  ", (int)width[k], row.text[k]);
            else if (k + 1 < COL_COUNT)
                printf("%-*s  ", (int)width[k], row.text[k]);
            else
                printf("%s\n", row.text[k]);
        }
    }
}

static void print_fact(const char *label, const char *value)
{
    if (value && *value)
        printf("%-20s %s\n", label, value);
}

static void print_capabilities(const rtcosim_capabilities *cap)
{
    char text[256] = "";
    struct { bool on; const char *name; } flags[] = {
        {cap->can_handle_variable_step, "variable step size"},
        {cap->can_get_set_state, "get/set state"},
        {cap->can_serialize_state, "serialize state"},
        {cap->provides_directional_derivatives, "directional derivatives"},
        {cap->can_return_early, "early return"},
        {cap->has_event_mode, "event mode"},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (flags[i].on)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", text[0] ? ", " : "",
                     flags[i].name);
    if (cap->max_input_derivative_order > 0)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%sinput derivatives up to order %d",
                 text[0] ? ", " : "", cap->max_input_derivative_order);
    print_fact("capabilities", text[0] ? text : "(none)");
}

static void print_default_experiment(const rtcosim_component_desc *d)
{
    char text[256] = "", num[RTCOSIM_FORMAT_MAX];
    struct { bool has; const char *name; rtcosim_time_ns t; } times[] = {
        {d->has_default_start, "start", d->default_start},
        {d->has_default_stop, "stop", d->default_stop},
        {d->has_default_step, "step", d->default_step},
    };
    for (size_t i = 0; i < 3; i++)
        if (times[i].has) {
            rtcosim_format_time(times[i].t, num);
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s %s s", text[0] ? ", " : "",
                     times[i].name, num);
        }
    if (d->has_default_tolerance) {
        rtcosim_format_double(d->default_tolerance, num);
        snprintf(text + strlen(text), sizeof text - strlen(text), "%stolerance %s",
                 text[0] ? ", " : "", num);
    }
    print_fact("default experiment", text[0] ? text : "(none)");
}

static bool has_variable(const rtcosim_component *c, const char *name)
{
    size_t n = rtcosim_component_variable_count(c);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rtcosim_component_variable(c, i)->name, name) == 0)
            return true;
    return false;
}

/* Layered standards and terminals (FMI 3.0 sections 2.6 and 2.4.9). */
static void print_extras(const rtcosim_component *c, const rtcosim_fmu_extras *x)
{
    size_t ns = rtcosim_fmu_extras_standard_count(x);
    char text[512] = "";
    for (size_t i = 0; i < ns; i++) {
        const rtcosim_layered_standard *s = rtcosim_fmu_extras_standard(x, i);
        bool lsbus = strcmp(s->name, "org.fmi-standard.fmi-ls-bus") == 0;
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s %s%s", i ? ", " : "",
                 s->name, s->version, !lsbus ? ""
                 : s->is_bus_simulation_fmu ? " (bus simulation FMU)" : " (network FMU)");
    }
    print_fact("layered standards", ns ? text : "(none)");
    size_t nt = rtcosim_fmu_extras_terminal_count(x);
    if (!nt)
        return;
    printf("\nterminals (%zu):\n", nt);
    for (size_t i = 0; i < nt; i++) {
        const rtcosim_terminal *t = rtcosim_fmu_extras_terminal(x, i);
        int indent = 2 + 2 * t->depth;
        printf("%*s%s  kind %s, matching %s\n", indent, "", t->name, t->kind ? t->kind : "(none)",
               t->matching_rule);
        for (size_t m = 0; m < t->member_count; m++) {
            const rtcosim_terminal_member *mv = &t->members[m];
            printf("%*s%s -> %s (%s%s)\n", indent + 2, "",
                   mv->member_name ? mv->member_name : "(no memberName)", mv->variable_name,
                   mv->variable_kind, has_variable(c, mv->variable_name) ? ""
                                                                         : "; not a variable of the FMU");
        }
    }
}

/* The interfaces the FMU declares and, for model exchange (FMI 2.0 and 3.0),
 * its continuous states and event indicators: read through a second load
 * when another interface was loaded, and a model exchange part that would
 * not load (a broken numberOfEventIndicators, no modelIdentifier: what
 * `simulate --interface-type me` refuses) is a warning here, an error with
 * --strict; its counts come from the description when its binary cannot
 * be used. main_failure: why the loaded interface's binary cannot be used
 * (the FMU was described from its XML), or NULL; the same failure of the
 * model exchange part is not warned twice. Returns the exit code so far (0,
 * or cli_fail's). */
static int print_interfaces(const char *fmu, const rtcosim_fmu_options *opts,
                            const rtcosim_fmu_info *info, const char *main_failure)
{
    bool described = main_failure != NULL; /* the main interface's binary failed so */
    char text[96] = "";
    const char *names[] = {"co-simulation", "model exchange", "scheduled execution"};
    const bool has[] = {info->has_co_simulation, info->has_model_exchange,
                        info->has_scheduled_execution};
    for (size_t k = 0; k < 3; k++)
        if (has[k])
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s",
                     text[0] ? ", " : "", names[k]);
    print_fact("interfaces", text[0] ? text : "(none)");
    if (!info->has_model_exchange || info->fmi1_kind)
        return 0; /* (FMI 1.0: one interface, its line below) */
    size_t states = info->state_count, indicators = info->event_indicator_count;
    bool usable = !described;
    if (info->interface_type != RTCOSIM_FMI_MODEL_EXCHANGE) {
        rtcosim_fmu_options me = *opts;
        me.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE;
        me.model_exchange_fallback = false;
        rtcosim_component *c = NULL;
        rtcosim_error err;
        /* (the warnings of the whole description were logged by the first load) */
        rtcosim_log_level level = rtcosim_log_get_level();
        rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
        rtcosim_status st = rtcosim_fmu_load(fmu, &me, &c, &err);
        /* (a binary that cannot serve it: the description still counts) */
        rtcosim_error ignored;
        usable = st == RTCOSIM_OK;
        if (!usable && !opts->strict && rtcosim_fmu_describe(fmu, &me, &c, &ignored) == RTCOSIM_OK)
            st = RTCOSIM_OK;
        rtcosim_log_set_level(level);
        if (!usable && !(described && strcmp(err.message, main_failure) == 0)) {
            if (opts->strict)
                return cli_fail("%s (its model exchange interface)", err.message);
            rtcosim_log(RTCOSIM_LOG_WARNING, "info", "%s (its model exchange interface, which "
                        "simulate --interface-type me refuses)", err.message);
        }
        if (st != RTCOSIM_OK) {
            print_fact("model exchange", "cannot be used (see the warning)");
            return 0;
        }
        const rtcosim_fmu_info *mi = rtcosim_fmu_info_of(c);
        states = mi->state_count;
        indicators = mi->event_indicator_count;
        rtcosim_component_free(c);
    }
    snprintf(text, sizeof text, "%zu continuous state%s, %zu event indicator%s%s", states,
             states == 1 ? "" : "s", indicators, indicators == 1 ? "" : "s",
             usable ? "" : " (cannot be used: see the warning)");
    print_fact("model exchange", text);
    return 0;
}

static int run_info(int argc, char **argv)
{
    const char *fmu = NULL, *parameter_set = NULL, *dbc = NULL;
    rtcosim_fmu_options opts = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--parameter-set") == 0) {
            if (i + 1 >= argc)
                return cli_fail("info: --parameter-set needs a set name");
            parameter_set = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--dbc") == 0) {
            if (i + 1 >= argc)
                return cli_fail("info: --dbc needs a DBC file");
            dbc = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--strict") == 0) {
            opts.strict = true;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1])
            return cli_unknown_option("info", argv[i], usage);
        int rc = cli_positional("info", "FMU", &fmu, argv, i);
        if (rc)
            return rc;
    }
    if (!fmu)
        return cli_fail("info: no FMU given (usage: rtcosim info FMU)");
    size_t len = strlen(fmu);
    bool mdf = len > 4 && (strcasecmp(fmu + len - 4, ".mf4") == 0 ||
                           strcasecmp(fmu + len - 4, ".mdf") == 0);
    if (dbc && !cli_info_is_can_log(fmu) && !mdf)
        return cli_fail("info: --dbc applies to CAN logs (.blf, .asc, .log, .trc, .mf4), not to '%s'",
                        fmu);
    if (cli_info_is_dbc(fmu) || cli_info_is_can_log(fmu)) {
        if (parameter_set || opts.strict)
            return cli_fail("info: %s applies to systems and FMUs, not to '%s'",
                            parameter_set ? "--parameter-set" : "--strict", fmu);
        return cli_info_is_dbc(fmu) ? cli_info_dbc(fmu) : cli_info_can_log(fmu, dbc);
    }
    if (mdf) {
        if (parameter_set || opts.strict)
            return cli_fail("info: %s applies to systems and FMUs, not to '%s'",
                            parameter_set ? "--parameter-set" : "--strict", fmu);
        /* an MDF 4 bus log (CAN_DataFrame records) as a CAN log, else a
         * measurement */
        rtcosim_error err;
        int rc = cli_info_can_log_try(fmu, dbc, &err);
        if (rc != -1) {
            /* (and the signals a measurement logged beside the frames) */
            if (rc == 0 && rtcosim_results_print_mdf_signals(fmu, stdout, &err) != RTCOSIM_OK)
                rc = cli_fail_error(&err);
            return rc;
        }
        if (dbc)
            return cli_fail("info: --dbc applies to CAN logs; %s holds no CAN frames (%s)", fmu,
                            err.message);
        return rtcosim_results_print_mdf(fmu, stdout, &err) == RTCOSIM_OK ? 0
                                                                          : cli_fail_error(&err);
    }
    if (len > 4 && (strcasecmp(fmu + len - 4, ".csv") == 0 ||
                    strcasecmp(fmu + len - 4, ".mat") == 0)) {
        if (parameter_set || opts.strict)
            return cli_fail("info: %s applies to systems and FMUs, not to '%s'",
                            parameter_set ? "--parameter-set" : "--strict", fmu);
        rtcosim_error err;
        return rtcosim_results_print_table(fmu, stdout, &err) == RTCOSIM_OK ? 0
                                                                            : cli_fail_error(&err);
    }
    if (cli_info_is_system(fmu))
        return cli_info_system(fmu, parameter_set, opts.strict);
    if (rtcosim_dcp_is_dcpx(fmu)) {
        if (parameter_set || opts.strict)
            return cli_fail("info: %s applies to systems and FMUs, not to the DCP slave "
                            "description '%s'", parameter_set ? "--parameter-set" : "--strict",
                            fmu);
        return cli_info_dcpx(fmu);
    }
    if (parameter_set)
        return cli_fail("info: --parameter-set applies to systems, not to FMU '%s'", fmu);
    rtcosim_component *c = NULL;
    rtcosim_error err;
    /* An FMU offering model exchange only (every FMI 1.0 ME FMU) or
     * scheduled execution only (FMI 3.0 chapter 5) is described through
     * that interface (the loader's fallback). */
    opts.model_exchange_fallback = true;
    rtcosim_status st = rtcosim_fmu_load(fmu, &opts, &c, &err);
    /* An FMU whose binary cannot be used here (built for another platform,
     * a library that does not load or lacks a function) is still described,
     * as FMPy's `fmpy info` does: its facts, and why it cannot run here, as
     * a warning (an error with --strict). */
    rtcosim_error binary_err;
    bool described = false;
    if (st != RTCOSIM_OK && !opts.strict) {
        binary_err = err;
        rtcosim_log_level level = rtcosim_log_get_level();
        rtcosim_log_set_level(RTCOSIM_LOG_ERROR); /* (the first load logged them) */
        described = rtcosim_fmu_describe(fmu, &opts, &c, &err) == RTCOSIM_OK;
        rtcosim_log_set_level(level);
        if (described)
            st = RTCOSIM_OK;
        else
            err = binary_err;
    }
    if (st != RTCOSIM_OK)
        return strncmp(err.message, fmu, strlen(fmu)) == 0 ? cli_fail_error(&err)
                                                           : cli_fail("%s: %s", fmu, err.message);
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    if (described)
        rtcosim_log(RTCOSIM_LOG_WARNING, "info", "%s (described from modelDescription.xml: its "
                    "%s interface cannot run here)", binary_err.message,
                    info->interface_type == RTCOSIM_FMI_MODEL_EXCHANGE ? "model exchange"
                    : info->interface_type == RTCOSIM_FMI_SCHEDULED_EXECUTION ? "scheduled execution"
                                                                            : "co-simulation");
    print_fact("FMU", fmu);
    print_fact("FMI version", info ? info->fmi_version_text : NULL);
    print_fact("model name", rtcosim_component_model_name(c));
    if (info) {
        print_fact("model identifier", info->model_identifier);
        if (info->interface_type == RTCOSIM_FMI_SCHEDULED_EXECUTION)
            print_fact("interface", "scheduled execution (FMI 3.0 chapter 5)");
        int rc = print_interfaces(fmu, &opts, info, described ? binary_err.message : NULL);
        if (rc) {
            rtcosim_component_free(c);
            return rc;
        }
        char platforms[256];
        rtcosim_fmu_platforms(info->extracted_dir, platforms, sizeof platforms);
        const char *binary = info->binary_path;
        size_t dir_len = strlen(info->extracted_dir);
        if (binary && strncmp(binary, info->extracted_dir, dir_len) == 0 && binary[dir_len] == '/')
            binary += dir_len + 1;
        if (info->binary_built_from_sources && binary) {
            /* the archive's platforms: not the folder the build made */
            const char *folder = strchr(binary, '/') ? strchr(binary, '/') + 1 : binary;
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(folder, "/"), folder);
            size_t len = strlen(name);
            for (char *hit = platforms; (hit = strstr(hit, name)); hit++)
                if ((hit == platforms || hit[-1] == ' ') && (hit[len] == ',' || !hit[len])) {
                    memmove(hit, hit + len + (hit[len] == ',' ? 2 : 0),
                            strlen(hit + len + (hit[len] == ',' ? 2 : 0)) + 1);
                    break;
                }
            binary = "built from its sources when loaded (none for this platform)";
        }
        print_fact("platforms", platforms[0] ? platforms : "(none)");
        print_fact("binary", described ? "cannot be used here (see the warning)" : binary);
        print_fact(info->fmi_version == RTCOSIM_FMI_3 ? "instantiation token" : "guid",
                   info->instantiation_token);
        print_fact("description", info->description);
        print_fact("author", info->author);
        print_fact("version", info->version);
        print_fact("generation tool", info->generation_tool);
        print_fact("generation date", info->generation_date);
        char warnings[32];
        snprintf(warnings, sizeof warnings, "%zu", info->model_description_warnings);
        print_fact("description warnings", warnings);
        if (info->fmi1_kind) {
            char kind[128];
            if (info->interface_type == RTCOSIM_FMI_MODEL_EXCHANGE)
                snprintf(kind, sizeof kind, "%s, %zu continuous state%s, %zu event indicator%s",
                         info->fmi1_kind, info->state_count, info->state_count == 1 ? "" : "s",
                         info->event_indicator_count,
                         info->event_indicator_count == 1 ? "" : "s");
            else
                snprintf(kind, sizeof kind, "%s", info->fmi1_kind);
            print_fact("FMI 1.0 interface", kind);
            snprintf(warnings, sizeof warnings, "%zu", info->negated_alias_count);
            print_fact("negated aliases", warnings);
        }
    }
    rtcosim_fmu_extras *extras = NULL;
    if (info && info->extracted_dir &&
        rtcosim_fmu_extras_read(info->extracted_dir, &extras, &err) != RTCOSIM_OK) {
        rtcosim_component_free(c);
        return cli_fail("%s: %s", fmu, err.message);
    }
    print_capabilities(rtcosim_component_capabilities(c));
    print_default_experiment(rtcosim_component_description(c));
    print_extras(c, extras);
    rtcosim_fmu_extras_free(extras);
    const rtcosim_component_desc *desc = rtcosim_component_description(c);
    cli_info_print_variable_table(desc->variables, desc->variable_count);
    cli_info_print_clocks(c);
    rtcosim_component_free(c);
    return 0;
}

const rtcosim_cli_command rtcosim_cli_cmd_info = {"info",
                                                  "show the facts of an FMU, a system, a CAN "
                                                  "database or log, a measurement or a results "
                                                  "file",
                                                  run_info};
