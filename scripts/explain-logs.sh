#!/usr/bin/env bash
# Writes reports/logs.md: every real start-up log under tests/data/engine-logs/ (the cases of
# ../shared/engine-logs/dev.yaml and the public corpus collected from GitHub threads) explained
# by `gpumem explain`, logged vs predicted with the error, misses included. Each log is
# explained twice: with the values it printed pinned (the report's sections) and from
# scratch (--from-scratch: gpumem's prediction alone); the summary on top counts the logs
# that replay, fully or partially (a partial replay does the engine's budget arithmetic on
# the log's own figures where the model or the GPU is unknown), and gives, figure by figure,
# the median and largest error of each.
#
# A log with a scenario beside it (same name, .yaml: what the user would write from the post
# when the log does not name the GPU or the count) is replayed with that scenario; a log's
# "# explain-args:" comment line gives the options that fill what the log does not print
# (--gpu, --model, --gpu-count). A log's "# why:" comment lines explain its misses and are
# copied under its section.
# Usage: scripts/explain-logs.sh [path/to/gpumem]   (default build/src/cli/gpumem)
set -euo pipefail
cd "$(dirname "$0")/.."
gpumem="${1:-build/src/cli/gpumem}"
# The repository's model directory, named relatively, so that the report names its files as
# the repository does, wherever the checkout is.
export GPUMEM_MODEL_DIR=model
# Yearless log dates (vLLM's "INFO 08-20 ...") are read against this day, not the clock, so
# that the report changes only with gpumem.
export GPUMEM_TODAY=2026-12-07
out=reports/logs.md
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
index="$work/index.md"
body="$work/body.md"
errors="$work/errors.tsv"  # mode, figure, unit, error (GiB or %), one row per predicted figure
: > "$index"
: > "$body"
: > "$errors"

# The rows of an explain table ("| line | gpu | figure | logged | predicted | ... | verdict |")
# as errors: GiB figures in GiB, counts and ratios in % of the logged value. Pinned rows are
# the log's own values and are left out. A KV token count of a start-up whose KV input is
# pinned counts once more, as "pinned KV input": vLLM's KV memory, or SGLang's free memory
# after the weights with the --mem-fraction-static the log states (SGLang's default fraction
# differs between releases). The rows of a partial replay (the engine's arithmetic on the
# log's own figures) count as mode "partial", once (the from-scratch run repeats them).
table_errors() {
  local mode=$1 file=$2
  awk -F' \\| ' -v mode="$mode" '
    /^## Start-up/ { kv_pinned = 0; fraction = 0; partial = 0 }
    /^- partial replay: / { partial = 1 }
    /^- flags: / && /--mem-fraction-static/ { fraction = 1 }
    /^- pinned: / && (/kv_cache_memory/ || (/free_after_weights/ && fraction)) { kv_pinned = 1 }
    /^\| [0-9]+ \| / && NF >= 8 {
      verdict = $8; sub(/ \|$/, "", verdict)
      if (verdict == "pinned" || verdict == "not predicted") next
      if (partial && mode != "pinned") next
      row_mode = partial ? "partial" : mode
      figure = $3; logged = $4; predicted = $5
      unit = logged ~ / GiB$/ ? "GiB" : logged ~ /x$/ ? "%" : "%"
      gsub(/ GiB$|x$/, "", logged); gsub(/ GiB$|x$/, "", predicted)
      d = predicted - logged; if (d < 0) d = -d
      if (unit == "GiB") { e = d } else if (logged != 0) { e = 100 * d / (logged < 0 ? -logged : logged) } else next
      printf "%s\t%s\t%s\t%.4f\n", row_mode, figure, unit, e
      if (row_mode == "pinned" && kv_pinned &&
          (figure == "KV cache tokens" || figure == "KV tokens storable" || figure == "GPU blocks")) {
        printf "pinned KV input\tKV token counts\t%s\t%.4f\n", unit, e
      }
    }' "$file"
}

logs=0
figureless=0
replayed=0
partly=0
startups=0
startups_replayed=0
startups_partial=0
for log in tests/data/engine-logs/*.log; do
  name="$(basename "$log" .log)"
  args=("$log")
  scenario="${log%.log}.yaml"
  if [[ -f "$scenario" ]]; then args+=(--scenario "$scenario"); fi
  read -r -a extra <<< "$(sed -n 's/^# explain-args: \(.*\)   (.*/\1/p' "$log")"
  args+=("${extra[@]}")
  rc=0
  "$gpumem" explain "${args[@]}" --format markdown > "$work/pinned.md" 2>&1 || rc=$?
  scratch_rc=0
  "$gpumem" explain "${args[@]}" --from-scratch --format markdown > "$work/scratch.md" 2>&1 ||
    scratch_rc=$?
  # explain exits 0, 1 or 2; anything else (a crash, a binary replaced mid-run) must not
  # become a row of the report.
  for code in "$rc" "$scratch_rc"; do
    if ((code > 2)); then
      echo "explain-logs: gpumem explain $log exited $code" >&2
      cat "$work/pinned.md" >&2
      exit 1
    fi
  done
  table_errors pinned "$work/pinned.md" >> "$errors"
  table_errors "from scratch" "$work/scratch.md" >> "$errors"
  engine="$(sed -n '3s/ log,.*//p' "$work/pinned.md")"
  ok="$(grep -c '| ok |$' "$work/pinned.md" || true)"
  miss="$(grep -c '| MISS |$' "$work/pinned.md" || true)"
  pinned="$(grep -c '| pinned |$' "$work/pinned.md" || true)"
  unpredicted="$(grep -c '| not predicted |$' "$work/pinned.md" || true)"
  runs="$(grep -c '^## Start-up' "$work/pinned.md" || true)"
  not="$(grep -c '^- not replayed:' "$work/pinned.md" || true)"
  partial="$(grep -c '^- partial replay:' "$work/pinned.md" || true)"
  full=$((runs - not - partial))
  logs=$((logs + 1))
  if ((runs > 0)) && (($(grep -c '^The log prints no memory figure' "$work/pinned.md" || true) == runs)); then
    figureless=$((figureless + 1))
  fi
  startups=$((startups + runs))
  startups_replayed=$((startups_replayed + full))
  startups_partial=$((startups_partial + partial))
  if ((full == runs)); then
    replay="replayed"
  elif ((partial == runs)); then
    replay="partial replay"
  elif ((not == runs)); then
    replay="not replayed"
  else
    replay="$full of $runs replayed"
    if ((partial > 0)); then replay="$replay, $partial partial"; fi
  fi
  if ((full > 0)); then
    replayed=$((replayed + 1))
  elif ((partial > 0)); then
    partly=$((partly + 1))
  fi
  if [[ -f "$scenario" ]]; then replay="$replay (scenario given)"; fi
  echo "| [$name](#$name) | $engine | $replay | $rc | $ok | $miss | $pinned | $unpredicted |" >> "$index"
  {
    echo
    echo "<a id=\"$name\"></a>"
    echo
    sed -e '1s/^# gpumem explain: /## /' -e 's/^## Start-up/### Start-up/' \
      -e 's/^### Diagnosis/#### Diagnosis/' "$work/pinned.md"
    echo
    echo "Exit code $rc. Why gpumem misses or cannot replay:"
    echo
    grep '^# why: ' "$log" | sed 's/^# why: /- /' || echo "- no miss"
  } >> "$body"
done

# Median and largest error of each figure, in each mode.
stats() {
  sort -t$'\t' -k1,1 -k2,2 -k3,3 -k4,4g "$errors" | awk -F'\t' '
    function flush() {
      if (n == 0) return
      m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%s\t%s\t%s\t%d\t%.2f\t%.2f\n", key_mode, key_figure, key_unit, n, m, v[n]
    }
    {
      if ($1 != key_mode || $2 != key_figure || $3 != key_unit) {
        flush(); n = 0; key_mode = $1; key_figure = $2; key_unit = $3
      }
      v[++n] = $4
    }
    END { flush() }'
}
stats > "$work/stats.tsv"
# One row per figure: n, median and max pinned, from scratch, then in partial replays.
summary_rows() {
  awk -F'\t' '
    { key = $2 "\t" $3; seen[key] = 1; cell[key, $1] = $4 "\t" $5 "\t" $6 }
    END {
      for (k in seen) print k
    }' "$work/stats.tsv" | sort | while IFS=$'\t' read -r figure unit; do
    row="| $figure | $unit |"
    for mode in pinned "from scratch" partial; do
      line="$(awk -F'\t' -v m="$mode" -v f="$figure" -v u="$unit" \
        '$1 == m && $2 == f && $3 == u { printf "%s | %s | %s", $4, $5, $6 }' "$work/stats.tsv")"
      row="$row ${line:-0 | - | -} |"
    done
    echo "$row"
  done
}
kv_line() {
  awk -F'\t' -v m="$1" -v f="${2:-KV cache tokens}" '$1 == m && $2 == f {
      printf "%d figures, median %.2f %%, max %.2f %%", $4, $5, $6 }' "$work/stats.tsv"
}

{
  echo "# Real start-up logs explained"
  echo
  echo "Generated by \`scripts/explain-logs.sh\` from the logs in \`tests/data/engine-logs/\` (the"
  echo "public logs of \`../shared/engine-logs/dev.yaml\` and the public corpus collected from GitHub"
  echo "threads, each with its source); do not edit by hand. Each log is replayed with the values it"
  echo "printed pinned (\`pinned\`); every other figure is gpumem's prediction, judged against the"
  echo "tolerance \`gpumem explain\` states (memory: 0.10 GiB plus print rounding; tokens: what the"
  echo "rounding of the pinned KV input spans, plus one vLLM block). \`MISS\` marks a figure outside"
  echo "it; the \"why\" notes under each log explain them. Each log is also replayed from scratch"
  echo "(\`--from-scratch\`: nothing pinned), which measures gpumem alone."
  echo
  echo "## Summary"
  echo
  echo "- Logs: $logs, each printing at least one start-up memory figure or, $figureless of them, only"
  echo "  naming the model and flags (replayed from scratch where the GPU is known); $startups start-ups."
  echo "- Replayed: $replayed of $logs logs ($((100 * replayed / logs)) %), $startups_replayed of $startups start-ups;"
  echo "  every other start-up names the gap that stops it (a model or GPU the catalog lacks, mostly)."
  echo "- Partial replay (the engine's arithmetic on the log's own figures, where the full replay"
  echo "  cannot run: the budget and the KV cache memory, the concurrency from the KV tokens or"
  echo "  blocks, the utilization the CUDA-graph estimate is worth, SGLang's KV pool from F and A,"
  echo "  the CUDA total of a GPU named elsewhere): $startups_partial of $startups start-ups, in $partly logs with no full replay;"
  echo "  $((startups - startups_replayed - startups_partial)) start-ups print no figure that arithmetic can check."
  echo "- KV cache tokens, pinned replay: $(kv_line pinned)."
  echo "- KV token counts (tokens, tokens storable, blocks) of the start-ups whose KV input itself"
  echo "  is pinned (vLLM's KV memory, or SGLang's free memory after the weights with the logged"
  echo "  --mem-fraction-static): $(kv_line "pinned KV input" "KV token counts")."
  echo "- KV cache tokens, from scratch: $(kv_line "from scratch")."
  echo
  echo "Error of each predicted figure: GiB figures in GiB, counts and ratios in % of the logged"
  echo "value (pinned figures left out; n: figures compared); \`partial\`: the figures partial replays"
  echo "predict from the log's own figures."
  echo
  echo "| figure | unit | pinned n | median | max | from scratch n | median | max | partial n | median | max |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  summary_rows | grep -v '^| KV token counts |'
  echo
  echo "## Logs"
  echo
  echo "| log | engine | replay | exit | figures ok | misses | pinned | not predicted |"
  echo "|---|---|---|---:|---:|---:|---:|---:|"
  cat "$index"
  cat "$body"
} > "$out"
echo "wrote $out"
