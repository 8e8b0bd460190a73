//! The candidate list of a call (§4) and each candidate's status: side
//! effect, safe (§8.3), granted for the session (§6.4) or persistently
//! (§6.3), or unapproved.

use shellgate_programs::checks::Facts;
use shellgate_shell::analyze::{self, Analysis};

use super::layers::ShellCall;
use super::safe_space::{grant_holds, grant_holds_for_trees, in_safe_space, reads_stay_safe};
use super::{Candidate, Decision, GrantRef, Status};
use crate::candidates::Touch;
use crate::protected;

/// One candidate `(verb, directory)` while the list is built; a candidate
/// named by several commands is safe (a side effect) only if it is for
/// every one of them.
pub(super) struct CandState {
    verb: String,
    dir: Option<String>,
    side_effect: bool,
    safe: bool,
    /// The invocations naming this candidate (indices into the call's
    /// candidates): a grant must hold for what each touches (§15.11).
    invs: Vec<usize>,
}

/// The candidate list with what the safe-verb rule says of each.
pub(super) fn candidate_states(call: &ShellCall) -> Vec<CandState> {
    let (analysis, ctx) = (&call.analysis, call.ctx);
    let safe = call.policy.safe_verbs(ctx.os);
    // Needed only for a command that qualifies as safe.
    let roots = std::cell::OnceCell::new();
    let roots = || {
        roots.get_or_init(|| {
            call.policy
                .read_roots
                .get(&call.policy.config, &ctx.home, ctx.audience, ctx.os)
        })
    };
    let produced = produced_paths(call);
    let ci = super::safe_space::case_insensitive(ctx.os);
    let mut cands: Vec<CandState> = Vec::new();
    for (i, (inv, cc)) in analysis
        .invocations
        .iter()
        .zip(call.per_inv.iter())
        .enumerate()
    {
        let Some(c) = cc else { continue };
        // An object id a git read names (`git show 4c1e9a2`) is known to be
        // a commit only by the repository git opens there.
        let commits = |id: &str| {
            inv.base() == "git"
                && inv
                    .cwd
                    .as_deref()
                    .is_some_and(|cwd| crate::objects::names_only_commits(ctx.fs, cwd, id))
        };
        let facts = Facts { commits: &commits };
        // A credential's variable named anywhere in the call may reach a
        // reader under another name (`LANG=$GITHUB_TOKEN; declare -p
        // LANG`, rt15 F4): nothing of the call is a safe read.
        let qualifies = !analysis.is_complex()
            && !call.resolver.secret_in_call
            && inv.uncovered.is_empty()
            && !other_env(inv, &call.policy.config.environment.inert)
            && safe.qualifies_in(inv, ctx.run_env.path, &facts)
            && reads_stay_safe(inv, c, ctx)
            && !reads_produced(inv, c, &produced, ci);
        // Reads outside the safe spaces: read roots (system locations,
        // toolchain caches), every path covered as written and as resolved.
        let outside_ok = qualifies
            && roots().covers(
                ctx.fs,
                &c.touches,
                // Below a directory operand: covers_one looks there only
                // for directories, so a `dir_reads` program passes too.
                protected::behaviour(inv, true).reads_tree(true),
                |p| in_safe_space(p, ctx),
            );
        // Where it may run instead (a `cd` before it may have failed).
        let alt_ok = c.alt_dirs.iter().all(|d| {
            d.as_deref()
                .is_some_and(|dir| in_safe_space(dir, ctx) || outside_ok)
        });
        for d in &c.dirs {
            let safe_here = qualifies
                && alt_ok
                && d.as_deref()
                    .is_some_and(|dir| in_safe_space(dir, ctx) || outside_ok);
            match cands.iter_mut().find(|x| x.verb == c.verb && &x.dir == d) {
                Some(x) => {
                    x.safe &= safe_here;
                    x.side_effect &= c.side_effect;
                    x.invs.push(i);
                }
                None => cands.push(CandState {
                    verb: c.verb.clone(),
                    dir: d.clone(),
                    side_effect: c.side_effect,
                    safe: safe_here,
                    invs: vec![i],
                }),
            }
        }
    }
    cands
}

/// The decision of steps 9–12: every candidate with its status, grants
/// looked up.
pub(super) fn with_grants(call: &ShellCall) -> Decision {
    let mut out = call.base.finish("ask", "approval_required", String::new());
    fill(&mut out, call, Some(()));
    out
}

/// The candidates that are not pure side effects.
pub(super) fn real(out: &Decision) -> Vec<&Candidate> {
    out.candidates
        .iter()
        .filter(|c| c.status != Status::SideEffect)
        .collect()
}

pub(super) fn fill_analysis(out: &mut Decision, a: &Analysis) {
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
pub(super) fn fill(out: &mut Decision, call: &ShellCall, with_grants: Option<()>) {
    let (lookups, ctx, tool) = (call.lookups, call.ctx, call.req.tool.as_str());
    fill_analysis(out, &call.analysis);
    out.unnamed_verbs = call
        .per_inv
        .iter()
        .flatten()
        .filter(|c| !c.named)
        .map(|c| c.verb.clone())
        .collect();
    // No grant covers a network client that reads a secret file (it sends
    // it somewhere: `curl -d @.env URL`, `curl -T .env`), nor git opening a
    // repository inside the project that is not the project's own or not
    // sound (asked only of what a grant would have to cover: a safe call
    // was judged already).
    for (inv, cc) in call.analysis.invocations.iter().zip(call.per_inv.iter()) {
        let Some(c) = cc else { continue };
        if out.unnamed_verbs.contains(&c.verb) {
            continue;
        }
        let uploads_secret = inv.reading.as_ref().is_some_and(|r| {
            let network = matches!(r.parsed.leaf().kind, shellgate_programs::Kind::Network)
                || matches!(r.program().root.kind, shellgate_programs::Kind::Network);
            network
                && c.touches.iter().any(|t| {
                    matches!(
                        t.role,
                        Some(shellgate_programs::Role::Read | shellgate_programs::Role::AtFile)
                    ) && super::safe_space::secret_looking(shellgate_shell::paths::basename(
                        &t.path,
                    ))
                })
        });
        let needs_grant = || {
            call.cands
                .iter()
                .any(|x| x.verb == c.verb && !x.safe && !x.side_effect)
        };
        // git reading a secret file by an option (`git commit -F .env`,
        // `git tag -F`, `git notes add -F`): its content goes into history,
        // which the safe `git log` and `git show` print (rt9 F5).
        let records_secret = inv.base() == "git"
            && c.touches.iter().any(|t| {
                matches!(
                    t.role,
                    Some(shellgate_programs::Role::Read | shellgate_programs::Role::AtFile)
                ) && crate::secrets::touch_names_secret(ctx.fs, t, super::safe_space::ci(ctx))
            });
        // A secret-looking file fed on standard input (`curl -d @- URL <
        // .env`, `git commit -F - < .env`, `sed -n p - < .env`): a secret
        // read, which a grant for the program never covers (rt10 F3/F8/F13).
        // (`<> .env` opens it for reading too, rt11 F2.)
        let read_write = inv
            .redirects
            .iter()
            .any(|r| r.kind == shellgate_shell::syntax::RedirKind::ReadWrite);
        let stdin_secret = c.touches.iter().any(|t| {
            (t.kind == crate::candidates::TouchKind::RedirectRead
                || (read_write && t.kind == crate::candidates::TouchKind::RedirectWrite))
                && crate::secrets::touch_names_secret(ctx.fs, t, super::safe_space::ci(ctx))
        });
        let why = if stdin_secret {
            Some("it reads a secret-looking file on standard input".to_string())
        } else if uploads_secret {
            Some("it sends a secret-looking file over the network".to_string())
        } else if super::safe_space::git_prints_staged_secret(inv, ctx) {
            Some("it prints a secret-looking file staged in the index".to_string())
        } else if records_secret {
            Some("it records a secret-looking file in the repository's history".to_string())
        } else if needs_grant() {
            super::safe_space::git_repo_unsound_inside(inv, ctx)
                .map(|why| format!("git would open a repository the gate does not trust ({why})"))
        } else {
            None
        };
        if let Some(why) = why {
            out.unnamed_verbs.push(c.verb.clone());
            out.cautions.push(format!("{}: {why}", c.verb));
        }
    }
    out.candidates = call
        .cands
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
            // A verb that names nothing persistable is never granted.
            let coverable = !out.unnamed_verbs.contains(&c.verb);
            if with_grants.is_some() {
                if c.safe {
                    return Candidate {
                        verb: c.verb.clone(),
                        directory: c.dir.clone(),
                        status: Status::Safe,
                        grant: None,
                    };
                }
                let holds = |g: &GrantRef| {
                    let touches: Vec<&Touch> = c
                        .invs
                        .iter()
                        .filter_map(|&i| call.per_inv.get(i).and_then(Option::as_ref))
                        .flat_map(|cc| cc.touches.iter())
                        .collect();
                    grant_holds(ctx, g.directory.as_deref(), &touches)
                        && c.invs.iter().all(|&i| {
                            // The directories it may run in instead must
                            // be the grant's too.
                            let alt = call
                                .per_inv
                                .get(i)
                                .and_then(Option::as_ref)
                                .map_or(&[][..], |cc| cc.alt_dirs.as_slice());
                            alt.iter()
                                .all(|a| match (a.as_deref(), g.directory.as_deref()) {
                                    (Some(a), Some(gd)) => {
                                        let gd = crate::config::expand_home(gd.trim(), &ctx.home);
                                        shellgate_shell::paths::is_within(
                                            &shellgate_shell::paths::normalize(a),
                                            &shellgate_shell::paths::normalize(&gd),
                                        )
                                    }
                                    (_, None) => true,
                                    (None, Some(_)) => false,
                                })
                        })
                        && c.invs.iter().all(|&i| {
                            match (call.analysis.invocations.get(i), call.per_inv.get(i)) {
                                (Some(inv), Some(Some(cc))) => {
                                    grant_holds_for_trees(ctx, g.directory.as_deref(), inv, cc)
                                }
                                _ => true,
                            }
                        })
                };
                if let Some(g) = lookups
                    .session_grant(ctx.audience, tool, &c.verb, c.dir.as_deref())
                    .filter(|g| coverable && holds(g))
                {
                    return Candidate {
                        verb: c.verb.clone(),
                        directory: c.dir.clone(),
                        status: Status::GrantedSession,
                        grant: Some(g),
                    };
                }
                if let Some(g) = lookups
                    .persistent_grant(ctx.audience, tool, &c.verb, c.dir.as_deref())
                    .filter(|g| coverable && holds(g))
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

/// What the call's commands that read a secret write or create, as
/// lexical paths: their write redirects, their operands that are not only
/// read, and the names their copies, links and extractions make
/// ([`crate::creates::plan`]).
fn produced_paths(call: &ShellCall) -> Vec<String> {
    use crate::candidates::TouchKind;
    use shellgate_programs::Role;
    let ci = super::safe_space::case_insensitive(call.ctx.os);
    let mut out = Vec::new();
    for (inv, cc) in call.analysis.invocations.iter().zip(call.per_inv.iter()) {
        let Some(c) = cc else { continue };
        let reads_secret = c.touches.iter().any(|t| {
            matches!(t.kind, TouchKind::Operand | TouchKind::RedirectRead)
                && !matches!(t.role, Some(Role::Write | Role::Chdir))
                && crate::secrets::touch_names_secret(call.ctx.fs, t, ci)
        });
        if !reads_secret {
            continue;
        }
        for t in &c.touches {
            let writes = match t.kind {
                TouchKind::RedirectWrite => true,
                TouchKind::Operand => !matches!(
                    t.role,
                    Some(Role::Read | Role::List | Role::Chdir | Role::Glob | Role::Pathspec)
                ),
                _ => false,
            };
            if writes {
                out.push(t.path.clone());
            }
        }
        for cr in crate::creates::plan(call.ctx.fs, inv) {
            out.push(shellgate_shell::paths::normalize(&cr.target));
        }
    }
    out
}

/// Whether a command reads what a secret-reading command of the same call
/// writes or creates (`cp .env notes.txt && cat notes.txt` under a `cp`
/// grant, `ln -s .env e.txt; cat e.txt`): the secret would come out under
/// another name, so the read is not "safe" (§8.3) — it asks, or a grant
/// for the reader covers it.
fn reads_produced(
    inv: &shellgate_shell::analyze::Invocation,
    c: &crate::candidates::CommandCandidates,
    produced: &[String],
    ci: bool,
) -> bool {
    use crate::candidates::TouchKind;
    if produced.is_empty() {
        return false;
    }
    // Words that are not paths to the candidate rules may still be opened
    // (`git diff --no-index n.txt README.md`, `git show :n.txt`): any word
    // naming a produced path counts.
    if let Some(cwd) = inv.cwd.as_deref() {
        let named = inv
            .argv
            .iter()
            .skip(1)
            .filter_map(|w| w.literal())
            .any(|w| {
                let w = w.rsplit(':').next().unwrap_or(&w).to_string();
                !w.is_empty()
                    && !w.starts_with('-')
                    && produced.iter().any(|p| {
                        crate::resolve::within(&shellgate_shell::paths::resolve(cwd, &w), p, ci)
                    })
            });
        if named {
            return true;
        }
    }
    c.touches.iter().any(|t| {
        let listing = t.role == Some(shellgate_programs::Role::List);
        matches!(t.kind, TouchKind::Operand | TouchKind::RedirectRead)
            && produced.iter().any(|p| {
                // The same path or below a created tree; or (for a reader
                // of contents) a directory that holds it.
                crate::resolve::within(&t.path, p, ci)
                    || (!listing && crate::resolve::within(p, &t.path, ci))
            })
    })
}

/// A leading assignment of a name that is neither inert nor code-selecting
/// (§15.4, §15.14: "any other name removes the safe short-circuit"): the
/// analysis lets it pass for programs whose grant runs project code (`FOO=1
/// make test` under a grant of `make test`), so a read-only form of such a
/// program (`pip freeze`, `npm --version`) must not be safe with it.
fn other_env(inv: &analyze::Invocation, inert: &[String]) -> bool {
    inv.env
        .iter()
        .any(|n| analyze::classify_env(n, inert) == analyze::EnvKind::Other)
}
