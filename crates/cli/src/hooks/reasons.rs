//! The reason a hook returns to the agent or the human: the decision, and
//! what a human can run to approve it (grant commands, a one-time
//! approval), worded for what the host can do.

use shellgate_policy::decision::{Context, Decision, Status};
use shellgate_policy::Audience;
use shellgate_shell::paths;

use crate::edge::Homes;

/// Single-quote a word for a POSIX shell.
pub fn sq(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A word as typed in a shell: bare when safe, else single-quoted.
pub fn shell_word(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if safe {
        s.to_string()
    } else {
        sq(s)
    }
}

/// `--home DIR` when the gate's home is not the default one.
pub(super) fn home_flag(homes: &Homes) -> String {
    let default = paths::normalize(&format!("{}/.shellgate", homes.user.trim_end_matches('/')));
    let gate = homes.gate_str();
    if gate == default {
        String::new()
    } else {
        format!(" --home {}", sq(&gate))
    }
}

/// Extra flags so a grant lands where this call looks for it.
pub(super) fn scope_flags(d: &Decision) -> String {
    let mut s = String::new();
    if d.tool != "shell_execute" {
        s.push_str(&format!(" --tool {}", shell_word(&d.tool)));
    }
    if d.audience != Audience::Personal {
        s.push_str(&format!(" --audience {}", d.audience.as_str()));
    }
    s
}

/// Commands that would grant the unapproved candidates of a decision.
pub(super) fn grant_commands(homes: &Homes, d: &Decision) -> Vec<String> {
    let flags = format!("{}{}", scope_flags(d), home_flag(homes));
    let mut out: Vec<String> = Vec::new();
    for c in d
        .candidates
        .iter()
        .filter(|c| c.status == Status::Unapproved)
    {
        if let Some(dir) = c.directory.as_deref().filter(|d| !paths::is_shallow(d)) {
            let line = format!(
                "shellgate approvals allow {} --dir {}{flags}",
                sq(&c.verb),
                sq(dir)
            );
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    for c in d
        .candidates
        .iter()
        .filter(|c| c.status == Status::Unapproved)
    {
        let line = format!("shellgate approvals trust-verb {}{flags}", sq(&c.verb));
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// The one-time approval of exactly this call.
pub(super) fn once_command(homes: &Homes, ctx: &Context, d: &Decision) -> String {
    let cwd = d
        .cwd
        .as_deref()
        .map(|c| format!(" --cwd {}", sq(c)))
        .unwrap_or_default();
    let tool = if d.tool == "shell_execute" {
        String::new()
    } else {
        format!(" --tool {}", shell_word(&d.tool))
    };
    format!(
        "shellgate decide --option approve_once --session {}{cwd}{tool}{} -- {}",
        sq(&ctx.session),
        home_flag(homes),
        sq(&d.command)
    )
}

pub(super) fn indent(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The actionable reason shown to the agent or the human for an allow or
/// a deny (asks are worded by `ask.rs`, which knows who can answer).
pub(super) fn reason_text(homes: &Homes, d: &Decision) -> String {
    let mut s = format!("shellgate {} ({}): {}", d.decision, d.reason, d.message);
    if d.decision == "deny" && d.reason == "channel_does_not_support_approval" {
        let grants = grant_commands(homes, d);
        if d.complex {
            s.push_str("\nNo human can approve on this channel, and a complex command cannot be granted in advance.");
        } else if !grants.is_empty() {
            s.push_str(
                "\nNo human can approve on this channel. To grant it in advance, run one of:\n",
            );
            s.push_str(&indent(&grants));
        }
    }
    if let Some(h) = &d.hint {
        s.push('\n');
        s.push_str(h);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(sq("it's"), r"'it'\''s'");
        assert_eq!(shell_word("/usr/bin/x"), "/usr/bin/x");
        assert_eq!(shell_word("a b"), "'a b'");
    }
}
