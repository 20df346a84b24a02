#!/bin/sh
# Issue 27 row 17: a rank stopped with SIGSTOP in the middle of a distributed
# run (two Faulty FMUs, one per rank, H = 1 ms to t = 10000 s: minutes of
# work) no longer hangs the job: rank 0's watchdog (--step-timeout 3) ends it
# with a line naming rank 1 and its pid as stopped, within 60 s; the rows so
# far are in rank 0's CSV; nothing of the run is left in its own TMPDIR.
# usage: distribute_stopped_rank.sh MPIEXEC RTCOSIM FMU_DIR
set -u
mpiexec=$1
rtcosim=$2
fmus=$3
. "$(dirname "$0")/mpi_env.sh"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
cat > "$dir/two.ssd" <<EOS
<?xml version="1.0"?>
<ssd:SystemStructureDescription version="1.0" name="t"
 xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
 xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
 xmlns:rc="https://rtcosim.org/SSP1/Master">
 <ssd:System name="s">
  <ssd:Elements>
   <ssd:Component name="f" source="$fmus/Faulty-fmi2.fmu"><ssd:Connectors>
    <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
   <ssd:Component name="g" source="$fmus/Faulty-fmi2.fmu"><ssd:Connectors>
    <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
   </ssd:Connectors></ssd:Component>
  </ssd:Elements>
  <ssd:Annotations><ssc:Annotation type="org.rtcosim.master"><rc:Master stepSize="0.001"/></ssc:Annotation></ssd:Annotations>
 </ssd:System>
</ssd:SystemStructureDescription>
EOS
TMPDIR="$dir/tmp" mpi 2 "$rtcosim" run "$dir/two.ssd" --stop-time 10000 --distribute \
    --place f=0 --place g=1 --step-timeout 3 --start-value f.fail_time 1e9 \
    --start-value g.fail_time 1e9 --output-interval 1 --output-file "$dir/out.csv" \
    > "$dir/out.txt" 2> "$dir/err.txt" &
job=$!
# rank 1: the rtcosim process whose environment says so, once rank 0 has
# written the CSV's header (bounded at 60 s: mpirun starts slowly under load)
rank1=
for i in $(seq 1 1200); do
    for p in $(pgrep -f "rtcosim run $dir/two.ssd"); do
        # (not its directory sweeper: a child in a session of its own)
        [ "$(ps -o sid= -p "$p" | tr -d ' ')" = "$p" ] && continue
        if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1; then
            rank1=$p
        fi
    done
    [ -n "$rank1" ] && [ -s "$dir/out.csv" ] && break
    sleep 0.05
done
[ -n "$rank1" ] || { echo "FAIL: rank 1 not found"; cat "$dir/err.txt"; kill $job; exit 1; }
sleep 0.5
kill -STOP "$rank1"
start=$(date +%s)
wait $job
status=$?
took=$(( $(date +%s) - start ))
kill -KILL "$rank1" 2>/dev/null
if [ "$status" = 0 ] || [ "$took" -gt 60 ] ||
   ! grep -q "rank 1 (pid $rank1) is stopped" "$dir/err.txt"; then
    echo "FAIL: exit $status after $took s"; cat "$dir/err.txt"; exit 1
fi
lines=$(wc -l < "$dir/out.csv")
[ "$lines" -ge 2 ] || { echo "FAIL: $lines lines in the CSV"; exit 1; }
# row 16: each rank's extraction directories removed by the job's own sweepers
for i in $(seq 1 100); do
    [ -z "$(ls "$dir/tmp")" ] && break
    sleep 0.1
done
[ -z "$(ls "$dir/tmp")" ] || { echo "FAIL: left in TMPDIR: $(ls "$dir/tmp" | tr '\n' ' ')"; exit 1; }
echo "stopped rank named: exit $status after $took s, $lines CSV lines"
