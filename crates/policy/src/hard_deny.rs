//! Semantic hard deny (SPEC §9.3): never approvable, checked on every simple
//! command found anywhere in the call, on normalized argv.

use crate::config::HardDenyRule;
use shellgate_shell::analyze::{Analysis, Invocation};
use shellgate_shell::paths::{self, basename};
use shellgate_shell::syntax::RedirTarget;
use shellgate_shell::verbs::PRIVILEGE;
use shellgate_shell::word::Word;

/// Top-level system directories whose recursive deletion is denied.
pub const SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv",
    "/sys", "/usr", "/var",
];

/// A hard-deny finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// `system_destructive`, `privilege_escalation`, `remote_code`,
    /// `self_destructive`, `custom_deny`.
    pub category: &'static str,
    /// Human explanation.
    pub message: String,
}

impl Denial {
    pub fn reason(&self) -> String {
        format!("hard_deny_{}", self.category)
    }
}

fn deny(category: &'static str, message: impl Into<String>) -> Option<Denial> {
    Some(Denial {
        category,
        message: message.into(),
    })
}

/// Check a whole analyzed call. The first simple command by source position
/// decides; call-wide patterns (fork bomb, remote code) come after.
pub fn check(a: &Analysis, command: &str, home: &str, rules: &[HardDenyRule]) -> Option<Denial> {
    for inv in &a.invocations {
        if let Some(d) = check_invocation(inv, home) {
            return Some(d);
        }
        if let Some(d) = custom_verb(inv, rules) {
            return Some(d);
        }
    }
    if a.fork_bomb {
        return deny("system_destructive", "fork bomb");
    }
    if a.remote_code {
        return deny(
            "remote_code",
            "downloaded content would run as a program without anyone seeing it",
        );
    }
    for r in rules {
        if let Some(raw) = &r.raw {
            if !raw.is_empty() && command.contains(raw.as_str()) {
                return deny("custom_deny", r.reason.clone());
            }
        }
    }
    None
}

fn lits(argv: &[Word]) -> Vec<String> {
    argv.iter()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))
        .collect()
}

fn custom_verb(inv: &Invocation, rules: &[HardDenyRule]) -> Option<Denial> {
    let words = lits(&inv.argv);
    let first = words.first().map(|w| basename(w).to_string())?;
    let normalized: Vec<String> = std::iter::once(first)
        .chain(words.iter().skip(1).cloned())
        .map(|w| w.to_lowercase())
        .collect();
    for r in rules {
        if let Some(v) = &r.verb {
            let toks: Vec<String> = v.split_whitespace().map(str::to_lowercase).collect();
            if !toks.is_empty()
                && toks.len() <= normalized.len()
                && toks.iter().zip(&normalized).all(|(a, b)| a == b)
            {
                return deny("custom_deny", r.reason.clone());
            }
        }
    }
    None
}

/// Rules that look at one simple command.
pub fn check_invocation(inv: &Invocation, home: &str) -> Option<Denial> {
    let program = inv
        .argv
        .first()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))?;
    let base = basename(&program).to_ascii_lowercase();
    let words = lits(&inv.argv);
    let args = &inv.argv[1..];

    if PRIVILEGE.contains(&base.as_str()) {
        return deny(
            "privilege_escalation",
            format!("{base} runs commands with elevated privileges"),
        );
    }
    if base.starts_with("mkfs") {
        return deny("system_destructive", "mkfs formats a file system");
    }
    if base == "rm" && recursive_flag(&words[1..], &["-r", "-R", "--recursive"], &['r', 'R']) {
        for w in operands(args) {
            if critical_target(w, inv.cwd.as_deref(), home, true) {
                return deny("system_destructive", format!("rm -r of {}", w.raw));
            }
        }
    }
    if matches!(base.as_str(), "chmod" | "chown" | "chgrp")
        && recursive_flag(&words[1..], &["-R", "--recursive"], &['R'])
    {
        for w in operands(args) {
            if critical_target(w, inv.cwd.as_deref(), home, false) {
                return deny(
                    "system_destructive",
                    format!("recursive {base} of {}", w.raw),
                );
            }
        }
    }
    if base == "dd" {
        for w in &words[1..] {
            if let Some(target) = w.strip_prefix("of=") {
                let p = paths::normalize(target);
                if p.starts_with("/dev/") && p != "/dev/null" {
                    return deny("system_destructive", format!("dd writes to the device {p}"));
                }
            }
        }
    }
    for r in &inv.redirects {
        if !r.kind.writes() {
            continue;
        }
        if let RedirTarget::File(w) = &r.target {
            let v = w.literal().unwrap_or_default();
            let p = paths::normalize(&v);
            if is_disk_device(&p) {
                return deny(
                    "system_destructive",
                    format!("write to the disk device {p}"),
                );
            }
        }
    }
    if matches!(base.as_str(), "pkill" | "killall")
        && words[1..]
            .iter()
            .any(|w| !w.starts_with('-') && w.to_lowercase().contains("shellgate"))
    {
        return deny("self_destructive", "stopping the gate");
    }
    if base == "systemctl" {
        let action = words[1..].iter().find(|w| !w.starts_with('-'));
        if action.is_some_and(|a| matches!(a.as_str(), "stop" | "kill" | "disable" | "mask"))
            && words[1..]
                .iter()
                .any(|w| w.to_lowercase().contains("shellgate"))
        {
            return deny("self_destructive", "stopping the gate");
        }
    }
    None
}

fn is_disk_device(p: &str) -> bool {
    [
        "/dev/sd",
        "/dev/nvme",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/mmcblk",
        "/dev/disk",
    ]
    .iter()
    .any(|d| p.starts_with(d))
}

/// Recursive flag before `--`, alone or combined, in any position.
fn recursive_flag(args: &[String], long: &[&str], short: &[char]) -> bool {
    for a in args {
        if a == "--" {
            break;
        }
        if long.contains(&a.as_str()) {
            return true;
        }
        if a.starts_with('-') && !a.starts_with("--") && a[1..].chars().any(|c| short.contains(&c))
        {
            return true;
        }
    }
    false
}

/// Operand words (not flags before `--`).
fn operands(args: &[Word]) -> Vec<&Word> {
    let mut out = Vec::new();
    let mut after = false;
    for w in args {
        let v = w.literal();
        if !after && v.as_deref() == Some("--") {
            after = true;
            continue;
        }
        if !after
            && v.as_deref()
                .is_some_and(|s| s.starts_with('-') && s.len() > 1)
        {
            continue;
        }
        out.push(w);
    }
    out
}

/// `/`, the home directory (when `home_too`), a top-level system directory,
/// or a glob directly inside one of them.
fn critical_target(w: &Word, cwd: Option<&str>, home: &str, home_too: bool) -> bool {
    let Some(v) = w.expanded(home) else {
        return false;
    };
    let is_critical =
        |p: &str| p == "/" || (home_too && p == paths::normalize(home)) || SYSTEM_DIRS.contains(&p);
    if w.glob {
        // The glob's static directory, when the glob is directly inside it.
        let (dir, _last) = match v.rfind('/') {
            Some(i) => (&v[..i], &v[i + 1..]),
            None => ("", v.as_str()),
        };
        if dir.contains(['*', '?', '[']) {
            return false;
        }
        let d = if dir.is_empty() && v.starts_with('/') {
            "/".to_string()
        } else if dir.is_empty() {
            match cwd {
                Some(c) => c.to_string(),
                None => return false,
            }
        } else if dir.starts_with('/') {
            paths::normalize(dir)
        } else {
            match cwd {
                Some(c) => paths::resolve(c, dir),
                None => return false,
            }
        };
        return is_critical(&d);
    }
    let p = if v.starts_with('/') {
        paths::normalize(&v)
    } else {
        match cwd {
            Some(c) => paths::resolve(c, &v),
            None => return false,
        }
    };
    is_critical(&p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shellgate_shell::analyze::{analyze, Env};

    fn hd(cmd: &str) -> Option<String> {
        let a = analyze(
            cmd,
            Some("/home/u/p"),
            &Env {
                home: "/home/u".into(),
                ..Default::default()
            },
        );
        check(&a, cmd, "/home/u", &[]).map(|d| d.reason())
    }

    #[test]
    fn categories() {
        let sd = Some("hard_deny_system_destructive".to_string());
        assert_eq!(hd("rm -rf /"), sd);
        assert_eq!(hd("rm / -rf"), sd);
        assert_eq!(hd("rm -r ~"), sd);
        assert_eq!(hd("rm -rf ~/*"), sd);
        assert_eq!(hd("rm -rf /etc/*"), sd);
        assert_eq!(hd("cd / && rm -rf etc"), sd);
        assert_eq!(hd("rm -rf /usr/../"), sd);
        assert_eq!(hd("rm -f /"), None);
        assert_eq!(hd("rm -r '~/'"), None);
        assert_eq!(hd("dd if=/dev/zero of=/dev/null"), None);
        assert_eq!(hd("dd if=/dev/zero of=/dev/sda"), sd);
        assert_eq!(hd(":(){ :|:& };:"), sd);
        assert_eq!(hd("echo x > /dev/sda"), sd);
        assert_eq!(
            hd("sudo ls").as_deref(),
            Some("hard_deny_privilege_escalation")
        );
        assert_eq!(hd("sudoku"), None);
        assert_eq!(hd("curl x | sh").as_deref(), Some("hard_deny_remote_code"));
        assert_eq!(
            hd("pkill -f shellgate").as_deref(),
            Some("hard_deny_self_destructive")
        );
        assert_eq!(
            hd("find . -exec sudo rm {} \\;").as_deref(),
            Some("hard_deny_privilege_escalation")
        );
        assert_eq!(hd("xargs rm -rf ~"), sd);
        assert_eq!(
            hd("echo \"unterminated; sudo ls").as_deref(),
            Some("hard_deny_privilege_escalation")
        );
    }
}
