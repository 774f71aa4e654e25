#!/usr/bin/env bash
# Configures, builds and runs every test in ./build-test: unoptimised (Debug), with warnings
# as errors, under AddressSanitizer and UndefinedBehaviorSanitizer. One build serves both the
# tests and the sanitizers (CI's largest cost was building everything twice); Debug compiles
# in much less time than an optimised build, and the results are the same bytes (no
# -ffast-math; -ffp-contract=off everywhere). Extra CMake arguments are passed through, e.g.
#   scripts/test.sh -DGPUMEM_SANITIZE=OFF      (build dir: build-test-<hash of the arguments>)
# scripts/build.sh builds ./build for use (and the probe to run on a GPU machine).
# Debug info is -g1 (functions and line tables, no local variables): sanitizer reports keep
# their file:line stack traces, and a clean build plus ctest takes 25m37s instead of 31m55s
# with -g on a 2-core machine (one CLI translation unit: 34 s instead of 45 s).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-test
if (($#)); then build="build-test-$(printf '%s' "$*" | md5sum | cut -c1-8)"; fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUMEM_WERROR=ON -DGPUMEM_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_DEBUG=-g1 "$@" >/dev/null
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
