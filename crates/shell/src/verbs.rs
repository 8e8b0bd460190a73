//! Verb chains (approval keys), approval units, and what kind of program a
//! command runs (SPEC §4).

use crate::pathlike::is_path_like;
use crate::paths::basename;
use crate::syntax::{RedirKind, RedirTarget, Redirect};
use crate::word::Word;

/// Path-aware verbs (§4.1 step 2): their operands are files.
pub const PATH_AWARE: &[&str] = &[
    "cd",
    "chdir",
    "pushd",
    "popd",
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "find",
    "fd",
    "jq",
    "awk",
    "sed",
    "strings",
    "xxd",
    "hexdump",
    "od",
    "cp",
    "mv",
    "rm",
    "rmdir",
    "mkdir",
    "touch",
    "ln",
    "chmod",
    "chown",
    "chgrp",
    "tar",
    "zip",
    "unzip",
    "gzip",
    "gunzip",
    "bzip2",
    "xz",
    "scp",
    "rsync",
    "curl",
    "wget",
    "nc",
    "ncat",
    "ls",
    "dir",
    "tree",
    "stat",
    "file",
    "du",
    "diff",
    "cmp",
    "patch",
    "python",
    "python3",
    "node",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "pwsh",
    "powershell",
    "type",
    "findstr",
    "copy",
    "move",
    "xcopy",
    "robocopy",
    "del",
    "erase",
    "ren",
];

/// Side-effect verbs (exact, case-sensitive).
pub const SIDE_EFFECT: &[&str] = &["echo", "printf", ":", "true", "false", "test", "["];

/// Single-token verbs.
pub const SINGLE_TOKEN: &[&str] = &[
    "date", "whoami", "id", "groups", "hostname", "uname", "uptime", "free", "nproc", "which",
    "pwd",
];

/// Shells whose `-c STRING` is parsed (§3.3).
pub const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh"];

/// Programs that download (§9.3 remote_code).
pub const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "http", "aria2c", "nc"];

/// Privilege tools (§3.3): hard deny whatever they wrap.
pub const PRIVILEGE: &[&str] = &["sudo", "doas", "su", "pkexec", "run0"];

/// Interpreters and shells (§4.2), matched on the lowercased basename;
/// versioned names (`python3.12`, `node20`) count too.
pub fn is_interpreter(base: &str) -> bool {
    let b = base.to_ascii_lowercase();
    const NAMES: &[&str] = &[
        "python",
        "python3",
        "node",
        "deno",
        "bun",
        "ruby",
        "perl",
        "php",
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "pwsh",
        "powershell",
    ];
    if NAMES.contains(&b.as_str()) {
        return true;
    }
    // Versioned: python3.12, python2, perl5.36, php8.2, node18, ruby3.2.
    for stem in ["python", "perl", "php", "node", "ruby"] {
        if let Some(rest) = b.strip_prefix(stem) {
            if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '.') {
                return true;
            }
        }
    }
    false
}

/// `stem` followed by a version (`node20`, `python3.12`).
pub fn versioned(base: &str, stem: &str) -> bool {
    base.strip_prefix(stem).is_some_and(|rest| {
        !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '.')
    })
}

/// A program name without a Windows `.exe` suffix (Git Bash, MSYS2 and WSL
/// interop run `python.exe`, `curl.exe` as `python`, `curl`).
pub fn strip_exe(base: &str) -> &str {
    match base.len().checked_sub(4) {
        Some(cut) if base.is_char_boundary(cut) && base[cut..].eq_ignore_ascii_case(".exe") => {
            &base[..cut]
        }
        _ => base,
    }
}

/// Programs outside §4.2's list that run inline code (§15.6: `lua -e`,
/// `Rscript -e`, `R -e`, `julia -e` (rt24), `osascript -e`, `expect -c`): their inline code makes the call complex
/// like an interpreter's, and is read for hard deny.
pub fn runs_inline_code(base: &str) -> bool {
    let b = base.to_ascii_lowercase();
    matches!(
        b.as_str(),
        "lua" | "luajit" | "rscript" | "r" | "julia" | "osascript" | "expect" | "tclsh" | "wish"
    ) || versioned(&b, "lua")
        || versioned(&b, "tclsh")
        || versioned(&b, "wish")
}

/// A POSIX-family shell (`bash`, `sh`, `zsh` …) by basename.
pub fn is_shell(base: &str) -> bool {
    SHELLS.contains(&base)
}

/// A command whose operands are paths (its verb is one token).
pub fn is_path_aware(base: &str) -> bool {
    let b = base.to_ascii_lowercase();
    PATH_AWARE.contains(&b.as_str()) || is_interpreter(&b)
}

/// A command whose verb is always its first word alone.
pub fn is_single_token(base: &str) -> bool {
    let b = base.to_ascii_lowercase();
    SINGLE_TOKEN.contains(&b.as_str())
}

/// A pure side effect (`echo`, `printf`, `test` …): no approval needed.
pub fn is_side_effect(w0: &str) -> bool {
    SIDE_EFFECT.contains(&w0)
}

/// Verb-like word for the chain walk (§4.1 step 3).
fn verb_like(w: &Word) -> Option<String> {
    if !w.is_plain() || w.has_line_break() {
        return None;
    }
    let v = w.literal()?;
    let mut cs = v.chars();
    let first = cs.next()?;
    if !first.is_ascii_lowercase() || v.len() > 64 {
        return None;
    }
    if !cs.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-')) {
        return None;
    }
    if is_path_like(&v, false) {
        return None;
    }
    Some(v)
}

/// A call-specific value (§4.1 step 4): not starting with `-`, not
/// path-like, containing an ASCII digit.
pub fn is_call_specific_value(v: &str) -> bool {
    !v.starts_with('-') && !is_path_like(v, false) && v.chars().any(|c| c.is_ascii_digit())
}

/// Index of the first word after git's global options (`-C DIR`,
/// `--git-dir`, `--work-tree`, `--no-pager`, `--bare`).
pub fn git_skip_globals(argv: &[Word], from: usize) -> usize {
    let mut i = from;
    while let Some(w) = argv.get(i) {
        let v = w.literal().unwrap_or_default();
        match v.as_str() {
            "-C" | "--git-dir" | "--work-tree" => i += 2,
            "--no-pager" | "--bare" => i += 1,
            s if s.starts_with("--git-dir=") || s.starts_with("--work-tree=") => i += 1,
            _ => break,
        }
    }
    i
}

/// The verb chain of a simple command (after unwrapping): the tokens and
/// the index of the first argument after them. `capped` applies the
/// one-token rule of step 2.
pub struct Chain {
    /// The verb tokens (`git`, `remote`, `add`).
    pub tokens: Vec<String>,
    /// Whether the value trim removed a token.
    pub trimmed: bool,
    /// Index in argv of the first word not consumed by the chain walk.
    pub next: usize,
}

/// Walk the verb chain of `argv` (§4.1); `None` when the program word is
/// not literal.
pub fn chain(argv: &[Word], capped: bool) -> Option<Chain> {
    let w0 = argv.first()?.literal()?;
    let base = basename(&w0).to_string();
    let mut tokens = vec![w0.clone()];
    let mut next = 1;
    let one_token = is_path_aware(&base) || is_single_token(&base) || is_side_effect(&w0);
    if !(capped && one_token) {
        let is_git = base == "git";
        loop {
            if is_git {
                next = git_skip_globals(argv, next);
            }
            match argv.get(next).and_then(verb_like) {
                Some(v) => {
                    tokens.push(v);
                    next += 1;
                }
                None => break,
            }
        }
    }
    let mut trimmed = false;
    while tokens.len() > 1 {
        match tokens.last() {
            Some(last) if is_call_specific_value(last) => {
                tokens.pop();
                trimmed = true;
            }
            _ => break,
        }
    }
    Some(Chain {
        tokens,
        trimmed,
        next,
    })
}

/// The verb (approval key) of a simple command.
pub fn verb(argv: &[Word]) -> Option<String> {
    chain(argv, true).map(|c| c.tokens.join(" "))
}

/// Builtins that only test, look up or set shell variables (SPEC §4.4,
/// round two): `[[ … ]]`, `(( … ))`, `command -v|-V NAME`, `type NAME`,
/// `hash -t NAME`, and `read`, `unset`, `export`, `declare`, `typeset`,
/// `local`, `let`, `readonly` (the analysis makes them complex when a NAME
/// hides a subscript or an operand is not literal, and a statement that
/// sets a code-selecting name poisons what follows). `windows`: `type`
/// reads a file there.
pub fn pure_builtin(argv: &[Word], windows: bool) -> bool {
    let Some(w0) = argv.first().and_then(Word::lit) else {
        return false;
    };
    let w0 = w0.as_ref();
    // Only these builtins can qualify (the match below): others are not
    // read further.
    if !matches!(
        w0,
        "[[" | "(("
            | "command"
            | "type"
            | "hash"
            | "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "read"
            | "unset"
            | "let"
            | "set"
            | "ulimit"
    ) {
        return false;
    }
    let lits: Option<Vec<String>> = argv.iter().skip(1).map(Word::literal).collect();
    let Some(args) = lits else {
        return matches!(w0, "[[" | "((");
    };
    let names_plain = |from: usize| {
        args.iter().skip(from).all(|a| {
            let n = a.split('=').next().unwrap_or("");
            a.starts_with('-')
                || a.starts_with('+')
                || (!n.is_empty()
                    && n.chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        })
    };
    match w0 {
        "[[" | "((" => true,
        "command" => {
            matches!(args.first().map(String::as_str), Some("-v") | Some("-V"))
                && args.len() >= 2
                && args[1..].iter().all(|a| !a.starts_with('-'))
        }
        "type" => !windows && !args.is_empty() && args.iter().all(|a| !a.contains('/')),
        "hash" => args.first().map(String::as_str) == Some("-t") && args.len() >= 2,
        // With no NAME (or `-p`), these print every variable: the agent's
        // credentials (§8.1a) — not a side effect.
        // `declare -p PATH`: prints the named variables, as `echo "$PATH"`
        // does, when every name is one that holds no credential.
        "declare" | "typeset"
            if args.first().map(String::as_str) == Some("-p")
                && args.len() >= 2
                && args[1..]
                    .iter()
                    .all(|a| shellgate_programs::checks::run("envname", a).is_ok()) =>
        {
            true
        }
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            let names = args
                .iter()
                .filter(|a| !a.starts_with('-') && !a.starts_with('+'))
                .count();
            names > 0
                && !args.iter().any(|a| {
                    a.starts_with('-') && (a.contains('p') || a.contains('f') || a.contains('F'))
                })
                && names_plain(0)
        }
        "read" | "unset" | "let" => !args.is_empty() && names_plain(0),
        // `ulimit -a`, `ulimit -Sn`: prints limits; a value would set one.
        "ulimit" => args.iter().all(|a| {
            a.len() > 1
                && a.starts_with('-')
                && a[1..]
                    .chars()
                    .all(|c| "SHabcdefiklmnpqrstuvxPRT".contains(c))
        }),
        // `set -e`, `set -euo pipefail`: shell options only (the analysis
        // makes any option it does not follow complex, `-k` among them);
        // alone, `set` prints every variable.
        "set" => {
            !args.is_empty()
                && args.iter().all(|a| {
                    (a.len() > 1 && (a.starts_with('-') || a.starts_with('+')))
                        || a.chars().all(|c| c.is_ascii_lowercase())
                })
                && args[0].len() > 1
                && (args[0].starts_with('-') || args[0].starts_with('+'))
        }
        _ => false,
    }
}

/// A verb and whether it names what runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verb {
    /// The approval key (§4.1, §15.8, §15.16, §15.20).
    pub text: String,
    /// False when the walk cannot name the subcommand (or the command line
    /// a runner runs): no persistent option may be offered for it.
    pub named: bool,
}

/// `NAME=value` with an identifier name (make variables, assignments).
fn is_assignment_word(v: &str) -> bool {
    match v.split_once('=') {
        Some((n, _)) => {
            !n.is_empty()
                && n.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '.')
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
        }
        None => false,
    }
}

/// The verb of a simple command read with the program model when it knows
/// the program: the program, its subcommands (global options skipped with
/// their values), the §4.1 walk from there, then the options that change
/// what the verb does (`git reset --hard`), the targets it acts on
/// (`kubectl --context=prod`), and `--` when a checkout acts on paths.
pub fn verb_of(argv: &[Word], reading: Option<&crate::analyze::Reading>) -> Option<Verb> {
    let w0 = argv.first()?.literal()?;
    let base = basename(&w0).to_string();
    let one_token = is_path_aware(&base) || is_single_token(&base) || is_side_effect(&w0);
    if pure_builtin(argv, false) {
        let text = match (w0.as_str(), argv.get(1).and_then(Word::literal)) {
            ("command" | "hash", Some(flag)) => format!("{w0} {flag}"),
            _ => w0,
        };
        return Some(Verb { text, named: true });
    }
    let Some(r) = reading else {
        let c = chain(argv, true)?;
        // §15.20: a bare program name is never persisted when verb-like
        // words follow a flag (a subcommand the walk could not name).
        let mut named = true;
        if !one_token && c.tokens.len() == 1 {
            let mut seen_flag = false;
            for w in argv.iter().skip(1) {
                let v = w.literal().unwrap_or_default();
                if v.starts_with('-') {
                    seen_flag = true;
                } else if seen_flag && verb_like(w).is_some() && !is_call_specific_value(&v) {
                    named = false;
                    break;
                }
            }
        }
        return Some(Verb {
            text: c.tokens.join(" "),
            named,
        });
    };
    // A path-aware interpreter with subcommands (`deno install`, `bun add`)
    // names them, so a grant for running scripts (`deno run x.ts` ⇒ `deno`)
    // never covers installing packages (§15.8); running stays one token.
    let runs_script = r
        .parsed
        .sub_at
        .first()
        .is_none_or(|&at| r.text(at).is_some_and(|s| s == "run"));
    if one_token && runs_script {
        // The options that change what a file tool does name its verb too
        // (§15.16: `tar --remove-files`, `rsync --delete`, `cp -s`), so a
        // grant for the tool's ordinary use does not cover them.
        // Interpreters keep their own verbs (§4.2).
        let mut text = w0;
        if !is_interpreter(&base.to_ascii_lowercase()) {
            for m in shellgate_programs::judge::modifiers(&r.parsed) {
                text.push(' ');
                text.push_str(&m);
            }
        }
        return Some(Verb { text, named: true });
    }
    let p = &r.parsed;
    let mut tokens = vec![w0];
    for &at in &p.sub_at {
        tokens.push(r.text(at).unwrap_or_default().to_string());
    }
    let leaf = p.leaf();
    // A program that acts only through a subcommand, called with known
    // options and none (`dotnet --info`, `git --version`): the program
    // itself is the verb, as for a program the model does not know (§15.20:
    // no verb-like word after a flag). A program that acts without one
    // (`vercel --prod` deploys) is not named by its bare name.
    let only_options = leaf.sub_required
        && p.sub_at.is_empty()
        && p.positionals.is_empty()
        && p.problems.is_empty()
        && !p.opts.is_empty();
    let mut named = !leaf.sub_required || leaf.subs.is_empty() || only_options;
    // Where the §4.1 walk starts: right after the last subcommand word, or,
    // for nodes whose operands are targets, at the first target.
    let mut next = p.sub_at.last().map_or(1, |a| a + 2);
    // A subcommand the model does not know (after known global options):
    // the walk names it from there.
    if let Some(at) = p.problems.iter().find_map(|x| match x {
        shellgate_programs::Problem::UnknownSubcommand { at } => Some(*at),
        _ => None,
    }) {
        next = at + 1;
        named = true;
    }
    // A runner: its own text operands (verb-like ones name it; values are
    // skipped), then the verb of the command line it runs.
    if let Some((k, inner)) = &r.inner {
        for &i in &p.positionals {
            if i + 1 >= *k {
                break;
            }
            match argv.get(i + 1) {
                Some(w) if verb_like(w).is_some() => tokens.push(verb_like(w).unwrap_or_default()),
                Some(w) if w.lit().is_some_and(|v| is_call_specific_value(&v)) => {}
                _ => named = false,
            }
        }
        for m in shellgate_programs::judge::modifiers(p) {
            tokens.push(m.to_string());
        }
        tokens.extend(shellgate_programs::judge::scopes(p, &r.args()));
        let inner_verb = verb_of(&argv[*k..], inner.as_ref().as_ref());
        match inner_verb {
            Some(v) => {
                tokens.push(v.text);
                named &= v.named;
            }
            None => named = false,
        }
        return Some(Verb {
            text: tokens.join(" "),
            named,
        });
    }
    if leaf.targets {
        let first = p
            .positionals
            .iter()
            .copied()
            .find(|&i| !r.text(i).is_some_and(is_assignment_word));
        if let Some(i) = first {
            next = next.max(i + 1);
        }
    }
    let walk_from = tokens.len();
    while let Some(w) = argv.get(next) {
        if leaf.targets && w.lit().is_some_and(|v| is_assignment_word(&v)) {
            next += 1;
            continue;
        }
        match verb_like(w) {
            Some(v) => {
                tokens.push(v);
                next += 1;
            }
            None => break,
        }
    }
    let _ = walk_from;
    // Targets after an option (`make test -s install`, `mvn test -q
    // deploy`): a task runner runs every one of them, wherever it stands,
    // so each is a word of the verb (§15.20); one that is not verb-like
    // leaves the call unnamed. (Not CLIs walking open-ended command groups
    // with `targets`, `az group delete -n rg`: words after their options
    // are option values the model does not list.)
    if leaf.targets && matches!(leaf.kind, shellgate_programs::Kind::Build) {
        for &i in &p.positionals {
            // Variable definitions (any word with `=`, `'CC = clang'`
            // too: judged by the make-variable rule) and the job count or
            // load of a separate `-j 8` / `-l 2.5`, which make takes when
            // it is a number.
            let number_after_jobs = r.text(i).is_some_and(|t| {
                !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.')
            }) && i.checked_sub(1).and_then(|j| r.text(j)).is_some_and(
                |o| matches!(o, "-j" | "--jobs" | "-l" | "--load-average" | "--max-load"),
            );
            if i + 1 < next || r.text(i).is_some_and(|t| t.contains('=')) || number_after_jobs {
                continue;
            }
            match argv.get(i + 1).and_then(verb_like) {
                Some(v) => tokens.push(v),
                None => named = false,
            }
        }
    }
    // An installer's package operands after an option (`pip install -r
    // req.txt evilpkg`, `npm install -D left-pad`): each is installed, so
    // each is a word of the verb, as before the option (`npm install
    // lodash`); one that is not verb-like (`evilpkg==1.0`) leaves the call
    // unnamed.
    let installer = matches!(leaf.kind, shellgate_programs::Kind::Installer)
        && leaf
            .operands
            .iter()
            .any(|s| s.role == shellgate_programs::Role::Text);
    if installer {
        for &i in &p.positionals {
            if i + 1 < next {
                continue;
            }
            match argv.get(i + 1).and_then(verb_like) {
                Some(v) => tokens.push(v),
                None => named = false,
            }
        }
    }
    // An install that names packages and also reads package lists (`pip
    // install requests -r req.txt`) names the lists too: a grant for the
    // packages alone does not cover what a file adds (rt13 F4: the file
    // listed `./evilpkg`, whose setup.py ran). Without package operands
    // (`pip install -r requirements.txt`) the verb stays the install of the
    // project's own requirements.
    if installer && !p.positionals.is_empty() {
        let args = r.args();
        for o in &p.opts {
            if o.negated
                || o.opt.arity == shellgate_programs::Arity::None
                || o.opt.value != shellgate_programs::Role::Read
            {
                continue;
            }
            let val = o.value.and_then(|x| p.value_text(&args, x)).unwrap_or("?");
            let name = o
                .opt
                .long
                .first()
                .map_or(o.opt.name.to_string(), |l| format!("--{l}"));
            tokens.push(format!("{name}={val}"));
        }
    }
    let mut trimmed = false;
    // An install names every package it installs, digits and all (`npm
    // install vue3`): a trimmed one would ride on a grant for installing
    // the project's own dependencies.
    while tokens.len() > 1 && !installer {
        match tokens.last() {
            Some(last) if is_call_specific_value(last) => {
                tokens.pop();
                trimmed = true;
            }
            _ => break,
        }
    }
    // A push names every ref it sends: a trimmed one (`v1.0`) would ride
    // on a grant for the others.
    if trimmed && p.program.id == "git" && p.sub_at.first().and_then(|&a| r.text(a)) == Some("push")
    {
        named = false;
    }
    // A bare program whose subcommand the walk could not name.
    if tokens.len() == 1 && !leaf.subs.is_empty() && !only_options {
        named = false;
    } else if tokens.len() > 1 && leaf.sub_required && !leaf.subs.is_empty() {
        // Named by the walk (a subcommand the model does not know).
        named = p
            .problems
            .iter()
            .any(|x| matches!(x, shellgate_programs::Problem::UnknownSubcommand { .. }));
    }
    let args = r.args();
    for m in shellgate_programs::judge::modifiers(p) {
        tokens.push(m.to_string());
    }
    tokens.extend(shellgate_programs::judge::scopes(p, &args));
    if shellgate_programs::judge::paths_mode(p, &args) {
        tokens.push("--".to_string());
    }
    Some(Verb {
        text: tokens.join(" "),
        named,
    })
}

/// The approval unit of one simple command (§4.3).
pub fn unit(argv: &[Word], redirects: &[Redirect]) -> Option<String> {
    let c = chain(argv, false)?;
    let mut parts: Vec<String> = c.tokens.clone();
    if c.trimmed {
        return Some(parts.join(" "));
    }
    for w in argv.iter().skip(c.next) {
        if w.has_line_break() {
            break;
        }
        let v = w.lossy_value();
        if w.is_literal() && is_call_specific_value(&v) {
            break;
        }
        if w.quoted && v.chars().any(char::is_whitespace) {
            break;
        }
        parts.push(w.raw.clone());
    }
    for r in redirects {
        if matches!(r.kind, RedirKind::HereDoc | RedirKind::HereString) {
            continue;
        }
        if let RedirTarget::File(w) = &r.target {
            if w.has_line_break() {
                break;
            }
        }
        parts.push(r.render());
    }
    Some(parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<Word> {
        s.split(' ').map(|w| Word::analyze(w, 0)).collect()
    }

    #[test]
    fn chains() {
        assert_eq!(
            verb(&argv("git push origin main")).unwrap(),
            "git push origin main"
        );
        assert_eq!(verb(&argv("ls -la /tmp")).unwrap(), "ls");
        assert_eq!(
            verb(&argv("docker compose up -d")).unwrap(),
            "docker compose up"
        );
        assert_eq!(verb(&argv("git tag v0.4.2")).unwrap(), "git tag");
        assert_eq!(verb(&argv("aws s3")).unwrap(), "aws");
        assert_eq!(verb(&argv("x1")).unwrap(), "x1");
        assert_eq!(verb(&argv("tool a1 run")).unwrap(), "tool a1 run");
        assert_eq!(
            verb(&argv("git -C /repo worktree list")).unwrap(),
            "git worktree list"
        );
        assert_eq!(verb(&argv("./cat notes.txt")).unwrap(), "./cat");
        assert_eq!(verb(&argv("npm run test:unit")).unwrap(), "npm run");
        assert_eq!(verb(&argv("Echo hello")).unwrap(), "Echo hello");
    }

    #[test]
    fn interpreters() {
        assert!(is_interpreter("python3.12"));
        assert!(is_interpreter("node"));
        assert!(!is_interpreter("nodemon"));
        assert!(!is_interpreter("pythonista"));
    }
}
