#!/usr/bin/env bash
# Run every fuzz target for N seconds (default 60) on this stable toolchain
# (RUSTC_BOOTSTRAP=1, no sanitizer). A crash or a unit slower than 5 s
# (15 s for the store target, which does file I/O) fails.
# Seeds: a sample of the vendored corpora for the command targets.
# Usage: scripts/fuzz.sh [seconds] [target…]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(analyze decide store policy_toml hooks)
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
python3 - "$seeds" <<'PY'
import os, random, sys
root = sys.argv[1]
lines = []
for f in ("../corpora/nl2bash.cmds", "../corpora/tldr.cmds"):
    lines += open(f, encoding="utf-8").read().splitlines()
random.seed(7)
for t in ("analyze", "decide"):
    os.makedirs(f"{root}/{t}", exist_ok=True)
    for i, l in enumerate(random.sample(lines, 300)):
        open(f"{root}/{t}/s{i}", "w", encoding="utf-8").write(l)
os.makedirs(f"{root}/store", exist_ok=True)
open(f"{root}/store/s0", "w").write('// c\n{"version": 2, "audiences": {"personal": {"shell_execute": [{"verb": "git status", "directory": null,}, {"verb": "x", "directory": "~/r"}]}}}')
os.makedirs(f"{root}/hooks", exist_ok=True)
open(f"{root}/hooks/s0", "w").write('{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status && rm -rf build"},"cwd":"/tmp"}')
open(f"{root}/hooks/s1", "w").write('{"session_id":"s1","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"sub"},"cwd":"/tmp"}')
open(f"{root}/hooks/s2", "w").write('{"session_id":"s1","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\\n*** Add File: a.txt\\n+x\\n*** End Patch"},"cwd":"/tmp"}')
os.makedirs(f"{root}/policy_toml", exist_ok=True)
open(f"{root}/policy_toml/s0", "w").write('[audiences.personal]\ndefault_mode = "auto"\n[[hard_deny]]\nverb = "docker rm"\nreason = "x"\n')
PY
for t in "${targets[@]}"; do
  # A unit slower than this fails (a hang in a gate is a failure); the store
  # target does real file I/O (fsync, rename), so it gets more room.
  limit=5
  [ "$t" = store ] && limit=15
  echo "fuzz: $t for ${secs}s (unit limit ${limit}s)"
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" -s none "$seeds/$t" -- \
    -max_total_time="$secs" -timeout="$limit" -max_len=4096 -print_final_stats=1 2>&1 | tail -n 3
done
echo "fuzz: no crash in ${#targets[@]} target(s)"
