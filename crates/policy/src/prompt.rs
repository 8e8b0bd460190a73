//! The prompt model: options and their gating, header, bullets, hints and
//! resolution lines (SPEC §7, §10).

use serde::Serialize;

use shellgate_shell::paths;

/// Option wire keys in their fixed order.
pub const ALL_OPTIONS: [&str; 5] = [
    "approve_once",
    "approve_session",
    "approve_always",
    "approve_everywhere",
    "deny",
];

/// The fixed label of an option (never interpolated).
pub fn label(key: &str) -> Option<&'static str> {
    Some(match key {
        "approve_once" => "Once",
        "approve_session" => "This chat",
        "approve_always" => "Always here",
        "approve_everywhere" => "Always anywhere",
        "deny" => "Deny",
        _ => return None,
    })
}

/// Style of an option's button.
pub fn style(key: &str) -> &'static str {
    match key {
        "approve_once" => "primary",
        "approve_everywhere" | "deny" => "danger",
        _ => "default",
    }
}

pub const COMPLEX_HINT: &str = "_complex command — only one-shot approval available_";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prompt {
    pub header: String,
    pub bullets: Vec<String>,
    pub hint: Option<String>,
}

/// `Approve … in <location>?` for the display verbs and their location.
pub fn build(display_verbs: &[String], location: &str, complex: bool) -> Prompt {
    if complex {
        return Prompt {
            header: format!("Approve in {location}?"),
            bullets: Vec::new(),
            hint: Some(COMPLEX_HINT.to_string()),
        };
    }
    if display_verbs.len() == 1 {
        Prompt {
            header: format!("Approve {} in {location}?", display_verbs[0]),
            bullets: Vec::new(),
            hint: None,
        }
    } else {
        Prompt {
            header: format!("Approve in {location}?"),
            bullets: display_verbs.to_vec(),
            hint: None,
        }
    }
}

/// Location text (§7.2) for the distinct non-null directories of the
/// display candidates.
pub fn location(dirs: &[String], cwd: Option<&str>, session_dir: &str) -> String {
    let in_session = |d: &str| paths::is_within(d, session_dir);
    match dirs {
        [one] => {
            if in_session(one) {
                "this session".to_string()
            } else {
                one.clone()
            }
        }
        [] => match cwd {
            Some(c) if in_session(c) => "this session".to_string(),
            Some(c) => c.to_string(),
            None => "(no working directory)".to_string(),
        },
        many => format!("{} directories", many.len()),
    }
}

/// The set-project-dir hint (§10).
pub fn project_hint(session: &str, cwd: &str) -> String {
    format!(
        "Hint: '{cwd}' is outside the session's trusted scope. Run 'shellgate session set-project-dir {session} {cwd}' first, then retry — that brings the directory into your trusted scope so the approval policy can reason about it."
    )
}

/// Resolution line after an answer (§7.3).
pub fn resolution(option: &str, verbs: &[String], location: &str) -> String {
    let v = verbs.join(", ");
    match option {
        "approve_always" => format!("Saved: {v} in {location}"),
        "approve_everywhere" => format!("Saved: {v} anywhere"),
        "approve_session" => format!("Saved for this chat: {v} in {location}"),
        "approve_once" => "Approved (no save)".to_string(),
        _ => "Denied".to_string(),
    }
}

/// Parse a text reply (§7.4) against the offered options.
pub fn parse_reply(reply: &str, offered: &[String]) -> Option<String> {
    let r = reply.trim().to_lowercase();
    if r.is_empty() {
        return None;
    }
    let pick = |i: usize| offered.get(i).cloned();
    if r.len() == 1 {
        let c = r.chars().next()?;
        if c.is_ascii_lowercase() {
            return pick((c as u8 - b'a') as usize);
        }
    }
    if let Ok(n) = r.parse::<usize>() {
        return if n >= 1 { pick(n - 1) } else { None };
    }
    let key = match r.as_str() {
        "once" | "approve" | "approve once" | "yes" => "approve_once",
        "this chat" | "session" | "approve session" => "approve_session",
        "always" | "always here" | "approve always" => "approve_always",
        "always anywhere" | "everywhere" | "approve everywhere" => "approve_everywhere",
        "deny" | "no" | "reject" => "deny",
        _ => return None,
    };
    offered.iter().find(|o| o.as_str() == key).cloned()
}

/// Encode a button value `<callId>|<optionKey>|<requesterId>` within 100
/// characters (the call id is shortened to fit).
pub fn encode_button(call_id: &str, key: &str, requester: &str) -> Option<String> {
    if key.contains('|') || requester.contains('|') || call_id.contains('|') {
        return None;
    }
    let fixed = key.chars().count() + requester.chars().count() + 2;
    if fixed >= 100 {
        return None;
    }
    let room = 100 - fixed;
    let id: String = call_id.chars().take(room).collect();
    Some(format!("{id}|{key}|{requester}"))
}

/// Decode a button value into (call id, option key, requester id).
pub fn decode_button(v: &str) -> Option<(String, String, String)> {
    let mut it = v.splitn(3, '|');
    let id = it.next()?.to_string();
    let key = it.next()?.to_string();
    let req = it.next()?.to_string();
    label(&key)?;
    Some((id, key, req))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let offered: Vec<String> = ["approve_once", "deny"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(parse_reply("b", &offered).as_deref(), Some("deny"));
        assert_eq!(
            parse_reply(" 1 ", &offered).as_deref(),
            Some("approve_once")
        );
        assert_eq!(parse_reply("Always", &offered), None);
        assert_eq!(parse_reply("no", &offered).as_deref(), Some("deny"));
    }

    #[test]
    fn buttons() {
        let long = "x".repeat(300);
        let v = encode_button(&long, "approve_once", "u1").unwrap();
        assert!(v.chars().count() <= 100);
        let (_, k, r) = decode_button(&v).unwrap();
        assert_eq!((k.as_str(), r.as_str()), ("approve_once", "u1"));
        assert!(encode_button("a|b", "deny", "u").is_none());
    }
}
