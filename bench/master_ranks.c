/* B9's master figure: `mpirun -np 2 rtcosim bench master` runs two trivial
 * components coupled in a loop (Jacobi, ZOH, H = 1 us), one per rank, with
 * the distributed master (rtcosim run --distribute), and on rank 0 alone the
 * same system in one process; the exchange latency per macro step is the
 * difference of the wall time per step (median over repeats). Rank 0 prints
 * `master.mpiN.exchange_us`. */
#include <stdio.h>

#include "bench.h"
#include "rtcosim/master.h"
#include "rtcosim/master_distribute.h"
#include "rtcosim/mpi.h"
#include "rtcosim/native.h"

enum { STEPS = 20000, REPEATS = 5 };

/* Wall ns per macro step of the loop of two components (distributed when d). */
static double time_loop(const rtcosim_native_model *model, rtcosim_distribution *d,
                        const rtcosim_transport *t, rtcosim_error *err)
{
    rtcosim_master *m = NULL;
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = RTCOSIM_EXTRAPOLATION_ZOH;
    o.correction = RTCOSIM_CORRECTION_NONE;
    double result = -1;
    if (rtcosim_master_create(RTCOSIM_NS_PER_US, &m, err) != RTCOSIM_OK)
        return -1;
    const char *names[2] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        rtcosim_component *c = NULL;
        if (rtcosim_native_create_model(model, &c, err) != RTCOSIM_OK ||
            (d && rtcosim_distribution_wrap(d, names[i], c, &c, err) != RTCOSIM_OK) ||
            rtcosim_master_add_component(m, names[i], c, 1, err) != RTCOSIM_OK)
            goto out;
    }
    if (rtcosim_master_connect(m, "a.y", "b.u", &o, err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "b.y", "a.u", &o, err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, RTCOSIM_TIME_MAX / 2, err) != RTCOSIM_OK)
        goto out;
    if (d && t->barrier(t->context, err) != RTCOSIM_OK)
        goto out;
    int64_t t0 = bench_now_ns();
    for (int s = 0; s < STEPS; s++)
        if (rtcosim_master_step(m, err) != RTCOSIM_OK)
            goto out;
    result = (double)(bench_now_ns() - t0) / STEPS;
out:
    rtcosim_master_free(m);
    return result;
}

int bench_master_ranks(const rtcosim_native_model *model)
{
    rtcosim_transport t;
    rtcosim_error err = {0};
    if (rtcosim_mpi_transport_open(&t, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        return 1;
    }
    double local[REPEATS], dist[REPEATS], diff[REPEATS];
    int rc = 0;
    for (int r = 0; r < REPEATS && rc == 0; r++) {
        local[r] = t.rank == 0 ? time_loop(model, NULL, &t, &err) : 0;
        rtcosim_distribution *d = NULL;
        if (rtcosim_distribution_create(&t, &d, &err) != RTCOSIM_OK)
            rc = 1;
        dist[r] = rc ? -1 : time_loop(model, d, &t, &err);
        rtcosim_distribution_free(d);
        if (local[r] < 0 || dist[r] < 0)
            rc = 1;
        diff[r] = (dist[r] - local[r]) / 1e3;
        if (t.barrier(t.context, &err) != RTCOSIM_OK)
            rc = 1;
    }
    if (rc) {
        fprintf(stderr, "rtcosim: rank %d: %s\n", t.rank, err.message);
        rtcosim_mpi_abort(1);
    }
    if (t.rank == 0) {
        double l = bench_median(local, REPEATS), w = bench_median(dist, REPEATS);
        printf("master on %d ranks: 2 components in a loop (Jacobi, ZOH, H = 1 us), one per"
               " rank, %d steps, %d repeats\n", t.size, STEPS, REPEATS);
        printf("one process %.3f us per macro step, distributed %.3f us: exchange %.3f us\n",
               l / 1e3, w / 1e3, bench_median(diff, REPEATS));
        char name[64];
        snprintf(name, sizeof name, "master.mpi%d.exchange_us", t.size);
        bench_figure(name, bench_median(diff, REPEATS), "us");
    }
    rtcosim_mpi_transport_close(&t);
    return 0;
}
