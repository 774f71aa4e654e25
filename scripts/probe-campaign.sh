#!/usr/bin/env bash
# Runs the probe on a GPU machine: the self-test, then every probe scenario (scenarios/probe)
# that fits the machine's GPUs, each REPEAT times, and packs the traces into one archive.
#
#   scripts/probe-campaign.sh DIST_DIR OUT_DIR [SECONDS] [REPEAT] [PATTERN...]
#
# DIST_DIR holds gpumem-probe and the shared libraries it needs besides the driver and NCCL
# (see src/probe/README.md). Traces are written under a scratch directory as
# <gpu>x<N>/<scenario>/run<K>/ (the scenario name's prefix: h200x2, h100x1), logs next to
# them; OUT_DIR receives only probe.tgz (all of it) and campaign.txt (one line per run). Scenarios of one GPU run with
# CUDA_VISIBLE_DEVICES=0, so a two-GPU machine yields the one-GPU traces too. No new run
# starts after SECONDS (default 480). PATTERNs are scenario name globs (default: all). Every
# failure is logged and the campaign goes on. Call it once per device call: the device tool
# returns at most 8 files, and this writes 2.
set -u
dist=$(cd "$1" && pwd)
final=$2
out=$(mktemp -d)
budget=${3:-480}
repeat=${4:-1}
shift $(($# < 4 ? $# : 4))
patterns=("$@")
((${#patterns[@]})) || patterns=("*")
start=$SECONDS
mkdir -p "$out"
export LD_LIBRARY_PATH=$dist${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
probe() { src/probe/run-on-gpu.sh "$dist/gpumem-probe" "$@"; }

nvidia-smi > "$out/nvidia-smi.txt" 2>&1
nvidia-smi topo -m > "$out/topology.txt" 2>&1
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
echo "gpus=$gpus" > "$out/campaign.txt"

timeout 120 bash -c "$(declare -f probe); dist=$dist; probe selftest --out '$out/selftest' --timeout 60" \
  > "$out/selftest.log" 2>&1
echo "selftest exit=$?" >> "$out/campaign.txt"

files=()
for p in "${patterns[@]}"; do files+=(scenarios/probe/$p.yaml); done
for k in $(seq 1 "$repeat"); do
  for f in "${files[@]}"; do
    if ((SECONDS - start > budget)); then
      echo "budget spent: $f run$k not started" >> "$out/campaign.txt"
      continue
    fi
    name=$(basename "$f" .yaml)
    n=$(awk '/^  count:/ {print $2; exit}' "$f")
    ((n <= gpus)) || { echo "$name: needs $n GPUs" >> "$out/campaign.txt"; continue; }
    dir=$out/${name%%-*}/$name/run$k
    mkdir -p "$dir"
    cp "$f" "$dir/scenario.yaml"
    devices=$(seq -s, 0 $((n - 1)))
    t0=$SECONDS
    CUDA_VISIBLE_DEVICES=$devices timeout 240 \
      bash -c "$(declare -f probe); dist=$dist; probe run '$f' --out '$dir' --model-dir model --timeout 90" \
      > "$dir/probe.log" 2>&1
    echo "$name run$k exit=$? seconds=$((SECONDS - t0))" >> "$out/campaign.txt"
  done
done
mkdir -p "$final"
tar czf "$final/probe.tgz" -C "$out" .
cp "$out/campaign.txt" "$final/campaign.txt"
cat "$out/campaign.txt"
