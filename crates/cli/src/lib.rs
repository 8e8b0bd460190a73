//! The `shellgate` command line, on top of `shellgate-policy` (the
//! decision) and `shellgate-store` (grants and state). The binary
//! (`main.rs`) only calls [`main_entry`]; the library exists so fuzz
//! targets can drive the hooks.
//!
//! - [`cli`] — the clap definitions;
//! - [`commands`] — one module per subcommand;
//! - [`hooks`] — `shellgate hook <host>`: shared event plumbing and one
//!   module per host;
//! - [`edge`] — what every command shares: homes, the policy file, the
//!   grant store and state database, contexts, the watchdog.

pub mod cli;
pub mod commands;
pub mod edge;
pub mod hooks;
pub mod origin;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use crate::cli::{Cli, Cmd};
use crate::commands::{
    approvals, check, completions, decide, doctor, exec, explain, install, sandbox, serve, session,
};
use crate::edge::{UsageError, WATCHDOG};

/// Run the command line: parse arguments, dispatch, map errors to exit
/// codes (2 usage, 1 internal), never panic out.
pub fn main_entry() -> ExitCode {
    ExitCode::from(main_status())
}

fn main_status() -> u8 {
    // One line on stderr, never a backtrace of internals; callers see a
    // non-zero exit (fail closed).
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("shellgate: internal error{at}");
    }));
    // The hook runs for every tool call of an agent: its arguments are read
    // without building clap's command tree.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some((home, a)) = hooks::fast_args(&args) {
        return hooks::main(home.as_deref(), &a);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    // The sandbox confines this very process and execs the command: user
    // namespaces need a single-threaded process, so it runs here, on the
    // main thread, before the watchdog's worker thread exists.
    if let Cmd::Sandbox(a) = &cli.command {
        let homes = edge::Homes::resolve(cli.home.as_deref());
        return sandbox::run(&homes, a);
    }
    // A hook that crashes, is killed or hangs lets the tool run in Codex
    // and Gemini CLI: `hooks::main` forks its supervisor first, while the
    // process has only one thread.
    if let Cmd::Hook(a) = &cli.command {
        return hooks::main(cli.home.as_deref(), a);
    }
    // A gate that hangs is as bad as one that crashes (hosts time the hook
    // out and may let the call through): one-shot evaluations run under a
    // watchdog and fail closed when it fires.
    let watchdog: Option<(Duration, u8)> = match &cli.command {
        Cmd::Check(a) if a.batch.is_none() => Some((WATCHDOG, 1)),
        Cmd::Explain(_) | Cmd::Decide(_) => Some((WATCHDOG, 1)),
        _ => None,
    };
    edge::run_guarded(watchdog, move || run(cli))
}

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
        // Dispatched on the main thread by `main_entry`.
        Cmd::Hook(a) => Ok(hooks::main(cli.home.as_deref(), &a)),
        Cmd::Install(a) => install::install(&homes, &a),
        Cmd::Uninstall(a) => install::uninstall(&homes, &a),
        // Dispatched on the main thread by `main_entry`.
        Cmd::Sandbox(a) => Ok(sandbox::run(&homes, &a)),
        Cmd::Doctor(a) => doctor::run(&homes, &a),
        Cmd::Serve(a) => serve::serve(&homes, &a),
        Cmd::Pending(a) => serve::pending(&homes, &a),
        Cmd::Answer(a) => serve::answer(&homes, &a),
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
