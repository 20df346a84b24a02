# Sourced by the MPI test scripts after they set $mpiexec: Open MPI on shared
# memory only (the sandbox has no network), ranks that yield while they wait,
# no leak check of Open MPI's own allocations that outlive MPI_Finalize in the
# sanitizer build (our code's leaks are checked by test_events_distributed,
# which needs no MPI), and `mpi N CMD...`: CMD on N ranks, as root too, bounded in time (a hang).
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm_rsh_agent=
# Ranks waiting for a message yield the CPU (sched_yield) instead of spinning
# on it: a rank that spins while the rank it waits for shares its CPU (2-3
# ranks on CI's 2 CPUs, another test beside them) only delays that rank.
export OMPI_MCA_mpi_yield_when_idle=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# The bound is for a hang, not for speed: on a loaded machine (a sanitizer
# build, other tests beside it) ranks that yield get the CPU seldom, and a
# Time Warp run of `events` over 2 ranks took 88 s of wall time for 9 s of CPU.
mpi() {
    n=$1; shift
    timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe -np "$n" "$@"
    rc=$?
    [ "$rc" -ne 124 ] || echo "mpi: $* on $n ranks did not end within 300 s" >&2
    return "$rc"
}
