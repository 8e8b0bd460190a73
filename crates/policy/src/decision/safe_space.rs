//! Where read-only verbs run unapproved (the safe spaces of §8.3), the
//! autonomous zone of unattended runs (§9.5), and the secret-looking names
//! that are never read unapproved.

use shellgate_shell::analyze;
use shellgate_shell::paths::{self, basename};

use super::Context;
use crate::candidates::{Scope, Touch, TouchKind};
use crate::config::expand_home;
use crate::fs;
use crate::model::Audience;

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

pub(super) fn names_secret(touches: &[Touch]) -> bool {
    touches.iter().any(|t| {
        matches!(t.kind, TouchKind::Operand | TouchKind::RedirectRead)
            && t.scope == Scope::Exact
            && secret_looking(basename(&t.path))
    })
}

/// `git show REV:path/to/.env`: a secret-looking file read out of a
/// revision (not a file operand, same concern).
pub(super) fn names_secret_object(inv: &analyze::Invocation) -> bool {
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

pub(super) fn in_safe_space(dir: &str, ctx: &Context) -> bool {
    safe_roots(ctx).iter().any(|r| fs::contains(ctx.fs, r, dir))
}

pub(super) fn write_zone(ctx: &Context) -> Vec<String> {
    let mut v = vec![paths::normalize(&ctx.session_dir)];
    if let Some(p) = &ctx.project_dir {
        v.push(paths::normalize(&expand_home(p, &ctx.home)));
    }
    v
}
