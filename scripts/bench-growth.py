#!/usr/bin/env python3
"""Hook latency and gate-home size after many hook calls on one home.

Usage: scripts/bench-growth.py [-n CALLS] [-r RUNS] BINARY [BINARY ...]

For each binary: a fresh home gets CALLS hook calls (`hook claude-code`, a
Bash `git status` event: an allow with the audit-log write), one process
each. Then RUNS more calls on that grown home are interleaved with RUNS
calls on a second, fresh home (one call made first so its session exists)
and the medians compared. Prints the grown home's size (du -sk of the gate
home) and the size of every file under state/.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def make_home(root, name):
    home = os.path.join(root, name)
    os.makedirs(os.path.join(home, "proj"))
    ev = os.path.join(root, name + ".json")
    with open(ev, "w") as f:
        json.dump({"session_id": "growth1", "cwd": home + "/proj", "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "git status"}}, f)
    env = dict(os.environ, HOME=home, CLAUDE_CODE_SESSION_ATTENDED="1", CLAUDE_PROJECT_DIR=home + "/proj")
    env.pop("SHELLGATE_HOME", None)
    env.pop("SHELLGATE_FAULT", None)
    return home, ev, env


def call(binary, ev, env, devnull):
    fd = os.open(ev, os.O_RDONLY)
    s = time.perf_counter()
    pid = os.posix_spawn(binary, [binary, "hook", "claude-code"], env, file_actions=[
        (os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, _ = os.wait4(pid, 0)
    t = time.perf_counter() - s
    os.close(fd)
    if status != 0:
        raise SystemExit(f"{binary}: hook exited with status {status}")
    return t


def main():
    args = sys.argv[1:]
    calls, runs = 3000, 200
    while len(args) >= 2 and args[0] in ("-n", "-r"):
        if args[0] == "-n":
            calls = int(args[1])
        else:
            runs = int(args[1])
        args = args[2:]
    if not args:
        print(__doc__)
        return 2
    devnull = os.open("/dev/null", os.O_WRONLY)
    for b in args:
        root = tempfile.mkdtemp(prefix="sg-growth-")
        grown, gev, genv = make_home(root, "grown")
        fresh, fev, fenv = make_home(root, "fresh")
        s = time.perf_counter()
        first = [call(b, gev, genv, devnull) for _ in range(calls)]
        fill = time.perf_counter() - s
        call(b, fev, fenv, devnull)
        tg, tf = [], []
        for _ in range(runs):
            tg.append(call(b, gev, genv, devnull))
            tf.append(call(b, fev, fenv, devnull))
        gate = os.path.join(grown, ".shellgate")
        du = subprocess.run(["du", "-sk", gate], capture_output=True, text=True).stdout.split()[0]
        mg, mf = statistics.median(tg), statistics.median(tf)
        print(f"{b}")
        print(f"  {calls} calls on one home: {fill:.1f} s; first 100 median "
              f"{statistics.median(first[:100]) * 1e3:.2f} ms, last 100 median "
              f"{statistics.median(first[-100:]) * 1e3:.2f} ms")
        print(f"  then {runs} interleaved pairs: grown home median {mg * 1e3:.2f} ms, "
              f"fresh home median {mf * 1e3:.2f} ms, ratio {mg / mf:.2f}")
        print(f"  gate home after {calls + runs} calls: {int(du) / 1024:.2f} MiB (du -sk {du})")
        state = os.path.join(gate, "state")
        for n in sorted(os.listdir(state)):
            p = os.path.join(state, n)
            if os.path.isfile(p):
                print(f"    state/{n}: {os.path.getsize(p)} bytes")
        subprocess.run(["rm", "-rf", root])
    return 0


if __name__ == "__main__":
    sys.exit(main())
