//! The data the service moves around: pending requests, answers and the
//! read-only views of the store and state db that the page shows. Plain serde
//! structs; the field names are the wire names (socket protocol and HTTP API).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The five options of SPEC §7.1 in their fixed order: wire key, label, style.
pub const OPTIONS: [(&str, &str, &str); 5] = [
    ("approve_once", "Once", "primary"),
    ("approve_session", "This chat", "default"),
    ("approve_always", "Always here", "default"),
    ("approve_everywhere", "Always anywhere", "danger"),
    ("deny", "Deny", "danger"),
];

/// The label of an option key (SPEC §7.1), `None` for an unknown key.
pub fn option_label(key: &str) -> Option<&'static str> {
    OPTIONS.iter().find(|o| o.0 == key).map(|o| o.1)
}

/// Whether `key` is one of the five wire keys.
pub fn is_option_key(key: &str) -> bool {
    option_label(key).is_some()
}

/// Map a reply to one of the `offered` option keys (SPEC §7.4): an exact
/// wire key, a single letter `a`… or an integer `1…N` (the n-th offered
/// option), or a named form (`once`, `this chat`, `always here`, `deny`, …);
/// trimmed and case-insensitive. A reply naming an option that was not
/// offered, or nothing known, is an error whose message lists what was.
pub fn resolve_reply(reply: &str, offered: &[String]) -> Result<String, String> {
    let r = reply.trim().to_lowercase();
    let not_offered = |what: &str| {
        format!(
            "option '{}' was not offered for this request (offered: {})",
            what,
            offered.join(", ")
        )
    };
    let pick = |n: usize| -> Result<String, String> {
        n.checked_sub(1)
            .and_then(|i| offered.get(i))
            .cloned()
            .ok_or_else(|| not_offered(reply.trim()))
    };
    let mut chars = r.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_ascii_lowercase() {
            return pick(c as usize - 'a' as usize + 1);
        }
    }
    if !r.is_empty() && r.len() <= 3 && r.bytes().all(|b| b.is_ascii_digit()) {
        return pick(r.parse::<usize>().unwrap_or(0));
    }
    let key = match r.as_str() {
        "approve_once" | "once" | "approve" | "approve once" | "yes" => "approve_once",
        "approve_session" | "this chat" | "session" | "approve session" => "approve_session",
        "approve_always" | "always" | "always here" | "approve always" => "approve_always",
        "approve_everywhere" | "always anywhere" | "everywhere" | "approve everywhere" => {
            "approve_everywhere"
        }
        "deny" | "no" | "reject" => "deny",
        _ => return Err(not_offered(reply.trim())),
    };
    if offered.iter().any(|o| o == key) {
        Ok(key.to_string())
    } else {
        Err(not_offered(key))
    }
}

/// What a hook publishes: the call as the human must see it (SPEC §7.2), the
/// offered options, and what the CLI needs to apply the answer later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishRequest {
    /// `shell_execute` or a file tool.
    pub tool: String,
    /// The exact command (or path, for file tools) as the agent sent it.
    pub command: String,
    /// The display text (SPEC §3.5) — what the human reads first.
    pub display: String,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub session: Option<String>,
    /// Who asks: `claude-code`, `gemini`, `codex`, `exec`, …
    pub host: String,
    #[serde(default)]
    pub project_dir: Option<String>,
    /// Prompt header (SPEC §7.2).
    pub header: String,
    #[serde(default)]
    pub bullets: Vec<String>,
    /// Prompt hint (complex commands), shown under the header.
    #[serde(default)]
    pub hint: Option<String>,
    /// Offered option wire keys (SPEC §7.1), in order. The letters `a`, `b`, …
    /// of the page follow this order.
    pub options: Vec<String>,
    /// The full decision JSON (SPEC §2.3) of the `ask`.
    #[serde(default)]
    pub decision: Value,
    /// Opaque to the service, handed back to [`crate::Backend::apply`]: what
    /// the CLI needs to rebuild the call (audience, channel, os, home, …).
    #[serde(default)]
    pub context: Value,
    /// The host agent's process (the hook's nearest ancestor that is not a
    /// shell). The service refuses `list`, `answer` and `login` on its
    /// socket to that process and its descendants — the agent's own
    /// commands — so an agent cannot answer its own requests. Taken into
    /// account only when it is an ancestor of the publishing process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_pid: Option<u32>,
}

impl PublishRequest {
    /// Build a request from a §2.3 decision JSON object that asked, plus what
    /// the decision does not carry. Fails (fail closed: the hook then behaves
    /// as with no service) when the decision is not an `ask` with options and
    /// a prompt.
    pub fn from_decision(
        decision: &Value,
        host: &str,
        session: Option<&str>,
        project_dir: Option<&str>,
        context: Value,
    ) -> Result<PublishRequest, String> {
        let s = |k: &str| decision.get(k).and_then(Value::as_str).map(str::to_string);
        if s("decision").as_deref() != Some("ask") {
            return Err("the decision is not 'ask'".into());
        }
        let options: Vec<String> = decision
            .get("options")
            .and_then(Value::as_array)
            .ok_or("the decision has no options")?
            .iter()
            .map(|o| {
                o.as_str()
                    .map(str::to_string)
                    .ok_or("an option is not a string")
            })
            .collect::<Result<_, _>>()?;
        let prompt = decision.get("prompt").ok_or("the decision has no prompt")?;
        let header = prompt
            .get("header")
            .and_then(Value::as_str)
            .ok_or("the prompt has no header")?
            .to_string();
        let bullets = prompt
            .get("bullets")
            .and_then(Value::as_array)
            .map(|b| {
                b.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let command = s("command").ok_or("the decision has no command")?;
        let req = PublishRequest {
            tool: s("tool").unwrap_or_else(|| "shell_execute".into()),
            display: s("display").unwrap_or_else(|| command.clone()),
            command,
            cwd: s("cwd"),
            session: session.map(str::to_string),
            host: host.to_string(),
            project_dir: project_dir.map(str::to_string),
            header,
            bullets,
            hint: prompt
                .get("hint")
                .and_then(Value::as_str)
                .map(str::to_string),
            options,
            decision: decision.clone(),
            context,
            agent_pid: None,
        };
        req.validate()?;
        Ok(req)
    }

    /// Checks the service applies to every published request: known option
    /// keys, no duplicates, at least one option, a host and a tool.
    pub fn validate(&self) -> Result<(), String> {
        if self.options.is_empty() {
            return Err("no options offered".into());
        }
        for (i, o) in self.options.iter().enumerate() {
            if !is_option_key(o) {
                return Err(format!("unknown option '{o}'"));
            }
            if self.options[..i].contains(o) {
                return Err(format!("option '{o}' offered twice"));
            }
        }
        if self.tool.trim().is_empty() {
            return Err("empty tool".into());
        }
        if self.host.trim().is_empty() {
            return Err("empty host".into());
        }
        Ok(())
    }
}

/// A request waiting for a human: what was published plus the service's id
/// (128-bit random, 32 lowercase hex digits) and times (Unix milliseconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingRequest {
    pub id: String,
    pub created_ms: u64,
    pub deadline_ms: u64,
    #[serde(flatten)]
    pub request: PublishRequest,
}

/// allow or deny: what the waiting hook returns to its host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Deny,
}

/// What [`crate::Backend::apply`] did with an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppliedOutcome {
    /// Allow for the approve options, deny for `deny`. A backend may return
    /// deny for an approve option (e.g. the call is now denied by policy);
    /// the service never turns a `deny` answer into allow.
    pub decision: Verdict,
    /// The resolution line of SPEC §7.3 (`Approved (no save)`, `Saved: …`).
    pub resolution: String,
    /// Candidates not persisted because they were too broad (SPEC §12.1).
    #[serde(default)]
    pub skipped: Vec<String>,
}

/// An answered request, as told to the waiting hook, the page and the CLI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    pub id: String,
    /// The option key that was applied.
    pub option: String,
    pub decision: Verdict,
    pub resolution: String,
    #[serde(default)]
    pub skipped: Vec<String>,
    /// Where the answer came from: `page` or `socket`.
    pub via: String,
}

/// Filters of the history view (all optional; `limit` default 200).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryFilter {
    #[serde(default)]
    pub session: Option<String>,
    /// `allow`, `ask` or `deny`.
    #[serde(default)]
    pub decision: Option<String>,
    /// A verb (SPEC §4) or its first words: matches entries with a candidate
    /// verb equal to it or starting with it followed by a space.
    #[serde(default)]
    pub verb: Option<String>,
    #[serde(default)]
    pub limit: Option<usize>,
}

/// One audit-log entry (newest first in the lists the backend returns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub time: String,
    #[serde(default)]
    pub session: Option<String>,
    pub tool: String,
    pub command: String,
    #[serde(default)]
    pub cwd: Option<String>,
    pub decision: String,
    pub reason: String,
    /// Verbs of the candidates, for display and filtering.
    #[serde(default)]
    pub verbs: Vec<String>,
    pub source: String,
}

/// One persistent grant (SPEC §6) as shown on the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrantEntry {
    pub audience: String,
    pub tool: String,
    pub verb: String,
    /// `None` = anywhere.
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    /// `<verb> in <directory>` or `<verb> anywhere` (SPEC §11).
    pub label: String,
}

/// Which grant to revoke (from a [`GrantEntry`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrantRef {
    pub audience: String,
    pub tool: String,
    pub verb: String,
    #[serde(default)]
    pub directory: Option<String>,
}

/// What a revoke did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevokeOutcome {
    pub removed: usize,
    /// E.g. `Removed 'make in /home/u/app' from personal / shell_execute.`
    pub message: String,
}

/// A "This chat" grant of a session (SPEC §6.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionGrantEntry {
    pub audience: String,
    pub tool: String,
    pub verb: String,
    #[serde(default)]
    pub directory: Option<String>,
}

/// A session and its "This chat" grants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEntry {
    pub id: String,
    pub audience: String,
    pub channel: String,
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default)]
    pub project_dir: Option<String>,
    pub created_at: String,
    #[serde(default)]
    pub ended_at: Option<String>,
    #[serde(default)]
    pub grants: Vec<SessionGrantEntry>,
}

/// A backend failure; `NotFound` becomes HTTP 404, anything else 500. The
/// message is shown to the human: no secrets in it.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum BackendError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Failed(String),
}

/// What the service needs from the rest of shellgate: apply an answer exactly
/// as `shellgate decide` does (SPEC §12.1), and read/modify the store and
/// state db for the page. Called from blocking threads; each call may do file
/// and SQLite I/O.
pub trait Backend: Send + Sync + 'static {
    /// The request as the human must see it, called before it is published.
    /// Whoever reaches the socket can publish, so nothing a publisher wrote
    /// for the human (display, header, bullets, hint, options, directory,
    /// project) may be shown as is: derive it again from the call that
    /// [`Backend::apply`] will apply (`command`, `tool`, `session`,
    /// `context`), the way a hook derives it. An error refuses the publish
    /// (the hook falls back to its host's own behaviour); refuse a call the
    /// gate would not ask about.
    fn review(&self, req: &PublishRequest) -> Result<PublishRequest, BackendError>;
    /// Apply `option` (an offered wire key) to `req`: persist what it
    /// persists, log it, and say allow/deny with the resolution line. Called
    /// at most once per request.
    fn apply(&self, req: &PendingRequest, option: &str) -> Result<AppliedOutcome, BackendError>;
    /// Audit-log entries matching `filter`, newest first.
    fn history(&self, filter: &HistoryFilter) -> Result<Vec<HistoryEntry>, BackendError>;
    /// All persistent grants.
    fn grants(&self) -> Result<Vec<GrantEntry>, BackendError>;
    /// Remove one persistent grant (`NotFound` when there is none such).
    fn revoke(&self, grant: &GrantRef) -> Result<RevokeOutcome, BackendError>;
    /// Sessions that have not ended, with their "This chat" grants.
    fn sessions(&self) -> Result<Vec<SessionEntry>, BackendError>;
    /// Evaluate a hook event for the hook client exactly as the standalone
    /// `shellgate hook` would; `None` when it cannot promise that (the
    /// client then runs the standalone hook). Called on a blocking thread.
    fn hook(&self, _call: crate::protocol::HookCall) -> Option<crate::protocol::HookReply> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn replies_map_to_offered_options() {
        let all = offered(&OPTIONS.map(|o| o.0));
        assert_eq!(resolve_reply("a", &all).as_deref(), Ok("approve_once"));
        assert_eq!(resolve_reply(" C ", &all).as_deref(), Ok("approve_always"));
        assert_eq!(resolve_reply("5", &all).as_deref(), Ok("deny"));
        assert_eq!(
            resolve_reply("This Chat", &all).as_deref(),
            Ok("approve_session")
        );
        assert_eq!(
            resolve_reply("everywhere", &all).as_deref(),
            Ok("approve_everywhere")
        );
        assert_eq!(
            resolve_reply("approve_once", &all).as_deref(),
            Ok("approve_once")
        );
        assert!(resolve_reply("f", &all).is_err());
        assert!(resolve_reply("6", &all).is_err());
        assert!(resolve_reply("0", &all).is_err());
        assert!(resolve_reply("maybe", &all).is_err());
        assert!(resolve_reply("", &all).is_err());
        let complex = offered(&["approve_once", "deny"]);
        assert_eq!(resolve_reply("b", &complex).as_deref(), Ok("deny"));
        let e = resolve_reply("always", &complex).unwrap_err();
        assert!(e.contains("not offered"), "{e}");
        assert!(resolve_reply("c", &complex).is_err());
        assert!(resolve_reply("approve_session", &complex).is_err());
    }

    #[test]
    fn from_decision_reads_the_ask() {
        let d = serde_json::json!({
            "decision": "ask", "tool": "shell_execute", "command": "git push",
            "display": "git push", "cwd": "/home/u/r",
            "options": ["approve_once", "deny"],
            "prompt": {"header": "Approve in /home/u/r?", "bullets": [], "hint": "_complex_"}
        });
        let r =
            PublishRequest::from_decision(&d, "codex", Some("s1"), None, Value::Null).expect("ask");
        assert_eq!(r.options, vec!["approve_once", "deny"]);
        assert_eq!(r.hint.as_deref(), Some("_complex_"));
        assert_eq!(r.session.as_deref(), Some("s1"));
        let allow = serde_json::json!({"decision": "allow", "command": "ls"});
        assert!(PublishRequest::from_decision(&allow, "codex", None, None, Value::Null).is_err());
        let bad = serde_json::json!({
            "decision": "ask", "command": "x", "options": ["approve_once", "sudo"],
            "prompt": {"header": "h"}
        });
        assert!(PublishRequest::from_decision(&bad, "codex", None, None, Value::Null).is_err());
    }
}
