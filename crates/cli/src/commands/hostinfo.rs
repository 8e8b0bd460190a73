//! What is installed on this machine: a host's binary and version, node's
//! version. Used by `install` (warnings only: a missing host never fails
//! an install) and `doctor`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::hooks::Host;

/// Claude Code honours `"onFailure": "block"` from this version on
/// (2.1.295 per its changelog; measured: 2.1.330 honours it, 2.1.197
/// ignores it).
pub const CLAUDE_ON_FAILURE_SINCE: Version = Version(2, 1, 295);

/// Node needed by the Claude Code builds that honour `onFailure` (npm on
/// an older node silently installs 2.1.197).
pub const CLAUDE_NODE: Version = Version(22, 0, 0);

/// Node Gemini CLI needs.
pub const GEMINI_NODE: Version = Version(20, 0, 0);

/// How long `<host> --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(15);

/// `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u64, pub u64, pub u64);

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The first `N.N[.N]` in a text (a leading `v` allowed).
pub fn parse_version(text: &str) -> Option<Version> {
    text.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .map(|w| w.trim_start_matches('v'))
        .find_map(|w| {
            let mut parts = w.split('.');
            let a = parts.next()?.parse().ok()?;
            let b = parts.next()?.parse().ok()?;
            let c = parts
                .next()
                .map(|p| {
                    p.chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                })
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            Some(Version(a, b, c))
        })
}

/// The binary a host is started with.
pub fn binary(host: Host) -> &'static str {
    match host {
        Host::ClaudeCode => "claude",
        Host::Gemini => "gemini",
        Host::Codex => "codex",
    }
}

/// `name` found on `$PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Run `exe args` with no stdin and a time limit; its stdout (first 64
/// KiB) when it exits 0.
pub fn run_captured(exe: &Path, args: &[&str], limit: Duration) -> Option<String> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stdout).take(64 * 1024).read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let out = reader.join().ok()?;
    status
        .filter(|s| s.success())
        .map(|_| String::from_utf8_lossy(&out).into_owned())
}

/// A host found on `$PATH`: where, and the version it reports.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub version: Option<Version>,
    pub version_text: String,
}

/// The host's binary on `$PATH` and its `--version`.
pub fn host(host: Host) -> Option<Found> {
    let path = find_on_path(binary(host))?;
    let text = run_captured(&path, &["--version"], VERSION_TIMEOUT).unwrap_or_default();
    let version = parse_version(&text);
    Some(Found {
        path,
        version,
        version_text: text.lines().next().unwrap_or("").trim().to_string(),
    })
}

/// `node --version`, when node is on `$PATH`.
pub fn node() -> Option<Version> {
    let path = find_on_path("node")?;
    parse_version(&run_captured(&path, &["--version"], VERSION_TIMEOUT)?)
}

/// The problem with a Claude Code version, if it ignores `onFailure`.
pub fn claude_version_problem(v: Version) -> Option<String> {
    (v < CLAUDE_ON_FAILURE_SINCE).then(|| {
        format!(
            "Claude Code {v} ignores \"onFailure\": \"block\" (honoured from {CLAUDE_ON_FAILURE_SINCE} on): a shellgate hook that crashes or times out lets the call run, and non-JSON output is not a block"
        )
    })
}

/// The exact fix for an old Claude Code, given node's version.
pub fn claude_upgrade_fix(node: Option<Version>) -> String {
    match node {
        Some(n) if n >= CLAUDE_NODE => {
            "npm install -g @anthropic-ai/claude-code@latest   (or: claude update)".to_string()
        }
        Some(n) => format!(
            "node {n} is older than {CLAUDE_NODE}, so npm installs an old Claude Code: install node 22 or later, then run: npm install -g @anthropic-ai/claude-code@latest   (or name a version: npm install -g @anthropic-ai/claude-code@2.1.330, whose native binary runs without node 22)"
        ),
        None => "npm install -g @anthropic-ai/claude-code@latest   (with node 22 or later; or: claude update)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            parse_version("2.1.197 (Claude Code)"),
            Some(Version(2, 1, 197))
        );
        assert_eq!(parse_version("codex-cli 0.169.0"), Some(Version(0, 169, 0)));
        assert_eq!(parse_version("v20.20.2\n"), Some(Version(20, 20, 2)));
        assert_eq!(parse_version("0.61.0-nightly"), Some(Version(0, 61, 0)));
        assert_eq!(parse_version("no version"), None);
        assert!(claude_version_problem(Version(2, 1, 197)).is_some());
        assert!(claude_version_problem(Version(2, 1, 330)).is_none());
    }
}
