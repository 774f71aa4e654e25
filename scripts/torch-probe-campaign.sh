#!/usr/bin/env bash
# The torch probe's campaign on a GPU machine with PyTorch: the runner's self-test, every
# one-GPU probe scenario replayed (its ops traces exported beforehand with
# `gpumem export-ops`), the PyTorch-process facts and the allocator differential. Results
# are packed into OUT/torchprobe.tar.gz after every phase, so a run cut short still returns
# what it finished. NVLink multicast stays off in every process started here.
#
#   scripts/torch-probe-campaign.sh SRC OUT
# SRC holds run_ops.py, torch_facts.py, alloc_diff.py, selftest_ops.json, ops/<scenario>/
# ops.rank0.json and diff/ops_<config>.json; OUT receives the tarball and log.txt.
set -uo pipefail
src=$1
out=$2
work=$(mktemp -d)
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
start=$(date +%s)
log() { echo "[$(($(date +%s) - start)) s] $*" | tee -a "$out/log.txt"; }
pack() { tar -C "$work" -czf "$out/torchprobe.tar.gz" . && log "packed: $(du -sh "$out/torchprobe.tar.gz" | cut -f1)"; }

log "machine: $(nvidia-smi -L | head -1); $(python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)')"
mkdir -p "$work/selftest" "$work/replay" "$work/facts" "$work/diff"
python3 "$src/run_ops.py" "$src/selftest_ops.json" --out "$work/selftest" >>"$out/log.txt" 2>&1
log "selftest: exit $?"
pack

for dir in "$src"/ops/*/; do
  name=$(basename "$dir")
  python3 "$src/run_ops.py" "$dir/ops.rank0.json" --out "$work/replay/$name/run1" \
    >>"$out/log.txt" 2>&1
  log "replay $name: exit $?"
done
pack

python3 "$src/torch_facts.py" --out "$work/facts" >>"$out/log.txt" 2>&1
log "facts: exit $?"
pack

for ops in "$src"/diff/ops_*.json; do
  name=$(basename "$ops" .json)
  python3 "$src/alloc_diff.py" run "$ops" --out "$work/diff/${name#ops_}.json" >>"$out/log.txt" 2>&1
  log "differential $name: exit $?"
done
pack

# A second replay of every scenario, in fresh processes, while time allows.
for dir in "$src"/ops/*/; do
  (( $(date +%s) - start > 420 )) && { log "second replays: out of time"; break; }
  name=$(basename "$dir")
  python3 "$src/run_ops.py" "$dir/ops.rank0.json" --out "$work/replay/$name/run2" \
    >>"$out/log.txt" 2>&1
  log "replay $name (2): exit $?"
done
pack
