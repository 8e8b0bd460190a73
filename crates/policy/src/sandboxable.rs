//! Which simple commands may run inside the OS sandbox without a human
//! (SPEC §18): build, test and task runs, and edits of project files by
//! writers — read through the program model (`shellgate-programs`) so that
//! the kind of a command is what its program and subcommand are, not what
//! its name looks like.
//!
//! The sandbox stops writes outside the project and the network; what it
//! cannot stop is harm *inside* the project and the human's wish to see
//! network and outside work. So a command fits only when it is one of:
//!
//! - a build/test/task run (model kind `build`: `go test`, `./gradlew
//!   build`, `cmake --build`, `npm test`, `cargo clippy`) or a program of the
//!   project itself (`./build/tests/test_parser`) — never with an option
//!   that deletes, contacts the network, selects another package source,
//!   reveals secrets, or writes somewhere unnamed (`go clean -modcache`,
//!   `go env -w`);
//! - an in-place editor whose program text passes its validator (`sed -i
//!   's/a/b/'`, `yq -i`), a writer that creates, copies, moves or patches
//!   (`cp`, `mv`, `mkdir`, `touch`, `rmdir`, `patch`, `chmod`, `tee`) — not
//!   `rm`, `ln`, `chown`, `dd`, `shred`, `truncate`: deleting or linking
//!   cannot be undone with git or a rebuild;
//! - a read-only command (or `echo`/`printf`) whose only write is a
//!   redirect (`cat > f <<'EOF'`, `go list -m all > deps.txt`).
//!
//! Installers, network clients, runners, interpreters, git's network
//! subcommands and unknown programs never fit; a read-only or local
//! command (`git status`, `git commit`) may run inside the sandbox only
//! when it is already safe or granted ([`Fit::Passive`]).

use shellgate_programs::{fx, judge, lookup, parse, Arg, Kind, Parsed, Role};
use shellgate_shell::analyze::Invocation;
use shellgate_shell::paths::{self, basename};
use shellgate_shell::syntax::RedirTarget;
use shellgate_shell::verbs::{is_interpreter, is_path_aware, is_shell, is_side_effect};

use crate::candidates::EXEMPT_DEVICES;
use crate::config::expand_home;
use crate::safe_verbs::SafeVerbs;

/// How a simple command may run inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Runs project code or a build tool: profile `build`.
    Build,
    /// Changes project files: profile `edit`.
    Edit,
    /// Reads, prints or changes only local state (`git status`, `git
    /// commit`): may run confined when it is safe or granted, never
    /// sandboxed on its own.
    Passive,
    /// Never runs sandboxed without a human.
    No,
}

/// Writers whose effect can be undone (git, a rebuild) and that stay where
/// they are pointed.
const EDIT_WRITERS: &[&str] = &[
    "cp", "mv", "mkdir", "touch", "rmdir", "patch", "chmod", "tee",
];

/// Directories of a project's own environment whose programs are the
/// tools the project installed (a virtualenv's, node's local bin).
pub(crate) const ENV_BINS: &[&str] = &["/.venv/bin", "/venv/bin", "/node_modules/.bin"];

/// Install directories of the toolchains' own package managers.
const USER_TOOL_BINS: &[&str] = &["~/go/bin", "~/.cargo/bin"];

/// Build-tool wrapper scripts a project carries by convention, judged as
/// the tool they wrap (`bin/rails test` as `rails test`: `bin/rails
/// credentials:show` or `bin/rails runner CODE` is not a build).
const PROJECT_WRAPPERS: &[&str] = &["gradlew", "mvnw", "rails"];

/// Bundler's binstubs (`bin/rspec`, `bin/rake test`): a project's `bin/`
/// script named for the tool it runs, judged as that tool.
const BINSTUBS: &[&str] = &["rspec", "rake", "rubocop"];

/// git subcommands that talk to a remote.
const GIT_NETWORK: &[&str] = &[
    "push",
    "fetch",
    "pull",
    "clone",
    "ls-remote",
    "submodule",
    "request-pull",
    "send-email",
    "svn",
    "p4",
    "archive",
];

/// Option effects that never run unattended.
const NEVER: u32 = fx::NET | fx::SOURCE | fx::SECRET | fx::DELETES | fx::ONESHOT;

/// Directories whose programs are the system's (a program word with a `/`
/// elsewhere is someone's code: only the project's own is run sandboxed).
const SYSTEM_BIN: &[&str] = &["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

/// The static words after the program, as the model reads them.
pub struct Words {
    texts: Vec<(String, bool)>,
}

impl Words {
    /// The arguments of `inv` (`~` expanded against `home`).
    pub fn of(inv: &Invocation, home: &str) -> Words {
        let texts = inv
            .argv
            .iter()
            .skip(1)
            .map(|w| match w.expanded(home) {
                Some(v) => (v, true),
                None => (w.static_prefix(home).0, false),
            })
            .collect();
        Words { texts }
    }

    /// The model's view.
    pub fn args(&self) -> Vec<Arg<'_>> {
        self.texts
            .iter()
            .map(|(t, s)| {
                if *s {
                    Arg::Static(t)
                } else {
                    Arg::Dynamic { prefix: t }
                }
            })
            .collect()
    }
}

/// Where the program of `inv` lives: `Some(path)` when it is named by a
/// path (resolved against the command's directory), `None` for a bare name.
pub fn program_path(inv: &Invocation, home: &str) -> Option<String> {
    let p = inv.program()?;
    if !p.contains('/') && !p.starts_with('~') {
        return None;
    }
    let e = expand_home(&p, home);
    if e.starts_with('/') {
        Some(paths::normalize(&e))
    } else {
        inv.cwd.as_deref().map(|c| paths::resolve(c, &e))
    }
}

/// Where paths lie, as the caller's file system says.
pub struct Place<'a> {
    /// Whether a path lies inside the writable project (or session
    /// directory), lexically and with no symbolic link on the way.
    pub in_project: &'a dyn Fn(&str) -> bool,
    /// Whether a path is a regular file (a final link not followed).
    pub regular_file: &'a dyn Fn(&str) -> bool,
    /// `PATH` of the environment the command runs in.
    pub search_path: Option<&'a str>,
}

/// The fit of one simple command. `in_project`: whether a path lies inside
/// the writable project (or session directory).
pub fn fit(inv: &Invocation, home: &str, safe: &SafeVerbs, place: &Place) -> Fit {
    if inv.crude {
        return Fit::No;
    }
    let Some(program) = inv.program() else {
        return Fit::No;
    };
    let base = basename(&program).to_string();
    // A program named by a path: the project's own code, or a system
    // program; anything else (a download in /tmp, ~/go/bin/x) is not run
    // unattended.
    let mut project_code = false;
    if let Some(path) = program_path(inv, home) {
        // A project file named like a program people know (`./ls`,
        // `./git`) is made to be mistaken for it: a human looks. The
        // project's own wrappers of a build tool (`./gradlew`, `./mvnw`) are
        // that tool.
        let known = lookup(&base).is_some()
            || is_side_effect(&base)
            || is_path_aware(&base)
            || safe
                .entries()
                .any(|e| e.split_whitespace().next() == Some(base.as_str()));
        // The project's own environment (`.venv/bin/pytest`,
        // `node_modules/.bin/eslint`): the program it names, installed for
        // the project, judged as that program. Its entries are often links
        // to the base interpreter (`.venv/bin/python -> /usr/bin/python3`):
        // the directory must lie in the project, the entry may lead out.
        let parent = paths::parent(&path);
        let env_bin =
            known && ENV_BINS.iter().any(|d| parent.ends_with(d)) && (place.in_project)(&parent);
        // The toolchains' install directories (`~/go/bin/golangci-lint`,
        // `~/.cargo/bin/cargo-nextest`): where `go install` and `cargo
        // install` put the program a bare name finds on `PATH`; a sandboxed
        // run cannot write there. Judged by its name, as that bare name is.
        let tool_bin = known
            && USER_TOOL_BINS
                .iter()
                .any(|d| parent == expand_home(d, home));
        if env_bin || tool_bin {
            // judged below by its name
        } else if (place.in_project)(&path) {
            let binstub = BINSTUBS.contains(&base.as_str()) && parent.ends_with("/bin");
            if known && !PROJECT_WRAPPERS.contains(&base.as_str()) && !binstub {
                return Fit::No;
            }
            project_code = true;
        } else if !SYSTEM_BIN.iter().any(|d| parent == *d) {
            return Fit::No;
        }
    }
    let writes = writes_redirect(inv);
    if matches!(base.as_str(), "bash" | "sh") {
        return shell_script_fit(inv, home, place);
    }
    let words = Words::of(inv, home);
    let args = words.args();
    let Some(prog) = lookup(&base) else {
        if project_code {
            return Fit::Build;
        }
        if let [Arg::Static(flag)] = args.as_slice() {
            let version = (*flag == "--version" && VERSIONED_UNMODELLED.contains(&base.as_str()))
                || UNMODELLED_VERSION_FLAGS
                    .iter()
                    .find(|(id, _)| *id == base)
                    .is_some_and(|(_, flags)| flags.contains(flag));
            if version && program_path(inv, home).is_none() {
                return Fit::Build;
            }
        }
        if is_side_effect(&base) {
            return if writes { Fit::Edit } else { Fit::Passive };
        }
        return reader_fit(inv, safe, writes, place);
    };
    // A version or help query of a program the model knows (`cargo
    // --version`, `pnpm --version`, `cargo --help`): it starts, prints and
    // exits.
    // Started confined, whatever a shim runs for it (rustup's toolchain
    // file, a project's pinned package manager) has no network and writes
    // only the project.
    if let [Arg::Static(flag)] = args.as_slice() {
        if matches!(*flag, "--version" | "--help") {
            return Fit::Build;
        }
    }
    // The program's own spellings, one or a few words (`java -version`,
    // `helm version --short`, `kubectl version --client`).
    let statics: Option<Vec<&str>> = args
        .iter()
        .map(|a| match a {
            Arg::Static(t) => Some(*t),
            _ => None,
        })
        .collect();
    if let Some(words) = statics.filter(|w| !w.is_empty()) {
        let joined = words.join(" ");
        let own = VERSION_FLAGS
            .iter()
            .find(|(id, _)| *id == prog.id)
            .is_some_and(|(_, flags)| flags.contains(&joined.as_str()));
        if own {
            return Fit::Build;
        }
    }
    let parsed = parse(prog, &args);
    if network_or_worse(&parsed) {
        return Fit::No;
    }
    if prog.id == "git" {
        // A read-only form whose output goes to a file (`git diff >
        // changes.patch`) is an edit like `cat f > out`: the redirect's
        // target is checked as any edit's.
        return match git_fit(&parsed, &args) {
            Fit::Passive if writes => reader_fit(inv, safe, writes, place),
            f => f,
        };
    }
    if local_query(&parsed)
        && parsed.problems.is_empty()
        && judge::uncovered(&parsed, &args).is_empty()
    {
        return Fit::Build;
    }
    let leaf = parsed.leaf();
    match leaf.kind {
        Kind::Build => build_fit(&parsed, &args),
        Kind::Writer => {
            if EDIT_WRITERS.contains(&prog.id.as_str()) {
                Fit::Edit
            } else {
                Fit::No
            }
        }
        Kind::Reader => {
            if parsed.any_effect(fx::INPLACE) {
                // `sed -i`, `yq -i`: the program text must be what a
                // read-only form accepts (no `e`, `w`, `r` commands).
                let clean = parsed.problems.is_empty()
                    && judge::uncovered(&parsed, &args).is_empty()
                    && parsed
                        .opts
                        .iter()
                        .filter(|o| !o.negated && !o.opt.has(fx::INPLACE))
                        .all(|o| o.opt.safe());
                if clean {
                    Fit::Edit
                } else {
                    Fit::No
                }
            } else {
                reader_fit(inv, safe, writes, place)
            }
        }
        Kind::Other | Kind::System => {
            if project_code {
                Fit::Build
            } else if writes {
                reader_fit(inv, safe, writes, place)
            } else {
                Fit::Passive
            }
        }
        Kind::Runner => runner_fit(inv, &parsed, home, safe, place),
        Kind::Interpreter => interpreter_fit(inv, &parsed, &args, place),
        Kind::Installer => shorthand_fit(inv, &parsed, home, safe, place),
        Kind::Network => Fit::No,
    }
}

/// `pnpm vitest run`, `yarn tsc --noEmit`: a word that is not one of the
/// package manager's commands runs the package.json script of that name,
/// or else the installed bin (rt23, rt17a G7). Either is project code; it
/// is judged as `pnpm exec WORD…` is — by the tool's own model, only a
/// build or test tool the model knows qualifies (`pnpm dedupe`, a pnpm
/// command the model does not list, or `pnpm cowsay` do not).
fn shorthand_fit(
    inv: &Invocation,
    parsed: &Parsed,
    home: &str,
    safe: &SafeVerbs,
    place: &Place,
) -> Fit {
    if !matches!(parsed.program.id.as_str(), "pnpm" | "yarn")
        || parsed.nodes.len() != 1
        || parsed.any_effect(fx::CODE | fx::SCOPE)
    {
        return Fit::No;
    }
    let Some(at) = parsed.operands().first().map(|o| o.at) else {
        return Fit::No;
    };
    // The words after the tool's name are its own (`pnpm tsc --noEmit`):
    // options pnpm does not know there are the tool's, judged by its
    // model; before it, every option must be one pnpm's model knows.
    if parsed.problems.iter().any(|p| p.at() <= at) {
        return Fit::No;
    }
    let inner = inner_command(inv, at);
    let Some(tool) = inner.argv.first().and_then(|w| w.literal()) else {
        return Fit::No;
    };
    // A name with a path, a scope or a version is not an installed bin's.
    if tool.contains(['/', '@', ':', '.']) || tool.starts_with('-') {
        return Fit::No;
    }
    match fit(&inner, home, safe, place) {
        f @ (Fit::Build | Fit::Edit) => f,
        _ => Fit::No,
    }
}

/// A build tool's run as the model reads it: a build, unless its
/// subcommand is one the model does not know (`meson init`), an option's
/// value is deleted (`pytest --basetemp=src` empties `src`) or written
/// somewhere unnamed, it replaces the toolchain, or a target names a
/// release or a loss of data.
fn build_fit(p: &Parsed, args: &[Arg]) -> Fit {
    let unknown_sub = p.program.root.sub_required && p.nodes.len() < 2;
    let deletes = p
        .opts
        .iter()
        .any(|o| !o.negated && o.opt.value == Role::Delete);
    if unknown_sub
        || deletes
        || writes_unnamed(p)
        || changes_the_toolchain(p, args)
        || names_a_stop_target(p, args)
        || opens_a_shell(p)
    {
        Fit::No
    } else {
        Fit::Build
    }
}

/// A build tool given no command opens its interactive shell (`sbt`
/// alone reads commands from standard input): not a build.
fn opens_a_shell(p: &Parsed) -> bool {
    p.program.id == "sbt" && p.positionals.is_empty()
}

/// Build targets that publish, deploy or release: they need the network
/// (which the sandbox takes away) and a human wants to see them anyway.
pub fn releases(verb: &str) -> bool {
    let hit = |t: &str| {
        RELEASE_WORDS
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w) || t.to_ascii_lowercase().starts_with(w))
    };
    let (program, rest) = verb.split_once(' ').unwrap_or((verb, ""));
    let rest_hits = rest.split([' ', ':', '-', '_', '/']).any(hit);
    if program.contains('/') {
        // A program named by its path: its file name says what it is
        // (`./scripts/release.sh`); the directories it lies in do not
        // (`./target/release/app` is cargo's optimized build).
        basename(program).split([':', '-', '_', '.']).any(hit) || rest_hits
    } else {
        program.split([':', '-', '_']).skip(1).any(hit) || rest_hits
    }
}

/// The other spellings of a version or installation query, by program
/// (`ruby -v`, `java -version`, `dotnet --info`, `go version`): a lone word
/// that prints and exits.
const VERSION_FLAGS: &[(&str, &[&str])] = &[
    ("python", &["-V"]),
    ("node", &["-v"]),
    ("ruby", &["-v"]),
    ("perl", &["-v", "-V", "--version"]),
    ("php", &["-v"]),
    ("java", &["-version"]),
    ("deno", &["-V"]),
    ("bun", &["-v"]),
    ("npm", &["-v", "-h", "help"]),
    ("pnpm", &["-v"]),
    ("yarn", &["-v"]),
    ("bundle", &["-v", "version"]),
    ("gem", &["-v"]),
    ("uv", &["-V", "version"]),
    ("pip", &["-V"]),
    ("cargo", &["-V", "--list"]),
    ("rustc", &["-V"]),
    ("awk", &["--version", "-W version", "-V"]),
    ("unzip", &["-v"]),
    ("rustfmt", &["-V"]),
    ("rustup", &["-V"]),
    ("go", &["version"]),
    ("dotnet", &["--info", "--list-sdks", "--list-runtimes"]),
    ("mvn", &["-v"]),
    ("gradle", &["-v"]),
    ("terraform", &["version", "-v", "-version"]),
    (
        "helm",
        &[
            "version",
            "version --short",
            "version --template={{.Version}}",
        ],
    ),
    (
        "kubectl",
        &[
            "version --client",
            "version --client=true",
            "version --client -o json",
            "version --client -o yaml",
            "version --client --output=json",
            "version --client --output=yaml",
        ],
    ),
];

/// Version spellings of toolchain drivers the program model does not
/// describe (`javac -version`, `clippy-driver -V`).
const UNMODELLED_VERSION_FLAGS: &[(&str, &[&str])] = &[
    ("javac", &["-version", "--version", "-help", "--help"]),
    ("openssl", &["version"]),
    ("clippy-driver", &["--version", "-V"]),
];

/// Toolchain drivers the program model does not describe, whose lone
/// `--version` prints and exits (`elixir --version`, `gcc --version`).
const VERSIONED_UNMODELLED: &[&str] = &[
    "elixir", "iex", "erl", "gcc", "g++", "clang", "clang++", "ghc", "kotlin", "kotlinc", "scala",
    "protoc", "node-gyp", "ld", "ld.bfd", "ld.gold", "as", "strip", "objcopy", "gpg", "gpg2",
    "vim", "nvim",
];

/// Package managers' queries of what is installed (`poetry show`, `pnpm
/// why zod`, `uv pip list`, `gem list`): they read the project's manifest
/// and lock file and the installed packages, and print. Some load project
/// or installed code on the way (a Gemfile is Ruby, a `.pth` file runs at
/// Python's start), and a few options ask a registry (`--outdated`): run
/// confined, that code writes only the project and the network is off.
/// `helm show values DIR` prints a local chart's files the same way (a
/// chart named by repository or URL would be fetched: no network there).
const LOCAL_QUERIES: &[(&str, &[&str])] = &[
    ("poetry", &["show"]),
    ("pnpm", &["why"]),
    ("pnpm", &["list"]),
    ("npm", &["ls"]),
    ("npm", &["root"]),
    ("npm", &["prefix"]),
    ("npm", &["explain"]),
    ("yarn", &["why"]),
    ("yarn", &["list"]),
    ("bundle", &["show"]),
    ("bundle", &["info"]),
    ("bundle", &["check"]),
    ("bundle", &["platform"]),
    ("gem", &["which"]),
    ("gem", &["contents"]),
    ("gem", &["info"]),
    ("ruff", &["rule"]),
    ("ruff", &["linter"]),
    ("pip", &["hash"]),
    ("pip", &["inspect"]),
    ("poetry", &["check"]),
    ("uv", &["pip", "check"]),
    ("uv", &["export"]),
    ("composer", &["validate"]),
    ("composer", &["licenses"]),
    ("composer", &["check-platform-reqs"]),
    ("composer", &["depends"]),
    ("bundle", &["list"]),
    ("gem", &["list"]),
    ("uv", &["pip", "list"]),
    ("uv", &["pip", "show"]),
    ("uv", &["pip", "freeze"]),
    ("uv", &["pip", "tree"]),
    ("uv", &["tree"]),
    ("pip", &["list"]),
    ("pip", &["show"]),
    ("pip", &["freeze"]),
    ("pipx", &["list"]),
    ("rustup", &["toolchain", "list"]),
    ("rustup", &["show"]),
    ("rustup", &["which"]),
    ("rustup", &["target", "list"]),
    ("rustup", &["component", "list"]),
    ("helm", &["plugin", "list"]),
    ("helm", &["show", "all"]),
    ("helm", &["show", "chart"]),
    ("helm", &["show", "crds"]),
    ("helm", &["show", "readme"]),
    ("helm", &["show", "values"]),
    ("conda", &["list"]),
    ("terraform", &["workspace", "show"]),
    ("uv", &["python", "list"]),
    ("composer", &["show"]),
];

/// Whether the parsed call is one of [`LOCAL_QUERIES`], its subcommands
/// exactly (`uv pip list`, not `uv pip install`).
fn local_query(p: &Parsed) -> bool {
    let subs: Vec<&str> = p
        .nodes
        .iter()
        .skip(1)
        .map(|n| n.names.first().map_or("", |s| s.as_str()))
        .collect();
    LOCAL_QUERIES
        .iter()
        .any(|(id, path)| *id == p.program.id && subs.as_slice() == *path)
}

/// Runners that only change how a program runs, in the same process tree
/// (`valgrind ./tests/x`, `nice make`), or run the project's installed tool
/// (`npx jest`; a package that is not installed would be downloaded, and
/// the sandbox has no network): the fit of the program they run, when that
/// is a build or an edit.
const PLAIN_RUNNERS: &[&str] = &[
    "valgrind", "strace", "ltrace", "stdbuf", "nice", "ionice", "taskset", "xvfb-run", "faketime",
    "chrt", "numactl", "prlimit", "timeout", "nohup", "npx",
];

/// Python modules that are test runners, linters and formatters: `python
/// -m pytest` is the project's tests, as `pytest` is.
const PY_BUILD_MODULES: &[&str] = &[
    "pytest",
    "unittest",
    "doctest",
    "mypy",
    "pylint",
    "flake8",
    "black",
    "isort",
    "ruff",
    "coverage",
    "tox",
    "nox",
    // The standard library's tools over the project's files (rt17a G4):
    // a JSON pretty-printer, the import path, byte-compiling, a
    // virtualenv in the project (its paths are checked like any operand).
    "json.tool",
    "site",
    "compileall",
    "py_compile",
    "venv",
];

/// Interpreters whose first operand is a script file they run.
const SCRIPT_INTERPRETERS: &[&str] = &["python", "node", "ruby", "perl", "php"];

/// Interpreter options that change nothing but diagnostics, warnings and
/// optimisation (canonical names): any other option — a debugger or REPL
/// reading standard input (`-i`, `-d`), a program found on `PATH` (`-S`),
/// loop wrappers (`-n`, `-p`), preloaded modules — is not run unattended.
const HARMLESS_OPTIONS: &[(&str, &[&str])] = &[
    (
        "python",
        &[
            "-u", "-B", "-O", "-OO", "-E", "-s", "-I", "-P", "-q", "-b", "-W",
        ],
    ),
    (
        "node",
        &[
            "--test",
            "--test-name-pattern",
            "--test-only",
            "--test-concurrency",
            "--test-timeout",
            "--test-shard",
            "--enable-source-maps",
            "--no-warnings",
            "--trace-warnings",
            // A syntax check: the script is parsed, not run.
            "-c",
        ],
    ),
    // `ruby -c` and `php -l` check the syntax only.
    ("ruby", &["-w", "-W", "-c"]),
    ("perl", &["-w", "-W", "-X", "-T", "-t"]),
    ("php", &["-l"]),
];

/// Words naming a step that publishes, deploys or releases.
const RELEASE_WORDS: &[&str] = &[
    "deploy", "publish", "release", "upload", "push", "ship", "promote", "rollout", "apply",
    "destroy", "install",
];

/// Words naming a loss of data (`manage.py flush`, `rake db:drop`).
const DATA_LOSS_WORDS: &[&str] = &[
    "flush",
    "drop",
    "wipe",
    "purge",
    "truncate",
    "reset",
    "delete",
    "clobber",
    "replant",
    "rollback",
    "downgrade",
    "schema:load",
    "structure:load",
];

/// Whether a word of a script's path, its arguments or a task runner's
/// targets names a release or a loss of data anywhere in it
/// (`tools/doDeploy.py`, `scripts/predeploy.sh`). Test names are exempt
/// (`test_delete.py`, `apps.users.tests.test_reset`): a test is the
/// project's own check.
fn stop_word(w: &str) -> bool {
    let w = w.to_ascii_lowercase();
    !w.contains("test")
        && RELEASE_WORDS
            .iter()
            .chain(DATA_LOSS_WORDS)
            .any(|s| w.contains(s))
}

/// A task runner's target (operand of a `targets` node: make, rake, just,
/// gradle tasks) naming a release or a loss of data anywhere in the word
/// (`rake db:drop`, `make db-reset`, `just deploy-prod`): the verb does not
/// always show it (a word with `:` is not a verb word), so it is read here.
fn names_a_stop_target(p: &Parsed, args: &[Arg]) -> bool {
    if !p.nodes.iter().any(|n| n.targets) && !p.leaf().targets {
        return false;
    }
    let words: Vec<&str> = p
        .positionals
        .iter()
        .filter_map(|&i| match args.get(i) {
            Some(Arg::Static(t)) => Some(*t),
            _ => None,
        })
        .collect();
    // `rake db:migrate VERSION=0` migrates the database down.
    let db_version =
        words.iter().any(|w| w.contains("db:")) && words.iter().any(|w| w.starts_with("VERSION="));
    db_version || words.iter().any(|t| !t.contains('=') && stop_word(t))
}

/// Directories of installed tools, not the project's own scripts
/// (`python3 .venv/bin/pip`, `node node_modules/npm/bin/npm-cli.js`).
const TOOL_DIRS: &[&str] = &[
    "node_modules",
    ".venv",
    "venv",
    "site-packages",
    "dist-packages",
];

/// `python -m pytest …`: a build. A script of the project run by its
/// interpreter (`python3 manage.py test`, `node scripts/build.js`) is the
/// project's own code, as `./scripts/build.sh` is. Code given on the
/// command line (`-c`, `-e`), standard input, another module, options
/// beyond [`HARMLESS_OPTIONS`], a script outside the project, or one whose
/// path or arguments name a release step is not run unattended.
fn interpreter_fit(inv: &Invocation, p: &Parsed, args: &[Arg], place: &Place) -> Fit {
    if !SCRIPT_INTERPRETERS.contains(&p.program.id.as_str()) || p.any_effect(fx::CODE) {
        return Fit::No;
    }
    if let Some(module) = p.opts.iter().find(|o| o.opt.name == "-m") {
        if p.program.id != "python" {
            return Fit::No;
        }
        let value = module.value;
        // `python3 -m pip list|show|freeze`: pip's own read-only forms and
        // local queries, as bare `pip` (the module is looked up from the
        // working directory first, so it runs confined, never as a safe read).
        if let (Some(v), Some("pip" | "pip3")) = (value, value.and_then(|v| p.value_text(args, v)))
        {
            let (Some(prog), Some(rest)) = (lookup("pip"), args.get(v.at + 1..)) else {
                return Fit::No;
            };
            let inner = parse(prog, rest);
            let query = judge::read_only(&inner, rest).is_ok()
                || (local_query(&inner) && inner.problems.is_empty());
            return if query && judge::uncovered(&inner, rest).is_empty() {
                Fit::Build
            } else {
                Fit::No
            };
        }
        let Some(m) = value
            .and_then(|v| p.value_text(args, v))
            .filter(|m| PY_BUILD_MODULES.contains(m))
        else {
            return Fit::No;
        };
        // `venv DIR` only: no option (`--clear` empties DIR, `--upgrade-deps`
        // runs pip against the package index), one directory named for a
        // virtualenv (`.venv`, `venv2`) — not `src`, whose files it would
        // mix with an environment's.
        if m == "venv" {
            let rest = value.and_then(|v| args.get(v.at + 1..)).unwrap_or(&[]);
            let ok = matches!(rest, [Arg::Static(t)]
                if !t.starts_with('-') && basename(t).to_ascii_lowercase().contains("venv"));
            if !ok {
                return Fit::No;
            }
        }
        // The module's own arguments, read with its program's model and
        // judged as that program's run (`python3 -m pytest --basetemp=src`
        // deletes `src` as `pytest --basetemp=src` does).
        if let (Some(v), Some(prog)) = (value, lookup(m)) {
            let rest = args.get(v.at + 1..).unwrap_or(&[]);
            let inner = parse(prog, rest);
            if !judge::uncovered(&inner, rest).is_empty() {
                return Fit::No;
            }
            return build_fit(&inner, rest);
        }
        return Fit::Build;
    }
    let harmless = HARMLESS_OPTIONS
        .iter()
        .find(|(id, _)| *id == p.program.id)
        .map_or(&[][..], |(_, o)| *o);
    // A load path of the project's own (`ruby -Itest test/x_test.rb`, the
    // minitest way to run one file): relative, never above the working
    // directory; one elsewhere (`-I/tmp/evil`) loads code from there.
    let project_load_path = |o: &shellgate_programs::OptUse| {
        matches!(p.program.id.as_str(), "ruby" | "perl")
            && o.opt.name == "-I"
            && o.value
                .and_then(|v| p.value_text(args, v))
                .is_some_and(|d| {
                    !d.is_empty()
                        && !d.starts_with(['/', '~', '-'])
                        && !d.split('/').any(|seg| seg == "..")
                })
    };
    if !p.problems.is_empty()
        || p.opts
            .iter()
            .any(|o| !harmless.contains(&o.opt.name.as_str()) && !project_load_path(o))
    {
        return Fit::No;
    }
    let Some(&first) = p.positionals.first() else {
        // `node --test`: the project's test files, found by the runner.
        if p.program.id == "node" && p.has("--test") {
            return Fit::Build;
        }
        return Fit::No;
    };
    let rest: Option<Vec<&str>> = args
        .iter()
        .skip(first + 1)
        .map(|a| match a {
            Arg::Static(t) => Some(*t),
            Arg::Dynamic { .. } => None,
        })
        .collect();
    match (args.get(first), rest) {
        (Some(Arg::Static(script)), Some(rest)) => project_script(inv, script, &rest, place),
        _ => Fit::No,
    }
}

/// `bash scripts/test.sh ARGS…`, `sh ./ci/check.sh`: the project's script
/// run by a shell, as `./scripts/test.sh` runs it (no shell options: `-c`
/// is a command string, `-s` reads standard input).
fn shell_script_fit(inv: &Invocation, home: &str, place: &Place) -> Fit {
    let words: Option<Vec<String>> = inv.argv.iter().skip(1).map(|w| w.expanded(home)).collect();
    let Some(words) = words else {
        return Fit::No;
    };
    let Some((script, rest)) = words.split_first() else {
        return Fit::No;
    };
    if script.starts_with('-') || script.starts_with('+') {
        return Fit::No;
    }
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    project_script(inv, script, &rest, place)
}

/// A script file named by a static path inside the project: a regular file
/// (not a directory with an entry point, not a link, not a glob), not
/// standard input, not an installed tool, and neither its path nor its
/// arguments naming a release step.
fn project_script(inv: &Invocation, script: &str, rest: &[&str], place: &Place) -> Fit {
    if script.is_empty()
        || script == "-"
        || script.starts_with("/dev/")
        || script.starts_with("/proc/")
        || script.contains(['*', '?', '[', ']', '{', '}'])
    {
        return Fit::No;
    }
    // Django's deployment checklist (`manage.py check --deploy`) reads the
    // settings and prints warnings: its `deploy` deploys nothing.
    let django_check = basename(script) == "manage.py" && rest == ["check", "--deploy"];
    if stop_word(script) || (!django_check && rest.iter().any(|w| stop_word(w))) {
        return Fit::No;
    }
    let path = if script.starts_with('/') {
        paths::normalize(script)
    } else {
        match inv.cwd.as_deref() {
            Some(c) => paths::resolve(c, script),
            None => return Fit::No,
        }
    };
    if path.split('/').any(|seg| TOOL_DIRS.contains(&seg)) {
        return Fit::No;
    }
    if (place.in_project)(&path) && (place.regular_file)(&path) {
        Fit::Build
    } else {
        Fit::No
    }
}

/// Subcommands that run a command in the project's own environment
/// (`uv run pytest`, `poetry run pytest`, `bundle exec rake test`).
const PROJECT_ENV_RUNNERS: &[(&str, &str)] = &[
    ("uv", "run"),
    ("poetry", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("rye", "run"),
    ("pixi", "run"),
    ("bundle", "exec"),
];

/// The package managers' own runners of an installed bin (`pnpm exec tsc
/// --noEmit`, `yarn exec jest`, `npm exec -- tsc`): as `npx` (a plain
/// runner), judged by the tool they run when the model knows it; a name it
/// does not know may be a package fetched from the registry (`npm exec
/// cowsay`), not a project tool.
const PLAIN_SUB_RUNNERS: &[(&str, &str)] = &[("pnpm", "exec"), ("yarn", "exec"), ("npm", "exec")];

/// The command line a runner runs: its words from argument `at` (indices
/// of the words after the program), in the runner's invocation otherwise.
fn inner_command(inv: &Invocation, at: usize) -> Invocation {
    let mut inner = inv.clone();
    inner.argv = inv.argv.iter().skip(at + 1).cloned().collect();
    inner
}

fn runner_fit(
    inv: &Invocation,
    parsed: &Parsed,
    home: &str,
    safe: &SafeVerbs,
    place: &Place,
) -> Fit {
    let sub = parsed
        .nodes
        .get(1)
        .and_then(|n| n.names.first())
        .map(|s| s.as_str());
    let plain = (parsed.nodes.len() == 1 && PLAIN_RUNNERS.contains(&parsed.program.id.as_str()))
        || (parsed.nodes.len() == 2
            && PLAIN_SUB_RUNNERS
                .iter()
                .any(|(p, s)| *p == parsed.program.id && Some(*s) == sub));
    let project_env = parsed.nodes.len() == 2
        && PROJECT_ENV_RUNNERS
            .iter()
            .any(|(p, s)| *p == parsed.program.id && Some(*s) == sub);
    // Code given to the runner, or extra packages it adds (`uv run --with`).
    // An option the model does not know may change how the command line
    // runs (`pnpm exec --shell-mode tsc '&&' rm -rf src` hands it to a
    // shell): the runner is judged only with options it knows.
    if !(plain || project_env)
        || parsed.any_effect(fx::CODE | fx::SCOPE)
        || !parsed.problems.is_empty()
    {
        return Fit::No;
    }
    let Some(at) = parsed
        .operands()
        .iter()
        .find(|o| o.role == Role::Argv)
        .map(|o| o.at)
    else {
        return Fit::No;
    };
    // `at` indexes the words after the program; the runner's own words
    // (program, subcommand, options) come first.
    let inner = inner_command(inv, at);
    if inner.argv.is_empty() {
        return Fit::No;
    }
    match fit(&inner, home, safe, place) {
        f @ (Fit::Build | Fit::Edit) => f,
        Fit::Passive | Fit::No => {
            // Not `npx`: a package it does not find installed is downloaded
            // (`npx left-pad`), someone else's code, not the project's.
            let env_runner = project_env;
            let plain_options = parsed
                .opts
                .iter()
                .all(|o| o.negated || RUNNER_PLAIN_OPTIONS.contains(&o.opt.name.as_str()));
            if env_runner
                && plain_options
                && parsed.problems.is_empty()
                && project_tool(&inner, home, safe)
            {
                Fit::Build
            } else {
                Fit::No
            }
        }
    }
}

/// Options of a project-environment runner that change neither what it
/// runs nor where it comes from (`npx -y`, `uv run --frozen`); any other
/// (`npx -p PKG`, `uv run --with PKG`, `--from`, `--python`) names the
/// package or interpreter, and a tool the model does not know is then run
/// only with a human's answer.
const RUNNER_PLAIN_OPTIONS: &[&str] = &[
    "-y",
    "--yes",
    "-q",
    "--quiet",
    "--silent",
    "--frozen",
    "--locked",
    "--offline",
    "--no-sync",
    "--no-install",
];

/// Command interpreters the shell analysis does not name: a project
/// runner started with one reads commands, it runs no tool.
const OTHER_SHELLS: &[&str] = &[
    "csh", "tcsh", "fish", "ash", "ksh", "mksh", "yash", "xonsh", "elvish", "nu", "busybox",
    "toybox", "ipython", "irb", "pry", "tclsh", "wish", "expect", "guile", "racket", "sbcl",
    "clisp", "ocaml", "swipl", "graalpy", "pypy", "jython", "R", "Rscript", "julia", "octave",
    "jshell", "groovy", "clojure", "clj", "scala", "elixir", "iex", "erl", "escript", "lua",
    "luajit", "tcc", "gdb", "lldb",
];

/// A tool the model does not know, run by a project-environment runner
/// (`uv run alembic upgrade head`, `bundle exec brakeman`, `poetry run
/// mytool`): a package the project installed (or one on `PATH`),
/// judged as the project's own code is — run confined, never when its name
/// or an argument names a release or a loss of data, and never a shell,
/// an interpreter or a program the gate knows by another rule.
fn project_tool(inner: &Invocation, home: &str, safe: &SafeVerbs) -> bool {
    if inner.crude {
        return false;
    }
    let Some(program) = inner.program() else {
        return false;
    };
    let plain = !program.is_empty()
        && program.starts_with(|c: char| c.is_ascii_alphanumeric())
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
    if !plain
        || lookup(&program).is_some()
        || is_side_effect(&program)
        || is_path_aware(&program)
        || is_interpreter(&program)
        || is_shell(&program)
        || other_shell(&program)
        || safe
            .entries()
            .any(|e| e.split_whitespace().next() == Some(program.as_str()))
        || stop_word(&program)
    {
        return false;
    }
    // A tool followed by a program it runs (`setpriv bash -c …`, `foreman
    // run rm -rf .`, `coverage run -m x`): an exec wrapper, not the
    // project's tool (rt10 F5). A later word naming a shell, an
    // interpreter, git, or a program the model knows as anything but a
    // reader or a build (a writer, runner, installer, network client), or a
    // code option (`-c`, `-e`, `-m`), refuses. (Readers and builds are
    // ordinary words too: `alembic upgrade head`, `tool test`.)
    let words = Words::of(inner, home);
    !words.texts.iter().any(|(t, _)| {
        let base = basename(t);
        // Any program the model knows (awk's `system()`, sed's `e`, find's
        // `-exec` run code too, rt11 F1), but for words that are also
        // ordinary subcommand or argument words.
        const WORDS: &[&str] = &[
            "head", "test", "run", "list", "show", "status", "check", "build", "version", "help",
            "info", "tree", "stat", "date", "id", "sort", "file", "which", "more", "seq", "cut",
            "join", "split", "install", "init", "w",
        ];
        let runs = lookup(base).is_some() && !WORDS.contains(&base);
        stop_word(t)
            || runs
            || is_interpreter(base)
            || is_shell(base)
            || other_shell(base)
            || matches!(
                t.as_str(),
                "-c" | "-e" | "--exec" | "--command" | "-m" | "--eval"
            )
    })
}

/// A command interpreter the analysis does not name, versioned spellings
/// included (`tclsh8.6`, `busybox.static`, `ksh93`).
fn other_shell(name: &str) -> bool {
    let stem = name
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
        .trim_end_matches(".static")
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    OTHER_SHELLS.contains(&stem) || OTHER_SHELLS.contains(&name)
}

/// A reader: `Edit` when its only write is a redirect, `Passive` when it
/// writes nothing.
fn reader_fit(inv: &Invocation, safe: &SafeVerbs, writes: bool, place: &Place) -> Fit {
    if !writes {
        return Fit::Passive;
    }
    let mut probe = inv.clone();
    probe.redirects.retain(|r| !r.kind.writes());
    if safe.qualifies(&probe, place.search_path) {
        Fit::Edit
    } else {
        Fit::No
    }
}

/// A write redirect to a file other than the exempt devices.
pub fn writes_redirect(inv: &Invocation) -> bool {
    inv.redirects.iter().any(|r| {
        r.kind.writes()
            && match &r.target {
                RedirTarget::File(w) => w
                    .literal()
                    .is_none_or(|t| !EXEMPT_DEVICES.contains(&t.as_str())),
                _ => false,
            }
    })
}

/// Options or operands that contact a remote, select another package
/// source, reveal secrets, delete, or can only be approved once; git's
/// network subcommands.
fn network_or_worse(p: &Parsed) -> bool {
    if p.any_effect(NEVER) {
        return true;
    }
    if p.opts
        .iter()
        .any(|o| !o.negated && o.opt.value == Role::Net && o.value.is_some())
    {
        return true;
    }
    if p.operands()
        .iter()
        .any(|o| matches!(o.role, Role::Net | Role::Remote))
    {
        return true;
    }
    if p.program.id == "git" {
        let sub = p
            .nodes
            .get(1)
            .and_then(|n| n.names.first())
            .map(|s| s.as_str());
        if sub.is_some_and(|s| GIT_NETWORK.contains(&s)) {
            return true;
        }
        if p.nodes.len() >= 3
            && sub == Some("remote")
            && p.nodes
                .get(2)
                .and_then(|n| n.names.first())
                .is_some_and(|s| matches!(s.as_str(), "update" | "prune" | "show"))
        {
            return true;
        }
    }
    false
}

/// git's local writes (SPEC §18 edits): staging, committing, switching and
/// creating branches, stashing, moving and removing tracked files — they
/// change only the project's working tree and `.git` (whose config, hooks
/// and info the sandbox keeps read-only), and git can undo them. Anything
/// with a modifier (`--hard`, `-D`, `--force`, paths mode of checkout) or
/// an option no grant covers is not an edit here.
fn git_fit(p: &Parsed, args: &[Arg]) -> Fit {
    // A read-only form (`git status`, `git diff --stat`) beside a local
    // write (`git add -A && git status --short`) runs confined too.
    if judge::read_only(p, args).is_ok() {
        return Fit::Passive;
    }
    const LOCAL: &[&str] = &["add", "commit", "switch", "stash", "mv", "rm", "restore"];
    let Some(sub) = p
        .nodes
        .get(1)
        .and_then(|n| n.names.first())
        .map(|s| s.as_str())
    else {
        return Fit::No;
    };
    let deeper = p
        .nodes
        .get(2)
        .and_then(|n| n.names.first())
        .map(|s| s.as_str());
    let ok_sub = LOCAL.contains(&sub)
        && match (sub, deeper) {
            (
                "stash",
                None | Some("push") | Some("pop") | Some("apply") | Some("list") | Some("show"),
            ) => true,
            ("stash", _) => false,
            _ => true,
        };
    // `git restore` only of the index (`--staged` without `--worktree`).
    // (An option is known by its first spelling in the spec: `-S`, `-W`.)
    let has = |names: &[&str]| names.iter().any(|n| p.has(n));
    let restore_ok = sub != "restore" || (has(&["-S", "--staged"]) && !has(&["-W", "--worktree"]));
    // `git checkout -b NAME [START]` creates a branch and switches to it (as
    // `git switch -c`); any other checkout may overwrite files of the
    // working tree (`git checkout go.sum` restores it from the index), which
    // git cannot undo.
    if sub == "checkout" {
        let new_branch = p.has("-b")
            && p.positionals.len() <= 1
            && p.dashdash.is_none()
            && p.opts
                .iter()
                .all(|o| matches!(o.opt.name.as_str(), "-b" | "-q" | "-t"));
        if !new_branch || !p.problems.is_empty() || !judge::uncovered(p, args).is_empty() {
            return Fit::No;
        }
        return Fit::Edit;
    }
    // Unstaging (`git restore --staged f`, the undo of `git add`) is what
    // `restore_ok` allows: its `--staged` is then the form, not a modifier.
    let unstage = sub == "restore" && restore_ok && !has(&["-s", "--source", "-p", "--patch"]);
    let modifiers = judge::modifiers(p);
    if !ok_sub
        || !restore_ok
        || modifiers
            .iter()
            .any(|m| !(unstage && matches!(m.as_str(), "-S" | "--staged")))
        || judge::paths_mode(p, args)
        || !judge::uncovered(p, args).is_empty()
        || !p.problems.is_empty()
    {
        return Fit::No;
    }
    Fit::Edit
}

/// Build runs that fetch and run code nobody reviewed, or replace the
/// project's build tool: `go run pkg@version` (a remote module, as `npx`
/// runs a package), `./gradlew wrapper` and `mvn wrapper:wrapper` (the
/// next build, outside any sandbox, runs the new tool).
fn changes_the_toolchain(p: &Parsed, args: &[Arg]) -> bool {
    let sub = p
        .nodes
        .get(1)
        .and_then(|n| n.names.first())
        .map(|s| s.as_str());
    let operand = |f: &dyn Fn(&str) -> bool| {
        p.positionals.iter().any(|&i| match args.get(i) {
            Some(Arg::Static(t)) => f(t),
            Some(Arg::Dynamic { .. }) | None => true,
        })
    };
    match p.program.id.as_str() {
        "go" if sub == Some("run") => operand(&|t| t.contains('@')),
        "gradle" => operand(&|t| t == "wrapper" || t.ends_with(":wrapper")),
        "mvn" => operand(&|t| t.starts_with("wrapper:") || t.contains(":wrapper-maven-plugin")),
        _ => false,
    }
}

/// A build option that writes somewhere neither its value nor the
/// command's file operands name (`go env -w`, `make -t`): the human should
/// see it. In-place rewrites of the operands (`gofmt -w`) are checked as
/// paths.
fn writes_unnamed(p: &Parsed) -> bool {
    p.opts.iter().any(|o| {
        let named = o.value.is_some() && o.opt.value.is_path();
        let writes = o.opt.has(fx::WRITES) && !o.opt.has(fx::INPLACE);
        !o.negated && writes && !named
    })
}

/// Paths named by option values and operands with a path role (a build's
/// `-o FILE`, `-coverprofile=FILE`, `cp -t DIR`), resolved against `cwd`,
/// each with its role. `None` when one of them is dynamic (the caller
/// refuses).
pub fn model_paths(inv: &Invocation, home: &str) -> Option<Vec<(String, Role)>> {
    let program = inv.program()?;
    let Some(prog) = lookup(basename(&program)) else {
        return Some(Vec::new());
    };
    let words = Words::of(inv, home);
    let args = words.args();
    let parsed = parse(prog, &args);
    let mut out = Vec::new();
    for u in judge::uses(&parsed) {
        if !u.role.is_path() {
            continue;
        }
        let text = parsed.value_text(&args, u.value)?;
        if text.is_empty() || text == "-" {
            continue;
        }
        let e = expand_home(text, home);
        let p = if e.starts_with('/') {
            paths::normalize(&e)
        } else {
            match inv.cwd.as_deref() {
                Some(c) => paths::resolve(c, &e),
                None => return None,
            }
        };
        out.push((p, u.role));
    }
    Some(out)
}
