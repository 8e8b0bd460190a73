//! The policy through the real binary: sessions, one-time and "This chat"
//! approvals, policy.toml, user safe verbs, usage errors.

use std::process::{Command, Output};

use serde_json::Value;

struct Env {
    _tmp: tempfile::TempDir,
    home: String,
    gate: String,
    proj: String,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp
        .path()
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let home = format!("{root}/home");
    let gate = format!("{home}/.shellgate");
    let proj = format!("{home}/repos/proj");
    std::fs::create_dir_all(&proj).unwrap();
    Env {
        _tmp: tmp,
        home,
        gate,
        proj,
    }
}

impl Env {
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_shellgate"))
            .env("HOME", &self.home)
            .env("SHELLGATE_HOME", &self.gate)
            .args(args)
            .output()
            .unwrap()
    }

    fn check(&self, extra: &[&str], cmd: &str) -> (i32, Value) {
        let mut args = vec!["check", "--json", "--os", "linux"];
        args.extend_from_slice(extra);
        args.push("--");
        args.push(cmd);
        let out = self.run(&args);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code().unwrap_or(-1), v)
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn once_approval_is_used_once() {
    let e = env();
    let args = ["--cwd", &e.proj, "--session", "s1"];
    let (code, d) = e.check(&args, "for f in a b; do make $f; done");
    assert_eq!((code, d["reason"].as_str()), (10, Some("complex_command")));
    let out = e.run(&[
        "decide",
        "--option",
        "approve_once",
        "--cwd",
        &e.proj,
        "--session",
        "s1",
        "--",
        "for f in a b; do make $f; done",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Approved (no save)"));
    let (code, d) = e.check(&args, "for f in a b; do make $f; done");
    assert_eq!((code, d["reason"].as_str()), (0, Some("approved_once")));
    let (code, _) = e.check(&args, "for f in a b; do make $f; done");
    assert_eq!(code, 10, "a Once approval is consumed");
    // Complex commands offer nothing that persists.
    let out = e.run(&[
        "decide",
        "--option",
        "approve_always",
        "--cwd",
        &e.proj,
        "--session",
        "s1",
        "--",
        "for f in a b; do make $f; done",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn this_chat_grants_end_with_the_session() {
    let e = env();
    let out = e.run(&[
        "session",
        "create",
        "--id",
        "c1",
        "--audience",
        "personal",
        "--project-dir",
        &e.proj,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // The grants are under test, not the sandboxed allow of SPEC §18.
    let args = ["--session", "c1", "--no-sandbox"];
    let (code, d) = e.check(&args, "make build");
    assert_eq!(code, 10);
    assert_eq!(
        d["cwd"].as_str(),
        Some(e.proj.as_str()),
        "cwd defaults to the project dir"
    );
    let out = e.run(&[
        "decide",
        "--option",
        "approve_session",
        "--session",
        "c1",
        "--",
        "make build",
    ]);
    assert!(
        text(&out).contains("Saved for this chat: make build in"),
        "{}",
        text(&out)
    );
    let (code, d) = e.check(&args, "make build");
    assert_eq!(code, 0);
    assert_eq!(
        d["candidates"][0]["status"].as_str(),
        Some("granted_session")
    );
    // A child session sees its parent's grants.
    let out = e.run(&["session", "create", "--id", "c2", "--parent", "c1"]);
    assert!(out.status.success(), "{}", text(&out));
    let (code, _) = e.check(&["--session", "c2"], "make build");
    assert_eq!(code, 0);
    // Ending the session ends its grants (and the session: later calls in
    // it are refused); nothing reached the JSON store.
    assert!(e.run(&["session", "end", "c1"]).status.success());
    let out = e.run(&["check", "--session", "c1", "--", "make build"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("ended"));
    assert!(!std::path::Path::new(&format!("{}/config/tool-approvals.json", e.gate)).exists());
}

#[test]
fn audiences_only_narrow() {
    let e = env();
    assert!(e
        .run(&["session", "create", "--id", "t1", "--audience", "team"])
        .status
        .success());
    let out = e.run(&[
        "check",
        "--session",
        "t1",
        "--audience",
        "personal",
        "--",
        "ls",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("audience_escalation"));
    let out = e.run(&[
        "session",
        "create",
        "--id",
        "t2",
        "--parent",
        "t1",
        "--audience",
        "personal",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("audience_escalation"));
    // Without parent or audience a session is public: shell is denied.
    assert!(e.run(&["session", "create", "--id", "p1"]).status.success());
    let (code, d) = e.check(&["--session", "p1"], "ls");
    assert_eq!(
        (code, d["reason"].as_str()),
        (11, Some("tool_denied_by_approval_policy"))
    );
}

#[test]
fn usage_errors_exit_2() {
    let e = env();
    assert_eq!(
        e.run(&["check", "--audience", "root", "--", "ls"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        e.run(&["check", "--session", "bad id!", "--", "ls"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(e.run(&["check", "--bogus"]).status.code(), Some(2));
}

#[test]
fn malformed_policy_is_an_error_naming_file_and_line() {
    let e = env();
    std::fs::create_dir_all(format!("{}/config", e.gate)).unwrap();
    std::fs::write(
        format!("{}/config/policy.toml", e.gate),
        "[audiences.personal]\ndefault_mode = \"sometimes\"\n",
    )
    .unwrap();
    let out = e.run(&["check", "--", "ls"]);
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out);
    assert!(t.contains("policy.toml") && t.contains("line 2"), "{t}");
}

#[test]
fn policy_file_modes_and_custom_deny() {
    let e = env();
    std::fs::create_dir_all(format!("{}/config", e.gate)).unwrap();
    std::fs::write(
        format!("{}/config/policy.toml", e.gate),
        "[audiences.personal.modes]\nshell_execute = \"auto\"\n\n[[hard_deny]]\nverb = \"docker rm\"\nreason = \"containers are managed by the platform team\"\n",
    )
    .unwrap();
    let (code, d) = e.check(&["--cwd", &e.proj], "make deploy");
    assert_eq!((code, d["reason"].as_str()), (0, Some("tool_auto")));
    let (code, d) = e.check(&["--cwd", &e.proj], "docker rm -f web");
    assert_eq!(
        (code, d["reason"].as_str()),
        (11, Some("hard_deny_custom_deny"))
    );
    // auto never skips hard deny or protected paths.
    let (code, _) = e.check(&["--cwd", &e.proj], "rm -rf /");
    assert_eq!(code, 11);
    let (code, d) = e.check(
        &["--cwd", &e.proj],
        "cat ~/.shellgate/config/tool-approvals.json",
    );
    assert_eq!((code, d["reason"].as_str()), (11, Some("protected_path")));
}

#[test]
fn user_safe_verbs_are_additive() {
    let e = env();
    let args = [
        "--cwd",
        &e.proj,
        "--project-dir",
        &e.proj,
        "--session",
        "s1",
        // The safe verbs are under test, not the sandboxed allow (SPEC §18).
        "--no-sandbox",
    ];
    let (code, _) = e.check(&args, "cargo tree");
    assert_eq!(code, 10);
    std::fs::create_dir_all(format!("{}/config", e.gate)).unwrap();
    std::fs::write(
        format!("{}/config/safe-verbs.linux.json", e.gate),
        "{\"verbs\": [\"cargo tree\"]}",
    )
    .unwrap();
    let (code, d) = e.check(&args, "cargo tree");
    assert_eq!(
        (code, d["reason"].as_str()),
        (0, Some("safe_verb_in_safe_space"))
    );
    // A malformed file is a warning; the bundled list still applies.
    std::fs::write(
        format!("{}/config/safe-verbs.linux.json", e.gate),
        "{not json",
    )
    .unwrap();
    let out = e.run(&[
        "check",
        "--json",
        "--os",
        "linux",
        "--cwd",
        &e.proj,
        "--project-dir",
        &e.proj,
        "--session",
        "s1",
        "--",
        "ls",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning"));
}

#[test]
fn always_here_skips_too_broad_directories() {
    let e = env();
    let out = e.run(&[
        "decide",
        "--option",
        "approve_always",
        "--cwd",
        &e.proj,
        "--",
        "cat /etc/hosts && make build",
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("Skipped (too broad): cat in /etc"), "{t}");
    let (code, d) = e.check(&["--cwd", &e.proj], "make build");
    assert_eq!((code, d["reason"].as_str()), (0, Some("granted")));
}

#[test]
fn batch_mixes_raw_lines_and_json_calls() {
    let e = env();
    let file = format!("{}/batch.txt", e.home);
    std::fs::write(
        &file,
        format!(
            "ls\n\n{{\"command\": \"rm -rf /\"}}\n{{\"command\": \"ls\", \"cwd\": \"{p}\", \"project_dir\": \"{p}\", \"session\": \"b1\"}}\nnot {{json\n",
            p = e.proj
        ),
    )
    .unwrap();
    let out = e.run(&["check", "--batch", &file, "--cwd", &e.proj]);
    assert!(out.status.success(), "{}", text(&out));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["decision"], "ask");
    assert_eq!(lines[1]["reason"], "invalid_call");
    assert_eq!(lines[2]["reason"], "hard_deny_system_destructive");
    assert_eq!(lines[3]["reason"], "safe_verb_in_safe_space");
    assert_eq!(lines[4]["command"], "not {json");
}

#[test]
fn session_show_and_set_project_dir() {
    let e = env();
    assert!(e
        .run(&["session", "create", "--id", "w1", "--audience", "personal"])
        .status
        .success());
    let (code, _) = e.check(&["--session", "w1", "--cwd", &e.proj], "ls");
    assert_eq!(code, 10, "no project declared: ls asks");
    let out = e.run(&[
        "session",
        "set-project-dir",
        "w1",
        &format!("{}/missing", e.proj),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let out = e.run(&["session", "set-project-dir", "w1", &e.proj]);
    assert!(out.status.success(), "{}", text(&out));
    let (code, d) = e.check(&["--session", "w1"], "ls");
    assert_eq!(
        (code, d["reason"].as_str()),
        (0, Some("safe_verb_in_safe_space"))
    );
    let out = e.run(&["session", "show", "w1"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["project_dir"].as_str(), Some(e.proj.as_str()));
    assert_eq!(v["audience"], "personal");
    // Public sessions cannot declare a project.
    assert!(e
        .run(&["session", "create", "--id", "pub1", "--audience", "public"])
        .status
        .success());
    let out = e.run(&["session", "set-project-dir", "pub1", &e.proj]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(e.run(&["session", "show", "nosuch"]).status.code(), Some(1));
}

#[test]
fn explain_is_plain_without_a_terminal() {
    let e = env();
    let out = e.run(&[
        "explain",
        "--cwd",
        &e.proj,
        "--",
        "timeout 5 make build > /tmp/log",
    ]);
    assert_eq!(out.status.code(), Some(10));
    let t = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!t.contains('\u{1b}'), "no colour when not a terminal: {t}");
    assert!(t.contains("unwrapped from timeout"), "{t}");
    assert!(t.contains("make build in /tmp: unapproved"), "{t}");
    assert!(
        t.contains("Prompt: Approve make build in 2 directories?"),
        "{t}"
    );
}

/// `git show ID` is a safe read when the repository holds the id as a
/// commit only; a blob's id (a committed `.env`, listed by `git log
/// --raw`) asks, and so does a tag named like a commit's id.
#[test]
fn git_show_of_an_object_id_reads_the_repository() {
    let e = env();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(&e.proj)
            .env("HOME", &e.home)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q", "."]);
    std::fs::write(format!("{}/.env", e.proj), "TOKEN=SECRET\n").unwrap();
    std::fs::write(format!("{}/main.go", e.proj), "package main\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "one"]);
    git(&["rm", "-q", "--cached", ".env"]);
    git(&["commit", "-qm", "drop the env file"]);
    std::fs::write(
        format!("{}/main.go", e.proj),
        "package main\n\nfunc main() {}\n",
    )
    .unwrap();
    git(&["commit", "-qam", "main"]);
    let commit = git(&["rev-parse", "--short=8", "HEAD"]);
    let blob = git(&["rev-parse", "--short=8", "HEAD~2:.env"]);
    let ctx = ["--cwd", e.proj.as_str(), "--project-dir", e.proj.as_str()];
    let decision = |cmd: &str| {
        e.check(&ctx, cmd).1["decision"]
            .as_str()
            .unwrap_or("?")
            .to_string()
    };
    assert_eq!(decision(&format!("git show {commit} --stat")), "allow");
    assert_eq!(decision(&format!("git diff {commit}~1 {commit}")), "allow");
    assert_eq!(decision(&format!("git show {blob}")), "ask");
    assert_eq!(decision(&format!("git diff {commit} {blob}")), "ask");
    git(&["gc", "-q"]);
    assert_eq!(decision(&format!("git show {commit}")), "allow");
    assert_eq!(decision(&format!("git show {blob}")), "ask");
    git(&["tag", &commit, "HEAD~2:.env"]);
    assert_eq!(decision(&format!("git show {commit}")), "ask");
}
