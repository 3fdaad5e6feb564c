//! Integration tests of LSP edits: scripted fake servers and real ones.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod lookups_fake;
mod lookups_real;
mod lsp_edits_fake;
mod lsp_edits_real;
mod symbol_edits_real;
mod symbol_extent_fake;
mod symbol_extent_real;
mod symbols_real;
