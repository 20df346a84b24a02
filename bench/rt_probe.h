/* What a rig offers real-time work, read from the kernel's files: PREEMPT_RT,
 * isolated CPUs, RT throttling, frequency governor, SMT, timer slack. Every
 * function takes the paths, so that tests read fixtures; `rtcosim rt-check`
 * reads the live system (rt_probe_paths_default). */
#ifndef RTCOSIM_BENCH_RT_PROBE_H
#define RTCOSIM_BENCH_RT_PROBE_H

#include <stdbool.h>

typedef struct rt_probe_paths {
    const char *realtime;   /* /sys/kernel/realtime ("1" on PREEMPT_RT) */
    const char *isolated;   /* /sys/devices/system/cpu/isolated (a CPU list) */
    const char *rt_runtime; /* /proc/sys/kernel/sched_rt_runtime_us */
    const char *rt_period;  /* /proc/sys/kernel/sched_rt_period_us */
    const char *cpu_dir;    /* /sys/devices/system/cpu (cpuN/cpufreq/scaling_governor) */
    const char *smt_active; /* /sys/devices/system/cpu/smt/active */
    const char *timerslack; /* /proc/self/timerslack_ns */
} rt_probe_paths;

typedef struct rt_probe_facts {
    bool preempt_rt;         /* /sys/kernel/realtime is 1, or uname -v says PREEMPT_RT */
    int isolated_count;      /* CPUs in the isolated list; -1: unreadable or malformed */
    char isolated[128];      /* the list as the kernel prints it ("" when none) */
    bool cpu_isolated;       /* the checked CPU is in it */
    long long rt_runtime_us; /* -1: no throttling; -2: unreadable */
    long long rt_period_us;  /* -2: unreadable */
    char governor[32];       /* of the checked CPU; "" when there is no cpufreq */
    int smt_active;          /* 1, 0, or -1 when unknown */
    long long timerslack_ns; /* -1 when unreadable */
} rt_probe_facts;

/* The live system's paths. */
rt_probe_paths rt_probe_paths_default(void);

/* Number of CPUs in a kernel CPU list ("0-2,5", "" or "\n" for none), or -1
 * when malformed. When cpu >= 0, *contains tells whether it is in the list. */
int rt_probe_cpulist_count(const char *list, int cpu, bool *contains);

/* All facts for CPU `cpu`; uname_version is uname(2)'s version (uname -v). */
void rt_probe_read(const rt_probe_paths *paths, const char *uname_version, int cpu,
                   rt_probe_facts *out);

#endif
