//! Gemini CLI (`BeforeTool` hooks): which tools are gated, how their
//! input becomes calls, and the answer format — allow ⇒ no output; ask ⇒
//! `{"decision": "ask", "reason": …}`; deny ⇒ `{"decision": "deny",
//! "reason": …}`.

use serde_json::{json, Map, Value};

use super::calls::{
    glob_call, recursive_read_call, required, resolve_path, str_field, Call, Invalid,
};
use super::Verdict;

/// Shell tools this adapter gates (the installed matcher names these).
pub const SHELL_TOOLS: &[&str] = &["run_shell_command"];
/// File tools this adapter gates.
pub const FILE_TOOLS: &[&str] = &[
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "search_file_content",
    "write_file",
    "replace",
];

/// The answer for a verdict (`None` = no output: allow).
pub(super) fn output(v: Verdict, reason: &str) -> Option<String> {
    match v {
        Verdict::Allow => None,
        v => Some(json!({"decision": v.as_str(), "reason": reason}).to_string()),
    }
}

/// The calls of one Gemini CLI tool use.
pub(super) fn map(
    tool: &str,
    input: &Map<String, Value>,
    cwd: &str,
) -> std::result::Result<Vec<Call>, Invalid> {
    let dir_or_cwd = |input: &Map<String, Value>| {
        str_field(input, &["dir_path", "path", "directory"])
            .filter(|s| !s.trim().is_empty())
            .map(|p| resolve_path(cwd, p))
            .unwrap_or_else(|| cwd.to_string())
    };
    Ok(match tool {
        "run_shell_command" => {
            let command = required(input, &["command"], tool)?.to_string();
            let wd = match str_field(input, &["dir_path", "directory"]) {
                Some(d) if !d.trim().is_empty() => resolve_path(cwd, d),
                _ => cwd.to_string(),
            };
            vec![Call::shell(command, wd)]
        }
        "read_file" => {
            let p = required(input, &["file_path", "absolute_path", "path"], tool)?;
            vec![Call::file("file_read", resolve_path(cwd, p), cwd)]
        }
        "list_directory" => {
            let p = required(input, &["dir_path", "path"], tool)?;
            vec![Call::file("file_list", resolve_path(cwd, p), cwd)]
        }
        "glob" => {
            let pattern = required(input, &["pattern"], tool)?;
            let base = dir_or_cwd(input);
            vec![glob_call("file_list", &base, pattern, cwd)]
        }
        "search_file_content" => vec![recursive_read_call(dir_or_cwd(input), cwd)],
        "read_many_files" => {
            let list = ["include", "paths"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_array))
                .ok_or_else(|| {
                    Invalid(format!(
                        "{tool}: tool_input.include is missing or not an array"
                    ))
                })?;
            let mut calls = Vec::new();
            for item in list {
                match item.as_str() {
                    Some(s) if !s.trim().is_empty() => {
                        calls.push(glob_call("file_read", cwd, s, cwd));
                    }
                    _ => {
                        return Err(Invalid(format!(
                            "{tool}: every entry of tool_input.include must be a non-empty string"
                        )))
                    }
                }
            }
            if calls.is_empty() {
                return Err(Invalid(format!("{tool}: tool_input.include is empty")));
            }
            calls
        }
        "write_file" => {
            let p = required(input, &["file_path", "path"], tool)?;
            vec![Call::file("file_write", resolve_path(cwd, p), cwd)]
        }
        "replace" => {
            let p = required(input, &["file_path", "path"], tool)?;
            vec![Call::file("file_edit", resolve_path(cwd, p), cwd)]
        }
        _ => return Err(Invalid(format!("{tool}: not a gated tool"))),
    })
}
