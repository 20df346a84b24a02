/* The FMI 3.0 scheduled-execution part of a real-time run's report: for each
 * SE FMU of the real-time part, each model partition (input clock) with its
 * priority, activations, measured execution time, lateness (activation start
 * minus release time) and how often it preempted a lower-priority partition,
 * on stdout and as partitions.csv in the --rt-report directory. */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/master.h"

static void one_component(const char *name, const rtcosim_component *c, FILE *csv)
{
    const rtcosim_fmu_clocks *k = rtcosim_fmu_clocks_of(c);
    for (size_t i = 0; k && i < k->clock_count; i++) {
        const rtcosim_variable *v = rtcosim_component_variable(c, k->clocks[i].variable);
        rtcosim_se_partition_stats ps;
        if (v->causality != RTCOSIM_CAUSALITY_INPUT ||
            rtcosim_fmu_se_partition_stats(c, i, &ps, NULL) != RTCOSIM_OK)
            continue;
        double mean_us = ps.activations ? (double)ps.exec_total_ns / (double)ps.activations / 1e3 : 0;
        double max_us = (double)ps.exec_max_ns / 1e3;
        double p50 = (double)ps.lateness_p50_ns / 1e3, p99 = (double)ps.lateness_p99_ns / 1e3,
               lmax = (double)ps.lateness_max_ns / 1e3;
        printf("partition %s.%s (priority %" PRIu32 "): %" PRIu64
               " activations, execution %.3f us mean, %.3f us max; lateness p50 %.1f us, "
               "p99 %.1f us, max %.1f us; preempted others %" PRIu64 " times\n",
               name, v->name, k->clocks[i].priority, ps.activations, mean_us, max_us, p50, p99,
               lmax, ps.preemptions);
        if (csv)
            fprintf(csv, "%s,%s,%" PRIu32 ",%" PRIu64 ",%.3f,%.3f,%.1f,%.1f,%.1f,%" PRIu64 "\n",
                    name, v->name, k->clocks[i].priority, ps.activations, mean_us, max_us, p50,
                    p99, lmax, ps.preemptions);
    }
}

void cli_report_partitions(const rtcosim_master *part, const char *report_dir)
{
    size_t n = part ? rtcosim_master_component_count(part) : 0;
    FILE *csv = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *name = rtcosim_master_order_name(part, i);
        const rtcosim_component *c = name ? rtcosim_master_component(part, name) : NULL;
        if (!c || !rtcosim_fmu_is_scheduled(c))
            continue;
        if (!csv && report_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/partitions.csv", report_dir);
            csv = fopen(path, "w");
            if (!csv)
                fprintf(stderr, "rtcosim: %s: cannot write\n", path);
            else
                fputs("component,partition,priority,activations,execution_mean_us,"
                      "execution_max_us,lateness_p50_us,lateness_p99_us,lateness_max_us,"
                      "preemptions\n", csv);
        }
        one_component(name, c, csv);
    }
    if (csv && fclose(csv) != 0)
        fprintf(stderr, "rtcosim: %s/partitions.csv: cannot write\n", report_dir);
}
