//! lspedit: safe, hash-anchored file edits for coding agents.
//!
//! This facade re-exports the workspace crates so that embedders depend on one package:
//! [`engine`] (pure text and patch engine), [`lsp`] (language-server pool), [`servers`] (which
//! servers exist, which program may run, installing them), [`process`] (how a program is run:
//! process groups, bounded runs, the sandbox), [`tools`] (the agent tools with
//! diagnostics feedback, and the [`tools::Session`] the CLI runs on) and `mcp` (the MCP server,
//! feature `mcp`); `testing` (feature `testing`) helps test suites. Installing the
//! language servers is [`servers::install`].
//!
//! Features: `cli` (default) builds the `lspedit` binary and enables `mcp`. A library user
//! who wants neither depends with `default-features = false` and gets no clap,
//! tracing-subscriber or rmcp. [`tools::LspProvider::open`] finds the servers that
//! `lspedit servers install` put in [`servers::config::default_servers_dir`] without any
//! environment variable.

pub use lspedit_engine as engine;
pub use lspedit_lsp as lsp;
#[cfg(feature = "mcp")]
pub use lspedit_mcp as mcp;
pub use lspedit_process as process;
pub use lspedit_servers as servers;
pub use lspedit_tools as tools;

#[cfg(feature = "testing")]
pub mod testing;
