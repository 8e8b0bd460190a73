//! The append-only decision log (SPEC §10).
//!
//! Writers append JSON lines to `state/audit.log` (one `write` under a
//! shared lock, no database); the log's reader merges those lines into the
//! `decisions` table, in the order they were written, before it reads. A
//! writer that finds the file past [`MERGE_BYTES`] merges it itself, so the
//! file stays small when nobody reads the log.
//!
//! A merge renames the file away (appenders move on to a fresh one), waits
//! for the writes under way on it, inserts its lines and records the file's
//! name in `audit_files` in one transaction, then deletes the file: a merge
//! interrupted after its commit leaves a file whose name is recorded and is
//! not inserted twice; one interrupted before leaves a file the next merge
//! takes first.

use std::io::Read;

use fs2::FileExt;
use rusqlite::{params, OptionalExtension};
use serde_json::{json, Value};

use super::files::{self, append_audit};
use super::*;

/// Size of `state/audit.log` above which its writer merges it.
pub const MERGE_BYTES: u64 = 256 * 1024;

/// Suffix of a decision file taken for merging.
const MERGING: &str = ".merging";

impl StateDb {
    /// Append one decision to the log. An empty `time` is set to now.
    pub fn log_decision(&self, rec: &DecisionRecord) -> Result<(), StateError> {
        self.log_decisions(std::slice::from_ref(rec))
    }

    /// Append several decisions (one write).
    pub fn log_decisions(&self, recs: &[DecisionRecord]) -> Result<(), StateError> {
        if recs.is_empty() {
            return Ok(());
        }
        let now = now_rfc3339();
        let mut buf = String::new();
        for rec in recs {
            let time = if rec.time.is_empty() { &now } else { &rec.time };
            let line = json!({
                "time": time,
                "session": rec.session,
                "tool": rec.tool,
                "command": rec.command,
                "cwd": rec.cwd,
                "decision": rec.decision,
                "reason": rec.reason,
                "candidates": rec.candidates,
                "matched_grant": rec.matched_grant,
                "source": rec.source,
            });
            buf.push_str(&line.to_string());
            buf.push('\n');
        }
        let size = append_audit(&self.files, buf.as_bytes())?;
        if size >= MERGE_BYTES {
            // Best effort: the decisions are safe in the file.
            let _ = self.merge_audit();
        }
        Ok(())
    }

    /// Move the decisions appended to `state/audit.log` into the
    /// `decisions` table.
    pub fn merge_audit(&self) -> Result<(), StateError> {
        let state = &self.files.state;
        let lock_path = state.join("audit.lock");
        let lock = match files::open_private(&lock_path, false) {
            Ok(f) => f,
            // No state directory: nothing was ever appended.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => {
                return Err(StateError::Io {
                    path: lock_path,
                    source: e,
                })
            }
        };
        lock.lock_exclusive().map_err(|e| StateError::Io {
            path: lock_path.clone(),
            source: e,
        })?;
        let mut pending = self.merging_files()?;
        let live = self.files.audit_path();
        if std::fs::metadata(&live).is_ok_and(|m| m.len() > 0) {
            let name = format!(
                "audit.{:039}.{:010}{MERGING}",
                files::unique_suffix(),
                std::process::id()
            );
            let taken = state.join(&name);
            std::fs::rename(&live, &taken).map_err(|e| StateError::Io {
                path: live.clone(),
                source: e,
            })?;
            pending.push(name);
        }
        for name in pending {
            self.merge_file(&name)?;
        }
        Ok(())
    }

    /// Names of decision files taken for merging, oldest first.
    fn merging_files(&self) -> Result<Vec<String>, StateError> {
        let state = &self.files.state;
        let rd = match std::fs::read_dir(state) {
            Ok(rd) => rd,
            Err(e) => {
                return Err(StateError::Io {
                    path: state.clone(),
                    source: e,
                })
            }
        };
        let mut names: Vec<String> = rd
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.starts_with("audit.") && n.ends_with(MERGING))
            .collect();
        names.sort();
        Ok(names)
    }

    fn merge_file(&self, name: &str) -> Result<(), StateError> {
        let path = self.files.state.join(name);
        let io = |e| StateError::Io {
            path: path.clone(),
            source: e,
        };
        let mut f = std::fs::File::open(&path).map_err(io)?;
        // Writes under way on this file finish first.
        f.lock_exclusive().map_err(io)?;
        let mut text = Vec::new();
        f.read_to_end(&mut text).map_err(io)?;
        self.write_tx(|tx| {
            let done: Option<i64> = self.q(tx
                .query_row(
                    "SELECT 1 FROM audit_files WHERE name = ?1",
                    params![name],
                    |r| r.get(0),
                )
                .optional())?;
            if done.is_some() {
                return Ok(());
            }
            let mut stmt = self.q(tx.prepare(
                "INSERT INTO decisions
                     (time, session, tool, command, cwd, decision, reason,
                      candidates, matched_grant, source)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            ))?;
            for line in text.split(|b| *b == b'\n') {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let r = audit_row(line);
                self.q(stmt.execute(params![
                    r.time,
                    r.session,
                    r.tool,
                    r.command,
                    r.cwd,
                    r.decision,
                    r.reason,
                    r.candidates,
                    r.matched_grant,
                    r.source
                ]))?;
            }
            self.q(tx.execute(
                "INSERT INTO audit_files (name, merged_at) VALUES (?1, ?2)",
                params![name, now_rfc3339()],
            ))?;
            Ok(())
        })?;
        std::fs::remove_file(&path).map_err(io)?;
        Ok(())
    }

    /// The last `limit` decisions, oldest first (the order they happened).
    /// JSON columns that do not parse are returned as JSON strings holding
    /// the raw text, so a damaged row never hides the rest of the log.
    pub fn recent_decisions(&self, limit: usize) -> Result<Vec<DecisionRecord>, StateError> {
        if self.conn_if_exists()?.is_none() && !self.files.audit_path().exists() {
            return Ok(Vec::new());
        }
        self.conn()?;
        self.merge_audit()?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.q(self.conn()?.prepare(
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

/// One `decisions` row from a line of the decision file.
struct AuditRow {
    time: String,
    session: Option<String>,
    tool: String,
    command: String,
    cwd: Option<String>,
    decision: String,
    reason: String,
    candidates: String,
    matched_grant: Option<String>,
    source: String,
}

/// A line that is not a record the log wrote (a crash in the middle of a
/// write, a hand edit) is kept, as a row saying so with the raw text.
fn audit_row(line: &[u8]) -> AuditRow {
    let obj = serde_json::from_slice::<Value>(line)
        .ok()
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        });
    let Some(o) = obj else {
        return AuditRow {
            time: now_rfc3339(),
            session: None,
            tool: String::new(),
            command: String::from_utf8_lossy(line).into_owned(),
            cwd: None,
            decision: "unknown".into(),
            reason: "damaged_audit_record".into(),
            candidates: "[]".into(),
            matched_grant: None,
            source: "audit.log".into(),
        };
    };
    let s = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    AuditRow {
        time: s("time").unwrap_or_default(),
        session: s("session"),
        tool: s("tool").unwrap_or_default(),
        command: s("command").unwrap_or_default(),
        cwd: s("cwd"),
        decision: s("decision").unwrap_or_else(|| "unknown".into()),
        reason: s("reason").unwrap_or_default(),
        candidates: o
            .get("candidates")
            .map(Value::to_string)
            .unwrap_or_else(|| "[]".into()),
        matched_grant: o
            .get("matched_grant")
            .filter(|v| !v.is_null())
            .map(Value::to_string),
        source: s("source").unwrap_or_default(),
    }
}

fn parse_json_lenient(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|_| serde_json::Value::String(s.to_string()))
}
