//! Read-only views for people (the approval page of `shellgate serve`,
//! SPEC §17): the sessions that have not ended, a session's own "This chat"
//! grants, and the decision log filtered and newest first. Nothing here is
//! on the evaluation path.

use rusqlite::params;

use super::*;

/// One stored "This chat" grant with its audience and tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSessionGrant {
    pub audience: String,
    pub tool: String,
    pub verb: String,
    /// `None` = anywhere.
    pub directory: Option<String>,
}

impl StateDb {
    /// Sessions that have not ended, newest first (at most `limit`).
    pub fn active_sessions(&self, limit: usize) -> Result<Vec<SessionRecord>, StateError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.q(self.conn.prepare(
            "SELECT id, audience, channel, parent, project_dir, created_at, ended_at
             FROM sessions WHERE ended_at IS NULL
             ORDER BY created_at DESC, rowid DESC LIMIT ?1",
        ))?;
        let rows = self.q(stmt.query_map(params![limit], |r| {
            Ok(SessionRecord {
                id: r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                audience: Audience::parse_or_public(r.get::<_, Option<String>>(1)?.as_deref()),
                channel: channel_or_headless(r.get::<_, Option<String>>(2)?.as_deref()),
                parent: r.get(3)?,
                project_dir: r.get(4)?,
                created_at: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                ended_at: r.get(6)?,
            })
        }))?;
        rows.map(|r| self.q(r)).collect()
    }

    /// The session's own "This chat" grants (not its ancestors'), every
    /// audience and tool, in the order they were given.
    pub fn own_session_grants(&self, session: &str) -> Result<Vec<StoredSessionGrant>, StateError> {
        let mut stmt = self.q(self.conn.prepare(
            "SELECT audience, tool, verb, directory FROM session_grants
             WHERE session = ?1 ORDER BY id",
        ))?;
        let rows = self.q(stmt.query_map(params![session], |r| {
            Ok(StoredSessionGrant {
                audience: r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                tool: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                verb: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                directory: r.get::<_, Option<String>>(3)?.filter(|d| !d.is_empty()),
            })
        }))?;
        rows.map(|r| self.q(r)).collect()
    }

    /// Decisions of the log, newest first, optionally only of `session`
    /// and/or with `decision` (`allow`/`ask`/`deny`), looking at no more
    /// than the newest `scan` rows and keeping those `keep` accepts, at most
    /// `limit` of them.
    pub fn decisions_newest_first(
        &self,
        session: Option<&str>,
        decision: Option<&str>,
        scan: usize,
        limit: usize,
        keep: &dyn Fn(&DecisionRecord) -> bool,
    ) -> Result<Vec<DecisionRecord>, StateError> {
        let scan = i64::try_from(scan).unwrap_or(i64::MAX);
        let mut stmt = self.q(self.conn.prepare(
            "SELECT time, session, tool, command, cwd, decision, reason,
                    candidates, matched_grant, source
             FROM (SELECT * FROM decisions ORDER BY id DESC LIMIT ?1)
             WHERE (?2 IS NULL OR session = ?2) AND (?3 IS NULL OR decision = ?3)
             ORDER BY id DESC",
        ))?;
        let text = |r: &rusqlite::Row<'_>, i: usize| -> rusqlite::Result<String> {
            Ok(r.get::<_, Option<String>>(i)?.unwrap_or_default())
        };
        let lenient = |s: &str| {
            serde_json::from_str(s).unwrap_or_else(|_| serde_json::Value::String(s.to_string()))
        };
        let rows = self.q(stmt.query_map(params![scan, session, decision], |r| {
            Ok(DecisionRecord {
                time: text(r, 0)?,
                session: r.get(1)?,
                tool: text(r, 2)?,
                command: text(r, 3)?,
                cwd: r.get(4)?,
                decision: text(r, 5)?,
                reason: text(r, 6)?,
                candidates: lenient(&text(r, 7)?),
                matched_grant: r.get::<_, Option<String>>(8)?.map(|s| lenient(&s)),
                source: text(r, 9)?,
            })
        }))?;
        let mut out = Vec::new();
        for row in rows {
            let rec = self.q(row)?;
            if keep(&rec) {
                out.push(rec);
                if out.len() >= limit {
                    break;
                }
            }
        }
        Ok(out)
    }
}
