//! shellgate engine.
//!
//! The pure core runs parse → analyze → candidates → policy decision → prompt
//! model; file and database I/O live at the edges (`store`, `state`, `config`).
#![forbid(unsafe_code)]

pub mod model;
pub mod paths;
pub use model::{Audience, Channel, Os};
pub mod analyze;
pub mod config;
pub mod parse;
pub mod pathlike;
pub mod state;
pub mod store;
pub mod syntax;
pub mod verbs;
pub mod word;
