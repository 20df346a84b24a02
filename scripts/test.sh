#!/usr/bin/env bash
# Runs the whole test suite through ctest twice: a Release build (gcc), then an
# AddressSanitizer + UndefinedBehaviorSanitizer build (clang) that also builds
# the libFuzzer targets and gives each a short bounded run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Tests write only under temporary directories they remove. The tree's state
# (untracked and modified files, with the content of modified tracked files)
# is taken before the tests and compared after them: anything the tests left
# or changed fails the run, named. On CI's clean checkout that is any dirt.
tree_state() {
  git status --porcelain=v1 --untracked-files=all
  git diff HEAD --no-ext-diff 2>/dev/null | sha256sum
}
state_before=$(tree_state)
check_tree() {
  local after changed
  after=$(tree_state)
  [[ "$after" == "$state_before" ]] && return 0
  changed=$(comm -13 <(echo "$state_before" | sort) <(echo "$after" | sort) | grep -v '  -$' || true)
  echo "rtcosim test.sh: the tests left the source tree dirty (tests must write only under" >&2
  echo "a temporary directory they remove); new or changed since the tests started:" >&2
  echo "${changed:-(the content of modified tracked files)}" | sed 's/^/  /' >&2
  exit 1
}

echo "== Release build and tests"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$jobs"
ctest --test-dir build/release --output-on-failure -j "$jobs"
check_tree

echo "== ASan + UBSan build and tests (with short fuzz runs)"
CC=clang CXX=clang++ cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DRTCOSIM_SANITIZE=ON -DRTCOSIM_FUZZ=ON >/dev/null
cmake --build build/sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/sanitize --output-on-failure -j "$jobs"
check_tree
