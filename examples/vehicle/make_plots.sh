#!/bin/sh
# Runs the vehicle example and redraws the plots of its README.
# Usage: examples/vehicle/make_plots.sh [PATH/TO/rtcosim]   (default: the rtcosim on PATH, else build/cli/rtcosim)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rtcosim=${1:-$(command -v rtcosim || echo build/cli/rtcosim)}
csv=$(mktemp "${TMPDIR:-/tmp}/vehicle-XXXXXX.csv")
shift_csv=$(mktemp "${TMPDIR:-/tmp}/vehicle-shift-XXXXXX.csv")
trap 'rm -f "$csv" "$shift_csv"' EXIT
"$rtcosim" run "$here/vehicle.ssd" --output-file "$csv" --output-interval 0.05 \
  --output-variable scenario.v_set --output-variable body.speed_kmh \
  --output-variable ecu.throttle --output-variable transmission.gear \
  --output-variable engine.rpm --output-variable scenario.grade \
  --output-variable transmission.traction_force
"$rtcosim" plot "$csv" scenario.v_set body.speed_kmh --y-label "speed [km/h]" \
  --title "Cruise control: set speed step 50 -> 100 km/h, 4 % hill from 60 s to 90 s" \
  -o "$here/speed.png"
"$rtcosim" plot "$csv" ecu.throttle transmission.gear scenario.grade \
  --title "ECU throttle, engaged gear and road grade [%]" -o "$here/drivetrain.png"
# The 3 -> 2 kickdown after the set-speed step and the 2 -> 3 upshift, in
# 2 ms resolution: the rows from 10.8 s to 13 s of a run to 13 s.
"$rtcosim" run "$here/vehicle.ssd" --stop-time 13 --output-file "$shift_csv" --output-interval 0.002 \
  --output-variable transmission.traction_force --output-variable engine.rpm \
  --output-variable transmission.turbine_rpm --output-variable transmission.gear
awk -F, 'NR == 1 || $1 >= 10.8' "$shift_csv" > "$shift_csv.tmp" && mv "$shift_csv.tmp" "$shift_csv"
"$rtcosim" plot "$shift_csv" transmission.traction_force --y-label "traction force [N]" \
  --title "Traction force: 3 -> 2 kickdown, 2 -> 3 upshift" \
  -o "$here/shift_force.png"
"$rtcosim" plot "$shift_csv" engine.rpm transmission.turbine_rpm --y-label "speed [rpm]" \
  --title "Engine and turbine speed over the two shifts" \
  -o "$here/shift_speeds.png"
