//! Creating, checking and migrating the schema; WAL mode and durability
//! settings; the database file's permissions.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, Transaction, TransactionBehavior};
use shellgate_policy::model::Audience;

use super::files::{self, Files};
use super::{is_busy, is_valid_session_id, SessionRecord, StateError, BUSY_TIMEOUT, SCHEMA_VERSION};

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

/// Created by the v1 → v2 migration: decision files already merged into
/// `decisions` (a merge interrupted after its commit is not repeated).
pub(super) const SCHEMA_V2: &str = "
CREATE TABLE IF NOT EXISTS audit_files (
    name      TEXT PRIMARY KEY NOT NULL,
    merged_at TEXT NOT NULL
);
";

fn err(path: &Path, source: rusqlite::Error) -> StateError {
    StateError::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

/// Switch to WAL (persistent in the file). Changing the journal mode needs
/// an exclusive lock and does not always honor the busy handler, so retry
/// on `SQLITE_BUSY` for up to the busy timeout.
pub(super) fn enable_wal(conn: &Connection, path: &Path) -> Result<(), StateError> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        let mode: rusqlite::Result<String> =
            conn.pragma_query_value(None, "journal_mode", |r| r.get(0));
        let r = match mode {
            Ok(m) if m.eq_ignore_ascii_case("wal") => return relax_sync(conn, path),
            Ok(_) => conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
                .map(|_| ()),
            Err(e) => Err(e),
        };
        match r {
            Ok(()) => return relax_sync(conn, path),
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(err(path, e)),
        }
    }
}

/// In WAL mode `synchronous=NORMAL` keeps the database consistent after a
/// crash (a power loss may drop the last commits, never corrupt the file)
/// and saves an fsync per write.
///
/// The last connection to close checkpoints the WAL and removes it (SQLite's
/// default): the database is opened by few processes now (most hook calls
/// never open it), and a WAL left behind by short-lived processes was never
/// checkpointed — its index is rebuilt by reading every frame on each open,
/// so a WAL that only grew made every call slower (issue 14).
/// `journal_size_limit` caps what a WAL kept by a long-lived connection
/// occupies after a checkpoint.
fn relax_sync(conn: &Connection, path: &Path) -> Result<(), StateError> {
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(|e| err(path, e))?;
    conn.pragma_update(None, "journal_size_limit", 1 << 20)
        .map_err(|e| err(path, e))
}

pub(super) fn user_version(conn: &Connection, path: &Path) -> Result<i64, StateError> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| err(path, e))
}

/// Create the schema, or migrate an older one, under the write lock.
pub(super) fn migrate(conn: &Connection, path: &Path, files: &Files) -> Result<(), StateError> {
    if user_version(conn, path)? == SCHEMA_VERSION {
        return Ok(());
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .map_err(|e| err(path, e))?;
    // Re-read under the write lock: another process may have won.
    let found = user_version(&tx, path)?;
    if found > SCHEMA_VERSION {
        return Err(StateError::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    if found < SCHEMA_VERSION {
        tx.execute_batch(SCHEMA_V1).map_err(|e| err(path, e))?;
        tx.execute_batch(SCHEMA_V2).map_err(|e| err(path, e))?;
        export_sessions(&tx, path, files)?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(|e| err(path, e))?;
    }
    tx.commit().map_err(|e| err(path, e))
}

/// v1 → v2: every row of the `sessions` table becomes a record file (an
/// existing file wins), and every session with rows in the database gets its
/// marker. The records are written into a fresh directory renamed to
/// `state/sessions/` at the end, so a reader that finds the directory finds
/// every record.
fn export_sessions(conn: &Connection, path: &Path, files: &Files) -> Result<(), StateError> {
    let rows: Vec<SessionRecord> = {
        let mut stmt = conn
            .prepare(
                "SELECT id, audience, channel, parent, project_dir, created_at, ended_at
                 FROM sessions",
            )
            .map_err(|e| err(path, e))?;
        let it = stmt
            .query_map([], |r| {
                Ok(SessionRecord {
                    id: r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                    audience: Audience::parse_or_public(r.get::<_, Option<String>>(1)?.as_deref()),
                    channel: super::channel_or_headless(r.get::<_, Option<String>>(2)?.as_deref()),
                    parent: r.get(3)?,
                    project_dir: r.get(4)?,
                    created_at: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                    ended_at: r.get(6)?,
                })
            })
            .map_err(|e| err(path, e))?;
        it.collect::<Result<_, _>>().map_err(|e| err(path, e))?
    };
    let mut with_rows: Vec<String> = Vec::new();
    for table in ["session_grants", "once_approvals", "sandbox_failures"] {
        let exists: bool = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| err(path, e))?
            > 0;
        if !exists {
            continue;
        }
        let mut stmt = conn
            .prepare(&format!("SELECT DISTINCT session FROM {table}"))
            .map_err(|e| err(path, e))?;
        let it = stmt
            .query_map([], |r| r.get::<_, Option<String>>(0))
            .map_err(|e| err(path, e))?;
        for s in it {
            if let Some(s) = s.map_err(|e| err(path, e))? {
                with_rows.push(s);
            }
        }
    }
    let already = files.migrated()?;
    let target = if already {
        files.clone()
    } else {
        let tmp = files.state.join(format!(
            ".sessions.{}.{}.migrating",
            std::process::id(),
            super::files::unique_suffix()
        ));
        super::files::create_private_dir_all(&tmp).map_err(|source| StateError::Io {
            path: tmp.clone(),
            source,
        })?;
        files.clone().with_sessions_dir(tmp)
    };
    for rec in rows.iter().filter(|r| is_valid_session_id(&r.id)) {
        let rec = SessionRecord {
            parent: rec.parent.clone().filter(|p| is_valid_session_id(p)),
            ..rec.clone()
        };
        target.create(&rec)?;
    }
    for s in with_rows.iter().filter(|s| is_valid_session_id(s)) {
        target.mark(s, files::ROWS)?;
    }
    if !already {
        let from = target.sessions_dir();
        let to = files.sessions_dir();
        if let Err(e) = std::fs::rename(&from, &to) {
            let _ = std::fs::remove_dir_all(&from);
            // Another process made the directory meanwhile: export into it.
            if files.migrated()? {
                return export_into(files, &rows, &with_rows);
            }
            return Err(StateError::Io { path: to, source: e });
        }
    }
    Ok(())
}

fn export_into(files: &Files, rows: &[SessionRecord], with_rows: &[String]) -> Result<(), StateError> {
    for rec in rows.iter().filter(|r| is_valid_session_id(&r.id)) {
        let rec = SessionRecord {
            parent: rec.parent.clone().filter(|p| is_valid_session_id(p)),
            ..rec.clone()
        };
        files.create(&rec)?;
    }
    for s in with_rows.iter().filter(|s| is_valid_session_id(s)) {
        files.mark(s, files::ROWS)?;
    }
    Ok(())
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
