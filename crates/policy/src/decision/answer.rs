//! What an answer to a prompt persists (§12.1): one-time approval, session
//! grants or persistent grants, with too-broad directories skipped.

use shellgate_shell::paths;

use super::{Candidate, Context, Decision, Status};
use crate::fs;

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
    // Only what still needed a decision is persisted (§12.1, wave 2): a
    // candidate that was safe (its safety holds only in the safe space) or
    // already granted is never written — "Always anywhere" on
    // `make | grep x | head` saves `make`, never `grep`/`head` anywhere.
    let real: Vec<&Candidate> = d
        .candidates
        .iter()
        .filter(|c| c.status == Status::Unapproved)
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
                    j != i && v2 == v && d2 != dir && fs::contains(ctx.fs, d2, dir)
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
