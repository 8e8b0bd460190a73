//! Host adapters (`shellgate hook claude-code|gemini|codex`) and
//! `shellgate install|uninstall`, through the real binary with `HOME` and
//! `SHELLGATE_HOME` in a fresh temporary tree. Events are real-shaped
//! (tests/hooks/*.json, `{H}` = home, `{P}` = project, `{X}` = outside).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "e2e/codex_trust.rs"]
mod codex_trust;

const BIN: &str = env!("CARGO_BIN_EXE_shellgate");

struct Tree {
    _tmp: tempfile::TempDir,
    root: String,
    home: String,
    gate: String,
    proj: String,
    outside: String,
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
    for d in [&home, &proj, &outside] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    Tree {
        _tmp: tmp,
        gate: format!("{home}/.shellgate"),
        root,
        home,
        proj,
        outside,
    }
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn command(t: &Tree, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("HOME", &t.home)
        .env("SHELLGATE_HOME", &t.gate)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ATTENDED")
        .env_remove("CLAUDE_CODE_ENTRYPOINT")
        .env_remove("CODEX_HOME")
        .env_remove("SHELLGATE_FAULT")
        .env_remove("SHELLGATE_HOOK_STDIN_TIMEOUT_MS")
        .current_dir(&t.root);
    c
}

fn run_with(mut c: Command, stdin: &[u8]) -> Out {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn shellgate");
    let mut sin = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    // The hook may stop reading early (size cap): ignore a broken pipe.
    let writer = std::thread::spawn(move || {
        let _ = sin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(t: &Tree, args: &[&str], stdin: &[u8]) -> Out {
    run_with(command(t, args), stdin)
}

fn sub(t: &Tree, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(
            s.replace("{H}", &t.home)
                .replace("{P}", &t.proj)
                .replace("{X}", &t.outside),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| sub(t, x)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), sub(t, x))).collect()),
        other => other.clone(),
    }
}

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("hooks")
        .join(name)
}

fn fixture(t: &Tree, name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_path(name)).expect("fixture");
    let v: Value = serde_json::from_str(&text).expect("fixture JSON");
    sub(t, &v)
}

/// A fixture event with `tool_input.command` replaced.
fn shell_event(t: &Tree, name: &str, cmd: &str) -> Value {
    let mut v = fixture(t, name);
    v["tool_input"]["command"] = json!(cmd);
    v
}

fn hook(t: &Tree, host: &str, event: &Value) -> Out {
    hook_args(t, &["hook", host], event)
}

/// Claude Code runs the hook of an interactive session (a human answers
/// its dialog) unless the test says otherwise.
fn hook_args(t: &Tree, args: &[&str], event: &Value) -> Out {
    hook_env(t, args, &[], event)
}

fn hook_env(t: &Tree, args: &[&str], env: &[(&str, &str)], event: &Value) -> Out {
    let mut c = command(t, args);
    if args.get(1) == Some(&"claude-code") {
        c.env("CLAUDE_PROJECT_DIR", &t.proj)
            .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
            .env("CLAUDE_CODE_ENTRYPOINT", "cli");
    }
    for (k, v) in env {
        c.env(k, v);
    }
    run_with(c, event.to_string().as_bytes())
}

fn claude(decision: &str, reason: &str) -> String {
    let v = json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    });
    format!("{v}\n")
}

fn gemini(decision: &str, reason: &str) -> String {
    format!("{}\n", json!({"decision": decision, "reason": reason}))
}

fn codex_deny(reason: &str) -> String {
    claude("deny", reason)
}

const CLAUDE_SID: &str = "0b7c6a52-3f8e-4d0e-9a51-2c1d7e4f8a90";
const GEMINI_SID: &str = "7d5e2c1a-9b8f-4e3d-a2c1-0f9e8d7c6b5a";
const CODEX_SID: &str = "019a3c5e-7b21-7f30-9c4d-5e6f7a8b9c0d";

const SAFE_ALLOW: &str = "shellgate allow (safe_verb_in_safe_space): read-only commands inside the session or project directory";
const RM_DENY: &str = "shellgate deny (hard_deny_system_destructive): never allowed: rm -r of /";

fn push_ask(t: &Tree) -> String {
    format!(
        "shellgate ask (approval_required): git push origin main in {p} is not approved\n\
         Not granted. To allow it from now on, run one of:\n  \
         shellgate approvals allow 'git push origin main' --dir '{p}'\n  \
         shellgate approvals trust-verb 'git push origin main'",
        p = t.proj
    )
}

/// The deny an ask becomes where nobody can answer (`why`).
fn push_nobody(t: &Tree, why: &str) -> String {
    format!(
        "shellgate ask (approval_required): git push origin main in {p} is not approved\n\
         {why}, so the call is blocked. A human can grant it with one of the following, then the agent retries:\n  \
         shellgate approvals allow 'git push origin main' --dir '{p}'\n  \
         shellgate approvals trust-verb 'git push origin main'",
        p = t.proj
    )
}

const GEMINI_UNKNOWN: &str = "Whether a human can answer is unknown (the Gemini CLI process this hook runs under cannot be found)";
const CLAUDE_P: &str =
    "Nobody can answer a question in this non-interactive Claude Code run (claude -p, SDK)";

fn decisions(t: &Tree) -> Vec<(Option<String>, String, String, String, String, String)> {
    let conn = rusqlite::Connection::open(format!("{}/state/shellgate.db", t.gate)).expect("db");
    let mut stmt = conn
        .prepare(
            "SELECT session, tool, command, decision, reason, source FROM decisions ORDER BY id",
        )
        .expect("prepare");
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .expect("query");
    rows.map(|r| r.expect("row")).collect()
}

/// A human runs a line printed in a reason, in a shell that finds this
/// `shellgate` on its PATH.
fn human_runs(t: &Tree, line: &str) -> std::process::Output {
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", line])
        .env("HOME", &t.home)
        .env("SHELLGATE_HOME", &t.gate)
        .env("PATH", path)
        .current_dir(&t.root)
        .output()
        .expect("sh")
}

/// The lines of a reason that are commands (indented `shellgate …`).
fn printed_commands(reason: &str) -> Vec<String> {
    reason
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| l.starts_with("shellgate "))
        .map(str::to_string)
        .collect()
}

// ----- Claude Code --------------------------------------------------------

#[test]
fn claude_allow_ask_deny() {
    let t = tree();
    let out = hook(&t, "claude-code", &fixture(&t, "claude-code-bash.json"));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, claude("allow", SAFE_ALLOW), "{out:?}");

    let ev = shell_event(&t, "claude-code-bash.json", "git push origin main");
    let out = hook(&t, "claude-code", &ev);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, claude("ask", &push_ask(&t)), "{out:?}");

    let out = hook(
        &t,
        "claude-code",
        &shell_event(&t, "claude-code-bash.json", "rm -rf /"),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, claude("deny", RM_DENY), "{out:?}");

    // Every decision is logged with its source.
    let log = decisions(&t);
    let got: Vec<(&str, &str, &str)> = log
        .iter()
        .map(|r| (r.2.as_str(), r.3.as_str(), r.5.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("git status", "allow", "hook:claude-code"),
            ("git push origin main", "ask", "hook:claude-code"),
            ("rm -rf /", "deny", "hook:claude-code"),
        ]
    );
    assert!(log
        .iter()
        .all(|r| r.0.as_deref() == Some(CLAUDE_SID) && r.1 == "shell_execute"));
}

#[test]
fn claude_session_created_on_first_sight() {
    let t = tree();
    let out = hook(&t, "claude-code", &fixture(&t, "claude-code-bash.json"));
    assert_eq!(out.code, 0, "{out:?}");
    let show = run(&t, &["session", "show", CLAUDE_SID], b"");
    assert_eq!(show.code, 0, "{show:?}");
    let s: Value = serde_json::from_str(&show.stdout).expect("session JSON");
    assert_eq!(s["audience"], "personal");
    assert_eq!(s["channel"], "interactive");
    assert_eq!(s["project_dir"], json!(t.proj));
}

#[test]
fn claude_ask_outside_project_carries_the_hint() {
    let t = tree();
    let mut ev = shell_event(&t, "claude-code-bash.json", "make build");
    ev["cwd"] = json!(t.outside);
    let out = hook(&t, "claude-code", &ev);
    assert_eq!(out.code, 0, "{out:?}");
    let x = &t.outside;
    let reason = format!(
        "shellgate ask (approval_required): make build in {x} is not approved\n\
         Not granted. To allow it from now on, run one of:\n  \
         shellgate approvals allow 'make build' --dir '{x}'\n  \
         shellgate approvals trust-verb 'make build'\n\
         Hint: '{x}' is outside the session's trusted scope. Run 'shellgate session set-project-dir {CLAUDE_SID} {x}' first, then retry — that brings the directory into your trusted scope so the approval policy can reason about it."
    );
    assert_eq!(out.stdout, claude("ask", &reason), "{out:?}");
}

#[test]
fn claude_printed_grant_commands_grant_the_call() {
    // Each printed command, run by a human, makes the same call allowed.
    for pick in 0..2 {
        let t = tree();
        let ev = shell_event(&t, "claude-code-bash.json", "git push origin main");
        let out = hook(&t, "claude-code", &ev);
        let reason = push_ask(&t);
        assert_eq!(out.stdout, claude("ask", &reason), "{out:?}");
        let lines = printed_commands(&reason);
        assert_eq!(lines.len(), 2);
        let human = human_runs(&t, &lines[pick]);
        assert!(human.status.success(), "{}: {human:?}", lines[pick]);
        let out = hook(&t, "claude-code", &ev);
        assert_eq!(
            out.stdout,
            claude(
                "allow",
                "shellgate allow (granted): every command is granted"
            ),
            "{}: {out:?}",
            lines[pick]
        );
    }
}

#[test]
fn claude_file_tools() {
    let t = tree();
    let out = hook(&t, "claude-code", &fixture(&t, "claude-code-write.json"));
    assert_eq!(
        out.stdout,
        claude(
            "allow",
            "shellgate allow (tool_auto): file_write runs without approval for this audience"
        ),
        "{out:?}"
    );

    // The agent may not edit its own hook settings with a native tool.
    let mut ev = fixture(&t, "claude-code-write.json");
    ev["tool_input"]["file_path"] = json!(format!("{}/.claude/settings.json", t.home));
    let out = hook(&t, "claude-code", &ev);
    let reason = format!(
        "shellgate deny (protected_path): {}/.claude/settings.json is protected by shellgate",
        t.home
    );
    assert_eq!(out.stdout, claude("deny", &reason), "{out:?}");

    let mut ev = fixture(&t, "claude-code-write.json");
    ev["tool_name"] = json!("Edit");
    ev["tool_input"] =
        json!({"file_path": ".claude/settings.local.json", "old_string": "a", "new_string": "b"});
    let out = hook(&t, "claude-code", &ev);
    let reason = format!(
        "shellgate deny (protected_path): {}/.claude/settings.local.json is protected by shellgate",
        t.proj
    );
    assert_eq!(out.stdout, claude("deny", &reason), "{out:?}");

    // Reading the grant store, directly or by searching above it.
    let mut ev = fixture(&t, "claude-code-write.json");
    ev["tool_name"] = json!("Read");
    ev["tool_input"] = json!({"file_path": format!("{}/config/tool-approvals.json", t.gate)});
    let out = hook(&t, "claude-code", &ev);
    assert!(
        out.stdout.contains("\"permissionDecision\":\"deny\""),
        "{out:?}"
    );
    assert!(out.stdout.contains("(protected_path)"), "{out:?}");

    let mut ev = fixture(&t, "claude-code-write.json");
    ev["tool_name"] = json!("Grep");
    ev["tool_input"] = json!({"pattern": "token", "path": t.home});
    let out = hook(&t, "claude-code", &ev);
    let reason = format!(
        "shellgate deny (protected_path): {} holds files protected by shellgate; a recursive read of it would reach them",
        t.home
    );
    assert_eq!(out.stdout, claude("deny", &reason), "{out:?}");

    let mut ev = fixture(&t, "claude-code-write.json");
    ev["tool_name"] = json!("Glob");
    ev["tool_input"] = json!({"pattern": "**/*.rs"});
    let out = hook(&t, "claude-code", &ev);
    assert!(
        out.stdout.contains("\"permissionDecision\":\"allow\""),
        "{out:?}"
    );

    let tools: Vec<String> = decisions(&t).into_iter().map(|r| r.1).collect();
    assert_eq!(
        tools,
        vec![
            "file_write",
            "file_write",
            "file_edit",
            "file_read",
            "file_read",
            "file_list"
        ]
    );
}

#[test]
fn claude_asks_only_where_a_human_can_answer() {
    let t = tree();
    let ev = shell_event(&t, "claude-code-bash.json", "git push origin main");
    // Interactive (2.1.330: ATTENDED=1; older builds: ENTRYPOINT=cli).
    let out = hook(&t, "claude-code", &ev);
    assert_eq!(out.stdout, claude("ask", &push_ask(&t)), "{out:?}");
    let out = hook_env(
        &t,
        &["hook", "claude-code"],
        &[("CLAUDE_CODE_SESSION_ATTENDED", "")],
        &ev,
    );
    assert_eq!(
        out.stdout,
        claude("deny", &push_nobody(&t, CLAUDE_P)),
        "{out:?}"
    );
    // `claude -p` on 2.1.330 and on 2.1.197 (no ATTENDED, sdk-cli).
    for env in [
        vec![
            ("CLAUDE_CODE_SESSION_ATTENDED", "0"),
            ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli"),
        ],
        vec![("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")],
    ] {
        let mut c = command(&t, &["hook", "claude-code"]);
        c.env("CLAUDE_PROJECT_DIR", &t.proj);
        for (k, v) in &env {
            c.env(k, v);
        }
        let out = run_with(c, ev.to_string().as_bytes());
        assert_eq!(out.code, 0, "{env:?}: {out:?}");
        assert_eq!(
            out.stdout,
            claude("deny", &push_nobody(&t, CLAUDE_P)),
            "{env:?}: {out:?}"
        );
    }
    // Neither variable: unknown, so nobody (fail closed).
    let mut c = command(&t, &["hook", "claude-code"]);
    c.env("CLAUDE_PROJECT_DIR", &t.proj);
    let out = run_with(c, ev.to_string().as_bytes());
    assert_eq!(
        out.stdout,
        claude(
            "deny",
            &push_nobody(
                &t,
                "Whether a human can answer is unknown (Claude Code set neither CLAUDE_CODE_SESSION_ATTENDED nor CLAUDE_CODE_ENTRYPOINT)"
            )
        ),
        "{out:?}"
    );
    // A complex command where nobody can answer: the one-time approval.
    let cmd = "for f in *.txt; do wc -l \"$f\"; done";
    let mut c = command(&t, &["hook", "claude-code"]);
    c.env("CLAUDE_PROJECT_DIR", &t.proj)
        .env("CLAUDE_CODE_SESSION_ATTENDED", "0");
    let out = run_with(
        c,
        shell_event(&t, "claude-code-bash.json", cmd)
            .to_string()
            .as_bytes(),
    );
    let v: Value = serde_json::from_str(out.stdout.trim()).expect("JSON");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("reason");
    assert!(
        reason.contains(&format!(
            "{CLAUDE_P}, so the call is blocked. It can only be approved once, not granted for reuse; a human approves it with:\n  shellgate decide --option approve_once --session '{CLAUDE_SID}' --cwd '{}' -- ",
            t.proj
        )),
        "{reason}"
    );
}

#[test]
fn events_are_answered_in_their_own_format_or_not_at_all() {
    let t = tree();
    // Events that take no answer: nothing on stdout, exit 0 — even
    // without a tool_name.
    for (host, fx, names) in [
        (
            "claude-code",
            "claude-code-bash.json",
            &[
                "Notification",
                "SessionStart",
                "PermissionRequest",
                "Stop",
                "UserPromptSubmit",
            ][..],
        ),
        (
            "gemini",
            "gemini-run_shell_command.json",
            &[
                "AfterTool",
                "BeforeModel",
                "SessionStart",
                "Notification",
                "AfterAgent",
            ][..],
        ),
        (
            "codex",
            "codex-bash.json",
            &[
                "PostToolUse",
                "SessionStart",
                "Stop",
                "UserPromptSubmit",
                "PermissionRequest",
            ][..],
        ),
    ] {
        for name in names {
            let mut ev = shell_event(&t, fx, "rm -rf /");
            ev["hook_event_name"] = json!(name);
            let out = hook(&t, host, &ev);
            assert_eq!(
                (out.code, out.stdout.as_str()),
                (0, ""),
                "{host} {name}: {out:?}"
            );
            let bare = json!({"session_id": "s1", "hook_event_name": name, "cwd": t.proj});
            let out = hook(&t, host, &bare);
            assert_eq!(
                (out.code, out.stdout.as_str()),
                (0, ""),
                "{host} {name} without a tool: {out:?}"
            );
        }
    }
    // Nothing of that was evaluated (not even the state db was opened).
    assert!(!Path::new(&format!("{}/state/shellgate.db", t.gate)).exists());
    // A missing or non-string event name is the gated event (fail closed).
    let mut ev = shell_event(&t, "claude-code-bash.json", "rm -rf /");
    ev["hook_event_name"] = json!(7);
    let out = hook(&t, "claude-code", &ev);
    assert_eq!(out.stdout, claude("deny", RM_DENY), "{out:?}");
    ev.as_object_mut().map(|m| m.remove("hook_event_name"));
    let out = hook(&t, "claude-code", &ev);
    assert_eq!(out.stdout, claude("deny", RM_DENY), "{out:?}");
}

#[test]
fn claude_post_tool_use_records_an_approval_in_the_dialog() {
    let t = tree();
    let ev = shell_event(&t, "claude-code-bash.json", "git push origin main");
    let out = hook(&t, "claude-code", &ev);
    assert_eq!(out.stdout, claude("ask", &push_ask(&t)), "{out:?}");
    // The human said Yes in Claude's dialog: the tool ran, PostToolUse.
    let mut post = ev.clone();
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
    let out = hook(&t, "claude-code", &post);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    // Once only: a second PostToolUse (or one for an allowed call) adds
    // nothing.
    let out = hook(&t, "claude-code", &post);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    let allowed = fixture(&t, "claude-code-bash.json");
    assert_eq!(
        hook(&t, "claude-code", &allowed).stdout,
        claude("allow", SAFE_ALLOW)
    );
    let mut post_allowed = allowed.clone();
    post_allowed["hook_event_name"] = json!("PostToolUse");
    assert_eq!(hook(&t, "claude-code", &post_allowed).stdout, "");
    // Another session's PostToolUse for the same command is not a match.
    let mut other = post.clone();
    other["session_id"] = json!("another-session");
    assert_eq!(hook(&t, "claude-code", &other).stdout, "");
    let log: Vec<(Option<String>, String, String, String, String)> = decisions(&t)
        .into_iter()
        .map(|r| (r.0, r.2, r.3, r.4, r.5))
        .collect();
    let sid = Some(CLAUDE_SID.to_string());
    assert_eq!(
        log,
        vec![
            (
                sid.clone(),
                "git push origin main".into(),
                "ask".into(),
                "approval_required".into(),
                "hook:claude-code".into()
            ),
            (
                sid.clone(),
                "git push origin main".into(),
                "allow".into(),
                "approved_in_host_dialog".into(),
                "hook:claude-code".into()
            ),
            (
                sid,
                "git status".into(),
                "allow".into(),
                "safe_verb_in_safe_space".into(),
                "hook:claude-code".into()
            ),
        ]
    );
}

// ----- Gemini CLI ---------------------------------------------------------

#[test]
fn gemini_allow_ask_deny() {
    let t = tree();
    let out = hook(&t, "gemini", &fixture(&t, "gemini-run_shell_command.json"));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");

    // Not under an interactive Gemini CLI (no gemini process above the
    // hook): nobody can answer, so the ask is a deny naming the grants.
    let ev = shell_event(&t, "gemini-run_shell_command.json", "git push origin main");
    let out = hook(&t, "gemini", &ev);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        gemini("deny", &push_nobody(&t, GEMINI_UNKNOWN)),
        "{out:?}"
    );

    let out = hook(
        &t,
        "gemini",
        &shell_event(&t, "gemini-run_shell_command.json", "rm -rf /"),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, gemini("deny", RM_DENY), "{out:?}");

    let log = decisions(&t);
    assert_eq!(log.len(), 3);
    assert!(log
        .iter()
        .all(|r| r.5 == "hook:gemini" && r.0.as_deref() == Some(GEMINI_SID)));
}

#[test]
fn gemini_dir_path_is_relative_to_cwd() {
    let t = tree();
    std::fs::create_dir_all(format!("{}/sub", t.proj)).expect("mkdir");
    let mut ev = shell_event(&t, "gemini-run_shell_command.json", "make build");
    ev["tool_input"]["dir_path"] = json!("sub");
    let out = hook(&t, "gemini", &ev);
    let reason = format!(
        "shellgate ask (approval_required): make build in {p}/sub is not approved\n\
         {GEMINI_UNKNOWN}, so the call is blocked. A human can grant it with one of the following, then the agent retries:\n  \
         shellgate approvals allow 'make build' --dir '{p}/sub'\n  \
         shellgate approvals trust-verb 'make build'",
        p = t.proj
    );
    assert_eq!(out.stdout, gemini("deny", &reason), "{out:?}");
}

#[test]
fn gemini_file_tools() {
    let t = tree();
    let out = hook(&t, "gemini", &fixture(&t, "gemini-write_file.json"));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");

    let mut ev = fixture(&t, "gemini-write_file.json");
    ev["tool_name"] = json!("replace");
    ev["tool_input"] =
        json!({"file_path": ".gemini/settings.json", "old_string": "a", "new_string": "b"});
    let out = hook(&t, "gemini", &ev);
    let reason = format!(
        "shellgate deny (protected_path): {}/.gemini/settings.json is protected by shellgate",
        t.proj
    );
    assert_eq!(out.stdout, gemini("deny", &reason), "{out:?}");

    let mut ev = fixture(&t, "gemini-write_file.json");
    ev["tool_name"] = json!("read_many_files");
    ev["tool_input"] = json!({"include": ["src/**/*.rs", format!("{}/config/*", t.gate)]});
    let out = hook(&t, "gemini", &ev);
    assert!(out.stdout.starts_with("{\"decision\":\"deny\""), "{out:?}");
    assert!(out.stdout.contains("(protected_path)"), "{out:?}");
}

#[test]
fn gemini_headless_asks_become_denies() {
    let t = tree();
    let ev = shell_event(&t, "gemini-run_shell_command.json", "git push origin main");
    let out = hook_args(&t, &["hook", "gemini", "--channel", "headless"], &ev);
    let reason = format!(
        "shellgate deny (channel_does_not_support_approval): git push origin main in {p} is not approved, and no human can approve on this channel\n\
         No human can approve on this channel. To grant it in advance, run one of:\n  \
         shellgate approvals allow 'git push origin main' --dir '{p}'\n  \
         shellgate approvals trust-verb 'git push origin main'",
        p = t.proj
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, gemini("deny", &reason), "{out:?}");
    let show = run(&t, &["session", "show", GEMINI_SID], b"");
    let s: Value = serde_json::from_str(&show.stdout).expect("session JSON");
    assert_eq!(s["channel"], "headless");
    assert_eq!(s["audience"], "personal");
    // Read-only work in the project still runs unattended.
    let out = hook_args(
        &t,
        &["hook", "gemini", "--channel", "headless"],
        &fixture(&t, "gemini-run_shell_command.json"),
    );
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    // The recorded channel sticks: the hook cannot widen it back.
    let out = hook_args(&t, &["hook", "gemini", "--channel", "interactive"], &ev);
    assert!(out.stdout.starts_with("{\"decision\":\"deny\""), "{out:?}");
    let out = hook(&t, "gemini", &ev);
    assert!(out.stdout.starts_with("{\"decision\":\"deny\""), "{out:?}");
}

/// Run the gemini hook under a stand-in for the Gemini CLI process: a
/// shell script named `gemini` (argv `sh …/gemini ARGS`) that runs the
/// hook as its child, with or without a terminal on its own stdin.
fn under_fake_gemini(t: &Tree, args: &[&str], terminal: bool, event: &Value) -> Out {
    let dir = format!("{}/fakebin", t.root);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let script = format!("{dir}/gemini");
    let ev_file = format!("{}/event.json", t.root);
    let out_file = format!("{}/hook.out", t.root);
    let err_file = format!("{}/hook.err", t.root);
    std::fs::write(&ev_file, event.to_string()).expect("event");
    std::fs::write(
        &script,
        format!(
            // A pipeline: the shell's own stdin stays as it is (`cmd < file`
            // would redirect the shell's fd 0 while the command runs).
            "#!/bin/sh\ncat '{ev_file}' | '{BIN}' hook gemini > '{out_file}' 2> '{err_file}'\necho \"hook-exit=$?\"\n"
        ),
    )
    .expect("script");
    let mut c = Command::new("/bin/sh");
    c.arg(&script)
        .args(args)
        .env("HOME", &t.home)
        .env("SHELLGATE_HOME", &t.gate)
        .current_dir(&t.proj);
    let code = if terminal {
        let mut p = rexpect::session::spawn_command(c, Some(30_000)).expect("pty");
        let (_, m) = p.exp_regex("hook-exit=[0-9]+").expect("hook ran");
        m.trim_start_matches("hook-exit=").parse().unwrap_or(-1)
    } else {
        let o = c.stdin(Stdio::null()).output().expect("sh");
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        text.trim()
            .trim_start_matches("hook-exit=")
            .parse()
            .unwrap_or(-1)
    };
    Out {
        code,
        stdout: std::fs::read_to_string(&out_file).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_file).unwrap_or_default(),
    }
}

#[test]
fn gemini_asks_only_in_an_interactive_session() {
    let t = tree();
    let ev = shell_event(&t, "gemini-run_shell_command.json", "git push origin main");
    // Interactive: a terminal, no -p, no query.
    let out = under_fake_gemini(&t, &[], true, &ev);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, gemini("ask", &push_ask(&t)), "{out:?}");
    let out = under_fake_gemini(&t, &["-i", "fix the bug", "--yolo"], true, &ev);
    assert_eq!(out.stdout, gemini("ask", &push_ask(&t)), "{out:?}");
    // -p, even with a terminal: Gemini would wait forever on an ask.
    let out = under_fake_gemini(&t, &["-p", "hi", "--output-format", "json"], true, &ev);
    assert_eq!(
        out.stdout,
        gemini(
            "deny",
            &push_nobody(
                &t,
                "Nobody can answer a question in this non-interactive Gemini CLI run (-p)"
            )
        ),
        "{out:?}"
    );
    let out = under_fake_gemini(&t, &["summarize this repo"], true, &ev);
    assert!(
        out.stdout
            .contains("non-interactive Gemini CLI run (a query on the command line)"),
        "{out:?}"
    );
    // No terminal.
    let out = under_fake_gemini(&t, &[], false, &ev);
    assert_eq!(
        out.stdout,
        gemini(
            "deny",
            &push_nobody(
                &t,
                "Nobody can answer a question in this Gemini CLI run (no terminal: non-interactive)"
            )
        ),
        "{out:?}"
    );
    // Allow and deny do not depend on it.
    let out = under_fake_gemini(
        &t,
        &["-p", "hi"],
        false,
        &fixture(&t, "gemini-run_shell_command.json"),
    );
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
}

#[test]
fn gemini_grep_search_is_a_recursive_read() {
    let t = tree();
    let mut ev = fixture(&t, "gemini-write_file.json");
    ev["tool_name"] = json!("grep_search");
    ev["tool_input"] = json!({"pattern": "token", "dir_path": t.home});
    let out = hook(&t, "gemini", &ev);
    let reason = format!(
        "shellgate deny (protected_path): {} holds files protected by shellgate; a recursive read of it would reach them",
        t.home
    );
    assert_eq!(out.stdout, gemini("deny", &reason), "{out:?}");
    ev["tool_input"] = json!({"pattern": "fn main"});
    let out = hook(&t, "gemini", &ev);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    let logged: Vec<(String, String)> = decisions(&t).into_iter().map(|r| (r.1, r.2)).collect();
    assert_eq!(
        logged,
        vec![
            ("file_read".to_string(), t.home.clone()),
            ("file_read".to_string(), t.proj.clone())
        ]
    );
}

// ----- Codex --------------------------------------------------------------

#[test]
fn codex_allow_ask_deny() {
    let t = tree();
    let out = hook(&t, "codex", &fixture(&t, "codex-bash.json"));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");

    let ev = shell_event(&t, "codex-bash.json", "git push origin main");
    let out = hook(&t, "codex", &ev);
    let reason = format!(
        "shellgate ask (approval_required): git push origin main in {p} is not approved\n\
         Codex hooks cannot ask, so the call is blocked. A human can grant it with one of the following, then the agent retries:\n  \
         shellgate approvals allow 'git push origin main' --dir '{p}'\n  \
         shellgate approvals trust-verb 'git push origin main'",
        p = t.proj
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, codex_deny(&reason), "{out:?}");

    let out = hook(&t, "codex", &shell_event(&t, "codex-bash.json", "rm -rf /"));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, codex_deny(RM_DENY), "{out:?}");

    let log = decisions(&t);
    let got: Vec<(&str, &str)> = log.iter().map(|r| (r.3.as_str(), r.5.as_str())).collect();
    assert_eq!(
        got,
        vec![
            ("allow", "hook:codex"),
            ("ask", "hook:codex"),
            ("deny", "hook:codex")
        ]
    );
    assert!(log.iter().all(|r| r.0.as_deref() == Some(CODEX_SID)));
}

#[test]
fn codex_complex_command_runs_once_after_the_printed_command() {
    let t = tree();
    let cmd = "for f in *.txt; do wc -l \"$f\"; done";
    let ev = shell_event(&t, "codex-bash.json", cmd);
    let out = hook(&t, "codex", &ev);
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(out.stdout.trim()).expect("JSON");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("reason");
    let line = reason
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("shellgate decide"))
        .expect("a decide command in the reason");
    assert_eq!(
        line,
        format!(
            "shellgate decide --option approve_once --session '{CODEX_SID}' --cwd '{}' -- 'for f in *.txt; do wc -l \"$f\"; done'",
            t.proj
        )
    );
    // A human runs exactly that line in a shell.
    let human = human_runs(&t, line);
    assert!(human.status.success(), "{human:?}");
    // Allowed exactly once.
    let out = hook(&t, "codex", &ev);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    let out = hook(&t, "codex", &ev);
    assert!(
        out.stdout.contains("\"permissionDecision\":\"deny\""),
        "{out:?}"
    );
}

#[test]
fn codex_apply_patch_gates_every_path() {
    let t = tree();
    let out = hook(&t, "codex", &fixture(&t, "codex-apply_patch.json"));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    let logged: Vec<(String, String)> = decisions(&t).into_iter().map(|r| (r.1, r.2)).collect();
    let p = &t.proj;
    assert_eq!(
        logged,
        vec![
            ("file_write".to_string(), format!("{p}/docs/new.md")),
            ("file_write".to_string(), format!("{p}/src/lib.rs")),
            ("file_write".to_string(), format!("{p}/src/core.rs")),
            ("file_write".to_string(), format!("{p}/old.txt")),
        ]
    );

    // One protected path anywhere in the patch denies the whole patch.
    let mut ev = fixture(&t, "codex-apply_patch.json");
    ev["tool_input"]["command"] = json!(
        "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Update File: ../../.codex/hooks.json\n@@\n-a\n+b\n*** End Patch\n"
    );
    let out = hook(&t, "codex", &ev);
    let reason = format!(
        "shellgate deny (protected_path): {}/.codex/hooks.json is protected by shellgate",
        t.home
    );
    assert_eq!(out.stdout, codex_deny(&reason), "{out:?}");

    // A patch naming no file cannot be evaluated.
    ev["tool_input"]["command"] = json!("*** Begin Patch\n*** End Patch\n");
    let out = hook(&t, "codex", &ev);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("(invalid_call)"), "{out:?}");
}

// ----- robustness ---------------------------------------------------------

#[test]
fn malformed_input_blocks_with_exit_2() {
    let t = tree();
    let mut big = br#"{"tool_name":"Bash","pad":""#.to_vec();
    big.extend(std::iter::repeat_n(b'a', 1_100_000));
    big.extend(br#""}"#);
    let nested = "[".repeat(100_000);
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("not json", b"this is not json".to_vec()),
        ("empty", Vec::new()),
        ("array", b"[1, 2, 3]".to_vec()),
        (
            "no tool_name",
            br#"{"session_id": "s1", "cwd": "/"}"#.to_vec(),
        ),
        ("tool_name not a string", br#"{"tool_name": 7}"#.to_vec()),
        ("invalid utf-8", b"{\"tool_name\": \"\xff\xfe\"}".to_vec()),
        ("over 1 MiB", big),
        ("deep nesting", nested.into_bytes()),
    ];
    for host in ["claude-code", "gemini", "codex"] {
        for (what, input) in &inputs {
            let out = run(&t, &["hook", host], input);
            assert_eq!(out.code, 2, "{host} {what}: {out:?}");
            assert_eq!(out.stdout, "", "{host} {what}: {out:?}");
            assert!(
                out.stderr.starts_with("shellgate: "),
                "{host} {what}: {out:?}"
            );
        }
    }
}

#[test]
fn unknown_tools_pass_through() {
    let t = tree();
    let cases = [
        ("claude-code", "claude-code-bash.json", "WebFetch"),
        (
            "claude-code",
            "claude-code-bash.json",
            "mcp__github__create_issue",
        ),
        (
            "gemini",
            "gemini-run_shell_command.json",
            "google_web_search",
        ),
        ("codex", "codex-bash.json", "mcp__fs__read_text_file"),
    ];
    for (host, fx, tool) in cases {
        let mut ev = fixture(&t, fx);
        ev["tool_name"] = json!(tool);
        ev["tool_input"] = json!({"url": "https://example.com"});
        let out = hook(&t, host, &ev);
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (0, "", ""),
            "{host} {tool}: {out:?}"
        );
    }
}

#[test]
fn missing_or_bad_fields_deny_in_the_host_format() {
    let t = tree();
    type Edit = Box<dyn Fn(&mut Value)>;
    let edits: Vec<(&str, Edit, &str)> = vec![
        (
            "no tool_input",
            Box::new(|v: &mut Value| {
                v.as_object_mut().map(|m| m.remove("tool_input"));
            }),
            "invalid call: tool_input is missing or not an object",
        ),
        (
            "command not a string",
            Box::new(|v: &mut Value| v["tool_input"]["command"] = json!(5)),
            "is missing",
        ),
        (
            "no session",
            Box::new(|v: &mut Value| {
                v.as_object_mut().map(|m| m.remove("session_id"));
            }),
            "invalid call: session_id is missing or not a string",
        ),
        (
            "bad session id",
            Box::new(|v: &mut Value| v["session_id"] = json!("../../etc")),
            "invalid call: session id '../../etc' does not match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$",
        ),
        (
            "no cwd",
            Box::new(|v: &mut Value| {
                v.as_object_mut().map(|m| m.remove("cwd"));
            }),
            "invalid call: cwd is missing or not an absolute path",
        ),
        (
            "relative cwd",
            Box::new(|v: &mut Value| v["cwd"] = json!("repos/proj")),
            "invalid call: cwd is missing or not an absolute path",
        ),
    ];
    for (host, fx) in [
        ("claude-code", "claude-code-bash.json"),
        ("gemini", "gemini-run_shell_command.json"),
        ("codex", "codex-bash.json"),
    ] {
        for (what, edit, needle) in &edits {
            let mut ev = fixture(&t, fx);
            edit(&mut ev);
            let out = hook(&t, host, &ev);
            assert_eq!(out.code, 0, "{host} {what}: {out:?}");
            let v: Value = serde_json::from_str(out.stdout.trim()).expect("JSON output");
            let (decision, reason) = match host {
                "gemini" => (&v["decision"], &v["reason"]),
                _ => (
                    &v["hookSpecificOutput"]["permissionDecision"],
                    &v["hookSpecificOutput"]["permissionDecisionReason"],
                ),
            };
            assert_eq!(decision, "deny", "{host} {what}: {out:?}");
            let reason = reason.as_str().expect("reason");
            assert!(
                reason.starts_with("shellgate deny (invalid_call): "),
                "{host} {what}: {out:?}"
            );
            assert!(reason.contains(needle), "{host} {what}: {out:?}");
        }
    }
    // Denials of unreadable events are logged too (without a bad session id).
    let log = decisions(&t);
    assert_eq!(log.len(), 18);
    assert!(log.iter().all(|r| r.3 == "deny" && r.4 == "invalid_call"));
    assert!(log.iter().all(|r| r.0.as_deref() != Some("../../etc")));
}

#[test]
fn huge_command_is_denied() {
    let t = tree();
    let cmd = format!("echo {}", "a".repeat(100_000));
    let out = hook(
        &t,
        "claude-code",
        &shell_event(&t, "claude-code-bash.json", &cmd),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        claude(
            "deny",
            "shellgate deny (invalid_call): invalid call: the command is longer than 65536 bytes"
        )
    );
}

#[test]
fn corrupted_store_is_quarantined_not_fatal() {
    let t = tree();
    std::fs::create_dir_all(format!("{}/config", t.gate)).expect("mkdir");
    std::fs::write(
        format!("{}/config/tool-approvals.json", t.gate),
        "{ garbage",
    )
    .expect("write");
    let out = hook(&t, "claude-code", &fixture(&t, "claude-code-bash.json"));
    assert_eq!(out.stdout, claude("allow", SAFE_ALLOW), "{out:?}");
    assert!(Path::new(&format!("{}/config/tool-approvals.json.invalid", t.gate)).exists());
}

#[test]
fn unreadable_state_db_blocks_with_exit_2() {
    let t = tree();
    std::fs::create_dir_all(format!("{}/state", t.gate)).expect("mkdir");
    std::fs::write(
        format!("{}/state/shellgate.db", t.gate),
        vec![0x5a_u8; 8192],
    )
    .expect("write");
    for host in ["claude-code", "gemini", "codex"] {
        let fx = match host {
            "claude-code" => "claude-code-bash.json",
            "gemini" => "gemini-run_shell_command.json",
            _ => "codex-bash.json",
        };
        let out = hook(&t, host, &fixture(&t, fx));
        assert_eq!(out.code, 2, "{host}: {out:?}");
        assert_eq!(out.stdout, "", "{host}: {out:?}");
        assert!(out.stderr.contains("shellgate.db"), "{host}: {out:?}");
    }
}

#[test]
fn malformed_policy_blocks_with_exit_2() {
    let t = tree();
    std::fs::create_dir_all(format!("{}/config", t.gate)).expect("mkdir");
    std::fs::write(format!("{}/config/policy.toml", t.gate), "audiences = [").expect("write");
    let out = hook(&t, "codex", &fixture(&t, "codex-bash.json"));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("policy.toml"), "{out:?}");
}

#[test]
fn open_stdin_never_hangs() {
    let t = tree();
    let mut c = command(&t, &["hook", "claude-code"]);
    c.env("SHELLGATE_HOOK_STDIN_TIMEOUT_MS", "300")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    let _keep_open = child.stdin.take();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("try_wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("the hook hung on an open stdin");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(2));
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no complete hook event"), "{stderr}");
}

#[test]
fn non_default_home_is_named_in_grant_commands() {
    let mut t = tree();
    t.gate = format!("{}/gate", t.root);
    let ev = shell_event(&t, "claude-code-bash.json", "git push origin main");
    let out = hook(&t, "claude-code", &ev);
    let reason = format!(
        "shellgate ask (approval_required): git push origin main in {p} is not approved\n\
         Not granted. To allow it from now on, run one of:\n  \
         shellgate approvals allow 'git push origin main' --dir '{p}' --home '{g}'\n  \
         shellgate approvals trust-verb 'git push origin main' --home '{g}'",
        p = t.proj,
        g = t.gate
    );
    assert_eq!(out.stdout, claude("ask", &reason), "{out:?}");
}

// ----- install / uninstall -------------------------------------------------

fn exe() -> String {
    Path::new(BIN)
        .canonicalize()
        .expect("canonical binary")
        .to_string_lossy()
        .to_string()
}

fn read_json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

struct HostCase {
    host: &'static str,
    fixture: &'static str,
    rel: &'static str,
    /// Our group for each event we install, the gated event first.
    groups: Vec<(&'static str, Value)>,
}

const GEMINI_MATCHER: &str = "run_shell_command|read_file|read_many_files|list_directory|glob|grep_search|search_file_content|write_file|replace";
const CLAUDE_MATCHER: &str = "Bash|Read|Glob|Grep|LS|Write|Edit|MultiEdit|NotebookEdit";

fn host_cases(cmd_suffix: &str) -> Vec<HostCase> {
    // `install` waits 120 s for the approval service by default; the host's
    // timeout is 30 s above that.
    let cmd = |host: &str| format!("{} hook {host}{cmd_suffix} --wait 120", exe());
    vec![
        HostCase {
            host: "claude-code",
            fixture: "claude-code-settings.json",
            rel: ".claude/settings.json",
            groups: vec![
                (
                    "PreToolUse",
                    json!({
                        "matcher": CLAUDE_MATCHER,
                        "hooks": [{"type": "command", "command": cmd("claude-code"), "timeout": 150, "onFailure": "block"}]
                    }),
                ),
                (
                    "PostToolUse",
                    json!({
                        "matcher": CLAUDE_MATCHER,
                        "hooks": [{"type": "command", "command": cmd("claude-code"), "timeout": 150}]
                    }),
                ),
            ],
        },
        HostCase {
            host: "gemini",
            fixture: "gemini-settings.json",
            rel: ".gemini/settings.json",
            groups: vec![(
                "BeforeTool",
                json!({
                    "matcher": GEMINI_MATCHER,
                    "hooks": [{
                        "name": "shellgate",
                        "type": "command",
                        "command": cmd("gemini"),
                        "timeout": 150000,
                        "description": "shellgate: allow, ask or deny shell commands and file access"
                    }]
                }),
            )],
        },
        HostCase {
            host: "codex",
            fixture: "codex-hooks.json",
            rel: ".codex/hooks.json",
            groups: vec![(
                "PreToolUse",
                json!({
                    "matcher": "Bash|apply_patch",
                    "hooks": [{"type": "command", "command": cmd("codex"), "timeout": 150, "statusMessage": "shellgate: checking the call"}]
                }),
            )],
        },
    ]
}

/// A user's Codex config.toml, with comments and its own hook trust.
const CODEX_CONFIG: &str = "# my Codex settings\nmodel = \"gpt-5-codex\"  # the default model\n\n[features]\nweb_search = true\n\n# trusted by me in /hooks\n[hooks.state.\"/elsewhere/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:0000\"\n";

/// `[hooks.state."<key>"]` `trusted_hash` entries of a config.toml text.
fn trust_of(config: &str) -> Vec<(String, String)> {
    let doc: toml_edit::DocumentMut = config.parse().expect("config.toml is TOML");
    let mut out = Vec::new();
    if let Some(state) = doc
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_table_like())
    {
        for (k, v) in state.iter() {
            let hash = v
                .get("trusted_hash")
                .and_then(|h| h.as_str())
                .unwrap_or("")
                .to_string();
            out.push((k.to_string(), hash));
        }
    }
    out
}

/// The key and hash Codex gives a handler, by the reference recipe
/// (tests/e2e/codex_trust.rs, hashing with the system's sha256sum).
fn codex_identity(hooks_json: &str, doc: &Value, needle: &str) -> Vec<(String, String)> {
    let all = codex_trust::trust_entries(hooks_json, doc);
    let mut out = Vec::new();
    for (key, hash) in all {
        let parts: Vec<&str> = key.rsplitn(3, ':').collect();
        let (j, i): (usize, usize) = (parts[0].parse().expect("j"), parts[1].parse().expect("i"));
        let ev = if key.contains(":pre_tool_use:") {
            "PreToolUse"
        } else {
            continue;
        };
        let cmd = doc["hooks"][ev][i]["hooks"][j]["command"]
            .as_str()
            .unwrap_or("");
        if cmd.contains(needle) {
            out.push((key, hash));
        }
    }
    out
}

#[test]
fn install_uninstall_round_trip_keeps_other_hooks_and_keys() {
    for c in host_cases("") {
        let t = tree();
        let path = format!("{}/{}", t.home, c.rel);
        let cfg = format!("{}/.codex/config.toml", t.home);
        std::fs::create_dir_all(Path::new(&path).parent().expect("parent")).expect("mkdir");
        let original_bytes = std::fs::read(fixture_path(c.fixture)).expect("fixture");
        std::fs::write(&path, &original_bytes).expect("write");
        if c.host == "codex" {
            std::fs::write(&cfg, CODEX_CONFIG).expect("write config.toml");
        }
        let original: Value = serde_json::from_slice(&original_bytes).expect("JSON");

        let out = run(&t, &["install", c.host], b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        let installed = read_json(&path);
        let mut without = installed.clone();
        for (event, group) in &c.groups {
            // Exactly one entry of ours, at the end of the event's groups.
            let groups = installed["hooks"][*event].as_array().expect("groups");
            let ours: Vec<&Value> = groups.iter().filter(|g| *g == group).collect();
            assert_eq!(ours.len(), 1, "{} {event}: {installed:#}", c.host);
            assert_eq!(groups.last(), Some(group), "{} {event}", c.host);
            without["hooks"][*event]
                .as_array_mut()
                .expect("groups")
                .retain(|g| g != group);
            if original["hooks"].get(*event).is_none() {
                without["hooks"]
                    .as_object_mut()
                    .expect("hooks")
                    .remove(*event);
            }
        }
        // Everything else is untouched.
        assert_eq!(without, original, "{}", c.host);
        // The previous file is kept.
        assert_eq!(
            std::fs::read(format!("{path}.bak")).expect("backup"),
            original_bytes,
            "{}",
            c.host
        );
        if c.host == "codex" {
            // The trust Codex computes for our handler, recorded; the
            // user's config.toml otherwise untouched (comments included).
            let expected = codex_identity(&path, &installed, " hook codex");
            assert_eq!(expected.len(), 1);
            assert_eq!(expected[0].0, format!("{path}:pre_tool_use:1:0"));
            let text = std::fs::read_to_string(&cfg).expect("config.toml");
            assert!(text.starts_with(CODEX_CONFIG), "{text}");
            assert_eq!(
                trust_of(&text),
                vec![
                    (
                        "/elsewhere/.codex/hooks.json:stop:0:0".to_string(),
                        "sha256:0000".to_string()
                    ),
                    expected[0].clone()
                ]
            );
            assert!(out.stdout.contains(&expected[0].0), "{out:?}");
            assert!(!out.stdout.contains("[features]"), "{out:?}");
        }

        // Idempotent.
        let after_first = std::fs::read(&path).expect("read");
        let cfg_first = std::fs::read(&cfg).ok();
        let out = run(&t, &["install", c.host], b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        assert!(
            out.stdout.contains("already installed"),
            "{}: {out:?}",
            c.host
        );
        assert_eq!(
            std::fs::read(&path).expect("read"),
            after_first,
            "{}",
            c.host
        );
        assert_eq!(std::fs::read(&cfg).ok(), cfg_first, "{}", c.host);

        // Uninstall removes exactly what install added: byte for byte.
        let out = run(&t, &["uninstall", c.host], b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        assert_eq!(
            std::fs::read(&path).expect("read"),
            original_bytes,
            "{}",
            c.host
        );
        if c.host == "codex" {
            assert_eq!(
                std::fs::read_to_string(&cfg).expect("config.toml"),
                CODEX_CONFIG
            );
        }
        let out = run(&t, &["uninstall", c.host], b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        assert!(
            out.stdout.contains("nothing changed"),
            "{}: {out:?}",
            c.host
        );
        assert_eq!(read_json(&path), original, "{}", c.host);
    }
}

#[test]
fn install_project_scope_and_fresh_files() {
    for c in host_cases(" --channel headless") {
        let t = tree();
        let mut cmd = command(
            &t,
            &["install", c.host, "--project", "--channel", "headless"],
        );
        cmd.current_dir(&t.proj);
        let out = run_with(cmd, b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        let path = format!("{}/{}", t.proj, c.rel);
        let mut expected = serde_json::Map::new();
        for (event, group) in &c.groups {
            expected.insert(event.to_string(), json!([group]));
        }
        assert_eq!(read_json(&path), json!({"hooks": expected}), "{}", c.host);
        assert!(!Path::new(&format!("{path}.bak")).exists());
        assert!(!Path::new(&format!("{}/{}", t.home, c.rel)).exists());
        let cfg = format!("{}/.codex/config.toml", t.home);
        if c.host == "codex" {
            // The project hook's trust is recorded in the user's config,
            // and the user is told that Codex needs the project trusted.
            let text = std::fs::read_to_string(&cfg).expect("config.toml");
            let key = format!("{path}:pre_tool_use:0:0");
            assert_eq!(
                trust_of(&text),
                codex_identity(&path, &read_json(&path), " hook codex")
            );
            assert_eq!(trust_of(&text)[0].0, key);
            assert!(
                out.stdout.contains(&format!(
                    "[projects.\"{}\"]\n  trust_level = \"trusted\"",
                    t.proj
                )),
                "{out:?}"
            );
        }
        let mut cmd = command(&t, &["uninstall", c.host, "--project"]);
        cmd.current_dir(&t.proj);
        let out = run_with(cmd, b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        assert_eq!(read_json(&path), json!({}), "{}", c.host);
        // config.toml did not exist before: it is gone again.
        assert!(!Path::new(&cfg).exists(), "{}", c.host);
    }
}

#[test]
fn codex_trust_follows_the_users_hooks_when_ours_moves() {
    let t = tree();
    let path = format!("{}/.codex/hooks.json", t.home);
    let cfg = format!("{}/.codex/config.toml", t.home);
    std::fs::create_dir_all(format!("{}/.codex", t.home)).expect("mkdir");
    // The user's hook A, then ours (installed), then the user's hook B,
    // each trusted.
    std::fs::write(
        &path,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/a.sh"}]}]}}"#,
    )
    .expect("write");
    std::fs::write(&cfg, "model = \"m\"\n").expect("write");
    let out = run(&t, &["install", "codex"], b"");
    assert_eq!(out.code, 0, "{out:?}");
    let mut doc = read_json(&path);
    doc["hooks"]["PreToolUse"]
        .as_array_mut()
        .expect("groups")
        .push(json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/b.sh", "timeout": 5}]}));
    std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("json")).expect("write");
    let all = codex_trust::trust_entries(&path, &doc);
    let mut text = std::fs::read_to_string(&cfg).expect("cfg");
    for (k, h) in &all {
        if !k.ends_with(":1:0") {
            text.push_str(&format!(
                "\n[hooks.state.\"{k}\"]\ntrusted_hash = \"{h}\"\n"
            ));
        }
    }
    std::fs::write(&cfg, &text).expect("write");
    let hash_b = all[2].1.clone();

    // A reinstall changes nothing, in place.
    let out = run(&t, &["install", "codex"], b"");
    assert!(out.stdout.contains("already installed"), "{out:?}");
    assert_eq!(std::fs::read_to_string(&cfg).expect("cfg"), text);

    // A modified entry of ours (another timeout) is rewritten in place and
    // trusted again; nobody else moves.
    let mut doc = read_json(&path);
    doc["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"] = json!(7);
    std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("json")).expect("write");
    let out = run(&t, &["install", "codex"], b"");
    assert_eq!(out.code, 0, "{out:?}");
    let doc = read_json(&path);
    assert_eq!(doc["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"], 150);
    let mut now = codex_trust::trust_entries(&path, &doc);
    let mut got = trust_of(&std::fs::read_to_string(&cfg).expect("cfg"));
    now.sort();
    got.sort();
    assert_eq!(got, now);

    // Uninstall: B moves from index 2 to 1, and its trust moves with it.
    let out = run(&t, &["uninstall", "codex"], b"");
    assert_eq!(out.code, 0, "{out:?}");
    let doc = read_json(&path);
    assert_eq!(
        doc["hooks"]["PreToolUse"][1]["hooks"][0]["command"],
        "/opt/b.sh"
    );
    let mut trust = trust_of(&std::fs::read_to_string(&cfg).expect("cfg"));
    trust.sort();
    assert_eq!(
        trust,
        vec![
            (format!("{path}:pre_tool_use:0:0"), all[0].1.clone()),
            (format!("{path}:pre_tool_use:1:0"), hash_b),
        ]
    );
    assert_eq!(trust, codex_trust::trust_entries(&path, &doc));
}

#[test]
fn install_replaces_a_stale_entry_and_names_a_custom_home() {
    let mut t = tree();
    t.gate = format!("{}/gate", t.root);
    let path = format!("{}/.codex/hooks.json", t.home);
    std::fs::create_dir_all(format!("{}/.codex", t.home)).expect("mkdir");
    std::fs::write(
        &path,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/place/shellgate hook codex"}]}]}}"#,
    )
    .expect("write");
    let out = run(&t, &["install", "codex"], b"");
    assert_eq!(out.code, 0, "{out:?}");
    let doc = read_json(&path);
    let groups = doc["hooks"]["PreToolUse"].as_array().expect("groups");
    assert_eq!(groups.len(), 1, "{doc:#}");
    assert_eq!(
        groups[0]["hooks"][0]["command"],
        json!(format!("{} --home {} hook codex --wait 120", exe(), t.gate))
    );
}

#[test]
fn install_refuses_a_malformed_settings_file() {
    let t = tree();
    let path = format!("{}/.gemini/settings.json", t.home);
    std::fs::create_dir_all(format!("{}/.gemini", t.home)).expect("mkdir");
    std::fs::write(&path, "{ \"theme\": ").expect("write");
    let out = run(&t, &["install", "gemini"], b"");
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains(&path), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "{ \"theme\": "
    );
    assert!(!Path::new(&format!("{path}.bak")).exists());
}

#[test]
fn installed_command_runs_the_hook() {
    // The command written into the settings is a working hook.
    let t = tree();
    let out = run(&t, &["install", "claude-code"], b"");
    assert_eq!(out.code, 0, "{out:?}");
    let doc = read_json(&format!("{}/.claude/settings.json", t.home));
    let cmd = doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .expect("command")
        .to_string();
    let mut sh = Command::new("sh");
    sh.args(["-c", &cmd])
        .env("HOME", &t.home)
        .env("SHELLGATE_HOME", &t.gate)
        .env("CLAUDE_PROJECT_DIR", &t.proj);
    let out = run_with(
        sh,
        fixture(&t, "claude-code-bash.json").to_string().as_bytes(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, claude("allow", SAFE_ALLOW), "{out:?}");
}
