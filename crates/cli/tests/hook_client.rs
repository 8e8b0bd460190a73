//! The hook client (`shellgate-hook`) against the real approval service and
//! the real standalone hook, all processes of the built binaries.
//!
//! The client's promise: its answer is the standalone hook's, whether the
//! service evaluates the event or the client falls back. To tell which one
//! answered, some runs use a copy of the client in a directory of its own:
//! it has no `shellgate` next to it, so a fallback there fails (exit 2,
//! "cannot run") instead of quietly running the standalone hook.

#![cfg(target_os = "linux")]

mod serve_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use serve_support::*;

const CLIENT: &str = env!("CARGO_BIN_EXE_shellgate-hook");

/// (status, stdout, stderr) of one hook process fed `event`.
fn run(program: &Path, env: &Env, args: &[&str], event: &[u8]) -> (i32, String, String) {
    let mut c = Command::new(program);
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
    let dir = tempfile::tempdir().expect("tempdir");
    let lone = lone_client(dir.path());
    for (host, ev) in cases(&env) {
        // `--wait 0`: the standalone hook does not wait for the service
        // either, so every decision, asks included, is the service's to give.
        let args = ["hook", host, "--wait", "0"];
        let standalone = run(Path::new(SG), &env, &args, &ev);
        let served = run(&lone, &env, &args, &ev);
        assert_eq!(served, standalone, "{host} {}", text(&ev));
        assert!(!served.2.contains("cannot run"), "{}", served.2);
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
    // The lone copy proves the fallback happened: it has nothing to run.
    let dir = tempfile::tempdir().expect("tempdir");
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
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
    // The service declines (the lone copy then cannot fall back)…
    let dir = tempfile::tempdir().expect("tempdir");
    let lone = run(
        &lone_client(dir.path()),
        &env,
        &["hook", "claude-code", "--wait", "30"],
        ev.as_bytes(),
    );
    assert_eq!(lone.0, 2, "{lone:?}");
    assert!(lone.2.contains("cannot run"), "{}", lone.2);
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
    let dir = tempfile::tempdir().expect("tempdir");
    let ev = event(&env, "claude-code", "s1", "git status").to_string();
    let (code, _, err) = run(
        &lone_client(dir.path()),
        &env,
        &["hook", "claude-code"],
        ev.as_bytes(),
    );
    assert_eq!(code, 2);
    assert!(err.contains("cannot run"), "{err}");
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
