# Sourced by the MPI test scripts after they set $mpiexec: Open MPI on shared
# memory only (the sandbox has no network), no leak check of Open MPI's own
# allocations that outlive MPI_Finalize in the sanitizer build (our code's
# leaks are checked by test_events_distributed, which needs no MPI), and
# `mpi N CMD...`: CMD on N ranks, as root too, bounded in time.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm_rsh_agent=
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpi() { n=$1; shift; timeout 90 "$mpiexec" --allow-run-as-root --oversubscribe -np "$n" "$@"; }
