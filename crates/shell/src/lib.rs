//! Bash analysis for command gates.
//!
//! Parse a shell command line the way bash would (through brush-parser,
//! behind this crate's own small AST), then walk it: every simple command
//! wherever it occurs — pipelines, lists, groups, substitutions, `bash -c`
//! strings, wrappers such as `env` or `timeout` — with its effective working
//! directory, its verb, and the reasons the command cannot be judged
//! statically ("complex" reasons).
//!
//! The crate is pure: no file system, no network, no clock. Paths are
//! handled lexically; facts about the file system are the caller's business.
//!
//! ```
//! use shellgate_shell::analyze::{analyze, Env};
//!
//! let env = Env {
//!     home: "/home/u".into(),
//!     ..Default::default()
//! };
//! let a = analyze("cd sub && git status | head", Some("/home/u/p"), &env);
//! let programs: Vec<String> = a.invocations.iter().filter_map(|i| i.program()).collect();
//! assert_eq!(programs, ["cd", "git", "head"]);
//! assert_eq!(a.invocations[1].cwd.as_deref(), Some("/home/u/p/sub"));
//! assert!(!a.is_complex());
//! ```
//!
//! Modules, in the order data flows through them:
//! - [`parse`] — the only module that knows brush-parser; produces
//!   [`syntax`] trees of [`word::Word`]s;
//! - [`analyze`] — the walk: simple commands ([`analyze::Invocation`]),
//!   complex reasons, approval units;
//! - [`verbs`] — the verb chain of a command (`git remote add` …) and
//!   approval units;
//! - [`pathlike`] — whether an operand names a path;
//! - [`display`] — the text shown to a human;
//! - [`paths`] — lexical path helpers.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analyze;
pub mod brace;
pub mod display;
pub mod parse;
pub mod pathlike;
pub mod paths;
pub mod syntax;
pub mod verbs;
pub mod word;
