#!/usr/bin/env bash
# Usage: installed_examples.sh BUILD_DIR FIRMWARE_BUILT(ON|OFF) PYTHON
# Installs BUILD_DIR into a fresh temporary prefix and runs every installed
# example there, from a scratch directory outside the source tree, checking
# what each one writes. Removes everything it made.
set -euo pipefail
build=$1 firmware=$2 python=${3:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtcosim-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
mkdir "$tmp/work" && cd "$tmp/work"
rtcosim=$prefix/bin/rtcosim
ex=$prefix/share/rtcosim/examples
fail() { echo "FAIL: $*" >&2; exit 1; }
rows() { tail -n +2 "$1" | wc -l; }

# Nothing may come from the source tree: its examples folder must not be read.
for f in oscillator/oscillator.ssd oscillator/case1.ssv vehicle/vehicle.ssd vehicle/vehicle.ssv \
         ecus/vehicle.dbc firmware/engine_loop.ssd; do
  [ -f "$ex/$f" ] || fail "not installed: share/rtcosim/examples/$f"
done

# Oscillator with a parameter set: 1 s at 1 ms, one row per step.
"$rtcosim" run "$ex/oscillator/oscillator.ssd" --parameter-set "$ex/oscillator/case1.ssv" \
  --stop-time 1 --step-size 1e-3 -o osc.csv >osc.out
[ "$(rows osc.csv)" = 1001 ] || fail "oscillator: $(rows osc.csv) rows, expected 1001"

# Vehicle: no warnings on stderr; then real time on a virtual clock with a late transmission.
"$rtcosim" run "$ex/vehicle/vehicle.ssd" --stop-time 2 -o vehicle.csv >vehicle.out 2>vehicle.err
[ ! -s vehicle.err ] || fail "vehicle printed on stderr: $(cat vehicle.err)"
grep -q "^wrote 2001 rows" vehicle.out || fail "vehicle: $(cat vehicle.out)"
"$rtcosim" run "$ex/vehicle/vehicle.ssd" --real-time --virtual-clock --stop-time 1 \
  --non-realtime transmission --inject-delay transmission:mean=0.4,late=0.02,min=2,max=5,seed=1 \
  -o vehicle_rt.csv >vehicle_rt.out
grep -q "real-time run: 1000 frames" vehicle_rt.out || fail "vehicle real time: $(cat vehicle_rt.out)"

# CAN: a bus log decoded with the installed DBC (EngineSpeed is 0.25 rpm steps).
"$rtcosim" events --ecus 4 --stop-time 1 --can-log can.log >events.out
"$rtcosim" can decode can.log --dbc "$ex/ecus/vehicle.dbc" --relative-time \
  --signal EngineSpeed -o can.csv
head -1 can.csv | grep -q '"time",".*EngineData.EngineSpeed"' || fail "can decode: $(head -2 can.csv)"
[ "$(sed -n 2p can.csv | cut -d, -f1)" = 0 ] || fail "can decode: first time not 0: $(sed -n 2p can.csv)"

# Firmware: the installed ELF on the emulated core, by name and as the SSP
# component's default (no "firmware" parameter in engine_loop.ssd).
if [ "$firmware" = ON ]; then
  [ -f "$ex/firmware/engine.elf" ] || fail "not installed: engine.elf"
  "$rtcosim" events --firmware "engine=$ex/firmware/engine.elf" --stop-time 1 >fw_events.out
  "$rtcosim" run "$ex/firmware/engine_loop.ssd" --stop-time 0.5 -o engine_loop.csv >engine_loop.out
  grep -q "^wrote" engine_loop.out || fail "engine_loop: $(cat engine_loop.out)"
fi

# Python: the installed package with its installed library, the example
# finding its system and parameter set in the installation.
py() {  # the installed package's Python, with a sanitizer runtime first when the build has one
  if [ -n "${RTCOSIM_PYTHON_PRELOAD:-}" ]; then
    LD_PRELOAD=$RTCOSIM_PYTHON_PRELOAD ASAN_OPTIONS=detect_leaks=0 PYTHONPATH=$site "$python" "$@"
  else
    PYTHONPATH=$site "$python" "$@"
  fi
}
if [ -x "$python" ] && "$python" -c "import numpy" 2>/dev/null; then
  site=$(find "$prefix" -type d -name dist-packages | head -1)
  [ -n "$site" ] || fail "the Python package is not installed"
  py -c "
import os, sys, rtcosim, rtcosim._config as c
sys.exit(0 if rtcosim.__file__.startswith('$prefix') and c.LIBRARY.startswith('$prefix')
         and os.path.exists(c.LIBRARY) else 1)" \
    || fail "python: the package or its library is not the installed one"
  MPLBACKEND=Agg py "$prefix/share/rtcosim/python-examples/oscillator.py" \
    --stop 0.5 --plot osc.png >python.out
  grep -q "correction energy" python.out || fail "python example: $(cat python.out)"
fi
echo "installed examples ran from $prefix"
