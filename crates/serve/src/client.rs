//! The hook side and the CLI twins: synchronous, std only (no runtime), for
//! short-lived processes. Each call opens `state/serve.sock`, sends one
//! request line and blocks on the reply (a blocking read: no polling).
//!
//! Every error means "fall back": the hook then does what it does with no
//! service (SPEC §13/§16: the host's own ask where a human can answer there,
//! deny where none can). [`ClientError::NotRunning`] comes back at once when
//! no service listens, so a hook without a service stays fast.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::files::SOCKET_FILE;
use crate::protocol::{ClientMsg, Envelope, ServerMsg, MAX_LINE, VERSION};
use crate::types::{PendingRequest, PublishRequest, Resolution};

/// How the wait ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientOutcome {
    /// A human answered; the service applied it (Backend::apply) once.
    /// `decision` is what the hook returns to its host; `resolution` is the
    /// SPEC §7.3 line.
    Answered(Resolution),
    /// The deadline passed with no answer; nothing was applied.
    Expired,
}

/// Why a call did not get an answer. In a hook, every variant means: fall
/// back to the behaviour without a service; nothing was applied unless an
/// `Answered` outcome was returned.
#[derive(thiserror::Error, Debug)]
pub enum ClientError {
    /// No service: no socket file, nobody listening, or a socket that is not
    /// this user's. Returned immediately.
    #[error("no approval service is running ({0})")]
    NotRunning(String),
    /// The service closed the connection before an answer (it stopped or
    /// restarted).
    #[error("the approval service closed the connection before an answer")]
    ServiceGone,
    /// The service refused: `code` is one of the protocol's error codes
    /// (`unknown_id`, `expired`, `withdrawn`, `already_answered`,
    /// `not_offered`, `invalid_request`, `too_many_pending`, `apply_failed`,
    /// `unsupported_version`, `closing`).
    #[error("{message}")]
    Refused { code: String, message: String },
    /// No word from the service in time.
    #[error("the approval service did not reply in time")]
    Timeout,
    /// A reply that does not follow the protocol.
    #[error("unexpected reply from the approval service: {0}")]
    Protocol(String),
    #[error("approval service connection: {0}")]
    Io(#[from] io::Error),
}

impl ClientError {
    /// The protocol error code of a refusal.
    pub fn code(&self) -> Option<&str> {
        match self {
            ClientError::Refused { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// How long to wait for the service's first reply (it answers at once).
const REPLY: Duration = Duration::from_secs(5);
/// Longest an `answer` may take (the backend writes the store).
const APPLY: Duration = Duration::from_secs(60);
/// Slack past the deadline for the service's `expired` line.
const GRACE: Duration = Duration::from_secs(3);

#[cfg(unix)]
type Stream = std::os::unix::net::UnixStream;

/// Connect to the service of `state_dir`.
#[cfg(unix)]
fn connect(state_dir: &Path) -> Result<Stream, ClientError> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    let path = state_dir.join(SOCKET_FILE);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) => return Err(ClientError::NotRunning(format!("{}: {e}", path.display()))),
    };
    // Only a socket of this user, closed to everyone else, is trusted: a
    // socket planted by someone else could answer "allow".
    if !meta.file_type().is_socket()
        || meta.uid() != rustix::process::geteuid().as_raw()
        || meta.permissions().mode() & 0o077 != 0
    {
        return Err(ClientError::NotRunning(format!(
            "{} is not a private socket of this user; ignoring it",
            path.display()
        )));
    }
    let s = crate::files::connect_unix(&path)
        .map_err(|e| ClientError::NotRunning(format!("{}: {e}", path.display())))?;
    s.set_write_timeout(Some(REPLY))?;
    Ok(s)
}

#[cfg(not(unix))]
type Stream = std::net::TcpStream;

#[cfg(not(unix))]
fn connect(_state_dir: &Path) -> Result<Stream, ClientError> {
    Err(ClientError::NotRunning(
        "the approval service needs Unix sockets".into(),
    ))
}

fn send(s: &mut Stream, msg: ClientMsg) -> Result<(), ClientError> {
    let mut line = serde_json::to_string(&Envelope { v: VERSION, msg })
        .map_err(|e| ClientError::Protocol(e.to_string()))?;
    line.push('\n');
    if line.len() > MAX_LINE {
        return Err(ClientError::Refused {
            code: "invalid_request".into(),
            message: "request too large".into(),
        });
    }
    s.write_all(line.as_bytes())?;
    s.flush()?;
    Ok(())
}

/// Read one reply line, blocking up to `timeout`.
fn recv(r: &mut BufReader<Stream>, timeout: Duration) -> Result<ServerMsg, ClientError> {
    r.get_ref()
        .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))?;
    let mut buf = Vec::new();
    let n = match r
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)
    {
        Ok(n) => n,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            return Err(ClientError::Timeout)
        }
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {
            return Err(ClientError::ServiceGone)
        }
        Err(e) => return Err(e.into()),
    };
    if n == 0 || buf.last() != Some(&b'\n') {
        return Err(ClientError::ServiceGone);
    }
    let msg: ServerMsg =
        serde_json::from_slice(&buf).map_err(|e| ClientError::Protocol(e.to_string()))?;
    if let ServerMsg::Error { code, message } = msg {
        return Err(ClientError::Refused { code, message });
    }
    Ok(msg)
}

/// Publish `request` and block until a human answers it, the `deadline`
/// passes, or the service goes away. Returns at once with
/// [`ClientError::NotRunning`] when no service runs for `state_dir`.
///
/// The service applies the answer through `Backend::apply` exactly once
/// before replying; the hook only reports `decision` to its host. Dropping
/// the connection (e.g. the host kills the hook) withdraws the request.
pub fn publish_and_wait(
    state_dir: &Path,
    request: &PublishRequest,
    deadline: Instant,
) -> Result<ClientOutcome, ClientError> {
    let mut s = connect(state_dir)?;
    let timeout_ms = u64::try_from(
        deadline
            .saturating_duration_since(Instant::now())
            .as_millis(),
    )
    .unwrap_or(u64::MAX);
    send(
        &mut s,
        ClientMsg::Publish {
            request: Box::new(request.clone()),
            timeout_ms,
        },
    )?;
    let mut r = BufReader::new(s);
    let id = match recv(&mut r, REPLY)? {
        ServerMsg::Published { id, .. } => id,
        other => return Err(ClientError::Protocol(format!("{other:?}"))),
    };
    let wait = deadline.saturating_duration_since(Instant::now()) + GRACE;
    match recv(&mut r, wait)? {
        ServerMsg::Answered(res) if res.id == id => Ok(ClientOutcome::Answered(res)),
        ServerMsg::Expired { id: e } if e == id => Ok(ClientOutcome::Expired),
        other => Err(ClientError::Protocol(format!("{other:?}"))),
    }
}

/// The pending requests, oldest first (`shellgate pending`).
pub fn list_pending(state_dir: &Path) -> Result<Vec<PendingRequest>, ClientError> {
    let mut s = connect(state_dir)?;
    send(&mut s, ClientMsg::List)?;
    match recv(&mut BufReader::new(s), REPLY)? {
        ServerMsg::Pending { requests } => Ok(requests),
        other => Err(ClientError::Protocol(format!("{other:?}"))),
    }
}

/// Answer a pending request (`shellgate answer ID OPTION`). `option` is a
/// wire key or a §7.4 reply (`a`, `2`, `once`, `always here`, …) resolved
/// against the request's offered options; an option not offered, an
/// unknown, expired or already answered id is a [`ClientError::Refused`]
/// (the CLI exits 1).
pub fn answer(state_dir: &Path, id: &str, option: &str) -> Result<Resolution, ClientError> {
    let mut s = connect(state_dir)?;
    send(
        &mut s,
        ClientMsg::Answer {
            id: id.to_string(),
            option: option.to_string(),
        },
    )?;
    match recv(&mut BufReader::new(s), APPLY)? {
        ServerMsg::Answered(res) => Ok(res),
        other => Err(ClientError::Protocol(format!("{other:?}"))),
    }
}

/// A new one-time login link for the page (valid 10 minutes).
pub fn login_url(state_dir: &Path) -> Result<String, ClientError> {
    let mut s = connect(state_dir)?;
    send(&mut s, ClientMsg::Login)?;
    match recv(&mut BufReader::new(s), REPLY)? {
        ServerMsg::Login { url } => Ok(url),
        other => Err(ClientError::Protocol(format!("{other:?}"))),
    }
}
