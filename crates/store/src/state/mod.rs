//! The state database `state/shellgate.db` (SPEC §2.1, §6.4, §9.1 step 7,
//! §10, §12.1): sessions, session ("This chat") grants, one-time approvals
//! the append-only decision log, and the sandboxed runs that failed.
//!
//! Many short-lived processes (hooks, `check`, `exec`) open the database at
//! the same time, so it runs in WAL mode with a busy timeout, every write is
//! either a single statement or an `IMMEDIATE` transaction (no lock upgrade
//! that could fail with `SQLITE_BUSY`), and the schema is created once under
//! a write lock and versioned with `PRAGMA user_version`.
//!
//! Everything read back from the database is treated as untrusted: unknown
//! audiences read as `public`, unknown channels as non-interactive
//! (`headless`), malformed JSON in the log is returned as a string.

mod audit;
mod once;
mod sandbox_runs;
mod schema;
mod session_grants;
mod sessions;
mod views;

use schema::create_private_file;
pub use views::StoredSessionGrant;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, Transaction, TransactionBehavior};
use shellgate_policy::model::{Audience, Channel};

/// Schema version stored in `PRAGMA user_version`.
pub const SCHEMA_VERSION: i64 = 1;

/// How long a writer waits for another process's lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A one-time approval is usable for this many seconds after it was recorded
/// (SPEC §12.1: "expires after 10 minutes").
pub const ONCE_TTL_SECS: i64 = 600;

/// Ancestors (parent, grandparent, …) whose session grants a session sees.
pub const MAX_PARENT_DEPTH: usize = 16;

/// A one-time approval recorded more than this many seconds in the future
/// (the clock went backwards) is not honored.
pub(super) const ONCE_FUTURE_TOLERANCE_SECS: i64 = 60;

/// Errors of the state database. Every message names the database file.
#[derive(thiserror::Error, Debug)]
pub enum StateError {
    #[error("cannot create the directory of state database '{}': {source}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open state database '{}': {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("state database '{}': {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "state database '{}' was written by a newer program (schema version {found}, this program supports {supported})",
        path.display()
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("state database '{}': session '{id}' already exists", path.display())]
    AlreadyExists { path: PathBuf, id: String },
    #[error("state database '{}': invalid session id '{id}'", path.display())]
    InvalidSessionId { path: PathBuf, id: String },
    #[error("state database '{}': session '{id}' has ended", path.display())]
    SessionEnded { path: PathBuf, id: String },
    #[error("state database '{}': cannot encode JSON: {source}", path.display())]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

/// A stored session (SPEC §1, §10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: String,
    pub audience: Audience,
    pub channel: Channel,
    pub parent: Option<String>,
    pub project_dir: Option<String>,
    /// RFC 3339 UTC; an empty string on create means "now".
    pub created_at: String,
    pub ended_at: Option<String>,
}

/// One session grant `(verb, directory)`; `None` directory = anywhere.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionGrant {
    pub verb: String,
    pub directory: Option<String>,
}

/// One entry of the decision log.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRecord {
    /// RFC 3339 UTC; an empty string on write means "now".
    pub time: String,
    pub session: Option<String>,
    pub tool: String,
    pub command: String,
    pub cwd: Option<String>,
    pub decision: String,
    pub reason: String,
    pub candidates: serde_json::Value,
    pub matched_grant: Option<serde_json::Value>,
    /// Who asked: `hook:claude-code`, `exec`, `decide`, …
    pub source: String,
}

/// An open connection to the state database.
#[derive(Debug)]
pub struct StateDb {
    conn: Connection,
    path: PathBuf,
}

/// A WAL larger than this is checkpointed (and truncated) when a
/// connection closes.
pub const WAL_CHECKPOINT_BYTES: u64 = 256 * 1024;

/// Connections close without SQLite's checkpoint (`relax_sync`: most are a
/// hook's, open for a millisecond), so nothing else would ever shrink the
/// WAL: it grew about 9 KB per hook call, and every open rebuilds the WAL's
/// index by reading all of it — after 1,300 calls a hook took 14 ms
/// (issue 14). The connection that finds it past [`WAL_CHECKPOINT_BYTES`]
/// copies it into the database and truncates it, without waiting for a
/// busy lock (a later connection does it then).
impl Drop for StateDb {
    fn drop(&mut self) {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let big = std::fs::metadata(&wal)
            .map(|m| m.len() > WAL_CHECKPOINT_BYTES)
            .unwrap_or(false);
        if big && self.conn.busy_timeout(Duration::ZERO).is_ok() {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }
}

/// Session ids (SPEC §1): `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`.
pub fn is_valid_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && b[0].is_ascii_alphanumeric()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

/// Current time as RFC 3339 UTC with whole seconds (`2026-05-01T12:00:00Z`).
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    let now = now.replace_nanosecond(0).unwrap_or(now);
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}

/// Current time in unix seconds (0 if the clock is before 1970).
pub fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())
        .unwrap_or(0)
}

/// Unknown channel text reads as a non-interactive channel (fail closed: no
/// prompt is offered where nobody may be able to answer it).
pub(super) fn channel_or_headless(s: Option<&str>) -> Channel {
    s.and_then(Channel::parse).unwrap_or(Channel::Headless)
}

impl StateDb {
    /// Open (creating if needed) the database at `path`, creating its parent
    /// directory, switching to WAL mode and creating or checking the schema.
    pub fn open(path: &Path) -> Result<StateDb, StateError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StateError::CreateDir {
                path: path.to_path_buf(),
                source,
            })?;
        }
        create_private_file(path);
        let open_err = |source| StateError::Open {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
        let db = StateDb {
            conn,
            path: path.to_path_buf(),
        };
        db.enable_wal()?;
        db.migrate()?;
        Ok(db)
    }

    /// How long a statement waits for another writer's lock (default
    /// [`BUSY_TIMEOUT`]); a caller with a deadline of its own shortens it.
    pub fn set_busy_timeout(&self, d: Duration) -> Result<(), StateError> {
        self.conn.busy_timeout(d).map_err(|e| self.err(e))
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn err(&self, source: rusqlite::Error) -> StateError {
        StateError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    pub(super) fn q<T>(&self, r: rusqlite::Result<T>) -> Result<T, StateError> {
        r.map_err(|e| self.err(e))
    }

    /// Run `f` inside a `BEGIN IMMEDIATE` transaction (the write lock is
    /// taken up front, waiting up to the busy timeout); rolled back on error
    /// or panic.
    pub(super) fn write_tx<T>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, StateError>,
    ) -> Result<T, StateError> {
        let tx = self.q(Transaction::new_unchecked(
            &self.conn,
            TransactionBehavior::Immediate,
        ))?;
        let out = f(&tx)?;
        self.q(tx.commit())?;
        Ok(out)
    }
}

pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

#[cfg(test)]
mod tests;
