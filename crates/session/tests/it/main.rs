//! Integration tests of the session the CLI and the MCP server run on.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod asynchronous;
mod session;
