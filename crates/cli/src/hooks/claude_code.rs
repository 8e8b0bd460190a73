//! Claude Code (`PreToolUse` hooks): which tools are gated, how their
//! input becomes calls, and the answer format — `{"hookSpecificOutput":
//! {"hookEventName": "PreToolUse", "permissionDecision": "allow"|"ask"|"deny",
//! "permissionDecisionReason": "…"}}` for every decision; a sandboxed allow
//! adds `"updatedInput"`: the tool input with the wrapped command.

use serde_json::{json, Map, Value};

use super::calls::{
    glob_call, recursive_read_call, required, resolve_path, str_field, Call, Invalid,
};
use super::{absolute_dir, Verdict};

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
    std::env::var("CLAUDE_PROJECT_DIR")
        .ok()
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
