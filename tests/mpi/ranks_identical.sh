#!/bin/sh
# PHOLD under `mpirun -np 1, 2, 3` with 1 and 2 threads per rank gives the
# checksum of the sequential scheduler's run (made by rank 0 in a single
# process) with both synchronizations of the ranks (reduction, null
# messages), and with 1 thread per rank so does Time Warp across ranks (Tc =
# 0): the distributed kernel is bit-identical for any number of ranks and
# threads; so is the example vehicle of `rtcosim events` on 2 and 3
# ranks, also with --sync null and 2 threads per rank; Time Warp's per-LP
# statistics on 3 ranks cover every rank's LPs and add up.
# usage: ranks_identical.sh MPIEXEC RTCOSIM
set -u
mpiexec=$1
rtcosim=$2
. "$(dirname "$0")/mpi_env.sh"
first=""
for n in 1 2 3; do
  for threads in 1 2; do
    out=$(mpi "$n" "$rtcosim" bench phold --lps 96 --end 30 --repeats 1 --threads "$threads") || {
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
# `events ARGS` on N ranks must give the sequential checksum
events_identical() { # $1: ranks, then the events options
    n=$1; shift
    out=$(mpi "$n" "$rtcosim" events --stop-time 0.5 "$@") || {
        echo "events np $n $*: run failed: $out"; exit 1; }
    sum=$(printf '%s\n' "$out" | awk '/^checksum/ {print $2}')
    echo "events np $n $*: checksum $sum, sequential $vref"
    [ -n "$sum" ] && [ "$sum" = "$vref" ] || { echo "events np $n $*: differs"; exit 1; }
}
events_identical 2
events_identical 3
events_identical 2 --place engine=1 --place brake=1 --place body=1
events_identical 3 --sync null --threads 2
events_identical 2 --scheduler speculative
# --can-log over ranks: the rank that ran the bus writes the log, which is
# the single process's byte for byte, with the bus on rank 0, moved to rank
# 1, and under Time Warp on 3 ranks with the bus on rank 2 (Vector ASC); the
# checksum, which covers the log by the bus's digest, is the same too.
logs=$(mktemp -d) || exit 1
"$rtcosim" events --stop-time 0.5 --can-log "$logs/one.log" > "$logs/one.txt" || exit 1
"$rtcosim" events --stop-time 0.5 --can-log "$logs/one.asc" > /dev/null || exit 1
lref=$(awk '/^checksum/ {print $2}' "$logs/one.txt")
can_log_identical() { # $1: ranks, $2: the log's name, $3: the bus's rank, then options
    n=$1 name=$2 rank=$3; shift 3
    out=$(mpi "$n" "$rtcosim" events --stop-time 0.5 --can-log "$logs/$name" "$@") || {
        echo "events np $n --can-log $name $*: run failed: $out"; exit 1; }
    sum=$(printf '%s\n' "$out" | awk '/^checksum/ {print $2}')
    printf '%s\n' "$out" | grep -q "written by rank $rank, which ran the bus" || {
        echo "events np $n --can-log $*: not written by rank $rank: $out"; exit 1; }
    cmp "$logs/one.${name##*.}" "$logs/$name" || { echo "np $n $*: CAN log differs"; exit 1; }
    [ "$sum" = "$lref" ] || { echo "np $n $* --can-log: checksum $sum, one process $lref"; exit 1; }
    echo "events np $n --can-log $*: log identical (rank $rank), checksum $sum"
}
can_log_identical 2 two.log 0
can_log_identical 2 moved.log 1 --place can0=1
can_log_identical 3 spec.asc 2 --scheduler speculative --place can0=2
rm -rf "$logs"
# Time Warp on 3 ranks: rank 0's per-LP statistics cover every rank's LPs.
# Per LP, processed = committed + undone (counted apart: committed by the
# LP's clock, undone by its rollbacks), each committed count is the
# sequential run's, and the processed counts add up to the run's total.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
seqlps=$("$rtcosim" events --stop-time 0.5 --scheduler sequential --threads 1 | awk '/^events/ {print $2}')
out=$(mpi 3 "$rtcosim" events --stop-time 0.5 --scheduler speculative --speculate-stats "$tmp/lp.csv") || {
    echo "events np 3 speculative --speculate-stats: run failed: $out"; exit 1; }
total=$(printf '%s\n' "$out" | awk '/^speculation/ {print $2; exit}')
awk -F, -v total="$total" -v events="$seqlps" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { p = $col["processed"]; c = $col["committed"]; u = $col["rolled_back"]
      if (c <= 0 || p != c + u) { print "lp " $1 ": processed " p ", committed " c ", undone " u; bad = 1 }
      sp += p; sc += c; n++ }
    END { if (n != 9 || sp != total || sc != events) {
              print n " LPs, processed " sp " (run: " total "), committed " sc " (sequential: " events ")"; bad = 1 }
          if (bad) exit 1
          print "per-LP statistics of 3 ranks: " n " LPs, " sp " processed, " sc " committed" }' \
    "$tmp/lp.csv" || { echo "per-LP statistics over ranks wrong"; exit 1; }
echo "identical for 1, 2 and 3 ranks"
