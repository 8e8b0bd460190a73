//! shellgate's approval service (SPEC §17).
//!
//! * [`serve`] / [`start`]: the service — a web page on `127.0.0.1:PORT`
//!   (loopback only) and a Unix socket `state/serve.sock` (mode 0600) where
//!   hooks publish pending requests and wait for the human's answer. Only
//!   these start a tokio runtime.
//! * [`client`]: the synchronous, std-only side the hook process and the CLI
//!   twins (`shellgate pending`, `shellgate answer`) use.
//! * [`Backend`]: what the CLI provides — applying an answer exactly as
//!   `shellgate decide` does, and the store/state views of the page.
//!
//! The socket protocol is documented in [`protocol`]; the HTTP API, the
//! security measures and the integration recipe in `docs/serve.md`.

pub mod client;
pub mod files;
mod http;
mod hub;
pub mod protocol;
mod server;
#[cfg(unix)]
mod sock;
mod types;

use std::path::PathBuf;

pub use files::{read_info, ServeInfo};
pub use server::{check_listen, serve, start, ServeConfig, ServerHandle};
pub use types::*;

/// Why the service could not start (or stopped).
#[derive(thiserror::Error, Debug)]
pub enum ServeError {
    #[error("refusing to listen on {0}: the approval service listens on loopback only (127.0.0.1 or [::1]); nothing leaves the machine")]
    NotLoopback(String),
    #[error(
        "invalid listen address '{0}': expected 127.0.0.1:PORT (PORT 0 lets the system choose)"
    )]
    BadAddress(String),
    #[error("another shellgate serve is already running for this home ({detail})")]
    AlreadyRunning { detail: String },
    #[error("'{}' exists and is not a socket; refusing to replace it (remove it if it is yours)", .0.display())]
    NotASocket(PathBuf),
    #[error("cannot {what} '{}': {source}", path.display())]
    Io {
        what: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot draw random bytes from the operating system")]
    Random,
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the approval service needs Unix sockets; this platform has none")]
    Unsupported,
}
