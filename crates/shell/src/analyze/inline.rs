//! Code that does not appear as commands in the text: shells given a
//! `-c` string (whose commands are walked), interpreters given inline code
//! or reading their program from standard input (SPEC §3.3, §4.2), and
//! downloads that reach a shell or interpreter as its program (remote code).

use super::cwd::Cwd;
use super::walk::{Ctx, Walker};
use super::{Env, Invocation, MAX_DEPTH};
use crate::parse;
use crate::paths::basename;
use crate::syntax::*;
use crate::verbs::{is_interpreter, is_shell, DOWNLOADERS};
use crate::word::Word;

/// What walking a shell's `-c` string came to.
pub(super) enum ShellCWalk {
    /// Not a `-c` invocation: continue with the shell as the command.
    NotC,
    /// The string was walked (or refused as too deep); these are the
    /// invocations it produced at its own level.
    Walked(Vec<usize>),
    /// The string cannot be walked (dynamic or unparsable): the shell
    /// itself is recorded as the command.
    Opaque,
}

impl Walker<'_> {
    /// `bash -c STRING`: the string's commands are the commands, with the
    /// shell's redirects and working directory.
    pub(super) fn shell_c(
        &mut self,
        argv: &[Word],
        redirects: &[Redirect],
        own_cwd: Option<&str>,
        ctx: &Ctx,
    ) -> ShellCWalk {
        match shell_c_string(argv) {
            ShellC::Static(word, text) => {
                if ctx.depth + 1 > MAX_DEPTH {
                    self.reason("nesting_too_deep");
                    self.crude_scan(&text, own_cwd);
                    return ShellCWalk::Walked(Vec::new());
                }
                match parse::parse(&text, word.start + 1) {
                    Ok(script) => {
                        let mut c = Cwd {
                            dir: own_cwd.map(str::to_string),
                            stack: Vec::new(),
                            vars: Default::default(),
                            changed: false,
                        };
                        let ctx2 = Ctx {
                            depth: ctx.depth + 1,
                            redirects: redirects.to_vec(),
                            units: ctx.units,
                            piped_or_async: ctx.piped_or_async,
                            in_function: ctx.in_function.clone(),
                            stdin_words: None,
                            stdin_text: None,
                            in_subst: ctx.in_subst,
                            no_brace: !expands_braces(argv),
                        };
                        let first = self.out.invocations.len();
                        self.script(&script, &mut c, &ctx2);
                        let walked: Vec<usize> = (first..self.out.invocations.len()).collect();
                        // The words after the string are its `$0`, `$1`…
                        // (rt26a F1: `bash -c 'rm -rf "$1"' _ /`): the text
                        // with them put in is checked for hard deny too.
                        if let Some(text) = with_positionals(argv, &word, &text, &self.env.home) {
                            self.ungated_text(&text, own_cwd, ctx);
                        }
                        ShellCWalk::Walked(walked)
                    }
                    Err(e) => {
                        self.failed(&text, &e, own_cwd);
                        ShellCWalk::Opaque
                    }
                }
            }
            ShellC::Dynamic(word) => {
                self.reason("dynamic_shell_string");
                if word_has_download(self, &word) {
                    self.out.remote_code = true;
                }
                ShellCWalk::Opaque
            }
            ShellC::None => ShellCWalk::NotC,
        }
    }

    /// Interpreters and shells: inline code, or a program read from
    /// standard input (§3.3, §4.2).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn interpreter(
        &mut self,
        base: &str,
        argv: &[Word],
        redirects: &[Redirect],
        proc_bodies: &[(usize, usize)],
        s: &Simple,
        stdin_piped: bool,
        own_cwd: Option<&str>,
        ctx: &Ctx,
    ) {
        if has_inline_code(base, argv) {
            self.reason("inline_code");
            self.inline_code(base, argv, own_cwd, ctx);
        }
        let stdin_code = redirects.iter().any(|r| {
            matches!(r.kind, RedirKind::HereDoc | RedirKind::HereString)
                || (r.kind == RedirKind::Read
                    && !r.op.starts_with(|c: char| c.is_ascii_digit() && c != '0'))
        });
        if program_from_stdin(base, argv) {
            let _ = stdin_piped || stdin_code;
            self.reason("stdin_program");
            self.stdin_program_text(base, argv, redirects, stdin_piped, own_cwd, ctx);
            // Its program arrives through a redirect carrying a download
            // (`bash < <(curl …)`, `sh <<< "$(wget …)"`).
            for r in redirects {
                let downloads = match &r.target {
                    RedirTarget::ProcSubst { body, .. } => script_mentions(body, DOWNLOADERS),
                    RedirTarget::HereString(w) => word_has_download(self, w),
                    RedirTarget::HereDoc {
                        body,
                        expands: true,
                    } => word_has_download(self, body),
                    _ => false,
                };
                if downloads {
                    self.out.remote_code = true;
                }
            }
        }
        // The program operand is a process substitution carrying a
        // download (`bash <(curl …)`).
        if let Some(op) = program_operand_index(base, argv) {
            self.check_code_word(argv, op, proc_bodies, s);
        }
    }

    /// Literal inline code of an interpreter (`python3 -c`, `perl -e`,
    /// `lua -e`, `fish -c`, `pwsh -c`), wherever it runs (also on a
    /// runner's command line): what it hands to a shell is parsed and
    /// checked for hard deny like `bash -c` (§15.19), and a clear fork
    /// bomb is one. Only hard deny reads what it finds.
    pub(super) fn inline_code(
        &mut self,
        base: &str,
        argv: &[Word],
        own_cwd: Option<&str>,
        ctx: &Ctx,
    ) {
        // Code that runs its own arguments (`os.system(sys.argv[1])`,
        // `system @ARGV`, rt26a F1): the words after it are checked as the
        // command lines they may be.
        if let Some(at) = argv.iter().position(|w| {
            w.literal()
                .is_some_and(|code| super::code::reads_own_argv(&code))
        }) {
            self.own_arguments(&argv[at + 1..], own_cwd, ctx);
        }
        for w in argv.iter().skip(1) {
            match w.literal() {
                // Literal code handing a static string to a shell
                // (`os.system("…")`, `` `…` ``).
                Some(code) => {
                    for cmd in program_commands(base, &code) {
                        self.ungated_text(&cmd, own_cwd, ctx);
                    }
                    if super::code::forks_without_bound(&code) {
                        self.out.fork_bomb = true;
                    }
                }
                // `python3 -c "$(curl …)"`: downloaded code.
                None => {
                    if word_has_download(self, w) {
                        self.out.remote_code = true;
                    }
                }
            }
        }
        // fish's and PowerShell's command strings are shell text: their
        // simple commands read as bash's do (`fish -c 'rm -rf ~'`,
        // `pwsh -c 'Remove-Item -Recurse -Force /'`).
        let home = self.env.home.clone();
        if let Some(text) = shell_code_text(base, argv, &home) {
            self.ungated_text(&text, own_cwd, ctx);
        }
    }

    /// A program on standard input whose text the gate can read: a
    /// here-string, a heredoc (a quoted delimiter's body as written, an
    /// unquoted one's when it expands nothing) (`sh <<< 'rm -rf /'`,
    /// `bash <<'EOF'` … `rm -rf ~`). Still
    /// complex; what it hands to a shell is checked for hard deny like
    /// `bash -c` (other gates' suites deny these).
    fn stdin_program_text(
        &mut self,
        base: &str,
        argv: &[Word],
        redirects: &[Redirect],
        stdin_piped: bool,
        own_cwd: Option<&str>,
        ctx: &Ctx,
    ) {
        let home = self.env.home.clone();
        let texts = stdin_texts(redirects, &home);
        // A literal `echo 'rm -rf /' | sh` stays an ordinary complex ask:
        // SPEC §3.2 names it, and the shared cases adv-223 and cx-070 pin
        // it (noted on issue 17 as a SPEC question); the text is kept for
        // the policy's `auto` mode, where nobody sees it.
        let shell = is_shell(base);
        if stdin_piped && shell {
            if let Some(text) = ctx.stdin_text.clone() {
                self.out
                    .piped_programs
                    .push((text, own_cwd.map(str::to_string)));
            }
        }
        // A program on stdin that runs its own arguments (`python3 - rm
        // -rf / <<< 'subprocess.run(sys.argv[1:])'`, rt27 F3): the words
        // after `-` are checked as the command line they may be.
        if !shell && texts.iter().any(|t| super::code::reads_own_argv(t)) {
            if let Some(dash) = argv
                .iter()
                .position(|w| w.literal().as_deref() == Some("-"))
            {
                self.own_arguments(&argv[dash + 1..], own_cwd, ctx);
            }
        }
        for text in texts {
            if shell {
                self.ungated_text(&text, own_cwd, ctx);
                continue;
            }
            for cmd in program_commands(base, &text) {
                self.ungated_text(&cmd, own_cwd, ctx);
            }
            if super::code::forks_without_bound(&text) {
                self.out.fork_bomb = true;
            }
        }
    }

    /// The arguments a program's code runs as commands (`os.system(
    /// sys.argv[1])`, `system @ARGV`): each word, and all of them as one
    /// command line, checked for hard deny. Nothing when one is known only
    /// at run time.
    pub(super) fn own_arguments(&mut self, words: &[Word], own_cwd: Option<&str>, ctx: &Ctx) {
        let home = self.env.home.clone();
        let words: Option<Vec<String>> = words.iter().map(|w| w.expanded(&home)).collect();
        if let Some(words) = words.filter(|w| !w.is_empty()) {
            self.own_argument_texts(&words, own_cwd, ctx);
        }
    }

    /// [`Self::own_arguments`] of words already known as text.
    pub(super) fn own_argument_texts(
        &mut self,
        words: &[String],
        own_cwd: Option<&str>,
        ctx: &Ctx,
    ) {
        for w in words {
            self.ungated_text(w, own_cwd, ctx);
        }
        self.ungated_text(&super::crude::shell_line(words), own_cwd, ctx);
    }

    /// `bash <(curl …)`, `source <(wget …)`: a process substitution used as
    /// a program whose body downloads.
    pub(super) fn check_code_word(
        &mut self,
        argv: &[Word],
        idx: usize,
        procs: &[(usize, usize)],
        s: &Simple,
    ) {
        let Some(w) = argv.get(idx) else { return };
        if !w.proc_subst {
            return;
        }
        // Map back to the original word index in `s.words`.
        let Some(orig) = s
            .words
            .iter()
            .position(|x| x.start == w.start && x.proc_subst)
        else {
            return;
        };
        for (pos, (wi, first)) in procs.iter().enumerate() {
            if *wi != orig {
                continue;
            }
            let end = procs
                .get(pos + 1)
                .map(|(_, f)| *f)
                .unwrap_or(self.out.invocations.len());
            if self.out.invocations[*first..end]
                .iter()
                .any(|i| DOWNLOADERS.contains(&i.run_base().as_str()))
            {
                self.out.remote_code = true;
            }
        }
    }
}

/// A program word that is `$SHELL`, `${SHELL}`, `$BASH` or `${BASH}`
/// (quoted or not): the user's shell, or bash's own path — a shell either
/// way.
pub(super) fn shell_variable(w: &Word) -> bool {
    let raw = w.raw.trim_matches('"');
    let mut segs = w
        .segs
        .iter()
        .filter(|s| !matches!(s, crate::word::Seg::Lit { text, .. } if text.is_empty()));
    matches!(
        (segs.next(), segs.next()),
        (Some(crate::word::Seg::Dynamic), None)
    ) && w.substs.is_empty()
        && matches!(raw, "$SHELL" | "${SHELL}" | "$BASH" | "${BASH}")
}

/// Whether the shell of `argv` (a `-c` invocation) does brace expansion:
/// bash and zsh do unless told not to (`+B`, `+o braceexpand`); dash (`sh`
/// here), ksh and the rest do not (read as not known).
fn expands_braces(argv: &[Word]) -> bool {
    let Some(prog) = argv.first().and_then(Word::literal) else {
        return false;
    };
    if !matches!(basename(&prog), "bash" | "zsh") {
        return false;
    }
    let mut words = argv.iter().skip(1).map_while(Word::literal);
    while let Some(v) = words.next() {
        if !(v.starts_with('-') || v.starts_with('+')) {
            break;
        }
        if v.starts_with('+') && v[1..].contains('B') {
            return false;
        }
        if v == "+o" && words.next().as_deref() == Some("braceexpand") {
            return false;
        }
    }
    true
}

pub(super) enum ShellC {
    None,
    Static(Word, String),
    Dynamic(Word),
}

/// `bash -c STRING` (with other single-letter flags such as `-lc`).
pub(super) fn shell_c_string(argv: &[Word]) -> ShellC {
    let mut has_c = false;
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let Some(v) = w.literal() else {
            // A dynamic word where the `-c` string stands; otherwise it is
            // the script operand (`bash <(curl …)`).
            if has_c {
                return ShellC::Dynamic(w.clone());
            }
            break;
        };
        if v == "--" || v == "-" {
            i += 1;
            break;
        }
        // `-x`, `+e`, clusters such as `-ec` or `+eu`.
        if (v.starts_with('-') || v.starts_with('+')) && v.len() > 1 && !v.starts_with("--") {
            if v.starts_with('-') && v[1..].contains('c') {
                has_c = true;
            }
            // `-o opt`, `+o opt`, `-O opt`, `+O opt` take a value (also as
            // the last letter of a cluster: `-eo pipefail`).
            if v.ends_with('o') || v.ends_with('O') {
                i += 1;
            }
            i += 1;
            continue;
        }
        if let Some(long) = v.strip_prefix("--") {
            // `--rcfile F`, `--init-file F` take a value.
            if matches!(long, "rcfile" | "init-file") {
                i += 1;
            }
            i += 1;
            continue;
        }
        break;
    }
    if !has_c {
        return ShellC::None;
    }
    match argv.get(i) {
        None => ShellC::None,
        Some(w) => match w.literal() {
            Some(text) => ShellC::Static(w.clone(), text),
            None => ShellC::Dynamic(w.clone()),
        },
    }
}

/// A `-c` string with the words after it put in for `$1`…`$9`, `${N}`,
/// `$@` and `$*` (`$0` is the first of them), each quoted as one word —
/// only for what hard deny reads. `None`: no such words, no reference to
/// them, or one known only at run time.
fn with_positionals(argv: &[Word], string: &Word, text: &str, home: &str) -> Option<String> {
    if !text.contains('$') {
        return None;
    }
    let at = argv.iter().position(|w| w.start == string.start)?;
    let rest: Vec<String> = argv[at + 1..]
        .iter()
        .map(|w| w.expanded(home))
        .collect::<Option<_>>()?;
    let (zero, params) = rest.split_first()?;
    let quoted: Vec<String> = params
        .iter()
        .map(|p| super::crude::shell_quote(p))
        .collect();
    let all = super::crude::shell_line(params);
    let mut out = text.to_string();
    // `$0` is the first word (rt28b: `bash -c 'rm -rf $0' ~`); not `$00`…
    let z = super::crude::shell_quote(zero);
    for form in ["\"$0\"", "\"${0}\"", "${0}"] {
        out = out.replace(form, &z);
    }
    let mut replaced = String::with_capacity(out.len());
    let mut chars = out.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '$'
            && out[i + 1..].starts_with('0')
            && !out[i + 2..].starts_with(|d: char| d.is_ascii_digit())
        {
            replaced.push_str(&z);
            chars.next();
        } else {
            replaced.push(c);
        }
    }
    out = replaced;
    for form in [
        "\"$@\"", "\"$*\"", "\"${@}\"", "\"${*}\"", "${@}", "${*}", "$@", "$*",
    ] {
        out = out.replace(form, &all);
    }
    for (i, q) in quoted.iter().enumerate().take(9).rev() {
        let n = i + 1;
        for form in [
            format!("\"${n}\""),
            format!("\"${{{n}}}\""),
            format!("${{{n}}}"),
            format!("${n}"),
        ] {
            out = out.replace(&form, q);
        }
    }
    (out != text).then_some(out)
}

pub(super) fn word_has_download(_w: &Walker, word: &Word) -> bool {
    word.substs.iter().any(|s| match parse::parse(&s.text, 0) {
        Ok(script) => script_mentions(&script, DOWNLOADERS),
        Err(_) => DOWNLOADERS
            .iter()
            .any(|d| s.text.split_whitespace().any(|t| basename(t) == *d)),
    })
}

pub(super) fn script_mentions(s: &Script, names: &[&str]) -> bool {
    let env = Env {
        home: "/".to_string(),
        ..Default::default()
    };
    let mut w = Walker::new(&env);
    let mut c = Cwd::default();
    w.script(s, &mut c, &Ctx::default());
    w.out
        .invocations
        .iter()
        .any(|i| names.contains(&i.run_base().as_str()))
}

/// The command lines literal program text of `base`'s language hands to
/// a shell or runs (Tcl's `exec` for `tclsh`, `wish`, `expect`; the call
/// shapes of [`super::code::shell_strings`] for the others).
pub(super) fn program_commands(base: &str, code: &str) -> Vec<String> {
    let b = base.to_ascii_lowercase();
    let tcl = matches!(b.as_str(), "tclsh" | "wish" | "expect")
        || crate::verbs::versioned(&b, "tclsh")
        || crate::verbs::versioned(&b, "wish");
    let mut out = super::code::shell_strings(code);
    if tcl {
        out.extend(super::code::tcl_commands(code));
    }
    out
}

/// vim and the names it runs under (lower case).
fn is_vim(b: &str) -> bool {
    matches!(
        b,
        "vi" | "vim" | "nvim" | "ex" | "view" | "gvim" | "rvim" | "vimdiff" | "evim" | "gview"
    )
}

/// Editors and pagers that run code from their command line: vim's `-c CMD`,
/// `--cmd CMD`, `+CMD` (not a line number or a search), `-S`/`-u`/`-U`/
/// `-s` files and nvim's `-l SCRIPT`; emacs's `--eval`, `-l`/`--load`,
/// `-f`/`--funcall`, `--script`, `-x`. `None`: not such an editor call;
/// otherwise the command lines the literal code hands to a shell (`-c
/// '!CMD'`, `(shell-command "CMD")`), for hard deny.
pub(super) fn editor_code(base: &str, argv: &[Word]) -> Option<Vec<String>> {
    let b = base.to_ascii_lowercase();
    let vim = is_vim(&b);
    let emacs =
        matches!(b.as_str(), "emacs" | "emacs-nox" | "emacsclient") || b.starts_with("emacs2");
    let less = b == "less";
    if !vim && !emacs && !less {
        return None;
    }
    // Ex mode reads its commands from standard input (rt26a F2: `ex F <<<
    // '!CMD'`, `vim -es < x.vim`).
    let mut runs = b == "ex";
    let mut texts = Vec::new();
    let mut words = argv.iter().skip(1).peekable();
    while let Some(w) = words.next() {
        let Some(v) = w.literal() else {
            // An option known only at run time may be any of them.
            if w.lossy_value().starts_with(['-', '+']) || w.lossy_value().is_empty() {
                runs = true;
            }
            continue;
        };
        if v == "--" {
            break;
        }
        if less {
            // less's initial command: `+!CMD` (a shell), `+|…` (a pipe),
            // `+s FILE` (a save) — rt26a F2; `+G`, `+/pattern` only move.
            if let Some(cmd) = v.strip_prefix('+') {
                let cmd = cmd.trim_start_matches('+');
                if cmd.contains(['!', '|']) || cmd.starts_with('s') {
                    runs = true;
                    if let Some((_, rest)) = cmd.split_once('!') {
                        texts.push(rest.trim_end_matches(['\r', '\n']).to_string());
                    }
                }
            }
            continue;
        }
        if vim {
            if let Some(cmd) = v.strip_prefix('+') {
                let plain = cmd.is_empty()
                    || cmd.chars().all(|c| c.is_ascii_digit())
                    || (cmd.starts_with('/') && !cmd.contains('|'));
                if !plain {
                    runs = true;
                    texts.extend(super::code::vim_commands(cmd));
                }
                continue;
            }
            match v.as_str() {
                "--cmd" => {
                    runs = true;
                    if let Some(t) = words.next().and_then(Word::literal) {
                        texts.extend(super::code::vim_commands(&t));
                    }
                }
                // Long options and `-i` (the viminfo file); the short ones
                // are read in the cluster arm below (`-c`, `-S`, `-u`…).
                "--startuptime" | "-i" | "--listen" => {
                    runs = true;
                }
                // A cluster as vim reads it (rt26a F2: `-Nc CMD`): `c` takes
                // a command (the rest of the word, or the next one); `S`,
                // `u`, `U`, `s`, `w`, `W`, `l`, `V…` name files of commands,
                // settings, keys or logs; `e`/`E` is ex mode, whose commands
                // come from standard input.
                _ if v.starts_with('-') && !v.starts_with("--") && v.len() > 1 => {
                    let letters = &v[1..];
                    if let Some(at) = letters.find('c') {
                        runs = true;
                        let rest = &letters[at + 1..];
                        if rest.is_empty() {
                            if let Some(t) = words.next().and_then(Word::literal) {
                                texts.extend(super::code::vim_commands(&t));
                            }
                        } else {
                            texts.extend(super::code::vim_commands(rest));
                        }
                    } else if letters.contains(['S', 'u', 'U', 's', 'w', 'W', 'l', 'e', 'E', 'V']) {
                        runs = true;
                    }
                }
                _ => {}
            }
        } else {
            let name = v.trim_start_matches('-');
            let (name, glued) = match name.split_once('=') {
                Some((n, val)) => (n, Some(val.to_string())),
                None => (name, None),
            };
            if matches!(
                name,
                "eval" | "execute" | "l" | "load" | "f" | "funcall" | "script" | "x" | "e"
            ) || (v.starts_with(['-'])
                && !v.starts_with("--")
                && v.len() > 2
                && matches!(v.as_bytes()[1], b'l' | b'f' | b'x'))
            {
                runs = true;
                let text = glued.or_else(|| words.peek().and_then(|n| n.literal()));
                if let Some(t) = text {
                    texts.extend(super::code::lisp_commands(&t));
                }
            }
        }
    }
    runs.then_some(texts)
}

/// What an editor run with code reads from a here-string or heredoc
/// (`vim -u /dev/stdin <<< '!CMD'`, `ex F <<< …`): each line as an ex
/// command (vim family; nothing for the others).
pub(super) fn editor_stdin_commands(base: &str, text: &str) -> Vec<String> {
    if !is_vim(&base.to_ascii_lowercase()) {
        return Vec::new();
    }
    text.lines().flat_map(super::code::vim_commands).collect()
}

/// The program texts a here-string or heredoc hands to standard input
/// that the gate can read: a here-string's expansion, a quoted heredoc's
/// body as written, an unquoted one's when it expands nothing.
pub(super) fn stdin_texts(redirects: &[Redirect], home: &str) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for r in redirects {
        match &r.target {
            RedirTarget::HereString(w) => texts.extend(w.expanded(home)),
            RedirTarget::HereDoc {
                body,
                expands: false,
            } => texts.push(body.raw.clone()),
            RedirTarget::HereDoc {
                body,
                expands: true,
            } => {
                // Nothing to expand: the body as written.
                if !body.raw.contains(['$', '`', '\\']) {
                    texts.push(body.raw.clone());
                } else {
                    texts.extend(body.expanded(home));
                }
            }
            _ => {}
        }
    }
    texts
}

/// The command string of `fish -c CODE` (`--command`, glued, in a
/// cluster) or of `pwsh`/`powershell -Command CODE…` (any prefix of
/// `-Command`; the words after it are joined, as PowerShell joins them).
pub(super) fn shell_code_text(base: &str, argv: &[Word], home: &str) -> Option<String> {
    let words: Vec<String> = argv
        .iter()
        .skip(1)
        .map(|w| w.expanded(home))
        .collect::<Option<Vec<_>>>()?;
    if base == "fish" {
        let mut i = 0;
        while let Some(v) = words.get(i) {
            if v == "--" || !v.starts_with('-') {
                return None;
            }
            if let Some(long) = v.strip_prefix("--") {
                if let Some(code) = long.strip_prefix("command=") {
                    return Some(code.to_string());
                }
                if long == "command" {
                    return words.get(i + 1).cloned();
                }
                i += 1;
                continue;
            }
            // getopt: `c` takes a value (glued, or the next word); so do
            // `C`, `d`, `D`, `f`, `o`, `p`.
            let cluster = &v[1..];
            for (k, ch) in cluster.char_indices() {
                let rest = &cluster[k + 1..];
                if ch == 'c' {
                    return if rest.is_empty() {
                        words.get(i + 1).cloned()
                    } else {
                        Some(rest.to_string())
                    };
                }
                if "CdDfop".contains(ch) {
                    if rest.is_empty() {
                        i += 1;
                    }
                    break;
                }
            }
            i += 1;
        }
        return None;
    }
    if base.starts_with("pwsh") || base.starts_with("powershell") {
        let at = words.iter().position(|v| {
            let l = v.to_ascii_lowercase();
            l.len() >= 2 && "-command".starts_with(&l)
        })?;
        let rest = &words[at + 1..];
        return (!rest.is_empty()).then(|| rest.join(" "));
    }
    None
}

/// Inline code flags per interpreter (§4.2, §15.6).
pub(super) fn has_inline_code(base: &str, argv: &[Word]) -> bool {
    interpreter_flags_run_code(base, argv) || framework_console_code(base, argv)
}

/// A framework's console handed code on its command line, through the
/// interpreter that runs it (rt23: under a grant for `php`, `php artisan
/// tinker --execute='…'` copied a key out unasked): `artisan tinker
/// --execute`, Django's `manage.py shell -c|--command`, `rails runner`.
fn framework_console_code(base: &str, argv: &[Word]) -> bool {
    let Some(at) = program_operand_index(base, argv) else {
        return false;
    };
    let lit = |i: usize| argv.get(i).and_then(Word::literal);
    let Some(script) = lit(at) else {
        return false;
    };
    let script = crate::paths::basename(&script).to_string();
    let sub = lit(at + 1);
    let rest = || argv.iter().skip(at + 2).filter_map(Word::literal);
    match (script.as_str(), sub.as_deref()) {
        ("artisan", Some("tinker")) => rest().any(|v| v.starts_with("--execute")),
        ("manage.py", Some("shell" | "shell_plus")) => rest().any(|v| {
            v == "-c" || v.starts_with("--command") || (v.starts_with("-c") && !v.starts_with("--"))
        }),
        ("rails", Some("runner" | "r")) => true,
        _ => false,
    }
}

/// The interpreter's own options that take code (`-c`, `-e`, `-r`…).
fn interpreter_flags_run_code(base: &str, argv: &[Word]) -> bool {
    let shellish = is_shell(base) || base == "fish";
    let node = base == "node" || base == "nodejs" || crate::verbs::versioned(base, "node");
    let mut words = argv.iter().skip(1).peekable();
    while let Some(w) = words.next() {
        let Some(v) = w.literal() else {
            continue;
        };
        if v == "--" {
            break;
        }
        if !v.starts_with('-') {
            // `deno eval CODE`; `deno repl --eval CODE` (its options follow).
            if base == "deno" && v == "eval" {
                return true;
            }
            if base == "deno" && v == "repl" {
                continue;
            }
            // The script operand ends the interpreter's own options.
            break;
        }
        // An option taking the next word as its value (`python3 -W ignore
        // -c CODE`, `ruby -I lib -e CODE`): that word is not the script
        // (rt22 F1). A value that looks like an option is read as one
        // (`ruby -F -e CODE`: `-F` takes no separate value).
        if takes_separate_value(base, &v)
            && words
                .peek()
                .and_then(|n| n.literal())
                .is_some_and(|n| !n.starts_with('-'))
        {
            words.next();
            continue;
        }
        let lower = v.to_ascii_lowercase();
        if base.starts_with("pwsh") || base.starts_with("powershell") {
            // Any prefix of `-Command` or `-EncodedCommand` (`-c`, `-Com`,
            // `-e`, `-enc`), and `-ec`.
            let prefix_of = |full: &str| lower.len() >= 2 && full.starts_with(lower.as_str());
            if prefix_of("-command") || prefix_of("-encodedcommand") || lower == "-ec" {
                return true;
            }
            continue;
        }
        if matches!(v.as_str(), "-e" | "--eval" | "-E" | "-p" | "--print" | "-r") && !shellish {
            // perl -e/-E, ruby -e, node -e/-p, php -r
            if base.starts_with("python") && v != "-c" {
                continue;
            }
            return true;
        }
        if v.starts_with("--eval=") || v.starts_with("--print=") {
            return true;
        }
        // php's per-line code `-R`, and `-B`/`-E` run before and after it
        // (rt24 C11).
        if base.starts_with("php") && matches!(v.as_str(), "-R" | "-B" | "-E") {
            return true;
        }
        // node's bundled `-pe CODE` (`-p` and `-e` together).
        if node && !v.starts_with("--") && v[1..].contains(['e', 'p']) {
            return true;
        }
        if !v.starts_with("--") && v[1..].contains('c') && (base.starts_with("python") || shellish)
        {
            return true;
        }
        // expect's `-c CMDS` (Tcl: `spawn`, `exec`).
        if base == "expect" && !v.starts_with("--") && v[1..].contains('c') {
            return true;
        }
        if !v.starts_with("--") && (base.starts_with("perl") || base.starts_with("ruby")) {
            // A cluster up to the first option that takes the rest as its
            // value (`ruby -Itest`: a load path, not `-e`).
            const VALUED: &str = "ICrFxiKWT0MmdDlC";
            for c in v[1..].chars() {
                if c == 'e' || c == 'E' {
                    return true;
                }
                if VALUED.contains(c) {
                    break;
                }
            }
        }
    }
    false
}

/// Whether an interpreter's option word takes the next word as its value:
/// a lone valued option, or a cluster of switches ending in one (`-bW
/// ignore`). Lists per interpreter; an option not listed is a switch.
fn takes_separate_value(base: &str, v: &str) -> bool {
    let (short, long): (&str, &[&str]) = if base.starts_with("python") {
        ("WX", &["--check-hash-based-pycs"])
    } else if base == "node" || base == "nodejs" || crate::verbs::versioned(base, "node") {
        (
            "rC",
            &[
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
                "--conditions",
                "--input-type",
                "--title",
                "--env-file",
                "--inspect-port",
                "--redirect-warnings",
                "--report-dir",
                "--report-filename",
                "--disable-warning",
                "--watch-path",
                "--icu-data-dir",
                "--openssl-config",
                "--dns-result-order",
                "--unhandled-rejections",
                "--diagnostic-dir",
                "--cpu-prof-dir",
                "--heap-prof-dir",
            ],
        )
    } else if base.starts_with("ruby") {
        ("IrCExF", &[])
    } else if base.starts_with("perl") {
        ("Ix", &[])
    } else if base.starts_with("php") {
        ("dcztS", &[])
    } else if base.starts_with("lua") {
        ("l", &[])
    } else if is_shell(base) {
        // `bash -o errexit`, `+O extglob`, `--rcfile F` (rt24 C10).
        ("oO", &["--rcfile", "--init-file"])
    } else {
        return false;
    };
    if v.starts_with("--") {
        return long.contains(&v);
    }
    // The last letter of a cluster takes the next word only when every
    // letter before it is a switch (a valued letter earlier takes the rest
    // of the word instead).
    let letters = &v[1..];
    match letters.char_indices().find(|(_, c)| short.contains(*c)) {
        Some((at, c)) => at + c.len_utf8() == letters.len(),
        None => false,
    }
}

/// Index of the interpreter's program operand (the first non-option word).
pub(super) fn program_operand_index(base: &str, argv: &[Word]) -> Option<usize> {
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        if w.proc_subst {
            return Some(i);
        }
        let v = w.literal().unwrap_or_else(|| w.lossy_value());
        if v == "--" {
            return if argv.len() > i + 1 {
                Some(i + 1)
            } else {
                None
            };
        }
        if v == "-" {
            return None;
        }
        if v.starts_with('-') || (is_shell(base) && v.starts_with('+') && v.len() > 1) {
            // python -m module, node -r x: the value is not a program.
            if base.starts_with("python") && (v == "-m" || v == "-W" || v == "-X") {
                if v == "-m" {
                    return Some(i + 1).filter(|_| argv.len() > i + 1);
                }
                i += 2;
                continue;
            }
            let value_follows = argv
                .get(i + 1)
                .and_then(Word::literal)
                .is_some_and(|n| !n.starts_with('-'));
            i += if takes_separate_value(base, &v) && value_follows {
                2
            } else {
                1
            };
            continue;
        }
        return Some(i);
    }
    None
}

pub(super) const INFO_FLAGS: &[&str] = &[
    "--version",
    "-V",
    "-VV",
    "--help",
    "-h",
    "-v",
    "-version",
    "-help",
    "--v8-options",
];

/// Paths that name the process's standard input.
pub(super) fn is_stdin_path(v: &str) -> bool {
    v == "-"
        || v == "/dev/stdin"
        || v == "/dev/fd/0"
        || v == "/proc/self/fd/0"
        || (v.starts_with("/dev/fd/") || v.starts_with("/proc/self/fd/"))
}

/// A shell or interpreter with no program operand (or `-`/`-s`) reads its
/// program from standard input.
pub(super) fn program_from_stdin(base: &str, argv: &[Word]) -> bool {
    // `bash /dev/stdin`, `python3 /proc/self/fd/0`.
    if let Some(i) = program_operand_index(base, argv) {
        if argv[i].lit().is_some_and(|v| is_stdin_path(&v)) {
            return true;
        }
    }
    if argv.iter().skip(1).any(|w| {
        w.lit().is_some_and(|v| {
            v == "-"
                || (is_shell(base)
                    && v.starts_with('-')
                    && !v.starts_with("--")
                    && v[1..].contains('s'))
        })
    }) {
        return true;
    }
    if argv.iter().skip(1).any(|w| {
        w.literal()
            .is_some_and(|v| INFO_FLAGS.contains(&v.as_str()))
    }) {
        return false;
    }
    if has_inline_code(base, argv) {
        return false;
    }
    // `node --test`: the test runner finds the project's test files itself
    // and never reads a program from standard input.
    if matches!(base, "node" | "nodejs")
        && argv
            .iter()
            .skip(1)
            .any(|w| w.literal().is_some_and(|v| v == "--test"))
    {
        return false;
    }
    program_operand_index(base, argv).is_none()
}

/// Whether an invocation takes its program from standard input: a shell
/// or interpreter without a program operand, `source /dev/stdin`, or a
/// program file option given stdin (`awk -f -`, `sed -f /dev/stdin`,
/// `make -f -`).
pub(super) fn reads_program_from_stdin(inv: &Invocation) -> bool {
    let base = inv.run_base();
    if crate::verbs::runs_inline_code(&base) && program_from_stdin(&base, &inv.argv) {
        return true;
    }
    if (is_interpreter(&base) || is_shell(&base)) && program_from_stdin(&base, &inv.argv) {
        return true;
    }
    if matches!(base.as_str(), "source" | ".") {
        return inv
            .argv
            .get(1)
            .and_then(Word::literal)
            .is_some_and(|v| is_stdin_path(&v));
    }
    inv.reading.as_ref().is_some_and(stdin_program_option)
}

/// A program that runs commands found in the data it reads on standard
/// input, when a download is that data (rt28a, each verified with a
/// loopback server): shells the analysis does not name, line editors and
/// clients with shell escapes (`ed`, `sqlite3 .shell`, `psql \\!`), `script`,
/// REPLs reading their program, awk/perl/ruby programs that hand their
/// input to a shell, sed's `e`, vim reading keys from stdin.
pub(super) fn executes_input(inv: &Invocation) -> bool {
    let base = inv.run_base();
    let b = crate::verbs::strip_exe(&base);
    if matches!(
        b,
        "csh"
            | "tcsh"
            | "ash"
            | "mksh"
            | "yash"
            | "posh"
            | "oksh"
            | "loksh"
            | "rc"
            | "es"
            | "xonsh"
            | "elvish"
            | "nu"
            | "jshell"
            | "sqlite3"
            | "ed"
            | "red"
            | "ex"
            | "dc"
            | "script"
            | "expect"
            | "tclsh"
            | "wish"
            | "irb"
            | "ghci"
            | "psql"
            | "mysql"
            | "mariadb"
            | "gdb"
            | "lldb"
            | "ftp"
            | "lftp"
            | "sftp"
            | "busybox"
            | "toybox"
    ) || crate::verbs::versioned(b, "tclsh")
    {
        return true;
    }
    let texts: Vec<String> = inv.argv.iter().skip(1).filter_map(Word::literal).collect();
    let awk = matches!(b, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk");
    if awk {
        return texts
            .iter()
            .any(|t| !t.starts_with('-') && (t.contains("system") || t.contains('|')));
    }
    if matches!(b, "perl" | "ruby") || crate::verbs::versioned(b, "perl") {
        return texts.iter().any(|t| {
            ["system", "exec", "`", "qx", "open", "spawn", "eval"]
                .iter()
                .any(|k| t.contains(k))
        });
    }
    if b == "sed" || b == "gsed" {
        return texts.iter().any(|t| sed_runs(t));
    }
    if is_vim(b) || b == "vi" {
        let mut it = texts.iter();
        while let Some(t) = it.next() {
            if t == "-es" || t == "-e" || t == "-E" {
                return true;
            }
            if t == "-s" {
                if let Some(f) = it.next() {
                    if f == "-" || is_stdin_path(f) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// A sed script with an `e` command or an `s` command with the `e` flag.
fn sed_runs(script: &str) -> bool {
    script.split([';', '\n', '{', '}']).any(|piece| {
        let p = piece.trim_start();
        let p = p
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, ',' | '$' | '!' | ' '));
        if p == "e" || p.starts_with("e ") {
            return true;
        }
        if let Some(rest) = p.strip_prefix('s') {
            if let Some(d) = rest.chars().next() {
                let parts: Vec<&str> = rest[d.len_utf8()..].split(d).collect();
                if parts.len() >= 3 {
                    let flags = parts[parts.len() - 1];
                    return flags.contains('e');
                }
            }
        }
        false
    })
}

/// A program-file option (a `config`/`exec` value, or a `code` value that
/// names a file) given standard input.
pub(super) fn stdin_program_option(r: &super::Reading) -> bool {
    use shellgate_programs::Role;
    let args = r.args();
    r.parsed.opts.iter().any(|o| {
        !o.negated
            && matches!(o.opt.value, Role::Config | Role::Exec)
            && o.value
                .and_then(|v| r.parsed.value_text(&args, v))
                .is_some_and(is_stdin_path)
    })
}

/// The command `ssh` runs on the remote host: the words after the
/// destination, joined by spaces as ssh sends them to the remote shell
/// (`None`: no command, or words known only at run time). Options are read
/// as OpenSSH's getopt string names them.
pub(super) fn ssh_remote_command(argv: &[Word]) -> Option<String> {
    const WITH_VALUE: &str = "BbcDEeFIiJLlmOopQRSWw";
    let args = &argv[1.min(argv.len())..];
    // Option values may be dynamic (`-i ~/.ssh/key`); the words that
    // decide the parse and the command must be literal.
    let lit = |k: usize| args.get(k).and_then(Word::literal);
    let mut i = 0;
    while i < args.len() {
        // A word known only at run time is taken for the destination.
        let Some(w) = lit(i) else { break };
        if w == "--" {
            i += 1;
            break;
        }
        let Some(cluster) = w.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        // `-vp 22`, `-p22`: a letter taking a value ends the cluster.
        let mut takes_next = false;
        for (k, ch) in cluster.char_indices() {
            if WITH_VALUE.contains(ch) {
                takes_next = k + ch.len_utf8() == cluster.len();
                break;
            }
        }
        i += if takes_next { 2 } else { 1 };
    }
    // The destination, then the command.
    let command: Vec<String> = (i + 1..args.len()).map(lit).collect::<Option<_>>()?;
    (!command.is_empty()).then(|| command.join(" "))
}
