#!/bin/sh
# Runs the vehicle example and redraws the plots of its README.
# Usage: examples/vehicle/make_plots.sh [PATH/TO/rtcosim]   (default: build/cli/rtcosim)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rtcosim=${1:-build/cli/rtcosim}
csv=$(mktemp "${TMPDIR:-/tmp}/vehicle-XXXXXX.csv")
trap 'rm -f "$csv"' EXIT
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
