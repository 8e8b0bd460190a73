//! File tools (SPEC §9.6): the layers of §9.1 for a call whose argument is
//! one path (`file_read`, `file_write`, `file_edit`, `file_list`). The
//! candidate is `(tool, directory of the path)`.

use shellgate_shell::display;
use shellgate_shell::paths;

use super::ask::finish_prompt;
use super::layers::admit;
use super::safe_space::{case_insensitive, grant_holds, touch_in_zone, write_zone};
use super::{
    Base, Candidate, Context, Decision, GrantRef, Lookups, Policy, Request, Status,
    MAX_COMMAND_BYTES,
};
use crate::candidates::{Scope, Touch, TouchKind};
use crate::config::{expand_home, FileMode, Mode};
use crate::fs;
use crate::model::{file_tool_writes, Audience};
use crate::protected::{self, Protected};
use crate::repo::{git_reads_as_config, is_git_internal};

/// What the layers of one file-tool call look at.
struct FileCall<'a> {
    policy: &'a Policy,
    req: &'a Request,
    ctx: &'a Context<'a>,
    base: Base,
    /// The path, absolute and normalized.
    path: String,
    /// The same path as written (absolute, `..` kept), for the kernel.
    raw: String,
    /// Whether the tool writes.
    writes: bool,
}

/// Evaluate a file-tool call.
pub(super) fn evaluate(
    policy: &Policy,
    req: &Request,
    ctx: &Context,
    lookups: &dyn Lookups,
) -> Decision {
    let base_dir = ctx
        .project_dir
        .as_ref()
        .map(|p| paths::normalize(&expand_home(p, &ctx.home)))
        .filter(|p| fs::is_dir(ctx.fs, p))
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
    // 1. Input validation.
    if raw.is_empty() || req.command.contains('\0') || req.command.len() > MAX_COMMAND_BYTES {
        return base.finish(
            "deny",
            "invalid_call",
            "invalid call: the path is blank or malformed",
        );
    }
    // 2. Tool admission and mode.
    let mode = match admit(policy, req, ctx, &base) {
        Ok(m) => m,
        Err(denied) => return *denied,
    };
    let expanded = expand_home(raw, &ctx.home);
    let expanded = if ctx.os == crate::model::Os::Windows {
        expanded.replace('\\', "/")
    } else {
        expanded
    };
    let path = if expanded.starts_with('/') {
        paths::normalize(&expanded)
    } else {
        paths::resolve(&base_dir, &expanded)
    };
    let raw = crate::resolve::join_raw(&base_dir, &expanded);
    let call = FileCall {
        policy,
        req,
        ctx,
        base,
        path,
        raw,
        writes: file_tool_writes(&req.tool),
    };
    // (3. Hard deny has nothing to check in a path.)
    // 4. Protected paths.
    if let Some(d) = protected_path(&call) {
        return d;
    }
    // 5. Autonomous zone.
    if let Some(d) = zone(&call) {
        return d;
    }
    // 5b. File mode.
    if let Some(d) = file_mode(&call) {
        return d;
    }
    // Writes to git's internals (§15.5, §15.17): never `tool_auto`, never
    // granted — a one-shot approval.
    if call.writes && git_internal(&call) {
        return one_shot(call);
    }
    let touch = call.touch();
    let FileCall { base, path, .. } = call;
    let dir = if fs::is_dir(ctx.fs, &path) {
        path.clone()
    } else {
        paths::parent(&path)
    };
    let cand = |status, grant: Option<GrantRef>| Candidate {
        verb: req.tool.clone(),
        directory: Some(dir.clone()),
        status,
        grant,
    };
    // 6. `auto` mode.
    if mode == Mode::Auto {
        let mut out = base.finish(
            "allow",
            "tool_auto",
            format!("{} runs without approval for this audience", req.tool),
        );
        out.candidates = vec![cand(Status::Unapproved, None)];
        return out;
    }
    // 7. One-time approval.
    if lookups.take_once(&req.tool, &req.command, base.cwd.as_deref()) {
        let mut out = base.finish("allow", "approved_once", "approved once by a human");
        out.candidates = vec![cand(Status::Unapproved, None)];
        return out;
    }
    // 11. Granted (for this chat, then persistently).
    let holds = |g: &GrantRef| grant_holds(ctx, g.directory.as_deref(), &[&touch]);
    if let Some(g) = lookups
        .session_grant(ctx.audience, &req.tool, &req.tool, Some(&dir))
        .filter(holds)
    {
        let mut out = base.finish("allow", "granted", "granted for this chat");
        out.candidates = vec![cand(Status::GrantedSession, Some(g))];
        return out;
    }
    if let Some(g) = lookups
        .persistent_grant(ctx.audience, &req.tool, &req.tool, Some(&dir))
        .filter(holds)
    {
        let mut out = base.finish("allow", "granted", "granted");
        out.candidates = vec![cand(Status::Granted, Some(g))];
        return out;
    }
    // 12. Ask (or deny without a human).
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

impl FileCall<'_> {
    /// The touch of the call's path.
    fn touch(&self) -> Touch {
        Touch {
            path: self.path.clone(),
            raw: self.raw.clone(),
            kind: TouchKind::Operand,
            scope: Scope::Exact,
            follow: true,
            role: None,
        }
    }
}

/// Whether the call writes one of git's code-bearing internals, by name or
/// through a link.
fn git_internal(c: &FileCall) -> bool {
    let ci = case_insensitive(c.ctx.os);
    if is_git_internal(&c.path, ci)
        || git_reads_as_config(
            c.ctx.fs,
            &c.path,
            &c.ctx.home,
            c.ctx.run_env.xdg_config_home,
        )
    {
        return true;
    }
    [true, false].iter().any(|&follow| {
        crate::resolve::kernel(c.ctx.fs, &c.raw, follow)
            .path()
            .is_some_and(|k| is_git_internal(k, ci))
    })
}

/// Ask for a one-shot approval (no persistent option); deny where no human
/// can answer.
fn one_shot(c: FileCall) -> Decision {
    let FileCall {
        base,
        ctx,
        req,
        path,
        ..
    } = c;
    let dir = if fs::is_dir(ctx.fs, &path) {
        path.clone()
    } else {
        paths::parent(&path)
    };
    let mut out = base.finish(
        "ask",
        "approval_required",
        format!(
            "{} of {path} writes git's internals (config, hooks): only one-shot approval",
            req.tool
        ),
    );
    out.candidates = vec![Candidate {
        verb: req.tool.clone(),
        directory: Some(dir),
        status: Status::Unapproved,
        grant: None,
    }];
    if !ctx.channel.is_interactive() {
        out.decision = "deny";
        out.reason = "channel_does_not_support_approval".into();
        return out;
    }
    finish_prompt(&mut out, ctx, true);
    out
}

/// 4. Protected paths (§9.4, §15.18).
fn protected_path(c: &FileCall) -> Option<Decision> {
    let ctx = c.ctx;
    let settings = ctx
        .project_dir
        .iter()
        .map(|p| paths::normalize(&expand_home(p, &ctx.home)))
        .collect::<Vec<_>>();
    let protected = Protected::new(
        &ctx.gate_home,
        &ctx.home,
        c.policy.config.protected_read(),
        c.policy.config.protected_write(),
        ctx.fs,
    )
    .case_insensitive(case_insensitive(ctx.os))
    .settings_dirs(settings)
    .xdg_config_home(ctx.run_env.xdg_config_home);
    let behaviour = protected::Behaviour {
        reader: !c.writes,
        lists: c.req.tool == "file_list",
        ..Default::default()
    };
    protected::violation(&protected, &[c.touch()], behaviour)?;
    Some(c.base.finish(
        "deny",
        "protected_path",
        format!("{} is protected by shellgate", c.path),
    ))
}

/// 5. Autonomous zone (§9.5): writes stay in the session and project
///    directories; reads may also use the configured read roots.
fn zone(c: &FileCall) -> Option<Decision> {
    let ctx = c.ctx;
    if ctx.channel.is_interactive() {
        return None;
    }
    let mut zone = write_zone(ctx);
    if !c.writes {
        zone.extend(
            c.policy
                .config
                .autonomous_read_roots()
                .iter()
                .map(|r| paths::normalize(&expand_home(r, &ctx.home))),
        );
    }
    if zone.is_empty() {
        return Some(c.base.finish(
            "deny",
            "autonomous_zone_empty",
            "no session or project directory to confine an unattended run",
        ));
    }
    if touch_in_zone(ctx, &zone, &c.touch()) {
        return None;
    }
    Some(c.base.finish(
        "deny",
        "outside_autonomous_zone",
        format!(
            "{} is outside the session and project directories of an unattended run",
            c.path
        ),
    ))
}

/// 5b. The audience's file mode (§9.6): `none` denies, `roots` confines to
///     the session, project and configured roots, `all` lets through.
fn file_mode(c: &FileCall) -> Option<Decision> {
    let ctx = c.ctx;
    let (read_mode, write_mode) = c.policy.config.file_modes(ctx.audience);
    let fmode = if c.writes { write_mode } else { read_mode };
    match fmode {
        FileMode::None => Some(c.base.finish(
            "deny",
            "file_access_denied",
            format!(
                "file access is 'none' for the {} audience",
                ctx.audience.as_str()
            ),
        )),
        FileMode::Roots => {
            let mut roots = vec![paths::normalize(&ctx.session_dir)];
            if ctx.audience != Audience::Public {
                if let Some(p) = &ctx.project_dir {
                    roots.push(paths::normalize(&expand_home(p, &ctx.home)));
                }
            }
            roots.extend(
                c.policy
                    .config
                    .file_roots(ctx.audience)
                    .iter()
                    .map(|r| paths::normalize(&expand_home(r, &ctx.home))),
            );
            if touch_in_zone(ctx, &roots, &c.touch()) {
                return None;
            }
            Some(c.base.finish(
                "deny",
                "file_access_denied",
                format!(
                    "{} is outside the file roots of the {} audience",
                    c.path,
                    ctx.audience.as_str()
                ),
            ))
        }
        FileMode::All => None,
    }
}
