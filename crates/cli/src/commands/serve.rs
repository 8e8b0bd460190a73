//! `shellgate serve`, `shellgate pending`, `shellgate answer` (SPEC §17):
//! the approval service and its CLI twins, on top of `shellgate-serve`.
//!
//! [`CliBackend`] is what the service calls: it applies an answer exactly
//! as `shellgate decide` does (the call is rebuilt from what the hook
//! published, evaluated again, then [`decide::apply_answer`]) and reads the
//! store and the state db for the page (history from the audit log, grants
//! with revoke, sessions with their "This chat" grants).

use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use serde_json::{json, Value};
use shellgate_policy::decision::Request;
use shellgate_policy::{Audience, Channel, Os};
use shellgate_serve::client::{self, ClientError};
use shellgate_serve::{
    AppliedOutcome, Backend, BackendError, GrantEntry, GrantRef, HistoryEntry, HistoryFilter,
    PendingRequest, PublishRequest, RevokeOutcome, ServeConfig, SessionEntry, SessionGrantEntry,
    Verdict,
};
use shellgate_store::grant_file::{self, Store};

use super::decide;
use crate::edge::{self, CallFlags, Edge, Homes, UsageError};

#[derive(Args, Debug)]
#[command(after_help = "\
The page listens on loopback only (127.0.0.1 or [::1]); any other address is
refused (exit 2). Hooks find the service through $SHELLGATE_HOME/state/serve.sock.

Login links work once, within 10 minutes; `--login` asks the running
service for another (refused to an agent's processes, exit 1).

Examples:
  shellgate serve                          # a port chosen by the system
  shellgate serve --listen 127.0.0.1:8765
  shellgate serve --login                  # a new login link of the running service")]
pub struct ServeArgs {
    /// Address of the page: 127.0.0.1:PORT, [::1]:PORT or localhost:PORT
    /// (PORT 0: chosen by the system).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: String,
    /// Do not start a service: print a new one-time login link of the one
    /// running (valid 10 minutes) and exit.
    #[arg(long, conflicts_with = "listen")]
    pub login: bool,
}

#[derive(Args, Debug)]
pub struct PendingArgs {
    /// One JSON array: id, command, display, cwd, session, host, options, age.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "\
OPTION is a wire key (approve_once, approve_session, approve_always,
approve_everywhere, deny), a letter or number of the offered options (a, b, …;
1, 2, …) or a named reply (once, this chat, always here, always anywhere, deny).
Exit 1 for an unknown, expired or already answered id, or an option that was
not offered.

Example:
  shellgate pending
  shellgate answer 3f9c0d… 'always here'")]
pub struct AnswerArgs {
    /// The request id as `shellgate pending` prints it.
    pub id: String,
    /// The answer.
    pub option: String,
}

pub fn serve(homes: &Homes, a: &ServeArgs) -> Result<u8> {
    if a.login {
        return match client::login_url(&homes.gate.join("state")) {
            Ok(url) => {
                println!("{url}");
                Ok(0)
            }
            Err(e) => Ok(client_failure(&e)),
        };
    }
    let listen = shellgate_serve::check_listen(&a.listen).map_err(|e| UsageError(e.to_string()))?;
    let mut cfg = ServeConfig::new(homes.gate.join("state"));
    cfg.listen = listen;
    shellgate_serve::serve(
        cfg,
        Arc::new(CliBackend {
            homes: homes.clone(),
            hooks: crate::hooks::served::Evaluator::new(homes.clone()),
        }),
    )?;
    Ok(0)
}

/// Exit status and message for a client error of `pending`/`answer`.
fn client_failure(e: &ClientError) -> u8 {
    match e {
        ClientError::NotRunning(why) => {
            eprintln!("shellgate: no approval service is running ({why}); start one with `shellgate serve`");
        }
        e => eprintln!("shellgate: {e}"),
    }
    1
}

/// Control, bidi and invisible characters made visible (a terminal must not
/// act on what an agent wrote).
pub fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            let cp = c as u32;
            let hidden = c.is_control()
                || matches!(cp, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2069 | 0xFEFF);
            if hidden {
                format!("\u{27e8}U+{cp:04X}\u{27e9}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

pub fn pending(homes: &Homes, a: &PendingArgs) -> Result<u8> {
    let list = match client::list_pending(&homes.gate.join("state")) {
        Ok(l) => l,
        Err(e) => return Ok(client_failure(&e)),
    };
    let now = now_ms();
    if a.json {
        let items: Vec<Value> = list
            .iter()
            .map(|p| {
                let r = &p.request;
                json!({
                    "id": p.id,
                    "tool": r.tool,
                    "command": r.command,
                    "display": r.display,
                    "cwd": r.cwd,
                    "session": r.session,
                    "host": r.host,
                    "project_dir": r.project_dir,
                    "header": r.header,
                    "bullets": r.bullets,
                    "hint": r.hint,
                    "options": r.options,
                    "age_secs": now.saturating_sub(p.created_ms) / 1000,
                    "expires_in_secs": p.deadline_ms.saturating_sub(now) / 1000,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&items)?);
        return Ok(0);
    }
    if list.is_empty() {
        println!("No pending requests.");
        return Ok(0);
    }
    for p in &list {
        let r = &p.request;
        println!(
            "{}  {} s ago  {}  session {}",
            p.id,
            now.saturating_sub(p.created_ms) / 1000,
            visible(&r.host),
            visible(r.session.as_deref().unwrap_or("-"))
        );
        println!("  {}", visible(&r.header));
        for b in &r.bullets {
            println!("    - {}", visible(b));
        }
        println!("  $ {}", visible(&r.display));
        if let Some(c) = &r.cwd {
            println!("  in {}", visible(c));
        }
        let letters: Vec<String> = r
            .options
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let letter = char::from(b'a' + u8::try_from(i).unwrap_or(25).min(25));
                format!(
                    "{letter} {} ({o})",
                    shellgate_serve::option_label(o).unwrap_or("?")
                )
            })
            .collect();
        println!("  options: {}", letters.join(", "));
        println!();
    }
    println!("Answer with: shellgate answer ID OPTION");
    Ok(0)
}

pub fn answer(homes: &Homes, a: &AnswerArgs) -> Result<u8> {
    match client::answer(&homes.gate.join("state"), a.id.trim(), &a.option) {
        Ok(r) => {
            println!("{}", r.resolution);
            for s in &r.skipped {
                println!("Skipped (too broad): {s}");
            }
            Ok(0)
        }
        Err(e) => Ok(client_failure(&e)),
    }
}

// ----- the backend -----------------------------------------------------

/// What a hook puts into [`shellgate_serve::PublishRequest::context`] so the
/// service can rebuild its call.
pub fn publish_context(
    ctx: &shellgate_policy::decision::Context,
    working_directory: Option<&str>,
    sandbox_offered: bool,
) -> Value {
    json!({
        "audience": ctx.audience.as_str(),
        "channel": ctx.channel.as_str(),
        "os": ctx.os.as_str(),
        "project_dir": ctx.project_dir,
        "working_directory": working_directory,
        "sandbox": sandbox_offered,
    })
}

/// The engine behind the approval service.
pub struct CliBackend {
    pub homes: Homes,
    /// Hook events evaluated for the hook client.
    pub hooks: crate::hooks::served::Evaluator,
}

fn failed(e: impl std::fmt::Display) -> BackendError {
    BackendError::Failed(format!("{e:#}"))
}

/// How many log rows the history view looks through at most.
const HISTORY_SCAN: usize = 50_000;

impl CliBackend {
    /// The call a published request stands for, rebuilt from what
    /// [`Backend::apply`] uses (`command`, `tool`, `session` and `context`;
    /// never the request's display fields), and the gate's decision on it now.
    fn rebuild(
        &self,
        r: &PublishRequest,
    ) -> Result<(
        Edge,
        shellgate_policy::decision::Context<'static>,
        Request,
        shellgate_policy::decision::Decision,
    )> {
        let c = &r.context;
        let s = |k: &str| c.get(k).and_then(Value::as_str);
        let mut policy = edge::load_policy(&self.homes)?;
        if c.get("sandbox").and_then(Value::as_bool) == Some(true) {
            edge::offer_sandbox(&self.homes, &mut policy);
        }
        let mut edge = Edge::new(self.homes.clone());
        // The hook's answer path never consumes a one-time approval here.
        edge.consume_once = false;
        let flags = CallFlags {
            session: r.session.clone(),
            // Unknown context values fail closed: the narrowest audience, a
            // channel nobody answers on.
            audience: Some(s("audience").map_or(Audience::Public, |a| {
                Audience::parse(a).unwrap_or(Audience::Public)
            })),
            channel: Some(s("channel").map_or(Channel::Headless, |a| {
                Channel::parse(a).unwrap_or(Channel::Headless)
            })),
            project_dir: s("project_dir").map(str::to_string),
            os: Some(s("os").and_then(Os::parse).unwrap_or_else(Os::host)),
        };
        let ctx = edge::build_context(&mut edge, &flags)?;
        let req = Request {
            tool: r.tool.clone(),
            command: r.command.clone(),
            working_directory: s("working_directory")
                .map(str::to_string)
                .or_else(|| r.cwd.clone()),
        };
        let d = edge::evaluate(&mut edge, &policy, &req, &ctx)?;
        Ok((edge, ctx, req, d))
    }

    /// What the human must be shown for a published request: everything
    /// they read (display, header, bullets, hint, directory, project) and
    /// the options they may pick are derived again from the call that
    /// [`Backend::apply`] will apply, the way the hook derives them. A
    /// request whose call the gate does not ask about now is refused.
    fn review_inner(&self, r: &PublishRequest) -> Result<PublishRequest> {
        let (_, ctx, _, d) = self.rebuild(r)?;
        if d.decision != "ask" {
            anyhow::bail!(
                "the gate does not ask about this call (decision {}, {})",
                d.decision,
                d.reason
            );
        }
        let json = serde_json::to_value(&d)?;
        PublishRequest::from_decision(
            &json,
            &r.host,
            Some(&ctx.session),
            ctx.project_dir.as_deref(),
            r.context.clone(),
        )
        .map_err(anyhow::Error::msg)
    }

    fn apply_inner(&self, p: &PendingRequest, option: &str) -> Result<AppliedOutcome> {
        let r = &p.request;
        let (mut edge, ctx, req, d) = self.rebuild(r)?;
        if d.decision != "ask" {
            // Something changed since the hook asked (a grant was added, the
            // policy now denies): the call's decision stands.
            return Ok(match (d.decision, option) {
                (_, "deny") => AppliedOutcome {
                    decision: Verdict::Deny,
                    resolution: "Denied".into(),
                    skipped: Vec::new(),
                },
                ("allow", _) => AppliedOutcome {
                    decision: Verdict::Allow,
                    resolution: format!(
                        "Nothing to decide: the call is already allowed ({})",
                        d.reason
                    ),
                    skipped: Vec::new(),
                },
                _ => AppliedOutcome {
                    decision: Verdict::Deny,
                    resolution: format!("Denied: {} ({})", d.message, d.reason),
                    skipped: Vec::new(),
                },
            });
        }
        let source = format!("serve:{}", r.host);
        let applied = decide::apply_answer(&mut edge, &ctx, &req, &d, option, &source)?;
        Ok(AppliedOutcome {
            decision: if option == "deny" {
                Verdict::Deny
            } else {
                Verdict::Allow
            },
            resolution: applied.resolution,
            skipped: applied.skipped,
        })
    }
}

impl Backend for CliBackend {
    fn hook(
        &self,
        call: shellgate_serve::protocol::HookCall,
    ) -> Option<shellgate_serve::protocol::HookReply> {
        self.hooks.evaluate(call)
    }

    fn review(&self, req: &PublishRequest) -> Result<PublishRequest, BackendError> {
        self.review_inner(req).map_err(failed)
    }

    fn apply(&self, req: &PendingRequest, option: &str) -> Result<AppliedOutcome, BackendError> {
        self.apply_inner(req, option).map_err(failed)
    }

    fn history(&self, f: &HistoryFilter) -> Result<Vec<HistoryEntry>, BackendError> {
        let mut edge = Edge::new(self.homes.clone());
        let Some(db) = edge.db(false).map_err(failed)? else {
            return Ok(Vec::new());
        };
        let verbs_of = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    let mut out: Vec<String> = Vec::new();
                    for c in a {
                        if let Some(s) = c.get("verb").and_then(Value::as_str) {
                            if !out.iter().any(|o| o == s) {
                                out.push(s.to_string());
                            }
                        }
                    }
                    out
                })
                .unwrap_or_default()
        };
        let verb = f.verb.as_deref().map(str::trim).filter(|v| !v.is_empty());
        let keep = |r: &shellgate_store::state::DecisionRecord| match verb {
            None => true,
            Some(v) => verbs_of(&r.candidates)
                .iter()
                .any(|c| c == v || c.starts_with(&format!("{v} "))),
        };
        let limit = f.limit.unwrap_or(200).clamp(1, 5000);
        let rows = db
            .decisions_newest_first(
                f.session.as_deref().filter(|s| !s.is_empty()),
                f.decision.as_deref().filter(|s| !s.is_empty()),
                HISTORY_SCAN,
                limit,
                &keep,
            )
            .map_err(failed)?;
        Ok(rows
            .into_iter()
            .map(|r| HistoryEntry {
                verbs: verbs_of(&r.candidates),
                time: r.time,
                session: r.session,
                tool: r.tool,
                command: r.command,
                cwd: r.cwd,
                decision: r.decision,
                reason: r.reason,
                source: r.source,
            })
            .collect())
    }

    fn grants(&self) -> Result<Vec<GrantEntry>, BackendError> {
        let (store, _) = Store::load(&self.homes.store_path()).map_err(failed)?;
        let mut out = Vec::new();
        for (audience, tool, grants) in store.groups() {
            for g in grants {
                out.push(GrantEntry {
                    audience: audience.as_str().to_string(),
                    tool: tool.clone(),
                    label: g.label(),
                    verb: g.verb,
                    directory: g.directory,
                    created_at: g.created_at,
                });
            }
        }
        Ok(out)
    }

    fn revoke(&self, g: &GrantRef) -> Result<RevokeOutcome, BackendError> {
        let audience = Audience::parse(&g.audience)
            .ok_or_else(|| BackendError::NotFound(format!("unknown audience '{}'", g.audience)))?;
        let removed = grant_file::remove(&self.homes.store_path(), audience, &g.tool, |x| {
            x.same_as(&g.verb, g.directory.as_deref(), Os::host())
        })
        .map_err(failed)?;
        if removed.is_empty() {
            return Err(BackendError::NotFound(format!(
                "no grant '{}' for {} / {}",
                match &g.directory {
                    Some(d) => format!("{} in {d}", g.verb),
                    None => format!("{} anywhere", g.verb),
                },
                g.audience,
                g.tool
            )));
        }
        let labels: Vec<String> = removed.iter().map(|x| x.label()).collect();
        Ok(RevokeOutcome {
            removed: removed.len(),
            message: format!(
                "Removed '{}' from {} / {}.",
                labels.join("', '"),
                audience.as_str(),
                g.tool
            ),
        })
    }

    fn sessions(&self) -> Result<Vec<SessionEntry>, BackendError> {
        let mut edge = Edge::new(self.homes.clone());
        let Some(db) = edge.db(false).map_err(failed)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for s in db.active_sessions(500).map_err(failed)? {
            let grants = db
                .own_session_grants(&s.id)
                .map_err(failed)?
                .into_iter()
                .map(|g| SessionGrantEntry {
                    audience: g.audience,
                    tool: g.tool,
                    verb: g.verb,
                    directory: g.directory,
                })
                .collect();
            out.push(SessionEntry {
                id: s.id,
                audience: s.audience.as_str().to_string(),
                channel: s.channel.as_str().to_string(),
                parent: s.parent,
                project_dir: s.project_dir,
                created_at: s.created_at,
                ended_at: s.ended_at,
                grants,
            });
        }
        Ok(out)
    }
}
