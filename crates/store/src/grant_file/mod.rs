//! Persistent grant store: `config/tool-approvals.json` (SPEC §6.1–§6.3, §11).
//!
//! The file is shared byte-compatibly with netclaw (version 2):
//!
//! ```json
//! {
//!   "version": 2,
//!   "audiences": {
//!     "personal": {
//!       "shell_execute": [
//!         { "verb": "git remote", "directory": "/home/u/repos/foo", "createdAt": "2026-05-01T12:00:00+00:00" },
//!         { "verb": "freshdesk", "createdAt": "2026-05-01T12:00:00+00:00" }
//!       ]
//!     }
//!   }
//! }
//! ```
//!
//! * Readers ([`Store::load`], [`StoreCache`]) never lock: writers replace the
//!   file atomically, so a reader always sees an old or a new complete file.
//! * Writers ([`add`], [`remove`], [`remove_all_for_tool`]) take an exclusive
//!   advisory lock on `tool-approvals.json.lock`, re-read the file, edit the
//!   parsed JSON document in place (unknown keys survive), write a temporary
//!   sibling, fsync it, rename it over the original and fsync the directory.
//! * A file that cannot be used is moved aside under the writer lock:
//!   pre-v2 shapes to `<file>.v1.bak`, malformed files to `<file>.invalid`
//!   (each replacing an older file of that name). A file whose integer
//!   `version` is greater than 2 is refused and left untouched.

mod cache;
mod format;
mod matching;
mod quarantine;
mod snapshot;
mod write;

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use shellgate_policy::model::Os;

pub use cache::StoreCache;
pub use matching::grant_covers;
pub use quarantine::quarantine_notes;
pub use snapshot::Store;
pub use write::{add, remove, remove_all_for_tool};

use matching::eq_os;
use quarantine::{invalid_note, v1_note};

/// The only schema version this module reads and writes.
pub const STORE_VERSION: u64 = 2;

/// One persistent grant as stored: verb trimmed, directory normalized with
/// [`shellgate_shell::paths::normalize_stored_dir`] (`None` = anywhere; a hand-written `~`
/// stays as written), `createdAt` as found in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub verb: String,
    pub directory: Option<String>,
    pub created_at: Option<String>,
}

impl Grant {
    /// The label shown by `approvals list` and accepted by `revoke`:
    /// `<verb> in <directory>` or `<verb> anywhere`.
    pub fn label(&self) -> String {
        match &self.directory {
            Some(dir) => format!("{} in {}", self.verb, dir),
            None => format!("{} anywhere", self.verb),
        }
    }

    /// §6.1 equality: same verb and same normalized directory; `createdAt`
    /// ignored; case-insensitive under Windows semantics.
    pub fn same_as(&self, verb: &str, directory: Option<&str>, os: Os) -> bool {
        eq_os(&self.verb, verb, os)
            && match (self.directory.as_deref(), directory) {
                (None, None) => true,
                (Some(a), Some(b)) => eq_os(a, b, os),
                _ => false,
            }
    }
}

/// A file that was moved aside while loading or before writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quarantine {
    /// Pre-v2 shape, moved to `<file>.v1.bak`.
    V1Backup(PathBuf),
    /// Malformed file, moved to `<file>.invalid`.
    Invalid(PathBuf),
}

impl Quarantine {
    /// Where the file now lives.
    pub fn path(&self) -> &Path {
        match self {
            Quarantine::V1Backup(p) | Quarantine::Invalid(p) => p,
        }
    }

    /// The line the CLI prints for this quarantine (§11).
    pub fn note(&self) -> String {
        match self {
            Quarantine::V1Backup(p) => v1_note(p),
            Quarantine::Invalid(p) => invalid_note(p),
        }
    }
}

/// Store failures. Every message names the file concerned.
#[derive(thiserror::Error, Debug)]
pub enum StoreError {
    #[error("cannot {action} '{}': {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "'{}' was written by a newer program (version {version}; this program understands version 2); leaving it untouched",
        path.display()
    )]
    TooNew { path: PathBuf, version: u64 },
    #[error("cannot read approvals file '{}' and could not move it aside to '{}': {source}", path.display(), target.display())]
    Quarantine {
        path: PathBuf,
        target: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("refusing to store a grant with an empty {what} in '{}'", path.display())]
    Blank { path: PathBuf, what: &'static str },
}

/// Result of [`add`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddReport {
    /// Grants written by this call (with their new `createdAt`).
    pub added: Vec<Grant>,
    /// Requested grants that were already stored (as stored, `createdAt` kept).
    pub already_present: Vec<Grant>,
    /// Set when the previous file had to be moved aside first.
    pub quarantined: Option<Quarantine>,
}

pub(super) fn io_err(action: &'static str, path: &Path, source: io::Error) -> StoreError {
    StoreError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// `<path><suffix>` (e.g. `tool-approvals.json.lock`).
pub(super) fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

pub(super) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests;
