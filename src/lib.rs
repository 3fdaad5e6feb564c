//! lspedit: safe, hash-anchored file edits for coding agents.
//!
//! This facade re-exports the workspace crates so that embedders depend on one package:
//! [`engine`] (pure text and patch engine), [`lsp`] (language-server pool), [`tools`] (the agent
//! tools with diagnostics feedback) and [`mcp`] (the MCP server). [`servers`] manages the
//! language-server installs; [`testing`] (feature `testing`) helps test suites.

pub use lspedit_engine as engine;
pub use lspedit_lsp as lsp;
pub use lspedit_mcp as mcp;
pub use lspedit_tools as tools;

pub mod servers;
#[cfg(feature = "testing")]
pub mod testing;
