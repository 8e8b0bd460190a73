//! The `shellgate` command line: argument parsing and the subcommands,
//! on top of `shellgate-engine`. The binary (`main.rs`) only calls
//! [`main_entry`]; the library exists so fuzz targets can drive the hooks.

pub mod approvals;
pub mod check;
pub mod completions;
pub mod decide;
pub mod edge;
pub mod exec;
pub mod explain;
pub mod hook;
pub mod install;
pub mod session;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use shellgate_policy::{Audience, Channel, Os};

use crate::edge::{CallFlags, UsageError};

#[derive(Parser, Debug)]
#[command(
    name = "shellgate",
    version,
    about = "Decide whether an AI agent's shell command may run: allow, ask a human, or deny.",
    long_about = "shellgate parses the real bash of a proposed command, gates every simple command in it \
(pipes, substitutions, bash -c, wrappers), denies destructive ones outright, and allows the rest only \
when a human granted (verb, directory) or the command is a read-only verb inside the project.\n\n\
Exit status of check: 0 allow, 10 ask, 11 deny, 2 usage error, 1 internal error."
)]
struct Cli {
    /// The gate's home directory (default: $SHELLGATE_HOME, else ~/.shellgate).
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Evaluate a call and print the decision (exit 0 allow, 10 ask, 11 deny).
    Check(check::CheckArgs),
    /// Explain a decision for a human: commands, candidates, rules, prompt.
    #[command(
        after_help = "Example:\n  shellgate explain --cwd ~/repos/app -- 'make build > /tmp/log'"
    )]
    Explain(CallArgs),
    /// Apply a prompt answer to a call, persisting what the option persists.
    Decide(decide::DecideArgs),
    /// Run a command through the gate: allowed ⇒ run it; ask ⇒ prompt on the terminal; denied ⇒ exit 126.
    Exec(exec::ExecArgs),
    /// Print a shell completion script (bash, zsh, fish, …) on stdout.
    Completions(completions::CompletionsArgs),
    /// Manage persistent approvals (the netclaw-compatible store).
    #[command(subcommand, disable_help_subcommand = true)]
    Approvals(approvals::ApprovalsCmd),
    /// Create, show and end sessions.
    #[command(subcommand)]
    Session(session::SessionCmd),
    /// Host adapter: read one hook event on stdin, answer in the host's format.
    Hook(hook::HookArgs),
    /// Merge the shellgate hook into a host's settings (claude-code, gemini, codex).
    Install(install::InstallArgs),
    /// Remove the shellgate hook from a host's settings.
    Uninstall(install::UninstallArgs),
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum AudienceArg {
    Personal,
    Team,
    Public,
}

impl From<AudienceArg> for Audience {
    fn from(a: AudienceArg) -> Audience {
        match a {
            AudienceArg::Personal => Audience::Personal,
            AudienceArg::Team => Audience::Team,
            AudienceArg::Public => Audience::Public,
        }
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum ChannelArg {
    Interactive,
    Headless,
    Reminder,
    Webhook,
}

impl From<ChannelArg> for Channel {
    fn from(c: ChannelArg) -> Channel {
        match c {
            ChannelArg::Interactive => Channel::Interactive,
            ChannelArg::Headless => Channel::Headless,
            ChannelArg::Reminder => Channel::Reminder,
            ChannelArg::Webhook => Channel::Webhook,
        }
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum OsArg {
    Linux,
    Macos,
    Windows,
}

impl From<OsArg> for Os {
    fn from(o: OsArg) -> Os {
        match o {
            OsArg::Linux => Os::Linux,
            OsArg::Macos => Os::Macos,
            OsArg::Windows => Os::Windows,
        }
    }
}

/// Options shared by every command that evaluates a call.
#[derive(Args, Debug, Clone)]
pub struct CallArgs {
    /// Explicit working directory of the call.
    #[arg(long, value_name = "DIR")]
    cwd: Option<String>,
    /// The session's project directory (a safe space for read-only verbs).
    #[arg(long, value_name = "DIR")]
    project_dir: Option<String>,
    /// Session id (default: "default").
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Audience of the call (default: personal).
    #[arg(long, value_enum)]
    audience: Option<AudienceArg>,
    /// Channel of the call (default: interactive).
    #[arg(long, value_enum)]
    channel: Option<ChannelArg>,
    /// Operating-system semantics (default: this host).
    #[arg(long, value_enum)]
    os: Option<OsArg>,
    /// Tool name (default shell_execute; for file tools the argument is the path).
    #[arg(long, value_name = "NAME", default_value = "shell_execute")]
    tool: String,
    /// The command (words are joined with spaces).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

impl CallArgs {
    pub fn flags(&self) -> CallFlags {
        CallFlags {
            session: self.session.clone(),
            audience: self.audience.map(Into::into),
            channel: self.channel.map(Into::into),
            project_dir: self.project_dir.clone(),
            os: self.os.map(Into::into),
        }
    }

    pub fn command_text(&self) -> String {
        self.command.join(" ")
    }
}

/// Run the command line: parse arguments, dispatch, map errors to exit
/// codes (2 usage, 1 internal), never panic out.
pub fn main_entry() -> ExitCode {
    // One line on stderr, never a backtrace of internals; callers see a
    // non-zero exit (fail closed).
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("shellgate: internal error{at}");
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // A gate that hangs is as bad as one that crashes (hosts time the hook
    // out and may let the call through): one-shot evaluations run under a
    // watchdog and fail closed when it fires.
    let watchdog: Option<(Duration, u8)> = match &cli.command {
        Cmd::Hook(_) => Some((WATCHDOG, 2)),
        Cmd::Check(a) if a.batch.is_none() => Some((WATCHDOG, 1)),
        Cmd::Explain(_) | Cmd::Decide(_) => Some((WATCHDOG, 1)),
        _ => None,
    };
    let (tx, rx) = std::sync::mpsc::channel::<u8>();
    // The analysis refuses deep nesting before parsing; a generous stack is
    // a second line of defence against parser recursion.
    let worker = std::thread::Builder::new()
        .name("shellgate".into())
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            let code = run(cli);
            let _ = tx.send(code);
        });
    if let Err(e) = worker {
        eprintln!("shellgate: cannot start: {e}");
        return ExitCode::from(1);
    }
    let received = match watchdog {
        Some((limit, _)) => rx
            .recv_timeout(limit)
            .map_err(|e| matches!(e, std::sync::mpsc::RecvTimeoutError::Timeout)),
        None => rx.recv().map_err(|_| false),
    };
    let code = match received {
        Ok(code) => code,
        Err(true) => {
            let code = watchdog.map(|(_, c)| c).unwrap_or(1);
            eprintln!(
                "shellgate: the evaluation did not finish within {} s; failing closed",
                WATCHDOG.as_secs()
            );
            code
        }
        Err(false) => {
            eprintln!("shellgate: internal error (panic); failing closed");
            if matches!(watchdog, Some((_, 2))) {
                2
            } else {
                1
            }
        }
    };
    ExitCode::from(code)
}

/// Time limit of a one-shot evaluation (hosts give hooks 30–60 s).
const WATCHDOG: Duration = Duration::from_secs(10);

fn run(cli: Cli) -> u8 {
    let homes = edge::Homes::resolve(cli.home.as_deref());
    let result = match cli.command {
        Cmd::Check(a) => check::run(&homes, &a),
        Cmd::Explain(a) => explain::run(&homes, &a),
        Cmd::Decide(a) => decide::run(&homes, &a),
        Cmd::Exec(a) => exec::run(&homes, &a),
        Cmd::Completions(a) => completions::run(&a),
        Cmd::Approvals(a) => approvals::run(&homes, a),
        Cmd::Session(a) => session::run(&homes, a),
        Cmd::Hook(a) => hook::run(&homes, &a),
        Cmd::Install(a) => install::install(&homes, &a),
        Cmd::Uninstall(a) => install::uninstall(&homes, &a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if let Some(u) = e.downcast_ref::<UsageError>() {
                eprintln!("shellgate: {u}");
                2
            } else {
                eprintln!("shellgate: {e:#}");
                1
            }
        }
    }
}
