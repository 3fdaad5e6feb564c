//! lspedit: safe, hash-anchored file edits for coding agents.
//!
//! This facade re-exports the workspace crates, each once, under the name of its floor, so
//! that embedders depend on one package:
//!
//! - [`engine`]: the pure text and patch engine (anchors, parsing, placement, diffs);
//! - [`write`](mod@write): the write core: the confined [`Workspace`](write::Workspace), the
//!   planner, the one committer and [`write::apply_patch`];
//! - [`tools`]: the agent tools (`read_file`, `edit`, `write_file`, `apply_patch`) with the
//!   diagnostics of what a write broke, and the event stream;
//! - [`workflow`]: propose → approve → apply → undo, with stored patches, checkpoints and
//!   evidence, under the operator's [`workflow::Policy`];
//! - [`lsp_edits`]: rename, code actions, references and definition through the workflow;
//! - [`session`]: the [`session::Session`] the CLI and the MCP server run on;
//! - [`truncation`]: the truncation-safe executor an embedder drives a model with;
//! - [`lsp`]: the language-server pool (running servers, speaking LSP, settling diagnostics);
//! - [`servers`]: which servers exist, which program may run, installing them
//!   ([`servers::install`]);
//! - [`process`]: how a program is run: process groups, bounded runs, the sandbox;
//! - `mcp` (feature `mcp`): the MCP server; `testing` (feature `testing`) helps test suites.
//!
//! Features: `cli` (default) builds the `lspedit` binary and enables `mcp`. A library user
//! who wants neither depends with `default-features = false` and gets no clap,
//! tracing-subscriber or rmcp. [`tools::LspProvider::open`] finds the servers that
//! `lspedit servers install` put in [`servers::config::default_servers_dir`] without any
//! environment variable.
//!
//! From async code, every operation has an async form: [`session::AsyncSession`] (`run` for
//! any call of the session, `lsp_edits` for the LSP edits, lookups and symbol tools) and
//! [`tools::AsyncTools`], both on [`tools::run_blocking`]; see README "Embedding".

pub use lspedit_engine as engine;
pub use lspedit_lsp as lsp;
pub use lspedit_lsp_edits as lsp_edits;
#[cfg(feature = "mcp")]
pub use lspedit_mcp as mcp;
pub use lspedit_process as process;
pub use lspedit_servers as servers;
pub use lspedit_session as session;
pub use lspedit_tools as tools;
pub use lspedit_truncation as truncation;
pub use lspedit_workflow as workflow;
pub use lspedit_write as write;

#[cfg(feature = "testing")]
pub mod testing;

/// README.md, whose Rust examples ("Embedding", "Testing your own integration") are doc tests
/// of this crate: `cargo test --doc -p lspedit` compiles each against this library. README.md
/// is in the package's `include`, and this `include_str!` is part of every build, so a package
/// without it fails `cargo package`'s verify build.
#[doc = include_str!("../README.md")]
mod readme {}
