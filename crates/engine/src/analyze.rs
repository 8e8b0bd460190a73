//! The analysis walk: every simple command wherever it occurs (SPEC §3.2),
//! wrappers unwrapped (§3.3), complex reasons (§3.4), effective working
//! directories (§5.1) and approval units (§4.3).

use crate::parse::{self, ParseFailure};
use crate::paths::{basename, resolve};
use crate::syntax::*;
use crate::verbs::{self, is_interpreter, is_shell, DOWNLOADERS, PRIVILEGE};
use crate::word::Word;

/// Nesting (substitutions, groups, `bash -c`) followed to this depth.
pub const MAX_DEPTH: usize = 8;

/// One simple command as it will run, after unwrapping.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// Position in the original command (for source ordering).
    pub start: usize,
    /// argv after unwrapping; `argv[0]` is the program word.
    pub argv: Vec<Word>,
    /// Leading assignment names (and `env NAME=…` names).
    pub env: Vec<String>,
    /// Own redirects, plus those written on a wrapper or a `bash -c`.
    pub redirects: Vec<Redirect>,
    /// Effective working directory (§5.1), `None` when unknown or absent.
    pub cwd: Option<String>,
    /// Wrappers removed, outermost first (basenames).
    pub wrappers: Vec<String>,
    /// Part of what the call must authorize. Inner commands of `xargs`,
    /// `find -exec` or a literal `eval` are only checked for hard deny.
    pub gated: bool,
    /// Inside a pipeline of two or more elements, or backgrounded.
    pub piped_or_async: bool,
    /// Reconstructed from text that did not parse (token scan).
    pub crude: bool,
}

impl Invocation {
    pub fn program(&self) -> Option<String> {
        self.argv.first().and_then(Word::literal)
    }

    /// Lowercased basename of the program.
    pub fn base(&self) -> String {
        self.program()
            .map(|p| basename(&p).to_ascii_lowercase())
            .unwrap_or_default()
    }
}

/// Everything the analysis found in one command.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub invocations: Vec<Invocation>,
    pub complex_reasons: Vec<String>,
    pub patterns: Vec<String>,
    /// The parse of the whole command, when it parsed.
    pub script: Option<Script>,
    /// A download reaches a shell or interpreter as its program.
    pub remote_code: bool,
    /// A function that calls itself through a pipe or in the background.
    pub fork_bomb: bool,
}

/// Context of the analysis that does not change while walking.
#[derive(Debug, Clone)]
pub struct Env {
    pub home: String,
}

#[derive(Debug, Clone, Default)]
struct Cwd {
    dir: Option<String>,
    /// pushd stack built by this command.
    stack: Vec<Option<String>>,
}

#[derive(Debug, Clone, Default)]
struct Ctx {
    depth: usize,
    /// Redirects inherited from a `bash -c` or wrapper.
    redirects: Vec<Redirect>,
    /// Whether units should be recorded (top level and `bash -c` strings).
    units: bool,
    piped_or_async: bool,
    /// Function names defined so far and being walked (fork bomb check).
    in_function: Option<String>,
}

struct Walker<'e> {
    env: &'e Env,
    out: Analysis,
    /// Whether the current function body calls itself through a pipe.
    self_call_piped: bool,
}

/// Analyze a shell command with the call's working directory.
pub fn analyze(command: &str, cwd: Option<&str>, env: &Env) -> Analysis {
    let mut w = Walker {
        env,
        out: Analysis::default(),
        self_call_piped: false,
    };
    let mut c = Cwd {
        dir: cwd.map(str::to_string),
        stack: Vec::new(),
    };
    match parse::parse(command, 0) {
        Ok(script) => {
            let ctx = Ctx {
                units: true,
                ..Ctx::default()
            };
            w.script(&script, &mut c, &ctx);
            w.out.script = Some(script);
        }
        Err(e) => {
            w.failed(command, &e, cwd);
        }
    }
    let mut out = w.out;
    out.invocations.sort_by_key(|i| i.start);
    if out.invocations.iter().all(|i| !i.gated) {
        out.reason("no_command");
    }
    let mut seen = std::collections::HashSet::new();
    out.patterns.retain(|p| seen.insert(p.clone()));
    out
}

impl Analysis {
    fn reason(&mut self, r: &str) {
        if !self.complex_reasons.iter().any(|x| x == r) {
            self.complex_reasons.push(r.to_string());
        }
    }

    pub fn is_complex(&self) -> bool {
        !self.complex_reasons.is_empty()
    }
}

impl<'e> Walker<'e> {
    fn reason(&mut self, r: &str) {
        self.out.reason(r);
    }

    /// Text that could not be parsed: complex, plus a conservative token
    /// scan so hard deny still sees what it can.
    fn failed(&mut self, text: &str, e: &ParseFailure, cwd: Option<&str>) {
        match e {
            ParseFailure::TooDeep => self.reason("nesting_too_deep"),
            ParseFailure::Syntax(_) => self.reason("parse_error"),
        }
        self.crude_scan(text, cwd);
    }

    fn crude_scan(&mut self, text: &str, cwd: Option<&str>) {
        let mut segment_starts_pipe = false;
        let mut prev_downloader = false;
        for (kind, seg) in crude_segments(text) {
            let words: Vec<Word> = seg
                .split_whitespace()
                .map(|t| {
                    let cleaned: String = t
                        .chars()
                        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                        .collect();
                    Word::analyze(&shell_quote(&cleaned), 0)
                })
                .collect();
            if words.is_empty() {
                continue;
            }
            let inv = Invocation {
                start: usize::MAX,
                argv: words,
                env: Vec::new(),
                redirects: Vec::new(),
                cwd: cwd.map(str::to_string),
                wrappers: Vec::new(),
                gated: false,
                piped_or_async: false,
                crude: true,
            };
            let (unwrapped, _) = unwrap_plain(&inv.argv);
            let base = unwrapped
                .first()
                .and_then(Word::literal)
                .map(|p| basename(&p).to_ascii_lowercase())
                .unwrap_or_default();
            if segment_starts_pipe && prev_downloader && (is_shell(&base) || is_interpreter(&base))
            {
                self.out.remote_code = true;
            }
            if DOWNLOADERS.contains(&base.as_str()) {
                prev_downloader = true;
            } else if kind != '|' {
                prev_downloader = false;
            }
            segment_starts_pipe = true;
            let mut inv = inv;
            inv.argv = unwrapped;
            self.out.invocations.push(inv);
        }
    }

    fn script(&mut self, s: &Script, cwd: &mut Cwd, ctx: &Ctx) {
        for item in &s.items {
            if item.background {
                let mut c = cwd.clone();
                let mut ctx2 = ctx.clone();
                ctx2.piped_or_async = true;
                self.item(item, &mut c, &ctx2);
            } else {
                self.item(item, cwd, ctx);
            }
        }
    }

    fn item(&mut self, item: &Item, cwd: &mut Cwd, ctx: &Ctx) {
        self.pipeline(&item.first, cwd, ctx);
        for (_, p) in &item.rest {
            self.pipeline(p, cwd, ctx);
        }
    }

    fn pipeline(&mut self, p: &Pipeline, cwd: &mut Cwd, ctx: &Ctx) {
        let multi = p.elems.len() > 1;
        let mut units: Vec<String> = Vec::new();
        let mut unit_ok = true;
        let mut downloader_seen = false;
        for (i, e) in p.elems.iter().enumerate() {
            let mut ctx2 = ctx.clone();
            if multi {
                ctx2.piped_or_async = true;
            }
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
                if i > 0 && downloader_seen && reads_program_from_stdin(inv) {
                    self.out.remote_code = true;
                }
            }
            // Anything this element runs, nested or not, may download
            // (`cat <(curl …) | sh`, `echo "$(curl …)" | sh`).
            if self.out.invocations[first_inv.min(self.out.invocations.len())..]
                .iter()
                .any(|inv| DOWNLOADERS.contains(&inv.base().as_str()))
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
    fn command(
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
            } => {
                self.reason(&format!("control_flow:{}", kind.keyword()));
                for w in words {
                    self.word_substs(w, cwd, ctx);
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
                self.word_substs(text, cwd, ctx);
                Vec::new()
            }
            Command::Test { words, redirects } => {
                for w in words {
                    self.word_substs(w, cwd, ctx);
                }
                self.redirect_substs(redirects, cwd, ctx);
                Vec::new()
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
    fn deeper(&mut self, ctx: &Ctx, redirects: &[Redirect], cwd: &mut Cwd) -> Option<Ctx> {
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

    fn nested_script(&mut self, s: &Script, cwd: &mut Cwd, ctx: &Ctx) -> Vec<usize> {
        let start = self.out.invocations.len();
        let mut ctx2 = ctx.clone();
        ctx2.units = false;
        self.script(s, cwd, &ctx2);
        (start..self.out.invocations.len()).collect()
    }

    /// Parse and walk command text found in a word (substitution) at a
    /// deeper level; changes of directory do not leak out.
    fn nested_text(&mut self, text: &str, base: usize, cwd: &Cwd, ctx: &Ctx) {
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
                };
                self.script(&script, &mut c, &ctx2);
            }
            Err(e) => self.failed(text, &e, cwd.dir.as_deref()),
        }
    }

    fn word_substs(&mut self, w: &Word, cwd: &Cwd, ctx: &Ctx) {
        if w.unparsed {
            self.reason("parse_error");
            self.crude_scan(&w.raw, cwd.dir.as_deref());
        }
        for s in &w.substs {
            self.nested_text(&s.text, w.start + s.offset + 1, cwd, ctx);
        }
    }

    fn redirect_substs(&mut self, redirects: &[Redirect], cwd: &Cwd, ctx: &Ctx) {
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
                    self.script(body, &mut c, &ctx2);
                }
                RedirTarget::Fd(_) => {}
            }
        }
    }

    fn simple(&mut self, s: &Simple, cwd: &mut Cwd, ctx: &Ctx, stdin_piped: bool) -> Vec<usize> {
        // Substitutions anywhere in the command run first.
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
            if ctx.depth + 1 > MAX_DEPTH {
                self.reason("nesting_too_deep");
                continue;
            }
            let first = self.out.invocations.len();
            let mut c = cwd.clone();
            let ctx2 = Ctx {
                depth: ctx.depth + 1,
                units: false,
                ..Ctx::default()
            };
            self.script(&p.body, &mut c, &ctx2);
            proc_bodies.push((p.word_index, first));
        }

        let mut env: Vec<String> = Vec::new();
        for a in &s.assignments {
            env.push(a.name.clone());
            if dangerous_env(&a.name) {
                self.reason(&format!("dangerous_env:{}", a.name));
            }
        }

        let mut redirects: Vec<Redirect> = s.redirects.clone();
        redirects.extend(ctx.redirects.iter().cloned());

        if s.words.is_empty() {
            if s.redirects.is_empty() {
                return Vec::new();
            }
            // A redirect-only command (`> f`) behaves like `:` with it.
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
            return vec![self.out.invocations.len() - 1];
        }

        // Unwrap transparent wrappers (§3.3).
        let mut argv: Vec<Word> = s.words.clone();
        let mut wrappers: Vec<String> = Vec::new();
        let mut own_cwd = cwd.dir.clone();
        while let Some(w0) = argv.first().and_then(Word::literal) {
            let base = basename(&w0).to_string();
            if base == "env" {
                if let Some(split) = env_split_string(&argv) {
                    self.reason("wrapper_option:env");
                    wrappers.push(base);
                    argv = split;
                    continue;
                }
            }
            match unwrap_one(&base, &argv) {
                Unwrap::No => break,
                Unwrap::Strip {
                    skip,
                    chdir,
                    assigns,
                    odd,
                } => {
                    if odd {
                        self.reason(&format!("wrapper_option:{base}"));
                    }
                    for a in assigns {
                        if dangerous_env(&a) {
                            self.reason(&format!("dangerous_env:{a}"));
                        }
                        env.push(a);
                    }
                    if let Some(d) = chdir {
                        match d.expanded(&self.env.home) {
                            Some(p) => own_cwd = resolve_opt(own_cwd.as_deref(), &p),
                            None => {
                                self.reason("dynamic_path");
                                own_cwd = None;
                            }
                        }
                    }
                    if skip >= argv.len() {
                        // Nothing wrapped: the wrapper is the command.
                        break;
                    }
                    wrappers.push(base);
                    argv.drain(..skip);
                }
            }
        }

        let Some(w0) = argv.first() else {
            return Vec::new();
        };
        let program = w0.literal();
        let Some(program) = program else {
            self.reason("dynamic_verb");
            return self.push(s, argv, env, redirects, own_cwd, wrappers, ctx);
        };
        if w0.glob {
            self.reason("dynamic_verb");
        }
        let base = basename(&program).to_ascii_lowercase();
        let base_exact = basename(&program).to_string();

        // Shell with a -c string: the string's commands are the commands.
        if is_shell(&base_exact) {
            match shell_c_string(&argv) {
                ShellC::Static(word, text) => {
                    if ctx.depth + 1 > MAX_DEPTH {
                        self.reason("nesting_too_deep");
                        self.crude_scan(&text, own_cwd.as_deref());
                        return Vec::new();
                    }
                    match parse::parse(&text, word.start + 1) {
                        Ok(script) => {
                            let mut c = Cwd {
                                dir: own_cwd.clone(),
                                stack: Vec::new(),
                            };
                            let ctx2 = Ctx {
                                depth: ctx.depth + 1,
                                redirects: redirects.clone(),
                                units: ctx.units,
                                piped_or_async: ctx.piped_or_async,
                                in_function: ctx.in_function.clone(),
                            };
                            let first = self.out.invocations.len();
                            self.script(&script, &mut c, &ctx2);
                            return (first..self.out.invocations.len()).collect();
                        }
                        Err(e) => {
                            self.failed(&text, &e, own_cwd.as_deref());
                            return self.push(s, argv, env, redirects, own_cwd, wrappers, ctx);
                        }
                    }
                }
                ShellC::Dynamic(word) => {
                    self.reason("dynamic_shell_string");
                    if word_has_download(self, &word) {
                        self.out.remote_code = true;
                    }
                    return self.push(s, argv, env, redirects, own_cwd, wrappers, ctx);
                }
                ShellC::None => {}
            }
        }

        // Interpreters and shells: inline code, or a program read from
        // standard input (§3.3, §4.2).
        if is_interpreter(&base) {
            if has_inline_code(&base, &argv) {
                self.reason("inline_code");
            }
            let stdin_code = redirects.iter().any(|r| {
                matches!(r.kind, RedirKind::HereDoc | RedirKind::HereString)
                    || (r.kind == RedirKind::Read
                        && !r.op.starts_with(|c: char| c.is_ascii_digit() && c != '0'))
            });
            if program_from_stdin(&base, &argv) {
                let _ = stdin_piped || stdin_code;
                self.reason("stdin_program");
                // Its program arrives through a redirect carrying a download
                // (`bash < <(curl …)`, `sh <<< "$(wget …)"`).
                for r in &redirects {
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
            if let Some(op) = program_operand_index(&base, &argv) {
                self.check_code_word(&argv, op, &proc_bodies, s);
            }
        }

        match base.as_str() {
            "eval" => {
                self.reason("eval");
                for (i, w) in argv.iter().enumerate().skip(1) {
                    if word_has_download(self, w) {
                        self.out.remote_code = true;
                    }
                    self.check_code_word(&argv, i, &proc_bodies, s);
                }
                // A literal eval string is still checked for hard deny.
                let lits: Option<Vec<String>> = argv.iter().skip(1).map(Word::literal).collect();
                if let Some(l) = lits {
                    self.ungated_text(&l.join(" "), own_cwd.as_deref(), ctx);
                }
            }
            "source" | "." => {
                self.reason("source");
                if argv.len() > 1 {
                    self.check_code_word(&argv, 1, &proc_bodies, s);
                }
            }
            "alias" | "unalias" | "shopt" | "enable" => self.reason(&base),
            "trap" => {
                self.reason("trap");
                // The handler is code: check it for hard deny when literal.
                if let Some(h) = argv.get(1).and_then(Word::literal) {
                    if !h.starts_with('-') {
                        self.ungated_text(&h, own_cwd.as_deref(), ctx);
                    }
                }
            }
            "set"
                if argv
                    .iter()
                    .skip(1)
                    .any(|w| matches!(w.literal().as_deref(), Some("-o") | Some("+o"))) =>
            {
                self.reason("set_option");
            }
            "export" | "declare" | "typeset" | "readonly" | "local" => {
                for w in argv.iter().skip(1) {
                    let v = w.lossy_value();
                    let name = v.split('=').next().unwrap_or("");
                    if v.contains('=') && dangerous_env(name) {
                        self.reason(&format!("dangerous_env:{name}"));
                    }
                }
            }
            "git" => {
                let mut i = 1;
                loop {
                    let next = verbs::git_skip_globals(&argv, i);
                    let v = argv.get(next).and_then(Word::literal).unwrap_or_default();
                    if v == "-c"
                        || v.starts_with("-c") && v.len() > 2
                        || v.starts_with("--config-env")
                    {
                        self.reason("git_config_override");
                        break;
                    }
                    if next == i {
                        break;
                    }
                    i = next;
                }
                for w in argv.iter().skip(1) {
                    let v = w.literal().unwrap_or_default();
                    if v == "--exec-path" || v.starts_with("--exec-path=") {
                        self.reason("git_config_override");
                    }
                }
                // git -C DIR applies to this command only.
                own_cwd = git_dir_override(self, &argv, own_cwd);
            }
            "xargs" | "parallel" | "watch" => {
                self.reason("indirect_execution");
                let inner = indirect_inner(&base, &argv);
                self.ungated_argv(inner, own_cwd.as_deref(), s.start);
            }
            "find" => {
                let mut i = 1;
                while i < argv.len() {
                    let v = argv[i].literal().unwrap_or_default();
                    if matches!(v.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                        self.reason("indirect_execution");
                        let mut j = i + 1;
                        while j < argv.len() {
                            let t = argv[j].literal().unwrap_or_default();
                            if t == ";" || t == "+" {
                                break;
                            }
                            j += 1;
                        }
                        self.ungated_argv(
                            argv[i + 1..j.min(argv.len())].to_vec(),
                            own_cwd.as_deref(),
                            s.start,
                        );
                        i = j;
                    }
                    i += 1;
                }
            }
            "make" | "tar" | "npm" | "pnpm" | "yarn" => {
                own_cwd = dir_flag_override(self, &base, &argv, own_cwd);
            }
            "shellgate" => {
                if !shellgate_read_only(&argv, &env) {
                    self.reason("shellgate_state_change");
                }
                // `shellgate exec [opts] -- PAYLOAD`: the payload still
                // meets hard deny.
                let lits: Vec<Option<String>> = argv.iter().map(Word::literal).collect();
                if lits.iter().any(|l| l.as_deref() == Some("exec")) {
                    if let Some(dd) = lits.iter().position(|l| l.as_deref() == Some("--")) {
                        let payload: Option<Vec<String>> = lits[dd + 1..].iter().cloned().collect();
                        if let Some(p) = payload {
                            self.ungated_text(&p.join(" "), own_cwd.as_deref(), ctx);
                        }
                    }
                }
            }
            _ => {}
        }
        if PRIVILEGE.contains(&base.as_str()) {
            // Checked by hard deny; what it wraps is not unwrapped.
        }

        // Fork bomb: a function calling itself through a pipe or `&`.
        if let Some(f) = &ctx.in_function {
            if &program == f && ctx.piped_or_async {
                self.self_call_piped = true;
            }
        }

        let idx = self.push(
            s,
            argv.clone(),
            env,
            redirects,
            own_cwd.clone(),
            wrappers,
            ctx,
        );

        // cd / pushd / popd change the directory of what follows.
        if matches!(base.as_str(), "cd" | "chdir" | "pushd" | "popd") {
            self.change_dir(&base, &argv, cwd);
        }
        idx
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        s: &Simple,
        argv: Vec<Word>,
        env: Vec<String>,
        redirects: Vec<Redirect>,
        cwd: Option<String>,
        wrappers: Vec<String>,
        ctx: &Ctx,
    ) -> Vec<usize> {
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
        });
        vec![self.out.invocations.len() - 1]
    }

    fn change_dir(&mut self, base: &str, argv: &[Word], cwd: &mut Cwd) {
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
                let new = match target {
                    None => Some(self.env.home.clone()),
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

    /// Text run as code whose commands are only checked for hard deny.
    fn ungated_text(&mut self, text: &str, cwd: Option<&str>, ctx: &Ctx) {
        if ctx.depth + 1 > MAX_DEPTH {
            return;
        }
        let first = self.out.invocations.len();
        let c = Cwd {
            dir: cwd.map(str::to_string),
            stack: Vec::new(),
        };
        let mut ctx2 = ctx.clone();
        ctx2.units = false;
        self.nested_text(text, usize::MAX / 2, &c, &ctx2);
        for inv in self.out.invocations.iter_mut().skip(first) {
            inv.gated = false;
        }
    }

    fn ungated_argv(&mut self, argv: Vec<Word>, cwd: Option<&str>, start: usize) {
        if argv.is_empty() {
            return;
        }
        let (argv, wrappers) = unwrap_plain(&argv);
        if argv.is_empty() {
            return;
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
        });
    }

    /// `bash <(curl …)`, `source <(wget …)`: a process substitution used as
    /// a program whose body downloads.
    fn check_code_word(&mut self, argv: &[Word], idx: usize, procs: &[(usize, usize)], s: &Simple) {
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

fn resolve_opt(base: Option<&str>, p: &str) -> Option<String> {
    if p.starts_with('/') {
        Some(resolve("/", p))
    } else {
        base.map(|b| resolve(b, p))
    }
}

/// Names whose assignment changes what runs (§3.4).
pub fn dangerous_env(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "BASH_ENV",
        "ENV",
        "IFS",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_EXTERNAL_DIFF",
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_EXEC_PATH",
        "GIT_ASKPASS",
        "PAGER",
        "EDITOR",
        "VISUAL",
        "NODE_OPTIONS",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PERL5OPT",
        "PERL5LIB",
        "RUBYOPT",
        "RUSTC_WRAPPER",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "LESSOPEN",
        "LESSCLOSE",
        "MANPAGER",
        "BROWSER",
        "PYTHONHOME",
        "NODE_PATH",
        "RUBYLIB",
        "CDPATH",
    ];
    EXACT.contains(&name)
        || name.starts_with("LD_")
        || name.starts_with("DYLD_")
        || name.starts_with("GIT_CONFIG")
        || name.ends_with("_COMMAND")
}

enum Unwrap {
    No,
    Strip {
        /// Words to drop from the front.
        skip: usize,
        chdir: Option<Word>,
        assigns: Vec<String>,
        /// An option the unwrapper does not know (still unwrapped).
        odd: bool,
    },
}

/// Options of a wrapper that take a separate value.
fn takes_value(base: &str, flag: &str) -> bool {
    match base {
        "timeout" => matches!(flag, "-s" | "--signal" | "-k" | "--kill-after"),
        "nice" => matches!(flag, "-n" | "--adjustment"),
        "ionice" => matches!(
            flag,
            "-c" | "--class" | "-n" | "--classdata" | "-p" | "--pid" | "-P" | "-u"
        ),
        "stdbuf" => matches!(
            flag,
            "-i" | "-o" | "-e" | "--input" | "--output" | "--error"
        ),
        "exec" => matches!(flag, "-a"),
        _ => false,
    }
}

/// Decide how one wrapper layer is removed.
fn unwrap_one(base: &str, argv: &[Word]) -> Unwrap {
    let lit = |i: usize| argv.get(i).and_then(Word::literal);
    match base {
        "command" | "builtin" | "exec" | "nohup" | "time" | "nice" | "timeout" | "stdbuf"
        | "setsid" | "ionice" => {
            let mut i = 1;
            let mut odd = false;
            while let Some(v) = lit(i) {
                if v == "--" {
                    i += 1;
                    break;
                }
                if !v.starts_with('-') || v == "-" {
                    break;
                }
                // `nice -10`, `-n10`, `--signal=KILL` carry their value.
                if takes_value(base, &v) {
                    i += 2;
                } else {
                    if base == "command" && !matches!(v.as_str(), "-p" | "-v" | "-V") {
                        odd = true;
                    }
                    i += 1;
                }
            }
            if base == "timeout" {
                // DURATION
                if lit(i).is_some() {
                    i += 1;
                } else if argv.get(i).is_some() {
                    odd = true;
                    i += 1;
                }
            }
            Unwrap::Strip {
                skip: i,
                chdir: None,
                assigns: Vec::new(),
                odd,
            }
        }
        "env" => {
            let mut i = 1;
            let mut chdir = None;
            let mut assigns = Vec::new();
            let mut odd = false;
            while let Some(w) = argv.get(i) {
                let Some(v) = w.literal() else {
                    // `env "$X"=1 cmd` or a dynamic program word.
                    if w.lossy_value().contains('=') {
                        odd = true;
                        i += 1;
                        continue;
                    }
                    break;
                };
                if v == "--" {
                    i += 1;
                    break;
                }
                if v == "-i"
                    || v == "-"
                    || v == "--ignore-environment"
                    || v == "-0"
                    || v == "--null"
                {
                    i += 1;
                } else if v == "-u" || v == "--unset" {
                    i += 2;
                } else if v.starts_with("--unset=") || (v.starts_with("-u") && v.len() > 2) {
                    i += 1;
                } else if v == "-C" || v == "--chdir" {
                    chdir = argv.get(i + 1).cloned();
                    i += 2;
                } else if let Some(d) = v.strip_prefix("--chdir=") {
                    chdir = Some(Word::analyze(d, w.start));
                    i += 1;
                } else if v.starts_with("-C") && v.len() > 2 {
                    chdir = Some(Word::analyze(&v[2..], w.start));
                    i += 1;
                } else if v.starts_with('-') {
                    // -S/--split-string and friends run a re-split string.
                    odd = true;
                    i += 1;
                } else if let Some((name, _)) = crate::pathlike::name_value(&v) {
                    assigns.push(name.to_string());
                    i += 1;
                } else {
                    break;
                }
            }
            Unwrap::Strip {
                skip: i,
                chdir,
                assigns,
                odd,
            }
        }
        _ => Unwrap::No,
    }
}

/// `env [opts] -S STRING args…` / `--split-string=STRING`: the words env
/// would run (the string split on whitespace, then the remaining args).
fn env_split_string(argv: &[Word]) -> Option<Vec<Word>> {
    for (i, w) in argv.iter().enumerate().skip(1) {
        let v = w.literal()?;
        let (text, rest_from) = if v == "-S" || v == "--split-string" {
            (argv.get(i + 1)?.literal()?, i + 2)
        } else if let Some(t) = v.strip_prefix("--split-string=") {
            (t.to_string(), i + 1)
        } else if v.starts_with("-S") && v.len() > 2 {
            (v[2..].to_string(), i + 1)
        } else if v.starts_with('-') {
            continue;
        } else {
            return None;
        };
        let mut out: Vec<Word> = text
            .split_whitespace()
            .map(|t| Word::analyze(&shell_quote(t), w.start))
            .collect();
        out.extend(argv.iter().skip(rest_from).cloned());
        return (!out.is_empty()).then_some(out);
    }
    None
}

/// Unwrap without side effects (inner commands of xargs, crude scans).
fn unwrap_plain(argv: &[Word]) -> (Vec<Word>, Vec<String>) {
    let mut v = argv.to_vec();
    let mut wrappers = Vec::new();
    for _ in 0..16 {
        let Some(w0) = v.first().and_then(Word::literal) else {
            break;
        };
        let base = basename(&w0).to_string();
        match unwrap_one(&base, &v) {
            Unwrap::Strip { skip, .. } if skip < v.len() => {
                wrappers.push(base);
                v.drain(..skip);
            }
            _ => break,
        }
    }
    (v, wrappers)
}

enum ShellC {
    None,
    Static(Word, String),
    Dynamic(Word),
}

/// `bash -c STRING` (with other single-letter flags such as `-lc`).
fn shell_c_string(argv: &[Word]) -> ShellC {
    let mut has_c = false;
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let Some(v) = w.literal() else { break };
        if v == "--" {
            i += 1;
            break;
        }
        if v.starts_with('-') && v.len() > 1 && !v.starts_with("--") {
            if v[1..].contains('c') {
                has_c = true;
            }
            // `-o opt` takes a value.
            if v == "-o" || v == "+o" {
                i += 1;
            }
            i += 1;
            continue;
        }
        if v.starts_with("--") {
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

fn word_has_download(_w: &Walker, word: &Word) -> bool {
    word.substs.iter().any(|s| match parse::parse(&s.text, 0) {
        Ok(script) => script_mentions(&script, DOWNLOADERS),
        Err(_) => DOWNLOADERS
            .iter()
            .any(|d| s.text.split_whitespace().any(|t| basename(t) == *d)),
    })
}

fn script_mentions(s: &Script, names: &[&str]) -> bool {
    let env = Env {
        home: "/".to_string(),
    };
    let mut w = Walker {
        env: &env,
        out: Analysis::default(),
        self_call_piped: false,
    };
    let mut c = Cwd::default();
    w.script(s, &mut c, &Ctx::default());
    w.out
        .invocations
        .iter()
        .any(|i| names.contains(&i.base().as_str()))
}

/// Inline code flags per interpreter (§4.2).
fn has_inline_code(base: &str, argv: &[Word]) -> bool {
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
fn program_operand_index(base: &str, argv: &[Word]) -> Option<usize> {
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

const INFO_FLAGS: &[&str] = &["--version", "-V", "--help", "-h", "-v", "-version", "-help"];

/// A shell or interpreter with no program operand (or `-`/`-s`) reads its
/// program from standard input.
fn program_from_stdin(base: &str, argv: &[Word]) -> bool {
    if argv.iter().skip(1).any(|w| {
        w.literal().is_some_and(|v| {
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
    program_operand_index(base, argv).is_none()
}

/// Whether an invocation takes its program from standard input.
fn reads_program_from_stdin(inv: &Invocation) -> bool {
    let base = inv.base();
    (is_interpreter(&base) || is_shell(&base)) && program_from_stdin(&base, &inv.argv)
}

/// The command xargs / parallel / watch would run, when literal.
fn indirect_inner(base: &str, argv: &[Word]) -> Vec<Word> {
    let mut i = 1;
    let with_value: &[&str] = match base {
        "xargs" => &[
            "-I",
            "-i",
            "-n",
            "-P",
            "-L",
            "-l",
            "-d",
            "-E",
            "-e",
            "-s",
            "-a",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--replace",
        ],
        "watch" => &["-n", "--interval", "-d", "--differences", "-q", "--equexit"],
        _ => &[
            "-j",
            "--jobs",
            "-S",
            "--sshlogin",
            "--joblog",
            "-a",
            "--arg-file",
        ],
    };
    while let Some(w) = argv.get(i) {
        let v = w.literal().unwrap_or_default();
        if v == "--" {
            i += 1;
            break;
        }
        if !v.starts_with('-') {
            break;
        }
        if with_value.contains(&v.as_str()) {
            i += 2;
        } else {
            i += 1;
        }
    }
    let mut inner: Vec<Word> = argv.iter().skip(i).cloned().collect();
    if base == "parallel" {
        if let Some(p) = inner
            .iter()
            .position(|w| w.literal().is_some_and(|v| v.starts_with(":::")))
        {
            inner.truncate(p);
        }
    }
    if base == "watch" && inner.len() == 1 {
        // watch runs its single argument through `sh -c`.
        if let Some(t) = inner[0].literal() {
            return t
                .split_whitespace()
                .map(|x| Word::analyze(&shell_quote(x), 0))
                .collect();
        }
    }
    inner
}

fn git_dir_override(w: &mut Walker, argv: &[Word], cwd: Option<String>) -> Option<String> {
    let mut out = cwd;
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let v = word.literal().unwrap_or_default();
        match v.as_str() {
            "-C" => {
                match argv.get(i + 1).and_then(|d| d.expanded(&w.env.home)) {
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
            match d.expanded(&w.env.home) {
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

/// `shellgate` subcommands an agent may run unapproved-as-complex (§9.4).
fn shellgate_read_only(argv: &[Word], env: &[String]) -> bool {
    if env.iter().any(|e| e == "SHELLGATE_HOME") {
        return false;
    }
    let words: Option<Vec<String>> = argv.iter().skip(1).map(Word::literal).collect();
    let Some(words) = words else {
        return false;
    };
    if words
        .iter()
        .any(|w| w == "--home" || w.starts_with("--home="))
    {
        return false;
    }
    let positional: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    if positional.is_empty() {
        return words
            .iter()
            .all(|w| matches!(w.as_str(), "--help" | "-h" | "--version" | "-V"));
    }
    matches!(
        (positional.first().copied(), positional.get(1).copied()),
        (Some("check"), _)
            | (Some("explain"), _)
            | (Some("approvals"), Some("list"))
            | (Some("session"), Some("show"))
            | (Some("help"), _)
    )
}

/// Quote a token for re-analysis as a literal word.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', ""))
}

/// Split unparseable text into pseudo-commands at shell operators; the kind
/// is the operator that preceded the segment.
fn crude_segments(text: &str) -> Vec<(char, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut kind = ';';
    for c in text.chars() {
        match c {
            ';' | '\n' | '&' | '(' | ')' | '`' | '{' | '}' | '\r' => {
                out.push((kind, std::mem::take(&mut cur)));
                kind = ';';
            }
            '|' => {
                out.push((kind, std::mem::take(&mut cur)));
                kind = '|';
            }
            '$' => cur.push(' '),
            _ => cur.push(c),
        }
    }
    out.push((kind, cur));
    out.retain(|(_, s)| !s.trim().is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn an(cmd: &str) -> Analysis {
        analyze(
            cmd,
            Some("/home/u/p"),
            &Env {
                home: "/home/u".into(),
            },
        )
    }

    fn programs(a: &Analysis) -> Vec<String> {
        a.invocations.iter().filter_map(|i| i.program()).collect()
    }

    #[test]
    fn finds_every_simple_command() {
        let a = an("a && b | c; $(d) `e` <(f) >(g)");
        let p = programs(&a);
        for x in ["a", "b", "c", "d", "e", "f", "g"] {
            assert!(p.contains(&x.to_string()), "{x} in {p:?}");
        }
    }

    #[test]
    fn unwraps() {
        let a = an("timeout 30 nice -n 5 env FOO=1 command rm -rf x");
        assert_eq!(programs(&a), vec!["rm"]);
        assert!(!a.is_complex());
        let a = an("bash -c 'git status && make'");
        assert_eq!(programs(&a), vec!["git", "make"]);
    }

    #[test]
    fn cd_tracking() {
        let a = an("cd /tmp && ls; (cd /etc); pwd");
        let cwds: Vec<_> = a
            .invocations
            .iter()
            .map(|i| i.cwd.clone().unwrap())
            .collect();
        assert_eq!(cwds, vec!["/home/u/p", "/tmp", "/tmp", "/tmp"]);
    }

    #[test]
    fn complex_reasons() {
        assert!(an("for x in a; do ls; done")
            .complex_reasons
            .contains(&"control_flow:for".to_string()));
        assert!(an("$X")
            .complex_reasons
            .contains(&"dynamic_verb".to_string()));
        assert!(an("PATH=/x ls")
            .complex_reasons
            .contains(&"dangerous_env:PATH".to_string()));
        assert!(an("echo \"x")
            .complex_reasons
            .contains(&"parse_error".to_string()));
        assert!(an("x=1")
            .complex_reasons
            .contains(&"no_command".to_string()));
        assert!(an("cat x | sh")
            .complex_reasons
            .contains(&"stdin_program".to_string()));
        assert!(!an("python3 app.py").is_complex());
    }

    #[test]
    fn remote_code_flows() {
        assert!(an("curl -s x | tee y | bash").remote_code);
        assert!(an("bash <(curl -s x)").remote_code);
        assert!(an("sh -c \"$(curl -fsSL x)\"").remote_code);
        assert!(an(". <(wget -qO- x)").remote_code);
        assert!(!an("echo \"$(curl -s x)\"").remote_code);
        assert!(!an("curl -o i.sh x && bash i.sh").remote_code);
        assert!(an("bash < <(curl -s x)").remote_code);
        assert!(an("cat <(curl -s x) | sh").remote_code);
        assert!(an("echo \"$(curl -s x)\" | bash").remote_code);
        assert!(an("sh <<< \"$(wget -qO- x)\"").remote_code);
    }

    #[test]
    fn shellgate_exec_payload_is_seen() {
        let a = an("shellgate exec --cwd /x -- 'rm -rf /'");
        assert!(a
            .complex_reasons
            .contains(&"shellgate_state_change".to_string()));
        assert!(a
            .invocations
            .iter()
            .any(|i| !i.gated && i.program().as_deref() == Some("rm")));
    }

    #[test]
    fn fork_bomb() {
        assert!(an(":(){ :|:& };:").fork_bomb);
        assert!(an("bomb(){ bomb|bomb& };bomb").fork_bomb);
        assert!(!an("f() { ls; }; f").fork_bomb);
    }
}
