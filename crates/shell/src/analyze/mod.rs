//! The analysis walk: every simple command wherever it occurs (SPEC §3.2),
//! wrappers unwrapped (§3.3), complex reasons (§3.4), effective working
//! directories (§5.1) and approval units (§4.3).
//!
//! The walk is split by concern:
//! - `walk.rs` — lists, pipelines, compound commands, substitutions:
//!   collecting the simple commands;
//! - `unwrap.rs` — transparent wrappers (`env`, `timeout`, `nice` …);
//! - `cwd.rs` — `cd`/`pushd`/`popd` tracking and per-command directory
//!   flags (`git -C`, `make -C` …);
//! - `reasons.rs` — complex reasons that depend on the verb, dangerous
//!   environment names;
//! - `inline.rs` — `bash -c` strings, interpreters with inline code or a
//!   program on standard input, remote code;
//! - `xargs.rs` — the command lines `xargs` builds from literal input;
//! - `crude.rs` — text that did not parse.

mod code;
mod crude;
mod cwd;
mod download;
mod envkind;
mod evaluate;
mod inline;
mod model;
mod reasons;
mod unwrap;
mod walk;
mod xargs;

pub use envkind::{classify as classify_env, excused_by_value, EnvKind};
pub use model::{concerns_hard_deny, Reading, PROC_SUBST_INPUT};
pub use reasons::dangerous_env;

use crate::parse;
use crate::paths::basename;
use crate::syntax::{Redirect, Script};
use crate::word::Word;
use cwd::Cwd;
use walk::{Ctx, Walker};

/// Nesting (substitutions, groups, `bash -c`) followed to this depth.
pub const MAX_DEPTH: usize = 8;

/// The wrapper naming an invocation that runs on another machine (`ssh
/// HOST CMD`): only hard deny's destruction of a system concerns it there.
pub const REMOTE_SSH: &str = "remote:ssh";

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
    /// The directory it may run in instead, because a `cd` before it may
    /// have failed and the command still runs (`cd x; cmd`, `cd x || cmd`);
    /// `Some(None)` when that directory is not known. What it touches must
    /// be acceptable there too (rt14 F3).
    pub alt_cwd: Option<Option<String>>,
    /// Wrappers removed, outermost first (basenames); the command line of a
    /// runner the model knows is marked `runner:<program>` (it is walked
    /// ungated, for hard deny; the runner's own invocation is gated).
    pub wrappers: Vec<String>,
    /// Part of what the call must authorize. Inner commands of `xargs`,
    /// `find -exec` or a literal `eval` are only checked for hard deny.
    pub gated: bool,
    /// Inside a pipeline of two or more elements, or backgrounded.
    pub piped_or_async: bool,
    /// Reconstructed from text that did not parse (token scan).
    pub crude: bool,
    /// The program model's reading of the argv, when it knows the program.
    pub reading: Option<Reading>,
    /// Inside a command or process substitution (`$( … )`, `<( … )`): the
    /// text shows it only as part of another command.
    pub in_substitution: bool,
    /// Values of its leading assignments (`NAME=value cmd`): paths the
    /// command touches (§15.4).
    pub assigns: Vec<(String, Word)>,
    /// Why no grant may cover this command although it is not complex
    /// (an option or program text that runs code, an unknown option, another
    /// package source — SPEC §15.12, §15.15, §15.16): it is never safe,
    /// never granted, and offers no persistent option.
    pub uncovered: Vec<String>,
}

impl Invocation {
    /// The verb (approval key, SPEC §4.1) and whether it names what runs.
    pub fn verb(&self) -> Option<crate::verbs::Verb> {
        crate::verbs::verb_of(&self.argv, self.reading.as_ref())
    }

    /// The program word, when literal.
    pub fn program(&self) -> Option<String> {
        self.argv.first().and_then(Word::literal)
    }

    /// Lowercased basename of the program.
    pub fn base(&self) -> String {
        self.program()
            .map(|p| basename(&p).to_ascii_lowercase())
            .unwrap_or_default()
    }

    /// [`Invocation::base`] without a `.exe` suffix (`curl.exe`, `bash.exe`
    /// as the program they are), and `sh` for a program word that is
    /// `$SHELL` or `$BASH` (always a shell): what remote-code detection reads.
    pub fn run_base(&self) -> String {
        if self.program().is_none() && self.argv.first().is_some_and(inline::shell_variable) {
            return "sh".to_string();
        }
        crate::verbs::strip_exe(&self.base()).to_string()
    }
}

/// Everything the analysis found in one command.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Every simple command, in source order.
    pub invocations: Vec<Invocation>,
    /// Why the command cannot be judged statically (SPEC §3.4), in the
    /// order found, without duplicates; empty for a simple command.
    pub complex_reasons: Vec<String>,
    /// Approval units of the top level (§4.3), without duplicates.
    pub patterns: Vec<String>,
    /// The parse of the whole command, when it parsed.
    pub script: Option<Script>,
    /// A download reaches a shell or interpreter as its program.
    pub remote_code: bool,
    /// A function that calls itself through a pipe or in the background.
    pub fork_bomb: bool,
    /// Some command runs in the background (`cmd &`, at any depth): it
    /// may outlive the call (a server started for later commands).
    pub background: bool,
    /// Words no invocation carries, as written: the values of assignment
    /// statements (`X=$GITHUB_TOKEN;`, no command word) — a value copied to
    /// another name is printed from there — and the words of `[[ … ]]` and
    /// the text of `(( … ))`, whose matches land in `BASH_REMATCH` (rt17
    /// F2: `[[ $GITHUB_TOKEN =~ (.*) ]] && echo "${BASH_REMATCH[1]}"`).
    pub statement_values: Vec<String>,
    /// Names the call's assignment statements set (`X=1; echo $X`): their
    /// values are in `statement_values`.
    pub statement_names: Vec<String>,
    /// Literal program texts a shell reads from a pipe (`echo 'rm -rf ~' |
    /// bash`), with the directory they run in. The call is complex (SPEC
    /// §3.2; shared cases adv-223, cx-070 pin the ask a human then sees);
    /// where no human sees it (`auto` mode) the policy checks each text
    /// for hard deny (rt28a/rt28b).
    pub piped_programs: Vec<(String, Option<String>)>,
    /// A later command runs a file an earlier one downloaded (`curl -o
    /// i.sh URL && bash i.sh`): none of SPEC §9.3's `remote_code` routes
    /// (shared case opt-065 pins the ask a human then sees), so only
    /// `auto` mode, where nobody sees it, denies it (rt28a).
    pub runs_download: bool,
}

/// Context of the analysis that does not change while walking.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// The user's home directory (expands `~` and `$HOME`).
    pub home: String,
    /// Environment names the operator declared inert (`policy.toml`
    /// `[environment] inert`).
    pub inert: Vec<String>,
    /// The environment sets `CDPATH`: `cd NAME` (not `/…`, `./…`, `../…`,
    /// `.`, `..`) may go to a directory of it instead of below the working
    /// directory.
    pub cdpath: bool,
    /// The call's OS is Windows: `C:x` is a drive path there, while on
    /// Linux and macOS a one-letter prefix before `:` is a host
    /// (`tar -f h:a.tar`, `scp c:f .`).
    pub windows: bool,
}

/// Analyze a shell command with the call's working directory.
pub fn analyze(command: &str, cwd: Option<&str>, env: &Env) -> Analysis {
    let mut w = Walker::new(env);
    let mut c = Cwd {
        dir: cwd.map(str::to_string),
        stack: Vec::new(),
        vars: Default::default(),
        changed: false,
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
    out.runs_download = download::runs_download(&out.invocations, &env.home);
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

    /// Whether any complex reason was found.
    pub fn is_complex(&self) -> bool {
        !self.complex_reasons.is_empty()
    }
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
                ..Default::default()
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
        let a = an("timeout 30 nice -n 5 env LANG=C command rm -rf x");
        assert_eq!(programs(&a), vec!["rm"]);
        assert!(!a.is_complex());
        let a = an("bash -c 'git status && make'");
        assert_eq!(programs(&a), vec!["git", "make"]);
    }

    #[test]
    fn a_program_anchored_at_the_home_is_that_path() {
        for cmd in [
            "~/go/bin/goimports -w a.go",
            "$HOME/go/bin/goimports -w a.go",
        ] {
            let a = an(cmd);
            assert!(!a.is_complex(), "{cmd}: {:?}", a.complex_reasons);
            assert_eq!(programs(&a), vec!["/home/u/go/bin/goimports"], "{cmd}");
        }
        // Wrappers named so are unwrapped like any path to them.
        assert_eq!(programs(&an("~/bin/timeout 5 rm -rf x")), vec!["rm"]);
        for cmd in ["~root/bin/x", "~/bin/*", "~/{a,b}/x", "$HOME$X/x"] {
            assert!(
                an(cmd)
                    .complex_reasons
                    .contains(&"dynamic_verb".to_string()),
                "{cmd}"
            );
        }
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
    fn background_jobs_are_seen_at_any_depth() {
        for cmd in [
            "go run ./cmd/api &",
            "go run ./cmd/api > /tmp/api.log 2>&1 & sleep 2",
            "(npm run dev &)",
            "bash -c 'make serve &'",
            "echo \"$(sleep 9 & echo x)\"",
            "{ ./server & } ; echo started",
        ] {
            assert!(an(cmd).background, "{cmd}");
        }
        for cmd in [
            "go test ./...",
            "make && make test",
            "echo '&'",
            "a && b",
            "x 2>&1 | tee l",
        ] {
            assert!(!an(cmd).background, "{cmd}");
        }
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
