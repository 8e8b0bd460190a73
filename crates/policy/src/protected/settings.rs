//! Host settings files: which paths are host control files, and the
//! command strings a settings file runs (bounded read, JSON with comments).

use super::MAX_SETTINGS_BYTES;
use crate::fs::Fs;
use crate::resolve;

/// Host control files (§9.4, §15.18), by name in any directory (`path`
/// already folded for the OS's case rule): `.claude/settings*.json`,
/// `.claude/hooks/`, `.claude/commands/`, `.claude.json`, `.mcp.json`,
/// everything in `.gemini/` but its `tmp/`, everything in `.codex/`.
pub(super) fn host_control(path: &str) -> bool {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let Some(name) = segs.last() else {
        return false;
    };
    if *name == ".claude.json" || *name == ".mcp.json" {
        return true;
    }
    for (i, s) in segs.iter().enumerate() {
        let rest = &segs[i + 1..];
        match *s {
            ".claude" => {
                if rest.len() == 1 && rest[0].starts_with("settings") && rest[0].ends_with(".json")
                {
                    return true;
                }
                if rest
                    .first()
                    .is_some_and(|r| *r == "hooks" || *r == "commands")
                {
                    return true;
                }
            }
            ".gemini" if rest.first().is_some_and(|r| *r != "tmp") => return true,
            ".codex" => return true,
            _ => {}
        }
    }
    false
}

/// The command strings a host settings file runs (bounded read; JSON with
/// comments tolerated).
pub(super) fn settings_commands(fs: &dyn Fs, file: &str) -> Vec<String> {
    let Ok(data) = fs.read_file(file, MAX_SETTINGS_BYTES) else {
        return Vec::new();
    };
    if data.len() > MAX_SETTINGS_BYTES {
        return Vec::new();
    }
    let text = strip_json_comments(&String::from_utf8_lossy(&data));
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(h) = v.get("hooks") {
        collect_commands(h, &mut out, 0);
    }
    if let Some(c) = v.pointer("/statusLine/command").and_then(|c| c.as_str()) {
        out.push(c.to_string());
    }
    for key in [
        "apiKeyHelper",
        "awsAuthRefresh",
        "awsCredentialExport",
        "otelHeadersHelper",
    ] {
        if let Some(c) = v.get(key).and_then(|c| c.as_str()) {
            out.push(c.to_string());
        }
    }
    if let Some(servers) = v.get("mcpServers").and_then(|s| s.as_object()) {
        for s in servers.values() {
            let mut line = String::new();
            if let Some(c) = s.get("command").and_then(|c| c.as_str()) {
                line.push_str(&quote(c));
            }
            for a in s
                .get("args")
                .and_then(|a| a.as_array())
                .into_iter()
                .flatten()
            {
                if let Some(a) = a.as_str() {
                    line.push(' ');
                    line.push_str(&quote(a));
                }
            }
            if !line.is_empty() {
                out.push(line);
            }
        }
    }
    out
}

pub(super) fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub(super) fn collect_commands(v: &serde_json::Value, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                if k == "command" {
                    if let Some(s) = x.as_str() {
                        out.push(s.to_string());
                        continue;
                    }
                }
                collect_commands(x, out, depth + 1);
            }
        }
        serde_json::Value::Array(a) => {
            for x in a {
                collect_commands(x, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Remove `//` and `/* */` comments outside strings (Gemini's settings).
pub(super) fn strip_json_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The files a hook command line names (absolute, as written): words with
/// a `/` or a script extension, with the hosts' project-directory variables
/// and `~` expanded, relative ones against `base`.
pub(super) fn command_paths(cmd: &str, base: &str, home: &str) -> Vec<String> {
    let mut line = cmd.to_string();
    for var in [
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
        "GEMINI_CWD",
        "CODEX_PROJECT_DIR",
        "PWD",
    ] {
        line = line
            .replace(&format!("${{{var}}}"), base)
            .replace(&format!("${var}"), base);
    }
    line = line.replace("${HOME}", home).replace("$HOME", home);
    let mut out = Vec::new();
    for w in split_words(&line) {
        let w = if w == "~" {
            home.to_string()
        } else if let Some(r) = w.strip_prefix("~/") {
            format!("{home}/{r}")
        } else {
            w
        };
        let script = [
            ".sh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".bash",
        ]
        .iter()
        .any(|e| w.ends_with(e));
        if w.starts_with('-')
            || w.contains("://")
            || w.contains('$')
            || !(w.contains('/') || script)
        {
            continue;
        }
        out.push(resolve::join_raw(base, &w));
    }
    out
}

/// Split a command line into words (quotes removed; operators split).
pub(super) fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (None, c)
                if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>') =>
            {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
