//! `shellgate install|uninstall <host> [--project]`: merge the hook entry
//! into the host's hook configuration (SPEC §13, §16) so that the gate
//! really runs.
//!
//! - Claude Code: `~/.claude/settings.json` (`.claude/settings.json` with
//!   `--project`): `hooks.PreToolUse` with `"onFailure": "block"` and a
//!   timeout, so a hook that cannot start or times out blocks the call
//!   (Claude Code ≥ 2.1.295; an older one is warned about), and
//!   `hooks.PostToolUse`, so a call the gate asked about and a human
//!   approved in Claude's dialog is recorded in the audit log.
//! - Gemini CLI: `~/.gemini/settings.json` (`.gemini/settings.json`):
//!   `hooks.BeforeTool` (timeout in milliseconds), matching the tool names
//!   of Gemini CLI 0.61 and the older ones.
//! - Codex: `$CODEX_HOME/hooks.json` (default `~/.codex/hooks.json`;
//!   `.codex/hooks.json` with `--project`): `hooks.PreToolUse`, and the
//!   hook's trust recorded in `$CODEX_HOME/config.toml` exactly as Codex
//!   computes it (`codex_trust.rs`) — Codex silently skips an untrusted
//!   hook. Trust entries of the user's own hooks that move because ours
//!   was added or removed move with them.
//!
//! The merge keeps every other key and hook, writes `<file>.bak` with the
//! previous content, replaces the file atomically, and is idempotent: our
//! entry is recognised by its command (`…shellgate … hook <host>`) and a
//! reinstall rewrites it in place. Uninstall removes exactly what install
//! added.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use clap::Args;
use serde_json::{json, Map, Value};

use super::codex_trust::{self, Config as CodexConfig};
use super::hostinfo;
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
    /// Seconds a hook waits for a human's answer in the approval service
    /// (`shellgate serve`) before the host's own behaviour; written into the
    /// hook command (`hook --wait`), with the host's hook timeout set 30 s
    /// above it. 0: never wait.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_WAIT_SECS,
          value_parser = clap::value_parser!(u64).range(0..=hooks::ask::MAX_WAIT_SECS))]
    pub wait: u64,
    /// Run the hook through the hook client `shellgate-hook` (installed
    /// next to this program): while the approval service runs, its warm
    /// process evaluates each event (about half the time per tool call);
    /// without the service the client runs this program's hook (about a
    /// millisecond more per call). Answers are the same either way.
    #[arg(long)]
    pub hook_client: bool,
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

/// How long an installed hook waits for the approval service by default.
pub const DEFAULT_WAIT_SECS: u64 = 120;

/// What a host's hook timeout adds to the hook's `--wait`: above the
/// supervisor's deadline for a waiting hook (`--wait` + 15 s,
/// `hooks::failsafe::DEADLINE`), so the host always gets the hook's answer
/// or block before its own timeout. The deadline chain, from the hook's
/// start: the service expires the request at `wait`; the hook's client
/// gives up at `wait` + 3 s; its watchdog at `wait` + 10 s; the supervisor
/// at `wait` + 15 s; the host at `wait` + 30 s.
pub const TIMEOUT_SLACK_SECS: u64 = 30;

/// The host's hook timeout in seconds for a hook that waits `wait` seconds
/// (Gemini's setting is in milliseconds).
pub fn timeout_secs(wait: u64) -> u64 {
    wait + TIMEOUT_SLACK_SECS
}

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home(homes: &Homes) -> PathBuf {
    match std::env::var_os("CODEX_HOME") {
        Some(v) if !v.is_empty() => {
            let p = PathBuf::from(v);
            p.canonicalize().unwrap_or(p)
        }
        _ => PathBuf::from(&homes.user).join(".codex"),
    }
}

/// The directory of a project-level install (the current directory).
pub fn project_dir() -> Result<PathBuf> {
    std::env::current_dir().context("cannot determine the current directory")
}

/// The host's configuration file.
pub fn settings_path(homes: &Homes, host: Host, project: bool) -> Result<PathBuf> {
    if project {
        let base = project_dir()?;
        return Ok(match host {
            Host::ClaudeCode => base.join(".claude").join("settings.json"),
            Host::Gemini => base.join(".gemini").join("settings.json"),
            Host::Codex => base.join(".codex").join("hooks.json"),
        });
    }
    let base = PathBuf::from(&homes.user);
    Ok(match host {
        Host::ClaudeCode => base.join(".claude").join("settings.json"),
        Host::Gemini => base.join(".gemini").join("settings.json"),
        Host::Codex => codex_home(homes).join("hooks.json"),
    })
}

/// Codex's `config.toml`, where hook trust is recorded (the user's, also
/// for a project's hooks.json).
pub fn codex_config_path(homes: &Homes) -> PathBuf {
    codex_home(homes).join("config.toml")
}

/// The events shellgate installs for a host; the first is the gated one.
pub fn events(host: Host) -> &'static [&'static str] {
    match host {
        Host::ClaudeCode => &["PreToolUse", "PostToolUse"],
        Host::Codex => &["PreToolUse"],
        Host::Gemini => &["BeforeTool"],
    }
}

/// The gated event.
pub fn event_name(host: Host) -> &'static str {
    events(host)[0]
}

/// The tool names the matcher must name.
pub fn gated_tools(host: Host) -> Vec<&'static str> {
    match host {
        // Codex reports every shell-like tool as `Bash` to hooks.
        Host::Codex => vec!["Bash", "apply_patch"],
        h => {
            let [shell, file] = h.tools();
            shell.iter().chain(file.iter()).copied().collect()
        }
    }
}

/// The matcher naming the gated tools.
pub fn matcher(host: Host) -> String {
    gated_tools(host).join("|")
}

/// The hook client's file name (`src/bin/shellgate-hook.rs`).
pub const HOOK_CLIENT: &str = "shellgate-hook";

/// The command line the host runs.
fn hook_command(
    homes: &Homes,
    host: Host,
    channel: Option<ChannelArg>,
    wait: u64,
    client: bool,
) -> Result<String> {
    let exe = std::env::current_exe().context("cannot determine the path of this program")?;
    let mut exe = exe.canonicalize().unwrap_or(exe);
    if client {
        exe = exe.with_file_name(HOOK_CLIENT);
        if !exe.is_file() {
            anyhow::bail!(
                "--hook-client: the hook client {} is not installed next to this program",
                exe.display()
            );
        }
    }
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
    cmd.push_str(&format!(" --wait {wait}"));
    Ok(cmd)
}

/// Our matcher group for one of the host's events; `timeout` in seconds.
pub fn group(host: Host, event: &str, command: &str, timeout: u64) -> Value {
    let handler = match host {
        Host::ClaudeCode if event == "PreToolUse" => json!({
            "type": "command",
            "command": command,
            "timeout": timeout,
            "onFailure": "block",
        }),
        // After the tool ran there is nothing to block: a failing record
        // must not disturb the session.
        Host::ClaudeCode => json!({
            "type": "command",
            "command": command,
            "timeout": timeout,
        }),
        Host::Gemini => json!({
            "name": "shellgate",
            "type": "command",
            "command": command,
            "timeout": timeout * 1000,
            "description": "shellgate: allow, ask or deny shell commands and file access",
        }),
        Host::Codex => json!({
            "type": "command",
            "command": command,
            "timeout": timeout,
            "statusMessage": "shellgate: checking the call",
        }),
    };
    json!({"matcher": matcher(host), "hooks": [handler]})
}

/// Split a command line into words (single and double quotes, backslash).
pub fn words(cmd: &str) -> Vec<String> {
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
pub fn is_ours(handler: &Value, host: Host) -> bool {
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
    if !["shellgate", "shellgate.exe", HOOK_CLIENT].contains(&base.as_str()) {
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
pub type Doc = (Option<Vec<u8>>, Map<String, Value>);

/// Read the configuration file as a JSON object (missing or blank ⇒ `{}`).
pub fn read_doc(path: &Path) -> Result<Doc> {
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
    event: &str,
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
        .entry(event)
        .or_insert_with(|| Value::Array(Vec::new()));
    match groups.as_array_mut() {
        Some(g) => Ok(g),
        None => bail!(
            "{}: \"hooks.{event}\" is not an array; the file was left unchanged",
            path.display()
        ),
    }
}

/// Whether every handler of a group is ours (and it has one).
fn all_ours(group: &Value, host: Host) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|h| !h.is_empty() && h.iter().all(|x| is_ours(x, host)))
}

/// Put our group in place: where our previous group was (so nobody's
/// position, and so no Codex trust key, moves), else at the end.
fn place_ours(groups: &mut Vec<Value>, host: Host, wanted: Value) {
    let slot = groups.iter().position(|g| all_ours(g, host));
    remove_ours(groups, host);
    match slot {
        Some(i) => groups.insert(i.min(groups.len()), wanted),
        None => groups.push(wanted),
    }
}

/// Write `<file>.bak` (previous content) and replace the file atomically.
pub(super) fn write_bytes(
    path: &Path,
    previous: Option<&[u8]>,
    bytes: &[u8],
) -> Result<Option<PathBuf>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let backup = match previous {
        Some(prev) => {
            let b = PathBuf::from(format!("{}.bak", path.display()));
            std::fs::write(&b, prev)
                .with_context(|| format!("cannot write the backup {}", b.display()))?;
            Some(b)
        }
        None => None,
    };
    let tmp = PathBuf::from(format!(
        "{}.shellgate-tmp-{}",
        path.display(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot replace {}", path.display()));
    }
    Ok(backup)
}

fn write_doc(
    path: &Path,
    previous: Option<&[u8]>,
    doc: &Map<String, Value>,
) -> Result<Option<PathBuf>> {
    let mut text = serde_json::to_string_pretty(&Value::Object(doc.clone()))?;
    text.push('\n');
    write_bytes(path, previous, text.as_bytes())
}

/// The bytes of `<file>.bak` when they hold exactly `doc` (the state an
/// install started from): an uninstall then restores the file byte for
/// byte, the user's formatting included.
fn backup_holding(path: &Path, doc: &Map<String, Value>) -> Option<Vec<u8>> {
    let bytes = std::fs::read(format!("{}.bak", path.display())).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    (v.as_object() == Some(doc)).then_some(bytes)
}

/// Codex trust entries of a hooks.json document.
fn codex_entries(path: &Path, doc: &Map<String, Value>) -> Vec<codex_trust::Entry> {
    codex_trust::entries(&path.display().to_string(), doc, &|h| {
        is_ours(h, Host::Codex)
    })
}

/// Bring config.toml's trust in line with a hooks.json change: our old
/// entries go, the user's moved entries move, ours (if any) are trusted.
fn codex_retrust(
    config: &mut CodexConfig,
    before: &[codex_trust::Entry],
    after: &[codex_trust::Entry],
) -> Result<()> {
    for e in before.iter().filter(|e| e.ours) {
        // Kept in place (and updated below) when ours stays at that key.
        if !after.iter().any(|a| a.ours && a.key == e.key) {
            config.take(&e.key);
        }
    }
    codex_trust::rekey(config, before, after)?;
    for e in after.iter().filter(|e| e.ours) {
        config.set_trust(&e.key, &e.hash)?;
    }
    Ok(())
}

pub fn install(homes: &Homes, a: &InstallArgs) -> Result<u8> {
    let path = settings_path(homes, a.host, a.project)?;
    let command = hook_command(homes, a.host, a.channel, a.wait, a.hook_client)?;
    let (previous, mut doc) = read_doc(&path)?;
    let original = doc.clone();
    for event in events(a.host) {
        let wanted = group(a.host, event, &command, timeout_secs(a.wait));
        let groups = event_groups(&mut doc, event, &path)?;
        place_ours(groups, a.host, wanted);
    }
    // Codex: the trust goes into config.toml first (a trust entry for a
    // hook not yet written is inert; the reverse would be a hook Codex
    // silently skips).
    let mut codex_note = Vec::new();
    if a.host == Host::Codex {
        let cfg_path = codex_config_path(homes);
        let mut config = CodexConfig::read(&cfg_path)?;
        let before = codex_entries(&path, &original);
        let after = codex_entries(&path, &doc);
        codex_retrust(&mut config, &before, &after)?;
        if config.changed() {
            config.write()?;
        }
        for e in after.iter().filter(|e| e.ours) {
            codex_note.push(format!(
                "Trusted for Codex in {}: [hooks.state.\"{}\"] trusted_hash = \"{}\" (what Codex's /hooks screen records; Codex skips an untrusted hook).",
                cfg_path.display(),
                e.key,
                e.hash
            ));
        }
        if a.project {
            let dir = project_dir()?;
            let dir = dir.display().to_string();
            if !config.project_trusted(&dir) {
                codex_note.push(format!(
                    "Codex runs a project's hooks only in a trusted project, and {dir} is not trusted in {} yet: start `codex` in {dir} and answer its trust question with yes, or add these lines to that file:\n  [projects.\"{dir}\"]\n  trust_level = \"trusted\"\n(if {dir} is inside a git repository, Codex trusts the repository's root directory instead).",
                    cfg_path.display()
                ));
            }
        }
    }
    if doc == original && previous.is_some() {
        println!(
            "The shellgate hook for {} is already installed in {}; nothing changed.",
            a.host.name(),
            path.display()
        );
    } else {
        let backup = write_doc(&path, previous.as_deref(), &doc)?;
        println!(
            "Installed the shellgate hook for {} in {} ({} matcher: {}).",
            a.host.name(),
            path.display(),
            events(a.host).join(" + "),
            matcher(a.host)
        );
        if let Some(b) = backup {
            println!("Previous content kept in {}.", b.display());
        }
        println!("Hook command: {command}");
        println!(
            "With `shellgate serve` running, an ask waits up to {} s for your answer in its page (or `shellgate answer`); the host's hook timeout is {} s.",
            a.wait,
            timeout_secs(a.wait)
        );
    }
    for n in codex_note {
        println!("{n}");
    }
    if a.host == Host::ClaudeCode {
        warn_old_claude();
    }
    Ok(0)
}

/// Warn (never fail) when the Claude Code on PATH ignores `onFailure`.
fn warn_old_claude() {
    let Some(found) = hostinfo::host(Host::ClaudeCode) else {
        return;
    };
    if let Some(problem) = found.version.and_then(hostinfo::claude_version_problem) {
        eprintln!(
            "warning: {} ({}). Fix: {}",
            problem,
            found.path.display(),
            hostinfo::claude_upgrade_fix(hostinfo::node())
        );
    }
}

pub fn uninstall(homes: &Homes, a: &UninstallArgs) -> Result<u8> {
    let path = settings_path(homes, a.host, a.project)?;
    let (previous, mut doc) = read_doc(&path)?;
    let original = doc.clone();
    let mut removed = 0;
    if let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_object_mut) {
        for event in events(a.host) {
            if let Some(groups) = hooks.get_mut(*event).and_then(Value::as_array_mut) {
                let n = remove_ours(groups, a.host);
                // Containers left empty by the removal go as well.
                if n > 0 && groups.is_empty() {
                    hooks.remove(*event);
                }
                removed += n;
            }
        }
    }
    if removed > 0
        && doc
            .get("hooks")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
    {
        doc.remove("hooks");
    }
    let mut codex_changed = false;
    if a.host == Host::Codex {
        let cfg_path = codex_config_path(homes);
        let mut config = CodexConfig::read(&cfg_path)?;
        let before = codex_entries(&path, &original);
        let after = codex_entries(&path, &doc);
        codex_retrust(&mut config, &before, &after)?;
        if config.changed() {
            codex_changed = true;
            if config.text().trim().is_empty() && config.existed() {
                // Nothing but our trust was there (install created the
                // file): it goes as well, its content kept in the backup.
                let prev = std::fs::read(&cfg_path).ok();
                write_bytes(&cfg_path, prev.as_deref(), b"")?;
                std::fs::remove_file(&cfg_path)
                    .with_context(|| format!("cannot remove {}", cfg_path.display()))?;
            } else {
                config.write()?;
            }
            println!(
                "Removed the shellgate hook's trust from {}.",
                cfg_path.display()
            );
        }
    }
    if previous.is_none() || removed == 0 {
        if !codex_changed {
            println!(
                "No shellgate hook for {} in {}; nothing changed.",
                a.host.name(),
                path.display()
            );
        }
        return Ok(0);
    }
    let backup = match backup_holding(&path, &doc) {
        Some(bytes) => write_bytes(&path, previous.as_deref(), &bytes)?,
        None => write_doc(&path, previous.as_deref(), &doc)?,
    };
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
