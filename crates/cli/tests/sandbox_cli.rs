//! `shellgate sandbox`, and the sandboxed allow end to end (SPEC §18):
//! `check --json` carrying the wrapped command, `exec` running it under the
//! real sandbox, a failed sandboxed run asking next time, and the Claude Code
//! hook answering with `updatedInput` (Gemini keeps asking). Real processes
//! in a scratch tree; `TMPDIR` points into the tree so that "outside" is
//! outside every writable root.
//!
//! When the kernel cannot confine, the tests that need the sandbox print
//! "SKIPPED: …" and return; with `SHELLGATE_REQUIRE_SANDBOX=1` they fail.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_shellgate");

fn require_sandbox() -> bool {
    match shellgate_sandbox::support() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var_os("SHELLGATE_REQUIRE_SANDBOX").is_some() {
                panic!("the kernel cannot confine and SHELLGATE_REQUIRE_SANDBOX is set: {e}");
            }
            eprintln!("SKIPPED: the kernel cannot confine here: {e}");
            false
        }
    }
}

struct Tree {
    _tmp: tempfile::TempDir,
    home: String,
    gate: String,
    proj: String,
    outside: String,
    tmp: String,
}

fn tree() -> Tree {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp
        .path()
        .canonicalize()
        .expect("canonical tempdir")
        .to_string_lossy()
        .to_string();
    let home = format!("{root}/home");
    let proj = format!("{home}/repos/proj");
    let outside = format!("{root}/outside");
    let t = format!("{root}/tmp");
    for d in [
        &home,
        &proj,
        &outside,
        &t,
        &format!("{proj}/src"),
        &format!("{proj}/.git/hooks"),
        &format!("{proj}/.git/objects"),
        &format!("{proj}/.git/refs"),
    ] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(format!("{proj}/.git/HEAD"), "ref: refs/heads/main\n").expect("write");
    std::fs::write(format!("{proj}/.git/config"), "[core]\n").expect("write");
    Tree {
        _tmp: tmp,
        gate: format!("{home}/.shellgate"),
        home,
        proj,
        outside,
        tmp: t,
    }
}

fn cmd(t: &Tree) -> Command {
    let mut c = Command::new(BIN);
    c.env("HOME", &t.home)
        .env("SHELLGATE_HOME", &t.gate)
        .env("TMPDIR", &t.tmp)
        .env_remove("NO_COLOR")
        .current_dir(&t.proj)
        .stdin(Stdio::null());
    c
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `git ARGS` in `dir` with the tree's home and an identity; must succeed.
/// Its standard output.
fn git_in(t: &Tree, dir: &str, args: &[&str]) -> String {
    let o = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env("HOME", &t.home)
        .output()
        .expect("git");
    assert!(o.status.success(), "git {args:?}: {}", show(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The tree's project made a real repository (`tree()` fakes a `.git`).
fn real_repo(t: &Tree) {
    std::fs::remove_dir_all(format!("{}/.git", t.proj)).expect("rm fake .git");
    git_in(t, &t.proj, &["init", "-q"]);
}

fn sandbox(t: &Tree, args: &[&str]) -> Output {
    cmd(t)
        .arg("sandbox")
        .args(args)
        .output()
        .expect("run shellgate sandbox")
}

/// `shellgate sandbox --profile build -- bash -c SCRIPT` in the tree's
/// project.
fn sandboxed_script(t: &Tree, script: &str) -> Output {
    sandbox(
        t,
        &[
            "--project-dir",
            &t.proj,
            "--profile",
            "build",
            "--",
            "bash",
            "-c",
            script,
        ],
    )
}

fn check(t: &Tree, extra: &[&str], command: &str) -> Value {
    let o = cmd(t)
        .args([
            "check",
            "--json",
            "--session",
            "s1",
            "--project-dir",
            &t.proj,
        ])
        .args(extra)
        .args(["--", command])
        .output()
        .expect("run check");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", show(&o)))
}

/// The must-show: a write inside the project happens; one outside
/// it and one into `.git/hooks` are stopped.
#[test]
fn sandbox_writes_inside_and_stops_outside_and_git_hooks() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let script = format!(
        "echo in > src/inside.txt; echo rc_in=$?; \
         echo out > {out}/outside.txt; echo rc_out=$?; \
         echo hook > .git/hooks/pre-commit; echo rc_hook=$?; \
         echo cfg >> .git/config; echo rc_cfg=$?",
        out = t.outside
    );
    let o = sandbox(&t, &["--project-dir", &t.proj, "--", "bash", "-c", &script]);
    let text = show(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("rc_in=0"), "{text}");
    assert!(!stdout.contains("rc_out=0"), "{text}");
    assert!(!stdout.contains("rc_hook=0"), "{text}");
    assert!(!stdout.contains("rc_cfg=0"), "{text}");
    assert_eq!(
        std::fs::read_to_string(format!("{}/src/inside.txt", t.proj)).expect("inside"),
        "in\n"
    );
    assert!(!Path::new(&format!("{}/outside.txt", t.outside)).exists());
    assert!(!Path::new(&format!("{}/.git/hooks/pre-commit", t.proj)).exists());
    assert_eq!(
        std::fs::read_to_string(format!("{}/.git/config", t.proj)).expect("config"),
        "[core]\n"
    );
    // The same writes outside the sandbox work (the attempt was not broken).
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("echo out > {}/outside.txt", t.outside))
        .status()
        .expect("bash");
    assert!(o.success());
}

#[test]
fn sandbox_project_defaults_and_profiles() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    // Default project: the current directory (the project here).
    let o = sandbox(&t, &["--", "touch", "made-by-default"]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(Path::new(&format!("{}/made-by-default", t.proj)).exists());
    // The session's recorded project directory.
    let o = cmd(&t)
        .args(["session", "create", "--id", "s9", "--project-dir", &t.proj])
        .output()
        .expect("session create");
    assert!(o.status.success(), "{}", show(&o));
    let o = cmd(&t)
        .current_dir(&t.outside)
        .args(["sandbox", "--session", "s9", "--", "bash", "-c"])
        .arg(format!("touch {}/from-session && touch here", t.proj))
        .output()
        .expect("sandbox");
    assert_ne!(o.status.code(), Some(0), "{}", show(&o));
    assert!(Path::new(&format!("{}/from-session", t.proj)).exists());
    assert!(!Path::new(&format!("{}/here", t.outside)).exists());
    // The session directory is writable; profile read writes nothing else.
    let o = cmd(&t)
        .args([
            "sandbox",
            "--session",
            "s9",
            "--profile",
            "read",
            "--",
            "bash",
            "-c",
        ])
        .arg(format!(
            "touch {}/sessions/s9/scratch; echo s=$?; touch ro; echo p=$?",
            t.gate
        ))
        .output()
        .expect("sandbox");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("s=0"), "{}", show(&o));
    assert!(!out.contains("p=0"), "{}", show(&o));
    assert!(!Path::new(&format!("{}/ro", t.proj)).exists());
    // The network is off without --network.
    let o = sandbox(
        &t,
        &[
            "--",
            "bash",
            "-c",
            "exec 3<>/dev/tcp/1.1.1.1/53 && echo connected",
        ],
    );
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("connected"),
        "{}",
        show(&o)
    );
}

/// Shallow directories and the home are refused with a reason (exit 125);
/// nothing runs.
#[test]
fn sandbox_refuses_shallow_projects() {
    let t = tree();
    for dir in ["/", t.home.as_str()] {
        let marker = format!("{}/ran", t.outside);
        let o = sandbox(&t, &["--project-dir", dir, "--", "touch", &marker]);
        assert_eq!(o.status.code(), Some(125), "{dir}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("shellgate sandbox:"), "{}", show(&o));
        assert!(!Path::new(&marker).exists());
    }
    // A usage error: no command.
    let o = sandbox(&t, &["--project-dir", &t.proj]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    // --record needs a session.
    let o = sandbox(&t, &["--record", "--", "true"]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
}

/// `check --json` carries the wrapped command; the command runs as such.
#[test]
fn check_json_carries_the_sandbox_command() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let call = format!(
        "mkdir -p build && echo built > build/out.txt && (echo x > {}/leak.txt || true)",
        t.outside
    );
    // The call names an outside path: it asks.
    let d = check(&t, &[], &call);
    assert_eq!(d["reason"], "approval_required", "{d}");
    assert!(d.get("sandbox").is_none());
    let call = "mkdir -p build && echo built > build/out.txt";
    let d = check(&t, &[], call);
    assert_eq!(d["decision"], "allow", "{d}");
    assert_eq!(d["reason"], "sandboxed", "{d}");
    assert_eq!(d["sandbox"]["profile"], "edit");
    assert_eq!(d["sandbox"]["project_dir"], t.proj.as_str());
    let wrapped = d["sandbox"]["command"]
        .as_str()
        .expect("command")
        .to_string();
    assert!(
        wrapped.starts_with(&format!("{BIN} --home {} sandbox --session s1", t.gate)),
        "{wrapped}"
    );
    assert!(
        wrapped.ends_with(
            "--profile edit --record -- bash -c 'mkdir -p build && echo built > build/out.txt'"
        ),
        "{wrapped}"
    );
    // Every §2.3 field is still there.
    for k in [
        "decision",
        "reason",
        "message",
        "tool",
        "command",
        "display",
        "cwd",
        "audience",
        "channel",
        "complex",
        "complex_reasons",
        "candidates",
        "patterns",
        "options",
        "prompt",
        "hint",
    ] {
        assert!(d.get(k).is_some(), "{k} missing: {d}");
    }
    // The host runs the wrapped command with its shell.
    let o = Command::new("bash")
        .arg("-c")
        .arg(&wrapped)
        .env("HOME", &t.home)
        .env("TMPDIR", &t.tmp)
        .current_dir(&t.proj)
        .output()
        .expect("bash");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(
        std::fs::read_to_string(format!("{}/build/out.txt", t.proj)).expect("out"),
        "built\n"
    );
    // A caller that cannot rewrite: asks.
    let d = check(&t, &["--no-sandbox"], call);
    assert_eq!(d["reason"], "approval_required", "{d}");
    // The text form's caller may read only the exit status (rt25a F5:
    // `check -- "$C" && eval "$C"` ran the build unconfined): it asks.
    let o = cmd(&t)
        .args(["check", "--session", "s1", "--project-dir", &t.proj])
        .args(["--", call])
        .output()
        .expect("check");
    assert_eq!(o.status.code(), Some(10), "{}", show(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("sandboxed"));
    // A build: profile build; sandbox = off in policy.toml: asks.
    let d = check(&t, &[], "go test ./...");
    assert_eq!(d["sandbox"]["profile"], "build", "{d}");
    std::fs::create_dir_all(format!("{}/config", t.gate)).expect("mkdir");
    std::fs::write(
        format!("{}/config/policy.toml", t.gate),
        "[audiences.personal]\nsandbox = \"off\"\n",
    )
    .expect("write");
    let d = check(&t, &[], "go test ./...");
    assert_eq!(d["reason"], "approval_required", "{d}");
    // A malformed setting is an error naming the file.
    std::fs::write(
        format!("{}/config/policy.toml", t.gate),
        "[audiences.personal]\nsandbox = \"maybe\"\n",
    )
    .expect("write");
    let o = cmd(&t)
        .args(["check", "--json", "--", "go test ./..."])
        .output()
        .expect("check");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("policy.toml"));
}

fn exec(t: &Tree, command: &str) -> Output {
    cmd(t)
        .args([
            "exec",
            "--session",
            "s1",
            "--project-dir",
            &t.proj,
            "--",
            command,
        ])
        .output()
        .expect("run exec")
}

/// `exec` runs a sandboxed call under the sandbox: inside succeeds, a write
/// outside fails (the static policy could not see it: it is in the
/// Makefile); the failed run makes the next identical call ask.
#[test]
fn exec_runs_sandboxed_calls_confined() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let o = exec(&t, "mkdir -p out && echo hi > out/x.txt && cat out/x.txt");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "hi\n");
    assert!(Path::new(&format!("{}/out/x.txt", t.proj)).exists());

    std::fs::write(
        format!("{}/Makefile", t.proj),
        format!(
            "all:\n\techo in > built.txt\n\techo out > {}/evil.txt\n",
            t.outside
        ),
    )
    .expect("makefile");
    assert_eq!(check(&t, &[], "make")["reason"], "sandboxed");
    let o = exec(&t, "make");
    assert_ne!(o.status.code(), Some(0), "{}", show(&o));
    assert!(Path::new(&format!("{}/built.txt", t.proj)).exists());
    assert!(!Path::new(&format!("{}/evil.txt", t.outside)).exists());
    // Recorded: the identical call asks now (no terminal: exec denies).
    let d = check(&t, &[], "make");
    assert_eq!(d["reason"], "approval_required", "{d}");
    let o = exec(&t, "make");
    assert_eq!(o.status.code(), Some(126), "{}", show(&o));
    // Another call is still sandboxed.
    assert_eq!(check(&t, &[], "make all")["reason"], "sandboxed");
}

/// A sandboxed build may write the project's `.git` (commits need it) but
/// must not leave anything that makes the next unconfined `git status` — a
/// safe verb — run code: a repository planted in the work tree and recorded
/// as a submodule (its `core.fsmonitor` would run), a submodule git
/// directory planted in `.git/modules`, or `.git/commondir` moving the
/// repository's config. The whole chain with real git: the build runs under
/// `exec`, then the gate is asked about `git status`.
#[test]
fn sandboxed_builds_cannot_arm_git_status() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let git = |dir: &str, args: &[&str]| {
        git_in(&t, dir, args);
    };
    real_repo(&t);
    std::fs::write(format!("{}/README", t.proj), "hi\n").expect("write");
    git(&t.proj, &["add", "README"]);
    git(&t.proj, &["commit", "-qm", "one"]);
    let status = |t: &Tree| check(t, &[], "git status")["decision"].clone();
    assert_eq!(status(&t), "allow");

    let marker = format!("{}/PWNED", t.outside);
    // A user's own tool config outside the project (must survive a run
    // that links the project's `.cargo` to it).
    let outside_cargo = format!("{}/cargo-home", t.outside);
    std::fs::create_dir_all(&outside_cargo).expect("mkdir");
    std::fs::write(format!("{outside_cargo}/config.toml"), "[build]\n").expect("cfg");
    let fsmonitor = format!("[core]\\n\\tfsmonitor = touch {marker}\\n");
    std::fs::write(
        format!("{}/Makefile", t.proj),
        format!(
            "nested:\n\
             \tmkdir -p vendor/evil && cd vendor/evil && git init -q && echo x > x && \
             git add x && git -c user.name=t -c user.email=t@t commit -qm x\n\
             \tgit -C vendor/evil config core.fsmonitor 'touch {marker}; false'\n\
             \tgit add vendor/evil\n\
             modules:\n\
             \t-mkdir -p .git/modules/evil && printf '{fsmonitor}' > .git/modules/evil/config\n\
             commondir:\n\
             \techo ../../elsewhere > .git/commondir\n\
             hide:\n\
             \techo '\t@touch {marker}' >> Makefile.inc && git update-index --skip-worktree Makefile.inc\n\
             toolcfg:\n\
             \tmkdir -p .cargo && printf '[build]\\nrustc-wrapper = \"/tmp/w\"\\n' > .cargo/config.toml && echo 'script-shell=/tmp/w' > .npmrc\n\
             linkcfg:\n\
             \tln -s {outside_cargo} .cargo\n\
             commit:\n\
             \techo more >> README && git add README && git -c user.name=t -c user.email=t@t commit -qm two\n"
        ),
    )
    .expect("makefile");
    std::fs::write(format!("{}/Makefile.inc", t.proj), "all:\n").expect("inc");
    git(&t.proj, &["add", "Makefile.inc"]);
    git(&t.proj, &["commit", "-qm", "inc"]);
    for target in ["make nested", "make modules", "make commondir", "make hide"] {
        assert_eq!(check(&t, &[], target)["reason"], "sandboxed", "{target}");
    }
    // The run plants a repository and stages it as a gitlink: the parent
    // outside the sandbox sees it once the run ended, removes the planted
    // repository (rt12 F7), says so, and counts the run as failed (the next
    // identical call asks a human).
    let o = exec(&t, "make nested");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("submodule checkout"), "{err}");
    assert!(!Path::new(&format!("{}/vendor/evil/.git", t.proj)).exists());
    assert_eq!(check(&t, &[], "make nested")["decision"], "ask");
    // What an unconfined git status does now: nothing planted runs, and
    // the gate trusts the repository again.
    let _ = Command::new("git")
        .arg("status")
        .current_dir(&t.proj)
        .env("HOME", &t.home)
        .output();
    assert!(!Path::new(&marker).exists(), "the planted fsmonitor ran");
    assert_eq!(check(&t, &[], "git status")["decision"], "allow");
    git(&t.proj, &["rm", "-q", "-f", "--cached", "vendor/evil"]);
    assert_eq!(status(&t), "allow");

    // `.git/modules` cannot be planted (read-only, placeholder).
    let o = exec(&t, "make modules");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(!Path::new(&format!("{}/.git/modules/evil", t.proj)).exists());
    assert_eq!(status(&t), "allow");

    // `.git/commondir` can be written inside; the parent removes it when
    // the run ends and counts the run as failed.
    let o = exec(&t, "make commondir");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("commondir"));
    assert!(!Path::new(&format!("{}/.git/commondir", t.proj)).exists());
    assert_eq!(status(&t), "allow");

    // An entry hidden from `git status`/`git diff` (a change a human
    // reviewing the agent's work would not see) fails the run too.
    let o = exec(&t, "make hide");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("skip-worktree") && err.contains("Makefile.inc"),
        "{err}"
    );

    // Tool configuration that runs programs, created by the run: removed.
    let o = exec(&t, "make toolcfg");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(".cargo/config.toml") && err.contains(".npmrc"),
        "{err}"
    );
    assert!(!Path::new(&format!("{}/.cargo/config.toml", t.proj)).exists());
    assert!(!Path::new(&format!("{}/.npmrc", t.proj)).exists());

    std::fs::remove_dir_all(format!("{}/.cargo", t.proj)).expect("rm .cargo");
    // A link on the way (`.cargo -> elsewhere`) is not followed by the
    // removal: the file it reaches stays, the run fails.
    let o = exec(&t, "make linkcfg");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("through a link"));
    assert!(Path::new(&format!("{outside_cargo}/config.toml")).exists());
    std::fs::remove_file(format!("{}/.cargo", t.proj)).expect("rm link");

    // Neighbour: an ordinary commit inside the sandbox is no such change.
    let o = exec(&t, "make commit");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
}

/// The recording function host adapters call from a PostToolUse event.
#[test]
fn recorded_failure_makes_the_identical_call_ask() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    assert_eq!(check(&t, &[], "go test ./...")["reason"], "sandboxed");
    let homes = shellgate::edge::Homes {
        gate: t.gate.clone().into(),
        user: t.home.clone(),
    };
    shellgate::commands::sandbox::record_failure(&homes, "s1", "go test ./...", Some(&t.proj), 1)
        .expect("record");
    assert_eq!(
        check(&t, &[], "go test ./...")["reason"],
        "approval_required"
    );
    // Other sessions, other commands and other directories are unaffected.
    let o = cmd(&t)
        .args([
            "check",
            "--json",
            "--session",
            "s2",
            "--project-dir",
            &t.proj,
        ])
        .args(["--", "go test ./..."])
        .output()
        .expect("check");
    let d: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(d["reason"], "sandboxed", "{d}");
    assert_eq!(
        check(&t, &[], "go test ./... -count=1")["reason"],
        "sandboxed"
    );
}

fn hook(t: &Tree, host: &str, event: &Value) -> (i32, Value) {
    let mut child = cmd(t)
        .args(["hook", host])
        .env("CLAUDE_PROJECT_DIR", &t.proj)
        // An interactive session: a human can answer the asks.
        .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hook");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(event.to_string().as_bytes())
        .expect("write event");
    let o = child.wait_with_output().expect("hook");
    let v = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    (o.status.code().unwrap_or(-1), v)
}

/// Claude Code gets the wrapped command as `updatedInput` (its other input
/// fields kept); Gemini, which cannot rewrite, is not allowed the call.
#[test]
fn hooks_rewrite_for_claude_code_and_ask_for_gemini() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let event = json!({
        "session_id": "cc1",
        "cwd": t.proj,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "go test ./...", "description": "run the tests", "timeout": 60000},
    });
    let (code, v) = hook(&t, "claude-code", &event);
    assert_eq!(code, 0, "{v}");
    let h = &v["hookSpecificOutput"];
    assert_eq!(h["permissionDecision"], "allow", "{v}");
    let updated = &h["updatedInput"];
    let wrapped = updated["command"].as_str().expect("updated command");
    assert!(
        wrapped.contains("sandbox --session cc1 --project-dir")
            && wrapped.ends_with("--profile build --record -- bash -c 'go test ./...'"),
        "{wrapped}"
    );
    assert_eq!(updated["description"], "run the tests");
    assert_eq!(updated["timeout"], 60000);
    assert!(h["permissionDecisionReason"]
        .as_str()
        .is_some_and(|r| r.contains("sandboxed")));
    // A call that is not sandboxable asks without updatedInput.
    let mut other = event.clone();
    other["tool_input"]["command"] = json!("git push");
    let (_, v) = hook(&t, "claude-code", &other);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
    assert!(v["hookSpecificOutput"].get("updatedInput").is_none());

    let gem = json!({
        "session_id": "g1",
        "cwd": t.proj,
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "go test ./..."},
    });
    let (code, v) = hook(&t, "gemini", &gem);
    assert_eq!(code, 0, "{v}");
    // Gemini CLI cannot run a rewritten command: the call is not allowed.
    // It asks where a human can answer; under this test no Gemini CLI
    // process is found, so nobody can, and the ask becomes a block.
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(v["reason"]
        .as_str()
        .is_some_and(|r| r.contains("approval_required") && r.contains("cannot be found")));
    assert!(v.get("hookSpecificOutput").is_none(), "{v}");
}

/// `explain` says why a call was not sandboxed, so a human (or the person
/// tuning a policy) need not guess from an ordinary ask.
#[test]
fn explain_says_why_a_call_is_not_sandboxed() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let explain = |command: &str| {
        let o = cmd(&t)
            .args(["explain", "--session", "s1", "--project-dir", &t.proj])
            .args(["--cwd", &t.proj, "--", command])
            .output()
            .expect("run explain");
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let text = explain("make build");
    assert!(text.contains("Sandbox: profile build"), "{text}");
    for (command, why) in [
        (
            format!("make test > {}/log", t.outside),
            "Sandbox: not offered: it names a path outside the project",
        ),
        (
            "go run ./cmd/api &".to_string(),
            "Sandbox: not offered: it leaves a job running after it returns",
        ),
        (
            "npm publish".to_string(),
            "Sandbox: not offered: a release or publishing step",
        ),
    ] {
        let text = explain(&command);
        assert!(text.contains("Decision: ask"), "{command}: {text}");
        assert!(text.contains(why), "{command}: {text}");
    }
}

/// rt6 F4/F5: a sandboxed build commits an evil Makefile, then writes a
/// replacement ref (loose, or a line of `packed-refs`) that makes `git log
/// -p`/`git show` present a benign twin of that commit, while `git push`
/// would send the real one; or creates `.mcp.json` (a host starts the
/// servers it names). The parent removes both and fails the run.
#[test]
fn sandboxed_builds_cannot_leave_replacement_refs_or_mcp_servers() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let git = |args: &[&str]| git_in(&t, &t.proj, args);
    real_repo(&t);
    std::fs::write(format!("{}/Makefile", t.proj), "all:\n\techo built\n").expect("write");
    git(&["add", "Makefile"]);
    git(&["commit", "-qm", "one"]);
    let script = "printf 'all:\\n\\techo built; touch EVIL\\n' > Makefile\n\
        git add Makefile && git -c user.name=t -c user.email=t@t commit -qm tidy\n\
        evil=$(git rev-parse HEAD)\n\
        benign=$(git cat-file commit $evil | sed \"s/^tree .*/tree $(git rev-parse HEAD~1^{tree})/\" | git hash-object -t commit -w --stdin)\n\
        case \"$1\" in\n\
        loose) mkdir -p .git/refs/replace && echo $benign > .git/refs/replace/$evil ;;\n\
        packed) echo \"$benign refs/replace/$evil\" >> .git/packed-refs ;;\n\
        mcp) echo '{\"mcpServers\":{}}' > .mcp.json ;;\n\
        esac\n\
        git read-tree HEAD && git checkout -- Makefile\n";
    std::fs::write(format!("{}/rep.sh", t.proj), script).expect("write");
    for how in ["loose", "packed"] {
        let call = format!("bash rep.sh {how}");
        assert_eq!(check(&t, &[], &call)["reason"], "sandboxed", "{call}");
        let o = exec(&t, &call);
        assert_eq!(o.status.code(), Some(125), "{}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("replacement ref"), "{err}");
        // what a reviewer's `git show` displays is the real commit again
        assert!(git(&["show", "HEAD"]).contains("touch EVIL"), "{how}");
        git(&["reset", "-q", "--hard", "HEAD~1"]);
    }
    let o = exec(&t, "bash rep.sh mcp");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains(".mcp.json"));
    assert!(!Path::new(&format!("{}/.mcp.json", t.proj)).exists());
    // Neighbour: the same commit without a replacement ref is no such change.
    let o = exec(&t, "bash rep.sh none");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    // rt25a: git's legacy remote files (`git remote -v` lists their URL,
    // `git fetch evil` contacts it), also where the directory was there.
    std::fs::create_dir_all(format!("{}/.git/branches", t.proj)).expect("mkdir");
    std::fs::write(
        format!("{}/rem.sh", t.proj),
        "mkdir -p .git/remotes && printf 'URL: http://127.0.0.1:9/x\\n' > .git/remotes/evil\n\
         echo http://127.0.0.1:9/y > .git/branches/evil2\n",
    )
    .expect("write");
    let o = exec(&t, "bash rem.sh");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("as a remote"));
    assert!(!Path::new(&format!("{}/.git/remotes/evil", t.proj)).exists());
    assert!(!Path::new(&format!("{}/.git/branches/evil2", t.proj)).exists());
}

/// rt12 F7: a submodule registered but not initialised (a plain clone) has
/// an empty checkout; a sandboxed build that makes it a repository of its
/// own with a `core.fsmonitor` had the human's next plain `git status` run
/// it, unconfined. rt12 F8: other agents' and editors' project settings
/// (`.cursor/mcp.json`, `.continue/mcpServers/`, `.zed/settings.json`) name
/// servers their next session starts. The parent removes what the run
/// created and fails the run.
#[test]
fn sandboxed_builds_cannot_populate_submodules_or_plant_other_hosts_servers() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let git = |args: &[&str]| git_in(&t, &t.proj, args);
    real_repo(&t);
    let sub = format!("{}/subrepo", t.outside);
    std::fs::create_dir_all(&sub).expect("mkdir");
    git_in(&t, &sub, &["init", "-q"]);
    std::fs::write(format!("{sub}/a"), "a\n").expect("write");
    git_in(&t, &sub, &["add", "a"]);
    git_in(&t, &sub, &["commit", "-qm", "s"]);
    git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &sub,
        "sub",
    ]);
    git(&["commit", "-qm", "add submodule"]);
    git(&["submodule", "deinit", "-q", "-f", "sub"]);
    std::fs::remove_dir_all(format!("{}/.git/modules/sub", t.proj)).expect("rm modules");
    let marker = format!("{}/pwn.txt", t.outside);
    let script = format!(
        "case \"$1\" in\n\
        sub) cd sub && git init -q . && git config core.fsmonitor 'echo RAN >> {marker}; false' ;;\n\
        hosts) mkdir -p .cursor .continue/mcpServers .zed && \
        echo '{{\"mcpServers\":{{}}}}' > .cursor/mcp.json && \
        echo 'name: x' > .continue/mcpServers/x.yaml && echo '{{}}' > .zed/settings.json ;;\n\
        esac\n"
    );
    std::fs::write(format!("{}/plant.sh", t.proj), script).expect("write");
    git(&["add", "plant.sh"]);
    git(&["commit", "-qm", "plant"]);
    assert_eq!(check(&t, &[], "bash plant.sh sub")["reason"], "sandboxed");
    let o = exec(&t, "bash plant.sh sub");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("submodule checkout"),
        "{}",
        show(&o)
    );
    assert!(!Path::new(&format!("{}/sub/.git", t.proj)).exists());
    // The human's own git status now enters no planted repository.
    git(&["status", "--short"]);
    assert!(!Path::new(&marker).exists(), "the planted fsmonitor ran");
    let o = exec(&t, "bash plant.sh hosts");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    for rel in [
        ".cursor/mcp.json",
        ".continue/mcpServers",
        ".zed/settings.json",
    ] {
        assert!(
            !Path::new(&format!("{}/{rel}", t.proj)).exists(),
            "{rel} left: {}",
            show(&o)
        );
    }
    // Neighbour: a run that plants nothing passes.
    let o = exec(&t, "bash plant.sh none");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
}

/// rt6 F7: a host ends a command on a timeout or an interrupt by
/// signalling the process it started — the `--record` parent. The confined
/// run used to go on without it, and what it wrote afterwards
/// (`.git/commondir`, `.mcp.json`) was never checked. Now a SIGTERM is
/// passed to the run and the parent checks once it ends; a SIGKILL ends
/// the run with the parent.
#[test]
fn the_record_parent_checks_the_run_or_takes_it_down_when_signalled() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    std::fs::write(
        format!("{}/late.sh", t.proj),
        "trap '' TERM HUP INT\nsleep 2\necho '{}' > .mcp.json\necho ok > late.txt\n",
    )
    .expect("write");
    for (sig, session) in [(libc::SIGTERM, "k1"), (libc::SIGKILL, "k2")] {
        let child = cmd(&t)
            .args([
                "sandbox",
                "--session",
                session,
                "--project-dir",
                &t.proj,
                "--profile",
                "build",
                "--record",
                "--",
                "bash",
                "-c",
                "bash late.sh",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(700));
        let pid = i32::try_from(child.id()).expect("pid");
        // SAFETY: signalling our own child.
        unsafe { libc::kill(pid, sig) };
        let o = child.wait_with_output().expect("wait");
        std::thread::sleep(std::time::Duration::from_millis(2500));
        let mcp = Path::new(&format!("{}/.mcp.json", t.proj)).exists();
        let late = Path::new(&format!("{}/late.txt", t.proj)).exists();
        assert!(!mcp, "signal {sig}: .mcp.json left behind: {}", show(&o));
        if sig == libc::SIGTERM {
            // the run went on to its end, then the check removed the file
            assert!(late, "{}", show(&o));
            assert_eq!(o.status.code(), Some(125), "{}", show(&o));
            assert!(String::from_utf8_lossy(&o.stderr).contains(".mcp.json"));
            std::fs::remove_file(format!("{}/late.txt", t.proj)).expect("rm");
        } else {
            assert!(!late, "the run outlived its killed parent");
        }
    }
}

/// rt6 F7, the slow variant: a run that plants its file at once and then
/// ignores `SIGTERM` for longer than the host waits is killed by the
/// parent a few seconds after the passed-on signal, and checked.
#[test]
fn a_run_ignoring_sigterm_is_killed_and_checked() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    std::fs::write(
        format!("{}/slow.sh", t.proj),
        "trap '' TERM HUP INT\necho '{}' > .mcp.json\nsleep 60\n",
    )
    .expect("write");
    let child = cmd(&t)
        .args([
            "sandbox",
            "--session",
            "k3",
            "--project-dir",
            &t.proj,
            "--profile",
            "build",
            "--record",
            "--",
            "bash",
            "-c",
            "bash slow.sh",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(700));
    let started = std::time::Instant::now();
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let o = child.wait_with_output().expect("wait");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{}",
        show(&o)
    );
    assert_ne!(o.status.code(), Some(0), "{}", show(&o));
    assert!(
        !Path::new(&format!("{}/.mcp.json", t.proj)).exists(),
        "{}",
        show(&o)
    );
}

/// rt6 F8: a sandboxed run wrote `tests/.gitignore` = `*` beside a planted
/// `tests/conftest.py`: `git status` showed nothing, and the human's own
/// unconfined `pytest` ran it. The parent removes an ignore file the run
/// created that ignores what the run also wrote, and fails the run; the
/// tools' own self-ignoring caches, a new project's `/target` and an
/// appended rule that hides nothing the run wrote stay.
#[test]
fn a_run_cannot_hide_what_it_wrote_behind_a_new_gitignore() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let git = |args: &[&str]| git_in(&t, &t.proj, args);
    real_repo(&t);
    std::fs::create_dir_all(format!("{}/tests", t.proj)).expect("mkdir");
    let script = "case \"$1\" in\n\
        plant) printf '*\\n' > tests/.gitignore; echo 'import os' > tests/conftest.py ;;\n\
        named) printf 'conftest.py\\n' > tests/.gitignore; echo 'import os' > tests/conftest.py ;;\n\
        cache) mkdir -p .pytest_cache/v && printf '*\\n' > .pytest_cache/.gitignore && echo x > .pytest_cache/v/lastfailed ;;\n\
        new) mkdir -p foo/src foo/target/debug && printf '/target\\n' > foo/.gitignore && echo 'fn main(){}' > foo/src/main.rs && echo x > foo/target/debug/foo ;;\n\
        append) printf '/dist\\n' >> .gitignore ;;\n\
        esac\n";
    std::fs::write(format!("{}/ign.sh", t.proj), script).expect("write");
    for how in ["plant", "named"] {
        let call = format!("bash ign.sh {how}");
        assert_eq!(check(&t, &[], &call)["reason"], "sandboxed", "{call}");
        let o = exec(&t, &call);
        assert_eq!(o.status.code(), Some(125), "{how}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("hides from git status"), "{how}: {err}");
        assert!(
            !Path::new(&format!("{}/tests/.gitignore", t.proj)).exists(),
            "{how}"
        );
        // What the reviewer sees again.
        assert!(git(&["status", "--porcelain"]).contains("tests/"), "{how}");
        std::fs::remove_file(format!("{}/tests/conftest.py", t.proj)).expect("rm");
    }
    for how in ["cache", "new", "append"] {
        let o = exec(&t, &format!("bash ign.sh {how}"));
        assert_eq!(o.status.code(), Some(0), "{how}: {}", show(&o));
    }
    assert!(Path::new(&format!("{}/.pytest_cache/.gitignore", t.proj)).exists());
    assert!(Path::new(&format!("{}/foo/.gitignore", t.proj)).exists());
}

/// rt9 F9: credentials kept inside the tool homes a build may read
/// (`~/.android`, `~/.cache`, `~/.local/share/gem`, `~/.local/share/uv`)
/// stay hidden from a sandboxed run; their neighbours stay readable.
#[test]
fn sandboxed_runs_cannot_read_credentials_inside_tool_homes() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let secrets = [
        ".android/adbkey",
        ".cache/huggingface/stored_tokens",
        ".local/share/gem/credentials",
        ".local/share/uv/credentials/credentials.toml",
    ];
    for s in secrets {
        let p = format!("{}/{s}", t.home);
        std::fs::create_dir_all(Path::new(&p).parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "FAKE-SECRET-rt9\n").expect("write");
    }
    std::fs::write(format!("{}/.android/adb_usb.ini", t.home), "PUBLIC\n").expect("write");
    let script = secrets
        .iter()
        .map(|s| format!("cat ~/{s};"))
        .chain(std::iter::once("cat ~/.android/adb_usb.ini".to_string()))
        .collect::<String>();
    let o = sandboxed_script(&t, &script);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("FAKE-SECRET-rt9"), "{}", show(&o));
    assert!(stdout.contains("PUBLIC"), "{}", show(&o));
}

/// rt25a F1: Python code a sandboxed run leaves where the interpreter
/// loads it by itself (ignored by git, never reviewed) does not survive
/// into the human's next unconfined run: bytecode it wrote is removed, and
/// a `.pth` or `sitecustomize.py` in the project's virtualenv or a changed
/// `pyvenv.cfg` fails the run (the next identical call asks).
#[test]
fn sandboxed_runs_leave_no_python_start_up_code() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    real_repo(&t);
    let site = format!("{}/.venv/lib/python3.11/site-packages", t.proj);
    std::fs::create_dir_all(&site).expect("mkdir");
    std::fs::write(format!("{}/.venv/pyvenv.cfg", t.proj), "home = /usr/bin\n").expect("cfg");
    std::fs::create_dir_all(format!("{}/app/__pycache__", t.proj)).expect("mkdir");
    // rt26a F3: a virtualenv below the root, a venv's scripts and modules.
    let sub = format!("{}/sub/.venv", t.proj);
    std::fs::create_dir_all(format!("{sub}/lib/python3.11/site-packages")).expect("mkdir");
    std::fs::write(format!("{sub}/pyvenv.cfg"), "home = /usr/bin\n").expect("cfg");
    std::fs::create_dir_all(format!("{}/.venv/bin", t.proj)).expect("mkdir");
    std::fs::write(format!("{}/.venv/bin/activate", t.proj), "# activate\n").expect("bin");
    // rt27 F4: a conda environment has no pyvenv.cfg.
    std::fs::create_dir_all(format!("{}/cenv/conda-meta", t.proj)).expect("mkdir");
    std::fs::create_dir_all(format!("{}/cenv/lib/python3.11/site-packages", t.proj))
        .expect("mkdir");
    std::fs::create_dir_all(format!("{site}/pip")).expect("mkdir");
    std::fs::write(format!("{site}/pip/__init__.py"), "").expect("pip");
    // Bytecode from before the run is the user's: kept.
    std::fs::write(
        format!("{}/app/__pycache__/old.cpython-311.pyc", t.proj),
        "o",
    )
    .expect("pyc");
    let script = "case \"$1\" in\n\
        pyc) echo evil > app/__pycache__/util.cpython-311.pyc; echo ok > app/util.py ;;\n\
        pth) echo 'import os' > .venv/lib/python3.11/site-packages/zz.pth ;;\n\
        site) echo 'import os' > .venv/lib/python3.11/site-packages/sitecustomize.py ;;\n\
        cfg) echo 'home = /tmp/x' > .venv/pyvenv.cfg ;;\n\
        nested) echo 'import os' > sub/.venv/lib/python3.11/site-packages/zz.pth ;;\n\
        bin) echo 'touch m' >> .venv/bin/activate ;;\n\
        pkg) echo 'import os' >> .venv/lib/python3.11/site-packages/pip/__init__.py ;;\n\
        link) echo evil > elsewhere.pyc; ln -s ../../elsewhere.pyc app/__pycache__/linked.cpython-311.pyc ;;\n\
        conda) echo 'import os' > cenv/lib/python3.11/site-packages/zz.pth ;;\n\
        rootpyc) echo evil > json.pyc ;;\n\
        esac\n";
    std::fs::write(format!("{}/py.sh", t.proj), script).expect("write");
    // The watch counts what changed from a little before the run.
    std::thread::sleep(std::time::Duration::from_millis(400));
    let o = exec(&t, "bash py.sh pyc");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(!Path::new(&format!("{}/app/__pycache__/util.cpython-311.pyc", t.proj)).exists());
    assert!(Path::new(&format!("{}/app/__pycache__/old.cpython-311.pyc", t.proj)).exists());
    assert_eq!(
        std::fs::read_to_string(format!("{}/app/util.py", t.proj)).expect("src"),
        "ok\n"
    );
    let o = exec(&t, "bash py.sh link");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(std::fs::symlink_metadata(format!(
        "{}/app/__pycache__/linked.cpython-311.pyc",
        t.proj
    ))
    .is_err());
    // The link and its target (bytecode the run wrote) are both gone.
    assert!(!Path::new(&format!("{}/elsewhere.pyc", t.proj)).exists());
    // rt27 F5: a `json.pyc` beside the sources shadows the standard module.
    let o = exec(&t, "bash py.sh rootpyc");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(!Path::new(&format!("{}/json.pyc", t.proj)).exists());
    for how in ["pth", "site", "cfg", "nested", "bin", "pkg", "conda"] {
        let o = exec(&t, &format!("bash py.sh {how}"));
        assert_eq!(o.status.code(), Some(125), "{how}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("left something for later"), "{how}: {err}");
    }
}

/// rt25a F3: credentials in the configuration of tools whose homes the
/// sandbox opens (Bazel, Go, Cabal, Leiningen, mise, Stack, Gradle init
/// scripts, sbt's global settings, Julia's package servers) are hidden
/// from a sandboxed run; a config without one stays readable.
#[test]
fn sandboxed_runs_cannot_read_credentials_in_tool_configs() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    let files = [
        (
            ".bazelrc",
            "build --remote_header=x-buildbuddy-api-key=FAKE-rt25\n",
        ),
        (
            ".config/go/env",
            "GOPROXY=https://u:FAKE-rt25@proxy.example\n",
        ),
        (".cabal/config", "password: FAKE-rt25\n"),
        (
            ".lein/profiles.clj",
            "{:auth {:repository-auth {#\"r\" {:password \"FAKE-rt25\"}}}}\n",
        ),
        (
            ".config/mise/config.toml",
            "[env]\nAPI_TOKEN = \"FAKE-rt25\"\n",
        ),
        (".stack/config.yaml", "github-token: FAKE-rt25\n"),
        (
            ".gradle/init.d/repo.gradle",
            "credentials { password 'FAKE-rt25' }\n",
        ),
        (
            ".sbt/1.0/global.sbt",
            "credentials += Credentials(\"r\", \"h\", \"u\", \"FAKE-rt25\")\n",
        ),
        (
            ".julia/servers/pkg.example/auth.toml",
            "access_token = \"FAKE-rt25\"\n",
        ),
    ];
    for (f, text) in files {
        let p = format!("{}/{f}", t.home);
        std::fs::create_dir_all(Path::new(&p).parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
    }
    std::fs::write(format!("{}/.cabal/config.public", t.home), "PUBLIC\n").expect("write");
    let script = files
        .iter()
        .map(|(f, _)| format!("cat ~/{f};"))
        .chain(std::iter::once("cat ~/.cabal/config.public".to_string()))
        .collect::<String>();
    let o = sandboxed_script(&t, &script);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("FAKE-rt25"), "{}", show(&o));
    assert!(stdout.contains("PUBLIC"), "{}", show(&o));
}

/// rt25a F2: the project's secret files are hidden wherever they lie —
/// deep (`a/b/c/d/.env`) or in a build output (`dist/.env`) — and a
/// project too large to check (a run could plant thousands of files to
/// push a secret past the walk) is refused, not run half-checked.
#[test]
fn sandboxed_runs_see_no_deep_secrets_and_refuse_unchecked_projects() {
    if !require_sandbox() {
        return;
    }
    let t = tree();
    // rt26a F4: secret by where it lies, as the gate reads it.
    let placed = [
        ".kube/config",
        ".docker/config.json",
        ".cargo/credentials.toml",
        ".config/gh/hosts.yml",
    ];
    for f in ["a/b/c/d/.env", "dist/.env"].iter().chain(placed.iter()) {
        let p = format!("{}/{f}", t.proj);
        std::fs::create_dir_all(Path::new(&p).parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "API_TOKEN=FAKE-rt25-deep\n").expect("write");
    }
    std::fs::write(format!("{}/a/b/c/d/readme", t.proj), "PUBLIC\n").expect("write");
    let run = |script: &str| sandboxed_script(&t, script);
    let o = run(
        "cat a/b/c/d/.env dist/.env .kube/config .docker/config.json \
         .cargo/credentials.toml .config/gh/hosts.yml; cat a/b/c/d/readme",
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("FAKE-rt25-deep"), "{}", show(&o));
    assert!(stdout.contains("PUBLIC"), "{}", show(&o));
    let flood = format!("{}/t01", t.proj);
    std::fs::create_dir_all(&flood).expect("mkdir");
    for i in 0..20_001 {
        std::fs::write(format!("{flood}/f{i}"), "").expect("write");
    }
    let o = run("cat a/b/c/d/readme");
    assert_eq!(o.status.code(), Some(125), "{}", show(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("PUBLIC"));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("20000 entries"),
        "{}",
        show(&o)
    );
}

/// rt9 F13: a secret-looking file staged in the index makes git's content
/// printers ask (`git diff --cached` would print it); a tracked template
/// (`.env.example`) does not.
#[test]
fn a_staged_secret_makes_git_printers_ask() {
    let t = tree();
    real_repo(&t);
    std::fs::write(format!("{}/a.txt", t.proj), "a\n").expect("write");
    std::fs::write(format!("{}/.env.example", t.proj), "TOKEN=\n").expect("write");
    std::fs::write(format!("{}/.env", t.proj), "TOKEN=FAKE\n").expect("write");
    git_in(&t, &t.proj, &["add", "a.txt", ".env.example"]);
    for c in ["git diff --cached", "git log -p", "git show"] {
        let d = check(&t, &[], c);
        assert_eq!(d["reason"], "safe_verb_in_safe_space", "{c}: {d}");
    }
    git_in(&t, &t.proj, &["add", ".env"]);
    for c in [
        "git diff --cached",
        "git diff --staged",
        "git log -p",
        "git show",
    ] {
        let d = check(&t, &[], c);
        assert_eq!(d["decision"], "ask", "{c}: {d}");
    }
    let d = check(&t, &[], "git status");
    assert_eq!(d["reason"], "safe_verb_in_safe_space", "git status: {d}");
}
