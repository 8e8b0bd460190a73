//! Fail closed (SPEC §15.9): every way `shellgate hook` can fail ends in
//! exit 2 with the reason on stderr and nothing on stdout — the block every
//! host honours (docs/hosts.md).
//!
//! The faults are injected with `SHELLGATE_FAULT`, compiled in only with
//! the `fault-injection` feature (`cargo test -p shellgate --features
//! fault-injection --test failsafe`; the host end-to-end suite builds it
//! that way). A default build must not contain the switch at all.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_shellgate");

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    #[cfg_attr(not(feature = "fault-injection"), allow(dead_code))]
    secs: f64,
}

fn hook(host: &str, fault: Option<&str>, event: &str) -> Run {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join("proj")).expect("mkdir");
    let event = event.replace("{P}", &home.join("proj").display().to_string());
    let mut c = Command::new(BIN);
    c.args(["hook", host])
        .env("HOME", &home)
        .env_remove("SHELLGATE_HOME")
        .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
        .env_remove("SHELLGATE_FAULT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(f) = fault {
        c.env("SHELLGATE_FAULT", f);
    }
    let start = Instant::now();
    let mut child = c.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(event.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        secs: start.elapsed().as_secs_f64(),
    }
}

fn event(host: &str) -> &'static str {
    match host {
        "gemini" => {
            r#"{"session_id":"s1","cwd":"{P}","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#
        }
        _ => {
            r#"{"session_id":"s1","cwd":"{P}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#
        }
    }
}

#[test]
fn without_a_fault_the_answer_passes_through_the_supervisor() {
    let r = hook("claude-code", None, event("claude-code"));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.starts_with("{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\""),
        "{}",
        r.stdout
    );
    for host in ["gemini", "codex"] {
        let r = hook(host, None, event(host));
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (Some(0), ""),
            "{host}: {}",
            r.stderr
        );
    }
}

#[cfg(not(feature = "fault-injection"))]
#[test]
fn a_default_build_has_no_fault_switch() {
    // The variable is ignored …
    let r = hook("codex", Some("panic"), event("codex"));
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), ""), "{}", r.stderr);
    // … and the code behind it is not in the binary.
    let bytes = std::fs::read(BIN).expect("binary");
    let needle = b"injected fault";
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "the fault-injection code is in a default build"
    );
}

#[cfg(feature = "fault-injection")]
#[test]
fn every_failure_blocks_in_every_host() {
    // Each kind, and the message that names it.
    let faults: &[(&str, &str)] = &[
        ("panic", "internal error"),
        ("abort", "signal 6"),
        ("segv", "signal 11"),
        ("stackoverflow", "signal 6"),
        ("oom", "signal 6"),
        ("kill", "signal 9"),
        ("exit1", "exit status 1"),
        ("badjson", "not its JSON answer"),
        ("hang", "did not finish within 10 s"),
        ("stop", "did not answer within 15 s"),
    ];
    let mut handles = Vec::new();
    for host in ["claude-code", "gemini", "codex"] {
        for (fault, says) in faults {
            handles.push(std::thread::spawn(move || {
                let r = hook(host, Some(fault), event(host));
                (host, *fault, *says, r)
            }));
        }
    }
    for h in handles {
        let (host, fault, says, r) = h.join().expect("thread");
        assert_eq!(r.code, Some(2), "{host} {fault}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{host} {fault}");
        assert!(r.stderr.contains(says), "{host} {fault}: {}", r.stderr);
        assert!(
            r.stderr.trim_end().ends_with("failing closed")
                || r.stderr.trim_end().ends_with("(fail closed)"),
            "{host} {fault}: {}",
            r.stderr
        );
        // Every block comes before the hook timeout install writes (30 s).
        assert!(r.secs < 20.0, "{host} {fault}: {:.1} s", r.secs);
    }
}
