#!/usr/bin/env bash
# Installs the Debian 12 packages rtcosim needs to build, test and run.
# Run as root on a fresh machine; safe to run again.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
  libxml2-dev libzip-dev zlib1g-dev zip unzip
  libcmocka-dev libdouble-conversion-dev libfast-float-dev libfmt-dev libmatio-dev libpng-dev
  libsundials-dev libplplot-dev plplot-driver-cairo
  libopenmpi-dev openmpi-bin
  python3-numpy python3-pytest python3-can python3-canmatrix python3-scipy python3-matplotlib
  libunicorn-dev libelf-dev gcc-arm-none-eabi picolibc-arm-none-eabi
  qemu-system-arm
  rt-tests
  libcivetweb-dev chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
