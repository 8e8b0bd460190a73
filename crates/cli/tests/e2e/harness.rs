//! The end-to-end host matrix: each case gets a fresh HOME (with the
//! default `~/.shellgate`), a fresh project directory and its own mock
//! model server; `shellgate install <host>` is run as a user would; the
//! scenario is prepared; the real host runs non-interactively against the
//! mock with a deadline (its process group is killed past it); the verdict
//! comes from a marker file the proposed command would create.
//!
//! Artifacts of every case stay in the output directory (default
//! `target/e2e-hosts/`): install log, host stdout/stderr, the requests the
//! mock received (`requests.jsonl`), hook logs, Codex `hooks/list` answers.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::codex_trust;
use super::mock::MockServer;

/// Host versions the suite is pinned to (scripts/install-hosts.sh).
pub const PINNED: &[(&str, &str)] = &[
    ("claude-code", "2.1.330"),
    ("claude-code-2.1.197", "2.1.197"),
    ("codex", "0.169.0"),
    ("gemini", "0.61.0"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    Claude,
    /// Claude Code 2.1.197: what `npm install` gives a user on node < 22.
    ClaudeOld,
    Codex,
    Gemini,
}

impl Host {
    /// Case id prefix and directory under the hosts directory.
    pub fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude-code",
            Host::ClaudeOld => "claude-code-2.1.197",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
        }
    }

    /// The host name `shellgate install|hook` takes.
    fn gate_name(self) -> &'static str {
        match self {
            Host::Claude | Host::ClaudeOld => "claude-code",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
        }
    }

    fn exe(self, hosts_dir: &Path) -> PathBuf {
        let bin = match self {
            Host::Claude | Host::ClaudeOld => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
        };
        hosts_dir
            .join(self.name())
            .join("node_modules")
            .join(".bin")
            .join(bin)
    }

    /// The host's configuration file holding the hooks.
    fn hook_config(self, home: &Path) -> PathBuf {
        match self {
            Host::Claude | Host::ClaudeOld => home.join(".claude").join("settings.json"),
            Host::Gemini => home.join(".gemini").join("settings.json"),
            Host::Codex => home.join(".codex").join("hooks.json"),
        }
    }

    /// Events the host can send to a hook command.
    fn all_events(self) -> &'static [&'static str] {
        match self {
            Host::Claude | Host::ClaudeOld => &[
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "PermissionRequest",
                "PermissionDenied",
                "Notification",
                "UserPromptSubmit",
                "Stop",
                "StopFailure",
                "SubagentStart",
                "SubagentStop",
                "SessionStart",
                "SessionEnd",
                "PreCompact",
                "PostCompact",
                "Setup",
            ],
            Host::Gemini => &[
                "BeforeTool",
                "AfterTool",
                "BeforeAgent",
                "AfterAgent",
                "BeforeModel",
                "AfterModel",
                "BeforeToolSelection",
                "SessionStart",
                "SessionEnd",
                "Notification",
                "PreCompress",
            ],
            Host::Codex => &[
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "SessionStart",
                "UserPromptSubmit",
                "Stop",
            ],
        }
    }
}

/// Host permissions: the host's own checks on, or bypassed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    On,
    Bypass,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::On => "on",
            Mode::Bypass => "bypass",
        }
    }
}

/// A hook that misbehaves in place of shellgate (what the host does then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    Exit1,
    Exit2,
    Signal,
    Timeout,
    NonJson,
}

impl Probe {
    fn name(self) -> &'static str {
        match self {
            Probe::Exit1 => "exit1",
            Probe::Exit2 => "exit2",
            Probe::Signal => "signal",
            Probe::Timeout => "timeout",
            Probe::NonJson => "nonjson",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// `touch` granted in the project: the command must run.
    Allow,
    /// A hard-denied command: must never run.
    Deny,
    /// An unapproved command in a non-interactive run: must not run, must
    /// not hang (the sandboxed allow turned off in policy.toml).
    Ask,
    /// `touch` granted, then the gate's state directory made unusable:
    /// must not run.
    BadHome,
    /// The installed hook's command replaced by a misbehaving script.
    Probe(Probe),
    /// A logging hook on every event, next to the installed hook.
    Events,
    /// An unapproved edit inside the project (SPEC §18): a host that runs
    /// the hook's rewritten command runs it inside the sandbox.
    Sandboxed,
    /// An unapproved command in an interactive session (the host in a
    /// pseudo-terminal): the hook must ask, the host must show its dialog
    /// and not run the command; a human's Enter (yes) then runs it, and
    /// Claude Code's PostToolUse is recorded as approved in the dialog.
    AskInteractive,
    /// The installed shellgate fails on purpose (`SHELLGATE_FAULT`, the
    /// binary built with `--features fault-injection`) on a command that
    /// is otherwise allowed: must not run.
    Fault(Fault),
    /// An unapproved command in a non-interactive run with `shellgate
    /// serve` running (SPEC §17): the hook publishes the ask and waits; the
    /// harness, as the human, answers "Always here" with `shellgate
    /// answer`; the command must run and the grant be in the store.
    ServeAnswer,
}

/// Ways the hook itself fails (hooks/fault.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Panic,
    Abort,
    Segv,
    StackOverflow,
    Oom,
    Kill,
    Hang,
    Stop,
    Exit1,
    BadJson,
}

impl Fault {
    pub const ALL: [Fault; 10] = [
        Fault::Panic,
        Fault::Abort,
        Fault::Segv,
        Fault::StackOverflow,
        Fault::Oom,
        Fault::Kill,
        Fault::Hang,
        Fault::Stop,
        Fault::Exit1,
        Fault::BadJson,
    ];

    /// The `SHELLGATE_FAULT` value.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Panic => "panic",
            Fault::Abort => "abort",
            Fault::Segv => "segv",
            Fault::StackOverflow => "stackoverflow",
            Fault::Oom => "oom",
            Fault::Kill => "kill",
            Fault::Hang => "hang",
            Fault::Stop => "stop",
            Fault::Exit1 => "exit1",
            Fault::BadJson => "badjson",
        }
    }
}

impl Scenario {
    fn name(self) -> String {
        match self {
            Scenario::Allow => "allow".into(),
            Scenario::Deny => "deny".into(),
            Scenario::Ask => "ask".into(),
            Scenario::BadHome => "badhome".into(),
            Scenario::Probe(p) => format!("probe-{}", p.name()),
            Scenario::Events => "events".into(),
            Scenario::Sandboxed => "sandboxed".into(),
            Scenario::Fault(f) => format!("fault-{}", f.name()),
            Scenario::AskInteractive => "ask-interactive".into(),
            Scenario::ServeAnswer => "serve-answer".into(),
        }
    }

    fn marker(self) -> String {
        format!("sg-marker-{}", self.name())
    }

    fn command(self) -> String {
        let m = self.marker();
        match self {
            Scenario::Deny => format!("touch {m}; sudo true"),
            _ => format!("touch {m}"),
        }
    }

    fn expect(self) -> Expect {
        match self {
            Scenario::Allow | Scenario::Events | Scenario::Sandboxed | Scenario::ServeAnswer => {
                Expect::Runs
            }
            Scenario::Deny | Scenario::Ask | Scenario::BadHome | Scenario::Fault(_) => {
                Expect::Blocked
            }
            Scenario::Probe(_) => Expect::Fact,
            Scenario::AskInteractive => Expect::AskedThenRuns,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Runs,
    Blocked,
    /// Records what the host does; never fails the suite.
    Fact,
    /// Not run while the host's dialog waits for the human; run after yes.
    AskedThenRuns,
}

impl Expect {
    pub fn name_pub(self) -> &'static str {
        self.name()
    }

    fn name(self) -> &'static str {
        match self {
            Expect::Runs => "runs",
            Expect::Blocked => "blocked",
            Expect::Fact => "(fact)",
            Expect::AskedThenRuns => "ask>yes",
        }
    }
}

/// A change the harness makes after the plain install.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The configuration exactly as `shellgate install` wrote it (for
    /// Codex: with the hook's trust `install` records; when the harness
    /// replaces or adds a handler, it trusts those with the reference
    /// recipe of tests/e2e/codex_trust.rs, as Codex's `/hooks` screen
    /// would).
    Plain,
    /// Claude Code: `onFailure` removed from the handler (does the host
    /// block on a failing hook by default?).
    NoOnFailure,
    /// `shellgate install --hook-client`: the host runs `shellgate-hook`.
    /// Allow, deny and sandboxed run while `shellgate serve` runs, with the
    /// handler pointed at a copy of the client that has no `shellgate`
    /// next to it (it cannot fall back: the service must answer); the ask
    /// runs without the service (the client falls back to the standalone
    /// hook) and serve-answer with it (the service declines the ask, the
    /// standalone hook publishes it and waits).
    HookClient,
}

impl Variant {
    fn suffix(self) -> &'static str {
        match self {
            Variant::Plain => "",
            Variant::NoOnFailure => "+no-onfailure",
            Variant::HookClient => "+hook-client",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Case {
    pub host: Host,
    pub variant: Variant,
    pub mode: Mode,
    pub scenario: Scenario,
}

impl Case {
    pub fn id(&self) -> String {
        format!(
            "{}{}/{}/{}",
            self.host.name(),
            self.variant.suffix(),
            self.mode.name(),
            self.scenario.name()
        )
    }
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub ran: bool,
    pub timed_out: bool,
    pub secs: f64,
    pub exit: Option<i32>,
    /// Tool calls the mock sent.
    pub tool_calls: usize,
    /// Decisions shellgate logged (`decision(reason)`).
    pub decisions: Vec<String>,
    /// Times the probe/logging hook was called.
    pub hook_calls: usize,
    /// First tool result the host sent back to the model.
    pub tool_result: Option<String>,
    pub notes: Vec<String>,
    /// Harness checks that failed (always a failure).
    pub harness_errors: Vec<String>,
    /// Interactive ask: the gate asked and the command had not run while
    /// the host's dialog was open.
    pub asked_first: Option<bool>,
}

pub struct Settings {
    pub bin: PathBuf,
    pub hosts_dir: PathBuf,
    pub out: PathBuf,
    pub path_var: String,
    pub run_timeout: Duration,
}

// ----- small helpers -------------------------------------------------------

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(d) = path.parent() {
        fs::create_dir_all(d).map_err(|e| format!("mkdir {}: {e}", d.display()))?;
    }
    fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))
}

fn read_json(path: &Path) -> Result<Value, String> {
    let t = fs::read_to_string(path).map_err(|e| format!("read {}: {e}", path.display()))?;
    serde_json::from_str(&t).map_err(|e| format!("parse {}: {e}", path.display()))
}

fn write_json(path: &Path, v: &Value) -> Result<(), String> {
    let t = serde_json::to_string_pretty(v).map_err(|e| e.to_string())?;
    write(path, &format!("{t}\n"))
}

fn short(s: &str, n: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > n {
        format!("{}…", one.chars().take(n).collect::<String>())
    } else {
        one
    }
}

/// The environment variable that marks every process of one case.
const CASE_MARK: &str = "SHELLGATE_E2E_CASE";

/// Kill the processes this harness started for a case that left their
/// process group (a host in a pseudo-terminal runs in a session of its
/// own): those whose environment carries `SHELLGATE_E2E_CASE=<mark>`.
fn kill_marked(mark: &str) {
    let needle = format!("{CASE_MARK}={mark}");
    let Ok(entries) = fs::read_dir("/proc") else {
        return;
    };
    let own = std::process::id().to_string();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name == own || !name.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Ok(env) = fs::read(e.path().join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            let _ = Command::new("kill")
                .args(["-KILL", &name])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Kill a process group (best effort).
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Wait for a child with a deadline; past it, kill its process group.
/// Returns (exit code, timed out).
fn wait_deadline(child: &mut Child, deadline: Duration) -> (Option<i32>, bool) {
    let start = Instant::now();
    let pgid = child.id();
    loop {
        match child.try_wait() {
            Ok(Some(st)) => {
                // Leftovers (hooks, helpers) go with the group.
                kill_group(pgid);
                return (st.code(), false);
            }
            Ok(None) => {}
            Err(_) => {
                kill_group(pgid);
                return (None, false);
            }
        }
        if start.elapsed() >= deadline {
            kill_group(pgid);
            let _ = child.kill();
            let _ = child.wait();
            return (None, true);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn shellgate(
    s: &Settings,
    home: &Path,
    cwd: &Path,
    args: &[&str],
    log: &Path,
) -> Result<(), String> {
    let out = Command::new(&s.bin)
        .args(args)
        .env_clear()
        .env("PATH", &s.path_var)
        .env("HOME", home)
        .env("SHELLGATE_HOME", home.join(".shellgate"))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("run shellgate {args:?}: {e}"))?;
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| e.to_string())?;
    let _ = writeln!(
        f,
        "$ shellgate {}\n{}{}[exit {:?}]",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        out.status.code()
    );
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "shellgate {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

// ----- host configuration ----------------------------------------------------

/// The host's own settings, written before `shellgate install` (which
/// merges into them).
fn preconfigure(host: Host, mode: Mode, home: &Path, port: u16) -> Result<(), String> {
    match host {
        Host::Claude | Host::ClaudeOld => write_json(
            &home.join(".claude").join("settings.json"),
            &json!({"env": {"DISABLE_AUTOUPDATER": "1"}}),
        ),
        Host::Gemini => write_json(
            &home.join(".gemini").join("settings.json"),
            &json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                "telemetry": {"enabled": false},
                "privacy": {"usageStatisticsEnabled": false},
                // Without --yolo, `-p` offers the shell tool only when the
                // user allowed it ahead (the host's permission stays on).
                "tools": if mode == Mode::On { json!({"allowed": ["run_shell_command"]}) } else { json!({}) },
            }),
        ),
        Host::Codex => write(
            &home.join(".codex").join("config.toml"),
            &format!(
                "model = \"gpt-mock\"\nmodel_provider = \"mock\"\ncheck_for_update_on_startup = false\n\n\
                 [model_providers.mock]\nname = \"mock\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\n\
                 wire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n\
                 [analytics]\nenabled = false\n\n[feedback]\nenabled = false\n"
            ),
        ),
    }
}

/// The event key in the host's hook configuration shellgate installs under.
fn gate_event(host: Host) -> &'static str {
    match host {
        Host::Claude | Host::ClaudeOld | Host::Codex => "PreToolUse",
        Host::Gemini => "BeforeTool",
    }
}

/// Apply `f` to shellgate's handler(s) in the installed configuration.
fn edit_gate_handler(
    host: Host,
    home: &Path,
    f: &dyn Fn(&mut serde_json::Map<String, Value>),
) -> Result<usize, String> {
    let path = host.hook_config(home);
    let mut doc = read_json(&path)?;
    let needle = format!(" hook {}", host.gate_name());
    let mut n = 0;
    if let Some(groups) = doc
        .pointer_mut(&format!("/hooks/{}", gate_event(host)))
        .and_then(Value::as_array_mut)
    {
        for g in groups {
            if let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) {
                for h in hs {
                    let ours = h
                        .get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|c| c.contains(&needle));
                    if let (true, Some(obj)) = (ours, h.as_object_mut()) {
                        f(obj);
                        n += 1;
                    }
                }
            }
        }
    }
    if n == 0 {
        return Err(format!("no shellgate handler found in {}", path.display()));
    }
    write_json(&path, &doc)?;
    Ok(n)
}

/// Add a logging handler for every event the host knows.
fn add_event_logger(host: Host, home: &Path, command: &str) -> Result<(), String> {
    let path = host.hook_config(home);
    let mut doc = read_json(&path)?;
    let hooks = doc
        .as_object_mut()
        .ok_or("config is not an object")?
        .entry("hooks")
        .or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or("hooks is not an object")?;
    for ev in host.all_events() {
        let handler = match host {
            Host::Gemini => {
                json!({"name": "e2e-logger", "type": "command", "command": command, "timeout": 10000})
            }
            _ => json!({"type": "command", "command": command, "timeout": 10}),
        };
        let group = json!({"matcher": "*", "hooks": [handler]});
        let arr = hooks.entry(ev.to_string()).or_insert_with(|| json!([]));
        if let Some(a) = arr.as_array_mut() {
            a.push(group);
        }
    }
    write_json(&path, &doc)
}

fn probe_script(dir: &Path, probe: Probe) -> String {
    let log = dir.join("probe.log");
    let body = match probe {
        Probe::Exit1 => "echo 'probe: failing with exit 1' >&2\nexit 1".to_string(),
        Probe::Exit2 => "echo 'probe: blocking with exit 2' >&2\nexit 2".to_string(),
        Probe::Signal => "kill -KILL $$\nexit 0".to_string(),
        Probe::Timeout => "exec sleep 30".to_string(),
        Probe::NonJson => "echo 'this is not JSON'\nexit 0".to_string(),
    };
    format!(
        "#!/bin/sh\n# e2e probe hook: {name}\nin=$(cat)\nprintf '%s\\n' \"$in\" >> '{log}'\n{body}\n",
        name = probe.name(),
        log = log.display()
    )
}

fn logger_script(dir: &Path) -> String {
    format!(
        "#!/bin/sh\n# e2e logging hook: one JSON event per line, no answer\nin=$(cat)\n\
         printf '%s\\n' \"$in\" >> '{ev}'\n\
         {{ printf '%s\\n' '---'; env | grep -E '^(CLAUDE|GEMINI|CODEX|SHELLGATE|TERM|CI|PWD)' | sort; }} >> '{env}'\nexit 0\n",
        ev = dir.join("events.jsonl").display(),
        env = dir.join("events-env.txt").display()
    )
}

// ----- Codex: trust and hooks/list -----------------------------------------

/// The trust entries of `~/.codex/hooks.json` by the reference recipe.
fn codex_reference_entries(home: &Path) -> Result<Vec<(String, String)>, String> {
    let path = home.join(".codex").join("hooks.json");
    let doc = read_json(&path)?;
    Ok(codex_trust::trust_entries(
        &path.display().to_string(),
        &doc,
    ))
}

/// Record trust for every handler of `~/.codex/hooks.json`, as Codex's
/// `/hooks` screen does (entries already there are overwritten). Returns
/// the entries written.
fn codex_trust_all(home: &Path) -> Result<Vec<(String, String)>, String> {
    let entries = codex_reference_entries(home)?;
    if entries.is_empty() {
        return Err("no Codex hook to trust".into());
    }
    let cfg = home.join(".codex").join("config.toml");
    let text = fs::read_to_string(&cfg).map_err(|e| e.to_string())?;
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("config.toml: {e}"))?;
    for (key, hash) in &entries {
        doc["hooks"]["state"][key.as_str()]["trusted_hash"] = toml_edit::value(hash.as_str());
    }
    write(&cfg, &doc.to_string())?;
    Ok(entries)
}

/// `codex app-server` → `hooks/list` for `cwd`: the hooks Codex sees.
pub fn codex_hooks_list(
    codex: &Path,
    env: &[(String, String)],
    cwd: &Path,
) -> Result<Value, String> {
    let mut child = Command::new(codex)
        .arg("app-server")
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("codex app-server: {e}"))?;
    let pgid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let msgs = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"clientInfo": {"name": "shellgate-e2e", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
               "params": {"cwds": [cwd.display().to_string()]}}),
    ];
    for m in msgs {
        writeln!(stdin, "{m}").map_err(|e| format!("app-server stdin: {e}"))?;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                if v.get("id") == Some(&json!(2)) {
                    let _ = tx.send(v);
                    break;
                }
            }
        }
    });
    let got = rx.recv_timeout(Duration::from_secs(30));
    drop(stdin);
    kill_group(pgid);
    let _ = child.kill();
    let _ = child.wait();
    got.map_err(|_| "no hooks/list answer within 30 s".to_string())
}

// ----- running a host ------------------------------------------------------

const PROMPT: &str = "Please run the shell command you are given by the test.";

const CLAUDE_KEY: &str = "sk-ant-mock-key";

fn host_command(s: &Settings, case: &Case, home: &Path, proj: &Path, port: u16) -> Command {
    let interactive = case.scenario == Scenario::AskInteractive;
    let mut c = Command::new(case.host.exe(&s.hosts_dir));
    c.env_clear()
        .env("PATH", &s.path_var)
        .env("HOME", home)
        // A temp directory of the case's own, beside the home: the sandbox
        // refuses a temp directory that holds the home (a clone under /tmp
        // would put the home below /tmp).
        .env("TMPDIR", home.parent().unwrap_or(home).join("tmp"))
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("SHELL", "/bin/bash")
        .env("LANG", "C.UTF-8")
        .current_dir(proj);
    match case.host {
        Host::Claude | Host::ClaudeOld => {
            c.env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
                .env("ANTHROPIC_API_KEY", CLAUDE_KEY)
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_ERROR_REPORTING", "1");
            if interactive {
                c.arg(PROMPT);
            } else {
                c.args(["-p", PROMPT, "--output-format", "json", "--max-turns", "4"]);
            }
            match case.mode {
                Mode::On => {
                    c.args(["--permission-mode", "default"]);
                }
                Mode::Bypass => {
                    c.env("IS_SANDBOX", "1")
                        .arg("--dangerously-skip-permissions");
                }
            }
        }
        Host::Codex => {
            c.env("MOCK_API_KEY", "mock-key").args([
                "exec",
                "--skip-git-repo-check",
                "-C",
                &proj.display().to_string(),
            ]);
            match case.mode {
                Mode::On => {
                    c.args(["--sandbox", "workspace-write"]);
                }
                Mode::Bypass => {
                    c.arg("--dangerously-bypass-approvals-and-sandbox");
                }
            }
            c.arg(PROMPT);
        }
        Host::Gemini => {
            c.env("GEMINI_API_KEY", "mock-key")
                .env("GOOGLE_GEMINI_BASE_URL", format!("http://127.0.0.1:{port}"))
                .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
            if interactive {
                c.args(["-i", PROMPT]);
            } else {
                c.args(["-p", PROMPT, "--output-format", "json"]);
            }
            if case.mode == Mode::Bypass {
                c.arg("--yolo");
            }
        }
    }
    c
}

fn codex_env(s: &Settings, home: &Path) -> Vec<(String, String)> {
    vec![
        ("PATH".into(), s.path_var.clone()),
        ("HOME".into(), home.display().to_string()),
        ("MOCK_API_KEY".into(), "mock-key".into()),
    ]
}

fn audit_decisions(home: &Path) -> Vec<String> {
    let db = home.join(".shellgate").join("state").join("shellgate.db");
    if !db.is_file() {
        return Vec::new();
    }
    let Ok(conn) =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return vec!["(audit log unreadable)".into()];
    };
    let Ok(mut st) = conn.prepare(
        "SELECT tool, decision, reason FROM decisions WHERE source LIKE 'hook:%' ORDER BY id",
    ) else {
        return vec!["(audit log unreadable)".into()];
    };
    let rows = st.query_map([], |r| {
        Ok(format!(
            "{}:{}({})",
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?
        ))
    });
    match rows {
        Ok(it) => it.filter_map(Result::ok).collect(),
        Err(_) => vec!["(audit log unreadable)".into()],
    }
}

fn count_lines(path: &Path) -> usize {
    fs::read_to_string(path)
        .map(|t| t.lines().filter(|l| !l.trim().is_empty()).count())
        .unwrap_or(0)
}

pub fn run_case(s: &Settings, case: &Case) -> Result<Outcome, String> {
    let dir = s.out.join(case.id().replace('/', "__"));
    let _ = fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let proj = home.join("work").join("proj");
    fs::create_dir_all(&proj).map_err(|e| e.to_string())?;
    fs::create_dir_all(dir.join("tmp")).map_err(|e| e.to_string())?;
    let home = home.canonicalize().map_err(|e| e.to_string())?;
    let proj = proj.canonicalize().map_err(|e| e.to_string())?;
    let log = dir.join("setup.log");
    let mut out = Outcome::default();

    let mock =
        MockServer::start(&case.scenario.command()).map_err(|e| format!("mock server: {e}"))?;
    preconfigure(case.host, case.mode, &home, mock.port)?;
    let mut install = vec!["install", case.host.gate_name()];
    if case.variant == Variant::HookClient {
        install.push("--hook-client");
    }
    shellgate(s, &home, &proj, &install, &log)?;
    let lone = require_service(case, &home)?;

    match case.scenario {
        Scenario::Allow | Scenario::Events | Scenario::Fault(_) => {
            shellgate(
                s,
                &home,
                &proj,
                &[
                    "approvals",
                    "allow",
                    "touch",
                    "--dir",
                    &proj.display().to_string(),
                ],
                &log,
            )?;
        }
        Scenario::BadHome => {
            shellgate(
                s,
                &home,
                &proj,
                &[
                    "approvals",
                    "allow",
                    "touch",
                    "--dir",
                    &proj.display().to_string(),
                ],
                &log,
            )?;
            let state = home.join(".shellgate").join("state");
            let _ = fs::remove_dir_all(&state);
            write(&state, "not a directory: the gate's state is unusable\n")?;
        }
        Scenario::Ask | Scenario::AskInteractive | Scenario::ServeAnswer => {
            // An unapproved `touch` in the project would run sandboxed where
            // the host can rewrite (SPEC §18): these scenarios are the ask.
            write(
                &home.join(".shellgate").join("config").join("policy.toml"),
                "[audiences.personal]\nsandbox = \"off\"\n",
            )?;
        }
        Scenario::Deny | Scenario::Sandboxed => {}
        Scenario::Probe(p) => {
            let script = dir.join("probe.sh");
            write(&script, &probe_script(&dir, p))?;
            let cmd = format!("/bin/sh {}", script.display());
            let host = case.host;
            let drop_on_failure = case.variant == Variant::NoOnFailure;
            edit_gate_handler(case.host, &home, &move |h| {
                h.insert("command".into(), json!(cmd));
                if drop_on_failure {
                    h.remove("onFailure");
                }
                if p == Probe::Timeout {
                    let t = if host == Host::Gemini { 2000 } else { 2 };
                    h.insert("timeout".into(), json!(t));
                }
            })?;
        }
    }
    if case.scenario == Scenario::Events {
        let script = dir.join("events.sh");
        write(&script, &logger_script(&dir))?;
        add_event_logger(case.host, &home, &format!("/bin/sh {}", script.display()))?;
    }

    if case.host == Host::Codex {
        let codex = case.host.exe(&s.hosts_dir);
        let env = codex_env(s, &home);
        // After a plain install, Codex must already trust shellgate's hook
        // with exactly the hash the reference recipe computes; when the
        // harness edited the handlers (probes, loggers), it trusts them.
        let edited = matches!(case.scenario, Scenario::Probe(_) | Scenario::Events) || lone;
        let written = if edited {
            codex_trust_all(&home)?
        } else {
            codex_reference_entries(&home)?
        };
        if written.is_empty() {
            out.harness_errors
                .push("no shellgate hook in ~/.codex/hooks.json after install".into());
        }
        match codex_hooks_list(&codex, &env, &proj) {
            Ok(v) => {
                let _ = write_json(&dir.join("hooks-list.json"), &v);
                let hooks = v
                    .pointer("/result/data/0/hooks")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let statuses: Vec<String> = hooks
                    .iter()
                    .filter(|h| {
                        h.get("command")
                            .and_then(Value::as_str)
                            .is_some_and(|c| c.contains(" hook codex") || c.contains("probe.sh"))
                    })
                    .map(|h| {
                        h.get("trustStatus")
                            .and_then(Value::as_str)
                            .unwrap_or("?")
                            .to_string()
                    })
                    .collect();
                out.notes.push(format!(
                    "codex hooks/list: gate hook {}",
                    statuses.join(",")
                ));
                for (key, hash) in &written {
                    let seen = hooks
                        .iter()
                        .find(|h| h.get("key").and_then(Value::as_str) == Some(key.as_str()));
                    let ok = seen.is_some_and(|h| {
                        h.get("currentHash").and_then(Value::as_str) == Some(hash.as_str())
                            && h.get("trustStatus").and_then(Value::as_str) == Some("trusted")
                    });
                    if !ok {
                        out.harness_errors.push(format!(
                            "trust: Codex does not report {key} as trusted with {hash} ({})",
                            seen.and_then(|h| h.get("trustStatus"))
                                .and_then(Value::as_str)
                                .unwrap_or("not listed")
                        ));
                    }
                }
            }
            Err(e) => out.harness_errors.push(format!("codex hooks/list: {e}")),
        }
    }

    if case.scenario == Scenario::AskInteractive {
        run_interactive(s, case, &home, &proj, mock.port, &dir, &mut out)?;
    } else if case.scenario == Scenario::ServeAnswer {
        run_served(s, case, &home, &proj, mock.port, &dir, &mut out)?;
    } else if lone {
        let mut serve = start_serve(s, &home, &proj, &dir)?;
        let ran = run_batch(s, case, &home, &proj, mock.port, &dir, &mut out);
        let _ = serve.kill();
        let _ = serve.wait();
        ran?;
    } else {
        run_batch(s, case, &home, &proj, mock.port, &dir, &mut out)?;
    }

    let reqs = mock.requests();
    drop(mock);
    finish(&home, &dir, &reqs, &mut out)?;
    Ok(out)
}

/// A shell word.
fn sh_word(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The host in a pseudo-terminal (`script`), as a human starts it; the
/// gate's ask is answered with Enter (the dialog's first option: yes).
fn run_interactive(
    s: &Settings,
    case: &Case,
    home: &Path,
    proj: &Path,
    port: u16,
    dir: &Path,
    out: &mut Outcome,
) -> Result<(), String> {
    if matches!(case.host, Host::Claude | Host::ClaudeOld) {
        // Past the first-run screens: onboarding done, the project
        // trusted, the API key accepted.
        let tail: String = {
            let chars: Vec<char> = CLAUDE_KEY.chars().collect();
            chars[chars.len().saturating_sub(20)..].iter().collect()
        };
        let mut projects = serde_json::Map::new();
        projects.insert(
            proj.display().to_string(),
            json!({"hasTrustDialogAccepted": true, "allowedTools": []}),
        );
        write_json(
            &home.join(".claude.json"),
            &json!({"hasCompletedOnboarding": true, "theme": "dark",
                    "customApiKeyResponses": {"approved": [tail], "rejected": []},
                    "projects": projects}),
        )?;
    }
    let inner = host_command(s, case, home, proj, port);
    let mut line = String::from("stty rows 50 cols 160; exec");
    line.push(' ');
    line.push_str(&sh_word(&inner.get_program().to_string_lossy()));
    for a in inner.get_args() {
        line.push(' ');
        line.push_str(&sh_word(&a.to_string_lossy()));
    }
    let mut cmd = Command::new("script");
    cmd.args(["-qfec", &line, "/dev/null"]).env_clear();
    for (k, v) in inner.get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    let mark = dir.display().to_string();
    cmd.env("TERM", "xterm-256color")
        .env(CASE_MARK, &mark)
        .current_dir(proj)
        .stdin(Stdio::piped())
        .stdout(fs::File::create(dir.join("host.stdout")).map_err(|e| e.to_string())?)
        .stderr(fs::File::create(dir.join("host.stderr")).map_err(|e| e.to_string())?)
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("spawn script: {e}"))?;
    let pgid = child.id();
    let marker = proj.join(case.scenario.marker());
    let mut stdin = child.stdin.take();
    // 1. The gate asks.
    let asked = loop {
        if audit_decisions(home).iter().any(|d| d.contains(":ask(")) {
            break true;
        }
        if start.elapsed() > Duration::from_secs(60) || marker.exists() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    // 2. The host waits for the human: nothing runs meanwhile.
    std::thread::sleep(Duration::from_secs(4));
    let waited = asked && !marker.exists();
    out.asked_first = Some(waited);
    let _ = fs::copy(dir.join("host.stdout"), dir.join("screen-at-ask.txt"));
    // 3. The human says yes.
    if let Some(si) = stdin.as_mut() {
        let _ = si.write_all(b"\r");
        let _ = si.flush();
    }
    let answered = Instant::now();
    while !marker.exists() && answered.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(200));
    }
    // The PostToolUse hook runs right after the tool.
    std::thread::sleep(Duration::from_secs(3));
    out.ran = marker.exists();
    out.secs = start.elapsed().as_secs_f64();
    drop(stdin);
    kill_group(pgid);
    let _ = child.kill();
    let _ = child.wait();
    kill_marked(&mark);
    if !asked {
        out.notes.push("the gate did not ask within 60 s".into());
    }
    Ok(())
}

/// `shellgate` (`bin`, with `PATH`) with the case's home, for its output.
fn shellgate_output(
    bin: &Path,
    path_var: &str,
    home: &Path,
    cwd: &Path,
    args: &[&str],
) -> Option<Output> {
    Command::new(bin)
        .args(args)
        .env_clear()
        .env("PATH", path_var)
        .env("HOME", home)
        .env("SHELLGATE_HOME", home.join(".shellgate"))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .ok()
}

/// [`Variant::HookClient`] for allow, deny and sandboxed: the installed
/// command is prefixed with `env SHELLGATE_HOOK_REQUIRE_SERVICE=1`, so the
/// client blocks instead of running the standalone hook: the service must
/// answer. `true` when done.
fn require_service(case: &Case, home: &Path) -> Result<bool, String> {
    let served = matches!(
        case.scenario,
        Scenario::Allow | Scenario::Deny | Scenario::Sandboxed
    );
    if case.variant != Variant::HookClient || !served {
        return Ok(false);
    }
    edit_gate_handler(case.host, home, &|h| {
        let cmd = h.get("command").and_then(Value::as_str).unwrap_or("");
        let cmd = format!("env SHELLGATE_HOOK_REQUIRE_SERVICE=1 {cmd}");
        h.insert("command".into(), json!(cmd));
    })?;
    let cfg = fs::read_to_string(case.host.hook_config(home)).unwrap_or_default();
    if !cfg.contains("shellgate-hook") {
        return Err("the hook client is not in the installed command".into());
    }
    Ok(true)
}

/// `shellgate serve` for the case's home, once its socket exists.
fn start_serve(s: &Settings, home: &Path, proj: &Path, dir: &Path) -> Result<Child, String> {
    let serve = Command::new(&s.bin)
        .arg("serve")
        .env_clear()
        .env("PATH", &s.path_var)
        .env("HOME", home)
        .env("SHELLGATE_HOME", home.join(".shellgate"))
        .current_dir(proj)
        .stdin(Stdio::null())
        .stdout(fs::File::create(dir.join("serve.stdout")).map_err(|e| e.to_string())?)
        .stderr(fs::File::create(dir.join("serve.stderr")).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("spawn shellgate serve: {e}"))?;
    let sock = home.join(".shellgate").join("state").join("serve.sock");
    let start = Instant::now();
    while !sock.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(serve)
}

/// The host run non-interactively while `shellgate serve` runs; the
/// harness answers the hook's published ask with `shellgate answer`.
fn run_served(
    s: &Settings,
    case: &Case,
    home: &Path,
    proj: &Path,
    port: u16,
    dir: &Path,
    out: &mut Outcome,
) -> Result<(), String> {
    let mut serve = start_serve(s, home, proj, dir)?;
    // The human: waits for the request, answers "Always here".
    let (bin, path_var) = (s.bin.clone(), s.path_var.clone());
    let (h, p) = (home.to_path_buf(), proj.to_path_buf());
    let human = std::thread::spawn(move || -> Result<String, String> {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(60) {
            let list: Value = shellgate_output(&bin, &path_var, &h, &p, &["pending", "--json"])
                .and_then(|o| serde_json::from_slice(&o.stdout).ok())
                .unwrap_or(Value::Null);
            if let Some(id) = list.pointer("/0/id").and_then(Value::as_str) {
                let o = shellgate_output(&bin, &path_var, &h, &p, &["answer", id, "always here"])
                    .ok_or("cannot run shellgate answer")?;
                let text = String::from_utf8_lossy(&o.stdout).trim().to_string();
                return if o.status.success() {
                    Ok(format!(
                        "answered in {:.1}s: {text}",
                        t.elapsed().as_secs_f64()
                    ))
                } else {
                    Err(format!(
                        "shellgate answer failed: {}",
                        String::from_utf8_lossy(&o.stderr).trim()
                    ))
                };
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err("no request was published within 60 s".into())
    });
    let ran = run_batch(s, case, home, proj, port, dir, out);
    match human.join() {
        Ok(Ok(note)) => out.notes.push(note),
        Ok(Err(e)) => out.harness_errors.push(e),
        Err(_) => out
            .harness_errors
            .push("the answering thread panicked".into()),
    }
    let _ = serve.kill();
    let _ = serve.wait();
    let grants = shellgate_output(&s.bin, &s.path_var, home, proj, &["approvals", "list"])
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if grants.contains(&format!("touch in {}", proj.display())) {
        out.notes.push("grant stored".into());
    } else {
        out.harness_errors
            .push(format!("no 'touch in {}' grant: {grants}", proj.display()));
    }
    ran
}

/// The host run non-interactively, with a deadline.
fn run_batch(
    s: &Settings,
    case: &Case,
    home: &Path,
    proj: &Path,
    port: u16,
    dir: &Path,
    out: &mut Outcome,
) -> Result<(), String> {
    let stdout = fs::File::create(dir.join("host.stdout")).map_err(|e| e.to_string())?;
    let stderr = fs::File::create(dir.join("host.stderr")).map_err(|e| e.to_string())?;
    let mut cmd = host_command(s, case, home, proj, port);
    if let Scenario::Fault(f) = case.scenario {
        // The hosts pass their environment on to hooks.
        cmd.env("SHELLGATE_FAULT", f.name());
    }
    cmd.stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", case.host.name()))?;
    // An ask must end quickly (a normal run takes seconds): a shorter
    // deadline keeps a hanging host from costing the whole budget.
    let deadline = if case.scenario == Scenario::Ask {
        s.run_timeout.min(Duration::from_secs(45))
    } else {
        s.run_timeout
    };
    let (code, timed_out) = wait_deadline(&mut child, deadline);
    out.secs = start.elapsed().as_secs_f64();
    out.exit = code;
    out.timed_out = timed_out;
    // A hook killed with the host may still be finishing its write.
    std::thread::sleep(Duration::from_millis(100));
    out.ran = proj.join(case.scenario.marker()).exists();
    // The sandbox leaves placeholders for the hosts' control directories in
    // the project: proof the command ran confined, not as proposed.
    if case.scenario == Scenario::Sandboxed && out.ran {
        if proj.join(".gemini").is_dir() && proj.join(".codex").is_dir() {
            out.notes.push("ran inside the sandbox".into());
        } else {
            out.harness_errors
                .push("the command ran, but not inside the sandbox".into());
        }
    }
    Ok(())
}

fn finish(
    home: &Path,
    dir: &Path,
    reqs: &[super::mock::Recorded],
    out: &mut Outcome,
) -> Result<(), String> {
    out.tool_calls = reqs
        .iter()
        .filter(|r| r.answered.starts_with("tool_call:"))
        .count();
    out.tool_result = reqs.iter().flat_map(|r| r.tool_results()).next();
    let mut lines = String::new();
    for r in reqs {
        let v = json!({"method": r.method, "path": r.path, "answered": r.answered, "body": r.body});
        lines.push_str(&v.to_string());
        lines.push('\n');
    }
    write(&dir.join("requests.jsonl"), &lines)?;
    out.decisions = audit_decisions(home);
    out.hook_calls = count_lines(&dir.join("probe.log")) + count_lines(&dir.join("events.jsonl"));
    if out.tool_calls == 0 {
        out.notes.push(format!(
            "mock sent no tool call ({} requests: {})",
            reqs.len(),
            reqs.iter()
                .map(|r| format!("{} {}", r.path.split('?').next().unwrap_or(""), r.answered))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(())
}

// ----- the matrix ------------------------------------------------------------

pub fn cases(full: bool) -> Vec<Case> {
    let mut scen = vec![
        Scenario::Allow,
        Scenario::Deny,
        Scenario::Ask,
        Scenario::BadHome,
    ];
    scen.push(Scenario::Sandboxed);
    scen.push(Scenario::ServeAnswer);
    if full {
        scen.push(Scenario::Events);
        for p in [
            Probe::Exit1,
            Probe::Exit2,
            Probe::Signal,
            Probe::Timeout,
            Probe::NonJson,
        ] {
            scen.push(Scenario::Probe(p));
        }
        for f in Fault::ALL {
            scen.push(Scenario::Fault(f));
        }
        scen.push(Scenario::AskInteractive);
    }
    let mut out = Vec::new();
    for (host, variant) in [
        (Host::Claude, Variant::Plain),
        (Host::Claude, Variant::NoOnFailure),
        (Host::ClaudeOld, Variant::Plain),
        (Host::Codex, Variant::Plain),
        (Host::Gemini, Variant::Plain),
        (Host::Claude, Variant::HookClient),
        (Host::Codex, Variant::HookClient),
        (Host::Gemini, Variant::HookClient),
    ] {
        for mode in [Mode::On, Mode::Bypass] {
            for sc in &scen {
                let probe = matches!(sc, Scenario::Probe(_));
                let fault = matches!(sc, Scenario::Fault(_));
                let keep = match (host, variant) {
                    // The hook client: its permissions on, the gate's
                    // answers that the service gives or leaves.
                    (_, Variant::HookClient) => {
                        mode == Mode::On
                            && match sc {
                                Scenario::Allow
                                | Scenario::Deny
                                | Scenario::Ask
                                | Scenario::ServeAnswer => true,
                                Scenario::Sandboxed => host == Host::Claude,
                                _ => false,
                            }
                    }
                    // The approval service: every host, its permissions on.
                    _ if *sc == Scenario::ServeAnswer => {
                        variant == Variant::Plain && mode == Mode::On
                    }
                    // Only Claude Code runs a rewritten command.
                    _ if *sc == Scenario::Sandboxed => {
                        matches!(host, Host::Claude | Host::ClaudeOld) && variant == Variant::Plain
                    }
                    // Codex cannot ask. Claude Code with its own checks on
                    // (the dialog names the hook); Gemini CLI with --yolo,
                    // where only the hook's ask can bring up a dialog.
                    (_, Variant::Plain) if *sc == Scenario::AskInteractive => match host {
                        Host::Claude | Host::ClaudeOld => mode == Mode::On,
                        Host::Gemini => mode == Mode::Bypass,
                        Host::Codex => false,
                    },
                    // The hook's own failures: with the host's permissions
                    // bypassed (only the hook stands between the model and
                    // the command).
                    (_, Variant::Plain) if fault => mode == Mode::Bypass,
                    // Without onFailure only the failure probes matter.
                    (_, Variant::NoOnFailure) => probe && *sc != Scenario::Probe(Probe::Exit2),
                    (_, Variant::Plain) => true,
                };
                if keep {
                    out.push(Case {
                        host,
                        variant,
                        mode,
                        scenario: *sc,
                    });
                }
            }
        }
    }
    out
}

pub struct Row {
    pub id: String,
    pub expect: Expect,
    pub actual: String,
    pub pass: Option<bool>,
    pub detail: String,
}

pub fn judge(case: &Case, r: &Result<Outcome, String>) -> Row {
    let expect = case.scenario.expect();
    let id = case.id();
    let o = match r {
        Ok(o) => o,
        Err(e) => {
            return Row {
                id,
                expect,
                actual: "ERROR".into(),
                pass: Some(false),
                detail: e.clone(),
            }
        }
    };
    let actual = if expect == Expect::AskedThenRuns {
        match (o.asked_first, o.ran) {
            (Some(true), true) => "asked>ran".to_string(),
            (Some(true), false) => "asked".to_string(),
            (_, true) => "ran".to_string(),
            _ => "no-ask".to_string(),
        }
    } else if o.timed_out {
        if o.ran {
            "ran+hung".to_string()
        } else {
            "hung".to_string()
        }
    } else if o.ran {
        "ran".to_string()
    } else if o.tool_calls == 0 {
        "no-call".to_string()
    } else {
        "blocked".to_string()
    };
    let mut pass = match expect {
        Expect::Runs => Some(o.ran && !o.timed_out),
        Expect::Blocked => Some(!o.ran && !o.timed_out && o.tool_calls > 0),
        Expect::Fact => None,
        Expect::AskedThenRuns => Some(o.asked_first == Some(true) && o.ran),
    };
    // Where nobody can answer, the agent is told the exact command that
    // grants the call.
    let mut extra = Vec::new();
    if expect == Expect::AskedThenRuns {
        extra.push(format!(
            "asked and waited: {}",
            if o.asked_first == Some(true) {
                "yes"
            } else {
                "NO"
            }
        ));
        // Claude Code: the yes reaches the audit log through PostToolUse.
        if matches!(case.host, Host::Claude | Host::ClaudeOld)
            && pass == Some(true)
            && !o
                .decisions
                .iter()
                .any(|d| d.contains("allow(approved_in_host_dialog)"))
        {
            pass = Some(false);
            extra.push("no approved_in_host_dialog record after the yes".into());
        }
    }
    if case.scenario == Scenario::Ask && pass == Some(true) {
        let named = o
            .tool_result
            .as_deref()
            .is_some_and(|t| t.contains("shellgate approvals allow 'touch' --dir"));
        if !named {
            pass = Some(false);
            extra.push(
                "the tool result does not name `shellgate approvals allow 'touch' --dir …`"
                    .to_string(),
            );
        }
    }
    if !o.harness_errors.is_empty() {
        pass = Some(false);
    }
    let mut detail = vec![format!("{:.1}s exit {:?}", o.secs, o.exit)];
    if !o.decisions.is_empty() {
        detail.push(format!("gate: {}", o.decisions.join(" ")));
    } else if case.scenario != Scenario::BadHome && !matches!(case.scenario, Scenario::Probe(_)) {
        detail.push("gate: not called".into());
    }
    if o.hook_calls > 0 {
        detail.push(format!("test hook called {}x", o.hook_calls));
    }
    if let Some(t) = &o.tool_result {
        detail.push(format!("tool result: {}", short(t, 110)));
    }
    detail.extend(o.notes.iter().cloned());
    detail.extend(extra);
    detail.extend(o.harness_errors.iter().map(|e| format!("HARNESS: {e}")));
    Row {
        id,
        expect,
        actual,
        pass,
        detail: detail.join(" | "),
    }
}

/// Run `cases` with `jobs` workers; results in case order.
pub fn run_all(s: &Settings, cases: &[Case], jobs: usize) -> Vec<Result<Outcome, String>> {
    let queue: Arc<Mutex<Vec<usize>>> = Arc::new(Mutex::new((0..cases.len()).rev().collect()));
    let results: Arc<Mutex<BTreeMap<usize, Result<Outcome, String>>>> =
        Arc::new(Mutex::new(BTreeMap::new()));
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            let queue = Arc::clone(&queue);
            let results = Arc::clone(&results);
            scope.spawn(move || loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop());
                let Some(i) = next else { break };
                let case = &cases[i];
                let t = Instant::now();
                let r = run_case(s, case);
                eprintln!(
                    "  [{:>5.1}s] {} → {}",
                    t.elapsed().as_secs_f64(),
                    case.id(),
                    match &r {
                        Ok(o) if o.ran => "ran",
                        Ok(o) if o.timed_out => "hung",
                        Ok(_) => "not run",
                        Err(_) => "error",
                    }
                );
                if let Ok(mut m) = results.lock() {
                    m.insert(i, r);
                }
            });
        }
    });
    let mut m = match Arc::try_unwrap(results) {
        Ok(m) => m.into_inner().unwrap_or_default(),
        Err(_) => BTreeMap::new(),
    };
    (0..cases.len())
        .map(|i| m.remove(&i).unwrap_or_else(|| Err("not run".into())))
        .collect()
}

/// Known failures: `case-id  reason` per line (`#` comments).
pub fn known_failures(path: &Path) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if let Ok(t) = fs::read_to_string(path) {
        for line in t.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (id, why) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            m.insert(id.to_string(), why.trim().to_string());
        }
    }
    m
}

pub fn host_version(s: &Settings, host: Host) -> Option<String> {
    let exe = host.exe(&s.hosts_dir);
    if !exe.exists() {
        return None;
    }
    let out = Command::new(&exe)
        .arg("--version")
        .env_clear()
        .env("PATH", &s.path_var)
        .env("HOME", s.out.join("version-home"))
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let t = String::from_utf8_lossy(&out.stdout);
    let v = t
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    Some(v.to_string())
}
