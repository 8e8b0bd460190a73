//! Creating, checking and migrating the schema; WAL mode and durability
//! settings; the database file's permissions.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{is_busy, StateDb, StateError, BUSY_TIMEOUT, SCHEMA_VERSION};

pub(super) const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    id          TEXT PRIMARY KEY NOT NULL,
    audience    TEXT NOT NULL,
    channel     TEXT NOT NULL,
    parent      TEXT,
    project_dir TEXT,
    created_at  TEXT NOT NULL,
    ended_at    TEXT
);
-- directory '' = anywhere (NULL would defeat the UNIQUE constraint).
CREATE TABLE IF NOT EXISTS session_grants (
    id         INTEGER PRIMARY KEY,
    session    TEXT NOT NULL,
    audience   TEXT NOT NULL,
    tool       TEXT NOT NULL,
    verb       TEXT NOT NULL,
    directory  TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    UNIQUE (session, audience, tool, verb, directory)
);
CREATE TABLE IF NOT EXISTS once_approvals (
    id         INTEGER PRIMARY KEY,
    session    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    command    TEXT NOT NULL,
    cwd        TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS once_approvals_call
    ON once_approvals (session, tool, command);
CREATE INDEX IF NOT EXISTS once_approvals_created
    ON once_approvals (created_at);
CREATE TABLE IF NOT EXISTS decisions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    time          TEXT NOT NULL,
    session       TEXT,
    tool          TEXT NOT NULL,
    command       TEXT NOT NULL,
    cwd           TEXT,
    decision      TEXT NOT NULL,
    reason        TEXT NOT NULL,
    candidates    TEXT NOT NULL,
    matched_grant TEXT,
    source        TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS decisions_no_update BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'the decision log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS decisions_no_delete BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'the decision log is append-only'); END;
";

impl StateDb {
    /// Switch to WAL (persistent in the file). Changing the journal mode
    /// needs an exclusive lock and does not always honor the busy handler,
    /// so retry on `SQLITE_BUSY` for up to the busy timeout.
    pub(super) fn enable_wal(&self) -> Result<(), StateError> {
        let deadline = Instant::now() + BUSY_TIMEOUT;
        loop {
            let mode: rusqlite::Result<String> =
                self.conn
                    .pragma_query_value(None, "journal_mode", |r| r.get(0));
            let r = match mode {
                Ok(m) if m.eq_ignore_ascii_case("wal") => return self.relax_sync(),
                Ok(_) => self
                    .conn
                    .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
                    .map(|_| ()),
                Err(e) => Err(e),
            };
            match r {
                Ok(()) => return self.relax_sync(),
                Err(e) if is_busy(&e) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(self.err(e)),
            }
        }
    }

    /// In WAL mode `synchronous=NORMAL` keeps the database consistent
    /// after a crash (a power loss may drop the last commits, never corrupt
    /// the file) and saves an fsync per write: the audit log is written on
    /// every hook call, which must stay fast.
    ///
    /// Short-lived processes (one per hook call) also skip the checkpoint
    /// SQLite runs when the last connection closes; the WAL is checkpointed
    /// automatically once it grows past its limit.
    pub(super) fn relax_sync(&self) -> Result<(), StateError> {
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| self.err(e))?;
        self.conn
            .set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    pub(super) fn user_version(&self) -> Result<i64, StateError> {
        self.q(self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0)))
    }

    pub(super) fn migrate(&self) -> Result<(), StateError> {
        if self.user_version()? == SCHEMA_VERSION {
            return Ok(());
        }
        self.write_tx(|tx| {
            // Re-read under the write lock: another process may have won.
            let found: i64 = self.q(tx.pragma_query_value(None, "user_version", |r| r.get(0)))?;
            if found > SCHEMA_VERSION {
                return Err(StateError::NewerSchema {
                    path: self.path.clone(),
                    found,
                    supported: SCHEMA_VERSION,
                });
            }
            if found < SCHEMA_VERSION {
                self.q(tx.execute_batch(SCHEMA_V1))?;
                self.q(tx.pragma_update(None, "user_version", SCHEMA_VERSION))?;
            }
            Ok(())
        })
    }

    // ----- sessions -------------------------------------------------------
}

/// The database holds commands (which may carry secrets): create it readable
/// by its owner only. SQLite gives the `-wal`/`-shm` files the same mode.
/// Best effort: if this fails, opening reports the real problem.
pub(super) fn create_private_file(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path);
    }
    #[cfg(not(unix))]
    {
        let _ = path;
    }
}
