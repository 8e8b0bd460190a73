//! Claude Code (`PreToolUse` hooks, and `PostToolUse` for the audit log):
//! which tools are gated, how their input becomes calls, the answer format —
//! `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//! "permissionDecision": "allow"|"ask"|"deny", "permissionDecisionReason":
//! "…"}}` for every decision of a `PreToolUse` (a sandboxed allow adds
//! `"updatedInput"`: the tool input with the wrapped command), nothing for
//! other events — and whether a human can answer an ask.

use serde_json::{json, Map, Value};

use super::ask::Answerer;
use super::calls::{
    glob_call, recursive_read_call, required, resolve_path, str_field, Call, Invalid,
};
use super::{absolute_dir, EventKind, Verdict};

/// Shell tools this adapter gates (the installed matcher names these).
pub const SHELL_TOOLS: &[&str] = &["Bash"];
/// File tools this adapter gates.
pub const FILE_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "LS",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
];

/// The `PreToolUse` answer (Codex uses the same shape).
pub(super) fn pre_tool_use(decision: &str, reason: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    })
}

/// What an event is for this adapter (`None`: no `hook_event_name`, as
/// older hosts send; treated as the gated event, fail closed).
pub(super) fn event_kind(name: Option<&str>) -> EventKind {
    match name {
        None | Some("PreToolUse") => EventKind::PreTool,
        Some("PostToolUse") | Some("PostToolUseFailure") => EventKind::PostTool,
        Some(_) => EventKind::Other,
    }
}

/// Whether a human can answer Claude Code's ask dialog in this session:
/// `CLAUDE_CODE_SESSION_ATTENDED` (2.1.2xx-later builds: `1` interactive,
/// `0` under `-p`/SDK), else `CLAUDE_CODE_ENTRYPOINT` (`cli` interactive,
/// `sdk-cli`/`sdk-*`/`mcp`… not). Neither set: unknown ⇒ nobody.
pub(super) fn answerer() -> Answerer {
    answerer_from(
        crate::origin::var("CLAUDE_CODE_SESSION_ATTENDED").as_deref(),
        crate::origin::var("CLAUDE_CODE_ENTRYPOINT").as_deref(),
    )
}

pub(super) fn answerer_from(attended: Option<&str>, entrypoint: Option<&str>) -> Answerer {
    const NON_INTERACTIVE: &str =
        "Nobody can answer a question in this non-interactive Claude Code run (claude -p, SDK)";
    match attended.map(str::trim) {
        Some("1") | Some("true") => return Answerer::Human,
        Some(_) => return Answerer::Nobody(NON_INTERACTIVE.into()),
        None => {}
    }
    match entrypoint.map(str::trim) {
        Some("cli") => Answerer::Human,
        Some(_) => Answerer::Nobody(NON_INTERACTIVE.into()),
        None => Answerer::Nobody(
            "Whether a human can answer is unknown (Claude Code set neither CLAUDE_CODE_SESSION_ATTENDED nor CLAUDE_CODE_ENTRYPOINT)"
                .into(),
        ),
    }
}

/// The answer for a verdict: every decision is printed.
pub(super) fn output(v: Verdict, reason: &str) -> Option<String> {
    Some(pre_tool_use(v.as_str(), reason).to_string())
}

/// An allow that runs `input` (the tool input with the command wrapped in
/// `shellgate sandbox`): `hookSpecificOutput.updatedInput`.
pub(super) fn output_rewrite(reason: &str, input: &Map<String, Value>) -> String {
    let mut v = pre_tool_use("allow", reason);
    if let Some(h) = v
        .get_mut("hookSpecificOutput")
        .and_then(Value::as_object_mut)
    {
        h.insert("updatedInput".into(), Value::Object(input.clone()));
    }
    v.to_string()
}

/// The session's project directory: `$CLAUDE_PROJECT_DIR`, else the cwd.
pub(super) fn project_dir(cwd: &str, home: &str) -> String {
    crate::origin::var("CLAUDE_PROJECT_DIR")
        .and_then(|p| absolute_dir(&p, home))
        .unwrap_or_else(|| cwd.to_string())
}

/// The calls of one Claude Code tool use.
pub(super) fn map(
    tool: &str,
    input: &Map<String, Value>,
    cwd: &str,
) -> std::result::Result<Vec<Call>, Invalid> {
    Ok(match tool {
        "Bash" => vec![Call::shell(
            required(input, &["command"], tool)?.to_string(),
            cwd.to_string(),
        )],
        "Read" => {
            let p = required(input, &["file_path"], tool)?;
            vec![Call::file("file_read", resolve_path(cwd, p), cwd)]
        }
        "LS" => {
            let p = required(input, &["path"], tool)?;
            vec![Call::file("file_list", resolve_path(cwd, p), cwd)]
        }
        "Glob" => {
            let pattern = required(input, &["pattern"], tool)?;
            let base = str_field(input, &["path"])
                .filter(|s| !s.trim().is_empty())
                .map(|p| resolve_path(cwd, p))
                .unwrap_or_else(|| cwd.to_string());
            vec![glob_call("file_list", &base, pattern, cwd)]
        }
        "Grep" => {
            let base = str_field(input, &["path"])
                .filter(|s| !s.trim().is_empty())
                .map(|p| resolve_path(cwd, p))
                .unwrap_or_else(|| cwd.to_string());
            vec![recursive_read_call(base, cwd)]
        }
        "Write" => {
            let p = required(input, &["file_path"], tool)?;
            vec![Call::file("file_write", resolve_path(cwd, p), cwd)]
        }
        "Edit" | "MultiEdit" => {
            let p = required(input, &["file_path"], tool)?;
            vec![Call::file("file_edit", resolve_path(cwd, p), cwd)]
        }
        "NotebookEdit" => {
            let p = required(input, &["notebook_path"], tool)?;
            vec![Call::file("file_edit", resolve_path(cwd, p), cwd)]
        }
        _ => return Err(Invalid(format!("{tool}: not a gated tool"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_answers_in_claude_code() {
        assert_eq!(answerer_from(Some("1"), Some("cli")), Answerer::Human);
        assert_eq!(answerer_from(None, Some("cli")), Answerer::Human);
        assert!(matches!(
            answerer_from(Some("0"), Some("cli")),
            Answerer::Nobody(_)
        ));
        assert!(matches!(
            answerer_from(None, Some("sdk-cli")),
            Answerer::Nobody(_)
        ));
        assert!(matches!(answerer_from(None, None), Answerer::Nobody(_)));
    }

    #[test]
    fn event_kinds() {
        assert_eq!(event_kind(None), EventKind::PreTool);
        assert_eq!(event_kind(Some("PreToolUse")), EventKind::PreTool);
        assert_eq!(event_kind(Some("PostToolUse")), EventKind::PostTool);
        assert_eq!(event_kind(Some("Notification")), EventKind::Other);
        assert_eq!(event_kind(Some("PermissionRequest")), EventKind::Other);
    }
}
