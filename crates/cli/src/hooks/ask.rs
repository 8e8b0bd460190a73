//! What the hook answers when the policy says *ask* — the one place that
//! decides it, for every host.
//!
//! The rule: a hook answers `ask` only where a human can answer the host's
//! own question (Claude Code's dialog in an interactive session, Gemini
//! CLI's confirmation in an interactive session). Everywhere else — Claude
//! `-p`, Gemini `-p`, Codex (whose hooks cannot ask at all: Codex rejects
//! `ask`) — an ask would hang the host or be dropped, so the hook denies and
//! names the exact command a human runs to grant the call.
//!
//! A later change routes asks to the approval service (SPEC §17): it waits
//! here, in [`answer`], before falling back to the texts below.

use shellgate_policy::decision::{Context, Decision};

use super::reasons::{grant_commands, indent, once_command};
use super::{claude_code, gemini, Host, Outcome, Verdict};
use crate::edge::Homes;

/// Who can answer a question the hook asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answerer {
    /// A human answers in the host's own dialog.
    Human,
    /// Nobody can answer; why (a sentence fragment: "Codex hooks cannot
    /// ask", "… non-interactive run …").
    Nobody(String),
}

/// Who answers an ask for this host, right now.
pub fn who_answers(host: Host) -> Answerer {
    match host {
        Host::ClaudeCode => claude_code::answerer(),
        Host::Gemini => gemini::answerer(),
        Host::Codex => Answerer::Nobody("Codex hooks cannot ask".into()),
    }
}

/// The hook's answer for an event whose combined verdict is ask; `asks`
/// are the decisions that asked (at least one).
pub(super) fn answer(host: Host, homes: &Homes, ctx: &Context, asks: &[&Decision]) -> Outcome {
    let who = who_answers(host);
    let mut parts: Vec<String> = Vec::new();
    for d in asks {
        let t = text(&who, homes, ctx, d);
        if !parts.contains(&t) {
            parts.push(t);
        }
    }
    let verdict = match who {
        Answerer::Human => Verdict::Ask,
        Answerer::Nobody(_) => Verdict::Deny,
    };
    Outcome::Decided(verdict, parts.join("\n"))
}

/// The reason text of one asking decision, for who will read it.
pub(super) fn text(who: &Answerer, homes: &Homes, ctx: &Context, d: &Decision) -> String {
    let mut s = format!("shellgate {} ({}): {}", d.decision, d.reason, d.message);
    let grants = grant_commands(homes, d);
    let once = once_command(homes, ctx, d);
    match (who, d.complex || grants.is_empty()) {
        (Answerer::Human, true) => s.push_str(&format!(
            "\nIt can only be approved once, not granted for reuse (approving this prompt runs it once; or a human runs: {once})."
        )),
        (Answerer::Human, false) => {
            s.push_str("\nNot granted. To allow it from now on, run one of:\n");
            s.push_str(&indent(&grants));
        }
        (Answerer::Nobody(why), true) => s.push_str(&format!(
            "\n{why}, so the call is blocked. It can only be approved once, not granted for reuse; a human approves it with:\n  {once}\nthen the agent retries the identical command."
        )),
        (Answerer::Nobody(why), false) => {
            s.push_str(&format!(
                "\n{why}, so the call is blocked. A human can grant it with one of the following, then the agent retries:\n"
            ));
            s.push_str(&indent(&grants));
        }
    }
    if let Some(h) = &d.hint {
        s.push('\n');
        s.push_str(h);
    }
    s
}
