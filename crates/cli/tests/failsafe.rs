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

/// A batch file of `n` numbered lines (`echo line-K`) with `hang` and
/// `panic` among them, evaluated with those faults injected.
#[cfg(feature = "fault-injection")]
fn batch(lines: &[String], fault: Option<&str>) -> (Option<i32>, Vec<serde_json::Value>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let proj = home.join("proj");
    std::fs::create_dir_all(&proj).expect("mkdir");
    let file = tmp.path().join("batch.txt");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let mut c = Command::new(BIN);
    c.args(["check", "--batch"])
        .arg(&file)
        .arg("--cwd")
        .arg(&proj)
        .arg("--project-dir")
        .arg(&proj)
        .env("HOME", &home)
        .env_remove("SHELLGATE_HOME")
        .env_remove("SHELLGATE_FAULT");
    if let Some(f) = fault {
        c.env("SHELLGATE_FAULT", f);
    }
    let out = c.output().expect("run");
    let values = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            // The scratch directory differs from run to run.
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json line");
            if let Some(o) = v.as_object_mut() {
                o.remove("cwd");
            }
            v
        })
        .collect();
    (out.status.code(), values)
}

/// A batch line that hangs is answered deny after the line limit and the
/// batch goes on with a fresh worker: every other line is answered as
/// without the fault, in order — also those read ahead and finished by the
/// abandoned worker but not yet handed back, and a second hang among the
/// lines the fresh worker took over.
#[cfg(feature = "fault-injection")]
#[test]
fn a_hanging_batch_line_is_denied_and_the_batch_goes_on() {
    let mut lines: Vec<String> = (0..300).map(|k| format!("echo line-{k}")).collect();
    lines[130] = "echo hang-me".into();
    let (code, clean) = batch(&lines, None);
    assert_eq!(code, Some(0));
    assert_eq!(clean.len(), 300);
    let start = Instant::now();
    let (code, faulty) = batch(&lines, Some("batch-hang:echo hang-me"));
    assert!(start.elapsed().as_secs_f64() >= 5.0);
    assert_eq!(code, Some(1), "a timed-out line shows in the exit status");
    assert_eq!(faulty.len(), 300);
    for (k, (a, b)) in clean.iter().zip(&faulty).enumerate() {
        if k == 130 {
            assert_eq!(b["decision"], "deny");
            assert_eq!(b["command"], "echo hang-me");
            assert!(b["message"]
                .as_str()
                .is_some_and(|m| m.contains("did not finish in time")));
        } else {
            assert_eq!(a, b, "line {k}");
        }
    }
    // The same line twice: the fresh worker meets it again.
    lines[131] = "echo hang-me".into();
    let (code, faulty) = batch(&lines, Some("batch-hang:echo hang-me"));
    assert_eq!(code, Some(1));
    assert_eq!(faulty.len(), 300);
    for k in [130, 131] {
        assert_eq!(faulty[k]["decision"], "deny", "line {k}");
        assert_eq!(faulty[k]["command"], "echo hang-me");
    }
    assert_eq!(faulty[129], clean[129]);
    assert_eq!(faulty[132], clean[132]);
    assert_eq!(faulty[299], clean[299]);
    // A panic is an internal error on that line only.
    let (code, faulty) = batch(&lines, Some("batch-panic:echo hang-me"));
    assert_eq!(code, Some(1));
    assert_eq!(faulty.len(), 300);
    assert!(faulty[130]["message"]
        .as_str()
        .is_some_and(|m| m.contains("internal error")));
    assert_eq!(faulty[200], clean[200]);
}
