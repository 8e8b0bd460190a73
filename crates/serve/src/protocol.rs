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
//! `unsupported_version`, `closing` (the service is stopping),
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
