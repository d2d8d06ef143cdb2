"""Turns the runs of one case into a fixture ../<case>.json (see record.sh)."""
import json
import re
import sys

out_dir, name, model, settings, env, pred, *runs = sys.argv[1:]
trials = []
request = None
for run in runs:
    with open(f"{run}/probe.log") as f:
        first = json.loads(f.readline())  # after turn 1: what `limits` would receive
    with open(f"{run}/stdout") as f:
        compacted = '"status":"compacting"' in f.read()
    with open(f"{run}/script.json") as f:
        tokens = int(re.search(r'"input_tokens":(\d+)', f.read()).group(1))
    trials.append({"first_reply_input_tokens": tokens, "auto_compacted_next_turn": compacted})
    if request is None:
        usage = first["usage"]
        usage["context"].get("breakdown", {}).pop("gridRows", None)  # the /context grid: bulky, unread
        request = {"usage": usage, "settings": first["settings"], "env": first["env"],
                   "model": first["model"], "cap": None}
breakdown = request["usage"]["context"].get("breakdown", {})
args = "" if model == "-" else f" -- --model {model}"
fixture = {
    "case": name,
    "claude_code": "2.1.319",
    "produced_by": (
        "thresholds/tests/data/engine/recorder/record.sh " + name + ": the real Claude Code 2.1.319 "
        "(scripts/get-claude) driven offline by /work/shared/claude-harness/run_claude.sh --mode "
        "stream-json SCRIPT recorder/limits-probe @PROMPTS" + args + ", with user settings.json "
        + json.dumps(settings) + " and extra env " + json.dumps(env) + "; two turns, the first "
        "reply reporting first_reply_input_tokens. `limits_request` is what the limits-probe mod "
        "recorded after the first turn of the first trial (usage minus breakdown.gridRows)."
    ),
    "limits_request": request,
    "engine": {
        "reported_threshold": breakdown.get("autoCompactThreshold"),
        "autocompact_source": breakdown.get("autocompactSource"),
        "auto_compact_enabled": breakdown.get("isAutoCompactEnabled"),
        "raw_max_tokens": breakdown.get("rawMaxTokens"),
        "trials": trials,
    },
}
with open(f"{out_dir}/{name}.json", "w") as f:
    json.dump(fixture, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{name}: {trials}")
