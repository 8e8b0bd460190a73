//! Sandboxed runs that failed (SPEC §18): "if the sandboxed run fails
//! because the sandbox denied something, the next identical call asks as
//! before". The sandbox wrapper (`shellgate sandbox --record`) writes one
//! row when the confined command exits non-zero or cannot be confined; the
//! policy's sandboxed layer looks the exact call up (session, tool, command
//! bytes, cwd) and, when found, leaves the call to an ordinary ask.
//!
//! The table is created on first use rather than by a schema version bump,
//! so a database shared with an older shellgate keeps opening in both.
//! A failed run stays recorded for the life of the session (ending the
//! session removes it with the session's other state).

use rusqlite::{params, OptionalExtension};

use super::*;

const CREATE: &str = "
CREATE TABLE IF NOT EXISTS sandbox_failures (
    id         INTEGER PRIMARY KEY,
    session    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    command    TEXT NOT NULL,
    cwd        TEXT,
    status     INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sandbox_failures_call
    ON sandbox_failures (session, tool, command);
";

impl StateDb {
    /// Record that the sandboxed run of this exact call failed with exit
    /// `status` (125: the sandbox could not confine it).
    pub fn record_sandbox_failure(
        &self,
        session: &str,
        tool: &str,
        command: &str,
        cwd: Option<&str>,
        status: i32,
    ) -> Result<(), StateError> {
        self.q(self.conn.execute_batch(CREATE))?;
        self.q(self.conn.execute(
            "INSERT INTO sandbox_failures (session, tool, command, cwd, status, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![session, tool, command, cwd, status, now_rfc3339()],
        ))?;
        Ok(())
    }

    /// Whether a sandboxed run of this exact call failed in this session.
    pub fn sandbox_failed(
        &self,
        session: &str,
        tool: &str,
        command: &str,
        cwd: Option<&str>,
    ) -> Result<bool, StateError> {
        let exists: Option<i64> = self.q(self
            .conn
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sandbox_failures'",
                [],
                |r| r.get(0),
            )
            .optional())?;
        if exists.is_none() {
            return Ok(false);
        }
        let found: Option<i64> = self.q(self
            .conn
            .query_row(
                "SELECT 1 FROM sandbox_failures
                 WHERE session = ?1 AND tool = ?2 AND command = ?3 AND cwd IS ?4 LIMIT 1",
                params![session, tool, command, cwd],
                |r| r.get(0),
            )
            .optional())?;
        Ok(found.is_some())
    }

    /// Forget the failed sandboxed runs of a session (when it ends).
    pub(super) fn forget_sandbox_failures(&self, session: &str) -> Result<(), StateError> {
        self.q(self.conn.execute_batch(CREATE))?;
        self.q(self.conn.execute(
            "DELETE FROM sandbox_failures WHERE session = ?1",
            params![session],
        ))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_per_exact_call_and_end_with_the_session() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = StateDb::open(&dir.path().join("state.db")).expect("open");
        // No table yet: nothing failed.
        assert!(!db
            .sandbox_failed("s1", "shell_execute", "make", Some("/p"))
            .expect("query"));
        db.record_sandbox_failure("s1", "shell_execute", "make", Some("/p"), 2)
            .expect("record");
        assert!(db
            .sandbox_failed("s1", "shell_execute", "make", Some("/p"))
            .expect("query"));
        for (s, c, cwd) in [
            ("s2", "make", Some("/p")),
            ("s1", "make all", Some("/p")),
            ("s1", "make", Some("/q")),
            ("s1", "make", None),
        ] {
            assert!(
                !db.sandbox_failed(s, "shell_execute", c, cwd)
                    .expect("query"),
                "{s} {c} {cwd:?}"
            );
        }
        // A database reopened (another process) sees it.
        let again = StateDb::open(&dir.path().join("state.db")).expect("reopen");
        assert!(again
            .sandbox_failed("s1", "shell_execute", "make", Some("/p"))
            .expect("query"));
        db.end_session("s1").expect("end");
        assert!(!again
            .sandbox_failed("s1", "shell_execute", "make", Some("/p"))
            .expect("query"));
    }
}
