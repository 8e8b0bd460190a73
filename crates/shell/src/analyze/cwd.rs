//! Working directories (SPEC §5.1): `cd`/`pushd`/`popd` change the
//! directory of what follows; `env -C`, `git -C`, `make -C`, `tar -C`,
//! `npm --prefix` change only the command they are written on.

use super::walk::Walker;
use crate::paths::resolve;
use crate::word::Word;

/// The directory the walk is in, as far as it is known.
#[derive(Debug, Clone, Default)]
pub(super) struct Cwd {
    pub(super) dir: Option<String>,
    /// pushd stack built by this command.
    pub(super) stack: Vec<Option<String>>,
    /// Variables the list set so far (SPEC §15.13).
    pub(super) vars: super::evaluate::Vars,
    /// A `cd`/`pushd`/`popd` ran in the current and-or list: it may have
    /// failed (a directory that does not exist), so what runs after `;` or
    /// `||` may be in the old directory (rt14 F3).
    pub(super) changed: bool,
}

impl Walker<'_> {
    /// `git -C DIR`, `make -C DIR`, `tar -C DIR`, `npm --prefix DIR`: the
    /// directory of this command only.
    pub(super) fn dir_overrides(
        &mut self,
        base: &str,
        argv: &[Word],
        own_cwd: Option<String>,
    ) -> Option<String> {
        match base {
            "git" => git_dir_override(self, argv, own_cwd),
            "make" | "tar" | "npm" | "pnpm" | "yarn" => {
                dir_flag_override(self, base, argv, own_cwd)
            }
            _ => own_cwd,
        }
    }

    pub(super) fn change_dir(&mut self, base: &str, argv: &[Word], cwd: &mut Cwd) {
        // More than one directory operand: bash's `cd`/`pushd` fail ("too
        // many arguments") and stay where they are (rt14 F3: `cd src/a
        // extra; cat $PWD/../x`).
        let operands = argv
            .iter()
            .skip(1)
            .skip_while(|w| {
                w.literal()
                    .is_some_and(|v| v.starts_with('-') && v.len() > 1 && v != "--")
            })
            .skip_while(|w| w.literal().is_some_and(|v| v == "--"))
            .count();
        if operands > 1 && base != "popd" {
            return;
        }
        cwd.changed = true;
        // `cd` sets `$PWD` to where it goes (`cwd.dir` from here on).
        cwd.vars.values.retain(|k| k.name != "PWD");
        cwd.vars.set.retain(|n| n != "PWD");
        let target = argv.iter().skip(1).find(|w| {
            !w.literal()
                .is_some_and(|v| v.starts_with('-') && v.len() > 1)
        });
        match base {
            "popd" => match cwd.stack.pop() {
                Some(d) => cwd.dir = d,
                None => {
                    self.reason("dynamic_path");
                    cwd.dir = None;
                }
            },
            _ => {
                let old = cwd.dir.clone();
                // `cd -P` goes where the kernel goes (links followed before
                // `..`): a `..` after a component cannot be placed
                // lexically (§15.20). Logical `cd` (the default) collapses
                // `..` as written.
                let physical = argv
                    .iter()
                    .skip(1)
                    .filter_map(Word::literal)
                    .take_while(|v| v.starts_with('-') && v.len() > 1 && v != "--")
                    .fold(false, |p, v| {
                        if v.contains('P') {
                            true
                        } else if v.contains('L') {
                            false
                        } else {
                            p
                        }
                    });
                if physical
                    && target.is_some_and(|w| w.lossy_value().split('/').any(|seg| seg == ".."))
                {
                    self.reason("dynamic_path");
                    cwd.dir = None;
                    return;
                }
                let new = match target {
                    None => Some(self.env.home.clone()),
                    // `cd evil*`: bash picks the directory (rt10 F14, F17).
                    Some(w) if w.glob => {
                        self.reason("dynamic_path");
                        None
                    }
                    Some(w) => match w.expanded(&self.env.home) {
                        Some(v) if v == "-" => {
                            self.reason("dynamic_path");
                            None
                        }
                        Some(v) if v.starts_with('~') && !w.quoted => {
                            // ~user
                            self.reason("dynamic_path");
                            None
                        }
                        // With CDPATH set, bash looks NAME up in its
                        // entries first unless it is absolute or starts
                        // with `./` or `../` (`.config` is looked up).
                        Some(v)
                            if self.env.cdpath
                                && !(v.starts_with('/')
                                    || v == "."
                                    || v == ".."
                                    || v.starts_with("./")
                                    || v.starts_with("../")) =>
                        {
                            self.reason("cdpath");
                            None
                        }
                        Some(v) => resolve_opt(cwd.dir.as_deref(), &v),
                        None => {
                            self.reason("dynamic_path");
                            None
                        }
                    },
                };
                if base == "pushd" {
                    if target.is_none() {
                        // pushd alone swaps with a stack it did not build.
                        self.reason("dynamic_path");
                        cwd.dir = None;
                        return;
                    }
                    cwd.stack.push(old);
                }
                cwd.dir = new;
            }
        }
    }
}

pub(super) fn resolve_opt(base: Option<&str>, p: &str) -> Option<String> {
    if p.starts_with('/') {
        Some(resolve("/", p))
    } else {
        base.map(|b| resolve(b, p))
    }
}

fn git_dir_override(w: &mut Walker, argv: &[Word], cwd: Option<String>) -> Option<String> {
    let mut out = cwd;
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let v = word.literal().unwrap_or_default();
        match v.as_str() {
            "-C" => {
                match argv
                    .get(i + 1)
                    .filter(|d| !d.glob)
                    .and_then(|d| d.expanded(&w.env.home))
                {
                    Some(d) => out = resolve_opt(out.as_deref(), &d),
                    None => {
                        w.reason("dynamic_path");
                        out = None;
                    }
                }
                i += 2;
            }
            "--git-dir" | "--work-tree" => i += 2,
            "--no-pager" | "--bare" => i += 1,
            s if s.starts_with("--git-dir=") || s.starts_with("--work-tree=") => i += 1,
            _ => break,
        }
    }
    out
}

/// `make -C DIR`, `tar -C DIR`, `npm --prefix DIR` / `-C DIR`.
fn dir_flag_override(
    w: &mut Walker,
    base: &str,
    argv: &[Word],
    cwd: Option<String>,
) -> Option<String> {
    let mut out = cwd;
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let v = word.literal().unwrap_or_default();
        let dir_word: Option<Word> = if v == "-C"
            || (base != "make" && base != "tar" && v == "--prefix")
            || v == "--directory"
        {
            i += 1;
            argv.get(i).cloned()
        } else if let Some(d) = v.strip_prefix("--directory=").or_else(|| {
            v.strip_prefix("--prefix=")
                .filter(|_| base != "make" && base != "tar")
        }) {
            Some(Word::analyze(d, word.start))
        } else if v.starts_with("-C") && v.len() > 2 && base == "make" {
            Some(Word::analyze(&v[2..], word.start))
        } else {
            None
        };
        if let Some(d) = dir_word {
            match d.expanded(&w.env.home).filter(|_| !d.glob) {
                Some(p) => out = resolve_opt(out.as_deref(), &p),
                None => {
                    w.reason("dynamic_path");
                    out = None;
                }
            }
        }
        i += 1;
    }
    out
}
