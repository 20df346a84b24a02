/* B9's master figure: `mpirun -np 2 rtcosim bench master` runs two trivial
 * components coupled in a loop (Jacobi, ZOH, H = 1 us), one per rank, with
 * the distributed master (rtcosim run --distribute), and on rank 0 alone the
 * same system in one process; the exchange latency per macro step is the
 * difference of the wall time per step (median over repeats). Rank 0 prints
 * `master.mpiN.exchange_us`, the exchanges per step, and the parameters of
 * the cost model of src/master/README.md measured with the same transport:
 * alpha (one-way latency of a small message, half a ping-pong between ranks
 * 0 and 1), beta (time per byte, from the ping-pong of a large message) and
 * the latency of the per-step MPI_Allgatherv of a 16-byte header on N ranks. */
#include <stdio.h>
#include <stdlib.h>

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

enum { PING_SMALL = 16, PING_LARGE = 1 << 20, PINGS = 2000, LARGE_PINGS = 50 };

/* Mean round trip / 2 of `bytes` between ranks 0 and 1 (the others wait). */
static double ping_pong_ns(const rtcosim_transport *t, unsigned char *buf, size_t bytes, int n,
                           rtcosim_error *err)
{
    unsigned char request[64];
    if (t->request_bytes > sizeof request)
        return -1;
    if (t->barrier(t->context, err) != RTCOSIM_OK)
        return -1;
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < n && t->rank < 2; i++) {
        int peer = 1 - t->rank;
        if (t->rank == 0 && (t->isend(t->context, buf, bytes, peer, 7, request, err) != RTCOSIM_OK ||
                             t->wait(t->context, request, 1, err) != RTCOSIM_OK))
            return -1;
        if (t->recv(t->context, buf, bytes, peer, 7, err) != RTCOSIM_OK)
            return -1;
        if (t->rank == 1 && (t->isend(t->context, buf, bytes, peer, 7, request, err) != RTCOSIM_OK ||
                             t->wait(t->context, request, 1, err) != RTCOSIM_OK))
            return -1;
    }
    double ns = (double)(bench_now_ns() - t0) / n / 2;
    return t->barrier(t->context, err) == RTCOSIM_OK ? ns : -1;
}

/* Mean time of an MPI_Allgatherv of 16 bytes from every rank. */
static double allgather_ns(const rtcosim_transport *t, unsigned char *buf, int n,
                           rtcosim_error *err)
{
    size_t ranks = (size_t)t->size, bytes[64], offset[64];
    if (ranks > 64)
        return -1;
    for (size_t r = 0; r < ranks; r++) {
        bytes[r] = PING_SMALL;
        offset[r] = r * PING_SMALL;
    }
    if (t->barrier(t->context, err) != RTCOSIM_OK)
        return -1;
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++)
        if (t->allgatherv(t->context, buf, PING_SMALL, buf + PING_SMALL, bytes, offset, err) !=
            RTCOSIM_OK)
            return -1;
    return (double)(bench_now_ns() - t0) / n;
}

/* alpha, beta and the allgather latency into rank 0's output. */
static int cost_model(const rtcosim_transport *t, rtcosim_error *err)
{
    unsigned char *buf = calloc(1, PING_LARGE + 65 * PING_SMALL);
    if (!buf)
        return 1;
    double small[REPEATS], large[REPEATS], gather[REPEATS];
    int rc = 0;
    for (int r = 0; r < REPEATS && !rc; r++) {
        small[r] = t->size > 1 ? ping_pong_ns(t, buf, PING_SMALL, PINGS, err) : 0;
        large[r] = t->size > 1 ? ping_pong_ns(t, buf, PING_LARGE, LARGE_PINGS, err) : 0;
        gather[r] = allgather_ns(t, buf, PINGS, err);
        rc = small[r] < 0 || large[r] < 0 || gather[r] < 0;
    }
    free(buf);
    if (rc || t->rank != 0)
        return rc;
    double alpha = bench_median(small, REPEATS), big = bench_median(large, REPEATS);
    double beta = (big - alpha) / (PING_LARGE - PING_SMALL);
    printf("cost model: one message alpha + bytes * beta (ping-pong of %d B and %d B between"
           " ranks 0 and 1); allgather of %d B per rank on %d ranks\n", PING_SMALL, PING_LARGE,
           PING_SMALL, t->size);
    char name[64];
    if (t->size > 1) {
        snprintf(name, sizeof name, "master.mpi%d.alpha_us", t->size);
        bench_figure(name, alpha / 1e3, "us");
        snprintf(name, sizeof name, "master.mpi%d.beta_ns_per_byte", t->size);
        bench_figure(name, beta, "ns/B");
    }
    snprintf(name, sizeof name, "master.mpi%d.allgather_us", t->size);
    bench_figure(name, bench_median(gather, REPEATS) / 1e3, "us");
    return 0;
}

int bench_master_ranks(const rtcosim_native_model *model)
{
    rtcosim_transport t;
    rtcosim_error err = {0};
    if (rtcosim_mpi_transport_open(&t, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        return 1;
    }
    double local[REPEATS], dist[REPEATS], diff[REPEATS], seconds = 0;
    uint64_t calls = 0;
    int rc = 0;
    for (int r = 0; r < REPEATS && rc == 0; r++) {
        local[r] = t.rank == 0 ? time_loop(model, NULL, &t, &err) : 0;
        rtcosim_distribution *d = NULL;
        if (rtcosim_distribution_create(&t, &d, &err) != RTCOSIM_OK)
            rc = 1;
        dist[r] = rc ? -1 : time_loop(model, d, &t, &err);
        if (d && dist[r] >= 0)
            rtcosim_distribution_stats(d, &calls, &seconds);
        rtcosim_distribution_free(d);
        if (local[r] < 0 || dist[r] < 0)
            rc = 1;
        diff[r] = (dist[r] - local[r]) / 1e3;
        if (t.barrier(t.context, &err) != RTCOSIM_OK)
            rc = 1;
    }
    if (rc == 0 && cost_model(&t, &err) != 0)
        rc = 1;
    if (rc) {
        fprintf(stderr, "rtcosim: rank %d: %s\n", t.rank, err.message);
        rtcosim_mpi_abort(1);
    }
    if (t.rank == 0) {
        double l = bench_median(local, REPEATS), w = bench_median(dist, REPEATS);
        printf("master on %d ranks: 2 components in a loop (Jacobi, ZOH, H = 1 us), one per"
               " rank, %d steps, %d repeats\n", t.size, STEPS, REPEATS);
        printf("one process %.3f us per macro step, distributed %.3f us: exchange %.3f us"
               " (%.2f exchanges per step, initialization included)\n",
               l / 1e3, w / 1e3, bench_median(diff, REPEATS), (double)calls / STEPS);
        char name[64];
        snprintf(name, sizeof name, "master.mpi%d.exchange_us", t.size);
        bench_figure(name, bench_median(diff, REPEATS), "us");
    }
    rtcosim_mpi_transport_close(&t);
    return 0;
}
