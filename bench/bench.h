/* Benchmarks run as `rtcosim bench NAME` (see shared BENCHMARKS.md). Each lives
 * in bench/bench_NAME.c and defines `const rtcosim_bench rtcosim_bench_NAME`;
 * the build collects them. A benchmark prints a table for people, then one
 * `NAME.figure value unit` line per figure for machines. */
#ifndef RTCOSIM_BENCH_H
#define RTCOSIM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rtcosim/events.h"

typedef struct rtcosim_bench {
    const char *name;    /* as typed after `rtcosim bench`, e.g. "late-partner" */
    const char *summary; /* one line */
    int (*run)(int argc, char **argv); /* argv[0] is the benchmark name */
} rtcosim_bench;

/* Print one machine-readable figure line: "<name> <value> <unit>". */
void bench_figure(const char *name, double value, const char *unit);

/* Monotonic wall clock in nanoseconds. */
int64_t bench_now_ns(void);

/* Peak resident set size of this process so far, in MiB. */
double bench_peak_rss_mib(void);

/* Median of n values (sorts the array in place). */
double bench_median(double *values, size_t n);

/* Percentile p in [0,100] of n values (sorts in place, nearest rank). */
double bench_percentile(double *values, size_t n, double p);

/* One line with the machine's load average, so that a figure measured
 * under load says so. */
void bench_print_load(void);

/* Run a peer program (argv[0] a path) to completion as the same-run
 * reference of a benchmark, in directory cwd (NULL: this one): its wall and
 * CPU seconds (from wait4) and the first out_size - 1 bytes of its stdout
 * and stderr in out (NUL-terminated). Returns its exit status, or -1 when it
 * could not be started. */
int bench_run_peer(char *const argv[], const char *cwd, double *wall_s, double *cpu_s, char *out,
                   size_t out_size);

/* Remove a directory and everything in it (a peer's scratch files). */
void bench_remove_tree(const char *dir);

/* Whether argv[*i] is option `name` with a value, as `--name VALUE` (then
 * *i moves to the value) or `--name=VALUE`; the value in *value. */
bool bench_option(int argc, char **argv, int *i, const char *name, const char **value);

/* A whole decimal number in [lo, hi] (no sign, no trailing text): false
 * otherwise, *out untouched. */
bool bench_parse_count(const char *text, unsigned long lo, unsigned long hi, unsigned long *out);

/* Directory for scratch files of a benchmark run (created; $TMPDIR or /tmp). */
const char *bench_scratch_dir(void);

/* B8's co-simulation case (bench_speculate_cosim.c), for `rtcosim bench
 * speculate` to print after its event-kernel cases: `speculate.cosim.*` lines
 * to out. Returns 0, or 1 when a run failed, Tc = 0 was not bit-identical or
 * the Tc run's error exceeded its stated tolerance. */
int bench_speculate_cosim(FILE *out);

/* B9 (phold_ranks.c): B6's PHOLD over the ranks of mpirun; rank 0 prints.
 * Returns 0, or 1 when a run failed or was not bit-identical. */
struct rtcosim_phold_config;
/* sync DEFAULT: both synchronizations, interleaved */
int bench_phold_ranks(const struct rtcosim_phold_config *config, double end, unsigned repeats,
                      unsigned threads, rtcosim_rank_sync sync);

/* B9 (master_ranks.c): the distributed master's exchange per macro step
 * under mpirun, with `model` as the two components; rank 0 prints. */
struct rtcosim_native_model;
int bench_master_ranks(const struct rtcosim_native_model *model);

#endif
