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
//! Before that, when the approval service runs (`shellgate serve`, SPEC
//! §17), every ask — whoever could answer in the host — is published there
//! and the hook blocks (in a read on the service's socket: no polling)
//! until a human answers or the hook's `--wait` runs out. The service
//! applies the answer exactly as `shellgate decide` does
//! (`commands::serve::CliBackend`); the hook returns allow or deny. No
//! service, no answer in time, a service that stops, or any error: the
//! behaviour below, as if there were no service.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use shellgate_policy::decision::{Context, Decision, Request};
use shellgate_serve::client::{self, ClientOutcome};
use shellgate_serve::PublishRequest;

use super::reasons::{grant_commands, indent, once_command};
use super::{claude_code, failsafe, gemini, host_proc, Host, Outcome, Verdict};
use crate::commands::serve::publish_context;
use crate::edge::{self, Edge, Homes};

/// `shellgate hook --wait` when not given: fits the 30 s hook timeout that
/// installs before the approval service wrote (10 + 15 s supervisor slack).
pub const DEFAULT_WAIT_SECS: u64 = 10;
/// Longest `--wait` (the service's own cap is one hour).
pub const MAX_WAIT_SECS: u64 = 3600;

/// When this hook started and how long an ask may wait for the service.
static SERVICE_WAIT: OnceLock<(Instant, Duration)> = OnceLock::new();

/// Set by `shellgate hook` at its start; without it (embedding, fuzzing)
/// asks never go to the service.
pub fn set_service_wait(start: Instant, wait: Duration) {
    let _ = SERVICE_WAIT.set((start, wait));
}

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
/// are the calls that asked with their decisions (at least one).
pub(super) fn answer(
    host: Host,
    homes: &Homes,
    ctx: &Context,
    asks: &[(&Request, &Decision)],
) -> Outcome {
    if let Some(o) = through_service(host, homes, ctx, asks) {
        return o;
    }
    let who = who_answers(host);
    let mut parts: Vec<String> = Vec::new();
    for (_, d) in asks {
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

/// Slack the worker's watchdog keeps past the wait (the client's grace for
/// the service's `expired`, consuming a Once, printing the answer).
const AFTER_WAIT: Duration = Duration::from_secs(10);

/// Ask the human through the approval service, one asking call after the
/// other (all share the hook's deadline). `None`: fall back (no service, no
/// answer in time, an error). A deny ends it; every call approved ⇒ allow.
fn through_service(
    host: Host,
    homes: &Homes,
    ctx: &Context,
    asks: &[(&Request, &Decision)],
) -> Option<Outcome> {
    let (start, wait) = *SERVICE_WAIT.get()?;
    if wait.is_zero() {
        return None;
    }
    let deadline = start + wait;
    let state = homes.gate.join("state");
    // No socket, no service: skip building the request (the common case).
    if std::fs::symlink_metadata(state.join(shellgate_serve::files::SOCKET_FILE)).is_err() {
        return None;
    }
    let agent = agent_pid();
    let mut approved: Vec<String> = Vec::new();
    for (req, d) in asks {
        let json = serde_json::to_value(d).ok()?;
        let context = publish_context(ctx, req.working_directory.as_deref(), host.can_rewrite());
        let mut published = PublishRequest::from_decision(
            &json,
            host.name(),
            Some(&ctx.session),
            ctx.project_dir.as_deref(),
            context,
        )
        .ok()?;
        published.agent_pid = agent;
        // The supervisor and the watchdog give the wait its time; a crash
        // while waiting still blocks at once.
        failsafe::announce_waiting();
        edge::extend_watchdog(deadline + AFTER_WAIT);
        let r = match client::publish_and_wait(&state, &published, deadline) {
            Ok(ClientOutcome::Answered(r)) => r,
            Ok(ClientOutcome::Expired) | Err(_) => return None,
        };
        match r.decision {
            shellgate_serve::Verdict::Deny => {
                return Some(Outcome::Decided(
                    Verdict::Deny,
                    format!(
                        "shellgate deny (human:{}): a human answered in shellgate's approval service: {}. Do not retry this call; ask the user what to do instead.",
                        r.option, r.resolution
                    ),
                ))
            }
            shellgate_serve::Verdict::Allow => {
                if r.option == "approve_once" {
                    // The hook allows this call itself: the one-time
                    // approval the service stored must not allow it again.
                    consume_once(homes, ctx, req, d);
                }
                approved.push(format!(
                    "shellgate allow (human:{}): approved in shellgate's approval service: {}",
                    r.option, r.resolution
                ));
            }
        }
    }
    Some(Outcome::Decided(Verdict::Allow, approved.join("\n")))
}

/// Take the one-time approval recorded for this exact call (best effort: it
/// expires after 10 minutes anyway).
fn consume_once(homes: &Homes, ctx: &Context, req: &Request, d: &Decision) {
    let mut edge = Edge::new(homes.clone());
    if let Ok(Some(db)) = edge.db(false) {
        let _ = db.take_once(&ctx.session, &req.tool, &req.command, d.cwd.as_deref());
    }
}

/// The host agent's process: this hook's nearest ancestor that is not a
/// shell (hosts start hooks through `sh -c`) nor shellgate's supervisor.
/// The service refuses answers from it and its descendants (the agent's
/// own commands). Linux only (`/proc`).
fn agent_pid() -> Option<u32> {
    const SHELLS: &[&str] = &[
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox",
    ];
    host_proc::ancestors()
        .into_iter()
        .find(|p| {
            let name = p
                .argv
                .first()
                .map(|a| host_proc::basename(a).trim_start_matches('-'))
                .unwrap_or("");
            !SHELLS.contains(&name)
        })
        .map(|p| p.pid)
}
