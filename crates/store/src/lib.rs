//! shellgate's persistent state, and the only crate that touches SQLite:
//!
//! - [`grant_file`] — persistent grants in `config/tool-approvals.json`,
//!   byte-compatible with netclaw: format, load and quarantine, locked
//!   atomic writes, matching;
//! - [`state`] — the state database `state/shellgate.db`: sessions, session
//!   grants, one-time approvals, the decision log;
//! - [`lookups`] — both behind the policy's `Lookups` trait.
#![forbid(unsafe_code)]

pub mod grant_file;
pub mod lookups;
pub mod state;

pub use grant_file::{Store, StoreCache, StoreError};
pub use lookups::StoreLookups;
pub use state::{StateDb, StateError};
