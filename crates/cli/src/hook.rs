//! `shellgate hook <host>`: the host adapters (SPEC §13).
//!
//! One JSON event arrives on stdin; the decision leaves on stdout in the
//! host's format with exit 0. Exit 2 with the reason on stderr (which every
//! supported host treats as blocking) is reserved for input that cannot be
//! understood and for internal errors. The whole hook runs under a panic
//! guard: hosts let the tool run when a hook crashes, so a crash must never
//! happen.
//!
//! Formats (from the hosts' hook documentation):
//! - Claude Code `PreToolUse`: `{"hookSpecificOutput": {"hookEventName":
//!   "PreToolUse", "permissionDecision": "allow"|"ask"|"deny",
//!   "permissionDecisionReason": "…"}}` for every decision.
//! - Gemini CLI `BeforeTool`: allow ⇒ no output; ask ⇒ `{"decision": "ask",
//!   "reason": …}`; deny ⇒ `{"decision": "deny", "reason": …}`.
//! - Codex `PreToolUse`: allow ⇒ no output; deny (and ask, which Codex
//!   hooks cannot express) ⇒ the Claude Code shape with `"deny"`.

use std::io::{Read, Write};
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use serde_json::{json, Map, Value};
use shellgate_policy::candidates::{Scope, Touch, TouchKind};
use shellgate_policy::config::expand_home;
use shellgate_policy::decision::{Context, Decision, Policy, Request, Status};
use shellgate_policy::protected::{self, Behaviour, Protected};
use shellgate_policy::{Audience, Channel};
use shellgate_shell::paths;
use shellgate_store::state::{is_valid_session_id, DecisionRecord, SessionRecord, StateError};

use crate::edge::{self, CallFlags, Edge, Homes, UsageError};
use crate::ChannelArg;

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
}

#[derive(Args, Debug)]
pub struct HookArgs {
    /// The host whose event is on stdin: claude-code, gemini or codex.
    #[arg(value_enum)]
    pub host: Host,
    /// Channel of the host's runs (default interactive). `headless` marks
    /// unattended runs: nobody can answer, so asks become denies and the
    /// autonomous zone applies.
    #[arg(long, value_enum)]
    pub channel: Option<ChannelArg>,
}

/// Tool names each adapter gates (the installed matcher names these).
pub const CLAUDE_SHELL_TOOLS: &[&str] = &["Bash"];
pub const CLAUDE_FILE_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "LS",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
];
pub const GEMINI_SHELL_TOOLS: &[&str] = &["run_shell_command"];
pub const GEMINI_FILE_TOOLS: &[&str] = &[
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "search_file_content",
    "write_file",
    "replace",
];
/// Codex reports every shell-like tool as `Bash` to hooks; the other names
/// are accepted in case an event carries the internal tool name.
pub const CODEX_SHELL_TOOLS: &[&str] = &[
    "Bash",
    "shell",
    "local_shell",
    "shell_command",
    "exec_command",
    "unified_exec",
    "container.exec",
];
pub const CODEX_FILE_TOOLS: &[&str] = &["apply_patch"];

fn gated(host: Host, tool: &str) -> bool {
    let lists: [&[&str]; 2] = match host {
        Host::ClaudeCode => [CLAUDE_SHELL_TOOLS, CLAUDE_FILE_TOOLS],
        Host::Gemini => [GEMINI_SHELL_TOOLS, GEMINI_FILE_TOOLS],
        Host::Codex => [CODEX_SHELL_TOOLS, CODEX_FILE_TOOLS],
    };
    lists.iter().any(|l| l.contains(&tool))
}

/// The verdict handed to the host.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
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

    fn as_str(self) -> &'static str {
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
    /// A tool this adapter does not gate: no output, exit 0.
    PassThrough,
    /// A decision in the host's format, exit 0.
    Decided(Verdict, String),
    /// Input that cannot be understood or an internal error: the reason on
    /// stderr, exit 2 (blocking for every supported host).
    Blocking(String),
}

pub fn run(homes: &Homes, a: &HookArgs) -> Result<u8> {
    let host = a.host;
    let channel: Option<Channel> = a.channel.map(Into::into);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| handle(homes, host, channel)))
        .unwrap_or_else(|_| {
            Outcome::Blocking(
                "shellgate: internal error while evaluating the hook event; the call is blocked (fail closed)"
                    .to_string(),
            )
        });
    Ok(emit(host, outcome))
}

/// Write the outcome in the host's format; returns the exit status.
fn emit(host: Host, outcome: Outcome) -> u8 {
    let text = match outcome {
        Outcome::PassThrough => return 0,
        Outcome::Blocking(reason) => {
            eprintln!("{reason}");
            return 2;
        }
        Outcome::Decided(v, reason) => match output_json(host, v, &reason) {
            Some(j) => j,
            None => return 0,
        },
    };
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|_| out.flush()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shellgate: cannot write the decision to stdout ({e}); the call is blocked");
            2
        }
    }
}

/// The host's JSON for a verdict (`None` = no output).
fn output_json(host: Host, v: Verdict, reason: &str) -> Option<String> {
    let pre_tool_use = |decision: &str| {
        json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": reason,
            }
        })
    };
    let value = match (host, v) {
        (Host::ClaudeCode, v) => pre_tool_use(v.as_str()),
        (Host::Gemini, Verdict::Allow) | (Host::Codex, Verdict::Allow) => return None,
        (Host::Gemini, v) => json!({"decision": v.as_str(), "reason": reason}),
        (Host::Codex, _) => pre_tool_use("deny"),
    };
    Some(value.to_string())
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

/// Read stdin with a size cap and a time limit (never hang).
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

// ----- mapping host tools to calls ---------------------------------------

/// One call to evaluate.
#[derive(Debug, Clone)]
struct Call {
    tool: String,
    /// Command, or path for file tools.
    command: String,
    working_directory: Option<String>,
    /// A directory (or glob base) the tool reads recursively: checked for
    /// read-protected paths below it before evaluation.
    reads_below: Option<Touch>,
}

impl Call {
    fn shell(command: String, wd: String) -> Call {
        Call {
            tool: "shell_execute".into(),
            command,
            working_directory: Some(wd),
            reads_below: None,
        }
    }

    fn file(tool: &str, path: String, cwd: &str) -> Call {
        Call {
            tool: tool.into(),
            command: path,
            working_directory: Some(cwd.to_string()),
            reads_below: None,
        }
    }
}

/// A gated tool's input could not be turned into calls.
struct Invalid(String);

fn str_field<'a>(input: &'a Map<String, Value>, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| input.get(*n).and_then(Value::as_str))
}

fn required<'a>(
    input: &'a Map<String, Value>,
    names: &[&str],
    tool: &str,
) -> std::result::Result<&'a str, Invalid> {
    match str_field(input, names) {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(Invalid(format!(
            "{tool}: tool_input.{} is missing or not a non-empty string",
            names[0]
        ))),
    }
}

/// Absolute form of a path the host gave relative to `base`. `~` paths are
/// left for the engine, which expands them against the user's home.
fn resolve_path(base: &str, p: &str) -> String {
    let p = p.trim();
    if p.starts_with('/') {
        paths::normalize(p)
    } else if p == "~" || p.starts_with("~/") {
        p.to_string()
    } else {
        paths::resolve(base, p)
    }
}

const GLOB_CHARS: &[char] = &['*', '?', '[', '{'];

/// Split a glob into its static directory and whether it globs (and
/// recursively, `**`).
fn glob_base(pattern: &str) -> (String, bool, bool) {
    if !pattern.contains(GLOB_CHARS) {
        return (pattern.to_string(), false, false);
    }
    let recursive = pattern.contains("**");
    let mut kept: Vec<&str> = Vec::new();
    for seg in pattern.split('/') {
        if seg.contains(GLOB_CHARS) {
            break;
        }
        kept.push(seg);
    }
    let base = kept.join("/");
    let base = if base.is_empty() && pattern.starts_with('/') {
        "/".to_string()
    } else {
        base
    };
    (base, true, recursive)
}

/// A call for a path that may be a glob (read or list).
fn glob_call(tool: &str, base_dir: &str, pattern: &str, cwd: &str) -> Call {
    let (literal, globbed, recursive) = glob_base(pattern.trim());
    let path = if literal.is_empty() {
        resolve_path(cwd, base_dir)
    } else {
        resolve_path(base_dir, &literal)
    };
    let mut call = Call::file(tool, path.clone(), cwd);
    if globbed && tool != "file_list" {
        call.reads_below = Some(Touch {
            path,
            kind: TouchKind::Operand,
            scope: Scope::Glob { recursive },
        });
    }
    call
}

/// A tool that reads everything below a directory (grep-like).
fn recursive_read_call(dir: String, cwd: &str) -> Call {
    let mut call = Call::file("file_read", dir.clone(), cwd);
    call.reads_below = Some(Touch {
        path: dir,
        kind: TouchKind::Operand,
        scope: Scope::Exact,
    });
    call
}

fn map_claude(
    tool: &str,
    input: &Map<String, Value>,
    cwd: &str,
) -> std::result::Result<Vec<Call>, Invalid> {
    Ok(match tool {
        "Bash" => vec![Call::shell(
            required(input, &["command"], tool)?.to_string(),
            cwd.to_string(),
        )],
        "Read" => {
            let p = required(input, &["file_path"], tool)?;
            vec![Call::file("file_read", resolve_path(cwd, p), cwd)]
        }
        "LS" => {
            let p = required(input, &["path"], tool)?;
            vec![Call::file("file_list", resolve_path(cwd, p), cwd)]
        }
        "Glob" => {
            let pattern = required(input, &["pattern"], tool)?;
            let base = str_field(input, &["path"])
                .filter(|s| !s.trim().is_empty())
                .map(|p| resolve_path(cwd, p))
                .unwrap_or_else(|| cwd.to_string());
            vec![glob_call("file_list", &base, pattern, cwd)]
        }
        "Grep" => {
            let base = str_field(input, &["path"])
                .filter(|s| !s.trim().is_empty())
                .map(|p| resolve_path(cwd, p))
                .unwrap_or_else(|| cwd.to_string());
            vec![recursive_read_call(base, cwd)]
        }
        "Write" => {
            let p = required(input, &["file_path"], tool)?;
            vec![Call::file("file_write", resolve_path(cwd, p), cwd)]
        }
        "Edit" | "MultiEdit" => {
            let p = required(input, &["file_path"], tool)?;
            vec![Call::file("file_edit", resolve_path(cwd, p), cwd)]
        }
        "NotebookEdit" => {
            let p = required(input, &["notebook_path"], tool)?;
            vec![Call::file("file_edit", resolve_path(cwd, p), cwd)]
        }
        _ => return Err(Invalid(format!("{tool}: not a gated tool"))),
    })
}

fn map_gemini(
    tool: &str,
    input: &Map<String, Value>,
    cwd: &str,
) -> std::result::Result<Vec<Call>, Invalid> {
    let dir_or_cwd = |input: &Map<String, Value>| {
        str_field(input, &["dir_path", "path", "directory"])
            .filter(|s| !s.trim().is_empty())
            .map(|p| resolve_path(cwd, p))
            .unwrap_or_else(|| cwd.to_string())
    };
    Ok(match tool {
        "run_shell_command" => {
            let command = required(input, &["command"], tool)?.to_string();
            let wd = match str_field(input, &["dir_path", "directory"]) {
                Some(d) if !d.trim().is_empty() => resolve_path(cwd, d),
                _ => cwd.to_string(),
            };
            vec![Call::shell(command, wd)]
        }
        "read_file" => {
            let p = required(input, &["file_path", "absolute_path", "path"], tool)?;
            vec![Call::file("file_read", resolve_path(cwd, p), cwd)]
        }
        "list_directory" => {
            let p = required(input, &["dir_path", "path"], tool)?;
            vec![Call::file("file_list", resolve_path(cwd, p), cwd)]
        }
        "glob" => {
            let pattern = required(input, &["pattern"], tool)?;
            let base = dir_or_cwd(input);
            vec![glob_call("file_list", &base, pattern, cwd)]
        }
        "search_file_content" => vec![recursive_read_call(dir_or_cwd(input), cwd)],
        "read_many_files" => {
            let list = ["include", "paths"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_array))
                .ok_or_else(|| {
                    Invalid(format!(
                        "{tool}: tool_input.include is missing or not an array"
                    ))
                })?;
            let mut calls = Vec::new();
            for item in list {
                match item.as_str() {
                    Some(s) if !s.trim().is_empty() => {
                        calls.push(glob_call("file_read", cwd, s, cwd));
                    }
                    _ => {
                        return Err(Invalid(format!(
                            "{tool}: every entry of tool_input.include must be a non-empty string"
                        )))
                    }
                }
            }
            if calls.is_empty() {
                return Err(Invalid(format!("{tool}: tool_input.include is empty")));
            }
            calls
        }
        "write_file" => {
            let p = required(input, &["file_path", "path"], tool)?;
            vec![Call::file("file_write", resolve_path(cwd, p), cwd)]
        }
        "replace" => {
            let p = required(input, &["file_path", "path"], tool)?;
            vec![Call::file("file_edit", resolve_path(cwd, p), cwd)]
        }
        _ => return Err(Invalid(format!("{tool}: not a gated tool"))),
    })
}

/// `["bash", "-lc", "script"]` ⇒ `script`; other argv ⇒ quoted words.
fn argv_command(argv: &[Value]) -> Option<String> {
    let words: Vec<&str> = argv.iter().map(Value::as_str).collect::<Option<_>>()?;
    if words.is_empty() {
        return None;
    }
    if words.len() == 3 {
        let shell = paths::basename(words[0]);
        let flag = words[1];
        if matches!(shell, "bash" | "sh" | "zsh" | "dash")
            && flag.starts_with('-')
            && flag.ends_with('c')
            && flag[1..].chars().all(|c| c.is_ascii_alphabetic())
        {
            return Some(words[2].to_string());
        }
    }
    Some(
        words
            .iter()
            .map(|w| shell_word(w))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// Paths an `apply_patch` body touches (added, updated, deleted, moved to).
pub fn patch_paths(patch: &str) -> Vec<String> {
    const MARKERS: [&str; 4] = [
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in patch.lines() {
        let line = line.trim();
        for m in MARKERS {
            if let Some(rest) = line.strip_prefix(m) {
                let p = rest.trim().to_string();
                if !p.is_empty() && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn map_codex(
    tool: &str,
    input: &Map<String, Value>,
    cwd: &str,
) -> std::result::Result<Vec<Call>, Invalid> {
    let wd = match str_field(input, &["workdir", "cwd"]) {
        Some(d) if !d.trim().is_empty() => resolve_path(cwd, d),
        _ => cwd.to_string(),
    };
    if tool == "apply_patch" {
        let patch = required(input, &["command", "input", "patch"], tool)?;
        let touched = patch_paths(patch);
        if touched.is_empty() {
            return Err(Invalid(
                "apply_patch: the patch names no file (*** Add File: / *** Update File: / *** Delete File: / *** Move to:)"
                    .into(),
            ));
        }
        return Ok(touched
            .into_iter()
            .map(|p| Call::file("file_write", resolve_path(&wd, &p), cwd))
            .collect());
    }
    let command = match input.get("command") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::Array(a)) => argv_command(a).ok_or_else(|| {
            Invalid(format!(
                "{tool}: tool_input.command is not a list of strings"
            ))
        })?,
        _ => {
            return Err(Invalid(format!(
                "{tool}: tool_input.command is missing or empty"
            )))
        }
    };
    Ok(vec![Call::shell(command, wd)])
}

// ----- evaluation --------------------------------------------------------

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
    handle_bytes(homes, host, channel, &bytes)
}

/// Evaluate one event given as bytes; returns what the hook would print on
/// stdout and its exit status. For fuzzing and embedding: no stdin, no
/// panic guard (callers add their own).
pub fn evaluate_event(homes: &Homes, host: Host, bytes: &[u8]) -> (Option<String>, u8) {
    match handle_bytes(homes, host, None, bytes) {
        Outcome::PassThrough => (None, 0),
        Outcome::Blocking(_) => (None, 2),
        Outcome::Decided(v, reason) => (output_json(host, v, &reason), 0),
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
    decide_event(homes, host, channel, &event)
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
    let calls = match host {
        Host::ClaudeCode => map_claude(&event.tool_name, input, &cwd),
        Host::Gemini => map_gemini(&event.tool_name, input, &cwd),
        Host::Codex => map_codex(&event.tool_name, input, &cwd),
    };
    let calls = match calls {
        Ok(c) => c,
        Err(Invalid(why)) => return invalid(homes, host, event, &why),
    };
    // The session's project directory as the host declares it.
    let project_dir = match host {
        Host::ClaudeCode => std::env::var("CLAUDE_PROJECT_DIR")
            .ok()
            .and_then(|p| absolute_dir(&p, &homes.user))
            .unwrap_or_else(|| cwd.clone()),
        Host::Gemini | Host::Codex => cwd.clone(),
    };
    match evaluate_calls(homes, host, channel, &session, &project_dir, &calls) {
        Ok(o) => o,
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
    let policy = edge::load_policy(homes)?;
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
    let flags = CallFlags {
        session: Some(session.to_string()),
        audience: None,
        channel,
        // A recorded project directory applies; the host's is used only
        // when the session has none.
        project_dir: if recorded.project_dir.is_some() {
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
    for call in calls {
        let d = match protected_below(&policy, &ctx, call) {
            Some(d) => d,
            None => {
                let req = Request {
                    tool: call.tool.clone(),
                    command: call.command.clone(),
                    working_directory: call.working_directory.clone(),
                };
                edge::evaluate(&mut edge, &policy, &req, &ctx)?
            }
        };
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
    Ok(combine(host, homes, &ctx, &decisions))
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
    let t = Touch {
        path: path.clone(),
        kind: touch.kind,
        scope: touch.scope,
    };
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
        location: String::new(),
        display_verbs: Vec::new(),
    })
}

/// One verdict for the event: any deny wins, then any ask, else allow.
fn combine(host: Host, homes: &Homes, ctx: &Context, decisions: &[Decision]) -> Outcome {
    let verdict = decisions
        .iter()
        .map(|d| Verdict::from_decision(d.decision))
        .max()
        .unwrap_or(Verdict::Deny);
    let mut parts: Vec<String> = Vec::new();
    for d in decisions
        .iter()
        .filter(|d| Verdict::from_decision(d.decision) == verdict)
    {
        let r = reason_text(host, homes, ctx, d);
        if !parts.contains(&r) {
            parts.push(r);
        }
    }
    if parts.is_empty() {
        parts.push("shellgate deny (invalid_call): nothing to evaluate".into());
    }
    Outcome::Decided(verdict, parts.join("\n"))
}

// ----- reasons -----------------------------------------------------------

/// Single-quote a word for a POSIX shell.
pub fn sq(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A word as typed in a shell: bare when safe, else single-quoted.
pub fn shell_word(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if safe {
        s.to_string()
    } else {
        sq(s)
    }
}

/// `--home DIR` when the gate's home is not the default one.
fn home_flag(homes: &Homes) -> String {
    let default = paths::normalize(&format!("{}/.shellgate", homes.user.trim_end_matches('/')));
    let gate = homes.gate_str();
    if gate == default {
        String::new()
    } else {
        format!(" --home {}", sq(&gate))
    }
}

/// Extra flags so a grant lands where this call looks for it.
fn scope_flags(d: &Decision) -> String {
    let mut s = String::new();
    if d.tool != "shell_execute" {
        s.push_str(&format!(" --tool {}", shell_word(&d.tool)));
    }
    if d.audience != Audience::Personal {
        s.push_str(&format!(" --audience {}", d.audience.as_str()));
    }
    s
}

/// Commands that would grant the unapproved candidates of a decision.
fn grant_commands(homes: &Homes, d: &Decision) -> Vec<String> {
    let flags = format!("{}{}", scope_flags(d), home_flag(homes));
    let mut out: Vec<String> = Vec::new();
    for c in d
        .candidates
        .iter()
        .filter(|c| c.status == Status::Unapproved)
    {
        if let Some(dir) = c.directory.as_deref().filter(|d| !paths::is_shallow(d)) {
            let line = format!(
                "shellgate approvals allow {} --dir {}{flags}",
                sq(&c.verb),
                sq(dir)
            );
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    for c in d
        .candidates
        .iter()
        .filter(|c| c.status == Status::Unapproved)
    {
        let line = format!("shellgate approvals trust-verb {}{flags}", sq(&c.verb));
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// The one-time approval of exactly this call.
fn once_command(homes: &Homes, ctx: &Context, d: &Decision) -> String {
    let cwd = d
        .cwd
        .as_deref()
        .map(|c| format!(" --cwd {}", sq(c)))
        .unwrap_or_default();
    let tool = if d.tool == "shell_execute" {
        String::new()
    } else {
        format!(" --tool {}", shell_word(&d.tool))
    };
    format!(
        "shellgate decide --option approve_once --session {}{cwd}{tool}{} -- {}",
        sq(&ctx.session),
        home_flag(homes),
        sq(&d.command)
    )
}

fn indent(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The actionable reason shown to the agent or the human.
fn reason_text(host: Host, homes: &Homes, ctx: &Context, d: &Decision) -> String {
    let mut s = format!("shellgate {} ({}): {}", d.decision, d.reason, d.message);
    let grants = grant_commands(homes, d);
    match d.decision {
        "ask" if d.complex => {
            let once = once_command(homes, ctx, d);
            if host == Host::Codex {
                s.push_str(&format!(
                    "\nCodex hooks cannot ask, so the call is blocked. It can only be approved once, not granted for reuse; a human approves it with:\n  {once}\nthen the agent retries the identical command."
                ));
            } else {
                s.push_str(&format!(
                    "\nIt can only be approved once, not granted for reuse (approving this prompt runs it once; or a human runs: {once})."
                ));
            }
        }
        "ask" => {
            if host == Host::Codex {
                s.push_str(
                    "\nCodex hooks cannot ask, so the call is blocked. A human can grant it with one of the following, then the agent retries:\n",
                );
            } else {
                s.push_str("\nNot granted. To allow it from now on, run one of:\n");
            }
            s.push_str(&indent(&grants));
        }
        "deny" if d.reason == "channel_does_not_support_approval" => {
            if d.complex {
                s.push_str("\nNo human can approve on this channel, and a complex command cannot be granted in advance.");
            } else if !grants.is_empty() {
                s.push_str(
                    "\nNo human can approve on this channel. To grant it in advance, run one of:\n",
                );
                s.push_str(&indent(&grants));
            }
        }
        _ => {}
    }
    if let Some(h) = &d.hint {
        s.push('\n');
        s.push_str(h);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_paths_cover_every_marker() {
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Delete File: d.md\n*** End Patch\n";
        assert_eq!(
            patch_paths(patch),
            vec!["a.txt", "src/b.rs", "src/c.rs", "d.md"]
        );
        assert!(patch_paths("no markers").is_empty());
    }

    #[test]
    fn glob_bases() {
        assert_eq!(glob_base("src/**/*.rs"), ("src".into(), true, true));
        assert_eq!(glob_base("/etc/*"), ("/etc".into(), true, false));
        assert_eq!(glob_base("*.md"), ("".into(), true, false));
        assert_eq!(glob_base("/*"), ("/".into(), true, false));
        assert_eq!(glob_base("a/b.txt"), ("a/b.txt".into(), false, false));
    }

    #[test]
    fn quoting() {
        assert_eq!(sq("it's"), r"'it'\''s'");
        assert_eq!(shell_word("/usr/bin/x"), "/usr/bin/x");
        assert_eq!(shell_word("a b"), "'a b'");
    }

    #[test]
    fn argv_forms() {
        let v = |a: &[&str]| a.iter().map(|s| json!(s)).collect::<Vec<_>>();
        assert_eq!(
            argv_command(&v(&["bash", "-lc", "git status"])).as_deref(),
            Some("git status")
        );
        assert_eq!(
            argv_command(&v(&["ls", "-la", "a b"])).as_deref(),
            Some("ls -la 'a b'")
        );
        assert_eq!(argv_command(&[]), None);
        assert_eq!(argv_command(&[json!(1)]), None);
    }
}
