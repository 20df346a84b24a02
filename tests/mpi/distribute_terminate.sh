#!/bin/sh
# A component that asks to end the run over MPI ranks ends it as in one
# process: the project's Faulty FMU (FMI 2.0 and 3.0) discards its step at
# t = 1 s asking to terminate (fail_mode 3: fmi2Discard + fmi2Terminated /
# fmi3Discard + terminateSimulation). Its value feeds a Feedthrough FMU and a
# Dahlquist FMU runs beside them. For Jacobi and Gauss-Seidel on 1, 2 and 3
# ranks (and with f on rank 0, which then reads it alone), rank 0's CSV is
# byte for byte the single-process one, the exit status is the same (0) and
# so is the summary (steps, the line that says who ended the run, the final
# values). Multi-rate too: f stepping 4
# macro steps at once discards at the start of its step, a tick in which no
# value crosses ranks (the status still does); a failing step there fails
# the run in that tick too.
# usage: distribute_terminate.sh MPIEXEC RTCOSIM FMU_DIR
set -u
mpiexec=$1
rtcosim=$2
fmus=$3
. "$(dirname "$0")/mpi_env.sh"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
system() { # $1: FMI version, $2: f's step multiple
    cat <<EOS
<?xml version="1.0"?>
<ssd:SystemStructureDescription version="1.0" name="t"
 xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
 xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
 xmlns:rc="https://rtcosim.org/SSP1/Master">
 <ssd:System name="s">
  <ssd:Elements>
   <ssd:Component name="f" source="$fmus/Faulty-fmi$1.fmu"><ssd:Connectors>
    <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
   <ssd:Component name="p" source="$fmus/Feedthrough-fmi$1.fmu"><ssd:Connectors>
    <ssd:Connector name="Float64_continuous_input" kind="input"><ssc:Real/></ssd:Connector>
    <ssd:Connector name="Float64_continuous_output" kind="output"><ssc:Real/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
   <ssd:Component name="g" source="$fmus/Dahlquist-fmi$1.fmu"><ssd:Connectors>
    <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
  </ssd:Elements>
  <ssd:Connections>
   <ssd:Connection startElement="f" startConnector="x" endElement="p" endConnector="Float64_continuous_input"/>
  </ssd:Connections>
  <ssd:Annotations><ssc:Annotation type="org.rtcosim.master"><rc:Master stepSize="0.25"><rc:Component name="f" stepMultiple="$2"/></rc:Master></ssc:Annotation></ssd:Annotations>
 </ssd:System>
</ssd:SystemStructureDescription>
EOS
}
# run NAME NP [ARGS]: the exit status, the summary (steps, who ended the
# run, the final values; not the wall time, nor the placement) and the
# messages (the FMU's log) into NAME.end
run() {
    name=$1 n=$2; shift 2
    if [ "$n" = 0 ]; then
        "$rtcosim" run "$@" --stop-time 2 --start-value f.fail_mode ${mode:-3} \
            --output-file "$dir/$name.csv" > "$dir/$name.out" 2> "$dir/$name.err"
    else
        mpi "$n" "$rtcosim" run "$@" --stop-time 2 --start-value f.fail_mode ${mode:-3} --distribute \
            --output-file "$dir/$name.csv" > "$dir/$name.out" 2> "$dir/$name.err"
    fi
    echo "exit $?" > "$dir/$name.end"
    grep -v "^distributed over" "$dir/$name.out" | sed "s/, [0-9.]* s wall.*//; s/ to .*\.csv//" \
        >> "$dir/$name.end"
    sort "$dir/$name.err" >> "$dir/$name.end" # the ranks' lines in any order
}
for case in 3:1 2:1 3:4; do
    fmi=${case%:*} multiple=${case#*:}
    system $fmi $multiple > "$dir/t.ssd"
    for order in jacobi gauss-seidel; do
        run one 0 "$dir/t.ssd" --order $order
        grep -q "^exit 0" "$dir/one.end" && grep -q "^ended at 1 s, .*component 'f' asked to terminate after discarding" \
            "$dir/one.end" || { cat "$dir/one.out"; echo "single $order did not end on f's request"; exit 1; }
        lines=$(wc -l < "$dir/one.csv")
        [ "$lines" -gt 2 ] && [ "$lines" -lt 9 ] || { echo "single run wrote $lines lines"; exit 1; }
        for np in 1 2 3 2:f=0; do
            n=${np%%:*} place=
            [ "$np" = "${np#*:}" ] || place="--place ${np#*:}"
            run dist "$n" "$dir/t.ssd" --order $order $place
            cmp "$dir/one.csv" "$dir/dist.csv" || {
                cat "$dir/dist.out"; echo "FMI $fmi x$multiple $order np $np: CSV differs"; exit 1; }
            cmp "$dir/one.end" "$dir/dist.end" || { cat "$dir/one.end" "$dir/dist.end"
                echo "FMI $fmi x$multiple $order np $np: exit or message differs"; exit 1; }
        done
        echo "FMI $fmi f x$multiple $order: identical on 1-3 ranks ($lines lines, $(grep "^ended" "$dir/one.end"))"
    done
done
# A failing step (fail_mode 1, Error) at the start of f's 4-step window on
# rank 1, a tick where no value crosses: the run fails in that tick, as in
# one process, with the rows so far (the status of every step goes every tick).
system 3 4 > "$dir/t.ssd"
for order in jacobi gauss-seidel; do
    mode=1 run one 0 "$dir/t.ssd" --order $order
    mode=1 run dist 2 "$dir/t.ssd" --order $order --place f=1 --place p=0 --place g=0
    grep -q "^exit 1" "$dir/one.end" && grep -q "^exit 1" "$dir/dist.end" || {
        cat "$dir/one.end" "$dir/dist.end"; echo "$order: the failing step did not fail"; exit 1; }
    grep -q "at t = 1 s: component 'f' on rank 1: .*Error" "$dir/dist.err" || {
        cat "$dir/dist.err"; echo "$order: the failure does not name f, rank 1 and t = 1 s"; exit 1; }
    cmp "$dir/one.csv" "$dir/dist.csv" || { echo "$order: rows kept differ from one process"; exit 1; }
    echo "f x4 failing on rank 1, $order: failed at t = 1 s as in one process"
done
echo "distributed termination identical"
