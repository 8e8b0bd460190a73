//! End-to-end: the real Claude Code, Codex and Gemini CLI, installed from
//! npm at pinned versions (scripts/install-hosts.sh), run non-interactively
//! against a mock model server inside a network namespace that has only
//! loopback, after a plain `shellgate install <host>`.
//!
//! Run: `scripts/e2e-hosts.sh` (installs the hosts, then
//! `cargo test --release -p shellgate --features fault-injection --test hosts_e2e -- --ignored --exact hosts_e2e --nocapture`;
//! without the feature the `fault-*` cases fail: the hook does not crash).
//!
//! Environment:
//! - `SHELLGATE_E2E_HOSTS_DIR`: where the hosts are (default `target/hosts`);
//! - `SHELLGATE_E2E_OUT`: artifacts (default `target/e2e-hosts`);
//! - `SHELLGATE_E2E_ONLY`: comma-separated substrings of case ids to run;
//! - `SHELLGATE_E2E_SCOPE`: `full` (default: adds the hook probes, the
//!   event log, the injected hook failures and the interactive asks in a
//!   pseudo-terminal) or `quick` (allow, deny, ask, unusable home);
//! - `SHELLGATE_E2E_JOBS`: parallel cases (default 3);
//! - `SHELLGATE_E2E_RUN_TIMEOUT`: seconds per host run (default 75).
//!
//! The suite fails when a case's expectation fails, unless the case is
//! listed in tests/e2e/known-failures.txt; a listed case that passes fails
//! the suite too (remove it from the list).

#[path = "e2e/codex_trust.rs"]
mod codex_trust;
#[path = "e2e/harness.rs"]
mod harness;
#[path = "e2e/mock.rs"]
mod mock;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

// ----- the mock server, always tested ---------------------------------------

fn post(port: u16, path: &str, body: &Value) -> (String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to the mock");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let b = body.to_string();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{b}",
        b.len()
    )
    .expect("write request");
    let mut resp = String::new();
    s.read_to_string(&mut resp).expect("read response");
    let (head, body) = resp.split_once("\r\n\r\n").expect("http response");
    (head.to_string(), body.to_string())
}

fn sse_data(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).expect("SSE data is JSON"))
        .collect()
}

#[test]
fn mock_anthropic_tool_call_then_text() {
    let m = mock::MockServer::start("touch x").expect("mock");
    let tools = json!([{"name": "Bash", "input_schema": {}}]);
    let (head, body) = post(
        m.port,
        "/v1/messages?beta=true",
        &json!({"model": "m", "stream": true, "tools": tools, "messages": [{"role": "user", "content": "hi"}]}),
    );
    assert!(head.contains("text/event-stream"), "{head}");
    let ev = sse_data(&body);
    let start = ev
        .iter()
        .find(|e| e["type"] == "content_block_start")
        .expect("content block");
    assert_eq!(start["content_block"]["type"], "tool_use");
    assert_eq!(start["content_block"]["name"], "Bash");
    let delta = ev
        .iter()
        .find(|e| e["type"] == "content_block_delta")
        .expect("delta");
    let input: Value =
        serde_json::from_str(delta["delta"]["partial_json"].as_str().expect("json")).expect("args");
    assert_eq!(input["command"], "touch x");
    assert!(ev.iter().any(|e| e["delta"]["stop_reason"] == "tool_use"));
    // The tool result comes back: plain text, and it is recorded.
    let (_, body) = post(
        m.port,
        "/v1/messages",
        &json!({"model": "m", "stream": false, "tools": tools, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "blocked by hook", "is_error": true}]}]}),
    );
    let v: Value = serde_json::from_str(&body).expect("json message");
    assert_eq!(v["content"][0]["text"], mock::DONE_TEXT);
    let reqs = m.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].answered, "tool_call:Bash");
    assert_eq!(reqs[1].tool_results(), vec!["blocked by hook".to_string()]);
}

#[test]
fn mock_responses_and_gemini_formats() {
    let m = mock::MockServer::start("echo hi").expect("mock");
    let (_, body) = post(
        m.port,
        "/v1/responses",
        &json!({"model": "m", "stream": true, "tools": [{"type": "function", "name": "shell_command"}], "input": []}),
    );
    let ev = sse_data(&body);
    let item = ev
        .iter()
        .find(|e| e["type"] == "response.output_item.done")
        .expect("item");
    assert_eq!(item["item"]["type"], "function_call");
    assert_eq!(item["item"]["name"], "shell_command");
    let args: Value =
        serde_json::from_str(item["item"]["arguments"].as_str().expect("args")).expect("json");
    assert_eq!(args["command"], "echo hi");
    assert_eq!(ev.last().expect("events")["type"], "response.completed");
    // Only one tool call per server: the next tool-bearing request gets text.
    let (_, body) = post(
        m.port,
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        &json!({"contents": [], "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]}),
    );
    let ev = sse_data(&body);
    assert_eq!(
        ev[0]["candidates"][0]["content"]["parts"][0]["text"],
        mock::DONE_TEXT
    );
    let m = mock::MockServer::start("echo hi").expect("mock");
    let (_, body) = post(
        m.port,
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        &json!({"contents": [], "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]}),
    );
    let ev = sse_data(&body);
    let call = &ev[0]["candidates"][0]["content"]["parts"][0]["functionCall"];
    assert_eq!(call["name"], "run_shell_command");
    assert_eq!(call["args"]["command"], "echo hi");
    let (head, _) = post(m.port, "/v1/nothing", &json!({}));
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
}

/// The recipe against a hash the real Codex 0.169.0 reported through
/// `codex app-server` → `hooks/list` (`currentHash`) for this handler.
#[test]
fn codex_trust_hash_matches_codex_0_169() {
    let handler = json!({"type": "command", "command": "/tmp/cx/log.sh", "timeout": 30,
                         "statusMessage": "shellgate: checking the call"});
    let text = codex_trust::identity_json("pre_tool_use", Some("Bash|apply_patch"), &handler)
        .expect("identity");
    assert_eq!(
        text,
        r#"{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"/tmp/cx/log.sh","statusMessage":"shellgate: checking the call","timeout":30,"type":"command"}],"matcher":"Bash|apply_patch"}"#
    );
    assert_eq!(
        codex_trust::sha256(&text).as_deref(),
        Some("sha256:9e6a7c6eeb9ffa3b2db3d66064d8b2f749ebef668405bebeb2c4d9332de625f8")
    );
    let doc =
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash|apply_patch", "hooks": [handler]}]}});
    let entries = codex_trust::trust_entries("/h/.codex/hooks.json", &doc);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].0, "/h/.codex/hooks.json:pre_tool_use:0:0");
}

/// Manual debugging: serve the mock until killed. `SHELLGATE_MOCK_COMMAND`
/// (default `touch sg-marker-manual`), `SHELLGATE_MOCK_PORT_FILE` (the port
/// is written there), `SHELLGATE_MOCK_LOG` (requests appended as JSON lines).
#[test]
#[ignore = "manual: serves the mock model server until killed"]
fn mock_server_standalone() {
    // Never serve forever by accident (`cargo test -- --ignored` runs every
    // ignored test): only when asked to.
    if std::env::var_os("SHELLGATE_MOCK_PORT_FILE").is_none() {
        println!("mock_server_standalone: set SHELLGATE_MOCK_PORT_FILE to serve");
        return;
    }
    let cmd = std::env::var("SHELLGATE_MOCK_COMMAND")
        .unwrap_or_else(|_| "touch sg-marker-manual".to_string());
    let max = std::env::var("SHELLGATE_MOCK_MAX_TOOL_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let m = mock::MockServer::start_with(&cmd, max).expect("mock");
    if let Ok(f) = std::env::var("SHELLGATE_MOCK_PORT_FILE") {
        std::fs::write(f, m.port.to_string()).expect("port file");
    }
    println!("mock model server on 127.0.0.1:{}", m.port);
    let log = std::env::var("SHELLGATE_MOCK_LOG").ok();
    let mut seen = 0;
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let reqs = m.requests();
        for r in reqs.iter().skip(seen) {
            let line =
                json!({"method": r.method, "path": r.path, "answered": r.answered, "body": r.body});
            if let Some(path) = &log {
                if let Ok(mut f) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                {
                    let _ = writeln!(f, "{line}");
                }
            }
            println!("{} {} -> {}", r.method, r.path, r.answered);
        }
        seen = reqs.len();
    }
}

// ----- the real hosts ----------------------------------------------------------

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn which(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// Only loopback is visible, it is up, and nothing else is reachable.
fn isolated() -> Result<(), String> {
    // /proc/self/net/dev lists the interfaces of this process's namespace
    // (/sys/class/net shows the namespace sysfs was mounted in).
    let dev = std::fs::read_to_string("/proc/self/net/dev").map_err(|e| e.to_string())?;
    let names: Vec<String> = dev
        .lines()
        .skip(2)
        .filter_map(|l| l.split(':').next())
        .map(|n| n.trim().to_string())
        .collect();
    if names != ["lo"] {
        return Err(format!("network interfaces besides lo: {names:?}"));
    }
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = l.local_addr().map_err(|e| e.to_string())?.port();
    TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("loopback is not up: {e}"))?;
    // A public address must be unreachable.
    if TcpStream::connect_timeout(
        &"1.1.1.1:443".parse().map_err(|_| "addr")?,
        Duration::from_secs(2),
    )
    .is_ok()
    {
        return Err("1.1.1.1:443 is reachable".into());
    }
    Ok(())
}

#[test]
#[ignore = "needs the real hosts (scripts/install-hosts.sh), unshare and root: scripts/e2e-hosts.sh"]
fn hosts_e2e() {
    let hosts_dir = std::env::var_os("SHELLGATE_E2E_HOSTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/hosts"));
    if std::env::var_os("SHELLGATE_E2E_IN_NETNS").is_none() {
        if !which("unshare") {
            println!("skipping the host end-to-end suite: unshare not found");
            return;
        }
        if !hosts_dir.is_dir() {
            println!(
                "skipping the host end-to-end suite: no hosts in {} (run scripts/install-hosts.sh; it needs npm)",
                hosts_dir.display()
            );
            return;
        }
        let exe = std::env::current_exe().expect("test binary");
        // Root makes the namespace directly; anyone else through a user
        // namespace where they are root.
        let root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        let flags: &[&str] = if root {
            &["--net", "--"]
        } else {
            &["--map-root-user", "--net", "--"]
        };
        let status = Command::new("unshare")
            .args(flags)
            .arg(exe)
            .args([
                "--exact",
                "hosts_e2e",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("SHELLGATE_E2E_IN_NETNS", "1")
            .status()
            .expect("unshare --net (the suite needs root or user namespaces)");
        assert!(
            status.success(),
            "the host end-to-end suite failed (see above)"
        );
        return;
    }
    // Inside the namespace: loopback up, nothing else.
    let up = Command::new("ip")
        .args(["link", "set", "lo", "up"])
        .status();
    assert!(
        up.is_ok_and(|s| s.success()),
        "cannot bring loopback up (ip link set lo up)"
    );
    if let Err(e) = isolated() {
        panic!("the network namespace is not isolated: {e}");
    }

    let out = std::env::var_os("SHELLGATE_E2E_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/e2e-hosts"));
    std::fs::create_dir_all(&out).expect("output directory");
    let out = out.canonicalize().expect("canonical output directory");
    let hosts_dir = hosts_dir.canonicalize().expect("canonical hosts directory");
    let settings = harness::Settings {
        bin: PathBuf::from(env!("CARGO_BIN_EXE_shellgate")),
        hosts_dir,
        out: out.clone(),
        path_var: std::env::var("PATH").unwrap_or_default(),
        run_timeout: Duration::from_secs(
            std::env::var("SHELLGATE_E2E_RUN_TIMEOUT")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(75),
        ),
    };
    let full = std::env::var("SHELLGATE_E2E_SCOPE").map_or(true, |v| v != "quick");
    let only: Vec<String> = std::env::var("SHELLGATE_E2E_ONLY")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let jobs = std::env::var("SHELLGATE_E2E_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);

    let mut header = Vec::new();
    let mut installed = Vec::new();
    for host in [
        harness::Host::Claude,
        harness::Host::ClaudeOld,
        harness::Host::Codex,
        harness::Host::Gemini,
    ] {
        let pinned = harness::PINNED
            .iter()
            .find(|(n, _)| *n == host.name())
            .map(|(_, v)| *v)
            .unwrap_or("?");
        match harness::host_version(&settings, host) {
            Some(v) => {
                let note = if v == pinned {
                    ""
                } else {
                    " (NOT the pinned version)"
                };
                header.push(format!("{} {v}{note}", host.name()));
                installed.push(host);
            }
            None => header.push(format!("{}: not installed (skipped)", host.name())),
        }
    }
    println!("hosts: {}", header.join(", "));
    let cases: Vec<harness::Case> = harness::cases(full)
        .into_iter()
        .filter(|c| installed.contains(&c.host))
        .filter(|c| only.is_empty() || only.iter().any(|o| c.id().contains(o.as_str())))
        .collect();
    if cases.is_empty() {
        println!("skipping the host end-to-end suite: no case to run");
        return;
    }
    println!("running {} cases, {jobs} at a time", cases.len());
    let results = harness::run_all(&settings, &cases, jobs);
    let known =
        harness::known_failures(&workspace().join("crates/cli/tests/e2e/known-failures.txt"));

    let mut table = String::new();
    let mut failed = Vec::new();
    table.push_str(&format!(
        "{:<34} {:<8} {:<9} {:<7} detail\n",
        "case", "expect", "actual", "verdict"
    ));
    for (case, r) in cases.iter().zip(&results) {
        let row = harness::judge(case, r);
        let listed = known.get(&row.id);
        let verdict = match (row.pass, listed) {
            (None, _) => "fact".to_string(),
            (Some(true), None) => "ok".to_string(),
            (Some(false), Some(_)) => "known".to_string(),
            (Some(false), None) => {
                failed.push(format!(
                    "{}: expected {}, got {}",
                    row.id,
                    row.expect.name_pub(),
                    row.actual
                ));
                "FAIL".to_string()
            }
            (Some(true), Some(_)) => {
                failed.push(format!(
                    "{}: passes now; remove it from tests/e2e/known-failures.txt",
                    row.id
                ));
                "XPASS".to_string()
            }
        };
        table.push_str(&format!(
            "{:<34} {:<8} {:<9} {:<7} {}\n",
            row.id,
            row.expect.name_pub(),
            row.actual,
            verdict,
            row.detail
        ));
    }
    println!("\n{table}");
    let _ = std::fs::write(
        out.join("matrix.txt"),
        format!("hosts: {}\n\n{table}", header.join(", ")),
    );
    println!("artifacts: {}", out.display());
    assert!(
        failed.is_empty(),
        "host end-to-end failures:\n{}",
        failed.join("\n")
    );
}
