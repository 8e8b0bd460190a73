//! The program model applied to one simple command: its argv read as the
//! program's own parser reads it (crates/programs), and what follows for
//! the analysis — options or program text a grant never covers (complex),
//! command lines it runs (walked for hard deny), the directory it works in.

use shellgate_programs::argv::Operand;
use shellgate_programs::{judge, lookup, parse, Arg, Parsed, Program, Role};

use super::cwd::resolve_opt;
use super::walk::{Ctx, Walker};
use crate::paths::basename;
use crate::syntax::Redirect;
use crate::word::Word;

/// What bash passes for an input process substitution.
pub const PROC_SUBST_INPUT: &str = "/dev/fd/63";

/// An argument as the model reads it.
#[derive(Debug, Clone)]
enum ArgText {
    Static(String),
    Dynamic(String),
}

/// The program model's reading of one invocation.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The argv (after the program word) read by the program's parser.
    pub parsed: Parsed,
    texts: Vec<ArgText>,
    /// For a runner: where its command line starts (argv index) and the
    /// model's reading of that command line.
    pub inner: Option<(usize, Box<Option<Reading>>)>,
}

impl Reading {
    /// Read `argv` (program word first) with the model, when it knows the
    /// program (by basename).
    pub fn of(argv: &[Word], home: &str) -> Option<Reading> {
        let program = argv.first()?.lit()?;
        let prog: &'static Program = lookup(basename(&program))?;
        let texts: Vec<ArgText> = argv[1..]
            .iter()
            .map(|w| match w.expanded(home) {
                Some(v) if !w.proc_subst => ArgText::Static(v),
                // `<( … )` is a pipe from a command gated on its own: the
                // program reads the name bash passes (`/dev/fd/N`).
                _ if w.is_input_proc_subst() => ArgText::Static(PROC_SUBST_INPUT.to_string()),
                _ => ArgText::Dynamic(w.static_prefix(home).0),
            })
            .collect();
        let args: Vec<Arg> = texts.iter().map(as_arg).collect();
        let parsed = parse(prog, &args);
        let inner = parsed
            .operands()
            .iter()
            .find(|o| o.role == Role::Argv)
            .map(|o| o.at + 1)
            .filter(|&k| k < argv.len())
            .map(|k| (k, Box::new(Reading::of(&argv[k..], home))));
        Some(Reading {
            parsed,
            texts,
            inner,
        })
    }

    /// The arguments as the model reads them (index 0 = `argv[1]`).
    pub fn args(&self) -> Vec<Arg<'_>> {
        self.texts.iter().map(as_arg).collect()
    }

    /// The program's spec.
    pub fn program(&self) -> &'static Program {
        self.parsed.program
    }

    /// Static text of an argument (argv index minus one).
    pub fn text(&self, at: usize) -> Option<&str> {
        match self.texts.get(at)? {
            ArgText::Static(s) => Some(s),
            ArgText::Dynamic(_) => None,
        }
    }

    /// Operands of the leaf node with their roles.
    pub fn operands(&self) -> Vec<Operand> {
        self.parsed.operands()
    }
}

fn as_arg(t: &ArgText) -> Arg<'_> {
    match t {
        ArgText::Static(s) => Arg::Static(s),
        ArgText::Dynamic(p) => Arg::Dynamic { prefix: p },
    }
}

/// A remote location in copy-tool syntax: `host:path`, `user@host:path`,
/// `host::module`, or a URL. As GNU tar (`_remdev`), scp and rsync read
/// it: a `:` after the first character with no `/` before it, whatever
/// the word starts with (`.h:f` and `~h:f` are hosts too). On Windows
/// (`windows`) a letter and a colon are a drive (`C:x`, `C:\x`); on Linux
/// and macOS `c:x` is host `c` (rt12 F6: `tar -tfh:a.tar` ran rsh to `h`).
pub fn is_remote_spec(v: &str, windows: bool) -> bool {
    if v.contains("://") || v.contains("::") {
        return true;
    }
    match (v.find(':'), v.find('/')) {
        (Some(1), _) if windows && v.as_bytes()[0].is_ascii_alphabetic() => false,
        (Some(c), Some(sl)) => c > 0 && c < sl,
        (Some(c), None) => c > 0,
        _ => false,
    }
}

/// Programs whose appearance as the command line of a runner the gate must
/// see as a command (SPEC §15.20): privilege tools, shells, destroyers,
/// killers, downloaders.
pub fn concerns_hard_deny(base: &str) -> bool {
    const NAMES: &[&str] = &[
        "sudo",
        "doas",
        "su",
        "pkexec",
        "run0",
        "sudoedit",
        "rm",
        "dd",
        "shred",
        "wipefs",
        "mkswap",
        "blkdiscard",
        "fdisk",
        "sfdisk",
        "parted",
        "sgdisk",
        "kill",
        "pkill",
        "killall",
        "killall5",
        "curl",
        "wget",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "shutdown",
        "reboot",
        "poweroff",
        "halt",
        "systemctl",
    ];
    NAMES.contains(&base) || base.starts_with("mkfs")
}

/// Whether an option named in `names` (canonical names) is present, not
/// negated, with a value that is missing, known only at run time, or for
/// which `bad` holds.
fn value_of_any(p: &Parsed, args: &[Arg], names: &[&str], bad: impl Fn(&str) -> bool) -> bool {
    p.opts.iter().any(|o| {
        !o.negated
            && names.contains(&o.opt.name.as_str())
            && o.value
                .is_none_or(|v| p.value_text(args, v).is_none_or(&bad))
    })
}

impl Walker<'_> {
    /// Reasons and inner commands the program model finds in a gated
    /// invocation: options and program text no grant covers, command
    /// strings and command lines it runs (walked ungated, for hard deny),
    /// runners whose command line a verb cannot name.
    pub(super) fn model_reasons(
        &mut self,
        reading: &Reading,
        argv: &[Word],
        redirects: &[Redirect],
        own_cwd: Option<&str>,
        start: usize,
        ctx: &Ctx,
    ) -> Vec<String> {
        let args = reading.args();
        let p = &reading.parsed;
        let mut uncovered = Vec::new();
        // A copy tool's remote source or destination (`host:path`,
        // `user@host:path`, `host::module`, `rsync://…`) is a network
        // destination: a grant for a local copy never covers it (§15.12).
        // A build or test run or an interpreter's script reads two shapes
        // as names, not hosts: `a::b` a test's id (`pytest
        // tests/t.py::test_x`, `python3 -m pytest …`), `a:b` (no `/`) a
        // task's name (`php artisan route:list`, `rake db:migrate`).
        let runs_code = matches!(
            p.leaf().kind,
            shellgate_programs::Kind::Build | shellgate_programs::Kind::Interpreter
        );
        // Only those two shapes: a URL, a `user@host:…` or a `host:dir/…`
        // stays remote there too (`kubectl kustomize https://…`,
        // `git@github.com:o/r`): a granted build would fetch and run it.
        // Nor a package scheme (`deno run npm:cross-env`, rt19 F3).
        const SCHEMES: &[&str] = &[
            "npm",
            "jsr",
            "github",
            "gitlab",
            "bitbucket",
            "gist",
            "git",
            "http",
            "https",
            "ftp",
            "ssh",
            "file",
            "docker",
            "oci",
            "pypi",
            "hg",
            "svn",
            "node",
            "bun",
            "deno",
            "link",
            "workspace",
            "portal",
            "patch",
            "exec",
        ];
        let local_name = |v: &str| {
            let scheme = v.split(':').next().unwrap_or("").to_ascii_lowercase();
            !SCHEMES.contains(&scheme.as_str())
                && !v.contains("://")
                && !v.contains('@')
                && (v.contains("::")
                    || v.split(':').all(|part| {
                        !part.is_empty()
                            && part
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                    }))
        };
        if !p.has("--force-local") {
            for u in judge::uses(p) {
                if !matches!(
                    u.role,
                    Role::Any
                        | Role::Read
                        | Role::Write
                        | Role::ReadWrite
                        | Role::Delete
                        | Role::List
                ) {
                    continue;
                }
                let windows = self.env.windows;
                if p.value_text(&args, u.value)
                    .is_some_and(|v| is_remote_spec(v, windows) && !(runs_code && local_name(v)))
                {
                    uncovered.push(format!("remote_operand:{}", p.program.id));
                    break;
                }
            }
        }
        // An in-place edit's backup suffix holding a `/` (`sed -i'DIR/*'`,
        // `perl -i'bak/*'`): the backup is written at that path (a `*`
        // becomes the file's name), anywhere — a write no verb names.
        if matches!(p.program.id.as_str(), "sed" | "perl") {
            for o in &p.opts {
                if o.negated || !o.opt.has(shellgate_programs::fx::INPLACE) {
                    continue;
                }
                if let Some(v) = o.value {
                    // A suffix with `*` names the backup itself (any name:
                    // `-i'.mcp.jso*'` made `.mcp.json`, rt10 F2), and one that
                    // makes a dot-file's backup (`.mcp` + `.json`) may name a
                    // protected file: only a plain suffix on plain names.
                    let dot_backup = p.operands().iter().any(|op| {
                        matches!(op.role, Role::ReadWrite | Role::Read)
                            && reading
                                .text(op.at)
                                .is_none_or(|f| crate::paths::basename(f).starts_with('.'))
                    });
                    if p.value_text(&args, v)
                        .is_none_or(|t| t.contains(['/', '*']) || t.is_empty())
                        || dot_backup
                    {
                        uncovered.push(format!("backup_path:{}", p.program.id));
                    }
                }
            }
        }
        // curl's URLs in a scheme other than the web's (`file:///…/.ssh/id_rsa`
        // reads a local file, `dict:`, `gopher:`, `smb:`… reach other
        // services), or a default protocol that makes a bare host one
        // (`--proto-default file`): not what a grant for fetching covered
        // (rt9 F10).
        if p.program.id == "curl" {
            let web = |t: &str| {
                let lower = t.to_ascii_lowercase();
                match lower.split_once("://") {
                    Some((scheme, _)) => matches!(scheme, "http" | "https"),
                    None => !lower.starts_with("file:"),
                }
            };
            let mut other = false;
            for u in judge::uses(p) {
                if u.role == Role::Net {
                    other |= p.value_text(&args, u.value).is_some_and(|t| !web(t));
                }
            }
            for o in &p.opts {
                if !o.negated && o.opt.name == "--proto-default" {
                    other |= o.value.is_none_or(|v| {
                        p.value_text(&args, v).is_none_or(|t| {
                            !matches!(t.to_ascii_lowercase().as_str(), "http" | "https")
                        })
                    });
                }
            }
            if other {
                uncovered.push("url_scheme:curl".to_string());
            }
            // curl's own expansions (rt11 F9, F10): a URL glob (`{a,b}`,
            // `[1-3]`) names output files through `-o '#1'`, and file names
            // given to an upload as a glob, a `{…}` list, a comma list or in
            // quotes are more files than the word shows.
            let globoff = p.has("-g");
            let special = |t: &str| t.contains(['*', '?', '[', ']', '{', '}', ',', '"', '\'']);
            let mut expands = false;
            for o in &p.opts {
                if o.negated {
                    continue;
                }
                let v = o.value.and_then(|v| p.value_text(&args, v));
                match o.opt.name.as_str() {
                    "-o" => expands |= v.is_none_or(|t| t.contains('#')),
                    "-T" => expands |= v.is_none_or(special),
                    _ if o.opt.value == Role::AtFile => {
                        expands |= v.is_none_or(|t| {
                            t.find(['@', '<']).is_some_and(|i| special(&t[i + 1..]))
                        })
                    }
                    _ => {}
                }
            }
            if !globoff {
                for u in judge::uses(p) {
                    if u.role == Role::Net {
                        expands |= p
                            .value_text(&args, u.value)
                            .is_none_or(|t| t.contains(['{', '[']));
                    }
                }
            }
            if expands {
                uncovered.push("curl_expansion:curl".to_string());
            }
        }
        // Maven's and Gradle's system and project properties (`-Dk=v`,
        // `-Pk=v`): a property can pick the JVM, an agent, a local
        // repository, an extension class path or an output directory
        // (`-Dmaven.repo.local=/x`, `-DargLine=-javaagent:…`, rt9 F12). One
        // is covered by a grant only when its value names no path and its
        // name no program, JVM argument, home, directory or file.
        if matches!(p.program.id.as_str(), "mvn" | "gradle") {
            // Gradle's test task option opening a JDWP listener (rt10 F11).
            if args
                .iter()
                .any(|a| matches!(a, Arg::Static(t) if t.starts_with("--debug-jvm")))
            {
                uncovered.push(format!("property:{}", p.program.id));
            }
            for o in &p.opts {
                let prop = matches!(o.opt.name.as_str(), "-D")
                    || (p.program.id == "gradle" && o.opt.name == "-P");
                if o.negated || !prop {
                    continue;
                }
                let Some(t) = o.value.and_then(|v| p.value_text(&args, v)) else {
                    uncovered.push(format!("property:{}", p.program.id));
                    continue;
                };
                let (name, value) = t.split_once('=').unwrap_or((t, ""));
                let name = name.to_ascii_lowercase();
                const KEYS: &[&str] = &[
                    "executable",
                    "jvm",
                    "argline",
                    "jvmargs",
                    "java.home",
                    "class.path",
                    "classpath",
                    "repo.local",
                    "user.home",
                    "agent",
                    "home",
                    "dir",
                    "directory",
                    "file",
                    "path",
                    "command",
                    "script",
                    "url",
                    "repository",
                ];
                let path_value =
                    value.contains(['/', '\\', '$', '`', '@']) || value.starts_with('~');
                // A debugger's listener (`-Dmaven.surefire.debug`,
                // `-agentlib:jdwp=…,server=y`, rt10 F11) runs code for
                // whoever connects.
                let lower = value.to_ascii_lowercase();
                let debugger = name.contains("debug")
                    || ["agentlib", "jdwp", "xdebug", "xrunjdwp"]
                        .iter()
                        .any(|d| lower.contains(d));
                if path_value || debugger || KEYS.iter().any(|k| name.ends_with(k)) {
                    uncovered.push(format!("property:{}", p.program.id));
                }
            }
        }
        // Options of the test binary a build runs, which the verb does not
        // show: libtest's `--logfile PATH` after `cargo test --` (it
        // truncates PATH, rt9 F8) and Go's `-test.*` flags (profiles, logs,
        // cover and fuzz directories), wherever they stand.
        if matches!(p.program.id.as_str(), "cargo" | "go") {
            let after = p.dashdash.map_or(usize::MAX, |d| d + 1);
            for (i, a) in args.iter().enumerate() {
                let t = match a {
                    Arg::Static(t) => *t,
                    Arg::Dynamic { prefix } => prefix,
                };
                let harness = if p.program.id == "cargo" {
                    i >= after && t.starts_with("--logfile")
                } else {
                    t.starts_with("-test.") || t.starts_with("--test.")
                };
                if harness {
                    uncovered.push(format!("test_binary_option:{}", p.program.id));
                    break;
                }
            }
        }
        // docker build's exporters and cache export written as a spec
        // (`--output type=local,dest=/x`, `--cache-to type=local,dest=/x`):
        // the client writes the destination on the host, which the value
        // read as one path does not show (rt9).
        if p.program.id == "docker"
            && value_of_any(p, &args, &["-o", "--cache-to"], |t| t.contains('='))
        {
            uncovered.push("export_spec:docker".to_string());
        }
        // pytest expands environment variables in `--rootdir` itself
        // (`--rootdir='$HOME'`, rt10 F6): the value is no path the gate can
        // resolve.
        // (`--junitxml='$HOME/.bashrc'` too, rt11 F8: any option's value.)
        if p.program.id == "pytest"
            && p.opts.iter().any(|o| {
                !o.negated
                    && o.value.is_some_and(|v| {
                        p.value_text(&args, v)
                            .is_none_or(|t| t.contains(['$', '%', '~']))
                    })
            })
        {
            uncovered.push("rootdir_variables:pytest".to_string());
        }
        // kubectl's printers that read a template from a file (`-o
        // go-template-file=PATH`, `jsonpath-file=`, `custom-columns-file=`,
        // with `--template=PATH`): a read of any file, printed as it is
        // when it holds no template action (rt9 F6).
        // (`templatefile`, kubectl's other spelling, rt10 F7.)
        if p.program.id == "kubectl" && value_of_any(p, &args, &["-o"], |t| t.contains("file")) {
            uncovered.push("template_file:kubectl".to_string());
        }
        // patch's backup names: `-B PREFIX` goes before the whole file name
        // (`-B .gi t/hooks/pre-commit` backs up to .git/hooks/pre-commit,
        // rt10 F16), `-Y` before its base name, `-z` after it.
        if p.program.id == "patch" {
            for o in &p.opts {
                if o.negated || !matches!(o.opt.name.as_str(), "-B" | "-Y" | "-z") {
                    continue;
                }
                let plain = o
                    .value
                    .and_then(|v| p.value_text(&args, v))
                    .is_some_and(|t| {
                        o.opt.name == "-z"
                            && !t.contains('/')
                            && t.starts_with(['.', '~', '_', '-'])
                    });
                if !plain {
                    uncovered.push("backup_path:patch".to_string());
                }
            }
        }
        // make's command-line variables (§15.20): `SHELL=`, `.SHELLFLAGS=`,
        // `MAKEFLAGS=` choose code; a value or name holding `$(`/`${`/a
        // backquote runs make functions (`$(shell …)`) in every recipe.
        if p.leaf().targets {
            for &i in &p.positionals {
                let Some(t) = reading.text(i) else { continue };
                let Some((name, value)) = t.split_once('=') else {
                    continue;
                };
                if name.trim().is_empty() {
                    continue;
                }
                // `X != CMD` is a shell assignment: make runs CMD while it
                // reads its arguments (checked for hard deny as a command
                // string). Blanks around the operator are make's, not part
                // of the name (`'CC = touch x;'` sets CC).
                let shell_assign = name.trim_end().ends_with('!');
                let name = name
                    .trim()
                    .trim_end_matches([':', '+', '?', '!'])
                    .trim_end();
                let value = value.trim_start();
                if shell_assign {
                    let cmd = value.to_string();
                    self.ungated_text(&cmd, own_cwd, ctx);
                }
                let code = shell_assign
                    || name.contains(['$', '(', '`', ' ', '\t'])
                    // make's special variables (`.EXTRA_PREREQS=install`
                    // adds a goal to every target, `.RECIPEPREFIX`,
                    // `.ONESHELL`, rt10 F1) and its own variables.
                    || name.starts_with('.')
                    || name.starts_with("MAKE")
                    || name == "GNUMAKEFLAGS"
                    || name == "VPATH"
                    || name == "SUFFIXES"
                    || value.contains("$(")
                    || value.contains("${")
                    || value.contains('`')
                    || matches!(
                        name,
                        "SHELL"
                            | ".SHELLFLAGS"
                            | "MAKEFLAGS"
                            | "MFLAGS"
                            | "MAKEFILES"
                            | "MAKE"
                            | ".DEFAULT_GOAL"
                    )
                    || (super::envkind::classify(name, &self.env.inert)
                        == super::envkind::EnvKind::CodeSelecting
                        && !super::envkind::excused_by_value(name, value));
                if code {
                    self.reason(&format!("make_variable:{name}"));
                }
            }
        }
        // Program text that hands strings to a shell (`awk 'BEGIN{system("…")}'`):
        // checked for hard deny.
        // Not jq's or yq's filters: the languages run no commands, and
        // `.u | "x \(.a)"` is a string interpolation, not awk's pipe into a
        // command (rt13 must-allow G4: the string was read as shell and
        // failed to parse).
        // sed's `e COMMAND` hands COMMAND to a shell (rt24: `sed -n '1e rm
        // -rf /' f`), in an operand or an `-e`/`--expression` value.
        let check = reading.program().id.as_str();
        let value_of = |o: &shellgate_programs::argv::OptUse| {
            o.value
                .and_then(|v| p.value_text(&args, v))
                .map(str::to_string)
        };
        let mut codes: Vec<String> = reading
            .operands()
            .iter()
            .filter(|op| op.role == Role::Code)
            .filter_map(|op| reading.text(op.at).map(str::to_string))
            .collect();
        codes.extend(
            p.opts
                .iter()
                .filter(|o| !o.negated && o.opt.value == Role::Code)
                .filter_map(value_of),
        );
        // `awk -f -`, `sed -f /dev/stdin`, `make -f -`: code nobody can
        // see, unless a here-string or heredoc carries it (`awk -f - <<<
        // 'BEGIN{system("…")}'`, rt24): that text is checked too.
        if super::inline::stdin_program_option(reading) {
            self.reason("stdin_program");
            codes.extend(super::inline::stdin_texts(
                redirects,
                &self.env.home.clone(),
            ));
        }
        // Option values that are command lines for a shell (rt26a F1):
        // gdb's `-ex 'shell CMD'`, `'!CMD'`, `'pipe … | CMD'` (`'python …'`
        // runs Python), make's `--eval` text (`$(shell CMD)`, recipe lines),
        // tar's `--checkpoint-action=exec=CMD`; cmake's `-E rm …` mode.
        for o in p.opts.iter().filter(|o| !o.negated) {
            let name = o.opt.name.as_str();
            match (check, name) {
                ("gdb", "-ex" | "-iex") => {
                    for cmd in value_of(o)
                        .map(|t| super::code::gdb_commands(&t))
                        .unwrap_or_default()
                    {
                        self.ungated_text(&cmd, own_cwd, ctx);
                    }
                }
                ("make", "-E") => {
                    if let Some(t) = value_of(o) {
                        codes.push(t);
                    }
                }
                ("tar", "--checkpoint-action") => {
                    if let Some(cmd) =
                        value_of(o).and_then(|t| t.strip_prefix("exec=").map(str::to_string))
                    {
                        self.ungated_text(&cmd, own_cwd, ctx);
                    }
                }
                ("cmake", "-E") => {
                    // `at` counts the words after the program's name.
                    let home = self.env.home.clone();
                    let words: Option<Vec<String>> = argv
                        .get(o.at + 2..)
                        .unwrap_or_default()
                        .iter()
                        .map(|w| w.expanded(&home))
                        .collect();
                    if let Some(words) = words {
                        if let Some((tool, rest)) = words.split_first() {
                            let rm = match tool.as_str() {
                                "rm" | "remove" => Some("rm"),
                                "remove_directory" => Some("rm -r"),
                                _ => None,
                            };
                            if let Some(rm) = rm {
                                let line = format!("{rm} {}", super::crude::shell_line(rest));
                                self.ungated_text(&line, own_cwd, ctx);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        // awk's `-v NAME=VALUE` (and `NAME=VALUE` operands) set names the
        // program may hand to `system()` (rt26a F1: `awk -v c='rm -rf /'
        // 'BEGIN{system(c)}'`): the program is read with them assigned;
        // one that reads `ARGV` is checked against its operands too.
        if check == "awk" {
            let mut assigns = String::new();
            for o in p.opts.iter().filter(|o| o.opt.name == "-v") {
                if let Some((n, v)) = value_of(o).as_deref().and_then(|t| t.split_once('=')) {
                    assigns.push_str(&format!("{n} = \"{}\"\n", v.replace('"', "")));
                }
            }
            let operands: Vec<String> = reading
                .operands()
                .iter()
                .filter(|op| op.role != Role::Code)
                .filter_map(|op| reading.text(op.at).map(str::to_string))
                .collect();
            for t in codes.iter_mut() {
                // `ARGV[N]` is the Nth operand: put in as a literal, so that
                // `system(ARGV[1] " -rf /")` reads as the string it makes.
                let mut with_argv = t.clone();
                for (n, w) in operands.iter().enumerate().rev() {
                    with_argv = with_argv.replace(
                        &format!("ARGV[{}]", n + 1),
                        &format!("\"{}\"", w.replace(['"', '\\'], "")),
                    );
                }
                *t = format!("{assigns}{with_argv}");
            }
            // `system(ARGV[1] " " ARGV[2] " " ARGV[3])` (rt27 F1).
            if codes.iter().any(|t| t.contains("ARGV")) && !operands.is_empty() {
                self.own_argument_texts(&operands, own_cwd, ctx);
            }
        }
        if check == "make" {
            for t in codes.clone() {
                for cmd in make_commands(&t) {
                    self.ungated_text(&cmd, own_cwd, ctx);
                }
            }
        }
        if !matches!(check, "jq" | "yq") {
            for t in &codes {
                let mut cmds = super::code::shell_strings(t);
                if check == "sed" {
                    cmds.extend(shellgate_programs::checks::sed_commands(t));
                }
                for cmd in cmds {
                    self.ungated_text(&cmd, own_cwd, ctx);
                }
            }
        }
        for r in judge::uncovered(p, &args) {
            if judge::is_oneshot(&r) {
                self.reason(&r);
            } else {
                uncovered.push(r);
            }
        }
        // Command strings in option values (`git rebase -x CMD`,
        // `watch CMD`) and operands: parsed and checked for hard deny.
        for o in &p.opts {
            if o.negated || o.opt.value != Role::Command {
                continue;
            }
            let Some(v) = o.value else { continue };
            if p.program.style == shellgate_programs::Style::Find {
                continue; // find -exec: handled with its argv below
            }
            match p.value_text(&args, v) {
                Some(text) => self.ungated_text(text, own_cwd, ctx),
                None => self.reason("dynamic_shell_string"),
            }
        }
        // `git clone -c core.fsmonitor=CMD`: the setting's command is
        // checked like `git -c` (rt22 F3).
        if p.program.id == "git" {
            for o in p.opts.iter().filter(|o| o.depth >= 1 && o.opt.name == "-c") {
                let text = o.value.and_then(|v| p.value_text(&args, v));
                if let Some(cmd) = text.and_then(super::reasons::git_config_command) {
                    self.ungated_text(&cmd, own_cwd, ctx);
                }
            }
        }
        let ops = reading.operands();
        let mut argv_start: Option<usize> = None;
        for op in &ops {
            match op.role {
                Role::Command => match reading.text(op.at) {
                    Some(text) => {
                        let text = text.to_string();
                        self.ungated_text(&text, own_cwd, ctx);
                    }
                    None => self.reason("dynamic_shell_string"),
                },
                Role::Argv if argv_start.is_none() => argv_start = Some(op.at),
                _ => {}
            }
        }
        // `git bisect run CMD ARGS…`: git hands the command line to a shell
        // (rt22 F2: `git bisect run rm -rf /`); hard deny reads it.
        let sub = |d: usize| {
            p.nodes
                .get(d)
                .and_then(|n| n.names.first())
                .map(|n| n.as_str())
        };
        if p.program.id == "git" && sub(1) == Some("bisect") && sub(2) == Some("run") {
            if let Some(op) = ops.iter().find(|op| op.role == Role::Exec) {
                let words = argv.get(op.at + 1..).unwrap_or_default();
                match words.iter().map(Word::literal).collect::<Option<Vec<_>>>() {
                    Some(lits) => {
                        self.ungated_text(&super::crude::shell_line(&lits), own_cwd, ctx);
                    }
                    None => self.reason("dynamic_shell_string"),
                }
            }
        }
        // A runner's command line: walked ungated (hard deny sees what it
        // runs). Its verb must name the program it runs, or no grant can
        // cover it; a program hard deny concerns makes it complex.
        // Only runners and build tools run it here (a container's command
        // line runs inside the container).
        // `pnpm sh -c CMD`, `yarn rimraf /`: a word that is not one of their
        // commands runs the script or the bin of that name (the model's
        // note on pnpm): its command line is walked as a runner's.
        let shorthand = matches!(p.program.id.as_str(), "pnpm" | "yarn") && p.nodes.len() == 1;
        if shorthand && argv_start.is_none() {
            argv_start = ops.first().map(|op| op.at);
        }
        let runs_here = shorthand
            || matches!(
                p.leaf().kind,
                shellgate_programs::Kind::Runner | shellgate_programs::Kind::Build
            )
            || matches!(
                p.program.root.kind,
                shellgate_programs::Kind::Runner | shellgate_programs::Kind::Build
            );
        if let Some(at) = argv_start.filter(|_| runs_here) {
            let mut inner: Vec<Word> = argv.get(at + 1..).map(<[Word]>::to_vec).unwrap_or_default();
            // `mise exec node@20 -- CMD`: the tools come first, the command
            // line after the `--` (rt12 sweep: `mise x node -- rm -rf ~`
            // was read as node running a script named `--`).
            if p.program.id == "mise" {
                if let Some(k) = inner.iter().position(|w| w.lit().as_deref() == Some("--")) {
                    inner.drain(..=k);
                }
            }
            if let Some(first) = inner.first() {
                match first.literal() {
                    Some(prog) => {
                        let b = basename(&prog).to_ascii_lowercase();
                        // Shells count when they run a command string.
                        let shell_c = crate::verbs::is_shell(&b)
                            && inner.iter().skip(1).any(|w| {
                                w.lit().is_some_and(|v| {
                                    v.starts_with('-') && !v.starts_with("--") && v.contains('c')
                                })
                            });
                        if concerns_hard_deny(&b) || shell_c {
                            self.reason(&format!("runner_runs:{b}"));
                        }
                        // An interpreter's inline code on the runner's
                        // command line is inline code (§4.2): complex, so no
                        // persistent option covers it (`uv run python -c …`).
                        let ib = crate::verbs::strip_exe(&b);
                        let code = (crate::verbs::is_interpreter(ib)
                            && !crate::verbs::is_shell(ib))
                            || crate::verbs::runs_inline_code(ib);
                        if code && super::inline::has_inline_code(ib, &inner) {
                            self.reason("inline_code");
                        }
                    }
                    None => self.reason("dynamic_verb"),
                }
                let first = self.out.invocations.len();
                self.ungated_argv(inner, own_cwd, start);
                // Marked as a runner's command line: what it runs is judged
                // through the runner (its verb, the sandbox's fit).
                for inv in self.out.invocations.iter_mut().skip(first) {
                    inv.wrappers.insert(0, format!("runner:{}", p.program.id));
                }
            }
        }
        uncovered
    }

    /// A program the model does not know may run its arguments as a
    /// command (`taskset 1 rm -rf /`, `mytool exec -- sudo …`): any argv
    /// suffix that starts with a program hard deny concerns is checked for
    /// hard deny, and the call is complex (§15.20). Builtins, side-effect
    /// verbs and path-aware verbs keep their own meaning.
    pub(super) fn unknown_runner(
        &mut self,
        base: &str,
        argv: &[Word],
        own_cwd: Option<&str>,
        start: usize,
    ) {
        if crate::verbs::is_side_effect(base)
            || crate::verbs::is_path_aware(base)
            || crate::verbs::is_single_token(base)
            || crate::verbs::pure_builtin(argv, false)
            || matches!(
                base,
                "cd" | "pushd"
                    | "popd"
                    | "export"
                    | "unset"
                    | "set"
                    | "alias"
                    | "source"
                    | "."
                    | "eval"
                    | "exec"
                    | "trap"
                    | "read"
                    | "shellgate"
                    // Hard deny reads these itself (their subcommands are
                    // not programs: `systemctl halt --when cancel`).
                    | "systemctl"
                    | "loginctl"
                    | "service"
                    | "launchctl"
                    | "kill"
                    | "pkill"
                    | "killall"
                    | "pgrep"
                    | "shutdown"
                    | "init"
                    | "telinit"
                    | "sudo"
                    | "doas"
                    | "su"
                    | "pkexec"
                    | "run0"
            )
        {
            return;
        }
        for (i, w) in argv.iter().enumerate().skip(1) {
            let Some(v) = w.literal() else { continue };
            // A command string (`hyperfine 'rm -rf ~'`, `retry 'sudo x'`).
            if v.contains(char::is_whitespace) {
                let first = v.split_whitespace().next().unwrap_or("");
                if concerns_hard_deny(&basename(first).to_ascii_lowercase()) {
                    self.reason(&format!("runner_runs:{}", basename(first)));
                    self.ungated_text(&v, own_cwd, &Ctx::default());
                    return;
                }
                continue;
            }
            let b = basename(&v).to_ascii_lowercase();
            // A shell or interpreter in its argv runs code the verb cannot
            // name (`cross-env X=1 sh -c …`, `foo run node -e …`).
            let runs_code = crate::verbs::is_shell(&b) || crate::verbs::is_interpreter(&b);
            if concerns_hard_deny(&b) || runs_code {
                self.reason(&format!("runner_runs:{b}"));
                let first = self.out.invocations.len();
                self.ungated_argv(argv[i..].to_vec(), own_cwd, start);
                for inv in self.out.invocations.iter_mut().skip(first) {
                    inv.wrappers.insert(0, format!("runner:{base}"));
                }
                return;
            }
        }
    }

    /// The command's own directory after options that change it
    /// (`git -C`, `make -C`, `tar -C`, `npm --prefix`, `terraform -chdir`).
    pub(super) fn model_chdir(
        &mut self,
        reading: &Reading,
        argv: &[Word],
        own_cwd: Option<String>,
    ) -> Option<String> {
        let args = reading.args();
        let p = &reading.parsed;
        let mut out = own_cwd;
        for o in &p.opts {
            if o.negated || o.opt.value != Role::Chdir {
                continue;
            }
            let Some(v) = o.value else { continue };
            // A directory written as a glob (`tar -C .gi?/hooks`, `make -C
            // sub*`): bash picks it (rt10 F17).
            let glob = argv.get(v.at + 1).is_some_and(|w| w.glob);
            match p.value_text(&args, v).filter(|_| !glob) {
                Some(d) => out = resolve_opt(out.as_deref(), d),
                None => {
                    self.reason("dynamic_path");
                    out = None;
                }
            }
        }
        out
    }
}

/// The shell command lines in make text (an `--eval` value, a makefile
/// from standard input): `$(shell CMD)`/`${shell CMD}` calls and recipe
/// lines (a tab first; `@`, `-`, `+` prefixes dropped). Only for hard deny.
fn make_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for open in ["$(shell ", "${shell "] {
        let close = if open.starts_with("$(") { ')' } else { '}' };
        let mut rest = text;
        while let Some(at) = rest.find(open) {
            rest = &rest[at + open.len()..];
            let mut depth = 0usize;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    if c == '(' || c == '{' {
                        depth += 1;
                    } else if (c == ')' || c == '}') && depth > 0 {
                        depth -= 1;
                        return false;
                    }
                    c == close && depth == 0
                })
                .map_or(rest.len(), |(i, _)| i);
            out.push(rest[..end].to_string());
        }
    }
    for line in text.lines() {
        if let Some(cmd) = line.strip_prefix('\t') {
            out.push(cmd.trim_start_matches(['@', '-', '+']).to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split(' ').map(|w| Word::analyze(w, 0)).collect()
    }

    #[test]
    fn reads_known_programs() {
        let r = Reading::of(&words("sort --comp=sh f"), "/h").unwrap();
        assert_eq!(r.program().id, "sort");
        assert!(!judge::uncovered(&r.parsed, &r.args()).is_empty());
        assert!(Reading::of(&words("frobnicate x"), "/h").is_none());
    }

    #[test]
    fn remote_specs_as_tar_scp_rsync_read_them() {
        for remote in [
            "h:a.tar",
            "host:a.tar",
            "u@h:f",
            "c:.ssh/id_rsa",
            ".h:a.tar",
            "~h:f",
            "h::module",
            "rsync://h/m",
            "h:dir/a.tar",
        ] {
            assert!(is_remote_spec(remote, false), "{remote} is remote on Linux");
        }
        for local in [
            "a.tar",
            "./a:b.tar",
            "/x/a:b",
            "dir/a:b.tar",
            ":a.tar",
            "~/a:b",
        ] {
            assert!(!is_remote_spec(local, false), "{local} is local");
            assert!(!is_remote_spec(local, true), "{local} is local");
        }
        // A drive on Windows, a host elsewhere.
        assert!(!is_remote_spec("C:a.tar", true));
        assert!(!is_remote_spec("C:\\x\\a.tar", true));
        assert!(is_remote_spec("C:a.tar", false));
        assert!(is_remote_spec("host:a.tar", true));
    }
}
