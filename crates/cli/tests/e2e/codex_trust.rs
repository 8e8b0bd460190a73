//! How Codex 0.169 computes a hook's trust identity (facts measured with the
//! real binary: `codex app-server` → `hooks/list` reports the same `key` and
//! `currentHash`; see docs/hosts.md).
//!
//! - key: `<absolute path of hooks.json>:<event label>:<group index>:<handler
//!   index>`, the event label in snake case (`pre_tool_use`, …), indices
//!   from 0 in file order.
//! - hash: `sha256:` + hex SHA-256 of the compact JSON (keys sorted at every
//!   level) of `{"event_name": <label>, "matcher": <matcher>, "hooks":
//!   [<handler>]}` where the handler is the one command handler normalised:
//!   `type` = `"command"`, `command`, `timeout` (default 600, at least 1),
//!   `async` (default false), `statusMessage` only when set; `matcher` only
//!   when set and only for events that use matchers (PreToolUse,
//!   PermissionRequest, PostToolUse, SessionStart).
//! - recorded in `~/.codex/config.toml` as `[hooks.state."<key>"]` with
//!   `trusted_hash = "<hash>"`.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Map, Value};

/// hooks.json event names and Codex's labels for them.
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

/// `sha256:<hex>` of `text`, with the system's sha256sum.
pub fn sha256(text: &str) -> Option<String> {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    let hex = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()?
        .to_string();
    (hex.len() == 64).then(|| format!("sha256:{hex}"))
}

/// `(key, hash)` for every command handler of a hooks.json document.
pub fn trust_entries(hooks_json_path: &str, doc: &Value) -> Vec<(String, String)> {
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
                if let Some(hash) = identity_json(label, matcher, h).and_then(|t| sha256(&t)) {
                    out.push((format!("{hooks_json_path}:{label}:{i}:{j}"), hash));
                }
            }
        }
    }
    out
}
