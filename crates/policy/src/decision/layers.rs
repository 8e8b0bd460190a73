//! The layers of SPEC §9.1 for a shell call, one function each, in the
//! order [`super::evaluate`] runs them. A layer returns the decision when it
//! is terminal (`Some`), or lets the call through (`None`); the last four
//! complete the decision built with the candidates' statuses.

use shellgate_shell::analyze::{self, Analysis};
use shellgate_shell::display;
use shellgate_shell::paths;

use super::safe_space::{touch_in_zone, write_zone};
use super::statuses::{fill, fill_analysis, real, CandState};
use super::{Base, Context, Decision, Lookups, Policy, Request, Status, MAX_COMMAND_BYTES};
use crate::candidates::{self, CommandCandidates, Resolver, Touch};
use crate::config::{expand_home, Mode};

use crate::hard_deny as hard_deny_rules;
use crate::model::Os;
use crate::protected::{self as protected_paths, Protected};

/// Everything the layers of one shell call look at.
pub(super) struct ShellCall<'a> {
    pub(super) policy: &'a Policy,
    pub(super) req: &'a Request,
    pub(super) ctx: &'a Context<'a>,
    pub(super) lookups: &'a dyn Lookups,
    pub(super) base: Base,
    /// The call's working directory (§1).
    pub(super) cwd: Option<String>,
    pub(super) analysis: Analysis,
    /// Candidates of each invocation (`None` for inner, ungated commands).
    pub(super) per_inv: Vec<Option<CommandCandidates>>,
    pub(super) resolver: Resolver<'a>,
    /// The candidate list (filled after the protected-path layer).
    pub(super) cands: Vec<CandState>,
}

/// 1. Input validation (`invalid_call`): empty tool name, blank command,
///    over 64 KiB, NUL byte. A valid command is analyzed.
pub(super) fn validate(
    req: &Request,
    ctx: &Context,
    cwd: Option<String>,
    policy: &Policy,
) -> Result<(Base, Analysis), Box<Decision>> {
    let invalid = req.tool.trim().is_empty()
        || req.command.trim().is_empty()
        || req.command.len() > MAX_COMMAND_BYTES
        || req.command.contains('\0');
    let analysis = if invalid {
        None
    } else {
        Some(analyze::analyze(
            &req.command,
            cwd.as_deref(),
            &analyze::Env {
                home: ctx.home.clone(),
                inert: policy.config.environment.inert.clone(),
                cdpath: ctx.run_env.cdpath.is_some_and(|c| !c.is_empty()),
                windows: ctx.os == Os::Windows,
            },
        ))
    };
    let display = if req.command.len() > MAX_COMMAND_BYTES {
        display::escape(&req.command.chars().take(200).collect::<String>()) + " …"
    } else {
        display::display(
            &req.command,
            analysis.as_ref().and_then(|a| a.script.as_ref()),
        )
    };
    let base = Base {
        tool: req.tool.clone(),
        command: req.command.clone(),
        display,
        cwd,
        audience: ctx.audience,
        channel: ctx.channel,
    };
    let Some(analysis) = analysis else {
        let why = if req.tool.trim().is_empty() {
            "the tool name is empty"
        } else if req.command.trim().is_empty() {
            "the command is blank"
        } else if req.command.contains('\0') {
            "the command contains a NUL byte"
        } else {
            "the command is longer than 65536 bytes"
        };
        return Err(Box::new(base.finish(
            "deny",
            "invalid_call",
            format!("invalid call: {why}"),
        )));
    };
    Ok((base, analysis))
}

/// 2. Tool admission and mode (§9.2), shared by shell and file tools: the
///    audience's mode for the tool, or the deny for a `deny` mode / a tool
///    not on the list.
pub(super) fn admit(
    policy: &Policy,
    req: &Request,
    ctx: &Context,
    base: &Base,
) -> Result<Mode, Box<Decision>> {
    let mode = policy.config.tool_mode(ctx.audience, &req.tool);
    let audience = ctx.audience.as_str();
    if mode == Mode::Deny {
        return Err(Box::new(base.finish(
            "deny",
            "tool_denied_by_approval_policy",
            format!("{} is denied for the {audience} audience", req.tool),
        )));
    }
    if !policy.config.tool_allowed(ctx.audience, &req.tool) {
        return Err(Box::new(base.finish(
            "deny",
            "tool_not_allowed_for_audience",
            format!("{} is not allowed for the {audience} audience", req.tool),
        )));
    }
    Ok(mode)
}

/// How operand words become paths for this call.
pub(super) fn resolver<'a>(ctx: &'a Context<'a>, analysis: &Analysis) -> Resolver<'a> {
    Resolver {
        home: &ctx.home,
        windows: ctx.os == Os::Windows,
        fs: ctx.fs,
        secret_in_call: crate::candidates::call_mentions_secret(analysis),
    }
}

/// Candidates of every gated invocation; complex reasons found on the way
/// (dynamic operands) join the analysis, and a complex call has no
/// approval units.
pub(super) fn candidates_of(
    analysis: &mut Analysis,
    resolver: &Resolver,
) -> Vec<Option<CommandCandidates>> {
    let mut extra_reasons = Vec::new();
    let per_inv: Vec<Option<CommandCandidates>> = analysis
        .invocations
        .iter()
        .map(|inv| {
            if !inv.gated {
                return None;
            }
            let mut c = candidates::for_invocation(inv, resolver, &mut extra_reasons)?;
            // A command that may run in another directory (a `cd` before
            // it may have failed): what it touches there joins what it
            // touches here, so safe-space and grant checks hold for both;
            // the candidates stay those of the tracked directory (§5.1).
            if let Some(alt) = &inv.alt_cwd {
                if alt.as_deref() != inv.cwd.as_deref() {
                    let mut other = inv.clone();
                    other.cwd = alt.clone();
                    other.alt_cwd = None;
                    match candidates::for_invocation(&other, resolver, &mut extra_reasons) {
                        Some(o) => {
                            c.touches.extend(o.touches);
                            c.alt_dirs.extend(o.dirs);
                        }
                        None => extra_reasons.push("dynamic_path".to_string()),
                    }
                }
            }
            Some(c)
        })
        .collect();
    for r in extra_reasons {
        if !analysis.complex_reasons.contains(&r) {
            analysis.complex_reasons.push(r);
        }
    }
    if analysis.is_complex() {
        analysis.patterns.clear();
    }
    per_inv
}

/// 3. Hard deny (§9.3), on everything found, nested and ungated commands
///    included.
pub(super) fn hard_deny(c: &ShellCall) -> Option<Decision> {
    let d = hard_deny_rules::check_in(
        &c.analysis,
        &c.req.command,
        &c.ctx.home,
        Some(c.ctx.fs),
        c.policy.config.hard_deny_rules(),
    )?;
    let mut out = c
        .base
        .finish("deny", d.reason(), format!("never allowed: {}", d.message));
    fill_analysis(&mut out, &c.analysis);
    Some(out)
}

/// 4. Protected paths (§9.4, §15.18): what any command, gated or not,
///    reads, writes or creates. What cannot be judged here (a write to
///    git's internals, an extraction whose members cannot be read) joins
///    the complex reasons.
pub(super) fn protected(c: &mut ShellCall) -> Option<Decision> {
    let ctx = c.ctx;
    let mut settings: Vec<String> = Vec::new();
    if let Some(p) = &ctx.project_dir {
        settings.push(paths::normalize(&expand_home(p, &ctx.home)));
    }
    settings.extend(c.cwd.clone());
    let protected = Protected::new(
        &ctx.gate_home,
        &ctx.home,
        c.policy.config.protected_read(),
        c.policy.config.protected_write(),
        ctx.fs,
    )
    .case_insensitive(ctx.os != Os::Linux)
    .settings_dirs(settings)
    .xdg_config_home(ctx.run_env.xdg_config_home);
    // The approval service's socket, named anywhere in the command (§17).
    if let Some(p) = protected.names_service_socket(&c.req.command) {
        let mut out = c.base.finish(
            "deny",
            "protected_path",
            format!("{p} is protected by shellgate: only a human answers its requests"),
        );
        fill_analysis(&mut out, &c.analysis);
        return Some(out);
    }
    let safe = c.policy.safe_verbs(ctx.os);
    let mut reasons: Vec<String> = Vec::new();
    for (inv, cc) in c.analysis.invocations.iter().zip(c.per_inv.iter()) {
        let reader = safe.qualifies(inv, ctx.run_env.path);
        let owned: Vec<Touch>;
        let touches: &[Touch] = match cc {
            Some(cands) => &cands.touches,
            None => {
                owned = ungated_touches(inv, &c.resolver);
                &owned
            }
        };
        let found = protected_paths::assess(&protected, inv, touches, reader);
        if let Some(p) = found.violation {
            let mut out = c.base.finish(
                "deny",
                "protected_path",
                format!("{p} is protected by shellgate"),
            );
            fill_analysis(&mut out, &c.analysis);
            return Some(out);
        }
        for r in found.complex {
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
    }
    for r in reasons {
        if !c.analysis.complex_reasons.contains(&r) {
            c.analysis.complex_reasons.push(r);
        }
    }
    if c.analysis.is_complex() {
        c.analysis.patterns.clear();
    }
    None
}

/// Touches of an inner (ungated) command, for protected paths only.
fn ungated_touches(inv: &analyze::Invocation, r: &Resolver) -> Vec<Touch> {
    let mut reasons = Vec::new();
    // (Candidates do not depend on whether the invocation is gated.)
    match candidates::for_invocation(inv, r, &mut reasons) {
        Some(c) => c.touches,
        None => Vec::new(),
    }
}

/// 5. Autonomous zone (§9.5): on a non-interactive channel everything a
///    gated command touches lies in the session or project directory.
pub(super) fn zone(c: &ShellCall) -> Option<Decision> {
    let ctx = c.ctx;
    if ctx.channel.is_interactive() {
        return None;
    }
    let zone = write_zone(ctx);
    if zone.is_empty() {
        let mut out = c.base.finish(
            "deny",
            "autonomous_zone_empty",
            "no session or project directory to confine an unattended run",
        );
        fill(&mut out, c, None);
        return Some(out);
    }
    let mut touched: Vec<Touch> = Vec::new();
    if let Some(w) = &c.req.working_directory {
        touched.push(Touch::new(
            paths::normalize(&expand_home(w, &ctx.home)),
            candidates::TouchKind::WorkingDir,
            candidates::Scope::Exact,
        ));
    }
    for (inv, cc) in c.analysis.invocations.iter().zip(c.per_inv.iter()) {
        if !inv.gated {
            continue;
        }
        match cc {
            Some(cands) => touched.extend(cands.touches.iter().cloned()),
            None => touched.extend(inv.cwd.iter().map(|d| {
                Touch::new(
                    d.clone(),
                    candidates::TouchKind::WorkingDir,
                    candidates::Scope::Exact,
                )
            })),
        }
    }
    let out_touch = touched.iter().find(|t| !touch_in_zone(ctx, &zone, t))?;
    let out_path = &out_touch.path;
    let mut out = c.base.finish(
        "deny",
        "outside_autonomous_zone",
        format!("{out_path} is outside the session and project directories of an unattended run"),
    );
    fill(&mut out, c, None);
    Some(out)
}

/// 6. `auto` mode ⇒ allow `tool_auto`.
pub(super) fn tool_auto(c: &ShellCall, mode: Mode) -> Option<Decision> {
    if mode != Mode::Auto {
        return None;
    }
    // A literal program piped into a shell (`echo 'rm -rf ~' | bash`): in
    // the interactive modes a human sees it in the one-shot ask; here
    // nobody does, so it meets hard deny as the same text in a here-string
    // would (rt28a/rt28b).
    if c.analysis.runs_download {
        let mut out = c.base.finish(
            "deny",
            "hard_deny_remote_code",
            "never allowed: a downloaded file is run by a later command of the call, with nobody to look at it".to_string(),
        );
        fill_analysis(&mut out, &c.analysis);
        return Some(out);
    }
    if let Some(d) = piped_hard_deny(c, &c.analysis, 0) {
        let mut out = c
            .base
            .finish("deny", d.reason(), format!("never allowed: {}", d.message));
        fill_analysis(&mut out, &c.analysis);
        return Some(out);
    }
    let mut out = c.base.finish(
        "allow",
        "tool_auto",
        format!("{} runs without approval for this audience", c.req.tool),
    );
    fill(&mut out, c, None);
    Some(out)
}

/// Hard deny of the literal programs `a` pipes into a shell, and of theirs
/// (a few levels deep).
fn piped_hard_deny(c: &ShellCall, a: &Analysis, depth: usize) -> Option<hard_deny_rules::Denial> {
    if depth > 4 {
        return None;
    }
    for (text, cwd) in &a.piped_programs {
        let inner = analyze::analyze(
            text,
            cwd.as_deref(),
            &analyze::Env {
                home: c.ctx.home.clone(),
                inert: c.policy.config.environment.inert.clone(),
                cdpath: c.ctx.run_env.cdpath.is_some_and(|p| !p.is_empty()),
                windows: c.ctx.os == Os::Windows,
            },
        );
        let d = hard_deny_rules::check_in(
            &inner,
            text,
            &c.ctx.home,
            Some(c.ctx.fs),
            c.policy.config.hard_deny_rules(),
        )
        .or_else(|| piped_hard_deny(c, &inner, depth + 1));
        if d.is_some() {
            return d;
        }
    }
    None
}

/// 7. A one-time approval of exactly this call ⇒ allow `approved_once`
///    (consumed).
pub(super) fn once(c: &ShellCall) -> Option<Decision> {
    if !c
        .lookups
        .take_once(&c.req.tool, &c.req.command, c.cwd.as_deref())
    {
        return None;
    }
    let mut out = c
        .base
        .finish("allow", "approved_once", "approved once by a human");
    fill(&mut out, c, None);
    Some(out)
}

/// 8. Complex ⇒ ask `complex_command` (only a one-shot approval); no human
///    on the channel ⇒ deny.
pub(super) fn complex(c: &ShellCall) -> Option<Decision> {
    if !c.analysis.is_complex() {
        return None;
    }
    let mut out = if c.ctx.channel.is_interactive() {
        c.base.finish(
            "ask",
            "complex_command",
            format!(
                "complex command ({}): only one-shot approval",
                c.analysis.complex_reasons.join(", ")
            ),
        )
    } else {
        c.base.finish(
            "deny",
            "channel_does_not_support_approval",
            "complex command and no human can approve on this channel",
        )
    };
    fill(&mut out, c, None);
    if out.decision == "ask" {
        super::ask::finish_prompt(&mut out, c.ctx, true);
    }
    Some(out)
}

/// 9. Every candidate is a pure side effect ⇒ allow `side_effect_only`.
pub(super) fn side_effects(out: &mut Decision) -> bool {
    if !real(out).is_empty() {
        return false;
    }
    out.decision = "allow";
    out.reason = "side_effect_only".into();
    out.message = "only pure side effects (echo, printf, test …)".into();
    true
}

/// 10. Safe-verb short-circuit (§8.3) ⇒ allow `safe_verb_in_safe_space`.
pub(super) fn safe_verbs(out: &mut Decision) -> bool {
    if !real(out).iter().all(|c| c.status == Status::Safe) {
        return false;
    }
    out.decision = "allow";
    out.reason = "safe_verb_in_safe_space".into();
    out.message = "read-only commands inside the session or project directory".into();
    true
}

/// 11. Every candidate granted (session or persistent) or safe ⇒ allow
///     `granted`.
pub(super) fn grants(out: &mut Decision) -> bool {
    if !real(out).iter().all(|c| c.status != Status::Unapproved) {
        return false;
    }
    out.decision = "allow";
    out.reason = "granted".into();
    out.message = "every command is granted".into();
    true
}
