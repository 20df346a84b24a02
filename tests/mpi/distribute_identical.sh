#!/bin/sh
# `mpirun -np N rtcosim run SYSTEM --distribute` writes on rank 0 the CSV of
# the single-process run byte for byte: the B2 oscillator (two components) in
# Jacobi and Gauss-Seidel order on 1, 2 and 3 ranks (one rank idle), with
# --place, and with step control on 3 ranks; the multi-rate vehicle example
# (five components, steps of 1, 10 and 10 ms) in both orders on 1-3 ranks.
# The values of a macro step cross in one exchange: 8 more macro steps make
# exactly 8 more exchanges (two components without feedthrough, one per
# rank; Jacobi one allgather per step, Gauss-Seidel one message per component
# to the other rank: values to rank 0, the status alone to rank 1), and with
# one component stepping 4 macro steps at once Jacobi still 8 (its values
# cross only at its points, the status word every step), Gauss-Seidel 10. A component failing (the project's Faulty FMU, Error at t = 1 s),
# on rank 1 or on rank 0 where no other rank reads it, in either order, stops
# the run naming the component and its rank, and the rows so far equal those
# of the failing single-process run; so does a rank dying (the FMU segfaults
# on rank 1). --output-interval, --parameter-set and --start-value give the
# single-process CSV too, and a String connection is refused alike.
# usage: distribute_identical.sh MPIEXEC RTCOSIM SOURCE_DIR FMU_DIR
set -u
mpiexec=$1
rtcosim=$2
src=$3
fmus=$4
. "$(dirname "$0")/mpi_env.sh"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
ssd=$src/examples/oscillator/oscillator.ssd
for order in jacobi gauss-seidel; do
    "$rtcosim" run "$ssd" --stop-time 2 --order $order --output-file "$dir/one.csv" >/dev/null ||
        { echo "single $order failed"; exit 1; }
    for n in 1 2 3; do
        mpi $n "$rtcosim" run "$ssd" --stop-time 2 --order $order --distribute \
            --output-file "$dir/n$n.csv" > "$dir/out" 2>&1 || {
            cat "$dir/out"; echo "np $n $order failed"; exit 1; }
        cmp "$dir/one.csv" "$dir/n$n.csv" || { echo "np $n $order: CSV differs"; exit 1; }
        echo "$order np $n: identical ($(wc -l < "$dir/one.csv") lines)"
    done
    mpi 2 "$rtcosim" run "$ssd" --stop-time 2 --order $order --distribute --place mass1=1 \
        --place mass2=1 --output-file "$dir/p.csv" > "$dir/out" 2>&1 || {
        cat "$dir/out"; echo "--place $order failed"; exit 1; }
    grep -q "mass1=1 mass2=1" "$dir/out" || { cat "$dir/out"; echo "--place ignored"; exit 1; }
    cmp "$dir/one.csv" "$dir/p.csv" || { echo "--place $order: CSV differs"; exit 1; }
done
# With step control every rank reads every value (the step size comes from
# every connection's error). The tolerance and the smallest step keep the run
# near 2000 steps: at the default tolerance ZOH coupling of the undamped
# oscillator needs about 1e6 steps of 1 us, each an allgather over 3 ranks.
sc="--step-control --step-tolerance 1e-2 --min-step-size 1e-4"
for order in jacobi gauss-seidel; do
    "$rtcosim" run "$ssd" --stop-time 1 $sc --order $order \
        --output-file "$dir/one.csv" >/dev/null || { echo "single adaptive $order failed"; exit 1; }
    mpi 3 "$rtcosim" run "$ssd" --stop-time 1 $sc --order $order --distribute \
        --output-file "$dir/n3.csv" > "$dir/out" 2>&1 || {
        cat "$dir/out"; echo "adaptive np 3 $order failed"; exit 1; }
    cmp "$dir/one.csv" "$dir/n3.csv" || { echo "adaptive np 3 $order: CSV differs"; exit 1; }
    echo "step control $order np 3: identical"
done
# What the command line gives reaches the components on every rank, and the
# output interval is rank 0's alone: each option changes the single-process
# CSV (so it took effect) and the distributed one equals it.
"$rtcosim" run "$ssd" --stop-time 1 --output-file "$dir/plain.csv" >/dev/null || exit 1
for opts in "--output-interval 0.01" "--parameter-set $src/examples/oscillator/case2.ssv" \
            "--start-value mass2.k 7 --start-value mass1.m 2"; do
    for order in jacobi gauss-seidel; do
        "$rtcosim" run "$ssd" --stop-time 1 --order $order $opts --output-file "$dir/one.csv" \
            >/dev/null || { echo "single $opts failed"; exit 1; }
        cmp -s "$dir/plain.csv" "$dir/one.csv" && { echo "$opts changes nothing"; exit 1; }
        mpi 3 "$rtcosim" run "$ssd" --stop-time 1 --order $order $opts --distribute \
            --output-file "$dir/n3.csv" > "$dir/out" 2>&1 || {
            cat "$dir/out"; echo "$opts np 3 $order failed"; exit 1; }
        cmp "$dir/one.csv" "$dir/n3.csv" || { echo "$opts np 3 $order: CSV differs"; exit 1; }
    done
    echo "$opts, both orders, np 3: identical"
done
vehicle=$src/examples/vehicle/vehicle.ssd
for order in jacobi gauss-seidel; do
    "$rtcosim" run "$vehicle" --stop-time 2 --order $order --output-file "$dir/one.csv" \
        >/dev/null 2>&1 || { echo "single vehicle $order failed"; exit 1; }
    for n in 1 2 3; do
        mpi $n "$rtcosim" run "$vehicle" --stop-time 2 --order $order --distribute \
            --output-file "$dir/n$n.csv" > "$dir/out" 2>&1 || {
            cat "$dir/out"; echo "vehicle np $n $order failed"; exit 1; }
        cmp "$dir/one.csv" "$dir/n$n.csv" || { echo "vehicle np $n $order: CSV differs"; exit 1; }
        echo "multi-rate vehicle $order np $n: identical ($(wc -l < "$dir/one.csv") lines)"
    done
done
cat > "$dir/faulty.ssd" <<EOS
<?xml version="1.0"?>
<ssd:SystemStructureDescription version="1.0" name="t"
 xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
 xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
 xmlns:rc="https://rtcosim.org/SSP1/Master">
 <ssd:System name="s">
  <ssd:Elements>
   <ssd:Component name="g" source="$fmus/Dahlquist-fmi3.fmu"><ssd:Connectors>
    <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
   <ssd:Component name="f" source="$fmus/Faulty-fmi3.fmu"><ssd:Connectors>
    <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
  </ssd:Elements>
  <ssd:Annotations><ssc:Annotation type="org.rtcosim.master"><rc:Master stepSize="0.25"/></ssc:Annotation></ssd:Annotations>
 </ssd:System>
</ssd:SystemStructureDescription>
EOS
"$rtcosim" run "$dir/faulty.ssd" --stop-time 2 --output-file "$dir/f1.csv" >/dev/null 2>&1 &&
    { echo "the faulty system did not fail"; exit 1; }
# Exchanges per macro step: the summary's count for 16 steps minus that for 8.
# Multi-rate: with f stepping 4 macro steps at once, values leave a rank
# only at its communication points, every 4th step; the status of every step
# reaches every rank each step (a request to terminate ends the run on all).
sed 's|<rc:Master stepSize="0.25"/>|<rc:Master stepSize="0.25"><rc:Component name="f" stepMultiple="4"/></rc:Master>|' \
    "$dir/faulty.ssd" > "$dir/slow.ssd"
exchanges() {
    mpi 2 "$rtcosim" run "$dir/$1.ssd" --start-value f.fail_time 100 --order $2 \
        --stop-time $3 --distribute > "$dir/out" 2>&1 || { cat "$dir/out"; return 1; }
    sed -n 's/.*; \([0-9]*\) exchanges .*/\1/p' "$dir/out"
}
for order in jacobi gauss-seidel; do
    # Jacobi: one allgather per step (with f slow, only the status word
    # crosses between its points); Gauss-Seidel: each component's rank tells
    # the other rank its status, with the values rank 0 reads (f only at its
    # communication points when slow).
    [ $order = jacobi ] && counts="faulty:8 slow:8" || counts="faulty:16 slow:10"
    for system in $counts; do
        e8=$(exchanges ${system%:*} $order 2) && e16=$(exchanges ${system%:*} $order 4) ||
            { echo "$order count failed"; exit 1; }
        [ -n "$e8" ] && [ $((e16 - e8)) -eq ${system#*:} ] || {
            echo "$order ${system%:*}: $e8 exchanges for 8 steps, $e16 for 16, not ${system#*:} more"
            exit 1; }
        echo "$order ${system%:*}: ${system#*:} exchanges per 8 macro steps ($e8 for 8, $e16 for 16)"
    done
done
for order in jacobi gauss-seidel; do
    "$rtcosim" run "$dir/faulty.ssd" --stop-time 2 --order $order --output-file "$dir/f1.csv" \
        >/dev/null 2>&1 && { echo "the faulty system did not fail"; exit 1; }
    # f on rank 1 (rank 0 reads it), then on rank 0 (no other rank reads it)
    for place in "f=1" "f=0"; do
        rank=${place#f=}
        mpi 2 "$rtcosim" run "$dir/faulty.ssd" --stop-time 2 --order $order --distribute \
            --place $place --output-file "$dir/f2.csv" > "$dir/out" 2>&1 &&
            { echo "distributed faulty run did not fail"; exit 1; }
        grep -q "component 'f' on rank $rank: .*Error" "$dir/out" || {
            cat "$dir/out"; echo "$order: error does not name component f and rank $rank"; exit 1; }
        cmp "$dir/f1.csv" "$dir/f2.csv" ||
            { echo "$order, f on rank $rank: rows kept differ from one process"; exit 1; }
        echo "$order failure on rank $rank: named, $(wc -l < "$dir/f2.csv") lines kept as in one process"
    done
done
# A rank that dies: f segfaults in its step at t = 1 s on rank 1.
"$rtcosim" run "$dir/faulty.ssd" --stop-time 2 --start-value f.fail_mode 6 \
    --output-file "$dir/f1.csv" >/dev/null 2>&1 && { echo "the crashing system did not fail"; exit 1; }
mpi 2 "$rtcosim" run "$dir/faulty.ssd" --stop-time 2 --start-value f.fail_mode 6 --distribute \
    --output-file "$dir/f2.csv" > "$dir/out" 2>&1 && { echo "the crashing run did not fail"; exit 1; }
grep -q "on rank 1: component 'f' in .*crashed (SIGSEGV)" "$dir/out" || {
    cat "$dir/out"; echo "the death does not name component f and rank 1"; exit 1; }
cmp "$dir/f1.csv" "$dir/f2.csv" || { echo "rank died: rows kept differ from one process"; exit 1; }
echo "rank 1 died: named, $(wc -l < "$dir/f2.csv") lines kept as in one process"
# String connections: the master connects numeric variables only, in one
# process and over ranks alike; the distributed run refuses the system with
# the single-process line naming the connection (the project's Feedthrough
# FMU has a String output and input).
cat > "$dir/string.ssd" <<EOS
<?xml version="1.0"?>
<ssd:SystemStructureDescription version="1.0" name="t"
 xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
 xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon">
 <ssd:System name="s">
  <ssd:Elements>
   <ssd:Component name="a" source="$fmus/Feedthrough-fmi3.fmu"><ssd:Connectors>
    <ssd:Connector name="String_output" kind="output"><ssc:String/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
   <ssd:Component name="b" source="$fmus/Feedthrough-fmi3.fmu"><ssd:Connectors>
    <ssd:Connector name="String_input" kind="input"><ssc:String/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
  </ssd:Elements>
  <ssd:Connections>
   <ssd:Connection startElement="a" startConnector="String_output" endElement="b" endConnector="String_input"/>
  </ssd:Connections>
 </ssd:System>
</ssd:SystemStructureDescription>
EOS
# One process passes the String (Feedthrough: b's String_input is a's
# String_output, "" by default, the summary's last row has no String column);
# over ranks it is refused naming the connection.
"$rtcosim" run "$dir/string.ssd" --stop-time 1 --step-size 0.5 > "$dir/out" 2>&1 ||
    { cat "$dir/out"; echo "single: string system failed"; exit 1; }
line="distribute: connection a.String_output -> b.String_input: String values do not cross MPI ranks yet"
mpi 2 "$rtcosim" run "$dir/string.ssd" --stop-time 1 --step-size 0.5 --distribute > "$dir/out" 2>&1 &&
    { echo "distributed string system ran"; exit 1; }
grep -q "$line" "$dir/out" || { cat "$dir/out"; echo "np 2: no string refusal"; exit 1; }
echo "string connection runs in one process, refused over ranks"
echo "distributed master identical"
