/* The virtual ECU: instruction timing against hand-counted loops (and the
 * cycle counter between two reads), ADC/PWM/DOUT/CAN register semantics and
 * the FPU, faults reported with ECU, PC and function, bad firmware files,
 * state restore reproducing execution exactly, the engine firmware closing
 * its loop with the engine plant at the hand-computed steady state (as an
 * ECU LP and as a co-simulation component), identical vehicle results under
 * every scheduler, and independent cores on parallel threads. */
#include <elf.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../examples/ecus/vehicle.h"
#include "rtcosim/vecu.h"
#include "rtcosim/vecu_periph.h"

#define LIMIT UINT64_C(1000000)

static rtcosim_vecu *open_core(const char *path, double cpi)
{
    rtcosim_vecu_config c = {.name = "test", .firmware = path, .clock_hz = 100000000, .cpi = cpi};
    rtcosim_vecu *v = NULL;
    rtcosim_error err = {0};
    rtcosim_status st = rtcosim_vecu_create(&c, &v, &err);
    if (st == RTCOSIM_OK)
        st = rtcosim_vecu_reset(v, LIMIT, &err);
    if (st != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return v;
}

static uint32_t read_u32(rtcosim_vecu *v, const char *symbol)
{
    uint32_t a, x;
    rtcosim_error err = {0};
    assert_true(rtcosim_vecu_symbol(v, symbol, &a));
    assert_int_equal(rtcosim_vecu_read(v, a, &x, sizeof x, &err), RTCOSIM_OK);
    return x;
}

static void run_irq(rtcosim_vecu *v, unsigned irq, uint64_t start, uint64_t *cycles)
{
    rtcosim_error err = {0};
    if (rtcosim_vecu_run_exception(v, 16 + irq, start, LIMIT, cycles, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
}

/* movs; 100 x (subs, bne); bx lr = 202 instructions, at CPI 1 and 1.5 */
static void test_timing_of_a_hand_counted_loop(void **state)
{
    (void)state;
    rtcosim_vecu *v = open_core(FW_TEST_ELF, 1.0);
    uint64_t cycles, before = rtcosim_vecu_instructions(v);
    run_irq(v, 0, 0, &cycles);
    assert_int_equal(cycles, 202);
    assert_int_equal(rtcosim_vecu_instructions(v) - before, 202);
    run_irq(v, 0, 0, &cycles); /* translated blocks cached: same count */
    assert_int_equal(cycles, 202);
    rtcosim_vecu_free(v);
    v = open_core(FW_TEST_ELF, 1.5);
    run_irq(v, 0, 0, &cycles);
    assert_int_equal(cycles, 303);
    rtcosim_vecu_free(v);
}

/* CYCCNT = entry cycle + instructions before the read's basic block (x CPI) */
static void test_cycle_counter_counts_instructions(void **state)
{
    (void)state;
    rtcosim_vecu *v = open_core(FW_TEST_ELF, 2.0);
    uint64_t cycles;
    run_irq(v, 1, 1000, &cycles);
    assert_int_equal(read_u32(v, "cyc_first"), 1000);
    assert_int_equal(read_u32(v, "cyc_delta"), (4 + 202) * 2); /* push, ldr, ldr, bl + loop */
    assert_int_equal(cycles, (4 + 202 + 7) * 2); /* then ldr, ldr, str, subs, ldr, str, pop */
    rtcosim_vecu_free(v);
}

static void test_adc_pwm_dout(void **state)
{
    (void)state;
    rtcosim_vecu *v = open_core(FW_TEST_ELF, 1.0);
    rtcosim_vecu_adc_set(v, 0, 1234);
    rtcosim_vecu_adc_set(v, 1, 0x5A);
    run_irq(v, 2, 0, NULL);
    assert_int_equal(rtcosim_vecu_pwm(v, 0), 2468);
    assert_int_equal(rtcosim_vecu_pwm(v, 1), VECU_PWM_FULL); /* 20000 clamped */
    assert_int_equal(rtcosim_vecu_dout(v), 0x5A);
    assert_int_equal(rtcosim_vecu_pwm(v, 2), 1851); /* 1234 * 1.5 + 0.25 on the FPU */
    rtcosim_vecu_free(v);
}

static void test_can_fifo_and_mailboxes(void **state)
{
    (void)state;
    rtcosim_vecu *v = open_core(FW_TEST_ELF, 1.0);
    rtcosim_can_frame a = {.id = 0x123, .dlc = 8, .data = {1, 2, 3, 4, 5, 6, 7, 8}};
    rtcosim_can_frame b = {.id = 0x1ABCDEF, .extended = true, .dlc = 2, .data = {9, 10}};
    assert_true(rtcosim_vecu_can_receive(v, &a));
    assert_true(rtcosim_vecu_can_receive(v, &b));
    run_irq(v, VECU_IRQ_CAN_RX, 0, NULL);
    assert_int_equal(read_u32(v, "seen_rx"), 2);
    uint32_t status = read_u32(v, "seen_status");
    assert_int_equal(status & VECU_CAN_STATUS_RX_COUNT_MASK, 1); /* one popped */
    assert_true(status & VECU_CAN_STATUS_TX_BUSY); /* second request of a pending mailbox */
    rtcosim_can_frame f;
    assert_true(rtcosim_vecu_can_take(v, &f));
    assert_int_equal(f.id, 0x124);
    assert_false(f.extended);
    assert_int_equal(f.dlc, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(f.data[i], (uint8_t)~(i + 1));
    assert_false(rtcosim_vecu_can_take(v, &f)); /* the second request was ignored */
    run_irq(v, VECU_IRQ_CAN_RX, 0, NULL); /* now the extended frame */
    assert_true(rtcosim_vecu_can_take(v, &f));
    assert_true(f.extended);
    assert_int_equal(f.id, 0x1ABCDF0);
    assert_int_equal(f.dlc, 2);
    assert_int_equal(f.data[0], (uint8_t)~9);
    /* the FIFO holds VECU_CAN_RX_FIFO_DEPTH frames; one more overruns */
    for (unsigned i = 0; i < VECU_CAN_RX_FIFO_DEPTH; i++)
        assert_true(rtcosim_vecu_can_receive(v, &a));
    assert_false(rtcosim_vecu_can_receive(v, &a));
    rtcosim_vecu_free(v);
}

static void expect_fault(rtcosim_vecu *v, unsigned irq, const char *what, const char *function)
{
    rtcosim_error err = {0};
    assert_int_not_equal(rtcosim_vecu_run_exception(v, 16 + irq, 0, LIMIT, NULL, &err),
                         RTCOSIM_OK);
    if (!strstr(err.message, "ecu 'test'") || !strstr(err.message, what) ||
        !strstr(err.message, function) || !strstr(err.message, "PC 0x"))
        fail_msg("IRQ %u: '%s' lacks '%s' or '%s'", irq, err.message, what, function);
}

static void test_faults_name_ecu_pc_and_function(void **state)
{
    (void)state;
    rtcosim_vecu *v = open_core(FW_TEST_ELF, 1.0);
    expect_fault(v, 3, "write to unmapped address 0x30000000", "in bad_write+0x");
    expect_fault(v, 4, "undefined instruction", "in undefined_instruction+0x");
    expect_fault(v, 5, "stack overflow into the guard", "in deep_recursion+0x");
    expect_fault(v, 6, "write to read-only flash", "in flash_write+0x");
    expect_fault(v, 7, "did not return within 1000000 instructions", "in spin_forever+0x");
    /* a fault stops the handler, not the core: after a reset it runs again */
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_vecu_reset(v, LIMIT, &err), RTCOSIM_OK);
    uint64_t cycles;
    run_irq(v, 0, 0, &cycles);
    assert_int_equal(cycles, 202);
    rtcosim_vecu_free(v);
}

/* A vector left at startup.c's Default_Handler is named as a missing
 * handler (not as whichever weak alias shares its address), a byte write to
 * a peripheral register and WFI as what they are; a FIFO given as
 * firmware is refused at once (reading it would block). */
static void test_missing_handler_and_non_regular_files(void **state)
{
    (void)state;
    rtcosim_vecu *v = open_core(FW_NO_TIMER1_ELF, 1.0);
    run_irq(v, 0, 0, NULL);
    rtcosim_error err = {0};
    assert_int_not_equal(rtcosim_vecu_run_exception(v, 16 + 1, 0, LIMIT, NULL, &err), RTCOSIM_OK);
    assert_string_equal(err.message, "ecu 'test': no handler for IRQ 1 (its vector is Default_Handler)");
    /* the peripherals are 32-bit registers; WFI cannot wait inside a handler */
    expect_fault(v, 2, "1-byte write to peripheral register 0x40000200", "in TIMER2_IRQHandler+0x");
    expect_fault(v, 3, "WFI in handler of IRQ 3", "in TIMER3_IRQHandler+0x");
    rtcosim_vecu_free(v);
    char dir[] = "/tmp/rtcosim-vecu-XXXXXX", fifo[64];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/engine.elf", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    rtcosim_vecu_config c = {.name = "test", .firmware = fifo, .clock_hz = 100000000, .cpi = 1};
    v = NULL;
    assert_int_equal(rtcosim_vecu_create(&c, &v, &err), RTCOSIM_EINVAL);
    assert_null(v);
    assert_non_null(strstr(err.message, "engine.elf: firmware is not a regular file"));
    unlink(fifo);
    rmdir(dir);
}

/* The firmware with its initial SP (vector 0, the first word of the segment
 * loaded at address 0) moved into the peripheral block: refused at reset as
 * what it is, not as the undefined instruction the first push then meets. */
static void test_initial_sp_outside_ram_is_refused(void **state)
{
    (void)state;
    FILE *f = fopen(FW_NO_TIMER1_ELF, "rb");
    assert_non_null(f);
    static unsigned char image[1 << 20];
    size_t size = fread(image, 1, sizeof image, f);
    fclose(f);
    Elf32_Ehdr eh;
    memcpy(&eh, image, sizeof eh);
    long vectors = -1;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf32_Phdr ph;
        memcpy(&ph, image + eh.e_phoff + (size_t)i * eh.e_phentsize, sizeof ph);
        if (ph.p_type == PT_LOAD && ph.p_paddr == 0 && ph.p_filesz >= 8)
            vectors = (long)ph.p_offset;
    }
    assert_true(vectors >= 0);
    uint32_t sp = VECU_PERIPH_BASE + 0x100;
    memcpy(image + vectors, &sp, sizeof sp);
    char dir[] = "/tmp/rtcosim-vecu-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/sp.elf", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(image, 1, size, f), size);
    fclose(f);
    rtcosim_vecu_config c = {.name = "test", .firmware = path, .clock_hz = 100000000, .cpi = 1};
    rtcosim_vecu *v = NULL;
    rtcosim_error err = {0};
    rtcosim_status st = rtcosim_vecu_create(&c, &v, &err);
    if (st == RTCOSIM_OK)
        st = rtcosim_vecu_reset(v, LIMIT, &err);
    assert_int_equal(st, RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "initial SP 0x40000100 (vector 0) outside RAM"));
    rtcosim_vecu_free(v);
    unlink(path);
    rmdir(dir);
}

static void test_bad_firmware_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/vecu-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/text.elf", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not an elf\n", f);
    fclose(f);
    rtcosim_vecu_config c = {.name = "bad", .firmware = path};
    rtcosim_vecu *v = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_vecu_create(&c, &v, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "text.elf: not an ELF file"));
    unlink(path);
    assert_int_equal(rtcosim_vecu_create(&c, &v, &err), RTCOSIM_EIO);
    assert_non_null(strstr(err.message, "text.elf: cannot open firmware"));
    assert_null(v);
    rmdir(dir);
}

/* Engine firmware against an inline plant (Euler, 1 ms): saving the core
 * half way and restoring it reproduces the second half bit for bit. */
static void drive(rtcosim_vecu *v, double *w, int steps, uint32_t *duties)
{
    for (int k = 0; k < steps; k++) {
        rtcosim_vecu_adc_set(v, 0, (uint32_t)lround(*w * 60.0 / (2.0 * M_PI)));
        run_irq(v, VECU_IRQ_TIMER0, 0, NULL);
        duties[k] = rtcosim_vecu_pwm(v, 0);
        double th = duties[k] / 10000.0;
        *w += 1e-3 * (250.0 * th - 0.12 * *w - 8.0) / 0.25;
    }
}

static void test_state_restore_reproduces_execution(void **state)
{
    (void)state;
    rtcosim_vecu *v = open_core(ENGINE_ELF, 1.0);
    double w = 60.0;
    uint32_t first[300], again[300];
    drive(v, &w, 200, first);
    size_t n = rtcosim_vecu_state_size(v);
    unsigned char *saved = malloc(n), *end1 = malloc(n), *end2 = malloc(n);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_vecu_save_state(v, saved, n, &err), RTCOSIM_OK);
    double w_saved = w;
    uint64_t instr_saved = rtcosim_vecu_instructions(v);
    drive(v, &w, 300, first);
    assert_int_equal(rtcosim_vecu_save_state(v, end1, n, &err), RTCOSIM_OK);
    uint64_t instr_end = rtcosim_vecu_instructions(v);
    assert_int_equal(rtcosim_vecu_restore_state(v, saved, n, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_vecu_instructions(v), instr_saved);
    w = w_saved;
    drive(v, &w, 300, again);
    assert_int_equal(rtcosim_vecu_save_state(v, end2, n, &err), RTCOSIM_OK);
    assert_memory_equal(first, again, sizeof first);
    assert_memory_equal(end1, end2, n);
    assert_int_equal(rtcosim_vecu_instructions(v), instr_end);
    assert_int_equal(read_u32(v, "engine_ms"), 500);
    assert_int_equal(rtcosim_vecu_restore_state(v, saved, n - 1, &err), RTCOSIM_EINVAL);
    free(saved), free(end1), free(end2);
    rtcosim_vecu_free(v);
}

/* Firmware + engine plant on the event kernel, 5.9 s: from 1 s the target is
 * 3000 rpm; the PI controller's integral removes the error, so the speed
 * settles at 3000 rpm and the throttle at the plant's equilibrium
 * 250 th = 0.12 w + 8, w = 3000 * 2 pi / 60 = 314.159 rad/s: th = 0.18280,
 * duty 1828 (slowest closed-loop pole about -1.4/s: settled after 4.9 s). */
static void test_engine_firmware_closes_the_loop(void **state)
{
    (void)state;
    rtcosim_events *sim = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus *bus = NULL;
    rtcosim_can_bus_config bc = {.name = "can0"};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    rtcosim_vecu_ecu_config c;
    rtcosim_ecu_vehicle_engine_firmware("engine", ENGINE_ELF, 100000000, bus, &c);
    rtcosim_vecu_ecu *ve = NULL;
    if (rtcosim_vecu_ecu_create(sim, &c, &ve, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_ecu *e = rtcosim_vecu_ecu_ecu(ve);
    rtcosim_component *plant = NULL;
    assert_int_equal(rtcosim_native_create_model(&ecus_engine_model, &plant, &err), RTCOSIM_OK);
    const uint32_t sensor = VEHICLE_VR_STATE, actuator = VEHICLE_VR_INPUT;
    assert_int_equal(rtcosim_ecu_attach_plant(e, plant, RTCOSIM_PLANT_ACTIVE, RTCOSIM_NS_PER_MS,
                                              &sensor, &actuator, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(e, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options ro = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                              .stop_time = 5900 * RTCOSIM_NS_PER_MS};
    rtcosim_run_stats rs;
    rtcosim_vecu *core = rtcosim_vecu_ecu_core(ve);
    uint64_t instr0 = rtcosim_vecu_instructions(core);
    if (rtcosim_events_run(sim, &ro, &rs, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* the speed is measured in whole rpm and the proportional gain is 15
     * duty per rpm, so the loop dithers between neighbouring counts (here
     * |e| <= 1): the applied duty averages 1828, the integral term
     * (integral / 50 + 400) lies within 15 (+1 rounding) of it, the duty
     * itself within 2 x 15 + 1 */
    uint32_t rpm = read_u32(core, "engine_rpm"), duty = read_u32(core, "engine_duty");
    int32_t mean = (int32_t)read_u32(core, "engine_integral") / 50 + 400;
    if (abs((int)rpm - 3000) > 2 || abs(mean - 1828) > 16 || abs((int)duty - 1828) > 31)
        fail_msg("steady state %u rpm, duty %u, mean %d (expected 3000, 1828)", rpm, duty, mean);
    assert_int_equal(read_u32(core, "engine_ms"), 5901); /* ticks at 0, 1, ..., 5900 ms */
    rtcosim_ecu_stats es;
    rtcosim_ecu_stats_get(e, &es);
    /* 10 ms frames at 2, 12, ..., 5892 ms; 100 ms status at 5, ..., 5805 ms */
    assert_int_equal(es.frames_sent, 590 + 59);
    /* the core's busy time is its executed instructions at 100 MHz (CPI 1)
     * plus 22 cycles of exception entry and return per job, each job
     * rounded up to whole ns */
    double instr = (double)(rtcosim_vecu_instructions(core) - instr0);
    double expect_ns = (instr + 22.0 * (double)es.jobs) * 10.0;
    if (fabs((double)es.busy_ns - expect_ns) > (double)es.jobs)
        fail_msg("busy %lld ns, expected %.0f ns", (long long)es.busy_ns, expect_ns);
    /* the response delay is the shortest declared job: CAN RX, 5 + 22 cycles */
    assert_int_equal(rtcosim_ecu_response_delay(e), 270);
    assert_int_equal(es.jobs, 5901 + 590 + 59);
    rtcosim_vecu_ecu_free(ve);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

/* The example vehicle with the engine on firmware gives the same ECU states
 * and CAN log under every scheduler, including the speculative one, whose
 * rollbacks restore the firmware's RAM and peripherals from the ECU's
 * snapshots. */
static void test_firmware_vehicle_identical_across_schedulers(void **state)
{
    (void)state;
    const rtcosim_scheduler scheds[] = {RTCOSIM_SCHEDULER_SEQUENTIAL,
                                        RTCOSIM_SCHEDULER_CONSERVATIVE,
                                        RTCOSIM_SCHEDULER_SPECULATIVE};
    uint64_t sums[3];
    for (int k = 0; k < 3; k++) {
        rtcosim_events *sim = NULL;
        rtcosim_ecu_vehicle *v = NULL;
        rtcosim_error err = {0};
        rtcosim_ecu_vehicle_config vc = {.ecus = 4, .log_frames = true,
                                         .firmware_ecu = "engine", .firmware_path = ENGINE_ELF};
        /* the same through a system file, path relative to its folder */
        if (k == 2) {
            char ini[1200];
            int n = snprintf(ini, sizeof ini, "[vehicle]\nfirmware = engine=%s\n",
                             strrchr(ENGINE_ELF, '/') + 1);
            rtcosim_ecu_vehicle_config fc = {.ecus = 4, .log_frames = true};
            rtcosim_run_options fo = {0};
            char origin[1100];
            snprintf(origin, sizeof origin, "%.*s/vehicle.ini",
                     (int)(strrchr(ENGINE_ELF, '/') - ENGINE_ELF), ENGINE_ELF);
            if (rtcosim_ecu_vehicle_parse(ini, (size_t)n, origin, &fc, &fo, &err) != RTCOSIM_OK)
                fail_msg("%s", err.message);
            assert_string_equal(fc.firmware_ecu, "engine");
            assert_string_equal(fc.firmware_path, ENGINE_ELF);
            vc = fc;
        }
        rtcosim_run_options o = {.scheduler = scheds[k], .threads = 2,
                                 .stop_time = 1500 * RTCOSIM_NS_PER_MS};
        rtcosim_run_stats rs;
        if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
            rtcosim_ecu_vehicle_build(sim, &vc, &v, &err) != RTCOSIM_OK ||
            rtcosim_events_run(sim, &o, &rs, &err) != RTCOSIM_OK)
            fail_msg("%s: %s", rtcosim_scheduler_name(scheds[k]), err.message);
        sums[k] = rtcosim_ecu_vehicle_checksum(v);
        /* the engine ran its firmware: 1 ms ticks at 0..1500 ms */
        rtcosim_ecu *engine = rtcosim_ecu_vehicle_ecu(v, 0);
        rtcosim_ecu_stats es;
        rtcosim_ecu_stats_get(engine, &es);
        assert_true(es.jobs >= 1501);
        rtcosim_ecu_vehicle_free(v);
        rtcosim_events_free(sim);
    }
    assert_true(sums[0] == sums[1]);
    assert_true(sums[0] == sums[2]);
}

/* The firmware as a co-simulation component driven step by step (as the
 * master does) against an inline engine plant (Euler, 1 ms): same
 * hand-computed steady state as on the event kernel; a state taken half way,
 * serialized and loaded again replays the rest bit for bit. */
static void drive_component(rtcosim_component *comp, double *w, int from, int steps,
                            double *throttle)
{
    rtcosim_error err = {0};
    const uint32_t adc = RTCOSIM_VECU_VR_ADC, pwm = RTCOSIM_VECU_VR_PWM;
    for (int k = 0; k < steps; k++) {
        double counts = *w * 60.0 / (2.0 * M_PI), th = 0.0;
        rtcosim_time_ns t = (rtcosim_time_ns)(from + k) * RTCOSIM_NS_PER_MS;
        if (rtcosim_component_set(comp, RTCOSIM_TYPE_FLOAT64, &adc, 1, &counts, &err) ||
            rtcosim_component_do_step(comp, t, RTCOSIM_NS_PER_MS, NULL, &err) ||
            rtcosim_component_get(comp, RTCOSIM_TYPE_FLOAT64, &pwm, 1, &th, &err))
            fail_msg("%s", err.message);
        throttle[k] = th;
        *w += 1e-3 * (250.0 * th - 0.12 * *w - 8.0) / 0.25;
    }
}

static void test_component_closes_the_loop_and_restores(void **state)
{
    (void)state;
    rtcosim_vecu_component_config cc = {
        .core = {.name = "engine_fw", .firmware = ENGINE_ELF, .clock_hz = 100000000},
        .rasters = {{"control_1ms", RTCOSIM_NS_PER_MS, 0, VECU_IRQ_TIMER0, 1, 40}},
        .raster_count = 1, .adc_count = 1, .pwm_count = 1, .overhead_cycles = 22};
    rtcosim_component *comp = NULL;
    rtcosim_error err = {0};
    /* as an SSP file reaches it: registered under a name, created by URI */
    assert_int_equal(rtcosim_vecu_component_register("test.engine_fw", &cc, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_native_create("rtcosim:test.engine_fw", &comp, &err), RTCOSIM_OK);
    assert_string_equal(rtcosim_component_kind(comp), "vecu");
    if (rtcosim_component_instantiate(comp, "engine", &err) ||
        rtcosim_component_setup(comp, 0, 0, -1, &err) ||
        rtcosim_component_enter_init(comp, &err) || rtcosim_component_exit_init(comp, &err))
        fail_msg("%s", err.message);
    double w = 84.0;
    static double th[6000], replay[500];
    drive_component(comp, &w, 0, 3000, th);
    rtcosim_state saved = NULL;
    assert_int_equal(rtcosim_component_get_state(comp, &saved, &err), RTCOSIM_OK);
    size_t size = 0;
    assert_int_equal(rtcosim_component_serialized_state_size(comp, saved, &size, &err),
                     RTCOSIM_OK);
    uint8_t *bytes = malloc(size);
    assert_int_equal(rtcosim_component_serialize_state(comp, saved, bytes, size, &err),
                     RTCOSIM_OK);
    double w_saved = w;
    drive_component(comp, &w, 3000, 2900, th + 3000);
    /* steady state at 3000 rpm (see test_engine_firmware_closes_the_loop) */
    double rpm = w * 60.0 / (2.0 * M_PI);
    if (fabs(rpm - 3000.0) > 2.0 || fabs(th[5899] - 0.1828) > 0.0031)
        fail_msg("steady state %.2f rpm, throttle %.4f (expected 3000, 0.1828)", rpm, th[5899]);
    /* core load of the last step: one control job of 40..80 instructions plus
     * 22 cycles of entry/return, at 10 ns per cycle, in 1 ms */
    const uint32_t load_vr = RTCOSIM_VECU_VR_LOAD;
    double load;
    assert_int_equal(rtcosim_component_get(comp, RTCOSIM_TYPE_FLOAT64, &load_vr, 1, &load, &err),
                     RTCOSIM_OK);
    assert_true(load >= (40 + 22) * 1e-5 && load <= (80 + 22) * 1e-5);
    /* back to the middle through the serialized bytes */
    rtcosim_state loaded = NULL;
    assert_int_equal(rtcosim_component_deserialize_state(comp, bytes, size, &loaded, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_state(comp, loaded, &err), RTCOSIM_OK);
    w = w_saved;
    drive_component(comp, &w, 3000, 500, replay);
    assert_memory_equal(replay, th + 3000, sizeof replay);
    assert_int_equal(rtcosim_component_deserialize_state(comp, bytes, size - 1, &loaded, &err),
                     RTCOSIM_EFORMAT);
    rtcosim_component_free_state(comp, saved);
    rtcosim_component_free_state(comp, loaded);
    free(bytes);
    rtcosim_component_free(comp);
}

/* Two cores on two threads at once compute what one computes alone: the
 * Unicorn instances share no state (the ECU LPs of a parallel run rely on
 * it). */
typedef struct crc_run {
    uint32_t crc;
    uint64_t instructions;
} crc_run;

static void *run_busy(void *arg)
{
    crc_run *r = arg;
    rtcosim_vecu *v = open_core(BUSY_ELF, 1.0);
    for (int k = 0; k < 40; k++)
        run_irq(v, VECU_IRQ_TIMER0, 0, NULL);
    r->crc = read_u32(v, "busy_crc");
    r->instructions = rtcosim_vecu_instructions(v);
    rtcosim_vecu_free(v);
    return NULL;
}

static void test_cores_on_threads_are_independent(void **state)
{
    (void)state;
    crc_run alone, both[2];
    run_busy(&alone);
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, run_busy, &both[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(both[i].crc, alone.crc);
        assert_int_equal(both[i].instructions, alone.instructions);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timing_of_a_hand_counted_loop),
        cmocka_unit_test(test_cycle_counter_counts_instructions),
        cmocka_unit_test(test_adc_pwm_dout),
        cmocka_unit_test(test_can_fifo_and_mailboxes),
        cmocka_unit_test(test_faults_name_ecu_pc_and_function),
        cmocka_unit_test(test_bad_firmware_files),
        cmocka_unit_test(test_missing_handler_and_non_regular_files),
        cmocka_unit_test(test_initial_sp_outside_ram_is_refused),
        cmocka_unit_test(test_state_restore_reproduces_execution),
        cmocka_unit_test(test_engine_firmware_closes_the_loop),
        cmocka_unit_test(test_firmware_vehicle_identical_across_schedulers),
        cmocka_unit_test(test_component_closes_the_loop_and_restores),
        cmocka_unit_test(test_cores_on_threads_are_independent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
