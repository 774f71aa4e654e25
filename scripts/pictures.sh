#!/usr/bin/env bash
# Draws the pictures the README shows, with the tool itself: the seed scenario's memory map,
# and a probe run's predicted-vs-measured timeline to open in Perfetto UI
# (https://ui.perfetto.dev) or chrome://tracing. Run after scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
gpumem=${GPUMEM:-build/src/cli/gpumem}
mkdir -p reports/pictures
# Exit code 1 means "does not fit", which is what the seed's picture shows.
"$gpumem" plot scenarios/seed-kimi-k2-pcie8-mfs055.yaml -o reports/pictures/seed-kimi-k2-pcie8-mfs055.png || [[ $? -eq 1 ]]
"$gpumem" plot scenarios/h200x2-llama-3.1-8b-tp2.yaml -o reports/pictures/h200x2-llama-3.1-8b-tp2.svg
"$gpumem" check --trace reports/probe/h200x2/h200x2-llama8b-tp2/run1 \
  --timeline reports/pictures/h200x2-llama8b-tp2-run1.trace.json >/dev/null
ls -l reports/pictures
