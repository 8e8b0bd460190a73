//! Where read-only verbs run unapproved (the safe spaces of §8.2, §8.3),
//! the autonomous zone of unattended runs (§9.5), grant directories checked
//! again on what each command really touches (§15.11), and the secrets a
//! safe command must not name (§8.3, §15.3, §15.19).
//!
//! Every containment test here is made twice (`resolve::contained`): the
//! lexical path under the lexical root and the kernel-resolved path under
//! the kernel-resolved root. Safe spaces and zones also keep §5.4's
//! symlink-segment rule for the candidate directory.

use shellgate_shell::analyze;
use shellgate_shell::paths;

use super::Context;
use crate::candidates::{CommandCandidates, Scope, Touch, TouchKind};
use crate::config::expand_home;
use crate::fs::{self as pfs, Fs};
use crate::model::{Audience, Os};
use crate::protected;
use crate::repo;
use crate::resolve::{self, within, Kernel};
use crate::secrets;

/// Secret-looking file names (§8.3, §15.3, §15.19).
pub fn secret_looking(name: &str) -> bool {
    secrets::is_secret_name(name)
}

/// Path comparisons are case-insensitive on macOS and Windows (§15.2).
pub(crate) fn case_insensitive(os: Os) -> bool {
    os != Os::Linux
}

pub(super) fn ci(ctx: &Context) -> bool {
    case_insensitive(ctx.os)
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

/// §5.4 under the OS's case rule: lexically within and no symlink segment
/// between (the root spelled as the child spells it).
pub(crate) fn segment_rule(fs: &dyn Fs, root: &str, child: &str, ci: bool) -> bool {
    if !within(child, root, ci) {
        return false;
    }
    let spelled = if ci {
        match child.get(..root.len()) {
            Some(p) if p.to_lowercase() == root.to_lowercase() => p,
            // A case mapping that changes byte lengths fails closed.
            _ => return false,
        }
    } else {
        root
    };
    !pfs::symlink_between(fs, spelled, child)
}

/// When the root is the home directory or an ancestor of it, the home's
/// dot-entries and its non-dot secret stores (`Library/`, `snap/`) are not
/// part of it (§15.3, §15.19).
fn home_private(path: &str, root: &str, home: &str, ci: bool) -> bool {
    let home = paths::normalize(home);
    if home == "/"
        || !within(&home, root, ci)
        || !within(path, &home, ci)
        || path.len() <= home.len()
    {
        return false;
    }
    let rel = path[home.len()..].trim_start_matches('/');
    let first = rel.split('/').next().unwrap_or("");
    first.starts_with('.') || ["library", "snap"].contains(&first.to_lowercase().as_str())
}

pub(super) fn in_safe_space(dir: &str, ctx: &Context) -> bool {
    let ci = ci(ctx);
    safe_roots(ctx).iter().any(|r| {
        segment_rule(ctx.fs, r, dir, ci)
            && resolve::contained(ctx.fs, r, dir, dir, true, ci)
            && !home_private(dir, r, &ctx.home, ci)
            && match resolve::kernel(ctx.fs, dir, true) {
                Kernel::Path(k) => !home_private(&k, r, &ctx.home, ci),
                Kernel::Unresolvable | Kernel::ProcView => false,
            }
    })
}

pub(super) fn write_zone(ctx: &Context) -> Vec<String> {
    let mut v = vec![paths::normalize(&ctx.session_dir)];
    if let Some(p) = &ctx.project_dir {
        v.push(paths::normalize(&expand_home(p, &ctx.home)));
    }
    v
}

/// Whether the touch stays inside `root` on both sides (§15.11): the
/// lexical path under the root, and the kernel path (every match, for a
/// glob) under the kernel root. A glob that cannot be expanded within the
/// bounds is not known to stay inside.
fn touch_within(fs: &dyn Fs, root: &str, t: &Touch, home: Option<&str>, ci: bool) -> bool {
    if !within(&t.path, root, ci) {
        return false;
    }
    let Kernel::Path(kroot) = resolve::kernel(fs, root, true) else {
        return false;
    };
    let private = |p: &str| home.is_some_and(|h| home_private(p, root, h, ci));
    if private(&t.path) {
        return false;
    }
    let inside = |raw: &str, follow: bool| match resolve::kernel(fs, raw, follow) {
        Kernel::Path(k) => within(&k, &kroot, ci) && !private(&k),
        Kernel::Unresolvable | Kernel::ProcView => false,
    };
    match t.scope {
        Scope::Exact | Scope::Prefix => inside(&t.raw, t.follow),
        Scope::Glob { .. } => {
            if !inside(&resolve::static_dir(&t.raw), true) {
                return false;
            }
            let exp = resolve::expand(fs, &t.raw, ci);
            exp.complete
                && exp.matches.iter().all(|(m, _)| {
                    within(&paths::normalize(m), root, ci) && !private(m) && inside(m, true)
                })
        }
    }
}

/// Whether a touch lies in the autonomous zone (§9.5): some zone root holds
/// it on both sides, with no symlink segment below the root.
pub(super) fn touch_in_zone(ctx: &Context, zone: &[String], t: &Touch) -> bool {
    let ci = ci(ctx);
    zone.iter()
        .any(|z| segment_rule(ctx.fs, z, &t.path, ci) && touch_within(ctx.fs, z, t, None, ci))
}

/// The safe short-circuit's checks on what one command really reads
/// (§8.3, §15.2, §15.3): no touch names a secret (lexically, resolved,
/// through a glob, a git pathspec or a word a reader opens), every touch
/// resolves inside a safe space, a recursive reader does not read the
/// home's private entries, and a reader that follows links reads a tree
/// whose links stay inside.
pub(super) fn reads_stay_safe(
    inv: &analyze::Invocation,
    c: &CommandCandidates,
    ctx: &Context,
) -> bool {
    let ci = ci(ctx);
    let roots = safe_roots(ctx);
    if names_secret(ctx.fs, &c.touches, ci) || names_secret_word(inv) {
        return false;
    }
    if inv.base() == "git" && !git_repo_trusted(inv, ctx, &roots) {
        return false;
    }
    if inv.base() == "git" && prints_content(inv) && index_holds_secret(inv, ctx) {
        return false;
    }
    if inv.base() == "git" && reads_file_contents(inv) && contents_not_plain(inv, ctx) {
        return false;
    }
    if runs_from_safe_root(inv, ctx, &roots) {
        return false;
    }
    let b = protected::behaviour(inv, true);
    for t in &c.touches {
        // A touch lexically outside every safe root has its own candidate
        // directory, which is not safe: it asks for itself.
        let inside = roots.iter().filter(|r| within(&t.path, r, ci));
        let mut any = false;
        let mut ok = false;
        for r in inside {
            any = true;
            if touch_within(ctx.fs, r, t, Some(&ctx.home), ci) {
                ok = true;
                break;
            }
        }
        if any && !ok {
            return false;
        }
        if t.kind != TouchKind::Operand {
            continue;
        }
        // A directory operand of a `dir_reads` program (`diff d1 d2`) is
        // read like a recursive reader's tree that follows links.
        let is_dir = b.dir_reads && crate::fs::is_dir(ctx.fs, &t.path);
        if b.reads_tree(is_dir) {
            // Reading a directory that holds the home reads its private
            // entries when the root is the home or above it.
            let home = paths::normalize(&ctx.home);
            if within(&home, &t.path, ci) && roots.iter().any(|r| within(&home, r, ci)) {
                return false;
            }
        }
        if b.follows_in(is_dir) && !resolve::tree_stays_within(ctx.fs, &t.path, &roots, ci) {
            return false;
        }
        // Trees in the read roots (`grep -rl x /usr/share/doc`) keep their
        // own exclusions; a safe space's tree is walked for secrets.
        if let Some(walk) = content_walk(inv, &b, is_dir).filter(|_| any) {
            let walk = outer_ignores(ctx, &t.path, walk);
            if crate::fs::is_dir(ctx.fs, &t.path)
                && secrets::tree_holds_secret(ctx.fs, &t.path, &walk)
            {
                return false;
            }
        }
    }
    // Without a file operand, recursive readers read the working directory
    // (`grep -R key`, `rg --follow key`, `tree -l`).
    // Whether the call names what it reads: by the program model, an
    // operand read or listed (a glob of `rg -g` filters the tree and the
    // pattern is text: `rg -g '*' TOKEN` reads the working directory);
    // without a model, any operand.
    let names_tree = match inv.reading.as_ref() {
        Some(r) => r.parsed.operands().iter().any(|op| {
            use shellgate_programs::spec::Role;
            matches!(op.role, Role::Read | Role::List | Role::ReadWrite)
        }),
        None => c.touches.iter().any(|t| t.kind == TouchKind::Operand),
    };
    if (b.follows_links || b.recursive_read) && !names_tree {
        let Some(cwd) = inv.cwd.as_deref() else {
            return false;
        };
        let cwd = paths::normalize(cwd);
        let home = paths::normalize(&ctx.home);
        if b.recursive_read && within(&home, &cwd, ci) {
            return false;
        }
        if b.follows_links && !resolve::tree_stays_within(ctx.fs, &cwd, &roots, ci) {
            return false;
        }
        let in_roots = roots.iter().any(|r| within(&cwd, r, ci));
        if let Some(walk) = content_walk(inv, &b, true).filter(|_| in_roots) {
            let walk = outer_ignores(ctx, &cwd, walk);
            if secrets::tree_holds_secret(ctx.fs, &cwd, &walk) {
                return false;
            }
        }
    }
    // `git diff --no-index A B` of directories prints every file in them
    // (rt24 A2: `git diff --no-index src .` printed `.env` as new).
    if inv.base() == "git" && git_sub_with(inv, "diff", &["--no-index"]) {
        for t in c.touches.iter().filter(|t| t.kind == TouchKind::Operand) {
            if crate::fs::is_dir(ctx.fs, &t.path)
                && secrets::tree_holds_secret(ctx.fs, &t.path, &secrets::TreeWalk::default())
            {
                return false;
            }
        }
    }
    // `git grep --untracked|--no-index` reads the work tree below the
    // working directory, not the index.
    if inv.base() == "git" && git_sub_with(inv, "grep", &["--untracked", "--no-index"]) {
        let Some(cwd) = inv.cwd.as_deref() else {
            return false;
        };
        let walk = secrets::TreeWalk::default();
        // Literal pathspecs after `--` limit what is read (`git grep
        // --no-index X -- src`); otherwise the working directory's tree.
        let dirs: Vec<String> = match grep_pathspecs(inv) {
            Some(specs) => specs
                .iter()
                .map(|s| paths::normalize(&format!("{}/{s}", cwd.trim_end_matches('/'))))
                .collect(),
            None => vec![paths::normalize(cwd)],
        };
        for d in dirs {
            let secret_file = !crate::fs::is_dir(ctx.fs, &d)
                && secrets::is_secret_path(&d)
                && !secrets::is_template(&d);
            if secret_file || secrets::tree_holds_secret(ctx.fs, &d, &walk) {
                return false;
            }
        }
    }
    true
}

/// How a reader that prints what it reads walks a directory operand (or
/// the working directory): grep's `-r`/`-R`, ripgrep, ag, ack, `diff -r`.
/// `None` for readers that list names only (`ls -R`, `tree`, `du`, `find`).
/// ripgrep skips dot-names unless told otherwise (`--hidden`, `-uu`, a
/// glob or an ignore file that whitelists one, a config file in
/// `RIPGREP_CONFIG_PATH`).
fn content_walk(
    inv: &analyze::Invocation,
    b: &protected::Behaviour,
    is_dir: bool,
) -> Option<secrets::TreeWalk> {
    let base = inv.base();
    // Any other modelled reader told to recurse into a directory whose
    // files it reads (`zcat -rf dir`, `zstdcat -r dir`: rt25b F1 printed
    // the `.env` inside), not only list (`ls -R`: its operands are names).
    let model_prints = || {
        inv.reading.as_ref().is_some_and(|r| {
            use shellgate_programs::spec::Role;
            r.parsed.any_effect(shellgate_programs::fx::RECURSIVE)
                && r.parsed.operands().iter().any(|op| op.role == Role::Read)
        })
    };
    let prints = match base.as_str() {
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => b.recursive_read,
        "diff" => b.reads_tree(is_dir),
        _ => model_prints(),
    };
    if !prints {
        return None;
    }
    let mut walk = secrets::TreeWalk {
        follow_links: b.follows_links,
        ..Default::default()
    };
    let Some(r) = inv.reading.as_ref() else {
        // Not read by the model: every file, hidden ones too.
        return Some(walk);
    };
    let p = &r.parsed;
    let args = r.args();
    let mut hidden = false;
    for o in &p.opts {
        let value = o.value.and_then(|v| p.value_text(&args, v));
        let name = o.opt.name.as_str();
        match (base.as_str(), name, value) {
            ("rg", "-g" | "--glob" | "--iglob", Some(g)) => match g.strip_prefix('!') {
                Some(neg) => walk.filters.push((neg.to_string(), false)),
                None => walk.filters.push((g.to_string(), true)),
            },
            ("grep" | "egrep" | "fgrep", "--include", Some(g)) => {
                walk.filters.push((g.to_string(), true))
            }
            ("grep" | "egrep" | "fgrep", "--exclude", Some(g)) => {
                walk.filters.push((g.to_string(), false))
            }
            ("rg", "-." | "--hidden" | "-u" | "--ignore-file", _) => hidden = true,
            // A glob or filter whose text is not known reads anything.
            ("rg", "-g" | "--glob" | "--iglob", None)
            | ("grep" | "egrep" | "fgrep", "--include" | "--exclude", None) => {
                return Some(secrets::TreeWalk {
                    follow_links: b.follows_links,
                    ..Default::default()
                })
            }
            _ => {}
        }
    }
    walk.vcs_ignores = base == "rg"
        && !p
            .opts
            .iter()
            .any(|o| o.opt.name.starts_with("--no-ignore") || o.opt.name == "-u");
    walk.skip_hidden =
        base == "rg" && !hidden && !inv.env.iter().any(|a| a.starts_with("RIPGREP_CONFIG_PATH"));
    Some(walk)
}

/// ripgrep also reads ignore files above the tree and git's own excludes:
/// one that whitelists a hidden secret makes it read dot-names too.
fn outer_ignores(ctx: &Context, dir: &str, mut walk: secrets::TreeWalk) -> secrets::TreeWalk {
    if walk.skip_hidden && secrets::outer_ignore_files_whitelist(ctx.fs, dir, &ctx.home) {
        walk.skip_hidden = false;
    }
    // ripgrep does not enter what the repository ignores (`node_modules`,
    // `target`): a big ignored tree no longer uses up the walk's budget.
    // Only with its default filtering (`skip_hidden` says no `-u`,
    // `--hidden` or config file; `vcs_ignores` no `--no-ignore*`).
    if walk.skip_hidden && walk.vcs_ignores {
        (walk.ignored_names, walk.ignored_paths) = secrets::gitignored_dirs(ctx.fs, dir);
    }
    walk
}

/// The static words after a git call's `--` (`None`: no `--`, none after
/// it, or a dynamic one).
fn literal_pathspecs(inv: &analyze::Invocation) -> Option<Vec<String>> {
    let r = inv.reading.as_ref()?;
    let p = &r.parsed;
    let dd = p.dashdash?;
    let args = r.args();
    let specs = p
        .positionals
        .iter()
        .filter(|&&at| at > dd)
        .map(|&at| match args.get(at) {
            Some(shellgate_programs::argv::Arg::Static(t)) => Some(t.to_string()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    (!specs.is_empty()).then_some(specs)
}

/// The plain relative pathspecs after `--` of a `git grep` (`None`: none,
/// or one that is not a plain relative path: magic, globs, `..`).
fn grep_pathspecs(inv: &analyze::Invocation) -> Option<Vec<String>> {
    let specs = literal_pathspecs(inv)?;
    let plain = |s: &String| {
        !s.is_empty()
            && !s.starts_with([':', '/'])
            && !s.contains(['*', '?', '[', ']', '\\'])
            && !s.split('/').any(|seg| seg == "..")
    };
    specs.iter().all(plain).then_some(specs)
}

/// Whether a git call's subcommand is `sub` and it has one of `opts`
/// (`git diff --no-index`, `git grep --untracked`).
fn git_sub_with(inv: &analyze::Invocation, sub: &str, opts: &[&str]) -> bool {
    inv.reading.as_ref().is_some_and(|r| {
        let p = &r.parsed;
        p.nodes
            .get(1)
            .and_then(|n| n.names.first())
            .is_some_and(|s| s == sub)
            && opts.iter().any(|o| p.has(o))
    })
}

/// Whether the program word is one that `PATH` may find inside a safe root
/// (a project's activated `.venv/bin`, `node_modules/.bin`, `./bin`) or
/// through a relative entry (`.`, an empty one): a sandboxed build may have
/// rewritten that file, or planted what it loads (a `.pth` in the venv's
/// site-packages runs at `pip freeze`), so running it unconfined is not a
/// read (rt25 F6). Every entry holding the name counts, not only the first
/// (an earlier non-executable file does not stop the shell's search).
fn runs_from_safe_root(inv: &analyze::Invocation, ctx: &Context, roots: &[String]) -> bool {
    let Some(program) = inv.program() else {
        return false;
    };
    if program.contains('/') {
        // A path-qualified program never qualifies (safe_verbs::qualifies).
        return false;
    }
    let Some(path) = ctx.run_env.path else {
        return false;
    };
    let base = inv.base();
    // The wrappers it was unwrapped from are started through PATH too
    // (`nice ls` with a `nice` in the activated venv runs that file); the
    // shell's own builtins and keywords are not looked up.
    let wrappers = inv.wrappers.iter().map(String::as_str).filter(|w| {
        !w.starts_with("runner:") && !matches!(*w, "command" | "builtin" | "exec" | "time")
    });
    std::iter::once(program.as_str())
        .chain(wrappers)
        .chain(helpers(&base).iter().copied())
        .any(|p| {
            program_on_path_in_roots(
                ctx.fs,
                p,
                path,
                inv.cwd.as_deref(),
                &ctx.home,
                roots,
                ci(ctx),
            )
        })
}

/// Decompressors started by name (`tar -tf x.tar.zst` runs `zstd -d`).
const DECOMPRESSORS: &[&str] = &[
    "gzip",
    "gunzip",
    "bzip2",
    "bunzip2",
    "xz",
    "unxz",
    "lzma",
    "lzip",
    "lzop",
    "zstd",
    "unzstd",
    "lz4",
    "compress",
    "uncompress",
    "brotli",
];

/// Programs a read-only verb itself starts through `PATH` (rt25 F6: a
/// `zstd` in the activated venv ran unconfined under `tar -tf x.tar.zst`).
fn helpers(base: &str) -> &'static [&'static str] {
    match base {
        "tar" | "bsdtar" | "gtar" | "rg" | "file" | "zcat" | "zgrep" | "zegrep" | "zfgrep"
        | "zless" | "zmore" | "zdiff" | "zcmp" | "bzcat" | "xzcat" | "zstdcat" | "lz4cat" => {
            DECOMPRESSORS
        }
        // Signature checks (`--show-signature`), the pager, transports,
        // filters of the LFS installation, `sh` for aliases and hooks.
        "git" => &[
            "gpg",
            "gpg2",
            "gpgsm",
            "ssh",
            "ssh-keygen",
            "less",
            "more",
            "pager",
            "git-lfs",
            "sh",
        ],
        "man" => &[
            "groff", "nroff", "troff", "preconv", "tbl", "eqn", "less", "more", "pager",
        ],
        _ => &[],
    }
}

/// [`runs_from_safe_root`] for an explicit `PATH` value.
fn program_on_path_in_roots(
    fs: &dyn Fs,
    program: &str,
    path: &str,
    cwd: Option<&str>,
    home: &str,
    roots: &[String],
    ci: bool,
) -> bool {
    for ds in path.split(':') {
        if ds.contains('\u{FFFD}') {
            // Not the bytes the shell searches: cannot tell.
            return true;
        }
        let dir = if ds.starts_with('/') {
            paths::normalize(ds)
        } else if let Some(rest) = ds.strip_prefix('~') {
            // bash expands a leading `~` of a PATH entry when it searches
            // (`PATH="~/proj/.venv/bin:$PATH"` finds the venv's `ls`).
            if !(rest.is_empty() || rest.starts_with('/')) || !home.starts_with('/') {
                return true; // `~user/…`: cannot tell
            }
            paths::normalize(&format!("{home}{rest}"))
        } else {
            // `.`, `bin`, or an empty entry: relative to where it runs.
            match cwd {
                Some(c) if ds.is_empty() => paths::normalize(c),
                Some(c) => paths::normalize(&format!("{c}/{ds}")),
                None => return true,
            }
        };
        let cand = format!("{}/{program}", dir.trim_end_matches('/'));
        // Where the entry lies first (strings, and the entry's resolution,
        // which every program asked about shares): the system's entries
        // then cost no probe per program and helper.
        let in_root = roots.iter().any(|r| within(&cand, r, ci))
            || matches!(resolve::kernel(fs, &dir, true),
                Kernel::Path(k) if roots.iter().any(|r| within(&k, r, ci)));
        if in_root && (fs.stat(&cand).is_ok() || fs.lstat(&cand).is_ok()) {
            return true;
        }
    }
    false
}

/// Whether git opens a repository that is the project's own (§15.5,
/// §15.17; [`repo::repo_is_trusted`]) for some safe root.
fn git_repo_trusted(inv: &analyze::Invocation, ctx: &Context, roots: &[String]) -> bool {
    let Some(e) = inv.cwd.as_deref() else {
        return false;
    };
    if has_glob(e) {
        // `git -C evil* status`, `cd evil* && git status`: bash picks the
        // directory, the gate would judge the literal name (rt10 F14).
        return false;
    }
    if repo::user_config_diffs_submodules(ctx.fs, &ctx.home, ctx.run_env.xdg_config_home) {
        return false;
    }
    opens_own_repository(inv, ctx, e, roots)
}

/// Whether git, run in `e`, opens a repository that is the project's own
/// for some safe root ([`repo::repo_is_trusted`]).
fn opens_own_repository(
    inv: &analyze::Invocation,
    ctx: &Context,
    e: &str,
    roots: &[String],
) -> bool {
    own_repository(inv, ctx, e, roots).is_ok()
}

/// [`opens_own_repository`] with the reason when it does not (the
/// project's: it is judged first).
fn own_repository(
    inv: &analyze::Invocation,
    ctx: &Context,
    e: &str,
    roots: &[String],
) -> Result<(), String> {
    let git_dir = git_dir_option(inv);
    // The project (last) first: git in the project opens its repository,
    // judged against the project alone; the session directory then needs
    // no resolving. Any root that trusts it answers the same in either order.
    let mut first_err = None;
    for r in roots.iter().rev() {
        match repo::repo_is_trusted(ctx.fs, e, r, git_dir.as_deref()) {
            Ok(()) => return Ok(()),
            Err(why) => {
                first_err.get_or_insert(why);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| "no safe space to judge it against".into()))
}

/// Whether git would open, from inside a safe space, a repository that is
/// not the project's own or not sound (a nested or planted repository, a
/// `commondir`, a submodule checkout holding its own repository): its
/// config runs code nobody approved, so no grant of a git verb covers the
/// call — approving `git status` in a directory never meant "whatever
/// repository is planted there later" (helper-24: a sandboxed build left
/// such a repository; a granted `git status` would have run it). A
/// repository outside the safe spaces is the human's to judge: grants
/// there hold as before. `Some(why)` when it is unsound, so the human who
/// is asked reads why no grant is offered.
pub(super) fn git_repo_unsound_inside(inv: &analyze::Invocation, ctx: &Context) -> Option<String> {
    if inv.base() != "git" {
        return None;
    }
    let e = inv.cwd.as_deref()?;
    if has_glob(e) {
        return Some(format!("{e} is a pattern bash expands"));
    }
    let ci = ci(ctx);
    let roots = safe_roots(ctx);
    if !roots.iter().any(|r| within(e, r, ci)) {
        return None;
    }
    own_repository(inv, ctx, e, &roots).err()
}

/// A directory written with a glob character (`*`, `?`, `[`).
fn has_glob(p: &str) -> bool {
    p.contains(['*', '?', '['])
}

/// The value of `--git-dir` among git's own options, before the subcommand.
fn git_dir_option(inv: &analyze::Invocation) -> Option<String> {
    let words: Vec<String> = inv
        .argv
        .iter()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))
        .collect();
    let skip = shellgate_shell::verbs::git_skip_globals(&inv.argv, 1);
    let mut git_dir: Option<String> = None;
    let globals = words.get(1..skip.min(words.len())).unwrap_or(&[]);
    for (i, w) in globals.iter().enumerate() {
        if let Some(v) = w.strip_prefix("--git-dir=") {
            git_dir = Some(v.to_string());
        } else if w == "--git-dir" {
            git_dir = globals.get(i + 1).cloned();
        }
    }
    git_dir
}

/// Whether a grant for `gdir` holds for what the command really touches
/// (§6.3 with §15.11): every touch lexically under the grant directory
/// resolves (kernel) under the grant directory's resolution too. The
/// candidate directory itself was matched by the grant store.
pub(super) fn grant_holds(ctx: &Context, gdir: Option<&str>, touches: &[&Touch]) -> bool {
    let Some(g) = gdir else {
        return true;
    };
    let expanded = expand_home(g.trim(), &ctx.home);
    if !expanded.starts_with('/') {
        // Drive paths and the like: the store decided on its own terms.
        return true;
    }
    let root = paths::normalize(&expanded);
    let ci = ci(ctx);
    touches
        .iter()
        .filter(|t| within(&t.path, &root, ci))
        .all(|t| touch_within(ctx.fs, &root, t, None, ci))
}

/// Whether a grant for `gdir` holds for the trees a link-following call
/// walks (§15.2, §15.11): `tar -h`, `cp -rL`, `rsync -L|-k|-K`, `zip -r`
/// without `-y`, `find -L … -delete`, `chown -RL`, `grep -R` read, copy,
/// delete or change what the links below their operands lead to, so every
/// link in each operand's tree (the working directory without one) must
/// resolve inside the grant's directory, as the operand itself must (rt12
/// S1). The options come from the program model's `!follow` flags in a
/// recursive call, and from [`protected::behaviour`] (zip follows links by
/// default).
pub(super) fn grant_holds_for_trees(
    ctx: &Context,
    gdir: Option<&str>,
    inv: &analyze::Invocation,
    c: &CommandCandidates,
) -> bool {
    let Some(g) = gdir else {
        return true;
    };
    let expanded = expand_home(g.trim(), &ctx.home);
    if !expanded.starts_with('/') {
        return true;
    }
    let b = protected::behaviour(inv, false);
    let by_model = inv.reading.as_ref().is_some_and(|r| {
        use shellgate_programs::fx;
        r.parsed.any_effect(fx::FOLLOW)
            && (r.parsed.any_effect(fx::RECURSIVE) || b.recursive_read || b.recursive_write)
    });
    if !(b.follows_links || by_model) {
        return true;
    }
    let ci = ci(ctx);
    let roots = [paths::normalize(&expanded)];
    let operands: Vec<&Touch> = c
        .touches
        .iter()
        .filter(|t| t.kind == TouchKind::Operand)
        .collect();
    if operands.is_empty() {
        return inv.cwd.as_deref().is_some_and(|cwd| {
            resolve::tree_stays_within(ctx.fs, &paths::normalize(cwd), &roots, ci)
        });
    }
    operands
        .iter()
        .filter(|t| within(&t.path, &roots[0], ci))
        .all(|t| resolve::tree_stays_within(ctx.fs, &t.path, &roots, ci))
}

/// Whether a git call prints file content from the index, the work tree
/// or history (not only names, counts or commit data), so that a
/// secret-looking file in the index would be printed.
///
/// The log family (`log`, `whatchanged`, `reflog`, `stash list`) prints
/// patches only when an option turns them on; `show` and the `diff`
/// family print them unless an output option (`--stat`, `--name-only`,
/// `-s`…) replaces the patch and none turns it back on (`--stat -p`).
/// `show` of `REV:PATH` operands only prints those paths (checked as
/// names elsewhere); any other `show` operand is a commit, a tag or a
/// search (`:/msg`). `grep` prints lines unless it lists only names or
/// counts. Option names are the model's canonical spellings: an option
/// the model does not know never makes a call read-only anyway.
fn prints_content(inv: &analyze::Invocation) -> bool {
    // Options that turn on (or imply) patch or line output.
    const PATCH_ON: &[&str] = &[
        "-p",
        "-U",
        "--patch-with-raw",
        "--patch-with-stat",
        "--word-diff",
        "--word-diff-regex",
        "--color-words",
        "--check",
        "--binary",
        "-W",
        "--inter-hunk-context",
        "-L",
        "-c",
        "--cc",
        "--dd",
        "--remerge-diff",
        "-m",
        "--diff-merges",
        "--combined-all-paths",
    ];
    // Output options that replace the default patch of `show`/`diff`.
    const PATCH_OFF: &[&str] = &[
        "-s",
        "--raw",
        "--stat",
        "--compact-summary",
        "--numstat",
        "--shortstat",
        "-X",
        "--dirstat-by-file",
        "--summary",
        "--name-only",
        "--name-status",
        "--quiet",
    ];
    // `git grep` options that print only names or counts.
    const GREP_NAMES: &[&str] = &["-l", "-L", "-c", "-q"];
    // `git status -v` and `git commit -v` show the staged diff (rt11 F5).
    let verbose = inv.argv.iter().skip(1).any(|w| {
        w.lit().is_some_and(|v| {
            v == "--verbose" || (v.starts_with('-') && !v.starts_with("--") && v.contains('v'))
        })
    });
    let Some(r) = inv.reading.as_ref() else {
        return true;
    };
    let p = &r.parsed;
    // Searches of the content itself answer questions about it whatever is
    // printed (rt21 F2: `git log -G '^API_TOKEN=S' --format=%h` listed a
    // commit or nothing, six queries a character of a staged token):
    // pickaxe `-S`/`-G`, and `-I REGEX`, which changes `--stat` and the
    // exit code by what the lines hold.
    if ["-S", "-G", "-I"].iter().any(|n| p.has(n)) {
        return true;
    }
    let sub = |d: usize| {
        p.nodes
            .get(d)
            .and_then(|n| n.names.first())
            .map(|s| s.as_str())
    };
    let Some(name) = sub(1) else {
        return false;
    };
    // The subcommand's own options, in order (globals such as `-P` or
    // `-C DIR` print nothing).
    let own = || p.opts.iter().filter(|o| o.depth >= 1);
    // Index of the last option turning the patch on, and of the last
    // turning all output off (`-s`, `--no-patch`, `--quiet`).
    let last_on = own()
        .enumerate()
        .filter(|(_, o)| !o.negated && PATCH_ON.contains(&o.opt.name.as_str()))
        .map(|(i, _)| i)
        .last();
    let last_off = own()
        .enumerate()
        .filter(|(_, o)| {
            (o.negated && o.opt.name == "-p")
                || (!o.negated && matches!(o.opt.name.as_str(), "-s" | "--quiet"))
        })
        .map(|(i, _)| i)
        .last();
    let patch_on = match (last_on, last_off) {
        (Some(a), Some(b)) => a > b,
        (Some(_), None) => true,
        _ => false,
    };
    // The last of an option and its negation wins (`--stat --no-stat`,
    // `-l --no-files-with-matches`, rt14 F1).
    let replaced = PATCH_OFF.iter().any(|n| p.has(n));
    match name {
        "log" | "whatchanged" | "reflog" => patch_on,
        "stash" => match sub(2) {
            Some("list") => patch_on,
            _ => true,
        },
        "show" => {
            if patch_on {
                return true;
            }
            if replaced {
                return false;
            }
            // Revision operands (before `--`): no operand is HEAD, a
            // commit; `REV:PATH` prints the path only.
            let args = r.args();
            let revs: Vec<&usize> = p
                .positionals
                .iter()
                .filter(|&&at| p.dashdash.is_none_or(|d| at < d))
                .collect();
            revs.is_empty()
                || revs.iter().any(|&&at| match args.get(at) {
                    Some(shellgate_programs::argv::Arg::Static(t)) => !blob_spec(t),
                    _ => true,
                })
        }
        "diff" | "diff-index" | "diff-tree" | "diff-files" => patch_on || !replaced,
        "grep" => !GREP_NAMES.iter().any(|n| p.has(n)),
        "status" | "commit" => verbose,
        _ => false,
    }
}

/// Whether a `git show` operand names a path in a tree (`HEAD:README.md`,
/// `:0:f`, `v1:src/`), printed alone: a `:` outside `@{…}` and `^{…}`
/// (`HEAD@{23:59}` is a commit by date, rt14 F2; `HEAD^{/fix: x}` a commit
/// by message), not `:/text` (a commit by message).
fn blob_spec(t: &str) -> bool {
    if t.starts_with(":/") {
        return false;
    }
    let mut depth = 0usize;
    for c in t.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Whether a git read looks at files' contents: a patch, a grep, a
/// blame, an object printed.
fn reads_file_contents(inv: &analyze::Invocation) -> bool {
    if prints_content(inv) {
        return true;
    }
    let Some(r) = inv.reading.as_ref() else {
        return true;
    };
    let sub = r
        .parsed
        .nodes
        .get(1)
        .and_then(|n| n.names.first())
        .map(|s| s.as_str());
    matches!(sub, Some("grep" | "blame" | "cat-file" | "apply") | None)
}

/// Whether what git shows of a file's content may not be the file as it
/// is: a diff driver of the user's config converts it (rt17 F9), or a
/// partial clone fetches it from the remote (rt17 F8).
fn contents_not_plain(inv: &analyze::Invocation, ctx: &Context) -> bool {
    // `--no-textconv` turns the drivers off (an external diff runs only with
    // `--ext-diff`, which is never read-only).
    let no_textconv = inv
        .argv
        .iter()
        .any(|w| w.lit().is_some_and(|v| v == "--no-textconv"));
    if !no_textconv
        && repo::user_config_converts_diffs(ctx.fs, &ctx.home, ctx.run_env.xdg_config_home)
    {
        return true;
    }
    match inv.cwd.as_deref().filter(|c| !has_glob(c)) {
        Some(cwd) => crate::objects::partial_clone(ctx.fs, cwd),
        None => true,
    }
}

/// [`prints_content`] and [`index_holds_secret`] together, for the
/// sandboxed allow: a git call printing a staged secret does not run
/// confined without a human either.
pub(super) fn git_prints_staged_secret(inv: &analyze::Invocation, ctx: &Context) -> bool {
    inv.base() == "git"
        && ((prints_content(inv) && index_holds_secret(inv, ctx))
            || (reads_file_contents(inv) && contents_not_plain(inv, ctx)))
}

/// A tracked template of a secret file (`.env.example`, `secrets.yml.sample`):
/// committed on purpose, as many repositories do, and not a secret; naming
/// it still asks (§8.3), but it does not make every diff ask.
fn template(path: &str) -> bool {
    secrets::is_template(path)
}

/// Whether the index of the repository git opens holds a secret-looking
/// path (§15.3): `git diff --cached`, `git show` and `git log -p` with no
/// pathspec print it (a staged `.env`, rt9 F13). An index the gate cannot
/// read counts as holding one.
fn index_holds_secret(inv: &analyze::Invocation, ctx: &Context) -> bool {
    let Some(cwd) = inv.cwd.as_deref().filter(|c| !has_glob(c)) else {
        return true;
    };
    let Some(index) = repo::index_file(ctx.fs, cwd) else {
        return false;
    };
    if !matches!(ctx.fs.lstat(&index), Ok(pfs::FileKind::File)) {
        // No index yet (a fresh repository), or not a plain file.
        return ctx.fs.lstat(&index).is_ok();
    }
    let limit = pathspec_limit(inv, ctx, cwd);
    match crate::creates::index_paths(ctx.fs, &index) {
        Ok(paths) => paths.iter().any(|p| {
            crate::secrets::is_secret_path(p)
                && !template(p)
                && limit.as_ref().is_none_or(|dirs| {
                    // Without case: git honours core.ignorecase in pathspecs
                    // (`-- .NPMRC` on macOS); matching more only asks more.
                    let lp = p.to_ascii_lowercase();
                    dirs.iter().any(|d| {
                        let d = d.to_ascii_lowercase();
                        d.is_empty() || lp == d || lp.starts_with(&format!("{d}/"))
                    })
                })
        }),
        Err(_) => true,
    }
}

/// The index paths a git call limits itself to with literal pathspecs
/// after `--` (`git diff HEAD~1 -- src`), relative to the work tree's top;
/// `None` (every path) when there is no `--`, when a pathspec is not a plain
/// path (magic `:(…)`, globs, escapes) or leaves the work tree, or when the
/// top is not known.
fn pathspec_limit(inv: &analyze::Invocation, ctx: &Context, cwd: &str) -> Option<Vec<String>> {
    let r = inv.reading.as_ref()?;
    let p = &r.parsed;
    // `--full-diff`: the pathspec picks the commits, each shown whole
    // (rt21 F1: `git log --full-diff -p -- README.md` printed a `.env`
    // changed in the same commit).
    if p.has("--full-diff") {
        return None;
    }
    let specs = literal_pathspecs(inv)?;
    let top = repo::work_tree(ctx.fs, cwd)?;
    let Kernel::Path(here) = resolve::kernel(ctx.fs, cwd, true) else {
        return None;
    };
    let top = paths::normalize(&top);
    let here = paths::normalize(&here);
    let rel = if here == top {
        String::new()
    } else {
        here.strip_prefix(&format!("{}/", top.trim_end_matches('/')))?
            .to_string()
    };
    let mut out = Vec::new();
    for s in specs {
        if s.is_empty()
            || s.starts_with(':')
            || s.starts_with('/')
            || s.contains(['*', '?', '[', ']', '\\'])
        {
            return None;
        }
        let mut parts: Vec<&str> = rel.split('/').filter(|x| !x.is_empty()).collect();
        for seg in s.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                x => parts.push(x),
            }
        }
        out.push(parts.join("/"));
    }
    Some(out)
}

/// Whether any operand or read redirect names a secret (§8.3, §15.3):
/// lexically, resolved, or through a glob.
///
/// An operand the program only names or inspects (the model's `list`
/// role: `ls -la .env`, `stat .env`, `du -h .env`) prints no content: a
/// secret's name and metadata are not the secret (rt13 must-allow G5).
pub(super) fn names_secret(fs: &dyn Fs, touches: &[Touch], ci: bool) -> bool {
    touches.iter().any(|t| {
        matches!(t.kind, TouchKind::Operand | TouchKind::RedirectRead)
            && t.role != Some(shellgate_programs::Role::List)
            && secrets::touch_names_secret(fs, t, ci)
    })
}

/// Programs whose non-option words are names they list or inspect, never
/// files whose content they print (`find . -name .env`, `stat .env`):
/// their option values are still checked (`du --files0-from=.env`).
const NAMES_ONLY: &[&str] = &[
    "ls",
    "stat",
    "du",
    "realpath",
    "readlink",
    "tree",
    "find",
    "fd",
    "fdfind",
    "lsattr",
    "namei",
    "mountpoint",
];

/// git subcommands that print names, never content (`git check-ignore -v
/// .env`, the usual "is .env ignored?" question).
const GIT_NAMES_ONLY: &[&str] = &["check-ignore", "check-attr", "ls-files"];

/// Words a reader opens that are not path-like (§15.3): git pathspecs and
/// revision paths (`git show HEAD:.env`, `git blame .env`, `-L1,5:.env`,
/// `--contents=F`), and the non-option words of readers that take files
/// without looking like paths (`sort .env`, `uniq credentials`).
pub(super) fn names_secret_word(inv: &analyze::Invocation) -> bool {
    let words: Vec<String> = inv
        .argv
        .iter()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))
        .collect();
    let Some(first) = words.first() else {
        return false;
    };
    let base = paths::basename(first).to_ascii_lowercase();
    if filter_selects_secret(&base, &words[1..], inv.cwd.as_deref().unwrap_or("/")) {
        return true;
    }
    // The pattern or program of a searcher or script runner is not a file
    // (`grep credentials f`, `awk '/x/' f`) unless `-e`/`-f`/… supplies it.
    let pattern_verb = matches!(
        base.as_str(),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "sed" | "awk" | "gawk" | "mawk" | "jq" | "yq"
    );
    let explicit = words.iter().skip(1).any(|w| {
        matches!(
            w.as_str(),
            "-e" | "-f" | "--regexp" | "--file" | "--expression" | "--source"
        ) || w.starts_with("--regexp=")
            || w.starts_with("--file=")
            || w.starts_with("--expression=")
            || (w.starts_with("-e") || w.starts_with("-f")) && !w.starts_with("--")
    });
    let mut skip_first = pattern_verb && !explicit;
    let mut after_dashdash = false;
    let mut prev_contents = false;
    // Options of the searchers whose separate value is a count or a name,
    // not the pattern.
    const VALUED: &[&str] = &[
        "-A",
        "-B",
        "-C",
        "-m",
        "-d",
        "-D",
        "-t",
        "-T",
        "-j",
        "-M",
        "-E",
        "--max-count",
        "--context",
        "--after-context",
        "--before-context",
        "--type",
        "--type-not",
        "--threads",
        "--max-columns",
        "--encoding",
        "--color",
        "--colors",
    ];
    let mut prev_valued = false;
    let git_sub = (base == "git")
        .then(|| {
            inv.reading.as_ref().and_then(|r| {
                r.parsed
                    .nodes
                    .get(1)
                    .and_then(|n| n.names.first())
                    .map(|s| s.to_string())
            })
        })
        .flatten();
    let names_only = NAMES_ONLY.contains(&base.as_str())
        || git_sub
            .as_deref()
            .is_some_and(|s| GIT_NAMES_ONLY.contains(&s));
    for w in words.iter().skip(1) {
        let valued = std::mem::replace(
            &mut prev_valued,
            pattern_verb && VALUED.contains(&w.as_str()),
        );
        if base != "git" {
            if w == "--" && !after_dashdash {
                after_dashdash = true;
                continue;
            }
            if valued && !after_dashdash {
                continue;
            }
            if (after_dashdash || !w.starts_with('-') || w == "-") && !names_only {
                if std::mem::take(&mut skip_first) {
                    continue;
                }
                if secrets::is_secret_path(w) {
                    return true;
                }
            }
        }
        // A file named by an option's glued value (`--files0-from=.env`,
        // `-f.env`): readers read it.
        if let Some(v) = option_value(w) {
            if secrets::is_secret_path(v) {
                return true;
            }
        }
        if prev_contents {
            prev_contents = false;
            if secrets::is_secret_path(w) {
                return true;
            }
            continue;
        }
        if base == "git" {
            if w == "--contents" {
                prev_contents = true;
                continue;
            }
            if let Some(v) = w.strip_prefix("--contents=") {
                if secrets::is_secret_path(v) {
                    return true;
                }
                continue;
            }
            if !names_only
                && (!w.starts_with('-') || w.starts_with("-L"))
                && secrets::pathspec_names_secret(w)
            {
                return true;
            }
        } else if w.contains(':') && !w.starts_with('-') {
            // `REV:path` read out of a revision by any reader.
            if let Some((_, path)) = w.split_once(':') {
                if secrets::is_secret_path(path) {
                    return true;
                }
            }
        }
    }
    false
}

/// A search filter selecting the files a searcher reads (`grep --include`,
/// `rg -g/--glob/--iglob`, `ag -G`) that selects secrets (§15.19).
fn filter_selects_secret(base: &str, args: &[String], dir: &str) -> bool {
    let (long, short): (&[&str], &[&str]) = match base {
        "grep" | "egrep" | "fgrep" => (&["--include"], &[]),
        "rg" => (&["--glob", "--iglob"], &["-g"]),
        "ag" => (&["--file-search-regex"], &["-G"]),
        "ack" => (&["--match"], &[]),
        _ => return false,
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            break;
        }
        let value = if let Some((name, v)) = a.split_once('=').filter(|_| a.starts_with("--")) {
            long.iter()
                .any(|l| l.starts_with(name) && name.len() >= 4)
                .then(|| v.to_string())
        } else if long.contains(&a.as_str()) || short.contains(&a.as_str()) {
            let v = args.get(i).cloned();
            i += 1;
            v
        } else {
            short.iter().find_map(|s| {
                a.strip_prefix(s)
                    .filter(|v| !v.is_empty())
                    .map(str::to_string)
            })
        };
        if let Some(v) = value {
            if secrets::filter_selects_secret(&v, dir) {
                return true;
            }
        }
    }
    false
}

/// The value glued to an option word: after `=` of a long option, or
/// after the letter of a short one (`-f.env`).
fn option_value(w: &str) -> Option<&str> {
    if let Some(long) = w.strip_prefix("--") {
        return long.split_once('=').map(|(_, v)| v);
    }
    let rest = w.strip_prefix('-')?;
    let mut chars = rest.char_indices();
    chars.next()?;
    chars.next().map(|(i, _)| &rest[i..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::OsFs;

    /// rt25 F6: a program `PATH` finds in a project directory (an
    /// activated venv) or through a relative entry is not the installed
    /// tool; one found only in system directories is.
    #[test]
    fn program_found_in_a_project_path_entry() {
        let t = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(t.path()).expect("canonical");
        let b = base.to_string_lossy().to_string();
        let proj = format!("{b}/proj");
        let sys = format!("{b}/sys");
        std::fs::create_dir_all(format!("{proj}/.venv/bin")).expect("mkdir");
        std::fs::create_dir_all(&sys).expect("mkdir");
        std::fs::write(format!("{proj}/.venv/bin/pip"), "#!/bin/sh\n").expect("write");
        std::fs::write(format!("{sys}/pip"), "#!/bin/sh\n").expect("write");
        std::fs::write(format!("{sys}/jq"), "#!/bin/sh\n").expect("write");
        let roots = vec![proj.clone()];
        let on = |prog: &str, path: &str, cwd: Option<&str>| {
            program_on_path_in_roots(&OsFs, prog, path, cwd, &b, &roots, false)
        };
        let venv_first = format!("{proj}/.venv/bin:{sys}");
        assert!(on("pip", &venv_first, Some(&proj)));
        // An entry that was not UTF-8 (U+FFFD after the edge's lossy
        // reading) cannot be known: it counts.
        assert!(on("jq", &format!("{sys}:/opt/\u{FFFD}x/bin"), Some(&proj)));
        // Behind the system entry it still counts (fail closed).
        assert!(on("pip", &format!("{sys}:{proj}/.venv/bin"), Some(&proj)));
        // bash expands a leading `~` of an entry (rt7 F8); `~user` cannot
        // be told.
        assert!(on("pip", &format!("~/proj/.venv/bin:{sys}"), Some(&proj)));
        assert!(on("jq", &format!("~nobody/bin:{sys}"), Some(&proj)));
        assert!(!on("jq", &format!("~/proj/.venv/bin:{sys}"), Some(&proj)));
        // Not there: the system's jq runs.
        assert!(!on("jq", &venv_first, Some(&proj)));
        assert!(!on("pip", &sys, Some(&proj)));
        // Relative entries resolve against the working directory.
        assert!(on("pip", &format!(".venv/bin:{sys}"), Some(&proj)));
        assert!(on("pip", &format!(".venv/bin:{sys}"), None));
        // A link into the project from elsewhere is the project's file.
        std::os::unix::fs::symlink(format!("{proj}/.venv/bin"), format!("{b}/venvlink"))
            .expect("symlink");
        assert!(on("pip", &format!("{b}/venvlink:{sys}"), Some(&proj)));
    }
}
