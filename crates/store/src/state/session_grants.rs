//! Session ("This chat") grants (SPEC §6.4), visible to child sessions.

use std::collections::HashSet;

use rusqlite::{params, Connection, OptionalExtension};
use shellgate_shell::paths;

use super::*;

impl StateDb {
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
}
