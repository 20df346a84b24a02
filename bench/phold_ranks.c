/* B9: `mpirun -np N rtcosim bench phold` runs B6's PHOLD over the N ranks of
 * the MPI transport, each rank on --threads threads, with each way the
 * ranks synchronize (reduction of earliest times, null messages) and with
 * Time Warp across ranks (one thread per rank; the repeats interleaved so
 * that machine noise hits all alike): committed events per wall second of
 * the distributed run (median over repeats, timed between barriers), and
 * its checksum against the sequential run that rank 0 makes alone. Rank 0
 * prints. */
#include <inttypes.h>
#include <stdio.h>

#include "bench.h"
#include "rtcosim/events_dist.h"
#include "rtcosim/mpi.h"

int bench_phold_ranks(const rtcosim_phold_config *config, double end, unsigned repeats,
                      unsigned threads, rtcosim_rank_sync sync)
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
        printf("PHOLD on %d ranks x %u threads: %u LPs, 16 events/LP, 10 %% remote, lookahead"
               " 0.1, mean 1.0, end %g, %u repeats\n", t.size, threads, config->lps, end,
               repeats);
    }
    if (rtcosim_events_set_transport(sim, &t, &err) != RTCOSIM_OK)
        goto fail;
    /* conservative with each synchronization, then speculative (SYNC_DEFAULT
     * in this table; one thread per rank, so only without --threads) */
    const rtcosim_rank_sync all[] = {RTCOSIM_RANK_SYNC_REDUCTION,
                                     RTCOSIM_RANK_SYNC_NULL_MESSAGES, RTCOSIM_RANK_SYNC_DEFAULT};
    rtcosim_rank_sync syncs[3];
    size_t n = 0;
    for (size_t k = 0; k < 2; k++)
        if (sync == RTCOSIM_RANK_SYNC_DEFAULT || sync == all[k])
            syncs[n++] = all[k];
    if (sync == RTCOSIM_RANK_SYNC_DEFAULT && threads == 1)
        syncs[n++] = all[2];
    double rate[3][100];
    uint64_t sum[3] = {0}, events[3] = {0}, windows[3] = {0}, rollbacks[3] = {0};
    bool identical = true;
    for (unsigned r = 0; r < repeats; r++)
        for (size_t k = 0; k < n; k++) {
            bool speculative = syncs[k] == RTCOSIM_RANK_SYNC_DEFAULT;
            o.scheduler = speculative ? RTCOSIM_SCHEDULER_SPECULATIVE
                                      : RTCOSIM_SCHEDULER_CONSERVATIVE;
            o.threads = speculative ? 1 : threads;
            o.rank_sync = syncs[k];
            rtcosim_phold_reset(ph);
            if (t.barrier(t.context, &err) != RTCOSIM_OK)
                goto fail;
            int64_t t0 = bench_now_ns();
            if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK)
                goto fail;
            if (t.barrier(t.context, &err) != RTCOSIM_OK)
                goto fail;
            rate[k][r] = (double)stats.events / ((double)(bench_now_ns() - t0) * 1e-9);
            if (rtcosim_phold_combine(ph, &t, &err) != RTCOSIM_OK)
                goto fail;
            sum[k] = rtcosim_phold_checksum(ph);
            events[k] = stats.events;
            windows[k] = stats.rounds;
            uint64_t rb = stats.rollbacks;
            if (t.allreduce_u64(t.context, &rb, 1, RTCOSIM_REDUCE_SUM, &err) != RTCOSIM_OK)
                goto fail;
            rollbacks[k] = rb;
            identical &= sum[k] == reference;
        }
    rc = 0;
    if (t.rank == 0) {
        /* windows: collective rounds (reduction), windows rank 0 processed
         * (null), GVT reductions (speculative) */
        printf("%-30s %12s %8s %8s %16s\n", "scheduler", "events", "windows", "Mev/s", "checksum");
        double median[3];
        for (size_t k = 0; k < n; k++) {
            char label[64];
            if (syncs[k] == RTCOSIM_RANK_SYNC_DEFAULT)
                snprintf(label, sizeof label, "speculative, ranks");
            else
                snprintf(label, sizeof label, "conservative, ranks, %s",
                         rtcosim_rank_sync_name(syncs[k]));
            median[k] = bench_median(rate[k], repeats);
            printf("%-30s %12" PRIu64 " %8" PRIu64 " %8.3f %016" PRIx64 "\n", label, events[k],
                   windows[k], median[k] / 1e6, sum[k]);
        }
        for (size_t k = 0; k < n; k++)
            if (syncs[k] == RTCOSIM_RANK_SYNC_DEFAULT)
                printf("speculative, ranks: %" PRIu64 " rollbacks over all ranks\n", rollbacks[k]);
        printf("results identical to the sequential run (%016" PRIx64 "): %s\n", reference,
               identical ? "yes" : "NO");
        char name[64];
        for (size_t k = 0; k < n; k++) {
            snprintf(name, sizeof name, "phold.mpi%d.%s.events_per_s", t.size,
                     syncs[k] == RTCOSIM_RANK_SYNC_DEFAULT ? "speculative"
                                                           : rtcosim_rank_sync_name(syncs[k]));
            bench_figure(name, median[k], "events/s");
            /* the headline figure: the default synchronization's */
            if (syncs[k] == RTCOSIM_RANK_SYNC_REDUCTION || n == 1) {
                snprintf(name, sizeof name, "phold.mpi%d.events_per_s", t.size);
                bench_figure(name, median[k], "events/s");
            }
        }
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
