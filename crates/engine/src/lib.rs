//! shellgate engine.
//!
//! The pure core runs parse → analyze → candidates → policy decision → prompt
//! model; file and database I/O live at the edges (`store`, `state`, `config`).
#![forbid(unsafe_code)]

pub mod paths;
pub mod model;
pub use model::{Audience, Channel, Os};
