//! Calls a hook event turns into: one shell command, or one path per file
//! tool (a glob or a recursive read is also checked for what lies below).
//! The helpers every host's mapping uses.

use serde_json::{Map, Value};
use shellgate_policy::candidates::{Scope, Touch, TouchKind};
use shellgate_shell::paths;

/// One call to evaluate.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) tool: String,
    /// Command, or path for file tools.
    pub(super) command: String,
    pub(super) working_directory: Option<String>,
    /// A directory (or glob base) the tool reads recursively: checked for
    /// read-protected paths below it before evaluation.
    pub(super) reads_below: Option<Touch>,
}

impl Call {
    pub(super) fn shell(command: String, wd: String) -> Call {
        Call {
            tool: "shell_execute".into(),
            command,
            working_directory: Some(wd),
            reads_below: None,
        }
    }

    pub(super) fn file(tool: &str, path: String, cwd: &str) -> Call {
        Call {
            tool: tool.into(),
            command: path,
            working_directory: Some(cwd.to_string()),
            reads_below: None,
        }
    }
}

/// A gated tool's input could not be turned into calls.
pub(super) struct Invalid(pub(super) String);

pub(super) fn str_field<'a>(input: &'a Map<String, Value>, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| input.get(*n).and_then(Value::as_str))
}

pub(super) fn required<'a>(
    input: &'a Map<String, Value>,
    names: &[&str],
    tool: &str,
) -> std::result::Result<&'a str, Invalid> {
    match str_field(input, names) {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(Invalid(format!(
            "{tool}: tool_input.{} is missing or not a non-empty string",
            names[0]
        ))),
    }
}

/// Absolute form of a path the host gave relative to `base`. `~` paths are
/// left for the engine, which expands them against the user's home.
pub(super) fn resolve_path(base: &str, p: &str) -> String {
    let p = p.trim();
    if p.starts_with('/') {
        paths::normalize(p)
    } else if p == "~" || p.starts_with("~/") {
        p.to_string()
    } else {
        paths::resolve(base, p)
    }
}

pub(super) const GLOB_CHARS: &[char] = &['*', '?', '[', '{'];

/// Split a glob into its static directory and whether it globs (and
/// recursively, `**`).
pub(super) fn glob_base(pattern: &str) -> (String, bool, bool) {
    if !pattern.contains(GLOB_CHARS) {
        return (pattern.to_string(), false, false);
    }
    let recursive = pattern.contains("**");
    let mut kept: Vec<&str> = Vec::new();
    for seg in pattern.split('/') {
        if seg.contains(GLOB_CHARS) {
            break;
        }
        kept.push(seg);
    }
    let base = kept.join("/");
    let base = if base.is_empty() && pattern.starts_with('/') {
        "/".to_string()
    } else {
        base
    };
    (base, true, recursive)
}

/// A call for a path that may be a glob (read or list).
pub(super) fn glob_call(tool: &str, base_dir: &str, pattern: &str, cwd: &str) -> Call {
    let (literal, globbed, recursive) = glob_base(pattern.trim());
    let path = if literal.is_empty() {
        resolve_path(cwd, base_dir)
    } else {
        resolve_path(base_dir, &literal)
    };
    let mut call = Call::file(tool, path.clone(), cwd);
    if globbed && tool != "file_list" {
        call.reads_below = Some(Touch::new(
            path,
            TouchKind::Operand,
            Scope::Glob { recursive },
        ));
    }
    call
}

/// A tool that reads everything below a directory (grep-like).
pub(super) fn recursive_read_call(dir: String, cwd: &str) -> Call {
    let mut call = Call::file("file_read", dir.clone(), cwd);
    call.reads_below = Some(Touch::new(dir, TouchKind::Operand, Scope::Exact));
    call
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_bases() {
        assert_eq!(glob_base("src/**/*.rs"), ("src".into(), true, true));
        assert_eq!(glob_base("/etc/*"), ("/etc".into(), true, false));
        assert_eq!(glob_base("*.md"), ("".into(), true, false));
        assert_eq!(glob_base("/*"), ("/".into(), true, false));
        assert_eq!(glob_base("a/b.txt"), ("a/b.txt".into(), false, false));
    }
}
