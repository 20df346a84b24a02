/* Delay injection: a component wrapper whose do_step takes extra compute time
 * (an explicit schedule or a seeded distribution), can crash or stop
 * answering at a chosen step. It makes late partners reproducible, on the
 * virtual clock (advanced) as on the real one (slept). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/realtime.h"
#include "util/splitmix64.h"

typedef struct delay_component {
    rtcosim_component *inner;
    rtcosim_delay_options options;
    rtcosim_time_ns *schedule;
    uint64_t rng;
    uint64_t steps;
} delay_component;

/* The same seed gives the same delays on every machine. */
static uint64_t next_random(uint64_t *state) { return util_splitmix64(state); }

static double uniform01(uint64_t *state)
{
    return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

static rtcosim_time_ns draw_delay(delay_component *d, rtcosim_time_ns h)
{
    const rtcosim_delay_options *o = &d->options;
    if (o->hang_at_step && d->steps >= o->hang_at_step)
        return o->hang_time;
    if (d->schedule)
        return d->schedule[(d->steps - 1) % o->schedule_length];
    double u = uniform01(&d->rng);
    double fraction;
    if (o->late_share > 0 && uniform01(&d->rng) < o->late_share)
        fraction = o->late_min + u * (o->late_max - o->late_min);
    else
        fraction = o->mean_fraction * (0.5 + u);
    return (rtcosim_time_ns)(fraction * (double)h);
}

static rtcosim_status delay_instantiate(void *self, const char *name, rtcosim_error *err)
{
    return rtcosim_component_instantiate(((delay_component *)self)->inner, name, err);
}

static rtcosim_status delay_setup(void *self, double tolerance, rtcosim_time_ns start,
                                  rtcosim_time_ns stop, rtcosim_error *err)
{
    return rtcosim_component_setup(((delay_component *)self)->inner, tolerance, start, stop, err);
}

static rtcosim_status delay_enter_init(void *self, rtcosim_error *err)
{
    return rtcosim_component_enter_init(((delay_component *)self)->inner, err);
}

static rtcosim_status delay_exit_init(void *self, rtcosim_error *err)
{
    return rtcosim_component_exit_init(((delay_component *)self)->inner, err);
}

static rtcosim_status delay_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_step_result *result, rtcosim_error *err)
{
    delay_component *d = self;
    d->steps++;
    if (d->options.fail_at_step && d->steps == d->options.fail_at_step)
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "%s: injected crash at step %" PRIu64,
                                 rtcosim_component_instance_name(d->inner), d->steps);
    rtcosim_status st = rtcosim_component_do_step(d->inner, t, h, result, err);
    rtcosim_time_ns delay = draw_delay(d, h);
    if (rtcosim_clock_is_virtual(d->options.clock))
        rtcosim_clock_advance(d->options.clock, delay);
    else if (delay > 0)
        rtcosim_clock_sleep_until(d->options.clock, rtcosim_clock_now(d->options.clock) + delay);
    return st;
}

static rtcosim_status delay_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, rtcosim_error *err)
{
    return rtcosim_component_get(((delay_component *)self)->inner, type, vrs, n, values, err);
}

static rtcosim_status delay_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                const void *values, rtcosim_error *err)
{
    return rtcosim_component_set(((delay_component *)self)->inner, type, vrs, n, values, err);
}

/* The wrapper declares the inner component's capabilities, so it forwards
 * input derivatives too. */
static rtcosim_status delay_set_input_derivatives(void *self, const uint32_t *vrs, size_t n,
                                                  int order, const double *values,
                                                  rtcosim_error *err)
{
    return rtcosim_component_set_input_derivatives(((delay_component *)self)->inner, vrs, n,
                                                   order, values, err);
}

static rtcosim_status delay_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    return rtcosim_component_get_state(((delay_component *)self)->inner, state, err);
}

static rtcosim_status delay_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    return rtcosim_component_set_state(((delay_component *)self)->inner, state, err);
}

static void delay_free_state(void *self, rtcosim_state state)
{
    rtcosim_component_free_state(((delay_component *)self)->inner, state);
}

static rtcosim_status delay_terminate(void *self, rtcosim_error *err)
{
    return rtcosim_component_terminate(((delay_component *)self)->inner, err);
}

static void delay_destroy(void *self)
{
    delay_component *d = self;
    rtcosim_component_free(d->inner);
    free(d->schedule);
    free(d);
}

static const rtcosim_component_ops delay_ops = {
    .kind = "delay",
    .instantiate = delay_instantiate,
    .setup = delay_setup,
    .enter_init = delay_enter_init,
    .exit_init = delay_exit_init,
    .do_step = delay_do_step,
    .get = delay_get,
    .set = delay_set,
    .set_input_derivatives = delay_set_input_derivatives,
    .get_state = delay_get_state,
    .set_state = delay_set_state,
    .free_state = delay_free_state,
    .terminate = delay_terminate,
    .destroy = delay_destroy,
};

rtcosim_status rtcosim_delay_wrap(rtcosim_component *inner, const rtcosim_delay_options *options,
                                  rtcosim_component **out, rtcosim_error *err)
{
    if (!inner)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "delay: NULL component");
    const char *name = rtcosim_component_model_name(inner);
    rtcosim_status st = RTCOSIM_OK;
    if (!options || !out || !options->clock)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "delay %s: NULL options, output or clock",
                               name);
    else if (rtcosim_component_instance_name(inner))
        st = rtcosim_error_set(err, RTCOSIM_ESTATE,
                               "delay %s: wrap the component before instantiating it", name);
    else if (!(options->mean_fraction >= 0) || !(options->late_share >= 0) ||
             options->late_share > 1 || !(options->late_min >= 0) ||
             !(options->late_max >= options->late_min) || options->hang_time < 0 ||
             (options->schedule_length && !options->schedule))
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "delay %s: need mean_fraction >= 0, late_share in [0, 1], "
                               "0 <= late_min <= late_max, hang_time >= 0",
                               name);
    delay_component *d = st == RTCOSIM_OK ? calloc(1, sizeof *d) : NULL;
    if (st == RTCOSIM_OK && !d)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "delay %s: out of memory", name);
    if (st != RTCOSIM_OK) {
        rtcosim_component_free(inner);
        return st;
    }
    d->inner = inner;
    d->options = *options;
    d->rng = options->seed;
    if (options->schedule_length) {
        d->schedule = malloc(options->schedule_length * sizeof *d->schedule);
        if (!d->schedule) {
            delay_destroy(d);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "delay %s: out of memory", name);
        }
        memcpy(d->schedule, options->schedule, options->schedule_length * sizeof *d->schedule);
    }
    d->options.schedule = d->schedule;
    rtcosim_component_desc desc = *rtcosim_component_description(inner);
    return rtcosim_component_create(&delay_ops, d, &desc, out, err);
}
