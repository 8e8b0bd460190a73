//! The policy decision (SPEC §9): evaluation order, safe spaces, grants,
//! zones and file tools. Pure: grants and one-time approvals are looked up
//! through [`Lookups`], implemented at the edge.

use serde::Serialize;

use crate::candidates::{self, Resolver, Scope, Touch, TouchKind};
use crate::config::{expand_home, FileMode, Mode, PolicyConfig};
use crate::hard_deny;
use crate::model::{file_tool_writes, Audience, Channel, Os, FILE_TOOLS, SHELL_TOOL};
use crate::prompt::{self, Prompt};
use crate::protected::{self, Protected};
use crate::safe_verbs::SafeVerbs;
use shellgate_shell::analyze::{self, Analysis};
use shellgate_shell::display;
use shellgate_shell::paths::{self, basename};
use shellgate_shell::verbs::is_interpreter;

/// Commands longer than this are refused (`invalid_call`).
pub const MAX_COMMAND_BYTES: usize = 65_536;

/// One call to authorize.
#[derive(Debug, Clone)]
pub struct Request {
    pub tool: String,
    /// The shell command, or the path for a file tool.
    pub command: String,
    /// Explicit working directory.
    pub working_directory: Option<String>,
}

/// Who is asking, and where.
#[derive(Debug, Clone)]
pub struct Context {
    pub session: String,
    pub audience: Audience,
    pub channel: Channel,
    pub os: Os,
    pub project_dir: Option<String>,
    /// `$SHELLGATE_HOME/sessions/<id>`.
    pub session_dir: String,
    /// The user's home directory.
    pub home: String,
    /// `$SHELLGATE_HOME`.
    pub gate_home: String,
}

/// A grant that matched, as reported in the decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrantRef {
    pub verb: String,
    pub directory: Option<String>,
}

/// I/O the policy needs: grants and one-time approvals.
pub trait Lookups {
    fn persistent_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef>;
    fn session_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef>;
    /// Consume a one-time approval for exactly this call, if recorded.
    fn take_once(&self, tool: &str, command: &str, cwd: Option<&str>) -> bool;
}

/// Lookups with nothing recorded.
pub struct NoLookups;

impl Lookups for NoLookups {
    fn persistent_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn session_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn take_once(&self, _: &str, _: &str, _: Option<&str>) -> bool {
        false
    }
}

/// Status of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Unapproved,
    Granted,
    GrantedSession,
    Safe,
    SideEffect,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub verb: String,
    pub directory: Option<String>,
    pub status: Status,
    pub grant: Option<GrantRef>,
}

/// The decision object of §2.3.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    pub decision: &'static str,
    pub reason: String,
    pub message: String,
    pub tool: String,
    pub command: String,
    pub display: String,
    pub cwd: Option<String>,
    pub audience: Audience,
    pub channel: Channel,
    pub complex: bool,
    pub complex_reasons: Vec<String>,
    pub candidates: Vec<Candidate>,
    pub patterns: Vec<String>,
    pub options: Option<Vec<String>>,
    pub prompt: Option<Prompt>,
    pub hint: Option<String>,
    /// Location text of the prompt (for resolution lines); not serialized.
    #[serde(skip)]
    pub location: String,
    /// Verbs shown to the human (for resolution lines); not serialized.
    #[serde(skip)]
    pub display_verbs: Vec<String>,
}

impl Decision {
    pub fn exit_code(&self) -> i32 {
        match self.decision {
            "allow" => 0,
            "ask" => 10,
            _ => 11,
        }
    }
}

/// Configuration in force for evaluations.
#[derive(Debug, Clone)]
pub struct Policy {
    pub config: PolicyConfig,
    safe: [SafeVerbs; 3],
}

impl Policy {
    pub fn new(config: PolicyConfig, user_safe: &[(Os, Vec<String>)]) -> Policy {
        let mut safe = [
            SafeVerbs::bundled(Os::Linux),
            SafeVerbs::bundled(Os::Macos),
            SafeVerbs::bundled(Os::Windows),
        ];
        for (os, verbs) in user_safe {
            safe[os_index(*os)].add(verbs);
        }
        Policy { config, safe }
    }

    pub fn safe_verbs(&self, os: Os) -> &SafeVerbs {
        &self.safe[os_index(os)]
    }
}

fn os_index(os: Os) -> usize {
    match os {
        Os::Linux => 0,
        Os::Macos => 1,
        Os::Windows => 2,
    }
}

/// Secret-looking file names (§8.3).
pub fn secret_looking(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == ".env"
        || n.starts_with(".env.")
        || n.ends_with(".pem")
        || n.ends_with(".key")
        || n.ends_with(".p12")
        || n.ends_with(".pfx")
        || n.starts_with("id_rsa")
        || n.starts_with("id_ed25519")
        || n.starts_with("id_ecdsa")
        || n == ".netrc"
        || n == ".npmrc"
        || n == ".pypirc"
        || n == ".git-credentials"
        || n == "credentials"
        || n == "credentials.json"
        || n.starts_with("secrets.")
        || n.ends_with(".kdbx")
}

/// The call's working directory (§1): the first that exists of explicit
/// working directory, project dir, session dir.
pub fn resolve_cwd(req: &Request, ctx: &Context) -> Option<String> {
    let candidates = [
        req.working_directory.clone(),
        ctx.project_dir.clone(),
        Some(ctx.session_dir.clone()),
    ];
    candidates
        .into_iter()
        .flatten()
        .map(|d| paths::normalize(&expand_home(&d, &ctx.home)))
        .find(|d| crate::fs::is_dir(d))
}

struct Base {
    tool: String,
    command: String,
    display: String,
    cwd: Option<String>,
    audience: Audience,
    channel: Channel,
}

impl Base {
    fn finish(
        &self,
        decision: &'static str,
        reason: impl Into<String>,
        message: impl Into<String>,
    ) -> Decision {
        Decision {
            decision,
            reason: reason.into(),
            message: message.into(),
            tool: self.tool.clone(),
            command: self.command.clone(),
            display: self.display.clone(),
            cwd: self.cwd.clone(),
            audience: self.audience,
            channel: self.channel,
            complex: false,
            complex_reasons: Vec::new(),
            candidates: Vec::new(),
            patterns: Vec::new(),
            options: None,
            prompt: None,
            hint: None,
            location: String::new(),
            display_verbs: Vec::new(),
        }
    }
}

/// Evaluate a call.
pub fn evaluate(policy: &Policy, req: &Request, ctx: &Context, lookups: &dyn Lookups) -> Decision {
    if FILE_TOOLS.contains(&req.tool.as_str()) {
        return evaluate_file(policy, req, ctx, lookups);
    }
    let cwd = resolve_cwd(req, ctx);
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
        cwd: cwd.clone(),
        audience: ctx.audience,
        channel: ctx.channel,
    };
    let Some(mut analysis) = analysis else {
        let why = if req.tool.trim().is_empty() {
            "the tool name is empty"
        } else if req.command.trim().is_empty() {
            "the command is blank"
        } else if req.command.contains('\0') {
            "the command contains a NUL byte"
        } else {
            "the command is longer than 65536 bytes"
        };
        return base.finish("deny", "invalid_call", format!("invalid call: {why}"));
    };

    // 2. Tool admission and mode.
    let mode = match admit(policy, req, ctx, &base) {
        Ok(m) => m,
        Err(denied) => return *denied,
    };

    // Candidates (complex reasons from dynamic operands join the analysis).
    let resolver = Resolver {
        home: &ctx.home,
        windows: ctx.os == Os::Windows,
    };
    let mut extra_reasons = Vec::new();
    let per_inv: Vec<Option<candidates::CommandCandidates>> = analysis
        .invocations
        .iter()
        .map(|inv| {
            if inv.gated {
                candidates::for_invocation(inv, &resolver, &mut extra_reasons)
            } else {
                None
            }
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

    // 3. Hard deny, on everything found.
    if let Some(d) = hard_deny::check(
        &analysis,
        &req.command,
        &ctx.home,
        policy.config.hard_deny_rules(),
    ) {
        let mut out = base.finish("deny", d.reason(), format!("never allowed: {}", d.message));
        fill_analysis(&mut out, &analysis);
        return out;
    }

    // 4. Protected paths.
    let protected = Protected::new(
        &ctx.gate_home,
        &ctx.home,
        policy.config.protected_read(),
        policy.config.protected_write(),
    );
    let safe = policy.safe_verbs(ctx.os);
    for (inv, cc) in analysis.invocations.iter().zip(per_inv.iter()) {
        let reader = safe.qualifies(inv);
        let touches: Vec<Touch> = match cc {
            Some(c) => c.touches.clone(),
            None => ungated_touches(inv, &resolver),
        };
        let b = protected::behaviour(inv, reader);
        if let Some(p) = protected::violation(&protected, &touches, b) {
            let mut out = base.finish(
                "deny",
                "protected_path",
                format!("{p} is protected by shellgate"),
            );
            fill_analysis(&mut out, &analysis);
            return out;
        }
    }

    // Candidate list with statuses.
    let mut cands: Vec<CandState> = Vec::new();
    for (inv, cc) in analysis.invocations.iter().zip(per_inv.iter()) {
        let Some(c) = cc else { continue };
        let qualifies = !analysis.is_complex()
            && safe.qualifies(inv)
            && !names_secret(&c.touches)
            && !names_secret_object(inv);
        for d in &c.dirs {
            let safe_here = qualifies && d.as_deref().is_some_and(|dir| in_safe_space(dir, ctx));
            match cands.iter_mut().find(|x| x.verb == c.verb && &x.dir == d) {
                Some(x) => {
                    x.safe &= safe_here;
                    x.side_effect &= c.side_effect;
                }
                None => cands.push(CandState {
                    verb: c.verb.clone(),
                    dir: d.clone(),
                    side_effect: c.side_effect,
                    safe: safe_here,
                }),
            }
        }
    }

    // 5. Autonomous zone on non-interactive channels.
    if !ctx.channel.is_interactive() {
        let zone = write_zone(ctx);
        if zone.is_empty() {
            let mut out = base.finish(
                "deny",
                "autonomous_zone_empty",
                "no session or project directory to confine an unattended run",
            );
            fill(&mut out, &analysis, &cands, None, lookups, ctx, &req.tool);
            return out;
        }
        let mut touched: Vec<String> = Vec::new();
        if let Some(w) = &req.working_directory {
            touched.push(paths::normalize(&expand_home(w, &ctx.home)));
        }
        for (inv, cc) in analysis.invocations.iter().zip(per_inv.iter()) {
            if !inv.gated {
                continue;
            }
            match cc {
                Some(c) => touched.extend(c.touches.iter().map(|t| t.path.clone())),
                None => touched.extend(inv.cwd.clone()),
            }
        }
        if let Some(out_path) = touched
            .iter()
            .find(|p| !zone.iter().any(|z| crate::fs::contains(z, p)))
        {
            let mut out = base.finish(
                "deny",
                "outside_autonomous_zone",
                format!("{out_path} is outside the session and project directories of an unattended run"),
            );
            fill(&mut out, &analysis, &cands, None, lookups, ctx, &req.tool);
            return out;
        }
    }

    // 6. auto mode.
    if mode == Mode::Auto {
        let mut out = base.finish(
            "allow",
            "tool_auto",
            format!("{} runs without approval for this audience", req.tool),
        );
        fill(&mut out, &analysis, &cands, None, lookups, ctx, &req.tool);
        return out;
    }

    // 7. One-time approval.
    if lookups.take_once(&req.tool, &req.command, cwd.as_deref()) {
        let mut out = base.finish("allow", "approved_once", "approved once by a human");
        fill(&mut out, &analysis, &cands, None, lookups, ctx, &req.tool);
        return out;
    }

    // 8. Complex.
    if analysis.is_complex() {
        let mut out = if ctx.channel.is_interactive() {
            base.finish(
                "ask",
                "complex_command",
                format!(
                    "complex command ({}): only one-shot approval",
                    analysis.complex_reasons.join(", ")
                ),
            )
        } else {
            base.finish(
                "deny",
                "channel_does_not_support_approval",
                "complex command and no human can approve on this channel",
            )
        };
        fill(&mut out, &analysis, &cands, None, lookups, ctx, &req.tool);
        if out.decision == "ask" {
            finish_prompt(&mut out, ctx, true);
        }
        return out;
    }

    let mut out = base.finish("ask", "approval_required", String::new());
    fill(
        &mut out,
        &analysis,
        &cands,
        Some(()),
        lookups,
        ctx,
        &req.tool,
    );
    let real: Vec<&Candidate> = out
        .candidates
        .iter()
        .filter(|c| c.status != Status::SideEffect)
        .collect();
    // 9. All side effects.
    if real.is_empty() {
        out.decision = "allow";
        out.reason = "side_effect_only".into();
        out.message = "only pure side effects (echo, printf, test …)".into();
        return out;
    }
    // 10. Safe-verb short-circuit.
    if real.iter().all(|c| c.status == Status::Safe) {
        out.decision = "allow";
        out.reason = "safe_verb_in_safe_space".into();
        out.message = "read-only commands inside the session or project directory".into();
        return out;
    }
    // 11. Granted.
    if real.iter().all(|c| c.status != Status::Unapproved) {
        out.decision = "allow";
        out.reason = "granted".into();
        out.message = "every command is granted".into();
        return out;
    }
    // 12. Ask (or deny without a human).
    let missing: Vec<String> = real
        .iter()
        .filter(|c| c.status == Status::Unapproved)
        .map(|c| match &c.directory {
            Some(d) => format!("{} in {}", c.verb, d),
            None => format!("{} (no directory)", c.verb),
        })
        .collect();
    let msg = format!("{} is not approved", missing.join(", "));
    if !ctx.channel.is_interactive() {
        out.decision = "deny";
        out.reason = "channel_does_not_support_approval".into();
        out.message = format!("{msg}, and no human can approve on this channel");
        return out;
    }
    out.message = msg;
    finish_prompt(&mut out, ctx, false);
    out
}

/// Step 2 of §9.1, shared by shell and file tools: the audience's mode for
/// the tool, or the deny for a `deny` mode / a tool not on the list.
fn admit(
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

/// Touches of an inner (ungated) command, for protected paths only.
fn ungated_touches(inv: &analyze::Invocation, r: &Resolver) -> Vec<Touch> {
    let mut reasons = Vec::new();
    let mut probe = inv.clone();
    probe.gated = true;
    match candidates::for_invocation(&probe, r, &mut reasons) {
        Some(c) => c.touches,
        None => Vec::new(),
    }
}

fn names_secret(touches: &[Touch]) -> bool {
    touches.iter().any(|t| {
        matches!(t.kind, TouchKind::Operand | TouchKind::RedirectRead)
            && t.scope == Scope::Exact
            && secret_looking(basename(&t.path))
    })
}

/// `git show REV:path/to/.env`: a secret-looking file read out of a
/// revision (not a file operand, same concern).
fn names_secret_object(inv: &analyze::Invocation) -> bool {
    inv.argv.iter().skip(1).any(|w| {
        let v = w.lossy_value();
        match v.split_once(':') {
            Some((_, path)) if !v.starts_with('-') => secret_looking(basename(path)),
            _ => false,
        }
    })
}

fn safe_roots(ctx: &Context) -> Vec<String> {
    let mut v = vec![paths::normalize(&ctx.session_dir)];
    if ctx.audience != Audience::Public {
        if let Some(p) = &ctx.project_dir {
            v.push(paths::normalize(&expand_home(p, &ctx.home)));
        }
    }
    v
}

fn in_safe_space(dir: &str, ctx: &Context) -> bool {
    safe_roots(ctx).iter().any(|r| crate::fs::contains(r, dir))
}

fn write_zone(ctx: &Context) -> Vec<String> {
    let mut v = vec![paths::normalize(&ctx.session_dir)];
    if let Some(p) = &ctx.project_dir {
        v.push(paths::normalize(&expand_home(p, &ctx.home)));
    }
    v
}

struct CandState {
    verb: String,
    dir: Option<String>,
    side_effect: bool,
    safe: bool,
}

fn fill_analysis(out: &mut Decision, a: &Analysis) {
    out.complex = a.is_complex();
    out.complex_reasons = a.complex_reasons.clone();
    out.patterns = if a.is_complex() {
        Vec::new()
    } else {
        a.patterns.clone()
    };
}

/// Fill analysis fields and candidates; statuses from grants only when
/// `with_grants` (not for complex calls, which grants never allow).
fn fill(
    out: &mut Decision,
    a: &Analysis,
    cands: &[CandState],
    with_grants: Option<()>,
    lookups: &dyn Lookups,
    ctx: &Context,
    tool: &str,
) {
    fill_analysis(out, a);
    out.candidates = cands
        .iter()
        .map(|c| {
            if c.side_effect {
                return Candidate {
                    verb: c.verb.clone(),
                    directory: c.dir.clone(),
                    status: Status::SideEffect,
                    grant: None,
                };
            }
            if with_grants.is_some() {
                if c.safe {
                    return Candidate {
                        verb: c.verb.clone(),
                        directory: c.dir.clone(),
                        status: Status::Safe,
                        grant: None,
                    };
                }
                if let Some(g) =
                    lookups.session_grant(ctx.audience, tool, &c.verb, c.dir.as_deref())
                {
                    return Candidate {
                        verb: c.verb.clone(),
                        directory: c.dir.clone(),
                        status: Status::GrantedSession,
                        grant: Some(g),
                    };
                }
                if let Some(g) =
                    lookups.persistent_grant(ctx.audience, tool, &c.verb, c.dir.as_deref())
                {
                    return Candidate {
                        verb: c.verb.clone(),
                        directory: c.dir.clone(),
                        status: Status::Granted,
                        grant: Some(g),
                    };
                }
            }
            Candidate {
                verb: c.verb.clone(),
                directory: c.dir.clone(),
                status: Status::Unapproved,
                grant: None,
            }
        })
        .collect();
}

/// Options, prompt and hints of an `ask` (§7.1, §7.2, §10).
fn finish_prompt(out: &mut Decision, ctx: &Context, complex: bool) {
    let cwd = out.cwd.clone();
    let session_dir = paths::normalize(&ctx.session_dir);
    let unapproved: Vec<&Candidate> = out
        .candidates
        .iter()
        .filter(|c| c.status == Status::Unapproved)
        .collect();
    let mut verbs: Vec<String> = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    for c in &unapproved {
        if !verbs.contains(&c.verb) {
            verbs.push(c.verb.clone());
        }
        if let Some(d) = &c.directory {
            if !dirs.contains(d) {
                dirs.push(d.clone());
            }
        }
    }
    let location = prompt::location(&dirs, cwd.as_deref(), &session_dir);
    out.prompt = Some(prompt::build(&verbs, &location, complex));
    out.location = location;
    out.display_verbs = verbs;
    out.options = Some(options(out, ctx, complex));
    // set-project-dir hint.
    if ctx.audience != Audience::Public {
        if let Some(c) = &cwd {
            let in_session = paths::is_within(c, &session_dir);
            let in_project = ctx.project_dir.as_ref().is_some_and(|p| {
                paths::is_within(c, &paths::normalize(&expand_home(p, &ctx.home)))
            });
            if !in_session && !in_project {
                out.hint = Some(prompt::project_hint(&ctx.session, c));
            }
        }
    }
}

fn options(out: &Decision, ctx: &Context, complex: bool) -> Vec<String> {
    if complex {
        return vec!["approve_once".into(), "deny".into()];
    }
    let session_dir = paths::normalize(&ctx.session_dir);
    let real: Vec<&Candidate> = out
        .candidates
        .iter()
        .filter(|c| c.status != Status::SideEffect)
        .collect();
    let cwd_shallow = out.cwd.as_deref().is_some_and(paths::is_shallow);
    let persists_nothing = real.iter().all(|c| match &c.directory {
        Some(d) => paths::is_shallow(d) || paths::is_within(d, &session_dir),
        None => out.cwd.is_none(),
    });
    let no_everywhere = real.iter().any(|c| {
        let first = c.verb.split(' ').next().unwrap_or("");
        let b = basename(first);
        is_interpreter(b) || b == "shellgate"
    });
    let mut v = vec!["approve_once".to_string(), "approve_session".to_string()];
    if !(cwd_shallow || persists_nothing) {
        v.push("approve_always".into());
    }
    if !no_everywhere {
        v.push("approve_everywhere".into());
    }
    v.push("deny".into());
    v
}

/// What an answer persists (§12.1).
#[derive(Debug, Clone, Default)]
pub struct Persist {
    /// Persistent grants to add: (verb, directory).
    pub store: Vec<(String, Option<String>)>,
    /// Session grants to add.
    pub session: Vec<(String, Option<String>)>,
    /// Record a one-time approval.
    pub once: bool,
    /// Candidates skipped as too broad (labels).
    pub skipped: Vec<String>,
}

/// Plan what `option` persists for a decision that asked.
pub fn plan_answer(d: &Decision, option: &str, ctx: &Context) -> Persist {
    let mut p = Persist::default();
    let real: Vec<&Candidate> = d
        .candidates
        .iter()
        .filter(|c| c.status != Status::SideEffect)
        .collect();
    let session_dir = paths::normalize(&ctx.session_dir);
    match option {
        "approve_once" => p.once = true,
        "approve_session" => {
            for c in real {
                let e = (c.verb.clone(), c.directory.clone());
                if !p.session.contains(&e) {
                    p.session.push(e);
                }
            }
        }
        "approve_everywhere" => {
            for c in real {
                let e = (c.verb.clone(), None);
                if !p.store.contains(&e) {
                    p.store.push(e);
                }
            }
        }
        "approve_always" => {
            let mut wanted: Vec<(String, String)> = Vec::new();
            for c in real {
                let dir = match c.directory.clone().or_else(|| d.cwd.clone()) {
                    Some(x) => x,
                    None => {
                        p.skipped.push(format!("{} (no directory)", c.verb));
                        continue;
                    }
                };
                if paths::is_shallow(&dir) || paths::is_within(&dir, &session_dir) {
                    p.skipped.push(format!("{} in {}", c.verb, dir));
                    continue;
                }
                if !wanted.contains(&(c.verb.clone(), dir.clone())) {
                    wanted.push((c.verb.clone(), dir));
                }
            }
            // Drop entries another entry of the same answer already covers.
            for (i, (v, dir)) in wanted.iter().enumerate() {
                let covered = wanted.iter().enumerate().any(|(j, (v2, d2))| {
                    j != i && v2 == v && d2 != dir && crate::fs::contains(d2, dir)
                });
                if !covered {
                    p.store.push((v.clone(), Some(dir.clone())));
                }
            }
        }
        _ => {}
    }
    p
}

/// File tools (§9.6).
fn evaluate_file(policy: &Policy, req: &Request, ctx: &Context, lookups: &dyn Lookups) -> Decision {
    let base_dir = ctx
        .project_dir
        .as_ref()
        .map(|p| paths::normalize(&expand_home(p, &ctx.home)))
        .filter(|p| crate::fs::is_dir(p))
        .unwrap_or_else(|| paths::normalize(&ctx.session_dir));
    let raw = req.command.trim();
    let base = Base {
        tool: req.tool.clone(),
        command: req.command.clone(),
        display: if raw.is_empty() {
            "(empty command)".into()
        } else {
            display::escape(&req.command)
        },
        cwd: Some(base_dir.clone()),
        audience: ctx.audience,
        channel: ctx.channel,
    };
    if raw.is_empty() || req.command.contains('\0') || req.command.len() > MAX_COMMAND_BYTES {
        return base.finish(
            "deny",
            "invalid_call",
            "invalid call: the path is blank or malformed",
        );
    }
    let mode = match admit(policy, req, ctx, &base) {
        Ok(m) => m,
        Err(denied) => return *denied,
    };
    let expanded = expand_home(raw, &ctx.home);
    let path = if expanded.starts_with('/') {
        paths::normalize(&expanded)
    } else {
        paths::resolve(&base_dir, &expanded)
    };
    let writes = file_tool_writes(&req.tool);
    // Protected paths.
    let protected = Protected::new(
        &ctx.gate_home,
        &ctx.home,
        policy.config.protected_read(),
        policy.config.protected_write(),
    );
    let touch = Touch {
        path: path.clone(),
        kind: TouchKind::Operand,
        scope: Scope::Exact,
    };
    let behaviour = protected::Behaviour {
        reader: !writes,
        lists: req.tool == "file_list",
        ..Default::default()
    };
    if protected::violation(&protected, &[touch], behaviour).is_some() {
        return base.finish(
            "deny",
            "protected_path",
            format!("{path} is protected by shellgate"),
        );
    }
    // Autonomous zone.
    if !ctx.channel.is_interactive() {
        let mut zone = write_zone(ctx);
        if !writes {
            zone.extend(
                policy
                    .config
                    .autonomous_read_roots()
                    .iter()
                    .map(|r| paths::normalize(&expand_home(r, &ctx.home))),
            );
        }
        if zone.is_empty() {
            return base.finish(
                "deny",
                "autonomous_zone_empty",
                "no session or project directory to confine an unattended run",
            );
        }
        if !zone.iter().any(|z| crate::fs::contains(z, &path)) {
            return base.finish(
                "deny",
                "outside_autonomous_zone",
                format!(
                    "{path} is outside the session and project directories of an unattended run"
                ),
            );
        }
    }
    // File mode.
    let (read_mode, write_mode) = policy.config.file_modes(ctx.audience);
    let fmode = if writes { write_mode } else { read_mode };
    match fmode {
        FileMode::None => {
            return base.finish(
                "deny",
                "file_access_denied",
                format!(
                    "file access is 'none' for the {} audience",
                    ctx.audience.as_str()
                ),
            );
        }
        FileMode::Roots => {
            let mut roots = vec![paths::normalize(&ctx.session_dir)];
            if ctx.audience != Audience::Public {
                if let Some(p) = &ctx.project_dir {
                    roots.push(paths::normalize(&expand_home(p, &ctx.home)));
                }
            }
            roots.extend(
                policy
                    .config
                    .file_roots(ctx.audience)
                    .iter()
                    .map(|r| paths::normalize(&expand_home(r, &ctx.home))),
            );
            if !roots.iter().any(|r| crate::fs::contains(r, &path)) {
                return base.finish(
                    "deny",
                    "file_access_denied",
                    format!(
                        "{path} is outside the file roots of the {} audience",
                        ctx.audience.as_str()
                    ),
                );
            }
        }
        FileMode::All => {}
    }
    let dir = if crate::fs::is_dir(&path) {
        path.clone()
    } else {
        paths::parent(&path)
    };
    let cand = |status, grant| Candidate {
        verb: req.tool.clone(),
        directory: Some(dir.clone()),
        status,
        grant,
    };
    if mode == Mode::Auto {
        let mut out = base.finish(
            "allow",
            "tool_auto",
            format!("{} runs without approval for this audience", req.tool),
        );
        out.candidates = vec![cand(Status::Unapproved, None)];
        return out;
    }
    if lookups.take_once(&req.tool, &req.command, base.cwd.as_deref()) {
        let mut out = base.finish("allow", "approved_once", "approved once by a human");
        out.candidates = vec![cand(Status::Unapproved, None)];
        return out;
    }
    if let Some(g) = lookups.session_grant(ctx.audience, &req.tool, &req.tool, Some(&dir)) {
        let mut out = base.finish("allow", "granted", "granted for this chat");
        out.candidates = vec![cand(Status::GrantedSession, Some(g))];
        return out;
    }
    if let Some(g) = lookups.persistent_grant(ctx.audience, &req.tool, &req.tool, Some(&dir)) {
        let mut out = base.finish("allow", "granted", "granted");
        out.candidates = vec![cand(Status::Granted, Some(g))];
        return out;
    }
    let mut out = base.finish(
        "ask",
        "approval_required",
        format!("{} of {path} is not approved", req.tool),
    );
    out.candidates = vec![cand(Status::Unapproved, None)];
    if !ctx.channel.is_interactive() {
        out.decision = "deny";
        out.reason = "channel_does_not_support_approval".into();
        return out;
    }
    finish_prompt(&mut out, ctx, false);
    out
}

/// Whether a tool name is the shell tool.
pub fn is_shell_tool(tool: &str) -> bool {
    tool == SHELL_TOOL
}
