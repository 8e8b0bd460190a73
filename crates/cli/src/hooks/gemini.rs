//! Gemini CLI (`BeforeTool` hooks): which tools are gated, how their
//! input becomes calls, the answer format — allow ⇒ no output; ask ⇒
//! `{"decision": "ask", "reason": …}`; deny ⇒ `{"decision": "deny",
//! "reason": …}`; other events ⇒ nothing — and whether a human can answer
//! an ask (Gemini CLI waits forever on an ask in a non-interactive run).

use serde_json::{json, Map, Value};

use super::ask::Answerer;
use super::calls::{
    glob_call, recursive_read_call, required, resolve_path, str_field, Call, Invalid,
};
use super::host_proc;
use super::{EventKind, Verdict};

/// Shell tools this adapter gates (the installed matcher names these).
pub const SHELL_TOOLS: &[&str] = &["run_shell_command"];
/// File tools this adapter gates: the names of Gemini CLI 0.61
/// (`grep_search`) and the older ones (`search_file_content`,
/// `read_many_files`).
pub const FILE_TOOLS: &[&str] = &[
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "grep_search",
    "search_file_content",
    "write_file",
    "replace",
];

/// What an event is for this adapter (`None`: no `hook_event_name`;
/// treated as the gated event, fail closed).
pub(super) fn event_kind(name: Option<&str>) -> EventKind {
    match name {
        None | Some("BeforeTool") => EventKind::PreTool,
        Some("AfterTool") => EventKind::PostTool,
        Some(_) => EventKind::Other,
    }
}

/// Whether a human can answer Gemini CLI's confirmation: the Gemini process
/// the hook runs under (nearest ancestor running `gemini`) is interactive —
/// no `-p`/`--prompt`, no positional query, and a terminal on its stdin.
/// Anything else, or a process that cannot be found or read: nobody.
pub(super) fn answerer() -> Answerer {
    let procs = host_proc::ancestors();
    let Some((p, script)) = procs
        .iter()
        .find_map(|p| script_index(&p.argv).map(|i| (p, i)))
    else {
        return Answerer::Nobody(
            "Whether a human can answer is unknown (the Gemini CLI process this hook runs under cannot be found)"
                .into(),
        );
    };
    let args = p.argv.get(script + 1..).unwrap_or_default();
    if let Some(why) = non_interactive_args(args) {
        return Answerer::Nobody(format!(
            "Nobody can answer a question in this non-interactive Gemini CLI run ({why})"
        ));
    }
    match host_proc::stdin_is_terminal(p.pid) {
        Some(true) => Answerer::Human,
        Some(false) => Answerer::Nobody(
            "Nobody can answer a question in this Gemini CLI run (no terminal: non-interactive)"
                .into(),
        ),
        None => Answerer::Nobody(
            "Whether a human can answer is unknown (cannot tell whether Gemini CLI has a terminal)"
                .into(),
        ),
    }
}

/// Index of the Gemini CLI script (or binary) in a process's argv.
pub(super) fn script_index(argv: &[String]) -> Option<usize> {
    argv.iter().take(4).position(|a| {
        matches!(
            host_proc::basename(a),
            "gemini" | "gemini.js" | "gemini.mjs" | "gemini.cjs"
        )
    })
}

/// Gemini CLI options that take the next word as their value. A word
/// after any other option is a positional query (fail closed: an unknown
/// option's value reads as a query, so the run counts as non-interactive).
const VALUE_OPTIONS: &[&str] = &[
    "-m",
    "--model",
    "-i",
    "--prompt-interactive",
    "-o",
    "--output-format",
    "--approval-mode",
    "-e",
    "--extensions",
    "-r",
    "--resume",
    "--delete-session",
    "--include-directories",
    "--allowed-tools",
    "--allowed-mcp-server-names",
    "--proxy",
    "--sandbox-image",
    "--telemetry-target",
    "--telemetry-otlp-endpoint",
    "--telemetry-otlp-protocol",
    "--telemetry-outfile",
    "--telemetry-log-prompts",
];

/// Why the arguments after the script make Gemini CLI non-interactive
/// (`-p`/`--prompt`, or a positional query), or `None`.
pub(super) fn non_interactive_args(args: &[String]) -> Option<&'static str> {
    let mut takes_value = false;
    for a in args {
        if a == "--prompt" || a.starts_with("--prompt=") {
            return Some("--prompt");
        }
        if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 && a[1..].contains('p') {
            return Some("-p");
        }
        if a == "--" {
            return Some("a query after --");
        }
        if !a.starts_with('-') || a == "-" {
            if !takes_value {
                // A positional query runs one prompt and exits.
                return Some("a query on the command line");
            }
            takes_value = false;
            continue;
        }
        takes_value = VALUE_OPTIONS.contains(&a.as_str());
    }
    None
}

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
        "grep_search" | "search_file_content" => {
            vec![recursive_read_call(dir_or_cwd(input), cwd)]
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn finds_the_gemini_script() {
        assert_eq!(
            script_index(&v(&["node", "/x/node_modules/.bin/gemini", "-p", "hi"])),
            Some(1)
        );
        assert_eq!(
            script_index(&v(&[
                "/usr/bin/node",
                "--max-old-space-size=8192",
                "/x/@google/gemini-cli/bundle/gemini.js"
            ])),
            Some(2)
        );
        assert_eq!(script_index(&v(&["/usr/local/bin/gemini"])), Some(0));
        assert_eq!(script_index(&v(&["bash", "-c", "echo gemini"])), None);
    }

    #[test]
    fn non_interactive_arguments() {
        assert_eq!(non_interactive_args(&v(&[])), None);
        assert_eq!(non_interactive_args(&v(&["--yolo"])), None);
        assert_eq!(non_interactive_args(&v(&["-i", "fix the bug"])), None);
        assert_eq!(non_interactive_args(&v(&["-m", "gemini-pro"])), None);
        assert_eq!(
            non_interactive_args(&v(&["-p", "hi", "--output-format", "json"])),
            Some("-p")
        );
        assert_eq!(non_interactive_args(&v(&["--prompt=hi"])), Some("--prompt"));
        assert_eq!(non_interactive_args(&v(&["-yp", "hi"])), Some("-p"));
        assert_eq!(
            non_interactive_args(&v(&["what is this"])),
            Some("a query on the command line")
        );
        assert_eq!(
            non_interactive_args(&v(&["--yolo", "query"])),
            Some("a query on the command line")
        );
        assert_eq!(
            non_interactive_args(&v(&["--unknown-option", "value"])),
            Some("a query on the command line"),
            "an unknown option's value reads as a query (fail closed)"
        );
    }
}
