//! Sessions (SPEC §1, §10): create, read, set the project directory, end.
//! The records are files (`files.rs`); ending a session also removes its
//! rows from the database.

use rusqlite::params;

use super::files::{ASKED, ROWS};
use super::*;

impl StateDb {
    /// The stored session `id`, if it was ever created.
    pub fn session(&self, id: &str) -> Result<Option<SessionRecord>, StateError> {
        if let Some(rec) = self.files.read(id)? {
            return Ok(Some(rec));
        }
        // Not found: a database of an older shellgate may still hold it.
        if !self.files.migrated()? && self.path.exists() {
            self.ensure_migrated()?;
            return self.files.read(id);
        }
        Ok(None)
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
        self.ensure_migrated()?;
        if self.files.create(rec)? {
            Ok(())
        } else {
            Err(StateError::AlreadyExists {
                path: self.path.clone(),
                id: rec.id.clone(),
            })
        }
    }

    /// Set the project directory of a stored session; `false` if there is
    /// no such session. The caller validates and normalizes `dir`.
    pub fn set_project_dir(&self, id: &str, dir: &str) -> Result<bool, StateError> {
        self.ensure_migrated()?;
        self.files
            .update(id, |r| r.project_dir = Some(dir.to_string()))
    }

    /// End a session: set `ended_at` (kept if already ended) and delete its
    /// session grants, pending one-time approvals and failed sandboxed runs.
    /// Returns whether the session was stored. Grants and approvals of an
    /// implicit (never created) session with this id are deleted as well.
    pub fn end_session(&self, id: &str) -> Result<bool, StateError> {
        self.ensure_migrated()?;
        let now = now_rfc3339();
        let ended = self.files.update(id, |r| {
            if r.ended_at.is_none() {
                r.ended_at = Some(now);
            }
        })?;
        if self.conn_if_exists()?.is_some() {
            self.write_tx(|tx| {
                self.q(tx.execute("DELETE FROM session_grants WHERE session = ?1", params![id]))?;
                self.q(tx.execute("DELETE FROM once_approvals WHERE session = ?1", params![id]))?;
                Ok(())
            })?;
            self.forget_sandbox_failures(id)?;
        }
        Ok(ended)
    }

    /// Note, before writing a row for `session` into the database, that
    /// its lookups must ask the database.
    pub(super) fn mark_rows(&self, session: &str) -> Result<(), StateError> {
        self.ensure_migrated()?;
        self.files.mark(session, ROWS)
    }

    /// Whether the database may hold rows for `session`. False only when
    /// it certainly holds none (the marker is written before any row).
    pub(super) fn may_have_rows(&self, session: &str) -> bool {
        if self.files.marked(session, ROWS) {
            return true;
        }
        // An older database not migrated yet: its markers do not exist.
        !matches!(self.files.migrated(), Ok(true)) && self.path.exists()
    }

    /// Note that a hook asked about a call of `session` (a later post-tool
    /// event of the session then has something to look up).
    pub fn mark_asked(&self, session: &str) -> Result<(), StateError> {
        self.ensure_migrated()?;
        self.files.mark(session, ASKED)
    }

    /// Whether a hook ever asked about a call of `session`.
    pub fn was_asked(&self, session: &str) -> bool {
        self.files.marked(session, ASKED)
            || (!matches!(self.files.migrated(), Ok(true)) && self.path.exists())
    }
}
