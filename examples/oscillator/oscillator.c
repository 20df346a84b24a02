/* Exact solution, energy and coupled runs of the two-mass oscillator (B2).
 * The reference is the matrix exponential of the monolithic 4-state system,
 * propagated from macro step to macro step (one exp(A H) reused), so that a
 * run of 10^5 steps costs one 4x4 product per step. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "oscillator.h"

void rtcosim_oscillator_case(int case_number, rtcosim_oscillator_params *p)
{
    double c = case_number == 2 ? 0.01 : case_number == 3 ? 5.0 : 0.0;
    *p = (rtcosim_oscillator_params){
        .m1 = 1, .m2 = 1, .k1 = 10, .k2 = 1000, .kc = 100, .c1 = c, .c2 = c, .cc = c,
        .x1_0 = 0, .v1_0 = 100, .x2_0 = 0, .v2_0 = -100,
    };
}

void rtcosim_oscillator_matrix(const rtcosim_oscillator_params *p, double a[4][4])
{
    memset(a, 0, 16 * sizeof(double));
    a[0][1] = 1;
    a[1][0] = -(p->k1 + p->kc) / p->m1;
    a[1][1] = -(p->c1 + p->cc) / p->m1;
    a[1][2] = p->kc / p->m1;
    a[1][3] = p->cc / p->m1;
    a[2][3] = 1;
    a[3][0] = p->kc / p->m2;
    a[3][1] = p->cc / p->m2;
    a[3][2] = -(p->k2 + p->kc) / p->m2;
    a[3][3] = -(p->c2 + p->cc) / p->m2;
}

static void matmul4(const double a[4][4], const double b[4][4], double out[4][4])
{
    double r[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += a[i][k] * b[k][j];
            r[i][j] = s;
        }
    memcpy(out, r, sizeof r);
}

void rtcosim_expm4(const double m[4][4], double out[4][4])
{
    double norm = 0; /* infinity norm */
    for (int i = 0; i < 4; i++) {
        double row = 0;
        for (int j = 0; j < 4; j++)
            row += fabs(m[i][j]);
        if (row > norm)
            norm = row;
    }
    int squarings = 0;
    double scale = 1;
    while (norm * scale > 0.5) {
        scale *= 0.5;
        squarings++;
    }
    double a[4][4], term[4][4], sum[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            a[i][j] = m[i][j] * scale;
            term[i][j] = sum[i][j] = i == j ? 1.0 : 0.0;
        }
    /* Taylor series: ||A||^k / k! <= 0.5^24 / 24! ~ 1e-31 for the last term. */
    for (int k = 1; k <= 24; k++) {
        matmul4(term, a, term);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                term[i][j] /= k;
                sum[i][j] += term[i][j];
            }
    }
    for (int s = 0; s < squarings; s++)
        matmul4(sum, sum, sum);
    memcpy(out, sum, sizeof sum);
}

static void initial_state(const rtcosim_oscillator_params *p, double z[4])
{
    z[0] = p->x1_0;
    z[1] = p->v1_0;
    z[2] = p->x2_0;
    z[3] = p->v2_0;
}

static void propagate(const double e[4][4], const double z[4], double out[4])
{
    double r[4];
    for (int i = 0; i < 4; i++)
        r[i] = e[i][0] * z[0] + e[i][1] * z[1] + e[i][2] * z[2] + e[i][3] * z[3];
    memcpy(out, r, sizeof r);
}

static void transition(const rtcosim_oscillator_params *p, double t, double e[4][4])
{
    double a[4][4];
    rtcosim_oscillator_matrix(p, a);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            a[i][j] *= t;
    rtcosim_expm4(a, e);
}

void rtcosim_oscillator_exact(const rtcosim_oscillator_params *p, double t, double z[4])
{
    double e[4][4], z0[4];
    transition(p, t, e);
    initial_state(p, z0);
    propagate(e, z0, z);
}

double rtcosim_oscillator_energy(const rtcosim_oscillator_params *p, const double z[4])
{
    double stretch = z[2] - z[0];
    return 0.5 * (p->m1 * z[1] * z[1] + p->m2 * z[3] * z[3] + p->k1 * z[0] * z[0] +
                  p->k2 * z[2] * z[2] + p->kc * stretch * stretch);
}

void rtcosim_oscillator_setup_init(rtcosim_oscillator_setup *s)
{
    memset(s, 0, sizeof *s);
    s->macro_step = RTCOSIM_NS_PER_MS;
    s->stop = 10 * RTCOSIM_NS_PER_S;
    s->order = RTCOSIM_ORDER_JACOBI;
    rtcosim_coupling_options_init(&s->coupling);
    s->power_bond = true;
    s->threads = 1;
    rtcosim_step_control_init(&s->step_control);
}

static rtcosim_status set_param(rtcosim_master *m, const char *name, double value, rtcosim_error *err)
{
    char text[64];
    snprintf(text, sizeof text, "%.17g", value);
    return rtcosim_master_set_start_value(m, name, text, err);
}

rtcosim_status rtcosim_oscillator_build(const rtcosim_oscillator_params *p,
                                        const rtcosim_oscillator_setup *s, rtcosim_master **out,
                                        rtcosim_error *err)
{
    rtcosim_master *m = NULL;
    rtcosim_component *c1 = NULL, *c2 = NULL;
    rtcosim_status st = rtcosim_master_create(s->macro_step, &m, err);
    if (st != RTCOSIM_OK)
        return st;
    unsigned multiple = s->step_control.enabled ? RTCOSIM_MASTER_VARIABLE_STEP : 1;
    const char *observed[] = {"mass1.x", "mass1.v", "mass2.x", "mass2.v"};
    struct { const char *name; double value; } params[] = {
        {"mass1.m", p->m1}, {"mass1.k", p->k1}, {"mass1.c", p->c1},
        {"mass1.x0", p->x1_0}, {"mass1.v0", p->v1_0},
        {"mass2.m", p->m2}, {"mass2.k", p->k2}, {"mass2.c", p->c2}, {"mass2.kc", p->kc},
        {"mass2.cc", p->cc}, {"mass2.x0", p->x2_0}, {"mass2.v0", p->v2_0},
    };
    const char *mass2_inputs[] = {"x1", "v1"};
    if ((st = rtcosim_native_create("rtcosim:oscillator.mass1", &c1, err)) != RTCOSIM_OK ||
        (s->wrap && (st = s->wrap(s->wrap_context, 0, c1, &c1, err)) != RTCOSIM_OK) ||
        (st = rtcosim_master_add_component(m, "mass1", c1, multiple, err)) != RTCOSIM_OK ||
        (st = rtcosim_native_create("rtcosim:oscillator.mass2", &c2, err)) != RTCOSIM_OK ||
        (s->wrap && (st = s->wrap(s->wrap_context, 1, c2, &c2, err)) != RTCOSIM_OK) ||
        (st = rtcosim_master_add_component(m, "mass2", c2, multiple, err)) != RTCOSIM_OK ||
        (st = rtcosim_master_connect(m, "mass1.x", "mass2.x1", &s->coupling, err)) != RTCOSIM_OK ||
        (st = rtcosim_master_connect(m, "mass1.v", "mass2.v1", &s->coupling, err)) != RTCOSIM_OK ||
        (st = rtcosim_master_connect(m, "mass2.F", "mass1.F", &s->coupling, err)) != RTCOSIM_OK)
        goto fail;
    if (s->wrap &&
        ((st = rtcosim_master_set_feedthrough(m, "mass1.x", NULL, 0, err)) != RTCOSIM_OK ||
         (st = rtcosim_master_set_feedthrough(m, "mass1.v", NULL, 0, err)) != RTCOSIM_OK ||
         (st = rtcosim_master_set_feedthrough(m, "mass2.F", mass2_inputs, 2, err)) != RTCOSIM_OK))
        goto fail;
    if (s->power_bond &&
        (st = rtcosim_master_add_power_bond(m, "mass1.F", "mass2.v1", err)) != RTCOSIM_OK)
        goto fail;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if ((st = set_param(m, params[i].name, params[i].value, err)) != RTCOSIM_OK)
            goto fail;
    for (size_t i = 0; i < 4; i++)
        if ((st = rtcosim_master_observe(m, observed[i], err)) != RTCOSIM_OK)
            goto fail;
    rtcosim_master_set_order(m, s->order);
    if ((st = rtcosim_master_set_threads(m, s->threads ? s->threads : 1, err)) != RTCOSIM_OK ||
        (st = rtcosim_master_set_step_control(m, &s->step_control, err)) != RTCOSIM_OK)
        goto fail;
    *out = m;
    return RTCOSIM_OK;
fail:
    rtcosim_master_free(m);
    return st;
}

/* Observer state: the exact solution marched alongside the run. */
typedef struct tracker {
    const rtcosim_oscillator_params *p;
    double step_transition[4][4];
    rtcosim_time_ns step, last_t;
    double z[4];
    double sum1, sum2, max1, max2, amplitude, worst;
    uint64_t samples;
    double wsum, wtime; /* e^2 weighted by the tick ending at the sample */
    double last_values[4];
} tracker;

static rtcosim_status track(void *context, rtcosim_time_ns t, const double *v, size_t n,
                            rtcosim_error *err)
{
    (void)err;
    tracker *tr = context;
    if (n != 4)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "oscillator: expected 4 observed values");
    double dt = rtcosim_time_to_seconds(t - tr->last_t);
    if (t != tr->last_t) {
        double e[4][4];
        if (t - tr->last_t == tr->step)
            propagate(tr->step_transition, tr->z, tr->z);
        else {
            transition(tr->p, rtcosim_time_to_seconds(t - tr->last_t), e);
            propagate(e, tr->z, tr->z);
        }
        tr->last_t = t;
    }
    double e1 = v[0] - tr->z[0], e2 = v[2] - tr->z[2];
    tr->sum1 += e1 * e1;
    tr->sum2 += e2 * e2;
    tr->wsum += (e1 * e1 + e2 * e2) * dt;
    tr->wtime += dt;
    if (fabs(e1) > tr->max1)
        tr->max1 = fabs(e1);
    if (fabs(e2) > tr->max2)
        tr->max2 = fabs(e2);
    double amp = fmax(fabs(tr->z[0]), fabs(tr->z[2]));
    if (amp > tr->amplitude)
        tr->amplitude = amp;
    tr->samples++;
    memcpy(tr->last_values, v, sizeof tr->last_values);
    /* A blown-up run cannot get better: stop early (reported unstable). */
    if (!isfinite(e1) || !isfinite(e2) || fabs(e1) > 1e6 || fabs(e2) > 1e6)
        return RTCOSIM_ECANCELED;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_oscillator_run(const rtcosim_oscillator_params *p,
                                      const rtcosim_oscillator_setup *s,
                                      rtcosim_oscillator_result *r, rtcosim_error *err)
{
    memset(r, 0, sizeof *r);
    rtcosim_master *m = NULL;
    rtcosim_status st = rtcosim_oscillator_build(p, s, &m, err);
    if (st != RTCOSIM_OK)
        return st;
    tracker tr = {.p = p, .step = s->macro_step};
    transition(p, rtcosim_time_to_seconds(s->macro_step), tr.step_transition);
    initial_state(p, tr.z);
    if ((st = rtcosim_master_initialize(m, 0, s->stop, err)) == RTCOSIM_OK)
        st = rtcosim_master_run(m, s->stop, track, &tr, err);
    bool blew_up = st == RTCOSIM_ECANCELED;
    if (blew_up) {
        st = RTCOSIM_OK;
        rtcosim_error_clear(err);
    }
    if (st == RTCOSIM_OK) {
        double n = tr.samples ? (double)tr.samples : 1;
        r->rms_x1 = sqrt(tr.sum1 / n);
        r->rms_x2 = sqrt(tr.sum2 / n);
        r->max_x1 = tr.max1;
        r->max_x2 = tr.max2;
        r->rms_error = sqrt((tr.sum1 + tr.sum2) / (2 * n));
        r->rms_error_time = tr.wtime > 0 ? sqrt(tr.wsum / (2 * tr.wtime)) : 0;
        double z0[4];
        initial_state(p, z0);
        double e0 = rtcosim_oscillator_energy(p, z0);
        memcpy(r->final_z, tr.last_values, sizeof r->final_z);
        /* Against the exact energy at the end (E0 in the undamped case 1). */
        r->energy_drift = fabs(rtcosim_oscillator_energy(p, r->final_z) -
                               rtcosim_oscillator_energy(p, tr.z)) / e0;
        r->stable = !blew_up && fmax(tr.max1, tr.max2) < tr.amplitude;
        if (blew_up) {
            r->rms_error = r->rms_x1 = r->rms_x2 = r->energy_drift = INFINITY;
            r->rms_error_time = INFINITY;
        }
        r->steps = rtcosim_master_step_count(m);
        for (size_t i = 0; i < 3 && i < rtcosim_master_connection_count(m); i++)
            rtcosim_master_coupling_stats(m, i, &r->coupling[i], NULL);
        if (rtcosim_master_bond_count(m))
            rtcosim_master_bond_stats(m, 0, &r->bond, NULL);
    }
    rtcosim_master_free(m);
    return st;
}
