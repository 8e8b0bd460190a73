//! The immutable, indexed snapshot of the grant file that evaluations read
//! (readers never lock: writers replace the file atomically).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::Path;

use serde_json::{Map, Value};
use shellgate_policy::fs::Fs;
use shellgate_policy::model::{Audience, Os};

use super::format::{classify, Doc, Verdict};
use super::matching::{candidate_form, fold, root_covers, slot, stored_root, Root};
use super::quarantine::read_locked;
use super::write::lock;
use super::{io_err, Grant, Quarantine, StoreError};

#[derive(Debug, Clone)]
pub(super) struct Indexed {
    grant: Grant,
    root: Root,
}

#[derive(Debug, Clone, Default)]
pub(super) struct ToolIndex {
    /// Entries in file order.
    entries: Vec<Indexed>,
    /// Folded (lower-cased) verb ⇒ positions in `entries`.
    by_verb: HashMap<String, Vec<usize>>,
}

/// Grants of the three known audiences (slot order personal, team, public),
/// each tool's entries in file order.
pub(super) type Tools = [BTreeMap<String, Vec<Grant>>; 3];

/// An immutable, indexed snapshot of the store file.
#[derive(Debug, Clone)]
pub struct Store {
    /// The file's raw `audiences` value (unknown keys included).
    audiences: Value,
    tools: [BTreeMap<String, ToolIndex>; 3],
    len: usize,
}

impl Default for Store {
    fn default() -> Self {
        Store::empty()
    }
}

impl Store {
    /// A store without grants.
    pub fn empty() -> Store {
        Store {
            audiences: Value::Object(Map::new()),
            tools: Default::default(),
            len: 0,
        }
    }

    /// Read the file (§6.2). Missing ⇒ empty store, nothing written. A
    /// pre-v2 or malformed file is moved aside (under the writer lock) and an
    /// empty store is returned together with the [`Quarantine`]. A newer
    /// version is an error and the file is left untouched.
    pub fn load(path: &Path) -> Result<(Store, Option<Quarantine>), StoreError> {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Store::empty(), None)),
            Err(e) => return Err(io_err("read", path, e)),
        };
        match classify(&bytes) {
            Verdict::Ok(doc) => Ok((Store::build(doc), None)),
            Verdict::TooNew(version) => Err(StoreError::TooNew {
                path: path.to_path_buf(),
                version,
            }),
            Verdict::V1 | Verdict::Invalid => {
                // Move it aside under the writer lock; re-read first, the
                // file may have been replaced since.
                let _lock = lock(path)?;
                let (doc, quarantined) = read_locked(path)?;
                Ok((Store::build(doc), quarantined))
            }
        }
    }

    fn build(doc: Doc) -> Store {
        let Doc { mut root, grants } = doc;
        let audiences = match root.remove("audiences") {
            Some(v @ Value::Object(_)) => v,
            _ => Value::Object(Map::new()),
        };
        let mut len = 0;
        let mut tools: [BTreeMap<String, ToolIndex>; 3] = Default::default();
        for (slot_tools, slot_grants) in tools.iter_mut().zip(grants) {
            for (tool, list) in slot_grants {
                let mut index = ToolIndex::default();
                for grant in list {
                    let root = match grant.directory.as_deref() {
                        None => Root::Anywhere,
                        Some(dir) => stored_root(dir),
                    };
                    index
                        .by_verb
                        .entry(fold(&grant.verb).into_owned())
                        .or_default()
                        .push(index.entries.len());
                    index.entries.push(Indexed { grant, root });
                    len += 1;
                }
                slot_tools.insert(tool, index);
            }
        }
        Store {
            audiences,
            tools,
            len,
        }
    }

    /// The grant of `audience`/`tool` that covers the candidate
    /// `(verb, dir)` (§6.3), first in file order. `dir` must be a normalized
    /// absolute directory (`None` = the candidate has no directory, which
    /// only a grant for anywhere covers). `home` expands hand-written `~`
    /// directories; an empty or relative `home` makes those never match.
    /// Cost is independent of grants for other verbs.
    #[allow(clippy::too_many_arguments)]
    pub fn find(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
        home: &str,
        os: Os,
        fs: &dyn Fs,
    ) -> Option<Grant> {
        let index = self.tools.get(slot(audience))?.get(tool)?;
        let positions = index.by_verb.get(fold(verb).as_ref())?;
        let candidate = dir.and_then(candidate_form);
        for &i in positions {
            let Some(entry) = index.entries.get(i) else {
                continue;
            };
            // Positions share the folded verb: equal under Windows semantics.
            if !os.case_insensitive() && entry.grant.verb != verb {
                continue;
            }
            if root_covers(&entry.root, candidate.as_deref(), home, os, fs) {
                return Some(entry.grant.clone());
            }
        }
        None
    }

    /// All grants grouped by audience (personal, team, public) then tool
    /// name (byte order); entries in file order (the CLI sorts for display).
    /// Tools without entries are left out.
    pub fn groups(&self) -> Vec<(Audience, String, Vec<Grant>)> {
        let mut out = Vec::new();
        for (audience, tools) in Audience::ALL.iter().zip(self.tools.iter()) {
            for (tool, index) in tools {
                if index.entries.is_empty() {
                    continue;
                }
                let grants = index.entries.iter().map(|e| e.grant.clone()).collect();
                out.push((*audience, tool.clone(), grants));
            }
        }
        out
    }

    /// The file's raw `audiences` object (for `approvals list --json`),
    /// including keys this program does not interpret.
    pub fn audiences_json(&self) -> &Value {
        &self.audiences
    }

    /// Number of grants in the three known audiences.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
