//! The append-only decision log (SPEC §10).

use rusqlite::params;

use super::*;

impl StateDb {
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
            let mut stmt = self.q(tx.prepare_cached(
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
