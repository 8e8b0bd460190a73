//! The shellgate approval policy (SPEC §4–§9, §12): given a call and the
//! bash analysis of `shellgate-shell`, decide allow / ask / deny.
//!
//! The decision is pure apart from two traits: grants and one-time
//! approvals come through [`decision::Lookups`] (implemented by
//! `shellgate-store`), file-system facts through [`fs::Fs`] ([`fs::OsFs`]
//! for the real disk).
//!
//! Modules, in the order a call meets them:
//! - [`model`] — audiences, channels, OS semantics, tool names;
//! - [`config`] — `policy.toml` and user safe-verb files;
//! - [`candidates`] — the `(verb, directory)` candidates of a command (§4, §5);
//! - [`hard_deny`] — destructive commands never allowed (§9.3);
//! - [`protected`] — the gate's own files and hosts' hook settings (§9.4);
//! - [`safe_verbs`] — read-only verbs, with their data and argument rules (§8);
//! - [`read_roots`] — system locations and toolchain caches read-only verbs may read;
//! - [`sandboxable`] — which commands may run inside the OS sandbox (§18);
//! - [`decision`] — the ordered layers of §9.1, file tools (§9.6), answers (§12.1);
//! - [`prompt`] and [`render`] — the question put to a human and its
//!   terminal, Slack and Discord renderings (§7);
//! - [`fs`] — the file-system trait and the symlink-segment rule (§5.4);
//! - [`resolve`] — paths as the kernel resolves them, containment made
//!   twice, globs (§15.11);
//! - [`secrets`] — secret-looking names in every shape a reader names them
//!   (§8.3, §15.3, §15.19);
//! - [`creates`] — what copies, moves, links, extractions and patches create
//!   (§15.18);
//! - [`repo`] — which git repository a command opens, git's internals
//!   (§15.5, §15.17).
#![forbid(unsafe_code)]

pub mod candidates;
pub mod config;
pub mod creates;
pub mod decision;
pub mod fs;
pub mod hard_deny;
pub mod model;
pub mod objects;
pub mod prompt;
pub mod protected;
pub mod read_roots;
pub mod render;
pub mod repo;
pub mod resolve;
pub mod safe_verbs;
pub mod sandboxable;
pub mod secrets;

pub use decision::{evaluate, Context, Decision, Lookups, NoLookups, Policy, Request, RunEnv};
pub use model::{Audience, Channel, Os};
