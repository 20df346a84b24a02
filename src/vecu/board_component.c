/* A board (vecu_board.h) as a co-simulation component, so that firmware for
 * a real board sits in an SSP system: "rtcosim:board.mps2-an386" with a
 * "firmware" parameter; each step runs the board to the step's end; the
 * FPGA LEDs, the count of UART0 bytes and the semihosting exit are outputs.
 * A firmware that exits asks the master to terminate. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"
#include "rtcosim/native.h"

enum { VR_LEDS, VR_UART0_BYTES, VR_EXITED, VR_EXIT_CODE, VR_OUTPUTS, VR_FIRMWARE = 100 };

typedef struct board_comp {
    const char *board;
    char *firmware;
    rtcosim_board *machine;
    rtcosim_time_ns start;
    double out[VR_OUTPUTS];
    uint64_t uart0_bytes;
    rtcosim_variable vars[VR_OUTPUTS + 1];
} board_comp;

static void count_uart0(void *user, unsigned uart, unsigned char byte)
{
    (void)byte;
    if (uart == 0)
        ((board_comp *)user)->uart0_bytes++;
}

static rtcosim_status b_instantiate(void *self, const char *instance, rtcosim_error *err)
{
    (void)self, (void)instance, (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status b_setup(void *self, double tol, rtcosim_time_ns start, rtcosim_time_ns stop,
                              rtcosim_error *err)
{
    (void)tol, (void)stop, (void)err;
    ((board_comp *)self)->start = start;
    return RTCOSIM_OK;
}

static rtcosim_status b_enter_init(void *self, rtcosim_error *err)
{
    (void)self, (void)err;
    return RTCOSIM_OK;
}

/* The master sets parameters in initialization mode: the firmware is final
 * here, so map the board and load it. */
static rtcosim_status b_exit_init(void *self, rtcosim_error *err)
{
    board_comp *c = self;
    if (c->machine)
        return RTCOSIM_OK;
    if (!c->firmware || !*c->firmware)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "board '%s': the firmware parameter is"
                                 " not set", c->board);
    rtcosim_board_config config = {.board = c->board, .firmware = c->firmware,
                                   .output = count_uart0, .user = c};
    return rtcosim_board_create(&config, &c->machine, err);
}

static rtcosim_status b_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                rtcosim_step_result *result, rtcosim_error *err)
{
    board_comp *c = self;
    rtcosim_board_result r;
    rtcosim_status st = rtcosim_board_run_until(c->machine, t + h - c->start, &r, err);
    if (st != RTCOSIM_OK)
        return st;
    c->out[VR_LEDS] = c->machine->led;
    c->out[VR_UART0_BYTES] = (double)c->uart0_bytes;
    c->out[VR_EXITED] = r.exited;
    c->out[VR_EXIT_CODE] = r.exit_code;
    result->terminate_requested = r.exited;
    result->last_successful_time = t + h;
    return RTCOSIM_OK;
}

static rtcosim_status b_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                            void *values, rtcosim_error *err)
{
    board_comp *c = self;
    if (type == RTCOSIM_TYPE_STRING && n == 1 && vrs[0] == VR_FIRMWARE) {
        ((const char **)values)[0] = c->firmware ? c->firmware : "";
        return RTCOSIM_OK;
    }
    for (size_t i = 0; i < n; i++) {
        if (type != RTCOSIM_TYPE_FLOAT64 || vrs[i] >= VR_OUTPUTS)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "board '%s': no FLOAT64 variable"
                                     " with value reference %" PRIu32, c->board, vrs[i]);
        ((double *)values)[i] = c->out[vrs[i]];
    }
    return RTCOSIM_OK;
}

static rtcosim_status b_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                            const void *values, rtcosim_error *err)
{
    board_comp *c = self;
    if (type != RTCOSIM_TYPE_STRING || n != 1 || vrs[0] != VR_FIRMWARE)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "board '%s': only the firmware parameter"
                                 " can be set", c->board);
    if (c->machine)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "board '%s': the firmware is loaded; set"
                                 " it before initialization", c->board);
    const char *path = ((const char *const *)values)[0];
    char *copy = strdup(path ? path : "");
    if (!copy)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "board: out of memory");
    free(c->firmware);
    c->firmware = copy;
    return RTCOSIM_OK;
}

static rtcosim_status b_terminate(void *self, rtcosim_error *err)
{
    (void)self, (void)err;
    return RTCOSIM_OK;
}

static void b_destroy(void *self)
{
    board_comp *c = self;
    rtcosim_board_free(c->machine);
    free(c->firmware);
    free(c);
}

static const rtcosim_component_ops board_ops = {
    .kind = "board", .instantiate = b_instantiate, .setup = b_setup,
    .enter_init = b_enter_init, .exit_init = b_exit_init, .do_step = b_do_step,
    .get = b_get, .set = b_set, .terminate = b_terminate, .destroy = b_destroy,
};

static rtcosim_status board_factory(void *context, rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    board_comp *c = calloc(1, sizeof *c);
    if (!c)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "board: out of memory");
    c->board = context;
    static const char *const names[VR_OUTPUTS] = {"leds", "uart0_bytes", "exited",
                                                  "exit_code"};
    for (unsigned i = 0; i < VR_OUTPUTS; i++)
        c->vars[i] = (rtcosim_variable){.name = names[i], .value_reference = i,
                                        .type = RTCOSIM_TYPE_FLOAT64,
                                        .causality = RTCOSIM_CAUSALITY_OUTPUT,
                                        .variability = RTCOSIM_VARIABILITY_DISCRETE,
                                        .derivative_of = -1};
    c->vars[VR_OUTPUTS] = (rtcosim_variable){
        .name = "firmware", .value_reference = VR_FIRMWARE, .type = RTCOSIM_TYPE_STRING,
        .causality = RTCOSIM_CAUSALITY_PARAMETER, .variability = RTCOSIM_VARIABILITY_FIXED,
        .initial = RTCOSIM_INITIAL_EXACT, .has_start = true, .derivative_of = -1};
    c->vars[VR_OUTPUTS].start.s = "";
    rtcosim_component_desc d = {.model_name = c->board, .variables = c->vars,
                                .variable_count = VR_OUTPUTS + 1,
                                .capabilities = {.can_handle_variable_step = true}};
    return rtcosim_component_create(&board_ops, c, &d, out, err); /* destroys c on failure */
}

/* "rtcosim:board.NAME" for every board of board.c */
__attribute__((constructor)) static void register_boards(void)
{
    static char names[4][64];
    for (size_t i = 0; i < 4; i++) {
        const char *name = rtcosim_board_name(i, NULL);
        if (!name)
            break;
        snprintf(names[i], sizeof names[i], "board.%s", name);
        rtcosim_native_register(names[i], board_factory, (void *)name, NULL);
    }
}
