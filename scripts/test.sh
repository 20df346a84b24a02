#!/usr/bin/env bash
# Runs the whole test suite through ctest twice: a Release build (gcc), then an
# AddressSanitizer + UndefinedBehaviorSanitizer build (clang) that also builds
# the libFuzzer targets and gives each a short bounded run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

echo "== Release build and tests"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$jobs"
ctest --test-dir build/release --output-on-failure -j "$jobs"

echo "== ASan + UBSan build and tests (with short fuzz runs)"
CC=clang CXX=clang++ cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DRTCOSIM_SANITIZE=ON -DRTCOSIM_FUZZ=ON >/dev/null
cmake --build build/sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/sanitize --output-on-failure -j "$jobs"
