//! shellgate engine.
//!
//! The pure core runs parse → analyze → candidates → policy decision → prompt
//! model; file and database I/O live at the edges (`store`, `state`, `config`).
#![forbid(unsafe_code)]

pub mod fs;
pub mod model;
pub use model::{Audience, Channel, Os};
pub mod candidates;
pub mod config;
pub mod hard_deny;
pub mod policy;
pub mod prompt;
pub mod protected;
pub mod render;
pub mod safe_verbs;
