//! Host adapters (`shellgate hook claude-code|gemini|codex`) and
//! `shellgate install|uninstall`, through the real binary with `HOME` and
//! `SHELLGATE_HOME` in a fresh temporary tree. Events are real-shaped
//! (tests/hooks/*.json, `{H}` = home, `{P}` = project, `{X}` = outside).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

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

fn hook_args(t: &Tree, args: &[&str], event: &Value) -> Out {
    let mut c = command(t, args);
    if args.get(1) == Some(&"claude-code") {
        c.env("CLAUDE_PROJECT_DIR", &t.proj);
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

// ----- Gemini CLI ---------------------------------------------------------

#[test]
fn gemini_allow_ask_deny() {
    let t = tree();
    let out = hook(&t, "gemini", &fixture(&t, "gemini-run_shell_command.json"));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");

    let ev = shell_event(&t, "gemini-run_shell_command.json", "git push origin main");
    let out = hook(&t, "gemini", &ev);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, gemini("ask", &push_ask(&t)), "{out:?}");

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
         Not granted. To allow it from now on, run one of:\n  \
         shellgate approvals allow 'make build' --dir '{p}/sub'\n  \
         shellgate approvals trust-verb 'make build'",
        p = t.proj
    );
    assert_eq!(out.stdout, gemini("ask", &reason), "{out:?}");
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
    event: &'static str,
    group: Value,
}

fn host_cases(cmd_suffix: &str) -> Vec<HostCase> {
    let cmd = |host: &str| format!("{} hook {host}{cmd_suffix}", exe());
    vec![
        HostCase {
            host: "claude-code",
            fixture: "claude-code-settings.json",
            rel: ".claude/settings.json",
            event: "PreToolUse",
            group: json!({
                "matcher": "Bash|Read|Glob|Grep|LS|Write|Edit|MultiEdit|NotebookEdit",
                "hooks": [{"type": "command", "command": cmd("claude-code"), "timeout": 30, "onFailure": "block"}]
            }),
        },
        HostCase {
            host: "gemini",
            fixture: "gemini-settings.json",
            rel: ".gemini/settings.json",
            event: "BeforeTool",
            group: json!({
                "matcher": "run_shell_command|read_file|read_many_files|list_directory|glob|search_file_content|write_file|replace",
                "hooks": [{
                    "name": "shellgate",
                    "type": "command",
                    "command": cmd("gemini"),
                    "timeout": 30000,
                    "description": "shellgate: allow, ask or deny shell commands and file access"
                }]
            }),
        },
        HostCase {
            host: "codex",
            fixture: "codex-hooks.json",
            rel: ".codex/hooks.json",
            event: "PreToolUse",
            group: json!({
                "matcher": "Bash|apply_patch",
                "hooks": [{"type": "command", "command": cmd("codex"), "timeout": 30, "statusMessage": "shellgate: checking the call"}]
            }),
        },
    ]
}

#[test]
fn install_uninstall_round_trip_keeps_other_hooks_and_keys() {
    for c in host_cases("") {
        let t = tree();
        let path = format!("{}/{}", t.home, c.rel);
        std::fs::create_dir_all(Path::new(&path).parent().expect("parent")).expect("mkdir");
        let original_bytes = std::fs::read(fixture_path(c.fixture)).expect("fixture");
        std::fs::write(&path, &original_bytes).expect("write");
        let original: Value = serde_json::from_slice(&original_bytes).expect("JSON");

        let out = run(&t, &["install", c.host], b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        let installed = read_json(&path);
        // Exactly one entry of ours, at the end of the event's groups.
        let groups = installed["hooks"][c.event].as_array().expect("groups");
        let ours: Vec<&Value> = groups.iter().filter(|g| **g == c.group).collect();
        assert_eq!(ours.len(), 1, "{}: {installed:#}", c.host);
        // Everything else is untouched.
        let mut without = installed.clone();
        without["hooks"][c.event]
            .as_array_mut()
            .expect("groups")
            .retain(|g| *g != c.group);
        if original["hooks"].get(c.event).is_none() {
            without["hooks"]
                .as_object_mut()
                .expect("hooks")
                .remove(c.event);
        }
        assert_eq!(without, original, "{}", c.host);
        // The previous file is kept.
        assert_eq!(
            std::fs::read(format!("{path}.bak")).expect("backup"),
            original_bytes,
            "{}",
            c.host
        );

        // Idempotent.
        let after_first = std::fs::read(&path).expect("read");
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

        // Uninstall removes exactly our entry.
        let out = run(&t, &["uninstall", c.host], b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        assert_eq!(read_json(&path), original, "{}", c.host);
        assert_eq!(
            std::fs::read(format!("{path}.bak")).expect("backup"),
            after_first
        );
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
        assert_eq!(
            read_json(&path),
            json!({"hooks": {c.event: [c.group.clone()]}}),
            "{}",
            c.host
        );
        assert!(!Path::new(&format!("{path}.bak")).exists());
        assert!(!Path::new(&format!("{}/{}", t.home, c.rel)).exists());
        let mut cmd = command(&t, &["uninstall", c.host, "--project"]);
        cmd.current_dir(&t.proj);
        let out = run_with(cmd, b"");
        assert_eq!(out.code, 0, "{}: {out:?}", c.host);
        assert_eq!(read_json(&path), json!({}), "{}", c.host);
    }
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
        json!(format!("{} --home {} hook codex", exe(), t.gate))
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
