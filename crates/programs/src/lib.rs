//! The program model: for every program the gate reasons about, how its
//! own parser reads argv (options with arity, abbreviations, clusters,
//! glued values, `--`, subcommands and their global options), what each
//! option value and operand *is* (a file read or written, a directory,
//! program text, a command string, a network destination…), which forms
//! are read-only, and which options change what a grant covers.
//!
//! The data lives in `specs/*.toml` (format: `SPECS.md`) and is compiled
//! into static tables by the build script; each spec carries examples that
//! the policy's tests check end to end.
//!
//! ```
//! use shellgate_programs::{lookup, parse, Arg, judge};
//! let sort = lookup("sort").unwrap();
//! let args = [Arg::Static("--comp=sh"), Arg::Static("f")];
//! let p = parse(sort, &args);
//! assert!(judge::read_only(&p, &args).is_err());
//! assert!(!judge::uncovered(&p, &args).is_empty());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod argv;
pub mod checks;
pub mod judge;
#[allow(missing_docs)]
pub mod spec;

pub use argv::{parse, Arg, OptUse, Parsed, Problem, ValueAt};
pub use spec::{fx, Arity, Example, Expect, Kind, Node, Opt, Program, Role, Slot, Style};

#[allow(missing_docs)]
mod generated {
    use crate::spec::*;
    include!(concat!(env!("OUT_DIR"), "/specs.rs"));
}

pub use generated::{lookup, EXAMPLES, PROGRAMS};
