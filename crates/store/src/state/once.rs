//! One-time approvals (SPEC §9.1 step 7, §12.1): recorded for one exact
//! call, consumed once, expiring after [`ONCE_TTL_SECS`].

use rusqlite::{params, OptionalExtension};

use super::*;

impl StateDb {
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
        // Cached statements: a connection kept across calls (the approval
        // service's) parses them once.
        self.q(self
            .conn
            .prepare_cached("DELETE FROM once_approvals WHERE created_at < ?1 OR created_at > ?2")
            .and_then(|mut s| s.execute(params![oldest, newest])))?;
        let taken: Option<i64> = self.q(self
            .conn
            .prepare_cached(
                "DELETE FROM once_approvals WHERE id = (
                     SELECT id FROM once_approvals
                     WHERE session = ?1 AND tool = ?2 AND command = ?3 AND cwd IS ?4
                       AND created_at BETWEEN ?5 AND ?6
                     ORDER BY id LIMIT 1)
                 RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(params![session, tool, command, cwd, oldest, newest], |r| {
                    r.get(0)
                })
                .optional()
            }))?;
        Ok(taken.is_some())
    }

    // ----- decision log ---------------------------------------------------
}
