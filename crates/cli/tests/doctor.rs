//! `shellgate doctor` against fixture homes: a healthy setup, an untrusted
//! and a modified Codex hook, an old Claude Code, a matcher missing a
//! current tool name, an unusable gate home. The hosts on PATH are small
//! stand-in scripts that print the version a real one would.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_shellgate");

struct Home {
    _tmp: tempfile::TempDir,
    home: String,
    bin: String,
}

/// A fresh home with stand-ins for `claude`, `codex`, `gemini` and
/// `node` reporting the given versions (`None`: not installed).
fn home(claude: Option<&str>, node: &str) -> Home {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    let home = root.join("home");
    let bin = root.join("bin");
    std::fs::create_dir_all(&home).expect("mkdir");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let mut tools = vec![
        ("codex", "codex-cli 0.169.0".to_string()),
        ("gemini", "0.61.0".to_string()),
        ("node", node.to_string()),
    ];
    if let Some(v) = claude {
        tools.push(("claude", format!("{v} (Claude Code)")));
    }
    for (name, version) in tools {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\necho '{version}'\n")).expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    Home {
        _tmp: tmp,
        home: home.display().to_string(),
        bin: bin.display().to_string(),
    }
}

fn shellgate(h: &Home, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_clear()
        .env("HOME", &h.home)
        .env("PATH", format!("{}:/usr/bin:/bin", h.bin))
        .current_dir(&h.home)
        .stdin(Stdio::null())
        .output()
        .expect("run shellgate")
}

fn doctor(h: &Home, args: &[&str]) -> (i32, String) {
    let mut a = vec!["doctor", "--no-host-query"];
    a.extend_from_slice(args);
    let o = shellgate(h, &a);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

fn install(h: &Home, host: &str) {
    let o = shellgate(h, &["install", host]);
    assert!(o.status.success(), "install {host}: {o:?}");
}

fn edit_json(path: &str, f: impl Fn(&mut Value)) {
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
    f(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).expect("json")).expect("write");
}

#[test]
fn a_healthy_setup_has_no_problem() {
    let h = home(Some("2.1.330"), "v22.12.0");
    for host in ["claude-code", "codex", "gemini"] {
        install(&h, host);
    }
    let (code, out) = doctor(&h, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("No problems found."), "{out}");
    assert!(out.contains("claude-code 2.1.330"), "{out}");
    assert!(out.contains("codex 0.169.0"), "{out}");
    assert!(out.contains("gemini 0.61.0"), "{out}");
    assert!(!out.contains("PROBLEM"), "{out}");
}

#[test]
fn nothing_installed_is_a_problem() {
    let h = home(Some("2.1.330"), "v22.12.0");
    let (code, out) = doctor(&h, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("PROBLEM: no host has the shellgate hook installed"),
        "{out}"
    );
    let (code, out) = doctor(&h, &["--host", "codex"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("fix: shellgate install codex"), "{out}");
}

#[test]
fn untrusted_codex_hook() {
    let h = home(None, "v22.12.0");
    install(&h, "codex");
    // The trust entry is gone (as after an install by an older shellgate).
    let cfg = format!("{}/.codex/config.toml", h.home);
    std::fs::remove_file(&cfg).expect("rm config.toml");
    let (code, out) = doctor(&h, &["--host", "codex"]);
    assert_eq!(code, 1, "{out}");
    let key = format!("{}/.codex/hooks.json:pre_tool_use:0:0", h.home);
    assert!(
        out.contains(&format!(
            "PROBLEM: Codex does not trust the shellgate hook ({cfg} has no [hooks.state.\"{key}\"]): Codex skips it, so the gate never runs"
        )),
        "{out}"
    );
    assert!(out.contains("fix: shellgate install codex"), "{out}");
    // The fix fixes it.
    install(&h, "codex");
    let (code, out) = doctor(&h, &["--host", "codex"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn modified_codex_hook() {
    let h = home(None, "v22.12.0");
    install(&h, "codex");
    let hooks = format!("{}/.codex/hooks.json", h.home);
    edit_json(&hooks, |v| {
        v["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(45);
    });
    let (code, out) = doctor(&h, &["--host", "codex"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("PROBLEM: Codex sees the shellgate hook as modified"),
        "{out}"
    );
    assert!(out.contains("fix: shellgate install codex"), "{out}");
}

#[test]
fn old_claude_code_ignores_on_failure() {
    let h = home(Some("2.1.197"), "v20.20.2");
    install(&h, "claude-code");
    let (code, out) = doctor(&h, &["--host", "claude-code"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("PROBLEM: Claude Code 2.1.197 ignores \"onFailure\": \"block\""),
        "{out}"
    );
    assert!(
        out.contains("fix: node 20.20.2 is older than 22.0.0, so npm installs an old Claude Code: install node 22 or later, then run: npm install -g @anthropic-ai/claude-code@latest"),
        "{out}"
    );
    // install warns too (and still succeeds).
    let o = shellgate(&h, &["install", "claude-code"]);
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("warning: Claude Code 2.1.197 ignores"),
        "{o:?}"
    );
    // A missing host never fails an install.
    let h = home(None, "v20.20.2");
    let o = shellgate(&h, &["install", "claude-code"]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).is_empty(), "{o:?}");
}

#[test]
fn claude_settings_without_the_fail_closed_setting() {
    let h = home(Some("2.1.330"), "v22.12.0");
    install(&h, "claude-code");
    let settings = format!("{}/.claude/settings.json", h.home);
    edit_json(&settings, |v| {
        let handler = &mut v["hooks"]["PreToolUse"][0]["hooks"][0];
        handler.as_object_mut().map(|m| m.remove("onFailure"));
        handler["timeout"] = json!(5);
        v["hooks"].as_object_mut().map(|m| m.remove("PostToolUse"));
    });
    let (code, out) = doctor(&h, &["--host", "claude-code"]);
    assert_eq!(code, 1, "{out}");
    for needle in [
        "PROBLEM: the hook has no \"onFailure\": \"block\"",
        "PROBLEM: the hook's timeout (5 s) is not above its own deadline (135 s: its --wait of 120 s for the approval service + 15 s)",
        "PROBLEM: no shellgate PostToolUse hook",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
    assert!(out.contains("3 problems found."), "{out}");
}

#[test]
fn a_timeout_that_fits_the_old_deadline_but_not_the_wait() {
    // 100 s used to be plenty (deadline 15 s); with `--wait 120` the hook
    // may answer after 135 s, so the host would give up first.
    let h = home(Some("2.1.330"), "v22.12.0");
    install(&h, "claude-code");
    let settings = format!("{}/.claude/settings.json", h.home);
    edit_json(&settings, |v| {
        v["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(100);
    });
    let (code, out) = doctor(&h, &["--host", "claude-code"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("PROBLEM: the hook's timeout (100 s) is not above its own deadline (135 s"),
        "{out}"
    );
    // A hook installed with a shorter wait fits a shorter timeout.
    let o = shellgate(&h, &["install", "claude-code", "--wait", "40"]);
    assert!(o.status.success(), "{o:?}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("settings")).expect("json");
    let handler = &v["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(handler["timeout"], 70);
    assert!(
        handler["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("hook claude-code --wait 40")),
        "{handler}"
    );
    let (code, out) = doctor(&h, &["--host", "claude-code"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn gemini_matcher_missing_current_tool_names() {
    let h = home(None, "v22.12.0");
    install(&h, "gemini");
    let settings = format!("{}/.gemini/settings.json", h.home);
    // What an older shellgate installed.
    edit_json(&settings, |v| {
        v["hooks"]["BeforeTool"][0]["matcher"] = json!(
            "run_shell_command|read_file|read_many_files|list_directory|glob|search_file_content|write_file|replace"
        );
    });
    let (code, out) = doctor(&h, &["--host", "gemini"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("misses grep_search: those tools run ungated"),
        "{out}"
    );
    assert!(out.contains("fix: shellgate install gemini"), "{out}");
}

#[test]
fn unusable_gate_home_and_missing_program() {
    let h = home(None, "v22.12.0");
    install(&h, "codex");
    let state = format!("{}/.shellgate/state", h.home);
    std::fs::create_dir_all(format!("{}/.shellgate", h.home)).expect("mkdir");
    std::fs::write(&state, "not a directory").expect("write");
    let hooks = format!("{}/.codex/hooks.json", h.home);
    edit_json(&hooks, |v| {
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = json!("/nowhere/shellgate hook codex");
    });
    let (code, out) = doctor(&h, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "PROBLEM: {state} is not a directory: the state database cannot be opened, so every hook call is blocked\n    fix: mv '{state}' '{state}.broken'"
        )),
        "{out}"
    );
    assert!(
        out.contains(
            "PROBLEM: the hook command starts \"/nowhere/shellgate\", which does not exist"
        ),
        "{out}"
    );
    assert!(Path::new(&state).is_file(), "doctor changes nothing");
}
