//! The hook socket protocol (`state/serve.sock`, mode 0600).
//!
//! Newline-delimited JSON, UTF-8, one object per line, at most
//! [`MAX_LINE`] bytes a line. The client opens a connection, sends exactly one
//! request line and reads reply lines; every request carries `"v": 1`.
//!
//! | client sends | server replies |
//! |---|---|
//! | `{"v":1,"op":"publish","request":{PublishRequest},"timeout_ms":N}` | `{"type":"published","id":…,"deadline_ms":…}` at once, then **one** of `{"type":"answered",…Resolution}`, `{"type":"expired","id":…}`, `{"type":"error","code":…,"message":…}`; then the server closes |
//! | `{"v":1,"op":"list"}` | `{"type":"pending","requests":[PendingRequest…]}` |
//! | `{"v":1,"op":"answer","id":…,"option":…}` | `{"type":"answered",…Resolution}` or `{"type":"error",…}` |
//! | `{"v":1,"op":"login"}` | `{"type":"login","url":"http://127.0.0.1:PORT/login?token=…"}` (a new one-time login link) |
//! | `{"v":1,"op":"hook",HookCall}` | `{"type":"hook","exit":N,"stdout":…,"stderr":…}` (what `shellgate hook` would have printed and returned), or `{"type":"error","code":"fallback",…}`: run `shellgate hook` yourself |
//!
//! `hook` is how the hook client (`shellgate-hook`) has a warm process
//! evaluate a hook event instead of starting the whole gate for every tool
//! call. The service answers it only when the answer is exactly what the
//! standalone hook would give: it falls back for an event of several calls,
//! for an ask while the service is waited on (the standalone hook then
//! publishes the request and waits, as ever), for another gate home, for
//! anything it cannot evaluate, and when it is busy.
//!
//! A publishing client keeps the connection open while it waits; closing it
//! withdraws the request (it disappears from the page). The server ends the
//! wait at the deadline (`timeout_ms` from receipt, capped by the service's
//! maximum) with `expired`. If the service stops, the connection closes
//! without a final line: the client sees end of file and must fall back.
//!
//! `option` in `answer` is a wire key or any §7.4 reply (`a`, `2`, `once`,
//! `this chat`, …) resolved against the request's offered options.
//!
//! Error codes: `unknown_id`, `expired` (deadline passed), `withdrawn` (the
//! waiting hook went away), `already_answered`, `not_offered`,
//! `invalid_request`, `too_many_pending`, `apply_failed`,
//! `unsupported_version`, `closing` (the service is stopping), `fallback`
//! (`hook` only: evaluate the event yourself),
//! `agent_answer` (`list`, `answer` or `login` from a host agent that
//! published requests, or one of its descendants: see `sock.rs`).

use serde::{Deserialize, Serialize};

use crate::types::{PendingRequest, PublishRequest, Resolution};

/// Protocol version carried in every request.
pub const VERSION: u32 = 1;

/// Longest accepted line, in bytes (requests and replies).
pub const MAX_LINE: usize = 4 * 1024 * 1024;

/// A request line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub v: u32,
    #[serde(flatten)]
    pub msg: ClientMsg,
}

/// What a client asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum ClientMsg {
    Publish {
        request: Box<PublishRequest>,
        timeout_ms: u64,
    },
    List,
    Answer {
        id: String,
        option: String,
    },
    Login,
    Hook(Box<HookCall>),
}

/// Environment variables a hook evaluation reads, which the hook client
/// sends along (the service reads no other variable for it, never its own).
pub const HOOK_ENV: &[&str] = &[
    "HOME",
    "SHELLGATE_HOME",
    "PATH",
    "XDG_CONFIG_HOME",
    "CDPATH",
    "TMPDIR",
    "CLAUDE_CODE_SESSION_ATTENDED",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_PROJECT_DIR",
];

/// A hook event to evaluate as `shellgate ARGS` would with the event on
/// its standard input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookCall {
    /// `shellgate`'s arguments after the program's name (`hook HOST …`).
    pub args: Vec<String>,
    /// The gate home the client resolved; only the service's own is served.
    pub home: String,
    /// The client's values of [`HOOK_ENV`]; an absent name is unset.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The client's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The event, as read from the client's standard input.
    pub event: String,
    /// The `shellgate` the client would run itself (canonical path); the
    /// service answers only when that is its own executable (the gate's
    /// path is part of its decisions: `pkill -f PATH`, the sandboxed
    /// command).
    #[serde(default)]
    pub gate: Option<String>,
    /// The client's process id, from the kernel (`SO_PEERCRED`), never
    /// from the request.
    #[serde(skip)]
    pub peer_pid: Option<u32>,
}

/// What the standalone hook would have done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookReply {
    pub exit: u8,
    pub stdout: String,
    pub stderr: String,
}

/// A reply line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ServerMsg {
    Published { id: String, deadline_ms: u64 },
    Answered(Resolution),
    Expired { id: String },
    Pending { requests: Vec<PendingRequest> },
    Login { url: String },
    Hook(HookReply),
    Error { code: String, message: String },
}

impl ServerMsg {
    /// The line to send (with its newline).
    pub fn line(&self) -> String {
        let mut s = serde_json::to_string(self).unwrap_or_else(|_| {
            r#"{"type":"error","code":"internal","message":"cannot encode reply"}"#.to_string()
        });
        s.push('\n');
        s
    }

    pub(crate) fn error(code: &str, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code: code.to_string(),
            message: message.into(),
        }
    }
}
