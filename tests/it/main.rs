//! End-to-end tests of the `lspedit` package: the CLI binary, the MCP server (driven by rmcp's
//! client, and by the official Python and TypeScript MCP SDKs: `mcp_python.rs`,
//! `mcp_interop.rs`), and the `testing` feature against real servers.
//!
//! Real-server tests need the pinned servers (`bash scripts/install-servers` or
//! `lspedit servers install`). Without them a test says so on stderr and passes, unless
//! `LSPEDIT_REQUIRE_SERVERS=1` (set by `scripts/test`), where it fails.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used)]

mod bounds;
mod cli;
mod cli_lsp_edits;
mod exfiltration;
mod harness;
mod host;
mod host_configs;
mod languages;
mod mcp;
mod mcp_interop;
mod mcp_lsp_edits;
mod mcp_policy;
mod mcp_profiles;
mod mcp_python;
mod mcp_writers;
mod orphans;
mod planted;
mod security;
mod testing_example;
