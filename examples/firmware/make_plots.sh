#!/bin/sh
# Runs the engine firmware loop (engine_loop.ssd) and redraws the plots of
# this folder's README.
# Usage: examples/firmware/make_plots.sh [PATH/TO/rtcosim]   (default: the rtcosim on PATH, else build/cli/rtcosim)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rtcosim=${1:-$(command -v rtcosim || echo build/cli/rtcosim)}
csv=$(mktemp "${TMPDIR:-/tmp}/engine-loop-XXXXXX.csv")
trap 'rm -f "$csv"' EXIT
"$rtcosim" run "$here/engine_loop.ssd" --output-file "$csv" --output-interval 0.005 \
  --output-variable engine.w --output-variable ecu.pwm0 --output-variable ecu.load
"$rtcosim" plot "$csv" engine.w --y-label "engine speed [rad/s]" \
  --title "Firmware governor: 800 rpm, 3000 rpm (314 rad/s) at 1 s, 1800 at 6 s" \
  -o "$here/engine_speed.png"
"$rtcosim" plot "$csv" ecu.pwm0 --y-label "throttle (PWM 0 duty)" \
  --title "Throttle commanded by the firmware (steady state at 3000 rpm: 0.1828)" \
  -o "$here/engine_throttle.png"
