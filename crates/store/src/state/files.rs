//! The parts of the state that live in plain files next to the database,
//! so the common hook call never opens SQLite (issue 14: opening the
//! database cost most of a hook call):
//!
//! - `state/sessions/<id>.json` — the session records (schema v2 moved
//!   them out of the `sessions` table). Created with `link(2)` (an
//!   existing record is never replaced), updated under `state/sessions/.lock`
//!   by writing a new file and renaming it over the old one, so a reader
//!   sees the old or the new record, never a torn one.
//! - `state/sessions/<id>.rows` — a marker created *before* the database
//!   gets a row for the session (a session grant, a one-time approval, a
//!   failed sandboxed run). A session without it has no such rows, so its
//!   lookups need no database. It is never removed: a stale marker only
//!   costs a database open.
//! - `state/sessions/<id>.asked` — a marker created when a hook logged an
//!   ask for the session: only then can a later post-tool event have
//!   anything to record.
//! - `state/audit.log` — decisions appended as JSON lines; merged into
//!   the `decisions` table (the log the commands read) by whoever opens the
//!   database to read the log, and by the writer that finds the file large.
//!
//! `state/sessions/` exists exactly when the records live in files: a
//! database written by an older shellgate (schema v1, no directory) is
//! migrated before any record is read or created.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use fs2::FileExt;
use serde_json::{json, Map, Value};
use shellgate_policy::model::{Audience, Channel};

use super::{channel_or_headless, is_valid_session_id, now_rfc3339, SessionRecord, StateError};

/// Name of the directory of session records inside the state directory.
pub(super) const SESSIONS_DIR: &str = "sessions";

/// Name of the append-only decision file inside the state directory.
pub(super) const AUDIT_FILE: &str = "audit.log";

/// Largest session record read (a record is a few hundred bytes).
const MAX_RECORD_BYTES: u64 = 64 * 1024;

fn io_err(path: &Path, source: io::Error) -> StateError {
    StateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Marker: the database may hold rows for the session.
pub(super) const ROWS: &str = "rows";

/// Marker: a hook logged an ask for the session.
pub(super) const ASKED: &str = "asked";

/// The state directory's file-backed parts.
#[derive(Debug, Clone)]
pub(super) struct Files {
    pub(super) state: PathBuf,
    sessions: PathBuf,
}

impl Files {
    pub(super) fn new(state: PathBuf) -> Files {
        let sessions = state.join(SESSIONS_DIR);
        Files { state, sessions }
    }

    /// The same state with the records in `dir` (a migration's staging
    /// directory).
    pub(super) fn with_sessions_dir(self, dir: PathBuf) -> Files {
        Files {
            state: self.state,
            sessions: dir,
        }
    }

    pub(super) fn sessions_dir(&self) -> PathBuf {
        self.sessions.clone()
    }

    fn record_path(&self, id: &str) -> PathBuf {
        self.sessions_dir().join(format!("{id}.json"))
    }

    fn marker_path(&self, id: &str, kind: &str) -> PathBuf {
        self.sessions_dir().join(format!("{id}.{kind}"))
    }

    pub(super) fn audit_path(&self) -> PathBuf {
        self.state.join(AUDIT_FILE)
    }

    /// Whether the session records live in files here (the directory
    /// exists); an error other than "absent" is returned.
    pub(super) fn migrated(&self) -> Result<bool, StateError> {
        let dir = self.sessions_dir();
        match fs::metadata(&dir) {
            Ok(m) if m.is_dir() => Ok(true),
            Ok(_) => Err(io_err(
                &dir,
                io::Error::other("exists and is not a directory"),
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io_err(&dir, e)),
        }
    }

    /// Create `state/sessions/` (and `state/`) if absent.
    pub(super) fn ensure_sessions_dir(&self) -> Result<(), StateError> {
        let dir = self.sessions_dir();
        match fs::create_dir(&dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                create_private_dir_all(&self.state).map_err(|e| io_err(&self.state, e))?;
                match fs::create_dir(&dir) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
                    Err(e) => Err(io_err(&dir, e)),
                }
            }
            Err(e) => Err(io_err(&dir, e)),
        }
    }

    /// The stored record of `id`; `None` when there is none (an id that
    /// is not a valid session id has none).
    pub(super) fn read(&self, id: &str) -> Result<Option<SessionRecord>, StateError> {
        if !is_valid_session_id(id) {
            return Ok(None);
        }
        let path = self.record_path(id);
        let mut f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&path, e)),
        };
        let mut text = Vec::new();
        (&mut f)
            .take(MAX_RECORD_BYTES)
            .read_to_end(&mut text)
            .map_err(|e| io_err(&path, e))?;
        Ok(Some(parse_record(id, &text)))
    }

    /// Store a new record; `Ok(false)` if `rec.id` already has one (never
    /// replaced). The caller validated the ids.
    pub(super) fn create(&self, rec: &SessionRecord) -> Result<bool, StateError> {
        self.ensure_sessions_dir()?;
        let path = self.record_path(&rec.id);
        let tmp = self.write_temp(&rec.id, &record_json(rec))?;
        // link(2) fails when the name exists: an existing record wins.
        let linked = fs::hard_link(&tmp, &path);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                sync_dir(&self.sessions_dir());
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Change the record of `id` under the records' lock; `Ok(false)` if
    /// there is none.
    pub(super) fn update(
        &self,
        id: &str,
        change: impl FnOnce(&mut SessionRecord),
    ) -> Result<bool, StateError> {
        if !is_valid_session_id(id) {
            return Ok(false);
        }
        self.ensure_sessions_dir()?;
        let _lock = self.lock()?;
        let Some(mut rec) = self.read(id)? else {
            return Ok(false);
        };
        change(&mut rec);
        let path = self.record_path(id);
        let tmp = self.write_temp(id, &record_json(&rec))?;
        let renamed = fs::rename(&tmp, &path);
        if renamed.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        renamed.map_err(|e| io_err(&path, e))?;
        sync_dir(&self.sessions_dir());
        Ok(true)
    }

    /// The records' lock (updates only; readers never wait).
    fn lock(&self) -> Result<File, StateError> {
        let path = self.sessions_dir().join(".lock");
        let f = open_private(&path, false).map_err(|e| io_err(&path, e))?;
        f.lock_exclusive().map_err(|e| io_err(&path, e))?;
        Ok(f)
    }

    /// Write `bytes` to a fresh private temporary file next to the records
    /// and flush it to disk.
    fn write_temp(&self, id: &str, bytes: &[u8]) -> Result<PathBuf, StateError> {
        let tmp = self.sessions_dir().join(format!(
            ".{id}.{}.{}.tmp",
            std::process::id(),
            unique_suffix()
        ));
        let mut f = open_private(&tmp, true).map_err(|e| io_err(&tmp, e))?;
        let written = f.write_all(bytes).and_then(|_| f.sync_all());
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(io_err(&tmp, e));
        }
        Ok(tmp)
    }

    /// Create the marker `kind` of session `id` (idempotent).
    pub(super) fn mark(&self, id: &str, kind: &str) -> Result<(), StateError> {
        if !is_valid_session_id(id) {
            return Err(StateError::InvalidSessionId {
                path: self.state.clone(),
                id: id.to_string(),
            });
        }
        self.ensure_sessions_dir()?;
        let path = self.marker_path(id, kind);
        open_private(&path, false)
            .map(|_| ())
            .map_err(|e| io_err(&path, e))
    }

    /// Whether session `id` has the marker `kind`. An error other than
    /// "absent" counts as present: the caller then asks the database,
    /// which reports the real problem.
    pub(super) fn marked(&self, id: &str, kind: &str) -> bool {
        if !is_valid_session_id(id) {
            return false;
        }
        match fs::symlink_metadata(self.marker_path(id, kind)) {
            Ok(_) => true,
            Err(e) => e.kind() != io::ErrorKind::NotFound,
        }
    }
}

/// A unique-enough suffix for temporary names (time in nanoseconds).
pub(super) fn unique_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Open (creating, mode 0600) a file for writing; `new` insists on a new
/// file.
pub(super) fn open_private(path: &Path, new: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true);
    if new {
        o.create_new(true);
    } else {
        o.create(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)
}

/// `create_dir_all` with mode 0700 for what it creates (the state holds
/// commands, which may carry secrets).
pub(super) fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Make a rename or link in `dir` durable (best effort).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn record_json(rec: &SessionRecord) -> Vec<u8> {
    let created = if rec.created_at.is_empty() {
        now_rfc3339()
    } else {
        rec.created_at.clone()
    };
    let v = json!({
        "id": rec.id,
        "audience": rec.audience.as_str(),
        "channel": rec.channel.as_str(),
        "parent": rec.parent,
        "project_dir": rec.project_dir,
        "created_at": created,
        "ended_at": rec.ended_at,
    });
    let mut out = v.to_string().into_bytes();
    out.push(b'\n');
    out
}

/// A stored record, read as untrusted: unknown audiences are `public`,
/// unknown channels non-interactive, a record that does not parse is a
/// public, headless session (fail closed) that has ended.
fn parse_record(id: &str, text: &[u8]) -> SessionRecord {
    let obj: Option<Map<String, Value>> = serde_json::from_slice::<Value>(text)
        .ok()
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        });
    let Some(obj) = obj else {
        return SessionRecord {
            id: id.to_string(),
            audience: Audience::Public,
            channel: Channel::Headless,
            parent: None,
            project_dir: None,
            created_at: String::new(),
            ended_at: Some("unreadable session record".into()),
        };
    };
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
    SessionRecord {
        id: id.to_string(),
        audience: Audience::parse_or_public(text("audience").as_deref()),
        channel: channel_or_headless(text("channel").as_deref()),
        parent: text("parent"),
        project_dir: text("project_dir"),
        created_at: text("created_at").unwrap_or_default(),
        ended_at: text("ended_at"),
    }
}

/// Append `bytes` (whole JSON lines) to the audit file of `state`.
///
/// Appenders hold a shared lock on the file while they write; a merge
/// renames the file away and then takes the exclusive lock, so it waits for
/// writes already under way, and an appender that locked a file after it
/// was renamed notices (the name no longer leads to it) and writes to the
/// new file instead. Returns the file's size after the write.
pub(super) fn append_audit(files: &Files, bytes: &[u8]) -> Result<u64, StateError> {
    let path = files.audit_path();
    for _ in 0..100 {
        let f = match open_append(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                create_private_dir_all(&files.state).map_err(|e| io_err(&files.state, e))?;
                open_append(&path).map_err(|e| io_err(&path, e))?
            }
            Err(e) => return Err(io_err(&path, e)),
        };
        f.lock_shared().map_err(|e| io_err(&path, e))?;
        let Some(size) = still_named(&f, &path) else {
            continue;
        };
        let mut w = &f;
        w.write_all(bytes).map_err(|e| io_err(&path, e))?;
        return Ok(size + bytes.len() as u64);
    }
    Err(io_err(
        &path,
        io::Error::other("the audit file keeps being replaced"),
    ))
}

fn open_append(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)
}

/// The size of the open file `f` if `path` still names it.
#[cfg(unix)]
fn still_named(f: &File, path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) if a.ino() == b.ino() && a.dev() == b.dev() => Some(a.len()),
        _ => None,
    }
}

#[cfg(not(unix))]
fn still_named(f: &File, _path: &Path) -> Option<u64> {
    // Elsewhere an open file cannot be renamed: it is still named.
    f.metadata().ok().map(|m| m.len())
}
