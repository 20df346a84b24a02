/* The table component (OMSimulator's "text/csv" / "application/table"
 * component in SSP files): a CSV input table's columns as Float64 outputs,
 * linear between rows, the later row from a repeated time on, the ends held
 * with a warning; its state is its time. Then in systems: an .ssd whose
 * table drives the Feedthrough FMU, under Gauss-Seidel (the FMU's output is
 * the table at the same instant) and Jacobi (one macro step later), and an
 * .ssp as OMSimulator before 2.1 wrote it (type "application/table",
 * resources/, no connectors: they come from the table's header); columns
 * that take the type and variability of the inputs they drive (Integer and
 * Boolean held, a discrete Real held, a continuous one linear), in a system
 * and for an FMU run alone with an input file (as fmusim applies it).
 * Expected values are the table's, worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

/* u: 0 -> 10 over [0, 1], jumps to 20 at 1, flat to 2; w: 1, 1, 1, 3. */
static const char table_csv[] = "time,u,w\n0,0,1\n1,10,1\n1,20,1\n2,20,3\n";

static double get(rtcosim_component *c, uint32_t vr)
{
    double v = -1;
    rtcosim_error err;
    if (rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &v, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return v;
}

static void step_to(rtcosim_component *c, rtcosim_time_ns *t, double seconds)
{
    rtcosim_time_ns to = (rtcosim_time_ns)(seconds * 1e9 + 0.5);
    rtcosim_error err;
    rtcosim_step_result r = {0};
    if (rtcosim_component_do_step(c, *t, to - *t, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(r.last_successful_time, to);
    *t = to;
}

static void test_columns_are_interpolated_outputs(void **state)
{
    (void)state;
    const char *path = tu_scratch("stim.csv");
    tu_write_file(path, table_csv);
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_table_component_load(path, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(rtcosim_component_kind(c), "table");
    assert_int_equal(rtcosim_component_variable_count(c), 2);
    for (size_t i = 0; i < 2; i++) {
        const rtcosim_variable *v = rtcosim_component_variable(c, i);
        assert_string_equal(v->name, i ? "w" : "u");
        assert_int_equal(v->type, RTCOSIM_TYPE_FLOAT64);
        assert_int_equal(v->causality, RTCOSIM_CAUSALITY_OUTPUT);
    }
    const rtcosim_component_desc *d = rtcosim_component_description(c);
    assert_true(d->has_default_stop);
    assert_int_equal(d->default_stop, 2 * RTCOSIM_NS_PER_S);
    assert_true(rtcosim_component_capabilities(c)->can_get_set_state);

    /* a run to 3 s passes the table's end: said once, naming the file */
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(rtcosim_component_instantiate(c, "stim", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, 3 * RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    if (!strstr(tu_log_text(), "stim.csv: the table ends at 2 s, before the run's stop at 3 s"))
        fail_msg("log: %s", tu_log_text());
    tu_log_reset();
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    rtcosim_time_ns t = 0;
    assert_true(get(c, 0) == 0 && get(c, 1) == 1);
    step_to(c, &t, 0.25);
    assert_true(get(c, 0) == 2.5);
    step_to(c, &t, 1.0); /* the later of the two rows at 1 s */
    assert_true(get(c, 0) == 20 && get(c, 1) == 1);
    step_to(c, &t, 1.5);
    assert_true(get(c, 0) == 20 && get(c, 1) == 2);
    rtcosim_state saved = NULL;
    assert_int_equal(rtcosim_component_get_state(c, &saved, &err), RTCOSIM_OK);
    step_to(c, &t, 2.5); /* past the end: the last row held */
    assert_true(get(c, 1) == 3);
    assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_OK);
    assert_true(get(c, 1) == 2); /* back at 1.5 s */
    t = 3 * RTCOSIM_NS_PER_S / 2;
    /* serialized and back */
    size_t size = 0;
    assert_int_equal(rtcosim_component_serialized_state_size(c, saved, &size, &err), RTCOSIM_OK);
    uint8_t buf[64];
    assert_true(size <= sizeof buf);
    assert_int_equal(rtcosim_component_serialize_state(c, saved, buf, size, &err), RTCOSIM_OK);
    step_to(c, &t, 2.0);
    rtcosim_state loaded = NULL;
    assert_int_equal(rtcosim_component_deserialize_state(c, buf, size, &loaded, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_state(c, loaded, &err), RTCOSIM_OK);
    assert_true(get(c, 1) == 2);
    rtcosim_component_free_state(c, loaded);
    rtcosim_component_free_state(c, saved);
    /* outputs only */
    double one = 1;
    uint32_t vr = 0;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &one, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "stim.csv: a table's variables are outputs"));
    rtcosim_component_free(c);
}

static void test_bad_tables_are_named(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"time\n0\n1\n", "only_time.csv: the table has no column besides time"},
        {"time,u\n0,1\n1,x\n", "only_time.csv:3: column 2 ('u'): 'x' is not a finite number"},
        {"time,u\n1,1\n0,2\n", "only_time.csv:3: time 0 is earlier than the time of line 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = tu_scratch("only_time.csv");
        tu_write_file(path, cases[i].text);
        rtcosim_component *c = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_table_component_load(path, &c, &err), RTCOSIM_EFORMAT);
        if (!strstr(err.message, cases[i].message))
            fail_msg("got '%s', expected '%s'", err.message, cases[i].message);
        assert_null(c);
    }
}

static void test_mime_types_and_csv_sources_are_tables(void **state)
{
    (void)state;
    assert_true(rtcosim_table_is_source("text/csv", "a.txt"));
    assert_true(rtcosim_table_is_source("application/table", "resources/in.dat"));
    assert_false(rtcosim_table_is_source("application/x-fmu-sharedlibrary", "a.csv"));
    assert_true(rtcosim_table_is_source(NULL, "resources/in.csv"));
    assert_false(rtcosim_table_is_source(NULL, "model.fmu"));
    /* OMSimulator reads MAT result files as tables too (read with scipy's
     * files in test_mat_table_scipy.py) */
    assert_true(rtcosim_table_is_source(NULL, "in.MAT"));
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_table_component_load("absent.mat", &c, &err), RTCOSIM_ENOTFOUND);
    assert_string_equal(err.message, "absent.mat: cannot open: No such file or directory");
}

/* The system around a table that feeds the Feedthrough FMU. */
static char *system_text(const char *type_attr, const char *source, bool connectors,
                         const char *fmu)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"stimulus\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
             " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
             " <ssd:System name=\"root\">\n"
             "  <ssd:Elements>\n"
             "   <ssd:Component name=\"stim\" %s source=\"%s\">%s</ssd:Component>\n"
             "   <ssd:Component name=\"ft\" source=\"%s\"/>\n"
             "  </ssd:Elements>\n"
             "  <ssd:Connections><ssd:Connection startElement=\"stim\" startConnector=\"u\""
             " endElement=\"ft\" endConnector=\"Float64_continuous_input\"/></ssd:Connections>\n"
             " </ssd:System>\n"
             " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             type_attr, source,
             connectors ? "<ssd:Connectors><ssd:Connector name=\"u\" kind=\"output\">"
                          "<ssc:Real/></ssd:Connector></ssd:Connectors>"
                        : "",
             fmu);
    return text;
}

typedef struct rows {
    double t[16], y[16];
    size_t n;
} rows;

static rtcosim_status keep(void *context, rtcosim_time_ns t, const double *values, size_t count,
                           rtcosim_error *err)
{
    (void)err;
    rows *r = context;
    assert_int_equal(count, 1);
    if (r->n < 16) {
        r->t[r->n] = rtcosim_time_to_seconds(t);
        r->y[r->n++] = values[0];
    }
    return RTCOSIM_OK;
}

/* Runs the system to 2 s at H = 0.25 s; the FMU's output after each step. */
static void run(rtcosim_system_desc *d, rtcosim_ssd_order order, rows *r)
{
    const char *observe[] = {"ft.Float64_continuous_output"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 1};
    opts.overrides.has_step_size = true;
    opts.overrides.step_size_ns = RTCOSIM_NS_PER_S / 4;
    opts.overrides.order = order;
    rtcosim_master *m = NULL;
    rtcosim_error err;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    r->n = 0;
    if (rtcosim_master_initialize(m, 0, 2 * RTCOSIM_NS_PER_S, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, 2 * RTCOSIM_NS_PER_S, keep, r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_free(m);
}

/* The table at t: 10 t on [0, 1), 20 from 1 s on. */
static double table_u(double t) { return t < 1 ? 10 * t : 20; }

static void check(const rows *r, double delay)
{
    assert_true(r->n >= 8);
    for (size_t i = 0; i < r->n; i++) {
        double expected = r->t[i] - delay < 0 ? 0 : table_u(r->t[i] - delay);
        if (r->y[i] != expected)
            fail_msg("at %g s: %.17g, expected %.17g", r->t[i], r->y[i], expected);
    }
}

static void test_a_table_drives_an_fmu_in_a_system(void **state)
{
    (void)state;
    tu_write_file(tu_scratch("stim.csv"), table_csv);
    const char *text = system_text("type=\"text/csv\"", "stim.csv", true,
                                   RTCOSIM_FMU_FEEDTHROUGH_FMI2);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(text, strlen(text), tu_scratch(""), "stimulus.ssd", &d, &err) !=
        RTCOSIM_OK)
        fail_msg("%s", err.message);
    rows r;
    run(d, RTCOSIM_SSD_ORDER_GAUSS_SEIDEL, &r); /* the FMU reads the table's new value */
    check(&r, 0);
    run(d, RTCOSIM_SSD_ORDER_JACOBI, &r); /* ... the one of the step before */
    check(&r, 0.25);
    rtcosim_system_desc_free(d);
}

static void test_an_ssp_as_omsimulator_wrote_it(void **state)
{
    (void)state;
    const char *path = tu_scratch("stimulus.ssp");
    const tu_entry entries[] = {
        {.name = "SystemStructure.ssd",
         .text = system_text("type=\"application/table\"", "resources/stim.csv", false,
                             "resources/ft.fmu")},
        {.name = "resources/stim.csv", .text = table_csv},
        {.name = "resources/ft.fmu", .file = RTCOSIM_FMU_FEEDTHROUGH_FMI2}};
    tu_zip(path, entries, 3);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_ssd_component *c = rtcosim_system_desc_component(d, 0);
    assert_true(c->connectors_from_model);
    assert_int_equal(c->connector_count, 2); /* u and w from the header */
    rows r;
    run(d, RTCOSIM_SSD_ORDER_GAUSS_SEIDEL, &r);
    check(&r, 0);
    rtcosim_system_desc_free(d);
}

/* Two Picky accumulators p (FMI 3.0) and q (FMI 2.0), stop time 2 s, with
 * the given connections. */
static void write_two(const char *path, const char *connections)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"two\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
             " <ssd:System name=\"two\"><ssd:Elements>\n"
             "  <ssd:Component name=\"p\" source=\"%s\"/>\n"
             "  <ssd:Component name=\"q\" source=\"%s\"/>\n"
             " </ssd:Elements>%s</ssd:System>\n"
             " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_PICKY_FMI3, RTCOSIM_FMU_PICKY_FMI2, connections);
    tu_write_file(path, text);
}

/* `run SYSTEM --input-file`: the table joins the system, connected to the
 * Real inputs its columns name (component.variable). Two Picky accumulators
 * (y += u h): p's u ramps 0 -> 10 over [0, 1], jumps to 20 and falls to -4
 * at 2 s, q's is 1 then 2; with h = 1/8 the sums at 2 s are worked out by
 * hand: p 0.125 (35 + 160 - 84) = 13.875, q 0.125 (8 + 16) = 3. Then what
 * the columns may not name. */
static void test_an_input_file_joins_a_system(void **state)
{
    (void)state;
    char ssd[4096], in[4096];
    snprintf(ssd, sizeof ssd, "%s", tu_scratch("two.ssd"));
    write_two(ssd, "");
    snprintf(in, sizeof in, "%s", tu_scratch("two_in.csv"));
    tu_write_file(in, "time,p.u,q.u\n0,0,1\n1,10,1\n1,20,2\n2,-4,2\n");
    rtcosim_system_load_options load = {.input_file = in};
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load_with(ssd, &load, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_system_desc_component_count(d), 3);
    assert_string_equal(rtcosim_system_desc_component(d, 2)->name, "input");
    const char *observe[] = {"p.y", "q.y"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 2};
    opts.overrides.has_step_size = true;
    opts.overrides.step_size_ns = RTCOSIM_NS_PER_S / 8;
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, 2 * RTCOSIM_NS_PER_S, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, 2 * RTCOSIM_NS_PER_S, NULL, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const double *y = rtcosim_master_observed_values(m);
    if (y[0] != 13.875 || y[1] != 3)
        fail_msg("p.y %.17g, q.y %.17g; expected 13.875 and 3", y[0], y[1]);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);

    /* what a column may not name, each refused in one line naming it */
    static const struct {
        const char *header, *connections, *message;
    } bad[] = {
        {"time,u\n0,1\n", "", "column 'u' names connectors of components 'p' and 'q': name it "
                              "component.variable"},
        {"time,p.y\n0,1\n", "", "column 'p.y': p.y is not an input"},
        {"time,z.u\n0,1\n", "", "column 'z.u': the system has no such connector"},
        {"time,q.u\n0,1\n",
         "<ssd:Connections><ssd:Connection startElement=\"p\" startConnector=\"y\" "
         "endElement=\"q\" endConnector=\"u\"/></ssd:Connections>",
         "column 'q.u': q.u is driven by a connection already (line 7)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_two(ssd, bad[i].connections);
        tu_write_file(in, bad[i].header);
        assert_int_not_equal(rtcosim_system_desc_load_with(ssd, &load, &d, &err), RTCOSIM_OK);
        if (!strstr(err.message, bad[i].message) || strncmp(err.message, in, strlen(in)) != 0)
            fail_msg("got '%s', expected '%s: ... %s'", err.message, in, bad[i].message);
        assert_null(d);
    }
}

/* Every kind of input the Feedthrough FMU (FMI 3.0) has, driven by one
 * table: its columns take the type and variability of what they drive. */
static const char kinds_csv[] = "time,c,d,i,b\n0,0,0,0,0\n0.5,1,1,3,1\n1,2,2,-4,0\n";
static const char *const kinds_inputs[] = {"Float64_continuous_input", "Float64_discrete_input",
                                           "Int32_input", "Boolean_input"};

/* The kinds system, stim's columns c, d, i, b connected to kinds_inputs
 * (the column named `also` also to Float64_continuous_input of a second
 * Feedthrough). */
static const char *kinds_text(const char *also)
{
    static char text[8192];
    char conns[2048] = "";
    static const char cols[] = "cdib";
    for (size_t k = 0; k < 4; k++)
        snprintf(conns + strlen(conns), sizeof conns - strlen(conns),
                 "<ssd:Connection startElement=\"stim\" startConnector=\"%c\" endElement=\"ft\""
                 " endConnector=\"%s\"/>\n", cols[k], kinds_inputs[k]);
    if (also)
        snprintf(conns + strlen(conns), sizeof conns - strlen(conns),
                 "<ssd:Connection startElement=\"stim\" startConnector=\"%s\" endElement=\"ft2\""
                 " endConnector=\"Float64_continuous_input\"/>\n", also);
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"kinds\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
             " <ssd:System name=\"root\"><ssd:Elements>\n"
             "  <ssd:Component name=\"stim\" type=\"text/csv\" source=\"kinds.csv\"/>\n"
             "  <ssd:Component name=\"ft\" source=\"%s\"/>\n"
             "  <ssd:Component name=\"ft2\" source=\"%s\"/>\n"
             " </ssd:Elements>\n <ssd:Connections>\n%s </ssd:Connections></ssd:System>\n"
             " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_FEEDTHROUGH_FMI3, RTCOSIM_FMU_FEEDTHROUGH_FMI3, conns);
    return text;
}

typedef struct kinds_rows {
    double t[16], y[16][4];
    size_t n;
} kinds_rows;

static rtcosim_status keep_kinds(void *context, rtcosim_time_ns t, const double *values,
                                 size_t count, rtcosim_error *err)
{
    (void)err;
    kinds_rows *r = context;
    assert_int_equal(count, 4);
    if (r->n < 16) {
        r->t[r->n] = rtcosim_time_to_seconds(t);
        memcpy(r->y[r->n++], values, sizeof r->y[0]);
    }
    return RTCOSIM_OK;
}

/* Runs `d` to 1 s at H = 1/8 s in `order`, keeping the four outputs. */
static rtcosim_status run_kinds(rtcosim_system_desc *d, const char *prefix,
                                rtcosim_ssd_order order, kinds_rows *r, rtcosim_error *err)
{
    static const char *const outputs[] = {"Float64_continuous_output", "Float64_discrete_output",
                                          "Int32_output", "Boolean_output"};
    char names[4][64];
    const char *observe[4];
    for (size_t k = 0; k < 4; k++) {
        snprintf(names[k], sizeof names[k], "%s%s", prefix, outputs[k]);
        observe[k] = names[k];
    }
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 4};
    opts.overrides.has_step_size = true;
    opts.overrides.step_size_ns = RTCOSIM_NS_PER_S / 8;
    opts.overrides.order = order;
    rtcosim_master *m = NULL;
    r->n = 0;
    rtcosim_status st = rtcosim_system_build_master(d, &opts, &m, err);
    if (st == RTCOSIM_OK && (st = rtcosim_master_initialize(m, 0, RTCOSIM_NS_PER_S, err)) ==
                                RTCOSIM_OK)
        st = rtcosim_master_run(m, RTCOSIM_NS_PER_S, keep_kinds, r, err);
    rtcosim_master_free(m);
    return st;
}

/* kinds_csv at t by hand: c linear, d, i and b held (the last row at or
 * before t). */
static void kinds_at(double t, double out[4])
{
    out[0] = t < 0 ? 0 : 2 * t;
    out[1] = t < 0.5 ? 0 : t < 1 ? 1 : 2;
    out[2] = t < 0.5 ? 0 : t < 1 ? 3 : -4;
    out[3] = t < 0.5 ? 0 : t < 1 ? 1 : 0;
}

static void check_kinds(const kinds_rows *r, double delay)
{
    assert_int_equal(r->n, 9);
    for (size_t i = 0; i < r->n; i++) {
        double want[4];
        kinds_at(r->t[i] - delay, want);
        for (size_t k = 0; k < 4; k++)
            if (r->y[i][k] != want[k])
                fail_msg("%s at %g s: %.17g, expected %.17g", kinds_inputs[k], r->t[i],
                         r->y[i][k], want[k]);
    }
}

static void test_columns_take_the_kinds_of_their_inputs(void **state)
{
    (void)state;
    tu_write_file(tu_scratch("kinds.csv"), kinds_csv);
    const char *text = kinds_text(NULL);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(text, strlen(text), tu_scratch(""), "kinds.ssd", &d, &err) !=
        RTCOSIM_OK)
        fail_msg("%s", err.message);
    kinds_rows r;
    if (run_kinds(d, "ft.", RTCOSIM_SSD_ORDER_GAUSS_SEIDEL, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    check_kinds(&r, 0);
    rtcosim_system_desc_free(d);

    /* refused in one line: a column driving two kinds, a cell that is no
     * value of the column's type */
    static const struct {
        const char *also, *csv, *message;
    } bad[] = {
        {"i", kinds_csv, "kinds.ssd:14: table column 'stim.i' drives inputs of two kinds: "
                         "ft.Int32_input (line 12) and ft2.Float64_continuous_input"},
        {NULL, "time,c,d,i,b\n0,0,0,0,0\n1,0,0,0.5,0\n",
         "kinds.csv:3: column 'i': 0.5 is not a valid Int32 value"},
        {NULL, "time,c,d,i,b\n0,0,0,0,0\n1,0,0,0,2\n",
         "kinds.csv:3: column 'b': 2 is not a valid Boolean value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_write_file(tu_scratch("kinds.csv"), bad[i].csv);
        text = kinds_text(bad[i].also);
        if (rtcosim_system_desc_parse(text, strlen(text), tu_scratch(""), "kinds.ssd", &d, &err) !=
            RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_not_equal(run_kinds(d, "ft.", RTCOSIM_SSD_ORDER_GAUSS_SEIDEL, &r, &err),
                             RTCOSIM_OK);
        if (!strstr(err.message, bad[i].message) || strchr(err.message, '\n'))
            fail_msg("got '%s', expected '... %s'", err.message, bad[i].message);
        rtcosim_system_desc_free(d);
    }
}

/* `rtcosim run model.fmu --input-file`: the FMU alone with every kind of
 * input. fmusim (c8d4e6d, the Reference FMUs' importer, CS, output interval
 * 1/8 s) ran the same FMU (FMI 2.0 and 3.0) on this file; its recording:
 * each output the input table one step earlier (it records before it sets
 * the inputs of a step), continuous linear, the others held. The default
 * order here is Jacobi, which gives the same. */
static void test_an_fmu_alone_takes_every_kind_of_input(void **state)
{
    (void)state;
    char in[4096];
    snprintf(in, sizeof in, "%s", tu_scratch("alone_in.csv"));
    tu_write_file(in, "time,Float64_continuous_input,Float64_discrete_input,Int32_input,"
                      "Boolean_input\n0,0,0,0,0\n0.5,1,1,3,1\n1,2,2,-4,0\n");
    const char *fmus[] = {RTCOSIM_FMU_FEEDTHROUGH_FMI2, RTCOSIM_FMU_FEEDTHROUGH_FMI3};
    for (size_t f = 0; f < 2; f++) {
        rtcosim_system_load_options load = {.input_file = in};
        rtcosim_system_desc *d = NULL;
        rtcosim_error err;
        if (rtcosim_system_desc_load_with(fmus[f], &load, &d, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        kinds_rows r;
        if (run_kinds(d, "Feedthrough.", RTCOSIM_SSD_ORDER_JACOBI, &r, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        check_kinds(&r, 0.125);
        rtcosim_system_desc_free(d);
    }
}

/* Int64 and UInt64 columns are read exactly, as `simulate` reads them: a
 * double would give 2^53 + 1 as 2^53 and has no 2^63 - 1. Held from row to
 * row (at 0.5 s the row of 0 s), "1e3" taken as 1000; a value outside the
 * type, or no whole number, is refused naming the file's line and the
 * column. */
static void test_64_bit_columns_are_exact(void **state)
{
    (void)state;
    const char *path = tu_scratch("wide.csv");
    tu_write_file(path, "time,i,u\n0,9007199254740993,18446744073709551615\n"
                        "1,-9223372036854775808,9007199254740993\n"
                        "2,9223372036854775807,1e3\n");
    const rtcosim_table_column cols[] = {{"i", RTCOSIM_TYPE_INT64, false},
                                         {"u", RTCOSIM_TYPE_UINT64, false}};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_table_component_load_columns(path, cols, 2, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    static const struct {
        double t;
        int64_t i;
        uint64_t u;
    } want[] = {{0, INT64_C(9007199254740993), UINT64_MAX},
                {0.5, INT64_C(9007199254740993), UINT64_MAX},
                {1, INT64_MIN, UINT64_C(9007199254740993)},
                {2, INT64_MAX, 1000},
                {2.5, INT64_MAX, 1000}};
    rtcosim_time_ns t = 0;
    if (rtcosim_component_instantiate(c, "wide", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        if (want[k].t > 0)
            step_to(c, &t, want[k].t);
        uint32_t vr[] = {0, 1};
        int64_t i = 0;
        uint64_t u = 0;
        if (rtcosim_component_get(c, RTCOSIM_TYPE_INT64, &vr[0], 1, &i, &err) != RTCOSIM_OK ||
            rtcosim_component_get(c, RTCOSIM_TYPE_UINT64, &vr[1], 1, &u, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        if (i != want[k].i || u != want[k].u)
            fail_msg("at %g s: %lld and %llu, expected %lld and %llu", want[k].t, (long long)i,
                     (unsigned long long)u, (long long)want[k].i,
                     (unsigned long long)want[k].u);
    }
    rtcosim_component_free(c);

    static const struct {
        const char *csv, *message;
    } bad[] = {
        {"time,i,u\n0,0,0\n1,9223372036854775808,0\n",
         "wide.csv:3: column 'i': '9223372036854775808' is not a valid Int64 value"},
        {"time,i,u\n0,0,0\n\n1,0,-1\n", "wide.csv:4: column 'u': '-1' is not a valid UInt64 value"},
        {"time,i,u\n0,1.5,0\n", "wide.csv:2: column 'i': '1.5' is not a valid Int64 value"},
        {"time,i,u\n0,0,18446744073709551616\n",
         "wide.csv:2: column 'u': '18446744073709551616' is not a valid UInt64 value"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tu_write_file(path, bad[k].csv);
        assert_int_not_equal(rtcosim_table_component_load_columns(path, cols, 2, &c, &err),
                             RTCOSIM_OK);
        if (!strstr(err.message, bad[k].message) || strchr(err.message, '\n'))
            fail_msg("got '%s', expected '... %s'", err.message, bad[k].message);
    }
}

/* An input file's column may name an element of an FMI 3.0 array input
 * ("a.u[3]", as the model's variable table names it): the StateSpace FMU's
 * u[1] and u[3] follow the table (u[2] keeps its start 0), the values the
 * FMU holds after each step being the table one macro step earlier (Jacobi)
 * by hand; an element the array does not have is named, and a column for a
 * whole array is refused, in a system and for the FMU alone. */
static void test_an_input_file_drives_array_elements(void **state)
{
    (void)state;
    char ssd[4096], in[4096], text[2048];
    snprintf(ssd, sizeof ssd, "%s", tu_scratch("ss.ssd"));
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"ss\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
             " <ssd:System name=\"root\"><ssd:Elements>\n"
             "  <ssd:Component name=\"a\" source=\"%s\"/>\n"
             " </ssd:Elements></ssd:System>\n"
             "</ssd:SystemStructureDescription>\n", RTCOSIM_FMU_STATESPACE_FMI3);
    tu_write_file(ssd, text);
    snprintf(in, sizeof in, "%s", tu_scratch("ss_in.csv"));
    tu_write_file(in, "time,a.u[1],a.u[3]\n0,1,2\n1,3,4\n");
    rtcosim_system_load_options load = {.input_file = in};
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load_with(ssd, &load, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observe[] = {"a.u[1]", "a.u[2]", "a.u[3]"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 3};
    opts.overrides.has_step_size = true;
    opts.overrides.step_size_ns = RTCOSIM_NS_PER_S / 4;
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, RTCOSIM_NS_PER_S, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, RTCOSIM_NS_PER_S, NULL, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const double *u = rtcosim_master_observed_values(m);
    if (u[0] != 2.5 || u[1] != 0 || u[2] != 3.5) /* 1 + 2 t and 2 + 2 t at t = 0.75 */
        fail_msg("u = %g %g %g; expected 2.5 0 3.5", u[0], u[1], u[2]);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);

    tu_write_file(in, "time,a.u[9]\n0,1\n");
    if (rtcosim_system_desc_load_with(ssd, &load, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_not_equal(rtcosim_system_build_master(d, &opts, &m, &err), RTCOSIM_OK);
    if (!strstr(err.message, "ss_in.csv: column 'a.u[9]': component 'a' has no variable 'u[9]'"))
        fail_msg("got '%s'", err.message);
    rtcosim_system_desc_free(d);

    /* a column for the whole array, in a system and for the FMU alone */
    tu_write_file(in, "time,a.u\n0,1\n");
    if (rtcosim_system_desc_load_with(ssd, &load, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_not_equal(rtcosim_system_build_master(d, &opts, &m, &err), RTCOSIM_OK);
    if (!strstr(err.message, "ss_in.csv: column 'a.u': a.u is an array: a column drives one "
                             "element (a.u[1], ...)"))
        fail_msg("got '%s'", err.message);
    rtcosim_system_desc_free(d);
    tu_write_file(in, "time,u\n0,1\n");
    assert_int_not_equal(rtcosim_system_desc_load_with(RTCOSIM_FMU_STATESPACE_FMI3, &load, &d, &err),
                         RTCOSIM_OK);
    if (!strstr(err.message, "ss_in.csv: column 'u': an array: a column drives one element "
                             "(u[1], ...)"))
        fail_msg("got '%s'", err.message);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns_are_interpolated_outputs),
        cmocka_unit_test(test_bad_tables_are_named),
        cmocka_unit_test(test_mime_types_and_csv_sources_are_tables),
        cmocka_unit_test(test_a_table_drives_an_fmu_in_a_system),
        cmocka_unit_test(test_an_ssp_as_omsimulator_wrote_it),
        cmocka_unit_test(test_an_input_file_joins_a_system),
        cmocka_unit_test(test_columns_take_the_kinds_of_their_inputs),
        cmocka_unit_test(test_an_fmu_alone_takes_every_kind_of_input),
        cmocka_unit_test(test_an_input_file_drives_array_elements),
        cmocka_unit_test(test_64_bit_columns_are_exact),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
