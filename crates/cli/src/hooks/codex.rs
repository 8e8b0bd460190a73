//! OpenAI Codex (`PreToolUse` hooks): which tools are gated, how their
//! input (a command string or argv, an `apply_patch` body) becomes calls,
//! and the answer format — allow ⇒ no output; deny ⇒ the Claude Code shape
//! with `"deny"`. Codex hooks cannot ask (Codex rejects `ask`), so nobody
//! can answer one (`ask.rs` turns an ask into a deny naming the command
//! that grants the call).

use serde_json::{Map, Value};
use shellgate_shell::paths;

use super::calls::{required, resolve_path, str_field, Call, Invalid};
use super::reasons::shell_word;
use super::{claude_code, EventKind, Verdict};

/// Shell tools this adapter gates. Codex reports every shell-like tool as
/// `Bash` to hooks; the other names are accepted in case an event carries
/// the internal tool name.
pub const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "shell",
    "local_shell",
    "shell_command",
    "exec_command",
    "unified_exec",
    "container.exec",
];
/// File tools this adapter gates.
pub const FILE_TOOLS: &[&str] = &["apply_patch"];

/// The answer for a verdict (`None` = no output: allow). An ask never
/// reaches here (`ask.rs`); if one did, it is a deny.
pub(super) fn output(v: Verdict, reason: &str) -> Option<String> {
    match v {
        Verdict::Allow => None,
        _ => Some(claude_code::pre_tool_use("deny", reason).to_string()),
    }
}

/// What an event is for this adapter (`None`: no `hook_event_name`;
/// treated as the gated event, fail closed).
pub(super) fn event_kind(name: Option<&str>) -> EventKind {
    match name {
        None | Some("PreToolUse") => EventKind::PreTool,
        Some("PostToolUse") => EventKind::PostTool,
        Some(_) => EventKind::Other,
    }
}

/// `["bash", "-lc", "script"]` ⇒ `script`; other argv ⇒ quoted words.
pub(super) fn argv_command(argv: &[Value]) -> Option<String> {
    let words: Vec<&str> = argv.iter().map(Value::as_str).collect::<Option<_>>()?;
    if words.is_empty() {
        return None;
    }
    if words.len() == 3 {
        let shell = paths::basename(words[0]);
        let flag = words[1];
        if matches!(shell, "bash" | "sh" | "zsh" | "dash")
            && flag.starts_with('-')
            && flag.ends_with('c')
            && flag[1..].chars().all(|c| c.is_ascii_alphabetic())
        {
            return Some(words[2].to_string());
        }
    }
    Some(
        words
            .iter()
            .map(|w| shell_word(w))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// Paths an `apply_patch` body touches (added, updated, deleted, moved to).
pub fn patch_paths(patch: &str) -> Vec<String> {
    const MARKERS: [&str; 4] = [
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in patch.lines() {
        let line = line.trim();
        for m in MARKERS {
            if let Some(rest) = line.strip_prefix(m) {
                let p = rest.trim().to_string();
                if !p.is_empty() && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The calls of one Codex tool use.
pub(super) fn map(
    tool: &str,
    input: &Map<String, Value>,
    cwd: &str,
) -> std::result::Result<Vec<Call>, Invalid> {
    let wd = match str_field(input, &["workdir", "cwd"]) {
        Some(d) if !d.trim().is_empty() => resolve_path(cwd, d),
        _ => cwd.to_string(),
    };
    if tool == "apply_patch" {
        let patch = required(input, &["command", "input", "patch"], tool)?;
        let touched = patch_paths(patch);
        if touched.is_empty() {
            return Err(Invalid(
                "apply_patch: the patch names no file (*** Add File: / *** Update File: / *** Delete File: / *** Move to:)"
                    .into(),
            ));
        }
        return Ok(touched
            .into_iter()
            .map(|p| Call::file("file_write", resolve_path(&wd, &p), cwd))
            .collect());
    }
    let command = match input.get("command") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::Array(a)) => argv_command(a).ok_or_else(|| {
            Invalid(format!(
                "{tool}: tool_input.command is not a list of strings"
            ))
        })?,
        _ => {
            return Err(Invalid(format!(
                "{tool}: tool_input.command is missing or empty"
            )))
        }
    };
    Ok(vec![Call::shell(command, wd)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patch_paths_cover_every_marker() {
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Delete File: d.md\n*** End Patch\n";
        assert_eq!(
            patch_paths(patch),
            vec!["a.txt", "src/b.rs", "src/c.rs", "d.md"]
        );
        assert!(patch_paths("no markers").is_empty());
    }

    #[test]
    fn argv_forms() {
        let v = |a: &[&str]| a.iter().map(|s| json!(s)).collect::<Vec<_>>();
        assert_eq!(
            argv_command(&v(&["bash", "-lc", "git status"])).as_deref(),
            Some("git status")
        );
        assert_eq!(
            argv_command(&v(&["ls", "-la", "a b"])).as_deref(),
            Some("ls -la 'a b'")
        );
        assert_eq!(argv_command(&[]), None);
        assert_eq!(argv_command(&[json!(1)]), None);
    }
}
