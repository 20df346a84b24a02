#!/bin/sh
# PHOLD under `mpirun -np 1, 2, 3` with 1 and 2 threads per rank gives the
# checksum of the sequential scheduler's run (made by rank 0 in a single
# process) with both synchronizations of the ranks (reduction, null
# messages), and with 1 thread per rank so does Time Warp across ranks (Tc =
# 0): the distributed kernel is bit-identical for any number of ranks and
# threads; so is the example vehicle of `rtcosim events` on 2 and 3
# ranks, also with --sync null and 2 threads per rank.
# usage: ranks_identical.sh MPIEXEC RTCOSIM
set -u
mpiexec=$1
rtcosim=$2
# shared memory only (the sandbox has no network); bounded time per run
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm_rsh_agent=
# in the sanitizer build: Open MPI's own allocations outlive MPI_Finalize (our
# code's leaks are checked by test_events_distributed, which needs no MPI)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
first=""
for n in 1 2 3; do
  for threads in 1 2; do
    out=$(timeout 90 "$mpiexec" --allow-run-as-root --oversubscribe -np "$n" \
          "$rtcosim" bench phold --lps 96 --end 30 --repeats 1 --threads "$threads") || {
        echo "np $n x $threads threads: run failed: $out"; exit 1; }
    ref=$(printf '%s\n' "$out" | sed -n 's/.*sequential run (\([0-9a-f]*\)).*/\1/p')
    for sync in reduction null; do
        sum=$(printf '%s\n' "$out" | awk -v s="$sync" '$1 == "conservative," && $3 == s {print $NF}')
        events=$(printf '%s\n' "$out" | awk -v s="$sync" '$1 == "conservative," && $3 == s {print $4}')
        echo "np $n x $threads threads, $sync: checksum $sum, sequential $ref, events $events"
        [ -n "$sum" ] && [ "$sum" = "$ref" ] || { echo "np $n: differs from sequential"; exit 1; }
        [ -z "$first" ] && first=$sum
        [ "$sum" = "$first" ] || { echo "np $n: differs from np 1"; exit 1; }
    done
    if [ "$threads" = 1 ]; then
        sum=$(printf '%s\n' "$out" | awk '$1 == "speculative," && $2 == "ranks" {print $NF}')
        echo "np $n, speculative: checksum $sum, sequential $ref"
        [ -n "$sum" ] && [ "$sum" = "$ref" ] || { echo "np $n: speculative differs"; exit 1; }
    fi
  done
done
# the example vehicle (4 ECUs with plants, CAN bus): the state of every LP is
# gathered on rank 0, whose checksum must equal the sequential scheduler's
vref=$("$rtcosim" events --stop-time 0.5 --scheduler sequential | awk '/^checksum/ {print $2}')
for n in 2 3; do
    out=$(timeout 90 "$mpiexec" --allow-run-as-root --oversubscribe -np "$n" \
          "$rtcosim" events --stop-time 0.5) || { echo "events np $n: run failed: $out"; exit 1; }
    sum=$(printf '%s\n' "$out" | awk '/^checksum/ {print $2}')
    echo "events np $n: checksum $sum, sequential $vref"
    [ -n "$sum" ] && [ "$sum" = "$vref" ] || { echo "events np $n: differs"; exit 1; }
done
out=$(timeout 90 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$rtcosim" events \
      --stop-time 0.5 --place engine=1 --place brake=1 --place body=1) || {
    echo "events --place: run failed: $out"; exit 1; }
sum=$(printf '%s\n' "$out" | awk '/^checksum/ {print $2}')
[ "$sum" = "$vref" ] || { echo "events --place: checksum $sum differs"; exit 1; }
out=$(timeout 90 "$mpiexec" --allow-run-as-root --oversubscribe -np 3 "$rtcosim" events \
      --stop-time 0.5 --sync null --threads 2) || {
    echo "events --sync null --threads 2: run failed: $out"; exit 1; }
sum=$(printf '%s\n' "$out" | awk '/^checksum/ {print $2}')
echo "events np 3 --sync null --threads 2: checksum $sum"
[ "$sum" = "$vref" ] || { echo "events --sync null --threads 2: checksum $sum differs"; exit 1; }
out=$(timeout 90 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$rtcosim" events \
      --stop-time 0.5 --scheduler speculative) || {
    echo "events --scheduler speculative: run failed: $out"; exit 1; }
sum=$(printf '%s\n' "$out" | awk '/^checksum/ {print $2}')
echo "events np 2 --scheduler speculative: checksum $sum"
[ "$sum" = "$vref" ] || { echo "events --scheduler speculative: checksum $sum differs"; exit 1; }
echo "identical for 1, 2 and 3 ranks"
