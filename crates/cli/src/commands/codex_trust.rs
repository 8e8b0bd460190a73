//! Codex's hook trust: Codex (0.169) runs a `hooks.json` hook only when
//! `config.toml` records it as trusted, under
//! `[hooks.state."<abs path>/hooks.json:<event label>:<group>:<handler>"]`
//! with `trusted_hash = "sha256:…"`; a hook whose hash changed is
//! "modified" and skipped again (docs/hosts.md, proven with the real
//! binary).
//!
//! The hash is SHA-256 of the compact JSON, keys sorted at every level, of
//! `{"event_name": <label>, "matcher": <matcher>, "hooks": [<handler>]}`,
//! the handler normalised to `type` = `"command"`, `command`, `timeout`
//! (default 600, at least 1), `async` (default false) and `statusMessage`
//! when set; `matcher` only when set and only for the events that use one.
//!
//! `config.toml` is edited with `toml_edit`, so the user's comments, order
//! and formatting stay as they were.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, Item, Table};

/// hooks.json event names and Codex's labels for them, in the order Codex
/// lists them.
pub const EVENTS: &[(&str, &str)] = &[
    ("PreToolUse", "pre_tool_use"),
    ("PermissionRequest", "permission_request"),
    ("PostToolUse", "post_tool_use"),
    ("PreCompact", "pre_compact"),
    ("PostCompact", "post_compact"),
    ("SessionStart", "session_start"),
    ("UserPromptSubmit", "user_prompt_submit"),
    ("Stop", "stop"),
];

fn uses_matcher(label: &str) -> bool {
    matches!(
        label,
        "pre_tool_use" | "permission_request" | "post_tool_use" | "session_start"
    )
}

/// JSON with object keys sorted at every level.
fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                if let Some(x) = m.get(k) {
                    out.insert(k.clone(), canonical(x));
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The JSON text Codex hashes for one command handler.
pub fn identity_json(label: &str, matcher: Option<&str>, handler: &Value) -> Option<String> {
    let command = handler.get("command")?.as_str()?;
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    let is_async = handler
        .get("async")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut h = Map::new();
    h.insert("type".into(), json!("command"));
    h.insert("command".into(), json!(command));
    h.insert("timeout".into(), json!(timeout));
    h.insert("async".into(), json!(is_async));
    if let Some(s) = handler.get("statusMessage").and_then(Value::as_str) {
        h.insert("statusMessage".into(), json!(s));
    }
    let mut id = Map::new();
    id.insert("event_name".into(), json!(label));
    if let Some(m) = matcher.filter(|_| uses_matcher(label)) {
        id.insert("matcher".into(), json!(m));
    }
    id.insert("hooks".into(), Value::Array(vec![Value::Object(h)]));
    serde_json::to_string(&canonical(&Value::Object(id))).ok()
}

/// `sha256:<hex>` of a text.
pub fn sha256(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(71);
    hex.push_str("sha256:");
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// One command handler of a hooks.json file, as Codex identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub hash: String,
    /// The handler is shellgate's.
    pub ours: bool,
    /// `"Event[i][j]"`, for messages.
    pub place: String,
}

/// Every command handler of a hooks.json document, in Codex's order.
pub fn entries(
    hooks_json: &str,
    doc: &Map<String, Value>,
    ours: &dyn Fn(&Value) -> bool,
) -> Vec<Entry> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, label) in EVENTS {
        let Some(groups) = hooks.get(*event).and_then(Value::as_array) else {
            continue;
        };
        for (i, g) in groups.iter().enumerate() {
            let matcher = g.get("matcher").and_then(Value::as_str);
            let Some(handlers) = g.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (j, h) in handlers.iter().enumerate() {
                if h.get("type").and_then(Value::as_str) != Some("command") {
                    continue;
                }
                if let Some(text) = identity_json(label, matcher, h) {
                    out.push(Entry {
                        key: format!("{hooks_json}:{label}:{i}:{j}"),
                        hash: sha256(&text),
                        ours: ours(h),
                        place: format!("{event}[{i}][{j}]"),
                    });
                }
            }
        }
    }
    out
}

/// `~/.codex/config.toml` (or `$CODEX_HOME/config.toml`), kept as an
/// editable document.
pub struct Config {
    pub path: PathBuf,
    previous: Option<Vec<u8>>,
    original: String,
    doc: DocumentMut,
}

fn implicit_table() -> Item {
    let mut t = Table::new();
    t.set_implicit(true);
    Item::Table(t)
}

impl Config {
    /// Read the file (missing ⇒ empty document).
    pub fn read(path: &Path) -> Result<Config> {
        let previous = match std::fs::read(path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let original = match &previous {
            Some(b) => String::from_utf8(b.clone()).with_context(|| {
                format!("{} is not UTF-8; it was left unchanged", path.display())
            })?,
            None => String::new(),
        };
        let doc: DocumentMut = original.parse().with_context(|| {
            format!(
                "{} is not valid TOML; it was left unchanged (fix it, then retry)",
                path.display()
            )
        })?;
        Ok(Config {
            path: path.to_path_buf(),
            previous,
            original,
            doc,
        })
    }

    fn state(&self) -> Option<&Table> {
        self.doc.get("hooks")?.as_table()?.get("state")?.as_table()
    }

    fn state_mut(&mut self, create: bool) -> Result<Option<&mut Table>> {
        let path = self.path.display().to_string();
        let root = self.doc.as_table_mut();
        if !root.contains_key("hooks") {
            if !create {
                return Ok(None);
            }
            root.insert("hooks", implicit_table());
        }
        let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) else {
            bail!("{path}: `hooks` is not a table; it was left unchanged");
        };
        if !hooks.contains_key("state") {
            if !create {
                return Ok(None);
            }
            hooks.insert("state", implicit_table());
        }
        match hooks.get_mut("state").and_then(Item::as_table_mut) {
            Some(t) => Ok(Some(t)),
            None => bail!("{path}: `hooks.state` is not a table; it was left unchanged"),
        }
    }

    /// The recorded `trusted_hash` of a hook key.
    pub fn trusted_hash(&self, key: &str) -> Option<String> {
        self.state()?
            .get(key)?
            .as_table_like()?
            .get("trusted_hash")?
            .as_str()
            .map(str::to_string)
    }

    /// Record `hash` as the trusted hash of `key` (other keys of that
    /// table, if any, are kept).
    pub fn set_trust(&mut self, key: &str, hash: &str) -> Result<()> {
        let path = self.path.display().to_string();
        let state = self
            .state_mut(true)?
            .context("hooks.state could not be created")?;
        match state.get_mut(key) {
            Some(item) => match item.as_table_like_mut() {
                Some(t) => {
                    t.insert("trusted_hash", toml_edit::value(hash));
                }
                None => {
                    bail!("{path}: hooks.state.\"{key}\" is not a table; it was left unchanged")
                }
            },
            None => {
                let mut t = Table::new();
                t.insert("trusted_hash", toml_edit::value(hash));
                state.insert(key, Item::Table(t));
            }
        }
        Ok(())
    }

    /// Remove a key's table; returns it. Emptied implicit parents go too.
    pub fn take(&mut self, key: &str) -> Option<Item> {
        let state = self.state_mut(false).ok()??;
        let item = state.remove(key)?;
        self.prune();
        Some(item)
    }

    /// Put back a table taken with [`Config::take`] under another key.
    pub fn put(&mut self, key: &str, item: Item) -> Result<()> {
        let state = self
            .state_mut(true)?
            .context("hooks.state could not be created")?;
        state.insert(key, item);
        Ok(())
    }

    /// Drop `hooks.state` and `hooks` when they are empty and were never
    /// written as headers of their own.
    fn prune(&mut self) {
        let root = self.doc.as_table_mut();
        let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) else {
            return;
        };
        if hooks
            .get("state")
            .and_then(Item::as_table)
            .is_some_and(|s| s.is_empty() && s.is_implicit())
        {
            hooks.remove("state");
        }
        if hooks.is_empty() && hooks.is_implicit() {
            root.remove("hooks");
        }
    }

    /// `[projects."<dir>"] trust_level = "trusted"`.
    pub fn project_trusted(&self, dir: &str) -> bool {
        self.doc
            .get("projects")
            .and_then(Item::as_table_like)
            .and_then(|p| p.get(dir))
            .and_then(Item::as_table_like)
            .and_then(|t| t.get("trust_level"))
            .and_then(Item::as_str)
            == Some("trusted")
    }

    /// The text as it would be written.
    pub fn text(&self) -> String {
        self.doc.to_string()
    }

    pub fn changed(&self) -> bool {
        self.text() != self.original
    }

    /// Whether the file existed.
    pub fn existed(&self) -> bool {
        self.previous.is_some()
    }

    /// Write `<file>.bak` (previous content) and replace the file
    /// atomically; a file that did not exist and would be empty is not
    /// created (or is removed again).
    pub fn write(&self) -> Result<Option<PathBuf>> {
        let text = self.text();
        if self.previous.is_none() && text.trim().is_empty() {
            let _ = std::fs::remove_file(&self.path);
            return Ok(None);
        }
        super::install::write_bytes(&self.path, self.previous.as_deref(), text.as_bytes())
    }
}

/// Move the trust of the user's own handlers whose position (and so key)
/// changed between `before` and `after` (ours removed or added): Codex keys
/// trust by position, and a handler that moved would otherwise lose it.
pub fn rekey(config: &mut Config, before: &[Entry], after: &[Entry]) -> Result<()> {
    let old: Vec<&Entry> = before.iter().filter(|e| !e.ours).collect();
    let new: Vec<&Entry> = after.iter().filter(|e| !e.ours).collect();
    let mut moved: Vec<(String, Item)> = Vec::new();
    for (o, n) in old.iter().zip(&new) {
        if o.key != n.key {
            if let Some(item) = config.take(&o.key) {
                moved.push((n.key.clone(), item));
            }
        }
    }
    for (key, item) in moved {
        config.put(&key, item)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash the real Codex 0.169.0 reported (`hooks/list`
    /// `currentHash`) for this handler.
    #[test]
    fn hash_matches_codex_0_169() {
        let handler = json!({"type": "command", "command": "/tmp/cx/log.sh", "timeout": 30,
                             "statusMessage": "shellgate: checking the call"});
        let text =
            identity_json("pre_tool_use", Some("Bash|apply_patch"), &handler).expect("identity");
        assert_eq!(
            sha256(&text),
            "sha256:9e6a7c6eeb9ffa3b2db3d66064d8b2f749ebef668405bebeb2c4d9332de625f8"
        );
        // Unknown keys are not hashed.
        let mut more = handler.clone();
        more["onFailure"] = json!("block");
        assert_eq!(
            identity_json("pre_tool_use", Some("Bash|apply_patch"), &more),
            Some(text)
        );
    }

    fn config(text: &str) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).expect("write");
        let c = Config::read(&path).expect("read");
        (dir, c)
    }

    #[test]
    fn set_and_take_round_trip_byte_for_byte() {
        for original in [
            "",
            "model = \"gpt\" # mine\n",
            "# comment\nmodel = \"x\"\n\n[features]\nweb = true\n",
            "no_newline_at_end = 1",
            "[hooks.state.\"/other/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:00\"\n",
            "[hooks]\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n",
        ] {
            let (_d, mut c) = config(original);
            c.set_trust("/h/.codex/hooks.json:pre_tool_use:0:0", "sha256:ab")
                .expect("set");
            let text = c.text();
            assert!(
                text.contains("[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:ab\""),
                "{text}"
            );
            let reparsed: DocumentMut = text.parse().expect("valid TOML");
            let mut c2 = Config {
                path: c.path.clone(),
                previous: None,
                original: text.clone(),
                doc: reparsed,
            };
            assert_eq!(
                c2.trusted_hash("/h/.codex/hooks.json:pre_tool_use:0:0")
                    .as_deref(),
                Some("sha256:ab")
            );
            assert!(c2.take("/h/.codex/hooks.json:pre_tool_use:0:0").is_some());
            if original.is_empty() || original.ends_with('\n') {
                assert_eq!(c2.text(), original, "round trip of {original:?}");
            } else {
                // A last line without its newline gets one (toml_edit ends
                // the line before the table it appends).
                assert_eq!(c2.text(), format!("{original}\n"));
            }
        }
    }

    #[test]
    fn project_trust() {
        let (_d, c) = config("[projects.\"/w/p\"]\ntrust_level = \"trusted\"\n");
        assert!(c.project_trusted("/w/p"));
        assert!(!c.project_trusted("/w/q"));
    }
}
