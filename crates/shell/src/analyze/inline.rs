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
                        };
                        let first = self.out.invocations.len();
                        self.script(&script, &mut c, &ctx2);
                        ShellCWalk::Walked((first..self.out.invocations.len()).collect())
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
            for w in argv.iter().skip(1) {
                match w.literal() {
                    // Literal code handing a static string to a shell
                    // (`os.system("…")`, `` `…` ``): parsed and checked for
                    // hard deny like `bash -c` (§15.19).
                    Some(code) => {
                        for cmd in shell_strings(&code) {
                            self.ungated_text(&cmd, own_cwd, ctx);
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
        }
        let stdin_code = redirects.iter().any(|r| {
            matches!(r.kind, RedirKind::HereDoc | RedirKind::HereString)
                || (r.kind == RedirKind::Read
                    && !r.op.starts_with(|c: char| c.is_ascii_digit() && c != '0'))
        });
        if program_from_stdin(base, argv) {
            let _ = stdin_piped || stdin_code;
            self.reason("stdin_program");
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
                .any(|i| DOWNLOADERS.contains(&i.base().as_str()))
            {
                self.out.remote_code = true;
            }
        }
    }
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
        .any(|i| names.contains(&i.base().as_str()))
}

/// Inline code flags per interpreter (§4.2).
pub(super) fn has_inline_code(base: &str, argv: &[Word]) -> bool {
    let shellish = is_shell(base) || base == "fish";
    for w in argv.iter().skip(1) {
        let Some(v) = w.literal() else {
            continue;
        };
        if v == "--" {
            break;
        }
        if !v.starts_with('-') {
            // The script operand ends the interpreter's own options.
            break;
        }
        let lower = v.to_ascii_lowercase();
        if base.starts_with("pwsh") || base.starts_with("powershell") {
            if lower == "-command"
                || lower == "-c"
                || lower == "-encodedcommand"
                || lower == "-e"
                || lower == "-ec"
            {
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
        if !v.starts_with("--") && v[1..].contains('c') && (base.starts_with("python") || shellish)
        {
            return true;
        }
        if !v.starts_with("--")
            && (base.starts_with("perl") || base.starts_with("ruby"))
            && (v[1..].contains('e') || v[1..].contains('E'))
        {
            return true;
        }
    }
    false
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
        if v.starts_with('-') {
            // python -m module, node -r x: the value is not a program.
            if base.starts_with("python") && (v == "-m" || v == "-W" || v == "-X") {
                if v == "-m" {
                    return Some(i + 1).filter(|_| argv.len() > i + 1);
                }
                i += 2;
                continue;
            }
            i += 1;
            continue;
        }
        return Some(i);
    }
    None
}

pub(super) const INFO_FLAGS: &[&str] =
    &["--version", "-V", "--help", "-h", "-v", "-version", "-help"];

/// Paths that name the process's standard input.
pub(super) fn is_stdin_path(v: &str) -> bool {
    v == "-"
        || v == "/dev/stdin"
        || v == "/dev/fd/0"
        || v == "/proc/self/fd/0"
        || (v.starts_with("/dev/fd/") || v.starts_with("/proc/self/fd/"))
}

/// Code that hands a string to a shell, in literal inline code of any
/// interpreter: the first string argument of `system`, `os.system`,
/// `os.popen`, `subprocess.*(…, shell=True)`, `exec`, `execSync`,
/// `child_process.exec`, `popen`, `shell_exec`, `passthru`, and backquote or
/// `%x{}`/`qx{}` strings; list arguments (`subprocess.run(["rm", …])`)
/// are joined into a command line; a library's recursive delete of a static
/// path reads as `rm -rf` of it.
pub(super) fn shell_strings(code: &str) -> Vec<String> {
    const CALLS: &[&str] = &[
        "system",
        "popen",
        "exec",
        "execSync",
        "spawnSync",
        "execFileSync",
        "shell_exec",
        "passthru",
        "proc_open",
        "check_output",
        "check_call",
        "call",
        "run",
        "Popen",
        "getoutput",
        "getstatusoutput",
        "spawn",
        "execFile",
        "execv",
        "execvp",
        "execl",
        "execlp",
        "capture2",
        "capture3",
        "popen3",
    ];
    // Library calls that delete a tree (Python `shutil.rmtree`, Node
    // `fs.rmSync`/`rmdirSync`/`fs.promises.rm`, fs-extra `removeSync`, Ruby `FileUtils.rm_rf`/
    // `rm_r`/`remove_dir`/`remove_entry`, Perl `rmtree`/`remove_tree`, the
    // `rimraf` module): read as `rm -rf` of their first argument.
    const DELETES: &[&str] = &[
        "rmtree",
        "rm",
        "rmSync",
        "rmdirSync",
        "removeSync",
        "rimraf",
        "rimrafSync",
        "rm_rf",
        "rm_r",
        "remove_dir",
        "remove_entry",
        "remove_entry_secure",
        "remove_tree",
    ];
    let c: Vec<char> = code.chars().collect();
    let n = c.len();
    let mut out = Vec::new();
    // Read a quoted string starting at c[i] (a quote); returns its text and
    // the index after it.
    let read_str = |i: usize| -> Option<(String, usize)> {
        let q = *c.get(i)?;
        if !matches!(q, '"' | '\'' | '`') {
            return None;
        }
        // Python triple quotes.
        let triple = i + 2 < n && c[i + 1] == q && c[i + 2] == q;
        let mut j = if triple { i + 3 } else { i + 1 };
        let mut s = String::new();
        while j < n {
            if c[j] == '\\' && j + 1 < n {
                let e = c[j + 1];
                s.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
                j += 2;
                continue;
            }
            if c[j] == q && (!triple || (j + 2 < n && c[j + 1] == q && c[j + 2] == q)) {
                return Some((s, if triple { j + 3 } else { j + 1 }));
            }
            s.push(c[j]);
            j += 1;
        }
        None
    };
    let mut i = 0;
    while i < n {
        // Backquotes (Ruby, Perl, PHP) and %x{…} / qx{…}.
        if c[i] == '`' {
            if let Some((s, j)) = read_str(i) {
                out.push(s);
                i = j;
                continue;
            }
        }
        if matches!(c[i], '%' | 'q') && i + 2 < n && c[i + 1] == 'x' {
            let open = c[i + 2];
            let close = match open {
                '{' => '}',
                '(' => ')',
                '[' => ']',
                '<' => '>',
                o if !o.is_alphanumeric() && !o.is_whitespace() => o,
                _ => {
                    i += 1;
                    continue;
                }
            };
            if let Some(end) = c[i + 3..].iter().position(|&x| x == close) {
                out.push(c[i + 3..i + 3 + end].iter().collect());
                i = i + 4 + end;
                continue;
            }
        }
        if c[i].is_ascii_alphabetic() || c[i] == '_' {
            let start = i;
            while i < n && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let name: String = c[start..i].iter().collect();
            let mut j = i;
            while j < n && c[j].is_whitespace() {
                j += 1;
            }
            let deletes = DELETES.contains(&name.as_str());
            if !(deletes || CALLS.contains(&name.as_str())) || j >= n || c[j] != '(' {
                continue;
            }
            if deletes {
                // A recursive delete of a static path: `rm -rf` of it.
                let mut k = j + 1;
                while k < n && c[k].is_whitespace() {
                    k += 1;
                }
                if let Some((s, e)) = read_str(k) {
                    out.push(format!("rm -rf -- '{}'", s.replace('\'', "'\\''")));
                    i = e;
                }
                continue;
            }
            j += 1;
            while j < n && c[j].is_whitespace() {
                j += 1;
            }
            if j < n && c[j] == '[' {
                // A list of strings: an argv.
                let mut parts = Vec::new();
                let mut k = j + 1;
                while k < n && c[k] != ']' {
                    if let Some((s, e)) = read_str(k) {
                        parts.push(s);
                        k = e;
                    } else {
                        k += 1;
                    }
                }
                if !parts.is_empty() {
                    out.push(
                        parts
                            .iter()
                            .map(|p| format!("'{}'", p.replace('\'', "'\\''")))
                            .collect::<Vec<_>>()
                            .join(" "),
                    );
                }
            } else if let Some((s, e)) = read_str(j) {
                out.push(s);
                i = e;
                continue;
            }
            continue;
        }
        i += 1;
    }
    out
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
    let base = inv.base();
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
