#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, build dir build-fuzz) and
# runs each for a bounded time on its seed corpus (tests/fuzz/corpus/<target>/) plus what
# earlier runs found (build-fuzz/corpus/<target>/). Fails on any crash, hang (an input that
# takes over 30 s), leak, sanitizer report or broken promise of the target; the input that
# did it is left in build-fuzz/artifacts/<target>/ and its report in build-fuzz/<target>.log.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Defaults: 30 seconds, every target (size gpu_entry model_entry hf_config scenario trace
# calibration nccl_log explain_log),
# GPUMEM_FUZZ_JOBS (default: the number of cores) targets at a time. Prints the executions
# each target made. GPUMEM_FUZZ_SEED=N makes a run reproducible: libFuzzer's random seed is N
# and the corpus is the committed seeds alone (found inputs go to build-fuzz/seeded/<target>/,
# emptied first), so a run of S seconds repeats the first part of any longer run with the
# same seed. GPUMEM_FUZZ_RUNS=N stops each target after N executions (or the time, whichever
# comes first). CI sets both, so it runs a fixed sequence of inputs: the same settings with
# more seconds run all of it locally first (.ci/run names the command).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
(($#)) && shift
targets=("$@")
((${#targets[@]})) || targets=(size gpu_entry model_entry hf_config scenario trace calibration nccl_log explain_log launch_command)
jobs=${GPUMEM_FUZZ_JOBS:-$(nproc)}
build=build-fuzz

# -O1: libFuzzer's usual trade-off between executions per second and build time; CMake's
# Debug adds only -g for clang, so assertions stay on.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS=-O1 -DGPUMEM_FUZZ=ON -DGPUMEM_WERROR=ON -DBUILD_TESTING=OFF \
  -DGPUMEM_BUILD_BENCHMARKS=OFF -DGPUMEM_BUILD_PROBE=OFF >/dev/null
cmake --build "$build" --target "${targets[@]/#/fuzz_}"

# Runs one target; its exit status goes to $build/<target>.status.
run_target() {
  local t=$1 rc=0 found="$build/corpus/$t" seed=()
  if [[ -n ${GPUMEM_FUZZ_SEED:-} ]]; then
    found="$build/seeded/$t"
    rm -rf "$found"
    seed=(-seed="$GPUMEM_FUZZ_SEED")
  fi
  [[ -n ${GPUMEM_FUZZ_RUNS:-} ]] && seed+=(-runs="$GPUMEM_FUZZ_RUNS")
  mkdir -p "$found" "$build/artifacts/$t"
  # -rss_limit_mb also caps single allocations: a size read from the input that asks for
  # gigabytes is a bug, not something to wait for. -timeout is wall time: the slowest
  # bundled scenario takes 0.7 s of CPU here but 13 s on a machine shared with other builds,
  # so 30 s leaves room for a busy CI machine and still catches a hang.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" "${seed[@]}" \
    "$found" "tests/fuzz/corpus/$t" >"$build/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$build/$t.status"
}

for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
  run_target "$t" &
done
wait

failed=()
printf '%-12s %12s %8s %10s  %s\n' target executions seconds "exec/s" result
for t in "${targets[@]}"; do
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$t.log")
  # A run stopped by GPUMEM_FUZZ_RUNS says how long it took; one stopped by the clock took it all.
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$build/$t.log")
  took=${took:-$seconds}
  result=ok
  [[ $(cat "$build/$t.status") == 0 ]] || { result="FAILED"; failed+=("$t"); }
  printf '%-12s %12s %8s %10s  %s\n' "$t" "${execs:-?}" "$took" \
    "$([[ -n $execs ]] && echo $((execs / (took > 0 ? took : 1))) || echo ?)" "$result"
done
for t in "${failed[@]}"; do
  echo "== $t: $build/$t.log (last lines); the input is in $build/artifacts/$t/"
  tail -n 40 "$build/$t.log"
done
((${#failed[@]} == 0))
