//! The state database `state/shellgate.db` (SPEC §2.1, §6.4, §9.1 step 7,
//! §10, §12.1): sessions, session ("This chat") grants, one-time approvals
//! and the append-only decision log.
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

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use crate::model::{Audience, Channel};
use shellgate_shell::paths;

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
const ONCE_FUTURE_TOLERANCE_SECS: i64 = 60;

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
fn channel_or_headless(s: Option<&str>) -> Channel {
    s.and_then(Channel::parse).unwrap_or(Channel::Headless)
}

const SCHEMA_V1: &str = "
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

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: rusqlite::Error) -> StateError {
        StateError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn q<T>(&self, r: rusqlite::Result<T>) -> Result<T, StateError> {
        r.map_err(|e| self.err(e))
    }

    /// Run `f` inside a `BEGIN IMMEDIATE` transaction (the write lock is
    /// taken up front, waiting up to the busy timeout); rolled back on error
    /// or panic.
    fn write_tx<T>(
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

    /// Switch to WAL (persistent in the file). Changing the journal mode
    /// needs an exclusive lock and does not always honor the busy handler,
    /// so retry on `SQLITE_BUSY` for up to the busy timeout.
    fn enable_wal(&self) -> Result<(), StateError> {
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
    fn relax_sync(&self) -> Result<(), StateError> {
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

    fn user_version(&self) -> Result<i64, StateError> {
        self.q(self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0)))
    }

    fn migrate(&self) -> Result<(), StateError> {
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

    /// The stored session `id`, if it was ever created.
    pub fn session(&self, id: &str) -> Result<Option<SessionRecord>, StateError> {
        let row = self.q(self
            .conn
            .query_row(
                "SELECT id, audience, channel, parent, project_dir, created_at, ended_at
                 FROM sessions WHERE id = ?1",
                params![id],
                |r| {
                    Ok(SessionRecord {
                        id: r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                        audience: Audience::parse_or_public(
                            r.get::<_, Option<String>>(1)?.as_deref(),
                        ),
                        channel: channel_or_headless(r.get::<_, Option<String>>(2)?.as_deref()),
                        parent: r.get(3)?,
                        project_dir: r.get(4)?,
                        created_at: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                        ended_at: r.get(6)?,
                    })
                },
            )
            .optional())?;
        Ok(row)
    }

    /// Record a new session. `AlreadyExists` if the id is taken (ended
    /// sessions included: ids are not reused); `InvalidSessionId` if the id
    /// (or the parent id) does not match the SPEC §1 pattern. An empty
    /// `created_at` is set to now.
    pub fn create_session(&self, rec: &SessionRecord) -> Result<(), StateError> {
        for id in std::iter::once(&rec.id).chain(rec.parent.as_ref()) {
            if !is_valid_session_id(id) {
                return Err(StateError::InvalidSessionId {
                    path: self.path.clone(),
                    id: id.clone(),
                });
            }
        }
        let created_at = if rec.created_at.is_empty() {
            now_rfc3339()
        } else {
            rec.created_at.clone()
        };
        let n = self.q(self.conn.execute(
            "INSERT OR IGNORE INTO sessions
                 (id, audience, channel, parent, project_dir, created_at, ended_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                rec.id,
                rec.audience.as_str(),
                rec.channel.as_str(),
                rec.parent,
                rec.project_dir,
                created_at,
                rec.ended_at
            ],
        ))?;
        if n == 0 {
            return Err(StateError::AlreadyExists {
                path: self.path.clone(),
                id: rec.id.clone(),
            });
        }
        Ok(())
    }

    /// Set the project directory of a stored session; `false` if there is
    /// no such session. The caller validates and normalizes `dir`.
    pub fn set_project_dir(&self, id: &str, dir: &str) -> Result<bool, StateError> {
        let n = self.q(self.conn.execute(
            "UPDATE sessions SET project_dir = ?2 WHERE id = ?1",
            params![id, dir],
        ))?;
        Ok(n > 0)
    }

    /// End a session: set `ended_at` (kept if already ended) and delete its
    /// session grants and pending one-time approvals. Returns whether the
    /// session was stored. Grants and approvals of an implicit (never
    /// created) session with this id are deleted as well.
    pub fn end_session(&self, id: &str) -> Result<bool, StateError> {
        self.write_tx(|tx| {
            let n = self.q(tx.execute(
                "UPDATE sessions SET ended_at = COALESCE(ended_at, ?2) WHERE id = ?1",
                params![id, now_rfc3339()],
            ))?;
            self.q(tx.execute("DELETE FROM session_grants WHERE session = ?1", params![id]))?;
            self.q(tx.execute("DELETE FROM once_approvals WHERE session = ?1", params![id]))?;
            Ok(n > 0)
        })
    }

    // ----- session grants (§6.4) -----------------------------------------

    /// Add session grants `(verb, directory)`; `None` or a blank directory =
    /// anywhere. Verbs are trimmed (blank ones skipped) and directories
    /// trimmed with trailing separators removed, like the persistent store
    /// (SPEC §6.1). Existing grants are left as they are. Returns how many
    /// were new. `SessionEnded` if the session is stored and has ended.
    pub fn add_session_grants(
        &self,
        session: &str,
        audience: Audience,
        tool: &str,
        grants: &[(String, Option<String>)],
    ) -> Result<usize, StateError> {
        self.write_tx(|tx| {
            let ended: Option<Option<String>> = self.q(tx
                .query_row(
                    "SELECT ended_at FROM sessions WHERE id = ?1",
                    params![session],
                    |r| r.get(0),
                )
                .optional())?;
            if let Some(Some(_)) = ended {
                return Err(StateError::SessionEnded {
                    path: self.path.clone(),
                    id: session.to_string(),
                });
            }
            let now = now_rfc3339();
            let mut stmt = self.q(tx.prepare(
                "INSERT OR IGNORE INTO session_grants
                     (session, audience, tool, verb, directory, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            ))?;
            let mut added = 0;
            for (verb, dir) in grants {
                let verb = verb.trim();
                if verb.is_empty() {
                    continue;
                }
                let dir = dir
                    .as_deref()
                    .and_then(paths::normalize_stored_dir)
                    .unwrap_or_default();
                added += self.q(stmt.execute(params![
                    session,
                    audience.as_str(),
                    tool,
                    verb,
                    dir,
                    now
                ]))?;
            }
            Ok(added)
        })
    }

    /// The session chain: `session` itself, then its parent, grandparent, …
    /// up to [`MAX_PARENT_DEPTH`] ancestors, stopping at a cycle or at an
    /// unknown session.
    fn session_chain(&self, conn: &Connection, session: &str) -> Result<Vec<String>, StateError> {
        let mut chain = vec![session.to_string()];
        let mut seen: HashSet<String> = chain.iter().cloned().collect();
        let mut stmt = self.q(conn.prepare_cached("SELECT parent FROM sessions WHERE id = ?1"))?;
        let mut current = session.to_string();
        for _ in 0..MAX_PARENT_DEPTH {
            let parent: Option<Option<String>> =
                self.q(stmt.query_row(params![current], |r| r.get(0)).optional())?;
            match parent.flatten() {
                Some(p) if !p.is_empty() && seen.insert(p.clone()) => {
                    chain.push(p.clone());
                    current = p;
                }
                _ => break,
            }
        }
        Ok(chain)
    }

    /// Session grants of `session` and of its ancestors (SPEC §6.4) for
    /// `audience` and `tool`: the session's own first, then its parent's,
    /// …, each in insertion order, duplicates removed. Matching against
    /// candidates is the caller's job.
    pub fn session_grants(
        &self,
        session: &str,
        audience: Audience,
        tool: &str,
    ) -> Result<Vec<SessionGrant>, StateError> {
        // One read transaction: a consistent snapshot of chain and grants.
        let tx = self.q(self.conn.unchecked_transaction())?;
        let chain = self.session_chain(&tx, session)?;
        let mut out = Vec::new();
        let mut seen: HashSet<SessionGrant> = HashSet::new();
        {
            let mut stmt = self.q(tx.prepare_cached(
                "SELECT verb, directory FROM session_grants
                 WHERE session = ?1 AND audience = ?2 AND tool = ?3
                 ORDER BY id",
            ))?;
            for id in &chain {
                let rows = self.q(stmt.query_map(params![id, audience.as_str(), tool], |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get::<_, Option<String>>(1)?,
                    ))
                }))?;
                for row in rows {
                    let (verb, dir) = self.q(row)?;
                    let Some(verb) = verb.filter(|v| !v.is_empty()) else {
                        continue;
                    };
                    let grant = SessionGrant {
                        verb,
                        directory: dir.filter(|d| !d.is_empty()),
                    };
                    if seen.insert(grant.clone()) {
                        out.push(grant);
                    }
                }
            }
        }
        self.q(tx.commit())?;
        Ok(out)
    }

    // ----- one-time approvals (§9.1 step 7, §12.1) -----------------------

    /// Record a one-time approval for the exact call (session, tool, command
    /// bytes, cwd), valid for [`ONCE_TTL_SECS`].
    pub fn add_once(
        &self,
        session: &str,
        tool: &str,
        command: &str,
        cwd: Option<&str>,
    ) -> Result<(), StateError> {
        self.add_once_at(session, tool, command, cwd, now_unix())
    }

    /// [`add_once`](Self::add_once) with an explicit "now" (unix seconds).
    pub fn add_once_at(
        &self,
        session: &str,
        tool: &str,
        command: &str,
        cwd: Option<&str>,
        now_unix: i64,
    ) -> Result<(), StateError> {
        self.q(self.conn.execute(
            "INSERT INTO once_approvals (session, tool, command, cwd, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![session, tool, command, cwd, now_unix],
        ))?;
        Ok(())
    }

    /// Consume one unexpired one-time approval for the exact call; `true`
    /// if one was found (and is now gone). Atomic across processes: two
    /// concurrent takers cannot both consume the same approval.
    pub fn take_once(
        &self,
        session: &str,
        tool: &str,
        command: &str,
        cwd: Option<&str>,
    ) -> Result<bool, StateError> {
        self.take_once_at(session, tool, command, cwd, now_unix())
    }

    /// [`take_once`](Self::take_once) with an explicit "now" (unix seconds).
    /// An approval is valid while `now - created_at <= ONCE_TTL_SECS`;
    /// expired approvals are purged on the way.
    pub fn take_once_at(
        &self,
        session: &str,
        tool: &str,
        command: &str,
        cwd: Option<&str>,
        now_unix: i64,
    ) -> Result<bool, StateError> {
        let oldest = now_unix.saturating_sub(ONCE_TTL_SECS);
        let newest = now_unix.saturating_add(ONCE_FUTURE_TOLERANCE_SECS);
        self.q(self.conn.execute(
            "DELETE FROM once_approvals WHERE created_at < ?1 OR created_at > ?2",
            params![oldest, newest],
        ))?;
        let taken: Option<i64> = self.q(self
            .conn
            .query_row(
                "DELETE FROM once_approvals WHERE id = (
                     SELECT id FROM once_approvals
                     WHERE session = ?1 AND tool = ?2 AND command = ?3 AND cwd IS ?4
                       AND created_at BETWEEN ?5 AND ?6
                     ORDER BY id LIMIT 1)
                 RETURNING id",
                params![session, tool, command, cwd, oldest, newest],
                |r| r.get(0),
            )
            .optional())?;
        Ok(taken.is_some())
    }

    // ----- decision log ---------------------------------------------------

    /// Append one decision to the log. An empty `time` is set to now.
    pub fn log_decision(&self, rec: &DecisionRecord) -> Result<(), StateError> {
        self.log_decisions(std::slice::from_ref(rec))
    }

    /// Append several decisions in one transaction (one disk sync; for
    /// batch runs).
    pub fn log_decisions(&self, recs: &[DecisionRecord]) -> Result<(), StateError> {
        if recs.is_empty() {
            return Ok(());
        }
        let json = |v: &serde_json::Value| {
            serde_json::to_string(v).map_err(|source| StateError::Json {
                path: self.path.clone(),
                source,
            })
        };
        self.write_tx(|tx| {
            let mut stmt = self.q(tx.prepare(
                "INSERT INTO decisions
                     (time, session, tool, command, cwd, decision, reason,
                      candidates, matched_grant, source)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            ))?;
            let now = now_rfc3339();
            for rec in recs {
                let time = if rec.time.is_empty() { &now } else { &rec.time };
                let candidates = json(&rec.candidates)?;
                let matched = rec.matched_grant.as_ref().map(json).transpose()?;
                self.q(stmt.execute(params![
                    time,
                    rec.session,
                    rec.tool,
                    rec.command,
                    rec.cwd,
                    rec.decision,
                    rec.reason,
                    candidates,
                    matched,
                    rec.source
                ]))?;
            }
            Ok(())
        })
    }

    /// The last `limit` decisions, oldest first (the order they happened).
    /// JSON columns that do not parse are returned as JSON strings holding
    /// the raw text, so a damaged row never hides the rest of the log.
    pub fn recent_decisions(&self, limit: usize) -> Result<Vec<DecisionRecord>, StateError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.q(self.conn.prepare(
            "SELECT time, session, tool, command, cwd, decision, reason,
                    candidates, matched_grant, source
             FROM (SELECT * FROM decisions ORDER BY id DESC LIMIT ?1)
             ORDER BY id ASC",
        ))?;
        let text = |r: &rusqlite::Row<'_>, i: usize| -> rusqlite::Result<String> {
            Ok(r.get::<_, Option<String>>(i)?.unwrap_or_default())
        };
        let rows = self.q(stmt.query_map(params![limit], |r| {
            Ok(DecisionRecord {
                time: text(r, 0)?,
                session: r.get(1)?,
                tool: text(r, 2)?,
                command: text(r, 3)?,
                cwd: r.get(4)?,
                decision: text(r, 5)?,
                reason: text(r, 6)?,
                candidates: parse_json_lenient(&text(r, 7)?),
                matched_grant: r
                    .get::<_, Option<String>>(8)?
                    .map(|s| parse_json_lenient(&s)),
                source: text(r, 9)?,
            })
        }))?;
        rows.map(|r| self.q(r)).collect()
    }
}

fn parse_json_lenient(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|_| serde_json::Value::String(s.to_string()))
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The database holds commands (which may carry secrets): create it readable
/// by its owner only. SQLite gives the `-wal`/`-shm` files the same mode.
/// Best effort: if this fails, opening reports the real problem.
fn create_private_file(path: &Path) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn temp_db() -> (tempfile::TempDir, PathBuf, StateDb) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join("shellgate.db");
        let db = StateDb::open(&path).unwrap();
        (dir, path, db)
    }

    fn session(id: &str, parent: Option<&str>) -> SessionRecord {
        SessionRecord {
            id: id.to_string(),
            audience: Audience::Personal,
            channel: Channel::Interactive,
            parent: parent.map(str::to_string),
            project_dir: None,
            created_at: String::new(),
            ended_at: None,
        }
    }

    fn g(verb: &str, dir: Option<&str>) -> (String, Option<String>) {
        (verb.to_string(), dir.map(str::to_string))
    }

    fn sg(verb: &str, dir: Option<&str>) -> SessionGrant {
        SessionGrant {
            verb: verb.to_string(),
            directory: dir.map(str::to_string),
        }
    }

    #[test]
    fn schema_created_and_reopened() {
        let (_dir, path, db) = temp_db();
        assert!(path.is_file());
        assert_eq!(db.user_version().unwrap(), SCHEMA_VERSION);
        let mode: String = db
            .conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode.to_lowercase(), "wal");
        db.create_session(&session("s1", None)).unwrap();
        drop(db);
        let db = StateDb::open(&path).unwrap();
        assert_eq!(db.user_version().unwrap(), SCHEMA_VERSION);
        assert!(db.session("s1").unwrap().is_some());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "db readable by others: {mode:o}");
        }
    }

    #[test]
    fn newer_schema_is_refused_and_names_the_file() {
        let (_dir, path, db) = temp_db();
        db.conn.pragma_update(None, "user_version", 99).unwrap();
        drop(db);
        let err = StateDb::open(&path).unwrap_err();
        assert!(
            matches!(err, StateError::NewerSchema { found: 99, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains(&path.display().to_string()));
    }

    #[test]
    fn garbage_file_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shellgate.db");
        std::fs::write(&path, vec![b'x'; 4096]).unwrap();
        let err = StateDb::open(&path).unwrap_err();
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
    }

    #[test]
    fn session_create_get_duplicate() {
        let (_dir, _path, db) = temp_db();
        assert!(db.session("s1").unwrap().is_none());
        let mut rec = session("s1", None);
        rec.audience = Audience::Team;
        rec.channel = Channel::Webhook;
        rec.project_dir = Some("/home/u/p".into());
        db.create_session(&rec).unwrap();
        let got = db.session("s1").unwrap().unwrap();
        assert_eq!(got.id, "s1");
        assert_eq!(got.audience, Audience::Team);
        assert_eq!(got.channel, Channel::Webhook);
        assert_eq!(got.project_dir.as_deref(), Some("/home/u/p"));
        assert!(got.created_at.ends_with('Z'), "{}", got.created_at);
        assert!(got.ended_at.is_none());

        let err = db.create_session(&session("s1", None)).unwrap_err();
        assert!(
            matches!(err, StateError::AlreadyExists { ref id, .. } if id == "s1"),
            "{err:?}"
        );
        // The first record is untouched.
        assert_eq!(db.session("s1").unwrap().unwrap().audience, Audience::Team);

        assert!(matches!(
            db.create_session(&session("../x", None)),
            Err(StateError::InvalidSessionId { .. })
        ));
        assert!(matches!(
            db.create_session(&session("ok", Some("bad/parent"))),
            Err(StateError::InvalidSessionId { .. })
        ));

        assert!(db.set_project_dir("s1", "/home/u/q").unwrap());
        assert_eq!(
            db.session("s1").unwrap().unwrap().project_dir.as_deref(),
            Some("/home/u/q")
        );
        assert!(!db.set_project_dir("nope", "/x").unwrap());
    }

    #[test]
    fn unknown_stored_audience_reads_public() {
        let (_dir, _path, db) = temp_db();
        db.conn
            .execute(
                "INSERT INTO sessions (id, audience, channel, created_at) VALUES ('x', 'root', 'telepathy', 't')",
                [],
            )
            .unwrap();
        let got = db.session("x").unwrap().unwrap();
        assert_eq!(got.audience, Audience::Public);
        assert!(!got.channel.is_interactive());
    }

    #[test]
    fn parent_grants_visible_to_child_not_vice_versa() {
        let (_dir, _path, db) = temp_db();
        db.create_session(&session("gp", None)).unwrap();
        db.create_session(&session("p", Some("gp"))).unwrap();
        db.create_session(&session("c", Some("p"))).unwrap();
        let a = Audience::Personal;
        db.add_session_grants("gp", a, "shell_execute", &[g("make", None)])
            .unwrap();
        db.add_session_grants("p", a, "shell_execute", &[g("git push", Some("/home/u/r"))])
            .unwrap();
        db.add_session_grants("c", a, "shell_execute", &[g("npm test", Some("/home/u/r"))])
            .unwrap();

        assert_eq!(
            db.session_grants("c", a, "shell_execute").unwrap(),
            vec![
                sg("npm test", Some("/home/u/r")),
                sg("git push", Some("/home/u/r")),
                sg("make", None)
            ]
        );
        assert_eq!(
            db.session_grants("p", a, "shell_execute").unwrap(),
            vec![sg("git push", Some("/home/u/r")), sg("make", None)]
        );
        assert_eq!(
            db.session_grants("gp", a, "shell_execute").unwrap(),
            vec![sg("make", None)]
        );
        // Other audience / tool / session see nothing.
        assert!(db
            .session_grants("c", Audience::Team, "shell_execute")
            .unwrap()
            .is_empty());
        assert!(db.session_grants("c", a, "file_read").unwrap().is_empty());
        assert!(db
            .session_grants("other", a, "shell_execute")
            .unwrap()
            .is_empty());
    }

    #[test]
    fn parent_chain_is_cycle_safe_and_depth_limited() {
        let (_dir, _path, db) = temp_db();
        let a = Audience::Personal;
        // A cycle a -> b -> a written behind the API's back.
        db.conn
            .execute_batch(
                "INSERT INTO sessions (id, audience, channel, parent, created_at) VALUES
                 ('a', 'personal', 'interactive', 'b', 't'),
                 ('b', 'personal', 'interactive', 'a', 't'),
                 ('self', 'personal', 'interactive', 'self', 't');",
            )
            .unwrap();
        db.add_session_grants("a", a, "t", &[g("va", None)])
            .unwrap();
        db.add_session_grants("b", a, "t", &[g("vb", None)])
            .unwrap();
        db.add_session_grants("self", a, "t", &[g("vs", None)])
            .unwrap();
        assert_eq!(
            db.session_grants("a", a, "t").unwrap(),
            vec![sg("va", None), sg("vb", None)]
        );
        assert_eq!(
            db.session_grants("self", a, "t").unwrap(),
            vec![sg("vs", None)]
        );

        // A chain of 20: s0 <- s1 <- ... <- s19; s19 sees itself + 16 ancestors.
        db.create_session(&session("s0", None)).unwrap();
        for i in 1..20 {
            db.create_session(&session(&format!("s{i}"), Some(&format!("s{}", i - 1))))
                .unwrap();
        }
        for i in 0..20 {
            db.add_session_grants(&format!("s{i}"), a, "t", &[g(&format!("v{i}"), None)])
                .unwrap();
        }
        let got = db.session_grants("s19", a, "t").unwrap();
        assert_eq!(got.len(), 1 + MAX_PARENT_DEPTH);
        assert_eq!(got[0], sg("v19", None));
        assert_eq!(got[MAX_PARENT_DEPTH], sg("v3", None));
    }

    #[test]
    fn duplicate_grants_do_not_accumulate() {
        let (_dir, _path, db) = temp_db();
        let a = Audience::Personal;
        let grants = [
            g("git push", None),
            g("git push", None),
            g("git push", Some("/home/u/r")),
            g("git push", Some("/home/u/r/")),
            g("git push", Some("  ")),
            g("  ", None),
        ];
        assert_eq!(
            db.add_session_grants("s", a, "shell_execute", &grants)
                .unwrap(),
            2
        );
        assert_eq!(
            db.add_session_grants("s", a, "shell_execute", &grants)
                .unwrap(),
            0
        );
        assert_eq!(
            db.add_session_grants("s", a, "shell_execute", &[g(" git push ", None)])
                .unwrap(),
            0
        );
        let count: i64 = db
            .conn
            .query_row("SELECT COUNT(*) FROM session_grants", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 2);
        assert_eq!(
            db.session_grants("s", a, "shell_execute").unwrap(),
            vec![sg("git push", None), sg("git push", Some("/home/u/r"))]
        );
    }

    #[test]
    fn once_approval_consumed_exactly_once() {
        let (_dir, _path, db) = temp_db();
        let (t, cmd) = ("shell_execute", "rm -rf ./build && make");
        db.add_once("s", t, cmd, Some("/home/u/p")).unwrap();
        assert!(!db.take_once("s", t, cmd, Some("/home/u/other")).unwrap());
        assert!(!db.take_once("s", t, cmd, None).unwrap());
        assert!(!db
            .take_once("s", t, "rm -rf ./build &&  make", Some("/home/u/p"))
            .unwrap());
        assert!(!db.take_once("s2", t, cmd, Some("/home/u/p")).unwrap());
        assert!(!db
            .take_once("s", "file_read", cmd, Some("/home/u/p"))
            .unwrap());
        assert!(db.take_once("s", t, cmd, Some("/home/u/p")).unwrap());
        assert!(!db.take_once("s", t, cmd, Some("/home/u/p")).unwrap());

        // A None cwd matches only a None cwd.
        db.add_once("s", t, cmd, None).unwrap();
        assert!(!db.take_once("s", t, cmd, Some("")).unwrap());
        assert!(db.take_once("s", t, cmd, None).unwrap());
        assert!(!db.take_once("s", t, cmd, None).unwrap());

        // Two approvals allow two runs.
        db.add_once("s", t, cmd, None).unwrap();
        db.add_once("s", t, cmd, None).unwrap();
        assert!(db.take_once("s", t, cmd, None).unwrap());
        assert!(db.take_once("s", t, cmd, None).unwrap());
        assert!(!db.take_once("s", t, cmd, None).unwrap());
    }

    #[test]
    fn once_approval_expires_after_600_seconds() {
        let (_dir, _path, db) = temp_db();
        let t0 = 1_800_000_000;
        db.add_once_at("s", "sh", "ls", None, t0).unwrap();
        assert!(db.take_once_at("s", "sh", "ls", None, t0 + 600).unwrap());

        db.add_once_at("s", "sh", "ls", None, t0).unwrap();
        db.add_once_at("s", "sh", "other", None, t0).unwrap();
        assert!(!db.take_once_at("s", "sh", "ls", None, t0 + 601).unwrap());
        // Expired rows were purged, not merely skipped.
        let count: i64 = db
            .conn
            .query_row("SELECT COUNT(*) FROM once_approvals", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 0);
        assert!(!db.take_once_at("s", "sh", "ls", None, t0).unwrap());

        // Recorded far in the future (clock went backwards): not honored.
        db.add_once_at("s", "sh", "ls", None, t0 + 3600).unwrap();
        assert!(!db.take_once_at("s", "sh", "ls", None, t0).unwrap());
    }

    #[test]
    fn end_session_removes_grants() {
        let (_dir, _path, db) = temp_db();
        let a = Audience::Personal;
        db.create_session(&session("p", None)).unwrap();
        db.create_session(&session("c", Some("p"))).unwrap();
        db.add_session_grants("p", a, "sh", &[g("make", None)])
            .unwrap();
        db.add_session_grants("c", a, "sh", &[g("ls", None)])
            .unwrap();
        db.add_once("p", "sh", "x", None).unwrap();

        assert!(db.end_session("p").unwrap());
        let rec = db.session("p").unwrap().unwrap();
        let ended = rec.ended_at.clone().unwrap();
        assert!(db.session_grants("p", a, "sh").unwrap().is_empty());
        assert_eq!(
            db.session_grants("c", a, "sh").unwrap(),
            vec![sg("ls", None)]
        );
        assert!(!db.take_once("p", "sh", "x", None).unwrap());
        // Ended sessions take no new grants.
        assert!(matches!(
            db.add_session_grants("p", a, "sh", &[g("make", None)]),
            Err(StateError::SessionEnded { .. })
        ));
        // Ending again keeps the first end time.
        assert!(db.end_session("p").unwrap());
        assert_eq!(db.session("p").unwrap().unwrap().ended_at, Some(ended));

        // Implicit session: not stored, but its grants still go.
        db.add_session_grants("implicit", a, "sh", &[g("make", None)])
            .unwrap();
        assert!(!db.end_session("implicit").unwrap());
        assert!(db.session_grants("implicit", a, "sh").unwrap().is_empty());
    }

    #[test]
    fn decision_log_round_trip() {
        let (_dir, path, db) = temp_db();
        assert!(db.recent_decisions(10).unwrap().is_empty());
        let rec = |i: usize| DecisionRecord {
            time: String::new(),
            session: Some("s".into()),
            tool: "shell_execute".into(),
            command: format!("echo {i} 'quoted' \"x\" \u{e9}"),
            cwd: if i.is_multiple_of(2) {
                Some("/home/u".into())
            } else {
                None
            },
            decision: "allow".into(),
            reason: "granted".into(),
            candidates: json!([{"verb": "echo", "directory": null, "status": "safe", "grant": null}]),
            matched_grant: if i.is_multiple_of(2) {
                Some(json!({"verb": "echo"}))
            } else {
                None
            },
            source: "exec".into(),
        };
        for i in 0..5 {
            db.log_decision(&rec(i)).unwrap();
        }
        db.log_decisions(&[rec(5), rec(6)]).unwrap();
        let got = db.recent_decisions(3).unwrap();
        assert_eq!(got.len(), 3);
        for (k, r) in got.iter().enumerate() {
            let mut want = rec(4 + k);
            want.time = r.time.clone();
            assert_eq!(r, &want);
            assert!(r.time.ends_with('Z'));
        }
        let mut explicit = rec(7);
        explicit.time = "2026-05-01T12:00:00Z".into();
        db.log_decision(&explicit).unwrap();
        drop(db);
        let db = StateDb::open(&path).unwrap();
        let all = db.recent_decisions(100).unwrap();
        assert_eq!(all.len(), 8);
        assert_eq!(all[7], explicit);
        assert!(db.recent_decisions(0).unwrap().is_empty());
        // Append-only.
        assert!(db.conn.execute("DELETE FROM decisions", []).is_err());
        assert!(db
            .conn
            .execute("UPDATE decisions SET decision = 'deny'", [])
            .is_err());
    }

    #[test]
    fn damaged_json_in_log_is_returned_as_text() {
        let (_dir, _path, db) = temp_db();
        db.conn
            .execute(
                "INSERT INTO decisions (time, tool, command, decision, reason, candidates, matched_grant, source)
                 VALUES ('t', 'sh', 'ls', 'allow', 'granted', '{broken', 'nope', 'exec')",
                [],
            )
            .unwrap();
        let got = db.recent_decisions(1).unwrap();
        assert_eq!(got[0].candidates, json!("{broken"));
        assert_eq!(got[0].matched_grant, Some(json!("nope")));
    }

    #[test]
    fn concurrent_writers_with_separate_connections() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join("shellgate.db");
        let threads = 4;
        let per = 50;
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let path = path.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    // Everyone opens (and races to create) the schema at once.
                    let db = StateDb::open(&path).unwrap();
                    let id = format!("t{t}");
                    db.create_session(&session(&id, None)).unwrap();
                    for i in 0..per {
                        db.add_session_grants(
                            &id,
                            Audience::Personal,
                            "sh",
                            &[g(&format!("v{i}"), None)],
                        )
                        .unwrap();
                        db.add_once(&id, "sh", "cmd", None).unwrap();
                        assert!(db.take_once(&id, "sh", "cmd", None).unwrap());
                        db.log_decision(&DecisionRecord {
                            time: String::new(),
                            session: Some(id.clone()),
                            tool: "sh".into(),
                            command: format!("cmd {i}"),
                            cwd: None,
                            decision: "allow".into(),
                            reason: "approved_once".into(),
                            candidates: json!([]),
                            matched_grant: None,
                            source: "test".into(),
                        })
                        .unwrap();
                    }
                    db.end_session(&id).unwrap();
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let db = StateDb::open(&path).unwrap();
        assert_eq!(db.recent_decisions(10_000).unwrap().len(), threads * per);
        for t in 0..threads {
            assert!(db
                .session(&format!("t{t}"))
                .unwrap()
                .unwrap()
                .ended_at
                .is_some());
        }
    }

    #[test]
    fn once_is_taken_by_only_one_of_many_racers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shellgate.db");
        StateDb::open(&path)
            .unwrap()
            .add_once("s", "sh", "x", None)
            .unwrap();
        let handles: Vec<_> = (0..16)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || {
                    StateDb::open(&path)
                        .unwrap()
                        .take_once("s", "sh", "x", None)
                        .unwrap()
                })
            })
            .collect();
        let wins = handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|w| *w)
            .count();
        assert_eq!(wins, 1);
    }
}
