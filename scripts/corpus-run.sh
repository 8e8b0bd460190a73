#!/usr/bin/env bash
# Run every command of the vendored corpora through `shellgate check --batch`
# and fail unless each line produced one JSON object (no panic, no gap).
# Usage: scripts/corpus-run.sh [path/to/shellgate]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/shellgate}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home/proj"
cat corpora/nl2bash.cmds corpora/tldr.cmds > "$tmp/all.cmds"
total=$(wc -l < "$tmp/all.cmds")
HOME="$tmp/home" SHELLGATE_HOME="$tmp/home/.shellgate" \
  "$bin" check --batch "$tmp/all.cmds" --cwd "$tmp/home/proj" --project-dir "$tmp/home/proj" --session corpus \
  > "$tmp/out.jsonl"
python3 - "$tmp/out.jsonl" "$total" <<'PY'
import collections, json, sys
path, total = sys.argv[1], int(sys.argv[2])
lines = open(path, encoding="utf-8").read().splitlines()
bad = 0
decisions = collections.Counter()
reasons = collections.Counter()
complex_n = 0
for l in lines:
    try:
        d = json.loads(l)
    except ValueError:
        bad += 1
        continue
    decisions[f"{d['decision']} {d['reason']}"] += 1
    if d.get("complex"):
        complex_n += 1
        for r in d.get("complex_reasons", []):
            reasons[r.split(":")[0] if not r.startswith("control_flow") else r] += 1
print(f"corpus: {len(lines)} results for {total} commands, {bad} non-JSON, {complex_n} complex")
for k, v in decisions.most_common():
    print(f"  decision {k}: {v}")
for k, v in reasons.most_common(12):
    print(f"  complex reason {k}: {v}")
ok = len(lines) == total and bad == 0
print(f"{len(lines) if ok else 0} passed, {0 if ok else 1} failed")
sys.exit(0 if ok else 1)
PY
