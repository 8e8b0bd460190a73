//! `shellgate hook <host>`: the host adapters (SPEC §13).
//!
//! One JSON event arrives on stdin. For the host's pre-tool event
//! (`PreToolUse`, Gemini `BeforeTool`) the decision leaves on stdout in the
//! host's format with exit 0; other events get no answer (Claude Code's
//! `PostToolUse` after a call the gate asked about is recorded in the audit
//! log as approved in the host's dialog). Exit 2 with the reason on stderr
//! (which every supported host treats as blocking) is reserved for input
//! that cannot be understood and for internal errors. Hosts let the tool run
//! when a hook crashes, so every failure must end in that exit 2: the hook
//! runs under a panic guard and a watchdog, inside a supervising parent
//! process (`failsafe.rs`) that turns a crash, a kill or a hang of the
//! worker into exit 2 (SPEC §15.9).
//!
//! This module is the plumbing every host shares: reading the event (size
//! and time limits), the panic guard, evaluating each call of the event and
//! combining their decisions into one verdict. Each host has a module of
//! its own — [`claude_code`], [`gemini`], [`codex`] — with the tools it
//! gates, how their input becomes calls (`calls.rs`), and its answer format.
//! `reasons.rs` words the reason returned to the agent.

pub mod ask;
mod calls;
pub mod claude_code;
pub mod codex;
pub mod failsafe;
#[cfg(feature = "fault-injection")]
mod fault;
pub mod gemini;
pub mod host_proc;
mod reasons;
pub mod served;

#[cfg(not(unix))]
use std::io::Read;
use std::io::Write;
use std::panic::AssertUnwindSafe;
#[cfg(not(unix))]
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use serde_json::{Map, Value};
use shellgate_policy::candidates::{Scope, Touch};
use shellgate_policy::config::expand_home;
use shellgate_policy::decision::{Context, Decision, Policy, Request};
use shellgate_policy::protected::{self, Behaviour, Protected};
use shellgate_policy::{Audience, Channel};
use shellgate_shell::paths;
use shellgate_store::state::{is_valid_session_id, DecisionRecord, SessionRecord, StateError};

use crate::cli::ChannelArg;
use crate::edge::{self, CallFlags, Edge, Homes, UsageError};
use calls::{Call, Invalid};
use reasons::reason_text;

pub use reasons::{shell_word, sq};

/// Largest event accepted on stdin; a larger one is refused (blocking).
pub const MAX_INPUT_BYTES: usize = 1 << 20;

/// How long the hook waits for the host to finish writing the event.
const STDIN_TIMEOUT: Duration = Duration::from_secs(20);

/// Environment variable that may *shorten* the stdin timeout (milliseconds;
/// used by tests). It can never lengthen it.
const STDIN_TIMEOUT_ENV: &str = "SHELLGATE_HOOK_STDIN_TIMEOUT_MS";

/// A host agent with a hook adapter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Host {
    /// Claude Code (`PreToolUse`).
    ClaudeCode,
    /// Gemini CLI (`BeforeTool`).
    Gemini,
    /// OpenAI Codex (`PreToolUse`).
    Codex,
}

impl Host {
    pub fn name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Gemini => "gemini",
            Host::Codex => "codex",
        }
    }

    fn source(self) -> String {
        format!("hook:{}", self.name())
    }

    /// The shell tools and the file tools this adapter gates.
    pub fn tools(self) -> [&'static [&'static str]; 2] {
        match self {
            Host::ClaudeCode => [claude_code::SHELL_TOOLS, claude_code::FILE_TOOLS],
            Host::Gemini => [gemini::SHELL_TOOLS, gemini::FILE_TOOLS],
            Host::Codex => [codex::SHELL_TOOLS, codex::FILE_TOOLS],
        }
    }

    /// The calls of one tool use, in this host's terms.
    fn map(self, tool: &str, input: &Map<String, Value>, cwd: &str) -> Result<Vec<Call>, Invalid> {
        match self {
            Host::ClaudeCode => claude_code::map(tool, input, cwd),
            Host::Gemini => gemini::map(tool, input, cwd),
            Host::Codex => codex::map(tool, input, cwd),
        }
    }

    /// The host's JSON for a verdict (`None` = no output).
    fn output(self, v: Verdict, reason: &str) -> Option<String> {
        match self {
            Host::ClaudeCode => claude_code::output(v, reason),
            Host::Gemini => gemini::output(v, reason),
            Host::Codex => codex::output(v, reason),
        }
    }

    /// Whether the host runs a command the hook rewrote (Claude Code's
    /// `updatedInput`): only then is the sandboxed allow of SPEC §18
    /// offered. Gemini and Codex keep asking for such calls.
    fn can_rewrite(self) -> bool {
        matches!(self, Host::ClaudeCode)
    }

    /// The host's JSON for an allow that runs `input` instead of the tool
    /// input it sent; a host that cannot rewrite gets an ask.
    fn output_rewrite(self, reason: &str, input: &Map<String, Value>) -> Option<String> {
        match self {
            Host::ClaudeCode => Some(claude_code::output_rewrite(reason, input)),
            Host::Gemini | Host::Codex => self.output(Verdict::Ask, reason),
        }
    }

    /// What an event is for this host's adapter.
    fn event_kind(self, name: Option<&str>) -> EventKind {
        match self {
            Host::ClaudeCode => claude_code::event_kind(name),
            Host::Gemini => gemini::event_kind(name),
            Host::Codex => codex::event_kind(name),
        }
    }

    /// The session's project directory as the host declares it.
    fn project_dir(self, cwd: &str, home: &str) -> String {
        match self {
            Host::ClaudeCode => claude_code::project_dir(cwd, home),
            Host::Gemini | Host::Codex => cwd.to_string(),
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct HookArgs {
    /// The host whose event is on stdin: claude-code, gemini or codex.
    #[arg(value_enum)]
    pub host: Host,
    /// Channel of the host's runs (default interactive). `headless` marks
    /// unattended runs: nobody can answer, so asks become denies and the
    /// autonomous zone applies.
    #[arg(long, value_enum)]
    pub channel: Option<ChannelArg>,
    /// Seconds to wait for a human's answer in the approval service
    /// (`shellgate serve`) when the decision is ask, counted from the hook's
    /// start; 0 never waits. The host's hook timeout must exceed it by 30 s
    /// (`shellgate install --wait` writes both). Default 10, which fits the
    /// 30 s timeout earlier installs wrote.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=ask::MAX_WAIT_SECS))]
    pub wait: Option<u64>,
}

impl HookArgs {
    /// How long an ask waits for the approval service.
    pub fn wait(&self) -> Duration {
        Duration::from_secs(self.wait.unwrap_or(ask::DEFAULT_WAIT_SECS))
    }
}

/// `[--home DIR] hook HOST [--channel C] [--wait SECONDS]` parsed without
/// clap (building clap's command tree is a fifth of a hook call); `None`
/// for anything else, which clap then parses (and explains).
pub fn fast_args(args: &[std::ffi::OsString]) -> Option<(Option<std::path::PathBuf>, HookArgs)> {
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    let mut home = None;
    let mut host = None;
    let mut channel = None;
    let mut wait = None;
    let mut seen_hook = false;
    while let Some(w) = words.next() {
        let w = w?;
        if let Some(v) = w.strip_prefix("--home=") {
            if home.is_some() || v.is_empty() {
                return None;
            }
            home = Some(std::path::PathBuf::from(v));
        } else if w == "--home" {
            let v = words.next()??;
            if home.is_some() || v.is_empty() || v.starts_with('-') {
                return None;
            }
            home = Some(std::path::PathBuf::from(v));
        } else if !seen_hook {
            if w != "hook" {
                return None;
            }
            seen_hook = true;
        } else if host.is_none() {
            host = Some(match w {
                "claude-code" => Host::ClaudeCode,
                "gemini" => Host::Gemini,
                "codex" => Host::Codex,
                _ => return None,
            });
        } else if let Some(v) = w.strip_prefix("--channel=").filter(|_| channel.is_none()) {
            channel = Some(parse_channel(v)?);
        } else if w == "--channel" && channel.is_none() {
            channel = Some(parse_channel(words.next()??)?);
        } else if let Some(v) = w.strip_prefix("--wait=").filter(|_| wait.is_none()) {
            wait = Some(parse_wait(v)?);
        } else if w == "--wait" && wait.is_none() {
            wait = Some(parse_wait(words.next()??)?);
        } else {
            return None;
        }
    }
    Some((
        home,
        HookArgs {
            host: host?,
            channel,
            wait,
        },
    ))
}

/// A `--wait` value clap would accept (digits, within the range); anything
/// else goes to clap, which explains the error.
fn parse_wait(v: &str) -> Option<u64> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok().filter(|n| *n <= ask::MAX_WAIT_SECS)
}

fn parse_channel(v: &str) -> Option<ChannelArg> {
    Some(match v {
        "interactive" => ChannelArg::Interactive,
        "headless" => ChannelArg::Headless,
        "reminder" => ChannelArg::Reminder,
        "webhook" => ChannelArg::Webhook,
        _ => return None,
    })
}

fn gated(host: Host, tool: &str) -> bool {
    host.tools().iter().any(|l| l.contains(&tool))
}

/// What a hook event is for the adapter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The event that gates a tool call (`PreToolUse`, `BeforeTool`): it
    /// gets a decision.
    PreTool,
    /// The tool ran (`PostToolUse`, `AfterTool`): no answer; recorded.
    PostTool,
    /// Anything else (`Notification`, `SessionStart`, …): no answer.
    Other,
}

/// The verdict handed to the host.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Verdict {
    Allow,
    Ask,
    Deny,
}

impl Verdict {
    fn from_decision(d: &str) -> Verdict {
        match d {
            "allow" => Verdict::Allow,
            "ask" => Verdict::Ask,
            _ => Verdict::Deny,
        }
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }
}

/// What the hook does.
#[derive(Debug)]
enum Outcome {
    /// A tool this adapter does not gate, or an event that takes no
    /// answer: no output, exit 0.
    PassThrough,
    /// A decision in the host's format, exit 0.
    Decided(Verdict, String),
    /// An allow that runs this tool input instead (the sandboxed allow of
    /// SPEC §18): the fields given replace the host's.
    Rewrite(String, Map<String, Value>),
    /// Input that cannot be understood or an internal error: the reason on
    /// stderr, exit 2 (blocking for every supported host).
    Blocking(String),
    /// Inside the approval service only: the standalone hook must evaluate
    /// this event (`served.rs`).
    Fallback,
}

/// `shellgate hook <host>`: the whole process from here on (called on the
/// main thread, before any other thread exists). Returns the exit status.
///
/// A hook that crashes, is killed or hangs lets the tool run in Codex and
/// Gemini CLI: the hook's work runs in a child process whose every abnormal
/// end its supervising parent turns into a block (exit 2), forked here
/// while the process has one thread; the worker evaluates under the panic
/// guard and the watchdog.
pub fn main(home: Option<&std::path::Path>, a: &HookArgs) -> u8 {
    // A worker waiting for a human in the approval service (`--wait`)
    // gets that much longer (still below the host's timeout).
    let d = failsafe::DEADLINE;
    if let failsafe::Role::Exit(code) = failsafe::supervise(d, d + a.wait()) {
        return code;
    }
    let homes = Homes::resolve(home);
    let a = a.clone();
    edge::run_guarded(Some((edge::WATCHDOG, 2)), move || run(&homes, &a))
}

/// The worker's part of [`main`]: read, evaluate, answer.
fn run(homes: &Homes, a: &HookArgs) -> u8 {
    ask::set_service_wait(std::time::Instant::now(), a.wait());
    let host = a.host;
    let channel: Option<Channel> = a.channel.map(Into::into);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| handle(homes, host, channel)))
        .unwrap_or_else(|_| {
            Outcome::Blocking(
                "shellgate: internal error while evaluating the hook event; the call is blocked (fail closed)"
                    .to_string(),
            )
        });
    emit(host, outcome)
}

/// What a hook prints and returns.
struct Rendered {
    /// The line for stdout (without its newline).
    pub stdout: Option<String>,
    /// The line for stderr (without its newline).
    pub stderr: Option<String>,
    pub code: u8,
}

/// The outcome in the host's format.
fn render(host: Host, outcome: Outcome) -> Rendered {
    let out = |text: Option<String>| Rendered {
        stdout: text,
        stderr: None,
        code: 0,
    };
    match outcome {
        Outcome::PassThrough => out(None),
        Outcome::Blocking(reason) => Rendered {
            stdout: None,
            stderr: Some(reason),
            code: 2,
        },
        // Never reaches a standalone hook; blocked if it did.
        Outcome::Fallback => Rendered {
            stdout: None,
            stderr: Some(
                "shellgate: internal error while evaluating the hook event; the call is blocked (fail closed)"
                    .into(),
            ),
            code: 2,
        },
        Outcome::Decided(v, reason) => out(host.output(v, &reason)),
        Outcome::Rewrite(reason, input) => out(host.output_rewrite(&reason, &input)),
    }
}

/// Write the outcome in the host's format; returns the exit status.
fn emit(host: Host, outcome: Outcome) -> u8 {
    let r = render(host, outcome);
    if let Some(e) = &r.stderr {
        eprintln!("{e}");
    }
    let Some(text) = r.stdout else {
        return r.code;
    };
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|_| out.flush()) {
        Ok(()) => r.code,
        Err(e) => {
            eprintln!("shellgate: cannot write the decision to stdout ({e}); the call is blocked");
            2
        }
    }
}

// ----- reading the event -------------------------------------------------

fn stdin_timeout() -> Duration {
    std::env::var(STDIN_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .filter(|d| *d < STDIN_TIMEOUT)
        .unwrap_or(STDIN_TIMEOUT)
}

/// Read stdin with a size cap and a time limit (never hang), on this
/// thread: `poll(2)` waits for input up to the time left.
#[cfg(unix)]
fn read_stdin() -> std::result::Result<Vec<u8>, String> {
    let timeout = stdin_timeout();
    let start = std::time::Instant::now();
    let too_late = || {
        format!(
            "shellgate: no complete hook event on stdin within {} ms; the call is blocked",
            timeout.as_millis()
        )
    };
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(too_late());
        }
        let mut pfd = libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: poll on one initialised pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(format!(
                "shellgate: cannot read the hook event from stdin: {e}"
            ));
        }
        if r == 0 {
            continue; // the time check above ends it
        }
        // SAFETY: read into a local buffer of the given length.
        let n = unsafe { libc::read(libc::STDIN_FILENO, chunk.as_mut_ptr().cast(), chunk.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(format!(
                "shellgate: cannot read the hook event from stdin: {e}"
            ));
        }
        if n == 0 {
            return Ok(buf);
        }
        buf.extend_from_slice(&chunk[..n as usize]);
        if buf.len() > MAX_INPUT_BYTES {
            return Err(format!(
                "shellgate: the hook event is larger than {MAX_INPUT_BYTES} bytes; refusing it (fail closed)"
            ));
        }
    }
}

/// Read stdin with a size cap and a time limit (never hang).
#[cfg(not(unix))]
fn read_stdin() -> std::result::Result<Vec<u8>, String> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("shellgate-stdin".into())
        .spawn(move || {
            let mut buf = Vec::new();
            let r = std::io::stdin()
                .lock()
                .take(MAX_INPUT_BYTES as u64 + 1)
                .read_to_end(&mut buf);
            let _ = tx.send(r.map(|_| buf));
        });
    if let Err(e) = spawned {
        return Err(format!("shellgate: cannot read the hook event: {e}"));
    }
    let timeout = stdin_timeout();
    match rx.recv_timeout(timeout) {
        Ok(Ok(buf)) if buf.len() > MAX_INPUT_BYTES => Err(format!(
            "shellgate: the hook event is larger than {MAX_INPUT_BYTES} bytes; refusing it (fail closed)"
        )),
        Ok(Ok(buf)) => Ok(buf),
        Ok(Err(e)) => Err(format!("shellgate: cannot read the hook event from stdin: {e}")),
        Err(_) => Err(format!(
            "shellgate: no complete hook event on stdin within {} ms; the call is blocked",
            timeout.as_millis()
        )),
    }
}

/// The event's fields every adapter needs.
struct Event {
    tool_name: String,
    session: Option<String>,
    cwd: Option<String>,
    input: Option<Map<String, Value>>,
}

fn handle(homes: &Homes, host: Host, channel: Option<Channel>) -> Outcome {
    let bytes = match read_stdin() {
        Ok(b) => b,
        Err(e) => return Outcome::Blocking(e),
    };
    #[cfg(feature = "fault-injection")]
    fault::inject();
    handle_bytes(homes, host, channel, &bytes)
}

/// Evaluate one event given as bytes; returns what the hook would print on
/// stdout and its exit status. For fuzzing and embedding: no stdin, no
/// panic guard (callers add their own).
pub fn evaluate_event(homes: &Homes, host: Host, bytes: &[u8]) -> (Option<String>, u8) {
    match handle_bytes(homes, host, None, bytes) {
        Outcome::PassThrough => (None, 0),
        Outcome::Blocking(_) | Outcome::Fallback => (None, 2),
        Outcome::Decided(v, reason) => (host.output(v, &reason), 0),
        Outcome::Rewrite(reason, input) => (host.output_rewrite(&reason, &input), 0),
    }
}

fn handle_bytes(homes: &Homes, host: Host, channel: Option<Channel>, bytes: &[u8]) -> Outcome {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return Outcome::Blocking(format!(
                "shellgate: the hook event is not valid JSON ({e}); the call is blocked"
            ))
        }
    };
    let Some(obj) = value.as_object() else {
        return Outcome::Blocking(
            "shellgate: the hook event is not a JSON object; the call is blocked".into(),
        );
    };
    // A name that is not a string is not understood: treated as the gated
    // event (fail closed), like a missing one.
    let kind = host.event_kind(obj.get("hook_event_name").and_then(Value::as_str));
    if kind == EventKind::Other
        || (kind == EventKind::PostTool && !obj.get("tool_name").is_some_and(Value::is_string))
    {
        return Outcome::PassThrough;
    }
    let Some(tool_name) = obj.get("tool_name").and_then(Value::as_str) else {
        return Outcome::Blocking(
            "shellgate: the hook event has no tool_name; the call is blocked".into(),
        );
    };
    if !gated(host, tool_name) {
        return Outcome::PassThrough;
    }
    let event = Event {
        tool_name: tool_name.to_string(),
        session: obj
            .get("session_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        cwd: obj.get("cwd").and_then(Value::as_str).map(str::to_string),
        input: obj.get("tool_input").and_then(Value::as_object).cloned(),
    };
    if kind == EventKind::PostTool {
        record_after_tool(homes, host, &event);
        return Outcome::PassThrough;
    }
    decide_event(homes, host, channel, &event)
}

/// Reason recorded when a call the gate asked about ran: a human approved
/// it in the host's own dialog (which never reaches the gate otherwise).
pub const APPROVED_IN_HOST: &str = "approved_in_host_dialog";

/// How many recent audit records are searched for the ask a post-tool
/// event answers.
const POST_TOOL_LOOKBACK: usize = 1000;

/// A post-tool event: when the gate's last decision for this session, tool
/// and command was an ask, the call ran because a human approved it in the
/// host's dialog — record that (best effort: the tool already ran, so
/// nothing here may block or print).
fn record_after_tool(homes: &Homes, host: Host, event: &Event) {
    let (Some(session), Some(input)) = (&event.session, &event.input) else {
        return;
    };
    if !is_valid_session_id(session) {
        return;
    }
    let Some(cwd) = event
        .cwd
        .as_deref()
        .and_then(|c| absolute_dir(c, &homes.user))
    else {
        return;
    };
    let Ok(calls) = host.map(&event.tool_name, input, &cwd) else {
        return;
    };
    let mut edge = Edge::new(homes.clone());
    let Ok(Some(db)) = edge.db(false) else {
        return;
    };
    let Ok(recent) = db.recent_decisions(POST_TOOL_LOOKBACK) else {
        return;
    };
    let source = host.source();
    // An answer given in the approval service is recorded by it (source
    // `serve:<host>`): the call then ran because of that answer.
    let served = format!("serve:{}", host.name());
    let mut approved = Vec::new();
    for call in &calls {
        let last = recent.iter().rev().find(|r| {
            r.session.as_deref() == Some(session.as_str())
                && r.tool == call.tool
                && r.command == call.command
                && (r.source == source || r.source == served)
        });
        if let Some(ask) = last.filter(|r| r.decision == "ask") {
            approved.push(DecisionRecord {
                time: String::new(),
                session: ask.session.clone(),
                tool: ask.tool.clone(),
                command: ask.command.clone(),
                cwd: ask.cwd.clone(),
                decision: "allow".into(),
                reason: APPROVED_IN_HOST.into(),
                candidates: ask.candidates.clone(),
                matched_grant: None,
                source: source.clone(),
            });
        }
    }
    let _ = db.log_decisions(&approved);
}

/// A deny for an event that could not be evaluated (logged best-effort).
fn invalid(homes: &Homes, host: Host, event: &Event, why: &str) -> Outcome {
    let message = format!("invalid call: {why}");
    log_best_effort(
        homes,
        DecisionRecord {
            time: String::new(),
            session: event.session.clone().filter(|s| is_valid_session_id(s)),
            tool: event.tool_name.clone(),
            command: event
                .input
                .as_ref()
                .map(|i| Value::Object(i.clone()).to_string())
                .unwrap_or_default()
                .chars()
                .take(4096)
                .collect(),
            cwd: event.cwd.clone(),
            decision: "deny".into(),
            reason: "invalid_call".into(),
            candidates: Value::Array(Vec::new()),
            matched_grant: None,
            source: host.source(),
        },
    );
    Outcome::Decided(
        Verdict::Deny,
        format!("shellgate deny (invalid_call): {message}"),
    )
}

fn log_best_effort(homes: &Homes, rec: DecisionRecord) {
    let mut edge = Edge::new(homes.clone());
    if let Ok(Some(db)) = edge.db(true) {
        let _ = db.log_decision(&rec);
    }
}

/// `d` (`~` expanded) when absolute, normalized.
fn absolute_dir(d: &str, home: &str) -> Option<String> {
    let e = expand_home(d.trim(), home);
    e.starts_with('/').then(|| paths::normalize(&e))
}

fn decide_event(homes: &Homes, host: Host, channel: Option<Channel>, event: &Event) -> Outcome {
    let Some(input) = &event.input else {
        return invalid(homes, host, event, "tool_input is missing or not an object");
    };
    let session = match &event.session {
        None => return invalid(homes, host, event, "session_id is missing or not a string"),
        Some(s) if !is_valid_session_id(s) => {
            let shown: String = s.chars().take(80).collect();
            return invalid(
                homes,
                host,
                event,
                &format!(
                    "session id '{shown}' does not match ^[A-Za-z0-9][A-Za-z0-9._-]{{0,127}}$"
                ),
            );
        }
        Some(s) => s.clone(),
    };
    let Some(cwd) = event
        .cwd
        .as_deref()
        .and_then(|c| absolute_dir(c, &homes.user))
    else {
        return invalid(homes, host, event, "cwd is missing or not an absolute path");
    };
    let calls = host.map(&event.tool_name, input, &cwd);
    let calls = match calls {
        Ok(c) => c,
        Err(Invalid(why)) => return invalid(homes, host, event, &why),
    };
    // The session's project directory as the host declares it.
    let project_dir = host.project_dir(&cwd, &homes.user);
    match evaluate_calls(homes, host, channel, &session, &project_dir, &calls) {
        // The host's other input fields (description, timeout …) stay.
        Ok(Outcome::Rewrite(reason, fields)) => {
            let mut merged = input.clone();
            merged.extend(fields);
            Outcome::Rewrite(reason, merged)
        }
        Ok(o) => o,
        // Inside the service (a locked database, the client's deadline):
        // the client evaluates the call itself, with the standalone hook's
        // patience.
        Err(_) if served::serving() => Outcome::Fallback,
        Err(e) => Outcome::Blocking(format!(
            "shellgate: cannot evaluate the call, so it is blocked: {e:#}"
        )),
    }
}

fn evaluate_calls(
    homes: &Homes,
    host: Host,
    channel: Option<Channel>,
    session: &str,
    project_dir: &str,
    calls: &[Call],
) -> Result<Outcome> {
    if served::serving() && calls.len() != 1 {
        return Ok(Outcome::Fallback);
    }
    let mut policy = edge::load_policy_for(homes, &[shellgate_policy::Os::host()])?;
    if host.can_rewrite() {
        edge::offer_sandbox(homes, &mut policy);
    }
    let mut edge = Edge::new(homes.clone());
    let recorded = {
        let db = edge
            .db(true)?
            .ok_or_else(|| anyhow::anyhow!("no state database"))?;
        match db.session(session)? {
            Some(r) => r,
            None => {
                // First sight: a personal, interactive (unless --channel)
                // session rooted at the host's project directory.
                let rec = SessionRecord {
                    id: session.to_string(),
                    audience: Audience::Personal,
                    channel: channel.unwrap_or(Channel::Interactive),
                    parent: None,
                    project_dir: Some(project_dir.to_string()),
                    created_at: String::new(),
                    ended_at: None,
                };
                match db.create_session(&rec) {
                    Ok(()) | Err(StateError::AlreadyExists { .. }) => {}
                    Err(e) => return Err(e.into()),
                }
                db.session(session)?
                    .ok_or_else(|| anyhow::anyhow!("session '{session}' was not recorded"))?
            }
        }
    };
    let has_project = recorded.project_dir.is_some();
    edge.remember_session(recorded);
    let flags = CallFlags {
        session: Some(session.to_string()),
        audience: None,
        channel,
        // A recorded project directory applies; the host's is used only
        // when the session has none.
        project_dir: if has_project {
            None
        } else {
            Some(project_dir.to_string())
        },
        os: None,
    };
    let ctx = match edge::build_context(&mut edge, &flags) {
        Ok(c) => c,
        Err(e) => {
            return match e.downcast_ref::<UsageError>() {
                Some(u) => Ok(Outcome::Decided(
                    Verdict::Deny,
                    format!("shellgate deny (invalid_call): {u}"),
                )),
                None => Err(e),
            }
        }
    };
    let mut decisions = Vec::new();
    let mut requests = Vec::new();
    for call in calls {
        let req = Request {
            tool: call.tool.clone(),
            command: call.command.clone(),
            working_directory: call.working_directory.clone(),
        };
        let d = match protected_below(&policy, &ctx, call) {
            Some(d) => d,
            None => edge::evaluate(&mut edge, &policy, &req, &ctx)?,
        };
        if served::leaves_ask(d.decision) {
            return Ok(Outcome::Fallback);
        }
        requests.push(req);
        if let Some(db) = edge.db(false)? {
            let matched = d
                .candidates
                .iter()
                .find_map(|c| c.grant.as_ref())
                .and_then(|g| serde_json::to_value(g).ok());
            db.log_decision(&DecisionRecord {
                time: String::new(),
                session: Some(ctx.session.clone()),
                tool: d.tool.clone(),
                command: d.command.clone(),
                cwd: d.cwd.clone(),
                decision: d.decision.to_string(),
                reason: d.reason.clone(),
                candidates: serde_json::to_value(&d.candidates).unwrap_or_default(),
                matched_grant: matched,
                source: host.source(),
            })?;
        }
        decisions.push(d);
    }
    Ok(combine(host, homes, &ctx, &decisions, &requests))
}

/// Recursive reads (grep-like tools, read globs) of a directory above a
/// read-protected path: the file-tool evaluation sees one path, so the
/// adapter checks what lies below it.
fn protected_below(policy: &Policy, ctx: &Context, call: &Call) -> Option<Decision> {
    let touch = call.reads_below.as_ref()?;
    let path = paths::normalize(&expand_home(&touch.path, &ctx.home));
    let p = Protected::new(
        &ctx.gate_home,
        &ctx.home,
        policy.config.protected_read(),
        policy.config.protected_write(),
        ctx.fs,
    );
    let t = Touch::new(path.clone(), touch.kind, touch.scope);
    let b = Behaviour {
        reader: true,
        recursive_read: matches!(touch.scope, Scope::Exact),
        ..Default::default()
    };
    let hit = protected::violation(&p, &[t], b)?;
    Some(Decision {
        decision: "deny",
        reason: "protected_path".into(),
        message: format!(
            "{hit} holds files protected by shellgate; a recursive read of it would reach them"
        ),
        tool: call.tool.clone(),
        command: call.command.clone(),
        display: call.command.clone(),
        cwd: Some(path),
        audience: ctx.audience,
        channel: ctx.channel,
        complex: false,
        complex_reasons: Vec::new(),
        candidates: Vec::new(),
        patterns: Vec::new(),
        options: None,
        prompt: None,
        hint: None,
        sandbox: None,
        location: String::new(),
        display_verbs: Vec::new(),
        unnamed_verbs: Vec::new(),
        cautions: Vec::new(),
        not_sandboxed: None,
    })
}

/// One verdict for the event: any deny wins, then any ask, else allow.
/// An ask is answered by `ask.rs` (the approval service, else who can
/// answer decides ask or deny). `requests[i]` is the call of `decisions[i]`.
fn combine(
    host: Host,
    homes: &Homes,
    ctx: &Context,
    decisions: &[Decision],
    requests: &[Request],
) -> Outcome {
    let verdict = decisions
        .iter()
        .map(|d| Verdict::from_decision(d.decision))
        .max()
        .unwrap_or(Verdict::Deny);
    let chosen: Vec<&Decision> = decisions
        .iter()
        .filter(|d| Verdict::from_decision(d.decision) == verdict)
        .collect();
    if verdict == Verdict::Ask {
        let asks: Vec<(&Request, &Decision)> = requests
            .iter()
            .zip(decisions)
            .filter(|(_, d)| d.decision == "ask")
            .collect();
        return ask::answer(host, homes, ctx, &asks);
    }
    let mut parts: Vec<String> = Vec::new();
    for d in chosen {
        let r = reason_text(homes, d);
        if !parts.contains(&r) {
            parts.push(r);
        }
    }
    if parts.is_empty() {
        parts.push("shellgate deny (invalid_call): nothing to evaluate".into());
    }
    // A sandboxed allow: the host runs the wrapped command (one shell call
    // per event; anything else is not rewritten and asks).
    let sandboxed: Vec<_> = decisions
        .iter()
        .filter_map(|d| d.sandbox.as_ref())
        .collect();
    if verdict == Verdict::Allow && !sandboxed.is_empty() {
        if let ([run], [_]) = (sandboxed.as_slice(), decisions) {
            let mut fields = Map::new();
            fields.insert("command".into(), Value::String(run.command.clone()));
            return Outcome::Rewrite(parts.join("\n"), fields);
        }
        return Outcome::Decided(Verdict::Ask, parts.join("\n"));
    }
    Outcome::Decided(verdict, parts.join("\n"))
}
