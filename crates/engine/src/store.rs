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

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use fs2::FileExt;
use serde_json::{Map, Value};

use crate::model::{Audience, Os};
use shellgate_shell::paths;

/// The only schema version this module reads and writes.
pub const STORE_VERSION: u64 = 2;

/// One persistent grant as stored: verb trimmed, directory normalized with
/// [`paths::normalize_stored_dir`] (`None` = anywhere; a hand-written `~`
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

// ---------------------------------------------------------------------------
// Immutable snapshot + index
// ---------------------------------------------------------------------------

/// Where a stored grant applies, prepared for matching at load time.
#[derive(Debug, Clone)]
enum Root {
    /// No directory: anywhere.
    Anywhere,
    /// Absolute directory, lexically normalized.
    Fixed(String),
    /// `~` or `~/rest` written by hand: the suffix (`""` or `"/rest"`),
    /// expanded with the caller's home directory when matching.
    Home(String),
    /// A directory that can never contain a candidate (relative, `~user`…).
    Never,
}

#[derive(Debug, Clone)]
struct Indexed {
    grant: Grant,
    root: Root,
}

#[derive(Debug, Clone, Default)]
struct ToolIndex {
    /// Entries in file order.
    entries: Vec<Indexed>,
    /// Folded (lower-cased) verb ⇒ positions in `entries`.
    by_verb: HashMap<String, Vec<usize>>,
}

/// Grants of the three known audiences (slot order personal, team, public),
/// each tool's entries in file order.
type Tools = [BTreeMap<String, Vec<Grant>>; 3];

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
    pub fn find(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
        home: &str,
        os: Os,
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
            if root_covers(&entry.root, candidate.as_deref(), home, os) {
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

/// Slot of an audience in `Audience::ALL` order (personal, team, public).
fn slot(audience: Audience) -> usize {
    match audience {
        Audience::Personal => 0,
        Audience::Team => 1,
        Audience::Public => 2,
    }
}

/// Lower-case form used as index key (allocation only when needed).
fn fold(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        Cow::Owned(s.to_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

fn eq_os(a: &str, b: &str, os: Os) -> bool {
    if os.case_insensitive() {
        a == b || fold(a) == fold(b)
    } else {
        a == b
    }
}

/// Prepare a stored (already trimmed) directory for matching.
fn stored_root(dir: &str) -> Root {
    if dir == "~" {
        return Root::Home(String::new());
    }
    if let Some(rest) = dir.strip_prefix("~/") {
        return Root::Home(format!("/{rest}"));
    }
    match absolute_form(dir) {
        Some(d) => Root::Fixed(d),
        None => Root::Never,
    }
}

/// Lexically normalized form of an absolute directory: `/…` or a drive path
/// (`C:\…`, separators turned into `/`, drive root as `C:`). `None` for
/// anything relative.
fn absolute_form(dir: &str) -> Option<String> {
    if dir.starts_with('/') {
        return Some(paths::normalize(dir));
    }
    let drive = dir.get(..2)?;
    let mut chars = drive.chars();
    let (letter, colon) = (chars.next()?, chars.next()?);
    if !letter.is_ascii_alphabetic() || colon != ':' {
        return None;
    }
    let rest = dir.get(2..)?.replace('\\', "/");
    if !rest.starts_with('/') {
        return None; // `C:foo` is relative to the drive's current directory.
    }
    let norm = paths::normalize(&rest);
    Some(if norm == "/" {
        drive.to_string()
    } else {
        format!("{drive}{norm}")
    })
}

/// The candidate directory in the same form as stored roots; `None` when it
/// is not absolute (then only grants for anywhere apply).
fn candidate_form(dir: &str) -> Option<Cow<'_, str>> {
    if dir.starts_with('/') {
        let tidy = !(dir.contains("//")
            || dir.contains("/./")
            || dir.contains("/../")
            || dir.ends_with("/.")
            || dir.ends_with("/..")
            || (dir.len() > 1 && dir.ends_with('/')));
        if tidy {
            return Some(Cow::Borrowed(dir));
        }
    }
    absolute_form(dir).map(Cow::Owned)
}

fn root_covers(root: &Root, candidate: Option<&str>, home: &str, os: Os) -> bool {
    match root {
        Root::Anywhere => true,
        Root::Never => false,
        Root::Fixed(r) => candidate.is_some_and(|c| contains_os(r, c, os)),
        Root::Home(rest) => {
            let Some(c) = candidate else {
                return false;
            };
            // An unknown home must never turn `~/x` into `/x`.
            if absolute_form(home.trim()).is_none() {
                return false;
            }
            match absolute_form(&format!("{}{}", home.trim(), rest)) {
                Some(r) => contains_os(&r, c, os),
                None => false,
            }
        }
    }
}

/// Boundary-safe containment plus the symlink-segment rule (§5.4);
/// case-insensitive under Windows semantics.
fn contains_os(root: &str, child: &str, os: Os) -> bool {
    if !os.case_insensitive() {
        return crate::fs::contains(root, child);
    }
    // Spell the root as the child does, then apply the exact rule. A case
    // mapping that changes byte lengths fails closed.
    match child.get(..root.len()) {
        Some(prefix) if eq_os(prefix, root, os) => crate::fs::contains(prefix, child),
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// Reading and validating the file
// ---------------------------------------------------------------------------

/// A valid version-2 document: the root object (edited in place by writers)
/// and the grants it holds.
struct Doc {
    root: Map<String, Value>,
    grants: Tools,
}

impl Doc {
    fn new_empty() -> Doc {
        let mut root = Map::new();
        root.insert("version".to_string(), Value::from(STORE_VERSION));
        root.insert("audiences".to_string(), Value::Object(Map::new()));
        Doc {
            root,
            grants: Default::default(),
        }
    }
}

enum Verdict {
    Ok(Doc),
    /// Integer version above 2.
    TooNew(u64),
    /// Valid JSON of a pre-v2 shape ⇒ `.v1.bak`.
    V1,
    /// Not JSON, or a v2 document not fitting the schema ⇒ `.invalid`.
    Invalid,
}

fn classify(bytes: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Verdict::Invalid;
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(clean) = strip_comments_and_trailing_commas(text) else {
        return Verdict::Invalid;
    };
    let Ok(value) = serde_json::from_str::<Value>(&clean) else {
        return Verdict::Invalid;
    };
    let Value::Object(root) = value else {
        return Verdict::V1;
    };
    match root.get("version").and_then(Value::as_u64) {
        Some(v) if v > STORE_VERSION => return Verdict::TooNew(v),
        Some(STORE_VERSION) => {}
        // Missing, not an integer, negative or older.
        _ => return Verdict::V1,
    }
    match read_grants(&root) {
        Some(grants) => Verdict::Ok(Doc { root, grants }),
        None => Verdict::Invalid,
    }
}

/// Validate the v2 schema and collect the grants of the known audiences.
/// `None` when the document does not fit. A missing `audiences` is an empty
/// store; keys other than the three audiences are kept but not interpreted.
fn read_grants(root: &Map<String, Value>) -> Option<Tools> {
    let mut tools: Tools = Default::default();
    let audiences = match root.get("audiences") {
        None => return Some(tools),
        Some(Value::Object(m)) => m,
        Some(_) => return None,
    };
    for (key, value) in audiences {
        let Some(audience) = Audience::parse(key) else {
            continue;
        };
        let Value::Object(tool_map) = value else {
            return None;
        };
        let slot_tools = tools.get_mut(slot(audience))?;
        for (tool, list) in tool_map {
            let Value::Array(entries) = list else {
                return None;
            };
            let grants = entries
                .iter()
                .map(entry_grant)
                .collect::<Option<Vec<_>>>()?;
            slot_tools.insert(tool.clone(), grants);
        }
    }
    Some(tools)
}

/// One entry object ⇒ grant; `None` when it does not fit the schema.
fn entry_grant(value: &Value) -> Option<Grant> {
    let Value::Object(entry) = value else {
        return None;
    };
    let verb = match entry.get("verb") {
        Some(Value::String(v)) if !v.trim().is_empty() => v.trim().to_string(),
        _ => return None,
    };
    let directory = match entry.get("directory") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) => paths::normalize_stored_dir(d),
        Some(_) => return None,
    };
    let created_at = match entry.get("createdAt") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c.clone()),
        Some(_) => return None,
    };
    Some(Grant {
        verb,
        directory,
        created_at,
    })
}

/// Remove `//` and `/* */` comments and trailing commas (before `]`/`}`)
/// outside string literals. `None` for an unterminated block comment. A
/// comma directly after `[`, `{` or another comma is kept so the JSON
/// parser still rejects `[,]` and `[1,,]`.
fn strip_comments_and_trailing_commas(src: &str) -> Option<String> {
    let bytes = src.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut pending_comma = false;
    let mut last_significant: u8 = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                // Line comment: drop up to (not including) the newline.
                while let Some(&c) = bytes.get(i) {
                    if c == b'\n' {
                        break;
                    }
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let body = bytes.get(i + 2..).unwrap_or_default();
                let end = body.windows(2).position(|w| w == b"*/")?;
                i += 2 + end + 2;
                out.push(b' ');
                continue;
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                out.push(b);
                i += 1;
                continue;
            }
            _ => {}
        }
        // A significant byte.
        if pending_comma {
            pending_comma = false;
            let closes = b == b']' || b == b'}';
            let after_value = !matches!(last_significant, b'[' | b'{' | b',' | 0);
            if !(closes && after_value) {
                out.push(b',');
                last_significant = b',';
            }
        }
        if b == b',' {
            pending_comma = true;
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
        }
        out.push(b);
        last_significant = b;
        i += 1;
    }
    if pending_comma {
        out.push(b',');
    }
    // Only whole ASCII-delimited spans were removed: still UTF-8.
    String::from_utf8(out).ok()
}

// ---------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------

fn io_err(action: &'static str, path: &Path, source: io::Error) -> StoreError {
    StoreError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// `<path><suffix>` (e.g. `tool-approvals.json.lock`).
fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Exclusive advisory lock on `<path>.lock`, released on drop.
struct LockGuard(File);

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.0);
    }
}

fn lock(path: &Path) -> Result<LockGuard, StoreError> {
    let lock_path = suffixed(path, ".lock");
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| io_err("open lock file", &lock_path, e))?;
    FileExt::lock_exclusive(&file).map_err(|e| io_err("lock", &lock_path, e))?;
    Ok(LockGuard(file))
}

/// Read the file while holding the lock, moving an unusable file aside.
fn read_locked(path: &Path) -> Result<(Doc, Option<Quarantine>), StoreError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Doc::new_empty(), None)),
        Err(e) => return Err(io_err("read", path, e)),
    };
    match classify(&bytes) {
        Verdict::Ok(doc) => Ok((doc, None)),
        Verdict::TooNew(version) => Err(StoreError::TooNew {
            path: path.to_path_buf(),
            version,
        }),
        Verdict::V1 => {
            let target = suffixed(path, ".v1.bak");
            move_aside(path, &target)?;
            Ok((Doc::new_empty(), Some(Quarantine::V1Backup(target))))
        }
        Verdict::Invalid => {
            let target = suffixed(path, ".invalid");
            move_aside(path, &target)?;
            Ok((Doc::new_empty(), Some(Quarantine::Invalid(target))))
        }
    }
}

/// Rename `path` to `target`, replacing an older file there.
fn move_aside(path: &Path, target: &Path) -> Result<(), StoreError> {
    let result = fs::rename(path, target).or_else(|first| {
        // Some platforms refuse to rename over an existing file.
        if fs::symlink_metadata(target).is_ok() {
            fs::remove_file(target).and_then(|()| fs::rename(path, target))
        } else {
            Err(first)
        }
    });
    result.map_err(|source| StoreError::Quarantine {
        path: path.to_path_buf(),
        target: target.to_path_buf(),
        source,
    })?;
    sync_dir(parent_dir(path));
    Ok(())
}

/// Lock, re-read (quarantining as needed), let `edit` change the root object
/// and report whether it did, and write the result atomically if so.
fn modify<R>(
    path: &Path,
    edit: impl FnOnce(&mut Map<String, Value>) -> (R, bool),
) -> Result<(R, Option<Quarantine>), StoreError> {
    let dir = parent_dir(path);
    fs::create_dir_all(dir).map_err(|e| io_err("create directory", dir, e))?;
    let _lock = lock(path)?;
    let (mut doc, quarantined) = read_locked(path)?;
    let (result, changed) = edit(&mut doc.root);
    if changed {
        normalize_entries(&mut doc.root);
        write_atomic(path, &doc.root)?;
    }
    Ok((result, quarantined))
}

/// Bring the known fields of every entry of the three audiences into the
/// written form (§6.1): verb trimmed, directory normalized, `null` and
/// empty fields omitted. Other keys and their order are left alone.
fn normalize_entries(root: &mut Map<String, Value>) {
    let Some(Value::Object(audiences)) = root.get_mut("audiences") else {
        return;
    };
    for audience in Audience::ALL {
        let Some(Value::Object(tools)) = audiences.get_mut(audience.as_str()) else {
            continue;
        };
        for list in tools.values_mut() {
            let Value::Array(list) = list else {
                continue;
            };
            for entry in list.iter_mut() {
                let Value::Object(entry) = entry else {
                    continue;
                };
                if let Some(Value::String(verb)) = entry.get_mut("verb") {
                    if verb.trim().len() != verb.len() {
                        *verb = verb.trim().to_string();
                    }
                }
                let directory = match entry.get_mut("directory") {
                    None => None,
                    Some(Value::String(d)) => match paths::normalize_stored_dir(d) {
                        Some(n) => {
                            if n != *d {
                                *d = n;
                            }
                            Some(true)
                        }
                        None => Some(false),
                    },
                    Some(Value::Null) => Some(false),
                    Some(_) => Some(true),
                };
                if directory == Some(false) {
                    entry.shift_remove("directory");
                }
                if matches!(entry.get("createdAt"), Some(Value::Null)) {
                    entry.shift_remove("createdAt");
                }
            }
        }
    }
}

/// Write the document to a temporary sibling, fsync it, rename it over
/// `path`, then fsync the directory.
fn write_atomic(path: &Path, root: &Map<String, Value>) -> Result<(), StoreError> {
    let mut text = serde_json::to_string_pretty(root)
        .map_err(|e| io_err("serialize", path, io::Error::other(e)))?;
    text.push('\n');
    let tmp = suffixed(path, ".tmp");
    // Only the lock holder uses this name; a leftover from a crash is stale.
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err("remove stale temporary file", &tmp, e)),
    }
    let written = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        if let Ok(meta) = fs::metadata(path) {
            // Keep the original's permissions (the file may be private).
            let _ = file.set_permissions(meta.permissions());
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io_err("write", &tmp, e));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(io_err("replace", path, e));
    }
    sync_dir(parent_dir(path));
    Ok(())
}

/// Make a rename durable. Best effort: the new content is already in place,
/// and some platforms cannot open directories.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// `createdAt` for a new grant: UTC, seconds, `+00:00`.
fn now_created_at() -> String {
    let t = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}+00:00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// The object at `map[key]`, created (or replacing a non-object) if needed.
fn child_object<'a>(map: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let slot = map
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(m) => m,
        _ => unreachable!("the slot was just made an object"),
    }
}

/// Add grants `(verb, directory)` for `audience`/`tool`, normalizing them
/// (§6.1). Grants already present (§6.1 equality) are left alone, keeping
/// their `createdAt`; if nothing is new the file is not rewritten.
pub fn add(
    path: &Path,
    audience: Audience,
    tool: &str,
    entries: &[(String, Option<String>)],
    os: Os,
) -> Result<AddReport, StoreError> {
    let tool = tool.trim();
    if tool.is_empty() {
        return Err(StoreError::Blank {
            path: path.to_path_buf(),
            what: "tool name",
        });
    }
    let mut wanted = Vec::with_capacity(entries.len());
    for (verb, dir) in entries {
        let verb = verb.trim();
        if verb.is_empty() {
            return Err(StoreError::Blank {
                path: path.to_path_buf(),
                what: "verb",
            });
        }
        let dir = dir.as_deref().and_then(paths::normalize_stored_dir);
        wanted.push((verb.to_string(), dir));
    }

    let ((added, already_present), quarantined) = modify(path, |root| {
        let mut existing: Vec<Grant> = root
            .get("audiences")
            .and_then(|a| a.get(audience.as_str()))
            .and_then(|t| t.get(tool))
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(entry_grant).collect())
            .unwrap_or_default();
        let mut added = Vec::new();
        let mut present = Vec::new();
        let created_at = now_created_at();
        for (verb, dir) in wanted {
            if let Some(g) = existing
                .iter()
                .find(|g| g.same_as(&verb, dir.as_deref(), os))
            {
                present.push(g.clone());
                continue;
            }
            let grant = Grant {
                verb,
                directory: dir,
                created_at: Some(created_at.clone()),
            };
            existing.push(grant.clone());
            added.push(grant);
        }
        if added.is_empty() {
            return ((added, present), false);
        }
        let audiences = child_object(root, "audiences");
        let tools = child_object(audiences, audience.as_str());
        let list = tools
            .entry(tool.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        if let Value::Array(list) = list {
            list.extend(added.iter().map(grant_json));
        }
        ((added, present), true)
    })?;
    Ok(AddReport {
        added,
        already_present,
        quarantined,
    })
}

/// The entry object written for a new grant (no `directory` key for anywhere).
fn grant_json(g: &Grant) -> Value {
    let mut m = Map::new();
    m.insert("verb".to_string(), Value::String(g.verb.clone()));
    if let Some(d) = &g.directory {
        m.insert("directory".to_string(), Value::String(d.clone()));
    }
    if let Some(c) = &g.created_at {
        m.insert("createdAt".to_string(), Value::String(c.clone()));
    }
    Value::Object(m)
}

/// Remove the grants of `audience`/`tool` for which `pred` holds and return
/// them (as stored). An emptied tool list, and then an emptied audience,
/// are removed. Nothing matched ⇒ the file is not rewritten.
pub fn remove<F: Fn(&Grant) -> bool>(
    path: &Path,
    audience: Audience,
    tool: &str,
    pred: F,
) -> Result<Vec<Grant>, StoreError> {
    let (removed, _) = modify(path, |root| {
        let mut removed = Vec::new();
        let Some(Value::Object(audiences)) = root.get_mut("audiences") else {
            return (removed, false);
        };
        let Some(Value::Object(tools)) = audiences.get_mut(audience.as_str()) else {
            return (removed, false);
        };
        let Some(Value::Array(list)) = tools.get_mut(tool) else {
            return (removed, false);
        };
        list.retain(|v| match entry_grant(v) {
            Some(g) if pred(&g) => {
                removed.push(g);
                false
            }
            _ => true,
        });
        if removed.is_empty() {
            return (removed, false);
        }
        if list.is_empty() {
            tools.shift_remove(tool);
        }
        if tools.is_empty() {
            audiences.shift_remove(audience.as_str());
        }
        (removed, true)
    })?;
    Ok(removed)
}

/// Remove every grant of `tool` in all three audiences; returns how many
/// entries were removed. Emptied audiences are removed.
pub fn remove_all_for_tool(path: &Path, tool: &str) -> Result<usize, StoreError> {
    let (count, _) = modify(path, |root| {
        let Some(Value::Object(audiences)) = root.get_mut("audiences") else {
            return (0, false);
        };
        let mut count = 0;
        let mut changed = false;
        for audience in Audience::ALL {
            let Some(Value::Object(tools)) = audiences.get_mut(audience.as_str()) else {
                continue;
            };
            let Some(list) = tools.shift_remove(tool) else {
                continue;
            };
            count += list.as_array().map_or(0, Vec::len);
            changed = true;
            if tools.is_empty() {
                audiences.shift_remove(audience.as_str());
            }
        }
        (count, changed)
    })?;
    Ok(count)
}

// ---------------------------------------------------------------------------
// Quarantine notes
// ---------------------------------------------------------------------------

fn v1_note(backup: &Path) -> String {
    format!(
        "Note: Your previous approvals were quarantined to '{}' during the v2 schema upgrade.",
        backup.display()
    )
}

fn invalid_note(invalid: &Path) -> String {
    format!(
        "Warning: A malformed approvals file was quarantined to '{}'.",
        invalid.display()
    )
}

/// The §11 note lines for quarantined files that exist next to `path`
/// (`<path>.v1.bak`, then `<path>.invalid`).
pub fn quarantine_notes(path: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let backup = suffixed(path, ".v1.bak");
    if fs::symlink_metadata(&backup).is_ok() {
        notes.push(v1_note(&backup));
    }
    let invalid = suffixed(path, ".invalid");
    if fs::symlink_metadata(&invalid).is_ok() {
        notes.push(invalid_note(&invalid));
    }
    notes
}

// ---------------------------------------------------------------------------
// Cache for long-lived processes
// ---------------------------------------------------------------------------

/// Identity of the file on disk; any change triggers a reload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
    device: u64,
    ctime: (i64, i64),
}

fn stamp(path: &Path) -> Result<Option<Stamp>, StoreError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("inspect", path, e)),
    };
    #[cfg(unix)]
    let (inode, device, ctime) = {
        use std::os::unix::fs::MetadataExt;
        (meta.ino(), meta.dev(), (meta.ctime(), meta.ctime_nsec()))
    };
    #[cfg(not(unix))]
    let (inode, device, ctime) = (0, 0, (0, 0));
    Ok(Some(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode,
        device,
        ctime,
    }))
}

/// A [`Store`] that re-reads the file only when its modification time,
/// size, inode (or change time) differ from the last load — for
/// `check --batch` and daemons, which must still see edits (§6.2).
#[derive(Debug)]
pub struct StoreCache {
    path: PathBuf,
    /// `None` = never loaded; `Some(None)` = file was missing.
    stamp: Option<Option<Stamp>>,
    store: Store,
}

impl StoreCache {
    pub fn new(path: impl Into<PathBuf>) -> StoreCache {
        StoreCache {
            path: path.into(),
            stamp: None,
            store: Store::empty(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The current snapshot, reloaded if the file changed. Errors are not
    /// cached: the next call tries again.
    pub fn get(&mut self) -> Result<&Store, StoreError> {
        let now = stamp(&self.path)?;
        if self.stamp != Some(now) {
            let (store, _) = Store::load(&self.path)?;
            self.store = store;
            self.stamp = Some(now);
        }
        Ok(&self.store)
    }
}

/// Whether a grant `(grant_verb, grant_dir)` covers the candidate
/// `(verb, dir)` with exactly the §6.3 rules used for the JSON store (used
/// for session grants, which live elsewhere but match the same way).
pub fn grant_covers(
    grant_verb: &str,
    grant_dir: Option<&str>,
    verb: &str,
    dir: Option<&str>,
    home: &str,
    os: Os,
) -> bool {
    if !eq_os(grant_verb, verb, os) {
        return false;
    }
    let root = match grant_dir.and_then(shellgate_shell::paths::normalize_stored_dir) {
        None => Root::Anywhere,
        Some(d) => stored_root(&d),
    };
    let candidate = dir.and_then(candidate_form);
    root_covers(&root, candidate.as_deref(), home, os)
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn file_in(dir: &tempfile::TempDir) -> PathBuf {
        dir.path().join("config").join("tool-approvals.json")
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn one(verb: &str, dir: Option<&str>) -> Vec<(String, Option<String>)> {
        vec![(verb.to_string(), dir.map(str::to_string))]
    }

    const NETCLAW: &str = r#"// written by netclaw
{
  "version": 2, // schema
  "owner": {"name": "u", "tags": ["a", "b",],},
  "audiences": {
    "personal": {
      "shell_execute": [
        { "verb": "git remote", "directory": "/home/u/repos/foo/", "createdAt": "2026-05-01T12:00:00+00:00", "note": "kept" },
        /* global grant */
        { "verb": "freshdesk", "directory": null, "createdAt": "2026-05-01T12:00:00+00:00" },
        { "verb": "echo", "directory": "   " },
        { "verb": "url", "directory": "http://x//y" },
      ],
    },
    "family": { "x": 1 },
  },
}
"#;

    #[test]
    fn netclaw_file_is_read_matched_and_written_back() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(&path, NETCLAW);
        let (store, q) = Store::load(&path).unwrap();
        assert!(q.is_none());
        assert_eq!(store.len(), 4);
        let find = |verb: &str, dir: Option<&str>| {
            store.find(
                Audience::Personal,
                "shell_execute",
                verb,
                dir,
                "/home/u",
                Os::Linux,
            )
        };
        let g = find("git remote", Some("/home/u/repos/foo/sub")).unwrap();
        assert_eq!(g.directory.as_deref(), Some("/home/u/repos/foo"));
        assert_eq!(g.created_at.as_deref(), Some("2026-05-01T12:00:00+00:00"));
        assert!(find("git remote", Some("/home/u/repos/foobar")).is_none());
        assert!(find("git remote", None).is_none());
        assert!(find("git", Some("/home/u/repos/foo")).is_none());
        assert_eq!(find("freshdesk", None).unwrap().directory, None);
        assert!(find("freshdesk", Some("/anywhere")).is_some());
        assert!(
            find("echo", Some("/x")).is_some(),
            "blank directory = anywhere"
        );
        assert!(
            find("url", Some("/y")).is_none(),
            "relative directory never matches"
        );
        assert!(store
            .find(
                Audience::Team,
                "shell_execute",
                "freshdesk",
                None,
                "/home/u",
                Os::Linux
            )
            .is_none());
        assert!(store.audiences_json().get("family").is_some());

        let report = add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one(" ls ", None),
            Os::Linux,
        )
        .unwrap();
        assert_eq!(report.added.len(), 1);
        assert_eq!(report.added[0].verb, "ls");
        let created = report.added[0].created_at.clone().unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let expected = format!(
            r#"{{
  "version": 2,
  "owner": {{
    "name": "u",
    "tags": [
      "a",
      "b"
    ]
  }},
  "audiences": {{
    "personal": {{
      "shell_execute": [
        {{
          "verb": "git remote",
          "directory": "/home/u/repos/foo",
          "createdAt": "2026-05-01T12:00:00+00:00",
          "note": "kept"
        }},
        {{
          "verb": "freshdesk",
          "createdAt": "2026-05-01T12:00:00+00:00"
        }},
        {{
          "verb": "echo"
        }},
        {{
          "verb": "url",
          "directory": "http://x//y"
        }},
        {{
          "verb": "ls",
          "createdAt": "{created}"
        }}
      ]
    }},
    "family": {{
      "x": 1
    }}
  }}
}}
"#
        );
        assert_eq!(text, expected);
        // createdAt: UTC, seconds, +00:00.
        assert_eq!(created.len(), "2026-05-01T12:00:00+00:00".len());
        assert!(created.ends_with("+00:00") && created.as_bytes()[10] == b'T');
        // The rewritten file reads back the same.
        let (again, _) = Store::load(&path).unwrap();
        assert_eq!(again.len(), 5);
        assert_eq!(again.groups()[0].2.last().unwrap().label(), "ls anywhere");
    }

    #[test]
    fn new_file_shape_and_directory_normalization() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        let entries = vec![
            ("git push".to_string(), Some(" /home/u/p/ ".to_string())),
            ("make".to_string(), Some("".to_string())),
            ("dir".to_string(), Some("/".to_string())),
        ];
        add(&path, Audience::Team, "shell_execute", &entries, Os::Linux).unwrap();
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let list = &v["audiences"]["team"]["shell_execute"];
        assert_eq!(v["version"], 2);
        assert_eq!(list[0]["directory"], "/home/u/p");
        assert!(list[1].get("directory").is_none());
        assert_eq!(list[2]["directory"], "/");
        assert!(fs::read_to_string(&path)
            .unwrap()
            .starts_with("{\n  \"version\": 2,\n  \"audiences\""));
        assert!(!suffixed(&path, ".tmp").exists());
    }

    #[test]
    fn jsonc_preprocessor_respects_strings() {
        let src =
            r#"{"a": "x // not a comment", "b": "/* nor this */", "c": "q\"//,]", "d": [1, 2,],}"#;
        let clean = strip_comments_and_trailing_commas(src).unwrap();
        let v: Value = serde_json::from_str(&clean).unwrap();
        assert_eq!(v["a"], "x // not a comment");
        assert_eq!(v["b"], "/* nor this */");
        assert_eq!(v["c"], "q\"//,]");
        assert_eq!(v["d"], serde_json::json!([1, 2]));
        for bad in ["[,]", "[1,,]", "{,}", "[1 /* open", "1/*x*/2"] {
            let ok = strip_comments_and_trailing_commas(bad)
                .and_then(|s| serde_json::from_str::<Value>(&s).ok())
                .is_some();
            assert!(!ok, "{bad} must stay invalid");
        }
    }

    #[test]
    fn pre_v2_shapes_go_to_v1_bak() {
        for text in [
            "[1, 2]",
            r#"{"approvals": []}"#,
            r#"{"version": "2", "audiences": {}}"#,
            r#"{"version": 2.5, "audiences": {}}"#,
            r#"{"version": 1, "audiences": {}}"#,
        ] {
            let t = tempfile::tempdir().unwrap();
            let path = file_in(&t);
            write(&path, "old backup");
            let bak = suffixed(&path, ".v1.bak");
            fs::write(&bak, "older").unwrap();
            write(&path, text);
            let (store, q) = Store::load(&path).unwrap();
            assert!(store.is_empty());
            assert_eq!(q, Some(Quarantine::V1Backup(bak.clone())), "{text}");
            assert!(!path.exists());
            assert_eq!(fs::read_to_string(&bak).unwrap(), text);
            let notes = quarantine_notes(&path);
            assert_eq!(
                notes,
                vec![format!(
                    "Note: Your previous approvals were quarantined to '{}' during the v2 schema upgrade.",
                    bak.display()
                )]
            );
            assert_eq!(q.unwrap().note(), notes[0]);
        }
    }

    #[test]
    fn malformed_files_go_to_invalid() {
        for text in [
            "{ not json",
            "",
            r#"{"version": 2, "audiences": []}"#,
            r#"{"version": 2, "audiences": {"personal": []}}"#,
            r#"{"version": 2, "audiences": {"personal": {"shell_execute": {}}}}"#,
            r#"{"version": 2, "audiences": {"personal": {"shell_execute": ["ls"]}}}"#,
            r#"{"version": 2, "audiences": {"personal": {"shell_execute": [{"directory": "/x"}]}}}"#,
            r#"{"version": 2, "audiences": {"personal": {"shell_execute": [{"verb": "  "}]}}}"#,
            r#"{"version": 2, "audiences": {"personal": {"shell_execute": [{"verb": 3}]}}}"#,
            r#"{"version": 2, "audiences": {"team": {"t": [{"verb": "a", "directory": 1}]}}}"#,
            r#"{"version": 2, "audiences": {"team": {"t": [{"verb": "a", "createdAt": 5}]}}}"#,
        ] {
            let t = tempfile::tempdir().unwrap();
            let path = file_in(&t);
            write(&path, text);
            let (store, q) = Store::load(&path).unwrap();
            let invalid = suffixed(&path, ".invalid");
            assert!(store.is_empty());
            assert_eq!(q, Some(Quarantine::Invalid(invalid.clone())), "{text}");
            assert_eq!(fs::read_to_string(&invalid).unwrap(), text);
            assert_eq!(
                quarantine_notes(&path),
                vec![format!(
                    "Warning: A malformed approvals file was quarantined to '{}'.",
                    invalid.display()
                )]
            );
        }
        // A writer quarantines too, then writes a fresh file.
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(&path, "garbage");
        let report = add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one("ls", None),
            Os::Linux,
        )
        .unwrap();
        assert!(matches!(report.quarantined, Some(Quarantine::Invalid(_))));
        assert_eq!(Store::load(&path).unwrap().0.len(), 1);
        // A missing file: empty, nothing written, no notes.
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        let (store, q) = Store::load(&path).unwrap();
        assert!(store.is_empty() && q.is_none() && !path.exists());
        assert!(quarantine_notes(&path).is_empty());
        // A v2 file without audiences is an empty store.
        write(&path, r#"{"version": 2}"#);
        assert!(Store::load(&path).unwrap().0.is_empty());
        assert!(path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn failed_quarantine_is_an_error_naming_the_file() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(&path, "garbage");
        // A directory in the way of the target makes the rename fail.
        fs::create_dir(suffixed(&path, ".invalid")).unwrap();
        fs::write(suffixed(&path, ".invalid").join("x"), "x").unwrap();
        let err = Store::load(&path).unwrap_err();
        assert!(matches!(err, StoreError::Quarantine { .. }));
        assert!(err.to_string().contains("tool-approvals.json"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "garbage");
    }

    #[test]
    fn newer_version_is_refused_and_untouched() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        let text = r#"{"version": 3, "audiences": "whatever"}"#;
        write(&path, text);
        let err = Store::load(&path).unwrap_err();
        assert!(
            err.to_string().contains("written by a newer program"),
            "{err}"
        );
        assert!(err.to_string().contains("tool-approvals.json"), "{err}");
        let err = add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one("ls", None),
            Os::Linux,
        )
        .unwrap_err();
        assert!(matches!(err, StoreError::TooNew { version: 3, .. }));
        assert!(remove(&path, Audience::Personal, "shell_execute", |_| true).is_err());
        assert!(StoreCache::new(&path).get().is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        assert!(quarantine_notes(&path).is_empty());
    }

    #[test]
    fn containment_is_boundary_safe() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one("cat", Some("/home/u")),
            Os::Linux,
        )
        .unwrap();
        let (s, _) = Store::load(&path).unwrap();
        let f = |d: &str| {
            s.find(
                Audience::Personal,
                "shell_execute",
                "cat",
                Some(d),
                "/home/u",
                Os::Linux,
            )
        };
        assert!(f("/home/u").is_some());
        assert!(f("/home/u/x/y").is_some());
        assert!(f("/home/usersecret").is_none());
        assert!(f("/home").is_none());
        assert!(f("/home/u/../usersecret").is_none());
        assert!(s
            .find(
                Audience::Personal,
                "shell_execute",
                "Cat",
                Some("/home/u"),
                "",
                Os::Linux
            )
            .is_none());
    }

    #[cfg(unix)]
    #[test]
    fn symlink_segment_breaks_a_folder_grant() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("link")).unwrap();
        let root = root.to_str().unwrap().to_string();
        let path = file_in(&t);
        add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one("rm", Some(&root)),
            Os::Linux,
        )
        .unwrap();
        let (s, _) = Store::load(&path).unwrap();
        let f = |d: &str| {
            s.find(
                Audience::Personal,
                "shell_execute",
                "rm",
                Some(d),
                "/nonexistent",
                Os::Linux,
            )
        };
        assert!(f(&format!("{root}/real")).is_some());
        assert!(f(&format!("{root}/link")).is_none());
        assert!(f(&format!("{root}/link/passwd")).is_none());
    }

    #[test]
    fn tilde_directories_expand_with_the_callers_home() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(
            &path,
            r#"{"version": 2, "audiences": {"personal": {"shell_execute": [
                {"verb": "npm test", "directory": "~/repos/"},
                {"verb": "ls", "directory": "~"},
                {"verb": "cat", "directory": "~other/x"}
            ]}}}"#,
        );
        let (s, _) = Store::load(&path).unwrap();
        let f = |verb: &str, d: &str, home: &str| {
            s.find(
                Audience::Personal,
                "shell_execute",
                verb,
                Some(d),
                home,
                Os::Linux,
            )
        };
        let g = f("npm test", "/home/u/repos/app", "/home/u").unwrap();
        assert_eq!(g.directory.as_deref(), Some("~/repos"));
        assert!(f("npm test", "/home/u/repos", "/home/u/").is_some());
        assert!(f("npm test", "/home/u/reposx", "/home/u").is_none());
        assert!(f("npm test", "/home/v/repos", "/home/u").is_none());
        assert!(f("ls", "/home/u/a", "/home/u").is_some());
        assert!(f("ls", "/etc", "/home/u").is_none());
        // Unknown home: never matches (must not become `/repos` or `/`).
        assert!(f("npm test", "/repos", "").is_none());
        assert!(f("ls", "/etc", "").is_none());
        assert!(f("ls", "/etc", "relative").is_none());
        assert!(f("cat", "/home/other/x", "/home/u").is_none());
    }

    #[test]
    fn windows_semantics_are_case_insensitive() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        let entries = vec![
            (
                "Get-Item".to_string(),
                Some("C:\\Users\\U\\Proj\\".to_string()),
            ),
            ("dir".to_string(), None),
        ];
        add(
            &path,
            Audience::Personal,
            "shell_execute",
            &entries,
            Os::Windows,
        )
        .unwrap();
        let again = vec![
            (
                "get-item".to_string(),
                Some("c:\\users\\u\\proj".to_string()),
            ),
            ("DIR".to_string(), None),
        ];
        let r = add(
            &path,
            Audience::Personal,
            "shell_execute",
            &again,
            Os::Windows,
        )
        .unwrap();
        assert!(r.added.is_empty());
        assert_eq!(r.already_present.len(), 2);
        let (s, _) = Store::load(&path).unwrap();
        let f = |verb: &str, d: &str, os: Os| {
            s.find(Audience::Personal, "shell_execute", verb, Some(d), "", os)
        };
        assert!(f("get-item", "c:\\users\\u\\proj\\src", Os::Windows).is_some());
        assert!(f("GET-ITEM", "C:/Users/U/Proj", Os::Windows).is_some());
        assert!(f("get-item", "C:\\Users\\U\\Project", Os::Windows).is_none());
        assert!(f("get-item", "C:\\Users\\U\\Proj", Os::Linux).is_none());
        assert!(f("Get-Item", "C:\\Users\\U\\Proj\\x", Os::Linux).is_some());
        // On Linux semantics a differently cased grant is a new grant.
        let r = add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one("DIR", None),
            Os::Linux,
        )
        .unwrap();
        assert_eq!(r.added.len(), 1);
    }

    #[test]
    fn adding_twice_changes_nothing_and_keeps_created_at() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(
            &path,
            r#"{"version": 2, "audiences": {"personal": {"shell_execute": [
                {"verb": "git status", "directory": "/home/u/p", "createdAt": "2020-01-01T00:00:00+00:00"}
            ]}}}"#,
        );
        let before = fs::read(&path).unwrap();
        let r = add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one(" git status ", Some("/home/u/p/")),
            Os::Linux,
        )
        .unwrap();
        assert!(r.added.is_empty());
        assert_eq!(
            r.already_present[0].created_at.as_deref(),
            Some("2020-01-01T00:00:00+00:00")
        );
        assert_eq!(fs::read(&path).unwrap(), before, "no rewrite");
        // Duplicates within one call are stored once; other directories are new.
        let entries = vec![
            ("make".to_string(), None),
            ("make".to_string(), Some("  ".to_string())),
            ("git status".to_string(), Some("/home/u".to_string())),
        ];
        let r = add(
            &path,
            Audience::Personal,
            "shell_execute",
            &entries,
            Os::Linux,
        )
        .unwrap();
        assert_eq!(r.added.len(), 2);
        assert_eq!(r.already_present.len(), 1);
        assert_eq!(Store::load(&path).unwrap().0.len(), 3);
        assert!(add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one("  ", None),
            Os::Linux
        )
        .is_err());
    }

    #[test]
    fn removing_last_entries_removes_empty_sections() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(
            &path,
            r#"{"version": 2, "x-extra": true, "audiences": {
                "personal": {"shell_execute": [{"verb": "a"}, {"verb": "b", "directory": "/p/q"}], "file_read": [{"verb": "r"}]},
                "team": {"shell_execute": [{"verb": "a", "createdAt": "2021-01-01T00:00:00+00:00"}]}
            }}"#,
        );
        let none = remove(&path, Audience::Personal, "shell_execute", |g| {
            g.verb == "zzz"
        })
        .unwrap();
        assert!(none.is_empty());
        let removed = remove(&path, Audience::Team, "shell_execute", |g| {
            g.label() == "a anywhere"
        })
        .unwrap();
        assert_eq!(
            removed[0].created_at.as_deref(),
            Some("2021-01-01T00:00:00+00:00")
        );
        let removed = remove(&path, Audience::Personal, "shell_execute", |_| true).unwrap();
        assert_eq!(
            removed.iter().map(Grant::label).collect::<Vec<_>>(),
            ["a anywhere", "b in /p/q"]
        );
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["x-extra"], true);
        assert_eq!(
            v["audiences"],
            serde_json::json!({"personal": {"file_read": [{"verb": "r"}]}})
        );
        assert_eq!(remove_all_for_tool(&path, "file_read").unwrap(), 1);
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["audiences"], serde_json::json!({}));
        assert_eq!(remove_all_for_tool(&path, "file_read").unwrap(), 0);
    }

    #[test]
    fn groups_are_ordered_by_audience_then_tool() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        add(
            &path,
            Audience::Public,
            "shell_execute",
            &one("a", None),
            Os::Linux,
        )
        .unwrap();
        add(
            &path,
            Audience::Personal,
            "zeta",
            &one("b", None),
            Os::Linux,
        )
        .unwrap();
        add(
            &path,
            Audience::Personal,
            "alpha",
            &one("c", Some("/x/y")),
            Os::Linux,
        )
        .unwrap();
        add(
            &path,
            Audience::Team,
            "shell_execute",
            &one("d", None),
            Os::Linux,
        )
        .unwrap();
        let (s, _) = Store::load(&path).unwrap();
        let keys: Vec<(Audience, String)> =
            s.groups().into_iter().map(|(a, t, _)| (a, t)).collect();
        assert_eq!(
            keys,
            vec![
                (Audience::Personal, "alpha".to_string()),
                (Audience::Personal, "zeta".to_string()),
                (Audience::Team, "shell_execute".to_string()),
                (Audience::Public, "shell_execute".to_string()),
            ]
        );
        let audiences = s.audiences_json().as_object().unwrap();
        assert_eq!(
            audiences.keys().collect::<Vec<_>>(),
            ["public", "personal", "team"]
        );
    }

    #[test]
    fn index_ignores_other_verbs() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        let mut list = Vec::new();
        for i in 0..20_000 {
            list.push(
                serde_json::json!({"verb": format!("verb{i}"), "directory": format!("/d/{i}")}),
            );
        }
        list.push(serde_json::json!({"verb": "target", "directory": "/home/u/p"}));
        let doc =
            serde_json::json!({"version": 2, "audiences": {"personal": {"shell_execute": list}}});
        write(&path, &doc.to_string());
        let (s, _) = Store::load(&path).unwrap();
        assert_eq!(s.len(), 20_001);
        let hit = s.find(
            Audience::Personal,
            "shell_execute",
            "target",
            Some("/home/u/p/x"),
            "",
            Os::Linux,
        );
        assert_eq!(hit.unwrap().directory.as_deref(), Some("/home/u/p"));
        assert!(s
            .find(
                Audience::Personal,
                "shell_execute",
                "verb7",
                Some("/d/7"),
                "",
                Os::Linux
            )
            .is_some());
        assert!(s
            .find(
                Audience::Personal,
                "shell_execute",
                "verb7",
                Some("/d/8"),
                "",
                Os::Linux
            )
            .is_none());
    }

    #[test]
    fn cache_sees_edits() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        let mut cache = StoreCache::new(&path);
        assert!(cache.get().unwrap().is_empty());
        add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one("ls", None),
            Os::Linux,
        )
        .unwrap();
        assert_eq!(cache.get().unwrap().len(), 1);
        assert_eq!(cache.get().unwrap().len(), 1);
        // An in-place edit by hand (same inode).
        let text = fs::read_to_string(&path)
            .unwrap()
            .replace("\"ls\"", "\"lsx\"");
        fs::write(&path, text).unwrap();
        let s = cache.get().unwrap();
        assert!(s
            .find(
                Audience::Personal,
                "shell_execute",
                "lsx",
                None,
                "",
                Os::Linux
            )
            .is_some());
        fs::remove_file(&path).unwrap();
        assert!(cache.get().unwrap().is_empty());
    }

    #[test]
    fn concurrent_writers_lose_no_update() {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        let threads: Vec<_> = (0..8)
            .map(|n| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for i in 0..50 {
                        let dir = format!("/w/{n}/{i}");
                        add(
                            &path,
                            Audience::Personal,
                            "shell_execute",
                            &one(&format!("v{n}"), Some(&dir)),
                            Os::Linux,
                        )
                        .unwrap();
                        // Readers never see a partial file.
                        Store::load(&path).unwrap();
                    }
                })
            })
            .collect();
        for th in threads {
            th.join().unwrap();
        }
        let (s, q) = Store::load(&path).unwrap();
        assert!(q.is_none());
        assert_eq!(s.len(), 400);
        for n in 0..8 {
            for i in 0..50 {
                let dir = format!("/w/{n}/{i}");
                assert!(s
                    .find(
                        Audience::Personal,
                        "shell_execute",
                        &format!("v{n}"),
                        Some(&dir),
                        "",
                        Os::Linux
                    )
                    .is_some());
            }
        }
    }
}
