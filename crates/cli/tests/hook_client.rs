//! The hook client (`shellgate-hook`) against the real approval service and
//! the real standalone hook, all processes of the built binaries.
//!
//! The client's promise: its answer is the standalone hook's, whether the
//! service evaluates the event or the client falls back. To tell which one
//! answered, runs that must be served set `SHELLGATE_HOOK_REQUIRE_SERVICE=1`
//! (the client then blocks instead of running the standalone hook), and a
//! copy of the client in a directory of its own has no `shellgate` to fall
//! back to.

#![cfg(target_os = "linux")]

mod serve_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use serve_support::*;

const CLIENT: &str = env!("CARGO_BIN_EXE_shellgate-hook");

const REQUIRE: &str = "SHELLGATE_HOOK_REQUIRE_SERVICE";

/// (status, stdout, stderr) of one hook process fed `event`.
fn run(program: &Path, env: &Env, args: &[&str], event: &[u8]) -> (i32, String, String) {
    run_with(program, env, args, event, false)
}

/// [`run`] of the client that must be answered by the service.
fn served(env: &Env, args: &[&str], event: &[u8]) -> (i32, String, String) {
    run_with(Path::new(CLIENT), env, args, event, true)
}

fn run_with(
    program: &Path,
    env: &Env,
    args: &[&str],
    event: &[u8],
    require: bool,
) -> (i32, String, String) {
    let mut c = Command::new(program);
    if require {
        c.env(REQUIRE, "1");
    } else {
        c.env_remove(REQUIRE);
    }
    c.arg("--home")
        .arg(&env.gate)
        .args(args)
        .env("HOME", &env.home)
        .env_remove("SHELLGATE_HOME")
        .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
        .env("CLAUDE_PROJECT_DIR", &env.project)
        .current_dir(&env.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("start hook");
    let mut stdin = child.stdin.take().expect("stdin");
    // A client that fails before it reads (nothing to fall back to) closes
    // the pipe early: that write may fail.
    let _ = stdin.write_all(event);
    drop(stdin);
    let out = child.wait_with_output().expect("wait hook");
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// A copy of the client with no `shellgate` next to it.
fn lone_client(dir: &Path) -> PathBuf {
    let p = dir.join("shellgate-hook");
    std::fs::copy(CLIENT, &p).expect("copy client");
    p
}

fn cases(env: &Env) -> Vec<(&'static str, Vec<u8>)> {
    let p = env.proj();
    let bash = |host: &str, cmd: &str| event(env, host, "s1", cmd).to_string().into_bytes();
    vec![
        ("claude-code", bash("claude-code", "git status")),
        (
            "claude-code",
            bash("claude-code", "ls -la && cat README.md | head"),
        ),
        ("claude-code", bash("claude-code", "rm -rf /")),
        (
            "claude-code",
            bash("claude-code", "curl https://example.com"),
        ),
        ("claude-code", bash("claude-code", "make build")),
        ("claude-code", bash("claude-code", "echo $(")),
        ("codex", bash("codex", "git push origin main")),
        ("codex", bash("codex", "git log --oneline")),
        ("gemini", bash("gemini", "cargo test")),
        ("gemini", bash("gemini", "cat ~/.ssh/id_rsa")),
        (
            "claude-code",
            json!({"session_id": "s1", "cwd": p, "hook_event_name": "PreToolUse",
                   "tool_name": "Read", "tool_input": {"file_path": format!("{p}/src/main.rs")}})
            .to_string()
            .into_bytes(),
        ),
        (
            "claude-code",
            json!({"session_id": "s1", "cwd": p, "hook_event_name": "PreToolUse",
                   "tool_name": "WebSearch", "tool_input": {"query": "x"}})
            .to_string()
            .into_bytes(),
        ),
        (
            "claude-code",
            json!({"session_id": "s1", "cwd": p, "hook_event_name": "PostToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "curl https://example.com"}})
            .to_string()
            .into_bytes(),
        ),
        (
            "claude-code",
            json!({"cwd": p, "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "ls"}})
            .to_string()
            .into_bytes(),
        ),
        ("claude-code", b"{not json".to_vec()),
        ("claude-code", b"[1, 2]".to_vec()),
    ]
}

#[test]
fn the_service_answers_exactly_as_the_standalone_hook() {
    let env = Env::new();
    let _svc = Serve::start(&env);
    for (host, ev) in cases(&env) {
        // `--wait 0`: the standalone hook does not wait for the service
        // either, so every decision, asks included, is the service's to give.
        let args = ["hook", host, "--wait", "0"];
        let standalone = run(Path::new(SG), &env, &args, &ev);
        let answer = served(&env, &args, &ev);
        assert_eq!(answer, standalone, "{host} {}", text(&ev));
        assert!(!answer.2.contains("did not answer"), "{}", answer.2);
    }
}

#[test]
fn without_a_service_the_client_runs_the_standalone_hook() {
    let env = Env::new();
    for (host, ev) in cases(&env) {
        let args = ["hook", host, "--wait", "0"];
        let standalone = run(Path::new(SG), &env, &args, &ev);
        let client = run(Path::new(CLIENT), &env, &args, &ev);
        assert_eq!(client, standalone, "{host} {}", text(&ev));
    }
    // Required to be served, it blocks; the lone copy has nothing to run.
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
    let (code, out, err) = served(&env, &["hook", "claude-code"], ev.as_bytes());
    assert_eq!(code, 2, "{out} {err}");
    assert!(
        out.is_empty() && err.contains("did not answer"),
        "{out} {err}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = run(
        &lone_client(dir.path()),
        &env,
        &["hook", "claude-code"],
        ev.as_bytes(),
    );
    assert_eq!(code, 2, "{out} {err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("cannot run") && err.contains("blocked"),
        "{err}"
    );
}

#[test]
fn an_ask_the_hook_would_wait_for_is_left_to_the_standalone_hook() {
    let env = Env::new();
    let _svc = Serve::start(&env);
    let ev = event(&env, "claude-code", "s1", "git push origin main").to_string();
    // The service declines…
    let declined = served(
        &env,
        &["hook", "claude-code", "--wait", "30"],
        ev.as_bytes(),
    );
    assert_eq!(declined.0, 2, "{declined:?}");
    assert!(declined.2.contains("did not answer"), "{}", declined.2);
    // … and the real client's standalone hook, handed the event it read,
    // publishes the request and waits for the human, under `timeout` (the
    // host agent, whose tree may not answer).
    let mut c = Command::new("timeout");
    c.arg("600")
        .arg(CLIENT)
        .arg("--home")
        .arg(&env.gate)
        .args(["hook", "claude-code", "--wait", "60"])
        .env("HOME", &env.home)
        .env_remove("SHELLGATE_HOME")
        .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
        .env("CLAUDE_PROJECT_DIR", &env.project)
        .current_dir(&env.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("start client");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(ev.as_bytes()).expect("write event");
    drop(stdin);
    let list = env.wait_pending(1);
    let id = env.id_of(&list, "git push origin main");
    let a = env.answer(&id, "approve_once");
    assert_eq!(a.status.code(), Some(0), "{a:?}");
    let out = child.wait_with_output().expect("wait client");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow");
    assert!(v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("")
        .contains("human:approve_once"));
}

#[test]
fn another_homes_service_is_not_asked() {
    // A socket under another home, linked into this one's state directory:
    // the client asks only a socket that really is this home's.
    let env = Env::new();
    let other = Env::new();
    let _svc = Serve::start(&other);
    std::fs::create_dir_all(env.state()).expect("mkdir state");
    std::os::unix::fs::symlink(
        other.state().join("serve.sock"),
        env.state().join("serve.sock"),
    )
    .expect("symlink");
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
    let (code, _, err) = served(&env, &["hook", "claude-code"], ev.as_bytes());
    assert_eq!(code, 2);
    assert!(err.contains("did not answer"), "{err}");
}

#[test]
fn another_install_of_the_gate_is_not_answered_for() {
    // The gate's own path is part of its decisions (`pkill -f PATH` of the
    // gate is a hard deny, a sandboxed allow runs `PATH sandbox …`): a
    // client next to another `shellgate` — even a copy of the same build —
    // is left to that one.
    let env = Env::new();
    let _svc = Serve::start(&env);
    let dir = tempfile::tempdir().expect("tempdir");
    let client = dir.path().join("shellgate-hook");
    std::fs::copy(CLIENT, &client).expect("copy client");
    std::fs::copy(SG, dir.path().join("shellgate")).expect("copy gate");
    let other = dir.path().join("shellgate").display().to_string();
    let ev = event(&env, "claude-code", "s1", &format!("pkill -f {other}")).to_string();
    let args = ["hook", "claude-code", "--wait", "0"];
    let declined = run_with(&client, &env, &args, ev.as_bytes(), true);
    assert_eq!(declined.0, 2, "{declined:?}");
    assert!(declined.2.contains("did not answer"), "{}", declined.2);
    let fallback = run(&client, &env, &args, ev.as_bytes());
    let standalone = run(Path::new(&other), &env, &args, ev.as_bytes());
    assert_eq!(fallback, standalone);
    assert!(fallback.1.contains("\"deny\""), "{}", fallback.1);
}

#[test]
fn install_writes_the_client_on_request_and_knows_it_as_its_own() {
    let env = Env::new();
    let out = env.run(&["install", "claude-code", "--hook-client"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let settings = env.home.join(".claude").join("settings.json");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("settings")).expect("json");
    let cmd = v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .expect("command")
        .to_string();
    let client = std::fs::canonicalize(CLIENT).expect("client path");
    assert!(
        cmd.starts_with(&format!("'{}'", client.display()))
            || cmd.starts_with(&client.display().to_string()),
        "{cmd}"
    );
    assert!(cmd.contains(" hook claude-code"), "{cmd}");
    // Installed again: recognized, nothing changed; uninstalled: gone.
    let again = env.run(&["install", "claude-code", "--hook-client"]);
    assert!(
        text(&again.stdout).contains("already installed"),
        "{}",
        text(&again.stdout)
    );
    let un = env.run(&["uninstall", "claude-code"]);
    assert_eq!(un.status.code(), Some(0), "{}", text(&un.stderr));
    let after = std::fs::read_to_string(&settings).expect("settings");
    assert!(!after.contains("shellgate-hook"), "{after}");
}

// ----- the review's findings (notes: hcrev F2–F6) ----------------------------

#[test]
fn warnings_of_the_evaluation_reach_the_clients_stderr() {
    // An invalid user safe-verb file: the standalone hook warns on stderr.
    let env = Env::new();
    let _svc = Serve::start(&env);
    let cfg = env.gate.join("config");
    std::fs::create_dir_all(&cfg).expect("mkdir config");
    std::fs::write(cfg.join("safe-verbs.linux.json"), "{bad").expect("write");
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
    let args = ["hook", "claude-code", "--wait", "0"];
    let standalone = run(Path::new(SG), &env, &args, ev.as_bytes());
    assert!(standalone.2.contains("warning:"), "{}", standalone.2);
    assert_eq!(served(&env, &args, ev.as_bytes()), standalone);
}

#[test]
fn the_recorded_sandbox_support_is_read_for_every_served_call() {
    let env = Env::new();
    let _svc = Serve::start(&env);
    let ev = event(&env, "claude-code", "s1", "make build").to_string();
    let args = ["hook", "claude-code", "--wait", "0"];
    let first = served(&env, &args, ev.as_bytes());
    let support = env.state().join("sandbox-support");
    let Ok(text) = std::fs::read_to_string(&support) else {
        eprintln!("no recorded sandbox support on this machine: nothing to flip");
        return;
    };
    let key = text
        .trim_end()
        .rsplit_once('\n')
        .expect("key line")
        .0
        .to_string();
    for answer in ["unsupported", "supported"] {
        std::fs::write(&support, format!("{key}\n{answer}\n")).expect("write");
        let standalone = run(Path::new(SG), &env, &args, ev.as_bytes());
        assert_eq!(served(&env, &args, ev.as_bytes()), standalone, "{answer}");
    }
    assert_eq!(first.0, 0);
}

#[test]
fn a_locked_state_database_makes_the_service_decline_without_writing() {
    let env = Env::new();
    let _svc = Serve::start(&env);
    let p = env.proj();
    let command = "curl http://127.0.0.1:9/x";
    let ev = event(&env, "claude-code", "s1", command).to_string();
    let args = ["hook", "claude-code", "--wait", "0"];
    // The session exists; a one-time approval waits for the call.
    let _ = run(Path::new(SG), &env, &args, ev.as_bytes());
    let d = env.run(&[
        "decide",
        "--option",
        "approve_once",
        "--session",
        "s1",
        "--cwd",
        &p,
        "--project-dir",
        &p,
        "--",
        command,
    ]);
    assert_eq!(d.status.code(), Some(0), "{}", text(&d.stderr));
    let db = env.state().join("shellgate.db");
    let count = |sql: &str| -> i64 {
        let c = rusqlite::Connection::open(&db).expect("open db");
        c.query_row(sql, [], |r| r.get(0)).expect("count")
    };
    let decisions = count("SELECT count(*) FROM decisions");
    // Another writer holds the database for 3 s (a backup, a sqlite3 shell).
    let lock = std::thread::spawn({
        let db = db.clone();
        move || {
            let c = rusqlite::Connection::open(&db).expect("open db");
            c.execute_batch("BEGIN IMMEDIATE").expect("lock");
            std::thread::sleep(std::time::Duration::from_secs(3));
            c.execute_batch("COMMIT").expect("unlock");
        }
    });
    std::thread::sleep(std::time::Duration::from_millis(200));
    let declined = served(&env, &args, ev.as_bytes());
    lock.join().expect("lock thread");
    assert_eq!(declined.0, 2, "{declined:?}");
    assert!(declined.2.contains("did not answer"), "{}", declined.2);
    // Nothing written for the call the service did not answer: the
    // approval is still there for the standalone hook.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(count("SELECT count(*) FROM decisions"), decisions);
    assert_eq!(count("SELECT count(*) FROM once_approvals"), 1);
    let standalone = run(Path::new(SG), &env, &args, ev.as_bytes());
    assert!(standalone.1.contains("\"allow\""), "{}", standalone.1);
}

#[test]
fn a_client_in_another_mount_namespace_is_not_answered_for() {
    // The service would judge files the client does not see.
    let probe = Command::new("unshare").args(["-Urm", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("unshare -Urm is not available here: nothing to test");
        return;
    }
    let env = Env::new();
    let _svc = Serve::start(&env);
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
    let mut c = Command::new("unshare");
    c.args(["-Urm", CLIENT, "--home"])
        .arg(&env.gate)
        .args(["hook", "claude-code", "--wait", "0"])
        .env(REQUIRE, "1")
        .env("HOME", &env.home)
        .env_remove("SHELLGATE_HOME")
        .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
        .current_dir(&env.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("start client");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(ev.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("did not answer"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_reader_gone_from_stdout_blocks_the_call_as_the_standalone_hook_does() {
    use std::os::fd::FromRawFd;
    let env = Env::new();
    let _svc = Serve::start(&env);
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
    let run_closed = |program: &str, require: bool| -> (Option<i32>, String) {
        // A pipe whose reading end is closed: writing to it fails (EPIPE),
        // or kills a writer that does not ignore SIGPIPE.
        let mut fds = [0; 2];
        // SAFETY: pipe fills two descriptors; each is owned once below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the read end is closed at once; the write end is owned by
        // the File handed to the child.
        unsafe { libc::close(fds[0]) };
        let out = unsafe { std::fs::File::from_raw_fd(fds[1]) };
        let mut c = Command::new(program);
        c.arg("--home")
            .arg(&env.gate)
            .args(["hook", "claude-code", "--wait", "0"])
            .env("HOME", &env.home)
            .env_remove("SHELLGATE_HOME")
            .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
            .current_dir(&env.project)
            .stdin(Stdio::piped())
            .stdout(Stdio::from(out))
            .stderr(Stdio::piped());
        if require {
            c.env(REQUIRE, "1");
        }
        let mut child = c.spawn().expect("start");
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(ev.as_bytes());
        drop(stdin);
        let o = child.wait_with_output().expect("wait");
        (o.status.code(), text(&o.stderr))
    };
    let served = run_closed(CLIENT, true);
    assert_eq!(served.0, Some(2), "{}", served.1);
    assert!(
        served.1.contains("cannot write the hook's answer"),
        "{}",
        served.1
    );
    assert_eq!(run_closed(SG, false), served);
}

#[test]
fn a_client_with_another_umask_is_not_answered_for() {
    // What the evaluation creates (the session directory) takes the
    // creator's umask: the service's would not be the client's (hcrev2 G1).
    let env = Env::new();
    let _svc = Serve::start(&env);
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
    let script = format!(
        "umask 077; exec '{CLIENT}' --home '{}' hook claude-code --wait 0",
        env.gate.display()
    );
    let mut c = Command::new("sh");
    c.args(["-c", &script])
        .env(REQUIRE, "1")
        .env("HOME", &env.home)
        .env_remove("SHELLGATE_HOME")
        .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
        .current_dir(&env.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("start client");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(ev.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    // The test process's own umask decides which case this is.
    // SAFETY: umask is set and restored at once (no file is created here).
    let own = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    if own == 0o077 {
        eprintln!("the test runs with umask 077 already: nothing differs");
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("did not answer"),
        "{}",
        text(&out.stderr)
    );
}
