//! One module per subcommand: its own options (clap `Args`) and its `run`.
//! Shared pieces live in [`crate::edge`]; the hook adapters, which are a
//! subcommand too, live in [`crate::hooks`]. New subcommands get a module
//! here and a variant in [`crate::cli::Cmd`].

pub mod approvals;
pub mod check;
pub mod codex_trust;
pub mod completions;
pub mod decide;
pub mod doctor;
pub mod exec;
pub mod explain;
pub mod hostinfo;
pub mod install;
pub mod run_watch;
pub mod sandbox;
pub mod serve;
pub mod session;
