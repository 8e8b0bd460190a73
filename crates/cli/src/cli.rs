//! The command line's shape: the subcommands and the options they share
//! (clap definitions only; each subcommand's own options live with it in
//! `commands/`).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use shellgate_policy::{Audience, Channel, Os};

use crate::commands::{
    approvals, check, completions, decide, doctor, exec, install, sandbox, serve, session,
};
use crate::edge::CallFlags;
use crate::hooks;

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
pub struct Cli {
    /// The gate's home directory (default: $SHELLGATE_HOME, else ~/.shellgate).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
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
    Hook(hooks::HookArgs),
    /// Merge the shellgate hook into a host's settings (claude-code, gemini, codex).
    Install(install::InstallArgs),
    /// Remove the shellgate hook from a host's settings.
    Uninstall(install::UninstallArgs),
    /// Run a command under the OS sandbox: writes only inside the project, no network.
    Sandbox(sandbox::SandboxArgs),
    /// Check each installed host: version, hook present and trusted, matcher, fail-closed setting, gate home.
    Doctor(doctor::DoctorArgs),
    /// Run the approval service: a local page (and a socket for hooks) where a human answers asks.
    Serve(serve::ServeArgs),
    /// List the requests waiting in the approval service.
    Pending(serve::PendingArgs),
    /// Answer a request waiting in the approval service (exit 1: unknown id or option not offered).
    Answer(serve::AnswerArgs),
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
    pub cwd: Option<String>,
    /// The session's project directory (a safe space for read-only verbs).
    #[arg(long, value_name = "DIR")]
    pub project_dir: Option<String>,
    /// Session id (default: "default").
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Audience of the call (default: personal).
    #[arg(long, value_enum)]
    pub audience: Option<AudienceArg>,
    /// Channel of the call (default: interactive).
    #[arg(long, value_enum)]
    pub channel: Option<ChannelArg>,
    /// Operating-system semantics (default: this host).
    #[arg(long, value_enum)]
    pub os: Option<OsArg>,
    /// Tool name (default shell_execute; for file tools the argument is the path).
    #[arg(long, value_name = "NAME", default_value = "shell_execute")]
    pub tool: String,
    /// The command (words are joined with spaces).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
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

    /// The call as the policy reads it, the working directory written with
    /// `~` expanded against the user's home.
    pub fn request(&self, user_home: &str) -> shellgate_policy::Request {
        shellgate_policy::Request {
            tool: self.tool.clone(),
            command: self.command_text(),
            working_directory: self
                .cwd
                .as_ref()
                .map(|c| crate::edge::normalize_dir(c, user_home)),
        }
    }
}
