/* The DBC signal bus component (src/can/signal_bus.c), driven directly.
 * Truth: the DBC below and frame durations at 500 kbit/s by hand (2 us a
 * bit, stuff bits counted on the frames' bit strings as tests/can/test_can.c
 * counts them): Speed (0x100, 2 bytes) carries the tx value quantized to
 * 0.01 (raw = round(v / 0.01)); each message goes at 0 and every cycle
 * time; a receiver sees a frame's values from the frame's end on. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "rtcosim/can_signals.h"

static const char dbc_text[] =
    "VERSION \"\"\n\nBU_: A B\n\n"
    "BO_ 256 Speed: 2 A\n"
    " SG_ Value : 0|16@1- (0.01,0) [-327.68|327.67] \"m/s\" B\n\n"
    "BO_ 512 Mux: 3 A\n"
    " SG_ Sel M : 0|8@1+ (1,0) [0|255] \"\" B\n"
    " SG_ P m1 : 8|16@1+ (0.5,0) [0|1000] \"\" B\n"
    " SG_ Q m2 : 8|16@1+ (2,0) [0|100000] \"\" B\n\n"
    "BO_ 768 Big: 12 A\n"
    " SG_ Far : 80|16@1+ (1,-5) [0|65535] \"\" B\n\n"
    "BO_ 1024 Other: 1 B\n"
    " SG_ Flag : 0|8@1+ (1,0) [0|255] \"\" A\n\n"
    "BO_ 1280 FdSmall: 8 A\n"
    " SG_ X : 0|8@1+ (1,0) [0|255] \"\" B\n\n"
    "BA_DEF_ BO_ \"VFrameFormat\" ENUM \"StandardCAN\",\"ExtendedCAN\",\"StandardCAN_FD\";\n"
    "BA_ \"VFrameFormat\" BO_ 1280 2;\n"
    "BA_ \"GenMsgCycleTime\" BO_ 1280 10;\n"
    "BA_DEF_ BO_ \"GenMsgCycleTime\" INT 0 10000;\n"
    "BA_ \"GenMsgCycleTime\" BO_ 256 10;\n"
    "BA_ \"GenMsgCycleTime\" BO_ 512 20;\n"
    "BA_ \"GenMsgCycleTime\" BO_ 768 5;\n"
    "BA_DEF_ SG_ \"GenSigStartValue\" INT 0 65535;\n"
    "BA_ \"GenSigStartValue\" SG_ 256 Value -250;\n";

typedef struct bus {
    rtcosim_component *c;
    uint32_t tx_value, tx_sel, tx_p, tx_q, tx_far, rx_value, rx_sel, rx_p, rx_q, rx_far, rx_flag;
} bus;

static uint32_t vr(const rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    if (!v)
        fail_msg("no variable %s", name);
    return v->value_reference;
}

static void make(bus *b, bool log)
{
    rtcosim_error err;
    rtcosim_dbc *dbc = NULL;
    assert_int_equal(rtcosim_dbc_parse(dbc_text, strlen(dbc_text), "t.dbc", &dbc, &err),
                     RTCOSIM_OK);
    const char *senders[] = {"A"};
    rtcosim_can_signal_bus_config c = {.name = "can0", .senders = senders, .sender_count = 1,
                                       .log_frames = log};
    if (rtcosim_can_signal_bus_create(&c, dbc, "t.dbc", &b->c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    b->tx_value = vr(b->c, "tx.Speed.Value");
    b->tx_sel = vr(b->c, "tx.Mux.Sel");
    b->tx_p = vr(b->c, "tx.Mux.P");
    b->tx_q = vr(b->c, "tx.Mux.Q");
    b->tx_far = vr(b->c, "tx.Big.Far");
    b->rx_value = vr(b->c, "rx.Speed.Value");
    b->rx_sel = vr(b->c, "rx.Mux.Sel");
    b->rx_p = vr(b->c, "rx.Mux.P");
    b->rx_q = vr(b->c, "rx.Mux.Q");
    b->rx_far = vr(b->c, "rx.Big.Far");
    b->rx_flag = vr(b->c, "rx.Other.Flag");
    assert_null(rtcosim_component_find_variable(b->c, "tx.Other.Flag")); /* B does not send */
    assert_string_equal(rtcosim_component_find_variable(b->c, "rx.Speed.Value")->unit, "m/s");
    assert_int_equal(rtcosim_component_instantiate(b->c, "can0", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(b->c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(b->c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(b->c, &err), RTCOSIM_OK);
}

static void set(bus *b, uint32_t ref, double v)
{
    rtcosim_error err;
    assert_int_equal(rtcosim_component_set(b->c, RTCOSIM_TYPE_FLOAT64, &ref, 1, &v, &err),
                     RTCOSIM_OK);
}

static double get(bus *b, uint32_t ref)
{
    rtcosim_error err;
    double v = NAN;
    assert_int_equal(rtcosim_component_get(b->c, RTCOSIM_TYPE_FLOAT64, &ref, 1, &v, &err),
                     RTCOSIM_OK);
    return v;
}

static void step_to(bus *b, rtcosim_time_ns *t, rtcosim_time_ns to)
{
    rtcosim_error err;
    rtcosim_step_result r;
    if (rtcosim_component_do_step(b->c, *t, to - *t, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *t = to;
}

/* Values sent at the cycle times, seen from each frame's end on. At 0 the
 * three messages contend: Speed (0x100) first, 0 .. its end; then Mux
 * (0x200), then Big (0x300, CAN FD). */
static void signals_reach_the_receiver_at_the_frames_ends(void **state)
{
    (void)state;
    bus b;
    make(&b, true);
    rtcosim_time_ns t = 0;
    /* before any frame: the start value (GenSigStartValue raw -250:
     * -2.5), else the physical value of raw 0; the tx input starts there */
    assert_true(get(&b, b.rx_value) == -2.5);
    assert_true(rtcosim_component_find_variable(b.c, "tx.Speed.Value")->start.f64 == -2.5);
    assert_true(get(&b, b.rx_far) == -5.0);
    set(&b, b.tx_value, 1.234);  /* quantized: raw 123, 1.23 */
    set(&b, b.tx_sel, 2);        /* Q, not P */
    set(&b, b.tx_p, 7.5);
    set(&b, b.tx_q, 246.0);      /* raw 123 */
    set(&b, b.tx_far, 995.0);    /* raw 1000 */
    /* Speed 0x100 with 7B 00: 47 + 16 = 63 bits and its stuff bits (at most
     * 12): 126 to 150 us on the wire */
    step_to(&b, &t, 100000);
    assert_true(get(&b, b.rx_value) == -2.5); /* still on the wire: the start value */
    step_to(&b, &t, 200000);
    assert_true(fabs(get(&b, b.rx_value) - 1.23) < 1e-12);
    step_to(&b, &t, 1000000);
    assert_true(get(&b, b.rx_sel) == 2.0);
    assert_true(get(&b, b.rx_q) == 246.0);
    assert_true(get(&b, b.rx_p) == 0.0); /* not carried */
    assert_true(get(&b, b.rx_far) == 995.0);
    assert_true(get(&b, b.rx_flag) == 0.0); /* B's message: nobody sends it */
    /* a new value goes with the next Speed frame at 10 ms, not before */
    set(&b, b.tx_value, -2.5);
    step_to(&b, &t, 10000000);
    assert_true(fabs(get(&b, b.rx_value) - 1.23) < 1e-12);
    step_to(&b, &t, 10200000);
    assert_true(get(&b, b.rx_value) == -2.5);
    /* out of range: saturated at the signal's raw limit (-32768: -327.68) */
    set(&b, b.tx_value, -1000.0);
    step_to(&b, &t, 20500000);
    assert_true(fabs(get(&b, b.rx_value) + 327.68) < 1e-9);
    /* the bus: Speed every 10 ms (0, 10, 20), Mux every 20 (0, 20), Big
     * every 5 (0, 5, 10, 15, 20), FdSmall every 10 (0, 10, 20): 13 frames
     * by 20.5 ms, in the log with Speed's bytes; FdSmall, a CAN FD frame of
     * 8 bytes by its VFrameFormat (BRS: no CANFD_BRS, Vector's default) */
    rtcosim_can_bus *can = rtcosim_can_signal_bus_can(b.c);
    assert_non_null(can);
    assert_int_equal(rtcosim_can_bus_log_count(can), 13);
    const rtcosim_can_log_entry *e = rtcosim_can_bus_log(can);
    assert_int_equal(e[0].frame.id, 0x100);
    assert_int_equal(e[0].frame.data[0], 0x7B);
    assert_int_equal(e[0].start, 0);
    assert_int_equal(e[1].frame.id, 0x200);
    assert_int_equal(e[1].start, e[0].end);
    assert_int_equal(e[2].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(e[2].length, 12);
    assert_int_equal(e[3].frame.id, 0x500);
    assert_int_equal(e[3].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(e[3].flags, RTCOSIM_CAN_FD_BRS);
    assert_int_equal(e[3].length, 8);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_terminate(b.c, &err), RTCOSIM_OK);
    rtcosim_component_free(b.c);
}

static void bad_configurations_are_refused_by_name(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_component *c = NULL;
    const char *no_cycle = "BU_: A\nBO_ 256 Speed: 2 A\n SG_ V : 0|16@1+ (1,0) [0|1] \"\" B\n";
    /* 100 bytes: a database may declare it (a transport protocol's
     * message), no CAN frame carries it */
    const char *too_long = "BU_: A\nBO_ 256 Dump: 100 A\n SG_ V : 792|8@1+ (1,0) [0|1] \"\" B\n";
    struct {
        const char *text, *sender, *want;
    } cases[] = {
        {no_cycle, "C", "t.dbc: no message has transmitter 'C'"},
        {too_long, "A", "A sends Dump of 100 bytes, more than a CAN FD frame's 64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtcosim_dbc *dbc = NULL;
        assert_int_equal(rtcosim_dbc_parse(cases[i].text, strlen(cases[i].text), "t.dbc", &dbc,
                                           &err),
                         RTCOSIM_OK);
        const char *senders[] = {cases[i].sender};
        rtcosim_can_signal_bus_config cfg = {.name = "can0", .senders = senders,
                                             .sender_count = 1};
        assert_int_not_equal(rtcosim_can_signal_bus_create(&cfg, dbc, "t.dbc", &c, &err),
                             RTCOSIM_OK);
        if (!strstr(err.message, cases[i].want))
            fail_msg("'%s' does not say '%s'", err.message, cases[i].want);
    }
}

/* A message without GenMsgCycleTime is event-triggered: sent at the start
 * and at each communication point where its input differs from what it last
 * sent (steps of 1 ms: changes at 3 and 7 ms, the same value again at 5). */
/* A signal bus of node A over the DBC text, brought up to its first step. */
static void start_bus(bus *b, const char *text, bool log)
{
    rtcosim_error err;
    rtcosim_dbc *dbc = NULL;
    assert_int_equal(rtcosim_dbc_parse(text, strlen(text), "t.dbc", &dbc, &err), RTCOSIM_OK);
    const char *senders[] = {"A"};
    rtcosim_can_signal_bus_config cfg = {.name = "can0", .senders = senders, .sender_count = 1,
                                         .log_frames = log};
    if (rtcosim_can_signal_bus_create(&cfg, dbc, "t.dbc", &b->c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_component_instantiate(b->c, "can0", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(b->c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(b->c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(b->c, &err), RTCOSIM_OK);
}

static void a_message_without_a_cycle_time_is_sent_on_change(void **state)
{
    (void)state;
    const char *text = "BU_: A\nBO_ 256 Speed: 2 A\n SG_ V : 0|16@1+ (1,0) [0|65535] \"\" B\n";
    bus b;
    start_bus(&b, text, true);
    rtcosim_error err;
    uint32_t tx = vr(b.c, "tx.Speed.V"), rx = vr(b.c, "rx.Speed.V");
    const double inputs[10] = {5, 5, 5, 9, 9, 9, 9, 4, 4, 4};
    rtcosim_time_ns t = 0;
    for (int k = 0; k < 10; k++) {
        set(&b, tx, inputs[k]);
        step_to(&b, &t, (k + 1) * RTCOSIM_NS_PER_MS);
        assert_true(get(&b, rx) == inputs[k]); /* a 2-byte frame: well inside the step */
    }
    rtcosim_can_bus *can = rtcosim_can_signal_bus_can(b.c);
    assert_int_equal(rtcosim_can_bus_log_count(can), 3);
    const rtcosim_can_log_entry *e = rtcosim_can_bus_log(can);
    assert_int_equal(e[0].start, 0);
    assert_int_equal(e[1].start, 3 * RTCOSIM_NS_PER_MS);
    assert_int_equal(e[1].frame.data[0], 9);
    assert_int_equal(e[2].start, 7 * RTCOSIM_NS_PER_MS);
    assert_int_equal(rtcosim_component_terminate(b.c, &err), RTCOSIM_OK);
    rtcosim_component_free(b.c);
}

/* A float signal (SIG_VALTYPE_ 1, x 0.5 + 1) sent and received: its start
 * value GenSigStartValue 2.5 is the float's number (2.5 x 0.5 + 1 = 2.25,
 * not a raw integer); a value goes over as (value - 1) / 0.5 rounded to a
 * float, back x 0.5 + 1 (IEEE 754 single precision, computed here). */
static void float_signals_cross_the_bus_as_ieee_singles(void **state)
{
    (void)state;
    static const char text[] = "BU_: A B\n"
                               "BO_ 256 F: 4 A\n"
                               " SG_ P : 0|32@1- (0.5,1) [-1E+30|1E+30] \"\" B\n"
                               "BA_DEF_ BO_ \"GenMsgCycleTime\" INT 0 10000;\n"
                               "BA_ \"GenMsgCycleTime\" BO_ 256 10;\n"
                               "BA_DEF_ SG_ \"GenSigStartValue\" FLOAT 0 0;\n"
                               "BA_ \"GenSigStartValue\" SG_ 256 P 2.5;\n"
                               "SIG_VALTYPE_ 256 P : 1;\n";
    bus b;
    start_bus(&b, text, false);
    uint32_t tx = vr(b.c, "tx.F.P"), rx = vr(b.c, "rx.F.P");
    assert_true(get(&b, rx) == 2.25);
    assert_true(rtcosim_component_find_variable(b.c, "tx.F.P")->start.f64 == 2.25);
    rtcosim_time_ns t = 0;
    set(&b, tx, 3.0);
    step_to(&b, &t, 5 * RTCOSIM_NS_PER_MS); /* the frame at 0 carries 3.0 */
    assert_true(get(&b, rx) == 3.0);
    step_to(&b, &t, 10 * RTCOSIM_NS_PER_MS);
    set(&b, tx, 0.1);
    step_to(&b, &t, 15 * RTCOSIM_NS_PER_MS);
    assert_true(get(&b, rx) == (double)(float)((0.1 - 1) / 0.5) * 0.5 + 1);
    assert_true(get(&b, rx) != 0.1);
    rtcosim_component_free(b.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(signals_reach_the_receiver_at_the_frames_ends),
        cmocka_unit_test(bad_configurations_are_refused_by_name),
        cmocka_unit_test(a_message_without_a_cycle_time_is_sent_on_change),
        cmocka_unit_test(float_signals_cross_the_bus_as_ieee_singles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
