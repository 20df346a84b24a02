/* B9: `mpirun -np N rtcosim bench phold` runs B6's PHOLD over the N ranks of
 * the MPI transport: committed events per wall second of the distributed run
 * (median over repeats, timed between barriers), and its checksum against the
 * sequential run that rank 0 makes alone. Rank 0 prints. */
#include <inttypes.h>
#include <stdio.h>

#include "bench.h"
#include "rtcosim/events_dist.h"
#include "rtcosim/mpi.h"

int bench_phold_ranks(const rtcosim_phold_config *config, double end, unsigned repeats)
{
    rtcosim_transport t;
    rtcosim_error err = {0};
    if (rtcosim_mpi_transport_open(&t, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        return 1;
    }
    rtcosim_events *sim = NULL;
    rtcosim_phold *ph = NULL;
    int rc = 1;
    if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
        rtcosim_phold_build(sim, config, &ph, &err) != RTCOSIM_OK)
        goto fail;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = (rtcosim_time_ns)(end * 1e9), .seed = 42};
    rtcosim_run_stats stats;
    uint64_t reference = 0;
    if (t.rank == 0) { /* the single-process reference, before the transport is set */
        if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK)
            goto fail;
        reference = rtcosim_phold_checksum(ph);
        printf("PHOLD on %d ranks: %u LPs, 16 events/LP, 10 %% remote, lookahead 0.1, mean 1.0,"
               " end %g, %u repeats\n", t.size, config->lps, end, repeats);
    }
    if (rtcosim_events_set_transport(sim, &t, &err) != RTCOSIM_OK)
        goto fail;
    double rate[100];
    uint64_t sum = 0;
    bool identical = true;
    for (unsigned r = 0; r < repeats; r++) {
        rtcosim_phold_reset(ph);
        if (t.barrier(t.context, &err) != RTCOSIM_OK)
            goto fail;
        int64_t t0 = bench_now_ns();
        if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK)
            goto fail;
        if (t.barrier(t.context, &err) != RTCOSIM_OK)
            goto fail;
        rate[r] = (double)stats.events / ((double)(bench_now_ns() - t0) * 1e-9);
        if (rtcosim_phold_combine(ph, &t, &err) != RTCOSIM_OK)
            goto fail;
        sum = rtcosim_phold_checksum(ph);
        identical &= sum == reference;
    }
    rc = 0;
    if (t.rank == 0) {
        double median = bench_median(rate, repeats);
        printf("%-30s %12s %8s %8s %16s\n", "scheduler", "events", "windows", "Mev/s", "checksum");
        printf("%-30s %12" PRIu64 " %8" PRIu64 " %8.3f %016" PRIx64 "\n", "conservative, ranks",
               stats.events, stats.rounds, median / 1e6, sum);
        printf("results identical to the sequential run (%016" PRIx64 "): %s\n", reference,
               identical ? "yes" : "NO");
        char name[64];
        snprintf(name, sizeof name, "phold.mpi%d.events_per_s", t.size);
        bench_figure(name, median, "events/s");
        snprintf(name, sizeof name, "phold.mpi%d.identical", t.size);
        bench_figure(name, identical ? 1 : 0, "bool");
        rc = identical ? 0 : 1;
    }
    rtcosim_phold_free(ph);
    rtcosim_events_free(sim);
    rtcosim_mpi_transport_close(&t);
    return rc;
fail:
    fprintf(stderr, "rtcosim: rank %d: %s\n", t.rank, err.message);
    rtcosim_phold_free(ph);
    rtcosim_events_free(sim);
    rtcosim_mpi_abort(1);
    return 1;
}
