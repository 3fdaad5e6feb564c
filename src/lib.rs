//! lspedit: safe, hash-anchored file edits for coding agents.
//!
//! This facade re-exports the workspace crates so that embedders depend on one package.
pub use lspedit_engine as engine;
pub use lspedit_tools as tools;
