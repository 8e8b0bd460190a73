//! Semantic hard deny (SPEC §9.3, §15.7, §15.19): never approvable, checked
//! on every simple command found anywhere in the call, on argv read as the
//! program reads it.
//!
//! Each argument is first expanded as bash would pass it (brace expansion,
//! `~`, which glob characters are really unquoted: `words`); options are
//! read with the program model (`shellgate_programs`: getopt_long
//! abbreviations, clusters, glued values, `--`) or, for programs without a
//! spec, with a local getopt_long table. Fail closed: options that cannot be
//! read next to a critical target deny.
//!
//! - `destructive`: recursive deletes, moves and permission changes of
//!   critical trees (`targets`), formatting, stopping the machine;
//! - `devices`: writing a disk device by any program;
//! - `signals`: killing the gate, signalling every process;
//! - `reverse_shell`: a network connection handed to a shell.
//!
//! Runners the program model knows (`kind = "runner"`: `npx`, `uv run`,
//! `busybox`, `nice`, `xargs`…) are read through: the command line they run
//! is checked like a written one, and command strings they take (`watch
//! 'CMD'`, `script -c CMD`) are parsed and checked.

mod destructive;
mod devices;
mod reverse_shell;
mod signals;
mod targets;
mod words;

use crate::config::HardDenyRule;
use shellgate_programs::{lookup, parse, Arg, Kind, Role};
use shellgate_shell::analyze::{analyze, Analysis, Env, Invocation, REMOTE_SSH};
use shellgate_shell::paths::basename;
use shellgate_shell::syntax::Redirect;
use shellgate_shell::verbs::PRIVILEGE;
use shellgate_shell::word::Word;
use targets::Place;
pub use targets::{MORE_ROOTS, SYSTEM_DIRS};
use words::{expand_all, XArg};

/// A hard-deny finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// `system_destructive`, `privilege_escalation`, `remote_code`,
    /// `self_destructive`, `custom_deny`.
    pub category: &'static str,
    /// Human explanation.
    pub message: String,
}

impl Denial {
    pub fn reason(&self) -> String {
        format!("hard_deny_{}", self.category)
    }
}

fn deny(category: &'static str, message: impl Into<String>) -> Option<Denial> {
    Some(Denial {
        category,
        message: message.into(),
    })
}

/// How deep runners and command strings are read through.
const MAX_DEPTH: usize = 4;

/// Check a whole analyzed call. The first simple command by source position
/// decides; call-wide patterns (fork bomb, remote code, reverse shells, a
/// process lookup feeding `kill`) come after.
pub fn check(a: &Analysis, command: &str, home: &str, rules: &[HardDenyRule]) -> Option<Denial> {
    check_in(a, command, home, None, rules)
}

/// [`check`], with targets also resolved through `fs` as the kernel walks
/// them (symbolic links in the project pointing at the home or `/`).
pub fn check_in(
    a: &Analysis,
    command: &str,
    home: &str,
    fs: Option<&dyn crate::fs::Fs>,
    rules: &[HardDenyRule],
) -> Option<Denial> {
    if let Some(d) = check_depth(a, home, fs, rules, 0) {
        return Some(d);
    }
    for r in rules {
        if let Some(raw) = &r.raw {
            if !raw.is_empty() && command.contains(raw.as_str()) {
                return deny("custom_deny", r.reason.clone());
            }
        }
    }
    None
}

fn check_depth(
    a: &Analysis,
    home: &str,
    fs: Option<&dyn crate::fs::Fs>,
    rules: &[HardDenyRule],
    depth: usize,
) -> Option<Denial> {
    // Each invocation's words as the program receives them, expanded once
    // for every rule below.
    let expanded: Vec<Vec<XArg>> = a
        .invocations
        .iter()
        .map(|inv| expand_all(&inv.argv, home))
        .collect();
    let verb_rules = rules.iter().any(|r| r.verb.is_some());
    let mut remote_seen = false;
    for (inv, argv) in a.invocations.iter().zip(&expanded) {
        if inv.wrappers.iter().any(|w| w == REMOTE_SSH) {
            // Run on another machine (`ssh HOST CMD`): its paths are that
            // machine's, and only destroying a system concerns it there.
            remote_seen = true;
            let place = Place {
                home,
                cwd: None,
                fs: None,
            };
            if let Some(d) = check_argv(argv, &inv.redirects, place, depth)
                .filter(|d| d.category == "system_destructive")
            {
                return Some(d);
            }
            if verb_rules {
                if let Some(d) = custom_verb(inv, rules) {
                    return Some(d);
                }
            }
            continue;
        }
        let place = Place {
            home,
            cwd: inv.cwd.as_deref(),
            fs,
        };
        if let Some(d) = check_argv(argv, &inv.redirects, place, depth) {
            return Some(d);
        }
        if verb_rules {
            if let Some(d) = custom_verb(inv, rules) {
                return Some(d);
            }
        }
    }
    if a.fork_bomb {
        return deny("system_destructive", "fork bomb");
    }
    if a.remote_code {
        return deny(
            "remote_code",
            "downloaded content would run as a program without anyone seeing it",
        );
    }
    if remote_seen {
        // The call-wide rules (reverse shells, killing the gate) concern
        // this machine's processes only.
        let mut local = a.clone();
        let mut kept = Vec::new();
        local.invocations.clear();
        for (inv, argv) in a.invocations.iter().zip(expanded) {
            if !inv.wrappers.iter().any(|w| w == REMOTE_SSH) {
                local.invocations.push(inv.clone());
                kept.push(argv);
            }
        }
        return reverse_shell::call_wide(&local, &kept)
            .or_else(|| signals::lookup_and_kill(&local, home, &kept));
    }
    reverse_shell::call_wide(a, &expanded).or_else(|| signals::lookup_and_kill(a, home, &expanded))
}

fn lits(argv: &[Word]) -> Vec<String> {
    argv.iter()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))
        .collect()
}

fn custom_verb(inv: &Invocation, rules: &[HardDenyRule]) -> Option<Denial> {
    let words = lits(&inv.argv);
    let first = words.first().map(|w| basename(w).to_string())?;
    let normalized: Vec<String> = std::iter::once(first)
        .chain(words.iter().skip(1).cloned())
        .map(|w| w.to_lowercase())
        .collect();
    for r in rules {
        if let Some(v) = &r.verb {
            let toks: Vec<String> = v.split_whitespace().map(str::to_lowercase).collect();
            if !toks.is_empty()
                && toks.len() <= normalized.len()
                && toks.iter().zip(&normalized).all(|(a, b)| a == b)
            {
                return deny("custom_deny", r.reason.clone());
            }
        }
    }
    None
}

/// One command as the rules read it.
pub(crate) struct Cmd<'a> {
    /// Lowercased basename of the program (`.exe` removed).
    pub base: String,
    /// The arguments after the program word.
    pub args: Vec<XArg>,
    /// Its redirects (own, and those written on wrappers).
    pub redirects: &'a [Redirect],
    pub place: Place<'a>,
    pub depth: usize,
}

/// The lowercased basename of a program word, without `.exe`.
pub(crate) fn program_base(p: &str) -> String {
    let b = basename(p).to_ascii_lowercase();
    b.strip_suffix(".exe").map(str::to_string).unwrap_or(b)
}

/// Rules that look at one simple command.
pub fn check_invocation(inv: &Invocation, home: &str) -> Option<Denial> {
    invocation_depth(inv, home, None, 0)
}

fn invocation_depth(
    inv: &Invocation,
    home: &str,
    fs: Option<&dyn crate::fs::Fs>,
    depth: usize,
) -> Option<Denial> {
    let argv = expand_all(&inv.argv, home);
    let place = Place {
        home,
        cwd: inv.cwd.as_deref(),
        fs,
    };
    check_argv(&argv, &inv.redirects, place, depth)
}

fn check_argv(argv: &[XArg], redirects: &[Redirect], place: Place, depth: usize) -> Option<Denial> {
    let (prog, args) = argv.split_first()?;
    let Some(p) = prog.value.as_deref() else {
        // A program only known at run time: `$(which sudo)` names a
        // privilege tool; otherwise it may be `rm`: read it as one.
        let named = prog
            .raw
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .find(|w| PRIVILEGE.contains(w) || MORE_PRIVILEGE.contains(w));
        if let Some(tool) = named {
            return deny(
                "privilege_escalation",
                format!("the program is computed from {tool}, which runs commands with elevated privileges"),
            );
        }
        return devices::redirects(redirects, place)
            .or_else(|| destructive::rm(args, place, "a program only known at run time"));
    };
    let c = Cmd {
        base: program_base(p),
        args: args.to_vec(),
        redirects,
        place,
        depth,
    };
    privilege(&c)
        .or_else(|| multi_call(&c))
        .or_else(|| destructive::check(&c))
        .or_else(|| devices::check(&c))
        .or_else(|| signals::check(&c))
        .or_else(|| reverse_shell::check(&c))
        .or_else(|| runner(&c))
}

/// Tools that run commands as another (privileged) user.
const MORE_PRIVILEGE: &[&str] = &[
    "sudoedit", "sudo-rs", "su-rs", "ksu", "calife", "pbrun", "dzdo", "pfexec", "gsudo", "doas",
    "run0", "please", "runuser",
];

fn privilege(c: &Cmd) -> Option<Denial> {
    let b = c.base.as_str();
    if PRIVILEGE.contains(&b) || MORE_PRIVILEGE.contains(&b) {
        return deny(
            "privilege_escalation",
            format!("{b} runs commands with elevated privileges"),
        );
    }
    if b == "machinectl"
        && c.args
            .iter()
            .find(|a| !a.text().starts_with('-'))
            .is_some_and(|a| matches!(a.text(), "shell" | "login"))
    {
        return deny(
            "privilege_escalation",
            "machinectl shell opens a shell as another user",
        );
    }
    None
}

/// `busybox APPLET …`, `toybox APPLET …`: the applet is the program.
fn multi_call(c: &Cmd) -> Option<Denial> {
    if !matches!(c.base.as_str(), "busybox" | "toybox") || c.depth >= MAX_DEPTH {
        return None;
    }
    let first = c.args.first()?;
    if first.text().starts_with('-') {
        return None;
    }
    check_argv(&c.args, c.redirects, c.place, c.depth + 1)
}

/// Runners the program model knows: the command line they run (`argv`
/// operands) is checked like a written one; command strings (`command`
/// values and operands) are parsed and checked.
fn runner(c: &Cmd) -> Option<Denial> {
    if c.depth >= MAX_DEPTH {
        return None;
    }
    let prog = lookup(&c.base)?;
    let args: Vec<Arg> = c.args.iter().map(XArg::arg).collect();
    let p = parse(prog, &args);
    let leaf = p.leaf();
    for u in &p.opts {
        if u.negated || u.opt.value != Role::Command || prog.id == "find" {
            continue;
        }
        let Some(v) = u.value else { continue };
        if let Some(text) = c.args.get(v.at).and_then(|a| a.value_from(v.offset).value) {
            if let Some(d) = command_string(&text, c) {
                return Some(d);
            }
        }
    }
    if !matches!(leaf.kind, Kind::Runner | Kind::Build) {
        return None;
    }
    let ops = p.operands();
    if let Some(start) = ops.iter().find(|o| o.role == Role::Argv) {
        return check_argv(
            c.args.get(start.at..).unwrap_or(&[]),
            &[],
            c.place,
            c.depth + 1,
        );
    }
    let words: Option<Vec<String>> = ops
        .iter()
        .filter(|o| o.role == Role::Command)
        .map(|o| c.args.get(o.at).and_then(|a| a.value.clone()))
        .collect();
    match words {
        Some(w) if !w.is_empty() => command_string(&w.join(" "), c),
        _ => None,
    }
}

/// A command string a program runs with a shell: parsed and checked.
fn command_string(text: &str, c: &Cmd) -> Option<Denial> {
    let a = analyze(
        text,
        c.place.cwd,
        &Env {
            home: c.place.home.to_string(),
            ..Default::default()
        },
    );
    check_depth(&a, c.place.home, c.place.fs, &[], c.depth + 1)
}

#[cfg(test)]
mod tests;
