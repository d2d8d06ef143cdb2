#!/usr/bin/env bash
# Records the real-engine fixtures in ../ (one JSON per line of cases.txt).
#   usage: record.sh [CASE_NAME...]     (default: every case)
#   HARNESS     the offline Claude Code harness (default /work/shared/claude-harness)
#   CLAUDE_BIN  Claude Code 2.1.319 (default: scripts/get-claude)
#   RUNS        scratch folder for the runs (default /tmp/notesoup-thresholds-runs)
# For each case, two stream-json sessions of two turns against the harness's fake API: the
# first reply reports `predicted` input tokens, then `predicted - 100`. The limits-probe mod
# records what `limits` receives after each turn; the second turn shows whether the engine
# auto-compacted ("status":"compacting" on stdout). Cases marked off: run once.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../../../.." && pwd)"
HARNESS="${HARNESS:-/work/shared/claude-harness}"
CLAUDE_BIN="${CLAUDE_BIN:-$("$ROOT/scripts/get-claude")}"
RUNS="${RUNS:-/tmp/notesoup-thresholds-runs}"
export CLAUDE_BIN

run() { # NAME MODEL SETTINGS ENV INPUT -> prints the run dir
  local name="$1" model="$2" settings="$3" env="$4" input="$5" run="$RUNS/$1"
  rm -rf "$run"; mkdir -p "$run/home/.claude"
  [ "$settings" != "-" ] && printf '%s\n' "$settings" > "$run/home/.claude/settings.json"
  cat > "$run/script.json" <<JSON
{"rules":[{"match":{"any_contains":"Your task is to create a detailed summary"},
  "response":{"text":"<analysis>fake</analysis>\n<summary>\n1. Primary Request: hello.\n</summary>"}}],
 "responses":[{"text":"First answer.","usage":{"input_tokens":$input,"output_tokens":0}},
              {"text":"Second answer."}],
 "fallback":{"text":"(fallback {{n}})"}}
JSON
  printf 'Say hello.\nSay hello again.\n' > "$run/prompts"
  local args=()
  [ "$model" != "-" ] && args+=(--model "$model")
  CLAUDE_EXTRA_ENV="$env" timeout 90 "$HARNESS/run_claude.sh" --mode stream-json \
    --run-dir "$run" --timeout 60 --no-debug "$run/script.json" "$HERE/limits-probe" \
    "@$run/prompts" -- "${args[@]}" 2>"$run/runner.err" >/dev/null || true
  echo "$run"
}

grep -v '^#' "$HERE/cases.txt" | while IFS='|' read -r name model settings env pred; do
  [ -z "$name" ] && continue
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  runs=()
  if [ "${pred#off:}" != "$pred" ]; then
    runs+=("$(run "$name--a" "$model" "$settings" "$env" "${pred#off:}")")
  else
    runs+=("$(run "$name--a" "$model" "$settings" "$env" "$pred")")
    runs+=("$(run "$name--b" "$model" "$settings" "$env" "$((${pred#off:} - 100))")")
  fi
  python3 "$HERE/assemble.py" "$HERE/.." "$name" "$model" "$settings" "$env" "$pred" "${runs[@]}"
done
