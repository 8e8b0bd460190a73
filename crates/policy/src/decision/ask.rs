//! The last layer of §9.1: ask a human (`approval_required`), or deny
//! when nobody can answer; the prompt, its options (§7.1, §7.2) and the
//! project-directory hint (§10).

use shellgate_shell::paths::{self, basename};
use shellgate_shell::verbs::is_interpreter;

use super::{Candidate, Context, Decision, Status};
use crate::config::expand_home;
use crate::model::Audience;
use crate::prompt;

/// 12. Ask: name what is not approved; on a non-interactive channel deny
///     `channel_does_not_support_approval`.
pub(super) fn ask(out: &mut Decision, ctx: &Context) {
    let real = super::statuses::real(out);
    let missing: Vec<String> = real
        .iter()
        .filter(|c| c.status == Status::Unapproved)
        .map(|c| match &c.directory {
            Some(d) => format!("{} in {}", c.verb, d),
            None => format!("{} (no directory)", c.verb),
        })
        .collect();
    let mut msg = format!("{} is not approved", missing.join(", "));
    if !out.cautions.is_empty() {
        msg.push_str(&format!(
            "; no grant can cover it: {}",
            out.cautions.join("; ")
        ));
    }
    if !ctx.channel.is_interactive() {
        out.decision = "deny";
        out.reason = "channel_does_not_support_approval".into();
        out.message = format!("{msg}, and no human can approve on this channel");
        return;
    }
    out.message = msg;
    finish_prompt(out, ctx, false);
}

/// Options, prompt and hints of an `ask` (§7.1, §7.2, §10).
pub(super) fn finish_prompt(out: &mut Decision, ctx: &Context, complex: bool) {
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
    // A verb that does not name what runs can only be approved once
    // (SPEC §15.8, §15.20).
    if out
        .candidates
        .iter()
        .any(|c| c.status == Status::Unapproved && out.unnamed_verbs.contains(&c.verb))
    {
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
