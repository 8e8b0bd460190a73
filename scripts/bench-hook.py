#!/usr/bin/env python3
"""Wall and CPU time of `shellgate hook` against /bin/true.

Usage: scripts/bench-hook.py [-n RUNS] [--serve] BINARY [BINARY ...]

Each binary runs `hook claude-code` on a Bash `git status` event in a fresh
home's project (an allow with the full evaluation and the audit-log write)
and `hook codex` on an ungated tool (no evaluation: the process cost), with
stdin from a file; all commands are interleaved run by run so machine load
hits them alike. Wall time around posix_spawn + wait4, CPU time (user + sys,
the hook's children included) from wait4's rusage. Prints medians and p10.

A BINARY may be the hook client `shellgate-hook`. With --serve, the approval
service (`shellgate serve`, the `shellgate` next to the first BINARY) runs
for the bench's home during the runs, so the client has it evaluate the
events; without it the client runs the standalone hook.
"""
import json
import os
import subprocess
import statistics
import sys
import tempfile
import time


def main():
    args = sys.argv[1:]
    runs = 200
    serve = False
    while args and args[0] in ("-n", "--serve"):
        if args[0] == "--serve":
            serve = True
            args = args[1:]
        else:
            runs = int(args[1])
            args = args[2:]
    if not args:
        print(__doc__)
        return 2
    tmp = tempfile.mkdtemp(prefix="sg-bench-")
    home = os.path.join(tmp, "home")
    os.makedirs(os.path.join(home, "proj"))
    ev = os.path.join(tmp, "ev.json")
    with open(ev, "w") as f:
        json.dump({"session_id": "bench1", "cwd": home + "/proj", "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "git status"}}, f)
    other = os.path.join(tmp, "ev-other.json")
    with open(other, "w") as f:
        json.dump({"session_id": "bench1", "cwd": home + "/proj", "hook_event_name": "PreToolUse",
                   "tool_name": "WebSearch", "tool_input": {}}, f)
    env = dict(os.environ, HOME=home, CLAUDE_CODE_SESSION_ATTENDED="1", CLAUDE_PROJECT_DIR=home + "/proj")
    env.pop("SHELLGATE_HOME", None)
    env.pop("SHELLGATE_FAULT", None)
    service = None
    if serve:
        gate = os.path.join(os.path.dirname(os.path.abspath(args[0])), "shellgate")
        service = subprocess.Popen([gate, "serve", "--listen", "127.0.0.1:0"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sock = os.path.join(home, ".shellgate", "state", "serve.sock")
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        else:
            service.kill()
            print("the approval service did not start")
            return 1
    try:
        return run(runs, args, env, ev, other)
    finally:
        if service:
            service.terminate()
            service.wait()


def run(runs, args, env, ev, other):
    cmds = {"/bin/true": (["/bin/true"], ev)}
    for b in args:
        cmds[f"{b} (allow)"] = ([b, "hook", "claude-code"], ev)
        cmds[f"{b} (ungated)"] = ([b, "hook", "codex"], other)
    wall = {k: [] for k in cmds}
    cpu = {k: [] for k in cmds}
    devnull = os.open("/dev/null", os.O_WRONLY)
    for i in range(runs + 5):
        for k, (c, f) in cmds.items():
            fd = os.open(f, os.O_RDONLY)
            s = time.perf_counter()
            pid = os.posix_spawn(c[0], c, env, file_actions=[
                (os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2)])
            _, _, ru = os.wait4(pid, 0)
            if i >= 5:  # warm-up
                wall[k].append(time.perf_counter() - s)
                cpu[k].append(ru.ru_utime + ru.ru_stime)
            os.close(fd)

    def p10(a):
        return sorted(a)[int(0.1 * (len(a) - 1))]

    bw = statistics.median(wall["/bin/true"])
    bc = statistics.median(cpu["/bin/true"])
    print(f"{runs} interleaved runs; load average {os.getloadavg()[0]:.2f}")
    for k in cmds:
        mw, mc = statistics.median(wall[k]), statistics.median(cpu[k])
        print(f"{k}: wall {mw*1000:.2f} ms (p10 {p10(wall[k])*1000:.2f}, {mw/bw:.2f}x true), "
              f"cpu {mc*1000:.2f} ms (p10 {p10(cpu[k])*1000:.2f}, {mc/max(bc, 1e-9):.2f}x true)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
