//! `shellgate install|uninstall <host> [--project]`: merge the hook entry
//! into the host's hook configuration (SPEC §13).
//!
//! - Claude Code: `~/.claude/settings.json` (`.claude/settings.json` with
//!   `--project`), `hooks.PreToolUse`, with `"onFailure": "block"` so a hook
//!   that cannot start or times out blocks the call.
//! - Gemini CLI: `~/.gemini/settings.json` (`.gemini/settings.json`),
//!   `hooks.BeforeTool` (timeout in milliseconds).
//! - Codex: `~/.codex/hooks.json` (`.codex/hooks.json`), `hooks.PreToolUse`.
//!
//! The merge keeps every other key and hook, writes `<file>.bak` with the
//! previous content, replaces the file atomically, and is idempotent: our
//! entry is recognised by its command (`…shellgate … hook <host>`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use clap::Args;
use serde_json::{json, Map, Value};

use crate::cli::ChannelArg;
use crate::edge::Homes;
use crate::hooks::{self, Host};

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// The host: claude-code, gemini or codex.
    #[arg(value_enum)]
    pub host: Host,
    /// Write the project's configuration in the current directory
    /// (.claude/settings.json, .gemini/settings.json, .codex/hooks.json)
    /// instead of the user's.
    #[arg(long)]
    pub project: bool,
    /// Channel baked into the hook command (`headless` for unattended runs).
    #[arg(long, value_enum)]
    pub channel: Option<ChannelArg>,
}

#[derive(Args, Debug)]
pub struct UninstallArgs {
    /// The host: claude-code, gemini or codex.
    #[arg(value_enum)]
    pub host: Host,
    /// Edit the project's configuration in the current directory.
    #[arg(long)]
    pub project: bool,
}

/// Seconds a host waits for the hook (milliseconds for Gemini).
const TIMEOUT_SECS: u64 = 30;

/// The host's configuration file.
pub fn settings_path(homes: &Homes, host: Host, project: bool) -> Result<PathBuf> {
    let base = if project {
        std::env::current_dir().context("cannot determine the current directory")?
    } else {
        PathBuf::from(&homes.user)
    };
    Ok(match host {
        Host::ClaudeCode => base.join(".claude").join("settings.json"),
        Host::Gemini => base.join(".gemini").join("settings.json"),
        Host::Codex => base.join(".codex").join("hooks.json"),
    })
}

fn event_name(host: Host) -> &'static str {
    match host {
        Host::ClaudeCode | Host::Codex => "PreToolUse",
        Host::Gemini => "BeforeTool",
    }
}

/// The matcher naming the gated tools.
pub fn matcher(host: Host) -> String {
    let names: Vec<&str> = match host {
        Host::ClaudeCode => hooks::claude_code::SHELL_TOOLS
            .iter()
            .chain(hooks::claude_code::FILE_TOOLS)
            .copied()
            .collect(),
        Host::Gemini => hooks::gemini::SHELL_TOOLS
            .iter()
            .chain(hooks::gemini::FILE_TOOLS)
            .copied()
            .collect(),
        // Codex reports every shell-like tool as `Bash` to hooks.
        Host::Codex => vec!["Bash", "apply_patch"],
    };
    names.join("|")
}

/// The command line the host runs.
fn hook_command(homes: &Homes, host: Host, channel: Option<ChannelArg>) -> Result<String> {
    let exe = std::env::current_exe().context("cannot determine the path of this program")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let mut cmd = hooks::shell_word(&exe.to_string_lossy());
    let default_home = PathBuf::from(&homes.user).join(".shellgate");
    if homes.gate != default_home {
        cmd.push_str(&format!(" --home {}", hooks::shell_word(&homes.gate_str())));
    }
    cmd.push_str(&format!(" hook {}", host.name()));
    if let Some(c) = channel {
        let c: shellgate_policy::Channel = c.into();
        cmd.push_str(&format!(" --channel {}", c.as_str()));
    }
    Ok(cmd)
}

/// Our matcher group for the host.
fn group(host: Host, command: &str) -> Value {
    let handler = match host {
        Host::ClaudeCode => json!({
            "type": "command",
            "command": command,
            "timeout": TIMEOUT_SECS,
            "onFailure": "block",
        }),
        Host::Gemini => json!({
            "name": "shellgate",
            "type": "command",
            "command": command,
            "timeout": TIMEOUT_SECS * 1000,
            "description": "shellgate: allow, ask or deny shell commands and file access",
        }),
        Host::Codex => json!({
            "type": "command",
            "command": command,
            "timeout": TIMEOUT_SECS,
            "statusMessage": "shellgate: checking the call",
        }),
    };
    json!({"matcher": matcher(host), "hooks": [handler]})
}

/// Split a command line into words (single and double quotes, backslash).
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        _ => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// Whether a hook handler is the shellgate hook for `host`.
fn is_ours(handler: &Value, host: Host) -> bool {
    let Some(cmd) = handler.get("command").and_then(Value::as_str) else {
        return false;
    };
    let w = words(cmd);
    let Some(first) = w.first() else {
        return false;
    };
    let base = Path::new(first)
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    if base != "shellgate" && base != "shellgate.exe" {
        return false;
    }
    w.windows(2).any(|p| p[0] == "hook" && p[1] == host.name())
}

/// Remove our handlers from the event's groups; groups left empty by that
/// are dropped. Returns how many handlers were removed.
fn remove_ours(groups: &mut Vec<Value>, host: Host) -> usize {
    let mut removed = 0;
    groups.retain_mut(|g| {
        let Some(hooks) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = hooks.len();
        hooks.retain(|h| !is_ours(h, host));
        let n = before - hooks.len();
        removed += n;
        !(n > 0 && hooks.is_empty())
    });
    removed
}

/// A configuration file: its previous bytes (if it existed) and its object.
type Doc = (Option<Vec<u8>>, Map<String, Value>);

/// Read the configuration file as a JSON object (missing or blank ⇒ `{}`).
fn read_doc(path: &Path) -> Result<Doc> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((None, Map::new())),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = String::from_utf8_lossy(&bytes);
    if text.trim().is_empty() {
        return Ok((Some(bytes), Map::new()));
    }
    let v: Value = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not valid JSON; it was left unchanged (fix or move it, then retry)",
            path.display()
        )
    })?;
    match v {
        Value::Object(m) => Ok((Some(bytes), m)),
        _ => bail!(
            "{} does not hold a JSON object; it was left unchanged",
            path.display()
        ),
    }
}

/// The `hooks.<event>` array, created when absent.
fn event_groups<'a>(
    doc: &'a mut Map<String, Value>,
    host: Host,
    path: &Path,
) -> Result<&'a mut Vec<Value>> {
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        bail!(
            "{}: \"hooks\" is not an object; the file was left unchanged",
            path.display()
        );
    };
    let groups = hooks
        .entry(event_name(host))
        .or_insert_with(|| Value::Array(Vec::new()));
    match groups.as_array_mut() {
        Some(g) => Ok(g),
        None => bail!(
            "{}: \"hooks.{}\" is not an array; the file was left unchanged",
            path.display(),
            event_name(host)
        ),
    }
}

/// Write `<file>.bak` (previous content) and replace the file atomically.
fn write_doc(
    path: &Path,
    previous: Option<&[u8]>,
    doc: &Map<String, Value>,
) -> Result<Option<PathBuf>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let backup = match previous {
        Some(bytes) => {
            let b = PathBuf::from(format!("{}.bak", path.display()));
            std::fs::write(&b, bytes)
                .with_context(|| format!("cannot write the backup {}", b.display()))?;
            Some(b)
        }
        None => None,
    };
    let mut text = serde_json::to_string_pretty(&Value::Object(doc.clone()))?;
    text.push('\n');
    let tmp = PathBuf::from(format!(
        "{}.shellgate-tmp-{}",
        path.display(),
        std::process::id()
    ));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot replace {}", path.display()));
    }
    Ok(backup)
}

pub fn install(homes: &Homes, a: &InstallArgs) -> Result<u8> {
    let path = settings_path(homes, a.host, a.project)?;
    let command = hook_command(homes, a.host, a.channel)?;
    let (previous, mut doc) = read_doc(&path)?;
    let original = doc.clone();
    let wanted = group(a.host, &command);
    {
        let groups = event_groups(&mut doc, a.host, &path)?;
        let ours: Vec<&Value> = groups
            .iter()
            .filter(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|h| h.iter().any(|x| is_ours(x, a.host)))
            })
            .collect();
        let already = ours.len() == 1 && *ours[0] == wanted;
        if !already {
            remove_ours(groups, a.host);
            groups.push(wanted);
        }
    }
    if doc == original && previous.is_some() {
        println!(
            "The shellgate hook for {} is already installed in {}; nothing changed.",
            a.host.name(),
            path.display()
        );
        return Ok(0);
    }
    let backup = write_doc(&path, previous.as_deref(), &doc)?;
    println!(
        "Installed the shellgate hook for {} in {} ({} matcher: {}).",
        a.host.name(),
        path.display(),
        event_name(a.host),
        matcher(a.host)
    );
    if let Some(b) = backup {
        println!("Previous content kept in {}.", b.display());
    }
    println!("Hook command: {command}");
    if a.host == Host::Codex {
        println!("Note: Codex runs hooks.json hooks only with hooks enabled (config.toml: [features] hooks = true on versions where they are off by default).");
    }
    Ok(0)
}

pub fn uninstall(homes: &Homes, a: &UninstallArgs) -> Result<u8> {
    let path = settings_path(homes, a.host, a.project)?;
    let (previous, mut doc) = read_doc(&path)?;
    if previous.is_none() {
        println!(
            "No shellgate hook for {} in {} (the file does not exist); nothing changed.",
            a.host.name(),
            path.display()
        );
        return Ok(0);
    }
    let event = event_name(a.host);
    let removed = {
        let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_object_mut) else {
            println!(
                "No shellgate hook for {} in {}; nothing changed.",
                a.host.name(),
                path.display()
            );
            return Ok(0);
        };
        let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) else {
            println!(
                "No shellgate hook for {} in {}; nothing changed.",
                a.host.name(),
                path.display()
            );
            return Ok(0);
        };
        let n = remove_ours(groups, a.host);
        // Containers left empty by the removal go as well.
        if n > 0 && groups.is_empty() {
            hooks.remove(event);
        }
        n
    };
    if removed == 0 {
        println!(
            "No shellgate hook for {} in {}; nothing changed.",
            a.host.name(),
            path.display()
        );
        return Ok(0);
    }
    if doc
        .get("hooks")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        doc.remove("hooks");
    }
    let backup = write_doc(&path, previous.as_deref(), &doc)?;
    println!(
        "Removed the shellgate hook for {} from {}.",
        a.host.name(),
        path.display()
    );
    if let Some(b) = backup {
        println!("Previous content kept in {}.", b.display());
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_ownership() {
        assert_eq!(
            words(r#"'/a b/shellgate' --home "/x y" hook claude-code"#),
            vec!["/a b/shellgate", "--home", "/x y", "hook", "claude-code"]
        );
        let ours = json!({"command": "/usr/bin/shellgate hook gemini"});
        assert!(is_ours(&ours, Host::Gemini));
        assert!(!is_ours(&ours, Host::Codex));
        assert!(!is_ours(
            &json!({"command": "echo shellgate hook gemini"}),
            Host::Gemini
        ));
        assert!(!is_ours(&json!({"type": "command"}), Host::Gemini));
    }

    #[test]
    fn remove_drops_only_emptied_groups() {
        let mut groups = vec![
            json!({"matcher": "Bash", "hooks": [
                {"type": "command", "command": "/bin/shellgate hook claude-code"},
                {"type": "command", "command": "other"}]}),
            json!({"matcher": "Bash", "hooks": [
                {"type": "command", "command": "shellgate hook claude-code"}]}),
            json!({"matcher": "Edit", "hooks": []}),
        ];
        assert_eq!(remove_ours(&mut groups, Host::ClaudeCode), 2);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0]["hooks"].as_array().map(Vec::len), Some(1));
        assert_eq!(groups[1]["matcher"], "Edit");
    }
}
