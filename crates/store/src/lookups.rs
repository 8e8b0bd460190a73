//! The policy's [`Lookups`] over the grant file and the state database.

use shellgate_policy::decision::{GrantRef, Lookups};
use shellgate_policy::fs::Fs;
use shellgate_policy::model::{Audience, Os};

use crate::grant_file::{self, Store};
use crate::state::StateDb;

/// A one-time approval consumed: (session, tool, command, cwd).
pub type TakenOnce = (String, String, String, Option<String>);

/// Grants and one-time approvals of one evaluation, borrowed from an open
/// grant-file snapshot and state database.
pub struct StoreLookups<'a> {
    /// Persistent grants (`None`: none apply).
    pub store: Option<&'a Store>,
    /// The state database (`None`: no session grants, no one-time
    /// approvals).
    pub db: Option<&'a StateDb>,
    /// The session whose grants and approvals apply.
    pub session: &'a str,
    /// The user's home directory (expands hand-written `~` grants).
    pub home: &'a str,
    /// Matching semantics (case-insensitive under Windows).
    pub os: Os,
    /// Whether one-time approvals are consumed (false for `decide`).
    pub consume_once: bool,
    /// One-time approvals this evaluation consumed (session, tool, command,
    /// cwd), so that a caller that cannot deliver the answer puts them back.
    pub taken: std::cell::RefCell<Vec<TakenOnce>>,
    /// Where file-system facts come from (the symlink-segment rule).
    pub fs: &'a dyn Fs,
}

impl Lookups for StoreLookups<'_> {
    fn persistent_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef> {
        let g = self
            .store?
            .find(audience, tool, verb, dir, self.home, self.os, self.fs)?;
        Some(GrantRef {
            verb: g.verb,
            directory: g.directory,
        })
    }

    fn session_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef> {
        let db = self.db?;
        let grants = db.session_grants(self.session, audience, tool).ok()?;
        grants
            .into_iter()
            .find(|g| {
                grant_file::grant_covers(
                    &g.verb,
                    g.directory.as_deref(),
                    verb,
                    dir,
                    self.home,
                    self.os,
                    self.fs,
                )
            })
            .map(|g| GrantRef {
                verb: g.verb,
                directory: g.directory,
            })
    }

    fn sandbox_failed(&self, tool: &str, command: &str, cwd: Option<&str>) -> bool {
        match self.db {
            // A database that cannot answer: assume it failed (ask).
            Some(db) => db
                .sandbox_failed(self.session, tool, command, cwd)
                .unwrap_or(true),
            None => false,
        }
    }

    fn take_once(&self, tool: &str, command: &str, cwd: Option<&str>) -> bool {
        if !self.consume_once {
            return false;
        }
        let taken = match self.db {
            Some(db) => db
                .take_once(self.session, tool, command, cwd)
                .unwrap_or(false),
            None => false,
        };
        if taken {
            self.taken.borrow_mut().push((
                self.session.to_string(),
                tool.to_string(),
                command.to_string(),
                cwd.map(str::to_string),
            ));
        }
        taken
    }
}
