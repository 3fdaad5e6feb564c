//! lspedit-mcp: the MCP server of lspedit, built on the official `rmcp` SDK, over stdio.
//!
//! Tools: `read_file`, `edit`, `write_file`, `apply_patch`, `propose_edit`, `apply_edit`,
//! `undo`, `diagnostics`, and the LSP edit tools `rename_symbol`, `code_actions`,
//! `apply_code_action`, `references`, `definition`, `outline`, `find_symbol`,
//! `replace_symbol_body`, `insert_before_symbol`, `insert_after_symbol` ([`lsp_tools`]), and
//! the lookups `hover`, `call_hierarchy`, `implementations`, `type_definition`
//! ([`lookup_tools`]).
//! Each tool's description says what it does, when to use it and what it returns; the
//! conventions they share (anchors, workspace-relative paths, the diagnostics block, reason
//! codes) are stated once, in the server instructions ([`profile`]). A server lists a
//! [`ToolSet`] (`core`, `lsp`, `workflow` or `all`) with input schemas of a [`SchemaProfile`]:
//! the portable default, which Gemini's function parameters accept, or `strict`, which OpenAI's
//! strict function calling accepts ([`schema`]). Refusals are `isError` results whose text is
//! the tool's `llm_content`. Every result also carries `structuredContent` matching the tool's
//! `outputSchema` ([`output`]).
//! The stdio transport ([`LineTransport`]) answers oversized and malformed messages with
//! JSON-RPC errors.
//!
//! The server runs over a [`Session`](lspedit_session::Session) (the tools,
//! the workflow and the language-server pool of one workspace, shared with the CLI); this crate
//! adds the MCP surface: argument schemas, and structured results built from the session's.
//!
//! This crate never prints: stdout is the protocol channel, logs go through `tracing` (the
//! binary sends them to stderr).
//!
//! ```no_run
//! use std::sync::Arc;
//! use lspedit_lsp::PoolConfig;
//! use lspedit_mcp::serve_stdio;
//! use lspedit_session::Session;
//! use lspedit_tools::ToolsConfig;
//! use lspedit_write::Workspace;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let ws = Workspace::open("/path/to/repo")?;
//! let pool = PoolConfig::load(ws.root())?;
//! let session = Arc::new(Session::new(ws, Some(pool), ToolsConfig::default()));
//! serve_stdio(session).await?;
//! # Ok(()) }
//! ```
//!
//! The five core tools with strict schemas (`lspedit mcp --tools core --schema-profile strict`):
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use lspedit_mcp::{LspeditServer, SchemaProfile, ToolSet, serve_stdio_with};
//! # async fn run(session: Arc<lspedit_session::Session>) -> Result<(), Box<dyn std::error::Error>> {
//! let server = LspeditServer::new(session)
//!     .with_tools(&[ToolSet::Core])
//!     .with_schema_profile(SchemaProfile::Strict);
//! serve_stdio_with(server).await?;
//! # Ok(()) }
//! ```

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod documented_codes;
pub mod lookup_tools;
pub mod lsp_tools;
pub mod output;
pub mod profile;
#[cfg(test)]
mod provider_rules;
pub mod schema;
mod server;
mod transport;

pub use profile::{SchemaProfile, ToolSet};
pub use server::{
    ApplyEditArgs, ApplyPatchArgs, BaseShaArg, DiagnosticsArgs, EditArgs, LspeditServer,
    MAX_MESSAGE_BYTES_ENV, ProposeEditArgs, ReadFileArgs, SERVER_NAME, SERVER_VERSION, ServeError,
    UndoArgs, WriteFileArgs, max_message_bytes, serve_stdio, serve_stdio_with, to_call_result,
    tool_characters,
};
pub use transport::{DEFAULT_MAX_MESSAGE_BYTES, LineTransport};
