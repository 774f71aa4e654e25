#!/usr/bin/env bash
# Builds Release (build-release/, benchmarks on, no probe) and runs the speed benchmarks:
# the seed scenario simulated once, one sweep point, a whole sweep on every core, and
# `gpumem simulate` end to end; then the simulator's own benchmarks. Extra arguments go to
# Google Benchmark, e.g. scripts/bench.sh --benchmark_repetitions=3
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMEM_BUILD_BENCHMARKS=ON \
  -DGPUMEM_BUILD_PROBE=OFF >/dev/null
cmake --build "$build" --target gpumem sweep_bench runner_bench
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)"
"$build/tests/sweep/sweep_bench" "$@"
"$build/tests/sim/runner_bench" "$@"
