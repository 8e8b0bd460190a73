//! Sessions (SPEC §1, §10): create, read, set the project directory, end.

use rusqlite::{params, OptionalExtension};

use super::*;

impl StateDb {
    /// The stored session `id`, if it was ever created.
    pub fn session(&self, id: &str) -> Result<Option<SessionRecord>, StateError> {
        let mut stmt = self.q(self.conn.prepare_cached(
            "SELECT id, audience, channel, parent, project_dir, created_at, ended_at
             FROM sessions WHERE id = ?1",
        ))?;
        let row = self.q(stmt
            .query_row(params![id], |r| {
                Ok(SessionRecord {
                    id: r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                    audience: Audience::parse_or_public(r.get::<_, Option<String>>(1)?.as_deref()),
                    channel: channel_or_headless(r.get::<_, Option<String>>(2)?.as_deref()),
                    parent: r.get(3)?,
                    project_dir: r.get(4)?,
                    created_at: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                    ended_at: r.get(6)?,
                })
            })
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
        let ended = self.write_tx(|tx| {
            let n = self.q(tx.execute(
                "UPDATE sessions SET ended_at = COALESCE(ended_at, ?2) WHERE id = ?1",
                params![id, now_rfc3339()],
            ))?;
            self.q(tx.execute("DELETE FROM session_grants WHERE session = ?1", params![id]))?;
            self.q(tx.execute("DELETE FROM once_approvals WHERE session = ?1", params![id]))?;
            Ok(n > 0)
        })?;
        self.forget_sandbox_failures(id)?;
        Ok(ended)
    }

    // ----- session grants (§6.4) -----------------------------------------
}
