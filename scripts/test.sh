#!/usr/bin/env bash
# Configures, builds and runs every test. Extra CMake arguments are passed through, e.g.
#   scripts/test.sh -DGPUMEM_SANITIZE=ON      (build dir: build-<hash of the arguments>)
# The tests build unoptimised (Debug): it compiles in much less time than an optimised build,
# and the results are the same bytes (no -ffast-math; -ffp-contract=off everywhere).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if (($#)); then build="build-$(printf '%s' "$*" | md5sum | cut -c1-8)"; fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug "$@" >/dev/null
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
