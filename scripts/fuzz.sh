#!/usr/bin/env bash
# Runs one fuzz target for a while: scripts/fuzz.sh NAME [SECONDS]
# (NAME is the part after fuzz_ in fuzz/fuzz_NAME.c; default 300 s).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/fuzz.sh NAME [SECONDS]}
seconds=${2:-300}
CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRTCOSIM_SANITIZE=ON -DRTCOSIM_FUZZ=ON -DRTCOSIM_TESTS=OFF >/dev/null
cmake --build build/fuzz --target "fuzz_$name"
mkdir -p "build/fuzz/fuzz/corpus-$name" # the build puts generated seeds there
seeds=()
[ -d "fuzz/seeds/$name" ] && seeds=("fuzz/seeds/$name") # else the corpus the build wrote
exec "build/fuzz/fuzz/fuzz_$name" -max_total_time="$seconds" "build/fuzz/fuzz/corpus-$name" "${seeds[@]}"
