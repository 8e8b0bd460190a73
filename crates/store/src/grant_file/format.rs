//! The file format (version 2, netclaw-compatible): validation of a read
//! document, comments and trailing commas, and the written form of entries.

use serde_json::{Map, Value};
use shellgate_policy::model::Audience;
use shellgate_shell::paths;

use super::matching::slot;
use super::snapshot::Tools;
use super::{Grant, STORE_VERSION};

/// A valid version-2 document: the root object (edited in place by writers)
/// and the grants it holds.
pub(super) struct Doc {
    pub(super) root: Map<String, Value>,
    pub(super) grants: Tools,
}

impl Doc {
    pub(super) fn new_empty() -> Doc {
        let mut root = Map::new();
        root.insert("version".to_string(), Value::from(STORE_VERSION));
        root.insert("audiences".to_string(), Value::Object(Map::new()));
        Doc {
            root,
            grants: Default::default(),
        }
    }
}

pub(super) enum Verdict {
    Ok(Doc),
    /// Integer version above 2.
    TooNew(u64),
    /// Valid JSON of a pre-v2 shape ⇒ `.v1.bak`.
    V1,
    /// Not JSON, or a v2 document not fitting the schema ⇒ `.invalid`.
    Invalid,
}

pub(super) fn classify(bytes: &[u8]) -> Verdict {
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
pub(super) fn read_grants(root: &Map<String, Value>) -> Option<Tools> {
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
pub(super) fn entry_grant(value: &Value) -> Option<Grant> {
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
pub(super) fn strip_comments_and_trailing_commas(src: &str) -> Option<String> {
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

/// Bring the known fields of every entry of the three audiences into the
/// written form (§6.1): verb trimmed, directory normalized, `null` and
/// empty fields omitted. Other keys and their order are left alone.
pub(super) fn normalize_entries(root: &mut Map<String, Value>) {
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

/// The entry object written for a new grant (no `directory` key for anywhere).
pub(super) fn grant_json(g: &Grant) -> Value {
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
