/* `rtcosim bench NAME [options]`: runs one of the benchmarks of bench/. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bench_table.gen.h"
#include "cli.h"

static int run_bench(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        FILE *out = argc < 2 ? stderr : stdout;
        fprintf(out, "usage: rtcosim bench NAME [options]\n\nbenchmarks:\n");
        for (size_t i = 0; i < rtcosim_bench_count; i++)
            fprintf(out, "  %-13s %s\n", rtcosim_bench_s[i]->name, rtcosim_bench_s[i]->summary);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < rtcosim_bench_count; i++)
        if (strcmp(argv[1], rtcosim_bench_s[i]->name) == 0)
            return rtcosim_bench_s[i]->run(argc - 1, argv + 1);
    return cli_fail("unknown benchmark '%s' (see rtcosim bench --help)", argv[1]);
}

const rtcosim_cli_command rtcosim_cli_cmd_bench = {"bench", "run a benchmark and print its figures",
                                                   run_bench};
