//! git's on-disk formats, read the way git reads them, for the two places
//! that must agree on what a repository will do: the policy (is a
//! repository one git can open safely, what does a command create) and the
//! sandbox (which of a repository's files must stay read-only). One reader
//! each, so both see the same `core.hooksPath`, the same includes and the
//! same index entries. Pure functions over bytes the caller read (bounded
//! by the caller); nothing here touches the file system.

pub mod config;
pub mod index;
pub mod objects;
