//! Complex reasons (SPEC §3.4) that depend on the verb: code evaluated
//! from text (`eval`, `source`, `trap`), shell state (`alias`, `set -o`),
//! dangerous environment assignments, git configuration overrides,
//! indirect execution (`xargs`, `find -exec`) and shellgate's own state.

use super::crude::shell_quote;
use super::inline::word_has_download;
use super::walk::{Ctx, Walker};
use crate::syntax::Simple;
use crate::verbs;
use crate::word::Word;

impl Walker<'_> {
    /// Names assigned before the command (`NAME=value cmd`); a dangerous
    /// one is a complex reason.
    pub(super) fn assignments(&mut self, s: &Simple) -> Vec<String> {
        s.assignments.iter().map(|a| a.name.clone()).collect()
    }

    /// The environment a command runs with (SPEC §15.4, §15.14): a
    /// code-selecting name makes the call complex (unless its value names
    /// only a system location or inert options); an inert name changes
    /// nothing; any other name is covered only for programs whose grant
    /// already lets project code run (build, test, install, project
    /// scripts), and makes the call complex for every other program.
    pub(super) fn env_reasons(
        &mut self,
        s: &Simple,
        env: &[String],
        program: &str,
        reading: Option<&super::Reading>,
    ) {
        use super::envkind::{classify, excused_by_value, EnvKind};
        use shellgate_programs::Kind;
        // Builtins that only print or test run no program that reads the
        // environment.
        if crate::verbs::is_side_effect(program) || crate::verbs::pure_builtin(&s.words, false) {
            for name in env {
                if classify(name, &self.env.inert) == EnvKind::CodeSelecting {
                    self.reason(&format!("dangerous_env:{name}"));
                }
            }
            return;
        }
        let runs_project_code = program.contains('/')
            || reading.is_some_and(|r| {
                matches!(r.parsed.leaf().kind, Kind::Build | Kind::Installer)
                    || matches!(r.program().root.kind, Kind::Build)
            });
        for name in env {
            match classify(name, &self.env.inert) {
                EnvKind::Inert => {}
                EnvKind::CodeSelecting => {
                    let value = s
                        .assignments
                        .iter()
                        .rev()
                        .find(|a| &a.name == name)
                        .and_then(|a| match a.values.as_slice() {
                            [w] => w.literal(),
                            _ => None,
                        });
                    if !value.is_some_and(|v| excused_by_value(name, &v)) {
                        self.reason(&format!("dangerous_env:{name}"));
                    }
                }
                EnvKind::Other => {
                    if !runs_project_code {
                        self.reason(&format!("env_for_program:{name}"));
                    }
                }
            }
        }
    }

    /// Reasons and inner commands that depend on the (unwrapped) verb.
    /// Inner commands of `eval`, `trap`, `xargs`, `find -exec` and
    /// `shellgate exec` are walked ungated (hard deny only).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn verb_reasons(
        &mut self,
        base: &str,
        argv: &[Word],
        env: &[String],
        own_cwd: Option<&str>,
        proc_bodies: &[(usize, usize)],
        s: &Simple,
        ctx: &Ctx,
    ) {
        // Variables whose value is a command the program runs through a
        // shell (`GIT_SSH_COMMAND='rm -rf ~' git fetch`, rt24 C8): checked
        // for hard deny like `bash -c` (they are code-selecting: complex).
        const COMMAND_VARS: &[&str] = &[
            "GIT_SSH_COMMAND",
            "GIT_SSH",
            "GIT_PAGER",
            "GIT_EXTERNAL_DIFF",
            "GIT_EDITOR",
            "GIT_SEQUENCE_EDITOR",
            "GIT_ASKPASS",
            "GIT_PROXY_COMMAND",
            "SSH_ASKPASS",
            "PAGER",
            "MANPAGER",
            "EDITOR",
            "VISUAL",
            "LESSOPEN",
            "BROWSER",
        ];
        // `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager
        // GIT_CONFIG_VALUE_0=CMD`: the pair is a `-c` setting (rt24 C8).
        let value_of = |name: &str| {
            s.assignments
                .iter()
                .rev()
                .find(|a| a.name == name)
                .and_then(|a| match a.values.as_slice() {
                    [w] => w.literal(),
                    _ => None,
                })
        };
        for a in &s.assignments {
            if let Some(n) = a.name.strip_prefix("GIT_CONFIG_KEY_") {
                if let (Some(k), Some(v)) = (
                    value_of(&a.name),
                    value_of(&format!("GIT_CONFIG_VALUE_{n}")),
                ) {
                    if let Some(cmd) = git_config_command(&format!("{k}={v}")) {
                        self.ungated_text(&cmd, own_cwd, ctx);
                    }
                }
            }
        }
        // git's `ext::CMD` transport runs CMD (`%` escapes a space).
        if base == "git" {
            for w in argv.iter().skip(1) {
                if let Some(cmd) = w.literal().as_deref().and_then(|v| v.strip_prefix("ext::")) {
                    // Words split at spaces; `% ` is a space inside one.
                    let mut words = vec![String::new()];
                    let mut chars = cmd.chars().peekable();
                    while let Some(c) = chars.next() {
                        match c {
                            '%' if matches!(chars.peek(), Some(' ' | '%')) => words
                                .last_mut()
                                .into_iter()
                                .for_each(|w| w.extend(chars.next())),
                            ' ' => words.push(String::new()),
                            c => words.last_mut().into_iter().for_each(|w| w.push(c)),
                        }
                    }
                    words.retain(|w| !w.is_empty());
                    self.ungated_text(&super::crude::shell_line(&words), own_cwd, ctx);
                }
            }
        }
        for a in &s.assignments {
            if !COMMAND_VARS.contains(&a.name.as_str()) {
                continue;
            }
            if let [w] = a.values.as_slice() {
                if let Some(v) = w.expanded(&self.env.home) {
                    let v = v.trim_start_matches('|').to_string();
                    self.ungated_text(&v, own_cwd, ctx);
                }
            }
        }
        // An editor told to run code (`vim -c '!CMD'`, `emacs --eval`): a
        // grant for the editor never covers it (§15.15).
        if let Some(texts) = super::inline::editor_code(base, argv) {
            self.reason("inline_code");
            let home = self.env.home.clone();
            let from_stdin = super::inline::stdin_texts(&s.redirects, &home)
                .iter()
                .flat_map(|t| super::inline::editor_stdin_commands(base, t))
                .collect::<Vec<_>>();
            for t in texts.into_iter().chain(from_stdin) {
                self.ungated_text(&t, own_cwd, ctx);
            }
        }
        match base {
            "eval" => {
                self.reason("eval");
                for (i, w) in argv.iter().enumerate().skip(1) {
                    if word_has_download(self, w) {
                        self.out.remote_code = true;
                    }
                    self.check_code_word(argv, i, proc_bodies, s);
                }
                // A literal eval string is still checked for hard deny.
                // Its words are expanded before eval joins and re-reads them
                // (rt22 F5: `eval rm -rf ~`).
                let home = self.env.home.clone();
                let lits: Option<Vec<String>> =
                    argv.iter().skip(1).map(|w| w.expanded(&home)).collect();
                if let Some(l) = lits {
                    self.ungated_text(&l.join(" "), own_cwd, ctx);
                }
            }
            "source" | "." => {
                self.reason("source");
                if argv.len() > 1 {
                    self.check_code_word(argv, 1, proc_bodies, s);
                }
                // `source /dev/stdin <<< "$(curl …)"`: downloaded code.
                let from_stdin = argv
                    .get(1)
                    .and_then(Word::literal)
                    .is_some_and(|v| super::inline::is_stdin_path(&v));
                if from_stdin {
                    for r in &s.redirects {
                        let downloads = match &r.target {
                            crate::syntax::RedirTarget::HereString(w) => word_has_download(self, w),
                            crate::syntax::RedirTarget::HereDoc {
                                body,
                                expands: true,
                            } => word_has_download(self, body),
                            crate::syntax::RedirTarget::ProcSubst { body, .. } => {
                                super::inline::script_mentions(body, crate::verbs::DOWNLOADERS)
                            }
                            _ => false,
                        };
                        if downloads {
                            self.out.remote_code = true;
                        }
                    }
                }
            }
            "alias" | "unalias" | "shopt" | "enable" => self.reason(base),
            "trap" => {
                self.reason("trap");
                // The handler is code: check it for hard deny when literal.
                if let Some(h) = argv.get(1).and_then(Word::literal) {
                    if !h.starts_with('-') {
                        self.ungated_text(&h, own_cwd, ctx);
                    }
                }
            }
            "set" if !set_options_known(argv) => self.reason("set_option"),
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
                    let next = verbs::git_skip_globals(argv, i);
                    let v = argv.get(next).and_then(Word::literal).unwrap_or_default();
                    // `-c NAME=VALUE` of a display setting (`core.quotepath=off`,
                    // `color.ui=never`) changes how output looks, nothing
                    // that runs: the scan goes on after it.
                    let setting = if v == "-c" {
                        argv.get(next + 1).and_then(Word::literal).map(|t| (t, 2))
                    } else {
                        v.strip_prefix("-c")
                            .filter(|t| !t.is_empty())
                            .map(|t| (t.to_string(), 1))
                    };
                    if let Some((t, width)) = &setting {
                        if shellgate_programs::checks::run("gitconfig", t).is_ok() {
                            i = next + width;
                            continue;
                        }
                    }
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
                // Every `-c NAME=VALUE` before the subcommand whose setting
                // runs a command: that command is checked for hard deny like
                // `bash -c` (§15.15; rt22 F3 `git -c core.fsmonitor='rm -rf
                // ~' status`, rt24 C7 the same after a harmless `-c`).
                let mut j = 1;
                while let Some(v) = argv.get(j).and_then(Word::literal) {
                    if !v.starts_with('-') || v == "--" {
                        break;
                    }
                    let (setting, width) = if v == "-c" {
                        (argv.get(j + 1).and_then(Word::literal), 2)
                    } else if let Some(t) = v.strip_prefix("-c").filter(|t| !t.is_empty()) {
                        (Some(t.to_string()), 1)
                    } else if matches!(
                        v.as_str(),
                        "-C" | "--git-dir"
                            | "--work-tree"
                            | "--namespace"
                            | "--config-env"
                            | "--super-prefix"
                    ) {
                        (None, 2)
                    } else {
                        (None, 1)
                    };
                    if let Some(cmd) = setting.as_deref().and_then(git_config_command) {
                        self.ungated_text(&cmd, own_cwd, ctx);
                    }
                    j += width;
                }
                // `git config KEY VALUE` of a key that runs a program, loads
                // more configuration or redirects git (§15.5; rt28c F1: a
                // grant of `git config` covered `Core.FSMonitor ./evil.sh`).
                let sub = verbs::git_skip_globals(argv, 1);
                if argv.get(sub).and_then(Word::literal).as_deref() == Some("config") {
                    if let Some(why) = git_config_sets_code(&argv[sub + 1..]) {
                        self.reason(&format!("git_config_code:{why}"));
                        if let Some(cmd) = git_config_command(&why) {
                            self.ungated_text(&cmd, own_cwd, ctx);
                        }
                    }
                }
            }
            "xargs" | "parallel" | "watch" => {
                self.reason("indirect_execution");
                let inner = indirect_inner(base, argv);
                // The command lines built from literal input are checked
                // like written ones (§15.19): `echo / | xargs rm -rf`,
                // `parallel rm -rf ::: /`, `xargs rm -rf <<< /`.
                let mut inputs: Vec<String> = ctx.stdin_words.clone().unwrap_or_default();
                // `xargs -a <(echo /) rm -rf`: the argument file is a literal
                // echo's output.
                if base == "xargs" {
                    inputs.extend(arg_file_words(argv, s));
                }
                for r in &s.redirects {
                    if let crate::syntax::RedirTarget::HereString(w) = &r.target {
                        // bash expands `~` and `$HOME` in a here-string
                        // (rt22 F5: `xargs rm -rf <<< ~`).
                        if let Some(v) = w.expanded(&self.env.home) {
                            inputs.extend(v.split_whitespace().map(str::to_string));
                        }
                    }
                }
                if base == "parallel" {
                    let lits: Vec<String> = argv
                        .iter()
                        .map(|w| w.literal().unwrap_or_default())
                        .collect();
                    if let Some(k) = lits.iter().position(|v| v == ":::" || v == "::::") {
                        inputs.extend(
                            lits[k + 1..]
                                .iter()
                                .filter(|v| !v.starts_with(":::"))
                                .cloned(),
                        );
                    }
                }
                let inner: Vec<Word> = inner
                    .into_iter()
                    .take_while(|w| !w.lit().is_some_and(|v| v.starts_with(":::")))
                    .collect();
                if base == "parallel" {
                    self.parallel_lines(argv, &inner, s, own_cwd, ctx);
                }
                if !inputs.is_empty() && !inner.is_empty() {
                    let replace = ["{}", "%"];
                    let mut lines: Vec<Vec<Word>> = Vec::new();
                    for input in &inputs {
                        let mut line: Vec<Word> = Vec::new();
                        let mut replaced = false;
                        for w in &inner {
                            match w.literal() {
                                Some(v) if replace.iter().any(|r| v.contains(r)) => {
                                    let nv = replace.iter().fold(v, |acc, r| acc.replace(r, input));
                                    line.push(Word::static_text(&nv, w.start, false));
                                    replaced = true;
                                }
                                _ => line.push(w.clone()),
                            }
                        }
                        if !replaced {
                            line.push(Word::static_text(input, s.start, false));
                        }
                        lines.push(line);
                    }
                    let mut all = inner.clone();
                    all.extend(inputs.iter().map(|v| Word::static_text(v, s.start, false)));
                    lines.push(all);
                    for l in lines {
                        self.ungated_argv(l, own_cwd, s.start);
                    }
                }
                self.ungated_argv(inner, own_cwd, s.start);
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
                            own_cwd,
                            s.start,
                        );
                        i = j;
                    }
                    i += 1;
                }
            }
            "shellgate" => {
                if !shellgate_read_only(argv, env) {
                    self.reason("shellgate_state_change");
                }
                // `shellgate exec [opts] -- PAYLOAD`: the payload still
                // meets hard deny.
                let lits: Vec<Option<String>> = argv.iter().map(Word::literal).collect();
                if lits.iter().any(|l| l.as_deref() == Some("exec")) {
                    if let Some(dd) = lits.iter().position(|l| l.as_deref() == Some("--")) {
                        let payload: Option<Vec<String>> = lits[dd + 1..].iter().cloned().collect();
                        if let Some(p) = payload {
                            self.ungated_text(&p.join(" "), own_cwd, ctx);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The command a `git -c NAME=VALUE` setting runs, when NAME is one git
/// runs through a shell: hooks into the work tree and transports
/// (`core.fsmonitor`, `core.sshCommand`), pagers and editors, diff and
/// merge drivers, filters, signing programs, and aliases and credential
/// helpers spelled `!CMD`.
pub(super) fn git_config_command(setting: &str) -> Option<String> {
    let (name, value) = setting.split_once('=')?;
    let name = name.to_ascii_lowercase();
    let parts: Vec<&str> = name.split('.').collect();
    let (first, last) = (parts.first().copied()?, parts.last().copied()?);
    let runs = matches!(
        name.as_str(),
        "core.fsmonitor"
            | "core.pager"
            | "core.sshcommand"
            | "core.editor"
            | "core.askpass"
            | "core.gitproxy"
            | "sequence.editor"
            | "diff.external"
            | "gpg.program"
            | "uploadpack.packobjectshook"
            | "interactive.difffilter"
    ) || first == "pager"
        || (parts.len() == 3
            && matches!(
                (first, last),
                ("diff", "command" | "textconv")
                    | ("filter", "clean" | "smudge" | "process")
                    | ("merge", "driver")
                    | ("gpg", "program")
                    | ("remote", "uploadpack" | "receivepack")
                    | ("difftool" | "mergetool", "cmd")
            ));
    if runs {
        return Some(value.to_string());
    }
    let helper = first == "alias" || (first == "credential" && last == "helper");
    value
        .strip_prefix('!')
        .filter(|_| helper)
        .map(str::to_string)
}

/// What `git config ARGS` sets when it may set a code-bearing key
/// ([`git_config_key_runs`]): `KEY=VALUE` of the key, or the reason it
/// cannot be told (`--rename-section`, `--edit`, a dynamic word, the new
/// `set` form with options the reading does not follow). `None` for reads
/// and for plain keys.
fn git_config_sets_code(args: &[Word]) -> Option<String> {
    // A word known only at run time (`~/h`, `$X`) stands as itself; a
    // dynamic key of a setter cannot be told.
    const DYNAMIC: &str = "\u{0}";
    let words: Vec<String> = args
        .iter()
        .map(|w| w.literal().unwrap_or_else(|| DYNAMIC.to_string()))
        .collect();
    // Options with a value as the next word.
    const WITH_VALUE: &[&str] = &[
        "-f",
        "--file",
        "--blob",
        "-t",
        "--type",
        "--default",
        "--comment",
        "--value",
    ];
    let mut operands: Vec<&str> = Vec::new();
    let mut setter = false;
    let mut i = 0;
    let mut done = false;
    // `git config set KEY VALUE` (git 2.46): the verb form.
    if matches!(words.first().map(String::as_str), Some("set")) {
        setter = true;
        i = 1;
    }
    while i < words.len() {
        let v = words[i].as_str();
        if !done && v == "--" {
            done = true;
        } else if !done && v.starts_with('-') && v.len() > 1 {
            let name = v.split('=').next().unwrap_or(v);
            match name {
                "--add" | "--replace-all" | "--append" | "--all" => setter = true,
                "--rename-section" | "--remove-section" | "-e" | "--edit" => {
                    return Some(format!("{name}="));
                }
                _ => {}
            }
            if WITH_VALUE.contains(&v) {
                i += 1;
            }
        } else {
            operands.push(v);
        }
        i += 1;
    }
    let key = *operands.first()?;
    if operands.len() < 2 && !setter {
        return None; // `git config KEY`: a read
    }
    if key.contains(DYNAMIC) {
        return Some("dynamic key=".to_string());
    }
    let value = operands.get(1).copied().unwrap_or("");
    git_config_key_runs(key, value).then(|| format!("{key}={value}").replace(DYNAMIC, "…"))
}

/// Whether setting `key` to `value` makes later git commands run a program,
/// read configuration from elsewhere, write elsewhere or talk to another
/// host (§15.5, §15.15; git keys are case-insensitive but for the
/// subsection).
pub(super) fn git_config_key_runs(key: &str, value: &str) -> bool {
    if git_config_command(&format!("{key}={value}")).is_some() {
        return true;
    }
    let k = key.to_ascii_lowercase();
    let parts: Vec<&str> = k.split('.').collect();
    let (first, last) = (
        parts.first().copied().unwrap_or(""),
        parts.last().copied().unwrap_or(""),
    );
    matches!(
        k.as_str(),
        "core.hookspath"
            | "core.alternaterefscommand"
            | "core.worktree"
            | "core.attributesfile"
            | "init.templatedir"
            | "include.path"
            | "gpg.ssh.defaultkeycommand"
            | "sendemail.smtpserver"
            | "safe.directory"
            | "protocol.allow"
    ) || first == "alias"
        || first == "includeif"
        || (first == "credential" && last == "helper")
        || (first == "sendemail" && last.ends_with("cmd"))
        || (first == "trace2" && last.ends_with("target"))
        || (first == "url" && matches!(last, "insteadof" | "pushinsteadof"))
        || (first == "gpg" && last == "program")
        || (first == "remote"
            && matches!(
                last,
                "url" | "pushurl" | "proxy" | "uploadpack" | "receivepack" | "vcs"
            ))
        || (first == "http"
            && matches!(last, "proxy" | "sslverify" | "sslcainfo" | "curloptresolve"))
        || (first == "submodule" && matches!(last, "update" | "url"))
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

/// The command xargs / parallel / watch would run, when literal.
impl Walker<'_> {
    /// GNU `parallel` hands each command line it builds to a shell: the
    /// command words joined, `{}` replaced by an argument, quoted (or the
    /// argument appended), or with no command the argument itself (`parallel :::
    /// 'rm -rf /'`). Built from literal arguments (`:::`, or the lines of a
    /// literal input), each line is parsed and meets hard deny (§15.19); the
    /// call stays complex.
    fn parallel_lines(
        &mut self,
        argv: &[Word],
        inner: &[Word],
        s: &Simple,
        own_cwd: Option<&str>,
        ctx: &Ctx,
    ) {
        const MOST: usize = 64;
        let lits: Vec<Option<String>> = argv.iter().map(|w| w.expanded(&self.env.home)).collect();
        let mut args: Vec<String> = Vec::new();
        if let Some(k) = lits.iter().position(|v| v.as_deref() == Some(":::")) {
            args.extend(
                lits[k + 1..]
                    .iter()
                    .flatten()
                    .filter(|v| !v.starts_with(":::"))
                    .cloned(),
            );
        } else if let Some(text) = &ctx.stdin_text {
            args.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_string));
        } else {
            for r in &s.redirects {
                if let crate::syntax::RedirTarget::HereString(w) = &r.target {
                    if let Some(v) = w.expanded(&self.env.home) {
                        args.extend(v.lines().map(str::to_string));
                    }
                }
            }
        }
        let Some(cmd) = inner
            .iter()
            .map(|w| w.expanded(&self.env.home))
            .collect::<Option<Vec<String>>>()
        else {
            return;
        };
        let cmd = cmd.join(" ");
        for a in args.iter().take(MOST) {
            let line = if cmd.is_empty() {
                a.clone()
            } else if cmd.contains("{}") {
                // parallel quotes what it puts in (`bash -c {}` gets the
                // line as one word)
                cmd.replace("{}", &shell_quote(a))
            } else {
                format!("{cmd} {}", shell_quote(a))
            };
            self.ungated_text(&line, own_cwd, ctx);
        }
    }
}

/// The words of `xargs -a FILE` / `--arg-file=FILE` when FILE is an input
/// process substitution holding one literal `echo`/`printf`.
fn arg_file_words(argv: &[Word], s: &Simple) -> Vec<String> {
    let mut out = Vec::new();
    for (k, w) in argv.iter().enumerate() {
        let value = match w.lit().as_deref() {
            Some("-a" | "--arg-file") => argv.get(k + 1),
            _ => None,
        };
        let Some(v) = value.filter(|v| v.proc_subst) else {
            continue;
        };
        let Some(p) = s.proc_substs.iter().find(|p| {
            !p.output
                && s.words
                    .get(p.word_index)
                    .is_some_and(|x| x.start == v.start)
        }) else {
            continue;
        };
        if let [item] = p.body.items.as_slice() {
            if item.rest.is_empty() {
                if let [elem] = item.first.elems.as_slice() {
                    out.extend(super::walk::literal_output(&elem.cmd).unwrap_or_default());
                }
            }
        }
    }
    out
}

fn indirect_inner(base: &str, argv: &[Word]) -> Vec<Word> {
    let mut i = 1;
    let with_value: &[&str] = match base {
        "xargs" => &[
            // BSD xargs: replacements, replacement size, replacement string
            "-R",
            "-S",
            "-J",
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
            .position(|w| w.lit().is_some_and(|v| v.starts_with(":::")))
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

/// `set` changing only options that leave the meaning of later commands as
/// the analysis reads them: `-e -u -x -v -E -C -n` in any cluster, `-o` or
/// `+o` with `errexit nounset xtrace verbose errtrace noclobber pipefail`,
/// then positional parameters after `--` or the first operand. Any other
/// option is not followed: `-k` makes every later `NAME=VALUE` argument the
/// command's environment, `-P` changes `cd ..`, `-f`/`-B` change what words
/// expand to, `-a` exports later assignments.
fn set_options_known(argv: &[Word]) -> bool {
    const LETTERS: &str = "euxvECn";
    const NAMES: &[&str] = &[
        "errexit",
        "nounset",
        "xtrace",
        "verbose",
        "errtrace",
        "noclobber",
        "pipefail",
    ];
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let Some(v) = w.literal() else {
            return false;
        };
        if v == "--" || v == "-" || !(v.starts_with('-') || v.starts_with('+')) {
            return true;
        }
        let letters = &v[1..];
        for (k, c) in letters.char_indices() {
            if c == 'o' {
                // `-o NAME`, `-euo NAME`; the name is the next word.
                if k + 1 != letters.len() {
                    return false;
                }
                i += 1;
                match argv.get(i).and_then(Word::literal) {
                    Some(name) if NAMES.contains(&name.as_str()) => {}
                    _ => return false,
                }
            } else if !LETTERS.contains(c) {
                return false;
            }
        }
        i += 1;
    }
    true
}
