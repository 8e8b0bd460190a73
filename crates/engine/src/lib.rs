//! shellgate engine.
//!
//! The pure core runs parse → analyze → candidates → policy decision → prompt
//! model; file and database I/O live at the edges (`store`, `state`, `config`).
#![forbid(unsafe_code)]

pub mod model;
pub mod paths;
pub use model::{Audience, Channel, Os};
pub mod analyze;
pub mod candidates;
pub mod config;
pub mod display;
pub mod hard_deny;
pub mod parse;
pub mod pathlike;
pub mod policy;
pub mod prompt;
pub mod protected;
pub mod render;
pub mod safe_verbs;
pub mod state;
pub mod store;
pub mod syntax;
pub mod verbs;
pub mod word;
