//! The walk itself: every simple command wherever it occurs (SPEC §3.2) —
//! lists, pipelines, groups, subshells, control bodies, functions,
//! substitutions, process substitutions — in source order, with the
//! approval units of the top level (§4.3).

use super::cwd::Cwd;
use super::inline::{reads_program_from_stdin, ShellCWalk};
use super::unwrap::unwrap_plain;
use super::REMOTE_SSH;
use super::{Analysis, Env, Invocation, Reading, MAX_DEPTH};
use crate::parse;
use crate::paths::basename;
use crate::syntax::*;
use crate::verbs::{self, is_interpreter, is_shell, DOWNLOADERS};
use crate::word::Word;

/// How the walk got where it is.
#[derive(Debug, Clone, Default)]
pub(super) struct Ctx {
    pub(super) depth: usize,
    /// Redirects inherited from a `bash -c` or wrapper.
    pub(super) redirects: Vec<Redirect>,
    /// Whether units should be recorded (top level and `bash -c` strings).
    pub(super) units: bool,
    pub(super) piped_or_async: bool,
    /// Function names defined so far and being walked (fork bomb check).
    pub(super) in_function: Option<String>,
    /// The words a literal `echo`/`printf` writes into this pipeline
    /// element's standard input (what `xargs` would read, §15.19).
    pub(super) stdin_words: Option<Vec<String>>,
    /// The text a literal `echo`/`printf` writes into this pipeline
    /// element's standard input, exactly (what `xargs` reads, §8.1a).
    pub(super) stdin_text: Option<String>,
    /// Walking the inside of a command or process substitution.
    pub(super) in_subst: bool,
    /// The shell reading this text does no brace expansion (`sh -c`, which
    /// is dash here; `bash +B -c`): a brace word stays as written, and
    /// unknown (rt12z Z2).
    pub(super) no_brace: bool,
}

/// The walk's state: what it found so far.
pub(super) struct Walker<'e> {
    pub(super) env: &'e Env,
    pub(super) out: Analysis,
    /// Whether the current function body calls itself through a pipe.
    pub(super) self_call_piped: bool,
    /// The directory commands may run in instead of the tracked one,
    /// because a `cd` before them may have failed (`Some(None)`: not
    /// known). Given to every invocation pushed while set.
    pub(super) alt_cwd: Option<Option<String>>,
    /// The shell's directory for the simple command being pushed: an
    /// invocation whose own directory differs (`git -C ..`, `make -C d`,
    /// `env -C d`) was placed from it, so its other directory is unknown.
    pub(super) shell_dir: Option<String>,
}

impl<'e> Walker<'e> {
    pub(super) fn new(env: &'e Env) -> Walker<'e> {
        Walker {
            env,
            out: Analysis::default(),
            self_call_piped: false,
            alt_cwd: None,
            shell_dir: None,
        }
    }

    pub(super) fn reason(&mut self, r: &str) {
        self.out.reason(r);
    }

    pub(super) fn script(&mut self, s: &Script, cwd: &mut Cwd, ctx: &Ctx) {
        let saved_alt = self.alt_cwd.clone();
        for item in &s.items {
            let before = cwd.dir.clone();
            let changed_before = std::mem::take(&mut cwd.changed);
            if item.background {
                self.out.background = true;
                let mut c = cwd.clone();
                let mut ctx2 = ctx.clone();
                ctx2.piped_or_async = true;
                self.item(item, &mut c, &ctx2);
            } else {
                self.item(item, cwd, ctx);
            }
            // A directory change may fail (a directory that does not
            // exist, rt14 F3: `cd nonexist/deep; cat ../../x` read the
            // home's file): what follows `;` runs where the tracking says
            // (SPEC §5.1, cand-026) or where the list started. Both are
            // judged: the later commands carry the other directory.
            if cwd.changed {
                self.alt_cwd = Some(match &self.alt_cwd {
                    None => before,
                    Some(_) => None,
                });
            }
            cwd.changed = changed_before || cwd.changed;
        }
        // A subshell's or a substitution's own directory changes end with
        // it; a group's carry on (its cwd is the caller's).
        if !cwd.changed {
            self.alt_cwd = saved_alt;
        }
    }

    pub(super) fn item(&mut self, item: &Item, cwd: &mut Cwd, ctx: &Ctx) {
        // After `&&` the list goes on only where a `cd` succeeded; the
        // branch after `||` may run where it failed.
        let saved_alt = self.alt_cwd.clone();
        let before = cwd.dir.clone();
        self.pipeline(&item.first, cwd, ctx);
        let mut or_alt = false;
        for (op, p) in &item.rest {
            if *op == AndOr::Or && cwd.changed && !or_alt {
                or_alt = true;
                self.alt_cwd = Some(match &self.alt_cwd {
                    None => before.clone(),
                    Some(_) => None,
                });
            }
            self.pipeline(p, cwd, ctx);
        }
        if or_alt {
            self.alt_cwd = saved_alt;
        }
    }

    pub(super) fn pipeline(&mut self, p: &Pipeline, cwd: &mut Cwd, ctx: &Ctx) {
        let multi = p.elems.len() > 1;
        let mut units: Vec<String> = Vec::new();
        let mut unit_ok = true;
        let mut downloader_seen = false;
        for (i, e) in p.elems.iter().enumerate() {
            let mut ctx2 = ctx.clone();
            if multi {
                ctx2.piped_or_async = true;
            }
            ctx2.stdin_words = if i > 0 {
                literal_output(&p.elems[i - 1].cmd)
            } else {
                None
            };
            ctx2.stdin_text = if i > 0 {
                super::xargs::literal_stdout(&p.elems[i - 1].cmd, &self.env.home)
            } else {
                None
            };
            let before = self.out.patterns.len();
            let first_inv = self.out.invocations.len();
            let tops = if multi {
                let mut c = cwd.clone();
                self.command(&e.cmd, &mut c, &ctx2, i > 0)
            } else {
                self.command(&e.cmd, cwd, &ctx2, false)
            };
            // Units of this element (recorded by `command` at the end of
            // the patterns list) are folded into the pipeline's unit.
            let elem_units: Vec<String> = self.out.patterns.drain(before..).collect();
            if elem_units.len() == 1 {
                units.push(elem_units.into_iter().next().unwrap_or_default());
            } else if !elem_units.is_empty() {
                self.out.patterns.extend(elem_units);
            } else {
                unit_ok = false;
            }
            // A download reaching a shell or interpreter's program, at any
            // distance down the pipeline.
            for idx in &tops {
                let Some(inv) = self.out.invocations.get(*idx) else {
                    continue;
                };
                if i > 0
                    && downloader_seen
                    && (reads_program_from_stdin(inv) || super::inline::executes_input(inv))
                {
                    self.out.remote_code = true;
                }
            }
            // A download reaching a program read from stdin further down:
            // an output process substitution (`tee >(sh)`), or `xargs sh -c`
            // building its command line from the download.
            if i > 0 && downloader_seen {
                let output_subst =
                    matches!(&e.cmd, Command::Simple(s) if s.proc_substs.iter().any(|p| p.output));
                let made = &self.out.invocations[first_inv.min(self.out.invocations.len())..];
                if output_subst && made.iter().any(reads_program_from_stdin) {
                    self.out.remote_code = true;
                }
                // `xargs sh -c`, `parallel` with no command (it runs its
                // input lines), a runner's shell reading stdin (`busybox sh`).
                let feeds_shell = made.iter().any(|inv| {
                    let b = inv.run_base();
                    (matches!(b.as_str(), "xargs" | "parallel")
                        && (made.iter().any(|x| {
                            !x.gated && (is_shell(&x.run_base()) || is_interpreter(&x.run_base()))
                        }) || (b == "parallel" && inv.argv.len() == 1)))
                        || (!inv.gated
                            && inv
                                .wrappers
                                .first()
                                .is_some_and(|w| w.starts_with("runner:"))
                            && reads_program_from_stdin(inv))
                });
                // A loop or group that runs what it reads (`while read l; do
                // eval "$l"; done`, `{ read c; $c; }`, rt28a).
                let runs_read = made.iter().any(|inv| {
                    inv.run_base() == "eval"
                        || inv.argv.first().is_some_and(|w| w.literal().is_none())
                });
                if feeds_shell || runs_read {
                    self.out.remote_code = true;
                }
            }
            // Anything this element runs, nested or not, may download
            // (`cat <(curl …) | sh`, `echo "$(curl …)" | sh`).
            if self.out.invocations[first_inv.min(self.out.invocations.len())..]
                .iter()
                .any(|inv| DOWNLOADERS.contains(&inv.run_base().as_str()))
            {
                downloader_seen = true;
            }
        }
        if ctx.units && unit_ok && !units.is_empty() {
            self.out.patterns.push(units.join(" | "));
        }
    }

    /// Walk one command; returns the indices of the invocations it created
    /// at its own level (not nested in substitutions).
    pub(super) fn command(
        &mut self,
        cmd: &Command,
        cwd: &mut Cwd,
        ctx: &Ctx,
        stdin_piped: bool,
    ) -> Vec<usize> {
        match cmd {
            Command::Simple(s) => self.simple(s, cwd, ctx, stdin_piped),
            Command::Subshell { body, redirects } => {
                let Some(ctx2) = self.deeper(ctx, redirects, cwd) else {
                    return Vec::new();
                };
                let mut c = cwd.clone();
                self.nested_script(body, &mut c, &ctx2)
            }
            Command::Group { body, redirects } => {
                let Some(ctx2) = self.deeper(ctx, redirects, cwd) else {
                    return Vec::new();
                };
                self.nested_script(body, cwd, &ctx2)
            }
            Command::Control {
                kind,
                words,
                bodies,
                redirects,
                var,
            } => {
                self.reason(&format!("control_flow:{}", kind.keyword()));
                for w in words {
                    self.word_substs(w, cwd, ctx);
                }
                // `for d in / ~`: the body sees each word's value (known
                // when every word is; a glob stands for its matches).
                if let Some(name) = var {
                    let values: Option<Vec<(String, bool)>> = words
                        .iter()
                        .map(|w| {
                            if !w.substs.is_empty() {
                                return None;
                            }
                            super::evaluate::known_value(w, cwd, &self.env.home)
                                .map(|v| (v, w.glob))
                        })
                        .collect();
                    cwd.vars.assign(name, None);
                    if let Some(v) = values.filter(|v| !v.is_empty() && v.len() <= 16) {
                        cwd.vars.set_known(name, v);
                    }
                }
                let Some(mut ctx2) = self.deeper(ctx, redirects, cwd) else {
                    return Vec::new();
                };
                ctx2.units = false;
                let mut tops = Vec::new();
                for b in bodies {
                    tops.extend(self.nested_script(b, cwd, &ctx2));
                }
                tops
            }
            Command::Arith { text } => {
                self.out.statement_values.push(text.raw.clone());
                // bash reads `( (` with a blank as two subshells where the
                // parser may read arithmetic (rt28a: `( ( rm -rf / ) )`):
                // hard deny scans its text as commands too.
                let scan = text.raw.clone();
                self.crude_scan(&scan, cwd.dir.as_deref());
                self.word_substs(text, cwd, ctx);
                self.check_poison(cwd);
                self.check_evals(text, cwd);
                self.builtin_invocation("((", text.start, Vec::new(), cwd, ctx)
            }
            Command::Test {
                words,
                arith,
                names,
                redirects,
            } => {
                self.out
                    .statement_values
                    .extend(words.iter().map(|w| w.raw.clone()));
                for w in words {
                    self.word_substs(w, cwd, ctx);
                }
                self.redirect_substs(redirects, cwd, ctx);
                self.check_poison(cwd);
                for w in words {
                    self.check_evals(w, cwd);
                }
                self.check_test(arith, names, cwd);
                let start = words.first().map_or(0, |w| w.start);
                self.builtin_invocation("[[", start, redirects.clone(), cwd, ctx)
            }
            Command::Function { name, body } => {
                self.reason("function_definition");
                let mut ctx2 = ctx.clone();
                ctx2.units = false;
                ctx2.in_function = Some(name.clone());
                ctx2.piped_or_async = false;
                let saved = self.self_call_piped;
                self.self_call_piped = false;
                let mut c = cwd.clone();
                self.command(body, &mut c, &ctx2, false);
                if self.self_call_piped {
                    self.out.fork_bomb = true;
                }
                self.self_call_piped = saved;
                Vec::new()
            }
            Command::Coproc { body } => {
                self.reason("coproc");
                let mut ctx2 = ctx.clone();
                ctx2.units = false;
                let mut c = cwd.clone();
                self.command(body, &mut c, &ctx2, false)
            }
        }
    }

    /// A nested level (group, subshell, control body): depth and redirects.
    pub(super) fn deeper(
        &mut self,
        ctx: &Ctx,
        redirects: &[Redirect],
        cwd: &mut Cwd,
    ) -> Option<Ctx> {
        self.redirect_substs(redirects, cwd, ctx);
        if ctx.depth + 1 > MAX_DEPTH {
            self.reason("nesting_too_deep");
            return None;
        }
        let mut ctx2 = ctx.clone();
        ctx2.depth += 1;
        ctx2.redirects.extend(redirects.iter().cloned());
        Some(ctx2)
    }

    pub(super) fn nested_script(&mut self, s: &Script, cwd: &mut Cwd, ctx: &Ctx) -> Vec<usize> {
        let start = self.out.invocations.len();
        let mut ctx2 = ctx.clone();
        ctx2.units = false;
        self.script(s, cwd, &ctx2);
        (start..self.out.invocations.len()).collect()
    }

    /// Parse and walk command text found in a word (substitution) at a
    /// deeper level; changes of directory do not leak out.
    pub(super) fn nested_text(&mut self, text: &str, base: usize, cwd: &Cwd, ctx: &Ctx) {
        if ctx.depth + 1 > MAX_DEPTH {
            self.reason("nesting_too_deep");
            self.crude_scan(text, cwd.dir.as_deref());
            return;
        }
        match parse::parse(text, base) {
            Ok(script) => {
                let mut c = cwd.clone();
                let ctx2 = Ctx {
                    depth: ctx.depth + 1,
                    redirects: Vec::new(),
                    units: false,
                    piped_or_async: false,
                    in_function: ctx.in_function.clone(),
                    stdin_words: None,
                    stdin_text: None,
                    in_subst: true,
                    no_brace: ctx.no_brace,
                };
                self.script(&script, &mut c, &ctx2);
            }
            Err(e) => self.failed(text, &e, cwd.dir.as_deref()),
        }
    }

    pub(super) fn word_substs(&mut self, w: &Word, cwd: &Cwd, ctx: &Ctx) {
        if w.unparsed {
            self.reason("parse_error");
            self.crude_scan(&w.raw, cwd.dir.as_deref());
        }
        for s in &w.substs {
            self.nested_text(&s.text, w.start + s.offset + 1, cwd, ctx);
        }
    }

    pub(super) fn redirect_substs(&mut self, redirects: &[Redirect], cwd: &Cwd, ctx: &Ctx) {
        for r in redirects {
            match &r.target {
                RedirTarget::File(w) | RedirTarget::HereString(w) => self.word_substs(w, cwd, ctx),
                RedirTarget::HereDoc { body, expands } => {
                    if *expands {
                        self.word_substs(body, cwd, ctx);
                    }
                }
                RedirTarget::ProcSubst { body, .. } => {
                    if ctx.depth + 1 > MAX_DEPTH {
                        self.reason("nesting_too_deep");
                        continue;
                    }
                    let mut c = cwd.clone();
                    let mut ctx2 = ctx.clone();
                    ctx2.depth += 1;
                    ctx2.redirects.clear();
                    ctx2.units = false;
                    ctx2.in_subst = true;
                    self.script(body, &mut c, &ctx2);
                }
                RedirTarget::Fd(_) => {}
            }
        }
    }

    fn simple(&mut self, s: &Simple, cwd: &mut Cwd, ctx: &Ctx, stdin_piped: bool) -> Vec<usize> {
        cwd.vars.take_last_arg();
        // Substitutions anywhere in the command run first.
        let proc_bodies = self.simple_substs(s, cwd, ctx);
        // What an earlier statement of the list set, and what bash
        // evaluates again in this command's words (§15.13, §15.20).
        self.check_poison(cwd);
        for w in s
            .words
            .iter()
            .chain(s.assignments.iter().flat_map(|a| a.values.iter()))
        {
            self.check_evals(w, cwd);
        }
        for r in &s.redirects {
            if let RedirTarget::File(w) | RedirTarget::HereString(w) = &r.target {
                self.check_evals(w, cwd);
            }
        }
        if s.words.is_empty() {
            self.statement_assignments(s, cwd);
        }
        let mut env = self.assignments(s);
        env.extend(cwd.vars.set.iter().cloned());

        let mut redirects: Vec<Redirect> = s.redirects.clone();
        redirects.extend(ctx.redirects.iter().cloned());

        if s.words.is_empty() {
            return self.redirect_only(s, env, redirects, cwd, ctx);
        }
        // `echo a b | xargs cat`: the command lines xargs builds are the
        // commands (§8.1a), when they are known exactly.
        if let Some(tops) = self.literal_xargs(s, cwd, ctx) {
            return tops;
        }

        // Unwrap transparent wrappers (§3.3).
        let (argv, wrappers, own_cwd) = self.unwrap_wrappers(
            home_program(s.words.clone(), &self.env.home),
            &mut env,
            cwd.dir.clone(),
        );

        // `cat src/{main,lib}.rs`: the words bash makes of a brace
        // expansion after the program word are written words (the program
        // word itself stays dynamic, §3.4).
        let argv =
            if !ctx.no_brace && argv.iter().skip(1).any(|w| w.brace) && s.proc_substs.is_empty() {
                expand_braces(argv)
            } else {
                argv
            };

        // `cat "$PWD/src/a.rs"`, `ls $PWD/src`: the working directory
        // the analysis tracks is the value bash gives `$PWD` (§8.1a).
        // Not where a `cd` before may have failed: `$PWD` is then one of
        // two directories (rt14 F3).
        let argv = if self.alt_cwd.is_none() && argv.iter().skip(1).any(|w| !w.params.is_empty()) {
            working_dir_words(argv, cwd, &self.env.home)
        } else {
            argv
        };

        // Names the call gave known values (`H=$HOME; rm -rf "$H"`, `for d
        // in / ~`, `"$PWD/../.."`): the command lines they make are checked
        // for hard deny (§15.13); the command itself stays what it is.
        let is_eval = argv.first().and_then(Word::literal).as_deref() == Some("eval");
        for alt in self.evaluated(&argv, cwd) {
            // `c='rm -rf ~'; eval "$c"` (rt28b): eval joins its words and
            // reads them again as a command line.
            if is_eval {
                let home = self.env.home.clone();
                let words: Option<Vec<String>> =
                    alt.iter().skip(1).map(|w| w.expanded(&home)).collect();
                if let Some(words) = words {
                    self.ungated_text(&words.join(" "), own_cwd.as_deref(), ctx);
                }
            }
            self.ungated_argv(alt, own_cwd.as_deref(), s.start);
        }

        let Some(w0) = argv.first() else {
            return Vec::new();
        };
        let program = w0.literal();
        let Some(program) = program else {
            self.reason("dynamic_verb");
            // `$SHELL -c 'rm -rf /'`: whatever the shell, its literal
            // string meets hard deny as `bash -c`'s does (the call stays
            // complex).
            if super::inline::shell_variable(w0) {
                if let super::inline::ShellC::Static(_, text) = super::inline::shell_c_string(&argv)
                {
                    self.ungated_text(&text, own_cwd.as_deref(), ctx);
                }
            }
            return self.push(s, argv, env, redirects, own_cwd, wrappers, ctx);
        };
        if w0.glob {
            self.reason("dynamic_verb");
        }
        let base = basename(&program).to_ascii_lowercase();
        let base_exact = basename(&program).to_string();
        self.check_builtin(&base_exact, &argv, cwd);
        // `cmd {NAME}<file` opens a descriptor and stores its number in
        // NAME; on a builtin the assignment stays for the rest of the list
        // (`echo {PATH}</dev/null; ls` runs `./11/ls`). Read as a statement
        // assignment whatever the command.
        if !s.redirects.is_empty() {
            for w in &s.words {
                self.redirect_name_word(w, cwd);
            }
        }
        // The environment it runs with (also a shell's `-c` string: its
        // commands inherit it).
        let reading = Reading::of(&argv, &self.env.home);
        self.env_reasons(s, &env, &program, reading.as_ref());

        // Shell with a -c string: the string's commands are the commands.
        if is_shell(&base_exact) {
            if !crate::paths::is_system_program(&program) {
                // `./tools/sh -c ls`: a file named like a shell, not one.
                self.reason(&format!("shell_path:{base}"));
            }
            match self.shell_c(&argv, &redirects, own_cwd.as_deref(), ctx) {
                ShellCWalk::Walked(tops) => return tops,
                ShellCWalk::Opaque => {
                    return self.push(s, argv, env, redirects, own_cwd, wrappers, ctx);
                }
                ShellCWalk::NotC => {}
            }
        }

        // Interpreters and shells: inline code, or a program read from
        // standard input (§3.3, §4.2).
        // `python.exe`, `node.exe` are the interpreters (shells named so
        // are read by hard deny's own reading of their `-c`).
        let ibase = verbs::strip_exe(&base).to_string();
        let exe_shell = ibase != base && is_shell(&ibase);
        if (is_interpreter(&ibase) || verbs::runs_inline_code(&ibase)) && !exe_shell {
            self.interpreter(
                &ibase,
                &argv,
                &redirects,
                &proc_bodies,
                s,
                stdin_piped,
                own_cwd.as_deref(),
                ctx,
            );
        }

        // Programs that run command strings or a shell program from standard
        // input no grant can see (rt12 sweep S10): `at`/`batch` (a job read
        // from standard input or -f, run later outside any gate, unless
        // only listing, printing or removing jobs), `newgrp` (a shell
        // reading standard input), `sg GROUP -c CMD`, `hyperfine CMD…`.
        // Complex; their literal command strings meet hard deny.
        if let Some(strings) = command_runner(&base, &argv) {
            self.reason(&format!("command_runner:{base}"));
            for text in strings {
                self.ungated_text(&text, own_cwd.as_deref(), ctx);
            }
        }

        // `ssh HOST CMD…`: the remote shell runs CMD. It meets hard deny
        // as a `bash -c` string does (another machine's `/` is as dear).
        if base == "ssh" {
            if let Some(text) = super::inline::ssh_remote_command(&argv) {
                let first = self.out.invocations.len();
                // Only hard deny reads it: what makes it complex here (a
                // loop, a pipe into a shell) or a download run there is
                // that machine's business, as before.
                let (reasons, remote_code, background) = (
                    self.out.complex_reasons.len(),
                    self.out.remote_code,
                    self.out.background,
                );
                self.ungated_text(&text, None, ctx);
                self.out.complex_reasons.truncate(reasons);
                self.out.remote_code = remote_code;
                self.out.background = background;
                for inv in self.out.invocations.iter_mut().skip(first) {
                    inv.wrappers.insert(0, REMOTE_SSH.to_string());
                }
            }
        }

        self.verb_reasons(&base, &argv, &env, own_cwd.as_deref(), &proc_bodies, s, ctx);
        // What the program model reads in the argv; git -C DIR, make -C
        // DIR …: the directory of this command only.
        let (own_cwd, uncovered) = match &reading {
            Some(reading) => {
                let own_cwd = self.model_chdir(reading, &argv, own_cwd);
                let unc = self.model_reasons(
                    reading,
                    &argv,
                    &s.redirects,
                    own_cwd.as_deref(),
                    s.start,
                    ctx,
                );
                (own_cwd, unc)
            }
            None => {
                let own_cwd = self.dir_overrides(&base, &argv, own_cwd);
                self.unknown_runner(&base, &argv, own_cwd.as_deref(), s.start);
                (own_cwd, Vec::new())
            }
        };

        // Fork bomb: a function calling itself through a pipe or `&`.
        if let Some(f) = &ctx.in_function {
            if &program == f && ctx.piped_or_async {
                self.self_call_piped = true;
            }
        }

        // cd / pushd / popd change the directory of what follows (read
        // from the argv, which is otherwise moved into the invocation).
        let changes_dir = matches!(base.as_str(), "cd" | "chdir" | "pushd" | "popd");
        let kept = changes_dir.then(|| argv.clone());
        self.shell_dir = cwd.dir.clone();
        let idx = self.push_read(
            s, argv, env, redirects, own_cwd, wrappers, ctx, reading, uncovered,
        );
        if let Some(argv) = kept {
            self.change_dir(&base, &argv, cwd);
        }
        idx
    }

    /// `xargs` given literal input (a literal `echo`/`printf` piped in, a
    /// here-string): each command line it builds is walked as a simple
    /// command of its own, with the redirects that are not its input, in a
    /// copy of the working directory (a `cd` or assignment xargs runs does
    /// not reach the shell). `None`: not known exactly (the call is judged
    /// as before: `indirect_execution`).
    fn literal_xargs(&mut self, s: &Simple, cwd: &Cwd, ctx: &Ctx) -> Option<Vec<usize>> {
        let w0 = s.words.first()?.literal()?;
        if basename(&w0) != "xargs" || !crate::paths::is_system_program(&w0) {
            return None;
        }
        if !s.proc_substs.is_empty() || s.words.iter().any(|w| !w.substs.is_empty()) {
            return None;
        }
        let input = match super::xargs::redirected_input(&s.redirects) {
            Some(Some(text)) => text,
            Some(None) => return None,
            None => ctx.stdin_text.clone()?,
        };
        // bash expands braces before xargs sees its words (rt12z Z3: `-I RR
        // cat {R,}R` is `cat RR`); a brace word left is not read.
        let words = if s.words.iter().any(|w| w.brace) {
            if ctx.no_brace {
                return None;
            }
            let w = expand_braces(s.words.clone());
            if w.iter().any(|w| w.brace) {
                return None;
            }
            w
        } else {
            s.words.clone()
        };
        let lines = super::xargs::lines(&words, &input)?;
        let kept: Vec<Redirect> = s
            .redirects
            .iter()
            .filter(|r| {
                !matches!(
                    r.kind,
                    RedirKind::Read | RedirKind::HereDoc | RedirKind::HereString
                ) || r.op.starts_with(|c: char| c.is_ascii_digit() && c != '0')
            })
            .cloned()
            .collect();
        let mut ctx2 = ctx.clone();
        ctx2.stdin_words = None;
        ctx2.stdin_text = None;
        let mut tops = Vec::new();
        for words in lines {
            let line = Simple {
                start: s.start,
                assignments: s.assignments.clone(),
                words,
                proc_substs: Vec::new(),
                redirects: kept.clone(),
            };
            let first = self.out.invocations.len();
            let mut c = cwd.clone();
            tops.extend(self.simple(&line, &mut c, &ctx2, false));
            for inv in &mut self.out.invocations[first..] {
                inv.wrappers.insert(0, "xargs".to_string());
            }
        }
        Some(tops)
    }

    /// Walk the substitutions of a simple command (they run first);
    /// returns, per process-substitution word, the index of the first
    /// invocation its body produced.
    fn simple_substs(&mut self, s: &Simple, cwd: &Cwd, ctx: &Ctx) -> Vec<(usize, usize)> {
        for a in &s.assignments {
            if let Some(i) = &a.index {
                self.word_substs(i, cwd, ctx);
            }
            for v in &a.values {
                self.word_substs(v, cwd, ctx);
            }
        }
        for w in &s.words {
            self.word_substs(w, cwd, ctx);
        }
        self.redirect_substs(&s.redirects, cwd, ctx);
        let mut proc_bodies: Vec<(usize, usize)> = Vec::new(); // word index → first inv index
        for p in &s.proc_substs {
            if p.glued {
                self.reason("proc_subst_glued");
            }
            if ctx.depth + 1 > MAX_DEPTH {
                self.reason("nesting_too_deep");
                continue;
            }
            let first = self.out.invocations.len();
            let mut c = cwd.clone();
            let ctx2 = Ctx {
                depth: ctx.depth + 1,
                units: false,
                in_subst: true,
                no_brace: ctx.no_brace,
                ..Ctx::default()
            };
            self.script(&p.body, &mut c, &ctx2);
            proc_bodies.push((p.word_index, first));
        }
        proc_bodies
    }

    /// `[[ … ]]` and `(( … ))`: a builtin that runs nothing (its words were
    /// walked and checked); gated as its own candidate, a pure side effect
    /// unless it redirects (§4.4).
    fn builtin_invocation(
        &mut self,
        name: &str,
        start: usize,
        redirects: Vec<Redirect>,
        cwd: &Cwd,
        ctx: &Ctx,
    ) -> Vec<usize> {
        let mut r = redirects;
        r.extend(ctx.redirects.iter().cloned());
        self.out.invocations.push(Invocation {
            start,
            argv: vec![Word::static_text(name, start, false)],
            env: Vec::new(),
            redirects: r,
            cwd: cwd.dir.clone(),
            wrappers: Vec::new(),
            gated: true,
            piped_or_async: ctx.piped_or_async,
            crude: false,
            reading: None,
            uncovered: Vec::new(),
            in_substitution: ctx.in_subst,
            assigns: Vec::new(),
            alt_cwd: self.alt_cwd.clone(),
        });
        if ctx.units {
            self.out.patterns.push(name.to_string());
        }
        vec![self.out.invocations.len() - 1]
    }

    /// A redirect-only command (`> f`) behaves like `:` with it.
    fn redirect_only(
        &mut self,
        s: &Simple,
        env: Vec<String>,
        redirects: Vec<Redirect>,
        cwd: &Cwd,
        ctx: &Ctx,
    ) -> Vec<usize> {
        if s.redirects.is_empty() {
            return Vec::new();
        }
        let inv = Invocation {
            start: s.start,
            argv: vec![Word::analyze(":", s.start)],
            env,
            redirects,
            cwd: cwd.dir.clone(),
            wrappers: Vec::new(),
            gated: true,
            piped_or_async: ctx.piped_or_async,
            crude: false,
            reading: None,
            uncovered: Vec::new(),
            in_substitution: ctx.in_subst,
            assigns: Vec::new(),
            alt_cwd: self.alt_cwd.clone(),
        };
        self.out.invocations.push(inv);
        if ctx.units {
            if let Some(u) = verbs::unit(
                &self.out.invocations[self.out.invocations.len() - 1].argv,
                &s.redirects,
            ) {
                self.out.patterns.push(u);
            }
        }
        vec![self.out.invocations.len() - 1]
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        s: &Simple,
        argv: Vec<Word>,
        env: Vec<String>,
        redirects: Vec<Redirect>,
        cwd: Option<String>,
        wrappers: Vec<String>,
        ctx: &Ctx,
    ) -> Vec<usize> {
        let reading = Reading::of(&argv, &self.env.home);
        self.push_read(
            s,
            argv,
            env,
            redirects,
            cwd,
            wrappers,
            ctx,
            reading,
            Vec::new(),
        )
    }

    /// Record a gated simple command with the model's reading of it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_read(
        &mut self,
        s: &Simple,
        argv: Vec<Word>,
        env: Vec<String>,
        redirects: Vec<Redirect>,
        cwd: Option<String>,
        wrappers: Vec<String>,
        ctx: &Ctx,
        reading: Option<Reading>,
        uncovered: Vec<String>,
    ) -> Vec<usize> {
        // Placed by its own directory option from a shell directory that
        // may be another (`cd x; git -C .. log`): that other place is not
        // known.
        let alt_cwd = match &self.alt_cwd {
            Some(_) if cwd != self.shell_dir => Some(None),
            other => other.clone(),
        };
        if ctx.units {
            if let Some(u) = verbs::unit(&argv, &s.redirects) {
                self.out.patterns.push(u);
            }
        }
        self.out.invocations.push(Invocation {
            start: s.start,
            argv,
            env,
            redirects,
            cwd,
            wrappers,
            gated: true,
            piped_or_async: ctx.piped_or_async,
            crude: false,
            reading,
            uncovered,
            in_substitution: ctx.in_subst,
            assigns: s
                .assignments
                .iter()
                .filter_map(|a| a.values.first().map(|v| (a.name.clone(), v.clone())))
                .collect(),
            alt_cwd,
        });
        vec![self.out.invocations.len() - 1]
    }

    /// The argvs a command runs with the values the call gave the names
    /// in it (at most 32; none when a piece stays unknown).
    fn evaluated(&self, argv: &[Word], cwd: &Cwd) -> Vec<Vec<Word>> {
        if argv.iter().all(|w| w.params.is_empty()) {
            return Vec::new();
        }
        let mut alts: Vec<Vec<Word>> = vec![Vec::new()];
        for w in argv {
            let options = if w.params.is_empty() {
                vec![vec![w.clone()]]
            } else {
                match evaluate_word(w, cwd, &self.env.home) {
                    Some(o) => o,
                    None => return Vec::new(),
                }
            };
            let mut next = Vec::new();
            for a in &alts {
                for o in &options {
                    let mut x = a.clone();
                    x.extend(o.iter().cloned());
                    next.push(x);
                }
            }
            if next.len() > 32 {
                return Vec::new();
            }
            alts = next;
        }
        alts
    }

    /// Text run as code whose commands are only checked for hard deny.
    pub(super) fn ungated_text(&mut self, text: &str, cwd: Option<&str>, ctx: &Ctx) {
        if ctx.depth + 1 > MAX_DEPTH {
            return;
        }
        let first = self.out.invocations.len();
        let c = Cwd {
            dir: cwd.map(str::to_string),
            stack: Vec::new(),
            vars: Default::default(),
            changed: false,
        };
        let mut ctx2 = ctx.clone();
        ctx2.units = false;
        self.nested_text(text, usize::MAX / 2, &c, &ctx2);
        for inv in self.out.invocations.iter_mut().skip(first) {
            inv.gated = false;
        }
    }

    pub(super) fn ungated_argv(&mut self, argv: Vec<Word>, cwd: Option<&str>, start: usize) {
        if argv.is_empty() {
            return;
        }
        let (argv, wrappers) = unwrap_plain(&argv);
        if argv.is_empty() {
            return;
        }
        // A shell given a literal `-c` string: its commands meet hard deny
        // too (`find . -exec sh -c 'rm -rf ~' ;`, `cross-env X=1 sh -c …`).
        let is_sh = argv
            .first()
            .and_then(Word::literal)
            .is_some_and(|p| is_shell(basename(&p)));
        if is_sh {
            if let super::inline::ShellC::Static(_, text) = super::inline::shell_c_string(&argv) {
                self.ungated_text(&text, cwd, &Ctx::default());
            }
        }
        // An interpreter's literal inline code (`uv run python -c …`,
        // `npx node -e …`, `xargs perl -e …`): checked as at the top level.
        if let Some(b) = argv.first().and_then(Word::literal) {
            let b = verbs::strip_exe(&basename(&b).to_ascii_lowercase()).to_string();
            let code_runner = (is_interpreter(&b) && !is_shell(&b)) || verbs::runs_inline_code(&b);
            if code_runner && super::inline::has_inline_code(&b, &argv) {
                self.inline_code(&b, &argv, cwd, &Ctx::default());
            }
        }
        let reading = Reading::of(&argv, &self.env.home);
        // A program the model does not know that runs its arguments
        // (`uv run setpriv bash -c 'rm -rf /'`, `bundle exec foreman run rm
        // -rf /`): the suffix from a program hard deny concerns, or a
        // shell, meets hard deny too, as at the top level (rt10 F5).
        if reading.is_none() && !is_sh {
            if let Some(i) = argv.iter().enumerate().skip(1).find_map(|(i, w)| {
                let b = basename(&w.literal()?).to_ascii_lowercase();
                (super::model::concerns_hard_deny(&b)
                    || is_shell(&b)
                    || shellgate_programs::lookup(&b).is_some())
                .then_some(i)
            }) {
                self.ungated_argv(argv[i..].to_vec(), cwd, start);
            }
        }
        // Program text that hands strings to a shell (`awk
        // 'BEGIN{system("…")}'` on a runner's command line): checked for
        // hard deny, as for a gated call.
        if let Some(r) = &reading {
            let texts: Vec<String> = r
                .operands()
                .iter()
                .filter(|op| op.role == shellgate_programs::Role::Code)
                .filter_map(|op| r.text(op.at).map(str::to_string))
                .collect();
            for t in texts {
                for cmd in super::code::shell_strings(&t) {
                    self.ungated_text(&cmd, cwd, &Ctx::default());
                }
            }
        }
        self.out.invocations.push(Invocation {
            start: start.saturating_add(1),
            argv,
            env: Vec::new(),
            redirects: Vec::new(),
            cwd: cwd.map(str::to_string),
            wrappers,
            gated: false,
            piped_or_async: false,
            crude: false,
            reading,
            uncovered: Vec::new(),
            in_substitution: true,
            assigns: Vec::new(),
            alt_cwd: None,
        });
    }
}

/// The words one word becomes with the values its parameters may have
/// (each alternative: the words after splitting, none for an unquoted empty
/// value); `None` when a piece is unknown or its splitting is not simple
/// (an unquoted value with blanks).
fn evaluate_word(w: &Word, cwd: &Cwd, home: &str) -> Option<Vec<Vec<Word>>> {
    use crate::word::Seg;
    if w.brace || w.unparsed || w.proc_subst || !w.evals.is_empty() {
        return None;
    }
    // A word that is one unquoted parameter (`$T`): its value is split
    // into words at blanks, each globbed.
    let others_empty = w.segs.iter().all(|s| {
        matches!(s, Seg::Dynamic) || matches!(s, Seg::Lit { text, .. } if text.is_empty())
    });
    if let ([p], true) = (w.params.as_slice(), others_empty) {
        let dynamic = w.segs.iter().filter(|s| matches!(s, Seg::Dynamic)).count();
        if !p.quoted && dynamic == 1 {
            let vals = super::evaluate::param_values_of(p, cwd, home);
            if vals.is_empty() {
                return None;
            }
            return Some(
                vals.iter()
                    .map(|(v, _)| {
                        v.split_whitespace()
                            .map(|f| {
                                let mut x = Word::static_text(f, w.start, true);
                                x.raw = w.raw.clone();
                                x
                            })
                            .collect()
                    })
                    .collect(),
            );
        }
    }
    // Each dynamic piece's values, in order.
    let mut choices: Vec<Vec<(String, bool, bool)>> = Vec::new();
    for (i, s) in w.segs.iter().enumerate() {
        if !matches!(s, Seg::Dynamic) {
            continue;
        }
        let p = w.params.iter().find(|p| p.seg == i)?;
        let vals = super::evaluate::param_values_of(p, cwd, home);
        if vals.is_empty() {
            return None;
        }
        let mut c = Vec::new();
        for (v, glob) in vals {
            if !p.quoted && v.contains(char::is_whitespace) {
                return None;
            }
            // Bash globs an unquoted value; a for-list glob stands for
            // its matches.
            c.push((v, p.quoted && !glob, !p.quoted));
        }
        choices.push(c);
    }
    let mut combos: Vec<Vec<usize>> = vec![Vec::new()];
    for c in &choices {
        let mut next = Vec::new();
        for combo in &combos {
            for k in 0..c.len() {
                let mut x = combo.clone();
                x.push(k);
                next.push(x);
            }
        }
        if next.len() > 16 {
            return None;
        }
        combos = next;
    }
    let mut out = Vec::new();
    for combo in combos {
        let mut segs: Vec<(String, bool)> = Vec::new();
        let mut d = 0;
        let mut only_unquoted_empty = true;
        for s in &w.segs {
            match s {
                Seg::Lit { text, quoted } => {
                    if !text.is_empty() || *quoted {
                        only_unquoted_empty = false;
                    }
                    segs.push((text.clone(), *quoted));
                }
                Seg::Home => {
                    only_unquoted_empty = false;
                    segs.push((home.to_string(), true));
                }
                Seg::Dynamic => {
                    let (v, quoted, unquoted) = &choices[d][combo[d]];
                    if !v.is_empty() || !unquoted {
                        only_unquoted_empty = false;
                    }
                    segs.push((v.clone(), *quoted));
                    d += 1;
                }
            }
        }
        if only_unquoted_empty {
            out.push(Vec::new());
            continue;
        }
        let glob = segs.iter().any(|(t, q)| !q && t.contains(['*', '?', '[']));
        let word = Word {
            raw: w.raw.clone(),
            start: w.start,
            segs: segs
                .into_iter()
                .map(|(text, quoted)| Seg::Lit { text, quoted })
                .collect(),
            substs: Vec::new(),
            quoted: w.quoted,
            glob,
            brace: false,
            unparsed: false,
            proc_subst: false,
            evals: Vec::new(),
            params: Vec::new(),
        };
        out.push(vec![word]);
    }
    Some(out)
}

/// The words a literal `echo`/`printf` writes (for `xargs` fed by it).
pub(super) fn literal_output(cmd: &Command) -> Option<Vec<String>> {
    let Command::Simple(s) = cmd else {
        return None;
    };
    let lits: Option<Vec<String>> = s.words.iter().map(Word::literal).collect();
    let lits = lits?;
    let (prog, args) = lits.split_first()?;
    let out: Vec<String> = match basename(prog) {
        "echo" => args
            .iter()
            .skip_while(|a| matches!(a.as_str(), "-n" | "-e" | "-E" | "-ne" | "-en"))
            .cloned()
            .collect(),
        "printf" => {
            let (fmt, rest) = args.split_first()?;
            if rest.is_empty() {
                vec![fmt.replace("\\n", "\n")]
            } else {
                rest.to_vec()
            }
        }
        _ => return None,
    };
    Some(
        out.iter()
            .flat_map(|a| a.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect(),
    )
}

/// For a program that runs command strings or a job from standard input:
/// the literal strings it runs (`Some`, possibly empty); `None` for any
/// other program, or for the query forms of `at`.
fn command_runner(base: &str, argv: &[Word]) -> Option<Vec<String>> {
    let lit = |w: &Word| w.literal();
    match base {
        "at" | "batch" => {
            let query = argv.iter().skip(1).any(|w| {
                w.lit().is_some_and(|v| {
                    v.starts_with('-')
                        && !v.starts_with("--")
                        && v[1..]
                            .chars()
                            .any(|c| matches!(c, 'l' | 'r' | 'd' | 'c' | 'V'))
                })
            });
            (!query || base == "batch").then(Vec::new)
        }
        "newgrp" => Some(Vec::new()),
        // `sg GROUP -c CMD` or `sg GROUP CMD`: the command string. (ast-grep
        // is installed as `sg` too: `sg run`, `sg scan`, `sg --pattern …`.)
        "sg" if argv.get(1).and_then(lit).is_some_and(|g| {
            !g.starts_with('-')
                && !matches!(
                    g.as_str(),
                    "run" | "scan" | "test" | "new" | "lsp" | "completions" | "help"
                )
        }) =>
        {
            Some(match argv.get(2).and_then(lit).as_deref() {
                Some("-c") => argv.get(3).and_then(lit).into_iter().collect(),
                Some(_) => argv
                    .get(2..)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(lit)
                    .collect(),
                None => Vec::new(),
            })
        }
        // Every operand and the --setup/--prepare/--cleanup/--conclude
        // values are commands hyperfine hands to a shell.
        "hyperfine" => Some(
            argv.iter()
                .skip(1)
                .filter_map(lit)
                .filter(|v| !v.starts_with('-'))
                .collect(),
        ),
        _ => None,
    }
}

/// `argv` with each operand whose only dynamic pieces are `$PWD` or
/// `${PWD}` replaced by its value, when the analysis knows the working
/// directory and the call itself neither set nor unset `PWD` or `IFS`;
/// the value must make exactly one word with no glob (an unquoted value
/// with blanks or glob characters stays dynamic). The program word stays
/// as written (`$PWD/tool` runs a file of the project: a dynamic verb).
/// `$(pwd)` stays dynamic: SPEC §3.4 names `cat $(pwd)/f` complex (it
/// runs a command, `cx-016`).
fn working_dir_words(argv: Vec<Word>, cwd: &Cwd, home: &str) -> Vec<Word> {
    if cwd.dir.is_none() || cwd.vars.set_by_call("PWD") || cwd.vars.set_by_call("IFS") {
        return argv;
    }
    let pwd_only = |w: &Word| {
        let dynamic = w
            .segs
            .iter()
            .filter(|s| matches!(s, crate::word::Seg::Dynamic))
            .count();
        !w.params.is_empty()
            && w.substs.is_empty()
            && dynamic == w.params.len()
            && w.params.iter().all(|p| p.name == "PWD")
    };
    argv.into_iter()
        .enumerate()
        .map(|(i, w)| {
            if i == 0 || !pwd_only(&w) {
                return w;
            }
            match evaluate_word(&w, cwd, home).as_deref() {
                Some([one]) if one.len() == 1 && !one[0].glob => one[0].clone(),
                _ => w,
            }
        })
        .collect()
}

/// `argv` with each brace word after the first replaced by the words bash
/// expands it to, where [`crate::brace::expand`] reads it (others stay).
fn expand_braces(argv: Vec<Word>) -> Vec<Word> {
    let mut out = Vec::with_capacity(argv.len() + 4);
    for (i, w) in argv.into_iter().enumerate() {
        if i == 0 || !w.brace || !w.substs.is_empty() || w.unparsed || w.proc_subst {
            out.push(w);
            continue;
        }
        match crate::brace::expand(&w.raw) {
            // bash drops the words that expand to nothing (`{,}`, `{a,,b}`:
            // rt12z Z1, every later word moved by one).
            Some(words) => {
                out.extend(
                    words
                        .iter()
                        .filter(|t| !t.is_empty())
                        .map(|t| Word::static_text(t, w.start, true)),
                );
            }
            None => out.push(w),
        }
    }
    out
}

/// A program word anchored at the home and otherwise static
/// (`~/go/bin/goimports`, `$HOME/.local/bin/uv`) names one file, as an
/// operand written so does: it is read as that absolute path (the verb a
/// grant names, the basename the rules look up) instead of as a dynamic
/// verb. The source text stays for display. `~user`, other parameters,
/// substitutions, globs and braces stay dynamic; so does any word when the
/// home is not an absolute path.
fn home_program(mut words: Vec<Word>, home: &str) -> Vec<Word> {
    let Some(w0) = words.first_mut() else {
        return words;
    };
    let anchored = matches!(w0.segs.first(), Some(crate::word::Seg::Home));
    if !anchored
        || w0.is_literal()
        || w0.glob
        || !w0.substs.is_empty()
        || !w0.evals.is_empty()
        || !home.starts_with('/')
    {
        return words;
    }
    if let Some(path) = w0.expanded(home) {
        let raw = std::mem::take(&mut w0.raw);
        let mut w = Word::static_text(&path, w0.start, false);
        w.raw = raw;
        *w0 = w;
    }
    words
}
